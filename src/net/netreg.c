#include "net/netreg.h"

#include <errno.h>
#include <stddef.h>

#include "core/node.h"

void wren_netreg_init(struct wren_netreg *reg)
{
    for (unsigned i = 0; i < WREN_NETTYPE_NUMOF; i++) {
        reg->head[i] = NULL;
    }
}

int wren_netreg_register(struct wren_node *node, uint8_t type, uint32_t demux,
                         struct wren_module *module, struct wren_netreg_entry *entry)
{
    if (type >= WREN_NETTYPE_NUMOF) {
        return -EINVAL;
    }
    struct wren_netreg_entry **pp = &node->netreg.head[type];
    while (*pp) {
        if (*pp == entry) {
            return -EALREADY;
        }
        pp = &(*pp)->next;
    }
    /* appended, so that dispatch order is registration order */
    entry->next = NULL;
    entry->module = module;
    entry->demux = demux;
    *pp = entry;
    return 0;
}

void wren_netreg_unregister(struct wren_node *node, uint8_t type,
                            struct wren_netreg_entry *entry)
{
    if (type >= WREN_NETTYPE_NUMOF) {
        return;
    }
    for (struct wren_netreg_entry **pp = &node->netreg.head[type]; *pp; pp = &(*pp)->next) {
        if (*pp == entry) {
            *pp = entry->next;
            entry->next = NULL;
            return;
        }
    }
}

struct wren_netreg_entry *wren_netreg_lookup(struct wren_node *node, uint8_t type,
                                             uint32_t demux,
                                             struct wren_netreg_entry *prev)
{
    if (type >= WREN_NETTYPE_NUMOF) {
        return NULL;
    }
    struct wren_netreg_entry *e = prev ? prev->next : node->netreg.head[type];
    for (; e; e = e->next) {
        if (e->demux == demux) {
            return e;
        }
    }
    return NULL;
}

unsigned wren_netreg_count(struct wren_node *node, uint8_t type, uint32_t demux)
{
    unsigned n = 0;
    for (struct wren_netreg_entry *e = wren_netreg_lookup(node, type, demux, NULL); e;
         e = wren_netreg_lookup(node, type, demux, e)) {
        n++;
    }
    return n;
}

#include "net/netapi.h"

#include <errno.h>
#include <string.h>

#include "core/node.h"
#include "net/netopt.h"

/* out of line: every GET answers through it, one copy in ROM */
int wren_netopt_put(void *val, size_t max, const void *src, size_t len)
{
    if (max < len) {
        return -EOVERFLOW;
    }
    memcpy(val, src, len);
    return (int)len;
}

static int post_pkt(struct wren_node *node, struct wren_module *module,
                    uint16_t type, struct wren_snip *pkt)
{
    struct wren_msg msg = { .type = type, .ptr = pkt };
    int res = wren_sched_post(node, module, &msg);
    if (res < 0) {
        wren_pktbuf_release(&node->pktbuf, pkt);
    }
    return res;
}

int wren_netapi_send(struct wren_node *node, struct wren_module *module,
                     struct wren_snip *pkt)
{
    return post_pkt(node, module, WREN_MSG_SND, pkt);
}

int wren_netapi_receive(struct wren_node *node, struct wren_module *module,
                        struct wren_snip *pkt)
{
    return post_pkt(node, module, WREN_MSG_RCV, pkt);
}

/* The first entry for @p demux from @p e on (one list per type). */
static inline struct wren_netreg_entry *match(struct wren_netreg_entry *e, uint32_t demux)
{
    while (e && e->demux != demux) {
        e = e->next;
    }
    return e;
}

int wren_netapi_try_dispatch(struct wren_node *node, uint8_t type, uint32_t demux,
                             const struct wren_msg *msg)
{
    if (type >= WREN_NETTYPE_NUMOF) {
        return 0;
    }
    struct wren_netreg_entry *first = match(node->netreg.head[type], demux);
    if (first == NULL) {
        return 0;
    }
    struct wren_netreg_entry *e = match(first->next, demux);
    if (e == NULL) {
        /* the common case: one receiver, no extra reference, one walk */
        if (wren_sched_post(node, first->module, msg) < 0) {
            wren_pktbuf_release(&node->pktbuf, msg->ptr);
        }
        return 1;
    }
    unsigned n = 2;
    while ((e = match(e->next, demux)) != NULL) {
        n++;
    }
    wren_pktbuf_hold(&node->pktbuf, msg->ptr, n - 1);
    for (e = first; e; e = match(e->next, demux)) {
        if (wren_sched_post(node, e->module, msg) < 0) {
            wren_pktbuf_release(&node->pktbuf, msg->ptr);
        }
    }
    return (int)n;
}

int wren_netapi_dispatch(struct wren_node *node, uint8_t type, uint32_t demux,
                         uint16_t msg_type, struct wren_snip *pkt)
{
    struct wren_msg msg = { .type = msg_type, .ptr = pkt };
    int n = wren_netapi_try_dispatch(node, type, demux, &msg);
    if (n == 0) {
        wren_pktbuf_release(&node->pktbuf, pkt);
    }
    return n;
}

int wren_netapi_get(struct wren_node *node, struct wren_module *module, uint16_t opt,
                    uint16_t ctx, void *val, size_t max)
{
    if (module->ops->get == NULL) {
        return -ENOTSUP;
    }
    return module->ops->get(node, module, opt, ctx, val, max);
}

int wren_netapi_set(struct wren_node *node, struct wren_module *module, uint16_t opt,
                    uint16_t ctx, const void *val, size_t len)
{
    if (module->ops->set == NULL) {
        return -ENOTSUP;
    }
    return module->ops->set(node, module, opt, ctx, val, len);
}

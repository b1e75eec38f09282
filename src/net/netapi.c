#include "net/netapi.h"

#include <errno.h>

#include "core/node.h"

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

int wren_netapi_dispatch(struct wren_node *node, uint8_t type, uint32_t demux,
                         uint16_t msg_type, struct wren_snip *pkt)
{
    struct wren_netreg_entry *first = wren_netreg_lookup(node, type, demux, NULL);
    if (first == NULL) {
        wren_pktbuf_release(&node->pktbuf, pkt);
        return 0;
    }
    struct wren_netreg_entry *e = wren_netreg_lookup(node, type, demux, first);
    if (e == NULL) {
        /* the common case: one receiver, no extra reference */
        post_pkt(node, first->module, msg_type, pkt);
        return 1;
    }
    unsigned n = 2;
    while ((e = wren_netreg_lookup(node, type, demux, e)) != NULL) {
        n++;
    }
    wren_pktbuf_hold(&node->pktbuf, pkt, n - 1);
    for (e = first; e; e = wren_netreg_lookup(node, type, demux, e)) {
        post_pkt(node, e->module, msg_type, pkt);
    }
    return (int)n;
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

/* The NDN module: its message handler, GET/SET and start. The forwarder's
 * tables are in wren_ndn_fwd.c, the faces in wren_ndn_face.c. */
#include "ndn/ndn.h"

#include <errno.h>
#include <string.h>

#include "core/node.h"
#include "ndn/ndn_priv.h"
#include "net/netapi.h"
#include "net/netopt.h"
#include "net/nettype.h"
#include "shell/shell.h"

/* an application's packet (SND, msg->arg its face): one snip of its own */
static void app_rx(struct wren_ndn *ndn, uint8_t face, struct wren_snip *pkt)
{
    struct wren_pktbuf *pb = &ndn->node->pktbuf;
    const struct wren_ndn_face *f = wren_ndn_face(ndn, face);
    if (f == NULL || f->kind != WREN_NDN_FACE_APP || pkt == NULL) {
        ndn->stats.rx_drop_no_face++;
        if (pkt) {
            wren_pktbuf_release(pb, pkt);
        }
        return;
    }
    if (pkt->next && wren_pktbuf_merge(pb, &pkt) < 0) {
        ndn->stats.rx_drop_nobuf++;
        wren_pktbuf_release(pb, pkt);
        return;
    }
    wren_ndn_fwd_rx(ndn, face, pkt);
}

static void ndn_handle(struct wren_node *node, struct wren_module *self, const struct wren_msg *msg)
{
    struct wren_ndn *ndn = (struct wren_ndn *)self;
    if (msg->type == WREN_MSG_RCV && msg->ptr) {
        wren_ndn_face_link_rx(ndn, msg->ptr);
    } else if (msg->type == WREN_MSG_SND) {
        app_rx(ndn, (uint8_t)msg->arg, msg->ptr);
    } else if (msg->ptr && msg->type != WREN_MSG_SIGNAL) {
        wren_pktbuf_release(&node->pktbuf, msg->ptr);
    }
}

static int ndn_get(struct wren_node *node, struct wren_module *self, uint16_t opt, uint16_t ctx,
                   void *val, size_t max)
{
    (void)node;
    struct wren_ndn *ndn = (struct wren_ndn *)self;
    if (opt == WREN_NETOPT_STATS) {
        struct wren_ndn_stats s = ndn->stats; /* the lp_* tail from NDNLPv2's own */
        memcpy(&s.lp_rx, &ndn->lp.stats, sizeof(ndn->lp.stats));
        return wren_netopt_put(val, max, &s, sizeof(s));
    }
    if (opt == WREN_NETOPT_NDN_FACE) {
        const struct wren_ndn_face *f = ctx <= 255 ? wren_ndn_face(ndn, (uint8_t)ctx) : NULL;
        return f ? wren_netopt_put(val, max, f, sizeof(*f)) : -ENOENT;
    }
    return -ENOTSUP;
}

static int ndn_set(struct wren_node *node, struct wren_module *self, uint16_t opt, uint16_t ctx,
                   const void *val, size_t len)
{
    (void)node;
    (void)ctx;
    struct wren_ndn *ndn = (struct wren_ndn *)self;
    if (opt == WREN_NETOPT_NDN_FACE) {
        struct wren_ndn_face_cfg c;
        if (len != sizeof(c)) {
            return -EINVAL;
        }
        memcpy(&c, val, sizeof(c));
        return wren_ndn_face_add(ndn, &c);
    }
    if (opt == WREN_NETOPT_NDN_ROUTE) {
        struct wren_ndn_route r;
        if (len != sizeof(r)) {
            return -EINVAL;
        }
        memcpy(&r, val, sizeof(r));
        return wren_ndn_fib_set(ndn, &r);
    }
    if (opt == WREN_NETOPT_NDN_FACE_DEL && len == 1) {
        wren_ndn_face_del(ndn, *(const uint8_t *)val);
        return 0;
    }
    return -ENOTSUP;
}

static int ndn_stack_init(struct wren_node *node, struct wren_module *self, uint8_t if_id)
{
    (void)if_id;
    return wren_ndn_init(node, (struct wren_ndn *)self);
}

extern const struct wren_shell_cmd wren_ndn_shell_cmds[];

static const struct wren_counter_set ndn_counters =
    WREN_COUNTER_SET("ndn", WREN_NDN_COUNTERS, WREN_NETOPT_STATS, uint32_t);

const struct wren_module_ops wren_ndn_module = {
    .name = "ndn",
    .handle = ndn_handle,
    .get = ndn_get,
    .set = ndn_set,
    .init = ndn_stack_init,
    .size = sizeof(struct wren_ndn),
    .counters = WREN_IF_NAMES(&ndn_counters),
    .cmds = WREN_IF_SHELL(wren_ndn_shell_cmds),
};

int wren_ndn_init(struct wren_node *node, struct wren_ndn *ndn)
{
    memset(ndn, 0, sizeof(*ndn));
    ndn->module.ops = &wren_ndn_module;
    ndn->module.prio = WREN_PRIO_NET;
    ndn->node = node;
    wren_timer_init(&ndn->pit_timer, wren_ndn_pit_timer, ndn);
    /* NDNLPv2: Sequence from 0 at boot (NFD starts at a random one; after a
     * reboot a receiver's stale pieces time out in 500 ms) */
    wren_ndnlp_frag_init(&ndn->lp, &node->pktbuf, 0);
    wren_timer_init(&ndn->lp_timer, wren_ndn_lp_timer, ndn);
    int r = wren_netreg_register(node, WREN_NETTYPE_NDN, WREN_NETREG_DEMUX_ALL, &ndn->module,
                                 &ndn->reg);
    if (r == 0) {
        (void)wren_ndn_face_udp_open(ndn); /* port 6363 taken: no UDP face, the rest works */
    }
    return r;
}

void wren_ndn_flush(struct wren_ndn *ndn)
{
    wren_ndn_fwd_flush(ndn);
    wren_ndnlp_frag_clear(&ndn->lp);
    wren_timer_cancel(ndn->node, &ndn->lp_timer);
}

/* 6LoWPAN module: compression on the way down, decompression on the way up;
 * fragmentation and reassembly live in frag.c. */
#include "sixlowpan/sixlowpan.h"

#include <errno.h>
#include <string.h>

#include "core/byteorder.h"
#include "core/node.h"
#include "net/netapi.h"
#include "net/netif.h"
#include "net/netopt.h"
#include "net/nettype.h"
#include "sixlowpan/sixlowpan_priv.h"
#include "wire/inet_csum.h"
#include "wire/ipv6.h"
#include "wire/udp.h"

static void l2_of(const struct wren_netif_hdr *nh, struct sixlowpan_l2 *l2)
{
    l2->src = nh->src;
    l2->src_len = nh->src_len;
    l2->dst = nh->dst;
    l2->dst_len = nh->dst_len;
}

int wren_sixlowpan_decompress(struct wren_sixlowpan *lp, const uint8_t *buf, size_t len,
                         const struct wren_netif_hdr *nh, size_t dgram_size, uint8_t *out,
                         struct sixlowpan_iphc *res)
{
    if (len && buf[0] == SIXLOWPAN_DISPATCH_IPV6_BYTE) {
        /* uncompressed: the datagram follows the dispatch byte */
        res->udp = false;
        res->hdr_len = 1;
        return 0;
    }
    struct sixlowpan_l2 l2;
    l2_of(nh, &l2);
    int e = len ? wren_sixlowpan_iphc_parse(buf, len, &l2, wren_sixlowpan_ctxs(lp), res) : -SIXLOWPAN_ERR_DISPATCH;
    if (e == -SIXLOWPAN_ERR_DISPATCH) {
        lp->stats.rx_drop_dispatch++;
        return -1;
    }
    if (e < 0) {
        /* a failed parse leaves @p res unset: nothing of it is read */
        lp->stats.rx_drop_iphc++;
        return -1;
    }
    size_t uncomp = IPV6_HDR_LEN + (res->udp ? UDP_HDR_LEN : 0);
    size_t total = dgram_size ? dgram_size : uncomp + (len - res->hdr_len);
    if (total < uncomp || total - IPV6_HDR_LEN > UINT16_MAX) {
        lp->stats.rx_drop_iphc++;
        return -1;
    }
    res->ip.payload_len = (uint16_t)(total - IPV6_HDR_LEN);
    wren_ipv6_hdr_emit(&res->ip, out);
    if (res->udp) {
        res->uh.len = res->ip.payload_len;
        wren_udp_hdr_emit(&res->uh, out + IPV6_HDR_LEN);
    }
    return (int)uncomp;
}

/* RFC 6282 4.3.2: an elided UDP checksum is recomputed on decompression (a
 * router forwards the datagram with it); the netif header says it was
 * elided, and UDP delivers such datagrams only to receivers that ask */
static void udp_fill_csum(uint8_t *dg, size_t len)
{
    struct inet_csum c;
    wren_inet_csum_init(&c);
    wren_inet_csum_pseudo(&c, dg + 8, dg + 24, (uint32_t)(len - IPV6_HDR_LEN), IPV6_NH_UDP);
    dg[IPV6_HDR_LEN + 6] = dg[IPV6_HDR_LEN + 7] = 0;
    wren_inet_csum_update(&c, dg + IPV6_HDR_LEN, len - IPV6_HDR_LEN);
    uint16_t cs = wren_inet_csum_final(&c);
    put_be16(dg + IPV6_HDR_LEN + 6, cs ? cs : 0xffff);
}

/* Injected loss: whether to drop this datagram (a Weyl sequence through
 * murmur3's finalizer, reduced to 1/100 %). */
static bool fault_drop(struct wren_sixlowpan *lp)
{
    if (!CONFIG_WREN_SIXLOWPAN_FAULTS || lp->fault_loss == 0) {
        return false;
    }
    uint32_t z = (lp->fault_prng += 0x9e3779b9u);
    z = (z ^ (z >> 16)) * 0x85ebca6bu;
    z = (z ^ (z >> 13)) * 0xc2b2ae35u;
    z ^= z >> 16;
    return z % 10000u < lp->fault_loss;
}

void wren_sixlowpan_deliver(struct wren_sixlowpan *lp, struct wren_snip *pkt, struct wren_snip *dg,
                       bool udp_csum)
{
    if (fault_drop(lp)) {
        lp->stats.rx_drop_fault++;
        wren_pktbuf_release(&lp->node->pktbuf, dg);
        wren_pktbuf_release(&lp->node->pktbuf, pkt);
        return;
    }
    struct wren_pktbuf *pb = &lp->node->pktbuf;
    struct wren_snip *rest = pkt->next;
    if (rest) {
        wren_pktbuf_hold(pb, rest, 1);
    }
    dg->next = rest;
    wren_pktbuf_release(pb, pkt);
    if (udp_csum) {
        udp_fill_csum(dg->data, dg->size);
        struct wren_snip *nhs = wren_pkt_search(dg, WREN_NETTYPE_NETIF);
        if (nhs == NULL || wren_pktbuf_write_path(pb, &dg, &nhs) < 0) {
            lp->stats.rx_drop_nobuf++; /* the fact cannot travel: not delivered */
            wren_pktbuf_release(pb, dg);
            return;
        }
        wren_netif_hdr(nhs)->flags |= WREN_NETIF_HDR_CSUM_ELIDED;
    }
    dg->type = WREN_NETTYPE_IPV6;
    if (wren_netapi_dispatch(lp->node, WREN_NETTYPE_IPV6, WREN_NETREG_DEMUX_ALL, WREN_MSG_RCV,
                             dg) == 0) {
        lp->stats.rx_drop_dispatch++;
    }
}

static void receive(struct wren_sixlowpan *lp, struct wren_snip *pkt)
{
    struct wren_pktbuf *pb = &lp->node->pktbuf;
    struct wren_snip *nhs = wren_pkt_search(pkt, WREN_NETTYPE_NETIF);
    lp->stats.rx_frames++;
    if (nhs == NULL || pkt->size == 0) {
        lp->stats.rx_drop_dispatch++;
        goto drop;
    }
    enum wren_sixlowpan_dispatch d = wren_sixlowpan_dispatch(pkt->data[0]);
    if (d == SIXLOWPAN_DISPATCH_FRAG1 || d == SIXLOWPAN_DISPATCH_FRAGN) {
        wren_sixlowpan_reass_rx(lp, pkt);
        return;
    }
    /* the datagram goes up as one new snip: the decompressed headers (none
     * after an uncompressed dispatch), then the rest of the frame */
    struct sixlowpan_iphc res;
    uint8_t hdr[IPV6_HDR_LEN + UDP_HDR_LEN];
    int uncomp = wren_sixlowpan_decompress(lp, pkt->data, pkt->size, wren_netif_hdr(nhs), 0, hdr, &res);
    if (uncomp < 0) {
        goto drop; /* counted */
    }
    size_t rest = pkt->size - res.hdr_len;
    struct wren_snip *dg = wren_pktbuf_add(pb, NULL, NULL, (size_t)uncomp + rest,
                                           WREN_NETTYPE_IPV6);
    if (dg == NULL) {
        lp->stats.rx_drop_nobuf++;
        goto drop;
    }
    if (dg->size) { /* a 0-byte snip has no data pointer */
        memcpy(dg->data, hdr, (size_t)uncomp);
        memcpy(dg->data + uncomp, pkt->data + res.hdr_len, rest);
    }
    if (uncomp) {
        lp->stats.rx_iphc++;
    }
    wren_sixlowpan_deliver(lp, pkt, dg, res.udp && res.udp_csum_elided);
    return;

drop:
    wren_pktbuf_release(pb, pkt);
}

static void send(struct wren_sixlowpan *lp, struct wren_snip *pkt)
{
    struct wren_pktbuf *pb = &lp->node->pktbuf;
    struct wren_snip *ips = pkt ? pkt->next : NULL;
    struct ipv6_hdr ip;
    if (pkt == NULL || pkt->type != WREN_NETTYPE_NETIF || ips == NULL ||
        ips->type != WREN_NETTYPE_IPV6 || ips->size != IPV6_HDR_LEN ||
        wren_ipv6_hdr_parse(ips->data, ips->size, &ip) < 0) {
        lp->stats.tx_drop_bad++;
        wren_pktbuf_release(pb, pkt);
        return;
    }
    struct wren_snip *us = ips->next;
    struct udp_hdr uh;
    bool udp = ip.next == IPV6_NH_UDP && us && us->type == WREN_NETTYPE_UDP &&
               us->size == UDP_HDR_LEN && wren_udp_hdr_parse(us->data, us->size, &uh) == 0;
    struct wren_snip *payload = udp ? us->next : us;
    size_t uncomp = IPV6_HDR_LEN + (udp ? UDP_HDR_LEN : 0);
    size_t dgram_size = IPV6_HDR_LEN + (size_t)ip.payload_len;

    struct wren_netif_hdr *nh = wren_netif_hdr(pkt);
    struct sixlowpan_l2 l2;
    l2_of(nh, &l2);
    uint8_t iphc[SIXLOWPAN_IPHC_MAX_LEN];
    int hlen = wren_sixlowpan_iphc_emit(&ip, udp ? &uh : NULL, &l2, wren_sixlowpan_ctxs(lp), iphc,
                                        sizeof(iphc));
    if (hlen < 0 || dgram_size > CONFIG_WREN_SIXLOWPAN_MAX_DGRAM ||
        wren_pkt_len(payload) + uncomp != dgram_size) {
        lp->stats.tx_drop_bad++;
        wren_pktbuf_release(pb, pkt);
        return;
    }
    if (fault_drop(lp)) {
        lp->stats.tx_drop_fault++;
        wren_pktbuf_release(pb, pkt);
        return;
    }
    lp->stats.tx_datagrams++;
    wren_sixlowpan_frag_send(lp, pkt, iphc, (size_t)hlen, uncomp, payload, dgram_size);
}

static void sixlowpan_handle(struct wren_node *node, struct wren_module *self,
                             const struct wren_msg *msg)
{
    struct wren_sixlowpan *lp = (struct wren_sixlowpan *)self;
    if (msg->type == WREN_MSG_RCV) {
        receive(lp, msg->ptr);
    } else if (msg->type == WREN_MSG_SND) {
        send(lp, msg->ptr);
    } else if (msg->ptr) {
        wren_pktbuf_release(&node->pktbuf, msg->ptr);
    }
}

static int sixlowpan_get(struct wren_node *node, struct wren_module *self, uint16_t opt,
                         uint16_t ctx, void *val, size_t max)
{
    (void)node;
    (void)ctx;
    struct wren_sixlowpan *lp = (struct wren_sixlowpan *)self;
    if (opt == WREN_NETOPT_STATS) {
        return wren_netopt_put(val, max, &lp->stats, sizeof(lp->stats));
    }
    if (opt == WREN_NETOPT_SIXLOWPAN_CTX && ctx < SIXLOWPAN_CTX_COUNT) {
        return wren_netopt_put(val, max, &wren_sixlowpan_ctxs(lp)[ctx],
                               sizeof(struct sixlowpan_ctx));
    }
    if (CONFIG_WREN_SIXLOWPAN_FAULTS && opt == WREN_NETOPT_FAULTS) {
        struct wren_netopt_faults f = { .loss = lp->fault_loss };
        return wren_netopt_put(val, max, &f, sizeof(f));
    }
    return -ENOTSUP;
}

static int sixlowpan_set(struct wren_node *node, struct wren_module *self, uint16_t opt,
                         uint16_t ctx, const void *val, size_t len)
{
    (void)node;
    struct wren_sixlowpan *lp = (struct wren_sixlowpan *)self;
    if (opt == WREN_NETOPT_SIXLOWPAN_CTX) {
        struct sixlowpan_ctx c;
        if (len != sizeof(c) || ctx > 255) {
            return -EINVAL;
        }
        memcpy(&c, val, sizeof(c));
        return wren_sixlowpan_ctx_set(lp, (uint8_t)ctx, &c);
    }
    if (CONFIG_WREN_SIXLOWPAN_FAULTS && opt == WREN_NETOPT_FAULTS) {
        /* whole datagrams only: reordering and holding are the devices' */
        struct wren_netopt_faults f;
        if (len != sizeof(f)) {
            return -EINVAL;
        }
        memcpy(&f, val, sizeof(f));
        if (f.loss > 10000 || f.reorder || f.hold_ms) {
            return f.loss > 10000 ? -EINVAL : -ENOTSUP;
        }
        if (f.seed) {
            lp->fault_prng = (uint32_t)(f.seed ^ (f.seed >> 32));
        }
        lp->fault_loss = f.loss;
        return 0;
    }
    return -ENOTSUP;
}

static int sixlowpan_stack_init(struct wren_node *node, struct wren_module *self, uint8_t if_id)
{
    (void)if_id;
    return wren_sixlowpan_init(node, (struct wren_sixlowpan *)self);
}

static const struct wren_counter_set sixlowpan_counters =
    WREN_COUNTER_SET("6lowpan", WREN_SIXLOWPAN_COUNTERS, WREN_NETOPT_STATS, uint32_t);

const struct wren_module_ops wren_sixlowpan_module = {
    .name = "6lowpan",
    .handle = sixlowpan_handle,
    .get = sixlowpan_get,
    .set = sixlowpan_set,
    .init = sixlowpan_stack_init,
    .size = sizeof(struct wren_sixlowpan),
    .link = WREN_NETDEV_TYPE_IEEE802154,
    .counters = WREN_IF_NAMES(&sixlowpan_counters),
};

int wren_sixlowpan_init(struct wren_node *node, struct wren_sixlowpan *lp)
{
    memset(lp, 0, sizeof(*lp));
    lp->module.ops = &wren_sixlowpan_module;
    lp->module.prio = WREN_PRIO_NET;
    lp->node = node;
    lp->next_tag = (uint16_t)wren_node_random(node);
    wren_timer_init(&lp->gc, wren_sixlowpan_reass_gc, lp);
    return wren_netreg_register(node, WREN_NETTYPE_SIXLOWPAN, WREN_NETREG_DEMUX_ALL,
                                &lp->module, &lp->reg);
}

int wren_sixlowpan_ctx_set(struct wren_sixlowpan *lp, uint8_t cid, const struct sixlowpan_ctx *ctx)
{
    if (cid >= SIXLOWPAN_CTX_COUNT || ctx->prefix_len > 128) {
        return -EINVAL;
    }
#if CONFIG_WREN_NODE_MEM
    if (WREN_LAZY_GET(lp->node, lp, ctx) == NULL) {
        return -ENOMEM; /* the table: made by the first context set */
    }
#endif
    lp->ctx->e[cid] = *ctx;
    return 0;
}

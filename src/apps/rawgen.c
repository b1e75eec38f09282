#include "apps/rawgen.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "core/byteorder.h"
#include "core/node.h"
#include "net/netapi.h"
#include "net/netif.h"

#define MAGIC 'w'

static uint8_t pattern_byte(uint32_t sender, uint32_t seq, size_t i)
{
    return (uint8_t)(sender * 31u + seq * 7u + i);
}

static uint64_t next_interval(struct wren_rawgen *g)
{
    struct wren_node *node = g->node;
    switch (g->timing) {
    case WREN_RAWGEN_PERIODIC:
        return g->interval_us;
    case WREN_RAWGEN_POISSON: {
        /* inverse transform of a uniform in (0, 1] */
        double u = (wren_node_random(node) + 1.0) / 4294967296.0;
        return (uint64_t)(-log(u) * g->interval_us) + 1;
    }
    default:
        return g->interval_us / 2 + wren_node_random_below(node, g->interval_us + 1);
    }
}

static void send_one(struct wren_rawgen *g)
{
    struct wren_node *node = g->node;
    struct wren_netif *netif = wren_netif_get(node, g->netif_id);
    if (netif == NULL) {
        return;
    }
    struct wren_snip *pl = wren_pktbuf_add(&node->pktbuf, NULL, NULL, g->payload_len,
                                           WREN_NETTYPE_UNDEF);
    if (pl == NULL) {
        g->stats.send_nobuf++;
        return;
    }
    uint8_t *p = pl->data;
    p[0] = WREN_RAWGEN_NALP;
    p[1] = MAGIC;
    put_be32(p + 2, node->id);
    put_be32(p + 6, g->seq);
    for (size_t i = WREN_RAWGEN_HDR_LEN; i < g->payload_len; i++) {
        p[i] = pattern_byte(node->id, g->seq, i);
    }
    struct wren_snip *pkt = wren_netif_hdr_add(&node->pktbuf, pl, NULL, 0, g->dst, g->dst_len);
    if (pkt == NULL) {
        wren_pktbuf_release(&node->pktbuf, pl);
        g->stats.send_nobuf++;
        return;
    }
    if (g->dst_len == 0) {
        wren_netif_hdr(pkt)->flags |= WREN_NETIF_HDR_BROADCAST;
    }
    if (wren_netapi_send(node, &netif->module, pkt) < 0) {
        g->stats.send_queue++;
        return;
    }
    g->seq++;
    g->stats.sent++;
}

static void rawgen_timer(struct wren_timer *t, void *arg)
{
    struct wren_rawgen *g = arg;
    send_one(g);
    if (g->count == 0 || g->seq < g->count) {
        wren_timer_set(g->node, t, next_interval(g));
    }
}

static void rawgen_rx(struct wren_rawgen *g, struct wren_snip *pkt)
{
    const uint8_t *p = pkt->data;
    size_t n = pkt->size;
    if (n < WREN_RAWGEN_HDR_LEN || p[0] != WREN_RAWGEN_NALP || p[1] != MAGIC) {
        g->stats.rx_foreign++;
        return;
    }
    uint32_t sender = get_be32(p + 2), seq = get_be32(p + 6);
    for (size_t i = WREN_RAWGEN_HDR_LEN; i < n; i++) {
        if (p[i] != pattern_byte(sender, seq, i)) {
            g->stats.rx_bad++;
            return;
        }
    }
    g->stats.received++;
    g->stats.rx_bytes += (uint32_t)n;
}

static void rawgen_handle(struct wren_node *node, struct wren_module *self,
                          const struct wren_msg *msg)
{
    struct wren_rawgen *g = (struct wren_rawgen *)self;
    if (msg->type == WREN_MSG_RCV) {
        rawgen_rx(g, msg->ptr);
    }
    if (msg->type == WREN_MSG_RCV || msg->type == WREN_MSG_SND) {
        wren_pktbuf_release(&node->pktbuf, msg->ptr);
    }
}

const struct wren_counter_set wren_rawgen_counters =
    WREN_COUNTER_SET("app", WREN_RAWGEN_COUNTERS, WREN_NETOPT_STATS, uint32_t);

static const struct wren_module_ops rawgen_ops = {
    .name = "rawgen",
    .handle = rawgen_handle,
};

int wren_rawgen_start(struct wren_node *node, struct wren_rawgen *g, uint8_t netif_id,
                      const uint8_t *dst, uint8_t dst_len, uint16_t payload_len,
                      uint32_t interval_us, uint8_t timing, uint32_t count,
                      uint64_t start_us)
{
    if (dst_len > 8 || payload_len < WREN_RAWGEN_HDR_LEN) {
        return -EINVAL;
    }
    memset(g, 0, sizeof(*g));
    g->module.ops = &rawgen_ops;
    g->module.prio = WREN_PRIO_APP;
    g->node = node;
    g->netif_id = netif_id;
    if (dst_len) {
        memcpy(g->dst, dst, dst_len);
    }
    g->dst_len = dst_len;
    g->payload_len = payload_len;
    g->interval_us = interval_us;
    g->timing = timing;
    g->count = count;
    wren_timer_init(&g->timer, rawgen_timer, g);
    int res = wren_netreg_register(node, WREN_NETTYPE_UNDEF, WREN_NETREG_DEMUX_ALL,
                                   &g->module, &g->reg);
    if (res < 0) {
        return res;
    }
    if (interval_us) {
        /* first frame at a random point of the first interval, so that
         * nodes started together do not send together */
        wren_timer_set(node, &g->timer, start_us + wren_node_random_below(node, interval_us));
    }
    return 0;
}

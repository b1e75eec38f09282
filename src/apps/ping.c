#include "apps/ping.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/byteorder.h"
#include "core/node.h"
#include "icmpv6/icmpv6.h"
#include "net/netif.h"
#include "ipv6/addr_str.h"
#include "net/netapi.h"
#include "pktbuf/pktbuf.h"
#include "wire/icmpv6_types.h"
#include "wire/ipv6.h"

#define ECHO_HDR 8
#define PING_MAX_DATA 1232

_Static_assert(WREN_PING_WINDOW >= 1 && WREN_PING_WINDOW <= 32,
               "answered is a 32-bit mask of the window's slots");

static uint8_t pattern(uint16_t seq, size_t i)
{
    return (uint8_t)(i + seq);
}

static void say(struct wren_ping *p, const char *s)
{
    if (p->out) {
        p->out(p->out_ctx, s);
    }
}

/* The loss in whole percent: of the requests sent, those no reply answered.
 * rx counts distinct answered requests (never more than tx); the guard keeps
 * it in 0..100 all the same. */
static unsigned long loss_pct(const struct wren_ping *p)
{
    uint32_t rx = p->rx < p->tx ? p->rx : p->tx;
    return p->tx ? (unsigned long)(((uint64_t)(p->tx - rx) * 100u) / p->tx) : 0ul;
}

static void finish(struct wren_ping *p)
{
    char line[220], a[WREN_IPV6_ADDR_STRLEN], dups[64] = "";
    wren_timer_cancel(p->node, &p->timer);
    wren_netreg_unregister(p->node, WREN_NETTYPE_IPV6, &p->reg);
    p->running = false;
    /* "+N duplicates" as iputils ping; replies no request of the window
     * wanted, and replies with other data, the same way when there are any */
    int k = 0;
    if (p->dup) {
        k = snprintf(dups, sizeof(dups), ", +%lu duplicates", (unsigned long)p->dup);
    }
    if (p->late && k >= 0 && (size_t)k < sizeof(dups)) {
        k += snprintf(dups + k, sizeof(dups) - (size_t)k, ", +%lu late", (unsigned long)p->late);
    }
    if (p->bad && k >= 0 && (size_t)k < sizeof(dups)) {
        snprintf(dups + k, sizeof(dups) - (size_t)k, ", +%lu bad", (unsigned long)p->bad);
    }
    snprintf(line, sizeof(line),
             "--- %s ping statistics ---\n%lu packets transmitted, %lu received%s, %lu%% packet "
             "loss\n",
             wren_ipv6_addr_to_str(a, p->dst), (unsigned long)p->tx, (unsigned long)p->rx, dups,
             loss_pct(p));
    say(p, line);
    if (p->rx) {
        uint64_t avg = p->rtt_sum / p->rx;
        snprintf(line, sizeof(line), "rtt min/avg/max = %lu.%03lu/%lu.%03lu/%lu.%03lu ms\n",
                 (unsigned long)(p->rtt_min / 1000), (unsigned long)(p->rtt_min % 1000),
                 (unsigned long)(avg / 1000), (unsigned long)(avg % 1000),
                 (unsigned long)(p->rtt_max / 1000), (unsigned long)(p->rtt_max % 1000));
        say(p, line);
    }
}

static void ping_timer(struct wren_timer *t, void *arg)
{
    struct wren_ping *p = arg;
    if (p->next_seq >= p->count) {
        finish(p); /* the wait after the last request is over */
        return;
    }
    uint8_t buf[ECHO_HDR + PING_MAX_DATA];
    memset(buf, 0, ECHO_HDR);
    buf[0] = ICMPV6_ECHO_REQUEST;
    put_be16(buf + 4, p->id);
    put_be16(buf + 6, p->next_seq);
    for (size_t i = 0; i < p->size; i++) {
        buf[ECHO_HDR + i] = pattern(p->next_seq, i);
    }
    unsigned slot = p->next_seq % WREN_PING_WINDOW;
    p->sent_at[slot] = wren_node_now(p->node);
    p->seq_at[slot] = p->next_seq;
    p->answered &= ~(1u << slot);
    if (wren_icmpv6_send(p->node, NULL, p->dst, 0, p->if_id, buf, ECHO_HDR + p->size) < 0) {
        say(p, "ping: send failed\n");
    }
    p->tx++; /* sent or not, a request that counts towards the loss */
    p->next_seq++;
    wren_timer_set(p->node, t, p->next_seq < p->count ? p->interval_us : p->timeout_us);
}

static void ping_handle(struct wren_node *node, struct wren_module *self,
                        const struct wren_msg *msg)
{
    struct wren_ping *p = (struct wren_ping *)self;
    struct wren_snip *pkt = msg->ptr;
    if (msg->type != WREN_MSG_RCV || pkt->size < ECHO_HDR || pkt->data[0] != ICMPV6_ECHO_REPLY ||
        get_be16(pkt->data + 4) != p->id || !p->running) {
        wren_pktbuf_release(&node->pktbuf, pkt);
        return;
    }
    uint16_t seq = get_be16(pkt->data + 6);
    size_t n = pkt->size - ECHO_HDR;
    bool ok = seq < p->next_seq && n == p->size;
    for (size_t i = 0; ok && i < n; i++) {
        ok = pkt->data[ECHO_HDR + i] == pattern(seq, i);
    }
    struct wren_snip *ips = wren_pkt_search(pkt, WREN_NETTYPE_IPV6);
    if (!ok || ips == NULL) {
        p->bad++;
        wren_pktbuf_release(&node->pktbuf, pkt);
        return;
    }
    unsigned slot = seq % WREN_PING_WINDOW;
    if (p->seq_at[slot] != seq) {
        p->late++; /* its request left the window: neither answer nor duplicate */
        wren_pktbuf_release(&node->pktbuf, pkt);
        return;
    }
    bool dup = (p->answered & (1u << slot)) != 0;
    uint64_t rtt = wren_node_now(node) - p->sent_at[slot];
    if (dup) {
        p->dup++;
    } else {
        p->answered |= 1u << slot;
        p->rx++;
        p->rtt_sum += rtt;
        if (p->rx == 1 || rtt < p->rtt_min) {
            p->rtt_min = rtt;
        }
        if (rtt > p->rtt_max) {
            p->rtt_max = rtt;
        }
    }
    if (!p->quiet) {
        char line[140], a[WREN_IPV6_ADDR_STRLEN];
        snprintf(line, sizeof(line),
                 "%u bytes from %s: icmp_seq=%u ttl=%u time=%lu.%03lu ms%s\n",
                 (unsigned)(n + ECHO_HDR), wren_ipv6_addr_to_str(a, ips->data + 8), seq,
                 ips->data[7], (unsigned long)(rtt / 1000), (unsigned long)(rtt % 1000),
                 dup ? " (DUP!)" : "");
        say(p, line);
    }
    wren_pktbuf_release(&node->pktbuf, pkt);
    if (p->rx == p->count) {
        finish(p); /* every request answered (the last one was sent) */
    }
}

static const struct wren_module_ops ping_ops = { .name = "ping", .handle = ping_handle };

int wren_ping_start(struct wren_node *node, struct wren_ping *p, const uint8_t *dst,
                    uint16_t count, uint16_t size, uint32_t interval_us, uint8_t if_id,
                    wren_out_fn out, void *out_ctx)
{
    if (p->running) {
        return -EBUSY;
    }
    if (size > PING_MAX_DATA || count == 0) {
        return -EINVAL;
    }
    if (if_id && wren_netif_get(node, if_id) == NULL) {
        return -ENODEV;
    }
    bool quiet = p->quiet;
    memset(p, 0, sizeof(*p));
    p->quiet = quiet;
    p->module.ops = &ping_ops;
    p->module.prio = WREN_PRIO_APP;
    p->node = node;
    memcpy(p->dst, dst, 16);
    p->id = (uint16_t)wren_node_random(node);
    p->count = count;
    p->size = size;
    p->if_id = if_id;
    p->interval_us = interval_us;
    p->timeout_us = interval_us > 2000000 ? interval_us : 2000000;
    p->out = out;
    p->out_ctx = out_ctx;
    p->running = true;
    wren_timer_init(&p->timer, ping_timer, p);
    int res = wren_netreg_register(node, WREN_NETTYPE_IPV6, IPV6_NH_ICMPV6, &p->module, &p->reg);
    if (res < 0) {
        p->running = false;
        return res;
    }
    wren_timer_set(node, &p->timer, 0);
    return 0;
}

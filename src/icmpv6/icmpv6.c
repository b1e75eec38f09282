#include "icmpv6/icmpv6.h"

#include <errno.h>
#include <string.h>

#include "core/byteorder.h"
#include "core/node.h"
#include "ipv6/ipv6.h"
#include "net/netapi.h"
#include "net/netif.h"
#include "net/netopt.h"
#include "net/nettype.h"
#include "wire/icmpv6_types.h"
#include "wire/rpl.h"
#include "wire/ipv6.h"

#define ICMPV6_HDR_LEN 8
/* an error message must fit the minimum MTU (RFC 4443 2.4 c) */
#define ERR_QUOTE_MAX (IPV6_MIN_MTU - IPV6_HDR_LEN - ICMPV6_HDR_LEN)

/* the error token bucket (RFC 4443 2.4 f), in thousandths of a message */
#define TOKENS_MAX (CONFIG_WREN_ICMPV6_ERR_BURST * 1000u)
/* microseconds in which an empty bucket fills up (rounded up) */
#define REFILL_US \
    (((uint64_t)TOKENS_MAX * 1000u + CONFIG_WREN_ICMPV6_ERR_RATE - 1) / CONFIG_WREN_ICMPV6_ERR_RATE)
_Static_assert(CONFIG_WREN_ICMPV6_ERR_RATE > 0 &&
                   (uint64_t)TOKENS_MAX * 1000u + CONFIG_WREN_ICMPV6_ERR_RATE <= UINT32_MAX,
               "the rate limiter computes in 32 bits");

/* Send [ipv6] -> [body snip] (checksum filled here) down to the IPv6 layer.
 * @p src_in NULL or unspecified: the IPv6 layer's choice for @p dst. */
static int send_msg(struct wren_node *node, const uint8_t *src_in, const uint8_t *dst,
                    uint8_t hop_limit, uint8_t if_id, struct wren_snip *body)
{
    struct wren_pktbuf *pb = &node->pktbuf;
    bool given = src_in && !wren_ipv6_addr_is_unspecified(src_in);
    uint8_t src[16];
    wren_ipv6_addr_copy(src, given ? src_in : dst); /* loopback: the source is the destination */
    if (!given && !wren_ipv6_addr_is_loopback(dst)) {
        struct wren_netreg_entry *e =
            wren_netreg_lookup(node, WREN_NETTYPE_IPV6, WREN_NETREG_DEMUX_ALL, NULL);
        if (e == NULL ||
            wren_netapi_get(node, e->module, WREN_NETOPT_IPV6_SRC_SELECT, if_id, src, 16) != 16) {
            wren_pktbuf_release(pb, body);
            return -EADDRNOTAVAIL;
        }
    }
    body->data[2] = body->data[3] = 0; /* the checksum field counts as zero */
    put_be16(body->data + 2,
             wren_ipv6_upper_csum(src, dst, IPV6_NH_ICMPV6, body, wren_pkt_len(body)));
    struct wren_snip *ip = wren_ipv6_hdr_add(pb, body, src, dst, IPV6_NH_ICMPV6, if_id);
    if (ip == NULL) {
        wren_pktbuf_release(pb, body);
        return -ENOBUFS;
    }
    /* the IPv6 header, behind the netif header if one pins the interface */
    (if_id ? ip->next : ip)->data[IPV6_OFF_HOP_LIMIT] = hop_limit;
    return wren_netapi_dispatch(node, WREN_NETTYPE_IPV6, WREN_NETREG_DEMUX_ALL, WREN_MSG_SND, ip)
               ? 0
               : -ENOBUFS;
}

int wren_icmpv6_send(struct wren_node *node, const uint8_t *src, const uint8_t *dst,
                     uint8_t hop_limit, uint8_t if_id, const uint8_t *body, size_t len)
{
    if (len < 4) {
        return -EINVAL;
    }
    struct wren_snip *b = wren_pktbuf_add(&node->pktbuf, NULL, body, len, WREN_NETTYPE_ICMPV6);
    if (b == NULL) {
        return -ENOBUFS;
    }
    return send_msg(node, src, dst, hop_limit, if_id, b);
}

static uint8_t if_of(struct wren_snip *pkt)
{
    struct wren_snip *nh = wren_pkt_search(pkt, WREN_NETTYPE_NETIF);
    return nh ? wren_netif_hdr_if(nh) : 0;
}

/* Send @p body back to the source of @p ip (the IPv6 header of @p pkt), from
 * the address it was sent to or, if that was multicast, one of ours. */
static int answer(struct wren_node *node, struct wren_snip *pkt, const uint8_t *ip,
                  struct wren_snip *body)
{
    const uint8_t *to = ip + IPV6_OFF_DST;
    return send_msg(node, wren_ipv6_addr_is_multicast(to) ? NULL : to, ip + IPV6_OFF_SRC, 0,
                    if_of(pkt), body);
}

/* RFC 4443 4.2: the reply carries the request's identifier, sequence and data */
static void echo_reply(struct wren_icmpv6 *icmp, struct wren_snip *pkt, const uint8_t *ip)
{
    struct wren_node *node = icmp->node;
    struct wren_snip *body = wren_pktbuf_add(&node->pktbuf, NULL, pkt->data, pkt->size,
                                             WREN_NETTYPE_ICMPV6);
    if (body == NULL) {
        icmp->stats.tx_drop_nobuf++;
        return;
    }
    body->data[0] = ICMPV6_ECHO_REPLY;
    body->data[1] = 0;
    if (answer(node, pkt, ip, body) == 0) {
        icmp->stats.tx_echo_reply++;
    }
}

static bool rate_ok(struct wren_icmpv6 *icmp)
{
    uint64_t now = wren_node_now(icmp->node);
    uint64_t dt = now - icmp->last_refill;
    icmp->last_refill = now;
    /* 32-bit arithmetic: after REFILL_US the bucket is full whatever it held */
    uint32_t t = dt < REFILL_US
                     ? icmp->tokens_milli + (uint32_t)dt * CONFIG_WREN_ICMPV6_ERR_RATE / 1000u
                     : TOKENS_MAX;
    icmp->tokens_milli = t > TOKENS_MAX ? TOKENS_MAX : t;
    if (icmp->tokens_milli < 1000) {
        return false;
    }
    icmp->tokens_milli -= 1000;
    return true;
}

/* Copy @p s, which begins @p off bytes into the quote, as far as it fits. */
static void quote(uint8_t *q, size_t qlen, size_t off, const struct wren_snip *s)
{
    if (off < qlen && s->size) {
        memcpy(q + off, s->data, s->size < qlen - off ? s->size : qlen - off);
    }
}

#define MAX_PIECES 8

static bool is_datagram(uint8_t type)
{
    return type != WREN_NETTYPE_NETIF && type != WREN_NETTYPE_IEEE802154 &&
           type != WREN_NETTYPE_ETHERNET;
}

/* The invoking datagram's pieces in wire order. In RX order the IPv6 header
 * snip comes after the layers above it (payload first); in TX order (a
 * datagram being forwarded) it comes first and they follow; or one snip
 * holds the whole datagram. Link and interface headers are not part of it.
 * Returns the number of pieces (0: no IPv6 header found). */
static unsigned pieces(struct wren_snip *pkt, const struct wren_snip **out)
{
    struct wren_snip *ips = wren_pkt_search(pkt, WREN_NETTYPE_IPV6);
    unsigned n = 0;
    if (ips == NULL) {
        ips = pkt; /* an untyped whole datagram */
    }
    out[n++] = ips;
    if (ips != pkt) {
        unsigned k = 0;
        for (const struct wren_snip *s = pkt; s != ips && k < MAX_PIECES - 1; s = s->next) {
            out[1 + k++] = s;
        }
        for (unsigned i = 0; i < k / 2; i++) { /* RX order is the reverse of the wire's */
            const struct wren_snip *t = out[1 + i];
            out[1 + i] = out[k - i];
            out[k - i] = t;
        }
        n += k;
    } else if (CONFIG_WREN_IPV6_ROUTER) {
        /* TX order: only a router's forwarded datagrams come back this way */
        for (const struct wren_snip *s = ips->next; s && is_datagram(s->type) && n < MAX_PIECES;
             s = s->next) {
            out[n++] = s;
        }
    }
    return out[0]->size >= IPV6_HDR_LEN ? n : 0;
}

/* RFC 4443 2.4 (e): no error about an error, none to or from a multicast
 * or unspecified address (packet-too-big and unrecognised options excepted
 * for a multicast destination). @p upper: the invoking datagram's first
 * byte after the fixed header (its ICMPv6 type), NULL if it has none. */
static bool err_allowed(const uint8_t *ip, const uint8_t *upper, uint8_t type, uint8_t code)
{
    bool mcast_ok = type == ICMPV6_PKT_TOO_BIG ||
                    (type == ICMPV6_PARAM_PROBLEM && code == ICMPV6_PARAM_OPTION);
    return !(wren_ipv6_addr_is_multicast(ip + IPV6_OFF_SRC) ||
             wren_ipv6_addr_is_unspecified(ip + IPV6_OFF_SRC) ||
             (wren_ipv6_addr_is_multicast(ip + IPV6_OFF_DST) && !mcast_ok) ||
             (ip[IPV6_OFF_NEXT] == IPV6_NH_ICMPV6 && (upper == NULL || upper[0] < 128)));
}

/* The error message: type, code, parameter, and the invoking datagram
 * (its @p n pieces @p pc, @p len bytes) quoted in wire order, as much as
 * fits the minimum MTU (RFC 4443 2.4 c). NULL: no buffer. */
static struct wren_snip *err_body(struct wren_node *node, const struct wren_snip **pc, unsigned n,
                                  size_t len, uint8_t type, uint8_t code, uint16_t param)
{
    size_t qlen = len < ERR_QUOTE_MAX ? len : ERR_QUOTE_MAX;
    struct wren_snip *body = wren_pktbuf_add(&node->pktbuf, NULL, NULL, ICMPV6_HDR_LEN + qlen,
                                             WREN_NETTYPE_ICMPV6);
    if (body == NULL) {
        return NULL;
    }
    uint8_t *b = body->data;
    b[0] = type;
    b[1] = code;
    put_be32(b + 4, param);
    for (unsigned i = 0, off = 0; i < n; off += pc[i]->size, i++) {
        quote(b + ICMPV6_HDR_LEN, qlen, off, pc[i]);
    }
    return body;
}

/* RFC 4443 2.2: whether the error goes from the address the datagram @p ip
 * went to, ours (else, a router's error about a datagram it forwards, from
 * one of ours, never the destination's) */
static bool err_from_dst(struct wren_node *node, const uint8_t *ip)
{
    uint8_t to[16];
    wren_ipv6_addr_copy(to, ip + IPV6_OFF_DST);
    struct wren_netreg_entry *e =
        wren_netreg_lookup(node, WREN_NETTYPE_IPV6, WREN_NETREG_DEMUX_ALL, NULL);
    return !wren_ipv6_addr_is_multicast(to) && e != NULL &&
           wren_netapi_get(node, e->module, WREN_NETOPT_IPV6_IS_OWN, 0, to, 16) == 1 &&
           to[0] == 1;
}

/* The error for @p pkt (as a layer had it, in RX or TX order). */
static void send_error(struct wren_icmpv6 *icmp, struct wren_snip *pkt, uint8_t type,
                       uint8_t code, uint16_t param)
{
    struct wren_node *node = icmp->node;
    const struct wren_snip *pc[MAX_PIECES];
    unsigned n = pieces(pkt, pc);
    if (n == 0) {
        icmp->stats.err_suppressed++;
        return;
    }
    const struct wren_snip *ips = pc[0];
    size_t len = 0;
    for (unsigned i = 0; i < n; i++) {
        len += pc[i]->size;
    }
    /* the first byte after the fixed header: the invoking message's type */
    const uint8_t *upper = ips->size > IPV6_HDR_LEN ? ips->data + IPV6_HDR_LEN
                           : n > 1 && pc[1]->size ? pc[1]->data
                                                  : NULL;
    const uint8_t *ip = ips->data;
    if (!err_allowed(ip, upper, type, code)) {
        icmp->stats.err_suppressed++;
        return;
    }
    if (!rate_ok(icmp)) {
        icmp->stats.err_rate_limited++;
        return;
    }
    struct wren_snip *body = err_body(node, pc, n, len, type, code, param);
    if (body == NULL) {
        icmp->stats.tx_drop_nobuf++;
        return;
    }
    bool own = err_from_dst(node, ip);
    if (send_msg(node, own ? ip + IPV6_OFF_DST : NULL, ip + IPV6_OFF_SRC, 0, if_of(pkt), body) ==
        0) {
        icmp->stats.tx_errors++;
    }
}

/* RFC 4443, RFC 4861: errors, echo and RS 8 bytes, RA 16, NS/NA 24, redirect
 * 40; unknown informational types 8, unknown error types 4 */
static size_t type_min(uint8_t type)
{
    switch (type) {
    case ICMPV6_ND_RA:
        return 16;
    case ICMPV6_ND_NS:
    case ICMPV6_ND_NA:
        return 24;
    case ICMPV6_ND_REDIRECT:
        return 40;
    case ICMPV6_RPL:
        return 4; /* a DIS is 6 bytes: the RPL module checks each code's length */
    default:
        return (type >= ICMPV6_DEST_UNREACH && type <= ICMPV6_PARAM_PROBLEM) || type >= 128 ? 8
                                                                                            : 4;
    }
}

static void receive(struct wren_icmpv6 *icmp, struct wren_snip *pkt)
{
    struct wren_node *node = icmp->node;
    struct wren_snip *ips = wren_pkt_search(pkt, WREN_NETTYPE_IPV6);
    icmp->stats.rx++;
    if (ips == NULL || pkt->size < 4 || pkt->size < type_min(pkt->data[0])) {
        icmp->stats.rx_drop_short++;
        goto drop;
    }
    if (wren_ipv6_upper_csum(ips->data + IPV6_OFF_SRC, ips->data + IPV6_OFF_DST, IPV6_NH_ICMPV6,
                             pkt, pkt->size) != 0) {
        icmp->stats.rx_drop_csum++;
        goto drop;
    }
    uint8_t type = pkt->data[0];
    if (type == ICMPV6_ECHO_REQUEST) {
        icmp->stats.rx_echo_req++;
        echo_reply(icmp, pkt, ips->data);
        goto drop;
    }
    if (type < 128) {
        icmp->stats.rx_errors++;
        goto drop; /* raw sockets (ping) got their own reference */
    }
    if (type == ICMPV6_ECHO_REPLY) {
        goto drop; /* likewise */
    }
    if (wren_netapi_dispatch(node, WREN_NETTYPE_ICMPV6, type, WREN_MSG_RCV, pkt) == 0) {
        icmp->stats.rx_unhandled++;
    }
    return;

drop:
    wren_pktbuf_release(&node->pktbuf, pkt);
}

static void icmpv6_handle(struct wren_node *node, struct wren_module *self,
                          const struct wren_msg *msg)
{
    struct wren_icmpv6 *icmp = (struct wren_icmpv6 *)self;
    if (msg->type == WREN_MSG_RCV) {
        receive(icmp, msg->ptr);
        return;
    }
    if (WREN_MSG_IS_ICMPV6_ERROR(msg->type)) {
        send_error(icmp, msg->ptr, (uint8_t)((msg->type >> 4) & 0x0f), (uint8_t)(msg->type & 0x0f),
                   msg->arg);
    }
    if (msg->ptr) {
        wren_pktbuf_release(&node->pktbuf, msg->ptr);
    }
}

static int icmpv6_get(struct wren_node *node, struct wren_module *self, uint16_t opt,
                      uint16_t ctx, void *val, size_t max)
{
    (void)node;
    (void)ctx;
    struct wren_icmpv6 *icmp = (struct wren_icmpv6 *)self;
    if (opt == WREN_NETOPT_STATS) {
        return wren_netopt_put(val, max, &icmp->stats, sizeof(icmp->stats));
    }
    return -ENOTSUP;
}

static int icmpv6_stack_init(struct wren_node *node, struct wren_module *self, uint8_t if_id)
{
    (void)if_id;
    return wren_icmpv6_init(node, (struct wren_icmpv6 *)self);
}

static const struct wren_counter_set icmpv6_counters =
    WREN_COUNTER_SET("icmpv6", WREN_ICMPV6_COUNTERS, WREN_NETOPT_STATS, uint32_t);

const struct wren_module_ops wren_icmpv6_module = {
    .name = "icmpv6",
    .handle = icmpv6_handle,
    .get = icmpv6_get,
    .init = icmpv6_stack_init,
    .size = sizeof(struct wren_icmpv6),
    .counters = WREN_IF_NAMES(&icmpv6_counters),
};

int wren_icmpv6_init(struct wren_node *node, struct wren_icmpv6 *icmp)
{
    memset(icmp, 0, sizeof(*icmp));
    icmp->module.ops = &wren_icmpv6_module;
    icmp->module.prio = WREN_PRIO_NET;
    icmp->node = node;
    icmp->tokens_milli = TOKENS_MAX;
    icmp->last_refill = wren_node_now(node);
    return wren_netreg_register(node, WREN_NETTYPE_ICMPV6, WREN_NETREG_DEMUX_ALL, &icmp->module,
                                &icmp->reg);
}

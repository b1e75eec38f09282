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
#include "wire/inet_csum.h"
#include "wire/ipv6.h"

#define ICMPV6_HDR_LEN 8
/* an error message must fit the minimum MTU (RFC 4443 2.4 c) */
#define ERR_QUOTE_MAX (IPV6_MIN_MTU - IPV6_HDR_LEN - ICMPV6_HDR_LEN)

static uint16_t csum_of(const uint8_t *src, const uint8_t *dst, const struct wren_snip *s,
                        size_t len)
{
    struct inet_csum c;
    inet_csum_init(&c);
    inet_csum_pseudo(&c, src, dst, (uint32_t)len, IPV6_NH_ICMPV6);
    /* only the message's own @p len bytes (in RX the IPv6 header follows) */
    for (size_t left = len; s && left; s = s->next) {
        size_t n = s->size < left ? s->size : left;
        inet_csum_update(&c, s->data, n);
        left -= n;
    }
    return inet_csum_final(&c);
}

/* Send [ipv6] -> [body snip] (checksum filled here) down to the IPv6 layer. */
static int send_msg(struct wren_node *node, const uint8_t *src_in, const uint8_t *dst,
                    uint8_t hop_limit, uint8_t if_id, struct wren_snip *body)
{
    struct wren_pktbuf *pb = &node->pktbuf;
    uint8_t src[16];
    memcpy(src, src_in, 16);
    if (ipv6_addr_is_unspecified(src) && !ipv6_addr_is_loopback(dst)) {
        struct wren_netreg_entry *e =
            wren_netreg_lookup(node, WREN_NETTYPE_IPV6, WREN_NETREG_DEMUX_ALL, NULL);
        memcpy(src, dst, 16);
        if (e == NULL ||
            wren_netapi_get(node, e->module, WREN_NETOPT_IPV6_SRC_SELECT, if_id, src, 16) != 16) {
            wren_pktbuf_release(pb, body);
            return -EADDRNOTAVAIL;
        }
    } else if (ipv6_addr_is_unspecified(src)) {
        memcpy(src, dst, 16);
    }
    size_t len = wren_pkt_len(body);
    body->data[2] = body->data[3] = 0;
    put_be16(body->data + 2, csum_of(src, dst, body, len));
    struct wren_snip *ip = wren_ipv6_hdr_add(pb, body, src, dst, IPV6_NH_ICMPV6);
    if (ip == NULL) {
        wren_pktbuf_release(pb, body);
        return -ENOBUFS;
    }
    if (hop_limit) {
        ip->data[7] = hop_limit;
    }
    if (if_id) {
        struct wren_snip *nh = wren_netif_hdr_add(pb, ip, NULL, 0, NULL, 0);
        if (nh == NULL) {
            wren_pktbuf_release(pb, ip);
            return -ENOBUFS;
        }
        wren_netif_hdr(nh)->if_id = if_id;
        ip = nh;
    }
    return wren_netapi_dispatch(node, WREN_NETTYPE_IPV6, WREN_NETREG_DEMUX_ALL, WREN_MSG_SND, ip)
               ? 0
               : -ENOBUFS;
}

int wren_icmpv6_send(struct wren_node *node, const uint8_t *src, const uint8_t *dst,
                     uint8_t hop_limit, uint8_t if_id, const uint8_t *body, size_t len)
{
    static const uint8_t any[16];
    if (len < 4) {
        return -EINVAL;
    }
    struct wren_snip *b = wren_pktbuf_add(&node->pktbuf, NULL, body, len, WREN_NETTYPE_ICMPV6);
    if (b == NULL) {
        return -ENOBUFS;
    }
    return send_msg(node, src ? src : any, dst, hop_limit, if_id, b);
}

static uint8_t if_of(struct wren_snip *pkt)
{
    struct wren_snip *nh = wren_pkt_search(pkt, WREN_NETTYPE_NETIF);
    return nh ? wren_netif_hdr_if(nh) : 0;
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
    /* to a multicast request, answer from a unicast address of ours */
    static const uint8_t any[16];
    const uint8_t *src = ipv6_addr_is_multicast(ip + 24) ? any : ip + 24;
    if (send_msg(node, src, ip + 8, 0, if_of(pkt), body) == 0) {
        icmp->stats.tx_echo_reply++;
    }
}

static bool rate_ok(struct wren_icmpv6 *icmp)
{
    uint64_t now = wren_node_now(icmp->node);
    uint64_t dt = now - icmp->last_refill;
    icmp->last_refill = now;
    uint64_t t = icmp->tokens_milli + dt * CONFIG_WREN_ICMPV6_ERR_RATE / 1000u;
    uint64_t cap = (uint64_t)CONFIG_WREN_ICMPV6_ERR_BURST * 1000u;
    icmp->tokens_milli = (uint32_t)(t > cap ? cap : t);
    if (icmp->tokens_milli < 1000) {
        return false;
    }
    icmp->tokens_milli -= 1000;
    return true;
}

/* The error for @p pkt (RX order: ... -> [ipv6] -> ...). */
static void send_error(struct wren_icmpv6 *icmp, struct wren_snip *pkt, uint8_t type,
                       uint8_t code, uint16_t param)
{
    struct wren_node *node = icmp->node;
    struct wren_pktbuf *pb = &node->pktbuf;
    /* the invoking datagram: its IPv6 header snip and everything before it
     * (in RX order the payload comes first), or one whole-datagram snip */
    struct wren_snip *ips = wren_pkt_search(pkt, WREN_NETTYPE_IPV6);
    const uint8_t *ip = ips ? ips->data : pkt->data;
    if ((ips ? ips->size : pkt->size) < IPV6_HDR_LEN) {
        icmp->stats.err_suppressed++;
        return;
    }
    /* RFC 4443 2.4 (e): not about errors, not to/from multicast/unspecified
     * (packet-too-big and unrecognised options excepted for multicast) */
    bool mcast_ok = type == ICMPV6_PKT_TOO_BIG ||
                    (type == ICMPV6_PARAM_PROBLEM && code == ICMPV6_PARAM_OPTION);
    if (ipv6_addr_is_multicast(ip + 8) || ipv6_addr_is_unspecified(ip + 8) ||
        (ipv6_addr_is_multicast(ip + 24) && !mcast_ok)) {
        icmp->stats.err_suppressed++;
        return;
    }
    if (ip[6] == IPV6_NH_ICMPV6) {
        /* the first byte after the fixed header: the invoking message's type */
        const uint8_t *t = NULL;
        if (ips == NULL) {
            t = pkt->size > IPV6_HDR_LEN ? pkt->data + IPV6_HDR_LEN : NULL;
        } else {
            for (struct wren_snip *s = pkt; s && s != ips; s = s->next) {
                if (s->next == ips) {
                    t = s->size ? s->data : NULL;
                }
            }
        }
        if (t == NULL || t[0] < 128) {
            icmp->stats.err_suppressed++;
            return;
        }
    }
    if (!rate_ok(icmp)) {
        icmp->stats.err_rate_limited++;
        return;
    }
    size_t qlen = 0;
    if (ips) {
        qlen = ips->size;
        for (struct wren_snip *s = pkt; s != ips; s = s->next) {
            qlen += s->size;
        }
    } else {
        qlen = pkt->size;
    }
    if (qlen > ERR_QUOTE_MAX) {
        qlen = ERR_QUOTE_MAX;
    }
    struct wren_snip *body = wren_pktbuf_add(pb, NULL, NULL, ICMPV6_HDR_LEN + qlen,
                                             WREN_NETTYPE_ICMPV6);
    if (body == NULL) {
        icmp->stats.tx_drop_nobuf++;
        return;
    }
    uint8_t *b = body->data;
    b[0] = type;
    b[1] = code;
    put_be32(b + 4, param);
    /* quote: the header, then the layers above in wire order (reverse of RX order) */
    size_t off = ICMPV6_HDR_LEN;
    if (ips == NULL) {
        memcpy(b + off, pkt->data, qlen);
    } else {
        size_t n = ips->size < qlen ? ips->size : qlen;
        memcpy(b + off, ips->data, n);
        off += n;
        for (struct wren_snip *upto = ips; off < ICMPV6_HDR_LEN + qlen;) {
            struct wren_snip *s = pkt;
            while (s->next != upto) {
                s = s->next;
            }
            size_t k = s->size < ICMPV6_HDR_LEN + qlen - off ? s->size : ICMPV6_HDR_LEN + qlen - off;
            if (k) {
                memcpy(b + off, s->data, k);
            }
            off += k;
            upto = s;
            if (s == pkt) {
                break;
            }
        }
    }
    static const uint8_t any[16];
    /* the source: the address the datagram was sent to, if ours (not multicast) */
    const uint8_t *src = ipv6_addr_is_multicast(ip + 24) ? any : ip + 24;
    uint8_t dst[16];
    memcpy(dst, ip + 8, 16);
    if (send_msg(node, src, dst, 0, if_of(pkt), body) == 0) {
        icmp->stats.tx_errors++;
    }
}

static const uint8_t min_len[] = {
    /* by type: errors 8, echo 8, RS 8, RA 16, NS/NA 24, redirect 40 */
    [ICMPV6_DEST_UNREACH] = 8, [ICMPV6_PKT_TOO_BIG] = 8, [ICMPV6_TIME_EXCEEDED] = 8,
    [ICMPV6_PARAM_PROBLEM] = 8,
};

static size_t type_min(uint8_t type)
{
    if (type < sizeof(min_len) && min_len[type]) {
        return min_len[type];
    }
    switch (type) {
    case ICMPV6_ND_RA:
        return 16;
    case ICMPV6_ND_NS:
    case ICMPV6_ND_NA:
        return 24;
    case ICMPV6_ND_REDIRECT:
        return 40;
    default:
        return type >= 128 ? 8 : 4;
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
    if (csum_of(ips->data + 8, ips->data + 24, pkt, pkt->size) != 0) {
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
    }
    if (type == ICMPV6_ECHO_REPLY || type < 128) {
        goto drop; /* raw sockets (ping) got their own reference */
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

static const struct wren_module_ops icmpv6_ops = {
    .name = "icmpv6",
    .handle = icmpv6_handle,
    .get = icmpv6_get,
};

int wren_icmpv6_init(struct wren_node *node, struct wren_icmpv6 *icmp)
{
    memset(icmp, 0, sizeof(*icmp));
    icmp->module.ops = &icmpv6_ops;
    icmp->module.prio = WREN_PRIO_NET;
    icmp->node = node;
    icmp->tokens_milli = CONFIG_WREN_ICMPV6_ERR_BURST * 1000u;
    icmp->last_refill = wren_node_now(node);
    return wren_netreg_register(node, WREN_NETTYPE_ICMPV6, WREN_NETREG_DEMUX_ALL, &icmp->module,
                                &icmp->reg);
}

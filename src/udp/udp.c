#include "udp/udp.h"

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
#include "wire/ipv6.h"
#include "wire/udp.h"

/* the checksum of @p len bytes from @p s on, the pseudo-header from @p ip */
static uint16_t csum(const uint8_t *ip, const struct wren_snip *s, size_t len)
{
    return wren_ipv6_upper_csum(ip + IPV6_OFF_SRC, ip + IPV6_OFF_DST, IPV6_NH_UDP, s, len);
}

/* Whether a datagram whose checksum its 6LoWPAN sender elided may go to
 * port @p port: only if it has receivers and each one asked for such
 * datagrams (RFC 6282 4.3.2 lets a sender elide the checksum only when the
 * upper layer authorises it; Linux's 6LoWPAN drops them all). */
static bool csum_elided_wanted(struct wren_node *node, uint16_t port)
{
    struct wren_netreg_entry *e = wren_netreg_lookup(node, WREN_NETTYPE_UDP, port, NULL);
    if (e == NULL) {
        return false;
    }
    for (; e; e = wren_netreg_lookup(node, WREN_NETTYPE_UDP, port, e)) {
        uint8_t ok = 0;
        if (wren_netapi_get(node, e->module, WREN_NETOPT_UDP_CSUM_ELIDED_OK, 0, &ok, 1) != 1 ||
            !ok) {
            return false;
        }
    }
    return true;
}

static void udp_receive(struct wren_udp *udp, struct wren_snip *pkt)
{
    struct wren_node *node = udp->node;
    struct wren_pktbuf *pb = &node->pktbuf;
    struct wren_snip *ips = wren_pkt_search(pkt, WREN_NETTYPE_IPV6);
    struct udp_hdr h;
    udp->stats.rx++;
    if (ips == NULL || ips->size < IPV6_HDR_LEN || wren_udp_hdr_parse(pkt->data, pkt->size, &h) < 0) {
        udp->stats.rx_drop_hdr++;
        goto drop;
    }
    /* zero is never sent over IPv6 (RFC 8200 8.1); every datagram is
     * verified, also one this node checksummed and looped back to itself */
    if (h.csum == 0 || csum(ips->data, pkt, h.len) != 0) {
        udp->stats.rx_drop_csum++;
        goto drop;
    }
    struct wren_snip *nhs = wren_pkt_search(pkt, WREN_NETTYPE_NETIF);
    if (nhs && (wren_netif_hdr(nhs)->flags & WREN_NETIF_HDR_CSUM_ELIDED) &&
        !csum_elided_wanted(node, h.dst_port)) {
        udp->stats.rx_drop_csum_elided++;
        goto drop;
    }
    if (pkt->users > 1) {
        /* shared with a raw socket: mark our own copy */
        struct wren_snip *p = pkt;
        if (wren_pktbuf_write_path(pb, &pkt, &p) < 0) {
            goto drop;
        }
    }
    if (pkt->size > h.len) {
        /* bytes after the UDP length are not part of the datagram */
        wren_pktbuf_trim_back(pb, pkt, h.len);
    }
    if (wren_pktbuf_mark(pb, pkt, UDP_HDR_LEN, WREN_NETTYPE_UDP) == NULL) {
        goto drop;
    }
    pkt->type = WREN_NETTYPE_UNDEF;
    struct wren_msg m = { .type = WREN_MSG_RCV, .ptr = pkt };
    if (wren_netapi_try_dispatch(node, WREN_NETTYPE_UDP, h.dst_port, &m) == 0) {
        udp->stats.rx_drop_no_port++;
        if (wren_ipv6_addr_is_multicast(ips->data + IPV6_OFF_DST)) {
            goto drop;
        }
        /* to the ICMPv6 module (released if there is none) */
        wren_netapi_dispatch(node, WREN_NETTYPE_ICMPV6, WREN_NETREG_DEMUX_ALL,
                             WREN_MSG_ICMPV6_ERROR(ICMPV6_DEST_UNREACH, ICMPV6_UNREACH_PORT), pkt);
    }
    return;

drop:
    wren_pktbuf_release(pb, pkt);
}

static void udp_send(struct wren_udp *udp, struct wren_snip *pkt)
{
    struct wren_node *node = udp->node;
    struct wren_pktbuf *pb = &node->pktbuf;
    struct wren_snip *ips = pkt;
    uint8_t if_id = 0;
    if (ips && ips->type == WREN_NETTYPE_NETIF) {
        if_id = wren_netif_hdr_if(ips);
        ips = ips->next;
    }
    struct wren_snip *us = ips ? ips->next : NULL;
    if (ips == NULL || ips->type != WREN_NETTYPE_IPV6 || ips->size != IPV6_HDR_LEN || us == NULL ||
        us->type != WREN_NETTYPE_UDP || us->size != UDP_HDR_LEN) {
        udp->stats.tx_drop_bad++;
        goto drop;
    }
    size_t len = wren_pkt_len(us);
    if (len > UINT16_MAX || wren_pktbuf_write_path(pb, &pkt, &us) < 0) {
        udp->stats.tx_drop_bad++;
        goto drop;
    }
    /* the path may have been copied: the IPv6 header is again the snip before us */
    ips = pkt->type == WREN_NETTYPE_NETIF ? pkt->next : pkt;
    uint8_t *src = ips->data + IPV6_OFF_SRC, *dst = ips->data + IPV6_OFF_DST;
    if (wren_ipv6_addr_is_unspecified(src)) {
        /* loopback: the source is the destination; else the IPv6 layer's
         * choice (asked in place: the packet is dropped if none) */
        wren_ipv6_addr_copy(src, dst);
        if (!wren_ipv6_addr_is_loopback(dst)) {
            struct wren_netreg_entry *e =
                wren_netreg_lookup(node, WREN_NETTYPE_IPV6, WREN_NETREG_DEMUX_ALL, NULL);
            if (e == NULL || wren_netapi_get(node, e->module, WREN_NETOPT_IPV6_SRC_SELECT, if_id,
                                             src, 16) != 16) {
                udp->stats.tx_drop_no_src++;
                goto drop;
            }
        }
    }
    uint8_t *u = us->data;
    put_be16(u + 4, (uint16_t)len);
    u[6] = u[7] = 0;
    uint16_t c = csum(ips->data, us, len);
    /* RFC 768: a computed zero is sent as all ones */
    put_be16(u + 6, c ? c : 0xffff);
    udp->stats.tx++;
    struct wren_msg m = { .type = WREN_MSG_SND, .ptr = pkt };
    if (wren_netapi_try_dispatch(node, WREN_NETTYPE_IPV6, WREN_NETREG_DEMUX_ALL, &m) == 0) {
        goto drop;
    }
    return;

drop:
    wren_pktbuf_release(pb, pkt);
}

static void udp_handle(struct wren_node *node, struct wren_module *self,
                       const struct wren_msg *msg)
{
    struct wren_udp *udp = (struct wren_udp *)self;
    if (msg->type == WREN_MSG_RCV) {
        udp_receive(udp, msg->ptr);
    } else if (msg->type == WREN_MSG_SND) {
        udp_send(udp, msg->ptr);
    } else if (msg->ptr) {
        wren_pktbuf_release(&node->pktbuf, msg->ptr);
    }
}

static int udp_get(struct wren_node *node, struct wren_module *self, uint16_t opt,
                   uint16_t ctx, void *val, size_t max)
{
    (void)node;
    (void)ctx;
    struct wren_udp *udp = (struct wren_udp *)self;
    if (opt == WREN_NETOPT_STATS) {
        return wren_netopt_put(val, max, &udp->stats, sizeof(udp->stats));
    }
    return -ENOTSUP;
}

static int udp_stack_init(struct wren_node *node, struct wren_module *self, uint8_t if_id)
{
    (void)if_id;
    return wren_udp_init(node, (struct wren_udp *)self);
}

static const struct wren_counter_set udp_counters =
    WREN_COUNTER_SET("udp", WREN_UDP_COUNTERS, WREN_NETOPT_STATS, uint32_t);

const struct wren_module_ops wren_udp_module = {
    .name = "udp",
    .handle = udp_handle,
    .get = udp_get,
    .init = udp_stack_init,
    .size = sizeof(struct wren_udp),
    .counters = WREN_IF_NAMES(&udp_counters),
};

int wren_udp_init(struct wren_node *node, struct wren_udp *udp)
{
    memset(udp, 0, sizeof(*udp));
    udp->module.ops = &wren_udp_module;
    udp->module.prio = WREN_PRIO_NET;
    udp->node = node;
    return wren_netreg_register(node, WREN_NETTYPE_UDP, WREN_NETREG_DEMUX_ALL, &udp->module,
                                &udp->reg);
}

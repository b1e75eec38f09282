/* IPv6 receiving (RFC 8200): the checks of a datagram that arrives, its
 * extension headers (also the hop-by-hop header of one we forward, RFC 8200
 * 4.2, 4.3; an RPL source routing header's next hop, RFC 6554 4.2), the end
 * of a root's tunnel (RFC 9008), delivery to raw sockets and the upper
 * layer. Sending and forwarding: ipv6_tx.c. */
#include "ipv6/ipv6.h"
#include "ipv6/ipv6_priv.h"

#include <errno.h>
#include <string.h>

#include "core/byteorder.h"
#include "core/config.h"
#include "shell/shell.h"
#include "core/node.h"
#include "link/link_est.h"
#include "net/netapi.h"
#include "net/netif.h"
#include "net/netopt.h"
#include "net/nettype.h"
#include "wire/icmpv6_types.h"
#include "wire/inet_csum.h"
#include "wire/ipv6.h"
#include "wire/ipv6_ext.h"
#include "wire/rpl.h"

static uint8_t nettype_of(uint8_t nh)
{
    switch (nh) {
    case IPV6_NH_UDP:
        return WREN_NETTYPE_UDP;
    case IPV6_NH_ICMPV6:
        return WREN_NETTYPE_ICMPV6;
    case IPV6_NH_TCP:
        return WREN_NETTYPE_TCP;
    default:
        return WREN_NETTYPE_UNDEF;
    }
}

/* Deliver to raw sockets of next header @p nh and to the protocol module.
 * Returns false if nobody takes it (then it is released). */
static bool deliver_up(struct wren_node *node, uint8_t nh, struct wren_snip *pkt)
{
    uint8_t type = nettype_of(nh);
    struct wren_msg msg = { .type = WREN_MSG_RCV, .ptr = pkt };
    if (wren_netreg_lookup(node, WREN_NETTYPE_IPV6, nh, NULL) == NULL) {
        /* no raw socket: the protocol module alone, one walk */
        if (type == WREN_NETTYPE_UNDEF || wren_netapi_try_dispatch(node, type,
                                                                   WREN_NETREG_DEMUX_ALL,
                                                                   &msg) == 0) {
            wren_pktbuf_release(&node->pktbuf, pkt);
            return false;
        }
        return true;
    }
    bool proto = type != WREN_NETTYPE_UNDEF &&
                 wren_netreg_lookup(node, type, WREN_NETREG_DEMUX_ALL, NULL) != NULL;
    if (proto) {
        wren_pktbuf_hold(&node->pktbuf, pkt, 1);
    }
    wren_netapi_dispatch(node, WREN_NETTYPE_IPV6, nh, WREN_MSG_RCV, pkt);
    if (proto) {
        wren_netapi_try_dispatch(node, type, WREN_NETREG_DEMUX_ALL, &msg);
    }
    return true;
}

/* ff02::1, solicited-node groups of our addresses (RFC 4291 2.7.1), joined groups */
static bool in_group(const struct wren_ipv6_if *ifc, const uint8_t *g)
{
    /* ff02::1 and ff02::1:ffXX:XXXX share their first 11 bytes */
    static const uint8_t ll_pre[11] = { 0xff, 0x02 };
    if (memcmp(g, ll_pre, 11) == 0) {
        if (g[11] == 0 && get_be32(g + 12) == 1) {
            return true; /* all nodes */
        }
        if (g[11] == 1 && g[12] == 0xff) {
            for (unsigned i = 0; i < CONFIG_WREN_IPV6_ADDRS; i++) {
                if (ifc->addrs[i].state && memcmp(ifc->addrs[i].addr + 13, g + 13, 3) == 0) {
                    return true;
                }
            }
        }
    }
#if CONFIG_WREN_IPV6_GROUPS
    for (unsigned i = 0; i < CONFIG_WREN_IPV6_GROUPS; i++) {
        if (memcmp(ifc->groups[i], g, 16) == 0) {
            return true;
        }
    }
#endif
    return false;
}

static bool for_us(struct wren_ipv6 *ip, const uint8_t *dst, uint8_t if_id)
{
    if (!wren_ipv6_addr_is_multicast(dst)) {
        return (if_id == 0 && wren_ipv6_addr_is_loopback(dst)) || wren_ipv6_is_own(ip, dst);
    }
    struct wren_ipv6_if *ifc = wren_ipv6_if_get(ip, if_id);
    if (ifc) {
        return in_group(ifc, dst);
    }
    /* looped back: any interface's membership counts */
    for (unsigned i = 0; i < wren_ipv6_n_ifs(ip); i++) {
        if (WREN_IPV6_IF(ip, i)->if_id && in_group(WREN_IPV6_IF(ip, i), dst)) {
            return true;
        }
    }
    return false;
}

static bool own_addr(void *ctx, const uint8_t addr[16])
{
    return wren_ipv6_is_own(ctx, addr);
}

/* RFC 6554 4.2, the last check: is @p next_hop a neighbour on @p if_id?
 * 6LoWPAN keeps no neighbour cache for route-over meshes, so the evidence
 * is the link estimator of the interface (GET WREN_NETOPT_LINK_ETX): a
 * node whose ETX reached 7 (a frame never ACKed counts 8, smoothed 7/8:
 * some 14 frames in a row unacknowledged, 15 from a perfect link) is not
 * one. ETX 4, where RPL stops using a link, is too low a bar: collisions on
 * a busy line push a good link past it for a moment. A node the estimator
 * does not know gets the benefit of the doubt: it may well be a neighbour
 * nothing was sent to yet. */
static bool srh_neighbour(struct wren_ipv6 *ip, uint8_t if_id, const uint8_t *next_hop)
{
    struct wren_netif *netif = wren_netif_get(ip->node, if_id);
    struct wren_link_etx q = { .len = 0 };
    if (netif == NULL || wren_ipv6_addr_is_multicast(next_hop)) {
        return true;
    }
    q.len = wren_ipv6_l2_from_iid(next_hop + 8, q.addr);
    if (wren_netapi_get(ip->node, &netif->module, WREN_NETOPT_LINK_ETX, 0, &q, sizeof(q)) < 0) {
        return true;
    }
    uint16_t etx;
    memcpy(&etx, q.etx, 2);
    return etx < WREN_LINK_ETX_NOACK - WREN_LINK_ETX_ONE;
}

/* RFC 6554 4.2: one hop of an RPL source routing header at @p rh_off
 * (after the fixed header) of a datagram for us with segments left. Returns
 * 0 when the packet was forwarded or went to ICMPv6, -1 to drop it. */
static int srh_step(struct wren_ipv6 *ip, struct wren_snip *pkt, uint16_t plen, uint16_t rh_off)
{
    uint16_t err = 0;
    int rc = wren_rpl_srh_process(pkt->data + IPV6_HDR_LEN + rh_off, (size_t)plen - rh_off,
                                  pkt->data + IPV6_OFF_DST, own_addr, ip, &err);
    if (rc == 1) {
        struct wren_snip *nhs = wren_pkt_search(pkt, WREN_NETTYPE_NETIF);
        uint8_t if_id = nhs ? wren_netif_hdr(nhs)->if_id : 0;
        if (!srh_neighbour(ip, if_id, pkt->data + IPV6_OFF_DST)) {
            /* 4.2: the next hop is not a neighbour: destination
             * unreachable, error in source routing header */
            ip->stats.rx_drop_srh++;
            wren_ipv6_icmp_error(ip, pkt, ICMPV6_DEST_UNREACH, ICMPV6_UNREACH_SRH, 0);
            return 0;
        }
        ip->stats.rx_srh_forwarded++;
        wren_ipv6_forward(ip, pkt, if_id, false);
        return 0;
    }
    ip->stats.rx_drop_srh++;
    if (rc == -RPL_ERR_SRH_MCAST) {
        return -1; /* discarded without an error (4.2) */
    }
    wren_ipv6_icmp_error(ip, pkt, ICMPV6_PARAM_PROBLEM, ICMPV6_PARAM_HDR,
                         (uint16_t)(IPV6_HDR_LEN + rh_off + err));
    return 0;
}

/* RFC 6553 3: an RPL option (a type we know, on a router) carries at
 * least flags, instance and rank; a shorter one is malformed. Returns the
 * offset of its length byte in the hop-by-hop header at @p hbh, 0 if none. */
static uint16_t rpi_short(const uint8_t *hbh, size_t hlen)
{
    struct ipv6_ext_opt o;
    size_t pos = 2;
    while (CONFIG_WREN_IPV6_ROUTER && wren_ipv6_ext_opt_next(hbh, hlen, &pos, &o) > 0) {
        if ((o.type == RPL_RPI_TYPE || o.type == RPL_RPI_TYPE_6553) && o.len < RPL_RPI_LEN) {
            return (uint16_t)(o.off + 1);
        }
    }
    return 0;
}

/* RFC 8200 4.2: whether an option we do not know, with action bits
 * @p act, is dropped without an ICMPv6 error (skipped ones never get here):
 * 01, or 11 when @p pkt went to a multicast address. */
static bool opt_silent(const struct wren_snip *pkt, unsigned act)
{
    return act < IPV6_OPT_ACT_ICMP ||
           (act == IPV6_OPT_ACT_ICMP_UCAST && wren_ipv6_addr_is_multicast(pkt->data + IPV6_OFF_DST));
}

/* RFC 8200 4: walk the extension headers from @p nh over @p data
 * (@p plen bytes) into @p e, all of them or, @p fwd, the hop-by-hop header
 * alone; the RPL option is a type we know on a router (RFC 6553's type
 * asks to discard when unknown). Returns wren_ipv6_ext_walk()'s answer. */
static int ext_walk(const uint8_t *data, uint16_t plen, uint8_t nh, bool fwd, struct ipv6_ext *e)
{
    static const uint8_t known[2] = { RPL_RPI_TYPE, RPL_RPI_TYPE_6553 };
    size_t n_known = CONFIG_WREN_IPV6_ROUTER ? 2 : 0;
    return fwd ? wren_ipv6_ext_walk_hbh(nh, data, plen, known, n_known, e)
               : wren_ipv6_ext_walk(nh, data, plen, known, n_known, e);
}

/* RFC 8200 section 4: walk the extension headers of a datagram for us, or,
 * @p fwd, the hop-by-hop header alone of one we forward (4, 4.3: a router
 * examines no other; wren's routers examine it, they read the RPL option
 * in it). Returns 1 to go on (*nh, *ext_len set), 0 if the packet went to
 * ICMPv6 for a parameter problem (or, a source route, on to its next hop),
 * -1 to drop it (counted). */
static int walk_ext(struct wren_ipv6 *ip, struct wren_snip *pkt, uint16_t plen, uint8_t *nh,
                    size_t *ext_len, bool fwd)
{
    struct ipv6_ext e;
    const uint8_t *data = pkt->data + IPV6_HDR_LEN;
    int res = ext_walk(data, plen, *nh, fwd, &e);
    uint32_t *count = fwd ? &ip->stats.rx_drop_hbh_fwd : &ip->stats.rx_drop_ext;
    uint8_t code = ICMPV6_PARAM_HDR;
    uint16_t ptr = e.err_off;
    switch (res) {
    case 0:
        break;
    case -IPV6_EXT_ERR_HBH:
        code = ICMPV6_PARAM_NEXT_HDR;
        /* fall through */
    case -IPV6_EXT_ERR_TRUNCATED:
    case -IPV6_EXT_ERR_OPT:
    case -IPV6_EXT_ERR_RH0:
        goto param_problem;
    default:
        goto drop;
    }
    if (e.opt_off) {
        /* an option we do not know whose type asks for more than a skip */
        if (opt_silent(pkt, data[e.opt_off] >> 6)) {
            goto drop;
        }
        code = ICMPV6_PARAM_OPTION;
        ptr = e.opt_off;
        goto param_problem;
    }
    if ((e.flags & IPV6_EXT_F_HBH) && (ptr = rpi_short(data, (data[1] + 1u) * 8)) != 0) {
        goto param_problem; /* code 0, at the option's length */
    }
    if (fwd) {
        return 1;
    }
    if ((e.flags & IPV6_EXT_F_RH) && e.rh_segs_left) {
        if (CONFIG_WREN_IPV6_RPL && CONFIG_WREN_RPL_NONSTORING && ip->forwarding &&
            e.rh_type == RPL_SRH_TYPE) {
            return srh_step(ip, pkt, plen, e.rh_off);
        }
        /* a routing header we would have to process: no source routing here */
        ptr = (uint16_t)(e.rh_off + 2);
        goto param_problem;
    }
    if ((e.flags & IPV6_EXT_F_FRAG) && (e.frag_offset || e.frag_more)) {
        /* IPv6 fragments are not reassembled (6LoWPAN carries 1280 bytes
         * without them): a clean, counted drop */
        goto drop;
    }
    *nh = e.next;
    *ext_len = e.off;
    return 1;

param_problem:
    (*count)++;
    wren_ipv6_icmp_error(ip, pkt, ICMPV6_PARAM_PROBLEM, code, (uint16_t)(IPV6_HDR_LEN + ptr));
    return 0;
drop:
    (*count)++;
    return -1;
}

/* A datagram not for us (@p if_id: the interface it came in on): a router
 * forwards it, but RFC 8200 4.2, 4.3: not with a malformed hop-by-hop
 * header, or an option whose type says so (before, any was: the next
 * router or the destination had to refuse it); others are dropped. */
static void not_for_us(struct wren_ipv6 *ip, struct wren_snip *pkt, uint16_t plen, uint8_t if_id,
                       bool tunnelled)
{
    const uint8_t *dst = pkt->data + IPV6_OFF_DST;
    if (CONFIG_WREN_IPV6_ROUTER && ip->forwarding && !wren_ipv6_addr_is_multicast(dst) &&
        !wren_ipv6_addr_is_link_local(dst) && if_id) {
        uint8_t fnh = pkt->data[IPV6_OFF_NEXT];
        size_t fext = 0;
        int res = fnh == IPV6_NH_HOPOPT ? walk_ext(ip, pkt, plen, &fnh, &fext, true) : 1;
        if (res < 0) {
            wren_pktbuf_release(&ip->node->pktbuf, pkt);
        } else if (res > 0) {
            wren_ipv6_forward(ip, pkt, 0, tunnelled);
        }
        return;
    }
    ip->stats.rx_drop_not_for_us++;
    wren_pktbuf_release(&ip->node->pktbuf, pkt);
}

/* A datagram for us, its extension headers (@p ext_len bytes) walked, up
 * to the upper layer @p nh: the IPv6 header and the extension headers
 * marked as snips of their own. */
static void deliver(struct wren_ipv6 *ip, struct wren_snip *pkt, uint8_t nh, size_t ext_len)
{
    struct wren_pktbuf *pb = &ip->node->pktbuf;
    if (wren_pktbuf_mark(pb, pkt, IPV6_HDR_LEN, WREN_NETTYPE_IPV6) == NULL ||
        (ext_len && wren_pktbuf_mark(pb, pkt, ext_len, WREN_NETTYPE_IPV6_EXT) == NULL)) {
        ip->stats.rx_drop_nobuf++;
        wren_pktbuf_release(pb, pkt);
        return;
    }
    pkt->type = nettype_of(nh);
    if (!deliver_up(ip->node, nh, pkt)) {
        ip->stats.rx_drop_no_receiver++;
        return;
    }
    ip->stats.rx_delivered++;
}

/* @p tunnelled: @p pkt came out of an IPv6-in-IPv6 tunnel (one level is
 * taken apart, no more) */
static void receive_dg(struct wren_ipv6 *ip, struct wren_snip *pkt, bool tunnelled)
{
    struct wren_node *node = ip->node;
    struct wren_pktbuf *pb = &node->pktbuf;
    ip->stats.rx_pkts++;
    /* RFC 8200 section 3: the version, then a payload length within the bytes */
    if (pkt->size < IPV6_HDR_LEN || (pkt->data[0] >> 4) != 6) {
        ip->stats.rx_drop_hdr++;
        goto drop;
    }
    uint16_t plen = get_be16(pkt->data + IPV6_OFF_PAYLOAD_LEN);
    size_t len = IPV6_HDR_LEN + (size_t)plen;
    if (len > pkt->size) {
        ip->stats.rx_drop_len++;
        goto drop;
    }
    if (wren_ipv6_addr_is_multicast(pkt->data + IPV6_OFF_SRC)) {
        ip->stats.rx_drop_src++;
        goto drop;
    }
    struct wren_snip *nhs = wren_pkt_search(pkt, WREN_NETTYPE_NETIF);
    uint8_t if_id = nhs ? wren_netif_hdr(nhs)->if_id : 0;
    if (pkt->users > 1) {
        /* the datagram is shared (several receivers below): take a copy */
        struct wren_snip *dg = pkt;
        if (wren_pktbuf_write_path(pb, &pkt, &dg) < 0) {
            ip->stats.rx_drop_nobuf++;
            goto drop;
        }
    }
    if (pkt->size > len) {
        /* link padding after the datagram */
        wren_pktbuf_trim_back(pb, pkt, len);
    }
    const uint8_t *dst = pkt->data + IPV6_OFF_DST;
    if (!for_us(ip, dst, if_id)) {
        not_for_us(ip, pkt, plen, if_id, tunnelled);
        return;
    }
    uint8_t nh = pkt->data[IPV6_OFF_NEXT];
    size_t ext_len = 0;
    if (nh == IPV6_NH_HOPOPT || nh == IPV6_NH_ROUTING || nh == IPV6_NH_DSTOPTS ||
        nh == IPV6_NH_FRAGMENT) {
        int res = walk_ext(ip, pkt, plen, &nh, &ext_len, false);
        if (res < 0) {
            goto drop;
        }
        if (res == 0) {
            return; /* handed to ICMPv6 for an error */
        }
    }
    if (nh == IPV6_NH_IPV6 && CONFIG_WREN_IPV6_ROUTER) {
        /* RFC 9008: the end of a root's tunnel (RFC 2473 3: the outer
         * headers go, the inner datagram is received as it is, here or on
         * to its destination); a tunnel within a tunnel is not taken apart */
        size_t outer = IPV6_HDR_LEN + ext_len;
        if (tunnelled || pkt->size < outer + IPV6_HDR_LEN) {
            ip->stats.rx_drop_decap++;
            goto drop;
        }
        ip->stats.rx_decap++;
        wren_pktbuf_trim_front(pb, pkt, outer);
        receive_dg(ip, pkt, true);
        return;
    }
    deliver(ip, pkt, nh, ext_len);
    return;

drop:
    wren_pktbuf_release(pb, pkt);
}

void wren_ipv6_receive(struct wren_ipv6 *ip, struct wren_snip *pkt)
{
    receive_dg(ip, pkt, false);
}

/* IPv6 sending and forwarding: our datagrams (source, payload length, hop
 * limit; loopback), forwarded ones (scope, hop limit), RPL's hooks on the
 * way out (each asked of the module taking ICMPv6 type 155: the RPL option,
 * RFC 6553 and RFC 9008, inserted, updated, removed at the DODAG's edge; a
 * non-storing root's source routes, RFC 6554; IPv6-in-IPv6 tunnels, RFC
 * 9008 7 and 8), the route out (FIB, RPL's downward routes, a pinned
 * interface), the next hop's link address and the link. Receiving:
 * ipv6_rx.c. */
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

/* Hand a TX packet [netif] -> [ipv6] -> ... to interface @p ifc. */
static void to_link(struct wren_ipv6 *ip, struct wren_ipv6_if *ifc, struct wren_snip *pkt)
{
    struct wren_node *node = ip->node;
    ip->stats.tx_pkts++;
    if (ifc->flags & WREN_IPV6_IF_SIXLO) {
        if (wren_netapi_dispatch(node, WREN_NETTYPE_SIXLOWPAN, WREN_NETREG_DEMUX_ALL,
                                 WREN_MSG_SND, pkt) == 0) {
            ip->stats.tx_drop_no_route++;
        }
        return;
    }
    if (ifc->flags & WREN_IPV6_IF_SCHC) {
        if (wren_netapi_dispatch(node, WREN_NETTYPE_SCHC, ifc->if_id, WREN_MSG_SND, pkt) == 0) {
            ip->stats.tx_drop_no_route++;
        }
        return;
    }
    struct wren_netif *netif = wren_netif_get(node, ifc->if_id);
    if (netif == NULL) {
        ip->stats.tx_drop_no_route++;
        wren_pktbuf_release(&node->pktbuf, pkt);
        return;
    }
    wren_netapi_send(node, &netif->module, pkt);
}

/* Link destination of @p next_hop on @p ifc into @p l2 (16 bytes of room);
 * returns its length (0: broadcast). */
static uint8_t resolve(struct wren_ipv6 *ip, const struct wren_ipv6_if *ifc,
                       const uint8_t *next_hop, uint8_t *l2, uint8_t *flags)
{
    if (wren_ipv6_addr_is_multicast(next_hop)) {
        *flags |= WREN_NETIF_HDR_BROADCAST | WREN_NETIF_HDR_MULTICAST;
        return 0;
    }
    /* the neighbor cache first (neighbor discovery answers through GET, in
     * place; the module running it on this interface knows) */
    struct wren_netreg_entry *e = NULL;
    while ((e = wren_netreg_lookup(ip->node, WREN_NETTYPE_ICMPV6, ICMPV6_ND_NS, e))) {
        wren_ipv6_addr_copy(l2, next_hop);
        int n = wren_netapi_get(ip->node, e->module, WREN_NETOPT_NIB_L2, ifc->if_id, l2, 16);
        if (n == 2 || n == 6 || n == 8) {
            return (uint8_t)n;
        }
    }
    if (CONFIG_WREN_IPV6_ETHERNET && (ifc->flags & WREN_IPV6_IF_ND)) {
        return 0; /* Ethernet: unresolved, neighbor discovery solicits it (nd_hold) */
    }
    /* 6LoWPAN links: addresses carry the link address in their IID
     * (RFC 6775 section 5.2) */
    return wren_ipv6_l2_from_iid(next_hop + 8, l2);
}

/* RFC 4861 7.2.2: hand @p pkt (netif header first) to the neighbor
 * discovery module of its interface, which holds it until @p next_hop
 * answers a solicitation. */
static void nd_hold(struct wren_ipv6 *ip, uint8_t if_id, const uint8_t *next_hop,
                    struct wren_snip *pkt)
{
    struct wren_nib_hold h = { .pkt = pkt };
    wren_ipv6_addr_copy(h.next_hop, next_hop);
    struct wren_netreg_entry *e = NULL;
    while ((e = wren_netreg_lookup(ip->node, WREN_NETTYPE_ICMPV6, ICMPV6_ND_NS, e))) {
        if (wren_netapi_set(ip->node, e->module, WREN_NETOPT_NIB_HOLD, if_id, &h, sizeof(h)) ==
            0) {
            ip->stats.tx_pkts++;
            return;
        }
    }
    ip->stats.tx_drop_no_route++;
    wren_pktbuf_release(&ip->node->pktbuf, pkt);
}

/* ---- RPL's hooks on the way out (RFC 6553, RFC 6554, RFC 9008) ------------ */

/* GET @p opt of each RPL module (the modules taking ICMPv6 type 155) in
 * turn, @p v (@p len bytes) holding @p dst first, until one answers with
 * @p want bytes or more: the last answer, -ENOENT if none. */
static int rpl_ask(struct wren_ipv6 *ip, uint16_t opt, const uint8_t *dst, uint8_t *v, size_t len,
                   int want)
{
    int n = -ENOENT;
    struct wren_netreg_entry *e = NULL;
    while (n < want && (e = wren_netreg_lookup(ip->node, WREN_NETTYPE_ICMPV6, ICMPV6_RPL, e))) {
        wren_ipv6_addr_copy(v, dst);
        n = wren_netapi_get(ip->node, e->module, opt, 0, v, len);
    }
    return n;
}

/* RPL's downward route to @p dst (storing mode: RPL keeps those routes in
 * its own table, sized apart from the FIB): GET WREN_NETOPT_RPL_ROUTE of the
 * module taking ICMPv6 type 155 fills @p rr with the interface, the prefix
 * length and the next hop. Returns whether there is one. */
static bool rpl_route(struct wren_ipv6 *ip, const uint8_t *dst, uint8_t rr[18])
{
    if (!CONFIG_WREN_IPV6_RPL || (!CONFIG_WREN_RPL_STORING && !CONFIG_WREN_RPL_RUL)) {
        return false; /* (non-storing routers hold no downward routes) */
    }
    return rpl_ask(ip, WREN_NETOPT_RPL_ROUTE, dst, rr, 18, 18) == 18;
}

/* RFC 9008: must a datagram to @p dst leaving through @p if_id lose its
 * RPI? Yes to a RPL-unaware leaf (GET WREN_NETOPT_RPL_RUL answers 1), and
 * through an interface no RPL instance of ours runs on (none answers 0),
 * except a datagram @p forwarded by a root (one answers 2) out of its
 * DODAG: RFC 9008 7.2.1 lets that RPI go on. */
static bool rpl_outside(struct wren_ipv6 *ip, uint8_t if_id, const uint8_t *dst, bool forwarded)
{
    bool inside = false, edge = false;
    struct wren_netreg_entry *e = NULL;
    while ((e = wren_netreg_lookup(ip->node, WREN_NETTYPE_ICMPV6, ICMPV6_RPL, e))) {
        uint8_t v[17];
        wren_ipv6_addr_copy(v, dst);
        v[16] = if_id;
        int rc = wren_netapi_get(ip->node, e->module, WREN_NETOPT_RPL_RUL, 0, v, sizeof(v));
        if (rc == 1) {
            return true;
        }
        inside |= rc == 0;
        edge |= rc == 2;
    }
    return !inside && !(forwarded && edge);
}

/* Take the hop-by-hop header off the datagram whose IPv6 header snip is
 * @p hs when it holds an RPI and nothing else (padding aside): a leaf built
 * without extension headers (RIOT's default examples) drops every datagram
 * with one. The header is in the snip after @p hs, first (ours: a snip of
 * its own; forwarded: the start of the payload). Another option: kept. */
static void rpi_strip(struct wren_ipv6 *ip, struct wren_snip *hs)
{
    struct wren_pktbuf *pb = &ip->node->pktbuf;
    struct wren_snip *x = hs->next;
    if (x == NULL || x->size < 8) {
        return;
    }
    const uint8_t *hbh = x->data;
    size_t hlen = (hbh[1] + 1u) * 8, pos = 2;
    struct ipv6_ext_opt o;
    bool rpi = false;
    int rc;
    if (x->size < hlen) {
        return;
    }
    while ((rc = wren_ipv6_ext_opt_next(hbh, hlen, &pos, &o)) > 0) {
        if (o.type != RPL_RPI_TYPE && o.type != RPL_RPI_TYPE_6553) {
            return;
        }
        rpi = true;
    }
    if (rc < 0 || !rpi) {
        return;
    }
    hs->data[IPV6_OFF_NEXT] = hbh[0];
    if (x->size == hlen) {
        hs->next = x->next;
        x->next = NULL;
        wren_pktbuf_release(pb, x);
    } else {
        wren_pktbuf_trim_front(pb, x, hlen);
    }
    put_be16(hs->data + IPV6_OFF_PAYLOAD_LEN,
             (uint16_t)(get_be16(hs->data + IPV6_OFF_PAYLOAD_LEN) - hlen));
    ip->stats.tx_rpi_removed++;
}

/* RFC 6554 3 at a non-storing RPL root: the module taking ICMPv6 type 155
 * may have a source route to the destination of @p hs (the writable IPv6
 * header snip): its SRH goes in after the header and the first hop becomes
 * the destination (the upper-layer checksum stays over the final one, RFC
 * 8200 8.1). Returns the interface the first hop is on, 0 to route as
 * usual, -1 when the buffer is full. */
static int srh_insert(struct wren_ipv6 *ip, struct wren_snip *hs, uint8_t pinned)
{
    if (!CONFIG_WREN_IPV6_RPL || !CONFIG_WREN_RPL_NONSTORING) {
        return 0;
    }
    uint8_t r[1 + 16 + WREN_IPV6_SRH_MAX];
    int n = rpl_ask(ip, WREN_NETOPT_RPL_SRH, hs->data + IPV6_OFF_DST, r, sizeof(r), 17);
    if (n < 17 || !wren_ipv6_if_get(ip, r[0]) || (pinned && r[0] != pinned)) {
        return 0; /* a pinned interface wins (answers go out where the question came in) */
    }
    if (n > 17) {
        struct wren_snip *rh = wren_pktbuf_add(&ip->node->pktbuf, hs->next, r + 17,
                                               (size_t)n - 17, WREN_NETTYPE_IPV6_EXT);
        if (rh == NULL) {
            ip->stats.tx_drop_nobuf++;
            return -1;
        }
        rh->data[0] = hs->data[IPV6_OFF_NEXT];
        hs->data[IPV6_OFF_NEXT] = IPV6_NH_ROUTING;
        hs->next = rh;
        ip->stats.tx_srh++;
    }
    wren_ipv6_addr_copy(hs->data + IPV6_OFF_DST, r + 1);
    return r[0];
}

/* The module taking ICMPv6 type 155 (RPL), or NULL. */
static struct wren_module *rpl_module(struct wren_ipv6 *ip)
{
    struct wren_netreg_entry *e =
        wren_netreg_lookup(ip->node, WREN_NETTYPE_ICMPV6, ICMPV6_RPL, NULL);
    return e ? e->module : NULL;
}

/* RFC 6553 / RFC 9008: a datagram a node of an RPL instance originates
 * carries the RPL option in a hop-by-hop header, first after the IPv6
 * header. Returns 0, or -1 when the buffer is full. */
static int rpi_insert(struct wren_ipv6 *ip, struct wren_snip *hs)
{
    if (!CONFIG_WREN_IPV6_RPL) {
        return 0; /* first: without RPL a host's build drops all of this */
    }
    struct wren_module *rpl = rpl_module(ip);
    uint8_t v[16];
    if (rpl == NULL) {
        return 0;
    }
    wren_ipv6_addr_copy(v, hs->data + IPV6_OFF_DST);
    if (wren_netapi_get(ip->node, rpl, WREN_NETOPT_RPL_RPI, 0, v, sizeof(v)) != RPL_RPI_LEN) {
        return 0; /* not in a DODAG */
    }
    struct rpl_rpi r = { .flags = v[0], .instance = v[1], .rank = get_be16(v + 2) };
    uint8_t hbh[8];
    wren_rpl_rpi_hbh_emit(hs->data[IPV6_OFF_NEXT], &r, hbh, sizeof(hbh));
    struct wren_snip *h = wren_pktbuf_add(&ip->node->pktbuf, hs->next, hbh, sizeof(hbh),
                                          WREN_NETTYPE_IPV6_EXT);
    if (h == NULL) {
        ip->stats.tx_drop_nobuf++;
        return -1;
    }
    hs->data[IPV6_OFF_NEXT] = IPV6_NH_HOPOPT;
    hs->next = h;
    ip->stats.tx_rpi++;
    return 0;
}

/* The first RPL option of at least @p min_len data bytes in the hop-by-hop
 * header that datagram @p dg (whole, in one snip) starts with: the offset
 * of its data in @p dg, 0 if none. */
static size_t rpi_find(const struct wren_snip *dg, uint8_t min_len)
{
    if (dg->data[IPV6_OFF_NEXT] != IPV6_NH_HOPOPT || dg->size < IPV6_HDR_LEN + 8) {
        return 0;
    }
    const uint8_t *hbh = dg->data + IPV6_HDR_LEN;
    size_t hlen = (hbh[1] + 1u) * 8, pos = 2;
    struct ipv6_ext_opt o;
    if (IPV6_HDR_LEN + hlen > dg->size) {
        return 0;
    }
    while (wren_ipv6_ext_opt_next(hbh, hlen, &pos, &o) > 0) {
        if ((o.type == RPL_RPI_TYPE || o.type == RPL_RPI_TYPE_6553) && o.len >= min_len) {
            return IPV6_HDR_LEN + o.off + 2;
        }
    }
    return 0;
}

/* RFC 6550 11.2: a router forwarding a datagram updates its RPI (direction,
 * our rank) after RPL checked it for a rank error; RPL answers -ELOOP for a
 * second error (a loop): the datagram is dropped. @p dg: the datagram,
 * writable. Returns 0 or -1 (dropped, counted). */
static int rpi_forward(struct wren_ipv6 *ip, struct wren_snip *dg, const uint8_t *prev_iid)
{
    if (!CONFIG_WREN_IPV6_RPL) {
        return 0;
    }
    struct wren_module *rpl = rpl_module(ip);
    size_t off = rpl ? rpi_find(dg, RPL_RPI_LEN) : 0;
    if (off == 0) {
        return 0; /* (a hop-by-hop header past the datagram: the receiver's walk refuses it) */
    }
    uint8_t *rpi = dg->data + off;
    uint8_t v[28];
    wren_ipv6_addr_copy(v, dg->data + IPV6_OFF_DST);
    memcpy(v + 16, rpi, RPL_RPI_LEN);
    memcpy(v + 20, prev_iid, 8);
    int n = wren_netapi_get(ip->node, rpl, WREN_NETOPT_RPL_RPI_FWD, 0, v, sizeof(v));
    if (n == -ELOOP) {
        ip->stats.rx_drop_rpl_loop++;
        return -1;
    }
    if (n == RPL_RPI_LEN) {
        memcpy(rpi, v, RPL_RPI_LEN);
    }
    return 0;
}

/* IPv6-in-IPv6 (RFC 2473) to @p dst: a new outer header before @p pkt,
 * whose header snip @p inner becomes the tunnel's payload, sent as ours
 * (wren_ipv6_send(): source, RPI, SRH); a full buffer drops it, counted in @p nobuf */
static void encapsulate(struct wren_ipv6 *ip, struct wren_snip *pkt, struct wren_snip *inner,
                        const uint8_t *dst, uint32_t *nobuf)
{
    struct wren_snip *oh = wren_pktbuf_add(&ip->node->pktbuf, pkt, NULL, IPV6_HDR_LEN,
                                           WREN_NETTYPE_IPV6);
    if (oh == NULL) {
        (*nobuf)++;
        wren_pktbuf_release(&ip->node->pktbuf, pkt);
        return;
    }
    inner->type = WREN_NETTYPE_UNDEF;
    wren_ipv6_hdr_init(oh->data, NULL, dst, IPV6_NH_IPV6);
    ip->stats.tx_tunnel++;
    wren_ipv6_send(ip, oh);
}

/* RFC 9008 7.1.3, 8.1.3: a datagram a root originates for a RPL-unaware
 * leaf goes in a tunnel to the 6LR that announced the leaf (GET
 * WREN_NETOPT_RPL_TUNNEL, 2: ours), so that the leaf gets it with no RPL
 * artifact; the outer header is sent as ours (SRH, RPI). @p pkt: the
 * datagram, @p hs its writable IPv6 header, source set. Returns true if
 * the tunnel took it (sent, or dropped and counted). */
static bool tunnel_origin(struct wren_ipv6 *ip, struct wren_snip *pkt, struct wren_snip *hs)
{
    uint8_t *h = hs->data;
    if (!CONFIG_WREN_IPV6_RPL || !CONFIG_WREN_IPV6_ROUTER || !CONFIG_WREN_RPL_RUL ||
        wren_ipv6_addr_is_multicast(h + IPV6_OFF_DST) ||
        wren_ipv6_addr_is_link_local(h + IPV6_OFF_DST)) {
        return false;
    }
    uint8_t v[17];
    int n = -ENOENT;
    struct wren_netreg_entry *e = NULL;
    while (n != 16 && (e = wren_netreg_lookup(ip->node, WREN_NETTYPE_ICMPV6, ICMPV6_RPL, e))) {
        wren_ipv6_addr_copy(v, h + IPV6_OFF_DST);
        v[16] = 2;
        n = wren_netapi_get(ip->node, e->module, WREN_NETOPT_RPL_TUNNEL, 0, v, sizeof(v));
    }
    if (n != 16) {
        return false;
    }
    put_be16(h + IPV6_OFF_PAYLOAD_LEN, (uint16_t)wren_pkt_len(hs->next));
    if (h[IPV6_OFF_HOP_LIMIT] == 0) {
        h[IPV6_OFF_HOP_LIMIT] = WREN_IPV6_DEFAULT_HOP_LIMIT;
    }
    encapsulate(ip, pkt, hs, v, &ip->stats.tx_drop_nobuf);
    return true;
}

/* RFC 9008 7 and 8: a root forwarding a datagram down its DODAG that the
 * datagram cannot travel as it is (non-storing: it needs a source route;
 * storing: it came from outside, without an RPI) puts it in an IPv6-in-IPv6
 * tunnel to its destination, since a router may not insert headers into
 * another's datagram (RFC 8200 4). The outer header is the root's own:
 * wren_ipv6_send() gives it the SRH and the RPI. @p dg: the whole datagram, its hop
 * limit already decremented. Returns true if the tunnel took it (sent, or
 * dropped and counted), false to forward it as it is. */
static bool tunnel_down(struct wren_ipv6 *ip, struct wren_snip *dg)
{
    if (!CONFIG_WREN_IPV6_RPL) {
        return false; /* first: without RPL a router's build drops all of this */
    }
    struct wren_module *rpl = rpl_module(ip);
    if (rpl == NULL) {
        return false;
    }
    uint8_t v[33];
    wren_ipv6_addr_copy(v, dg->data + IPV6_OFF_DST);
    v[16] = rpi_find(dg, 0) != 0;
    wren_ipv6_addr_copy(v + 17, dg->data + IPV6_OFF_SRC);
    if (wren_netapi_get(ip->node, rpl, WREN_NETOPT_RPL_TUNNEL, 0, v, sizeof(v)) != 16) {
        return false;
    }
    encapsulate(ip, dg, dg, v, &ip->stats.rx_drop_nobuf);
    return true;
}

/* ---- routing ------------------------------------------------------------ */

/* RPL's downward route to @p dst, when it is longer than the FIB's @p r
 * and on the @p pinned interface (if any): its interface, @p rr holding the
 * route; NULL otherwise. */
static struct wren_ipv6_if *rpl_route_wins(struct wren_ipv6 *ip, const uint8_t *dst,
                                           const struct wren_fib_entry *r, uint8_t pinned,
                                           uint8_t rr[18])
{
    if (!rpl_route(ip, dst, rr) || (r && rr[1] <= r->prefix_len) || (pinned && rr[0] != pinned)) {
        return NULL;
    }
    return wren_ipv6_if_get(ip, rr[0]);
}

/* The first interface we have (link scope without a pinned one), or NULL. */
static struct wren_ipv6_if *first_if(struct wren_ipv6 *ip)
{
    for (unsigned i = 0; i < wren_ipv6_n_ifs(ip); i++) {
        if (WREN_IPV6_IF(ip, i)->if_id) {
            return WREN_IPV6_IF(ip, i);
        }
    }
    return NULL;
}

/* The interface to @p dst and its next hop (*@p next_hop, @p dst unless a
 * route names another; @p rr holds RPL's route): RPL's downward route when
 * it is longer than the FIB's, the FIB's, a @p pinned interface, or, link
 * scope without one, the first interface. Returns NULL if none. */
static struct wren_ipv6_if *pick_route(struct wren_ipv6 *ip, const uint8_t *dst, uint8_t pinned,
                                       bool on_link, const uint8_t **next_hop, uint8_t rr[18])
{
    *next_hop = dst;
    /* on_link: a strict source route's next hop is a neighbour on @p pinned */
    bool link_scope = on_link || wren_ipv6_addr_is_multicast(dst) ||
                      wren_ipv6_addr_is_link_local(dst);
    if (!link_scope) {
        const struct wren_fib_entry *r = wren_fib_lookup(wren_ipv6_fib(ip), dst);
        struct wren_ipv6_if *ifc = rpl_route_wins(ip, dst, r, pinned, rr);
        if (ifc) {
            *next_hop = rr + 2; /* RPL's route */
            return ifc;
        }
        if (r && (!pinned || r->if_id == pinned)) {
            if (!wren_ipv6_addr_is_unspecified(r->next_hop)) {
                *next_hop = r->next_hop;
            }
            return wren_ipv6_if_get(ip, r->if_id);
        }
        if (!pinned) {
            return NULL;
        }
    }
    /* the pinned interface wins (its destination is on-link); link scope
     * without one: the first interface */
    return pinned ? wren_ipv6_if_get(ip, pinned) : first_if(ip);
}

/* Route @p pkt, whose head is the 40-byte IPv6 header snip (netif header
 * removed), out of the right interface; @p pinned is 0 or a forced interface.
 * A forwarded packet that cannot go gets an ICMPv6 error instead. */
static void route_out(struct wren_ipv6 *ip, struct wren_snip *pkt, uint8_t pinned,
                      bool forwarded, bool on_link)
{
    const uint8_t *dst = pkt->data + IPV6_OFF_DST;
    const uint8_t *next_hop;
    uint8_t rr[18]; /* RPL's downward route: interface, prefix length, next hop */
    struct wren_ipv6_if *ifc = pick_route(ip, dst, pinned, on_link, &next_hop, rr);
    if (ifc == NULL) {
        if (CONFIG_WREN_IPV6_ROUTER && forwarded) {
            ip->stats.rx_drop_no_route++;
            wren_ipv6_icmp_error(ip, pkt, ICMPV6_DEST_UNREACH, ICMPV6_UNREACH_NO_ROUTE, 0);
            return;
        }
        ip->stats.tx_drop_no_route++;
        goto drop;
    }
    if (CONFIG_WREN_IPV6_RPL && pkt->data[IPV6_OFF_NEXT] == IPV6_NH_HOPOPT &&
        rpl_outside(ip, ifc->if_id, dst, forwarded)) {
        rpi_strip(ip, pkt);
    }
    if (wren_pkt_len(pkt) > ifc->mtu) {
        if (CONFIG_WREN_IPV6_ROUTER && forwarded) {
            wren_ipv6_icmp_error(ip, pkt, ICMPV6_PKT_TOO_BIG, 0, ifc->mtu);
            return;
        }
        ip->stats.tx_drop_too_big++;
        goto drop;
    }
    uint8_t l2[16];
    uint8_t flags = 0;
    uint8_t l2len = resolve(ip, ifc, next_hop, l2, &flags);
    if (!(flags & WREN_NETIF_HDR_MULTICAST) &&
        ((l2len && l2len == ifc->l2len && memcmp(l2, ifc->l2addr, l2len) == 0) ||
         wren_ipv6_is_own(ip, next_hop))) {
        /* to ourselves through the link (a route or source route through
         * us, a spoofed next hop): the radio would send it to nobody, or
         * it would come round again; datagrams for us never get here */
        ip->stats.tx_drop_self++;
        goto drop;
    }
    struct wren_snip *nh =
        wren_netif_hdr_add(&ip->node->pktbuf, pkt, ifc->l2addr, ifc->l2len, l2, l2len);
    if (nh == NULL) {
        ip->stats.tx_drop_nobuf++;
        goto drop;
    }
    wren_netif_hdr(nh)->flags = flags;
    wren_netif_hdr(nh)->if_id = ifc->if_id;
    if (CONFIG_WREN_IPV6_ETHERNET && l2len == 0 && flags == 0) {
        nd_hold(ip, ifc->if_id, next_hop, nh);
        return;
    }
    to_link(ip, ifc, nh);
    return;

drop:
    wren_pktbuf_release(&ip->node->pktbuf, pkt);
}

/* Whether @p pkt, handed to us to send (its netif header gone, @p pinned
 * the interface it named), starts with a 40-byte IPv6 header of version 6
 * and names an interface of ours, if any. */
static bool send_hdr_ok(struct wren_ipv6 *ip, const struct wren_snip *pkt, uint8_t pinned)
{
    return pkt && pkt->type == WREN_NETTYPE_IPV6 && pkt->size == IPV6_HDR_LEN &&
           (pkt->data[0] >> 4) == 6 && (!pinned || wren_ipv6_if_get(ip, pinned));
}

/* RPL's headers of a datagram we originate (not to ourselves, @p local),
 * unicast beyond the link and without extension headers yet: a
 * non-storing root's source route and the RPI (RPL's own messages go
 * without). Returns the source route's first hop's interface (0: none),
 * -1 when the buffer is full (counted). */
/* (not inlined: inlined into wren_ipv6_send, gcc 12 -Os made 40 bytes more) */
__attribute__((noinline)) static int rpl_headers(struct wren_ipv6 *ip, struct wren_snip *hs, uint8_t pinned, bool local)
{
    const uint8_t *h = hs->data, *dst = h + IPV6_OFF_DST;
    bool rpl_msg = h[IPV6_OFF_NEXT] == IPV6_NH_ICMPV6 && hs->next && hs->next->size &&
                   hs->next->data[0] == ICMPV6_RPL;
    int direct = 0;
    if (!local && !wren_ipv6_addr_is_multicast(dst) && !wren_ipv6_addr_is_link_local(dst) &&
        h[IPV6_OFF_NEXT] != IPV6_NH_HOPOPT &&
        ((direct = srh_insert(ip, hs, pinned)) < 0 || (!rpl_msg && rpi_insert(ip, hs) < 0))) {
        return -1;
    }
    return direct;
}

void wren_ipv6_send(struct wren_ipv6 *ip, struct wren_snip *pkt)
{
    struct wren_pktbuf *pb = &ip->node->pktbuf;
    uint8_t pinned = 0;
    if (pkt && pkt->type == WREN_NETTYPE_NETIF) {
        pinned = wren_netif_hdr(pkt)->if_id;
        pkt = wren_pktbuf_release_head(pb, pkt);
    }
    if (!send_hdr_ok(ip, pkt, pinned)) {
        ip->stats.tx_drop_bad++;
        goto drop;
    }
    struct wren_snip *hs = pkt;
    if (wren_pkt_len(pkt->next) > UINT16_MAX || wren_pktbuf_write_path(pb, &pkt, &hs) < 0) {
        ip->stats.tx_drop_bad++;
        goto drop;
    }
    /* fill in the header in place: source, source route, payload length,
     * hop limit */
    uint8_t *h = hs->data;
    uint8_t *src = h + IPV6_OFF_SRC, *dst = h + IPV6_OFF_DST;
    bool local = wren_ipv6_addr_is_loopback(dst) || wren_ipv6_is_own(ip, dst);
    if (wren_ipv6_addr_is_unspecified(src)) {
        if (local) {
            wren_ipv6_addr_copy(src, dst);
        } else if (wren_ipv6_select_src(ip, pinned, dst, src) < 0) {
            ip->stats.tx_drop_no_src++;
            goto drop;
        }
    }
    if (!local && tunnel_origin(ip, pkt, hs)) {
        return;
    }
    int direct = CONFIG_WREN_IPV6_RPL ? rpl_headers(ip, hs, pinned, local) : 0;
    if (direct < 0) {
        goto drop;
    }
    size_t plen = wren_pkt_len(hs->next);
    if (plen > UINT16_MAX) {
        ip->stats.tx_drop_bad++;
        goto drop;
    }
    put_be16(h + IPV6_OFF_PAYLOAD_LEN, (uint16_t)plen);
    if (h[IPV6_OFF_HOP_LIMIT] == 0) {
        struct wren_ipv6_if *ifc = wren_ipv6_if_get(ip, pinned);
        h[IPV6_OFF_HOP_LIMIT] = ifc ? ifc->hop_limit : WREN_IPV6_DEFAULT_HOP_LIMIT;
    }
    if (!local) {
        route_out(ip, pkt, direct ? (uint8_t)direct : pinned, false, direct != 0);
        return;
    }
    /* loopback: the datagram turns around in one piece, as if received */
    ip->stats.tx_loopback++;
    if (wren_pktbuf_merge(pb, &pkt) < 0) {
        ip->stats.tx_drop_nobuf++;
        goto drop;
    }
    wren_ipv6_receive(ip, pkt);
    return;

drop:
    wren_pktbuf_release(pb, pkt);
}

/* Forward a received datagram (first snip: the whole datagram); with
 * @p direct, to its destination as a neighbour on that interface (the next
 * hop of a source route); @p decapped: it came out of a root's tunnel to
 * us (a 6LR's RPL-unaware leaf's), its RPI (if any) is its origin's, left
 * alone (RFC 9008 7.3.2). */
void wren_ipv6_forward(struct wren_ipv6 *ip, struct wren_snip *pkt, uint8_t direct,
                       bool decapped)
{
    struct wren_pktbuf *pb = &ip->node->pktbuf;
    /* RFC 4291 2.5.6: a router never forwards a link-local source (a host
     * without a global address may pick one for a global destination,
     * RFC 6724 rule 2); RFC 4443 3.1: "beyond scope of source address" */
    if (wren_ipv6_addr_is_link_local(pkt->data + IPV6_OFF_SRC)) {
        ip->stats.rx_drop_scope++;
        wren_ipv6_icmp_error(ip, pkt, ICMPV6_DEST_UNREACH, ICMPV6_UNREACH_BEYOND_SCOPE, 0);
        return;
    }
    if (pkt->data[IPV6_OFF_HOP_LIMIT] <= 1) {
        ip->stats.rx_drop_hop_limit++;
        wren_ipv6_icmp_error(ip, pkt, ICMPV6_TIME_EXCEEDED, 0, 0);
        return;
    }
    /* the previous hop, by the IID of its link address (RPL's forwarding
     * error flag names it) */
    uint8_t prev_iid[8] = { 0 };
    struct wren_snip *nhs = wren_pkt_search(pkt, WREN_NETTYPE_NETIF);
    if (nhs) {
        const struct wren_netif_hdr *nh = wren_netif_hdr(nhs);
        wren_ipv6_iid_from_l2(prev_iid, nh->src, nh->src_len);
    }
    /* keep only the datagram: drop link headers and the netif header */
    struct wren_snip *dg = pkt;
    if (wren_pktbuf_write_path(pb, &pkt, &dg) < 0) {
        ip->stats.rx_drop_nobuf++;
        wren_pktbuf_release(pb, pkt);
        return;
    }
    wren_pktbuf_release(pb, dg->next);
    dg->next = NULL;
    if (!decapped && rpi_forward(ip, dg, prev_iid) < 0) {
        wren_pktbuf_release(pb, dg);
        return;
    }
    dg->data[IPV6_OFF_HOP_LIMIT]--;
    if (tunnel_down(ip, dg)) {
        return;
    }
    uint8_t next = dg->data[IPV6_OFF_NEXT];
    /* TX layout: the 40-byte header as its own snip, then the payload */
    struct wren_snip *hdr = wren_pktbuf_mark(pb, dg, IPV6_HDR_LEN, WREN_NETTYPE_IPV6);
    if (hdr == NULL) {
        ip->stats.rx_drop_nobuf++;
        wren_pktbuf_release(pb, dg);
        return;
    }
    dg->next = NULL;
    hdr->next = dg;
    dg->type = WREN_NETTYPE_UNDEF;
    if (next == IPV6_NH_UDP && dg->size >= 8) {
        /* a UDP header of its own lets 6LoWPAN compress it */
        struct wren_snip *uh = wren_pktbuf_mark(pb, dg, 8, WREN_NETTYPE_UDP);
        if (uh) {
            hdr->next = uh;
            uh->next = dg->size ? dg : NULL;
            dg->next = NULL;
            if (dg->size == 0) {
                wren_pktbuf_release(pb, dg);
            }
        }
    }
    ip->stats.rx_forwarded++;
    route_out(ip, hdr, direct, true, direct != 0);
}

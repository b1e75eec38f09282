/* IPv6's RPL hooks, each asked of the module taking ICMPv6 type 155: the
 * RPL option (RFC 6553, RFC 9008) of datagrams originated and forwarded and
 * its removal at the DODAG's edge, a non-storing root's source routes and
 * their processing (RFC 6554), storing mode's downward routes, IPv6-in-IPv6
 * tunnels (RFC 9008 7, 8). Built with CONFIG_WREN_IPV6_RPL only. */
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

#if CONFIG_WREN_IPV6_RPL

/* RPL's downward route to @p dst (storing mode: RPL keeps those routes in
 * its own table, sized apart from the FIB): GET WREN_NETOPT_RPL_ROUTE of the
 * module taking ICMPv6 type 155 fills @p rr with the interface, the prefix
 * length and the next hop. Returns whether there is one. */
bool wren_ipv6_rpl_route(struct wren_ipv6 *ip, const uint8_t *dst, uint8_t rr[18])
{
    if (!CONFIG_WREN_IPV6_RPL) {
        return false;
    }
    struct wren_netreg_entry *e =
        wren_netreg_lookup(ip->node, WREN_NETTYPE_ICMPV6, ICMPV6_RPL, NULL);
    for (; e; e = wren_netreg_lookup(ip->node, WREN_NETTYPE_ICMPV6, ICMPV6_RPL, e)) {
        wren_ipv6_addr_copy(rr, dst);
        if (wren_netapi_get(ip->node, e->module, WREN_NETOPT_RPL_ROUTE, 0, rr, 18) == 18) {
            return true;
        }
    }
    return false;
}

/* RFC 9008: must a datagram to @p dst leaving through @p if_id lose its
 * RPI? Yes to a RPL-unaware leaf (GET WREN_NETOPT_RPL_RUL answers 1), and
 * through an interface no RPL instance of ours runs on (none answers 0),
 * except a datagram @p forwarded by a root (one answers 2) out of its
 * DODAG: RFC 9008 7.2.1 lets that RPI go on. */
bool wren_ipv6_rpl_outside(struct wren_ipv6 *ip, uint8_t if_id, const uint8_t *dst,
                           bool forwarded)
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
void wren_ipv6_rpi_strip(struct wren_ipv6 *ip, struct wren_snip *hs)
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
int wren_ipv6_srh_insert(struct wren_ipv6 *ip, struct wren_snip *hs, uint8_t pinned)
{
    if (!CONFIG_WREN_IPV6_RPL) {
        return 0;
    }
    uint8_t r[1 + 16 + WREN_IPV6_SRH_MAX];
    int n = -ENOENT;
    struct wren_netreg_entry *e = NULL;
    while (n < 17 && (e = wren_netreg_lookup(ip->node, WREN_NETTYPE_ICMPV6, ICMPV6_RPL, e))) {
        memcpy(r, hs->data + IPV6_OFF_DST, 16);
        n = wren_netapi_get(ip->node, e->module, WREN_NETOPT_RPL_SRH, 0, r, sizeof(r));
    }
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
int wren_ipv6_rpi_insert(struct wren_ipv6 *ip, struct wren_snip *hs)
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

/* RFC 6550 11.2: a router forwarding a datagram updates its RPI (direction,
 * our rank) after RPL checked it for a rank error; RPL answers -ELOOP for a
 * second error (a loop): the datagram is dropped. @p dg: the datagram,
 * writable. Returns 0 or -1 (dropped, counted). */
int wren_ipv6_rpi_forward(struct wren_ipv6 *ip, struct wren_snip *dg, const uint8_t *prev_iid)
{
    if (!CONFIG_WREN_IPV6_RPL) {
        return 0;
    }
    struct wren_module *rpl = rpl_module(ip);
    if (rpl == NULL || dg->data[IPV6_OFF_NEXT] != IPV6_NH_HOPOPT ||
        dg->size < IPV6_HDR_LEN + 8) {
        return 0;
    }
    uint8_t *hbh = dg->data + IPV6_HDR_LEN;
    size_t hlen = (hbh[1] + 1u) * 8, pos = 2;
    if (IPV6_HDR_LEN + hlen > dg->size) {
        return 0; /* the receiver's walk will refuse it */
    }
    struct ipv6_ext_opt o;
    while (wren_ipv6_ext_opt_next(hbh, hlen, &pos, &o) > 0) {
        if ((o.type != RPL_RPI_TYPE && o.type != RPL_RPI_TYPE_6553) || o.len < RPL_RPI_LEN) {
            continue;
        }
        uint8_t v[28];
        wren_ipv6_addr_copy(v, dg->data + IPV6_OFF_DST);
        memcpy(v + 16, hbh + o.off + 2, RPL_RPI_LEN);
        memcpy(v + 20, prev_iid, 8);
        int n = wren_netapi_get(ip->node, rpl, WREN_NETOPT_RPL_RPI_FWD, 0, v, sizeof(v));
        if (n == -ELOOP) {
            ip->stats.rx_drop_rpl_loop++;
            return -1;
        }
        if (n == RPL_RPI_LEN) {
            memcpy(hbh + o.off + 2, v, RPL_RPI_LEN);
        }
        return 0;
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
bool wren_ipv6_tunnel_origin(struct wren_ipv6 *ip, struct wren_snip *pkt,
                             struct wren_snip *hs)
{
    uint8_t *h = hs->data;
    if (!CONFIG_WREN_IPV6_RPL || !CONFIG_WREN_IPV6_ROUTER ||
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

/* Whether datagram @p dg (whole, in one snip) starts with a hop-by-hop
 * header holding an RPL option. */
static bool has_rpi(const struct wren_snip *dg)
{
    if (dg->data[IPV6_OFF_NEXT] != IPV6_NH_HOPOPT || dg->size < IPV6_HDR_LEN + 8) {
        return false;
    }
    const uint8_t *hbh = dg->data + IPV6_HDR_LEN;
    size_t hlen = (hbh[1] + 1u) * 8, pos = 2;
    struct ipv6_ext_opt o;
    if (IPV6_HDR_LEN + hlen > dg->size) {
        return false;
    }
    while (wren_ipv6_ext_opt_next(hbh, hlen, &pos, &o) > 0) {
        if (o.type == RPL_RPI_TYPE || o.type == RPL_RPI_TYPE_6553) {
            return true;
        }
    }
    return false;
}

/* RFC 9008 7 and 8: a root forwarding a datagram down its DODAG that the
 * datagram cannot travel as it is (non-storing: it needs a source route;
 * storing: it came from outside, without an RPI) puts it in an IPv6-in-IPv6
 * tunnel to its destination, since a router may not insert headers into
 * another's datagram (RFC 8200 4). The outer header is the root's own:
 * wren_ipv6_send() gives it the SRH and the RPI. @p dg: the whole datagram, its hop
 * limit already decremented. Returns true if the tunnel took it (sent, or
 * dropped and counted), false to forward it as it is. */
bool wren_ipv6_tunnel_down(struct wren_ipv6 *ip, struct wren_snip *dg)
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
    v[16] = has_rpi(dg);
    wren_ipv6_addr_copy(v + 17, dg->data + IPV6_OFF_SRC);
    if (wren_netapi_get(ip->node, rpl, WREN_NETOPT_RPL_TUNNEL, 0, v, sizeof(v)) != 16) {
        return false;
    }
    encapsulate(ip, dg, dg, v, &ip->stats.rx_drop_nobuf);
    return true;
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
int wren_ipv6_srh_step(struct wren_ipv6 *ip, struct wren_snip *pkt, uint16_t plen,
                       uint16_t rh_off)
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

#endif

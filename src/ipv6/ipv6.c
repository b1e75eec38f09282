#include "ipv6/ipv6.h"

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

static struct wren_ipv6_if *if_get(struct wren_ipv6 *ip, uint8_t if_id)
{
    for (unsigned i = 0; if_id && i < CONFIG_WREN_IPV6_IFS; i++) {
        if (ip->ifs[i].if_id == if_id) {
            return &ip->ifs[i];
        }
    }
    return NULL;
}

/* ---- addresses --------------------------------------------------------- */

/* RFC 6282 section 3.2.2: the IID of a short address, 0000:00ff:fe00:XXXX */
static const uint8_t short_iid[6] = { 0, 0, 0, 0xff, 0xfe, 0 };

void wren_ipv6_iid_from_l2(uint8_t *iid, const uint8_t *l2, uint8_t l2len)
{
    if (l2len == 8) {
        /* RFC 4944 section 6: the EUI-64 with the U/L bit inverted */
        memcpy(iid, l2, 8);
        iid[0] ^= 0x02;
    } else if (CONFIG_WREN_IPV6_ETHERNET && l2len == 6) {
        /* RFC 4291 appendix A / RFC 2464 4: EUI-48 -> EUI-64 (ff:fe in the
         * middle), U/L bit inverted (Ethernet links only) */
        memcpy(iid, l2, 3);
        iid[3] = 0xff;
        iid[4] = 0xfe;
        memcpy(iid + 5, l2 + 3, 3);
        iid[0] ^= 0x02;
    } else {
        memcpy(iid, short_iid, 6);
        iid[6] = l2len == 2 ? l2[0] : 0;
        iid[7] = l2len == 2 ? l2[1] : 0;
    }
}

uint8_t wren_ipv6_l2_from_iid(const uint8_t *iid, uint8_t *l2)
{
    if (memcmp(iid, short_iid, 6) == 0) {
        l2[0] = iid[6];
        l2[1] = iid[7];
        return 2;
    }
    memcpy(l2, iid, 8);
    l2[0] ^= 0x02;
    return 8;
}

/* The slot of @p ifc holding @p addr, or -1. */
static int addr_index(const struct wren_ipv6_if *ifc, const uint8_t *addr)
{
    for (int i = 0; i < CONFIG_WREN_IPV6_ADDRS; i++) {
        if (ifc->addrs[i].state && memcmp(ifc->addrs[i].addr, addr, 16) == 0) {
            return i;
        }
    }
    return -1;
}

int wren_ipv6_addr_add(struct wren_ipv6 *ip, uint8_t if_id, const uint8_t *addr,
                       uint8_t prefix_len, uint8_t state)
{
    struct wren_ipv6_if *ifc = if_get(ip, if_id);
    if (ifc == NULL) {
        return -ENODEV;
    }
    if (prefix_len > 128 || wren_ipv6_addr_is_multicast(addr) || wren_ipv6_addr_is_unspecified(addr) ||
        state == WREN_IPV6_ADDR_UNUSED) {
        return -EINVAL;
    }
    /* update in place, else the first free slot */
    int i = addr_index(ifc, addr);
    for (int k = 0; i < 0 && k < CONFIG_WREN_IPV6_ADDRS; k++) {
        i = ifc->addrs[k].state ? -1 : k;
    }
    if (i < 0) {
        return -ENOSPC;
    }
    struct wren_ipv6_addr *a = &ifc->addrs[i];
    wren_ipv6_addr_copy(a->addr, addr);
    a->prefix_len = prefix_len;
    a->state = state;
    return 0;
}

static int addr_remove(struct wren_ipv6_if *ifc, const uint8_t *addr)
{
    if (ifc == NULL) {
        return -ENODEV;
    }
    int i = addr_index(ifc, addr);
    if (i < 0) {
        return -ENOENT;
    }
    memset(&ifc->addrs[i], 0, sizeof(ifc->addrs[i]));
    return 0;
}

bool wren_ipv6_is_own(const struct wren_ipv6 *ip, const uint8_t *addr)
{
    for (unsigned k = 0; k < CONFIG_WREN_IPV6_IFS; k++) {
        if (ip->ifs[k].if_id && addr_index(&ip->ifs[k], addr) >= 0) {
            return true;
        }
    }
    return false;
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

static int group_set(struct wren_ipv6_if *ifc, const uint8_t *g, bool join)
{
    if (ifc == NULL) {
        return -ENODEV;
    }
    if (!wren_ipv6_addr_is_multicast(g)) {
        return -EINVAL;
    }
#if !CONFIG_WREN_IPV6_GROUPS
    (void)join;
    return -ENOTSUP;
#else
    /* join: the first free slot (::); leave: the group's slot */
    static const uint8_t none[16];
    for (unsigned i = 0; i < CONFIG_WREN_IPV6_GROUPS; i++) {
        if (memcmp(ifc->groups[i], join ? none : g, 16) == 0) {
            memcpy(ifc->groups[i], join ? g : none, 16);
            return 0;
        }
    }
    return join ? -ENOSPC : -ENOENT;
#endif
}

static unsigned scope_of(const uint8_t *a)
{
    if (wren_ipv6_addr_is_multicast(a)) {
        return a[1] & 0x0f;
    }
    if (wren_ipv6_addr_is_link_local(a) || wren_ipv6_addr_is_loopback(a)) {
        return 2;
    }
    return 14;
}

int wren_ipv6_select_src(const struct wren_ipv6 *ip, uint8_t if_id, const uint8_t *dst,
                         uint8_t *src)
{
    const struct wren_ipv6_addr *best = NULL;
    unsigned best_score = 0;
    unsigned dscope = scope_of(dst);
    for (unsigned k = 0; k < CONFIG_WREN_IPV6_IFS; k++) {
        const struct wren_ipv6_if *ifc = &ip->ifs[k];
        if (!ifc->if_id || (if_id && ifc->if_id != if_id)) {
            continue;
        }
        for (unsigned i = 0; i < CONFIG_WREN_IPV6_ADDRS; i++) {
            const struct wren_ipv6_addr *a = &ifc->addrs[i];
            if (a->state != WREN_IPV6_ADDR_VALID) {
                continue;
            }
            /* rule 2: a scope at least the destination's, the smallest such;
             * rule 8: longest matching prefix */
            unsigned s = scope_of(a->addr);
            unsigned score = (s >= dscope ? 256u : 0u) + (16u - (s > dscope ? s - dscope : 0u)) * 8u +
                             (wren_ipv6_addr_is_multicast(dst) ? 0 : wren_ipv6_prefix_common(a->addr, dst) / 16);
            if (best == NULL || score > best_score) {
                best = a;
                best_score = score;
            }
        }
    }
    if (best == NULL) {
        return -EADDRNOTAVAIL;
    }
    wren_ipv6_addr_copy(src, best->addr);
    return 0;
}

/* ---- upper-layer demux -------------------------------------------------- */

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

static void icmp_error(struct wren_ipv6 *ip, struct wren_snip *pkt, uint8_t type, uint8_t code,
                       uint16_t param)
{
    struct wren_netreg_entry *e =
        wren_netreg_lookup(ip->node, WREN_NETTYPE_ICMPV6, WREN_NETREG_DEMUX_ALL, NULL);
    struct wren_msg msg = { .type = WREN_MSG_ICMPV6_ERROR(type, code), .arg = param, .ptr = pkt };
    if (e == NULL || wren_sched_post(ip->node, e->module, &msg) < 0) {
        wren_pktbuf_release(&ip->node->pktbuf, pkt);
    }
}

/* ---- transmit ------------------------------------------------------------ */

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

/* RPL's downward route to @p dst (storing mode: RPL keeps those routes in
 * its own table, sized apart from the FIB): GET WREN_NETOPT_RPL_ROUTE of the
 * module taking ICMPv6 type 155 fills @p rr with the interface, the prefix
 * length and the next hop. Returns whether there is one. */
static bool rpl_route(struct wren_ipv6 *ip, const uint8_t *dst, uint8_t rr[18])
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

/* Route @p pkt, whose head is the 40-byte IPv6 header snip (netif header
 * removed), out of the right interface; @p pinned is 0 or a forced interface.
 * A forwarded packet that cannot go gets an ICMPv6 error instead. */
static void route_out(struct wren_ipv6 *ip, struct wren_snip *pkt, uint8_t pinned, bool forwarded,
                      bool on_link)
{
    const uint8_t *dst = pkt->data + IPV6_OFF_DST;
    const uint8_t *next_hop = dst;
    struct wren_ipv6_if *ifc = NULL;
    /* on_link: a strict source route's next hop is a neighbour on @p pinned */
    bool link_scope = on_link || wren_ipv6_addr_is_multicast(dst) ||
                      wren_ipv6_addr_is_link_local(dst);
    const struct wren_fib_entry *r = link_scope ? NULL : wren_fib_lookup(&ip->fib, dst);
    uint8_t rr[18]; /* RPL's downward route: interface, prefix length, next hop */
    if (!link_scope && rpl_route(ip, dst, rr) && (r == NULL || rr[1] > r->prefix_len) &&
        (!pinned || rr[0] == pinned) && if_get(ip, rr[0])) {
        ifc = if_get(ip, rr[0]);
        next_hop = rr + 2;
    } else if (r && pinned && r->if_id != pinned) {
        r = NULL; /* the pinned interface wins; its destination is on-link */
    }
    if (ifc) {
        /* RPL's route */
    } else if (r) {
        ifc = if_get(ip, r->if_id);
        if (!wren_ipv6_addr_is_unspecified(r->next_hop)) {
            next_hop = r->next_hop;
        }
    } else if (pinned) {
        ifc = if_get(ip, pinned);
    } else if (link_scope) {
        /* link scope without a pinned interface: the first one */
        for (unsigned i = 0; ifc == NULL && i < CONFIG_WREN_IPV6_IFS; i++) {
            ifc = ip->ifs[i].if_id ? &ip->ifs[i] : NULL;
        }
    }
    if (ifc == NULL) {
        if (CONFIG_WREN_IPV6_ROUTER && forwarded) {
            ip->stats.rx_drop_no_route++;
            icmp_error(ip, pkt, ICMPV6_DEST_UNREACH, ICMPV6_UNREACH_NO_ROUTE, 0);
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
            icmp_error(ip, pkt, ICMPV6_PKT_TOO_BIG, 0, ifc->mtu);
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

static void receive(struct wren_ipv6 *ip, struct wren_snip *pkt);

/* RFC 6554 3 at a non-storing RPL root: the module taking ICMPv6 type 155
 * may have a source route to the destination of @p hs (the writable IPv6
 * header snip): its SRH goes in after the header and the first hop becomes
 * the destination (the upper-layer checksum stays over the final one, RFC
 * 8200 8.1). Returns the interface the first hop is on, 0 to route as
 * usual, -1 when the buffer is full. */
static int srh_insert(struct wren_ipv6 *ip, struct wren_snip *hs, uint8_t pinned)
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
    if (n < 17 || !if_get(ip, r[0]) || (pinned && r[0] != pinned)) {
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

static void send(struct wren_ipv6 *ip, struct wren_snip *pkt);

/* IPv6-in-IPv6 (RFC 2473) to @p dst: a new outer header before @p pkt,
 * whose header snip @p inner becomes the tunnel's payload, sent as ours
 * (send(): source, RPI, SRH); a full buffer drops it, counted in @p nobuf */
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
    send(ip, oh);
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

static void send(struct wren_ipv6 *ip, struct wren_snip *pkt)
{
    struct wren_pktbuf *pb = &ip->node->pktbuf;
    uint8_t pinned = 0;
    if (pkt && pkt->type == WREN_NETTYPE_NETIF) {
        pinned = wren_netif_hdr(pkt)->if_id;
        pkt = wren_pktbuf_release_head(pb, pkt);
    }
    if (pkt == NULL || pkt->type != WREN_NETTYPE_IPV6 || pkt->size != IPV6_HDR_LEN ||
        (pkt->data[0] >> 4) != 6 || (pinned && !if_get(ip, pinned))) {
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
    int direct = 0;
    /* RPL's own messages go without an RPI */
    bool rpl_msg = h[IPV6_OFF_NEXT] == IPV6_NH_ICMPV6 && hs->next && hs->next->size &&
                   hs->next->data[0] == ICMPV6_RPL;
    if (!local && !wren_ipv6_addr_is_multicast(dst) && !wren_ipv6_addr_is_link_local(dst) &&
        h[IPV6_OFF_NEXT] != IPV6_NH_HOPOPT &&
        ((direct = srh_insert(ip, hs, pinned)) < 0 || (!rpl_msg && rpi_insert(ip, hs) < 0))) {
        goto drop;
    }
    size_t plen = wren_pkt_len(hs->next);
    if (plen > UINT16_MAX) {
        ip->stats.tx_drop_bad++;
        goto drop;
    }
    put_be16(h + IPV6_OFF_PAYLOAD_LEN, (uint16_t)plen);
    if (h[IPV6_OFF_HOP_LIMIT] == 0) {
        struct wren_ipv6_if *ifc = if_get(ip, pinned);
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
    receive(ip, pkt);
    return;

drop:
    wren_pktbuf_release(pb, pkt);
}

/* ---- receive ------------------------------------------------------------- */

static bool for_us(struct wren_ipv6 *ip, const uint8_t *dst, uint8_t if_id)
{
    if (!wren_ipv6_addr_is_multicast(dst)) {
        return (if_id == 0 && wren_ipv6_addr_is_loopback(dst)) || wren_ipv6_is_own(ip, dst);
    }
    struct wren_ipv6_if *ifc = if_get(ip, if_id);
    if (ifc) {
        return in_group(ifc, dst);
    }
    /* looped back: any interface's membership counts */
    for (unsigned i = 0; i < CONFIG_WREN_IPV6_IFS; i++) {
        if (ip->ifs[i].if_id && in_group(&ip->ifs[i], dst)) {
            return true;
        }
    }
    return false;
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
 * send() gives it the SRH and the RPI. @p dg: the whole datagram, its hop
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
    v[16] = has_rpi(dg);
    wren_ipv6_addr_copy(v + 17, dg->data + IPV6_OFF_SRC);
    if (wren_netapi_get(ip->node, rpl, WREN_NETOPT_RPL_TUNNEL, 0, v, sizeof(v)) != 16) {
        return false;
    }
    encapsulate(ip, dg, dg, v, &ip->stats.rx_drop_nobuf);
    return true;
}

/* Forward a received datagram (first snip: the whole datagram); with
 * @p direct, to its destination as a neighbour on that interface (the next
 * hop of a source route); @p decapped: it came out of a root's tunnel to
 * us (a 6LR's RPL-unaware leaf's), its RPI (if any) is its origin's, left
 * alone (RFC 9008 7.3.2). */
static void forward(struct wren_ipv6 *ip, struct wren_snip *pkt, uint8_t direct, bool decapped)
{
    struct wren_pktbuf *pb = &ip->node->pktbuf;
    /* RFC 4291 2.5.6: a router never forwards a link-local source (a host
     * without a global address may pick one for a global destination,
     * RFC 6724 rule 2); RFC 4443 3.1: "beyond scope of source address" */
    if (wren_ipv6_addr_is_link_local(pkt->data + IPV6_OFF_SRC)) {
        ip->stats.rx_drop_scope++;
        icmp_error(ip, pkt, ICMPV6_DEST_UNREACH, ICMPV6_UNREACH_BEYOND_SCOPE, 0);
        return;
    }
    if (pkt->data[IPV6_OFF_HOP_LIMIT] <= 1) {
        ip->stats.rx_drop_hop_limit++;
        icmp_error(ip, pkt, ICMPV6_TIME_EXCEEDED, 0, 0);
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
            icmp_error(ip, pkt, ICMPV6_DEST_UNREACH, ICMPV6_UNREACH_SRH, 0);
            return 0;
        }
        ip->stats.rx_srh_forwarded++;
        forward(ip, pkt, if_id, false);
        return 0;
    }
    ip->stats.rx_drop_srh++;
    if (rc == -RPL_ERR_SRH_MCAST) {
        return -1; /* discarded without an error (4.2) */
    }
    icmp_error(ip, pkt, ICMPV6_PARAM_PROBLEM, ICMPV6_PARAM_HDR,
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
    /* the RPL option (RFC 6553's type asks to discard when unknown) */
    static const uint8_t known[2] = { RPL_RPI_TYPE, RPL_RPI_TYPE_6553 };
    size_t n_known = CONFIG_WREN_IPV6_ROUTER ? 2 : 0;
    int res = fwd ? wren_ipv6_ext_walk_hbh(*nh, data, plen, known, n_known, &e)
                  : wren_ipv6_ext_walk(*nh, data, plen, known, n_known, &e);
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
        unsigned act = data[e.opt_off] >> 6;
        if (act < IPV6_OPT_ACT_ICMP ||
            (act == IPV6_OPT_ACT_ICMP_UCAST && wren_ipv6_addr_is_multicast(pkt->data + IPV6_OFF_DST))) {
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
        if (CONFIG_WREN_IPV6_RPL && ip->forwarding && e.rh_type == RPL_SRH_TYPE) {
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
    icmp_error(ip, pkt, ICMPV6_PARAM_PROBLEM, code, (uint16_t)(IPV6_HDR_LEN + ptr));
    return 0;
drop:
    (*count)++;
    return -1;
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
        if (CONFIG_WREN_IPV6_ROUTER && ip->forwarding && !wren_ipv6_addr_is_multicast(dst) &&
            !wren_ipv6_addr_is_link_local(dst) && if_id) {
            /* RFC 8200 4.2, 4.3: a malformed hop-by-hop header, or an
             * option whose type says so, is not forwarded (before, any
             * was: the next router or the destination had to refuse it) */
            uint8_t fnh = pkt->data[IPV6_OFF_NEXT];
            size_t fext = 0;
            int res = fnh == IPV6_NH_HOPOPT ? walk_ext(ip, pkt, plen, &fnh, &fext, true) : 1;
            if (res < 0) {
                goto drop;
            }
            if (res > 0) {
                forward(ip, pkt, 0, tunnelled);
            }
            return;
        }
        ip->stats.rx_drop_not_for_us++;
        goto drop;
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
    if (wren_pktbuf_mark(pb, pkt, IPV6_HDR_LEN, WREN_NETTYPE_IPV6) == NULL ||
        (ext_len && wren_pktbuf_mark(pb, pkt, ext_len, WREN_NETTYPE_IPV6_EXT) == NULL)) {
        ip->stats.rx_drop_nobuf++;
        goto drop;
    }
    pkt->type = nettype_of(nh);
    if (!deliver_up(node, nh, pkt)) {
        ip->stats.rx_drop_no_receiver++;
        return;
    }
    ip->stats.rx_delivered++;
    return;

drop:
    wren_pktbuf_release(pb, pkt);
}

static void receive(struct wren_ipv6 *ip, struct wren_snip *pkt)
{
    receive_dg(ip, pkt, false);
}

/* ---- module ------------------------------------------------------------ */

static void ipv6_handle(struct wren_node *node, struct wren_module *self,
                        const struct wren_msg *msg)
{
    struct wren_ipv6 *ip = (struct wren_ipv6 *)self;
    switch (msg->type) {
    case WREN_MSG_SND:
        send(ip, msg->ptr);
        break;
    case WREN_MSG_RCV:
        receive(ip, msg->ptr);
        break;
    default:
        if (msg->ptr) {
            wren_pktbuf_release(&node->pktbuf, msg->ptr);
        }
        break;
    }
}

static int ipv6_get(struct wren_node *node, struct wren_module *self, uint16_t opt,
                    uint16_t ctx, void *val, size_t max)
{
    (void)node;
    struct wren_ipv6 *ip = (struct wren_ipv6 *)self;
    struct wren_ipv6_if *ifc = if_get(ip, (uint8_t)ctx);
    uint8_t fwd = ip->forwarding;
    const void *v;  /* the value; NULL: needs an interface ctx does not name */
    size_t len;
    switch (opt) {
    case WREN_NETOPT_IPV6_ADDR:
        v = ifc ? ifc->addrs : NULL;
        len = sizeof(ifc->addrs);
        break;
    case WREN_NETOPT_IPV6_SRC_SELECT: {
        if (max < 16) {
            return -EOVERFLOW;
        }
        uint8_t dst[16];
        wren_ipv6_addr_copy(dst, val);
        int res = wren_ipv6_select_src(ip, (uint8_t)ctx, dst, val);
        return res < 0 ? res : 16;
    }
    case WREN_NETOPT_IPV6_IS_OWN: {
        if (max < 16) {
            return -EOVERFLOW;
        }
        uint8_t own = wren_ipv6_is_own(ip, val);
        return wren_netopt_put(val, max, &own, 1);
    }
    case WREN_NETOPT_IPV6_FORWARDING:
        v = &fwd;
        len = 1;
        break;
    case WREN_NETOPT_IPV6_ROUTES:
        v = ip->fib.e;
        len = sizeof(ip->fib.e);
        break;
    case WREN_NETOPT_IPV6_STATS:
        v = &ip->stats;
        len = sizeof(ip->stats);
        break;
    case WREN_NETOPT_IPV6_MTU:
        v = ifc ? &ifc->mtu : NULL;
        len = sizeof(ifc->mtu);
        break;
    case WREN_NETOPT_HOP_LIMIT:
        v = ifc ? &ifc->hop_limit : NULL;
        len = sizeof(ifc->hop_limit);
        break;
    default:
        return -ENOTSUP;
    }
    return v ? wren_netopt_put(val, max, v, len) : -ENODEV;
}

/* values of bytes only: SET may read them in place, at any alignment */
_Static_assert(_Alignof(struct wren_ipv6_addr) == 1 && _Alignof(struct wren_fib_entry) == 1,
               "option structs of bytes");

static int ipv6_set(struct wren_node *node, struct wren_module *self, uint16_t opt,
                    uint16_t ctx, const void *val, size_t len)
{
    (void)node;
    struct wren_ipv6 *ip = (struct wren_ipv6 *)self;
    struct wren_ipv6_if *ifc = if_get(ip, (uint8_t)ctx);
    const uint8_t *b = val;
    switch (opt) {
    case WREN_NETOPT_IPV6_NETIF_ADD:
        return len == 1 ? wren_ipv6_netif_add(ip, b[0]) : -EINVAL;
    case WREN_NETOPT_IPV6_ADDR: {
        const struct wren_ipv6_addr *a = val;
        if (len != sizeof(*a)) {
            return -EINVAL;
        }
        return wren_ipv6_addr_add(ip, (uint8_t)ctx, a->addr, a->prefix_len, a->state);
    }
    case WREN_NETOPT_IPV6_ADDR_REMOVE:
        return len == 16 ? addr_remove(ifc, val) : -EINVAL;
    case WREN_NETOPT_IPV6_GROUP_JOIN:
    case WREN_NETOPT_IPV6_GROUP_LEAVE:
        return len == 16 ? group_set(ifc, val, opt == WREN_NETOPT_IPV6_GROUP_JOIN) : -EINVAL;
    case WREN_NETOPT_IPV6_FORWARDING:
        if (!CONFIG_WREN_IPV6_ROUTER) {
            return -ENOTSUP;
        }
        if (len != 1) {
            return -EINVAL;
        }
        ip->forwarding = b[0] != 0;
        return 0;
    case WREN_NETOPT_IPV6_ROUTE_ADD:
    case WREN_NETOPT_IPV6_ROUTE_DEL: {
        const struct wren_fib_entry *r = val;
        if (len != sizeof(*r)) {
            return -EINVAL;
        }
        if (opt == WREN_NETOPT_IPV6_ROUTE_DEL) {
            return wren_fib_del(&ip->fib, r->prefix, r->prefix_len);
        }
        return if_get(ip, r->if_id) ? wren_fib_add(&ip->fib, r) : -ENODEV;
    }
    case WREN_NETOPT_IPV6_MTU: {
        uint16_t mtu = 0;
        if (len == 2) {
            memcpy(&mtu, val, 2);
        }
        if (ifc == NULL || mtu < IPV6_MIN_MTU) {
            return ifc ? -EINVAL : -ENODEV;
        }
        ifc->mtu = mtu;
        return 0;
    }
    case WREN_NETOPT_ADDR_LEN: {
        /* the link address frames leave from: set on the interface, and
         * taken for the netif headers 6LoWPAN compresses against */
        struct wren_netif *netif = ifc ? wren_netif_get(ip->node, ifc->if_id) : NULL;
        uint16_t alen = 0;
        if (netif == NULL) {
            return -ENODEV;
        }
        int res = wren_netapi_set(ip->node, &netif->module, WREN_NETOPT_ADDR_LEN, 0, val, len);
        if (res < 0) {
            return res;
        }
        memcpy(&alen, val, 2);
        int n = wren_netapi_get(ip->node, &netif->module,
                                alen == 8 ? WREN_NETOPT_ADDRESS_LONG : WREN_NETOPT_ADDRESS, 0,
                                ifc->l2addr, sizeof(ifc->l2addr));
        ifc->l2len = n > 0 ? (uint8_t)n : 0;
        return 0;
    }
    case WREN_NETOPT_HOP_LIMIT:
        if (ifc == NULL || len != 1 || b[0] == 0) {
            return ifc ? -EINVAL : -ENODEV;
        }
        ifc->hop_limit = b[0];
        return 0;
    default:
        return -ENOTSUP;
    }
}

/* IPv6 runs on every interface the node has */
static int ipv6_stack_start(struct wren_node *node, struct wren_ipv6 *ip)
{
    int res = wren_ipv6_init(node, ip);
    for (struct wren_netif *n = node->netifs; n && res >= 0; n = n->next) {
        res = wren_ipv6_netif_add(ip, n->id);
    }
    return res;
}

static int ipv6_stack_init(struct wren_node *node, struct wren_module *self, uint8_t if_id)
{
    (void)if_id;
    return ipv6_stack_start(node, (struct wren_ipv6 *)self);
}

static const struct wren_counter_set ipv6_counters =
    WREN_COUNTER_SET("ipv6", WREN_IPV6_COUNTERS, WREN_NETOPT_IPV6_STATS, uint32_t);

/* in its _shell.c */
extern const struct wren_shell_cmd wren_ipv6_shell_cmds[];

const struct wren_module_ops wren_ipv6_module = {
    .name = "ipv6",
    .handle = ipv6_handle,
    .get = ipv6_get,
    .set = ipv6_set,
    .init = ipv6_stack_init,
    .size = sizeof(struct wren_ipv6),
    .counters = WREN_IF_NAMES(&ipv6_counters),
    .cmds = WREN_IF_SHELL(wren_ipv6_shell_cmds),
};

int wren_ipv6_init(struct wren_node *node, struct wren_ipv6 *ip)
{
    memset(ip, 0, sizeof(*ip));
    ip->module.ops = &wren_ipv6_module;
    ip->module.prio = WREN_PRIO_NET;
    ip->node = node;
    wren_fib_init(&ip->fib);
    return wren_netreg_register(node, WREN_NETTYPE_IPV6, WREN_NETREG_DEMUX_ALL, &ip->module,
                                &ip->reg);
}

int wren_ipv6_netif_add(struct wren_ipv6 *ip, uint8_t if_id)
{
    struct wren_node *node = ip->node;
    struct wren_netif *netif = wren_netif_get(node, if_id);
    if (netif == NULL) {
        return -ENODEV;
    }
    struct wren_ipv6_if *ifc = if_get(ip, if_id);
    for (unsigned i = 0; ifc == NULL && i < CONFIG_WREN_IPV6_IFS; i++) {
        ifc = ip->ifs[i].if_id == 0 ? &ip->ifs[i] : NULL;
    }
    if (ifc == NULL) {
        return -ENOSPC;
    }
    memset(ifc, 0, sizeof(*ifc));
    ifc->if_id = if_id;
    ifc->hop_limit = WREN_IPV6_DEFAULT_HOP_LIMIT;
    ifc->mtu = IPV6_MIN_MTU;
    uint16_t type = 0, alen = 2;
    wren_netapi_get(node, &netif->module, WREN_NETOPT_DEVICE_TYPE, 0, &type, sizeof(type));
    if (type == WREN_NETDEV_TYPE_IEEE802154) {
        ifc->flags |= WREN_IPV6_IF_SIXLO;
    } else if (type == WREN_NETDEV_TYPE_ETHERNET) {
        if (!CONFIG_WREN_IPV6_ETHERNET) {
            ifc->if_id = 0; /* the slot stays free */
            return -ENOTSUP;
        }
        /* RFC 2464: the link's MTU; next hops resolved by NS/NA */
        ifc->flags |= WREN_IPV6_IF_ND;
        uint16_t mtu = 0;
        wren_netapi_get(node, &netif->module, WREN_NETOPT_MAX_PDU_SIZE, 0, &mtu, sizeof(mtu));
        ifc->mtu = mtu > IPV6_MIN_MTU ? mtu : IPV6_MIN_MTU;
    }
    wren_netapi_get(node, &netif->module, WREN_NETOPT_ADDR_LEN, 0, &alen, sizeof(alen));
    int n = wren_netapi_get(node, &netif->module,
                            alen == 8 ? WREN_NETOPT_ADDRESS_LONG : WREN_NETOPT_ADDRESS, 0,
                            ifc->l2addr, sizeof(ifc->l2addr));
    ifc->l2len = n > 0 ? (uint8_t)n : 0;
    uint8_t ll[16] = { 0xfe, 0x80 };
    uint8_t eui64[8];
    if ((ifc->flags & WREN_IPV6_IF_SIXLO) &&
        wren_netapi_get(node, &netif->module, WREN_NETOPT_ADDRESS_LONG, 0, eui64, 8) == 8) {
        /* RFC 4944 6: on 802.15.4 the IID is the EUI-64's, whatever
         * address the frames leave from */
        wren_ipv6_iid_from_l2(ll + 8, eui64, 8);
    } else {
        wren_ipv6_iid_from_l2(ll + 8, ifc->l2addr, ifc->l2len);
    }
    return wren_ipv6_addr_add(ip, if_id, ll, 64, WREN_IPV6_ADDR_VALID);
}

uint16_t wren_ipv6_upper_csum(const uint8_t *src, const uint8_t *dst, uint8_t next,
                              const struct wren_snip *s, size_t len)
{
    struct inet_csum c;
    wren_inet_csum_init(&c);
    wren_inet_csum_pseudo(&c, src, dst, (uint32_t)len, next);
    for (size_t left = len; s && left; s = s->next) {
        size_t n = s->size < left ? s->size : left;
        wren_inet_csum_update(&c, s->data, n);
        left -= n;
    }
    return wren_inet_csum_final(&c);
}

void wren_ipv6_hdr_init(uint8_t *h, const uint8_t *src, const uint8_t *dst, uint8_t next)
{
    /* version 6, all else zero but the next header and the addresses */
    memset(h, 0, IPV6_HDR_LEN);
    h[0] = 6 << 4;
    h[IPV6_OFF_NEXT] = next;
    if (src) {
        wren_ipv6_addr_copy(h + IPV6_OFF_SRC, src);
    }
    wren_ipv6_addr_copy(h + IPV6_OFF_DST, dst);
}

struct wren_snip *wren_ipv6_hdr_add(struct wren_pktbuf *pb, struct wren_snip *pkt,
                                    const uint8_t *src, const uint8_t *dst, uint8_t next,
                                    uint8_t if_id)
{
    struct wren_snip *s = wren_pktbuf_add(pb, pkt, NULL, IPV6_HDR_LEN, WREN_NETTYPE_IPV6);
    if (s == NULL) {
        return NULL;
    }
    wren_ipv6_hdr_init(s->data, src, dst, next);
    if (if_id) {
        struct wren_snip *nh = wren_netif_hdr_add(pb, s, NULL, 0, NULL, 0);
        if (nh == NULL) {
            s->next = NULL; /* pkt stays the caller's */
            wren_pktbuf_release(pb, s);
            return NULL;
        }
        wren_netif_hdr(nh)->if_id = if_id;
        s = nh;
    }
    return s;
}

#include "ipv6/ipv6.h"

#include <errno.h>
#include <string.h>

#include "core/node.h"
#include "net/netapi.h"
#include "net/netif.h"
#include "net/netopt.h"
#include "net/nettype.h"
#include "wire/icmpv6_types.h"
#include "wire/ipv6.h"
#include "wire/ipv6_ext.h"

static struct wren_ipv6_if *if_get(struct wren_ipv6 *ip, uint8_t if_id)
{
    for (unsigned i = 0; i < CONFIG_WREN_IPV6_IFS; i++) {
        if (ip->ifs[i].if_id == if_id && if_id) {
            return &ip->ifs[i];
        }
    }
    return NULL;
}

/* ---- addresses --------------------------------------------------------- */

void wren_ipv6_iid_from_l2(uint8_t *iid, const uint8_t *l2, uint8_t l2len)
{
    if (l2len == 8) {
        /* RFC 4944 section 6: the EUI-64 with the U/L bit inverted */
        memcpy(iid, l2, 8);
        iid[0] ^= 0x02;
    } else {
        /* RFC 6282 section 3.2.2: 0000:00ff:fe00:XXXX */
        static const uint8_t pre[6] = { 0, 0, 0, 0xff, 0xfe, 0 };
        memcpy(iid, pre, 6);
        iid[6] = l2len == 2 ? l2[0] : 0;
        iid[7] = l2len == 2 ? l2[1] : 0;
    }
}

uint8_t wren_ipv6_l2_from_iid(const uint8_t *iid, uint8_t *l2)
{
    static const uint8_t pre[6] = { 0, 0, 0, 0xff, 0xfe, 0 };
    if (memcmp(iid, pre, 6) == 0) {
        l2[0] = iid[6];
        l2[1] = iid[7];
        return 2;
    }
    memcpy(l2, iid, 8);
    l2[0] ^= 0x02;
    return 8;
}

int wren_ipv6_addr_add(struct wren_ipv6 *ip, uint8_t if_id, const uint8_t *addr,
                       uint8_t prefix_len, uint8_t state)
{
    struct wren_ipv6_if *ifc = if_get(ip, if_id);
    if (ifc == NULL) {
        return -ENODEV;
    }
    if (prefix_len > 128 || ipv6_addr_is_multicast(addr) || ipv6_addr_is_unspecified(addr) ||
        state == WREN_IPV6_ADDR_UNUSED) {
        return -EINVAL;
    }
    struct wren_ipv6_addr *free_slot = NULL;
    for (unsigned i = 0; i < CONFIG_WREN_IPV6_ADDRS; i++) {
        struct wren_ipv6_addr *a = &ifc->addrs[i];
        if (a->state && memcmp(a->addr, addr, 16) == 0) {
            free_slot = a; /* update in place */
            break;
        }
        if (!a->state && !free_slot) {
            free_slot = a;
        }
    }
    if (free_slot == NULL) {
        return -ENOSPC;
    }
    memcpy(free_slot->addr, addr, 16);
    free_slot->prefix_len = prefix_len;
    free_slot->state = state;
    return 0;
}

static int addr_remove(struct wren_ipv6 *ip, uint8_t if_id, const uint8_t *addr)
{
    struct wren_ipv6_if *ifc = if_get(ip, if_id);
    if (ifc == NULL) {
        return -ENODEV;
    }
    for (unsigned i = 0; i < CONFIG_WREN_IPV6_ADDRS; i++) {
        if (ifc->addrs[i].state && memcmp(ifc->addrs[i].addr, addr, 16) == 0) {
            memset(&ifc->addrs[i], 0, sizeof(ifc->addrs[i]));
            return 0;
        }
    }
    return -ENOENT;
}

bool wren_ipv6_is_own(const struct wren_ipv6 *ip, const uint8_t *addr)
{
    for (unsigned k = 0; k < CONFIG_WREN_IPV6_IFS; k++) {
        const struct wren_ipv6_if *ifc = &ip->ifs[k];
        for (unsigned i = 0; ifc->if_id && i < CONFIG_WREN_IPV6_ADDRS; i++) {
            if (ifc->addrs[i].state && memcmp(ifc->addrs[i].addr, addr, 16) == 0) {
                return true;
            }
        }
    }
    return false;
}

/* ff02::1, solicited-node groups of our addresses (RFC 4291 2.7.1), joined groups */
static bool in_group(const struct wren_ipv6_if *ifc, const uint8_t *g)
{
    static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 1 };
    static const uint8_t sol_pre[13] = { 0xff, 0x02, [11] = 1, [12] = 0xff };
    if (memcmp(g, all_nodes, 16) == 0) {
        return true;
    }
    if (memcmp(g, sol_pre, 13) == 0) {
        for (unsigned i = 0; i < CONFIG_WREN_IPV6_ADDRS; i++) {
            if (ifc->addrs[i].state && memcmp(ifc->addrs[i].addr + 13, g + 13, 3) == 0) {
                return true;
            }
        }
    }
    for (unsigned i = 0; i < CONFIG_WREN_IPV6_GROUPS; i++) {
        if (memcmp(ifc->groups[i], g, 16) == 0) {
            return true;
        }
    }
    return false;
}

static int group_set(struct wren_ipv6 *ip, uint8_t if_id, const uint8_t *g, bool join)
{
    struct wren_ipv6_if *ifc = if_get(ip, if_id);
    if (ifc == NULL) {
        return -ENODEV;
    }
    if (!ipv6_addr_is_multicast(g)) {
        return -EINVAL;
    }
    static const uint8_t none[16];
    for (unsigned i = 0; i < CONFIG_WREN_IPV6_GROUPS; i++) {
        if (memcmp(ifc->groups[i], join ? none : g, 16) == 0) {
            memcpy(ifc->groups[i], join ? g : none, 16);
            return 0;
        }
    }
    return join ? -ENOSPC : -ENOENT;
}

static unsigned scope_of(const uint8_t *a)
{
    if (ipv6_addr_is_multicast(a)) {
        return a[1] & 0x0f;
    }
    if (ipv6_addr_is_link_local(a) || ipv6_addr_is_loopback(a)) {
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
                             (ipv6_addr_is_multicast(dst) ? 0 : ipv6_prefix_common(a->addr, dst) / 16);
            if (best == NULL || score > best_score) {
                best = a;
                best_score = score;
            }
        }
    }
    if (best == NULL) {
        return -EADDRNOTAVAIL;
    }
    memcpy(src, best->addr, 16);
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

/* Deliver to the protocol module and to raw sockets of next header @p nh.
 * Returns how many got it (0: released). */
static int deliver_up(struct wren_node *node, uint8_t nh, struct wren_snip *pkt)
{
    uint8_t type = nettype_of(nh);
    unsigned n1 = type != WREN_NETTYPE_UNDEF ? wren_netreg_count(node, type, WREN_NETREG_DEMUX_ALL) : 0;
    unsigned n2 = wren_netreg_count(node, WREN_NETTYPE_IPV6, nh);
    if (n1 + n2 == 0) {
        wren_pktbuf_release(&node->pktbuf, pkt);
        return 0;
    }
    if (n2) {
        if (n1) {
            wren_pktbuf_hold(&node->pktbuf, pkt, 1);
        }
        wren_netapi_dispatch(node, WREN_NETTYPE_IPV6, nh, WREN_MSG_RCV, pkt);
    }
    if (n1) {
        wren_netapi_dispatch(node, type, WREN_NETREG_DEMUX_ALL, WREN_MSG_RCV, pkt);
    }
    return (int)(n1 + n2);
}

static void icmp_error(struct wren_ipv6 *ip, struct wren_snip *pkt, uint8_t type, uint8_t code,
                       uint16_t param)
{
    struct wren_netreg_entry *e =
        wren_netreg_lookup(ip->node, WREN_NETTYPE_ICMPV6, WREN_NETREG_DEMUX_ALL, NULL);
    if (e == NULL) {
        wren_pktbuf_release(&ip->node->pktbuf, pkt);
        return;
    }
    struct wren_msg msg = { .type = WREN_MSG_ICMPV6_ERROR(type, code), .arg = param, .ptr = pkt };
    if (wren_sched_post(ip->node, e->module, &msg) < 0) {
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

/* Link destination of @p next_hop on @p ifc; returns its length (0: broadcast). */
static uint8_t resolve(struct wren_ipv6 *ip, const struct wren_ipv6_if *ifc,
                       const uint8_t *next_hop, uint8_t *l2, uint8_t *flags)
{
    if (ipv6_addr_is_multicast(next_hop)) {
        *flags |= WREN_NETIF_HDR_BROADCAST | WREN_NETIF_HDR_MULTICAST;
        return 0;
    }
    /* the neighbor cache first (neighbor discovery answers through GET) */
    struct wren_netreg_entry *e =
        wren_netreg_lookup(ip->node, WREN_NETTYPE_ICMPV6, ICMPV6_ND_NS, NULL);
    if (e) {
        uint8_t q[16];
        memcpy(q, next_hop, 16);
        int n = wren_netapi_get(ip->node, e->module, WREN_NETOPT_NIB_L2, ifc->if_id, q, sizeof(q));
        if (n == 2 || n == 8) {
            memcpy(l2, q, (size_t)n);
            return (uint8_t)n;
        }
    }
    /* 6LoWPAN links: addresses carry the link address in their IID
     * (RFC 6775 section 5.2) */
    return wren_ipv6_l2_from_iid(next_hop + 8, l2);
}

/* Route @p pkt, whose head is the 40-byte IPv6 header snip (netif header
 * removed), out of the right interface; @p pinned is 0 or a forced interface. */
static void route_out(struct wren_ipv6 *ip, struct wren_snip *pkt, const struct ipv6_hdr *h,
                      uint8_t pinned, bool forwarded)
{
    struct wren_node *node = ip->node;
    const uint8_t *next_hop = h->dst;
    struct wren_ipv6_if *ifc = NULL;
    const struct wren_fib_entry *r = NULL;
    if (!ipv6_addr_is_multicast(h->dst) && !ipv6_addr_is_link_local(h->dst)) {
        r = wren_fib_lookup(&ip->fib, h->dst);
        if (r && pinned && r->if_id != pinned) {
            r = NULL; /* the pinned interface wins; its destination is on-link */
        }
    }
    if (r) {
        ifc = if_get(ip, r->if_id);
        if (!ipv6_addr_is_unspecified(r->next_hop)) {
            next_hop = r->next_hop;
        }
    } else if (pinned) {
        ifc = if_get(ip, pinned);
    } else if (ipv6_addr_is_multicast(h->dst) || ipv6_addr_is_link_local(h->dst)) {
        /* link scope without a pinned interface: the first one */
        for (unsigned i = 0; ifc == NULL && i < CONFIG_WREN_IPV6_IFS; i++) {
            ifc = ip->ifs[i].if_id ? &ip->ifs[i] : NULL;
        }
    }
    if (ifc == NULL) {
        if (forwarded) {
            ip->stats.rx_drop_no_route++;
            icmp_error(ip, pkt, ICMPV6_DEST_UNREACH, ICMPV6_UNREACH_NO_ROUTE, 0);
        } else {
            ip->stats.tx_drop_no_route++;
            wren_pktbuf_release(&node->pktbuf, pkt);
        }
        return;
    }
    size_t len = wren_pkt_len(pkt);
    if (len > ifc->mtu) {
        if (forwarded) {
            icmp_error(ip, pkt, ICMPV6_PKT_TOO_BIG, 0, ifc->mtu);
        } else {
            ip->stats.tx_drop_too_big++;
            wren_pktbuf_release(&node->pktbuf, pkt);
        }
        return;
    }
    uint8_t l2[8];
    uint8_t flags = 0;
    uint8_t l2len = resolve(ip, ifc, next_hop, l2, &flags);
    struct wren_snip *nh = wren_netif_hdr_add(&node->pktbuf, pkt, ifc->l2addr, ifc->l2len, l2, l2len);
    if (nh == NULL) {
        ip->stats.tx_drop_nobuf++;
        wren_pktbuf_release(&node->pktbuf, pkt);
        return;
    }
    wren_netif_hdr(nh)->flags = flags;
    wren_netif_hdr(nh)->if_id = ifc->if_id;
    to_link(ip, ifc, nh);
}

static void receive(struct wren_ipv6 *ip, struct wren_snip *pkt);

static void send(struct wren_ipv6 *ip, struct wren_snip *pkt)
{
    struct wren_node *node = ip->node;
    struct wren_pktbuf *pb = &node->pktbuf;
    uint8_t pinned = 0;
    if (pkt && pkt->type == WREN_NETTYPE_NETIF) {
        pinned = wren_netif_hdr(pkt)->if_id;
        wren_pktbuf_remove_snip(pb, &pkt, pkt);
    }
    struct ipv6_hdr h;
    if (pkt == NULL || pkt->type != WREN_NETTYPE_IPV6 || pkt->size != IPV6_HDR_LEN ||
        ipv6_hdr_parse(pkt->data, pkt->size, &h) < 0 || (pinned && !if_get(ip, pinned))) {
        ip->stats.tx_drop_bad++;
        wren_pktbuf_release(pb, pkt);
        return;
    }
    size_t plen = wren_pkt_len(pkt->next);
    struct wren_snip *hs = pkt;
    if (plen > UINT16_MAX || wren_pktbuf_write_path(pb, &pkt, &hs) < 0) {
        ip->stats.tx_drop_bad++;
        wren_pktbuf_release(pb, pkt);
        return;
    }
    h.payload_len = (uint16_t)plen;
    bool local = ipv6_addr_is_loopback(h.dst) || wren_ipv6_is_own(ip, h.dst);
    if (ipv6_addr_is_unspecified(h.src)) {
        if (local) {
            memcpy(h.src, h.dst, 16);
        } else if (wren_ipv6_select_src(ip, pinned, h.dst, h.src) < 0) {
            ip->stats.tx_drop_no_src++;
            wren_pktbuf_release(pb, pkt);
            return;
        }
    }
    if (h.hop_limit == 0) {
        struct wren_ipv6_if *ifc = if_get(ip, pinned);
        h.hop_limit = ifc ? ifc->hop_limit : WREN_IPV6_DEFAULT_HOP_LIMIT;
    }
    ipv6_hdr_emit(&h, hs->data);
    if (local) {
        /* loopback: the datagram turns around in one piece, as if received */
        ip->stats.tx_loopback++;
        if (wren_pktbuf_merge(pb, &pkt) < 0) {
            ip->stats.tx_drop_nobuf++;
            wren_pktbuf_release(pb, pkt);
            return;
        }
        receive(ip, pkt);
        return;
    }
    route_out(ip, pkt, &h, pinned, false);
}

/* ---- receive ------------------------------------------------------------- */

static bool for_us(struct wren_ipv6 *ip, const struct ipv6_hdr *h, uint8_t if_id)
{
    if (ipv6_addr_is_multicast(h->dst)) {
        struct wren_ipv6_if *ifc = if_get(ip, if_id);
        if (ifc) {
            return in_group(ifc, h->dst);
        }
        /* looped back: any interface's membership counts */
        for (unsigned i = 0; i < CONFIG_WREN_IPV6_IFS; i++) {
            if (ip->ifs[i].if_id && in_group(&ip->ifs[i], h->dst)) {
                return true;
            }
        }
        return false;
    }
    return wren_ipv6_is_own(ip, h->dst) || (if_id == 0 && ipv6_addr_is_loopback(h->dst));
}

/* Forward a received datagram (first snip: the whole datagram). */
static void forward(struct wren_ipv6 *ip, struct wren_snip *pkt, struct ipv6_hdr *h)
{
    struct wren_pktbuf *pb = &ip->node->pktbuf;
    if (h->hop_limit <= 1) {
        ip->stats.rx_drop_hop_limit++;
        icmp_error(ip, pkt, ICMPV6_TIME_EXCEEDED, 0, 0);
        return;
    }
    /* keep only the datagram: drop link headers and the netif header */
    struct wren_snip *rest = pkt->next;
    struct wren_snip *dg = pkt;
    if (wren_pktbuf_write_path(pb, &pkt, &dg) < 0) {
        ip->stats.rx_drop_nobuf++;
        wren_pktbuf_release(pb, pkt);
        return;
    }
    rest = dg->next;
    dg->next = NULL;
    wren_pktbuf_release(pb, rest);
    /* TX layout: the 40-byte header as its own snip, then the payload */
    h->hop_limit--;
    ipv6_hdr_emit(h, dg->data);
    struct wren_snip *hdr = wren_pktbuf_mark(pb, dg, IPV6_HDR_LEN, WREN_NETTYPE_IPV6);
    if (hdr == NULL) {
        ip->stats.rx_drop_nobuf++;
        wren_pktbuf_release(pb, dg);
        return;
    }
    dg->next = NULL;
    hdr->next = dg;
    dg->type = WREN_NETTYPE_UNDEF;
    if (h->next == IPV6_NH_UDP && dg->size >= 8) {
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
    route_out(ip, hdr, h, 0, true);
}

/* RFC 8200 section 4: walk the extension headers of a datagram for us.
 * Returns 1 to go on (*nh, *ext_len set), 0 if the packet went to ICMPv6 for
 * a parameter problem, -1 to drop it (counted). */
static int walk_ext(struct wren_ipv6 *ip, struct wren_snip *pkt, const struct ipv6_hdr *h,
                    uint8_t *nh, size_t *ext_len)
{
    struct ipv6_ext e;
    const uint8_t *data = pkt->data + IPV6_HDR_LEN;
    int res = ipv6_ext_walk(h->next, data, h->payload_len, NULL, 0, &e);
    ip->stats.rx_drop_ext++;
    switch (res) {
    case 0:
        break;
    case -IPV6_EXT_ERR_TRUNCATED:
    case -IPV6_EXT_ERR_OPT:
    case -IPV6_EXT_ERR_RH0:
        icmp_error(ip, pkt, ICMPV6_PARAM_PROBLEM, ICMPV6_PARAM_HDR,
                   (uint16_t)(IPV6_HDR_LEN + e.err_off));
        return 0;
    case -IPV6_EXT_ERR_HBH:
        icmp_error(ip, pkt, ICMPV6_PARAM_PROBLEM, ICMPV6_PARAM_NEXT_HDR,
                   (uint16_t)(IPV6_HDR_LEN + e.err_off));
        return 0;
    default:
        return -1;
    }
    if (e.opt_off) {
        /* an option we do not know whose type asks for more than a skip */
        switch (data[e.opt_off] >> 6) {
        case IPV6_OPT_ACT_ICMP_UCAST:
            if (ipv6_addr_is_multicast(h->dst)) {
                return -1;
            }
            /* fall through */
        case IPV6_OPT_ACT_ICMP:
            icmp_error(ip, pkt, ICMPV6_PARAM_PROBLEM, ICMPV6_PARAM_OPTION,
                       (uint16_t)(IPV6_HDR_LEN + e.opt_off));
            return 0;
        default:
            return -1;
        }
    }
    if ((e.flags & IPV6_EXT_F_RH) && e.rh_segs_left) {
        /* a routing header we would have to process: no source routing here */
        icmp_error(ip, pkt, ICMPV6_PARAM_PROBLEM, ICMPV6_PARAM_HDR,
                   (uint16_t)(IPV6_HDR_LEN + e.rh_off + 2));
        return 0;
    }
    if ((e.flags & IPV6_EXT_F_FRAG) && (e.frag_offset || e.frag_more)) {
        /* IPv6 fragments are not reassembled (6LoWPAN carries 1280 bytes
         * without them): a clean, counted drop */
        return -1;
    }
    ip->stats.rx_drop_ext--;
    *nh = e.next;
    *ext_len = e.off;
    return 1;
}

static void receive(struct wren_ipv6 *ip, struct wren_snip *pkt)
{
    struct wren_node *node = ip->node;
    struct wren_pktbuf *pb = &node->pktbuf;
    struct ipv6_hdr h;
    ip->stats.rx_pkts++;
    if (pkt->size < IPV6_HDR_LEN || ipv6_hdr_parse(pkt->data, pkt->size, &h) < 0) {
        ip->stats.rx_drop_hdr++;
        goto drop;
    }
    if ((size_t)h.payload_len + IPV6_HDR_LEN > pkt->size) {
        ip->stats.rx_drop_len++;
        goto drop;
    }
    if (ipv6_addr_is_multicast(h.src)) {
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
    if (pkt->size > (size_t)h.payload_len + IPV6_HDR_LEN) {
        /* link padding after the datagram */
        wren_pktbuf_realloc_data(pb, pkt, (size_t)h.payload_len + IPV6_HDR_LEN);
    }
    if (!for_us(ip, &h, if_id)) {
        if (ip->forwarding && !ipv6_addr_is_multicast(h.dst) && !ipv6_addr_is_link_local(h.dst) &&
            if_id) {
            forward(ip, pkt, &h);
            return;
        }
        ip->stats.rx_drop_not_for_us++;
        goto drop;
    }
    uint8_t nh = h.next;
    size_t ext_len = 0;
    if (nh == IPV6_NH_HOPOPT || nh == IPV6_NH_ROUTING || nh == IPV6_NH_DSTOPTS ||
        nh == IPV6_NH_FRAGMENT) {
        int res = walk_ext(ip, pkt, &h, &nh, &ext_len);
        if (res <= 0) {
            if (res < 0) {
                goto drop;
            }
            return; /* handed to ICMPv6 for an error */
        }
    }
    if (wren_pktbuf_mark(pb, pkt, IPV6_HDR_LEN, WREN_NETTYPE_IPV6) == NULL ||
        (ext_len && wren_pktbuf_mark(pb, pkt, ext_len, WREN_NETTYPE_IPV6_EXT) == NULL)) {
        ip->stats.rx_drop_nobuf++;
        goto drop;
    }
    pkt->type = nettype_of(nh);
    if (deliver_up(node, nh, pkt) == 0) {
        ip->stats.rx_drop_no_receiver++;
        return;
    }
    ip->stats.rx_delivered++;
    return;

drop:
    wren_pktbuf_release(pb, pkt);
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
    switch (opt) {
    case WREN_NETOPT_IPV6_ADDR:
        if (ifc == NULL) {
            return -ENODEV;
        }
        return wren_netopt_put(val, max, ifc->addrs, sizeof(ifc->addrs));
    case WREN_NETOPT_IPV6_SRC_SELECT: {
        if (max < 16) {
            return -EOVERFLOW;
        }
        uint8_t dst[16];
        memcpy(dst, val, 16);
        int res = wren_ipv6_select_src(ip, (uint8_t)ctx, dst, val);
        return res < 0 ? res : 16;
    }
    case WREN_NETOPT_IPV6_FORWARDING: {
        uint8_t b = ip->forwarding;
        return wren_netopt_put(val, max, &b, 1);
    }
    case WREN_NETOPT_IPV6_ROUTES:
        return wren_netopt_put(val, max, ip->fib.e, sizeof(ip->fib.e));
    case WREN_NETOPT_IPV6_STATS:
        return wren_netopt_put(val, max, &ip->stats, sizeof(ip->stats));
    case WREN_NETOPT_IPV6_MTU:
        return ifc ? wren_netopt_put(val, max, &ifc->mtu, 2) : -ENODEV;
    case WREN_NETOPT_HOP_LIMIT:
        return ifc ? wren_netopt_put(val, max, &ifc->hop_limit, 1) : -ENODEV;
    default:
        return -ENOTSUP;
    }
}

static int ipv6_set(struct wren_node *node, struct wren_module *self, uint16_t opt,
                    uint16_t ctx, const void *val, size_t len)
{
    (void)node;
    struct wren_ipv6 *ip = (struct wren_ipv6 *)self;
    struct wren_ipv6_if *ifc = if_get(ip, (uint8_t)ctx);
    switch (opt) {
    case WREN_NETOPT_IPV6_NETIF_ADD:
        return len == 1 ? wren_ipv6_netif_add(ip, *(const uint8_t *)val) : -EINVAL;
    case WREN_NETOPT_IPV6_ADDR: {
        struct wren_ipv6_addr a;
        if (len != sizeof(a)) {
            return -EINVAL;
        }
        memcpy(&a, val, sizeof(a));
        return wren_ipv6_addr_add(ip, (uint8_t)ctx, a.addr, a.prefix_len, a.state);
    }
    case WREN_NETOPT_IPV6_ADDR_REMOVE:
        return len == 16 ? addr_remove(ip, (uint8_t)ctx, val) : -EINVAL;
    case WREN_NETOPT_IPV6_GROUP_JOIN:
    case WREN_NETOPT_IPV6_GROUP_LEAVE:
        return len == 16 ? group_set(ip, (uint8_t)ctx, val, opt == WREN_NETOPT_IPV6_GROUP_JOIN)
                         : -EINVAL;
    case WREN_NETOPT_IPV6_FORWARDING:
        if (len != 1) {
            return -EINVAL;
        }
        ip->forwarding = *(const uint8_t *)val != 0;
        return 0;
    case WREN_NETOPT_IPV6_ROUTE_ADD:
    case WREN_NETOPT_IPV6_ROUTE_DEL: {
        struct wren_fib_entry r;
        if (len != sizeof(r)) {
            return -EINVAL;
        }
        memcpy(&r, val, sizeof(r));
        if (opt == WREN_NETOPT_IPV6_ROUTE_DEL) {
            return wren_fib_del(&ip->fib, r.prefix, r.prefix_len);
        }
        return if_get(ip, r.if_id) ? wren_fib_add(&ip->fib, &r) : -ENODEV;
    }
    case WREN_NETOPT_IPV6_MTU: {
        uint16_t mtu;
        if (ifc == NULL || len != 2 || (memcpy(&mtu, val, 2), mtu < IPV6_MIN_MTU)) {
            return ifc ? -EINVAL : -ENODEV;
        }
        ifc->mtu = mtu;
        return 0;
    }
    case WREN_NETOPT_HOP_LIMIT:
        if (ifc == NULL || len != 1 || *(const uint8_t *)val == 0) {
            return ifc ? -EINVAL : -ENODEV;
        }
        ifc->hop_limit = *(const uint8_t *)val;
        return 0;
    default:
        return -ENOTSUP;
    }
}

static const struct wren_module_ops ipv6_ops = {
    .name = "ipv6",
    .handle = ipv6_handle,
    .get = ipv6_get,
    .set = ipv6_set,
};

int wren_ipv6_init(struct wren_node *node, struct wren_ipv6 *ip)
{
    memset(ip, 0, sizeof(*ip));
    ip->module.ops = &ipv6_ops;
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
    }
    wren_netapi_get(node, &netif->module, WREN_NETOPT_ADDR_LEN, 0, &alen, sizeof(alen));
    int n = wren_netapi_get(node, &netif->module,
                            alen == 8 ? WREN_NETOPT_ADDRESS_LONG : WREN_NETOPT_ADDRESS, 0,
                            ifc->l2addr, sizeof(ifc->l2addr));
    ifc->l2len = n > 0 ? (uint8_t)n : 0;
    uint8_t ll[16] = { 0xfe, 0x80 };
    wren_ipv6_iid_from_l2(ll + 8, ifc->l2addr, ifc->l2len);
    return wren_ipv6_addr_add(ip, if_id, ll, 64, WREN_IPV6_ADDR_VALID);
}

struct wren_snip *wren_ipv6_hdr_add(struct wren_pktbuf *pb, struct wren_snip *pkt,
                                    const uint8_t *src, const uint8_t *dst, uint8_t next)
{
    struct wren_snip *s = wren_pktbuf_add(pb, pkt, NULL, IPV6_HDR_LEN, WREN_NETTYPE_IPV6);
    if (s == NULL) {
        return NULL;
    }
    struct ipv6_hdr h = { .next = next };
    if (src) {
        memcpy(h.src, src, 16);
    }
    memcpy(h.dst, dst, 16);
    ipv6_hdr_emit(&h, s->data);
    return s;
}

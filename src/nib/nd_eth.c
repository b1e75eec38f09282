#include "nib/nd_eth.h"

#include <errno.h>
#include <string.h>

#include "core/byteorder.h"
#include "core/config.h"
#include "shell/shell.h"
#include "core/node.h"
#include "icmpv6/icmpv6.h"
#include "net/netapi.h"
#include "net/netif.h"
#include "net/netopt.h"
#include "net/nettype.h"
#include "wire/icmpv6.h"
#include "wire/ipv6.h"

/* RFC 4861 section 10 and RFC 4862 section 5.1, in microseconds */
#define RETRANS_US 1000000u       /* RetransTimer */
#define REACHABLE_US 30000000u    /* REACHABLE_TIME */
#define DELAY_US 5000000u         /* DELAY_FIRST_PROBE_TIME */
#define MAX_SOLICIT 3             /* MAX_MULTICAST_SOLICIT = MAX_UNICAST_SOLICIT */
#define DAD_MAX_DELAY_US 1000000u /* MAX_RTR_SOLICITATION_DELAY before the first probe */
#define ND_MSG_LEN 32             /* NS/NA with an 8-byte link-layer address option */
#define RS_INTERVAL_US 4000000u   /* RTR_SOLICITATION_INTERVAL */
#define MAX_RS 3                  /* MAX_RTR_SOLICITATIONS */

enum { DAD_IDLE = 0, DAD_DELAY, DAD_WAIT };

static const uint8_t all_nodes[16] = {0xff, 0x02, [15] = 1};
static const uint8_t all_routers[16] = {0xff, 0x02, [15] = 2};

static struct wren_module *ipv6_module(struct wren_nd_eth *nd)
{
    struct wren_netreg_entry *e =
        wren_netreg_lookup(nd->node, WREN_NETTYPE_IPV6, WREN_NETREG_DEMUX_ALL, NULL);
    return e ? e->module : NULL;
}

/* RFC 4291 2.7.1: ff02::1:ffXX:XXXX */
static void solicited_node(uint8_t *g, const uint8_t *addr)
{
    static const uint8_t pre[13] = {0xff, 0x02, [11] = 1, [12] = 0xff};
    memcpy(g, pre, 13);
    memcpy(g + 13, addr + 13, 3);
}

/* The state of our address @p a on the interface (enum wren_ipv6_addr_state). */
static uint8_t own_state(struct wren_nd_eth *nd, const uint8_t *a)
{
    struct wren_ipv6_addr v[CONFIG_WREN_IPV6_ADDRS];
    struct wren_module *ip = ipv6_module(nd);
    if (ip == NULL ||
        wren_netapi_get(nd->node, ip, WREN_NETOPT_IPV6_ADDR, nd->if_id, v, sizeof(v)) <= 0) {
        return WREN_IPV6_ADDR_UNUSED;
    }
    for (unsigned i = 0; i < CONFIG_WREN_IPV6_ADDRS; i++) {
        if (v[i].state && memcmp(v[i].addr, a, 16) == 0) {
            return v[i].state;
        }
    }
    return WREN_IPV6_ADDR_UNUSED;
}

/* ---- timer --------------------------------------------------------------- */

/* Arm the timer at the earliest pending deadline, or disarm it. */
static void rearm(struct wren_nd_eth *nd)
{
    uint64_t next = UINT64_MAX;
    for (unsigned i = 0; i < CONFIG_WREN_ND_ETH_NEIGHBORS; i++) {
        const struct wren_nd_eth_neighbor *n = &nd->nc[i];
        if ((n->state == WREN_ND_INCOMPLETE || n->state == WREN_ND_DELAY ||
             n->state == WREN_ND_PROBE) &&
            n->deadline < next) {
            next = n->deadline;
        }
    }
    for (unsigned i = 0; i < CONFIG_WREN_IPV6_ADDRS; i++) {
        if (nd->dad[i].phase != DAD_IDLE && nd->dad[i].deadline < next) {
            next = nd->dad[i].deadline;
        }
    }
    if (nd->rs_deadline && nd->rs_deadline < next) {
        next = nd->rs_deadline;
    }
    if (next == UINT64_MAX) {
        wren_timer_cancel(nd->node, &nd->timer);
    } else {
        wren_timer_set_abs(nd->node, &nd->timer, next);
    }
}

/* ---- sending ------------------------------------------------------------- */

static void send_ns(struct wren_nd_eth *nd, const uint8_t *target, bool unicast)
{
    uint8_t m[ND_MSG_LEN] = {ICMPV6_ND_NS};
    memcpy(m + 8, target, 16);
    wren_icmpv6_opt_lladdr_emit(ICMPV6_OPT_SLLAO, nd->mac, 6, m + 24, 8);
    uint8_t dst[16];
    if (unicast) {
        memcpy(dst, target, 16);
    } else {
        solicited_node(dst, target);
    }
    /* RFC 4861: ND messages go out with hop limit 255; the source is chosen */
    if (wren_icmpv6_send(nd->node, NULL, dst, 255, nd->if_id, m, sizeof(m)) == 0) {
        nd->stats.tx_ns++;
    } else {
        nd->stats.tx_fail++;
    }
}

static void send_na(struct wren_nd_eth *nd, const uint8_t *dst, const uint8_t *target,
                    uint8_t flags)
{
    uint8_t m[ND_MSG_LEN] = {ICMPV6_ND_NA};
    m[4] = flags;
    memcpy(m + 8, target, 16);
    wren_icmpv6_opt_lladdr_emit(ICMPV6_OPT_TLLAO, nd->mac, 6, m + 24, 8);
    if (wren_icmpv6_send(nd->node, target, dst, 255, nd->if_id, m, sizeof(m)) == 0) {
        nd->stats.tx_na++;
    } else {
        nd->stats.tx_fail++;
    }
}

/* RFC 4861 6.3.7: an RS with our SLLAO to all-routers, from the link-local
 * address; the next one RTR_SOLICITATION_INTERVAL later, MAX_RTR_SOLICITATIONS
 * in all (an RA stops them). */
static void send_rs(struct wren_nd_eth *nd, uint64_t now)
{
    uint8_t m[16] = {ICMPV6_ND_RS};
    wren_icmpv6_opt_lladdr_emit(ICMPV6_OPT_SLLAO, nd->mac, 6, m + 8, 8);
    if (wren_icmpv6_send(nd->node, NULL, all_routers, 255, nd->if_id, m, sizeof(m)) == 0) {
        nd->stats.tx_rs++;
    } else {
        nd->stats.tx_fail++;
    }
    nd->rs_sent++;
    nd->rs_deadline = nd->rs_sent < MAX_RS ? now + RS_INTERVAL_US : 0;
}

/* RFC 4862 5.4.2: an NS from the unspecified address, without options. It
 * goes straight to the interface: the IPv6 layer would pick a source. */
static void send_dad_ns(struct wren_nd_eth *nd, const uint8_t *target)
{
    struct wren_node *node = nd->node;
    struct wren_pktbuf *pb = &node->pktbuf;
    struct wren_netif *netif = wren_netif_get(node, nd->if_id);
    static const uint8_t unspec[16];
    uint8_t dst[16], m[24] = {ICMPV6_ND_NS};
    solicited_node(dst, target);
    memcpy(m + 8, target, 16);
    put_be16(m + 2, wren_icmpv6_csum(unspec, dst, m, sizeof(m)));
    uint8_t h[IPV6_HDR_LEN] = {0x60};
    put_be16(h + 4, sizeof(m));
    h[6] = IPV6_NH_ICMPV6;
    h[7] = 255;
    memcpy(h + IPV6_OFF_DST, dst, 16);
    struct wren_snip *body = wren_pktbuf_add(pb, NULL, m, sizeof(m), WREN_NETTYPE_ICMPV6);
    struct wren_snip *ip = body ? wren_pktbuf_add(pb, body, h, sizeof(h), WREN_NETTYPE_IPV6) : NULL;
    struct wren_snip *nh = ip ? wren_netif_hdr_add(pb, ip, nd->mac, 6, NULL, 0) : NULL;
    if (nh == NULL || netif == NULL) {
        wren_pktbuf_release(pb, nh ? nh : ip ? ip : body);
        nd->stats.tx_fail++;
        return;
    }
    wren_netif_hdr(nh)->flags = WREN_NETIF_HDR_MULTICAST;
    wren_netif_hdr(nh)->if_id = nd->if_id;
    if (wren_netapi_send(node, &netif->module, nh) == 0) {
        nd->stats.tx_ns++;
    } else {
        nd->stats.tx_fail++;
    }
}

/* ---- neighbor cache ------------------------------------------------------ */

static struct wren_nd_eth_neighbor *nc_find(struct wren_nd_eth *nd, const uint8_t *ip)
{
    for (unsigned i = 0; i < CONFIG_WREN_ND_ETH_NEIGHBORS; i++) {
        struct wren_nd_eth_neighbor *n = &nd->nc[i];
        if (n->state && memcmp(n->ip, ip, 16) == 0) {
            return n;
        }
    }
    return NULL;
}

static void nc_free(struct wren_nd_eth *nd, struct wren_nd_eth_neighbor *n)
{
    if (n->held) {
        wren_pktbuf_release(&nd->node->pktbuf, n->held);
        nd->stats.held_dropped++;
    }
    memset(n, 0, sizeof(*n));
}

/* A slot for a new entry: a free one, else the least recently used entry
 * that is not resolving (so solicitations cannot flush resolutions). */
static struct wren_nd_eth_neighbor *nc_slot(struct wren_nd_eth *nd)
{
    struct wren_nd_eth_neighbor *lru = NULL;
    for (unsigned i = 0; i < CONFIG_WREN_ND_ETH_NEIGHBORS; i++) {
        struct wren_nd_eth_neighbor *n = &nd->nc[i];
        if (n->state == WREN_ND_FREE) {
            return n;
        }
        if (n->state != WREN_ND_INCOMPLETE && (lru == NULL || n->used < lru->used)) {
            lru = n;
        }
    }
    if (lru == NULL) {
        nd->stats.nc_full++;
        return NULL;
    }
    nd->stats.nc_replaced++;
    nc_free(nd, lru);
    return lru;
}

/* The entry has a MAC now: send what it held. */
static void send_held(struct wren_nd_eth *nd, struct wren_nd_eth_neighbor *n)
{
    struct wren_snip *pkt = n->held;
    struct wren_netif *netif = wren_netif_get(nd->node, nd->if_id);
    n->held = NULL;
    if (pkt == NULL) {
        return;
    }
    if (netif == NULL) {
        wren_pktbuf_release(&nd->node->pktbuf, pkt);
        nd->stats.held_dropped++;
        return;
    }
    struct wren_netif_hdr *h = wren_netif_hdr(pkt);
    memcpy(h->dst, n->mac, 6);
    h->dst_len = 6;
    wren_netapi_send(nd->node, &netif->module, pkt);
}

/* A MAC learned for @p ip: from an NS's SLLAO (STALE) or a solicited NA. */
static void nc_learn(struct wren_nd_eth *nd, struct wren_nd_eth_neighbor *n, const uint8_t *mac,
                     uint8_t state)
{
    uint64_t now = wren_node_now(nd->node);
    if (n->state == WREN_ND_INCOMPLETE) {
        nd->stats.res_ok++;
    }
    memcpy(n->mac, mac, 6);
    n->state = state;
    n->probes = 0;
    n->deadline = state == WREN_ND_REACHABLE ? now + REACHABLE_US : 0;
    n->used = now;
    send_held(nd, n);
}

/* A neighbor announced @p mac for @p ip (an NS's or RA's SLLAO): create a
 * STALE entry, or make an existing one STALE if the address is new to it
 * (RFC 4861 7.2.3, 6.3.4). */
static void nc_saw(struct wren_nd_eth *nd, const uint8_t *ip, const uint8_t *mac)
{
    struct wren_nd_eth_neighbor *n = nc_find(nd, ip);
    if (n == NULL && (n = nc_slot(nd)) != NULL) {
        memcpy(n->ip, ip, 16);
        n->state = WREN_ND_STALE;
    }
    if (n && (n->state == WREN_ND_INCOMPLETE || memcmp(n->mac, mac, 6) != 0)) {
        nc_learn(nd, n, mac, WREN_ND_STALE);
    }
}

/* The link address of a neighbor we can send to (NUD on use: RFC 4861 7.3.3). */
static struct wren_nd_eth_neighbor *nc_use(struct wren_nd_eth *nd, const uint8_t *ip)
{
    struct wren_nd_eth_neighbor *n = nc_find(nd, ip);
    if (n == NULL || n->state == WREN_ND_INCOMPLETE) {
        return NULL;
    }
    uint64_t now = wren_node_now(nd->node);
    if (n->state == WREN_ND_REACHABLE && now >= n->deadline) {
        n->state = WREN_ND_STALE;
    }
    if (n->state == WREN_ND_STALE) {
        n->state = WREN_ND_DELAY;
        n->deadline = now + DELAY_US;
        rearm(nd);
    }
    n->used = now;
    return n;
}

static int hold(struct wren_nd_eth *nd, const struct wren_nib_hold *h)
{
    struct wren_snip *pkt = h->pkt;
    if (pkt == NULL || pkt->type != WREN_NETTYPE_NETIF) {
        return -EINVAL;
    }
    struct wren_nd_eth_neighbor *n = nc_use(nd, h->next_hop);
    if (n) {
        /* resolved meanwhile */
        n->held = pkt;
        send_held(nd, n);
        return 0;
    }
    n = nc_find(nd, h->next_hop);
    if (n) {
        /* RFC 4861 7.2.2: the newest packet replaces the queued one */
        if (n->held) {
            wren_pktbuf_release(&nd->node->pktbuf, n->held);
            nd->stats.held_replaced++;
            nd->stats.held_dropped++;
        }
        n->held = pkt;
        return 0;
    }
    if ((n = nc_slot(nd)) == NULL) {
        return -ENOSPC;
    }
    memcpy(n->ip, h->next_hop, 16);
    n->state = WREN_ND_INCOMPLETE;
    n->held = pkt;
    n->used = wren_node_now(nd->node);
    n->deadline = n->used + RETRANS_US;
    n->probes = 1;
    send_ns(nd, n->ip, false);
    rearm(nd);
    return 0;
}

/* ---- duplicate address detection ------------------------------------------ */

static struct wren_nd_eth_dad *dad_find(struct wren_nd_eth *nd, const uint8_t *addr)
{
    for (unsigned i = 0; i < CONFIG_WREN_IPV6_ADDRS; i++) {
        if (nd->dad[i].phase != DAD_IDLE && memcmp(nd->dad[i].addr, addr, 16) == 0) {
            return &nd->dad[i];
        }
    }
    return NULL;
}

static int dad_start(struct wren_nd_eth *nd, const uint8_t *addr, uint8_t prefix_len)
{
    struct wren_module *ip = ipv6_module(nd);
    struct wren_nd_eth_dad *d = dad_find(nd, addr);
    for (unsigned i = 0; d == NULL && i < CONFIG_WREN_IPV6_ADDRS; i++) {
        d = nd->dad[i].phase == DAD_IDLE ? &nd->dad[i] : NULL;
    }
    if (ip == NULL || d == NULL) {
        return ip ? -ENOSPC : -ENODEV;
    }
    struct wren_ipv6_addr a = {.prefix_len = prefix_len, .state = WREN_IPV6_ADDR_TENTATIVE};
    memcpy(a.addr, addr, 16);
    int res = wren_netapi_set(nd->node, ip, WREN_NETOPT_IPV6_ADDR, nd->if_id, &a, sizeof(a));
    if (res < 0) {
        return res;
    }
    memcpy(d->addr, addr, 16);
    d->prefix_len = prefix_len;
    d->phase = DAD_DELAY;
    d->deadline = wren_node_now(nd->node) + wren_node_random_below(nd->node, DAD_MAX_DELAY_US);
    rearm(nd);
    return 0;
}

/* Someone else has (or wants) @p addr, one of our tentative addresses. */
static void dad_duplicate(struct wren_nd_eth *nd, struct wren_nd_eth_dad *d)
{
    struct wren_module *ip = ipv6_module(nd);
    if (ip) {
        wren_netapi_set(nd->node, ip, WREN_NETOPT_IPV6_ADDR_REMOVE, nd->if_id, d->addr, 16);
    }
    nd->stats.dad_dup++;
    d->phase = DAD_IDLE;
    rearm(nd);
}

static void dad_tick(struct wren_nd_eth *nd, struct wren_nd_eth_dad *d, uint64_t now)
{
    if (d->phase == DAD_DELAY) {
        send_dad_ns(nd, d->addr);
        d->phase = DAD_WAIT;
        d->deadline = now + RETRANS_US;
        return;
    }
    struct wren_module *ip = ipv6_module(nd);
    struct wren_ipv6_addr a = {.prefix_len = d->prefix_len, .state = WREN_IPV6_ADDR_VALID};
    memcpy(a.addr, d->addr, 16);
    if (ip && wren_netapi_set(nd->node, ip, WREN_NETOPT_IPV6_ADDR, nd->if_id, &a, sizeof(a)) >= 0) {
        nd->stats.dad_ok++;
        /* RFC 4861 6.3.7: solicit routers once we have a source for it */
        if (wren_ipv6_addr_is_link_local(d->addr) && !nd->ra_seen && nd->rs_sent == 0) {
            nd->rs_deadline = now;
        }
    }
    d->phase = DAD_IDLE;
}

static void nd_tick(struct wren_timer *t, void *arg)
{
    (void)t;
    struct wren_nd_eth *nd = arg;
    uint64_t now = wren_node_now(nd->node);
    for (unsigned i = 0; i < CONFIG_WREN_IPV6_ADDRS; i++) {
        if (nd->dad[i].phase != DAD_IDLE && nd->dad[i].deadline <= now) {
            dad_tick(nd, &nd->dad[i], now);
        }
    }
    if (nd->rs_deadline && nd->rs_deadline <= now) {
        send_rs(nd, now);
    }
    for (unsigned i = 0; i < CONFIG_WREN_ND_ETH_NEIGHBORS; i++) {
        struct wren_nd_eth_neighbor *n = &nd->nc[i];
        if (n->deadline > now) {
            continue;
        }
        switch (n->state) {
        case WREN_ND_INCOMPLETE:
        case WREN_ND_PROBE:
            if (n->probes >= MAX_SOLICIT) {
                *(n->state == WREN_ND_INCOMPLETE ? &nd->stats.res_failed
                                                 : &nd->stats.probe_failed) += 1;
                nc_free(nd, n);
                break;
            }
            n->probes++;
            n->deadline = now + RETRANS_US;
            send_ns(nd, n->ip, n->state == WREN_ND_PROBE);
            break;
        case WREN_ND_DELAY:
            /* RFC 4861 7.3.3: not confirmed in time: probe by unicast */
            n->state = WREN_ND_PROBE;
            n->probes = 1;
            n->deadline = now + RETRANS_US;
            send_ns(nd, n->ip, true);
            break;
        default:
            break;
        }
    }
    rearm(nd);
}

/* ---- receiving ------------------------------------------------------------ */

/* The link-layer address option of type @p want (a 6-byte MAC), if any.
 * @return 1 found, 0 none, -1 a malformed option (the message is invalid). */
static int find_lladdr(const struct icmpv6_msg *m, uint8_t want, const uint8_t **mac)
{
    struct icmpv6_opt_iter it;
    struct icmpv6_opt o;
    struct icmpv6_lladdr ll;
    int res, found = 0;
    wren_icmpv6_opt_iter_init(&it, m->data, m->data_len);
    while ((res = wren_icmpv6_opt_next(&it, &o)) > 0) {
        if (o.type == want && wren_icmpv6_opt_lladdr_parse(&o, 6, &ll) == 0 && ll.len == 6) {
            *mac = ll.addr;
            found = 1;
        }
    }
    return res < 0 ? -1 : found;
}

/* RFC 4861 7.1.1 and 7.2.3 */
static void on_ns(struct wren_nd_eth *nd, const uint8_t *iph, const struct icmpv6_msg *m)
{
    const uint8_t *src = iph + IPV6_OFF_SRC, *dst = iph + IPV6_OFF_DST;
    const uint8_t *mac = NULL;
    int has = find_lladdr(m, ICMPV6_OPT_SLLAO, &mac);
    bool from_unspec = wren_ipv6_addr_is_unspecified(src);
    uint8_t sol[16];
    solicited_node(sol, m->nd.target);
    if (has < 0 || wren_ipv6_addr_is_multicast(m->nd.target) ||
        (from_unspec && (has || memcmp(dst, sol, 16) != 0))) {
        nd->stats.rx_invalid++;
        return;
    }
    nd->stats.rx_ns++;
    struct wren_nd_eth_dad *d = dad_find(nd, m->nd.target);
    if (d) {
        /* RFC 4862 5.4.3: never answer for a tentative address; a DAD probe
         * of someone else for it means it is a duplicate */
        if (from_unspec) {
            dad_duplicate(nd, d);
        }
        return;
    }
    if (own_state(nd, m->nd.target) != WREN_IPV6_ADDR_VALID) {
        return; /* not ours (the kernel's DAD probe for its own address, say) */
    }
    if (!from_unspec && has) {
        nc_saw(nd, src, mac);
    }
    send_na(nd, from_unspec ? all_nodes : src, m->nd.target,
            (uint8_t)(ICMPV6_NA_O | (from_unspec ? 0 : ICMPV6_NA_S)));
}

/* RFC 4861 7.1.2 and 7.2.5 */
static void on_na(struct wren_nd_eth *nd, const uint8_t *iph, const struct icmpv6_msg *m)
{
    const uint8_t *mac = NULL;
    int has = find_lladdr(m, ICMPV6_OPT_TLLAO, &mac);
    bool solicited = (m->nd.flags & ICMPV6_NA_S) != 0;
    bool override = (m->nd.flags & ICMPV6_NA_O) != 0;
    if (has < 0 || wren_ipv6_addr_is_multicast(m->nd.target) ||
        (wren_ipv6_addr_is_multicast(iph + IPV6_OFF_DST) && solicited)) {
        nd->stats.rx_invalid++;
        return;
    }
    nd->stats.rx_na++;
    struct wren_nd_eth_dad *d = dad_find(nd, m->nd.target);
    if (d) {
        dad_duplicate(nd, d); /* RFC 4862 5.4.4 */
        return;
    }
    if (own_state(nd, m->nd.target) == WREN_IPV6_ADDR_VALID) {
        nd->stats.addr_conflict++;
        return;
    }
    struct wren_nd_eth_neighbor *n = nc_find(nd, m->nd.target);
    if (n == NULL) {
        return; /* unsolicited advertisements create nothing */
    }
    if (n->state == WREN_ND_INCOMPLETE) {
        if (has) {
            nc_learn(nd, n, mac, solicited ? WREN_ND_REACHABLE : WREN_ND_STALE);
            rearm(nd);
        }
        return;
    }
    bool same = !has || memcmp(n->mac, mac, 6) == 0;
    if (!override && !same) {
        if (n->state == WREN_ND_REACHABLE) {
            n->state = WREN_ND_STALE; /* 7.2.5: keep the address, doubt it */
        }
        return;
    }
    if (has) {
        memcpy(n->mac, mac, 6);
    }
    if (solicited) {
        n->state = WREN_ND_REACHABLE;
        n->probes = 0;
        n->deadline = wren_node_now(nd->node) + REACHABLE_US;
    } else if (!same) {
        n->state = WREN_ND_STALE;
    }
    rearm(nd);
}

/* A route for the IPv6 layer's FIB: add (or replace) or delete. */
static void route_set(struct wren_nd_eth *nd, const uint8_t *prefix, uint8_t len,
                      const uint8_t *next_hop, bool add)
{
    struct wren_module *ip = ipv6_module(nd);
    struct wren_fib_entry r = {.prefix_len = len, .if_id = nd->if_id};
    if (prefix) {
        memcpy(r.prefix, prefix, 16);
    }
    if (next_hop) {
        memcpy(r.next_hop, next_hop, 16);
    }
    int res = ip ? wren_netapi_set(nd->node, ip,
                                   add ? WREN_NETOPT_IPV6_ROUTE_ADD : WREN_NETOPT_IPV6_ROUTE_DEL, 0,
                                   &r, sizeof(r))
                 : -ENODEV;
    if (add && res < 0) {
        nd->stats.route_failed++;
    }
}

/* RFC 4862 5.5.3: one prefix information option */
static void on_pio(struct wren_nd_eth *nd, const struct icmpv6_opt *o)
{
    struct icmpv6_pio pio;
    if (wren_icmpv6_opt_pio_parse(o, &pio) < 0) {
        nd->stats.pio_ignored++;
        return;
    }
    if (wren_ipv6_addr_is_link_local(pio.prefix)) {
        if (pio.flags & ICMPV6_PIO_A) {
            nd->stats.pio_ignored++;
        }
        return; /* RFC 4861 6.3.4, RFC 4862 5.5.3 b */
    }
    if ((pio.flags & ICMPV6_PIO_L) && pio.prefix_len > 0) {
        /* RFC 4861 6.3.4: on-link while valid */
        route_set(nd, pio.prefix, pio.prefix_len, NULL, pio.valid != 0);
    }
    if (!(pio.flags & ICMPV6_PIO_A)) {
        return;
    }
    if (pio.prefix_len != 64 || pio.valid == 0 || pio.preferred > pio.valid) {
        nd->stats.pio_ignored++; /* our IIDs are 64 bits; 5.5.3 c */
        return;
    }
    uint8_t addr[16];
    memcpy(addr, pio.prefix, 8);
    wren_ipv6_iid_from_l2(addr + 8, nd->mac, 6);
    if (own_state(nd, addr) != WREN_IPV6_ADDR_UNUSED) {
        return; /* already formed (valid or under DAD) */
    }
    if (dad_start(nd, addr, 64) == 0) {
        nd->stats.slaac_added++;
    } else {
        nd->stats.slaac_failed++;
    }
}

/* RFC 4861 6.1.2 and 6.3.4 (hop limit and code checked by the caller) */
static void on_ra(struct wren_nd_eth *nd, const uint8_t *iph, const struct icmpv6_msg *m)
{
    const uint8_t *src = iph + IPV6_OFF_SRC;
    const uint8_t *mac = NULL;
    int has = find_lladdr(m, ICMPV6_OPT_SLLAO, &mac); /* also validates every option */
    if (!wren_ipv6_addr_is_link_local(src) || has < 0) {
        nd->stats.rx_ra_invalid++;
        return;
    }
    nd->stats.rx_ra++;
    nd->ra_seen = true;
    if (nd->rs_deadline) {
        nd->rs_deadline = 0; /* solicited enough */
        rearm(nd);
    }
    if (has) {
        nc_saw(nd, src, mac);
    }
    static const uint8_t any[16];
    if (m->ra.router_lifetime) {
        route_set(nd, any, 0, src, true);
        memcpy(nd->router, src, 16);
    } else if (memcmp(nd->router, src, 16) == 0) {
        route_set(nd, any, 0, NULL, false); /* our default router retires */
        memset(nd->router, 0, 16);
    }
    struct icmpv6_opt_iter it;
    struct icmpv6_opt o;
    wren_icmpv6_opt_iter_init(&it, m->data, m->data_len);
    while (wren_icmpv6_opt_next(&it, &o) > 0) {
        if (o.type == ICMPV6_OPT_PIO) {
            on_pio(nd, &o);
        }
    }
}

static void nd_handle(struct wren_node *node, struct wren_module *self, const struct wren_msg *msg)
{
    struct wren_nd_eth *nd = (struct wren_nd_eth *)self;
    struct wren_snip *pkt = msg->ptr;
    struct wren_snip *ips = pkt ? wren_pkt_search(pkt, WREN_NETTYPE_IPV6) : NULL;
    struct wren_snip *nhs = pkt ? wren_pkt_search(pkt, WREN_NETTYPE_NETIF) : NULL;
    struct icmpv6_msg m;
    if (msg->type == WREN_MSG_RCV && ips && ips->size >= IPV6_HDR_LEN && nhs &&
        wren_netif_hdr_if(nhs) == nd->if_id) {
        /* RFC 4861 7.1: hop limit 255 (never forwarded), code 0 */
        if (ips->data[IPV6_OFF_HOP_LIMIT] != 255 || wren_icmpv6_parse(pkt->data, pkt->size, &m) < 0 ||
            m.code != 0) {
            nd->stats.rx_invalid++;
        } else if (m.type == ICMPV6_ND_NS) {
            on_ns(nd, ips->data, &m);
        } else if (m.type == ICMPV6_ND_NA) {
            on_na(nd, ips->data, &m);
        } else if (m.type == ICMPV6_ND_RA) {
            on_ra(nd, ips->data, &m);
        }
    }
    if (pkt) {
        wren_pktbuf_release(&node->pktbuf, pkt);
    }
}

static int nd_get(struct wren_node *node, struct wren_module *self, uint16_t opt, uint16_t ctx,
                  void *val, size_t max)
{
    (void)node;
    struct wren_nd_eth *nd = (struct wren_nd_eth *)self;
    if (opt == WREN_NETOPT_NIB_L2) {
        if (max < 16 || ctx != nd->if_id) {
            return -EINVAL;
        }
        struct wren_nd_eth_neighbor *n = nc_use(nd, val);
        if (n == NULL) {
            return -ENOENT;
        }
        memcpy(val, n->mac, 6);
        return 6;
    }
    if (opt == WREN_NETOPT_IF_ID) {
        return wren_netopt_put(val, max, &nd->if_id, 1);
    }
    if (opt == WREN_NETOPT_STATS) {
        return wren_netopt_put(val, max, &nd->stats, sizeof(nd->stats));
    }
    return -ENOTSUP;
}

static int nd_set(struct wren_node *node, struct wren_module *self, uint16_t opt, uint16_t ctx,
                  const void *val, size_t len)
{
    (void)node;
    struct wren_nd_eth *nd = (struct wren_nd_eth *)self;
    if (opt != WREN_NETOPT_NIB_HOLD) {
        return -ENOTSUP;
    }
    if (ctx != nd->if_id || len != sizeof(struct wren_nib_hold)) {
        return -EINVAL;
    }
    struct wren_nib_hold h;
    memcpy(&h, val, sizeof(h));
    return hold(nd, &h);
}

static int nd_eth_stack_init(struct wren_node *node, struct wren_module *self, uint8_t if_id)
{
    return wren_nd_eth_init(node, (struct wren_nd_eth *)self, if_id);
}

static const struct wren_counter_set nd_eth_counters =
    WREN_COUNTER_SET("nd", WREN_ND_ETH_COUNTERS, WREN_NETOPT_STATS, uint32_t);

/* in its _shell.c */
extern const struct wren_shell_cmd wren_nd_eth_shell_cmds[];

const struct wren_module_ops wren_nd_eth_module = {
    .name = "nd_eth",
    .handle = nd_handle,
    .get = nd_get,
    .set = nd_set,
    .init = nd_eth_stack_init,
    .size = sizeof(struct wren_nd_eth),
    .link = WREN_NETDEV_TYPE_ETHERNET,
    .per_if = 1,
    .counters = WREN_IF_NAMES(&nd_eth_counters),
    .cmds = WREN_IF_SHELL(wren_nd_eth_shell_cmds),
};

int wren_nd_eth_init(struct wren_node *node, struct wren_nd_eth *nd, uint8_t if_id)
{
    memset(nd, 0, sizeof(*nd));
    nd->module.ops = &wren_nd_eth_module;
    nd->module.prio = WREN_PRIO_NET;
    nd->node = node;
    nd->if_id = if_id;
    wren_timer_init(&nd->timer, nd_tick, nd);
    struct wren_netif *netif = wren_netif_get(node, if_id);
    struct wren_module *ip = ipv6_module(nd);
    if (netif == NULL || ip == NULL ||
        wren_netapi_get(node, &netif->module, WREN_NETOPT_ADDRESS, 0, nd->mac, 6) != 6) {
        return -ENODEV;
    }
    static const uint8_t types[3] = {ICMPV6_ND_RA, ICMPV6_ND_NS, ICMPV6_ND_NA};
    for (unsigned i = 0; i < 3; i++) {
        int res =
            wren_netreg_register(node, WREN_NETTYPE_ICMPV6, types[i], &nd->module, &nd->reg[i]);
        if (res < 0) {
            return res;
        }
    }
    /* RFC 4862 5.4: every address configured so far goes through DAD */
    struct wren_ipv6_addr v[CONFIG_WREN_IPV6_ADDRS];
    if (wren_netapi_get(node, ip, WREN_NETOPT_IPV6_ADDR, if_id, v, sizeof(v)) > 0) {
        for (unsigned i = 0; i < CONFIG_WREN_IPV6_ADDRS; i++) {
            if (v[i].state) {
                dad_start(nd, v[i].addr, v[i].prefix_len);
            }
        }
    }
    return 0;
}

int wren_nd_eth_addr_add(struct wren_nd_eth *nd, const uint8_t *addr, uint8_t prefix_len)
{
    if (wren_ipv6_addr_is_multicast(addr) || wren_ipv6_addr_is_unspecified(addr)) {
        return -EINVAL;
    }
    return dad_start(nd, addr, prefix_len);
}

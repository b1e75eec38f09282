/* 6LoWPAN-ND, the host side and what both sides share: the neighbor cache,
 * sending RS/NS/NA, receiving every ND message (options, RS, RA, NS, NA),
 * the module's GET and tick. What a router sends and answers is in
 * nib_router.c; nib.h describes the behaviour. */
#include "nib/nib.h"
#include "nib/nib_priv.h"

#include <errno.h>
#include <string.h>

#include "core/byteorder.h"
#include "core/config.h"
#include "shell/shell.h"
#include "core/node.h"
#include "icmpv6/icmpv6.h"
#include "ipv6/ipv6.h"
#include "net/netapi.h"
#include "net/netif.h"
#include "net/netopt.h"
#include "net/nettype.h"
#include "rpl/rpl.h"
#include "sixlowpan/sixlowpan.h"
#include "wire/icmpv6.h"
#include "wire/ipv6.h"
#include "wire/rpl.h"

#define MAX_RS 3                /* RFC 4861 10: MAX_RTR_SOLICITATIONS, then RS_MAX_INTERVAL_S */
#define RS_MAX_INTERVAL_S 60    /* RFC 6775 5.3: MAX_RTR_SOLICITATION_INTERVAL */

static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 1 };
static const uint8_t all_routers[16] = { 0xff, 0x02, [15] = 2 };

static uint32_t now_s(const struct wren_nib *nib)
{
    return wren_node_now_s(nib->node);
}

static struct wren_module *layer(struct wren_nib *nib, uint8_t type)
{
    struct wren_netreg_entry *e =
        wren_netreg_lookup(nib->node, type, WREN_NETREG_DEMUX_ALL, NULL);
    return e ? e->module : NULL;
}

/* ---- neighbor cache ------------------------------------------------------ */

static struct wren_nib_neighbor *nc_find(struct wren_nib *nib, const uint8_t *ip)
{
    uint32_t now = now_s(nib);
    for (unsigned i = 0; i < CONFIG_WREN_NIB_NEIGHBORS && wren_nib_nc_made(nib); i++) {
        struct wren_nib_neighbor *n = &nib->nc->e[i];
        if (n->state >= WREN_NIB_ROUTER && n->expires_s <= now) {
            n->state = WREN_NIB_FREE; /* lifetime over */
        }
        if (n->state && memcmp(n->ip, ip, 16) == 0) {
            return n;
        }
    }
    return NULL;
}

/* A RPL 6LR's host route to registered neighbour @p n (RFC 6775 5.4: no
 * prefix is on-link; the registration is what makes a host reachable) */
static void host_route(struct wren_nib *nib, struct wren_nib_neighbor *n, bool add)
{
    struct wren_module *ipm = layer(nib, WREN_NETTYPE_IPV6);
    if (!CONFIG_WREN_IPV6_ROUTER || ipm == NULL || n->routed == add) {
        return;
    }
    struct wren_fib_entry r = { .prefix_len = 128, .if_id = nib->if_id };
    memcpy(r.prefix, n->ip, 16);
    int res = wren_netapi_set(nib->node, ipm,
                              add ? WREN_NETOPT_IPV6_ROUTE_ADD : WREN_NETOPT_IPV6_ROUTE_DEL, 0, &r,
                              sizeof(r));
    n->routed = add && res >= 0;
}

/* A slot for a new entry of @p state: a free one, else (for protected states)
 * or always the least recently used unprotected one. */
static struct wren_nib_neighbor *nc_slot(struct wren_nib *nib)
{
    struct wren_nib_neighbor *lru = NULL;
#if CONFIG_WREN_NODE_MEM
    if (WREN_LAZY_GET(nib->node, nib, nc) == NULL) {
        nib->stats.nc_full++; /* no memory for the cache: as if it were full */
        return NULL;
    }
#endif
    for (unsigned i = 0; i < CONFIG_WREN_NIB_NEIGHBORS; i++) {
        struct wren_nib_neighbor *n = &nib->nc->e[i];
        if (n->state == WREN_NIB_FREE) {
            return n;
        }
        if (n->state < WREN_NIB_ROUTER && (lru == NULL || n->used_s < lru->used_s)) {
            lru = n;
        }
    }
    if (lru == NULL) {
        nib->stats.nc_full++;
        return NULL;
    }
    nib->stats.nc_replaced++;
    host_route(nib, lru, false); /* a deregistered one's, not swept yet */
    return lru;
}

/* Learn @p ip at @p l2 in @p state. A registered entry's link address is
 * the registration's: only a registration (@p state REGISTERED, its EUI-64
 * checked by the caller) changes it, never a solicitation or an
 * advertisement that merely names the address (RFC 6775 6.5.2, RFC 8505). */
static struct wren_nib_neighbor *nc_update(struct wren_nib *nib, const uint8_t *ip,
                                           const uint8_t *l2, uint8_t l2len, uint8_t state)
{
    struct wren_nib_neighbor *n = nc_find(nib, ip);
    if (n && n->state == WREN_NIB_REGISTERED && state != WREN_NIB_REGISTERED) {
        return n;
    }
    if (n == NULL) {
        if ((n = nc_slot(nib)) == NULL) {
            return NULL;
        }
        memset(n, 0, sizeof(*n));
        memcpy(n->ip, ip, 16);
        n->state = state;
    } else if (n->state < state || (n->state < WREN_NIB_ROUTER && state < WREN_NIB_ROUTER)) {
        n->state = state;
    }
    if (l2len && l2len <= 8) {
        memcpy(n->l2, l2, l2len);
        n->l2len = l2len;
    }
    n->used_s = now_s(nib);
    if (state == WREN_NIB_REGISTERED && nib->rpl_6lr) {
        host_route(nib, n, true); /* before the NA that answers the registration */
    }
    return n;
}

/* ---- sending -------------------------------------------------------------- */

static void send_nd(struct wren_nib *nib, const uint8_t *src, const uint8_t *dst, uint8_t *m,
                    size_t len)
{
    /* RFC 4861: every ND message goes out with hop limit 255 */
    wren_icmpv6_send(nib->node, src, dst, 255, nib->if_id, m, len);
}

/* Our SLLAO/TLLAO: the EUI-64, the address our IPv6 addresses are made of
 * and which the interface always accepts, also when its frames leave from
 * the short address (ifconfig IF l2src short) */
static size_t put_sllao(struct wren_nib *nib, uint8_t type, uint8_t *b, size_t room)
{
    int n = wren_icmpv6_opt_lladdr_emit(type, nib->eui64, 8, b, room);
    return n > 0 ? (size_t)n : 0;
}

static bool own_addr(struct wren_nib *nib, uint8_t *out, bool global, uint8_t *state)
{
    struct wren_ipv6_addr a[CONFIG_WREN_IPV6_ADDRS];
    struct wren_module *ip = layer(nib, WREN_NETTYPE_IPV6);
    if (ip == NULL ||
        wren_netapi_get(nib->node, ip, WREN_NETOPT_IPV6_ADDR, nib->if_id, a, sizeof(a)) <= 0) {
        return false;
    }
    for (unsigned i = 0; i < CONFIG_WREN_IPV6_ADDRS; i++) {
        if (a[i].state && wren_ipv6_addr_is_link_local(a[i].addr) != global) {
            memcpy(out, a[i].addr, 16);
            if (state) {
                *state = a[i].state;
            }
            return true;
        }
    }
    return false;
}

/* The state of @p a among the interface's addresses (enum
 * wren_ipv6_addr_state; UNUSED: not ours), asked of the IPv6 layer. */
static uint8_t own_state(struct wren_nib *nib, const uint8_t *a)
{
    struct wren_ipv6_addr v[CONFIG_WREN_IPV6_ADDRS];
    struct wren_module *ip = layer(nib, WREN_NETTYPE_IPV6);
    if (ip == NULL ||
        wren_netapi_get(nib->node, ip, WREN_NETOPT_IPV6_ADDR, nib->if_id, v, sizeof(v)) <= 0) {
        return WREN_IPV6_ADDR_UNUSED;
    }
    for (unsigned i = 0; i < CONFIG_WREN_IPV6_ADDRS; i++) {
        if (v[i].state && memcmp(v[i].addr, a, 16) == 0) {
            return v[i].state;
        }
    }
    return WREN_IPV6_ADDR_UNUSED;
}

void wren_nib_solicit(struct wren_nib *nib)
{
    uint8_t m[WREN_NIB_ND_BUF] = { ICMPV6_ND_RS };
    size_t n = 8 + put_sllao(nib, ICMPV6_OPT_SLLAO, m + 8, sizeof(m) - 8);
    uint8_t ll[16];
    if (!own_addr(nib, ll, false, NULL)) {
        return;
    }
    send_nd(nib, ll, all_routers, m, n);
    nib->stats.tx_rs++;
    nib->rs_sent++;
    nib->next_rs_s =
        now_s(nib) + (nib->rs_sent < MAX_RS ? WREN_NIB_RS_INTERVAL_S : RS_MAX_INTERVAL_S);
}

static void send_na(struct wren_nib *nib, const uint8_t *dst, const uint8_t *target,
                    uint8_t flags, const struct icmpv6_aro *aro)
{
    uint8_t m[WREN_NIB_ND_BUF] = { ICMPV6_ND_NA };
    m[4] = (uint8_t)(flags | (IS_ROUTER(nib) ? ICMPV6_NA_R : 0));
    memcpy(m + 8, target, 16);
    size_t n = 24 + put_sllao(nib, ICMPV6_OPT_TLLAO, m + 24, sizeof(m) - 24);
    if (aro) {
        int k = wren_icmpv6_opt_aro_emit(aro, m + n, sizeof(m) - n);
        n += k > 0 ? (size_t)k : 0;
    }
    send_nd(nib, NULL, dst, m, n);
    nib->stats.tx_na++;
}

/* host: register every global address with the default router (RFC 6775 5.5) */
static void register_addrs(struct wren_nib *nib)
{
    struct wren_nib_neighbor *r = NULL;
    uint32_t now = now_s(nib);
    for (unsigned i = 0; i < CONFIG_WREN_NIB_NEIGHBORS && wren_nib_nc_made(nib); i++) {
        if (nib->nc->e[i].state == WREN_NIB_ROUTER && nib->nc->e[i].expires_s > now) {
            r = &nib->nc->e[i];
        }
    }
    uint8_t addr[16];
    if (r == NULL || !own_addr(nib, addr, true, NULL)) {
        return;
    }
    uint8_t m[WREN_NIB_ND_BUF] = { ICMPV6_ND_NS };
    memcpy(m + 8, addr, 16);
    size_t n = 24 + put_sllao(nib, ICMPV6_OPT_SLLAO, m + 24, sizeof(m) - 24);
    struct icmpv6_aro aro = { .lifetime = CONFIG_WREN_NIB_ARO_LIFETIME_MIN, .rovr = nib->eui64,
                              .rovr_len = 8 };
    int k = wren_icmpv6_opt_aro_emit(&aro, m + n, sizeof(m) - n);
    n += k > 0 ? (size_t)k : 0;
    send_nd(nib, addr, r->ip, m, n);
    nib->stats.tx_ns++;
    nib->next_reg_s = now + 5; /* retry unless the NA comes */
}

/* ---- receiving ------------------------------------------------------------ */

/* An SLLAO or TLLAO (@p opt) into @p ll. One refused for its padding
 * (RFC 4944 8: a one-unit option holds a short address and zeros; lwIP
 * sends a 6-byte MAC in it) is counted, and the frame's link source
 * (@p fsrc) stands in for it. @return whether @p ll holds an address. */
static bool read_lladdr(struct wren_nib *nib, const struct icmpv6_opt *opt,
                        struct icmpv6_lladdr *ll, const uint8_t *fsrc, uint8_t fsrc_len)
{
    int rc = wren_icmpv6_opt_lladdr_parse(opt, 2, ll);
    if (rc == -ICMPV6_ERR_OPT_PADDING) {
        nib->stats.rx_bad_lladdr++;
        if (fsrc && (fsrc_len == 2 || fsrc_len == 8)) {
            ll->addr = fsrc;
            ll->len = fsrc_len;
            return true;
        }
    }
    return rc == 0;
}

static int read_opts(struct wren_nib *nib, const struct icmpv6_msg *m,
                     struct wren_nib_nd_opts *o, const uint8_t *fsrc, uint8_t fsrc_len)
{
    memset(o, 0, sizeof(*o));
    struct icmpv6_opt_iter it;
    struct icmpv6_opt opt;
    int res;
    wren_icmpv6_opt_iter_init(&it, m->data, m->data_len);
    while ((res = wren_icmpv6_opt_next(&it, &opt)) > 0) {
        switch (opt.type) {
        case ICMPV6_OPT_SLLAO:
            o->has_sllao = read_lladdr(nib, &opt, &o->sllao, fsrc, fsrc_len);
            break;
        case ICMPV6_OPT_TLLAO:
            o->has_tllao = read_lladdr(nib, &opt, &o->tllao, fsrc, fsrc_len);
            break;
        case ICMPV6_OPT_ARO:
            o->has_aro = wren_icmpv6_opt_aro_parse(&opt, &o->aro) == 0;
            break;
        case ICMPV6_OPT_ABRO:
            /* kept only to be passed on by a router (a host-only build has none) */
            o->has_abro = CONFIG_WREN_IPV6_ROUTER && m->type == ICMPV6_ND_RA &&
                          wren_icmpv6_opt_abro_parse(&opt, &o->abro) == 0;
            break;
        default:
            break;
        }
    }
    return res;
}

static void on_rs(struct wren_nib *nib, const uint8_t *ip, const struct icmpv6_msg *m,
                  const uint8_t *fsrc, uint8_t fsrc_len)
{
    struct wren_nib_nd_opts o;
    if (read_opts(nib, m, &o, fsrc, fsrc_len) < 0 ||
        (wren_ipv6_addr_is_unspecified(ip + 8) && o.has_sllao)) {
        nib->stats.rx_invalid++;
        return;
    }
    nib->stats.rx_rs++;
    if (IS_ROUTER(nib)) {
        wren_nib_rs_answer(nib, ip + 8, &o); /* nib_router.c */
    }
}

/* RFC 4862 5.5.3: an address from an autoconfiguration prefix (@p pio) and
 * our IID, tentative until registered; kept if it is ours already */
static void ra_take_pio(struct wren_nib *nib, const struct icmpv6_pio *pio)
{
    if (!(pio->flags & ICMPV6_PIO_A) || pio->prefix_len != 64 ||
        wren_ipv6_addr_is_link_local(pio->prefix) || !pio->valid) {
        return;
    }
    struct wren_ipv6_addr a = { .prefix_len = 64, .state = WREN_IPV6_ADDR_TENTATIVE };
    memcpy(a.addr, pio->prefix, 8);
    wren_ipv6_iid_from_l2(a.addr + 8, nib->eui64, 8);
    struct wren_module *ipm = layer(nib, WREN_NETTYPE_IPV6);
    uint8_t cur[16], st = 0;
    bool have = own_addr(nib, cur, true, &st) && memcmp(cur, a.addr, 16) == 0;
    if (ipm && !have) {
        wren_netapi_set(nib->node, ipm, WREN_NETOPT_IPV6_ADDR, nib->if_id, &a, sizeof(a));
    }
}

/* Own contexts (a configured router's) are never taken from others' RAs. */
static uint16_t own_cids(const struct wren_nib *nib)
{
    uint16_t m = 0;
    for (unsigned i = 0; CONFIG_WREN_IPV6_ROUTER && i < CONFIG_WREN_NIB_CONTEXTS; i++) {
        m |= nib->ctxs[i].len ? (uint16_t)(1u << nib->ctxs[i].cid) : 0u;
    }
    return m;
}

/* Take an RA's prefixes (@p pio: hosts only) and contexts (6CO, RFC 6775
 * 5.4.2). @p renew: a new ABRO version, whose RA lists every context: the
 * ones taken from earlier RAs that it no longer carries are withdrawn. */
static void ra_take(struct wren_nib *nib, const struct icmpv6_msg *m, bool pio, bool renew)
{
    struct wren_module *lp = layer(nib, WREN_NETTYPE_SIXLOWPAN);
    uint16_t seen = 0, mine = own_cids(nib);
    struct icmpv6_opt_iter it;
    struct icmpv6_opt opt;
    wren_icmpv6_opt_iter_init(&it, m->data, m->data_len);
    while (wren_icmpv6_opt_next(&it, &opt) > 0) {
        struct icmpv6_pio p;
        struct icmpv6_6co co;
        if (opt.type == ICMPV6_OPT_PIO && pio && wren_icmpv6_opt_pio_parse(&opt, &p) == 0) {
            ra_take_pio(nib, &p);
        } else if (opt.type == ICMPV6_OPT_6CO && lp && wren_icmpv6_opt_6co_parse(&opt, &co) == 0 &&
                   !(mine & (1u << (co.flags & ICMPV6_6CO_CID_MASK)))) {
            uint8_t cid = co.flags & ICMPV6_6CO_CID_MASK;
            struct sixlowpan_ctx c = { .prefix_len = co.ctx_len, .valid = co.lifetime != 0,
                                       .compress = (co.flags & ICMPV6_6CO_C) != 0 };
            memcpy(c.prefix, co.prefix, co.ctx_len > 64 ? 16 : 8);
            wren_netapi_set(nib->node, lp, WREN_NETOPT_SIXLOWPAN_CTX, cid, &c, sizeof(c));
            seen |= (uint16_t)(1u << cid);
        }
    }
    if (!CONFIG_WREN_IPV6_ROUTER) {
        return; /* a host-only build keeps no ABRO, hence no versions */
    }
    uint16_t gone = renew ? (uint16_t)(nib->ra_cids & ~seen) : 0;
    for (uint16_t cid = 0; lp && gone && cid < SIXLOWPAN_CTX_COUNT; cid++) {
        if (gone & (1u << cid)) {
            struct sixlowpan_ctx c = { .valid = false };
            wren_netapi_set(nib->node, lp, WREN_NETOPT_SIXLOWPAN_CTX, cid, &c, sizeof(c));
        }
    }
    nib->ra_cids = renew ? seen : (uint16_t)(nib->ra_cids | seen);
}

/* RFC 6775 8.1: the RA's ABRO against the one kept, for the same 6LBR.
 * @return 1 newer (or the first), -1 older (stale), 0 the same version,
 *         none, or another 6LBR's (versions of two 6LBRs do not compare) */
static int abro_fresh(const struct wren_nib *nib, const struct wren_nib_nd_opts *o)
{
    if (!o->has_abro || wren_ipv6_addr_is_multicast(o->abro.addr) ||
        wren_ipv6_addr_is_unspecified(o->abro.addr)) {
        return 0;
    }
    if (!nib->has_abro) {
        return 1;
    }
    if (memcmp(nib->abro.addr, o->abro.addr, 16) != 0) {
        return 0;
    }
    return o->abro.version > nib->abro.version ? 1 : o->abro.version < nib->abro.version ? -1 : 0;
}

static void abro_keep(struct wren_nib *nib, const struct icmpv6_abro *a)
{
    memcpy(nib->abro.addr, a->addr, 16);
    nib->abro.version = a->version;
    nib->abro.lifetime = a->lifetime;
    nib->has_abro = true;
    /* RFC 6775 4.3: units of 60 s; 0 means the default, 10,000 */
    nib->abro_expires_s = now_s(nib) + (uint32_t)(a->lifetime ? a->lifetime : 10000u) * 60u;
}

/* A host: its default router (RFC 4861 6.3.4) */
static void ra_router(struct wren_nib *nib, const uint8_t *ip, const struct icmpv6_msg *m,
                      const struct wren_nib_nd_opts *o)
{
    uint8_t l2[8];
    uint8_t l2len = o->has_sllao ? o->sllao.len : wren_ipv6_l2_from_iid(ip + 16, l2);
    struct wren_nib_neighbor *r = nc_update(nib, ip + 8, o->has_sllao ? o->sllao.addr : l2, l2len,
                                            m->ra.router_lifetime ? WREN_NIB_ROUTER : WREN_NIB_STALE);
    if (r && m->ra.router_lifetime) {
        r->state = WREN_NIB_ROUTER;
        r->expires_s = now_s(nib) + m->ra.router_lifetime;
        struct wren_fib_entry d = { .prefix_len = 0, .if_id = nib->if_id };
        memcpy(d.next_hop, ip + 8, 16);
        struct wren_module *ipm = layer(nib, WREN_NETTYPE_IPV6);
        if (ipm) {
            wren_netapi_set(nib->node, ipm, WREN_NETOPT_IPV6_ROUTE_ADD, 0, &d, sizeof(d));
        }
    }
}

/* Hosts take an RA's router, prefixes, contexts and ABRO; routers that are
 * not the border router (6LRs) its contexts and ABRO, to pass them on
 * (RFC 6775 8.1); the border router nothing: it is the source. */
static void on_ra(struct wren_nib *nib, const uint8_t *ip, const struct icmpv6_msg *m,
                  const uint8_t *fsrc, uint8_t fsrc_len)
{
    if (!wren_ipv6_addr_is_link_local(ip + 8)) {
        nib->stats.rx_invalid++; /* RFC 4861 6.1.2: RAs come from link-local sources */
        return;
    }
    struct wren_nib_nd_opts o;
    if (IS_ROUTER(nib) && nib->border_router) {
        nib->stats.rx_ra++;
        return;
    }
    if (read_opts(nib, m, &o, fsrc, fsrc_len) < 0) {
        nib->stats.rx_invalid++;
        return;
    }
    nib->stats.rx_ra++;
    /* (a host-only build keeps no ABRO: read_opts leaves has_abro false) */
    int fresh = CONFIG_WREN_IPV6_ROUTER ? abro_fresh(nib, &o) : 0;
    if (!IS_ROUTER(nib)) {
        ra_router(nib, ip, m, &o);
    }
    if (fresh < 0) {
        nib->stats.abro_stale++; /* an older version's prefixes and contexts */
    } else {
        ra_take(nib, m, !IS_ROUTER(nib), fresh > 0 && nib->has_abro);
    }
    if (fresh > 0) {
        nib->stats.abro_learned++;
    }
    if (CONFIG_WREN_IPV6_ROUTER && fresh >= 0 && o.has_abro &&
        (fresh > 0 || !memcmp(nib->abro.addr, o.abro.addr, 16))) {
        abro_keep(nib, &o.abro); /* newer, or the same again: its lifetime runs anew */
    }
    uint8_t g[16], st = 0;
    if (!IS_ROUTER(nib)) {
        nib->next_rs_s = UINT32_MAX; /* solicited enough */
        if (!(own_addr(nib, g, true, &st) && st == WREN_IPV6_ADDR_VALID) &&
            now_s(nib) >= nib->next_reg_s) {
            /* not registered yet, none pending: register (a registered
             * address renews on its own, nib_tick; further RAs, an
             * announcement's, are no reason to) */
            register_addrs(nib);
        }
    }
}

/* RFC 4861 7.2.3: the sender learned (not from the unspecified address),
 * and an answer for any valid address of the interface, link-local or not;
 * RFC 4862 5.4.3: never for a tentative one (on 6LoWPAN links, one not
 * registered yet) */
static void ns_answer(struct wren_nib *nib, const uint8_t *src, const struct icmpv6_msg *m,
                      const struct wren_nib_nd_opts *o)
{
    if (o->has_sllao && !wren_ipv6_addr_is_unspecified(src)) {
        nc_update(nib, src, o->sllao.addr, o->sllao.len, WREN_NIB_STALE);
    }
    if (own_state(nib, m->nd.target) == WREN_IPV6_ADDR_VALID) {
        bool unspec = wren_ipv6_addr_is_unspecified(src);
        send_na(nib, unspec ? all_nodes : src, m->nd.target,
                (uint8_t)(ICMPV6_NA_O | (unspec ? 0 : ICMPV6_NA_S)), NULL);
    }
}

/* RFC 4861 7.1.1 (hop limit and code checked by nib_handle): well-formed
 * options, a target that is not multicast; then a registration (an ARO
 * with an SLLAO from a specified source, routers only: nib_router.c) or an
 * ordinary solicitation */
static void on_ns(struct wren_nib *nib, const uint8_t *ip, const struct icmpv6_msg *m,
                  const uint8_t *fsrc, uint8_t fsrc_len)
{
    struct wren_nib_nd_opts o;
    if (read_opts(nib, m, &o, fsrc, fsrc_len) < 0 || wren_ipv6_addr_is_multicast(m->nd.target)) {
        nib->stats.rx_invalid++;
        return;
    }
    nib->stats.rx_ns++;
    const uint8_t *src = ip + 8;
    if (o.has_aro && IS_ROUTER(nib) && o.has_sllao && !wren_ipv6_addr_is_unspecified(src)) {
        wren_nib_aro_register(nib, src, m, &o, fsrc, fsrc_len);
        return;
    }
    ns_answer(nib, src, m, &o);
}

static void on_na(struct wren_nib *nib, const uint8_t *ip, const struct icmpv6_msg *m,
                  const uint8_t *fsrc, uint8_t fsrc_len)
{
    (void)ip;
    struct wren_nib_nd_opts o;
    if (read_opts(nib, m, &o, fsrc, fsrc_len) < 0 || wren_ipv6_addr_is_multicast(m->nd.target)) {
        nib->stats.rx_invalid++;
        return;
    }
    nib->stats.rx_na++;
    if (o.has_aro && !IS_ROUTER(nib)) {
        if (memcmp(o.aro.rovr, nib->eui64, 8) != 0) {
            /* not an answer to our registration (the router's NA carries the
             * NS's ARO back, EUI-64 and all): another node's, refused, say */
            return;
        }
        uint8_t addr[16];
        struct wren_module *ipm = layer(nib, WREN_NETTYPE_IPV6);
        if (ipm && own_addr(nib, addr, true, NULL) && memcmp(addr, m->nd.target, 16) == 0) {
            if (o.aro.status == ICMPV6_ARO_SUCCESS) {
                struct wren_ipv6_addr a = { .prefix_len = 64, .state = WREN_IPV6_ADDR_VALID };
                memcpy(a.addr, addr, 16);
                wren_netapi_set(nib->node, ipm, WREN_NETOPT_IPV6_ADDR, nib->if_id, &a, sizeof(a));
                nib->next_reg_s = now_s(nib) + (uint32_t)o.aro.lifetime * 45u; /* 3/4 of it */
                nib->stats.reg_ok++;
            } else if (o.aro.status == ICMPV6_ARO_DUPLICATE) {
                wren_netapi_set(nib->node, ipm, WREN_NETOPT_IPV6_ADDR_REMOVE, nib->if_id, addr, 16);
                nib->stats.reg_failed++;
            } else {
                nib->stats.reg_failed++;
            }
        }
        return;
    }
    /* RFC 4861 7.2.5: an advertisement only updates an entry we have; a
     * registered one only its registration does (RFC 6775 6.5.2, RFC 8505) */
    struct wren_nib_neighbor *n = nc_find(nib, m->nd.target);
    if (n && o.has_tllao && n->state != WREN_NIB_REGISTERED) {
        memcpy(n->l2, o.tllao.addr, o.tllao.len);
        n->l2len = o.tllao.len;
        if ((m->nd.flags & ICMPV6_NA_S) && n->state == WREN_NIB_STALE) {
            n->state = WREN_NIB_REACHABLE;
        }
    }
}

static void nib_handle(struct wren_node *node, struct wren_module *self,
                       const struct wren_msg *msg)
{
    struct wren_nib *nib = (struct wren_nib *)self;
    struct wren_snip *pkt = msg->ptr;
    struct wren_snip *ips = pkt ? wren_pkt_search(pkt, WREN_NETTYPE_IPV6) : NULL;
    struct wren_snip *nhs = pkt ? wren_pkt_search(pkt, WREN_NETTYPE_NETIF) : NULL;
    struct icmpv6_msg m;
    if (msg->type == WREN_MSG_RCV && ips && ips->size >= IPV6_HDR_LEN &&
        (!nhs || wren_netif_hdr_if(nhs) == nib->if_id)) {
        /* RFC 4861 6.1 / 7.1: hop limit 255 (never forwarded), code 0 */
        if (ips->data[7] != 255 || wren_icmpv6_parse(pkt->data, pkt->size, &m) < 0 || m.code != 0) {
            nib->stats.rx_invalid++;
        } else {
            /* the frame's link source: stands in for a refused SLLAO/TLLAO */
            const struct wren_netif_hdr *h = nhs ? wren_netif_hdr(nhs) : NULL;
            const uint8_t *fsrc = h ? h->src : NULL;
            uint8_t fsrc_len = h ? h->src_len : 0;
            if (m.type == ICMPV6_ND_RS) {
                on_rs(nib, ips->data, &m, fsrc, fsrc_len);
            } else if (m.type == ICMPV6_ND_RA) {
                on_ra(nib, ips->data, &m, fsrc, fsrc_len);
            } else if (m.type == ICMPV6_ND_NS) {
                on_ns(nib, ips->data, &m, fsrc, fsrc_len);
            } else if (m.type == ICMPV6_ND_NA) {
                on_na(nib, ips->data, &m, fsrc, fsrc_len);
            }
        }
    }
    if (pkt) {
        wren_pktbuf_release(&node->pktbuf, pkt);
    }
}

static int nib_get(struct wren_node *node, struct wren_module *self, uint16_t opt,
                   uint16_t ctx, void *val, size_t max)
{
    (void)node;
    struct wren_nib *nib = (struct wren_nib *)self;
    if (opt == WREN_NETOPT_NIB_L2) {
        if (max < 16 || (ctx && ctx != nib->if_id)) {
            return -EINVAL;
        }
        for (unsigned i = 0; CONFIG_WREN_IPV6_ROUTER && i < CONFIG_WREN_NIB_REFUSALS; i++) {
            struct wren_nib_refusal *r = &nib->refused[i];
            if (r->l2len && memcmp(r->ip, val, 16) == 0) {
                /* a refusal's NA (refuse()): once */
                uint8_t l2len = r->l2len;
                memcpy(val, r->l2, l2len);
                r->l2len = 0;
                return l2len;
            }
        }
        struct wren_nib_neighbor *n = nc_find(nib, val);
        if (n == NULL || n->l2len == 0) {
            return -ENOENT;
        }
        n->used_s = now_s(nib);
        memcpy(val, n->l2, n->l2len);
        return n->l2len;
    }
    if (opt == WREN_NETOPT_IF_ID) {
        return wren_netopt_put(val, max, &nib->if_id, 1);
    }
    if (CONFIG_WREN_IPV6_ROUTER && opt == WREN_NETOPT_NIB_ABRO) {
        /* a border router's own (its other links' routers relay it), else
         * the one learned from RAs */
        struct wren_nib_abro a;
        if (nib->border_router) {
            return wren_nib_ra_abro(nib, &a) ? wren_netopt_put(val, max, &a, sizeof(a)) : -ENOENT;
        }
        return nib->has_abro ? wren_netopt_put(val, max, &nib->abro, sizeof(nib->abro))
                             : -ENOENT;
    }
    if (opt == WREN_NETOPT_STATS) {
        return wren_netopt_put(val, max, &nib->stats, sizeof(nib->stats));
    }
    return -ENOTSUP;
}

static int nib_stack_init(struct wren_node *node, struct wren_module *self, uint8_t if_id)
{
    return wren_nib_init(node, (struct wren_nib *)self, if_id);
}

static const struct wren_counter_set nib_counters =
    WREN_COUNTER_SET("nib", WREN_NIB_COUNTERS, WREN_NETOPT_STATS, uint32_t);

/* in its _shell.c */
extern const struct wren_shell_cmd wren_nib_shell_cmds[];

const struct wren_module_ops wren_nib_module = {
    .name = "nib",
    .handle = nib_handle,
    .get = nib_get,
    .init = nib_stack_init,
    .size = sizeof(struct wren_nib),
    .link = WREN_NETDEV_TYPE_IEEE802154,
    .per_if = 1,
    .counters = WREN_IF_NAMES(&nib_counters),
    .cmds = WREN_IF_SHELL(wren_nib_shell_cmds),
};

/* ---- for the router side, nib_router.c and nib_6lr.c (nib_priv.h) ----------------------- */

struct wren_module *wren_nib_layer(struct wren_nib *nib, uint8_t type)
{
    return layer(nib, type);
}

bool wren_nib_own_addr(struct wren_nib *nib, uint8_t *out, bool global, uint8_t *state)
{
    return own_addr(nib, out, global, state);
}

/* (The router side's only: a host build, CONFIG_WREN_IPV6_ROUTER=0, leaves
 * these calls out, so that nib.c's own use of each stays its only one and
 * is inlined as before the router side had a file of its own.) */

uint8_t wren_nib_own_state(struct wren_nib *nib, const uint8_t *a)
{
    return CONFIG_WREN_IPV6_ROUTER ? own_state(nib, a) : WREN_IPV6_ADDR_UNUSED;
}

struct wren_nib_neighbor *wren_nib_nc_find(struct wren_nib *nib, const uint8_t *ip)
{
    return CONFIG_WREN_IPV6_ROUTER ? nc_find(nib, ip) : NULL;
}

struct wren_nib_neighbor *wren_nib_nc_update(struct wren_nib *nib, const uint8_t *ip,
                                             const uint8_t *l2, uint8_t l2len, uint8_t state)
{
    return CONFIG_WREN_IPV6_ROUTER ? nc_update(nib, ip, l2, l2len, state) : NULL;
}

size_t wren_nib_put_sllao(struct wren_nib *nib, uint8_t type, uint8_t *b, size_t room)
{
    return CONFIG_WREN_IPV6_ROUTER ? put_sllao(nib, type, b, room) : 0;
}

void wren_nib_send_nd(struct wren_nib *nib, const uint8_t *src, const uint8_t *dst, uint8_t *m,
                      size_t len)
{
    if (CONFIG_WREN_IPV6_ROUTER) {
        send_nd(nib, src, dst, m, len);
    }
}

void wren_nib_send_na(struct wren_nib *nib, const uint8_t *dst, const uint8_t *target,
                      uint8_t flags, const struct icmpv6_aro *aro)
{
    if (CONFIG_WREN_IPV6_ROUTER) {
        send_na(nib, dst, target, flags, aro);
    }
}

void wren_nib_host_route(struct wren_nib *nib, struct wren_nib_neighbor *n, bool add)
{
    host_route(nib, n, add);
}

static void nib_tick(struct wren_timer *t, void *arg)
{
    (void)t;
    struct wren_nib *nib = arg;
    uint32_t now = now_s(nib);
    if (CONFIG_WREN_IPV6_ROUTER) {
        if (nib->has_abro && now >= nib->abro_expires_s) {
            nib->has_abro = false; /* its valid lifetime is over (RFC 6775 4.3) */
        }
        wren_nib_6lr_tick(nib, now); /* nib_6lr.c */
    }
    if (!IS_ROUTER(nib) && nib->rs_sent && now >= nib->next_rs_s) {
        wren_nib_solicit(nib);
    }
    if (!IS_ROUTER(nib) && nib->next_reg_s && now >= nib->next_reg_s) {
        register_addrs(nib);
    }
}

int wren_nib_init(struct wren_node *node, struct wren_nib *nib, uint8_t if_id)
{
    memset(nib, 0, sizeof(*nib));
    nib->module.ops = &wren_nib_module;
    nib->module.prio = WREN_PRIO_NET;
    nib->node = node;
    nib->if_id = if_id;
    struct wren_netif *netif = wren_netif_get(node, if_id);
    if (netif == NULL) {
        return -ENODEV;
    }
    wren_netapi_get(node, &netif->module, WREN_NETOPT_ADDRESS_LONG, 0, nib->eui64, 8);
    static const uint8_t types[4] = { ICMPV6_ND_RS, ICMPV6_ND_RA, ICMPV6_ND_NS, ICMPV6_ND_NA };
    for (unsigned i = 0; i < 4; i++) {
        int res = wren_netreg_register(node, WREN_NETTYPE_ICMPV6, types[i], &nib->module,
                                       &nib->reg[i]);
        if (res < 0) {
            return res;
        }
    }
    wren_timer_init(&nib->timer, nib_tick, nib);
    wren_timer_set_periodic(node, &nib->timer, 1000000);
    return 0;
}

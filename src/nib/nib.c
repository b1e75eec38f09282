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

#define RS_INTERVAL_S 4         /* RFC 4861 10: RTR_SOLICITATION_INTERVAL */
#define MAX_RS 3                /* MAX_RTR_SOLICITATIONS, then every RS_MAX_INTERVAL_S */
#define RS_MAX_INTERVAL_S 60    /* RFC 6775 5.3: MAX_RTR_SOLICITATION_INTERVAL */
#define ND_BUF 200
/* A node built without router features (CONFIG_WREN_IPV6_ROUTER=0) is a
 * host: advertising and answering registrations are left out */
#define IS_ROUTER(nib) (CONFIG_WREN_IPV6_ROUTER && (nib)->router)

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
    for (unsigned i = 0; i < CONFIG_WREN_NIB_NEIGHBORS; i++) {
        struct wren_nib_neighbor *n = &nib->nc[i];
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
    for (unsigned i = 0; i < CONFIG_WREN_NIB_NEIGHBORS; i++) {
        struct wren_nib_neighbor *n = &nib->nc[i];
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
    uint8_t m[ND_BUF] = { ICMPV6_ND_RS };
    size_t n = 8 + put_sllao(nib, ICMPV6_OPT_SLLAO, m + 8, sizeof(m) - 8);
    uint8_t ll[16];
    if (!own_addr(nib, ll, false, NULL)) {
        return;
    }
    send_nd(nib, ll, all_routers, m, n);
    nib->stats.tx_rs++;
    nib->rs_sent++;
    nib->next_rs_s = now_s(nib) + (nib->rs_sent < MAX_RS ? RS_INTERVAL_S : RS_MAX_INTERVAL_S);
}

/* The ABRO this node knows: learned by this NIB, else by another NIB of the
 * node (on the interface towards the border router), asked through netreg. */
static bool learned_abro(struct wren_nib *nib, struct wren_nib_abro *out)
{
    if (nib->has_abro) {
        *out = nib->abro;
        return true;
    }
    struct wren_netreg_entry *e = NULL;
    while ((e = wren_netreg_lookup(nib->node, WREN_NETTYPE_ICMPV6, ICMPV6_ND_RA, e))) {
        if (e->module != &nib->module &&
            wren_netapi_get(nib->node, e->module, WREN_NETOPT_NIB_ABRO, 0, out, sizeof(*out)) ==
                (int)sizeof(*out)) {
            return true;
        }
    }
    return false;
}

/* The ABRO this router's RAs carry: its own as the border router, else
 * the one the node learned */
static bool ra_abro(struct wren_nib *nib, struct wren_nib_abro *a)
{
    if (nib->border_router) {
        a->version = nib->abro_version;
        a->lifetime = 0;
        return own_addr(nib, a->addr, true, NULL);
    }
    return learned_abro(nib, a);
}

static void send_ra(struct wren_nib *nib, const uint8_t *dst)
{
    uint8_t m[ND_BUF] = { ICMPV6_ND_RA };
    m[4] = WREN_IPV6_DEFAULT_HOP_LIMIT;
    put_be16(m + 6, 1800); /* router lifetime, s */
    size_t n = 16;
    for (unsigned i = 0; i < CONFIG_WREN_NIB_PREFIXES; i++) {
        const struct wren_nib_prefix *p = &nib->prefixes[i];
        if (p->len && p->own) {
            /* RFC 6775 5.4: prefixes are not on-link on a route-over 6LoWPAN */
            struct icmpv6_pio pio = { .prefix_len = p->len, .flags = ICMPV6_PIO_A,
                                      .valid = 86400, .preferred = 14400, .prefix = p->prefix };
            int k = wren_icmpv6_opt_pio_emit(&pio, m + n, sizeof(m) - n);
            n += k > 0 ? (size_t)k : 0;
        }
    }
    if (nib->rpl_6lr) {
        /* a RPL 6LR: the DODAG's prefix (RFC 9010: hosts that run no RPL
         * learn it from their router's RA) */
        uint8_t pfx[16] = { 0 };
        memcpy(pfx, nib->dodag_prefix, 8);
        struct icmpv6_pio pio = { .prefix_len = 64, .flags = ICMPV6_PIO_A,
                                  .valid = 86400, .preferred = 14400, .prefix = pfx };
        int k = wren_icmpv6_opt_pio_emit(&pio, m + n, sizeof(m) - n);
        n += k > 0 ? (size_t)k : 0;
    }
    uint16_t own_cids = 0;
    for (unsigned i = 0; i < CONFIG_WREN_NIB_CONTEXTS; i++) {
        const struct wren_nib_ctx *c = &nib->ctxs[i];
        if (c->len) {
            struct icmpv6_6co co = { .ctx_len = c->len, .flags = (uint8_t)(ICMPV6_6CO_C | c->cid),
                                     .lifetime = 60, .prefix = c->prefix };
            int k = wren_icmpv6_opt_6co_emit(&co, m + n, sizeof(m) - n);
            n += k > 0 ? (size_t)k : 0;
            own_cids |= (uint16_t)(1u << c->cid);
        }
    }
    /* RFC 6775 7.2: a router relays the contexts it learned (on another
     * interface) from the border router, so the whole LoWPAN shares them */
    struct wren_module *lp = layer(nib, WREN_NETTYPE_SIXLOWPAN);
    for (uint16_t cid = 0; lp && cid < SIXLOWPAN_CTX_COUNT; cid++) {
        struct sixlowpan_ctx c;
        if (!(own_cids & (1u << cid)) &&
            wren_netapi_get(nib->node, lp, WREN_NETOPT_SIXLOWPAN_CTX, cid, &c, sizeof(c)) ==
                (int)sizeof(c) &&
            c.valid) {
            struct icmpv6_6co co = { .ctx_len = c.prefix_len,
                                     .flags = (uint8_t)((c.compress ? ICMPV6_6CO_C : 0) | cid),
                                     .lifetime = 60, .prefix = c.prefix };
            int k = wren_icmpv6_opt_6co_emit(&co, m + n, sizeof(m) - n);
            n += k > 0 ? (size_t)k : 0;
        }
    }
    uint8_t gaddr[16];
    struct wren_nib_abro learned;
    if (nib->border_router && own_addr(nib, gaddr, true, NULL)) {
        /* RFC 6775 4.3: the authoritative border router and its version */
        struct icmpv6_abro abro = { .version = nib->abro_version, .lifetime = 0, .addr = gaddr };
        int k = wren_icmpv6_opt_abro_emit(&abro, m + n, sizeof(m) - n);
        n += k > 0 ? (size_t)k : 0;
    } else if (!nib->border_router && learned_abro(nib, &learned)) {
        /* RFC 6775 8.1.3: a 6LR passes the 6LBR it learned on in every RA */
        struct icmpv6_abro abro = { .version = learned.version, .lifetime = learned.lifetime,
                                    .addr = learned.addr };
        int k = wren_icmpv6_opt_abro_emit(&abro, m + n, sizeof(m) - n);
        n += k > 0 ? (size_t)k : 0;
    }
    n += put_sllao(nib, ICMPV6_OPT_SLLAO, m + n, sizeof(m) - n);
    uint8_t ll[16];
    if (own_addr(nib, ll, false, NULL)) {
        send_nd(nib, ll, dst, m, n);
        nib->stats.tx_ra++;
    }
}

static void send_na(struct wren_nib *nib, const uint8_t *dst, const uint8_t *target,
                    uint8_t flags, const struct icmpv6_aro *aro)
{
    uint8_t m[ND_BUF] = { ICMPV6_ND_NA };
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
    for (unsigned i = 0; i < CONFIG_WREN_NIB_NEIGHBORS; i++) {
        if (nib->nc[i].state == WREN_NIB_ROUTER && nib->nc[i].expires_s > now) {
            r = &nib->nc[i];
        }
    }
    uint8_t addr[16];
    if (r == NULL || !own_addr(nib, addr, true, NULL)) {
        return;
    }
    uint8_t m[ND_BUF] = { ICMPV6_ND_NS };
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

struct nd_opts {
    struct icmpv6_lladdr sllao, tllao;
    struct icmpv6_aro aro;
    struct icmpv6_abro abro;
    bool has_sllao, has_tllao, has_aro, has_abro;
};

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

static int read_opts(struct wren_nib *nib, const struct icmpv6_msg *m, struct nd_opts *o,
                     const uint8_t *fsrc, uint8_t fsrc_len)
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
    struct nd_opts o;
    if (read_opts(nib, m, &o, fsrc, fsrc_len) < 0 ||
        (wren_ipv6_addr_is_unspecified(ip + 8) && o.has_sllao)) {
        nib->stats.rx_invalid++;
        return;
    }
    nib->stats.rx_rs++;
    if (!IS_ROUTER(nib)) {
        return;
    }
    if (o.has_sllao) {
        nc_update(nib, ip + 8, o.sllao.addr, o.sllao.len, WREN_NIB_STALE);
    }
    send_ra(nib, wren_ipv6_addr_is_unspecified(ip + 8) ? all_nodes : ip + 8);
    struct wren_nib_abro a;
    if (nib->rpl_6lr && !learned_abro(nib, &a) && now_s(nib) >= nib->next_upstream_rs_s) {
        /* a RPL 6LR without the 6LBR's ABRO asks the routers around it
         * (its parents among them); the news is announced when it comes */
        nib->next_upstream_rs_s = now_s(nib) + RS_INTERVAL_S;
        wren_nib_solicit(nib);
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
static int abro_fresh(const struct wren_nib *nib, const struct nd_opts *o)
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
                      const struct nd_opts *o)
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
    struct nd_opts o;
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

_Static_assert(CONFIG_WREN_NIB_REFUSALS >= 1 && CONFIG_WREN_NIB_REFUSALS <= 255,
               "refused[] is indexed by a uint8_t and never empty");

static bool same_l2(const uint8_t *a, uint8_t alen, const uint8_t *b, uint8_t blen)
{
    return alen == blen && memcmp(a, b, alen) == 0;
}

/* RFC 6775 6.5.2: refuse a registration (status @p a->status). The NA goes
 * to the link-local address formed from the EUI-64 in the ARO, the
 * claimant's: the NS's source is the contested address, which resolves to
 * its registered owner, who would take "duplicate" for its own address.
 * Its link destination is the claimant's too, the SLLAO, kept here until
 * the IPv6 layer asks for it (nib_get), so that neither the neighbor cache
 * nor the EUI-64 (a forged one can name anyone's link-local address)
 * decides it. An SLLAO naming the registered @p owner's link address gives
 * way to the frame's source @p fsrc; failing that, no NA: a refusal never
 * goes to the owner. */
static void refuse(struct wren_nib *nib, const struct nd_opts *o, const uint8_t *target,
                   const struct icmpv6_aro *a, const struct wren_nib_neighbor *owner,
                   const uint8_t *fsrc, uint8_t fsrc_len)
{
    const uint8_t *l2 = o->sllao.addr;
    uint8_t l2len = o->sllao.len;
    if (owner && same_l2(l2, l2len, owner->l2, owner->l2len)) {
        l2 = fsrc;
        l2len = fsrc_len;
        if (l2len == 0 || l2len > 8 || same_l2(l2, l2len, owner->l2, owner->l2len)) {
            return;
        }
    }
    unsigned i = 0;
    while (i < CONFIG_WREN_NIB_REFUSALS && nib->refused[i].l2len) {
        i++;
    }
    if (i == CONFIG_WREN_NIB_REFUSALS) { /* all pending: the oldest gives way */
        i = nib->refused_next;
        nib->refused_next = (uint8_t)((i + 1) % CONFIG_WREN_NIB_REFUSALS);
    }
    struct wren_nib_refusal *r = &nib->refused[i];
    memset(r->ip, 0, 16);
    r->ip[0] = 0xfe;
    r->ip[1] = 0x80;
    wren_ipv6_iid_from_l2(r->ip + 8, o->aro.rovr, 8);
    memcpy(r->l2, l2, l2len);
    r->l2len = l2len;
    send_na(nib, r->ip, target, ICMPV6_NA_S, a);
}

/* RFC 9010: a registration accepted (lifetime 0: withdrawn) goes to the
 * RPL modules of the node (netreg (ICMPv6, 155)), which announce the
 * address of a RPL-unaware leaf in their DAOs */
static void tell_rpl(struct wren_nib *nib, const uint8_t *addr, uint32_t lifetime_s,
                     uint8_t aro_flags)
{
    uint8_t f = (uint8_t)(((aro_flags & ICMPV6_ARO_T) ? WREN_RPL_REG_EARO : 0) |
                          ((aro_flags & ICMPV6_ARO_R) ? WREN_RPL_REG_R : 0));
    struct wren_rpl_reg r = { .lifetime_s = lifetime_s, .if_id = nib->if_id, .flags = f };
    memcpy(r.addr, addr, 16);
    struct wren_netreg_entry *e = NULL;
    while ((e = wren_netreg_lookup(nib->node, WREN_NETTYPE_ICMPV6, ICMPV6_RPL, e))) {
        wren_netapi_set(nib->node, e->module, WREN_NETOPT_RPL_REGISTERED, 0, &r, sizeof(r));
    }
}

static void on_ns(struct wren_nib *nib, const uint8_t *ip, const struct icmpv6_msg *m,
                  const uint8_t *fsrc, uint8_t fsrc_len)
{
    struct nd_opts o;
    if (read_opts(nib, m, &o, fsrc, fsrc_len) < 0 || wren_ipv6_addr_is_multicast(m->nd.target)) {
        nib->stats.rx_invalid++;
        return;
    }
    nib->stats.rx_ns++;
    const uint8_t *src = ip + 8;
    if (o.has_aro && IS_ROUTER(nib) && o.has_sllao && !wren_ipv6_addr_is_unspecified(src)) {
        /* a registration. The address registered: RFC 8505 5.5, the target
         * (an EARO says so with its T flag); RFC 6775 5.5.1 / 6.5, the NS's
         * source (RIOT's hosts put the router's address in the target).
         * Hosts that send both the same (ours) are read alike either way. */
        const uint8_t *reg = (o.aro.flags & ICMPV6_ARO_T) ? m->nd.target : src;
        if (wren_ipv6_addr_is_multicast(reg) ||
            own_state(nib, reg) != WREN_IPV6_ADDR_UNUSED) {
            nib->stats.rx_invalid++; /* nobody registers the router's own addresses */
            return;
        }
        nib->stats.aro_rx_6775 += reg == src && memcmp(src, m->nd.target, 16) != 0;
        nib->stats.aro_rx_8505 += reg != src;
        struct icmpv6_aro a = { .lifetime = o.aro.lifetime, .rovr = o.aro.rovr, .rovr_len = 8 };
        struct wren_nib_neighbor *n = nc_find(nib, reg);
        if (n && n->state == WREN_NIB_REGISTERED && memcmp(n->eui64, o.aro.rovr, 8) != 0) {
            /* RFC 6775 6.5.1: another owner's; the registration stands */
            a.status = ICMPV6_ARO_DUPLICATE;
            nib->stats.aro_dup++;
            refuse(nib, &o, m->nd.target, &a, n, fsrc, fsrc_len);
        } else if ((n = nc_update(nib, reg, o.sllao.addr, o.sllao.len,
                                  WREN_NIB_REGISTERED)) == NULL) {
            a.status = 2; /* neighbor cache full */
            nib->stats.aro_full++;
            refuse(nib, &o, m->nd.target, &a, NULL, fsrc, fsrc_len);
        } else {
            n->state = o.aro.lifetime ? WREN_NIB_REGISTERED : WREN_NIB_STALE;
            memcpy(n->eui64, o.aro.rovr, 8);
            n->expires_s = now_s(nib) + (uint32_t)o.aro.lifetime * 60u;
            nib->stats.aro_ok++;
            send_na(nib, src, m->nd.target, ICMPV6_NA_S, &a);
            tell_rpl(nib, reg, (uint32_t)o.aro.lifetime * 60u, o.aro.flags);
        }
        return;
    }
    if (o.has_sllao && !wren_ipv6_addr_is_unspecified(src)) {
        nc_update(nib, src, o.sllao.addr, o.sllao.len, WREN_NIB_STALE);
    }
    /* RFC 4861 7.2.3: answer for any valid address of the interface, link-local
     * or not; RFC 4862 5.4.3: never for a tentative one (on 6LoWPAN links, one
     * not registered yet) */
    if (own_state(nib, m->nd.target) == WREN_IPV6_ADDR_VALID) {
        send_na(nib, wren_ipv6_addr_is_unspecified(src) ? all_nodes : src, m->nd.target,
                (uint8_t)(ICMPV6_NA_O | (wren_ipv6_addr_is_unspecified(src) ? 0 : ICMPV6_NA_S)), NULL);
    }
}

static void on_na(struct wren_nib *nib, const uint8_t *ip, const struct icmpv6_msg *m,
                  const uint8_t *fsrc, uint8_t fsrc_len)
{
    (void)ip;
    struct nd_opts o;
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
            return ra_abro(nib, &a) ? wren_netopt_put(val, max, &a, sizeof(a)) : -ENOENT;
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

/* ---- for the router side in nib_6lr.c (nib_priv.h) ----------------------- */

struct wren_module *wren_nib_layer(struct wren_nib *nib, uint8_t type)
{
    return layer(nib, type);
}

bool wren_nib_own_addr(struct wren_nib *nib, uint8_t *out, bool global, uint8_t *state)
{
    return own_addr(nib, out, global, state);
}

bool wren_nib_ra_abro(struct wren_nib *nib, struct wren_nib_abro *a)
{
    return ra_abro(nib, a);
}

void wren_nib_send_ra(struct wren_nib *nib, const uint8_t *dst)
{
    send_ra(nib, dst);
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

int wren_nib_border_router(struct wren_nib *nib, uint32_t version)
{
    if (!nib->router || nib->rpl_6lr) {
        return -EINVAL; /* the authority of a prefix of its own only */
    }
    nib->border_router = true;
    nib->abro_version = version;
    return 0;
}

int wren_nib_abro_version(struct wren_nib *nib, uint32_t version)
{
    if (!nib->border_router) {
        return -EINVAL;
    }
    if (version <= nib->abro_version) {
        return -ERANGE; /* 6LRs and hosts keep the higher version */
    }
    nib->abro_version = version; /* announced at the next tick (ra_announce) */
    return 0;
}

int wren_nib_prefix_add(struct wren_nib *nib, const uint8_t *prefix, uint8_t len, uint8_t cid)
{
    if (!CONFIG_WREN_IPV6_ROUTER) {
        return -ENOTSUP; /* a host's build */
    }
    if (len == 0 || len > 64) {
        return -EINVAL;
    }
    struct wren_nib_prefix *p = NULL;
    for (unsigned i = 0; p == NULL && i < CONFIG_WREN_NIB_PREFIXES; i++) {
        p = nib->prefixes[i].len == 0 ? &nib->prefixes[i] : NULL;
    }
    if (p == NULL) {
        return -ENOSPC;
    }
    memset(p->prefix, 0, 16);
    memcpy(p->prefix, prefix, (len + 7) / 8);
    p->len = len;
    p->own = true;
    nib->router = true;
    nib->rpl_6lr = false; /* its own prefixes now, not RPL's */
    struct wren_module *ipm = layer(nib, WREN_NETTYPE_IPV6);
    if (ipm == NULL) {
        return -ENODEV;
    }
    uint8_t fwd = 1;
    wren_netapi_set(nib->node, ipm, WREN_NETOPT_IPV6_FORWARDING, 0, &fwd, 1);
    /* routers listen to all-routers, where hosts solicit */
    wren_netapi_set(nib->node, ipm, WREN_NETOPT_IPV6_GROUP_JOIN, nib->if_id, all_routers, 16);
    struct wren_ipv6_addr a = { .prefix_len = len, .state = WREN_IPV6_ADDR_VALID };
    memcpy(a.addr, p->prefix, 8);
    wren_ipv6_iid_from_l2(a.addr + 8, nib->eui64, 8);
    wren_netapi_set(nib->node, ipm, WREN_NETOPT_IPV6_ADDR, nib->if_id, &a, sizeof(a));
    struct wren_fib_entry r = { .prefix_len = len, .if_id = nib->if_id };
    memcpy(r.prefix, p->prefix, 16);
    wren_netapi_set(nib->node, ipm, WREN_NETOPT_IPV6_ROUTE_ADD, 0, &r, sizeof(r));
    if (cid < SIXLOWPAN_CTX_COUNT) {
        for (unsigned i = 0; i < CONFIG_WREN_NIB_CONTEXTS; i++) {
            struct wren_nib_ctx *c = &nib->ctxs[i];
            if (c->len == 0) {
                memcpy(c->prefix, p->prefix, 16);
                c->len = len;
                c->cid = cid;
                struct sixlowpan_ctx sc = { .prefix_len = len, .valid = true, .compress = true };
                memcpy(sc.prefix, p->prefix, 16);
                struct wren_module *lp = layer(nib, WREN_NETTYPE_SIXLOWPAN);
                if (lp) {
                    wren_netapi_set(nib->node, lp, WREN_NETOPT_SIXLOWPAN_CTX, cid, &sc, sizeof(sc));
                }
                break;
            }
        }
    }
    return 0;
}

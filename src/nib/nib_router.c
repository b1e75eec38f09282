/* The router side of 6LoWPAN-ND: what a router sends and answers, and how
 * it is configured. RAs and their options in the order RFC 4861 4.2 and
 * RFC 6775 4 list them (PIO, 6CO, ABRO, SLLAO); the answer to an RS; address
 * registrations (RFC 6775 6.5, RFC 8505), accepted or refused; a router's
 * own prefixes and, as the border router, its ABRO. A host-only build
 * (CONFIG_WREN_IPV6_ROUTER=0) calls none of it. nib.h describes the
 * behaviour; nib_priv.h what this file shares with nib.c. */
#include <errno.h>
#include <string.h>

#include "core/byteorder.h"
#include "core/config.h"
#include "core/node.h"
#include "ipv6/ipv6.h"
#include "net/netapi.h"
#include "net/netopt.h"
#include "net/nettype.h"
#include "nib/nib.h"
#include "nib/nib_priv.h"
#include "rpl/rpl.h"
#include "sixlowpan/sixlowpan.h"
#include "wire/icmpv6.h"
#include "wire/ipv6.h"
#include "wire/rpl.h"

static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 1 };
static const uint8_t all_routers[16] = { 0xff, 0x02, [15] = 2 };

/* ---- the ABRO -------------------------------------------------------------- */

/* The ABRO this node knows: learned by this NIB, else by another NIB of the
 * node (on the interface towards the border router), asked through netreg. */
bool wren_nib_learned_abro(struct wren_nib *nib, struct wren_nib_abro *out)
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
bool wren_nib_ra_abro(struct wren_nib *nib, struct wren_nib_abro *a)
{
    if (nib->border_router) {
        a->version = nib->abro_version;
        a->lifetime = 0;
        return wren_nib_own_addr(nib, a->addr, true, NULL);
    }
    return wren_nib_learned_abro(nib, a);
}

/* ---- router advertisements ------------------------------------------------- */

/* Each RA option below is written at @p n of the message @p m
 * (WREN_NIB_ND_BUF bytes); each returns where the next one goes. One that
 * does not fit is left out. */

static size_t ra_put(size_t n, int k)
{
    return n + (k > 0 ? (size_t)k : 0);
}

/* PIO (RFC 4861 4.6.2) for a /@p len: autonomous (SLAAC), never on-link on
 * a route-over 6LoWPAN (RFC 6775 5.4) */
static size_t ra_pio(uint8_t *m, size_t n, const uint8_t *prefix, uint8_t len)
{
    struct icmpv6_pio pio = { .prefix_len = len, .flags = ICMPV6_PIO_A,
                              .valid = 86400, .preferred = 14400, .prefix = prefix };
    return ra_put(n, wren_icmpv6_opt_pio_emit(&pio, m + n, WREN_NIB_ND_BUF - n));
}

/* PIOs: the router's own prefixes, and a RPL 6LR's DODAG prefix (RFC 9010:
 * hosts that run no RPL learn it from their router's RA) */
static size_t ra_prefixes(struct wren_nib *nib, uint8_t *m, size_t n)
{
    for (unsigned i = 0; i < CONFIG_WREN_NIB_PREFIXES; i++) {
        const struct wren_nib_prefix *p = &nib->prefixes[i];
        if (p->len && p->own) {
            n = ra_pio(m, n, p->prefix, p->len);
        }
    }
    if (nib->rpl_6lr) {
        uint8_t pfx[16] = { 0 };
        memcpy(pfx, nib->dodag_prefix, 8);
        n = ra_pio(m, n, pfx, 64);
    }
    return n;
}

/* 6CO (RFC 6775 4.2): a context, its CID and C flag in @p flags */
static size_t ra_6co(uint8_t *m, size_t n, const uint8_t *prefix, uint8_t len, uint8_t flags)
{
    struct icmpv6_6co co = { .ctx_len = len, .flags = flags, .lifetime = 60, .prefix = prefix };
    return ra_put(n, wren_icmpv6_opt_6co_emit(&co, m + n, WREN_NIB_ND_BUF - n));
}

/* 6COs: the router's own contexts, then (RFC 6775 7.2) those the node
 * learned on another interface from the border router, so that the whole
 * LoWPAN shares them */
static size_t ra_contexts(struct wren_nib *nib, uint8_t *m, size_t n)
{
    uint16_t own_cids = 0;
    for (unsigned i = 0; i < CONFIG_WREN_NIB_CONTEXTS; i++) {
        const struct wren_nib_ctx *c = &nib->ctxs[i];
        if (c->len) {
            n = ra_6co(m, n, c->prefix, c->len, (uint8_t)(ICMPV6_6CO_C | c->cid));
            own_cids |= (uint16_t)(1u << c->cid);
        }
    }
    struct wren_module *lp = wren_nib_layer(nib, WREN_NETTYPE_SIXLOWPAN);
    for (uint16_t cid = 0; lp && cid < SIXLOWPAN_CTX_COUNT; cid++) {
        struct sixlowpan_ctx c;
        if (!(own_cids & (1u << cid)) &&
            wren_netapi_get(nib->node, lp, WREN_NETOPT_SIXLOWPAN_CTX, cid, &c, sizeof(c)) ==
                (int)sizeof(c) &&
            c.valid) {
            n = ra_6co(m, n, c.prefix, c.prefix_len,
                       (uint8_t)((c.compress ? ICMPV6_6CO_C : 0) | cid));
        }
    }
    return n;
}

/* ABRO (RFC 6775 4.3): the authoritative border router's own and its
 * version; a 6LR passes the 6LBR it learned on in every RA (8.1.3) */
static size_t ra_abro_opt(struct wren_nib *nib, uint8_t *m, size_t n)
{
    uint8_t gaddr[16];
    struct wren_nib_abro learned;
    struct icmpv6_abro abro;
    if (nib->border_router && wren_nib_own_addr(nib, gaddr, true, NULL)) {
        abro = (struct icmpv6_abro){ .version = nib->abro_version, .lifetime = 0, .addr = gaddr };
    } else if (!nib->border_router && wren_nib_learned_abro(nib, &learned)) {
        abro = (struct icmpv6_abro){ .version = learned.version, .lifetime = learned.lifetime,
                                     .addr = learned.addr };
    } else {
        return n;
    }
    return ra_put(n, wren_icmpv6_opt_abro_emit(&abro, m + n, WREN_NIB_ND_BUF - n));
}

void wren_nib_send_ra(struct wren_nib *nib, const uint8_t *dst)
{
    uint8_t m[WREN_NIB_ND_BUF] = { ICMPV6_ND_RA };
    m[4] = WREN_IPV6_DEFAULT_HOP_LIMIT;
    put_be16(m + 6, 1800); /* router lifetime, s */
    size_t n = 16;
    n = ra_prefixes(nib, m, n);
    n = ra_contexts(nib, m, n);
    n = ra_abro_opt(nib, m, n);
    n += wren_nib_put_sllao(nib, ICMPV6_OPT_SLLAO, m + n, sizeof(m) - n);
    uint8_t ll[16];
    if (wren_nib_own_addr(nib, ll, false, NULL)) {
        wren_nib_send_nd(nib, ll, dst, m, n);
        nib->stats.tx_ra++;
    }
}

/* RFC 4861 6.2.6: learn the solicitor (its SLLAO), answer with an RA to it
 * (to all nodes from the unspecified address) */
void wren_nib_rs_answer(struct wren_nib *nib, const uint8_t *src,
                        const struct wren_nib_nd_opts *o)
{
    if (o->has_sllao) {
        wren_nib_nc_update(nib, src, o->sllao.addr, o->sllao.len, WREN_NIB_STALE);
    }
    wren_nib_send_ra(nib, wren_ipv6_addr_is_unspecified(src) ? all_nodes : src);
    struct wren_nib_abro a;
    if (nib->rpl_6lr && !wren_nib_learned_abro(nib, &a) &&
        wren_node_now_s(nib->node) >= nib->next_upstream_rs_s) {
        /* a RPL 6LR without the 6LBR's ABRO asks the routers around it
         * (its parents among them); the news is announced when it comes */
        nib->next_upstream_rs_s = wren_node_now_s(nib->node) + WREN_NIB_RS_INTERVAL_S;
        wren_nib_solicit(nib);
    }
}

/* ---- address registration (RFC 6775 6.5, RFC 8505) ------------------------ */

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
static void refuse(struct wren_nib *nib, const struct wren_nib_nd_opts *o, const uint8_t *target,
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
    wren_nib_send_na(nib, r->ip, target, ICMPV6_NA_S, a);
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

/* The registration's entry @p n (@p reg's, made or renewed): its lifetime
 * and owner kept, answered with success, told to RPL */
static void aro_accept(struct wren_nib *nib, struct wren_nib_neighbor *n, const uint8_t *reg,
                       const uint8_t *src, const struct icmpv6_msg *m,
                       const struct wren_nib_nd_opts *o, const struct icmpv6_aro *a)
{
    n->state = o->aro.lifetime ? WREN_NIB_REGISTERED : WREN_NIB_STALE;
    memcpy(n->eui64, o->aro.rovr, 8);
    n->expires_s = wren_node_now_s(nib->node) + (uint32_t)o->aro.lifetime * 60u;
    nib->stats.aro_ok++;
    wren_nib_send_na(nib, src, m->nd.target, ICMPV6_NA_S, a);
    tell_rpl(nib, reg, (uint32_t)o->aro.lifetime * 60u, o->aro.flags);
}

/* The address registered: RFC 8505 5.5, the target (an EARO says so with
 * its T flag); RFC 6775 5.5.1 / 6.5, the NS's source (RIOT's hosts put the
 * router's address in the target). Hosts that send both the same (ours)
 * are read alike either way. */
static const uint8_t *aro_address(const uint8_t *src, const struct icmpv6_msg *m,
                                  const struct wren_nib_nd_opts *o)
{
    return (o->aro.flags & ICMPV6_ARO_T) ? m->nd.target : src;
}

void wren_nib_aro_register(struct wren_nib *nib, const uint8_t *src, const struct icmpv6_msg *m,
                           const struct wren_nib_nd_opts *o, const uint8_t *fsrc,
                           uint8_t fsrc_len)
{
    const uint8_t *reg = aro_address(src, m, o);
    if (wren_ipv6_addr_is_multicast(reg) ||
        wren_nib_own_state(nib, reg) != WREN_IPV6_ADDR_UNUSED) {
        nib->stats.rx_invalid++; /* nobody registers the router's own addresses */
        return;
    }
    nib->stats.aro_rx_6775 += reg == src && memcmp(src, m->nd.target, 16) != 0;
    nib->stats.aro_rx_8505 += reg != src;
    struct icmpv6_aro a = { .lifetime = o->aro.lifetime, .rovr = o->aro.rovr, .rovr_len = 8 };
    struct wren_nib_neighbor *n = wren_nib_nc_find(nib, reg);
    if (n && n->state == WREN_NIB_REGISTERED && memcmp(n->eui64, o->aro.rovr, 8) != 0) {
        /* RFC 6775 6.5.1: another owner's; the registration stands */
        a.status = ICMPV6_ARO_DUPLICATE;
        nib->stats.aro_dup++;
        refuse(nib, o, m->nd.target, &a, n, fsrc, fsrc_len);
    } else if ((n = wren_nib_nc_update(nib, reg, o->sllao.addr, o->sllao.len,
                                       WREN_NIB_REGISTERED)) == NULL) {
        a.status = 2; /* neighbor cache full */
        nib->stats.aro_full++;
        refuse(nib, o, m->nd.target, &a, NULL, fsrc, fsrc_len);
    } else {
        aro_accept(nib, n, reg, src, m, o, &a);
    }
}

/* ---- configuration ---------------------------------------------------------- */

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

/* The prefix's context @p cid, if a slot is free, for this RA's 6COs and
 * the node's 6LoWPAN layer */
static void prefix_context(struct wren_nib *nib, const struct wren_nib_prefix *p, uint8_t cid)
{
    for (unsigned i = 0; i < CONFIG_WREN_NIB_CONTEXTS; i++) {
        struct wren_nib_ctx *c = &nib->ctxs[i];
        if (c->len == 0) {
            memcpy(c->prefix, p->prefix, 16);
            c->len = p->len;
            c->cid = cid;
            struct sixlowpan_ctx sc = { .prefix_len = p->len, .valid = true, .compress = true };
            memcpy(sc.prefix, p->prefix, 16);
            struct wren_module *lp = wren_nib_layer(nib, WREN_NETTYPE_SIXLOWPAN);
            if (lp) {
                wren_netapi_set(nib->node, lp, WREN_NETOPT_SIXLOWPAN_CTX, cid, &sc, sizeof(sc));
            }
            break;
        }
    }
}

/* A router of prefix @p p: forwarding, all-routers, its address in the
 * prefix (our IID) and the prefix's route on this interface */
static void prefix_router(struct wren_nib *nib, struct wren_module *ipm,
                          const struct wren_nib_prefix *p)
{
    uint8_t fwd = 1;
    wren_netapi_set(nib->node, ipm, WREN_NETOPT_IPV6_FORWARDING, 0, &fwd, 1);
    /* routers listen to all-routers, where hosts solicit */
    wren_netapi_set(nib->node, ipm, WREN_NETOPT_IPV6_GROUP_JOIN, nib->if_id, all_routers, 16);
    struct wren_ipv6_addr a = { .prefix_len = p->len, .state = WREN_IPV6_ADDR_VALID };
    memcpy(a.addr, p->prefix, 8);
    wren_ipv6_iid_from_l2(a.addr + 8, nib->eui64, 8);
    wren_netapi_set(nib->node, ipm, WREN_NETOPT_IPV6_ADDR, nib->if_id, &a, sizeof(a));
    struct wren_fib_entry r = { .prefix_len = p->len, .if_id = nib->if_id };
    memcpy(r.prefix, p->prefix, 16);
    wren_netapi_set(nib->node, ipm, WREN_NETOPT_IPV6_ROUTE_ADD, 0, &r, sizeof(r));
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
    struct wren_module *ipm = wren_nib_layer(nib, WREN_NETTYPE_IPV6);
    if (ipm == NULL) {
        return -ENODEV;
    }
    prefix_router(nib, ipm, p);
    if (cid < SIXLOWPAN_CTX_COUNT) {
        prefix_context(nib, p, cid);
    }
    return 0;
}

#include "rpl/rpl.h"
#include "rpl/rpl_priv.h"

#include <errno.h>
#include <string.h>

#include "core/byteorder.h"
#include "core/node.h"
#include "icmpv6/icmpv6.h"
#include "link/link_est.h"
#include "mac/tsch/tsch.h"
#include "ipv6/fib.h"
#include "ipv6/ipv6.h"
#include "net/netapi.h"
#include "net/netif.h"
#include "net/netopt.h"
#include "net/nettype.h"
#include "shell/shell.h"
#include "wire/ipv6.h"

/* Defaults a root announces (RFC 6550 6.7.6, 17): Imin 2^10 ms, 8 doublings
 * (Imax ~4.4 min), k 10; OF0; routes live 30 x 60 s. RFC 6550's own
 * defaults (Imin 8 ms, 20 doublings) suit wired links better than radios. */
#define DEF_IMIN 10
#define DEF_DOUBLINGS 8
#define DEF_REDUNDANCY 10
#define DEF_MAX_RANK_INC (7 * WREN_RPL_MIN_HOP_RANK_INC)
#define DEF_LIFETIME 30
#define DEF_LIFETIME_UNIT 60
#define DAO_ACK_WAIT_S 2
#define DAO_RETRIES 5
#define DIS_INTERVAL_S 20
/* seconds a node keeps a preferred parent whose link fails before it
 * detaches, when no other parent is eligible */
#define BAD_HOLD_S 10
/* seconds between probes of a candidate whose link looked too poor */
#define PROBE_INTERVAL_S 30
/* RPL's timekeeping tick: every 1 s +- TICK_JITTER_US, at a random phase. A
 * DAO (first, resent, refresh) and a unicast DIS leave at a tick; with a
 * fixed 1 s period started when the role was given, every node given its
 * role at one instant sent them at the same instant of each second (within
 * the crystals' drift), and nodes hidden from each other collided at a
 * common neighbour, retry after retry (RFC 6550 9.5, 17: DAOs jittered) */
#define TICK_US 1000000u
#define TICK_JITTER_US 100000u

const uint8_t wren_rpl_all_nodes[16] = WREN_RPL_ALL_NODES;

uint32_t wren_rpl_now_s(const struct wren_rpl *rpl)
{
    return wren_node_now_s(rpl->node); /* no 64-bit division (libgcc, 0.76 KB) */
}

/* RFC 6550 7.2: is lollipop counter @p a newer than @p b? */
bool wren_rpl_seq_newer(uint8_t a, uint8_t b)
{
    if (a == b) {
        return false;
    }
    if (a > 127 && b <= 127) {
        return (unsigned)(256 + b - a) > SEQ_WINDOW;
    }
    if (a <= 127 && b > 127) {
        return (unsigned)(256 + a - b) <= SEQ_WINDOW;
    }
    if (a > 127) {
        return a > b; /* both in the linear part */
    }
    unsigned d = a > b ? (unsigned)(a - b) : (unsigned)(b - a);
    return d <= SEQ_WINDOW ? a > b : a < b;
}

/* ---- talking to IPv6 (netapi) --------------------------------------------- */

void wren_rpl_default_route(struct wren_rpl *rpl, const uint8_t *via)
{
    struct wren_module *ip = ipv6_layer(rpl);
    struct wren_fib_entry r = { .prefix_len = 0, .if_id = rpl->if_id }; /* ::/0 */
    if (via) {
        wren_ipv6_addr_copy(r.next_hop, via);
    }
    if (ip) {
        wren_netapi_set(rpl->node, ip, via ? WREN_NETOPT_IPV6_ROUTE_ADD : WREN_NETOPT_IPV6_ROUTE_DEL,
                        0, &r, sizeof(r));
    }
}

void wren_rpl_forwarding_on(struct wren_rpl *rpl)
{
    struct wren_module *ip = ipv6_layer(rpl);
    uint8_t fwd = 1;
    if (ip) {
        wren_netapi_set(rpl->node, ip, WREN_NETOPT_IPV6_FORWARDING, 0, &fwd, 1);
    }
}

/* Our link-local address on the interface (the IID of our global one),
 * from IPv6 (@p ip). */
static bool link_local(struct wren_rpl *rpl, struct wren_module *ip, uint8_t *out)
{
    struct wren_ipv6_addr a[CONFIG_WREN_IPV6_ADDRS];
    if (wren_netapi_get(rpl->node, ip, WREN_NETOPT_IPV6_ADDR, rpl->if_id, a, sizeof(a)) <= 0) {
        return false;
    }
    for (unsigned i = 0; i < CONFIG_WREN_IPV6_ADDRS; i++) {
        if (a[i].state == WREN_IPV6_ADDR_VALID && wren_ipv6_addr_is_link_local(a[i].addr)) {
            wren_ipv6_addr_copy(out, a[i].addr);
            return true;
        }
    }
    return false;
}

/* RFC 6550 6.7.10 (A flag): an address from the prefix and our IID */
void wren_rpl_take_address(struct wren_rpl *rpl)
{
    uint8_t ll[16];
    struct wren_module *ip = ipv6_layer(rpl);
    if (ip == NULL || rpl->prefix_len != 64 || !link_local(rpl, ip, ll)) {
        return;
    }
    struct wren_ipv6_addr a = { .prefix_len = 64, .state = WREN_IPV6_ADDR_VALID };
    memcpy(a.addr, rpl->prefix, 8);
    memcpy(a.addr + 8, ll + 8, 8);
    if (wren_netapi_set(rpl->node, ip, WREN_NETOPT_IPV6_ADDR, rpl->if_id, &a, sizeof(a)) == 0) {
        wren_ipv6_addr_copy(rpl->addr, a.addr);
    }
}

void wren_rpl_send_to(struct wren_rpl *rpl, const uint8_t *dst, const uint8_t *m, size_t len,
                      bool link)
{
    rpl->stats.tx_bytes += (uint32_t)len;
    if (wren_icmpv6_send(rpl->node, link ? NULL : rpl->addr, dst, link ? 255 : 0,
                         link ? rpl->if_id : 0, m, len) < 0) {
        rpl->stats.tx_fail++;
    }
}

/* ---- receiving --------------------------------------------------------------- */

static void receive(struct wren_rpl *rpl, struct wren_snip *pkt)
{
    struct wren_node *node = rpl->node;
    struct wren_snip *ips = wren_pkt_search(pkt, WREN_NETTYPE_IPV6);
    struct wren_snip *nhs = wren_pkt_search(pkt, WREN_NETTYPE_NETIF);
    struct rpl_msg m;
    if (ips == NULL || (nhs && wren_netif_hdr(nhs)->if_id != rpl->if_id)) {
        goto drop; /* another interface's RPL instance takes it */
    }
    if (rpl->role == WREN_RPL_OFF) {
        rpl->stats.rx_drop_off++;
        goto drop;
    }
    int rc = wren_rpl_msg_parse(pkt->data, pkt->size, &m);
    if (rc == -RPL_ERR_CODE) {
        rpl->stats.rx_drop_unsupported++;
        goto drop;
    }
    if (rc < 0) {
        rpl->stats.rx_drop_malformed++;
        goto drop;
    }
    const uint8_t *src = ips->data + IPV6_OFF_SRC, *dst = ips->data + IPV6_OFF_DST;
    switch (m.code) {
    case RPL_CODE_DIS:
        wren_rpl_on_dis(rpl, src, dst);
        break;
    case RPL_CODE_DIO:
        wren_rpl_on_dio(rpl, src, &m);
        break;
    case RPL_CODE_DAO:
        wren_rpl_on_dao(rpl, src, &m);
        break;
    default:
        wren_rpl_on_dao_ack(rpl, &m);
        break;
    }
drop:
    wren_pktbuf_release(&node->pktbuf, pkt);
}

/* ---- time ------------------------------------------------------------------- */

/* Routes whose lifetime ran out are forgotten. */
static void expire_routes(struct wren_rpl *rpl, uint32_t now)
{
    for (unsigned i = 0; i < rpl->n_routes; i++) {
        struct wren_rpl_route *r = &rpl->routes[i];
        if (r->plen && (int32_t)(now - r->expires_s) >= 0) {
            rpl->stats.route_expired += route_live(r);
            memset(r, 0, sizeof(*r));
        }
    }
}

/* Where a detached node's DIS goes: on a TSCH interface synchronised to a
 * time source, that neighbour's link-local address (it sends EBs only from
 * inside a DODAG, RFC 8180 6.1), so the DIO comes back unicast (RFC 6550
 * 8.3) in the cells for that neighbour instead of in the one minimal cell,
 * which Table I's DIOs keep congested (the 6TiSCH paper's floor: 67-82 s
 * from sync to a parent, median); else all RPL nodes. @return whether it
 * is the time source, the first time since we synchronised. */
static bool dis_target(struct wren_rpl *rpl, uint8_t dst[16])
{
    struct wren_netif *netif = wren_netif_get(rpl->node, rpl->if_id);
    struct wren_tsch_sync_info si;
    wren_ipv6_addr_copy(dst, wren_rpl_all_nodes);
    if (!CONFIG_WREN_TSCH || netif == NULL ||
        wren_netapi_get(rpl->node, &netif->module, WREN_NETOPT_TSCH_SYNC, 0, &si, sizeof(si)) !=
            (int)sizeof(si) ||
        !si.synced || si.ts_len != 8) {
        rpl->dis_synced = 0;
        return false;
    }
    static const uint8_t ll[8] = { 0xfe, 0x80 };
    memcpy(dst, ll, 8);
    wren_ipv6_iid_from_l2(dst + 8, si.time_source, 8);
    bool first = !rpl->dis_synced;
    rpl->dis_synced = 1;
    return first;
}

/* Not joined: a floating DODAG of our own when it is due, else a DIS now
 * and then, and at once to a new time source. */
static void tick_detached(struct wren_rpl *rpl, uint32_t now)
{
    if (CONFIG_WREN_RPL_FLOATING && rpl->float_due && (int32_t)(now - rpl->float_at_s) >= 0) {
        wren_rpl_float_root(rpl);
        return;
    }
    uint8_t dst[16];
    if (dis_target(rpl, dst) || now >= rpl->next_dis_s) {
        wren_rpl_send_dis_to(rpl, dst);
        rpl->next_dis_s = now + DIS_INTERVAL_S + wren_node_random_below(rpl->node, 5);
    }
}

/* Parents silent for three of the longest DIO intervals, and at least
 * 10 minutes, are gone. DIOs are broadcasts: on TSCH they share one cell
 * every ~2 s with every neighbour's and most are lost, and with a 180 s
 * floor nodes kept dropping parents they were still talking to (6TiSCH
 * paper's 30-node floor: PDR 15-31 % -> 33-52 %). The preferred parent
 * never expires this way: with Trickle's suppression (k > 0) a parent
 * may rightly stay silent for ever, and it is alive as long as our
 * unicasts to it (DAOs, data) are acknowledged; one that is gone shows
 * in their outcomes (bad_since_s, probes, detach). */
static void expire_parents(struct wren_rpl *rpl, uint32_t now)
{
    uint32_t imax_s = (rpl->trickle.imax ? rpl->trickle.imax : wren_rpl_imax_ms(rpl)) / 1000u;
    uint32_t silent_s = 3 * (imax_s > 200 ? imax_s : 200);
    for (int i = 0; i < CONFIG_WREN_RPL_PARENTS; i++) {
        struct wren_rpl_parent *p = &rpl->parents[i];
        if (p->used && i != rpl->pref && now - p->heard_s > silent_s) {
            memset(p, 0, sizeof(*p));
            rpl->stats.parent_expired++;
        }
    }
}

/* Now and then, a candidate whose link looked too poor gets a probe:
 * losses seen once (collisions at start-up) must not condemn a link for
 * ever when nothing else is sent over it. */
static void probe_poor(struct wren_rpl *rpl, uint32_t now)
{
    rpl->next_probe_s = now + PROBE_INTERVAL_S + wren_node_random_below(rpl->node, 10);
    int worst = -1;
    for (int i = 0; i < CONFIG_WREN_RPL_PARENTS; i++) {
        const struct wren_rpl_parent *p = &rpl->parents[i];
        if (p->used && i != rpl->pref && p->etx > MAX_LINK_METRIC &&
            (worst < 0 || p->etx > rpl->parents[worst].etx)) {
            worst = i;
        }
    }
    if (worst >= 0) {
        wren_rpl_send_dis_to(rpl, rpl->parents[worst].addr);
    }
}

/* Only the preferred parent, over a failing link (select_parent): after
 * BAD_HOLD_S we detach (returns true), until then other candidates get a
 * probe. */
static bool failing_parent(struct wren_rpl *rpl, uint32_t now)
{
    if (now - rpl->bad_since_s >= BAD_HOLD_S) {
        rpl->bad_since_s = 0;
        wren_rpl_detach(rpl); /* poison: the nodes below us look elsewhere */
        return true;
    }
    /* a unicast DIS to another candidate: its answer and the ACK tell
     * the link estimator how good that link is now (RFC 6719 probing) */
    for (int k = 0; k < CONFIG_WREN_RPL_PARENTS; k++) {
        int i = (rpl->probe_next + k) % CONFIG_WREN_RPL_PARENTS;
        if (rpl->parents[i].used && i != rpl->pref) {
            rpl->probe_next = (uint8_t)(i + 1);
            wren_rpl_send_dis_to(rpl, rpl->parents[i].addr);
            break;
        }
    }
    return false;
}

void wren_rpl_dao_later(struct wren_rpl *rpl, uint32_t now)
{
    uint32_t soon = now + 30 + wren_node_random_below(rpl->node, 10);
    if (rpl->next_dao_s == 0 || rpl->next_dao_s > soon) {
        rpl->next_dao_s = soon;
    }
}

/* The DAO's timers: resent without a DAO-ACK, refreshed at half the
 * lifetime. */
static void dao_timers(struct wren_rpl *rpl, uint32_t now)
{
    /* no DAO-ACK: again after a wait that doubles, jittered, so that DAOs
     * that collided (siblings hidden from each other) do not collide again */
    uint32_t wait = DAO_ACK_WAIT_S << (rpl->dao_retries < 4 ? rpl->dao_retries : 4);
    if (rpl->dao_wait && now - rpl->dao_sent_s >= wait + rpl->dao_jitter_s) {
        if (rpl->dao_retries < DAO_RETRIES) {
            rpl->dao_retries++;
            rpl->stats.dao_retx++;
            rpl->dao_jitter_s = (uint8_t)wren_node_random_below(rpl->node, wait + 1);
            rpl->dao_wait = false;
            wren_rpl_send_dao(rpl);
        } else {
            /* the parent does not answer: the routes stay dirty and go up
             * with the next DAO, at the refresh or sooner */
            rpl->dao_wait = false;
            wren_rpl_dao_later(rpl, now);
        }
    }
    if (rpl->next_dao_s && now >= rpl->next_dao_s) {
        /* refresh at half the lifetime */
        uint32_t life = lifetime_s(rpl, rpl->cfg.def_lifetime);
        rpl->next_dao_s = now + (life / 2 > 1 ? life / 2 : 1);
        if (!rpl->dao_wait) {
            rpl->dao_retries = 0;
        }
        wren_rpl_send_dao(rpl);
    }
}

static void rpl_tick(struct wren_timer *t, void *arg)
{
    (void)t;
    struct wren_rpl *rpl = arg;
    uint32_t now = wren_rpl_now_s(rpl);
    if (rpl->role == WREN_RPL_OFF) {
        return;
    }
    wren_timer_set(rpl->node, &rpl->tick,
                   TICK_US - TICK_JITTER_US +
                       wren_node_random_below(rpl->node, 2 * TICK_JITTER_US));
    expire_routes(rpl, now);
    wren_rpl_rul_tick(rpl, now);
    if (rpl->role == WREN_RPL_ROOT) {
        return;
    }
    if (!rpl->joined) {
        tick_detached(rpl, now);
        return;
    }
    expire_parents(rpl, now);
    /* link estimates change with every unicast: look at the parents again */
    wren_rpl_select_parent(rpl);
    if (!rpl->joined) {
        return;
    }
    if (!rpl->bad_since_s && now >= rpl->next_probe_s) {
        probe_poor(rpl, now);
    }
    if (rpl->bad_since_s && failing_parent(rpl, now)) {
        return;
    }
    dao_timers(rpl, now);
}

/* ---- module ----------------------------------------------------------------- */

static void stop(struct wren_rpl *rpl)
{
    wren_trickle_stop(rpl->node, &rpl->trickle);
    wren_rpl_clear_routes(rpl);
    wren_rpl_rul_clear(rpl);
    if (rpl->joined || rpl->role == WREN_RPL_ROOT) {
        wren_rpl_default_route(rpl, NULL);
    }
    rpl->joined = false;
    if (CONFIG_WREN_RPL_FLOATING) { /* (without, never set) */
        rpl->floating = false;
        rpl->float_due = false;
    }
    rpl->guard_until_s = 0;
    rpl->pref = NO_PREF;
    rpl->rank = RPL_INFINITE_RANK;
    if (wren_rpl_n_parents(rpl)) {
        memset(rpl->parents, 0, CONFIG_WREN_RPL_PARENTS * sizeof(rpl->parents[0]));
    }
}

/* Whether role configuration @p c is one we can run (a root's: prefix,
 * mode, objective function, instance, and its timers within the local
 * limits every node applies to a configuration, cfg_bound). */
static bool role_cfg_valid(const struct wren_rpl_role_cfg *c)
{
    if (c->role > WREN_RPL_LEAF) {
        return false;
    }
    if (c->role == WREN_RPL_ROOT &&
        (c->prefix_len == 0 || c->prefix_len > 128 ||
         (c->mop != RPL_MOP_STORING && c->mop != RPL_MOP_NON_STORING) || c->ocp > OCP_MRHOF ||
         c->instance > 127)) {
        return false;
    }
#if CONFIG_WREN_RPL_ROOT_TIMERS
    if (c->role == WREN_RPL_ROOT && (c->flags & WREN_RPL_CFG_TIMERS) &&
        (c->dio_imin < CONFIG_WREN_RPL_DIO_IMIN_MIN ||
         c->dio_imin + c->dio_doublings > CONFIG_WREN_RPL_DIO_IMAX_MAX ||
         (uint32_t)c->lifetime * c->lifetime_unit < CONFIG_WREN_RPL_LIFETIME_MIN_S)) {
        /* the local limits every node applies to a configuration (cfg_bound) */
        return false;
    }
#endif
    if ((c->role == WREN_RPL_ROUTER || c->role == WREN_RPL_LEAF) && (c->flags & WREN_RPL_CFG_MOP) &&
        c->mop != RPL_MOP_STORING && c->mop != RPL_MOP_NON_STORING) {
        return false;
    }
    return true;
}

/* Whether this build runs role configuration @p c (a valid one): its
 * mode (core/config.h: CONFIG_WREN_RPL_STORING, _NONSTORING). */
static bool role_cfg_built(const struct wren_rpl_role_cfg *c)
{
    if (c->role == WREN_RPL_ROOT) {
        return mop_built(c->mop);
    }
    return !(c->flags & WREN_RPL_CFG_MOP) || c->role == WREN_RPL_OFF || mop_built(c->mop);
}

/* A root starts its DODAG: the configuration it announces (the defaults
 * or @p c's timers), its prefix and address, a DTSN of its own, rank
 * ROOT_RANK, forwarding on, Trickle. */
static void root_start(struct wren_rpl *rpl, const struct wren_rpl_role_cfg *c)
{
    rpl->instance = c->instance;
    rpl->mop = c->mop;
    static const struct rpl_opt_config def = {
        .dio_int_doublings = DEF_DOUBLINGS, .dio_int_min = DEF_IMIN,
        .dio_redundancy = DEF_REDUNDANCY, .max_rank_inc = DEF_MAX_RANK_INC,
        .min_hop_rank_inc = WREN_RPL_MIN_HOP_RANK_INC,
        .def_lifetime = DEF_LIFETIME, .lifetime_unit = DEF_LIFETIME_UNIT,
    };
    rpl->cfg = def;
    rpl->cfg.ocp = c->ocp;
#if CONFIG_WREN_RPL_ROOT_TIMERS
    if (c->flags & WREN_RPL_CFG_TIMERS) {
        rpl->cfg.dio_int_min = c->dio_imin;
        rpl->cfg.dio_int_doublings = c->dio_doublings;
        rpl->cfg.dio_redundancy = c->dio_k;
        rpl->cfg.def_lifetime = c->lifetime;
        rpl->cfg.lifetime_unit = c->lifetime_unit;
    }
#endif
    memset(rpl->prefix, 0, 16);
    memcpy(rpl->prefix, c->prefix, (c->prefix_len + 7u) / 8);
    rpl->prefix_len = c->prefix_len;
    rpl->pio_flags = RPL_PIO_A | RPL_PIO_R;
    rpl->pio_valid = rpl->pio_preferred = 0xffffffffu;
    wren_rpl_take_address(rpl);
    wren_ipv6_addr_copy(rpl->dodagid, rpl->addr[0] ? rpl->addr : rpl->prefix);
    /* a DTSN of its own: after a reboot (routes lost) the nodes see it
     * change and announce their routes again */
    rpl->dtsn = (uint8_t)wren_node_random(rpl->node);
    rpl->rank = WREN_RPL_MIN_HOP_RANK_INC; /* ROOT_RANK */
    rpl->lowest_rank = rpl->rank;
    wren_rpl_forwarding_on(rpl);
    wren_rpl_trickle_start(rpl);
}

/* The route table a role uses: the caller's, else the built-in one, made
 * now if it is not yet; the parent and leaf tables, made now if not yet.
 * @return 0 or -ENOMEM. */
static int routes_ready(struct wren_rpl *rpl)
{
#if CONFIG_WREN_NODE_MEM
    if (rpl->parents == NULL) {
        struct wren_rpl_tabs *t = wren_node_mem(rpl->node, &wren_rpl_module, sizeof(*t));
        if (t == NULL) {
            return -ENOMEM;
        }
        rpl->parents = t->parents;
        rpl->ruls = t->ruls;
    }
    if (rpl->routes == NULL) {
        struct wren_rpl_routes *own = WREN_LAZY_GET(rpl->node, rpl, own);
        if (own == NULL) {
            return -ENOMEM;
        }
        rpl->routes = own->e;
        rpl->n_routes = CONFIG_WREN_RPL_ROUTES;
    }
#endif
    (void)rpl;
    return 0;
}

/* entries of the route table, the built-in one's before it is made */
static unsigned routes_size(const struct wren_rpl *rpl)
{
    return !CONFIG_WREN_NODE_MEM || rpl->routes ? rpl->n_routes : CONFIG_WREN_RPL_ROUTES;
}

int wren_rpl_set_role(struct wren_rpl *rpl, const struct wren_rpl_role_cfg *c)
{
    struct wren_module *ip = ipv6_layer(rpl);
    if (!role_cfg_valid(c)) {
        return -EINVAL;
    }
    if (!role_cfg_built(c)) {
        return -ENOTSUP;
    }
    if (ip == NULL) {
        return -ENODEV;
    }
    if (c->role != WREN_RPL_OFF && routes_ready(rpl) < 0) {
        return -ENOMEM;
    }
    stop(rpl);
    rpl->role = c->role;
    rpl->want_mop = c->role != WREN_RPL_ROOT && (c->flags & WREN_RPL_CFG_MOP) ? c->mop : 0xff;
    rpl->heard_mop = 0xff;
    rpl->next_cfg_dis_s = 0;
    rpl->grounded = c->role == WREN_RPL_ROOT && (c->flags & WREN_RPL_CFG_GROUNDED);
    if (CONFIG_WREN_RPL_FLOATING) { /* (without, never read) */
        rpl->may_float = c->role == WREN_RPL_ROUTER && !(c->flags & WREN_RPL_CFG_NO_FLOAT);
    }
    if (c->role == WREN_RPL_OFF) {
        wren_timer_cancel(rpl->node, &rpl->tick);
        return 0;
    }
    /* a node without a role has no timer running (an idle simulation of
     * thousands of nodes pays nothing for RPL); the first tick at a random
     * phase of the second (nodes given their roles together) */
    wren_timer_set(rpl->node, &rpl->tick, 1 + wren_node_random_below(rpl->node, TICK_US));
    wren_netapi_set(rpl->node, ip, WREN_NETOPT_IPV6_GROUP_JOIN, rpl->if_id, wren_rpl_all_nodes, 16);
    rpl->version = SEQ_INIT;
    rpl->dao_seq = SEQ_INIT;
    rpl->path_seq = SEQ_INIT;
    rpl->dtsn = SEQ_INIT;
    if (c->role != WREN_RPL_ROOT) {
        rpl->next_dis_s = wren_rpl_now_s(rpl) + wren_node_random_below(rpl->node, 2);
        return 0;
    }
    root_start(rpl, c);
    return 0;
}

int wren_rpl_set_route_mem(struct wren_rpl *rpl, struct wren_rpl_route *mem, uint32_t n)
{
    if (rpl->role != WREN_RPL_OFF) {
        return -EBUSY; /* routes in use (stop() forgot them when the role went off) */
    }
    if (mem == NULL) { /* back to the built-in table (made by the next role, if not yet) */
        mem = CONFIG_WREN_NODE_MEM ? NULL : rpl->own->e;
        n = CONFIG_WREN_NODE_MEM ? 0 : CONFIG_WREN_RPL_ROUTES;
    } else if (n == 0 || n > 0xffff) {
        return -EINVAL;
    }
    rpl->routes = mem;
    rpl->n_routes = (uint16_t)n;
    wren_rpl_clear_routes(rpl);
    return 0;
}

int wren_rpl_global_repair(struct wren_rpl *rpl)
{
    if (rpl->role != WREN_RPL_ROOT) {
        return -EINVAL;
    }
    /* RFC 6550 8.2.2.1: a new version rebuilds the DODAG; a new DTSN asks
     * every node for its DAOs again */
    rpl->version = seq_next(rpl->version);
    rpl->dtsn = seq_next(rpl->dtsn);
    wren_rpl_trickle_reset(rpl);
    return 0;
}

static void rpl_handle(struct wren_node *node, struct wren_module *self, const struct wren_msg *msg)
{
    struct wren_rpl *rpl = (struct wren_rpl *)self;
    if (msg->type == WREN_MSG_RCV) {
        receive(rpl, msg->ptr);
    } else if (msg->ptr) {
        wren_pktbuf_release(&node->pktbuf, msg->ptr);
    }
}

/* The gauges of the stats: a table is full when used = size. */
static void stats_gauges(struct wren_rpl *rpl)
{
    unsigned n = 0;
    for (unsigned i = 0; i < rpl->n_routes; i++) {
        n += rpl->routes[i].plen != 0;
    }
    rpl->stats.routes_used = n;
    rpl->stats.routes_size = routes_size(rpl);
    n = 0;
    for (unsigned i = 0; i < wren_rpl_n_parents(rpl); i++) {
        n += rpl->parents[i].used != 0;
    }
    rpl->stats.parents_used = n;
    rpl->stats.parents_size = CONFIG_WREN_RPL_PARENTS;
}

/* GET WREN_NETOPT_RPL_PARENT: the preferred parent's link-local address
 * and EUI-64 (from its IID, RFC 4944 6); a parent known only by a short
 * address has none. */
static int get_parent(struct wren_rpl *rpl, void *val, size_t max)
{
    uint8_t pa[24];
    if (!CONFIG_WREN_RPL_PARENT_INFO) {
        return -ENOTSUP;
    }
    if (rpl->pref == NO_PREF || rpl->role == WREN_RPL_ROOT) {
        return -ENOENT;
    }
    const struct wren_rpl_parent *p = &rpl->parents[rpl->pref];
    wren_ipv6_addr_copy(pa, p->addr);
    if (wren_ipv6_l2_from_iid(p->addr + 8, pa + 16) != 8) {
        return -ENOENT;
    }
    return wren_netopt_put(val, max, pa, sizeof(pa));
}

/* GET WREN_NETOPT_RPL_PREFIX: the DODAG's /64 while we route in it (a
 * root, or a joined router): the NIBs advertise it to hosts that run no
 * RPL (RFC 9010 4) */
static int get_prefix(struct wren_rpl *rpl, void *val, size_t max)
{
    struct wren_rpl_prefix p = { .len = 64 };
    if ((rpl->role != WREN_RPL_ROOT && (rpl->role != WREN_RPL_ROUTER || !rpl->joined)) ||
        rpl->prefix_len != 64) {
        return -ENOENT;
    }
    memcpy(p.prefix, rpl->prefix, 8);
    return wren_netopt_put(val, max, &p, sizeof(p));
}

/* GET WREN_NETOPT_RPL_RANK (for MSF) */
static int get_rank(struct wren_rpl *rpl, void *val, size_t max)
{
    if (!CONFIG_WREN_RPL_PARENT_INFO) {
        return -ENOTSUP;
    }
    uint16_t r = rpl->joined || rpl->role == WREN_RPL_ROOT ? rpl->rank : RPL_INFINITE_RANK;
    return wren_netopt_put(val, max, &r, sizeof(r));
}

/* What IPv6 asks of RPL for a datagram (its hooks, ipv6_tx.c): the RPI,
 * downward routes, leaves, tunnels, source routes; @p val holds the
 * question and gets the answer. */
static int get_hook(struct wren_rpl *rpl, uint16_t opt, void *val, size_t max)
{
    uint8_t dst[16];
    switch (opt) {
    case WREN_NETOPT_RPL_RPI:
        return max < 16 ? -EOVERFLOW : wren_rpl_rpi_origin(rpl, val);
    case WREN_NETOPT_RPL_RPI_FWD:
        return max < 28 ? -EOVERFLOW : wren_rpl_rpi_forward(rpl, val);
    case WREN_NETOPT_RPL_ROUTE:
        if (max < 18) {
            return -EOVERFLOW;
        }
        wren_ipv6_addr_copy(dst, val);
        return wren_rpl_route_lookup(rpl, dst, val);
    case WREN_NETOPT_RPL_RUL:
        return max < 17 ? -EOVERFLOW : wren_rpl_rul_query(rpl, val);
    case WREN_NETOPT_RPL_TUNNEL:
        return max < 17 ? -EOVERFLOW : wren_rpl_tunnel(rpl, val, max);
    case WREN_NETOPT_RPL_SRH:
        if (max < 16) {
            return -EOVERFLOW;
        }
        wren_ipv6_addr_copy(dst, val);
        return wren_rpl_source_route(rpl, dst, val, max);
    default:
        return -ENOTSUP;
    }
}

static int rpl_get(struct wren_node *node, struct wren_module *self, uint16_t opt, uint16_t ctx,
                   void *val, size_t max)
{
    (void)node;
    (void)ctx;
    struct wren_rpl *rpl = (struct wren_rpl *)self;
    switch (opt) {
    case WREN_NETOPT_STATS:
        stats_gauges(rpl);
        return wren_netopt_put(val, max, &rpl->stats, sizeof(rpl->stats));
    case WREN_NETOPT_IF_ID:
        return wren_netopt_put(val, max, &rpl->if_id, 1);
    case WREN_NETOPT_RPL_ROLE:
        return wren_netopt_put(val, max, &rpl->role, 1);
    case WREN_NETOPT_RPL_PREFIX:
        return get_prefix(rpl, val, max);
    case WREN_NETOPT_RPL_RANK:
        return get_rank(rpl, val, max);
    case WREN_NETOPT_RPL_PARENT:
        return get_parent(rpl, val, max);
    default:
        return get_hook(rpl, opt, val, max);
    }
}

static int rpl_set(struct wren_node *node, struct wren_module *self, uint16_t opt, uint16_t ctx,
                   const void *val, size_t len)
{
    (void)node;
    (void)ctx;
    struct wren_rpl *rpl = (struct wren_rpl *)self;
    if (opt == WREN_NETOPT_RPL_ROUTE_MEM) {
        struct wren_rpl_route_mem m;
        if (len != sizeof(m)) {
            return -EINVAL;
        }
        memcpy(&m, val, sizeof(m));
        return wren_rpl_set_route_mem(rpl, m.mem, m.n);
    }
    if (opt == WREN_NETOPT_RPL_REGISTERED) {
        struct wren_rpl_reg r;
        if (len != sizeof(r)) {
            return -EINVAL;
        }
        memcpy(&r, val, sizeof(r));
        return wren_rpl_rul_register(rpl, &r);
    }
    if (opt == WREN_NETOPT_RPL_DIO_CONFIG) {
        if (len != 1) {
            return -EINVAL;
        }
        rpl->dio_cfg_left = *(const uint8_t *)val;
        return 0;
    }
    if (opt != WREN_NETOPT_RPL_ROLE) {
        return -ENOTSUP;
    }
    struct wren_rpl_role_cfg c;
    if (len != sizeof(c)) {
        return -EINVAL;
    }
    memcpy(&c, val, sizeof(c));
    return wren_rpl_set_role(rpl, &c);
}

static int rpl_stack_init(struct wren_node *node, struct wren_module *self, uint8_t if_id)
{
    return wren_rpl_init(node, (struct wren_rpl *)self, if_id);
}

static const struct wren_counter_set rpl_counters =
    WREN_COUNTER_SET("rpl", WREN_RPL_COUNTERS, WREN_NETOPT_STATS, uint32_t);

/* in its _shell.c */
extern const struct wren_shell_cmd wren_rpl_shell_cmds[];

const struct wren_module_ops wren_rpl_module = {
    .name = "rpl",
    .handle = rpl_handle,
    .get = rpl_get,
    .set = rpl_set,
    .init = rpl_stack_init,
    .size = sizeof(struct wren_rpl),
    .link = WREN_NETDEV_TYPE_IEEE802154,
    .per_if = 1,
    .counters = WREN_IF_NAMES(&rpl_counters),
    .cmds = WREN_IF_SHELL(wren_rpl_shell_cmds),
};

int wren_rpl_init(struct wren_node *node, struct wren_rpl *rpl, uint8_t if_id)
{
    memset(rpl, 0, sizeof(*rpl));
    rpl->module.ops = &wren_rpl_module;
    rpl->module.prio = WREN_PRIO_NET;
    rpl->node = node;
    rpl->if_id = if_id;
    rpl->pref = NO_PREF;
    rpl->rank = RPL_INFINITE_RANK;
    rpl->lowest_rank = RPL_INFINITE_RANK;
    if (!CONFIG_WREN_NODE_MEM) {
        rpl->routes = rpl->own->e; /* built in; else made when a role needs it */
        rpl->n_routes = CONFIG_WREN_RPL_ROUTES;
    }
    rpl->want_mop = rpl->heard_mop = rpl->dio_cfg_left = 0xff;
    if (wren_netif_get(node, if_id) == NULL) {
        return -ENODEV;
    }
    wren_trickle_init(&rpl->trickle, wren_rpl_trickle_fire, rpl);
    wren_timer_init(&rpl->tick, rpl_tick, rpl);
    return wren_netreg_register(node, WREN_NETTYPE_ICMPV6, ICMPV6_RPL, &rpl->module, &rpl->reg);
}

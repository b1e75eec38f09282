#include "rpl/rpl.h"
#include "rpl/rpl_priv.h"

#include <errno.h>
#include <string.h>

#include "core/byteorder.h"
#include "core/node.h"
#include "icmpv6/icmpv6.h"
#include "link/link_est.h"
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
#define OCP_OF0 0
#define OCP_MRHOF 1
/* RFC 6719 5: links worse than ETX 4 are not used; a parent is changed
 * only for a path better by ETX 1.5 (PARENT_SWITCH_THRESHOLD 192) */
#define MAX_LINK_METRIC (4 * WREN_LINK_ETX_ONE)
#define PARENT_SWITCH_THRESHOLD 192
/* a link nothing was sent over yet counts as ETX 2 */
#define ETX_UNKNOWN (2 * WREN_LINK_ETX_ONE)
/* RFC 6552 4.1: rank_increase = (Rf * Sp + Sr) * MinHopRankIncrease with
 * the default step of rank 3, Rf 1, Sr 0 */
#define OF0_STEP 3
#define DAO_ACK_WAIT_S 2
#define DAO_RETRIES 5
#define DIS_INTERVAL_S 20
/* seconds a node keeps a preferred parent whose link fails before it
 * detaches, when no other parent is eligible */
#define BAD_HOLD_S 10
/* seconds between probes of a candidate whose link looked too poor */
#define PROBE_INTERVAL_S 30
/* seconds a router that detached because its preferred parent poisoned
 * waits for that parent's floating DODAG before it floats one of its own
 * (the parent floats at once: one floating DODAG for the sub-DODAG) */
#define FLOAT_WAIT_S 5
/* RPL's timekeeping tick: every 1 s +- TICK_JITTER_US, at a random phase. A
 * DAO (first, resent, refresh) and a unicast DIS leave at a tick; with a
 * fixed 1 s period started when the role was given, every node given its
 * role at one instant sent them at the same instant of each second (within
 * the crystals' drift), and nodes hidden from each other collided at a
 * common neighbour, retry after retry (RFC 6550 9.5, 17: DAOs jittered) */
#define TICK_US 1000000u
#define TICK_JITTER_US 100000u
/* seconds a detached node refuses the version it left from nodes ranked
 * like or below it (struct wren_rpl, guard_*) */
#define GUARD_S 60
/* seconds between unicast DIS asking for a DODAG configuration (ask_config) */
#define CFG_DIS_S 3

static const uint8_t all_rpl_nodes[16] = WREN_RPL_ALL_NODES;

static uint16_t rank_inc(const struct wren_rpl *rpl)
{
    uint32_t inc = (uint32_t)OF0_STEP * rpl->cfg.min_hop_rank_inc;
    return inc > 0xffff ? 0xffff : (uint16_t)inc;
}

/* ---- talking to IPv6 (netapi) --------------------------------------------- */

void wren_rpl_route_set(struct wren_rpl *rpl, const uint8_t *prefix, uint8_t plen,
                      const uint8_t *via, bool add, int *res)
{
    struct wren_module *ip = ipv6_layer(rpl);
    struct wren_fib_entry r = { .prefix_len = plen, .if_id = rpl->if_id };
    memcpy(r.prefix, prefix, 16);
    if (via) {
        memcpy(r.next_hop, via, 16);
    }
    int rc = ip ? wren_netapi_set(rpl->node, ip,
                                  add ? WREN_NETOPT_IPV6_ROUTE_ADD : WREN_NETOPT_IPV6_ROUTE_DEL,
                                  0, &r, sizeof(r))
                : -ENODEV;
    if (res) {
        *res = rc;
    }
}

/* Our link-local address on the interface (the IID of our global one). */
static bool link_local(struct wren_rpl *rpl, uint8_t *out)
{
    struct wren_ipv6_addr a[CONFIG_WREN_IPV6_ADDRS];
    struct wren_module *ip = ipv6_layer(rpl);
    if (ip == NULL ||
        wren_netapi_get(rpl->node, ip, WREN_NETOPT_IPV6_ADDR, rpl->if_id, a, sizeof(a)) <= 0) {
        return false;
    }
    for (unsigned i = 0; i < CONFIG_WREN_IPV6_ADDRS; i++) {
        if (a[i].state == WREN_IPV6_ADDR_VALID && wren_ipv6_addr_is_link_local(a[i].addr)) {
            memcpy(out, a[i].addr, 16);
            return true;
        }
    }
    return false;
}

/* RFC 6550 6.7.10 (A flag): an address from the prefix and our IID */
static void take_address(struct wren_rpl *rpl)
{
    uint8_t ll[16];
    struct wren_module *ip = ipv6_layer(rpl);
    if (ip == NULL || rpl->prefix_len != 64 || !link_local(rpl, ll)) {
        return;
    }
    struct wren_ipv6_addr a = { .prefix_len = 64, .state = WREN_IPV6_ADDR_VALID };
    memcpy(a.addr, rpl->prefix, 8);
    memcpy(a.addr + 8, ll + 8, 8);
    if (wren_netapi_set(rpl->node, ip, WREN_NETOPT_IPV6_ADDR, rpl->if_id, &a, sizeof(a)) == 0) {
        memcpy(rpl->addr, a.addr, 16);
    }
}

/* ---- sending ---------------------------------------------------------------- */

void wren_rpl_send_msg(struct wren_rpl *rpl, const uint8_t *dst, const uint8_t *m, size_t len)
{
    /* link-local control traffic: hop limit 255, like ND */
    rpl->stats.tx_bytes += (uint32_t)len;
    if (wren_icmpv6_send(rpl->node, NULL, dst, 255, rpl->if_id, m, len) < 0) {
        rpl->stats.tx_fail++;
    }
}

/* A DIO to @p dst; with the DODAG configuration option unless @p no_cfg
 * (RFC 6550 6.3.1 leaves it to the sender; 8.3: a unicast DIO answering a
 * DIS MUST carry it) */
static void send_dio_opts(struct wren_rpl *rpl, const uint8_t *dst, bool no_cfg)
{
    uint8_t opts[64], out[MSG_MAX];
    int n = no_cfg ? 0 : wren_rpl_opt_config_emit(&rpl->cfg, opts, sizeof(opts));
    if (rpl->prefix_len) {
        struct rpl_opt_prefix p = { .prefix_len = rpl->prefix_len, .flags = rpl->pio_flags,
                                    .valid = rpl->pio_valid, .preferred = rpl->pio_preferred,
                                    .prefix = rpl->prefix };
        n += wren_rpl_opt_prefix_emit(&p, opts + n, sizeof(opts) - (size_t)n);
    }
    struct rpl_msg m = {
        .code = RPL_CODE_DIO,
        .dio = { .instance = rpl->instance, .version = rpl->version, .rank = rpl->rank,
                 .g_mop_prf = (uint8_t)((rpl->grounded ? RPL_DIO_G : 0) | rpl->mop << 3),
                 .dtsn = rpl->dtsn,
                 .dodagid = rpl->dodagid },
        .opts = opts,
        .opts_len = (size_t)n,
    };
    int len = wren_rpl_msg_emit(&m, out, sizeof(out));
    if (len > 0) {
        rpl->stats.tx_dio++;
        wren_rpl_send_msg(rpl, dst, out, (size_t)len);
    }
}

static void send_dio(struct wren_rpl *rpl, const uint8_t *dst)
{
    send_dio_opts(rpl, dst, false);
}

static void send_dis_to(struct wren_rpl *rpl, const uint8_t *dst)
{
    struct rpl_msg m = { .code = RPL_CODE_DIS };
    uint8_t out[8];
    int len = wren_rpl_msg_emit(&m, out, sizeof(out));
    rpl->stats.tx_dis++;
    rpl->stats.dis_unicast_tx += !wren_ipv6_addr_is_multicast(dst);
    wren_rpl_send_msg(rpl, dst, out, (size_t)len);
}

static void send_dis(struct wren_rpl *rpl)
{
    send_dis_to(rpl, all_rpl_nodes);
}

/* Imin = 2^DIOIntervalMin ms from the configuration (bounded by cfg_bound
 * when taken; the bounds again here, as a guard) */
static uint32_t imin_ms(const struct wren_rpl *rpl)
{
    uint8_t e = rpl->cfg.dio_int_min;
    return 1u << (e < CONFIG_WREN_RPL_DIO_IMIN_MIN   ? CONFIG_WREN_RPL_DIO_IMIN_MIN
                  : e > CONFIG_WREN_RPL_DIO_IMAX_MAX ? CONFIG_WREN_RPL_DIO_IMAX_MAX
                                                     : e);
}

/* Imax = Imin x 2^DIOIntervalDoublings, capped as Trickle caps it */
static uint32_t imax_ms(const struct wren_rpl *rpl)
{
    uint32_t v = imin_ms(rpl);
    for (unsigned d = 0; d < rpl->cfg.dio_int_doublings && v <= WREN_TRICKLE_IMAX_CAP / 2; d++) {
        v *= 2;
    }
    return v;
}

static void trickle_fire(struct wren_trickle *tr, void *arg)
{
    (void)tr;
    struct wren_rpl *rpl = arg;
    if (rpl->role != WREN_RPL_LEAF && (rpl->joined || rpl->role == WREN_RPL_ROOT)) {
        send_dio_opts(rpl, all_rpl_nodes, rpl->dio_cfg_left == 0);
        if (rpl->dio_cfg_left && rpl->dio_cfg_left != 0xff) {
            rpl->dio_cfg_left--;
        }
    }
}

static void trickle_start(struct wren_rpl *rpl)
{
    if (rpl->role == WREN_RPL_LEAF) {
        return; /* RFC 9010: a leaf does not advertise a DODAG */
    }
    wren_trickle_start(rpl->node, &rpl->trickle, imin_ms(rpl), rpl->cfg.dio_int_doublings,
                       rpl->cfg.dio_redundancy);
}

/* ---- parents and rank (RFC 6550 8.2, OF0 RFC 6552) ------------------------ */

static void schedule_dao(struct wren_rpl *rpl)
{
    /* soon, jittered so that siblings do not collide */
    rpl->next_dao_s = now_s(rpl) + 1 + wren_node_random_below(rpl->node, 2);
    rpl->dao_retries = 0;
    rpl->dao_jitter_s = 0;
}

static void default_route(struct wren_rpl *rpl, const uint8_t *via)
{
    static const uint8_t any[16];
    wren_rpl_route_set(rpl, any, 0, via, via != NULL, NULL);
}

/* RFC 6550 8.2.2.5: no parent left. Advertise an infinite rank once
 * (poisoning, so that children leave us) and look for a DODAG again. */
static void detach(struct wren_rpl *rpl)
{
    rpl->stats.detached++;
    memcpy(rpl->guard_dodagid, rpl->dodagid, 16);
    rpl->guard_version = rpl->version;
    rpl->guard_rank = rpl->rank;
    rpl->guard_until_s = now_s(rpl) + GUARD_S;
    rpl->joined = false;
    rpl->bad_since_s = 0;
    rpl->pref = -1;
    rpl->rank = RPL_INFINITE_RANK;
    default_route(rpl, NULL);
    if (rpl->role == WREN_RPL_ROUTER) {
        send_dio(rpl, all_rpl_nodes);
    }
    wren_trickle_stop(rpl->node, &rpl->trickle);
    memset(rpl->parents, 0, sizeof(rpl->parents));
    rpl->next_dao_s = 0;
    rpl->dao_wait = false;
    rpl->next_dis_s = now_s(rpl) + 1;
    /* RFC 6550 3.2.4, 18.2.x: a router MAY become the root of a floating
     * DODAG (rpl_tick): at once when it lost its links, a little later when
     * its parent poisoned (that parent floats one itself: follow it) */
    rpl->float_due = rpl->may_float;
    rpl->float_at_s = now_s(rpl) + (rpl->float_wait ? FLOAT_WAIT_S : 0);
}

/* RFC 6550 3.2.4: a detached router roots a floating DODAG (G clear, its
 * own address as DODAGID, the instance and configuration it had, a new
 * version) so that the nodes below it stay connected and route among
 * themselves; role ROOT until it hears a grounded DODAG (leave_float). */
static void float_root(struct wren_rpl *rpl)
{
    rpl->float_due = false;
    if (rpl->addr[0] == 0) {
        return; /* no address of ours to name the DODAG with */
    }
    rpl->role = WREN_RPL_ROOT;
    rpl->floating = true;
    rpl->grounded = false;
    rpl->stats.float_formed++;
    memcpy(rpl->dodagid, rpl->addr, 16);
    rpl->version = seq_next(rpl->version);
    rpl->dtsn = seq_next(rpl->dtsn);
    rpl->rank = rpl->cfg.min_hop_rank_inc; /* ROOT_RANK */
    rpl->lowest_rank = rpl->rank;
    if (rpl->mop == RPL_MOP_NON_STORING) {
        wren_rpl_clear_routes(rpl); /* (a router's table held none) */
    }
    trickle_start(rpl);
    send_dio(rpl, all_rpl_nodes);
}

/* A grounded DODAG of the instance is heard (RFC 6552 4.2, RFC 6719 3.4:
 * grounded is preferred to floating): a floating root gives its role up, a
 * node of a floating DODAG leaves it; the caller joins the grounded one.
 * Storing: the routes below stay and go up to the new parent (marked in
 * select_parent); non-storing: the floating root's routes go (the grounded
 * root learns them from the DAOs every node sends it on joining). */
static void leave_float(struct wren_rpl *rpl)
{
    rpl->stats.float_rejoin++;
    if (rpl->floating) {
        rpl->floating = false;
        rpl->role = WREN_RPL_ROUTER;
        if (rpl->mop == RPL_MOP_NON_STORING) {
            wren_rpl_clear_routes(rpl);
        }
    } else {
        default_route(rpl, NULL);
    }
    wren_trickle_stop(rpl->node, &rpl->trickle);
    rpl->joined = false;
    rpl->pref = -1;
    rpl->rank = RPL_INFINITE_RANK;
    memset(rpl->parents, 0, sizeof(rpl->parents));
    rpl->next_dao_s = 0;
    rpl->dao_wait = false;
    /* should the grounded DIO not be taken after all, float again */
    rpl->float_due = rpl->may_float;
    rpl->float_at_s = now_s(rpl) + FLOAT_WAIT_S;
}

/* ETX of the link to @p p (x 128) from the interface's link estimator
 * (GET WREN_NETOPT_LINK_ETX); ETX_UNKNOWN before any frame went to it. */
static uint32_t link_etx(struct wren_rpl *rpl, const struct wren_rpl_parent *p)
{
    struct wren_netif *netif = wren_netif_get(rpl->node, rpl->if_id);
    struct wren_link_etx q = { .len = 0 };
    q.len = wren_ipv6_l2_from_iid(p->addr + 8, q.addr);
    if (netif == NULL ||
        wren_netapi_get(rpl->node, &netif->module, WREN_NETOPT_LINK_ETX, 0, &q, sizeof(q)) < 0) {
        return ETX_UNKNOWN;
    }
    uint16_t etx;
    memcpy(&etx, q.etx, 2);
    return etx;
}

/* Our rank through @p p; with @p strict RPL_INFINITE_RANK if the link is
 * too poor to use (without, the best of poor links is still a parent).
 * OF0 (RFC 6552 4.1): the parent's rank + 3 x MinHopRankIncrease. MRHOF
 * (RFC 6719, ETX metric): the parent's rank + the link's ETX in units of
 * MinHopRankIncrease (ETX 1: one MinHopRankIncrease). */
static uint32_t rank_via(struct wren_rpl *rpl, struct wren_rpl_parent *p, bool strict)
{
    uint32_t etx = link_etx(rpl, p);
    p->etx = (uint16_t)(etx > 0xffff ? 0xffff : etx);
    if (p->rank >= RPL_INFINITE_RANK || (strict && etx > MAX_LINK_METRIC)) {
        return RPL_INFINITE_RANK;
    }
    if (etx > MAX_LINK_METRIC) {
        etx = MAX_LINK_METRIC;
    }
    uint32_t inc = rpl->cfg.ocp == OCP_MRHOF
                       ? etx * rpl->cfg.min_hop_rank_inc / WREN_LINK_ETX_ONE
                       : rank_inc(rpl);
    uint32_t r = (uint32_t)p->rank + (inc ? inc : 1);
    return r >= RPL_INFINITE_RANK ? RPL_INFINITE_RANK : r;
}

/* Choose the preferred parent: the lowest rank through it, kept unless
 * another is better by MinHopRankIncrease (hysteresis); parents that would
 * take our rank beyond lowest + MaxRankIncrease are not eligible. */
static void select_parent(struct wren_rpl *rpl)
{
    int best = -1;
    uint32_t best_rank = RPL_INFINITE_RANK, cur_rank = RPL_INFINITE_RANK;
    /* pass 0: good links to neighbours ranked below us; pass 1: good links
     * to neighbours ranked like us (siblings: a node below us ranks at least
     * MinHopRankIncrease more), moving down the DODAG (8.2.2.4) when nothing
     * above is left; pass 2: the best of poor links (worse than ETX 4), so a
     * transient loss does not detach a node that has a single parent */
    int pass = 0;
    for (; pass < 3 && best < 0; pass++) {
        uint32_t below = !rpl->joined ? RPL_INFINITE_RANK + 1u
                         : (uint32_t)rpl->rank + (pass == 1 ? rpl->cfg.min_hop_rank_inc : 0u);
        for (int i = 0; i < CONFIG_WREN_RPL_PARENTS; i++) {
            struct wren_rpl_parent *p = &rpl->parents[i];
            if (!p->used || (i != rpl->pref && p->rank >= below) ||
                (pass == 2 && rpl->pref >= 0 && i != rpl->pref)) {
                continue; /* pass 2 keeps the parent we have, if any */
            }
            uint32_t r = rank_via(rpl, p, pass < 2);
            if (i == rpl->pref) {
                cur_rank = r;
            }
            if (r >= RPL_INFINITE_RANK ||
                (rpl->cfg.max_rank_inc && rpl->lowest_rank != RPL_INFINITE_RANK &&
                 r > (uint32_t)rpl->lowest_rank + rpl->cfg.max_rank_inc)) {
                continue;
            }
            if (best < 0 || r < best_rank) {
                best = i;
                best_rank = r;
            }
        }
    }
    if (best < 0) {
        if (rpl->joined) {
            detach(rpl);
        }
        return;
    }
    if (pass == 3 && best == rpl->pref) {
        /* only the preferred parent, over a link that fails: keep it and our
         * rank (a higher one could make a node below us look like a parent),
         * probe the others, and detach if nothing better comes (rpl_tick) */
        if (rpl->bad_since_s == 0) {
            rpl->bad_since_s = now_s(rpl);
        }
        return;
    }
    rpl->bad_since_s = 0;
    /* hysteresis: OF0 keeps the parent unless another is better by
     * MinHopRankIncrease, MRHOF by PARENT_SWITCH_THRESHOLD (in ETX units) */
    uint32_t hyst = rpl->cfg.ocp == OCP_MRHOF
                        ? PARENT_SWITCH_THRESHOLD * (uint32_t)rpl->cfg.min_hop_rank_inc /
                              WREN_LINK_ETX_ONE
                        : rpl->cfg.min_hop_rank_inc;
    if (rpl->pref >= 0 && rpl->pref != best && rpl->parents[rpl->pref].used &&
        cur_rank < RPL_INFINITE_RANK && cur_rank < best_rank + hyst) {
        best = rpl->pref;
        best_rank = cur_rank;
    }
    bool changed = best != rpl->pref;
    int old = rpl->pref;
    if (changed && old >= 0) {
        rpl->stats.parent_switch++;
    }
    rpl->pref = (int8_t)best;
    rpl->rank = (uint16_t)best_rank;
    if (rpl->rank < rpl->lowest_rank || rpl->lowest_rank == RPL_INFINITE_RANK) {
        rpl->lowest_rank = rpl->rank;
    }
    if (changed) {
        default_route(rpl, rpl->parents[best].addr);
        rpl->path_seq = seq_next(rpl->path_seq);
        /* storing: the new parent (and the routers above it) knows nothing
         * of the nodes below us yet; every route we hold goes up again (an
         * ancestor that held one through our old parent takes it from the
         * new path, same path sequence, 9.2.2) */
        for (unsigned i = 0; rpl->mop != RPL_MOP_NON_STORING && i < rpl->n_routes; i++) {
            if (rpl->routes[i].plen) {
                /* (a no-path still to go up stays one) */
                rpl->routes[i].flags = (uint8_t)((rpl->routes[i].flags & RT_NOPATH) | RT_DIRTY);
            }
        }
        if (rpl->mop != RPL_MOP_NON_STORING && old >= 0 && rpl->parents[old].used) {
            wren_rpl_send_no_path(rpl, rpl->parents[old].addr);
        }
        schedule_dao(rpl);
        wren_trickle_inconsistent(rpl->node, &rpl->trickle);
    }
}

static struct wren_rpl_parent *parent_find(struct wren_rpl *rpl, const uint8_t *addr)
{
    for (int i = 0; i < CONFIG_WREN_RPL_PARENTS; i++) {
        if (rpl->parents[i].used && memcmp(rpl->parents[i].addr, addr, 16) == 0) {
            return &rpl->parents[i];
        }
    }
    return NULL;
}

/* Add or update a candidate; a full table keeps the better ranked ones. */
static void parent_update(struct wren_rpl *rpl, const uint8_t *addr, uint16_t rank, uint8_t dtsn)
{
    struct wren_rpl_parent *p = parent_find(rpl, addr);
    if (p == NULL) {
        struct wren_rpl_parent *worst = NULL;
        for (int i = 0; i < CONFIG_WREN_RPL_PARENTS && p == NULL; i++) {
            if (!rpl->parents[i].used) {
                p = &rpl->parents[i];
            } else if (i != rpl->pref && (worst == NULL || rpl->parents[i].rank > worst->rank)) {
                worst = &rpl->parents[i];
            }
        }
        if (p == NULL) {
            rpl->stats.parents_full++;
            if (worst == NULL || worst->rank <= rank) {
                return;
            }
            p = worst;
        }
        memset(p, 0, sizeof(*p));
        memcpy(p->addr, addr, 16);
        p->used = 1;
    }
    p->rank = rank;
    p->dtsn = dtsn;
    p->heard_s = now_s(rpl);
}

/* ---- receiving --------------------------------------------------------------- */

/* RFC 6550 8.2.3: join the DODAG this DIO describes */
static void join(struct wren_rpl *rpl, const struct rpl_dio *d)
{
    rpl->joined = true;
    rpl->stats.joined++;
    rpl->grounded = (d->g_mop_prf & RPL_DIO_G) != 0;
    rpl->float_due = false;
    rpl->instance = d->instance;
    rpl->version = d->version;
    rpl->mop = RPL_DIO_MOP(d->g_mop_prf);
    memcpy(rpl->dodagid, d->dodagid, 16);
    rpl->lowest_rank = RPL_INFINITE_RANK;
    rpl->pref = -1;
    rpl->dtsn = SEQ_INIT;
    take_address(rpl);
    if (rpl->role == WREN_RPL_ROUTER) {
        struct wren_module *ip = ipv6_layer(rpl);
        uint8_t fwd = 1;
        if (ip) {
            wren_netapi_set(rpl->node, ip, WREN_NETOPT_IPV6_FORWARDING, 0, &fwd, 1);
        }
    }
}

/* RFC 4862 5.5.3 (b, c), RFC 6550 6.7.10: a prefix a node may form an
 * address from and advertise: not multicast, link-local, loopback or
 * unspecified (an all-zero /64 covers ::1 and :: too); lengths above 128
 * the parser refused. ff02::/64 and fe80::/64 were taken, and a router's
 * RPL address became its link-local one. */
static bool pio_usable(const struct rpl_opt_prefix *p)
{
    static const uint8_t zero64[8];
    uint8_t a[16] = { 0 };
    if (p->prefix_len == 0 || p->prefix_len > 128) {
        return false;
    }
    memcpy(a, p->prefix, (p->prefix_len + 7u) / 8);
    if (p->prefix_len % 8) {
        a[p->prefix_len / 8] &= (uint8_t)(0xff00u >> (p->prefix_len % 8));
    }
    return !wren_ipv6_addr_is_multicast(a) && !wren_ipv6_addr_is_link_local(a) &&
           !wren_ipv6_addr_is_loopback(a) && !wren_ipv6_addr_is_unspecified(a) &&
           (p->prefix_len > 64 || memcmp(a, zero64, 8) != 0);
}

/* The local limits on a DODAG configuration's timers (rpl.h: a DIO must
 * neither make us flood nor silence us; RFC 6550 6.7.6 leaves the values to
 * the root). DIOIntervalMin within [IMIN_MIN, IMAX_MAX], Imin + doublings
 * at most IMAX_MAX, Default Lifetime x Lifetime Unit at least
 * LIFETIME_MIN_S (DAOs refresh at half of it). DIORedundancyConstant is
 * not bounded: whatever k, Trickle sends at most one DIO per interval.
 * Returns whether a value had to change. */
static bool cfg_bound(struct rpl_opt_config *c)
{
    bool out = false;
    if (c->dio_int_min < CONFIG_WREN_RPL_DIO_IMIN_MIN || c->dio_int_min > CONFIG_WREN_RPL_DIO_IMAX_MAX) {
        c->dio_int_min = c->dio_int_min < CONFIG_WREN_RPL_DIO_IMIN_MIN ? CONFIG_WREN_RPL_DIO_IMIN_MIN
                                                                       : CONFIG_WREN_RPL_DIO_IMAX_MAX;
        out = true;
    }
    if (c->dio_int_min + c->dio_int_doublings > CONFIG_WREN_RPL_DIO_IMAX_MAX) {
        c->dio_int_doublings = (uint8_t)(CONFIG_WREN_RPL_DIO_IMAX_MAX - c->dio_int_min);
        out = true;
    }
    uint32_t unit = c->lifetime_unit ? c->lifetime_unit : 1;
    if ((uint32_t)c->def_lifetime * unit < CONFIG_WREN_RPL_LIFETIME_MIN_S) {
        uint32_t units = (CONFIG_WREN_RPL_LIFETIME_MIN_S + unit - 1) / unit;
        c->def_lifetime = (uint8_t)(units < 255 ? units : 1);
        c->lifetime_unit = (uint16_t)(units < 255 ? unit : CONFIG_WREN_RPL_LIFETIME_MIN_S);
        out = true;
    }
    return out;
}

/* Whether configurations @p a and @p b run Trickle alike. */
static bool cfg_same_timers(const struct rpl_opt_config *a, const struct rpl_opt_config *b)
{
    return a->dio_int_min == b->dio_int_min && a->dio_int_doublings == b->dio_int_doublings &&
           a->dio_redundancy == b->dio_redundancy;
}

/* The DIO's options: the configuration (adopted when given; joining,
 * @p adopt, needs one) and the prefix. Returns 0, -EINVAL (an option does
 * not parse, or asks for what we cannot do), -ENOENT (joining, and no
 * configuration: RFC 6550 lets a root send it only now and then) */
static int dio_options(struct wren_rpl *rpl, const struct rpl_msg *m, bool adopt)
{
    struct rpl_opt_iter it;
    struct rpl_opt o;
    int rc;
    struct rpl_opt_config cfg;
    bool have_cfg = false;
    struct rpl_opt_prefix pio;
    bool have_pio = false;
    wren_rpl_opt_iter_init(&it, m->opts, m->opts_len);
    while ((rc = wren_rpl_opt_next(&it, &o)) > 0) {
        if (o.type == RPL_OPT_CONFIG) {
            if (wren_rpl_opt_config_parse(&o, &cfg) < 0) {
                return -EINVAL;
            }
            have_cfg = true;
        } else if (o.type == RPL_OPT_PREFIX) {
            int prc = wren_rpl_opt_prefix_parse(&o, &pio);
            if (prc == -RPL_ERR_PREFIX_LEN) {
                rpl->stats.pio_refused++; /* RFC 4862 5.5.3: the option is ignored */
                continue;
            }
            if (prc < 0) {
                return -EINVAL;
            }
            have_pio = true;
        }
    }
    if (rc < 0) {
        return -EINVAL;
    }
    if (have_cfg && (cfg.min_hop_rank_inc == 0 || cfg.lifetime_unit == 0 || cfg.ocp > OCP_MRHOF)) {
        return -EINVAL; /* a rank or lifetime arithmetic we cannot do, an unknown OF */
    }
    if (adopt && !have_cfg) {
        return -ENOENT; /* joining needs the configuration */
    }
    if (have_cfg) {
        rpl->stats.cfg_clamped += cfg_bound(&cfg);
        bool retime = !adopt && !cfg_same_timers(&cfg, &rpl->cfg);
        rpl->cfg = cfg;
        if (retime && wren_trickle_running(&rpl->trickle)) {
            trickle_start(rpl); /* the new values at once, not after Imax */
        }
    }
    if (have_pio && !pio_usable(&pio)) {
        rpl->stats.pio_refused++; /* neither taken nor passed on */
        have_pio = false;
    }
    if (have_pio && (pio.flags & RPL_PIO_A) && pio.prefix_len == 64) {
        bool changed = rpl->prefix_len != 64 || memcmp(rpl->prefix, pio.prefix, 8) != 0;
        memset(rpl->prefix, 0, 16);
        memcpy(rpl->prefix, pio.prefix, 8);
        rpl->prefix_len = 64;
        rpl->pio_flags = pio.flags;
        rpl->pio_valid = pio.valid;
        rpl->pio_preferred = pio.preferred;
        if (changed && !adopt) {
            take_address(rpl);
        }
    }
    return 0;
}

/* A DIO of a DODAG we would join, without its configuration (RIOT and
 * Contiki-NG put it in their first DIOs only): not malformed. RFC 6550 8.3:
 * a unicast DIS to its sender is answered by a unicast DIO that carries it.
 * One such DIS every CFG_DIS_S at most, whoever sent the DIOs (a root's
 * neighbours hear one DIO per Trickle interval; a flood of them gets one
 * DIS a few seconds). */
static void ask_config(struct wren_rpl *rpl, const uint8_t *src)
{
    uint32_t now = now_s(rpl);
    rpl->stats.dio_no_config++;
    if ((int32_t)(now - rpl->next_cfg_dis_s) < 0) {
        return;
    }
    rpl->next_cfg_dis_s = now + CFG_DIS_S;
    send_dis_to(rpl, src);
}

static void on_dio(struct wren_rpl *rpl, const uint8_t *src, const struct rpl_msg *m)
{
    const struct rpl_dio *d = &m->dio;
    rpl->stats.rx_dio++;
    bool grounded = (d->g_mop_prf & RPL_DIO_G) != 0;
    /* (the guard keeps new candidates out, not news of the parents we took
     * since: refusing those froze a parent's rank when it moved down, and
     * two siblings each took the other, a loop until the guard ended) */
    bool stale = (int32_t)(now_s(rpl) - rpl->guard_until_s) < 0 &&
                 d->version == rpl->guard_version && d->rank >= rpl->guard_rank &&
                 d->rank < RPL_INFINITE_RANK && /* (a poisoning is never answered) */
                 memcmp(d->dodagid, rpl->guard_dodagid, 16) == 0 && parent_find(rpl, src) == NULL;
    if (stale) {
        rpl->stats.rx_drop_rank++; /* the version we left, from our old sub-DODAG maybe */
        if (!rpl->joined && rpl->role == WREN_RPL_ROUTER) {
            send_dio(rpl, src); /* poisoned again: the one we sent may have been lost */
        }
        return;
    }
    if (rpl->role == WREN_RPL_ROOT && rpl->floating && grounded &&
        d->instance == rpl->instance && d->rank < RPL_INFINITE_RANK) {
        leave_float(rpl); /* and join it below, as a detached router */
    }
    if (rpl->role == WREN_RPL_ROOT) {
        if (d->instance == rpl->instance && memcmp(d->dodagid, rpl->dodagid, 16) == 0 &&
            d->version != rpl->version) {
            wren_trickle_inconsistent(rpl->node, &rpl->trickle);
        } else if (d->instance == rpl->instance && rpl->grounded && !grounded) {
            /* a floating DODAG of the instance next to us: a DIO of ours
             * soon brings its nodes back (RFC 6550 8.3 allows more events
             * than it lists to be inconsistencies) */
            wren_trickle_inconsistent(rpl->node, &rpl->trickle);
        } else if (d->instance == rpl->instance) {
            wren_trickle_consistent(&rpl->trickle);
        }
        return;
    }
    unsigned mop = RPL_DIO_MOP(d->g_mop_prf);
    if ((mop != RPL_MOP_STORING && mop != RPL_MOP_NON_STORING) || d->instance > 127) {
        rpl->stats.rx_drop_unsupported++;
        return;
    }
    if (rpl->want_mop != 0xff && mop != rpl->want_mop) {
        /* told to expect one mode: a DODAG of the other is not joined, and
         * says so (counted, and `rpl` shows the mode heard) */
        rpl->stats.dio_mop_mismatch++;
        rpl->heard_mop = (uint8_t)mop;
        return;
    }
    if (!wren_ipv6_addr_is_link_local(src)) {
        rpl->stats.rx_drop_malformed++;
        return;
    }
    bool same = rpl->joined && d->instance == rpl->instance &&
                memcmp(d->dodagid, rpl->dodagid, 16) == 0;
    if (rpl->joined && !same && d->instance == rpl->instance && d->rank < RPL_INFINITE_RANK) {
        struct wren_rpl_parent *gone = parent_find(rpl, src);
        if (grounded && !rpl->grounded) {
            leave_float(rpl); /* grounded is preferred: join it below */
        } else if (gone) {
            /* a parent of ours now advertises another DODAG (it floats one,
             * or went to another): it left ours (8.2.2.5); with no other
             * parent we detach and follow it below */
            memset(gone, 0, sizeof(*gone));
            rpl->float_wait = true;
            select_parent(rpl);
            rpl->float_wait = false;
        } else if (rpl->grounded && !grounded && rpl->role == WREN_RPL_ROUTER) {
            wren_trickle_inconsistent(rpl->node, &rpl->trickle); /* as a root does */
        }
    }
    if (!rpl->joined) {
        if (d->rank >= RPL_INFINITE_RANK) {
            rpl->stats.rx_drop_rank++;
            return;
        }
        struct rpl_opt_config saved = rpl->cfg;
        int rc = dio_options(rpl, m, true);
        if (rc == -ENOENT) {
            ask_config(rpl, src);
            return;
        }
        if (rc < 0) {
            rpl->cfg = saved;
            rpl->stats.rx_drop_malformed++;
            return;
        }
        if (d->rank < rpl->cfg.min_hop_rank_inc) {
            rpl->cfg = saved; /* below ROOT_RANK: no node ranks there (8.2.2) */
            rpl->stats.rx_drop_rank++;
            return;
        }
        join(rpl, d);
        parent_update(rpl, src, d->rank, d->dtsn);
        select_parent(rpl);
        if (rpl->joined) {
            trickle_start(rpl);
        }
        return;
    }
    if (!same) {
        rpl->stats.rx_drop_unsupported++; /* one DODAG at a time */
        return;
    }
    if (seq_newer(d->version, rpl->version)) {
        /* global repair (RFC 6550 8.2.2.2): a new version: start over with
         * this sender, keep our address and routes */
        if (d->rank >= RPL_INFINITE_RANK || d->rank < rpl->cfg.min_hop_rank_inc ||
            dio_options(rpl, m, false) < 0) {
            rpl->stats.rx_drop_rank++;
            return;
        }
        rpl->stats.new_version++;
        rpl->version = d->version;
        memset(rpl->parents, 0, sizeof(rpl->parents));
        rpl->pref = -1;
        rpl->lowest_rank = RPL_INFINITE_RANK;
        parent_update(rpl, src, d->rank, d->dtsn);
        select_parent(rpl);
        wren_trickle_inconsistent(rpl->node, &rpl->trickle);
        return;
    }
    if (d->version != rpl->version) {
        wren_trickle_inconsistent(rpl->node, &rpl->trickle); /* it lags: tell it */
        return;
    }
    if (dio_options(rpl, m, false) < 0) {
        rpl->stats.rx_drop_malformed++;
        return;
    }
    struct wren_rpl_parent *p = parent_find(rpl, src);
    if (d->rank < rpl->cfg.min_hop_rank_inc) {
        rpl->stats.rx_drop_rank++; /* below ROOT_RANK: no node ranks there (8.2.2) */
        return;
    }
    if (d->rank >= RPL_INFINITE_RANK) {
        /* poisoned: the sender left (8.2.2.5) */
        if (p) {
            memset(p, 0, sizeof(*p));
            rpl->float_wait = true; /* (if we detach: it may float, follow it) */
            select_parent(rpl);
            rpl->float_wait = false;
            wren_trickle_inconsistent(rpl->node, &rpl->trickle);
        }
        return;
    }
    wren_trickle_consistent(&rpl->trickle);
    if (p == NULL && (uint32_t)d->rank >= (uint32_t)rpl->rank + rpl->cfg.min_hop_rank_inc) {
        rpl->stats.rx_drop_rank++; /* possibly below us: never a parent */
        return;
    }
    if (p && rpl->pref >= 0 && p == &rpl->parents[rpl->pref] && d->dtsn != p->dtsn) {
        /* 9.6: the parent asks for fresh DAOs (any change: a root that
         * rebooted does not remember its last DTSN); a router asks its own
         * children in turn, their routes went up through it */
        schedule_dao(rpl);
        if (rpl->role == WREN_RPL_ROUTER) {
            rpl->dtsn = seq_next(rpl->dtsn);
            wren_trickle_inconsistent(rpl->node, &rpl->trickle);
        }
    }
    parent_update(rpl, src, d->rank, d->dtsn);
    select_parent(rpl);
}

static void on_dis(struct wren_rpl *rpl, const uint8_t *src, const uint8_t *dst)
{
    rpl->stats.rx_dis++;
    if (rpl->role == WREN_RPL_LEAF || !(rpl->joined || rpl->role == WREN_RPL_ROOT)) {
        return;
    }
    if (wren_ipv6_addr_is_multicast(dst)) {
        wren_trickle_inconsistent(rpl->node, &rpl->trickle); /* 8.3: reset */
    } else {
        send_dio(rpl, src);
    }
}

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
        on_dis(rpl, src, dst);
        break;
    case RPL_CODE_DIO:
        on_dio(rpl, src, &m);
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

static void rpl_tick(struct wren_timer *t, void *arg)
{
    (void)t;
    struct wren_rpl *rpl = arg;
    uint32_t now = now_s(rpl);
    if (rpl->role == WREN_RPL_OFF) {
        return;
    }
    wren_timer_set(rpl->node, &rpl->tick,
                   TICK_US - TICK_JITTER_US +
                       wren_node_random_below(rpl->node, 2 * TICK_JITTER_US));
    for (unsigned i = 0; i < rpl->n_routes; i++) {
        struct wren_rpl_route *r = &rpl->routes[i];
        if (r->plen && (int32_t)(now - r->expires_s) >= 0) {
            rpl->stats.route_expired += route_live(r);
            memset(r, 0, sizeof(*r));
        }
    }
    wren_rpl_rul_tick(rpl, now);
    if (rpl->role == WREN_RPL_ROOT) {
        return;
    }
    if (!rpl->joined) {
        if (rpl->float_due && (int32_t)(now - rpl->float_at_s) >= 0) {
            float_root(rpl);
            return;
        }
        if (now >= rpl->next_dis_s) {
            send_dis(rpl);
            rpl->next_dis_s = now + DIS_INTERVAL_S + wren_node_random_below(rpl->node, 5);
        }
        return;
    }
    /* parents silent for three of the longest DIO intervals, and at least
     * 10 minutes, are gone. DIOs are broadcasts: on TSCH they share one cell
     * every ~2 s with every neighbour's and most are lost, and with a 180 s
     * floor nodes kept dropping parents they were still talking to (6TiSCH
     * paper's 30-node floor: PDR 15-31 % -> 33-52 %). The preferred parent
     * never expires this way: with Trickle's suppression (k > 0) a parent
     * may rightly stay silent for ever, and it is alive as long as our
     * unicasts to it (DAOs, data) are acknowledged; one that is gone shows
     * in their outcomes (bad_since_s, probes, detach). */
    uint32_t imax_s = (rpl->trickle.imax ? rpl->trickle.imax : imax_ms(rpl)) / 1000u;
    uint32_t silent_s = 3 * (imax_s > 200 ? imax_s : 200);
    for (int i = 0; i < CONFIG_WREN_RPL_PARENTS; i++) {
        struct wren_rpl_parent *p = &rpl->parents[i];
        if (p->used && i != rpl->pref && now - p->heard_s > silent_s) {
            memset(p, 0, sizeof(*p));
            rpl->stats.parent_expired++;
        }
    }
    /* link estimates change with every unicast: look at the parents again */
    select_parent(rpl);
    if (!rpl->joined) {
        return;
    }
    if (!rpl->bad_since_s && now >= rpl->next_probe_s) {
        /* now and then, a candidate whose link looked too poor gets a probe:
         * losses seen once (collisions at start-up) must not condemn a
         * link for ever when nothing else is sent over it */
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
            send_dis_to(rpl, rpl->parents[worst].addr);
        }
    }
    if (rpl->bad_since_s) {
        if (now - rpl->bad_since_s >= BAD_HOLD_S) {
            rpl->bad_since_s = 0;
            detach(rpl); /* poison: the nodes below us look elsewhere */
            return;
        }
        /* a unicast DIS to another candidate: its answer and the ACK tell
         * the link estimator how good that link is now (RFC 6719 probing) */
        for (int k = 0; k < CONFIG_WREN_RPL_PARENTS; k++) {
            int i = (rpl->probe_next + k) % CONFIG_WREN_RPL_PARENTS;
            if (rpl->parents[i].used && i != rpl->pref) {
                rpl->probe_next = (uint8_t)(i + 1);
                send_dis_to(rpl, rpl->parents[i].addr);
                break;
            }
        }
    }
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
            uint32_t soon = now + 30 + wren_node_random_below(rpl->node, 10);
            if (rpl->next_dao_s == 0 || rpl->next_dao_s > soon) {
                rpl->next_dao_s = soon;
            }
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

/* ---- module ----------------------------------------------------------------- */

static void stop(struct wren_rpl *rpl)
{
    wren_trickle_stop(rpl->node, &rpl->trickle);
    wren_rpl_clear_routes(rpl);
    wren_rpl_rul_clear(rpl);
    if (rpl->joined || rpl->role == WREN_RPL_ROOT) {
        default_route(rpl, NULL);
    }
    rpl->joined = false;
    rpl->floating = false;
    rpl->float_due = false;
    rpl->guard_until_s = 0;
    rpl->pref = -1;
    rpl->rank = RPL_INFINITE_RANK;
    memset(rpl->parents, 0, sizeof(rpl->parents));
}

int wren_rpl_set_role(struct wren_rpl *rpl, const struct wren_rpl_role_cfg *c)
{
    struct wren_module *ip = ipv6_layer(rpl);
    if (c->role > WREN_RPL_LEAF) {
        return -EINVAL;
    }
    if (c->role == WREN_RPL_ROOT &&
        (c->prefix_len == 0 || c->prefix_len > 128 ||
         (c->mop != RPL_MOP_STORING && c->mop != RPL_MOP_NON_STORING) || c->ocp > OCP_MRHOF ||
         c->instance > 127)) {
        return -EINVAL;
    }
#if CONFIG_WREN_RPL_ROOT_TIMERS
    if (c->role == WREN_RPL_ROOT && (c->flags & WREN_RPL_CFG_TIMERS) &&
        (c->dio_imin < CONFIG_WREN_RPL_DIO_IMIN_MIN ||
         c->dio_imin + c->dio_doublings > CONFIG_WREN_RPL_DIO_IMAX_MAX ||
         (uint32_t)c->lifetime * c->lifetime_unit < CONFIG_WREN_RPL_LIFETIME_MIN_S)) {
        /* the local limits every node applies to a configuration (cfg_bound) */
        return -EINVAL;
    }
#endif
    if ((c->role == WREN_RPL_ROUTER || c->role == WREN_RPL_LEAF) && (c->flags & WREN_RPL_CFG_MOP) &&
        c->mop != RPL_MOP_STORING && c->mop != RPL_MOP_NON_STORING) {
        return -EINVAL;
    }
    if (ip == NULL) {
        return -ENODEV;
    }
    stop(rpl);
    rpl->role = c->role;
    rpl->want_mop = c->role != WREN_RPL_ROOT && (c->flags & WREN_RPL_CFG_MOP) ? c->mop : 0xff;
    rpl->heard_mop = 0xff;
    rpl->next_cfg_dis_s = 0;
    rpl->grounded = c->role == WREN_RPL_ROOT && (c->flags & WREN_RPL_CFG_GROUNDED);
    rpl->may_float = c->role == WREN_RPL_ROUTER && !(c->flags & WREN_RPL_CFG_NO_FLOAT);
    if (c->role == WREN_RPL_OFF) {
        wren_timer_cancel(rpl->node, &rpl->tick);
        return 0;
    }
    /* a node without a role has no timer running (an idle simulation of
     * thousands of nodes pays nothing for RPL); the first tick at a random
     * phase of the second (nodes given their roles together) */
    wren_timer_set(rpl->node, &rpl->tick, 1 + wren_node_random_below(rpl->node, TICK_US));
    wren_netapi_set(rpl->node, ip, WREN_NETOPT_IPV6_GROUP_JOIN, rpl->if_id, all_rpl_nodes, 16);
    rpl->version = SEQ_INIT;
    rpl->dao_seq = SEQ_INIT;
    rpl->path_seq = SEQ_INIT;
    rpl->dtsn = SEQ_INIT;
    if (c->role != WREN_RPL_ROOT) {
        rpl->next_dis_s = now_s(rpl) + wren_node_random_below(rpl->node, 2);
        return 0;
    }
    rpl->instance = c->instance;
    rpl->mop = c->mop;
    rpl->cfg = (struct rpl_opt_config){
        .dio_int_doublings = DEF_DOUBLINGS, .dio_int_min = DEF_IMIN,
        .dio_redundancy = DEF_REDUNDANCY, .max_rank_inc = DEF_MAX_RANK_INC,
        .min_hop_rank_inc = WREN_RPL_MIN_HOP_RANK_INC, .ocp = c->ocp,
        .def_lifetime = DEF_LIFETIME, .lifetime_unit = DEF_LIFETIME_UNIT,
    };
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
    take_address(rpl);
    memcpy(rpl->dodagid, rpl->addr[0] ? rpl->addr : rpl->prefix, 16);
    /* a DTSN of its own: after a reboot (routes lost) the nodes see it
     * change and announce their routes again */
    rpl->dtsn = (uint8_t)wren_node_random(rpl->node);
    rpl->rank = WREN_RPL_MIN_HOP_RANK_INC; /* ROOT_RANK */
    rpl->lowest_rank = rpl->rank;
    uint8_t fwd = 1;
    wren_netapi_set(rpl->node, ip, WREN_NETOPT_IPV6_FORWARDING, 0, &fwd, 1);
    trickle_start(rpl);
    return 0;
}

int wren_rpl_set_route_mem(struct wren_rpl *rpl, struct wren_rpl_route *mem, uint32_t n)
{
    if (rpl->role != WREN_RPL_OFF) {
        return -EBUSY; /* routes in use (stop() forgot them when the role went off) */
    }
    if (mem == NULL) {
        mem = rpl->own_routes;
        n = CONFIG_WREN_RPL_ROUTES;
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
    wren_trickle_inconsistent(rpl->node, &rpl->trickle);
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

static int rpl_get(struct wren_node *node, struct wren_module *self, uint16_t opt, uint16_t ctx,
                   void *val, size_t max)
{
    (void)node;
    (void)ctx;
    struct wren_rpl *rpl = (struct wren_rpl *)self;
    switch (opt) {
    case WREN_NETOPT_STATS: {
        /* the gauges: a table is full when used = size */
        unsigned n = 0;
        for (unsigned i = 0; i < rpl->n_routes; i++) {
            n += rpl->routes[i].plen != 0;
        }
        rpl->stats.routes_used = n;
        rpl->stats.routes_size = rpl->n_routes;
        n = 0;
        for (unsigned i = 0; i < CONFIG_WREN_RPL_PARENTS; i++) {
            n += rpl->parents[i].used != 0;
        }
        rpl->stats.parents_used = n;
        rpl->stats.parents_size = CONFIG_WREN_RPL_PARENTS;
        return wren_netopt_put(val, max, &rpl->stats, sizeof(rpl->stats));
    }
    case WREN_NETOPT_IF_ID:
        return wren_netopt_put(val, max, &rpl->if_id, 1);
    case WREN_NETOPT_RPL_ROLE:
        return wren_netopt_put(val, max, &rpl->role, 1);
    case WREN_NETOPT_RPL_PREFIX: {
        /* the DODAG's /64 while we route in it (a root, or a joined router):
         * the NIBs advertise it to hosts that run no RPL (RFC 9010 4) */
        struct wren_rpl_prefix p = { .len = 64 };
        if ((rpl->role != WREN_RPL_ROOT && (rpl->role != WREN_RPL_ROUTER || !rpl->joined)) ||
            rpl->prefix_len != 64) {
            return -ENOENT;
        }
        memcpy(p.prefix, rpl->prefix, 8);
        return wren_netopt_put(val, max, &p, sizeof(p));
    }
    case WREN_NETOPT_RPL_RANK: {
        if (!CONFIG_WREN_RPL_PARENT_INFO) {
            return -ENOTSUP;
        }
        uint16_t r = rpl->joined || rpl->role == WREN_RPL_ROOT ? rpl->rank : RPL_INFINITE_RANK;
        return wren_netopt_put(val, max, &r, sizeof(r));
    }
    case WREN_NETOPT_RPL_PARENT: {
        /* the preferred parent's link-local address and EUI-64 (from its
         * IID, RFC 4944 6); a parent known only by a short address has none */
        uint8_t pa[24];
        if (!CONFIG_WREN_RPL_PARENT_INFO) {
            return -ENOTSUP;
        }
        if (rpl->pref < 0 || rpl->role == WREN_RPL_ROOT) {
            return -ENOENT;
        }
        const struct wren_rpl_parent *p = &rpl->parents[rpl->pref];
        memcpy(pa, p->addr, 16);
        if (wren_ipv6_l2_from_iid(p->addr + 8, pa + 16) != 8) {
            return -ENOENT;
        }
        return wren_netopt_put(val, max, pa, sizeof(pa));
    }
    case WREN_NETOPT_RPL_RPI:
        return max < 16 ? -EOVERFLOW : wren_rpl_rpi_origin(rpl, val);
    case WREN_NETOPT_RPL_RPI_FWD:
        return max < 28 ? -EOVERFLOW : wren_rpl_rpi_forward(rpl, val);
    case WREN_NETOPT_RPL_ROUTE: {
        uint8_t dst[16];
        if (max < 18) {
            return -EOVERFLOW;
        }
        memcpy(dst, val, 16);
        return wren_rpl_route_lookup(rpl, dst, val);
    }
    case WREN_NETOPT_RPL_RUL:
        return max < 17 ? -EOVERFLOW : wren_rpl_rul_query(rpl, val);
    case WREN_NETOPT_RPL_TUNNEL:
        return max < 17 ? -EOVERFLOW : wren_rpl_tunnel(rpl, val, max);
    case WREN_NETOPT_RPL_SRH: {
        uint8_t dst[16];
        if (max < 16) {
            return -EOVERFLOW;
        }
        memcpy(dst, val, 16);
        return wren_rpl_source_route(rpl, dst, val, max);
    }
    default:
        return -ENOTSUP;
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
    rpl->pref = -1;
    rpl->rank = RPL_INFINITE_RANK;
    rpl->lowest_rank = RPL_INFINITE_RANK;
    rpl->routes = rpl->own_routes;
    rpl->n_routes = CONFIG_WREN_RPL_ROUTES;
    rpl->want_mop = rpl->heard_mop = rpl->dio_cfg_left = 0xff;
    if (wren_netif_get(node, if_id) == NULL) {
        return -ENODEV;
    }
    wren_trickle_init(&rpl->trickle, trickle_fire, rpl);
    wren_timer_init(&rpl->tick, rpl_tick, rpl);
    return wren_netreg_register(node, WREN_NETTYPE_ICMPV6, ICMPV6_RPL, &rpl->module, &rpl->reg);
}

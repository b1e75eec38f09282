/* RPL's parents and rank (RFC 6550 8.2): candidate parents, the
 * objective functions (OF0, RFC 6552; MRHOF with the ETX metric, RFC
 * 6719), the preferred parent and its hysteresis, detaching (poisoning) and
 * floating DODAGs (RFC 6550 3.2.4). DIOs: rpl_dio.c. */
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

/* RFC 6719 5: a parent is changed only for a path better by ETX 1.5 */
#define PARENT_SWITCH_THRESHOLD 192
/* a link nothing was sent over yet counts as ETX 2 */
#define ETX_UNKNOWN (2 * WREN_LINK_ETX_ONE)
/* RFC 6552 4.1: rank_increase = (Rf * Sp + Sr) * MinHopRankIncrease with
 * the default step of rank 3, Rf 1, Sr 0 */
#define OF0_STEP 3
/* seconds a router that detached because its preferred parent poisoned
 * waits for that parent's floating DODAG before it floats one of its own
 * (the parent floats at once: one floating DODAG for the sub-DODAG) */
#define FLOAT_WAIT_S 5
/* seconds a detached node refuses the version it left from nodes ranked
 * like or below it (struct wren_rpl, guard_*) */
#define GUARD_S 60

static uint16_t rank_inc(const struct wren_rpl *rpl)
{
    uint32_t inc = (uint32_t)OF0_STEP * rpl->cfg.min_hop_rank_inc;
    return inc > 0xffff ? 0xffff : (uint16_t)inc;
}

void wren_rpl_schedule_dao(struct wren_rpl *rpl)
{
    /* soon, jittered so that siblings do not collide */
    rpl->next_dao_s = wren_rpl_now_s(rpl) + 1 + wren_node_random_below(rpl->node, 2);
    rpl->dao_retries = 0;
    rpl->dao_jitter_s = 0;
}

/* RFC 6550 8.2.2.5: no parent left. Advertise an infinite rank once
 * (poisoning, so that children leave us) and look for a DODAG again. */
void wren_rpl_detach(struct wren_rpl *rpl)
{
    rpl->stats.detached++;
    wren_ipv6_addr_copy(rpl->guard_dodagid, rpl->dodagid);
    rpl->guard_version = rpl->version;
    rpl->guard_rank = rpl->rank;
    rpl->guard_until_s = wren_rpl_now_s(rpl) + GUARD_S;
    rpl->joined = false;
    rpl->bad_since_s = 0;
    rpl->pref = NO_PREF;
    rpl->rank = RPL_INFINITE_RANK;
    wren_rpl_default_route(rpl, NULL);
    if (rpl->role == WREN_RPL_ROUTER) {
        wren_rpl_send_dio(rpl, wren_rpl_all_nodes);
    }
    wren_trickle_stop(rpl->node, &rpl->trickle);
    memset(rpl->parents, 0, CONFIG_WREN_RPL_PARENTS * sizeof(rpl->parents[0]));
    rpl->next_dao_s = 0;
    rpl->dao_wait = false;
    rpl->next_dis_s = wren_rpl_now_s(rpl) + 1;
    /* RFC 6550 3.2.4, 18.2.x: a router MAY become the root of a floating
     * DODAG (rpl_tick): at once when it lost its links, a little later when
     * its parent poisoned (that parent floats one itself: follow it) */
    if (CONFIG_WREN_RPL_FLOATING) {
        rpl->float_due = rpl->may_float;
        rpl->float_at_s = wren_rpl_now_s(rpl) + (rpl->float_wait ? FLOAT_WAIT_S : 0);
    }
}

/* RFC 6550 3.2.4: a detached router roots a floating DODAG (G clear, its
 * own address as DODAGID, the instance and configuration it had, a new
 * version) so that the nodes below it stay connected and route among
 * themselves; role ROOT until it hears a grounded DODAG (leave_float). */
void wren_rpl_float_root(struct wren_rpl *rpl)
{
    rpl->float_due = false;
    if (rpl->addr[0] == 0) {
        return; /* no address of ours to name the DODAG with */
    }
    rpl->role = WREN_RPL_ROOT;
    rpl->floating = true;
    rpl->grounded = false;
    rpl->stats.float_formed++;
    wren_ipv6_addr_copy(rpl->dodagid, rpl->addr);
    rpl->version = seq_next(rpl->version);
    rpl->dtsn = seq_next(rpl->dtsn);
    rpl->rank = rpl->cfg.min_hop_rank_inc; /* ROOT_RANK */
    rpl->lowest_rank = rpl->rank;
    if (ns_mode(rpl)) {
        wren_rpl_clear_routes(rpl); /* (a router's table held none) */
    }
    wren_rpl_trickle_start(rpl);
    wren_rpl_send_dio(rpl, wren_rpl_all_nodes);
}

/* A grounded DODAG of the instance is heard (RFC 6552 4.2, RFC 6719 3.4:
 * grounded is preferred to floating): a floating root gives its role up, a
 * node of a floating DODAG leaves it; the caller joins the grounded one.
 * Storing: the routes below stay and go up to the new parent (marked in
 * select_parent); non-storing: the floating root's routes go (the grounded
 * root learns them from the DAOs every node sends it on joining). */
void wren_rpl_leave_float(struct wren_rpl *rpl)
{
    rpl->stats.float_rejoin++;
    if (CONFIG_WREN_RPL_FLOATING && rpl->floating) {
        rpl->floating = false;
        rpl->role = WREN_RPL_ROUTER;
        if (ns_mode(rpl)) {
            wren_rpl_clear_routes(rpl);
        }
    } else {
        wren_rpl_default_route(rpl, NULL);
    }
    wren_trickle_stop(rpl->node, &rpl->trickle);
    rpl->joined = false;
    rpl->pref = NO_PREF;
    rpl->rank = RPL_INFINITE_RANK;
    memset(rpl->parents, 0, CONFIG_WREN_RPL_PARENTS * sizeof(rpl->parents[0]));
    rpl->next_dao_s = 0;
    rpl->dao_wait = false;
    /* should the grounded DIO not be taken after all, float again */
    if (CONFIG_WREN_RPL_FLOATING) {
        rpl->float_due = rpl->may_float;
        rpl->float_at_s = wren_rpl_now_s(rpl) + FLOAT_WAIT_S;
    }
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

/* One pass of select_parent over the candidates (pass 0: good links to
 * neighbours ranked below us; 1: also those ranked like us; 2: the parent
 * we have, or any, over a poor link). Returns the best one's index, -1 if
 * none (*@p best_rank: its rank through it); *@p cur_rank gets ours
 * through the preferred parent when the pass looks at it. */
static int best_in_pass(struct wren_rpl *rpl, int pass, uint32_t *best_rank, uint32_t *cur_rank)
{
    int best = -1;
    uint32_t below = !rpl->joined ? RPL_INFINITE_RANK + 1u
                     : (uint32_t)rpl->rank + (pass == 1 ? rpl->cfg.min_hop_rank_inc : 0u);
    for (int i = 0; i < CONFIG_WREN_RPL_PARENTS; i++) {
        struct wren_rpl_parent *p = &rpl->parents[i];
        if (!p->used || (i != rpl->pref && p->rank >= below) ||
            (pass == 2 && rpl->pref != NO_PREF && i != rpl->pref)) {
            continue; /* pass 2 keeps the parent we have, if any */
        }
        uint32_t r = rank_via(rpl, p, pass < 2);
        if (i == rpl->pref) {
            *cur_rank = r;
        }
        if (r >= RPL_INFINITE_RANK ||
            (rpl->cfg.max_rank_inc && rpl->lowest_rank != RPL_INFINITE_RANK &&
             r > (uint32_t)rpl->lowest_rank + rpl->cfg.max_rank_inc)) {
            continue;
        }
        if (best < 0 || r < *best_rank) {
            best = i;
            *best_rank = r;
        }
    }
    return best;
}

/* A new preferred parent (the one before: @p old, or NO_PREF): the default
 * route through it, a new path sequence, our routes up to it again. */
static void parent_changed(struct wren_rpl *rpl, unsigned old)
{
    wren_rpl_default_route(rpl, rpl->parents[rpl->pref].addr);
    rpl->path_seq = seq_next(rpl->path_seq);
    /* storing: the new parent (and the routers above it) knows nothing
     * of the nodes below us yet; every route we hold goes up again (an
     * ancestor that held one through our old parent takes it from the
     * new path, same path sequence, 9.2.2) */
    for (unsigned i = 0; !ns_mode(rpl) && i < rpl->n_routes; i++) {
        if (rpl->routes[i].plen) {
            /* (a no-path still to go up stays one) */
            rpl->routes[i].flags = (uint8_t)((rpl->routes[i].flags & RT_NOPATH) | RT_DIRTY);
        }
    }
    if (!ns_mode(rpl) && old != NO_PREF && rpl->parents[old].used) {
        wren_rpl_send_no_path(rpl, rpl->parents[old].addr);
    }
    wren_rpl_schedule_dao(rpl);
    wren_rpl_trickle_reset(rpl);
}

/* Choose the preferred parent: the lowest rank through it, kept unless
 * another is better by MinHopRankIncrease (hysteresis); parents that would
 * take our rank beyond lowest + MaxRankIncrease are not eligible. */
void wren_rpl_select_parent(struct wren_rpl *rpl)
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
        best = best_in_pass(rpl, pass, &best_rank, &cur_rank);
    }
    if (best < 0) {
        if (rpl->joined) {
            wren_rpl_detach(rpl);
        }
        return;
    }
    if (pass == 3 && best == rpl->pref) {
        /* only the preferred parent, over a link that fails: keep it and our
         * rank (a higher one could make a node below us look like a parent),
         * probe the others, and detach if nothing better comes (rpl_tick) */
        if (rpl->bad_since_s == 0) {
            rpl->bad_since_s = wren_rpl_now_s(rpl);
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
    if (rpl->pref != NO_PREF && rpl->pref != best && rpl->parents[rpl->pref].used &&
        cur_rank < RPL_INFINITE_RANK && cur_rank < best_rank + hyst) {
        best = rpl->pref;
        best_rank = cur_rank;
    }
    bool changed = best != rpl->pref;
    unsigned old = rpl->pref;
    if (changed && old != NO_PREF) {
        rpl->stats.parent_switch++;
    }
    rpl->pref = (uint8_t)best;
    rpl->rank = (uint16_t)best_rank;
    if (rpl->rank < rpl->lowest_rank || rpl->lowest_rank == RPL_INFINITE_RANK) {
        rpl->lowest_rank = rpl->rank;
    }
    if (changed) {
        parent_changed(rpl, old);
    }
}

struct wren_rpl_parent *wren_rpl_parent_find(struct wren_rpl *rpl, const uint8_t *addr)
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
    struct wren_rpl_parent *p = wren_rpl_parent_find(rpl, addr);
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
        wren_ipv6_addr_copy(p->addr, addr);
        p->used = 1;
    }
    p->rank = rank;
    p->dtsn = dtsn;
    p->heard_s = wren_rpl_now_s(rpl);
}

void wren_rpl_parent_heard(struct wren_rpl *rpl, const uint8_t *src, const struct rpl_dio *d)
{
    parent_update(rpl, src, d->rank, d->dtsn);
    wren_rpl_select_parent(rpl);
}

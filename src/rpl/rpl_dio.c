/* RPL's DIOs and DISes (RFC 6550 6.2, 6.3, 8.3): sending them, Trickle
 * (RFC 6206) timing the DIOs, and receiving them: joining a DODAG, the
 * DODAG configuration (bounded by local limits) and prefix options, versions
 * (global repair), floating and grounded DODAGs, a parent's news. Parents
 * and rank: rpl_parent.c; the module and its timekeeping: rpl.c. */
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

/* seconds between unicast DIS asking for a DODAG configuration (ask_config) */
#define CFG_DIS_S 3

/* ---- sending ---------------------------------------------------------------- */

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

void wren_rpl_send_dio(struct wren_rpl *rpl, const uint8_t *dst)
{
    send_dio_opts(rpl, dst, false);
}

void wren_rpl_send_dis_to(struct wren_rpl *rpl, const uint8_t *dst)
{
    struct rpl_msg m = { .code = RPL_CODE_DIS };
    uint8_t out[8];
    int len = wren_rpl_msg_emit(&m, out, sizeof(out));
    rpl->stats.tx_dis++;
    rpl->stats.dis_unicast_tx += !wren_ipv6_addr_is_multicast(dst);
    wren_rpl_send_msg(rpl, dst, out, (size_t)len);
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
uint32_t wren_rpl_imax_ms(const struct wren_rpl *rpl)
{
    uint32_t v = imin_ms(rpl);
    for (unsigned d = 0; d < rpl->cfg.dio_int_doublings && v <= WREN_TRICKLE_IMAX_CAP / 2; d++) {
        v *= 2;
    }
    return v;
}

void wren_rpl_trickle_fire(struct wren_trickle *tr, void *arg)
{
    (void)tr;
    struct wren_rpl *rpl = arg;
    if (rpl->role != WREN_RPL_LEAF && (rpl->joined || rpl->role == WREN_RPL_ROOT)) {
        send_dio_opts(rpl, wren_rpl_all_nodes, rpl->dio_cfg_left == 0);
        if (rpl->dio_cfg_left && rpl->dio_cfg_left != 0xff) {
            rpl->dio_cfg_left--;
        }
    }
}

void wren_rpl_trickle_reset(struct wren_rpl *rpl)
{
    wren_trickle_inconsistent(rpl->node, &rpl->trickle);
}

void wren_rpl_trickle_start(struct wren_rpl *rpl)
{
    if (rpl->role == WREN_RPL_LEAF) {
        return; /* RFC 9010: a leaf does not advertise a DODAG */
    }
    wren_trickle_start(rpl->node, &rpl->trickle, imin_ms(rpl), rpl->cfg.dio_int_doublings,
                       rpl->cfg.dio_redundancy);
}

/* ---- receiving --------------------------------------------------------------- */

/* RFC 6550 8.2.3: join the DODAG this DIO describes */
static void join(struct wren_rpl *rpl, const struct rpl_dio *d)
{
    rpl->joined = true;
    rpl->stats.joined++;
    rpl->grounded = (d->g_mop_prf & RPL_DIO_G) != 0;
    if (CONFIG_WREN_RPL_FLOATING) {
        rpl->float_due = false;
    }
    rpl->instance = d->instance;
    rpl->version = d->version;
    rpl->mop = RPL_DIO_MOP(d->g_mop_prf);
    wren_ipv6_addr_copy(rpl->dodagid, d->dodagid);
    rpl->lowest_rank = RPL_INFINITE_RANK;
    rpl->pref = NO_PREF;
    rpl->dtsn = SEQ_INIT;
    wren_rpl_take_address(rpl);
    if (rpl->role == WREN_RPL_ROUTER) {
        wren_rpl_forwarding_on(rpl);
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

/* A DIO's options of interest (RFC 6550 6.3.1): the DODAG configuration
 * (6.7.6) and the prefix information (6.7.10). */
struct dio_opts {
    struct rpl_opt_config cfg;
    struct rpl_opt_prefix pio;
    bool have_cfg;
    bool have_pio;
};

/* Walk the DIO's options into @p o. Returns 0, -EINVAL (an option does not
 * parse, or a configuration asks for what we cannot do). A prefix longer
 * than 128 bits is ignored (RFC 4862 5.5.3), counted. */
static int parse_options(struct wren_rpl *rpl, const struct rpl_msg *m, struct dio_opts *o)
{
    struct rpl_opt_iter it;
    struct rpl_opt opt;
    int rc;
    o->have_cfg = o->have_pio = false;
    wren_rpl_opt_iter_init(&it, m->opts, m->opts_len);
    while ((rc = wren_rpl_opt_next(&it, &opt)) > 0) {
        if (opt.type == RPL_OPT_CONFIG) {
            if (wren_rpl_opt_config_parse(&opt, &o->cfg) < 0) {
                return -EINVAL;
            }
            o->have_cfg = true;
        } else if (opt.type == RPL_OPT_PREFIX) {
            int prc = wren_rpl_opt_prefix_parse(&opt, &o->pio);
            if (prc == -RPL_ERR_PREFIX_LEN) {
                rpl->stats.pio_refused++; /* RFC 4862 5.5.3: the option is ignored */
                continue;
            }
            if (prc < 0) {
                return -EINVAL;
            }
            o->have_pio = true;
        }
    }
    if (rc < 0) {
        return -EINVAL;
    }
    const struct rpl_opt_config *c = &o->cfg;
    if (o->have_cfg && (c->min_hop_rank_inc == 0 || c->lifetime_unit == 0 || c->ocp > OCP_MRHOF)) {
        return -EINVAL; /* a rank or lifetime arithmetic we cannot do, an unknown OF */
    }
    return 0;
}

/* Take the DODAG configuration @p cfg, bounded by the local limits; a
 * running Trickle takes new timers at once (not after Imax), unless we are
 * joining (@p adopt: it starts after). */
static void take_config(struct wren_rpl *rpl, struct rpl_opt_config *cfg, bool adopt)
{
    rpl->stats.cfg_clamped += cfg_bound(cfg);
    bool retime = !adopt && !cfg_same_timers(cfg, &rpl->cfg);
    rpl->cfg = *cfg;
    if (retime && wren_trickle_running(&rpl->trickle)) {
        wren_rpl_trickle_start(rpl);
    }
}

/* RFC 6550 6.7.10: a usable /64 with the A flag is the prefix we take an
 * address in (again, when it changed and we are not joining: @p adopt). */
static void take_prefix(struct wren_rpl *rpl, const struct rpl_opt_prefix *pio, bool adopt)
{
    if (!pio_usable(pio)) {
        rpl->stats.pio_refused++; /* neither taken nor passed on */
        return;
    }
    if (!(pio->flags & RPL_PIO_A) || pio->prefix_len != 64) {
        return;
    }
    bool changed = rpl->prefix_len != 64 || memcmp(rpl->prefix, pio->prefix, 8) != 0;
    memset(rpl->prefix, 0, 16);
    memcpy(rpl->prefix, pio->prefix, 8);
    rpl->prefix_len = 64;
    rpl->pio_flags = pio->flags;
    rpl->pio_valid = pio->valid;
    rpl->pio_preferred = pio->preferred;
    if (changed && !adopt) {
        wren_rpl_take_address(rpl);
    }
}

/* The DIO's options: the configuration (adopted when given; joining,
 * @p adopt, needs one) and the prefix. Returns 0, -EINVAL (an option does
 * not parse, or asks for what we cannot do), -ENOENT (joining, and no
 * configuration: RFC 6550 lets a root send it only now and then) */
static int dio_options(struct wren_rpl *rpl, const struct rpl_msg *m, bool adopt)
{
    struct dio_opts o;
    if (parse_options(rpl, m, &o) < 0) {
        return -EINVAL;
    }
    if (adopt && !o.have_cfg) {
        return -ENOENT; /* joining needs the configuration */
    }
    if (o.have_cfg) {
        take_config(rpl, &o.cfg, adopt);
    }
    if (o.have_pio) {
        take_prefix(rpl, &o.pio, adopt);
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
    uint32_t now = wren_rpl_now_s(rpl);
    rpl->stats.dio_no_config++;
    if ((int32_t)(now - rpl->next_cfg_dis_s) < 0) {
        return;
    }
    rpl->next_cfg_dis_s = now + CFG_DIS_S;
    wren_rpl_send_dis_to(rpl, src);
}

/* The guard after we detached (struct wren_rpl, guard_*): a DIO of the
 * version we left from a node ranked like or below us then, maybe our old
 * sub-DODAG's, is refused (counted; a detached router poisons again: the
 * DIO it sent may have been lost). The guard keeps new candidates out, not
 * news of the parents we took since: refusing those froze a parent's rank
 * when it moved down, and two siblings each took the other, a loop until
 * the guard ended. Returns whether @p d was refused. */
static bool dio_stale(struct wren_rpl *rpl, const uint8_t *src, const struct rpl_dio *d)
{
    bool stale = (int32_t)(wren_rpl_now_s(rpl) - rpl->guard_until_s) < 0 &&
                 d->version == rpl->guard_version && d->rank >= rpl->guard_rank &&
                 d->rank < RPL_INFINITE_RANK && /* (a poisoning is never answered) */
                 memcmp(d->dodagid, rpl->guard_dodagid, 16) == 0 &&
                 wren_rpl_parent_find(rpl, src) == NULL;
    if (stale) {
        rpl->stats.rx_drop_rank++; /* the version we left, from our old sub-DODAG maybe */
        if (!rpl->joined && rpl->role == WREN_RPL_ROUTER) {
            wren_rpl_send_dio(rpl, src); /* poisoned again: the one we sent may have been lost */
        }
    }
    return stale;
}

/* A root hears a DIO of its instance (of its DODAG: @p same_id): Trickle
 * hears of it */
static void root_hears_dio(struct wren_rpl *rpl, const struct rpl_dio *d, bool grounded,
                           bool same_id)
{
    if (d->instance == rpl->instance && same_id && d->version != rpl->version) {
        wren_rpl_trickle_reset(rpl);
    } else if (d->instance == rpl->instance && rpl->grounded && !grounded) {
        /* a floating DODAG of the instance next to us: a DIO of ours
         * soon brings its nodes back (RFC 6550 8.3 allows more events
         * than it lists to be inconsistencies) */
        wren_rpl_trickle_reset(rpl);
    } else if (d->instance == rpl->instance) {
        wren_trickle_consistent(&rpl->trickle);
    }
}

/* Whether a node may take the DIO @p d at all: a mode of operation we run
 * (and the one we were told to expect, if any), a global instance, a
 * link-local sender. A refusal is counted. */
static bool dio_takeable(struct wren_rpl *rpl, const uint8_t *src, const struct rpl_dio *d)
{
    unsigned mop = RPL_DIO_MOP(d->g_mop_prf);
    if (!mop_built(mop) || d->instance > 127) {
        rpl->stats.rx_drop_unsupported++;
        return false;
    }
    if (CONFIG_WREN_RPL_STORING && CONFIG_WREN_RPL_NONSTORING && rpl->want_mop != 0xff &&
        mop != rpl->want_mop) {
        /* told to expect one mode: a DODAG of the other is not joined, and
         * says so (counted, and `rpl` shows the mode heard; a build of one
         * mode took no other above) */
        rpl->stats.dio_mop_mismatch++;
        rpl->heard_mop = (uint8_t)mop;
        return false;
    }
    if (!wren_ipv6_addr_is_link_local(src)) {
        rpl->stats.rx_drop_malformed++;
        return false;
    }
    return true;
}

/* Parent @p p left our DODAG (it poisoned, or advertises another DODAG): it
 * goes and the preferred parent is chosen again; if we detach, we wait a
 * little for its floating DODAG before floating one of our own (float_wait:
 * follow it) */
static void parent_left(struct wren_rpl *rpl, struct wren_rpl_parent *p)
{
    memset(p, 0, sizeof(*p));
    if (CONFIG_WREN_RPL_FLOATING) {
        rpl->float_wait = true;
    }
    wren_rpl_select_parent(rpl);
    if (CONFIG_WREN_RPL_FLOATING) {
        rpl->float_wait = false;
    }
}

/* Joined, a DIO of another DODAG of our instance (not poisoned): a
 * grounded one is preferred to our floating one; a parent of ours
 * advertising it left ours; a router of a grounded DODAG tells a floating
 * one's nodes of it as a root does. */
static void other_dodag(struct wren_rpl *rpl, const uint8_t *src, bool grounded)
{
    struct wren_rpl_parent *gone = wren_rpl_parent_find(rpl, src);
    if (grounded && !rpl->grounded) {
        wren_rpl_leave_float(rpl); /* grounded is preferred: join it below */
    } else if (gone) {
        /* a parent of ours now advertises another DODAG (it floats one,
         * or went to another): it left ours (8.2.2.5); with no other
         * parent we detach and follow it below */
        parent_left(rpl, gone);
    } else if (rpl->grounded && !grounded && rpl->role == WREN_RPL_ROUTER) {
        wren_rpl_trickle_reset(rpl); /* as a root does */
    }
}

/* Not joined: the DIO's DODAG is joined if it carries a configuration we
 * can run and a rank a parent may have (without a configuration: asked
 * for, ask_config). */
static void dio_join(struct wren_rpl *rpl, const uint8_t *src, const struct rpl_msg *m)
{
    const struct rpl_dio *d = &m->dio;
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
        rpl->stats.rx_drop_malformed++; /* (refused before anything was taken) */
        return;
    }
    if (d->rank < rpl->cfg.min_hop_rank_inc) {
        rpl->cfg = saved; /* below ROOT_RANK: no node ranks there (8.2.2) */
        rpl->stats.rx_drop_rank++;
        return;
    }
    join(rpl, d);
    wren_rpl_parent_heard(rpl, src, d);
    if (rpl->joined) {
        wren_rpl_trickle_start(rpl);
    }
}

/* Global repair (RFC 6550 8.2.2.2): a new version of our DODAG: start over
 * with this sender, keep our address and routes. */
static void new_version(struct wren_rpl *rpl, const uint8_t *src, const struct rpl_msg *m)
{
    const struct rpl_dio *d = &m->dio;
    if (d->rank >= RPL_INFINITE_RANK || d->rank < rpl->cfg.min_hop_rank_inc ||
        dio_options(rpl, m, false) < 0) {
        rpl->stats.rx_drop_rank++;
        return;
    }
    rpl->stats.new_version++;
    rpl->version = d->version;
    memset(rpl->parents, 0, CONFIG_WREN_RPL_PARENTS * sizeof(rpl->parents[0]));
    rpl->pref = NO_PREF;
    rpl->lowest_rank = RPL_INFINITE_RANK;
    wren_rpl_parent_heard(rpl, src, d);
    wren_rpl_trickle_reset(rpl);
}

/* A DIO of our DODAG and version: its options, then its sender as a
 * candidate parent (a poisoning removes it; 9.6: a new DTSN of the
 * preferred parent asks for DAOs). */
static void same_version(struct wren_rpl *rpl, const uint8_t *src, const struct rpl_msg *m)
{
    const struct rpl_dio *d = &m->dio;
    if (dio_options(rpl, m, false) < 0) {
        rpl->stats.rx_drop_malformed++;
        return;
    }
    struct wren_rpl_parent *p = wren_rpl_parent_find(rpl, src);
    if (d->rank < rpl->cfg.min_hop_rank_inc) {
        rpl->stats.rx_drop_rank++; /* below ROOT_RANK: no node ranks there (8.2.2) */
        return;
    }
    if (d->rank >= RPL_INFINITE_RANK) {
        /* poisoned: the sender left (8.2.2.5) */
        if (p) {
            parent_left(rpl, p);
            wren_rpl_trickle_reset(rpl);
        }
        return;
    }
    wren_trickle_consistent(&rpl->trickle);
    if (p == NULL && (uint32_t)d->rank >= (uint32_t)rpl->rank + rpl->cfg.min_hop_rank_inc) {
        rpl->stats.rx_drop_rank++; /* possibly below us: never a parent */
        return;
    }
    if (p && rpl->pref != NO_PREF && p == &rpl->parents[rpl->pref] && d->dtsn != p->dtsn) {
        /* 9.6: the parent asks for fresh DAOs (any change: a root that
         * rebooted does not remember its last DTSN); a router asks its own
         * children in turn, their routes went up through it */
        wren_rpl_schedule_dao(rpl);
        if (rpl->role == WREN_RPL_ROUTER) {
            rpl->dtsn = seq_next(rpl->dtsn);
            wren_rpl_trickle_reset(rpl);
        }
    }
    wren_rpl_parent_heard(rpl, src, d);
}

void wren_rpl_on_dio(struct wren_rpl *rpl, const uint8_t *src, const struct rpl_msg *m)
{
    const struct rpl_dio *d = &m->dio;
    rpl->stats.rx_dio++;
    bool grounded = (d->g_mop_prf & RPL_DIO_G) != 0;
    if (dio_stale(rpl, src, d)) {
        return;
    }
    bool same_id = memcmp(d->dodagid, rpl->dodagid, 16) == 0; /* our DODAG's ID */
    if (CONFIG_WREN_RPL_FLOATING && rpl->role == WREN_RPL_ROOT && rpl->floating && grounded &&
        d->instance == rpl->instance && d->rank < RPL_INFINITE_RANK) {
        wren_rpl_leave_float(rpl); /* and join it below, as a detached router */
    }
    if (rpl->role == WREN_RPL_ROOT) {
        root_hears_dio(rpl, d, grounded, same_id);
        return;
    }
    if (!dio_takeable(rpl, src, d)) {
        return;
    }
    bool same = rpl->joined && d->instance == rpl->instance && same_id;
    if (rpl->joined && !same && d->instance == rpl->instance && d->rank < RPL_INFINITE_RANK) {
        other_dodag(rpl, src, grounded);
    }
    if (!rpl->joined) {
        dio_join(rpl, src, m);
    } else if (!same) {
        rpl->stats.rx_drop_unsupported++; /* one DODAG at a time */
    } else if (wren_rpl_seq_newer(d->version, rpl->version)) {
        new_version(rpl, src, m);
    } else if (d->version != rpl->version) {
        wren_rpl_trickle_reset(rpl); /* it lags: tell it */
    } else {
        same_version(rpl, src, m);
    }
}

void wren_rpl_on_dis(struct wren_rpl *rpl, const uint8_t *src, const uint8_t *dst)
{
    rpl->stats.rx_dis++;
    if (rpl->role == WREN_RPL_LEAF || !(rpl->joined || rpl->role == WREN_RPL_ROOT)) {
        return;
    }
    if (wren_ipv6_addr_is_multicast(dst)) {
        wren_rpl_trickle_reset(rpl); /* 8.3: reset */
    } else {
        wren_rpl_send_dio(rpl, src);
    }
}

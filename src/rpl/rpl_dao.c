/* RPL's downward half: DAOs and DAO-ACKs, the route table (storing mode:
 * the downward routes IPv6 asks for with GET WREN_NETOPT_RPL_ROUTE;
 * non-storing: the root's source routes) and the RPI of datagrams
 * (RFC 6553 / RFC 9008). rpl.c has the upward half (DIO, DIS,
 * parents, objective functions) and the module. */
#include <errno.h>
#include <string.h>

#include "core/byteorder.h"
#include "core/node.h"
#include "icmpv6/icmpv6.h"
#include "rpl/rpl.h"
#include "rpl/rpl_priv.h"
#include "wire/ipv6.h"

/* The global address of parent @p p: the prefix and its link-local IID
 * (RPL nodes autoconfigure from the DIO's PIO, RFC 6550 6.7.10). */
static void parent_global(const struct wren_rpl *rpl, const struct wren_rpl_parent *p,
                          uint8_t *out)
{
    memcpy(out, rpl->prefix, 8);
    memcpy(out + 8, p->addr + 8, 8);
}

/* A target option for @p prefix / @p plen after the @p n bytes of options
 * in @p opts (MSG_MAX of them); the bytes now */
static size_t put_target(uint8_t *opts, size_t n, const uint8_t *prefix, uint8_t plen)
{
    struct rpl_opt_target t = { .prefix_len = plen, .prefix = prefix,
                                .prefix_bytes = (uint8_t)((plen + 7u) / 8) };
    return n + (size_t)wren_rpl_opt_target_emit(&t, opts + n, MSG_MAX - n);
}

/* No route is in a DAO in flight any more (a new DAO, or the last one
 * refused) */
static void routes_landed(struct wren_rpl *rpl)
{
    for (unsigned i = 0; i < rpl->n_routes; i++) {
        rpl->routes[i].flags &= (uint8_t)~RT_IN_FLIGHT;
    }
}

/* A DAO (K set): in storing mode to the preferred parent, with our own
 * target and up to DAO_MAX_FWD targets of routes our children announced that
 * are still to go up (9.2: each hop announces what it routes, and sends it
 * again until its parent ACKs); in non-storing mode to the root, with our
 * preferred parent's address in the transit option (9.7). */
int wren_rpl_dao_emit(struct wren_rpl *rpl, uint8_t flags, const uint8_t *opts, size_t n,
                      uint8_t *out, size_t max)
{
    rpl->dao_seq = seq_next(rpl->dao_seq);
    struct rpl_msg m = { .code = RPL_CODE_DAO,
                         .dao = { .instance = rpl->instance, .flags = flags,
                                  .seq = rpl->dao_seq },
                         .opts = opts, .opts_len = n };
    int len = wren_rpl_msg_emit(&m, out, max);
    if (len > 0) {
        rpl->stats.tx_dao++;
    }
    return len;
}

void wren_rpl_send_dao(struct wren_rpl *rpl)
{
    if (rpl->pref == NO_PREF) {
        return;
    }
    bool ns = ns_mode(rpl);
    uint8_t opts[MSG_MAX], out[MSG_MAX + 24], parent[16];
    size_t n = 0;
    if (rpl->addr[0] == 0 || (ns && rpl->prefix_len != 64)) {
        return; /* no address to announce yet */
    }
    struct rpl_opt_target t = { .prefix_len = 128, .prefix = rpl->addr, .prefix_bytes = 16 };
    struct rpl_opt_transit tr = { .path_seq = rpl->path_seq,
                                  .path_lifetime = rpl->cfg.def_lifetime };
    if (ns) {
        parent_global(rpl, &rpl->parents[rpl->pref], parent);
        tr.parent = parent;
    }
    n = (size_t)wren_rpl_opt_target_emit(&t, opts, sizeof(opts));
    n += (size_t)wren_rpl_opt_transit_emit(&tr, opts + n, sizeof(opts) - n);
    unsigned fwd = 0;
    uint32_t now = wren_rpl_now_s(rpl);
    routes_landed(rpl);
    /* the dirty routes from where the last DAO stopped: when its ACK is
     * lost, the DAO sent again carries the next ones instead of the same
     * first DAO_MAX_FWD every time (those stay dirty and come round again) */
    unsigned start = rpl->dao_next < rpl->n_routes ? rpl->dao_next : 0;
    for (unsigned k = 0; !ns && k < rpl->n_routes && fwd < DAO_MAX_FWD; k++) {
        unsigned i = (start + k) % rpl->n_routes;
        struct wren_rpl_route *r = &rpl->routes[i];
        if (!r->plen || !(r->flags & RT_DIRTY)) {
            continue;
        }
        uint32_t left = r->expires_s - now, unit = rpl->cfg.lifetime_unit;
        uint32_t units = (left + unit - 1) / unit;
        /* a route a no-path DAO removed goes up as a no-path (9.2.2) */
        struct rpl_opt_transit rtr = { .path_seq = r->path_seq,
                                       .path_lifetime = (uint8_t)((r->flags & RT_NOPATH) ? 0
                                                                  : units < 1 ? 1
                                                                  : units > 255 ? 255 : units) };
        n = put_target(opts, n, r->target, r->plen);
        n += (size_t)wren_rpl_opt_transit_emit(&rtr, opts + n, sizeof(opts) - n);
        r->flags |= RT_IN_FLIGHT;
        rpl->dao_next = (uint16_t)(i + 1);
        fwd++;
    }
    int len = wren_rpl_dao_emit(rpl, RPL_DAO_K, opts, n, out, sizeof(out));
    rpl->dao_wait = true;
    rpl->dao_wait_seq = rpl->dao_seq;
    rpl->dao_sent_s = now;
    if (len <= 0) {
        return;
    }
    /* non-storing: to the root across the DODAG */
    wren_rpl_send_to(rpl, ns ? rpl->dodagid : rpl->parents[rpl->pref].addr, out, (size_t)len,
                     !ns);
}

/* Storing mode, RFC 6550 9.2.2 and 11.2.2.3... of a parent change: a no-path
 * DAO (no ACK asked) to the parent we left, @p parent (its link-local
 * address), for our own address and every route we hold, so that it and
 * the routers above it up to the common ancestor drop the routes through
 * the old branch at once rather than when they expire (each passes the
 * no-path on while the route went through the child it came from). One
 * transit option after the targets applies to all of them (6.7.8). */
void wren_rpl_send_no_path(struct wren_rpl *rpl, const uint8_t *parent)
{
    uint8_t opts[MSG_MAX], out[MSG_MAX + 24];
    const struct rpl_opt_transit tr = { .path_seq = rpl->path_seq, .path_lifetime = 0 };
    unsigned i = 0;
    bool own = rpl->addr[0] != 0;
    for (;;) {
        size_t n = 0;
        unsigned nt = 0;
        if (own) {
            n = put_target(opts, n, rpl->addr, 128);
            nt++;
            own = false;
        }
        /* targets of 20 bytes at most, the transit 6 */
        for (; i < rpl->n_routes && n + 20 + 6 <= sizeof(opts); i++) {
            const struct wren_rpl_route *r = &rpl->routes[i];
            if (!route_live(r)) {
                continue;
            }
            n = put_target(opts, n, r->target, r->plen);
            nt++;
        }
        if (nt == 0) {
            return;
        }
        n += (size_t)wren_rpl_opt_transit_emit(&tr, opts + n, sizeof(opts) - n);
        int len = wren_rpl_dao_emit(rpl, 0, opts, n, out, sizeof(out)); /* no ACK asked */
        if (len <= 0) {
            return;
        }
        rpl->stats.tx_no_path++;
        wren_rpl_send_msg(rpl, parent, out, (size_t)len);
        if (i >= rpl->n_routes) {
            return;
        }
    }
}

static void send_dao_ack(struct wren_rpl *rpl, const uint8_t *dst, uint8_t seq, uint8_t status)
{
    struct rpl_msg m = { .code = RPL_CODE_DAO_ACK,
                         .dao_ack = { .instance = rpl->instance, .seq = seq, .status = status } };
    uint8_t out[8];
    int len = wren_rpl_msg_emit(&m, out, sizeof(out));
    rpl->stats.tx_dao_ack++;
    /* (down the DODAG to a global address: IPv6 asks us for the SRH) */
    wren_rpl_send_to(rpl, dst, out, (size_t)len, wren_ipv6_addr_is_link_local(dst));
}

void wren_rpl_clear_routes(struct wren_rpl *rpl)
{
    if (!CONFIG_WREN_NODE_MEM || rpl->routes) { /* (NULL: the built-in table, not made yet) */
        memset(rpl->routes, 0, (size_t)rpl->n_routes * sizeof(rpl->routes[0]));
    }
}

static struct wren_rpl_route *route_find(struct wren_rpl *rpl, const uint8_t *t, uint8_t plen)
{
    for (unsigned i = 0; i < rpl->n_routes; i++) {
        struct wren_rpl_route *r = &rpl->routes[i];
        if (r->plen == plen && (plen < 128 || r->target[15] == t[15]) &&
            wren_ipv6_prefix_equal(r->target, t, plen)) {
            return r;
        }
    }
    return NULL;
}

/* Whether a DAO may install a route to @p target / @p plen (RFC 6550 6.7.7
 * leaves the policy to the node): not a multicast or link-local target
 * (no multicast mode here; a link-local one is on its link); never one
 * covering the DODAG's own prefix (::/0 or the /64 would draw the traffic
 * for every node down to the child that announced it, as the longest
 * match); inside the prefix at least CONFIG_WREN_RPL_TARGET_MIN_PLEN bits
 * (a /96 would take other nodes' traffic), outside it (a network behind a
 * node) at least CONFIG_WREN_RPL_EXT_TARGET_MIN_PLEN; at a router not the
 * DODAGID (the root's address: its traffic would turn down). */
static bool target_ok(const struct wren_rpl *rpl, const uint8_t *target, uint8_t plen)
{
    uint8_t pl = rpl->prefix_len;
    if (wren_ipv6_addr_is_multicast(target) || wren_ipv6_addr_is_link_local(target) || plen == 0) {
        return false;
    }
    if (pl && wren_ipv6_prefix_equal(target, rpl->prefix, plen < pl ? plen : pl)) {
        if (plen <= pl || plen < CONFIG_WREN_RPL_TARGET_MIN_PLEN) {
            return false; /* covers the prefix, or too much of it */
        }
    } else if (plen < CONFIG_WREN_RPL_EXT_TARGET_MIN_PLEN) {
        return false;
    }
    return rpl->role == WREN_RPL_ROOT || plen != 128 || memcmp(target, rpl->dodagid, 16) != 0;
}

/* Route @p r is no more: a root (or a non-storing node) forgets it; a
 * storing router keeps it a while as a no-path to tell its parent in turn
 * (its next DAO). */
static void route_withdraw(struct wren_rpl *rpl, struct wren_rpl_route *r)
{
    if (rpl->role == WREN_RPL_ROOT || ns_mode(rpl)) {
        memset(r, 0, sizeof(*r));
    } else {
        r->flags = RT_NOPATH | RT_DIRTY;
        r->expires_s = wren_rpl_now_s(rpl) + NOPATH_HOLD_S;
    }
}

/* A no-path for a target (RFC 6550 9.2.2, 6.7.8 path lifetime 0): its
 * route @p r goes if it goes through this child (@p via). */
static void no_path(struct wren_rpl *rpl, struct wren_rpl_route *r, const uint8_t *via)
{
    if (r == NULL || !route_live(r) || memcmp(r->via, via, 8) != 0) {
        return;
    }
    rpl->stats.route_no_path++;
    route_withdraw(rpl, r);
}

/* The slot a DAO's route to its target goes in: the target's own @p r,
 * else a free one; NULL when the table is full. */
static struct wren_rpl_route *route_slot(struct wren_rpl *rpl, struct wren_rpl_route *r)
{
    for (unsigned i = 0; r == NULL && i < rpl->n_routes; i++) {
        r = rpl->routes[i].plen == 0 ? &rpl->routes[i] : NULL;
    }
    return r;
}

/* One target of a DAO (RFC 6550 9.2.2), routed via @p via (an IID: of the
 * child's link-local address in storing mode, of the DAO parent's address
 * in our prefix in non-storing mode). Returns false if it had to be
 * refused. */
static bool dao_target(struct wren_rpl *rpl, const uint8_t *via, const struct rpl_opt_target *t,
                       const struct rpl_opt_transit *tr, bool ext)
{
    uint8_t target[16] = { 0 };
    memcpy(target, t->prefix, t->prefix_bytes);
    if (t->prefix_len == 128 && memcmp(target, rpl->addr, 16) == 0) {
        return true; /* ourselves (through a loop for a moment): ignored */
    }
    if (!target_ok(rpl, target, t->prefix_len)) {
        /* refused: the DAO-ACK says so (a no-path for it removes nothing) */
        rpl->stats.dao_target_refused++;
        return tr->path_lifetime == 0;
    }
    struct wren_rpl_route *r = route_find(rpl, target, t->prefix_len);
    if (tr->path_lifetime == 0) {
        no_path(rpl, r, via);
        return true;
    }
    if (r && route_live(r) && memcmp(r->via, via, 8) != 0 &&
        !wren_rpl_seq_newer(tr->path_seq, r->path_seq) && tr->path_seq != r->path_seq) {
        return true; /* an older path through another child: keep ours */
    }
    if ((r = route_slot(rpl, r)) == NULL) {
        rpl->stats.routes_full++;
        return false;
    }
    wren_ipv6_addr_copy(r->target, target);
    memcpy(r->via, via, 8);
    r->plen = t->prefix_len;
    r->path_seq = tr->path_seq;
    r->expires_s = wren_rpl_now_s(rpl) + lifetime_s(rpl, tr->path_lifetime);
    r->flags = rpl->role == WREN_RPL_ROOT ? (ext ? RT_EXTERNAL : 0) : RT_DIRTY;
    rpl->stats.rx_dao_external += ext;
    return true;
}

static struct wren_rpl_route *route_find_iid(struct wren_rpl *rpl, const uint8_t *iid);

#if CONFIG_WREN_RPL_ACK_DEFER
/* Non-storing root: is there a complete source route to @p dst? */
static bool reachable(struct wren_rpl *rpl, const uint8_t *dst)
{
    uint8_t r[17];
    return wren_rpl_source_route(rpl, dst, r, sizeof(r)) != -ENOENT;
}

/* Non-storing root: the node with IID @p iid became reachable; the DAO-ACKs
 * deferred for the nodes below it (its DAO children, theirs, ...) that are
 * reachable now go out, a bounded number of levels at a time. */
static void release_acks(struct wren_rpl *rpl, const uint8_t *iid)
{
    uint8_t todo[ACK_RELEASE_MAX][8];
    unsigned head = 0, tail = 0, sent = 0;
    memcpy(todo[tail++], iid, 8);
    while (head < tail && sent < ACK_RELEASE_SEND) {
        const uint8_t *up = todo[head++];
        for (unsigned i = 0; i < rpl->n_routes; i++) {
            struct wren_rpl_route *r = &rpl->routes[i];
            if (!(r->flags & RT_ACK_PENDING) || !route_live(r) || r->plen != 128 ||
                memcmp(r->via, up, 8) != 0 || !reachable(rpl, r->target)) {
                continue;
            }
            if (sent++ == ACK_RELEASE_SEND) {
                break;
            }
            r->flags &= (uint8_t)~RT_ACK_PENDING;
            rpl->stats.dao_ack_late++;
            send_dao_ack(rpl, r->target, r->ack_seq, RPL_DAO_ACK_OK);
            if (tail < ACK_RELEASE_MAX) {
                memcpy(todo[tail++], r->target + 8, 8);
            }
        }
    }
}

/* Non-storing root, a DAO taken from @p src: its DAO-ACK goes down a
 * source route, deferred while the path to the sender is incomplete (sent
 * into the void it would only make the sender repeat its DAO across the
 * whole DODAG); then the ACKs deferred below it. Returns true (the ACK is
 * taken care of). */
static bool root_ack(struct wren_rpl *rpl, const uint8_t *src, const struct rpl_msg *m)
{
    struct wren_rpl_route *r = route_find(rpl, src, 128);
    if (r && route_live(r) && !reachable(rpl, src)) {
        if (m->dao.flags & RPL_DAO_K) {
            r->flags |= RT_ACK_PENDING;
            r->ack_seq = m->dao.seq;
            rpl->stats.dao_ack_deferred++;
        }
        return true;
    }
    if (m->dao.flags & RPL_DAO_K) {
        send_dao_ack(rpl, src, m->dao.seq, RPL_DAO_ACK_OK);
    }
    release_acks(rpl, src + 8);
    return true;
}
#else
/* (built without deferring: the ACK goes at once, as to any DAO) */
static bool root_ack(struct wren_rpl *rpl, const uint8_t *src, const struct rpl_msg *m)
{
    (void)rpl;
    (void)src;
    (void)m;
    return false;
}
#endif

/* RFC 6550 6.5: the other mode's DAO (a storing-only node, as RIOT's is,
 * that joined our non-storing DODAG sends its parent link-local DAOs; a
 * non-storing DAO at a storing root that is no 6LR's announcement of its
 * leaves): refused aloud, never dropped in silence */
static void refuse_mop(struct wren_rpl *rpl, const uint8_t *src, const struct rpl_msg *m)
{
    rpl->stats.dao_mop_refused++;
    if (m->dao.flags & RPL_DAO_K) {
        send_dao_ack(rpl, src, m->dao.seq, RPL_DAO_ACK_UNABLE_TO_ACCEPT);
    }
}

/* Whether a DAO from @src is ours to take (storing: from a child on the
 * link; non-storing: to the root only, from anywhere in the DODAG, 9.7);
 * @ext_only: a storing root's DAO to its global address, which may announce
 * external targets only (RFC 9010 3: a 6LR announces its leaves that way in
 * any mode) */
static bool dao_admitted(struct wren_rpl *rpl, const uint8_t *src, const struct rpl_msg *m,
                         bool *ext_only)
{
    bool root = rpl->role == WREN_RPL_ROOT;
    bool ns = ns_mode(rpl);
    if (rpl->role == WREN_RPL_LEAF || (!root && !rpl->joined) ||
        m->dao.instance != rpl->instance) {
        rpl->stats.rx_drop_dao++;
        return false;
    }
    bool ll = wren_ipv6_addr_is_link_local(src);
    *ext_only = !ns && !ll;
    if (ns ? ll : (*ext_only && !root)) {
        refuse_mop(rpl, src, m);
        return false;
    }
    if (ns && !root) {
        rpl->stats.rx_drop_dao++; /* a global DAO is the root's (9.7): not to us */
        return false;
    }
    if (!ns && !root && rpl->pref != NO_PREF && memcmp(src, rpl->parents[rpl->pref].addr, 16) == 0) {
        /* from our own preferred parent: it took us (or a node below us)
         * as its parent, a loop for a moment (RFC 6550 9.2: DAOs go up
         * only). Its routes would point back up; no ACK, it sends again
         * to the parent it settles on */
        rpl->stats.rx_drop_dao++;
        return false;
    }
    return true;
}

/* The targets before a transit option get its route (RFC 6550 6.7.8);
 * false: the DAO is dropped or refused (counted, answered) */
static bool dao_transit(struct wren_rpl *rpl, const uint8_t *src, const struct rpl_msg *m,
                        const struct rpl_opt *o, bool ext_only,
                        const struct rpl_opt_target *targets, unsigned from, unsigned to,
                        bool *refused)
{
    bool root = rpl->role == WREN_RPL_ROOT;
    bool ns = ns_mode(rpl);
    struct rpl_opt_transit tr;
    if (wren_rpl_opt_transit_parse(o, &tr) < 0) {
        rpl->stats.rx_drop_malformed++;
        return false;
    }
    bool ext = CONFIG_WREN_RPL_RUL && !wren_ipv6_addr_is_link_local(src) && root &&
               (tr.flags & RPL_TRANSIT_E) && tr.parent;
    if (ext_only && !ext) {
        refuse_mop(rpl, src, m); /* a non-storing DAO, not a 6LR's leaves */
        return false;
    }
    if ((ns || ext) && tr.parent == NULL) {
        rpl->stats.rx_drop_malformed++; /* 6.7.8: non-storing needs the parent */
        return false;
    }
    if ((ns || ext) && (rpl->prefix_len != 64 || memcmp(tr.parent, rpl->prefix, 8) != 0)) {
        rpl->stats.rx_drop_dao++; /* a parent outside our /64: no source route */
        return false;
    }
    for (unsigned k = from; k < to; k++) {
        *refused |= !dao_target(rpl, (ns || ext ? tr.parent : src) + 8, &targets[k], &tr, ext);
    }
    return true;
}

/* A DAO's targets and transits; false: dropped or refused (counted) */
static bool dao_options(struct wren_rpl *rpl, const uint8_t *src, const struct rpl_msg *m,
                        bool ext_only, bool *refused)
{
    struct rpl_opt_iter it;
    struct rpl_opt o;
    struct rpl_opt_target targets[8];
    unsigned nt = 0, first = 0;
    int rc;
    wren_rpl_opt_iter_init(&it, m->opts, m->opts_len);
    while ((rc = wren_rpl_opt_next(&it, &o)) > 0) {
        if (o.type == RPL_OPT_TARGET) {
            if (nt > 0 && first == nt) {
                nt = first = 0; /* the targets before were given their transit */
            }
            if (nt == 8 || wren_rpl_opt_target_parse(&o, &targets[nt]) < 0) {
                rpl->stats.rx_drop_malformed++;
                return false;
            }
            nt++;
        } else if (o.type == RPL_OPT_TRANSIT) {
            if (!dao_transit(rpl, src, m, &o, ext_only, targets, first, nt, refused)) {
                return false;
            }
            first = nt;
        }
    }
    if (rc < 0) {
        rpl->stats.rx_drop_malformed++;
        return false;
    }
    return true;
}

void wren_rpl_on_dao(struct wren_rpl *rpl, const uint8_t *src, const struct rpl_msg *m)
{
    rpl->stats.rx_dao++;
    bool root = rpl->role == WREN_RPL_ROOT;
    bool ns = ns_mode(rpl);
    bool ext_only = false, refused = false;
    if (!dao_admitted(rpl, src, m, &ext_only) || !dao_options(rpl, src, m, ext_only, &refused)) {
        return;
    }
    if (root && ns && !refused && root_ack(rpl, src, m)) {
        return;
    }
    if (m->dao.flags & RPL_DAO_K) {
        send_dao_ack(rpl, src, m->dao.seq,
                     refused ? RPL_DAO_ACK_UNABLE_TO_ACCEPT : RPL_DAO_ACK_OK);
    }
    if (!root && !ns && !rpl->dao_wait) {
        wren_rpl_send_dao(rpl); /* on toward the root (the routes are marked dirty) */
    }
}

void wren_rpl_on_dao_ack(struct wren_rpl *rpl, const struct rpl_msg *m)
{
    rpl->stats.rx_dao_ack++;
    if (wren_rpl_dao_ack_rul(rpl, m)) {
        return; /* the answer to the DAO announcing our leaves (rpl_rul.c) */
    }
    if (!rpl->dao_wait || m->dao_ack.seq != rpl->dao_wait_seq) {
        return; /* an ACK of a DAO we passed on, or a stale one */
    }
    rpl->dao_wait = false;
    if (m->dao_ack.status >= 128) {
        /* RFC 6550 6.5: refused (the parent's table is full): what this
         * DAO carried stays to be announced, again with a later DAO (the
         * refresh, or in 30-40 s; another parent may take it by then), not
         * at once to a parent that just said no */
        rpl->stats.dao_ack_refused++;
        routes_landed(rpl);
        wren_rpl_dao_later(rpl, wren_rpl_now_s(rpl));
        return;
    }
    bool more = false;
    for (unsigned i = 0; i < rpl->n_routes; i++) {
        struct wren_rpl_route *r = &rpl->routes[i];
        if ((r->flags & (RT_IN_FLIGHT | RT_NOPATH)) == (RT_IN_FLIGHT | RT_NOPATH)) {
            memset(r, 0, sizeof(*r)); /* the no-path went up: the slot is free */
        } else if (r->flags & RT_IN_FLIGHT) {
            r->flags = 0;
        }
        more |= (r->flags & RT_DIRTY) != 0;
    }
    if (more) {
        rpl->dao_retries = 0;
        rpl->dao_jitter_s = 0;
        wren_rpl_send_dao(rpl);
    }
}

/* The route to (our prefix, @p iid)/128, or NULL. */
static struct wren_rpl_route *route_find_iid(struct wren_rpl *rpl, const uint8_t *iid)
{
    uint8_t a[16];
    memcpy(a, rpl->prefix, 8);
    memcpy(a + 8, iid, 8);
    return route_find(rpl, a, 128);
}

/* Non-storing root (RFC 6554 3, RFC 6550 9.7): the source route to @p dst
 * from the DAO parents: out = [if_id][first hop, 16][SRH, with 0 as next
 * header; none when dst is a child of ours]. Returns its length, -ENOENT
 * without a complete route (IPv6 then routes as usual), -EOVERFLOW. */
int wren_rpl_source_route(struct wren_rpl *rpl, const uint8_t *dst, uint8_t *out, size_t max)
{
    if (rpl->role != WREN_RPL_ROOT || !ns_mode(rpl) ||
        rpl->prefix_len != 64 || memcmp(dst, rpl->prefix, 8) != 0) {
        return -ENOENT; /* DAO parents are in our /64: so are the nodes routed */
    }
    /* walk the parents up from dst: up[0] = dst's route, up[k] = the route
     * of the hop whose parent is us; bounded (a loop in the table is no route) */
    const struct wren_rpl_route *up[WREN_RPL_SRH_HOPS + 1];
    size_t k = 0;
    up[0] = route_find(rpl, dst, 128);
    if (CONFIG_WREN_RPL_RUL && up[0] && (up[0]->flags & RT_EXTERNAL)) {
        return -ENOENT; /* a leaf's: the tunnel to its 6LR takes the source route */
    }
    for (;;) {
        if (up[k] == NULL) {
            return -ENOENT;
        }
        if (memcmp(up[k]->via, rpl->addr + 8, 8) == 0) {
            break;
        }
        if (++k > WREN_RPL_SRH_HOPS) {
            return -ENOENT;
        }
        up[k] = route_find_iid(rpl, up[k - 1]->via);
    }
    if (max < 17) {
        return -EOVERFLOW;
    }
    out[0] = rpl->if_id;
    wren_ipv6_addr_copy(out + 1, up[k]->target);
    if (k == 0) {
        return 17; /* a child of ours: on the link, no SRH */
    }
    /* the hops after the first, toward dst */
    uint8_t hops[WREN_RPL_SRH_HOPS][16];
    for (size_t i = 0; i < k; i++) {
        wren_ipv6_addr_copy(hops[i], up[k - 1 - i]->target);
    }
    int n = wren_rpl_srh_emit(0, (const uint8_t(*)[16])hops, k, up[k]->target, out + 17,
                              max - 17);
    return n < 0 ? -EOVERFLOW : 17 + n;
}

/* Storing mode (RFC 6550 9): the downward route to @p dst, the longest
 * prefix among the routes our children's DAOs installed: out = [if_id]
 * [prefix length][next hop, 16: the child's link-local address]. Returns 18
 * or -ENOENT. */
int wren_rpl_route_lookup(struct wren_rpl *rpl, const uint8_t *dst, uint8_t *out)
{
    const struct wren_rpl_route *best = NULL;
    const struct wren_rpl_rul *leaf =
        rpl->role == WREN_RPL_OFF ? NULL : wren_rpl_rul_find(rpl, dst);
    if (leaf) {
        /* a leaf registered with us (RFC 9010): on its link, in any mode */
        out[0] = leaf->if_id;
        out[1] = 128;
        wren_ipv6_addr_copy(out + 2, leaf->addr);
        return 18;
    }
    if (rpl->role == WREN_RPL_OFF || ns_mode(rpl)) {
        return -ENOENT;
    }
    for (unsigned i = 0; i < rpl->n_routes; i++) {
        const struct wren_rpl_route *r = &rpl->routes[i];
        if (route_live(r) && !(r->flags & RT_EXTERNAL) && (best == NULL || r->plen > best->plen) &&
            wren_ipv6_prefix_equal(r->target, dst, r->plen)) {
            best = r;
        }
    }
    if (best == NULL) {
        return -ENOENT;
    }
    static const uint8_t ll64[8] = { 0xfe, 0x80 };
    out[0] = rpl->if_id;
    out[1] = best->plen;
    memcpy(out + 2, ll64, 8);
    memcpy(out + 10, best->via, 8);
    return 18;
}

/* Whether we hold a downward route covering @p dst (storing mode). */
static bool has_route(struct wren_rpl *rpl, const uint8_t *dst)
{
    uint8_t r[18];
    return wren_rpl_route_lookup(rpl, dst, r) > 0;
}

/* Is a datagram to @p dst going down from here (RFC 6553 O flag)? When we
 * hold a route to it: in storing mode a route, at a non-storing root a
 * source route (else it leaves the DODAG, or goes nowhere). */
static bool goes_down(struct wren_rpl *rpl, const uint8_t *dst)
{
    if (!ns_mode(rpl)) {
        return has_route(rpl, dst);
    }
    uint8_t r[17];
    return rpl->role == WREN_RPL_ROOT && wren_rpl_source_route(rpl, dst, r, sizeof(r)) != -ENOENT;
}

/* RFC 9008 7.2 and 8.2: the root forwarding a datagram down (from outside
 * the DODAG, or in non-storing mode from a node of it to another) tunnels it
 * to its destination, the outer header carrying the RPI and, non-storing,
 * the SRH. In storing mode a datagram that already carries an RPI travels
 * as it is (the O flag turns it down). @p v: in: destination (16), whether
 * the datagram has an RPI (1); out: the tunnel's end (16). */
/* RFC 9008 7.2.x, 8.2.x: a RPL-unaware leaf's datagram that leaves its
 * 6LR for the DODAG or beyond goes in a tunnel to the root, which carries
 * the RPI (the leaf gave none); @p v: destination, RPI flag, source */
static bool rul_up(const struct wren_rpl *rpl, const uint8_t *v, size_t max)
{
    return max >= 33 && v[16] == 0 && rpl->role == WREN_RPL_ROUTER && rpl->joined &&
           rpl->dodagid[0] != 0 && !wren_ipv6_addr_is_multicast(v) &&
           !wren_ipv6_addr_is_link_local(v) && wren_rpl_rul_find(rpl, v + 17) != NULL &&
           wren_rpl_rul_find(rpl, v) == NULL;
}

int wren_rpl_tunnel(struct wren_rpl *rpl, uint8_t *v, size_t max)
{
    if (CONFIG_WREN_RPL_RUL && rul_up(rpl, v, max)) {
        wren_ipv6_addr_copy(v, rpl->dodagid);
        return 16;
    }
    if (rpl->role != WREN_RPL_ROOT || wren_ipv6_addr_is_multicast(v) ||
        wren_ipv6_addr_is_link_local(v) || memcmp(v, rpl->addr, 16) == 0) {
        return -ENOENT;
    }
    const struct wren_rpl_route *x = route_find(rpl, v, 128);
    if (CONFIG_WREN_RPL_RUL && x && route_live(x) && (x->flags & RT_EXTERNAL)) {
        /* RFC 9008 7.1.3, 7.2.4, 8.1.3, 8.2.4: a leaf's datagram goes in a
         * tunnel to the 6LR that announced it, the leaf gets it bare */
        uint8_t lr[17];
        memcpy(lr, rpl->prefix, 8);
        memcpy(lr + 8, x->via, 8);
        if (ns_mode(rpl) && wren_rpl_source_route(rpl, lr, lr, sizeof(lr)) ==
                                                   -ENOENT) {
            return -ENOENT;
        }
        memcpy(v, rpl->prefix, 8);
        memcpy(v + 8, x->via, 8);
        return 16;
    }
    if (v[16] == 2) {
        return -ENOENT; /* a datagram of our own: tunnelled to leaves only */
    }
    if (ns_mode(rpl)) {
        uint8_t r[17];
        if (wren_rpl_source_route(rpl, v, r, sizeof(r)) == -ENOENT) {
            return -ENOENT;
        }
    } else if (v[16] || !has_route(rpl, v)) {
        return -ENOENT;
    }
    return 16; /* the destination itself, a node of the DODAG */
}

bool wren_rpl_in_dodag(const struct wren_rpl *rpl)
{
    return rpl->role == WREN_RPL_ROOT ||
           (rpl->role != WREN_RPL_OFF && rpl->joined && rpl->rank < RPL_INFINITE_RANK);
}

/* RFC 6553 / RFC 9008: the RPI of a datagram we originate, in @p v (in:
 * the destination; out: the 4 bytes of option data). */
int wren_rpl_rpi_origin(struct wren_rpl *rpl, uint8_t *v)
{
    if (!wren_rpl_in_dodag(rpl)) {
        return -ENOENT;
    }
    if (wren_rpl_rul_find(rpl, v)) {
        return -ENOENT; /* RFC 9008: a RPL-unaware leaf gets no RPL artifacts */
    }
    bool down = goes_down(rpl, v);
    if (rpl->role == WREN_RPL_ROOT && !down) {
        return -ENOENT; /* RFC 9008: out of the RPL domain, not into it: no RPI */
    }
    v[0] = down ? RPL_RPI_O : 0;
    v[1] = rpl->instance;
    put_be16(v + 2, rpl->rank);
    return RPL_RPI_LEN;
}

/* RFC 6550 11.2.2.3, storing mode: a datagram to @p dst came back from the
 * child with IID @p via with the forwarding-error flag: that child has no
 * route to it; the routes through it that cover dst go (a router passes
 * the no-path up with its next DAO, as for a no-path DAO). */
static void forward_error(struct wren_rpl *rpl, const uint8_t *dst, const uint8_t *via)
{
    for (unsigned i = 0; i < rpl->n_routes; i++) {
        struct wren_rpl_route *r = &rpl->routes[i];
        if (!route_live(r) || memcmp(r->via, via, 8) != 0 ||
            !wren_ipv6_prefix_equal(r->target, dst, r->plen)) {
            continue;
        }
        route_withdraw(rpl, r); /* (storing: forgotten at a root only) */
    }
    if (rpl->role != WREN_RPL_ROOT && !rpl->dao_wait) {
        wren_rpl_send_dao(rpl);
    }
}

/* RFC 6550 11.2.2.2: a datagram we forward. @p v: in: destination (16),
 * the RPI (4) and the previous hop's IID (8); out: the RPI to write back
 * (4). A rank that contradicts the direction is an error: the first sets R
 * (and resets Trickle, the DODAG may be inconsistent), a second one means a
 * loop: -ELOOP, drop. Storing mode, 11.2.2.3: a datagram going down to a
 * router without a route to its destination goes back up with F set (O
 * kept; without F the parent would send it down again, and again until the
 * hop limit ran out), and the router it comes back to drops its route
 * through that child and tries another (F cleared), else sends it on up
 * with F. */
int wren_rpl_rpi_forward(struct wren_rpl *rpl, uint8_t *v)
{
    struct rpl_rpi r;
    if (!wren_rpl_in_dodag(rpl) || wren_rpl_rpi_parse(v + 16, RPL_RPI_LEN, &r) < 0 ||
        r.instance != rpl->instance) {
        return -ENOENT; /* not ours to judge: forwarded as it is */
    }
    bool storing = !ns_mode(rpl);
    bool down = (r.flags & RPL_RPI_O) != 0;
    bool error = down ? r.rank >= rpl->rank : r.rank <= rpl->rank;
    if (storing && (r.flags & RPL_RPI_F)) {
        /* it travels against its O flag: no rank check */
        rpl->stats.rpi_forward_error++;
        forward_error(rpl, v, v + 20);
        r.flags &= (uint8_t)~RPL_RPI_F;
    } else if (error && rpl->role != WREN_RPL_ROOT) {
        if (r.flags & RPL_RPI_R) {
            rpl->stats.rpi_loop++;
            wren_rpl_trickle_reset(rpl);
            return -ELOOP;
        }
        rpl->stats.rpi_rank_error++;
        r.flags |= RPL_RPI_R;
        wren_rpl_trickle_reset(rpl);
    }
    /* storing: down where we hold a route; non-storing: the direction does
     * not change on the way (up to the root, then down its source route) */
    if (storing) {
        bool route = goes_down(rpl, v);
        if (!route && down && rpl->role != WREN_RPL_ROOT) {
            rpl->stats.rpi_no_route_down++;
            r.flags |= RPL_RPI_F; /* O stays: back up to the parent */
        } else {
            r.flags = (uint8_t)((r.flags & ~RPL_RPI_O) | (route ? RPL_RPI_O : 0));
        }
    }
    v[0] = r.flags;
    v[1] = r.instance;
    put_be16(v + 2, rpl->rank);
    return RPL_RPI_LEN;
}

/* RPL-unaware leaves (RFC 9010): hosts that registered an address with
 * this node by 6LoWPAN ND (ARO, RFC 6775, or EARO, RFC 8505) and run no
 * RPL. The NIB tells us of each registration (SET WREN_NETOPT_RPL_REGISTERED);
 * a router (6LR) announces the address to the root on the host's behalf
 * with non-storing signalling whatever the mode (RFC 9010 3, 9.2.2: a DAO
 * to the root, the target, a TIO with the E flag and our address as the
 * parent, the registration's lifetime; a no-path when it is withdrawn or
 * expires), routes to it on its link, and keeps RPL artifacts off what it
 * sends there (RFC 9008: IPv6 asks GET WREN_NETOPT_RPL_RUL). The root
 * tunnels datagrams for such a target to the 6LR (rpl_dao.c). rpl.c has
 * the DIO/DIS half and the module, rpl_dao.c the DAOs and routes. */
#include <errno.h>
#include <string.h>

#include "core/node.h"
#include "icmpv6/icmpv6.h"
#include "net/netapi.h"
#include "rpl/rpl.h"
#include "rpl/rpl_priv.h"
#include "wire/icmpv6_types.h"
#include "wire/ipv6.h"

#if CONFIG_WREN_RPL_RUL

/* seconds before an announcement without its DAO-ACK is sent again */
#define RUL_RETRY_S 4
/* leaves one DAO announces: a target (20) and its TIO (22) each */
#define RUL_PER_DAO 3

const struct wren_rpl_rul *wren_rpl_rul_find(const struct wren_rpl *rpl, const uint8_t *addr)
{
    for (unsigned i = 0; i < wren_rpl_n_ruls(rpl); i++) {
        const struct wren_rpl_rul *e = &rpl->ruls[i];
        if (e->if_id && !(e->flags & RUL_GONE) && memcmp(e->addr, addr, 16) == 0) {
            return e;
        }
    }
    return NULL;
}

/* Is the owner of @p addr a RPL node we know (a neighbour whose DIOs we
 * heard, or a child whose storing DAOs we route through)? By the IID: wren
 * and the stacks it meets form their RPL addresses from it. */
static bool rpl_aware(const struct wren_rpl *rpl, const uint8_t *addr)
{
    for (unsigned i = 0; i < CONFIG_WREN_RPL_PARENTS; i++) {
        if (rpl->parents[i].used && memcmp(rpl->parents[i].addr + 8, addr + 8, 8) == 0) {
            return true;
        }
    }
    for (unsigned i = 0; !ns_mode(rpl) && i < rpl->n_routes; i++) {
        const struct wren_rpl_route *r = &rpl->routes[i];
        if (route_live(r) && !(r->flags & RT_EXTERNAL) && memcmp(r->via, addr + 8, 8) == 0) {
            return true;
        }
    }
    return false;
}

/* A leaf leaves: announced, a no-path goes to the root; else forgotten. */
static void rul_drop(struct wren_rpl *rpl, struct wren_rpl_rul *e)
{
    rpl->stats.rul_removed++;
    if (e->flags & RUL_ANNOUNCED) {
        e->flags = RUL_GONE | RUL_DIRTY;
    } else {
        memset(e, 0, sizeof(*e));
    }
}

/* Whether registration @p r is refused (-EINVAL) for claiming an address
 * that is not a host's to claim: a host claiming the root's (DODAGID) or our
 * own RPL address (a leaf is routed before any other route,
 * wren_rpl_route_lookup, so the address's traffic would go to that host),
 * the unspecified or the loopback address. Counted. */
static bool reg_spoofed(struct wren_rpl *rpl, const struct wren_rpl_reg *r)
{
    if (r->lifetime_s && (wren_ipv6_addr_is_unspecified(r->addr) ||
                          wren_ipv6_addr_is_loopback(r->addr) ||
                          memcmp(r->addr, rpl->dodagid, 16) == 0 ||
                          memcmp(r->addr, rpl->addr, 16) == 0)) {
        rpl->stats.dao_target_refused++;
        return true;
    }
    return false;
}

/* RFC 9010 9.2.2. Which registrations are a RUL's: an EARO's with the R
 * flag (its owner asks to be routed); an EARO without it is not (RFC
 * 9010: the owner needs no route, a RPL node routes itself); a plain ARO
 * (RFC 6775, no R flag: what RIOT's and lwIP's hosts send) is, unless its
 * owner is a RPL node we know (rpl_aware), since a host that sends no RPL
 * message has no other way to be reached. */
static bool reg_is_rul(const struct wren_rpl *rpl, const struct wren_rpl_reg *r)
{
    return (r->flags & WREN_RPL_REG_EARO) ? (r->flags & WREN_RPL_REG_R) != 0
                                          : !rpl_aware(rpl, r->addr);
}

/* The slot for a new registration of @p addr: its own withdrawal not yet
 * sent (taken back), else a free one; NULL if none. */
static struct wren_rpl_rul *rul_slot(struct wren_rpl *rpl, const uint8_t *addr)
{
    for (unsigned pass = 0; pass < 2; pass++) {
        for (unsigned i = 0; i < CONFIG_WREN_RPL_RULS; i++) {
            struct wren_rpl_rul *f = &rpl->ruls[i];
            if (pass ? f->if_id == 0 : (f->flags & RUL_GONE) && memcmp(f->addr, addr, 16) == 0) {
                return f;
            }
        }
    }
    return NULL;
}

int wren_rpl_rul_register(struct wren_rpl *rpl, const struct wren_rpl_reg *r)
{
    if (rpl->role != WREN_RPL_ROUTER && rpl->role != WREN_RPL_ROOT) {
        return 0; /* (a leaf serves nobody) */
    }
    if (wren_ipv6_addr_is_link_local(r->addr) || wren_ipv6_addr_is_multicast(r->addr)) {
        return 0; /* on its link already: nothing to announce or route */
    }
    if (reg_spoofed(rpl, r)) {
        return -EINVAL;
    }
    struct wren_rpl_rul *e = (struct wren_rpl_rul *)wren_rpl_rul_find(rpl, r->addr);
    if (r->lifetime_s == 0) {
        if (e) {
            rul_drop(rpl, e);
        }
        return 0;
    }
    if (!reg_is_rul(rpl, r)) {
        rpl->stats.rul_ignored++;
        return 0;
    }
    if (e == NULL && (e = rul_slot(rpl, r->addr)) == NULL) {
        rpl->stats.ruls_full++;
        return -ENOSPC;
    }
    if (e->if_id == 0 || (e->flags & RUL_GONE)) {
        rpl->stats.rul_added++;
        e->path_seq = e->if_id ? seq_next(e->path_seq) : SEQ_INIT;
        e->flags &= RUL_ANNOUNCED;
        wren_ipv6_addr_copy(e->addr, r->addr);
    }
    e->if_id = r->if_id;
    e->expires_s = wren_rpl_now_s(rpl) + r->lifetime_s;
    /* (a refresh goes up too: the root's route lives as long as the
     * registration, RFC 9010 9.2.2 4.) */
    if (rpl->role == WREN_RPL_ROUTER) {
        e->flags |= RUL_DIRTY;
    }
    return 0;
}

/* A DAO to the root (K set) with up to RUL_PER_DAO leaves to announce or
 * withdraw: the target, then a TIO with E, the path sequence, the lifetime
 * in lifetime units (rounded up, one unit more for the way to the root;
 * 0: no-path) and our address as the parent (RFC 9010 9.2.2). */
static void send_rul_dao(struct wren_rpl *rpl, uint32_t now)
{
    uint8_t opts[MSG_MAX], out[MSG_MAX + 24];
    size_t n = 0;
    unsigned k = 0;
    uint32_t unit = rpl->cfg.lifetime_unit ? rpl->cfg.lifetime_unit : 1;
    for (unsigned i = 0; i < CONFIG_WREN_RPL_RULS && k < RUL_PER_DAO; i++) {
        struct wren_rpl_rul *e = &rpl->ruls[i];
        e->flags &= (uint8_t)~RUL_IN_FLIGHT;
        if (!e->if_id || !(e->flags & RUL_DIRTY)) {
            continue;
        }
        uint32_t units = 0;
        if (!(e->flags & RUL_GONE)) {
            uint32_t left = (int32_t)(e->expires_s - now) > 0 ? e->expires_s - now : 0;
            units = (left + unit - 1) / unit + 1;
            units = units > 255 ? 255 : units;
        }
        struct rpl_opt_target t = { .prefix_len = 128, .prefix = e->addr, .prefix_bytes = 16 };
        struct rpl_opt_transit tr = { .flags = RPL_TRANSIT_E, .path_seq = e->path_seq,
                                      .path_lifetime = (uint8_t)units, .parent = rpl->addr };
        n += (size_t)wren_rpl_opt_target_emit(&t, opts + n, sizeof(opts) - n);
        n += (size_t)wren_rpl_opt_transit_emit(&tr, opts + n, sizeof(opts) - n);
        e->flags |= RUL_IN_FLIGHT;
        k++;
    }
    if (k == 0) {
        return;
    }
    int len = wren_rpl_dao_emit(rpl, RPL_DAO_K, opts, n, out, sizeof(out));
    rpl->rul_wait = true;
    rpl->rul_wait_seq = rpl->dao_seq;
    rpl->rul_sent_s = now;
    if (len <= 0) {
        return;
    }
    rpl->stats.tx_dao_rul++;
    wren_rpl_send_to(rpl, rpl->dodagid, out, (size_t)len, false);
}

/* Each second (rpl_tick): registrations that ran out leave; a router in a
 * DODAG sends what is to announce, again after RUL_RETRY_S without ACK. */
void wren_rpl_rul_tick(struct wren_rpl *rpl, uint32_t now)
{
    bool dirty = false;
    for (unsigned i = 0; i < CONFIG_WREN_RPL_RULS; i++) {
        struct wren_rpl_rul *e = &rpl->ruls[i];
        if (e->if_id && !(e->flags & RUL_GONE) && (int32_t)(now - e->expires_s) >= 0) {
            rul_drop(rpl, e);
        }
        if (e->if_id && rpl->role == WREN_RPL_ROOT && (e->flags & RUL_GONE)) {
            memset(e, 0, sizeof(*e)); /* (a root announces nothing) */
        }
        dirty |= e->if_id && (e->flags & RUL_DIRTY);
    }
    if (!dirty || rpl->role != WREN_RPL_ROUTER || !rpl->joined || rpl->addr[0] == 0 ||
        (rpl->rul_wait && now - rpl->rul_sent_s < RUL_RETRY_S)) {
        return;
    }
    send_rul_dao(rpl, now);
}

/* A DAO-ACK: the answer to our leaves' DAO? (true: taken here) */
bool wren_rpl_dao_ack_rul(struct wren_rpl *rpl, const struct rpl_msg *m)
{
    if (!rpl->rul_wait || m->dao_ack.seq != rpl->rul_wait_seq) {
        return false;
    }
    rpl->rul_wait = false;
    bool refused = m->dao_ack.status >= 128, more = false;
    rpl->stats.dao_ack_refused += refused;
    for (unsigned i = 0; i < CONFIG_WREN_RPL_RULS; i++) {
        struct wren_rpl_rul *e = &rpl->ruls[i];
        if (!(e->flags & RUL_IN_FLIGHT)) {
            more |= e->if_id && (e->flags & RUL_DIRTY);
            continue;
        }
        if (refused) {
            e->flags &= (uint8_t)~RUL_IN_FLIGHT; /* again after RUL_RETRY_S */
        } else if (e->flags & RUL_GONE) {
            memset(e, 0, sizeof(*e));
        } else {
            e->flags = RUL_ANNOUNCED;
        }
    }
    if (refused) {
        rpl->rul_wait = true; /* (the retry's clock: rul_sent_s) */
        rpl->rul_sent_s = wren_rpl_now_s(rpl);
    } else if (more) {
        send_rul_dao(rpl, wren_rpl_now_s(rpl));
    }
    return true;
}

void wren_rpl_rul_clear(struct wren_rpl *rpl)
{
    if (wren_rpl_n_ruls(rpl)) {
        memset(rpl->ruls, 0, CONFIG_WREN_RPL_RULS * sizeof(rpl->ruls[0]));
    }
    rpl->rul_wait = false;
}

#endif /* CONFIG_WREN_RPL_RUL */

/* GET WREN_NETOPT_RPL_RUL: @p v = destination (16), interface (1). */
int wren_rpl_rul_query(struct wren_rpl *rpl, const uint8_t *v)
{
    if (wren_rpl_rul_find(rpl, v)) {
        return 1;
    }
    if (v[16] == rpl->if_id && wren_rpl_in_dodag(rpl)) {
        return 0;
    }
    /* a root's other interfaces lead out of the domain (the Internet):
     * RFC 9008 7.2.1 lets a forwarded RPI (type 0x23, skipped where
     * unknown) go there, and RFC 8200 keeps routers from removing it */
    return rpl->role == WREN_RPL_ROOT ? 2 : -ENOENT;
}

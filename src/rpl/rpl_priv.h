/* Private to src/rpl: what rpl.c (the module: its timekeeping, GET/SET,
 * roles), rpl_dio.c (DIO, DIS, Trickle, the DODAG configuration),
 * rpl_parent.c (parents, rank, objective functions, detaching, floating),
 * rpl_dao.c (DAOs, routes, source routes, the RPI) and rpl_rul.c
 * (RPL-unaware leaves) share. */
#ifndef WREN_RPL_RPL_PRIV_H
#define WREN_RPL_RPL_PRIV_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/node.h"
#include "net/netopt.h"
#include "net/netreg.h"
#include "net/nettype.h"
#include "rpl/rpl.h"

/* entries of the parent and leaf tables: none before a role first made
 * them (CONFIG_WREN_NODE_MEM; built in otherwise) */
static inline unsigned wren_rpl_n_parents(const struct wren_rpl *rpl)
{
#if CONFIG_WREN_NODE_MEM
    return rpl->parents ? CONFIG_WREN_RPL_PARENTS : 0;
#else
    (void)rpl;
    return CONFIG_WREN_RPL_PARENTS;
#endif
}

static inline unsigned wren_rpl_n_ruls(const struct wren_rpl *rpl)
{
#if CONFIG_WREN_NODE_MEM
    return rpl->ruls ? CONFIG_WREN_RPL_RULS : 0;
#else
    (void)rpl;
    return CONFIG_WREN_RPL_RULS;
#endif
}

/* struct wren_rpl pref: no preferred parent (an unsigned byte: Thumb-2
 * loads it with a 2-byte instruction, a signed one takes 4) */
#define NO_PREF 0xff
/* RFC 6550 7.2: lollipop counters start 16 below the wrap */
#define SEQ_INIT 240
#define SEQ_WINDOW 16
/* largest control message we build */
#define MSG_MAX 160
/* targets of children's routes one DAO carries up (26 bytes each) */
#define DAO_MAX_FWD 4
#define RT_DIRTY 0x01     /* to be announced to our parent */
#define RT_IN_FLIGHT 0x02 /* in the DAO awaiting its ACK */
/* removed by a no-path DAO from the child it went through: no route any
 * more, kept (with RT_DIRTY) until our parent acknowledges the no-path we
 * send it in turn, or for NOPATH_HOLD_S */
#define RT_NOPATH 0x04
#define NOPATH_HOLD_S 60
/* non-storing root: the DAO-ACK to this target waits for a source route
 * (the DAO of a node on its path is still to come) */
#define RT_ACK_PENDING 0x08
/* a DAO at the root releases at most ACK_RELEASE_SEND deferred DAO-ACKs,
 * searched level by level down from its sender through ACK_RELEASE_MAX
 * nodes (a burst of ACKs down one branch collides; the others go with
 * their senders' next DAO) */
/* root: a target some 6LR announced for a RPL-unaware leaf (RFC 9010,
 * the TIO's E flag): via is the 6LR's IID in the prefix; datagrams to it
 * go in a tunnel to that 6LR (RFC 9008 7.1.3, 8.1.3) */
#define RT_EXTERNAL 0x10
/* RUL flags (struct wren_rpl_rul) */
#define RUL_DIRTY 0x01     /* an announcement (or its withdrawal) to send */
#define RUL_IN_FLIGHT 0x02 /* in the DAO awaiting its ACK */
#define RUL_ANNOUNCED 0x04 /* the root has (or may have) a route to it */
#define RUL_GONE 0x08      /* deregistered or expired: a no-path to send */
#define ACK_RELEASE_MAX 8
#define ACK_RELEASE_SEND 2
/* objective code points (RFC 6552, RFC 6719) */
#define OCP_OF0 0
#define OCP_MRHOF 1
/* RFC 6719 5: links worse than ETX 4 are not used */
#define MAX_LINK_METRIC (4 * WREN_LINK_ETX_ONE)

/* The modes built in (core/config.h): is the DODAG we run non-storing?
 * A constant when one mode is left out, so the other's code goes. */
static inline bool ns_mode(const struct wren_rpl *rpl)
{
    return !CONFIG_WREN_RPL_STORING ||
           (CONFIG_WREN_RPL_NONSTORING && rpl->mop == RPL_MOP_NON_STORING);
}

/* Whether mode of operation @p mop is one this build runs. */
static inline bool mop_built(unsigned mop)
{
    return (CONFIG_WREN_RPL_STORING && mop == RPL_MOP_STORING) ||
           (CONFIG_WREN_RPL_NONSTORING && mop == RPL_MOP_NON_STORING);
}

/* Whether slot @p r holds a route datagrams may take. */
static inline bool route_live(const struct wren_rpl_route *r)
{
    return r->plen && !(r->flags & RT_NOPATH);
}

/* The node's clock in seconds (rpl.c: one copy for the module) */
uint32_t wren_rpl_now_s(const struct wren_rpl *rpl);

static inline struct wren_module *ipv6_layer(struct wren_rpl *rpl)
{
    struct wren_netreg_entry *e =
        wren_netreg_lookup(rpl->node, WREN_NETTYPE_IPV6, WREN_NETREG_DEMUX_ALL, NULL);
    return e ? e->module : NULL;
}

/* RFC 6550 7.2: is lollipop counter @p a newer than @p b? (rpl.c: one
 * copy for the module) */
bool wren_rpl_seq_newer(uint8_t a, uint8_t b);

static inline uint8_t seq_next(uint8_t s)
{
    return s == 127 ? 0 : (uint8_t)(s + 1);
}

static inline uint32_t lifetime_s(const struct wren_rpl *rpl, uint8_t units)
{
    return (uint32_t)units * rpl->cfg.lifetime_unit;
}

/* rpl.c */
/* ff02::1a, all RPL nodes (RFC 6550 20.19) */
extern const uint8_t wren_rpl_all_nodes[16];
/* RFC 6550 6.7.10 (A flag): an address from the prefix and our IID */
void wren_rpl_take_address(struct wren_rpl *rpl);
/* The default route (the FIB's, through the IPv6 module) via @p via, the
 * preferred parent, or none (NULL) */
void wren_rpl_default_route(struct wren_rpl *rpl, const uint8_t *via);
/* IPv6 forwards datagrams (we route: a root, a joined router) */
void wren_rpl_forwarding_on(struct wren_rpl *rpl);
/* The next DAO in 30-40 s from @p now at the latest (what it would carry
 * was refused, or its parent does not answer: another parent may take it
 * by then) */
void wren_rpl_dao_later(struct wren_rpl *rpl, uint32_t now);
/* A control message to @p dst: @p link, a link-local one on our interface
 * with hop limit 255, like ND; else across the DODAG from our address in it,
 * like any datagram (the default hop limit; IPv6 routes it, with an SRH at
 * a non-storing root). Counted (tx_bytes, tx_fail). */
void wren_rpl_send_to(struct wren_rpl *rpl, const uint8_t *dst, const uint8_t *m, size_t len,
                      bool link);
static inline void wren_rpl_send_msg(struct wren_rpl *rpl, const uint8_t *dst, const uint8_t *m,
                                     size_t len)
{
    wren_rpl_send_to(rpl, dst, m, len, true);
}

/* rpl_dio.c */
void wren_rpl_send_dio(struct wren_rpl *rpl, const uint8_t *dst);
void wren_rpl_send_dis_to(struct wren_rpl *rpl, const uint8_t *dst);
/* Imax = Imin x 2^DIOIntervalDoublings of the configuration, in ms */
uint32_t wren_rpl_imax_ms(const struct wren_rpl *rpl);
/* Trickle's callback: a DIO to all RPL nodes */
void wren_rpl_trickle_fire(struct wren_trickle *tr, void *arg);
void wren_rpl_trickle_start(struct wren_rpl *rpl);
/* An inconsistency (RFC 6206 4.2 rule 6): Trickle back to Imin */
void wren_rpl_trickle_reset(struct wren_rpl *rpl);
void wren_rpl_on_dio(struct wren_rpl *rpl, const uint8_t *src, const struct rpl_msg *m);
void wren_rpl_on_dis(struct wren_rpl *rpl, const uint8_t *src, const uint8_t *dst);

/* rpl_parent.c */
/* a DAO soon (jittered) */
void wren_rpl_schedule_dao(struct wren_rpl *rpl);
void wren_rpl_detach(struct wren_rpl *rpl);
void wren_rpl_float_root(struct wren_rpl *rpl);
void wren_rpl_leave_float(struct wren_rpl *rpl);
void wren_rpl_select_parent(struct wren_rpl *rpl);
struct wren_rpl_parent *wren_rpl_parent_find(struct wren_rpl *rpl, const uint8_t *addr);
/* DIO @p d's sender @p src as a candidate parent (added or updated; a full
 * table keeps the better ranked ones), then the preferred parent chosen */
void wren_rpl_parent_heard(struct wren_rpl *rpl, const uint8_t *src, const struct rpl_dio *d);

/* rpl_dao.c */
/* A DAO (@p flags: RPL_DAO_K or 0; the next sequence number) with @p opts
 * into @p out, counted (tx_dao); its length, or <= 0 (nothing sent) */
int wren_rpl_dao_emit(struct wren_rpl *rpl, uint8_t flags, const uint8_t *opts, size_t n,
                      uint8_t *out, size_t max);
void wren_rpl_send_dao(struct wren_rpl *rpl);
void wren_rpl_send_no_path(struct wren_rpl *rpl, const uint8_t *parent);
void wren_rpl_clear_routes(struct wren_rpl *rpl);
void wren_rpl_on_dao(struct wren_rpl *rpl, const uint8_t *src, const struct rpl_msg *m);
void wren_rpl_on_dao_ack(struct wren_rpl *rpl, const struct rpl_msg *m);
int wren_rpl_source_route(struct wren_rpl *rpl, const uint8_t *dst, uint8_t *out, size_t max);
int wren_rpl_route_lookup(struct wren_rpl *rpl, const uint8_t *dst, uint8_t *out);
int wren_rpl_rpi_origin(struct wren_rpl *rpl, uint8_t *v);
int wren_rpl_rpi_forward(struct wren_rpl *rpl, uint8_t *v);
int wren_rpl_tunnel(struct wren_rpl *rpl, uint8_t *v, size_t max);

/* rpl_rul.c */
int wren_rpl_rul_query(struct wren_rpl *rpl, const uint8_t *v);
bool wren_rpl_in_dodag(const struct wren_rpl *rpl);
#if CONFIG_WREN_RPL_RUL
int wren_rpl_rul_register(struct wren_rpl *rpl, const struct wren_rpl_reg *r);
void wren_rpl_rul_tick(struct wren_rpl *rpl, uint32_t now);
const struct wren_rpl_rul *wren_rpl_rul_find(const struct wren_rpl *rpl, const uint8_t *addr);
void wren_rpl_rul_clear(struct wren_rpl *rpl);
bool wren_rpl_dao_ack_rul(struct wren_rpl *rpl, const struct rpl_msg *m);
#else
/* built without RPL-unaware leaves: registrations are refused, there is
 * never a leaf, nor a DAO announcing one */
static inline int wren_rpl_rul_register(struct wren_rpl *rpl, const struct wren_rpl_reg *r)
{
    (void)rpl;
    (void)r;
    return -ENOTSUP;
}
static inline void wren_rpl_rul_tick(struct wren_rpl *rpl, uint32_t now)
{
    (void)rpl;
    (void)now;
}
static inline const struct wren_rpl_rul *wren_rpl_rul_find(const struct wren_rpl *rpl,
                                                           const uint8_t *addr)
{
    (void)rpl;
    (void)addr;
    return NULL;
}
static inline void wren_rpl_rul_clear(struct wren_rpl *rpl)
{
    (void)rpl;
}
static inline bool wren_rpl_dao_ack_rul(struct wren_rpl *rpl, const struct rpl_msg *m)
{
    (void)rpl;
    (void)m;
    return false;
}
#endif

#endif

/**
 * @file rpl.h
 * @brief RPL (RFC 6550): a node joins a DODAG from the DIOs it hears, picks a
 *        preferred parent with an objective function, advertises itself with
 *        Trickle-timed DIOs, and announces its address upward with DAOs that
 *        install downward routes hop by hop (storing mode, MOP 2).
 *
 * One instance per 802.15.4 interface, registered as (ICMPV6, 155). It is
 * silent until given a role (SET WREN_NETOPT_RPL_ROLE or the shell's
 * `rpl root PREFIX/LEN`, `rpl router`, `rpl leaf`), so nodes that do not use
 * RPL send nothing more than before.
 *
 * - root: owns the DODAG (DODAGID = its address in the prefix), rank
 *   ROOT_RANK, DIOs with the DODAG configuration and prefix information;
 *   every DAO ends here.
 * - router: joins the best DODAG it hears, takes an address from the DIO's
 *   prefix (A flag) and its link-local IID, routes upward through its
 *   preferred parent (a default route in the FIB) and downward through the
 *   routes its children's DAOs installed (its own table, which IPv6 asks
 *   with GET WREN_NETOPT_RPL_ROUTE: the FIB holds only the default route),
 *   sends DIOs and forwards DAOs.
 * - leaf (RFC 9010 behaviour): joins and sends DAOs, never DIOs, never
 *   forwards.
 *
 * Routes and parents live in bounded tables; a full table is a counted
 * refusal (a DAO-ACK with status 128, UNABLE_TO_ACCEPT, where one is asked
 * for). The objective function is the root's choice: OF0 (RFC 6552) with the
 * default step of rank, or MRHOF (RFC 6719) with the ETX of the interface's
 * link estimator (GET WREN_NETOPT_LINK_ETX); either leaves links worse than
 * ETX 4, so a parent that stops acknowledging is replaced. The default route
 * goes to the IPv6 module through netapi SET (WREN_NETOPT_IPV6_ROUTE_ADD/DEL);
 * nothing of IPv6's state is read directly. The route table is built in
 * (CONFIG_WREN_RPL_ROUTES) or memory the caller hands over
 * (WREN_NETOPT_RPL_ROUTE_MEM): a root's table is sized apart from a router's.
 *
 * Non-storing mode (MOP 1): DAOs go to the root with the parent's address;
 * the root answers GET WREN_NETOPT_RPL_SRH with source routes for IPv6 to
 * put in an RFC 6554 header.
 *
 * RPI (RFC 6553/9008): IPv6 asks GET WREN_NETOPT_RPL_RPI for the option of
 * each datagram it originates, and GET WREN_NETOPT_RPL_RPI_FWD to check and
 * update it when forwarding (rank errors set R; a second one is a loop).
 *
 * Not yet (issue 13): IPv6-in-IPv6 at the root (RFC 9008) — see
 * docs/architecture.md.
 */
#ifndef WREN_RPL_RPL_H
#define WREN_RPL_RPL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/config.h"
#include "core/counters.h"
#include "core/module.h"
#include "core/node.h"
#include "core/timer.h"
#include "core/trickle.h"
#include "net/netreg.h"
#include "wire/rpl.h"

#ifndef CONFIG_WREN_RPL_PARENTS
#define CONFIG_WREN_RPL_PARENTS 4 /**< candidate parents kept */
#endif
#ifndef CONFIG_WREN_RPL_ROUTES
/** downward routes built in (a storing router's; a root or a router with a
 *  large subtree gets memory of the caller's: WREN_NETOPT_RPL_ROUTE_MEM) */
#define CONFIG_WREN_RPL_ROUTES 16
#endif
#ifndef CONFIG_WREN_RPL_PARENT_INFO
/** RPL answers GET WREN_NETOPT_RPL_PARENT / RPL_RANK (what MSF reads, src/sixtop;
 *  124 bytes on a Cortex-M3: the images without TSCH set it 0) */
#define CONFIG_WREN_RPL_PARENT_INFO 1
#endif
#ifndef CONFIG_WREN_RPL_RULS
/** RPL-unaware leaves (hosts registered by ND, RFC 9010) a 6LR announces */
#define CONFIG_WREN_RPL_RULS 4
#endif
_Static_assert(CONFIG_WREN_RPL_RULS >= 1 && CONFIG_WREN_RPL_RULS <= 255, "1..255 leaves");
_Static_assert(CONFIG_WREN_RPL_PARENTS >= 1 && CONFIG_WREN_RPL_PARENTS <= 127,
               "one parent at least; indices below NO_PREF (0xff)");
_Static_assert(CONFIG_WREN_RPL_ROUTES >= 0 && CONFIG_WREN_RPL_ROUTES <= 0xffff,
               "0..65535 routes");
/** Most hops of a source route a non-storing root builds (bounds its walk
 *  up the DAO parents, and a loop in them) */
#define WREN_RPL_SRH_HOPS 32

/** Rank of the root and the default MinHopRankIncrease (RFC 6550 17). */
#define WREN_RPL_MIN_HOP_RANK_INC 256
/** The all-RPL-nodes group (RFC 6550 20.19). */
#define WREN_RPL_ALL_NODES { 0xff, 0x02, [15] = 0x1a }

enum wren_rpl_role {
    WREN_RPL_OFF = 0, /**< silent: RPL messages are counted and dropped */
    WREN_RPL_ROOT,
    WREN_RPL_ROUTER,
    WREN_RPL_LEAF,
};

/** Value of SET WREN_NETOPT_RPL_ROLE. */
struct wren_rpl_role_cfg {
    uint8_t role;       /**< enum wren_rpl_role */
    uint8_t instance;   /**< root: RPLInstanceID (global: < 128) */
    uint8_t prefix_len; /**< root: its prefix, 64 for autoconfiguration */
    uint8_t mop;        /**< root: RPL_MOP_STORING or RPL_MOP_NON_STORING; router or
                             leaf with WREN_RPL_CFG_MOP: the only mode it joins */
    uint8_t ocp;        /**< root: objective function, 0 OF0 (RFC 6552), 1 MRHOF (RFC 6719) */
    uint8_t prefix[16]; /**< root */
    uint8_t flags;      /**< WREN_RPL_CFG_* */
    /* root, with WREN_RPL_CFG_TIMERS: the DODAG configuration's timers
     * (RFC 6550 6.7.6) instead of the defaults; every node takes them
     * from the root's DIOs */
    uint8_t dio_imin;      /**< DIOIntervalMin: Imin = 2^n ms (3..23) */
    uint8_t dio_doublings; /**< DIOIntervalDoublings (0: a fixed interval) */
    uint8_t dio_k;         /**< DIORedundancyConstant (0: never suppressed) */
    uint8_t lifetime;      /**< Default Lifetime, in lifetime units (DAOs refresh at half) */
    uint16_t lifetime_unit; /**< Lifetime Unit, seconds */
};

/** root: its DODAG is grounded (RFC 6550 3.2.4: it reaches the goal, e.g.
 *  the uplink of a border router), the DIOs' G flag; without it a floating
 *  DODAG: nodes leave it for a grounded one of the instance when they hear one */
#define WREN_RPL_CFG_GROUNDED 0x01
/** router: never form a floating DODAG after losing every parent (by
 *  default a router that detaches becomes the root of one, RFC 6550 3.2.4,
 *  so that the nodes below it stay connected; leaves never do) */
#define WREN_RPL_CFG_NO_FLOAT 0x02
/** root: take dio_imin, dio_doublings, dio_k, lifetime and lifetime_unit
 *  (with CONFIG_WREN_RPL_ROOT_TIMERS; a build without it keeps the defaults) */
#define WREN_RPL_CFG_TIMERS 0x04

/** router or leaf: join only DODAGs of mode @c mop (a storing-only node,
 *  as RIOT's is); a DIO of another mode is counted (dio_mop_mismatch) and
 *  shown by `rpl`, never joined. Without it a node joins either mode. */
#define WREN_RPL_CFG_MOP 0x08

/* Local limits on the timers of a DODAG configuration (RFC 6550 6.7.6 lets
 * the root choose them; a hostile or broken DIO must neither make a node
 * flood nor silence it). A node takes, and advertises in turn, the values
 * bounded by these (rpl.cfg_clamped counts the configurations it had to
 * bound); a root's own (WREN_RPL_CFG_TIMERS) must lie within them. */
#ifndef CONFIG_WREN_RPL_DIO_IMIN_MIN
/** smallest DIOIntervalMin taken: Imin >= 2^n ms (7: 128 ms; RFC 6550's
 *  default 3, 8 ms, is some 2 frames of airtime at 250 kbit/s) */
#define CONFIG_WREN_RPL_DIO_IMIN_MIN 7
#endif
#ifndef CONFIG_WREN_RPL_DIO_IMAX_MAX
/** largest DIOIntervalMin + DIOIntervalDoublings taken: Imax <= 2^n ms (23:
 *  2.3 h, RFC 6550's default Imax); beyond, a node would stay silent for days */
#define CONFIG_WREN_RPL_DIO_IMAX_MAX 23
#endif
#ifndef CONFIG_WREN_RPL_LIFETIME_MIN_S
/** shortest route lifetime (Default Lifetime x Lifetime Unit) taken, seconds:
 *  DAOs refresh at half of it (a lifetime of 1 s made every node send a DAO
 *  each second) */
#define CONFIG_WREN_RPL_LIFETIME_MIN_S 60
#endif
#ifndef CONFIG_WREN_RPL_TARGET_MIN_PLEN
/** shortest DAO target within the DODAG's prefix a router installs a route
 *  for (RFC 6550 6.7.7 allows prefixes; wren's nodes announce their /128
 *  addresses, and a shorter prefix from a child would draw other nodes'
 *  traffic down to it). A target covering the DODAG's prefix never is. */
#define CONFIG_WREN_RPL_TARGET_MIN_PLEN 128
#endif
#ifndef CONFIG_WREN_RPL_EXT_TARGET_MIN_PLEN
/** shortest DAO target outside the DODAG's prefix (a network behind a
 *  node) a router installs a route for: a child cannot claim a larger share
 *  of the address space than a /32 */
#define CONFIG_WREN_RPL_EXT_TARGET_MIN_PLEN 32
#endif
_Static_assert(CONFIG_WREN_RPL_DIO_IMIN_MIN >= 3 &&
                   CONFIG_WREN_RPL_DIO_IMIN_MIN <= CONFIG_WREN_RPL_DIO_IMAX_MAX &&
                   CONFIG_WREN_RPL_DIO_IMAX_MAX <= 31,
               "3 <= DIO_IMIN_MIN <= DIO_IMAX_MAX <= 31");
_Static_assert(CONFIG_WREN_RPL_LIFETIME_MIN_S >= 1 && CONFIG_WREN_RPL_LIFETIME_MIN_S <= 65535,
               "1..65535 s");
_Static_assert(CONFIG_WREN_RPL_TARGET_MIN_PLEN >= 1 && CONFIG_WREN_RPL_TARGET_MIN_PLEN <= 128 &&
                   CONFIG_WREN_RPL_EXT_TARGET_MIN_PLEN >= 1 &&
                   CONFIG_WREN_RPL_EXT_TARGET_MIN_PLEN <= 128,
               "1..128 bits");

#ifndef CONFIG_WREN_RPL_FLOATING
/** A router that loses every parent roots a floating DODAG of its own (RFC
 *  6550 3.2.4, a MAY) until it hears a grounded one; 0 leaves that out (it
 *  then only solicits DIOs, as with WREN_RPL_CFG_NO_FLOAT; DODAGs that
 *  others float are still joined and left for grounded ones) */
#define CONFIG_WREN_RPL_FLOATING 1
#endif

#ifndef CONFIG_WREN_RPL_ACK_DEFER
/** A non-storing root defers the DAO-ACK to a node whose source route is
 *  not complete yet (the DAO of a node on its path is still to come) and
 *  sends it when the path completes (dao_ack_deferred, dao_ack_late); 0
 *  leaves that out: the DAO-ACK goes at once, as RFC 6550 has it */
#define CONFIG_WREN_RPL_ACK_DEFER 1
#endif

#ifndef CONFIG_WREN_RPL_ROOT_TIMERS
#define CONFIG_WREN_RPL_ROOT_TIMERS 1 /**< a root's timers from its role (the Cortex images: 0) */
#endif

#define WREN_RPL_COUNTERS(C)                                                      \
    C(rx_dis)                                                                     \
    C(rx_dio)                                                                     \
    C(rx_dao)                                                                     \
    C(rx_dao_ack)                                                                 \
    C(rx_drop_off)          /* a message while the role is off */                 \
    C(rx_drop_malformed)    /* base or options do not parse */                    \
    C(rx_drop_unsupported)  /* another mode of operation, code or instance */     \
    C(rx_drop_rank)         /* a DIO that the rank rules forbid as parent */      \
    C(rx_drop_dao)          /* a DAO we cannot take (leaf, not joined, bad src) */\
    C(tx_dis)                                                                     \
    C(tx_dio)                                                                     \
    C(tx_dao)                                                                     \
    C(tx_dao_ack)                                                                 \
    C(tx_fail)              /* a message that could not be sent (no buffer) */    \
    C(tx_bytes)             /* bytes of the RPL messages sent (ICMPv6 header and body) */\
    C(joined)               /* DODAGs joined */                                   \
    C(detached)             /* all parents lost: rank infinite */                 \
    C(parent_switch)        /* preferred parent changed */                        \
    C(parents_full)         /* a candidate refused: parent table full */          \
    C(parent_expired)                                                             \
    C(routes_full)          /* a DAO target refused: the route table is full */  \
    C(route_expired)                                                              \
    C(route_no_path)        /* routes removed by a no-path DAO */                 \
    C(tx_no_path)           /* no-path DAOs to a parent we left (storing) */      \
    C(dao_retx)             /* DAOs sent again for want of a DAO-ACK */           \
    C(dao_ack_refused)      /* DAO-ACKs with a rejecting status */                \
    C(dao_ack_deferred)     /* non-storing root: no source route to the DAO's sender yet */\
    C(dao_ack_late)         /* deferred DAO-ACKs sent once the path to the sender completed */\
    C(new_version)          /* DODAG versions adopted after the first */          \
    C(float_formed)         /* floating DODAGs formed as their root after a detach */\
    C(float_rejoin)         /* a floating DODAG left for a grounded one */        \
    C(rpi_rank_error)       /* an RPI whose rank contradicts its direction (R set) */\
    C(rpi_loop)             /* a second rank error: the datagram dropped */          \
    C(rpi_no_route_down)    /* going down with no route: F set, sent back up */       \
    C(rpi_forward_error)    /* came back with F: the route through that child dropped */         \
    C(dio_no_config)        /* DIOs of a DODAG without its configuration (a unicast DIS asks) */\
    C(dis_unicast_tx)       /* unicast DIS sent (configuration asked, or a candidate probed) */  \
    C(dio_mop_mismatch)     /* DIOs of a DODAG of another mode than the one expected */      \
    C(dao_mop_refused)      /* DAOs of the other mode refused (DAO-ACK status 128) */      \
    C(rul_added)            /* RPL-unaware leaves' registrations taken (RFC 9010) */      \
    C(rul_removed)          /* ... deregistered or expired (withdrawn by a no-path DAO) */\
    C(rul_ignored)          /* registrations of RPL nodes, or EARO without R: not announced */\
    C(ruls_full)            /* a leaf refused: the table is full */                       \
    C(tx_dao_rul)           /* DAOs to the root announcing leaves (non-storing signalling) */\
    C(rx_dao_external)      /* root: external targets (E flag) installed, tunnelled to their 6LR */\
    C(cfg_clamped)          /* DODAG configurations with timers beyond the local limits: bounded */\
    C(pio_refused)          /* DIO prefixes not usable (multicast, link-local, ...): not taken */\
    C(dao_target_refused)   /* DAO targets refused (multicast, too short, the DODAG's prefix) */\
    C(routes_used)          /* gauge: routes held now */                          \
    C(routes_size)          /* gauge: the route table's size (full: used = size) */\
    C(parents_used)         /* gauge: candidate parents (neighbours) held now */  \
    C(parents_size)         /* gauge: the parent table's size */

struct wren_rpl_stats {
    WREN_RPL_COUNTERS(WREN_COUNTER_U32)
};

/** A candidate parent: a neighbour whose DIOs put it closer to the root. */
struct wren_rpl_parent {
    uint8_t addr[16];   /**< its link-local address (the DIO's source) */
    uint16_t rank;      /**< as it advertised */
    uint16_t etx;       /**< of the link to it (x 128), when last looked at */
    uint8_t used;
    uint8_t dtsn;
    uint32_t heard_s;   /**< last DIO, seconds */
};

/** A downward route a DAO installed: storing mode, the target via a child;
 *  non-storing root, the target and its DAO parent. 32 bytes (Cortex-M3). */
struct wren_rpl_route {
    uint8_t target[16];
    uint8_t via[8];     /**< IID: of the child's link-local address (fe80::/64,
                             storing) or of the DAO parent's address in the
                             DODAG's /64 prefix (non-storing) */
    uint8_t plen;       /**< 0: free slot */
    uint8_t path_seq;
    uint8_t flags;      /**< announcement to our parent pending / in flight;
                             non-storing root: DAO-ACK deferred */
    uint8_t ack_seq;    /**< non-storing root: the DAO sequence a deferred
                             DAO-ACK answers */
    uint32_t expires_s;
};

/** A RPL-unaware leaf (RFC 9010): a host registered by ND on @c if_id
 *  that runs no RPL; a 6LR announces it to the root, routes to it and
 *  keeps RPL artifacts off what goes there (RFC 9008). */
struct wren_rpl_rul {
    uint8_t addr[16];
    uint32_t expires_s; /**< the registration's end */
    uint8_t if_id;      /**< 0: free slot */
    uint8_t flags;      /**< announcement (or withdrawal) to send / in flight, announced */
    uint8_t path_seq;
};

/** Value of SET WREN_NETOPT_RPL_ROUTE_MEM: @p n routes at @p mem, zeroed,
 *  the caller's until the role is off and other memory (or NULL) is set. */
struct wren_rpl_route_mem {
    struct wren_rpl_route *mem; /**< NULL: the CONFIG_WREN_RPL_ROUTES built in */
    uint32_t n;                 /**< 1..65535 */
};

/* (the fields read most come first: on a Cortex-M3 a byte within 31 bytes
 * of the start, a halfword within 62, a word within 124 take 2-byte loads
 * and stores, those further 4-byte ones) */
/** The route table built into the state (CONFIG_WREN_RPL_ROUTES entries). */
struct wren_rpl_routes {
    struct wren_rpl_route e[CONFIG_WREN_RPL_ROUTES ? CONFIG_WREN_RPL_ROUTES : 1];
};

#if CONFIG_WREN_NODE_MEM
/** The parent and leaf tables, made when a role is first taken (with
 *  CONFIG_WREN_NODE_MEM 0 they are part of struct wren_rpl). */
struct wren_rpl_tabs {
    struct wren_rpl_parent parents[CONFIG_WREN_RPL_PARENTS];
    struct wren_rpl_rul ruls[CONFIG_WREN_RPL_RULS];
};
#endif

struct wren_rpl {
    struct wren_module module; /**< first */
    struct wren_node *node;
    struct wren_rpl_route *routes; /**< the table: own's or the caller's (NULL: own's, not
                                        made until a role needs it) */
    uint8_t role;        /**< enum wren_rpl_role */
    bool joined;
    uint8_t pref;        /**< preferred parent's index, NO_PREF (0xff): none */
    uint8_t instance;
    uint8_t if_id;
    uint8_t mop;
    bool dao_wait;       /**< a DAO-ACK for dao_seq is awaited */
    uint8_t version;
    uint8_t dtsn;
    uint8_t dao_seq;     /**< the last DAO sent (ours or passed on) */
    uint8_t prefix_len;
    bool grounded;       /**< the DODAG's G flag (a root's: configured) */
    uint16_t rank;
    uint16_t lowest_rank; /**< lowest rank advertised in this version (8.2.2.4) */
    uint16_t n_routes;
    uint16_t dao_next;   /**< the route the next DAO's forwarded targets start from */
    struct rpl_opt_config cfg;
    uint32_t next_dao_s; /**< 0: no DAO scheduled */
    uint32_t bad_since_s; /**< the preferred parent's link fails, none better: since */
    struct wren_rpl_stats stats;
    struct wren_netreg_entry reg;
    bool floating;       /**< a router acting as the root of a floating DODAG
                              (role ROOT meanwhile, until a grounded DODAG is heard) */
    bool may_float;      /**< a router: may form a floating DODAG (WREN_RPL_CFG_NO_FLOAT) */
    bool float_due;      /**< detached: float at float_at_s unless a DODAG is joined */
    bool float_wait;     /**< (while a poisoning parent is dropped: wait before floating) */
    uint32_t float_at_s;
    /* after a detach, the DODAG version left and our rank in it: for
     * GUARD_S, DIOs of that version from nodes not closer to its root than
     * we were are refused (they may be our own sub-DODAG, not yet poisoned:
     * joining them would make a loop that counts to infinity) */
    uint32_t guard_until_s;
    uint16_t guard_rank;
    uint8_t guard_version;
    uint8_t guard_dodagid[16];
    uint8_t dao_wait_seq; /**< our own DAO awaiting its DAO-ACK */
    uint8_t path_seq;
    uint8_t dao_retries; /**< DAO sent again so far while awaiting its ACK */
    uint8_t dao_jitter_s; /**< random part of the wait for the DAO-ACK */
    uint8_t dodagid[16];
    uint8_t addr[16];    /**< our address in the prefix (all zero: none yet) */
    uint8_t prefix[16];
    uint8_t pio_flags;
    uint32_t pio_valid, pio_preferred;
    uint32_t next_dis_s;
    uint32_t dao_sent_s;
    uint8_t probe_next;   /**< the candidate the next probe (unicast DIS) goes to */
    uint8_t dis_synced;   /**< detached: the MAC's time source got its DIS (rpl.c
                               dis_target) */
    uint8_t want_mop;     /**< router/leaf: the only mode joined (0xff: any) */
    uint8_t heard_mop;    /**< the mode of the last DIO refused for want_mop (0xff: none) */
    uint8_t dio_cfg_left; /**< multicast DIOs still to carry the configuration
                               (0xff: all; WREN_NETOPT_RPL_DIO_CONFIG) */
    uint32_t next_cfg_dis_s; /**< no unicast DIS asking for a configuration before */
    uint32_t next_probe_s; /**< the next probe of a poor-looking candidate */
#if CONFIG_WREN_NODE_MEM
    struct wren_rpl_parent *parents; /**< tabs' (NULL until a role is first taken) */
#else
    struct wren_rpl_parent parents[CONFIG_WREN_RPL_PARENTS];
#endif
    WREN_LAZY(struct wren_rpl_routes, own); /**< the built-in table, made when a role first
                                                 needs one (core/node.h) */
#if CONFIG_WREN_NODE_MEM
    struct wren_rpl_rul *ruls; /**< tabs' (NULL until a role is first taken) */
#else
    struct wren_rpl_rul ruls[CONFIG_WREN_RPL_RULS];
#endif
    uint8_t rul_wait_seq; /**< the DAO announcing leaves awaiting its DAO-ACK */
    bool rul_wait;
    uint32_t rul_sent_s;
    struct wren_trickle trickle;
    struct wren_timer tick;
};

/** @brief Start RPL on 802.15.4 interface @p if_id of @p node (role off). */
int wren_rpl_init(struct wren_node *node, struct wren_rpl *rpl, uint8_t if_id);

/**
 * @brief Take a role (see the file comment); a root starts its DODAG at
 *        once, a router or leaf solicits DIOs. Off stops everything and
 *        removes the routes RPL installed.
 * @return 0; -EINVAL (a root without a prefix of 1..128 bits, an unknown
 *         role or mode), -ENOTSUP (a mode this build leaves out:
 *         CONFIG_WREN_RPL_STORING, _NONSTORING in core/config.h), -ENODEV
 *         (no IPv6 layer).
 */
int wren_rpl_set_role(struct wren_rpl *rpl, const struct wren_rpl_role_cfg *cfg);

/**
 * @brief Global repair (RFC 6550 8.2.2.1), at a root: a new DODAG version
 *        (and DTSN); every node rebuilds its parent set and announces its
 *        routes again.
 * @return 0; -EINVAL if not a root.
 */
int wren_rpl_global_repair(struct wren_rpl *rpl);

/**
 * @brief Use @p n routes at @p mem (zeroed; the caller's memory, kept until
 *        the role is off and another table is given) for the route table:
 *        a non-storing root needs one per node of its DODAG, a storing
 *        router one per node below it. @p mem NULL: the built-in table.
 * @return 0; -EBUSY (a role is set), -EINVAL (@p n not 1..65535).
 */
int wren_rpl_set_route_mem(struct wren_rpl *rpl, struct wren_rpl_route *mem, uint32_t n);

/** The module, for the stack assembly (src/stack/stack.h). */
extern const struct wren_module_ops wren_rpl_module;

#endif

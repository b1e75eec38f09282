/**
 * @file nib.h
 * @brief Neighbor discovery for 6LoWPAN links (RFC 4861, RFC 4862, RFC 6775):
 *        the neighbor cache, default routers, prefixes and SLAAC, address
 *        registration (ARO), and context distribution (6CO).
 *
 * One interface per NIB. As a host it solicits routers (RS with SLLAO),
 * takes the first valid RA's router as default route, forms addresses from
 * its prefixes (tentative), registers them with the router (NS with ARO)
 * — registration is duplicate address detection on 6LoWPAN links (RFC 6775
 * 5.5) — and installs the advertised contexts. As a router (once it has a
 * prefix to advertise) it answers RS with a unicast RA (PIO, 6CO, SLLAO,
 * ABRO) and registrations with NA+ARO: success,
 * duplicate (another owner), or cache full. A router's RAs carry every
 * context the node's 6LoWPAN layer holds, its own and those learned on
 * another interface from a border router, so that a router between two
 * links (a 6LR) passes the border router's contexts on (RFC 6775 7.2): in
 * a route-over LoWPAN every node must compress with the same contexts.
 *
 * The neighbor cache is bounded and cannot be flushed by unsolicited
 * traffic: entries learned from solicitations only ever replace other such
 * entries (least recently used first); registered entries and routers stay
 * until their lifetime ends. Unsolicited NAs never create entries. A
 * registered entry's link address changes only through a registration by
 * the same EUI-64 (RFC 6775 6.5.2 / RFC 8505): NSs without ARO and NAs
 * leave it alone.
 *
 * The registered address is the NS's target when the ARO is an RFC 8505
 * EARO (T flag set), else the NS's source (RFC 6775 5.5.1; RIOT's hosts
 * put the router's address in the target); as a host, wren sends NSs
 * whose source and target are both the address it registers, which both
 * kinds of router read alike. The NA goes to the NS's source with the NS's
 * target. The router's own addresses are never registered (rx_invalid).
 *
 * A refused registration (duplicate, cache full) is answered at the
 * link-local address formed from the EUI-64 in the ARO (RFC 6775 6.5.2),
 * never at the NS's source (the contested address, the owner's), and at
 * the claimant's link address: its SLLAO, or the frame's source if the
 * SLLAO names the owner's. The router keeps the few such link addresses
 * (refused[]) until the IPv6 layer asks for them (GET WREN_NETOPT_NIB_L2).
 * A host takes an NA's ARO as its registration's answer only if it carries
 * its own EUI-64.
 *
 * ABRO (RFC 6775 4.3, 8.1): a border router's RAs carry its own; every
 * other NIB keeps the one of the RAs it hears, hosts and routers (6LRs)
 * alike, and a router that is not the border router puts in every RA the
 * one it or another NIB of the node learned (GET WREN_NETOPT_NIB_ABRO
 * through netreg), with the same version and 6LBR address, so that the
 * LoWPAN's hosts and 6LRs, RIOT's among them, take its RAs. For the same
 * 6LBR a higher version replaces the one kept, and the contexts follow it:
 * those this NIB took from RAs and the new version's RA no longer carries
 * are withdrawn; an RA with a lower version is stale (abro_stale): its
 * prefixes and contexts are not taken. The ABRO kept ends with its valid
 * lifetime. A router whose ABRO changes (its first, a new version, its
 * version as the 6LBR) tells its link at once: CONFIG_WREN_NIB_ANNOUNCE_RAS
 * multicast RAs, CONFIG_WREN_NIB_ANNOUNCE_GAP_S apart (tx_ra_unsol; RFC 4861
 * 6.2.4), so a new version travels hop by hop to the edge of the LoWPAN.
 *
 * A RPL router (or root) is a 6LR (RFC 6775, RFC 9010): while the RPL
 * module of this interface routes in a DODAG (GET WREN_NETOPT_RPL_ROLE and
 * RANK), the NIB answers solicitations with RAs carrying the DODAG's
 * prefix (the /64 of the address RPL took from the DIO's PIO), the
 * contexts it holds and the ABRO it learned, and takes registrations, so
 * hosts that run no RPL find a router and a prefix. Lacking an ABRO when a
 * host solicits it, it solicits the routers around it (its parents among
 * them) once per RS_INTERVAL; their answer brings it, and the change is
 * announced as above. With no on-link prefix (RFC 6775 5.4), a RPL 6LR
 * reaches the hosts registered with it through a host route each (/128
 * on this interface, resolved by the registration), from the registration
 * until it ends (expiry, deregistration: within a second). A router
 * configured with a prefix of its own (wren_nib_prefix_add) is not a RPL
 * 6LR: its prefixes are its own. (What a router sends and answers, and
 * its configuration, is in nib_router.c; the router side that follows the
 * LoWPAN's state each second in nib_6lr.c.)
 *
 * An NS is answered for every valid (not tentative) address of the
 * interface (RFC 4861 7.2.3, RFC 4862 5.4.3), asked of the IPv6 layer.
 *
 * Registered as (WREN_NETTYPE_ICMPV6, 133..136); the IPv6 layer asks it for
 * link addresses with GET WREN_NETOPT_NIB_L2.
 */
#ifndef WREN_NIB_NIB_H
#define WREN_NIB_NIB_H

#include "core/counters.h"
#include <stdbool.h>
#include <stdint.h>

#include "core/module.h"
#include "core/node.h"
#include "core/timer.h"
#include "net/netopt.h"
#include "net/netreg.h"

#ifndef CONFIG_WREN_NIB_NEIGHBORS
#define CONFIG_WREN_NIB_NEIGHBORS 8
#endif
#ifndef CONFIG_WREN_NIB_PREFIXES
#define CONFIG_WREN_NIB_PREFIXES 2
#endif
#ifndef CONFIG_WREN_NIB_CONTEXTS
#define CONFIG_WREN_NIB_CONTEXTS 2   /**< contexts a router advertises */
#endif
/** Refused registrations whose NA awaits its link address (RFC 6775 6.5.2). */
#ifndef CONFIG_WREN_NIB_REFUSALS
#define CONFIG_WREN_NIB_REFUSALS 2
#endif
/** Multicast RAs a router sends when its ABRO changes (RFC 4861 6.2.4:
 *  MAX_INITIAL_RTR_ADVERTISEMENTS), and the seconds between them. */
#ifndef CONFIG_WREN_NIB_ANNOUNCE_RAS
#define CONFIG_WREN_NIB_ANNOUNCE_RAS 3
#endif
#ifndef CONFIG_WREN_NIB_ANNOUNCE_GAP_S
#define CONFIG_WREN_NIB_ANNOUNCE_GAP_S 3
#endif
/** Registration lifetime hosts ask for, minutes. */
#ifndef CONFIG_WREN_NIB_ARO_LIFETIME_MIN
#define CONFIG_WREN_NIB_ARO_LIFETIME_MIN 15
#endif

enum wren_nib_state {
    WREN_NIB_FREE = 0,
    WREN_NIB_STALE,         /**< learned from a solicitation: may be replaced */
    WREN_NIB_REACHABLE,     /**< confirmed by a solicited advertisement */
    WREN_NIB_ROUTER,        /**< a default router */
    WREN_NIB_REGISTERED,    /**< registered by its owner (ARO): kept until it expires */
};

struct wren_nib_neighbor {
    uint8_t ip[16];
    uint8_t l2[8];
    uint8_t eui64[8];       /**< registered: the owner */
    uint8_t l2len;
    uint8_t state;          /**< enum wren_nib_state */
    bool routed;            /**< a RPL 6LR's host route to it (registered) */
    uint32_t expires_s;     /**< routers and registered entries */
    uint32_t used_s;        /**< last use, for LRU */
};

/** Where the NA refusing a registration goes (RFC 6775 6.5.2): the
 *  claimant's link-local address (from the ARO's EUI-64) and link address. */
struct wren_nib_refusal {
    uint8_t ip[16];
    uint8_t l2[8];
    uint8_t l2len;          /**< 0: unused (taken once the IPv6 layer asked) */
};

struct wren_nib_prefix {
    uint8_t prefix[16];
    uint8_t len;            /**< 0: unused */
    bool own;               /**< a router's configured prefix, advertised */
    uint32_t expires_s;     /**< learned prefixes */
};

struct wren_nib_ctx {
    uint8_t prefix[16];
    uint8_t len;            /**< 0: unused */
    uint8_t cid;
};

#define WREN_NIB_COUNTERS(C)                                                       \
    C(rx_rs)                                                                       \
    C(rx_ra)                                                                       \
    C(rx_ns)                                                                       \
    C(rx_na)                                                                       \
    C(rx_invalid)     /* failed RFC 4861 validation (hop limit, code, options) */  \
    C(rx_bad_lladdr)  /* SLLAO/TLLAO with nonzero padding (RFC 4944 8) */          \
    C(tx_rs)                                                                       \
    C(tx_ra)                                                                       \
    C(tx_ns)                                                                       \
    C(tx_na)                                                                       \
    C(nc_replaced)    /* solicitation-learned entries replaced (LRU) */            \
    C(nc_full)        /* entries refused: the cache held only protected ones */    \
    C(aro_ok)                                                                      \
    C(aro_dup)                                                                     \
    C(aro_full)       /* registrations answered (router) */                        \
    C(aro_rx_6775)    /* of them, RFC 6775's: the NS's source registered (target  \
                         another address, e.g. the router's: RIOT) */             \
    C(aro_rx_8505)    /* RFC 8505's: an EARO (T flag) registering the target,     \
                         from another source */                                    \
    C(abro_learned)   /* RAs whose ABRO was new (first or higher version) */       \
    C(abro_stale)     /* RAs with an older version of the ABRO kept: their        \
                         prefixes and contexts not taken (RFC 6775 8.1) */         \
    C(tx_ra_unsol)    /* multicast RAs announcing a changed ABRO */                \
    C(reg_ok)                                                                      \
    C(reg_failed)     /* own registrations (host) */

struct wren_nib_stats {
    WREN_NIB_COUNTERS(WREN_COUNTER_U32)
};

/** The neighbour cache. */
struct wren_nib_nc {
    struct wren_nib_neighbor e[CONFIG_WREN_NIB_NEIGHBORS];
};

struct wren_nib {
    struct wren_module module;   /**< first */
    struct wren_netreg_entry reg[4];
    struct wren_node *node;
    struct wren_timer timer;
    uint8_t if_id;
    bool router;                 /**< advertising (has an own prefix) */
    bool border_router;          /**< authoritative (6LBR): RAs carry an ABRO */
    uint32_t abro_version;
    /** the 6LBR learned from RAs (RFC 6775 8.1.3: a router that is not the
     *  border router passes it on in every RA; hosts like RIOT's drop RAs
     *  without one). len 0: none. */
    struct wren_nib_abro abro;
    bool has_abro;
    uint32_t abro_expires_s;     /**< the learned ABRO's valid lifetime */
    uint16_t ra_cids;            /**< contexts this NIB took from RAs (bit = CID) */
    struct wren_nib_abro announced; /**< router: the ABRO its RAs last announced */
    bool has_announced;
    uint8_t announce_left;       /**< multicast RAs still to send for it */
    uint32_t next_announce_s;
    bool rpl_6lr;                /**< a 6LR for RPL's DODAG (not a configured router) */
    uint8_t dodag_prefix[8];     /**< ... advertising this /64 */
    uint32_t next_upstream_rs_s; /**< ... soliciting no earlier than this */
    uint8_t rs_sent;
    uint32_t next_rs_s;
    uint32_t next_reg_s;         /**< host: when to (re-)register */
    uint8_t eui64[8];            /**< the interface's: IIDs, SLLAO and ARO (RFC 4944 6, 6775) */
    WREN_LAZY(struct wren_nib_nc, nc); /**< made by the first neighbour (core/node.h) */
    struct wren_nib_prefix prefixes[CONFIG_WREN_NIB_PREFIXES];
    struct wren_nib_ctx ctxs[CONFIG_WREN_NIB_CONTEXTS];
    struct wren_nib_refusal refused[CONFIG_WREN_NIB_REFUSALS];
    uint8_t refused_next;        /**< the slot the next refusal takes */
    struct wren_nib_stats stats;
};

/** @brief Start neighbor discovery on interface @p if_id of @p node (after
 *         the IPv6 layer runs on it). A host starts soliciting routers. */
int wren_nib_init(struct wren_node *node, struct wren_nib *nib, uint8_t if_id);

/** @brief Become a router advertising @p prefix / @p len (and compressing it
 *         with context @p cid if @p cid < 16); configures the router's own
 *         address in it and an on-link route. @return 0 or -errno;
 *         -ENOTSUP in a build without router features
 *         (CONFIG_WREN_IPV6_ROUTER=0: a host, which neither advertises nor
 *         answers registrations). */
int wren_nib_prefix_add(struct wren_nib *nib, const uint8_t *prefix, uint8_t len, uint8_t cid);

/**
 * @brief Make a router the authoritative border router (6LBR, RFC 6775) of
 *        its prefixes: its RAs then carry an ABRO (RFC 6775 4.3) with its
 *        global address on this interface and @p version.
 * @return 0, or -EINVAL if it has no prefix of its own yet.
 */
int wren_nib_border_router(struct wren_nib *nib, uint32_t version);

/**
 * @brief As the border router, start version @p version of the ABRO
 *        (RFC 6775 4.3): 6LRs and hosts take a higher version as newer
 *        information; the router announces it at once.
 * @return 0; -EINVAL if it is not the border router; -ERANGE if
 *         @p version is not above the current one.
 */
int wren_nib_abro_version(struct wren_nib *nib, uint32_t version);

/** @brief Send a router solicitation now (host). */
void wren_nib_solicit(struct wren_nib *nib);

/** The module, for the stack assembly (src/stack/stack.h). */
extern const struct wren_module_ops wren_nib_module;

#endif

/**
 * @file nd_eth.h
 * @brief Classic neighbor discovery for one Ethernet interface (RFC 4861
 *        address resolution and neighbor unreachability detection, RFC 4862
 *        duplicate address detection). The 6LoWPAN flavour (RS/RA, ARO) is
 *        nib.h's; this module never touches 6LoWPAN interfaces.
 *
 * Address resolution (RFC 4861 7.2): the IPv6 layer asks GET
 * WREN_NETOPT_NIB_L2 for a next hop's MAC; when the cache has none it hands
 * the packet over with SET WREN_NETOPT_NIB_HOLD. The module keeps at most
 * one packet per neighbor (a newer one replaces it: held_replaced), sends a
 * multicast NS with our SLLAO to the solicited-node group, retransmits every
 * RetransTimer (1 s) up to MAX_MULTICAST_SOLICIT (3) times and then gives up
 * (res_failed, the packet dropped). A solicited NA with a TLLAO completes the
 * entry and sends the held packet. Entries are REACHABLE for ReachableTime
 * (30 s) after a solicited NA, then STALE; a STALE entry that is used goes
 * to DELAY and, 5 s later, to PROBE (unicast NS, 3 tries) unless confirmed.
 *
 * Answers (RFC 4861 7.2.4): an NS whose target is one of our *valid*
 * addresses gets an NA (solicited, override, TLLAO); to ff02::1 if the NS
 * came from :: (someone's DAD), else unicast. Solicitations for any other
 * target — among them the kernel's DAD probe for the kernel's own address —
 * get nothing. An NS with a source and SLLAO creates or updates a STALE
 * entry (at most replacing the least recently used resolved entry);
 * unsolicited NAs never create entries.
 *
 * Duplicate address detection (RFC 4862 5.4): at start, every address of
 * the interface becomes tentative; after a random delay of up to 1 s an NS
 * from :: without options goes to its solicited-node group, and if no NA for
 * it and no NS from :: for it arrives within 1 s the address becomes valid
 * (dad_ok); otherwise it is removed (dad_dup). Tentative addresses are never
 * answered for. Use wren_nd_eth_addr_add() for addresses configured later.
 *
 * Stateless address autoconfiguration (RFC 4862 5.5, host side): once the
 * link-local address is valid, a Router Solicitation with our SLLAO goes to
 * ff02::2, up to MAX_RTR_SOLICITATIONS (3) times RTR_SOLICITATION_INTERVAL
 * (4 s) apart, until a Router Advertisement arrives. A valid RA (RFC 4861
 * 6.1.2: hop limit 255, code 0, link-local source, well-formed options)
 * - with an SLLAO, creates or updates the router's neighbor entry (STALE
 *   when new or changed, RFC 4861 6.3.4);
 * - with a non-zero router lifetime, makes the router the default route
 *   (FIB ::/0 via its link-local address on this interface); a zero
 *   lifetime from the current default router removes that route;
 * - for every PIO with the L flag and a non-zero valid lifetime, adds the
 *   prefix as on-link (FIB prefix/len, no next hop);
 * - for every PIO with the A flag, prefix length 64, a non-zero valid
 *   lifetime and a preferred lifetime not above it, adds prefix + the
 *   interface's IID (that of the link-local address) as tentative and runs
 *   DAD on it, unless the address is already configured. A-flagged PIOs
 *   that do not qualify are counted (pio_ignored).
 * Lifetimes are not aged: addresses and routes stay until replaced or
 * withdrawn by a later RA.
 *
 * Registered as (WREN_NETTYPE_ICMPV6, 134), (..., 135) and (..., 136);
 * messages of other interfaces are ignored, so it coexists with a 6LoWPAN
 * NIB on another interface.
 *
 *     int id = wren_ethernet_netif_add(node, &eth, &tap.netdev);
 *     wren_ipv6_netif_add(&ipv6, (uint8_t)id);     // gives it fe80::IID
 *     wren_nd_eth_init(node, &nd, (uint8_t)id);    // makes it tentative, runs DAD
 */
#ifndef WREN_NIB_ND_ETH_H
#define WREN_NIB_ND_ETH_H

#include "core/counters.h"
#include <stdbool.h>
#include <stdint.h>

#include "core/module.h"
#include "core/timer.h"
#include "ipv6/ipv6.h"
#include "net/netreg.h"
#include "pktbuf/pktbuf.h"

/** Neighbor cache entries. */
#ifndef CONFIG_WREN_ND_ETH_NEIGHBORS
#define CONFIG_WREN_ND_ETH_NEIGHBORS 8
#endif

/** Neighbor states (RFC 4861 7.3.2). */
enum wren_nd_eth_state {
    WREN_ND_FREE = 0,
    WREN_ND_INCOMPLETE, /**< solicited, no answer yet: holds a packet */
    WREN_ND_REACHABLE,  /**< confirmed within ReachableTime */
    WREN_ND_STALE,      /**< usable, unconfirmed */
    WREN_ND_DELAY,      /**< used while stale: probe unless confirmed soon */
    WREN_ND_PROBE,      /**< unicast solicitations under way */
};

struct wren_nd_eth_neighbor {
    uint8_t ip[16];
    uint8_t mac[6];
    uint8_t state;          /**< enum wren_nd_eth_state */
    uint8_t probes;         /**< solicitations sent in this round */
    uint64_t deadline;      /**< us: next retransmission / probe / end of REACHABLE */
    uint64_t used;          /**< us: last use, for LRU replacement */
    struct wren_snip *held; /**< the packet waiting for resolution (netif header first) */
};

/** An address under duplicate address detection. */
struct wren_nd_eth_dad {
    uint8_t addr[16];
    uint8_t prefix_len;
    uint8_t phase;     /**< 0: idle, 1: waiting to send, 2: waiting for answers */
    uint64_t deadline; /**< us */
};

#define WREN_ND_ETH_COUNTERS(C)                                                       \
    C(rx_ns)                                                                          \
    C(rx_na)                                                                          \
    C(rx_invalid)       /* failed RFC 4861 7.1 validation */                          \
    C(tx_ns)                                                                          \
    C(tx_na)                                                                          \
    C(tx_fail)          /* messages that could not be sent (no source, no buffer) */  \
    C(res_ok)           /* resolutions completed */                                   \
    C(res_failed)       /* resolutions given up after 3 solicitations */              \
    C(held_replaced)    /* held packets replaced by newer ones */                     \
    C(held_dropped)     /* held packets dropped (failed, replaced, cache full) */     \
    C(nc_replaced)      /* resolved entries replaced (LRU) */                         \
    C(nc_full)          /* new entries refused: every entry busy resolving */         \
    C(probe_failed)     /* entries removed after unanswered probes */                 \
    C(dad_ok)                                                                         \
    C(dad_dup)                                                                        \
    C(addr_conflict)    /* NAs from others for one of our valid addresses */          \
    C(tx_rs)            /* router solicitations sent */                               \
    C(rx_ra)            /* valid router advertisements taken */                       \
    C(rx_ra_invalid)    /* RAs dropped: not from a link-local source, bad options */  \
    C(pio_ignored)      /* A-flagged PIOs unusable for SLAAC (length, lifetimes) */   \
    C(slaac_added)      /* addresses formed from a PIO (then under DAD) */            \
    C(slaac_failed)     /* addresses that could not be added (no room) */             \
    C(route_failed)     /* default or on-link routes the FIB refused */

struct wren_nd_eth_stats {
    WREN_ND_ETH_COUNTERS(WREN_COUNTER_U32)
};

struct wren_nd_eth {
    struct wren_module module; /**< first */
    struct wren_netreg_entry reg[3];
    struct wren_node *node;
    struct wren_timer timer;
    uint8_t if_id;
    uint8_t mac[6];
    struct wren_nd_eth_neighbor nc[CONFIG_WREN_ND_ETH_NEIGHBORS];
    struct wren_nd_eth_dad dad[CONFIG_WREN_IPV6_ADDRS];
    uint8_t rs_sent;      /**< router solicitations sent so far */
    bool ra_seen;         /**< a valid RA arrived: solicit no more */
    uint64_t rs_deadline; /**< us: next solicitation; 0: none planned */
    uint8_t router[16];   /**< the default router (link-local), :: if none */
    struct wren_nd_eth_stats stats;
};

/**
 * @brief Run neighbor discovery on Ethernet interface @p if_id (after the
 *        IPv6 layer runs on it): registers for RA/NS/NA and starts DAD for
 *        the interface's addresses; router solicitation follows once the
 *        link-local address is valid.
 * @return 0, -ENODEV (no such interface or no IPv6 layer), or a netreg error.
 */
int wren_nd_eth_init(struct wren_node *node, struct wren_nd_eth *nd, uint8_t if_id);

/**
 * @brief Add @p addr / @p prefix_len to the interface as tentative and run
 *        DAD for it; it becomes valid after 1 s without a conflict.
 * @return 0, -ENOSPC, or the IPv6 layer's error.
 */
int wren_nd_eth_addr_add(struct wren_nd_eth *nd, const uint8_t *addr, uint8_t prefix_len);

/** The module, for the stack assembly (src/stack/stack.h). */
extern const struct wren_module_ops wren_nd_eth_module;

struct wren_shell;
/** @brief Print @p nd's neighbor cache, router and counters to @p sh (the
 *         `nd` command; a runtime's own `nd` may add its device's line). */
int wren_nd_eth_show(struct wren_shell *sh, const struct wren_nd_eth *nd);

#endif

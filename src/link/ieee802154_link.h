/**
 * @file ieee802154_link.h
 * @brief The 802.15.4 link layer of an interface: MAC header on TX, parse,
 *        address filtering and demultiplexing on RX.
 *
 * Every interface has an EUI-64 (WREN_NETOPT_ADDRESS_LONG): the device's,
 * or, when the device has none (reports none or all zeros), one derived
 * from the node id (wren_ieee802154_eui64_from_id()). IPv6 forms its
 * interface identifiers from it (RFC 4944 6, RFC 4862), so frames leave
 * from it too by default, which lets 6LoWPAN elide the whole IID (RFC 6282
 * 3.2.2). The short address (WREN_NETOPT_ADDRESS) is optional: frames to
 * it are accepted, and frames leave from it when WREN_NETOPT_ADDR_LEN is
 * set to 2 (IPHC then carries the IID inline).
 *
 * On TX the netif header's destination selects the frame's destination
 * (none or 0xffff: broadcast); the source is the interface's extended or
 * short address (WREN_NETOPT_ADDR_LEN, default 8). On RX only data frames
 * for this PAN and either of its addresses (or broadcast) go up, as WREN_NETTYPE_SIXLOWPAN when the
 * payload starts with a 6LoWPAN dispatch and WREN_NETTYPE_UNDEF when it
 * starts with a NALP byte (RFC 4944 section 5.1: "not a LoWPAN frame").
 * Everything else is dropped and counted by reason.
 */
#ifndef WREN_LINK_IEEE802154_LINK_H
#define WREN_LINK_IEEE802154_LINK_H

#include "core/counters.h"
#include <stdbool.h>
#include <stdint.h>

#include "core/timer.h"
#include "link/ieee802154_sec.h"
#include "link/link_dup.h"
#include "link/link_est.h"
#include "mac/tsch/tsch.h"
#include "net/netif.h"
#include "stack/stack.h"

/**
 * The software MAC (CSMA-CA, ACKs, retries, indirect transmission). 0 for
 * radios that do CSMA-CA and ACKs in hardware (most 802.15.4 transceivers):
 * frames then go straight to the device, whose TX events end them.
 */
#ifndef CONFIG_WREN_MAC_SOFT
#define CONFIG_WREN_MAC_SOFT 1
#endif

/** Default PAN ID when the device does not report one. */
#define WREN_IEEE802154_DEFAULT_PAN 0x0023

/** Counters of the MAC; every attempt and every failure has one. */
#define WREN_MAC_COUNTERS(C)                                                            \
    C(tx_attempts)        /* our frames put on the air (each try) */                    \
    C(tx_retries)         /* retransmissions after a missing ACK */                     \
    C(tx_ok)              /* frames done: acknowledged, or sent without ACK request */  \
    C(tx_noack)           /* frames given up after macMaxFrameRetries */                \
    C(tx_caf)             /* channel access failures (macMaxCSMABackoffs exceeded) */   \
    C(cca_busy)           /* CCAs that found the channel busy */                        \
    C(ack_rx)             /* ACKs received for our frames */                            \
    C(ack_tx)             /* ACKs sent */                                               \
    C(ack_tx_busy)        /* ACKs not sent: the radio was busy */                       \
    C(rx_dup)             /* duplicate data frames (same source and sequence) */        \
    C(rx_ack_stray)       /* ACKs nobody waited for */                                  \
    C(rx_ack_payload)     /* ACKs carrying a payload (an Imm-Ack has none): dropped */  \
    C(polls)              /* data requests sent (sleepy node) */                        \
    C(polls_rx)           /* data requests received (parent) */                         \
    C(indirect_queued)    /* frames held for sleepy children */                         \
    C(indirect_sent)      /* of those, sent when the child polled */                    \
    C(indirect_drop)      /* dropped: over a child's quota, or expired */               \
    WREN_MAC_COUNTERS_MEM(C)

/* with tables made on first use (core/config.h CONFIG_WREN_NODE_MEM) */
#if CONFIG_WREN_NODE_MEM
#define WREN_MAC_COUNTERS_MEM(C) \
    C(no_mem)             /* a first child's poll dropped, or LPL refused: no memory for the \
                             children's or the wake phases' table */
#else
#define WREN_MAC_COUNTERS_MEM(C)
#endif

struct wren_mac_stats {
    WREN_MAC_COUNTERS(WREN_COUNTER_U32)
};

#ifndef CONFIG_WREN_MAC_LPL
/** Low-power listening on the CSMA MAC (mac/csma/ieee802154_lpl.c; off until
 *  SET WREN_NETOPT_MAC_LPL; the Cortex-M3 images build without it) */
#define CONFIG_WREN_MAC_LPL 1
#endif
#ifndef CONFIG_WREN_MAC_LPL_PHASES
#define CONFIG_WREN_MAC_LPL_PHASES 8 /**< neighbours whose wake time LPL remembers */
#endif

#ifndef CONFIG_WREN_MAC_CHILDREN
#define CONFIG_WREN_MAC_CHILDREN 4       /**< sleepy children a parent holds frames for */
#endif
#ifndef CONFIG_WREN_MAC_CHILD_QUOTA
#define CONFIG_WREN_MAC_CHILD_QUOTA 4    /**< frames held per child */
#endif
#ifndef CONFIG_WREN_MAC_INDIRECT_TIMEOUT_S
#define CONFIG_WREN_MAC_INDIRECT_TIMEOUT_S 30 /**< a child silent this long loses its frames */
#endif

struct wren_mac_child {
    uint8_t addr[8];
    uint8_t len;               /**< 0: unused */
    uint8_t queued;
    uint32_t last_poll_s;
    struct wren_snip *head;    /**< frames for it, linked through netif headers */
    struct wren_snip *tail;
};

/** A neighbour's wake (low-power listening, ContikiMAC's phase lock). */
struct wren_mac_lpl_phase {
    uint8_t addr[8];
    uint8_t len;
    uint64_t at; /**< a copy it acknowledged started then (local time) */
};

/** Unslotted CSMA-CA, ACKs and retries (802.15.4-2015 6.2.5.1, 6.7.4). */
struct wren_mac {
    struct wren_timer timer;
    struct wren_snip *pkt;     /**< the frame in progress (netif header first) */
    uint64_t last_tx_end;      /**< for the interframe space */
    uint8_t mhr[23];
    uint8_t mhr_len;
    uint8_t phase;
    uint8_t nb, be, tries;
    uint8_t seq;
    uint8_t psdu_len;
    uint8_t last_psdu;
    bool ack_req;
    bool csma;                 /**< CSMA-CA on (else only the interframe space) */
    bool wired;                /**< the device is a wire: no interframe space either */
    uint8_t min_be, max_be, max_backoffs, max_retries;
    uint16_t retry_delay_ms;
    uint32_t link_delay_us;    /**< the device's WREN_NETOPT_LINK_DELAY: added to the ACK wait */
    struct wren_link_dup seen; /**< last (source, sequence) per recent neighbor */
    uint8_t job;               /**< what the frame in progress is (interface, indirect, poll) */
    bool ack_fp;               /**< frame pending bit of the last ACK */
    bool frame_fp;             /**< frame pending bit to set on the frame in progress */
    /* sleepy node: radio off between polls of its parent */
    uint32_t poll_min_ms, poll_max_ms, poll_ms;
    uint8_t parent[8];
    uint8_t parent_len;
    bool polling;              /**< a poll exchange is under way: stay on */
    bool radio_off;
    struct wren_timer poll_timer;
    /* parent: frames held for sleepy children until they poll */
#if CONFIG_WREN_NODE_MEM
    struct wren_mac_child *children; /**< CONFIG_WREN_MAC_CHILDREN, made by the first poll */
#else
    struct wren_mac_child children[CONFIG_WREN_MAC_CHILDREN];
#endif
    uint8_t serve;             /**< child (index + 1) whose poll asked for a frame */
    struct wren_timer child_timer; /**< expires frames of children that went silent */
    bool netif_waiting;        /**< the interface was told to wait for the MAC */
    struct wren_mac_stats stats;
    struct wren_link_est est;  /**< ETX per neighbour from unicast outcomes */
#if CONFIG_WREN_MAC_LPL
    /* low-power listening (mac/csma/ieee802154_lpl.c): the radio wakes every
     * lpl_ms to listen; a frame goes out as a train of copies */
    uint16_t lpl_ms;           /**< check interval; 0: off */
    bool lpl_listening;        /**< in a wake's listen window */
    bool lpl_took;             /**< a frame was taken in this window: it closes */
    uint64_t lpl_wake;         /**< the next wake (local time) */
    uint64_t strobe_end;       /**< the train of the frame in progress ends then */
    uint64_t copy_start;       /**< the last copy went on the air then */
    bool lpl_waited;           /**< the try waited for its receiver's wake */
    uint8_t phase_next;
#if CONFIG_WREN_NODE_MEM
    struct wren_mac_lpl_phase *phases; /**< CONFIG_WREN_MAC_LPL_PHASES, made when LPL is on */
#else
    struct wren_mac_lpl_phase phases[CONFIG_WREN_MAC_LPL_PHASES]; /**< neighbours' wakes
                                                     (ContikiMAC's phase lock) */
#endif
    struct wren_timer lpl_timer;
#endif
};

#if CONFIG_WREN_TSCH && !CONFIG_WREN_MAC_SOFT
#error "CONFIG_WREN_TSCH needs CONFIG_WREN_MAC_SOFT (the software MAC's link estimator)"
#endif

struct wren_ieee802154_netif {
    struct wren_netif netif;   /**< first */
#if CONFIG_WREN_MAC_SOFT
    struct wren_mac mac;       /**< absent when the radio does it (400 bytes on Cortex-M3) */
#endif
#if CONFIG_WREN_TSCH
    struct wren_tsch *tsch;    /**< NULL: the CSMA MAC; else this interface runs TSCH */
#endif
    uint16_t pan;
    uint8_t short_addr[2];     /**< network order */
    uint8_t long_addr[8];      /**< EUI-64, network order */
    uint8_t seq;
    uint8_t src_len;           /**< source address of our frames: 8 (default) or 2 */
    bool ack_req;              /**< ask for ACKs on unicast */
    bool promiscuous;
#if CONFIG_WREN_IEEE802154_SEC
    struct wren_ieee802154_sec sec; /**< keys, levels, frame counters */
#endif
};

extern const struct wren_netif_link_ops wren_ieee802154_link;

/**
 * @brief The EUI-64 an interface of node @p id has when its device brings
 *        none: 02:57:52:ff:fe and the id's low 24 bits (locally
 *        administered: the U/L bit is set), the id's high byte folded into
 *        the fe, so every 32-bit id gives another one. Its IID (U/L bit
 *        inverted) is 0057:52ff:feXX:XXXX: fe80::57:52ff:fe00:1 for id 1.
 *        wren-node and the simulator both give their nodes this one.
 * @param[out] eui64 8 bytes, network order.
 */
void wren_ieee802154_eui64_from_id(uint32_t id, uint8_t eui64[8]);

/** @brief Add an 802.15.4 interface over @p dev to @p node.
 *  @return the interface id or -errno. */
int wren_ieee802154_netif_add(struct wren_node *node, struct wren_ieee802154_netif *nif,
                              struct wren_netdev *dev);

/** The link layer, for the stack assembly (src/stack/stack.h). */
extern const struct wren_link_def wren_link_ieee802154;

#if CONFIG_WREN_TSCH
/** An 802.15.4 interface that runs TSCH: its state for the assembly. */
struct wren_ieee802154_tsch_netif {
    struct wren_ieee802154_netif nif; /**< first */
    struct wren_tsch tsch;
};

/**
 * @brief Add an 802.15.4 interface over @p dev to @p node that runs the TSCH
 *        MAC (mac/tsch/tsch.h) with state @p tsch (zeroed or not, the caller's
 *        for the interface's life) instead of CSMA. It starts as a node
 *        (WREN_TSCH_NODE: scanning for EBs); SET WREN_NETOPT_TSCH_ROLE makes
 *        it the coordinator.
 * @return the interface id or -errno.
 */
int wren_ieee802154_netif_add_tsch(struct wren_node *node, struct wren_ieee802154_netif *nif,
                                   struct wren_tsch *tsch, struct wren_netdev *dev);

/** The link layer with the TSCH MAC, for the stack assembly: state is a
 *  struct wren_ieee802154_tsch_netif. */
extern const struct wren_link_def wren_link_ieee802154_tsch;
#endif

#endif

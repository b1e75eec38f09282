/**
 * @file tsch.h
 * @brief TSCH (IEEE 802.15.4-2015 6.2.6): the slotted, channel-hopping MAC
 *        an 802.15.4 interface can run instead of CSMA-CA.
 *
 * What other modules see of it (6P and MSF in src/sixtop, the shell, the
 * simulator): the types below, answered through the WREN_NETOPT_TSCH_* keys
 * (net/netopt.h), and 6P messages exchanged as WREN_NETTYPE_SIXTOP packets
 * (the link layer carries them in the 6top IE, RFC 8480 3.1).
 *
 * An interface runs TSCH when its link layer is given a struct wren_tsch
 * (wren_ieee802154_netif_add_tsch(), or the assembly's
 * wren_link_ieee802154_tsch); it then never uses the CSMA MAC. The MAC
 * keeps time in slots of the timeslot template (default 802.15.4-2015
 * Table 8-99, 10 ms), sleeps on one timer until the next slot one of its
 * cells is active in, and has the radio on only for the parts of a slot
 * that need it. Layout of a slot (TX side; the receiver listens from
 * tx_offset - rx_wait/2 to tx_offset + rx_wait/2 for the frame to start):
 *
 * @verbatim
 *  slot start       tx_offset            frame end   +ack_delay
 *  |-----------------|==== frame ====|----------|=== Enh-ACK ===|------|
 *                  ^ send() at tx_offset - TX_DELAY
 *  next slot start: slot_us later
 * @endverbatim
 */
#ifndef WREN_LINK_TSCH_H
#define WREN_LINK_TSCH_H

#include <stdbool.h>
#include <stdint.h>

#include "core/counters.h"
#include "core/timer.h"
#include "link/link_dup.h"

/** TSCH in the link layer: 1 on host and simulator builds, 0 on the
 *  Cortex-M images that do not run it (the 802.15.4 interface state and code
 *  stay as they were). */
#ifndef CONFIG_WREN_TSCH
#define CONFIG_WREN_TSCH 1
#endif
#ifndef CONFIG_WREN_TSCH_CELLS
/** cells in the schedule (36 bytes each): a router through which many nodes
 *  pass holds RX cells for its children, TX cells to its parent and
 *  autonomous TX cells; with 16 the hubs of the 30-node experiment ran out
 *  (PDR 98.7 % against 99.2 % with 32). A leaf needs about 8 */
#define CONFIG_WREN_TSCH_CELLS 32
#endif
#ifndef CONFIG_WREN_TSCH_SLOTFRAMES
#define CONFIG_WREN_TSCH_SLOTFRAMES 2   /**< slotframes (handles 0..n-1 in use at once) */
#endif
#ifndef CONFIG_WREN_TSCH_NBRS
#define CONFIG_WREN_TSCH_NBRS 8         /**< neighbours with a queue (plus the broadcast one) */
#endif
#ifndef CONFIG_WREN_TSCH_QUEUE_LEN
#define CONFIG_WREN_TSCH_QUEUE_LEN 8    /**< frames queued per neighbour */
#endif
#define WREN_TSCH_HOP_MAX 16            /**< longest hopping sequence kept */

/** Cell options (802.15.4-2015 7.4.4.3 Link Options, the same bits). */
enum {
    WREN_TSCH_CELL_TX = 0x01,
    WREN_TSCH_CELL_RX = 0x02,
    WREN_TSCH_CELL_SHARED = 0x04,
    WREN_TSCH_CELL_TIMEKEEPING = 0x08,
};

/** Who put a cell in the schedule (what may remove it). */
enum wren_tsch_cell_kind {
    WREN_TSCH_CELL_MINIMAL = 0,  /**< RFC 8180's shared cell */
    WREN_TSCH_CELL_AUTONOMOUS,   /**< MSF's autonomous cells (RFC 9033 3) */
    WREN_TSCH_CELL_NEGOTIATED,   /**< added through 6P */
    WREN_TSCH_CELL_MANUAL,       /**< added by the shell or a test */
};

/** A cell: value of SET WREN_NETOPT_TSCH_CELL_ADD/DEL, entry of GET
 *  WREN_NETOPT_TSCH_CELLS. Counters are the MAC's, since the cell was added,
 *  and only answered by GET. */
struct wren_tsch_cell {
    uint16_t slot_offset;
    uint16_t channel_offset;
    uint8_t slotframe;      /**< slotframe handle */
    uint8_t options;        /**< WREN_TSCH_CELL_* */
    uint8_t kind;           /**< enum wren_tsch_cell_kind */
    uint8_t nbr_len;        /**< 0: any neighbour (broadcast / shared), else 8 */
    uint8_t nbr[8];         /**< the neighbour's EUI-64 when nbr_len is 8 */
    /* GET only */
    uint32_t elapsed;       /**< times the cell came round while the MAC was synchronised */
    uint32_t used;          /**< of those, times a frame was sent in it (TX cells) */
    uint32_t tx_ack;        /**< of those, frames acknowledged */
    uint32_t rx;            /**< frames received in it */
};

enum wren_tsch_role {
    WREN_TSCH_OFF = 0,      /**< radio off, nothing sent */
    WREN_TSCH_COORDINATOR,  /**< starts the network: ASN 0, sends EBs, its own time source */
    WREN_TSCH_NODE,         /**< scans for EBs, joins, keeps time with its time source */
};

/** Value of GET WREN_NETOPT_TSCH_SYNC. */
struct wren_tsch_sync_info {
    uint64_t asn;           /**< absolute slot number now (40 bits used) */
    uint8_t role;           /**< enum wren_tsch_role */
    uint8_t synced;         /**< 1 when joined and synchronised */
    uint8_t join_prio;      /**< of our EBs */
    uint8_t ts_len;         /**< 0: no time source yet, else 8 */
    uint8_t time_source[8]; /**< EUI-64 */
    int32_t drift_ppb;      /**< estimated drift against the time source, 1e-9 */
    uint32_t last_sync_ms;  /**< ms since the last correction from the time source */
    uint16_t bc_chance;     /**< chance a queued broadcast goes in a shared cell, 2^-16
                                 (follows how busy those cells are, see tsch.c) */
};

/** Entry of GET WREN_NETOPT_TSCH_QUEUES. */
struct wren_tsch_queue_info {
    uint8_t nbr_len;        /**< 0: the broadcast queue, else 8 */
    uint8_t nbr[8];
    uint8_t len;            /**< frames queued */
};

/** Value of SET/GET WREN_NETOPT_TSCH_CONFIG: the timeslot template, the
 *  minimal schedule (RFC 8180) and the MAC's periods. SET checks every field
 *  (-EINVAL) and restarts the role with it (a coordinator starts a new
 *  network, a node scans again; a joining node takes the template, hopping
 *  sequence and slotframe length from the EB); times in microseconds unless
 *  named otherwise. */
struct wren_tsch_config {
    uint32_t slot_us;       /**< macTsTimeslotLength: 10000 (802.15.4-2015 Table 8-99) */
    uint16_t tx_offset_us;  /**< macTsTxOffset: 2120 */
    uint16_t rx_wait_us;    /**< macTsRxWait: 2200 (the guard: +-1100 around tx_offset) */
    uint16_t ack_delay_us;  /**< macTsTxAckDelay: 1000 (frame end to Enh-ACK start) */
    uint16_t ack_wait_us;   /**< macTsAckWait: 400 */
    uint16_t sf_len;        /**< minimal slotframe length: 101 (RFC 8180 4.1's example,
                                 RFC 9033's SLOTFRAME_LENGTH) */
    uint16_t eb_period_ms;  /**< longest EB period: 16000; after a (re)start EBs go out
                                 every eb_min_ms, the period doubling (after 32 EBs) up to
                                 this one; without an EB slotframe, with n > 2
                                 neighbours heard, each period is n times longer */
    uint16_t eb_min_ms;     /**< 1000 (at least 3 minimal slotframes) */
    uint16_t ka_ms;         /**< keep-alive: a frame to the time source after this long
                                 without a correction from it; 0: off. 5000 */
    uint16_t desync_ms;     /**< no correction from the time source this long (and no
                                 frame to it still being tried; at most 3 x this): desync,
                                 scan again. A keep-alive that fails every try desyncs at
                                 once. 20000 */
    uint16_t scan_ms;       /**< scanning: time on one channel before the next: 1000 */
    uint16_t eb_sf_len;     /**< the EB slotframe (handle 1), in slots; 0: none. With one,
                                 each node sends its EBs in a TX cell of its own in it (slot:
                                 a hash of its EUI-64) and listens in its time source's,
                                 and the minimal cell carries EBs only in the fast phase
                                 after a (re)start, when it is idle: joining no longer
                                 competes with RPL's broadcasts (as Orchestra's EB
                                 slotframe). A prime such as 397 spreads the cells over
                                 every channel. Every node of a network must use the same */
    uint8_t max_retries;    /**< macMaxFrameRetries for TSCH: 0..15, default 7 */
    uint8_t min_be;         /**< TSCH CSMA-CA on shared cells: macMinBe 1 */
    uint8_t max_be;         /**< macMaxBe 5 */
    uint8_t hop_len;        /**< channels in the hopping sequence: 1..16 */
    uint8_t hop[WREN_TSCH_HOP_MAX]; /**< the hopping sequence (default: 16 channels,
                                         sequence id 0 of the Channel Hopping IE) */
};

/** Counters of the TSCH MAC; every drop has one. */
#define WREN_TSCH_COUNTERS(C)                                                              \
    C(tx_data)            /* data frames put on the air (each try) */                     \
    C(tx_eb)              /* enhanced beacons sent */                                     \
    C(tx_ka)              /* keep-alives queued to the time source */                     \
    C(tx_ok)              /* frames done: acknowledged, or broadcast */                   \
    C(tx_retries)         /* retransmissions */                                           \
    C(tx_noack)           /* frames given up after max_retries */                         \
    C(tx_sixtop)          /* 6P messages sent in a 6top IE */                             \
    C(ack_tx)             /* Enh-ACKs sent */                                             \
    C(ack_rx)             /* Enh-ACKs received for our frames */                          \
    C(ack_bad)            /* an ACK in our ACK window that was not ours / did not parse */ \
    C(rx_data)            /* data frames received in a cell */                            \
    C(rx_eb)              /* enhanced beacons received */                                 \
    C(rx_dup)             /* retransmissions already passed up */                         \
    C(rx_sixtop)          /* 6P messages passed up */                                     \
    C(rx_idle)            /* RX cells with nothing heard */                               \
    C(drop_queue_full)    /* frames dropped: the neighbour's queue was full */            \
    C(drop_bcast_full)    /* broadcasts dropped: the broadcast queue was full, its      \
                             oldest went (what a shared cell cannot carry is shed here) */ \
    C(drop_no_queue)      /* frames dropped: no queue left for a new neighbour */         \
    C(drop_off)           /* frames dropped: role off */                                  \
    C(drop_too_long)      /* frames that did not fit a PSDU with their IEs */             \
    C(drop_not_synced)    /* frames heard while scanning that are not EBs */              \
    C(drop_bad_ie)        /* EBs / ACKs / frames with IEs that do not parse or miss one */ \
    C(drop_eb_asn)        /* EBs whose ASN contradicts ours (an absurd jump): refused */  \
    C(drop_eb_prio)       /* EBs not joined: join metric 0xff, or not below the one we  \
                             had before a desync (see wren_tsch.scan_prio) */             \
    C(drop_flush)         /* frames dropped at desync / role change */                    \
    C(sync_joins)         /* joins (EB accepted while scanning) */                        \
    C(sync_corrections)   /* time corrections from the time source */                     \
    C(sync_clamped)       /* of those, bigger than the guard time: limited to it */      \
    C(sync_desync)        /* desynchronisations, all causes: */                           \
    C(desync_quiet)       /*   no correction from the time source for desync_ms */        \
    C(desync_ka)          /*   a keep-alive failed every try */                           \
    C(desync_unconfirmed) /*   with security on, no authenticated frame in our cells  \
                               within a keep-alive period and a margin, and two EB      \
                               slotframes, of the join (7.94 s at the defaults): its EB \
                               was forged or replayed (a slot off) */                   \
    C(sync_ts_loop)       /* the time source's EB had a join metric not below ours: a   \
                             timing loop (nodes keeping each other in an old network); \
                             left as a desync */                                          \
    C(sync_unauth)        /* EBs not joined, corrections not taken: not authenticated \
                             while the interface has security on */                       \
    C(scan_hops)          /* scan channel changes */                                      \
    C(slot_late)          /* slots skipped: the MAC woke after they began */

struct wren_tsch_stats {
    WREN_TSCH_COUNTERS(WREN_COUNTER_U32)
};

struct wren_snip;
struct wren_ieee802154_netif;

/** A neighbour's frames (index 0: broadcast), linked through netif headers. */
struct wren_tsch_queue {
    uint8_t nbr[8];
    uint8_t used;           /**< 0: free */
    uint8_t len;
    uint8_t tries;          /**< attempts of the head frame so far */
    uint8_t be;             /**< backoff exponent (shared cells) */
    uint16_t backoff;       /**< shared-cell opportunities to let pass */
    struct wren_snip *head;
    struct wren_snip *tail;
};

struct wren_tsch_slotframe {
    uint16_t len;           /**< 0: unused */
    uint16_t off;           /**< ASN % len of the current slot */
};

/** The TSCH MAC of one interface (caller memory, see the file comment). */
struct wren_tsch {
    struct wren_ieee802154_netif *nif;
    struct wren_timer timer;        /**< the only timer: slot parts, scan hops */
    struct wren_tsch_config cfg;
    /* time: slot asn starts at ref_time + (asn - ref_asn) * slot_us, plus
     * the estimated drift of our clock against the time source's */
    uint64_t asn;                   /**< the current (or next) active slot */
    uint64_t ref_asn;
    uint64_t ref_time;              /**< local us */
    int32_t drift_q30;              /**< our clock's rate error, 2^-30 units */
    uint64_t last_sync;             /**< local us of the last correction */
    uint64_t slot_start;            /**< of asn */
    uint64_t tx_end;                /**< local us: end of the frame we sent / received */
    uint64_t eb_next;               /**< local us: next EB due */
    uint32_t eb_ivl_ms;             /**< current EB interval */
    uint8_t eb_count;               /**< EBs sent at it */
    uint32_t nbr_heard[2];          /**< neighbours heard (a bit per hash of the EUI-64),
                                         this window and the last: caps the broadcast
                                         chance at 2/(n + 2) (bc_p) */
    uint64_t nbr_window;            /**< local us the current window began */
    uint16_t bc_p;                  /**< chance of a broadcast in a shared cell, 2^-16
                                         units, adapted to how busy those cells are */
    uint32_t eb_heard;              /**< neighbours heard sending EBs since our last one
                                         (a bit per hash of their EUI-64): our EB interval
                                         grows with their number */
    uint32_t tx_delay_us;           /**< the radio's WREN_NETOPT_TX_DELAY */
    uint8_t role;                   /**< enum wren_tsch_role */
    uint8_t synced;
    uint8_t phase;                  /**< what the timer does next (tsch_slot.c) */
    uint8_t join_prio;              /**< of our EBs (0xff: none) */
    uint8_t desync_due;             /**< leave at the end of this slot (keep-alive lost) */
    uint8_t confirmed;              /**< 0 from a join with security on until an
                                         authenticated frame in our cells (tsch.c
                                         confirm_by); until then we send only to the time
                                         source; a join never confirmed is left
                                         (desync_unconfirmed, tsch_slot.c confirm_us) */
    uint8_t rx_busy;                /**< a frame was coming in at RX_MID_US (tsch_slot.c) */
    uint8_t join_prio_set;          /**< set by SET JOIN_PRIO (else time source's + 1) */
    uint8_t ts[8];                  /**< time source */
    uint8_t ts_len;
    uint8_t ts_set;                 /**< chosen by SET TIME_SOURCE (not only the EB's) */
    uint8_t scan_prio;              /**< scanning after a desync: join only EBs with a join
                                         metric below this (nodes closer to the root than
                                         we were), until scan_strict_until */
    uint64_t scan_strict_until;
    uint8_t channel;                /**< the radio's channel now */
    uint8_t cell;                   /**< index of the cell of the slot in progress */
    uint8_t q;                      /**< queue of the frame in progress (0xff: an EB) */
    uint8_t tx_seq;
    uint8_t ack_req;
    uint8_t psdu_len;               /**< bytes in buf */
    uint8_t buf[127];               /**< frame sent / ACK sent in this slot */
    struct wren_link_dup seen;      /**< last (source, sequence): duplicates */
    uint8_t rr;                     /**< round robin over the queues in shared cells */
    struct wren_tsch_slotframe sf[CONFIG_WREN_TSCH_SLOTFRAMES];
    struct wren_tsch_cell cells[CONFIG_WREN_TSCH_CELLS]; /**< options 0: free */
    struct wren_tsch_queue queues[CONFIG_WREN_TSCH_NBRS + 1];
    struct wren_tsch_stats stats;
};

struct wren_shell;
struct wren_module;
/** The `tsch` shell command (src/mac/tsch/tsch_shell.c): state, cells, queues,
 *  counters of the first TSCH interface; role, cells and settings. */
int wren_tsch_shell(struct wren_shell *sh, struct wren_module *m, int argc, char **argv);

/** @brief The default configuration (802.15.4-2015 template, RFC 8180). */
void wren_tsch_config_default(struct wren_tsch_config *cfg);

/** @brief The ASN of the slot in progress (or the next active one): the
 *         CCM* nonce of a secured frame uses it (802.15.4-2015 9.3.2.2). */
static inline uint64_t wren_tsch_asn(const struct wren_tsch *t)
{
    return t->asn;
}

#endif

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
 * INTERFACE DRAFT (lead, session 2026-11-28): the types here are the
 * contract between the TSCH MAC and the modules above it; the MAC's own
 * state and functions are added by its implementation.
 */
#ifndef WREN_LINK_TSCH_H
#define WREN_LINK_TSCH_H

#include <stdint.h>

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
};

/** Entry of GET WREN_NETOPT_TSCH_QUEUES. */
struct wren_tsch_queue_info {
    uint8_t nbr_len;        /**< 0: the broadcast queue, else 8 */
    uint8_t nbr[8];
    uint8_t len;            /**< frames queued */
};

#endif

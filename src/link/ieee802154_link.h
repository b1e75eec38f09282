/**
 * @file ieee802154_link.h
 * @brief The 802.15.4 link layer of an interface: MAC header on TX, parse,
 *        address filtering and demultiplexing on RX.
 *
 * On TX the netif header's destination selects the frame's destination
 * (none or 0xffff: broadcast); the source is the interface's short or
 * extended address (WREN_NETOPT_ADDR_LEN). On RX only data frames for this
 * PAN and address (or broadcast) go up, as WREN_NETTYPE_SIXLOWPAN when the
 * payload starts with a 6LoWPAN dispatch and WREN_NETTYPE_UNDEF when it
 * starts with a NALP byte (RFC 4944 section 5.1: "not a LoWPAN frame").
 * Everything else is dropped and counted by reason.
 */
#ifndef WREN_LINK_IEEE802154_LINK_H
#define WREN_LINK_IEEE802154_LINK_H

#include <stdbool.h>
#include <stdint.h>

#include "core/timer.h"
#include "net/netif.h"

/** Default PAN ID when the device does not report one. */
#define WREN_IEEE802154_DEFAULT_PAN 0x0023

/** Counters of the MAC; every attempt and every failure has one. */
struct wren_mac_stats {
    uint32_t tx_attempts;      /**< our frames put on the air (each try) */
    uint32_t tx_retries;       /**< retransmissions after a missing ACK */
    uint32_t tx_ok;            /**< frames done: acknowledged, or sent without ACK request */
    uint32_t tx_noack;         /**< frames given up after macMaxFrameRetries */
    uint32_t tx_caf;           /**< channel access failures (macMaxCSMABackoffs exceeded) */
    uint32_t cca_busy;         /**< CCAs that found the channel busy */
    uint32_t ack_rx;           /**< ACKs received for our frames */
    uint32_t ack_tx;           /**< ACKs sent */
    uint32_t ack_tx_busy;      /**< ACKs not sent: the radio was busy */
    uint32_t rx_dup;           /**< duplicate data frames (same source and sequence) */
    uint32_t rx_ack_stray;     /**< ACKs nobody waited for */
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
    struct {
        uint8_t addr[8];
        uint8_t len;
        uint8_t seq;
    } seen[4];                 /**< last (source, sequence) per recent neighbor */
    uint8_t seen_next;
    struct wren_mac_stats stats;
};

struct wren_ieee802154_netif {
    struct wren_netif netif;   /**< first */
    struct wren_mac mac;
    uint16_t pan;
    uint8_t short_addr[2];     /**< network order */
    uint8_t long_addr[8];      /**< EUI-64, network order */
    uint8_t seq;
    uint8_t src_len;           /**< 2 or 8 */
    bool ack_req;              /**< ask for ACKs on unicast */
    bool promiscuous;
};

extern const struct wren_netif_link_ops wren_ieee802154_link;

/** @brief Add an 802.15.4 interface over @p dev to @p node.
 *  @return the interface id or -errno. */
int wren_ieee802154_netif_add(struct wren_node *node, struct wren_ieee802154_netif *nif,
                              struct wren_netdev *dev);

#endif

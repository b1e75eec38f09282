/**
 * @file rawgen.h
 * @brief Raw-frame traffic generator and sink (link-layer payloads).
 *
 * Sends frames whose payload starts with a NALP byte (RFC 4944: not a
 * LoWPAN frame) followed by a small header (magic, sender id, sequence
 * number) and a pattern derived from them, so the sink can check every
 * received byte. Intervals are periodic with uniform jitter or exponential
 * (Poisson traffic), drawn from the node's PRNG.
 *
 * Payload layout (big-endian):
 *
 *     0      1      2        6        10
 *     +------+------+--------+--------+-----------------+
 *     | 0x3f | 'w'  | sender |  seq   | pattern ...     |
 *     +------+------+--------+--------+-----------------+
 */
#ifndef WREN_APPS_RAWGEN_H
#define WREN_APPS_RAWGEN_H

#include "core/counters.h"
#include <stdbool.h>
#include <stdint.h>

#include "core/module.h"
#include "core/timer.h"
#include "net/netreg.h"

#define WREN_RAWGEN_HDR_LEN 10

/** First payload byte: a NALP dispatch (00xxxxxx) whose low bits no other
 *  802.15.4 protocol that Wireshark guesses at (LwMesh, ZigBee) accepts, so
 *  captures dissect as plain data. */
#define WREN_RAWGEN_NALP 0x3f

enum wren_rawgen_timing {
    WREN_RAWGEN_JITTER = 0,   /**< interval * U(0.5, 1.5) */
    WREN_RAWGEN_POISSON,      /**< exponential with mean interval */
    WREN_RAWGEN_PERIODIC,     /**< exactly every interval */
};

#define WREN_RAWGEN_COUNTERS(C)                                \
    C(sent)          /* frames handed to the interface */      \
    C(send_nobuf)    /* not sent: packet buffer full */        \
    C(send_queue)    /* not sent: message queue full */        \
    C(received)      /* valid frames received */               \
    C(rx_bytes)                                                \
    C(rx_bad)        /* frames whose content did not check */  \
    C(rx_foreign)    /* payloads of another format */

struct wren_rawgen_stats {
    WREN_RAWGEN_COUNTERS(WREN_COUNTER_U32)
};

struct wren_rawgen {
    struct wren_module module;        /**< first */
    struct wren_node *node;
    struct wren_netreg_entry reg;
    struct wren_timer timer;
    uint8_t netif_id;
    uint8_t timing;                   /**< enum wren_rawgen_timing */
    uint8_t dst[8];                   /**< link destination, network order */
    uint8_t dst_len;                  /**< 0: broadcast */
    uint16_t payload_len;             /**< >= WREN_RAWGEN_HDR_LEN */
    uint32_t interval_us;             /**< 0: sink only */
    uint32_t count;                   /**< frames to send, 0: unlimited */
    uint32_t seq;
    struct wren_rawgen_stats stats;
};

/**
 * @brief Start a generator on interface @p netif_id of @p node; it also
 *        counts every raw frame the node receives.
 * @param[in] interval_us  mean interval; 0 makes it a sink only
 * @param[in] start_us     delay of the first frame
 * @return 0 or -errno.
 */
int wren_rawgen_start(struct wren_node *node, struct wren_rawgen *g, uint8_t netif_id,
                      const uint8_t *dst, uint8_t dst_len, uint16_t payload_len,
                      uint32_t interval_us, uint8_t timing, uint32_t count,
                      uint64_t start_us);

/** What a generator counts (its counter set "app"). */
extern const struct wren_counter_set wren_rawgen_counters;

#endif

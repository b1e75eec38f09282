/**
 * @file ping.h
 * @brief ICMPv6 echo client: count, size, interval, RTT statistics.
 *
 * Receives replies as a raw IPv6 receiver of next header 58. Reports each
 * reply and a summary through an output callback, in the format of the
 * Linux ping tool (iputils).
 *
 * Each request's sequence number is remembered in a window of the last
 * WREN_PING_WINDOW requests, with whether it was answered: a second reply
 * to a request is a duplicate (a link or a peer that repeats frames), shown
 * with "(DUP!)" and counted in dup, never as an answer; a reply to a
 * request that left the window is counted in late. So rx counts distinct
 * requests answered, never more than tx, and the loss (tx - rx) / tx stays
 * within 0..100 %. Ping ends when every one of @p count requests has been
 * answered, or the wait after the last one is over.
 *
 * A link-local destination leaves through interface if_id when given (the
 * shell's `ping -I IF`), else through the first interface (the IPv6 layer's
 * choice for link scope).
 */
#ifndef WREN_APPS_PING_H
#define WREN_APPS_PING_H

#include <stdbool.h>
#include <stdint.h>

#include "core/module.h"
#include "core/timer.h"
#include "net/netreg.h"

/** Requests whose send time and answer are remembered (RTTs, duplicates). */
#define WREN_PING_WINDOW 16

typedef void (*wren_out_fn)(void *ctx, const char *s);

struct wren_ping {
    struct wren_module module;   /**< first */
    struct wren_netreg_entry reg;
    struct wren_node *node;
    struct wren_timer timer;
    uint8_t dst[16];
    uint16_t id;
    uint16_t next_seq;
    uint16_t count;
    uint16_t size;               /**< echo data bytes */
    uint32_t interval_us;
    uint32_t timeout_us;         /**< wait after the last request */
    uint8_t if_id;               /**< interface the requests leave through, 0: routed */
    uint64_t sent_at[WREN_PING_WINDOW];
    uint16_t seq_at[WREN_PING_WINDOW]; /**< the request each slot holds */
    uint32_t answered;           /**< bit i: slot i's request was answered */
    uint32_t tx;
    uint32_t rx;                 /**< distinct requests answered (<= tx) */
    uint32_t dup;                /**< further replies to an answered request */
    uint32_t late;               /**< replies to requests gone from the window */
    uint32_t bad;                /**< replies with wrong data */
    uint64_t rtt_min;
    uint64_t rtt_max;
    uint64_t rtt_sum;
    bool running;
    bool quiet;                  /**< summary only */
    wren_out_fn out;
    void *out_ctx;
};

/**
 * @brief Ping @p dst @p count times with @p size data bytes every
 *        @p interval_us, through interface @p if_id (0: the one the IPv6
 *        layer picks; for a link-local @p dst, the first).
 * @return 0; -EBUSY if a ping is running; -EINVAL for a size above 1,232
 *         or a count of 0; -ENODEV if @p if_id is not an interface.
 */
int wren_ping_start(struct wren_node *node, struct wren_ping *p, const uint8_t *dst,
                    uint16_t count, uint16_t size, uint32_t interval_us, uint8_t if_id,
                    wren_out_fn out, void *out_ctx);

#endif

/**
 * @file ping.h
 * @brief ICMPv6 echo client: count, size, interval, RTT statistics.
 *
 * Receives replies as a raw IPv6 receiver of next header 58. Reports each
 * reply and a summary through an output callback, in the format of the
 * Linux ping6 tool.
 */
#ifndef WREN_APPS_PING_H
#define WREN_APPS_PING_H

#include <stdbool.h>
#include <stdint.h>

#include "core/module.h"
#include "core/timer.h"
#include "net/netreg.h"

/** Replies whose send time is remembered, for RTTs. */
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
    uint64_t sent_at[WREN_PING_WINDOW];
    uint32_t tx;
    uint32_t rx;
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
 *        @p interval_us. @return 0, -EBUSY if a ping is running.
 */
int wren_ping_start(struct wren_node *node, struct wren_ping *p, const uint8_t *dst,
                    uint16_t count, uint16_t size, uint32_t interval_us, wren_out_fn out,
                    void *out_ctx);

#endif

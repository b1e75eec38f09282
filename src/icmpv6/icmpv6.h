/**
 * @file icmpv6.h
 * @brief The ICMPv6 layer (RFC 4443): checksum verification, echo replies,
 *        rate-limited error messages, and demultiplexing of the other
 *        message types to (WREN_NETTYPE_ICMPV6, type) — e.g. neighbor
 *        discovery. Raw sockets for next header 58 (ping) get every
 *        message from the IPv6 layer directly.
 *
 * Other layers ask for an error by posting WREN_MSG_ICMPV6_ERROR(type,
 * code) with the offending packet (in RX order, as they received it) and
 * the pointer/MTU in msg.arg. No error is sent about an ICMPv6 error, to or
 * from a multicast or unspecified address (RFC 4443 2.4 e), or beyond the
 * rate limit (a token bucket, RFC 4443 2.4 f).
 */
#ifndef WREN_ICMPV6_ICMPV6_H
#define WREN_ICMPV6_ICMPV6_H

#include "core/counters.h"
#include <stdint.h>

#include "core/module.h"
#include "net/netreg.h"

/** Error messages per second, long-run rate. */
#ifndef CONFIG_WREN_ICMPV6_ERR_RATE
#define CONFIG_WREN_ICMPV6_ERR_RATE 10
#endif
/** Error messages that may go out in a burst. */
#ifndef CONFIG_WREN_ICMPV6_ERR_BURST
#define CONFIG_WREN_ICMPV6_ERR_BURST 10
#endif

#define WREN_ICMPV6_COUNTERS(C)                                    \
    C(rx)                                                          \
    C(rx_drop_short)       /* shorter than its type's minimum */   \
    C(rx_drop_csum)                                                \
    C(rx_echo_req)                                                 \
    C(rx_errors)           /* error messages received */           \
    C(rx_unhandled)        /* types nobody handles */              \
    C(tx_echo_reply)                                               \
    C(tx_errors)                                                   \
    C(err_suppressed)      /* errors not sent (rules of 2.4 e) */  \
    C(err_rate_limited)                                            \
    C(tx_drop_nobuf)

struct wren_icmpv6_stats {
    WREN_ICMPV6_COUNTERS(WREN_COUNTER_U32)
};

struct wren_icmpv6 {
    struct wren_module module;   /**< first */
    struct wren_node *node;
    struct wren_icmpv6_stats stats; /**< near the start: short instructions count */
    struct wren_netreg_entry reg;
    uint32_t tokens_milli;       /**< token bucket, thousandths of a message */
    uint64_t last_refill;
};

/** @brief Start the ICMPv6 layer of @p node. */
int wren_icmpv6_init(struct wren_node *node, struct wren_icmpv6 *icmp);

/**
 * @brief Send an ICMPv6 message: @p body (type, code, zero checksum, rest)
 *        to @p dst from @p src (:: = chosen), checksummed; for applications
 *        such as ping through their own code paths. Returns 0 or -errno.
 */
int wren_icmpv6_send(struct wren_node *node, const uint8_t *src, const uint8_t *dst,
                     uint8_t hop_limit, uint8_t if_id, const uint8_t *body, size_t len);

/** The module, for the stack assembly (src/stack/stack.h). */
extern const struct wren_module_ops wren_icmpv6_module;

#endif

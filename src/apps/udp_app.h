/**
 * @file udp_app.h
 * @brief UDP traffic applications on sock_udp: an echo or sink server and a
 *        sender of patterned datagrams whose every byte the sink checks.
 *
 * A datagram of length n carries bytes (i * 31 + n) & 0xff, so the sink
 * can tell a whole datagram from a truncated, padded or corrupted one.
 */
#ifndef WREN_APPS_UDP_APP_H
#define WREN_APPS_UDP_APP_H

#include <stdbool.h>
#include <stdint.h>

#include "apps/ping.h"
#include "core/timer.h"
#include "sock/sock_udp.h"

enum wren_udp_server_mode {
    WREN_UDP_ECHO = 1,
    WREN_UDP_SINK,
};

struct wren_udp_server {
    struct wren_sock_udp sock;
    struct wren_node *node;
    uint8_t mode;                /**< enum wren_udp_server_mode; 0 = stopped */
    uint32_t received;           /**< datagrams received intact */
    uint32_t bad;                /**< datagrams whose bytes did not check */
    uint32_t echoed;
    uint64_t bytes;
    uint64_t size_sum;           /**< sum of the sizes received intact */
};

struct wren_udp_sender {
    struct wren_sock_udp sock;
    struct wren_node *node;
    struct wren_timer timer;
    struct wren_sock_udp_ep dst;
    uint16_t size;               /**< next size */
    uint16_t size_max;           /**< sizes run from size to size_max, then wrap */
    uint16_t size_min;
    uint32_t left;
    uint32_t interval_us;
    uint32_t sent;
    uint32_t failed;
    bool running;
    wren_out_fn out;
    void *out_ctx;
};

/** @brief Fill @p buf with the pattern of a @p len-byte datagram. */
void wren_udp_pattern(uint8_t *buf, size_t len);

/** @brief Start a server on @p port. @return 0 or -errno. */
int wren_udp_server_start(struct wren_node *node, struct wren_udp_server *s, uint16_t port,
                          uint8_t mode);
/** @brief Stop it. */
void wren_udp_server_stop(struct wren_udp_server *s);

/** @brief Send @p count datagrams of sizes @p size_min..@p size_max (in turn)
 *         to @p dst every @p interval_us. @return 0 or -errno. */
int wren_udp_sender_start(struct wren_node *node, struct wren_udp_sender *s,
                          const struct wren_sock_udp_ep *dst, uint16_t size_min,
                          uint16_t size_max, uint32_t count, uint32_t interval_us,
                          wren_out_fn out, void *out_ctx);

#endif

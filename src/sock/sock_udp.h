/**
 * @file sock_udp.h
 * @brief UDP sockets for applications: static memory, blocking calls with
 *        timeouts (from application threads) and asynchronous callbacks.
 *
 *     struct wren_sock_udp s;
 *     struct wren_sock_udp_ep local = { .port = 5683 };
 *     wren_sock_udp_create(node, &s, &local, NULL);
 *     uint8_t buf[64];
 *     struct wren_sock_udp_ep from;
 *     ssize_t n = wren_sock_udp_recv(&s, buf, sizeof(buf), 1000000, &from);
 *     if (n >= 0) wren_sock_udp_send(&s, buf, (size_t)n, &from);
 *
 * A socket is a module registered as (WREN_NETTYPE_UDP, local port). It
 * keeps up to CONFIG_WREN_SOCK_QUEUE received datagrams; more are dropped
 * and counted (rx.drops).
 */
#ifndef WREN_SOCK_SOCK_UDP_H
#define WREN_SOCK_SOCK_UDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/module.h"
#include "net/netreg.h"
#include "sock/sock.h"
#include "sock/sock_q.h"

struct wren_sock_udp_ep {
    uint8_t addr[16];   /**< :: = any */
    uint16_t port;
    uint8_t netif;      /**< 0 = any */
};

enum {
    WREN_SOCK_EV_RECV = 0x01, /**< a datagram is waiting */
};

struct wren_sock_udp;
typedef void (*wren_sock_udp_cb)(struct wren_sock_udp *sock, unsigned events, void *arg);

struct wren_sock_udp {
    struct wren_module module;   /**< first */
    struct wren_netreg_entry reg;
    struct wren_node *node;
    struct wren_sock_udp_ep local;
    struct wren_sock_udp_ep remote;
    struct wren_sock_q rx;
    uint8_t has_remote;
    uint8_t csum_elided_ok;      /**< takes datagrams whose checksum was elided */
    wren_sock_udp_cb cb;
    void *cb_arg;
    uint32_t rx_drop_filter;     /**< datagrams not from the connected remote */
};

/**
 * @brief Open @p sock bound to @p local (port 0: an ephemeral port) and,
 *        if @p remote is given, connected to it.
 * @return 0, -EADDRINUSE, -EINVAL.
 */
int wren_sock_udp_create(struct wren_node *node, struct wren_sock_udp *sock,
                         const struct wren_sock_udp_ep *local,
                         const struct wren_sock_udp_ep *remote);

/** @brief Close @p sock, dropping queued datagrams. */
void wren_sock_udp_close(struct wren_sock_udp *sock);

/**
 * @brief Send @p len bytes to @p remote (NULL: the connected remote).
 * @return @p len, -ENOTCONN, -ENOBUFS (packet buffer or queue full), -EINVAL.
 */
ssize_t wren_sock_udp_send(struct wren_sock_udp *sock, const void *data, size_t len,
                           const struct wren_sock_udp_ep *remote);

/**
 * @brief Receive one datagram into @p buf, waiting up to @p timeout_us
 *        (waiting needs an application thread).
 * @param[out] remote  the sender, may be NULL
 * @return its length, -EAGAIN (nothing and no wait), -ETIMEDOUT, -ENOBUFS
 *         (@p buf too small: the datagram is dropped; its first @p max
 *         bytes are in @p buf and its sender in @p remote, for an answer
 *         such as CoAP's 4.13), -EDEADLK (asked to wait outside a thread).
 */
ssize_t wren_sock_udp_recv(struct wren_sock_udp *sock, void *buf, size_t max,
                           uint64_t timeout_us, struct wren_sock_udp_ep *remote);

/**
 * @brief Where the datagram wren_sock_udp_recv() returns next was sent to:
 *        its destination address (one of the node's, or a multicast group
 *        it joined) into @p local.
 * @return 0, or -EAGAIN (nothing queued).
 */
int wren_sock_udp_next_dst(const struct wren_sock_udp *sock, uint8_t local[16]);

/**
 * @brief Whether @p sock takes datagrams whose UDP checksum the 6LoWPAN
 *        sender elided (NHC C bit, RFC 6282 4.3.2). Off by default: nothing
 *        proves such a datagram intact, so the UDP layer drops it and counts
 *        udp.rx_drop_csum_elided. Turn it on for an application that checks
 *        its data itself (or has agreed the elision with its peers). The
 *        same is SET/GET WREN_NETOPT_UDP_CSUM_ELIDED_OK on the socket's module.
 */
void wren_sock_udp_accept_csum_elided(struct wren_sock_udp *sock, bool on);

/** @brief Call @p cb (in the node's context) when datagrams arrive. */
void wren_sock_udp_set_cb(struct wren_sock_udp *sock, wren_sock_udp_cb cb, void *arg);

#endif

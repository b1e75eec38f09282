/**
 * @file sock_ip.h
 * @brief Raw IPv6 sockets: send and receive the payload of one next-header
 *        protocol (e.g. 58 for ICMPv6), static memory, blocking with timeouts
 *        or asynchronous callbacks, like sock_udp.
 *
 * A socket is a module registered as (WREN_NETTYPE_IPV6, protocol): it gets
 * every datagram for this node with that next header, after the IPv6
 * layer's checks. For ICMPv6 the checksum of sent messages is filled in.
 */
#ifndef WREN_SOCK_SOCK_IP_H
#define WREN_SOCK_SOCK_IP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/module.h"
#include "net/netreg.h"
#include "sock/sock_q.h"

struct wren_sock_ip_ep {
    uint8_t addr[16];   /**< :: = any */
    uint8_t netif;      /**< 0 = any */
};

struct wren_sock_ip;
typedef void (*wren_sock_ip_cb)(struct wren_sock_ip *sock, void *arg);

struct wren_sock_ip {
    struct wren_module module;  /**< first */
    struct wren_netreg_entry reg;
    struct wren_node *node;
    struct wren_sock_ip_ep local;
    uint8_t proto;
    struct wren_sock_q rx;
    wren_sock_ip_cb cb;
    void *cb_arg;
};

/** @brief Open a raw socket for next header @p proto. @return 0 or -errno. */
int wren_sock_ip_create(struct wren_node *node, struct wren_sock_ip *sock,
                        const struct wren_sock_ip_ep *local, uint8_t proto);
/** @brief Close it, dropping what is queued. */
void wren_sock_ip_close(struct wren_sock_ip *sock);
/** @brief Send @p len bytes of protocol payload to @p remote.
 *  @return @p len, -ENOBUFS, -EINVAL. */
ssize_t wren_sock_ip_send(struct wren_sock_ip *sock, const void *data, size_t len,
                          const struct wren_sock_ip_ep *remote);
/** @brief Receive one payload (see wren_sock_udp_recv for the timeouts).
 *  @return its length, -EAGAIN, -ETIMEDOUT, -ENOBUFS, -EDEADLK. */
ssize_t wren_sock_ip_recv(struct wren_sock_ip *sock, void *buf, size_t max, uint64_t timeout_us,
                          struct wren_sock_ip_ep *remote);
/** @brief Call @p cb when a payload arrives. */
void wren_sock_ip_set_cb(struct wren_sock_ip *sock, wren_sock_ip_cb cb, void *arg);

#endif

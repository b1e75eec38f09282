/**
 * @file sock_tcp.h
 * @brief TCP sockets for applications, on the TCP layer (tcp/tcp.h): static
 *        memory, blocking calls with timeouts (from application threads) and
 *        asynchronous callbacks, like sock_udp.
 *
 * A client:
 *
 *     static struct wren_sock_tcp s;           // zeroed before first use
 *     struct wren_sock_tcp_ep srv = { .addr = {...}, .port = 80 };
 *     if (wren_sock_tcp_connect(node, &s, &srv, 0, 5000000) == 0) {
 *         wren_sock_tcp_write(&s, req, len, WREN_SOCK_FOREVER);
 *         ssize_t n = wren_sock_tcp_read(&s, buf, sizeof(buf), 1000000);
 *         wren_sock_tcp_disconnect(&s);
 *     }
 *
 * A server: a queue (the listening socket) and the sockets it accepts into.
 *
 *     static struct wren_sock_tcp_queue q;
 *     static struct wren_sock_tcp socks[2];    // zeroed before first use
 *     struct wren_sock_tcp_ep local = { .port = 80 };
 *     wren_sock_tcp_listen(node, &q, &local, socks, 2);
 *     struct wren_sock_tcp *c;
 *     while (wren_sock_tcp_accept(&q, &c, WREN_SOCK_FOREVER) == 0) {
 *         ... read and write c ...
 *         wren_sock_tcp_disconnect(c);         // back to the queue's pool
 *     }
 *
 * Memory: a socket embeds its connection (struct wren_tcp_conn) and its
 * buffers (CONFIG_WREN_SOCK_TCP_SNDBUF + CONFIG_WREN_SOCK_TCP_RCVBUF and a
 * bitmap of one bit per receive-buffer byte). A queue holds a listener and
 * pointers to the caller's sockets: half-open and not-yet-accepted
 * connections live in those sockets, so a queue of n sockets serves at most
 * n connections at a time.
 *
 * Waiting: calls with a timeout other than 0 block the calling application
 * thread (core/thread.h) until the socket is ready, the timeout passes, or
 * the socket is reset, closed or disconnected; asked to block outside a
 * thread they return -EDEADLK. On one socket one thread may wait to read
 * and another to write (or connect) at the same time; a second waiter for
 * the same direction gets -EBUSY.
 *
 * Callbacks run in the node's context; they may call any function here
 * with timeout 0 (never block in one). Events of a socket:
 * WREN_SOCK_TCP_EV_CONNECTED (a connect() succeeded; accepted sockets are
 * connected already and never get it), _RECV (data or the end of the
 * stream to read), _SEND (room in the send buffer), _CLOSED (the
 * connection is gone: sock->conn.err says why: 0, -ECONNREFUSED,
 * -ECONNRESET, -ETIMEDOUT). A queue's callback gets WREN_SOCK_TCP_EV_ACCEPT
 * when a connection is ready to accept.
 *
 * Closing: wren_sock_tcp_disconnect() never blocks. It discards unread
 * data and closes for sending: queued data and a FIN still go out, and the
 * connection finishes closing in the background (the socket is
 * "lingering"). It is released (an accepted one back to its queue's pool)
 * once closed: the peer acknowledged our FIN and sent its own, or data came
 * from the peer after the disconnect (answered by a RST), or
 * CONFIG_WREN_SOCK_TCP_LINGER_MS passed (RST). Segments that come later
 * find no connection and the TCP layer answers them with a RST.
 */
#ifndef WREN_SOCK_SOCK_TCP_H
#define WREN_SOCK_SOCK_TCP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/timer.h"
#include "sock/sock.h"
#include "tcp/tcp.h"

/** Send buffer of a socket, bytes (1..65,535). */
#ifndef CONFIG_WREN_SOCK_TCP_SNDBUF
#define CONFIG_WREN_SOCK_TCP_SNDBUF 2048
#endif
/** Receive buffer of a socket, bytes (1..65,535): the largest window. */
#ifndef CONFIG_WREN_SOCK_TCP_RCVBUF
#define CONFIG_WREN_SOCK_TCP_RCVBUF 2048
#endif
/** Sockets one queue (listening socket) can accept into (1..255). */
#ifndef CONFIG_WREN_SOCK_TCP_QUEUE_MAX
#define CONFIG_WREN_SOCK_TCP_QUEUE_MAX 4
#endif
/** How long a disconnected socket may take to finish closing before it is
 *  reset, ms (Linux's tcp_fin_timeout is 60 s). */
#ifndef CONFIG_WREN_SOCK_TCP_LINGER_MS
#define CONFIG_WREN_SOCK_TCP_LINGER_MS 60000
#endif

_Static_assert(CONFIG_WREN_SOCK_TCP_SNDBUF >= 1 && CONFIG_WREN_SOCK_TCP_SNDBUF <= 65535,
               "CONFIG_WREN_SOCK_TCP_SNDBUF: 1..65535");
_Static_assert(CONFIG_WREN_SOCK_TCP_RCVBUF >= 1 && CONFIG_WREN_SOCK_TCP_RCVBUF <= 65535,
               "CONFIG_WREN_SOCK_TCP_RCVBUF: 1..65535");
_Static_assert(CONFIG_WREN_SOCK_TCP_QUEUE_MAX >= 1 && CONFIG_WREN_SOCK_TCP_QUEUE_MAX <= 255,
               "CONFIG_WREN_SOCK_TCP_QUEUE_MAX: 1..255");

/** An endpoint (the shape of struct wren_sock_udp_ep). */
struct wren_sock_tcp_ep {
    uint8_t addr[16];   /**< :: = any */
    uint16_t port;
    uint8_t netif;      /**< 0 = any */
};

/** Events (the socket's are the TCP layer's WREN_TCP_EV_x). */
enum {
    WREN_SOCK_TCP_EV_CONNECTED = WREN_TCP_EV_CONNECTED, /**< connect() succeeded */
    WREN_SOCK_TCP_EV_RECV = WREN_TCP_EV_RECV,           /**< data or end of stream */
    WREN_SOCK_TCP_EV_SEND = WREN_TCP_EV_SEND,           /**< room to write */
    WREN_SOCK_TCP_EV_CLOSED = WREN_TCP_EV_CLOSED,       /**< gone: conn.err says why */
    WREN_SOCK_TCP_EV_ACCEPT = 0x10,                     /**< (queue) one to accept */
};

struct wren_sock_tcp;
struct wren_sock_tcp_queue;
typedef void (*wren_sock_tcp_cb)(struct wren_sock_tcp *sock, unsigned events, void *arg);
typedef void (*wren_sock_tcp_queue_cb)(struct wren_sock_tcp_queue *queue, unsigned events,
                                       void *arg);

/** A connected (or connecting) socket. Zero it before its first use. */
struct wren_sock_tcp {
    struct wren_tcp_conn conn;          /**< first */
    struct wren_node *node;
    struct wren_sock_tcp_queue *queue;  /**< the pool it belongs to, or NULL */
    struct wren_thread *reader;         /**< blocked in read */
    struct wren_thread *writer;         /**< blocked in write or connect */
    wren_sock_tcp_cb cb;
    void *cb_arg;
    struct wren_timer linger;           /**< bounds a disconnected socket's close */
    uint8_t flags;                      /**< inside sock_tcp */
    uint8_t snd[CONFIG_WREN_SOCK_TCP_SNDBUF];
    uint8_t rcv[CONFIG_WREN_SOCK_TCP_RCVBUF];
    uint8_t rcv_bitmap[(CONFIG_WREN_SOCK_TCP_RCVBUF + 7) / 8];
};

/** A listening socket: a listener and the caller's sockets to accept into. */
struct wren_sock_tcp_queue {
    struct wren_tcp_listener listener;  /**< first */
    struct wren_node *node;
    const struct wren_module_ops *owner; /**< whose memory the sockets made on demand are
                                              (wren_sock_tcp_listen_lazy), or NULL */
    struct wren_tcp_conn *conns[CONFIG_WREN_SOCK_TCP_QUEUE_MAX]; /**< the listener's pool */
    struct wren_thread *waiter;         /**< blocked in accept */
    wren_sock_tcp_queue_cb cb;
    void *cb_arg;
    uint8_t n;                          /**< entries in socks */
    uint8_t listening;
};

/**
 * @brief Open @p sock to @p remote from @p local_port (0: an ephemeral
 *        port), over remote->netif (0: by route), waiting up to
 *        @p timeout_us for the handshake.
 *
 * @p sock must be zeroed before its first use; later it may be connected
 * again once its connection is closed (failed, reset, or disconnected and
 * released). A queue's sockets cannot connect. With @p timeout_us 0 the
 * SYN is sent and -EINPROGRESS returned: the callback (which may be set
 * before connecting) reports WREN_SOCK_TCP_EV_CONNECTED or _CLOSED, and a
 * blocking read or write waits for the handshake. A blocking connect that
 * fails leaves the socket released.
 *
 * @return 0 (established), -EINPROGRESS, -ECONNREFUSED (reset by the peer
 *         or an RST: nobody listens), -ETIMEDOUT (no answer in time: the
 *         attempt is abandoned, or the TCP layer gave up), -EISCONN
 *         (connected), -EALREADY (connecting), -EBUSY (still closing its previous connection),
 *         -EDEADLK (a timeout outside a thread), -EADDRINUSE,
 *         -EADDRNOTAVAIL (no source address), -EINVAL, -ENOTSUP (no TCP
 *         layer in @p node), -EBADF (disconnected while waiting).
 */
int wren_sock_tcp_connect(struct wren_node *node, struct wren_sock_tcp *sock,
                          const struct wren_sock_tcp_ep *remote, uint16_t local_port,
                          uint64_t timeout_us);

/**
 * @brief Listen on @p local (address :: = any, port, netif 0 = any) with
 *        @p n sockets of @p socks (zeroed, or released) to accept into.
 * @return 0, -EINVAL (port 0, n 0 or above CONFIG_WREN_SOCK_TCP_QUEUE_MAX),
 *         -EBUSY (a socket of @p socks is in use), -EADDRINUSE, -ENOTSUP
 *         (no TCP layer).
 */
int wren_sock_tcp_listen(struct wren_node *node, struct wren_sock_tcp_queue *queue,
                         const struct wren_sock_tcp_ep *local, struct wren_sock_tcp *socks,
                         unsigned n);

/**
 * @brief Listen as wren_sock_tcp_listen() does, with @p n sockets made on
 *        demand: none until a SYN finds every socket made so far in use,
 *        then one more, from the node's memory for module @p owner
 *        (wren_node_mem(), core/node.h), kept and reused; a SYN that finds
 *        no memory is refused as with a full pool (tcp.syn_drop_pool). A
 *        listener nobody connects to costs no socket. Accepted sockets are
 *        used and disconnected as the others.
 * Only with CONFIG_WREN_NODE_MEM (core/config.h).
 * @return as wren_sock_tcp_listen() (without -EBUSY).
 */
int wren_sock_tcp_listen_lazy(struct wren_node *node, struct wren_sock_tcp_queue *queue,
                              const struct wren_sock_tcp_ep *local, unsigned n,
                              const struct wren_module_ops *owner);

/**
 * @brief Stop listening: connections not yet accepted are reset, a thread
 *        blocked in accept gets -EBADF; accepted sockets stay open (and
 *        return to no pool once disconnected).
 */
void wren_sock_tcp_stop_listen(struct wren_sock_tcp_queue *queue);

/**
 * @brief Take an established connection of @p queue, waiting up to
 *        @p timeout_us for one.
 * @param[out] sock  the socket (one of the queue's), the caller's until
 *                   wren_sock_tcp_disconnect(); its callback is cleared
 * @return 0, -EAGAIN (none and no wait), -ETIMEDOUT, -EBADF (not
 *         listening, or stopped while waiting), -EDEADLK, -EBUSY (another
 *         thread waits in accept).
 */
int wren_sock_tcp_accept(struct wren_sock_tcp_queue *queue, struct wren_sock_tcp **sock,
                         uint64_t timeout_us);

/**
 * @brief Read up to @p max bytes, waiting up to @p timeout_us for some.
 * @return bytes read (1..max), 0 at the end of the stream (the peer's FIN;
 *         also for @p max 0), -EAGAIN (nothing and no wait), -ETIMEDOUT,
 *         -ECONNRESET / -ETIMEDOUT / -ECONNREFUSED (the connection is gone,
 *         its unread data read), -ENOTCONN (never connected), -EBADF
 *         (disconnected), -EDEADLK, -EBUSY.
 */
ssize_t wren_sock_tcp_read(struct wren_sock_tcp *sock, void *buf, size_t max, uint64_t timeout_us);

/**
 * @brief Queue all @p len bytes for sending, waiting while the send buffer
 *        is full, up to @p timeout_us in all.
 * @return bytes queued (all, or fewer when the time ran out or the
 *         connection failed midway), or when none were: -EAGAIN (the buffer
 *         is full and no wait), -ETIMEDOUT, -EPIPE (closed for sending),
 *         -ECONNRESET / -ETIMEDOUT (the connection is gone), -ENOTCONN,
 *         -EBADF, -EDEADLK, -EBUSY.
 */
ssize_t wren_sock_tcp_write(struct wren_sock_tcp *sock, const void *data, size_t len,
                            uint64_t timeout_us);

/**
 * @brief Close @p sock gracefully and give it up (see "Closing" above);
 *        never blocks. Threads blocked on it get -EBADF, its callback is
 *        cleared. Safe on a socket already disconnected.
 */
void wren_sock_tcp_disconnect(struct wren_sock_tcp *sock);

/** @brief Call @p cb(sock, events, arg) on @p sock's events (NULL: none). */
void wren_sock_tcp_set_cb(struct wren_sock_tcp *sock, wren_sock_tcp_cb cb, void *arg);

/** @brief Call @p cb(queue, WREN_SOCK_TCP_EV_ACCEPT, arg) when a connection
 *         is ready to accept (it may accept there). */
void wren_sock_tcp_queue_set_cb(struct wren_sock_tcp_queue *queue, wren_sock_tcp_queue_cb cb,
                                void *arg);

/** @brief @p sock's local endpoint. @return 0, -ENOTCONN (not open). */
int wren_sock_tcp_get_local(const struct wren_sock_tcp *sock, struct wren_sock_tcp_ep *ep);
/** @brief @p sock's peer. @return 0, -ENOTCONN (not open). */
int wren_sock_tcp_get_remote(const struct wren_sock_tcp *sock, struct wren_sock_tcp_ep *ep);
/** @brief The endpoint @p queue listens on. @return 0, -EBADF (not listening). */
int wren_sock_tcp_queue_get_local(const struct wren_sock_tcp_queue *queue,
                                  struct wren_sock_tcp_ep *ep);

#endif

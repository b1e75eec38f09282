/**
 * @file tcp_app.h
 * @brief A TCP bulk-transfer application on the TCP layer's callbacks (no
 *        thread): a listener that sinks (checking every byte) or echoes,
 *        and a client that connects and sends N patterned bytes. It is what
 *        the shell's `tcp` command, the simulator's experiments and the
 *        benchmarks drive.
 *
 * Byte i of a stream is wren_tcp_app_pattern(i) = i mod 251 (a prime, so a
 * lost, repeated or reordered piece of any length shows), easy to produce
 * and check from Python on a Linux peer.
 */
#ifndef WREN_APPS_TCP_APP_H
#define WREN_APPS_TCP_APP_H

#include <stdbool.h>
#include <stdint.h>

#include "apps/ping.h"
#include "tcp/tcp.h"

#ifndef CONFIG_WREN_TCP_APP_BUF
#define CONFIG_WREN_TCP_APP_BUF 4096 /**< room for the send and receive buffer of each connection */
#endif
#ifndef CONFIG_WREN_TCP_APP_WND
/** Bytes of that room a connection uses unless told otherwise (`wnd`). */
#define CONFIG_WREN_TCP_APP_WND 2048
#endif
_Static_assert(CONFIG_WREN_TCP_APP_WND <= CONFIG_WREN_TCP_APP_BUF, "TCP app window too large");

enum wren_tcp_app_mode {
    WREN_TCP_APP_SINK = 1, /**< read and check the pattern */
    WREN_TCP_APP_ECHO,     /**< send back what arrives */
};

/** One connection of the application, with its counters. */
struct wren_tcp_app_conn {
    struct wren_tcp_conn c;
    uint8_t snd[CONFIG_WREN_TCP_APP_BUF];
    uint8_t rcv[CONFIG_WREN_TCP_APP_BUF];
    uint8_t bm[(CONFIG_WREN_TCP_APP_BUF + 7) / 8];
    struct wren_tcp_app *app;
    uint8_t mode;            /**< enum wren_tcp_app_mode for received data */
    bool close_when_sent;    /**< shut down after to_send */
    bool in_use;
    uint64_t to_send, sent;  /**< pattern bytes to queue / queued */
    uint64_t received, bad;  /**< bytes read / bytes that did not match */
    uint64_t t_open_us, t_first_us, t_last_us; /**< established, first and last data */
    int last_err;
};

struct wren_tcp_app {
    struct wren_node *node;
    struct wren_tcp *tcp;
    struct wren_tcp_listener lis;
    struct wren_tcp_conn *pool[1];
    bool listening;
    uint8_t lis_mode;
    uint8_t opts;            /**< WREN_TCP_OPT_x for new connections */
    uint16_t mss;            /**< MSS for new connections */
    uint16_t wnd;            /**< send and receive buffer size of new connections (the
                                  largest window they announce and keep in flight) */
    struct wren_tcp_app_conn srv; /**< the accepted connection */
    struct wren_tcp_app_conn cli; /**< the active one */
    wren_out_fn out;
    void *out_ctx;
};

/** @brief Byte @p i of a patterned stream. */
static inline uint8_t wren_tcp_app_pattern(uint64_t i)
{
    return (uint8_t)(i % 251);
}

/** @brief Prepare @p app for @p node (its TCP layer must be running). */
int wren_tcp_app_init(struct wren_tcp_app *app, struct wren_node *node, wren_out_fn out,
                      void *out_ctx);

/** @brief Listen on @p port; accepted data is sunk or echoed. @return 0 or -errno. */
int wren_tcp_app_listen(struct wren_tcp_app *app, uint16_t port, uint8_t mode);
/** @brief Stop listening (the accepted connection stays). */
void wren_tcp_app_unlisten(struct wren_tcp_app *app);

/** @brief Connect the client to [@p addr]:@p port. @return 0 or -errno. */
int wren_tcp_app_connect(struct wren_tcp_app *app, const uint8_t *addr, uint16_t port);

/** @brief Queue @p n more pattern bytes on the client (or, with @p srv, on the
 *         accepted connection); @p close: shut down when they are all queued. */
int wren_tcp_app_send(struct wren_tcp_app *app, bool srv, uint64_t n, bool close);

/** @brief Close a connection gracefully (after queued data). */
int wren_tcp_app_close(struct wren_tcp_app *app, bool srv);

/** @brief Goodput of @p ac's received data, bit/s, from its opening to its
 *         last byte (0 if none). */
double wren_tcp_app_goodput(const struct wren_tcp_app_conn *ac);

#endif

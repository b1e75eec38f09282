/**
 * @file coap_tcp.h
 * @brief CoAP over TCP (RFC 8323): the CoAP server's resources on a
 *        sock_tcp listener (port 5683), and the client's requests with
 *        `tcp` set, over connections of static memory.
 *
 * The module (`wren_coap_tcp_module`, after `coap` in the stack's list)
 * listens on TCP port 5683 with up to CONFIG_WREN_COAP_TCP_CONNS sockets; a
 * connection beyond them is refused by the TCP layer (counted there as
 * `tcp.syn_drop_pool`). Sockets (~4.7 KB each with the default buffers) are
 * made when first needed, from the node's memory (wren_node_mem(),
 * core/node.h): a server's on a SYN that finds every one made in use, a
 * client's by its first connect; a node never connected costs none (nor its
 * connection and observer tables, made with the first connection). Requests run through the UDP server's request
 * handling (coap/coap.h: the same resources, options, Block1/Block2 and
 * link format); only the framing differs (wire/coap_tcp.h) and there are no
 * types, message IDs, ACKs or duplicates. Observers over TCP have their own
 * table (RFC 8323 7: no CON notifications; the Observe value is a counter
 * the client may ignore; the observation ends with the connection).
 *
 * Signals (RFC 8323 5): each side sends a CSM first (Max-Message-Size =
 * CONFIG_WREN_COAP_MSG_MAX, the server's receive buffer, Block-Wise-Transfer; BERT is not
 * implemented, so the size stays at or below 1152 where the option does not
 * offer it); a connection whose first message is not a CSM is aborted. A
 * Ping gets a Pong with its token (and Custody when asked: requests are
 * handled as they come, so all before it are done). A Release closes the
 * connection once the responses are out (they are: handling is
 * synchronous); an Abort closes it at once. A peer that sends no CSM within
 * CONFIG_WREN_COAP_TCP_CSM_TIMEOUT_MS is aborted, and a connection unused for
 * CONFIG_WREN_COAP_TCP_IDLE_MS (no observer or exchange on it) is released,
 * so silent peers cannot hold the bounded connections. Malformed messages, messages
 * beyond CONFIG_WREN_COAP_MSG_MAX and signals with an unknown critical
 * option are answered with an Abort (diagnostic payload, Bad-CSM-Option for
 * a CSM's) and the connection is closed. Every one of these is counted.
 *
 * A GET response beyond the peer's Max-Message-Size is made again in
 * blocks that fit it (RFC 7959 2.4); any other becomes a 5.00.
 *
 * A message is read from the stream only when the send buffer has room for
 * the largest response, so a client that does not read its responses is
 * slowed by TCP's own flow control, not by drops.
 *
 * Client: wren_coap_request() with rq->tcp opens a connection to the
 * endpoint (at most CONFIG_WREN_COAP_TCP_CLIENT_CONNS at a time), sends the
 * CSM, then the request once connected; later requests to the same endpoint
 * share it. Responses are matched by token, Block2 is followed and Block1
 * sent as over UDP; an exchange waits MAX_TRANSMIT_WAIT for its response.
 * The connection stays open until wren_coap_tcp_close() or the peer closes.
 */
#ifndef WREN_COAP_COAP_TCP_H
#define WREN_COAP_COAP_TCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coap/coap.h"
#include "core/counters.h"
#include "core/module.h"
#include "core/node.h"
#include "net/netreg.h"
#include "shell/shell.h"
#include "sock/sock_tcp.h"
#include "wire/coap_tcp.h"

/** Connections the server serves at once (sockets of its listener). */
#ifndef CONFIG_WREN_COAP_TCP_CONNS
#define CONFIG_WREN_COAP_TCP_CONNS 2
#endif
/** Connections the client opens at once (one per server endpoint). */
#ifndef CONFIG_WREN_COAP_TCP_CLIENT_CONNS
#define CONFIG_WREN_COAP_TCP_CLIENT_CONNS 1
#endif
/** Observers over TCP, all connections and resources together. */
#ifndef CONFIG_WREN_COAP_TCP_OBSERVERS
#define CONFIG_WREN_COAP_TCP_OBSERVERS 2
#endif

/** A connection whose peer sent no CSM within this time is aborted, ms
 *  (RFC 8323 3.3: a missing CSM is a connection error). */
#ifndef CONFIG_WREN_COAP_TCP_CSM_TIMEOUT_MS
#define CONFIG_WREN_COAP_TCP_CSM_TIMEOUT_MS 10000u
#endif
/** A connection that received nothing for this long and has no observer or
 *  client exchange on it is released (a Release, then closed), ms; 0: never. */
#ifndef CONFIG_WREN_COAP_TCP_IDLE_MS
#define CONFIG_WREN_COAP_TCP_IDLE_MS 300000u
#endif

#define WREN_COAP_TCP_NCONN (CONFIG_WREN_COAP_TCP_CONNS + CONFIG_WREN_COAP_TCP_CLIENT_CONNS)

_Static_assert(CONFIG_WREN_COAP_TCP_CONNS >= 1 &&
                   CONFIG_WREN_COAP_TCP_CONNS <= CONFIG_WREN_SOCK_TCP_QUEUE_MAX,
               "CONFIG_WREN_COAP_TCP_CONNS: 1..CONFIG_WREN_SOCK_TCP_QUEUE_MAX");
_Static_assert(CONFIG_WREN_SOCK_TCP_RCVBUF >= CONFIG_WREN_COAP_MSG_MAX,
               "the TCP receive buffer must hold the largest CoAP message whole");
_Static_assert(CONFIG_WREN_SOCK_TCP_SNDBUF >= CONFIG_WREN_COAP_MSG_MAX + COAP_TCP_HDR_MAX,
               "the TCP send buffer must hold the largest CoAP response");

#define WREN_COAP_TCP_COUNTERS(C)                                                                  \
    C(conn_accept)      /* connections accepted */                                                 \
    C(conn_open)        /* client connections opened */                                            \
    C(conn_fail)        /* client connections refused, reset or timed out */                       \
    C(conn_full)        /* client requests refused: every client connection in use */              \
    C(conn_close)       /* connections closed (by either side) */                                  \
    C(conn_csm_timeout) /* connections aborted: no CSM within CONFIG_WREN_COAP_TCP_CSM_TIMEOUT_MS */ \
    C(conn_idle)        /* connections released after CONFIG_WREN_COAP_TCP_IDLE_MS unused */        \
    C(rx)               /* messages received */                                                    \
    C(rx_drop_format)   /* malformed messages: Abort */                                            \
    C(rx_drop_big)      /* messages beyond CONFIG_WREN_COAP_MSG_MAX: Abort */                  \
    C(rx_no_csm)        /* a first message that was not a CSM: Abort */                            \
    C(rx_sig_critical)  /* signals with an unknown critical option: Abort */                       \
    C(rx_csm)           /* CSMs received */                                                        \
    C(rx_ping)          /* Pings answered with a Pong */                                           \
    C(rx_pong)          /* Pongs received */                                                       \
    C(rx_release)       /* Releases received: connection closed */                                 \
    C(rx_abort)         /* Aborts received: connection closed */                                   \
    C(rx_drop_unexpected) /* unknown signal codes, reserved classes: ignored */                    \
    C(rx_drop_unmatched) /* responses that match no request: ignored */                            \
    C(req)              /* requests handled */                                                     \
    C(tx)               /* messages sent */                                                        \
    C(tx_abort)         /* Aborts sent */                                                          \
    C(tx_drop)          /* messages not sent: the send buffer was full or the connection gone */   \
    C(tx_reblock)       /* GETs answered again in smaller blocks for the peer's Max-Message-Size */ \
    C(tx_too_big)       /* responses beyond the peer's Max-Message-Size (no block fits): 5.00 */  \
    C(obs_add)          /* observers registered */                                                 \
    C(obs_full)         /* registrations refused (every observer slot in use) */                   \
    C(obs_remove)       /* observers removed (GET without Observe, or the connection closed) */    \
    C(obs_notify)       /* notifications sent */                                                   \
    C(obs_deferred)     /* notifications delayed until the send buffer had room */

struct wren_coap_tcp_stats {
    WREN_COAP_TCP_COUNTERS(WREN_COUNTER_U32)
};

/** A connection (server- or client-side). */
struct wren_coap_tcp_conn {
    struct wren_sock_tcp *sock;    /**< a server's: the accepted one; a client's: made by its
                                        first connect (wren_node_mem), then kept */
    struct wren_coap_tcp *t;
    struct wren_timer timer;       /**< the CSM's deadline, then the idle check */
    uint64_t last_rx_us;           /**< when a message last came */
    struct wren_sock_udp_ep peer;  /**< its address and TCP port */
    uint32_t peer_mms;             /**< the peer's Max-Message-Size */
    uint8_t hdr[COAP_TCP_HDR_MAX]; /**< the header of the message being read */
    uint8_t have;                  /**< bytes of it in hdr */
    uint8_t state;                 /**< free, connecting, open (no CSM yet), ready */
    uint8_t client;                /**< we opened it */
    uint8_t peer_bwt;              /**< the peer's CSM offered block-wise transfers */
};

/** An observer over TCP (RFC 7641 with RFC 8323 7): one per connection and token. */
struct wren_coap_tcp_obs {
    const struct wren_coap_resource *res;
    uint32_t seq;
    uint8_t conn;                  /**< index in conns */
    uint8_t used;
    uint8_t dirty;                 /**< a notification is due */
    uint8_t tkl;
    int16_t accept;                /**< the registration's Accept, -1: none */
    uint8_t token[COAP_TOKEN_MAX];
};

/** The connections and observers, made by the first connection. */
struct wren_coap_tcp_conns {
    struct wren_coap_tcp_conn conns[WREN_COAP_TCP_NCONN]; /**< server's first, then client's */
    struct wren_coap_tcp_obs obs[CONFIG_WREN_COAP_TCP_OBSERVERS];
};

struct wren_coap_tcp {
    struct wren_module module;     /**< first: found through netreg for counters and shell */
    struct wren_coap_tcp_stats stats;
    struct wren_netreg_entry reg;
    struct wren_node *node;
    struct wren_coap *coap;        /**< the server whose resources are served */
    struct wren_sock_tcp_queue queue; /**< its sockets made on the first SYN that needs one */
#if !CONFIG_WREN_NODE_MEM
    struct wren_sock_tcp socks[WREN_COAP_TCP_NCONN]; /**< built in: server's, then client's */
#endif
    WREN_LAZY(struct wren_coap_tcp_conns, c); /**< made by the first connection (core/node.h) */
    uint8_t in_rx;                 /**< a received message is being handled */
    uint32_t ping_token;           /**< the last Ping's (wren_coap_tcp_ping()) */
    void *shell;                   /**< the shell waiting for its Pong */
};

/** netreg context the module registers under (type TCP), to be found. */
#define WREN_COAP_TCP_NETREG_CTX (0x10000u + COAP_PORT)

extern const struct wren_module_ops wren_coap_tcp_module;

/** The `coap_tcp` shell command (connections, ping, release). */
extern const struct wren_shell_cmd wren_coap_tcp_shell_cmds[];

/**
 * @brief Serve @p node's CoAP server (wren_coap_of(), started before) over
 *        TCP port 5683 in @p t.
 * @return 0, -ENOENT (no CoAP server), -EADDRINUSE, -ENOTSUP (no TCP
 *         layer), -errno of netreg.
 */
int wren_coap_tcp_init(struct wren_node *node, struct wren_coap_tcp *t);

/** @brief Stop: every connection is closed, the port too. */
void wren_coap_tcp_stop(struct wren_coap_tcp *t);

/** @brief The node's CoAP over TCP module, or NULL. */
struct wren_coap_tcp *wren_coap_tcp_of(struct wren_node *node);

/**
 * @brief Ping the server at @p to over the client's connection to it
 *        (RFC 8323 5.4), with Custody when @p custody; the Pong is counted.
 * @return 0, -ENOTCONN (no connection to it), -ENOBUFS.
 */
int wren_coap_tcp_ping(struct wren_coap_tcp *t, const struct wren_sock_udp_ep *to, bool custody);

/**
 * @brief Close the client's connection to @p to with a Release (RFC 8323
 *        5.5); its exchanges end with -ECONNRESET.
 * @return 0, -ENOTCONN.
 */
int wren_coap_tcp_close(struct wren_coap_tcp *t, const struct wren_sock_udp_ep *to);

/** (coap_client.c) Send exchange @p x over its connection, opening one when
 *  there is none. @return 0 (sent, or waiting for the connection), -ENOBUFS. */
int wren_coap_tcp_xchg_send(struct wren_coap *c, struct wren_coap_xchg *x);

#endif

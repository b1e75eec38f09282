/**
 * @file tcp.h
 * @brief The TCP layer (RFC 9293) over IPv6: connections, listeners, and the
 *        functions sock_tcp is built on.
 *
 * Features: the whole state machine (simultaneous open and close,
 * TIME-WAIT, RST handling), a sliding window of several segments, the MSS
 * option, RTT estimation and RTO with Karn's rule and exponential backoff
 * (RFC 6298), slow start, congestion avoidance, fast retransmit and fast
 * recovery (RFC 5681, NewReno RFC 6582), SACK as receiver and sender with a
 * scoreboard and pipe-based loss recovery (RFC 2018, RFC 6675), timestamps
 * with RTTM and PAWS (RFC 7323), delayed ACKs, out-of-order data kept in
 * place in the receive buffer with a bitmap, the persist timer (zero-window
 * probes), challenge ACKs (RFC 5961), ECN (RFC 3168, per connection),
 * keyed-hash initial sequence numbers (RFC 6528), optional keep-alive.
 * Window scaling is never offered, so a peer's offer is declined (RFC 7323
 * 1.3: both sides must send the option): buffers are small.
 *
 * Memory: the layer owns nothing per connection. A connection
 * (struct wren_tcp_conn) is given by its owner with its buffers
 * (wren_tcp_conn_init). A listener is a few words and a pool of connection
 * objects to accept into; half-open connections take a pool entry and the
 * oldest is reused when a SYN finds the pool full, so a SYN flood holds a
 * bounded amount of state and cannot lock out later clients. TIME-WAIT is
 * kept in a small table of the layer's (CONFIG_WREN_TCP_TIMEWAIT_SLOTS), so
 * a closed connection's memory is free at once.
 *
 * Messages: registered as (WREN_NETTYPE_TCP, ALL). RCV: a segment (TCP
 * header and payload) -> [IPv6 header] -> [netif]. Segments leave as SND
 * to (WREN_NETTYPE_IPV6, ALL). Data is copied into the receive buffer as it
 * arrives and the packet released at once; what is sent is built from the
 * send buffer, so no packet is held between events.
 *
 * Calls: the functions below are the transport's API (sock_tcp's, shells',
 * benchmarks'); they run in the node's context or its application threads
 * (never concurrently: the node is single-threaded).
 */
#ifndef WREN_TCP_TCP_H
#define WREN_TCP_TCP_H

#include "core/counters.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/config.h"
#include "core/module.h"
#include "core/node.h"
#include "core/timer.h"
#include "net/netreg.h"

/** Default MSS wren announces and uses (five 802.15.4 frames of payload
 *  after 6LoWPAN and TCP headers with timestamps, as in the TCP paper). */
#ifndef CONFIG_WREN_TCP_MSS
#define CONFIG_WREN_TCP_MSS 462
#endif
/** Delayed-ACK timeout, ms (RFC 9293 3.8.6.3: under 0.5 s). */
#ifndef CONFIG_WREN_TCP_DELACK_MS
#define CONFIG_WREN_TCP_DELACK_MS 100
#endif
/** RTO bounds, ms. RFC 6298 2.4 suggests 1 s as the minimum; like Linux and
 *  FreeBSD wren uses less, as low-power paths have RTTs of tens of ms. */
#ifndef CONFIG_WREN_TCP_RTO_MIN_MS
#define CONFIG_WREN_TCP_RTO_MIN_MS 200
#endif
#ifndef CONFIG_WREN_TCP_RTO_MAX_MS
#define CONFIG_WREN_TCP_RTO_MAX_MS 60000 /* at most 65,535 (16 bits) */
#endif
/** Initial RTO before any RTT sample (RFC 6298 2.1). */
#ifndef CONFIG_WREN_TCP_RTO_INIT_MS
#define CONFIG_WREN_TCP_RTO_INIT_MS 1000
#endif
/** Retransmissions of one segment before the connection is given up. */
#ifndef CONFIG_WREN_TCP_MAX_RETRIES
#define CONFIG_WREN_TCP_MAX_RETRIES 12
#endif
/** Retransmissions of a SYN or SYN-ACK before giving up. */
#ifndef CONFIG_WREN_TCP_SYN_RETRIES
#define CONFIG_WREN_TCP_SYN_RETRIES 5
#endif
/** User timeout (RFC 9293 3.8.3, RFC 5482), ms: a connection with data
 *  to deliver that makes no progress for this long (a silent peer, or a
 *  zero window held forever) is aborted with -ETIMEDOUT; 0 = never.
 *  wren_tcp_set_user_timeout() changes it at run time. */
#ifndef CONFIG_WREN_TCP_USER_TIMEOUT_MS
#define CONFIG_WREN_TCP_USER_TIMEOUT_MS 1200000u
#endif
/** TIME-WAIT duration, ms (2 MSL; Linux uses 60 s). */
#ifndef CONFIG_WREN_TCP_TIME_WAIT_MS
#define CONFIG_WREN_TCP_TIME_WAIT_MS 60000
#endif
/** Connections in TIME-WAIT the layer remembers (oldest evicted first). */
#ifndef CONFIG_WREN_TCP_TIMEWAIT_SLOTS
#define CONFIG_WREN_TCP_TIMEWAIT_SLOTS 4
#endif
/** SACK blocks the sender's scoreboard holds (a peer with timestamps
 *  reports at most three per segment). */
#ifndef CONFIG_WREN_TCP_SACK_BLOCKS
#define CONFIG_WREN_TCP_SACK_BLOCKS 3
#endif
/** Challenge ACKs per second, per layer (RFC 5961 7). */
#ifndef CONFIG_WREN_TCP_CHALLENGE_PER_S
#define CONFIG_WREN_TCP_CHALLENGE_PER_S 10
#endif

/** Connection states (RFC 9293 3.3.2). */
enum wren_tcp_state {
    WREN_TCP_CLOSED = 0,
    WREN_TCP_LISTEN,
    WREN_TCP_SYN_SENT,
    WREN_TCP_SYN_RECEIVED,
    WREN_TCP_ESTABLISHED,
    WREN_TCP_FIN_WAIT_1,
    WREN_TCP_FIN_WAIT_2,
    WREN_TCP_CLOSE_WAIT,
    WREN_TCP_CLOSING,
    WREN_TCP_LAST_ACK,
    WREN_TCP_TIME_WAIT,
};

/** Events given to a connection's callback. */
enum {
    WREN_TCP_EV_CONNECTED = 0x01, /**< handshake done (also for accepted ones) */
    WREN_TCP_EV_RECV = 0x02,      /**< data or the peer's FIN to read */
    WREN_TCP_EV_SEND = 0x04,      /**< room in the send buffer */
    WREN_TCP_EV_CLOSED = 0x08,    /**< gone: conn->err says why (0: closed normally) */
};

/** Per-connection options (wren_tcp_conn_init sets the defaults). */
enum {
    WREN_TCP_OPT_SACK = 0x01,      /**< offer SACK (default on) */
    WREN_TCP_OPT_TS = 0x02,        /**< offer timestamps (default on) */
    WREN_TCP_OPT_ECN = 0x04,       /**< ask for / accept ECN (default off) */
    WREN_TCP_OPT_NODELAY = 0x08,   /**< no Nagle (default off) */
    WREN_TCP_OPT_KEEPALIVE = 0x10, /**< keep-alive probes (default off) */
    WREN_TCP_OPT_NO_DELACK = 0x20, /**< acknowledge every segment at once */
};

struct wren_tcp_conn;
struct wren_tcp_listener;
typedef void (*wren_tcp_cb)(struct wren_tcp_conn *c, unsigned events, void *arg);
typedef void (*wren_tcp_listen_cb)(struct wren_tcp_listener *l, void *arg);
/** Make entry @p i of @p l's pool, which is NULL, on a SYN that finds no
 *  free one made: set conns[i] (initialised) and return it, or NULL. */
typedef struct wren_tcp_conn *(*wren_tcp_make_cb)(struct wren_tcp_listener *l, unsigned i);

/** A byte ring: the send buffer (unacknowledged and unsent bytes from
 *  SND.UNA on) or the receive buffer (unread bytes, then room in which
 *  out-of-order data waits, marked in the bitmap). */
struct wren_tcp_ring {
    uint8_t *buf;
    uint16_t size;
    uint16_t head; /**< index of the first byte */
    uint16_t len;  /**< bytes from head (send: unacked + unsent; recv: readable) */
};

#define WREN_TCP_COUNTERS(C)                                                                                       \
    C(rx_segs)                                                                                                     \
    C(rx_drop_csum)         /* checksum wrong */                                                                   \
    C(rx_drop_hdr)          /* malformed header or options */                                                      \
    C(rx_drop_no_conn)      /* no connection or listener (answered by RST) */                                      \
    C(rx_drop_seq)          /* outside the window (answered by an ACK) */                                          \
    C(rx_drop_ack)          /* acknowledges unsent data, or too old */                                             \
    C(rx_drop_paws)         /* old timestamp (RFC 7323 5) */                                                       \
    C(rx_ooo_segs)          /* kept out of order */                                                                \
    C(rx_dup_bytes)         /* bytes received twice */                                                             \
    C(rx_dup_acks)          /* duplicate ACKs (RFC 5681 2) */                                                      \
    C(rx_rst)               /* resets that closed a connection */                                                  \
    C(challenge_acks)       /* RFC 5961 challenge ACKs sent */                                                     \
    C(challenge_limited)    /* ... not sent: over the rate limit */                                                \
    C(ack_limited)          /* ACKs to unacceptable bare ACKs not sent: over the same limit (breaks ACK loops) */  \
    C(syn_drop_pool)        /* SYNs refused: listener pool exhausted */                                            \
    C(syn_evicted)          /* half-open connections reused for a newer SYN */                                     \
    C(tx_segs)                                                                                                     \
    C(tx_rexmt)             /* segments retransmitted (any reason) */                                              \
    C(tx_rst)                                                                                                      \
    C(tx_drop_nobufs)       /* segments not sent: packet buffer full */                                            \
    C(rto_expired)          /* retransmission timeouts */                                                          \
    C(fast_rexmt)           /* fast retransmits (recovery entered) */                                              \
    C(sack_rexmt)           /* retransmissions chosen by the SACK scoreboard */                                    \
    C(persist_probes)       /* zero-window probes */                                                               \
    C(keepalive_probes)                                                                                            \
    C(ecn_ce_rx)            /* CE-marked segments received */                                                      \
    C(ecn_reductions)       /* window reductions for ECE */                                                        \
    C(timewait_evicted)     /* TIME-WAIT entries reused early (or none: no memory for the table) */             \
    C(conn_timeouts)        /* connections given up (retries exhausted) */                                         \
    C(user_timeouts)        /* connections aborted by the user timeout */

struct wren_tcp_stats {
    WREN_TCP_COUNTERS(WREN_COUNTER_U32)
};

/** One connection's protocol state (RFC 9293 3.3.1 and the RFCs above):
 *  at most 256 bytes on a 32-bit MCU (`./wren bench tcp_sizes`). */
struct wren_tcp_conn {
    struct wren_tcp_conn *next;   /**< the layer's list, or the listener's pool */
    struct wren_tcp *tcp;
    struct wren_tcp_listener *listener; /**< the listener it belongs to, or NULL */
    wren_tcp_cb cb;
    void *cb_arg;
    struct wren_timer timer;      /**< at the earliest of the deadlines below */
    uint32_t t_rexmt;             /**< ms: retransmit / persist / keep-alive / SYN (TF_REXMT) */
    uint32_t t_delack;            /**< ms: delayed ACK (TF_DELACK) */
    struct wren_tcp_ring snd;
    struct wren_tcp_ring rcv;
    uint8_t *rcv_bitmap;          /**< one bit per receive-buffer byte: out-of-order data */

    uint8_t laddr[16], raddr[16];
    uint16_t lport, rport;
    uint16_t flags;               /**< TF_x, inside the layer */
    uint16_t rto_ms;              /**< retransmission timeout before backoff */
    uint8_t if_id;
    uint8_t state;                /**< enum wren_tcp_state */
    uint8_t opts;                 /**< WREN_TCP_OPT_x wanted */
    uint8_t retries;              /**< of the segment at SND.UNA (or the probe) */
    uint8_t dupacks;
    int8_t err;                   /**< why it closed: 0 or -errno */
    uint8_t n_sack;               /**< blocks in sack[] */
    uint8_t unacked_segs;         /**< full segments received since our last ACK */

    /* send sequence space */
    uint32_t iss, snd_una, snd_nxt, snd_max; /**< snd_max: highest sent + 1 */
    uint32_t snd_wl1, snd_wl2;
    uint16_t snd_wnd, max_snd_wnd;
    uint16_t mss;                 /**< send MSS (peer's option, our limit) */
    uint16_t rcv_mss;             /**< MSS we announce */
    /* receive sequence space */
    uint32_t rcv_nxt, rcv_adv;    /**< rcv_adv: right edge announced */
    uint32_t sack_rx_last;        /**< start of the latest out-of-order segment */
    /* congestion control */
    uint32_t cwnd, ssthresh, recover;
    uint32_t high_rxt;            /**< RFC 6675 HighRxt */
    uint32_t ecn_recover;         /**< no new ECE reduction before this is acked */
    uint32_t sack[CONFIG_WREN_TCP_SACK_BLOCKS][2]; /**< scoreboard: SACKed [l, r) */
    /* RTT */
    uint32_t srtt_us, rttvar_us;
    uint32_t progress_ms;         /**< last time SND.UNA moved (or data began to wait) */
    union {
        struct {                  /* with timestamps (and before the handshake ends) */
            uint32_t ts_recent, ts_offset;
        };
        struct {                  /* without: one timed segment at a time */
            uint32_t rtt_seq, rtt_start_ms;
        };
    };
};

/** A listening endpoint: a port, and a pool of connections to accept into. */
struct wren_tcp_listener {
    struct wren_tcp_listener *next;
    struct wren_tcp *tcp;
    struct wren_tcp_conn *const *conns; /**< the caller's: connections to accept into
                                             (NULL: not made yet, see make) */
    wren_tcp_listen_cb cb;        /**< a connection is ready to accept */
#if CONFIG_WREN_NODE_MEM
    wren_tcp_make_cb make;        /**< makes a NULL entry of conns on demand, or NULL */
#endif
    void *cb_arg;
    uint8_t laddr[16];            /**< :: = any */
    uint16_t lport;
    uint8_t if_id;                /**< 0 = any */
    uint8_t n;                    /**< entries in conns */
};

/** A connection in TIME-WAIT, kept by the layer. */
struct wren_tcp_tw {
    uint8_t laddr[16], raddr[16];
    uint16_t lport, rport;
    uint32_t snd_nxt, rcv_nxt, ts_recent, ts_offset;
    uint32_t expires_ms;      /**< 0 = free */
    uint8_t if_id, ts_ok;
};

/** The TIME-WAIT table. */
struct wren_tcp_tws {
    struct wren_tcp_tw e[CONFIG_WREN_TCP_TIMEWAIT_SLOTS];
};

/** The layer. */
struct wren_tcp {
    struct wren_module module;    /**< first */
    struct wren_netreg_entry reg;
    struct wren_node *node;
    struct wren_tcp_conn *conns;
    struct wren_tcp_listener *listeners;
    struct wren_timer tw_timer;   /**< expires TIME-WAIT entries */
    WREN_LAZY(struct wren_tcp_tws, tw); /**< made by the first connection to enter TIME-WAIT
                                             (core/node.h) */
    uint8_t isn_key[16];          /**< RFC 6528 secret */
    uint32_t user_timeout_ms;     /**< CONFIG_WREN_TCP_USER_TIMEOUT_MS unless set */
    uint32_t challenge_sec;       /**< second of the challenge-ACK budget */
    uint16_t challenge_left;
    struct wren_tcp_stats stats;
};

/** @brief Start the TCP layer of @p node (draws its ISN key from the node's PRNG). */
int wren_tcp_init(struct wren_node *node, struct wren_tcp *tcp);

/** @brief The TCP layer registered in @p node, or NULL. */
struct wren_tcp *wren_tcp_of(struct wren_node *node);

/**
 * @brief Prepare @p c (closed) with its buffers: @p snd of @p snd_size bytes,
 *        @p rcv of @p rcv_size bytes and @p bitmap of (rcv_size + 7) / 8.
 *        Sizes up to 65,535; the window announced is at most the receive
 *        buffer. Options default to SACK and timestamps.
 */
void wren_tcp_conn_init(struct wren_tcp_conn *c, uint8_t *snd, size_t snd_size, uint8_t *rcv,
                        uint8_t *bitmap, size_t rcv_size);

/** @brief Events of @p c go to @p cb(c, events, arg), in the node's context. */
void wren_tcp_set_cb(struct wren_tcp_conn *c, wren_tcp_cb cb, void *arg);

/**
 * @brief Open @p c actively to [@p raddr]:@p rport from local port @p lport
 *        (0: ephemeral) over interface @p if_id (0: by route).
 * @return 0 (SYN sent, or queued: WREN_TCP_EV_CONNECTED follows),
 *         -EISCONN (not closed), -EADDRINUSE, -EADDRNOTAVAIL (no source
 *         address), -EINVAL.
 */
int wren_tcp_connect(struct wren_tcp *tcp, struct wren_tcp_conn *c, const uint8_t *raddr,
                     uint16_t rport, uint16_t lport, uint8_t if_id);

/**
 * @brief Listen on [@p laddr]:@p lport (@p laddr NULL or :: = any address)
 *        with @p n connections (already wren_tcp_conn_init'ed) to accept into.
 *        Entries of @p conns may be NULL when the caller sets a make hook
 *        (wren_tcp_listen_set_make) right after: they are made on the first
 *        SYN that finds no free entry made (so that a listener that is never
 *        connected to costs no connection memory).
 * @return 0, -EADDRINUSE, -EINVAL.
 */
int wren_tcp_listen(struct wren_tcp *tcp, struct wren_tcp_listener *l, const uint8_t *laddr,
                    uint16_t lport, struct wren_tcp_conn *const *conns, unsigned n);

/** @brief Call @p cb(l, arg) when a connection is ready to accept. */
void wren_tcp_listen_set_cb(struct wren_tcp_listener *l, wren_tcp_listen_cb cb, void *arg);

#if CONFIG_WREN_NODE_MEM
/** @brief Make NULL entries of @p l's pool with @p make when a SYN needs one
 *         (only with CONFIG_WREN_NODE_MEM: a pool made on demand). */
void wren_tcp_listen_set_make(struct wren_tcp_listener *l, wren_tcp_make_cb make);
#endif

/** @brief An established connection of @p l not yet accepted, or NULL.
 *  It is the caller's until wren_tcp_release(), which gives it back to the
 *  listener's pool. Its options are those set on it before listening. */
struct wren_tcp_conn *wren_tcp_accept(struct wren_tcp_listener *l);

/** @brief Stop listening: half-open connections are reset, accepted ones
 *         are left alone, established ones not yet accepted are reset. */
void wren_tcp_unlisten(struct wren_tcp_listener *l);

/**
 * @brief Queue up to @p len bytes for sending, and send what the windows
 *        allow.
 * @return bytes taken (maybe fewer: the buffer is full; 0 if nothing fits),
 *         -ENOTCONN (not yet or no longer sending), -EPIPE (closed for
 *         sending), or conn->err.
 */
ssize_t wren_tcp_send(struct wren_tcp_conn *c, const void *data, size_t len);

/**
 * @brief As wren_tcp_send(), but more follows at once: nothing is sent yet
 *        (so a writer filling the buffer in pieces does not send a small
 *        first segment). End with wren_tcp_send(), with @p len 0 if need be.
 */
ssize_t wren_tcp_send_more(struct wren_tcp_conn *c, const void *data, size_t len);

/**
 * @brief Read up to @p max bytes.
 * @return bytes read, 0 at the end of the stream (the peer's FIN), -EAGAIN
 *         (nothing yet), -ENOTCONN, or conn->err after a reset.
 */
ssize_t wren_tcp_recv(struct wren_tcp_conn *c, void *buf, size_t max);

/** @brief Bytes readable now. */
size_t wren_tcp_readable(const struct wren_tcp_conn *c);
/** @brief Bytes the send buffer can take now. */
size_t wren_tcp_writable(const struct wren_tcp_conn *c);

/** @brief Close for sending: a FIN follows the queued data. Reading goes
 *         on until the peer's FIN. @return 0, or -ENOTCONN. */
int wren_tcp_shutdown(struct wren_tcp_conn *c);

/** @brief Send a RST and forget @p c at once (no event). */
void wren_tcp_abort(struct wren_tcp_conn *c);

/** @brief Forget @p c without sending anything (after CLOSED, or to
 *         reclaim it; a listener's connection goes back to its pool).
 *         Safe on a closed connection. */
void wren_tcp_release(struct wren_tcp_conn *c);

/** @brief Set WREN_TCP_OPT_x of @p c (before connect, or any time for
 *         NODELAY/KEEPALIVE/NO_DELACK). */
void wren_tcp_set_opts(struct wren_tcp_conn *c, uint8_t opts);

/** @brief Set the MSS @p c announces (and uses at most): 1..1,220 bytes. */
void wren_tcp_set_mss(struct wren_tcp_conn *c, uint16_t mss);

/** @brief Set the user timeout of @p tcp's connections, ms (0: none). */
void wren_tcp_set_user_timeout(struct wren_tcp *tcp, uint32_t ms);

/** @brief The state's name ("ESTABLISHED", ...). */
const char *wren_tcp_state_name(uint8_t state);

/** The module, for the stack assembly (src/stack/stack.h). */
extern const struct wren_module_ops wren_tcp_module;

#endif

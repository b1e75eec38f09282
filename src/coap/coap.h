/**
 * @file coap.h
 * @brief CoAP server (RFC 7252) on sock_udp: resources registered by path
 *        and handler, piggybacked and NON responses, duplicate detection
 *        with replayed responses, option rules, `/.well-known/core` (RFC
 *        6690) and Block2 (RFC 7959) for representations of any size.
 *
 * The server is a module (`wren_coap_module`, in the stack's module list),
 * so every node serves port 5683 with its default resources (`/counter`,
 * `/stats`, `/pattern`; CONFIG_WREN_COAP_DEFAULT_RESOURCES) beside what the
 * application adds:
 * @code
 *   static void temp_get(struct wren_coap *c, const struct wren_coap_req *req,
 *                        struct wren_coap_resp *resp, void *arg)
 *   {
 *       wren_coap_resp_write(resp, "21.5", 4);   // the whole representation
 *   }
 *   static const struct wren_coap_resource temp = {
 *       .path = "/sensors/temp", .methods = WREN_COAP_GET, .cf = COAP_CF_TEXT,
 *       .handler = temp_get,
 *   };
 *   wren_coap_resource_add(wren_coap_of(node), &temp);
 * @endcode
 *
 * A handler writes its whole representation with wren_coap_resp_write(); the
 * server keeps only the window the request asked for (its Block2 block, or
 * the first block when the representation does not fit one message), so a
 * resource larger than any buffer is served block by block without memory
 * of its own (the `/stats` resource streams the node's counters this way).
 *
 * Before a handler runs, the server refuses (each counted): an unrecognized
 * critical option (4.02), Block1/Block2 with SZX 7 (4.00), a proxy request
 * (5.05), an unknown path (4.04), a method not allowed (4.05), an Accept the
 * resource cannot produce, whatever the method (4.06: `cf`/`cfs`), a POST or
 * PUT in a Content-Format it does not take (4.15: `accepts`), a body in
 * blocks for a resource without `block1` and a datagram beyond
 * CONFIG_WREN_COAP_MSG_MAX (4.13 with Size1). After a GET's handler, an ETag
 * it gives that the request listed turns the answer into 2.03 Valid.
 *
 * Message handling (RFC 7252 4): a CON request gets a piggybacked ACK, a NON
 * request a NON response; an empty CON (ping) gets a RST; a malformed CON
 * is rejected with a RST, anything else malformed is dropped. Duplicates
 * (same endpoint and message ID within EXCHANGE_LIFETIME, NON_LIFETIME for
 * NON): a CON's get the stored response again (a response too large to
 * store is recomputed for idempotent methods, and the duplicate is dropped,
 * counted, for POST), a NON's are ignored. The cache (CONFIG_WREN_COAP_DEDUP
 * slots) must remember the responses to CONs of POST and PATCH for
 * EXCHANGE_LIFETIME; the others (idempotent methods, NONs) it remembers
 * while there is room. A client has one outstanding request at a time
 * (NSTART 1), so its new request ends its older exchanges: a full cache
 * gives a new request the slot of its own endpoint's oldest exchange, else
 * of an exchange whose endpoint has a newer one (a block-wise transfer of
 * many requests holds one slot), else of the oldest idempotent or NON one.
 * When every slot holds a live POST/PATCH response of another client, an
 * idempotent or NON request is served without a slot (executing its
 * duplicate again is harmless, RFC 7252 4.5), and a POST/PATCH CON is
 * answered 5.03 with a Max-Age of the seconds until the oldest expires, and
 * not executed. Every drop, eviction and refusal is counted.
 */
#ifndef WREN_COAP_COAP_H
#define WREN_COAP_COAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/counters.h"
#include "core/module.h"
#include "core/node.h"
#include "core/timer.h"
#include "net/netreg.h"
#include "sock/sock_udp.h"
#include "wire/coap.h"

/** Resources an application can add (besides the default ones). */
#ifndef CONFIG_WREN_COAP_RESOURCES
#define CONFIG_WREN_COAP_RESOURCES 8
#endif
/** Largest message received or sent, bytes (RFC 7252 4.6: 1152 fits any IPv6 path).
 *  The server keeps one receive and one send buffer of this size. */
#ifndef CONFIG_WREN_COAP_MSG_MAX
#define CONFIG_WREN_COAP_MSG_MAX 1152
#endif
/** Exchanges remembered for duplicate detection (100 bytes each): the
 *  responses to CONs of POST/PATCH for EXCHANGE_LIFETIME, others while there
 *  is room. More clients POSTing within that time than slots get 5.03.
 *  0: the duplicate cache is left out (as RIOT's gcoap has none): every
 *  duplicate is executed again, so handlers must be idempotent, POST too. */
#ifndef CONFIG_WREN_COAP_DEDUP
#define CONFIG_WREN_COAP_DEDUP 6
#endif
/** Bytes of a response the cache keeps to replay (larger ones are recomputed
 *  for idempotent requests). */
#ifndef CONFIG_WREN_COAP_DEDUP_BYTES
#define CONFIG_WREN_COAP_DEDUP_BYTES 64
#endif
/** RFC 7252 4.8.2 EXCHANGE_LIFETIME and NON_LIFETIME with the default
 *  transmission parameters, ms. */
#ifndef CONFIG_WREN_COAP_EXCHANGE_LIFETIME_MS
#define CONFIG_WREN_COAP_EXCHANGE_LIFETIME_MS 247000u
#endif
#ifndef CONFIG_WREN_COAP_NON_LIFETIME_MS
#define CONFIG_WREN_COAP_NON_LIFETIME_MS 145000u
#endif
/** Serve `/counter`, `/stats`, `/pattern` and `/slow` on every node. */
#ifndef CONFIG_WREN_COAP_DEFAULT_RESOURCES
#define CONFIG_WREN_COAP_DEFAULT_RESOURCES 1
#endif

/** Resources every node serves (`/counter`, `/stats`, `/pattern`, `/slow`). */
#define WREN_COAP_N_DEFAULT (CONFIG_WREN_COAP_DEFAULT_RESOURCES ? 4 : 0)
/** Size of `/pattern` until a PUT changes it, bytes. */
#ifndef CONFIG_WREN_COAP_PATTERN_LEN
#define CONFIG_WREN_COAP_PATTERN_LEN 16384u
#endif

/** Build the client (wren_coap_request() and the responses it waits for);
 *  0: a server only, and --gc-sections drops src/coap/coap_client.c. */
#ifndef CONFIG_WREN_COAP_CLIENT
#define CONFIG_WREN_COAP_CLIENT 1
#endif
/** Client requests over TCP (RFC 8323, through coap/coap_tcp.h: rq->tcp);
 *  0: UDP only, and the client no longer links the CoAP-over-TCP module. */
#ifndef CONFIG_WREN_COAP_CLIENT_TCP
#define CONFIG_WREN_COAP_CLIENT_TCP 1
#endif
/** Client requests outstanding at once. */
#ifndef CONFIG_WREN_COAP_CLIENT_XCHG
#define CONFIG_WREN_COAP_CLIENT_XCHG 2
#endif
/** Bytes of a client request kept for retransmission (and the next block). */
#ifndef CONFIG_WREN_COAP_CLIENT_MSG_MAX
#define CONFIG_WREN_COAP_CLIENT_MSG_MAX 256
#endif
/** RFC 7252 4.8 transmission parameters (wren_coap_set_tx_params()). */
#ifndef CONFIG_WREN_COAP_ACK_TIMEOUT_MS
#define CONFIG_WREN_COAP_ACK_TIMEOUT_MS 2000u
#endif
#ifndef CONFIG_WREN_COAP_ACK_RANDOM_FACTOR_PERMILLE
#define CONFIG_WREN_COAP_ACK_RANDOM_FACTOR_PERMILLE 1500u
#endif
#ifndef CONFIG_WREN_COAP_MAX_RETRANSMIT
#define CONFIG_WREN_COAP_MAX_RETRANSMIT 4u
#endif

/** Block1 uploads the server follows at once (one per endpoint and resource);
 *  0: the server takes no bodies in several blocks (4.13, RFC 7959 2.9.3). */
#ifndef CONFIG_WREN_COAP_BLOCK1
#define CONFIG_WREN_COAP_BLOCK1 2
#endif

/** Separate responses the server keeps at once (RFC 7252 5.2.2): requests a
 *  handler deferred with wren_coap_resp_defer() (1..8); 0: none, the feature
 *  is left out (wren_coap_resp_defer() is always -ENOSPC: answer now), and
 *  with it the leisure of multicast answers (CONFIG_WREN_COAP_MULTICAST). */
#ifndef CONFIG_WREN_COAP_SEPARATE
#define CONFIG_WREN_COAP_SEPARATE 2
#endif
/** Bytes of a separate response kept for its retransmission. */
#ifndef CONFIG_WREN_COAP_SEPARATE_BYTES
#define CONFIG_WREN_COAP_SEPARATE_BYTES 128
#endif
/** The default resource `/slow` answers GETs this long after them, as
 *  separate responses, ms. */
#ifndef CONFIG_WREN_COAP_SLOW_MS
#define CONFIG_WREN_COAP_SLOW_MS 1000u
#endif

/** RFC 7252 8.2 DEFAULT_LEISURE: a response to a multicast request waits a
 *  random time up to this, ms. */
#ifndef CONFIG_WREN_COAP_LEISURE_MS
#define CONFIG_WREN_COAP_LEISURE_MS 5000u
#endif

/** How long the client takes responses to a multicast request (RFC 7252
 *  8.2: they come up to the servers' leisure late), ms; a request's
 *  mc_wait_ms overrides it. */
#ifndef CONFIG_WREN_COAP_MCAST_WAIT_MS
#define CONFIG_WREN_COAP_MCAST_WAIT_MS (CONFIG_WREN_COAP_LEISURE_MS + 1000u)
#endif

/** Serve representations larger than a message (or than the block a
 *  request asks for) in Block2 blocks (RFC 7959 2.4); 0: the feature is
 *  left out: Block2 in a request is an unrecognized critical option (4.02,
 *  RST for a NON), a representation beyond a message is answered 5.00
 *  (resp_too_large) and ends its observations (RFC 7641 3.2). */
#ifndef CONFIG_WREN_COAP_BLOCK2
#define CONFIG_WREN_COAP_BLOCK2 1
#endif

/** Answer requests to a multicast group (RFC 7252 8.2: All CoAP Nodes
 *  joined, answers after a leisure, errors and empty results not sent);
 *  0: the feature is left out: no group is joined and a datagram to any
 *  multicast address is dropped (mc_drop). Needs separate-response slots
 *  for the leisure (without them every multicast answer is mc_busy). */
#ifndef CONFIG_WREN_COAP_MULTICAST
#define CONFIG_WREN_COAP_MULTICAST 1
#endif

/** Filter `/.well-known/core` by its Uri-Query (RFC 6690 4.1: href, ct,
 *  obs and the resources' attributes); 0: the feature is left out, the
 *  query is ignored and every link listed (RFC 6690 4.1 makes filtering
 *  optional). */
#ifndef CONFIG_WREN_COAP_LF_FILTERS
#define CONFIG_WREN_COAP_LF_FILTERS 1
#endif

/** Observers the server keeps (RFC 7641), all resources together. */
#ifndef CONFIG_WREN_COAP_OBSERVERS
#define CONFIG_WREN_COAP_OBSERVERS 4
#endif
/** At least one notification in this interval is sent CON (RFC 7641 4.5:
 *  24 hours), ms; wren_coap_set_obs_con_ms() changes it (0: always CON). */
#ifndef CONFIG_WREN_COAP_OBS_CON_MS
#define CONFIG_WREN_COAP_OBS_CON_MS (24u * 3600u * 1000u)
#endif

/** Bytes of Location-Path and Location-Query options a response can carry
 *  (wren_coap_resp's location_path/location_query, encoded). */
#ifndef CONFIG_WREN_COAP_LOCATION_ROOM
#define CONFIG_WREN_COAP_LOCATION_ROOM 32
#endif

/** Room the server keeps before a response's payload for its header, token
 *  and options (ETag, Observe, Content-Format, Max-Age, Block2, Block1, Size2
 *  and the marker need at most 48 bytes, as do ETag, Max-Age and Size1 of a
 *  4.13; the Location options the rest). */
#define WREN_COAP_RESP_HDR_ROOM (48 + CONFIG_WREN_COAP_LOCATION_ROOM)

_Static_assert(CONFIG_WREN_COAP_MSG_MAX >= WREN_COAP_RESP_HDR_ROOM + 16 &&
                   CONFIG_WREN_COAP_MSG_MAX <= 65507,
               "CONFIG_WREN_COAP_MSG_MAX: room for a 16-byte block, at most a UDP payload");
_Static_assert(CONFIG_WREN_COAP_DEDUP <= 255, "CONFIG_WREN_COAP_DEDUP: 0..255");
_Static_assert(CONFIG_WREN_COAP_RESOURCES <= 255, "CONFIG_WREN_COAP_RESOURCES: 0..255");
_Static_assert(CONFIG_WREN_COAP_SEPARATE <= 8, "CONFIG_WREN_COAP_SEPARATE: 0..8");
_Static_assert(CONFIG_WREN_COAP_SEPARATE_BYTES >= COAP_HDR_LEN + COAP_TOKEN_MAX + 4 &&
                   CONFIG_WREN_COAP_SEPARATE_BYTES <= 1024,
               "CONFIG_WREN_COAP_SEPARATE_BYTES: a header with token and Content-Format, at most 1024");

/** Methods a resource allows (bit 1 << code: GET 1 .. DELETE 4). */
enum {
    WREN_COAP_GET = 1 << COAP_CODE_GET,
    WREN_COAP_POST = 1 << COAP_CODE_POST,
    WREN_COAP_PUT = 1 << COAP_CODE_PUT,
    WREN_COAP_DELETE = 1 << COAP_CODE_DELETE,
};

#define WREN_COAP_COUNTERS(C)                                                                      \
    C(rx)               /* datagrams received on port 5683 */                                      \
    C(rx_drop_format)   /* malformed messages (RFC 7252 3, 4.1); CONs answered with RST */         \
    C(rx_drop_big)      /* datagrams longer than CONFIG_WREN_COAP_MSG_MAX (requests: 4.13) */     \
    C(rx_ping)          /* empty CONs answered with RST */                                         \
    C(rx_ack)           /* ACKs received */                                                        \
    C(rx_rst)           /* RSTs received */                                                        \
    C(rx_drop_unexpected) /* empty NONs, reserved code classes (CONs get a RST) */                      \
    C(rx_dup)           /* duplicate CONs answered with the stored response */                     \
    C(rx_dup_non)       /* duplicate NONs ignored (RFC 7252 4.5) */                                \
    C(rx_dup_redo)      /* duplicates of idempotent requests whose response was too large to keep */ \
    C(rx_dup_drop)      /* duplicate POSTs whose response was too large to keep */                 \
    C(req)              /* requests executed */                                                    \
    C(req_busy)         /* POST/PATCH CONs refused with 5.03: every cache slot holds a live one */ \
    C(dedup_evicted)    /* live exchanges the cache gave up for a new one (see above) */          \
    C(dedup_unstored)   /* idempotent or NON requests served without a slot: cache full */       \
    C(req_bad_option)   /* 4.02: unrecognized critical option, Block2 beyond the end, or a
                           later block of a POST/PUT answer its resource cannot write again */ \
    C(req_rst)          /* NON requests rejected (unrecognized critical option) with RST */        \
    C(req_proxy)        /* 5.05: Proxy-Uri / Proxy-Scheme */                                       \
    C(req_not_found)    /* 4.04 */                                                                 \
    C(req_not_allowed)  /* 4.05 */                                                                 \
    C(req_not_acceptable) /* 4.06: Accept names a format the resource cannot produce */           \
    C(req_bad_szx)      /* 4.00: Block1 or Block2 with the reserved SZX 7 (RFC 7959 2.2) */    \
    C(req_valid)        /* 2.03 without payload: a GET's ETag was the current one (5.10.6) */ \
    C(req_unsupported_cf) /* 4.15: a POST/PUT payload in a format the resource does not take */      \
    C(req_incomplete)   /* 4.08: a Block1 block out of sequence */                                 \
    C(req_too_large)    /* 4.13 with Size1: a body in blocks for a resource that takes none,     \
                           or a request beyond CONFIG_WREN_COAP_MSG_MAX (also rx_drop_big) */     \
    C(req_block1_busy)  /* 5.03: every Block1 upload slot in use */                                \
    C(resp_too_large)   /* 5.00: a POST/PUT answer beyond a block, its resource not `replays` */     \
    C(req_block2_later) /* later Block2 blocks of a POST/PUT answer written again, not executed */ \
    C(sep_defer)        /* requests answered with an empty ACK (CON) or later (NON): separate */   \
    C(sep_full)         /* deferrals refused: every separate-response slot in use */               \
    C(sep_sent)         /* separate responses sent */                                              \
    C(sep_retx)         /* ... CON ones retransmitted */                                           \
    C(sep_timeout)      /* ... CON ones never acknowledged (given up after MAX_RETRANSMIT) */      \
    C(sep_rst)          /* ... CON ones answered with RST */                                       \
    C(mc_req)           /* requests to all-CoAP-nodes (ff02::fd, ff05::fd) or another group */      \
    C(mc_drop)          /* multicast messages a unicast one would have had a RST for, CONs */       \
    C(mc_quiet)         /* multicast requests not answered: an error or an empty result */          \
    C(mc_busy)          /* multicast responses dropped: no slot to wait the leisure in */           \
    C(obs_add)          /* observers registered */                                                 \
    C(obs_full)         /* registrations refused (every observer slot in use): no Observe */       \
    C(obs_remove)       /* observers removed by a GET without Observe or with Observe 1 */         \
    C(obs_notify)       /* notifications sent */                                                   \
    C(obs_con)          /* ... of them CON */                                                      \
    C(obs_rst)          /* observers removed by a RST to a notification */                         \
    C(obs_timeout)      /* observers removed: a CON notification never acknowledged */             \
    C(cl_obs_stale)     /* client: notifications older than the newest (RFC 7641 3.4) dropped */   \
    C(tx)               /* messages sent */                                                        \
    C(tx_drop)          /* sends that failed (packet buffer or queue full) */                      \
    C(cl_req)           /* client: requests sent (each block counts) */                            \
    C(cl_retx)          /* client: CON retransmissions */                                          \
    C(cl_timeout)       /* client: requests given up (no ACK or response in time) */               \
    C(cl_rst)           /* client: requests answered with RST */                                   \
    C(cl_resp)          /* client: responses matched to a request */                               \
    C(cl_separate)      /* client: empty ACKs (a separate response follows) */                     \
    C(cl_busy)          /* client: requests refused, every exchange in use */                      \
    C(rx_drop_unmatched) /* responses, ACKs, RSTs that match no request (CONs get a RST) */ \
    WREN_COAP_COUNTERS_MEM(C)

/* with state made on first use (core/config.h CONFIG_WREN_NODE_MEM) */
#if CONFIG_WREN_NODE_MEM
#define WREN_COAP_COUNTERS_MEM(C) \
    C(no_mem)           /* messages dropped, requests refused: no memory for the state \
                           made on first use (wren_node_mem) */
#else
#define WREN_COAP_COUNTERS_MEM(C)
#endif

struct wren_coap_stats {
    WREN_COAP_COUNTERS(WREN_COUNTER_U32)
};

struct wren_coap;

/** A request, as a handler sees it. */
struct wren_coap_req {
    const struct coap_msg *msg;       /**< the whole message (options: wren_coap_opt_*) */
    struct wren_sock_udp_ep remote;
    uint8_t method;                   /**< COAP_CODE_GET .. COAP_CODE_DELETE */
    int32_t cf;                       /**< Content-Format of the payload, -1 when absent */
    int32_t accept;                   /**< Accept, -1 when absent */
    const uint8_t *payload;
    size_t payload_len;
    /* Block1 (RFC 7959 2.5), for resources with block1 set: this payload is
     * the body's bytes from block_off on; more follow when block_more. The
     * server checks the sequence (4.08 when broken) and answers the blocks
     * before the last 2.31 Continue unless the handler sets an error; the
     * handler changes its resource only on the last (atomic). */
    size_t block_off;
    bool block_more;
    uint32_t size1;                   /**< Size1 the client announced, 0 when absent */
    /* A later block (Block2 NUM > 0, RFC 7959 2.6) of the response to a
     * POST or PUT, for resources with `replays` set: the handler writes
     * again the representation of its last response to this client, and
     * executes nothing (the request has no body). */
    bool again;
    uint32_t block2;                  /**< the request's Block2 value + 1, 0: none */
    /* A notification the server makes for an observer (RFC 7641 4.2), over
     * UDP or TCP: no request came, msg is a stand-in GET with the
     * registration's token and no options. */
    bool notify;
};

/** A response under construction. */
struct wren_coap_resp {
    uint8_t code;          /**< preset: 2.05 for GET, 2.04 PUT/POST, 2.02 DELETE */
    int32_t cf;            /**< Content-Format, -1: none (preset: the resource's) */
    uint32_t max_age;      /**< sent when has_max_age */
    uint8_t has_max_age;
    uint8_t etag_len;      /**< 0: no ETag */
    uint8_t etag[8];
    /* RFC 7252 5.10.7: where a POST (or PUT) created the resource: "/a/b"
     * as Location-Path options and "k=v&x" as Location-Query options (NULL:
     * none; static strings). Encoded beyond CONFIG_WREN_COAP_LOCATION_ROOM,
     * the response becomes 5.00. */
    const char *location_path;
    const char *location_query;
    /* with 4.13: the largest body the resource takes, sent as Size1 (RFC
     * 7252 5.9.2.9, RFC 7959 4); 0: none. The server sets it for the 4.13s
     * it makes itself (a request beyond CONFIG_WREN_COAP_MSG_MAX, a body in
     * blocks for a resource without `block1`). */
    uint32_t size1;
    /* the window of the representation that goes into this message */
    uint8_t *buf;
    size_t off;            /**< representation byte where buf starts */
    size_t max;            /**< bytes buf holds */
    size_t pos;            /**< representation bytes written so far (its size at the end) */
};

typedef void (*wren_coap_handler)(struct wren_coap *c, const struct wren_coap_req *req,
                                  struct wren_coap_resp *resp, void *arg);

/** A resource (the application's memory, static, for as long as it is added). */
struct wren_coap_resource {
    const char *path;       /**< "/a/b": one Uri-Path option per segment */
    uint8_t methods;        /**< WREN_COAP_GET | ... */
    int16_t cf;             /**< the format it answers in (ct= in link format; with cfs, the
                                 one when the request has no Accept), or -1 */
    /** Formats the resource can produce, ended by -1; NULL: just `cf`. A
     *  request of any method whose Accept is not among them (or not `cf`
     *  when NULL and cf >= 0) gets 4.06 and its handler is not called
     *  (RFC 7252 5.10.4). The handler reads req->accept (or -1) and sets
     *  resp->cf to the one it produces (preset: the Accept when it is among
     *  them, else `cf`). ct= in link format lists all of them. */
    const int16_t *cfs;
    /** Content-Formats taken in POST/PUT payloads, ended by -1; NULL: any.
     *  A POST or PUT with another Content-Format gets 4.15 and its handler is
     *  not called (RFC 7252 5.10.3, 5.9.2.10); one without Content-Format is
     *  left to the handler. */
    const int16_t *accepts;
    bool observable;        /**< listed with `obs` */
    bool block1;            /**< takes bodies in Block1 blocks (its handler reads
                                 block_off/block_more); others answer a body of
                                 several blocks with 4.13 */
    /** Its answer to a POST or PUT can be larger than a message: the
     *  handler, called with req->again, writes that representation again
     *  (deterministically, changing nothing) for the later Block2 blocks
     *  (RFC 7959 2.6). Without it such an answer is 5.00 (resp_too_large)
     *  and a POST/PUT asking for a later block 4.02, neither executed twice. */
    bool replays;
    const char *attrs;      /**< more link-format attributes (";rt=\"x\""), or NULL */
    wren_coap_handler handler;
    void *arg;
};

/** A Block1 upload in progress (RFC 7959 2.5). */
struct wren_coap_block1 {
    const struct wren_coap_resource *res;
    uint8_t addr[16];
    uint16_t port;
    uint8_t szx;
    uint8_t used;
    uint32_t next;          /**< the block number expected next */
    uint32_t t_ms;          /**< when the last block came */
};

/** A request whose response follows later (RFC 7252 5.2.2). */
struct wren_coap_sep {
    struct wren_timer timer;           /**< a CON response's retransmission */
    struct wren_coap *c;
    struct wren_sock_udp_ep ep;
    uint32_t timeout_ms;
    uint16_t mid;                      /**< the response's message ID (once sent) */
    uint16_t len;                      /**< bytes of msg */
    uint8_t token[COAP_TOKEN_MAX];
    uint8_t tkl;
    uint8_t state;                     /**< 0: free, 1: the handler's, 2: CON sent, unacknowledged,
                                            3: a multicast request's response in its leisure */
    uint8_t con;                       /**< the request was CON: so is the response */
    uint8_t retx;
    uint32_t block2;                   /**< the request's Block2 value + 1, 0: none */
    uint8_t msg[CONFIG_WREN_COAP_SEPARATE_BYTES];
};

/** An observer (RFC 7641 4.1): one per endpoint and token. */
struct wren_coap_observer {
    struct wren_timer timer;           /**< a CON notification's retransmission */
    struct wren_coap *c;
    const struct wren_coap_resource *res;
    struct wren_sock_udp_ep ep;
    uint32_t last_con_ms;              /**< when a CON notification was last acknowledged */
    uint32_t timeout_ms;
    uint16_t mid;                      /**< the last notification's message ID */
    uint8_t token[COAP_TOKEN_MAX];
    uint8_t tkl;
    uint8_t used;
    int16_t accept;                    /**< the registration's Accept, -1: none */
    uint8_t con_pending;               /**< a CON notification awaits its ACK */
    uint8_t dirty;                     /**< the state changed meanwhile */
    uint8_t retx;
    uint8_t had_con;
};

struct wren_coap_dedup {
    uint8_t addr[16];
    uint16_t port;
    uint16_t mid;
    uint32_t t_ms;          /**< when it was stored (node time, ms, wraps) */
    uint32_t seq;           /**< order of storing (ties in time are common) */
    uint16_t len;           /**< response bytes stored; 0: none sent yet */
    uint8_t used;
    uint8_t non;            /**< a NON exchange (NON_LIFETIME) */
    uint8_t stored;         /**< resp holds the response */
    uint8_t idempotent;
    uint8_t resp[CONFIG_WREN_COAP_DEDUP_BYTES];
};

/** A client request (wren_coap_request()). */
struct wren_coap_client_req {
    uint8_t method;           /**< COAP_CODE_GET .. COAP_CODE_DELETE */
    bool non;                 /**< send NON (no retransmission); a request to a multicast
                                   address must be NON (RFC 7252 8.1) */
    uint32_t mc_wait_ms;      /**< to a multicast address: how long responses are taken,
                                   0: CONFIG_WREN_COAP_MCAST_WAIT_MS */
    bool tcp;                 /**< CoAP over TCP (RFC 8323) to the endpoint's TCP port, on a
                                   connection of coap/coap_tcp.h (opened when there is
                                   none; non is then meaningless) */
    bool observe;             /**< register as an observer (RFC 7641): notifications reach
                                   the callback with status 1 until wren_coap_cancel() */
    const char *path;         /**< "/a/b" (NULL or "/": none) */
    const char *query;        /**< "k=v&x" (one Uri-Query per '&' part), or NULL */
    int32_t cf;               /**< Content-Format of the payload, -1: none */
    int32_t accept;           /**< Accept, -1: none */
    uint16_t block2_size;     /**< Block2 size asked for on the first request (16..1024),
                                   0: none */
    uint16_t block1_size;     /**< send the body in Block1 blocks of this size (16..1024);
                                   0: only when it does not fit a message, in the
                                   largest blocks that fit CONFIG_WREN_COAP_CLIENT_MSG_MAX */
    const void *payload;      /**< the body (kept by pointer until the exchange ends when
                                   sent in blocks), or NULL with @p source */
    size_t len;               /**< its length */
    /** Instead of @p payload: writes up to @p max bytes of the body from @p off
     *  into @p buf and returns how many (a body larger than any buffer). */
    size_t (*source)(void *arg, size_t off, uint8_t *buf, size_t max);
    void *source_arg;
};

/**
 * What a request's callback gets: @p status 1 with a block of a block-wise
 * response (more follow: the client asks for them itself), 0 with the
 * final response, or -ETIMEDOUT (no ACK after MAX_RETRANSMIT, or no
 * response), -ECONNREFUSED (RST), -ENOBUFS (the next block could not be
 * sent), with @p resp NULL. The exchange is over after a status <= 0.
 * A request to a multicast address (RFC 7252 8.1) gets status 1 with each
 * response as it comes, from any unicast source with the request's token
 * (wren_coap_resp_from() names it), then 0 with @p resp NULL when the wait
 * is over; Block2 in those responses is not followed.
 */
typedef void (*wren_coap_resp_cb)(struct wren_coap *c, int status, const struct coap_msg *resp,
                                  void *arg);

struct wren_coap_xchg {
    struct wren_timer timer;
    struct wren_coap *c;
    struct wren_sock_udp_ep to;
    wren_coap_resp_cb cb;
    void *arg;
    uint32_t timeout_ms;     /**< the current retransmission timeout */
    uint16_t mid;
    uint16_t len;            /**< bytes of msg */
    uint8_t used;
    uint8_t state;           /**< waiting for the ACK, or for a separate response */
    uint8_t retx;
    uint8_t non;
    uint8_t tcp;             /**< over TCP: 1 waiting for the connection, 2 sent */
    uint8_t mcast;           /**< sent to a multicast group: answers from anyone, until
                                  timeout_ms (the wait) ends */
    uint8_t token[4];
    uint8_t observe;         /**< an observation (stays after its first response) */
    uint8_t observing;       /**< ... registered: notifications are taken */
    uint8_t obs_blk;         /**< ... the rest of a notification's Block2 blocks is being fetched */
    uint8_t blk_token[4];    /**< ... with requests of this token */
    uint32_t obs_seq;        /**< the newest notification's sequence number */
    uint32_t obs_ms;         /**< and when it came */
    uint8_t b1_szx;          /**< Block1 size while a body goes in blocks */
    uint8_t b1;              /**< the body goes in Block1 blocks */
    uint32_t b1_num;         /**< the block in flight */
    const uint8_t *body;
    size_t body_len;
    size_t (*source)(void *arg, size_t off, uint8_t *buf, size_t max);
    void *source_arg;
    uint8_t msg[CONFIG_WREN_COAP_CLIENT_MSG_MAX];
};

/** The shell's `coap get/...` request in progress (src/coap/coap_shell.c). */
struct wren_coap_shell_req {
    size_t len;          /**< payload bytes so far */
    uint32_t fnv;        /**< FNV-1a of them */
    uint8_t code;
    uint8_t active;
    uint8_t printable;
    uint8_t text_len;
    uint8_t observe;     /**< an observation: a line per notification */
    uint8_t mcast;       /**< to a group: a line per answer, with its source */
    int8_t x;            /**< its exchange */
    char text[65];       /**< the first bytes */
};

/** The server's state for messages, made by the first message that comes
 *  (WREN_LAZY, core/node.h): a node that never hears CoAP has none. */
struct wren_coap_srv {
#if CONFIG_WREN_COAP_DEDUP
    struct wren_coap_dedup dedup[CONFIG_WREN_COAP_DEDUP];
#endif
    struct wren_coap_block1 block1[CONFIG_WREN_COAP_BLOCK1 ? CONFIG_WREN_COAP_BLOCK1 : 1];
    struct wren_coap_observer obs[CONFIG_WREN_COAP_OBSERVERS];
#if CONFIG_WREN_COAP_SEPARATE
    struct wren_coap_sep sep[CONFIG_WREN_COAP_SEPARATE];
#endif
    uint8_t rx[CONFIG_WREN_COAP_MSG_MAX]; /**< one message in ... */
    uint8_t tx[CONFIG_WREN_COAP_MSG_MAX]; /**< ... and one out at a time */
};

/** The client's exchanges, made by its first request (WREN_LAZY). */
struct wren_coap_cl {
    struct wren_coap_xchg xchg[CONFIG_WREN_COAP_CLIENT_XCHG];
};

/* The resource table with CONFIG_WREN_NODE_MEM: the first WREN_COAP_N_INLINE
 * entries (the default resources') in struct wren_coap, the rest made by the
 * first resource registered beyond them. */
#define WREN_COAP_N_INLINE (WREN_COAP_N_DEFAULT ? WREN_COAP_N_DEFAULT : 1)
struct wren_coap_res_more {
    const struct wren_coap_resource *r[CONFIG_WREN_COAP_RESOURCES ? CONFIG_WREN_COAP_RESOURCES : 1];
};

struct wren_coap {
    struct wren_module module;   /**< first: found through netreg for counters and shell */
    struct wren_coap_stats stats;
    struct wren_netreg_entry reg;
    struct wren_node *node;
    struct wren_sock_udp sock;   /**< port 5683 */
    uint16_t next_mid;
    uint8_t n_res;
    uint32_t dedup_seq;
#if CONFIG_WREN_NODE_MEM
    const struct wren_coap_resource *res[WREN_COAP_N_INLINE]; /**< the first (WREN_COAP_RES) */
    WREN_LAZY(struct wren_coap_res_more, more); /**< the rest: made by the first of them */
    WREN_LAZY(struct wren_coap_srv, srv); /**< made by the first message (core/node.h) */
#else /* the fields of struct wren_coap_srv where they always were (WREN_COAP_SRV) */
    const struct wren_coap_resource *res[CONFIG_WREN_COAP_RESOURCES + WREN_COAP_N_DEFAULT];
#if CONFIG_WREN_COAP_DEDUP
    struct wren_coap_dedup dedup[CONFIG_WREN_COAP_DEDUP];
#endif
    struct wren_coap_block1 block1[CONFIG_WREN_COAP_BLOCK1 ? CONFIG_WREN_COAP_BLOCK1 : 1];
    struct wren_coap_observer obs[CONFIG_WREN_COAP_OBSERVERS];
#endif
    uint32_t obs_seq;            /**< the latest Observe sequence number */
    uint8_t in_handler;          /**< a handler runs (its tx buffer is being written) */
    uint8_t deferred;            /**< the running handler deferred its response */
    const struct wren_coap_req *cur_req; /**< the request whose handler runs, or NULL */
#if !CONFIG_WREN_NODE_MEM && CONFIG_WREN_COAP_SEPARATE
    struct wren_coap_sep sep[CONFIG_WREN_COAP_SEPARATE];
#endif
    struct wren_timer slow_timer; /**< the `/slow` resource's answers */
    uint8_t slow_pending;        /**< separate-response slots `/slow` answers (bits) */
    uint8_t notify_deferred;     /**< notifications wait until the response is out */
    uint32_t obs_con_ms;
#if CONFIG_WREN_NODE_MEM
    WREN_LAZY(struct wren_coap_cl, cl);   /**< made by the first request */
#else
    struct wren_coap_xchg xchg[CONFIG_WREN_COAP_CLIENT_XCHG]; /**< (WREN_COAP_CL) */
#endif
    uint32_t ack_timeout_ms;
    uint16_t ack_random_permille;
    uint8_t max_retransmit;
    /** CoAP over TCP's observers (coap/coap_tcp.h): notified with @p r
     *  changed, or with NULL to send what a handler deferred. @return how many. */
    int (*tcp_notify)(void *arg, const struct wren_coap_resource *r);
    void *tcp_arg;
    void *shell;                 /**< the shell of the `coap` command's request */
    const struct wren_sock_udp_ep *resp_from; /**< a response's source, in its callback */
    struct wren_coap_shell_req shell_req;
    uint32_t counter;            /**< the `/counter` resource */
    uint32_t pattern_len;        /**< the `/pattern` resource's size */
#if !CONFIG_WREN_NODE_MEM
    uint8_t rx[CONFIG_WREN_COAP_MSG_MAX];
    uint8_t tx[CONFIG_WREN_COAP_MSG_MAX];
#endif
};

/* The server's and the client's state made on first use: with
 * CONFIG_WREN_NODE_MEM, c->srv and c->cl (WREN_LAZY, core/node.h); without
 * (firmware), the same fields in struct wren_coap itself, laid out as they
 * always were, so that the images' code and RAM do not change. */
#if CONFIG_WREN_NODE_MEM
#define WREN_COAP_SRV(c) ((c)->srv)
#define WREN_COAP_CL(c) ((c)->cl)
#else
#define WREN_COAP_SRV(c) (c)
#define WREN_COAP_CL(c) (c)
#endif

/* Resource @p i (< n_res) of @p c, an lvalue (@p i: a plain variable). */
#if CONFIG_WREN_NODE_MEM
#define WREN_COAP_RES(c, i)                                                                 \
    (*((i) < WREN_COAP_N_INLINE ? &(c)->res[(i)] : &(c)->more->r[(i) - WREN_COAP_N_INLINE]))
#else
#define WREN_COAP_RES(c, i) ((c)->res[(i)])
#endif

/** netreg demultiplexing context the module registers under (type UDP): above
 *  every port, so no datagram is dispatched to it; it is there to be found. */
#define WREN_COAP_NETREG_CTX (0x10000u + COAP_PORT)

extern const struct wren_module_ops wren_coap_module;

/**
 * @brief Start the server on @p node (port 5683) in @p c.
 * @return 0, -EADDRINUSE (port taken), -errno of netreg.
 */
int wren_coap_init(struct wren_node *node, struct wren_coap *c);

/** @brief Stop the server: the port is closed, resources are forgotten. */
void wren_coap_stop(struct wren_coap *c);

/** @brief The node's CoAP server, or NULL. */
struct wren_coap *wren_coap_of(struct wren_node *node);

/**
 * @brief Serve @p r (kept by pointer).
 * @return 0, -ENOSPC (CONFIG_WREN_COAP_RESOURCES reached), -EEXIST (the path
 *         is served already), -EINVAL (no handler, path not starting with '/').
 */
int wren_coap_resource_add(struct wren_coap *c, const struct wren_coap_resource *r);

/** @brief Stop serving @p r. @return 0 or -ENOENT. */
int wren_coap_resource_remove(struct wren_coap *c, const struct wren_coap_resource *r);

/**
 * @brief Send request @p rq to @p to and call @p cb with its response(s),
 *        in the node's context. CONs are retransmitted (RFC 7252 4.2) with an
 *        initial timeout random in [ACK_TIMEOUT, ACK_TIMEOUT * ACK_RANDOM_FACTOR],
 *        doubled each time, up to MAX_RETRANSMIT times; a response with
 *        Block2 and M set is followed by requests for the next blocks
 *        (RFC 7959 2.4), each block reaching @p cb. A body larger than a
 *        message (or with rq->block1_szx set) goes in Block1 blocks (RFC 7959
 *        2.5), each after the server's 2.31 Continue, with Size1 on the first.
 * @return the exchange (>= 0, for wren_coap_cancel()), -EBUSY (every
 *         exchange in use), -EMSGSIZE (request beyond
 *         CONFIG_WREN_COAP_CLIENT_MSG_MAX), -EINVAL (also a CON, an
 *         observation, TCP or a Block1 body to a multicast address), -ENOBUFS.
 */
int wren_coap_request(struct wren_coap *c, const struct wren_sock_udp_ep *to,
                      const struct wren_coap_client_req *rq, wren_coap_resp_cb cb, void *arg);

/** @brief In a request's callback with a response: where it came from
 *         (the unicast source of an answer to a multicast request). */
const struct wren_sock_udp_ep *wren_coap_resp_from(const struct wren_coap *c);

/** @brief Forget exchange @p x (its callback is not called again). */
void wren_coap_cancel(struct wren_coap *c, int x);

/** What wren_coap_call() got. */
struct wren_coap_result {
    uint8_t code;      /**< response code */
    int32_t cf;        /**< its Content-Format, -1: none */
    size_t len;        /**< payload bytes (all blocks) */
    bool truncated;    /**< the payload did not fit the buffer */
};

/**
 * @brief Send @p rq and wait for the whole response (blocks joined into
 *        @p buf), from an application thread.
 * @return 0 (see @p res), -ETIMEDOUT, -ECONNREFUSED, -EDEADLK (not on a
 *         thread), or an error of wren_coap_request().
 */
int wren_coap_call(struct wren_coap *c, const struct wren_sock_udp_ep *to,
                   const struct wren_coap_client_req *rq, void *buf, size_t max,
                   struct wren_coap_result *res, uint64_t timeout_us);

/**
 * @brief Set the client's RFC 7252 4.8 transmission parameters.
 * @return 0, -EINVAL (a timeout of 0, a factor below 1000 permille).
 */
int wren_coap_set_tx_params(struct wren_coap *c, uint32_t ack_timeout_ms,
                            uint16_t ack_random_permille, uint8_t max_retransmit);

/**
 * @brief The state of @p r changed: notify its observers (RFC 7641 4.2). A
 *        notification is NON unless none was CON for the interval of
 *        wren_coap_set_obs_con_ms(); a CON one is retransmitted like a
 *        request, and an observer that never acknowledges it, or answers a
 *        notification with RST, is removed. A representation larger than a
 *        message goes as its first block (RFC 7959 3.4). Called from a
 *        handler (a PUT that changed the resource), the notifications follow
 *        the handler's response.
 * @return the number of observers notified.
 */
int wren_coap_notify(struct wren_coap *c, const struct wren_coap_resource *r);

/** @brief At least one CON notification per @p ms (0: every one CON). */
void wren_coap_set_obs_con_ms(struct wren_coap *c, uint32_t ms);

/**
 * @brief From a handler: answer @p req later (RFC 7252 5.2.2). A CON request
 *        gets an empty ACK now (its duplicates too), a NON one nothing; the
 *        response follows with wren_coap_resp_separate(), CON for a CON
 *        request (retransmitted until acknowledged), NON for a NON one.
 * @code
 *   int h = wren_coap_resp_defer(c, req);
 *   if (h < 0) { resp->code = COAP_CODE_SERVICE_UNAVAILABLE; return; }
 *   // ... later, from the node's context:
 *   wren_coap_resp_separate(c, h, COAP_CODE_CONTENT, COAP_CF_TEXT, "21.5", 4);
 * @endcode
 * @return a handle (>= 0), -ENOSPC (every CONFIG_WREN_COAP_SEPARATE slot in
 *         use: answer now), -EINVAL (not in a request's handler).
 */
int wren_coap_resp_defer(struct wren_coap *c, const struct wren_coap_req *req);

/**
 * @brief Send the response of deferred request @p h: @p code, Content-Format
 *        @p cf (-1: none) and @p len bytes of @p payload, the whole
 *        representation: the block the request asked for with Block2, or,
 *        a 2.xx beyond CONFIG_WREN_COAP_SEPARATE_BYTES, block 0 of the
 *        largest size that fits with Size2 (RFC 7959 2.4; the client asks
 *        for the rest, and the handler answers each such request whole).
 * @return 0 (a CON response is retransmitted from now on), -EINVAL (@p h
 *         not deferred, or its Block2 beyond @p len), -EMSGSIZE (an error
 *         response beyond the slot: @p h stays, answer with less), -ENOBUFS
 *         (a NON response could not be sent; @p h is over).
 */
int wren_coap_resp_separate(struct wren_coap *c, int h, uint8_t code, int32_t cf,
                            const void *payload, size_t len);

/**
 * @brief Append @p len bytes to the representation: the part inside the
 *        response's window is copied, the rest only counted.
 */
void wren_coap_resp_write(struct wren_coap_resp *resp, const void *data, size_t len);

/** @brief wren_coap_resp_write() of @p v in decimal. */
void wren_coap_resp_write_uint(struct wren_coap_resp *resp, uint64_t v);

/**
 * @brief RFC 7252 5.10.8: whether @p req's If-Match / If-None-Match hold for
 *        a resource whose current ETag is @p etag (@p len bytes, 0: none) and
 *        that @p exists. A handler answers 4.12 when they do not.
 */
bool wren_coap_req_precond_ok(const struct wren_coap_req *req, const uint8_t *etag, size_t len,
                              bool exists);

#endif

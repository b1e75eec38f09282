/**
 * @file ndn.h
 * @brief The NDN forwarder module: faces, PIT, Content Store, FIB and the
 *        best-route strategy, beside the IP stack on the same netapi.
 *
 * One module per node ("ndn"), registered in netreg as (WREN_NETTYPE_NDN,
 * ALL). It gets:
 *  - RCV from link layers: an NDN packet in an 802.15.4 frame (after the
 *    dispatch byte NDN_IEEE802154_DISPATCH) or an Ethernet frame of EtherType
 *    0x8624, the netif header naming the interface and the sender;
 *  - SND from applications (src/ndn/ndn_app.h): msg.arg is the app's face;
 *  - UDP datagrams on port 6363 through its own sock_udp (NDN's UDP face).
 * Everything it knows (faces, routes, PIT, CS) is static memory sized below.
 *
 * Faces (numbered 1..CONFIG_WREN_NDN_FACES):
 * @verbatim
 *   kind  | what                               | made by
 *   link  | interface + neighbour link address | a route, or the first packet
 *         | (none: the link's broadcast)       |   from that neighbour
 *   udp   | remote IPv6 address + port         | a route, or the first datagram
 *   app   | an application endpoint            | wren_ndn_app_open()
 * @endverbatim
 * A packet larger than its face's frame goes to wren_ndn_face_send_large()
 * (src/ndn/ndn_face.c): on a link face it goes in NDNLPv2 pieces
 * (src/ndn/ndnlp_frag.h), and link faces take LpPackets in (pieces put back
 * together, the lp_* counters); elsewhere it is counted (too_big) and dropped.
 */
#ifndef WREN_NDN_NDN_H
#define WREN_NDN_NDN_H

#include <stdbool.h>
#include <stdint.h>

#include "core/config.h"
#include "core/counters.h"
#include "core/module.h"
#include "core/timer.h"
#include "ndn/ndn_app.h"
#include "ndn/ndnlp_frag.h"
#include "net/netreg.h"
#include "sock/sock_udp.h"

/** Faces a node has (links, UDP peers and applications together; at most 16). */
#ifndef CONFIG_WREN_NDN_FACES
#define CONFIG_WREN_NDN_FACES 8
#endif
/** Pending Interest Table entries. */
#ifndef CONFIG_WREN_NDN_PIT
#define CONFIG_WREN_NDN_PIT 8
#endif
/** Longest a PIT entry lives (ms), whatever InterestLifetime says: an entry
 *  holds its Interest in the packet buffer, and a peer's Interest of a long
 *  lifetime must not hold it for long (NDN's default lifetime is 4 s). */
#ifndef CONFIG_WREN_NDN_PIT_MAX_LIFETIME_MS
#define CONFIG_WREN_NDN_PIT_MAX_LIFETIME_MS 16000u
#endif
/** Nonces a PIT entry remembers (for loop detection). */
#ifndef CONFIG_WREN_NDN_PIT_NONCES
#define CONFIG_WREN_NDN_PIT_NONCES 4
#endif
/** Content Store entries, and the octets of Data they keep (in the module's
 *  own store, not the packet buffer: cached Data never hold it). */
#ifndef CONFIG_WREN_NDN_CS
#define CONFIG_WREN_NDN_CS 4
#endif
#ifndef CONFIG_WREN_NDN_CS_BYTES
#define CONFIG_WREN_NDN_CS_BYTES 1024
#endif
/** FIB entries, the longest prefix (a Name's value, octets) and next hops each. */
#ifndef CONFIG_WREN_NDN_FIB
#define CONFIG_WREN_NDN_FIB 6
#endif
#ifndef CONFIG_WREN_NDN_FIB_NAME
#define CONFIG_WREN_NDN_FIB_NAME 40
#endif
#ifndef CONFIG_WREN_NDN_NEXTHOPS
#define CONFIG_WREN_NDN_NEXTHOPS 2
#endif
/** Nonces of satisfied or expired Interests kept to catch loops (the Dead
 *  Nonce List of NFD's developer guide, NDN-0021). */
#ifndef CONFIG_WREN_NDN_DEAD_NONCES
#define CONFIG_WREN_NDN_DEAD_NONCES 8
#endif
/** Largest NDN packet the node takes from UDP (octets). */
#ifndef CONFIG_WREN_NDN_MAX_PACKET
#define CONFIG_WREN_NDN_MAX_PACKET 1024
#endif
/** NDN's UDP port (NFD's default, named-data.net/doc/NFD, "Face"). */
#define WREN_NDN_UDP_PORT 6363
/** NDN's EtherType and 802.15.4 dispatch byte: src/wire/ndn_tlv.h
 *  (NDN_ETHERTYPE, NDN_IEEE802154_DISPATCH). */

_Static_assert(CONFIG_WREN_NDN_FACES <= 16, "faces are bits of a uint16_t");
_Static_assert(CONFIG_WREN_NDN_PIT_NONCES >= 1, "a PIT entry needs a nonce");

/** Counters of the forwarder; every drop has a reason. */
#define WREN_NDN_COUNTERS(C)                                                              \
    C(rx_interests)                                                                       \
    C(rx_data)                                                                            \
    C(tx_interests)           /* Interests sent on faces (retransmissions included) */    \
    C(tx_data)                /* Data sent on faces */                                    \
    C(rx_drop_malformed)      /* did not parse */                                         \
    C(rx_drop_critical)       /* an unknown critical element (spec 0.3, 1.3) */            \
    C(rx_drop_digest)         /* a DigestSha256 or parameters digest did not match */      \
    C(rx_drop_type)           /* neither Interest nor Data (an LpPacket off a link face) */ \
    C(rx_drop_loop)           /* a nonce seen before for that name */                     \
    C(rx_drop_hop_limit)      /* HopLimit 0 from another node */                          \
    C(rx_drop_no_face)        /* face table full */                                       \
    C(rx_drop_nobuf)          /* packet buffer full */                                    \
    C(rx_drop_unsolicited)    /* Data nobody asked for */                                 \
    C(drop_no_route)          /* an Interest no FIB entry matches */                      \
    C(drop_pit_full)                                                                      \
    C(tx_drop)                /* a face could not send (queue or buffer full) */          \
    C(too_big)                /* larger than a non-link face's frame, or than NDNLPv2 cuts */ \
    C(pit_aggregated)         /* Interests added to a pending entry, not forwarded */     \
    C(pit_retx)               /* retransmissions forwarded (to the next route if any) */  \
    C(pit_satisfied)                                                                      \
    C(pit_expired)                                                                        \
    C(cs_hits)                                                                            \
    C(cs_misses)                                                                          \
    C(cs_inserts)                                                                         \
    C(cs_evictions)                                                                       \
    WREN_NDNLP_FRAG_COUNTERS(C) /* the link faces' NDNLPv2 (ndn->lp.stats, read at GET) */

struct wren_ndn_stats {
    WREN_NDN_COUNTERS(WREN_COUNTER_U32)
};

enum wren_ndn_face_kind {
    WREN_NDN_FACE_NONE = 0,
    WREN_NDN_FACE_LINK,
    WREN_NDN_FACE_UDP,
    WREN_NDN_FACE_APP,
};

struct wren_ndn_face {
    uint8_t kind;        /**< enum wren_ndn_face_kind */
    uint8_t if_id;       /**< link: the interface */
    uint8_t addr_len;    /**< link: 2, 6 or 8; 0 the broadcast */
    uint8_t dev_type;    /**< link: enum wren_netdev_type of the interface */
    uint8_t addr[16];    /**< link address, or the UDP peer's IPv6 address */
    uint16_t port;       /**< UDP peer port */
    uint16_t mtu;        /**< largest NDN packet a frame of it takes */
};

struct wren_ndn_nexthop {
    uint8_t face;        /**< 0: unused */
    uint8_t cost;
};

struct wren_ndn_fib_entry {
    uint8_t len;         /**< octets of name (0 with no next hop: unused) */
    uint8_t name[CONFIG_WREN_NDN_FIB_NAME];
    struct wren_ndn_nexthop hops[CONFIG_WREN_NDN_NEXTHOPS];
};

struct wren_ndn_pit_entry {
    struct wren_snip *interest; /**< our copy of the first one (NULL: free) */
    uint64_t expires;           /**< us */
    uint16_t name_off, name_len;/**< the Name's value in it */
    uint16_t in_faces;          /**< downstream: bit f-1 for face f */
    uint16_t out_faces;         /**< upstream faces tried */
    uint32_t nonces[CONFIG_WREN_NDN_PIT_NONCES];
    uint8_t n_nonces;
    uint8_t flags;              /**< CanBePrefix 1, MustBeFresh 2 */
};

struct wren_ndn_cs_entry {
    uint64_t stale_at;          /**< arrival + FreshnessPeriod, us */
    uint32_t used;              /**< LRU clock */
    uint16_t off, len;          /**< the Data in cs_store (len 0: free) */
    uint16_t name_off, name_len;/**< its Name's value, from off */
};

/** The `ndn interest` / `ndn serve` endpoints of the shell (ndn_shell.c). */
struct wren_ndn_console {
    struct wren_ndn_app consumer;
    struct wren_ndn_app producer;
    struct wren_shell *sh;      /**< where their lines go */
    struct wren_timer timer;    /**< the consumer's Interest lifetime */
    uint64_t sent_at;
    uint8_t name[160];          /**< the Interest waiting (its Name's value; a shell line is shorter) */
    uint8_t name_len;
    bool waiting;
    bool cbp;
    uint8_t text_len;
    char text[32];              /**< what the producer answers */
    uint32_t fresh_ms;
};

struct wren_ndn {
    struct wren_module module;  /**< first */
    struct wren_node *node;
    struct wren_netreg_entry reg;
    struct wren_sock_udp udp;   /**< the UDP face's socket, port 6363 */
    bool udp_open;
    struct wren_timer pit_timer;
    uint32_t cs_clock;
    uint8_t dnl_next;
    struct wren_ndn_face faces[CONFIG_WREN_NDN_FACES];
    struct wren_ndn_fib_entry fib[CONFIG_WREN_NDN_FIB];
    struct wren_ndn_pit_entry pit[CONFIG_WREN_NDN_PIT];
    struct wren_ndn_cs_entry cs[CONFIG_WREN_NDN_CS];
    uint8_t cs_store[CONFIG_WREN_NDN_CS_BYTES];
    uint32_t dnl[CONFIG_WREN_NDN_DEAD_NONCES];   /**< nonce ^ name hash */
    struct wren_ndn_stats stats;
    struct wren_ndnlp_frag lp;  /**< NDNLPv2 of the link faces (pieces keyed by face) */
    struct wren_timer lp_timer; /**< gives up pieces at lp's next deadline */
#if CONFIG_WREN_SHELL
    struct wren_ndn_console con; /**< the shell's consumer and producer (ndn_shell.c) */
#endif
};

/** What SET WREN_NETOPT_NDN_FACE takes (and answers with the face id, > 0). */
struct wren_ndn_face_cfg {
    uint8_t kind;        /**< enum wren_ndn_face_kind */
    uint8_t if_id;
    uint8_t addr_len;
    uint8_t addr[16];
    uint16_t port;
};

/** What SET WREN_NETOPT_NDN_ROUTE takes: add (cost < 255) or, with cost
 *  255, remove face's next hop for the prefix (face 0: the whole entry). */
struct wren_ndn_route {
    uint8_t face;
    uint8_t cost;
    uint8_t len;
    uint8_t name[CONFIG_WREN_NDN_FIB_NAME]; /**< the prefix: a Name's value */
};
#define WREN_NDN_ROUTE_DEL 255

extern const struct wren_module_ops wren_ndn_module;

/** @brief Start the forwarder in zeroed @p ndn. @return 0 or -errno. */
int wren_ndn_init(struct wren_node *node, struct wren_ndn *ndn);
/** @brief Forget every pending Interest and cached Data (their packet
 *  buffer space is free again). */
void wren_ndn_flush(struct wren_ndn *ndn);

#endif

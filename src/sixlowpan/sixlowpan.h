/**
 * @file sixlowpan.h
 * @brief The 6LoWPAN adaptation layer (RFC 4944, RFC 6282) between IPv6 and
 *        802.15.4 interfaces: header compression, fragmentation and
 *        reassembly.
 *
 * Registered as (WREN_NETTYPE_SIXLOWPAN, ALL).
 * - SND (from IPv6): [netif] -> [IPv6 header, 40] -> [UDP header, 8]? ->
 *   payload. Compresses the headers (IPHC, UDP NHC, contexts marked for
 *   compression), and sends one frame, or FRAG1 + FRAGNs when the datagram
 *   does not fit the frame, to the interface the netif header names.
 * - RCV (from an interface): [frame payload] -> [MAC header] -> [netif].
 *   Decompresses IPHC or strips the uncompressed-IPv6 dispatch, reassembles
 *   fragments, and hands whole datagrams to (WREN_NETTYPE_IPV6, ALL).
 *
 * - Injected loss (experiments): SET WREN_NETOPT_FAULTS (struct
 *   wren_netopt_faults: @c loss in 1/100 %, @c seed; reorder must be 0)
 *   drops each whole datagram with that probability, received ones after
 *   reassembly and sent ones before fragmentation, each counted
 *   (rx_drop_fault, tx_drop_fault); the frames themselves were sent and
 *   acknowledged, so the MAC does not retry. Draws come from a PRNG of the
 *   layer's own (seeded from @c seed), so the same seed drops the same
 *   datagrams and loss 0 draws nothing.
 *
 * Reassembly keeps CONFIG_WREN_SIXLOWPAN_REASS_SLOTS datagrams at once, each
 * at most CONFIG_WREN_SIXLOWPAN_MAX_DGRAM bytes, for at most
 * CONFIG_WREN_SIXLOWPAN_REASS_TIMEOUT_MS. Overlapping fragments discard the
 * datagram (RFC 4944 5.3); duplicates, fragments beyond the datagram, a
 * size that disagrees with the datagram's, and every other oddity are
 * dropped and counted; nothing is ever written outside the datagram.
 */
#ifndef WREN_SIXLOWPAN_SIXLOWPAN_H
#define WREN_SIXLOWPAN_SIXLOWPAN_H

#include "core/counters.h"
#include <stdbool.h>
#include <stdint.h>

#include "core/module.h"
#include "core/node.h"
#include "core/timer.h"
#include "net/netreg.h"
#include "wire/sixlowpan.h"

#ifndef CONFIG_WREN_SIXLOWPAN_REASS_SLOTS
#define CONFIG_WREN_SIXLOWPAN_REASS_SLOTS 2
#endif
#ifndef CONFIG_WREN_SIXLOWPAN_MAX_DGRAM
#define CONFIG_WREN_SIXLOWPAN_MAX_DGRAM 1280
#endif
/** A sender's fragments never interleave: a new datagram from the same
 *  link-layer source and destination at least this long after an
 *  unfinished one began means that one lost a fragment; its slot is reused
 *  (a burst of first fragments still meets the slot limit). */
#ifndef CONFIG_WREN_SIXLOWPAN_SUPERSEDE_MS
#define CONFIG_WREN_SIXLOWPAN_SUPERSEDE_MS 50
#endif
/** A datagram that got no fragment for this long while every slot is taken
 *  is given up for a new one (the one idle longest first): a sender's
 *  fragments come back to back, so such a half datagram lost one, and
 *  holding it until the timeout would refuse every other datagram. */
#ifndef CONFIG_WREN_SIXLOWPAN_IDLE_MS
#define CONFIG_WREN_SIXLOWPAN_IDLE_MS 1000
#endif
#ifndef CONFIG_WREN_SIXLOWPAN_REASS_TIMEOUT_MS
#define CONFIG_WREN_SIXLOWPAN_REASS_TIMEOUT_MS 10000
#endif
/** Datagram loss injection (SET WREN_NETOPT_FAULTS, `ifconfig IF dgloss`): for
 *  experiments that drop whole packets after link retries and reassembly, as
 *  the TCP paper's section 9.4 did at its border router. 0 leaves it out. */
#ifndef CONFIG_WREN_SIXLOWPAN_FAULTS
#define CONFIG_WREN_SIXLOWPAN_FAULTS 1
#endif
_Static_assert(CONFIG_WREN_SIXLOWPAN_REASS_SLOTS >= 1,
               "a datagram in reassembly at least: 1,280-byte datagrams come in fragments");

#define WREN_SIXLOWPAN_COUNTERS(C)                                                                                  \
    C(rx_frames)                                                                                                    \
    C(rx_iphc)                                                                                                      \
    C(rx_drop_dispatch)     /* mesh, broadcast, unknown dispatches */                                               \
    C(rx_drop_iphc)         /* header that does not decompress */                                                   \
    C(rx_drop_nobuf)                                                                                                \
    C(frag_rx)              /* fragments received */                                                                \
    C(frag_reassembled)     /* datagrams completed */                                                               \
    C(frag_drop_overlap)    /* datagrams discarded for overlapping fragments */                                     \
    C(frag_drop_dup)        /* fragments received twice */                                                          \
    C(frag_drop_range)      /* fragment beyond the datagram size */                                                 \
    C(frag_drop_size)       /* size disagreeing with the datagram's, too big, or a fragment not a multiple of 8 */  \
    C(frag_drop_full)       /* no reassembly slot free */                                                           \
    C(frag_drop_hdr)        /* fragment header that does not parse */                                               \
    C(frag_timeout)         /* datagrams that never completed */                                                    \
    C(frag_superseded)      /* unfinished datagrams given up for their sender's next one */                         \
    C(frag_evicted)         /* unfinished datagrams idle for CONFIG_WREN_SIXLOWPAN_IDLE_MS given up for a new one */ \
    C(tx_datagrams)                                                                                                 \
    C(tx_frags)             /* fragments sent */                                                                    \
    C(tx_drop_bad)          /* malformed request from IPv6 */                                                       \
    C(tx_drop_nobuf)                                                                                                \
    C(rx_drop_fault)        /* whole datagrams dropped by injected loss (WREN_NETOPT_FAULTS) */                    \
    C(tx_drop_fault)        /* ... on the way down, before fragmentation */

struct wren_sixlowpan_stats {
    WREN_SIXLOWPAN_COUNTERS(WREN_COUNTER_U32)
};

struct wren_sixlowpan_reass {
    struct wren_snip *dg;        /**< the datagram being filled; NULL: slot free */
    uint64_t deadline;
    uint64_t last;               /**< when the last fragment of it came */
    uint16_t tag;
    uint16_t size;
    uint16_t got;                /**< bytes received so far */
    uint8_t src_len;
    uint8_t dst_len;
    bool udp_csum;               /**< the UDP checksum was elided: compute at the end */
    uint8_t src[8];
    uint8_t dst[8];
    uint8_t map[(CONFIG_WREN_SIXLOWPAN_MAX_DGRAM + 63) / 64]; /**< 8-byte units received */
};

/** The compression contexts (RFC 6282 3.1.1; all unset until one is set). */
struct wren_sixlowpan_ctxs {
    struct sixlowpan_ctx e[SIXLOWPAN_CTX_COUNT];
};

/** The reassembly slots. */
struct wren_sixlowpan_slots {
    struct wren_sixlowpan_reass e[CONFIG_WREN_SIXLOWPAN_REASS_SLOTS];
};

struct wren_sixlowpan {
    struct wren_module module;   /**< first */
    struct wren_node *node;
    struct wren_sixlowpan_stats stats; /**< near the start: short instructions count */
    struct wren_netreg_entry reg;
    uint16_t next_tag;
    WREN_LAZY(struct wren_sixlowpan_ctxs, ctx);     /**< made by the first context set */
    WREN_LAZY(struct wren_sixlowpan_slots, reass);  /**< made by the first fragment */
    struct wren_timer gc;
    uint32_t fault_prng;         /**< PRNG state of the injected loss */
    uint16_t fault_loss;         /**< datagrams dropped each way, 1/100 % (0: none) */
};

/** @brief Start the 6LoWPAN layer of @p node. */
int wren_sixlowpan_init(struct wren_node *node, struct wren_sixlowpan *lp);

/** @brief Set compression context @p cid (0..15). @return 0 or -EINVAL. */
int wren_sixlowpan_ctx_set(struct wren_sixlowpan *lp, uint8_t cid,
                           const struct sixlowpan_ctx *ctx);

/** The module, for the stack assembly (src/stack/stack.h). */
extern const struct wren_module_ops wren_sixlowpan_module;

#endif

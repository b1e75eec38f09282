/**
 * @file ndnlp_frag.h
 * @brief NDNLPv2 fragmentation and reassembly for one link (NDNLPv2 spec,
 *        "Fragmentation and Reassembly", indexed fragmentation): a network
 *        packet bigger than the link's MTU goes as LpPackets that each fit,
 *        with consecutive Sequence numbers, FragIndex and FragCount; the
 *        receiver identifies a packet by its sender and Sequence - FragIndex
 *        and puts the pieces back in FragIndex order.
 *
 * State is one struct wren_ndnlp_frag per link (a face), given by the
 * caller; the sizes are static (core/config.h CONFIG_WREN_NDNLP_*). The
 * pieces of a packet wait in the node's packet buffer, one snip each, in
 * FragIndex order:
 * @verbatim
 *   slot: peer, Sequence - FragIndex, FragCount, deadline
 *     -> [idx 0 | piece] -> [idx 1 | piece] -> [idx 3 | piece]      (idx: 2 octets)
 * @endverbatim
 * so a free slot costs its bookkeeping only. Each piece received restarts
 * its packet's timeout (CONFIG_WREN_NDNLP_REASS_TIMEOUT_MS, as NFD's
 * LpReassembler). What is dropped is counted by reason
 * (WREN_NDNLP_FRAG_COUNTERS): a piece of a new packet when every slot holds
 * another (lp_drop_no_slot), a piece whose index is already held
 * (lp_drop_dup: the packet stays), one whose FragCount differs from its
 * packet's (lp_drop_count: the packet stays, as NFD does), a packet whose
 * FragCount or bytes pass the limits (lp_drop_oversize: the whole packet);
 * pieces arriving out of order are taken (counted in lp_ooo).
 *
 * Receive (a frame's payload that starts with an LpPacket):
 * @code
 *   struct ndnlp_pkt lp;
 *   struct wren_snip *pkt = wren_ndnlp_frag_rx(&face->lp, src_addr, buf, len,
 *                                              now_us, WREN_NETTYPE_UNDEF, &lp);
 *   if (pkt) ...   // a whole network packet (one snip); lp.has_nack says it is nacked
 *   // arm a timer for wren_ndnlp_frag_next_deadline(&face->lp) to call
 *   // wren_ndnlp_frag_expire
 * @endcode
 *
 * Send:
 * @code
 *   struct ndnlp_frag_plan plan;
 *   if (wren_ndnlp_frag_plan(&face->lp, wren_pkt_len(pkt), mtu, &plan) < 0)
 *       ... too big even in pieces: drop
 *   else if (plan.count == 1)
 *       ... send pkt as it is (bare)
 *   else for (unsigned i = 0; i < plan.count; i++)
 *       send(wren_ndnlp_frag_piece(&face->lp, &plan, pkt, i, type));  // NULL: no buffer
 * @endcode
 */
#ifndef WREN_NDN_NDNLP_FRAG_H
#define WREN_NDN_NDNLP_FRAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/config.h"
#include "core/counters.h"
#include "wire/ndnlp.h"

struct wren_pktbuf;
struct wren_snip;

#define WREN_NDNLP_FRAG_COUNTERS(C)                                                          \
    C(lp_rx)            /* LpPackets taken in */                                             \
    C(lp_rx_frags)      /* of them pieces of a bigger packet */                              \
    C(lp_reassembled)   /* packets completed from pieces */                                  \
    C(lp_ooo)           /* pieces taken that came out of FragIndex order */                  \
    C(lp_idle)          /* LpPackets without a Fragment (nothing to deliver) */              \
    C(lp_nack)          /* Nack headers seen (counted by the caller) */                      \
    C(lp_drop_tlv)      /* not an LpPacket, a TLV past the frame, or bytes after it */       \
    C(lp_drop_order)    /* fields out of order, repeated, or after the Fragment */           \
    C(lp_drop_critical) /* an unknown header field that may not be ignored */                \
    C(lp_drop_field)    /* a known field malformed */                                        \
    C(lp_drop_frag)     /* FragIndex >= FragCount, or pieces without a Sequence */           \
    C(lp_drop_dup)      /* a piece whose FragIndex is held already */                        \
    C(lp_drop_no_slot)  /* a piece of a new packet with every slot busy */                   \
    C(lp_drop_count)    /* a piece whose FragCount differs from its packet's */              \
    C(lp_drop_oversize) /* pieces of packets over CONFIG_WREN_NDNLP_MAX_FRAGS or _MAX_PKT */ \
    C(lp_drop_nobuf)    /* no packet buffer for a piece or the packet */                     \
    C(lp_drop_timeout)  /* packets given up: no piece for the timeout */                     \
    C(lp_tx_frags)      /* pieces built to send */                                           \
    C(lp_tx_drop_nobuf) /* pieces not built for lack of packet buffer */                     \
    C(lp_tx_drop_size)  /* packets too big for the MTU even in pieces */

struct wren_ndnlp_frag_stats {
    WREN_NDNLP_FRAG_COUNTERS(WREN_COUNTER_U32)
};

/** One packet being reassembled; pieces NULL: free. */
struct wren_ndnlp_slot {
    struct wren_snip *pieces; /**< held pieces in FragIndex order */
    uint64_t peer;            /**< the sender (the caller's key: a link address) */
    uint64_t msg;             /**< message identifier: Sequence - FragIndex */
    uint64_t deadline;        /**< µs: given up when no piece comes by then */
    uint64_t nack_reason;     /**< piece 0's Nack header, if has_nack */
    uint16_t count;           /**< FragCount */
    uint16_t got;             /**< pieces held */
    uint16_t bytes;           /**< their bytes */
    bool has_nack;
};

/** NDNLPv2 state of one link. */
struct wren_ndnlp_frag {
    struct wren_pktbuf *pb;  /**< where pieces wait and packets are built */
    uint64_t tx_seq;         /**< Sequence of the next piece sent */
    struct wren_ndnlp_slot slot[CONFIG_WREN_NDNLP_REASS_SLOTS];
    struct wren_ndnlp_frag_stats stats;
};

/** How a packet is cut for one MTU. */
struct ndnlp_frag_plan {
    uint64_t seq;   /**< Sequence of piece 0 */
    size_t len;     /**< the packet's length */
    size_t chunk;   /**< packet bytes per piece (the last may carry fewer) */
    uint16_t count; /**< pieces; 1: the packet fits bare, send it as it is */
};

/** Bytes of an LpPacket around a piece, at most (TLV-TYPE and TLV-LENGTH of
 *  the LpPacket, Sequence, FragIndex, FragCount, the Fragment's TLV-TYPE and
 *  TLV-LENGTH). */
#define NDNLP_FRAG_HDR_MAX (1 + 9 + 10 + 10 + 10 + 1 + 9)

/**
 * @brief Start @p f empty; pieces wait in @p pb. @p seq0 is the Sequence of
 *        the first piece sent (NFD starts at a random one; a node's seeded
 *        PRNG gives one that is still reproducible).
 */
void wren_ndnlp_frag_init(struct wren_ndnlp_frag *f, struct wren_pktbuf *pb, uint64_t seq0);

/**
 * @brief Plan the pieces of a packet of @p len bytes for a link that carries
 *        @p mtu bytes a frame, and reserve their Sequence numbers.
 * @return 0 (plan->count 1: it fits bare, no Sequence used), or -EMSGSIZE
 *         when it needs more than CONFIG_WREN_NDNLP_MAX_FRAGS pieces or the
 *         MTU has no room for a piece (counted lp_tx_drop_size).
 */
int wren_ndnlp_frag_plan(struct wren_ndnlp_frag *f, size_t len, size_t mtu,
                         struct ndnlp_frag_plan *plan);

/**
 * @brief The LpPacket of piece @p i of @p plan, the fields only (no
 *        Fragment value): @p lp's frag is NULL, frag_len the piece's bytes.
 * @param[out] off Where in the packet the piece starts.
 */
void wren_ndnlp_frag_piece_hdr(const struct ndnlp_frag_plan *plan, unsigned i,
                               struct ndnlp_pkt *lp, size_t *off);

/**
 * @brief Piece @p i of @p pkt (planned by wren_ndnlp_frag_plan) as one new
 *        snip of @p type in f->pb holding the whole LpPacket.
 * @return The snip (the caller owns it), or NULL without packet buffer
 *         (counted lp_tx_drop_nobuf). @p pkt stays the caller's.
 */
struct wren_snip *wren_ndnlp_frag_piece(struct wren_ndnlp_frag *f,
                                        const struct ndnlp_frag_plan *plan,
                                        const struct wren_snip *pkt, unsigned i, uint8_t type);

/**
 * @brief Piece @p i of the packet @p pkt (flat bytes) into @p out.
 * @return Bytes written, or -NDNLP_ERR_NOBUFS when @p max is short.
 */
int wren_ndnlp_frag_emit(const struct ndnlp_frag_plan *plan, const uint8_t *pkt, unsigned i,
                         uint8_t *out, size_t max);

/**
 * @brief Take an LpPacket of @p len bytes received from @p peer at @p now
 *        (µs). Parses it, delivers an unfragmented packet, holds a piece,
 *        and completes a packet with its last piece. Expired packets are
 *        given up first.
 * @param[out] lp The LpPacket's fields (for a completed packet, the Nack
 *                header is piece 0's).
 * @return A new snip of @p type holding the whole network packet (the caller
 *         owns it), or NULL: held, or dropped and counted by reason.
 */
struct wren_snip *wren_ndnlp_frag_rx(struct wren_ndnlp_frag *f, uint64_t peer, const uint8_t *buf,
                                     size_t len, uint64_t now, uint8_t type, struct ndnlp_pkt *lp);

/** @brief Give up the packets whose deadline is @p now or before (counted
 *         lp_drop_timeout). @return How many. */
unsigned wren_ndnlp_frag_expire(struct wren_ndnlp_frag *f, uint64_t now);

/** @brief The earliest deadline of a packet being reassembled, or UINT64_MAX. */
uint64_t wren_ndnlp_frag_next_deadline(const struct wren_ndnlp_frag *f);

/** @brief Drop every packet being reassembled (not counted): a link going away. */
void wren_ndnlp_frag_clear(struct wren_ndnlp_frag *f);

#endif

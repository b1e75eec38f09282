/**
 * @file wire_ndnlp.h
 * @brief ctypes entry points into NDNLPv2 (wire/ndnlp.h, ndn/ndnlp_frag.h),
 *        exported from the simulator library so Python tests can check
 *        wren's LpPackets against python-ndn.
 *
 * Functions return a length or count, or a negative error: -NDNLP_ERR_x
 * from the codec, -EMSGSIZE / -ENOBUFS from fragmentation.
 */
#ifndef WREN_SIM_WIRE_NDNLP_H
#define WREN_SIM_WIRE_NDNLP_H

#include <stddef.h>
#include <stdint.h>

/**
 * @brief Cut the network packet @p pkt for a link of @p mtu bytes, the first
 *        piece's Sequence @p seq0: the LpPackets one after the other in
 *        @p out, their lengths in @p lens (at most @p max_pieces).
 * @return The pieces; 1: the packet fits bare and @p out holds it as it is.
 */
int wren_wire_ndnlp_fragment(const uint8_t *pkt, size_t len, size_t mtu, uint64_t seq0,
                             uint8_t *out, size_t out_max, uint16_t *lens, size_t max_pieces);

/**
 * @brief Give the @p n LpPackets in @p frames (lengths @p lens), all from one
 *        sender at time 0, to a fresh reassembler; the last network packet
 *        it delivers goes to @p out, its Nack reason to @p nack_reason (-1:
 *        no Nack). @p counters (may be NULL) receives the reassembler's
 *        counters (struct wren_ndnlp_frag_stats, @p n_counters of them).
 * @return That packet's length, 0 if none completed, or -ENOBUFS.
 */
int wren_wire_ndnlp_reassemble(const uint8_t *frames, const uint16_t *lens, size_t n,
                               uint8_t *out, size_t out_max, int64_t *nack_reason,
                               uint32_t *counters, size_t n_counters);

/** @brief A Nack LpPacket (reason 0: none) carrying the Interest @p interest. */
int wren_wire_ndnlp_nack(const uint8_t *interest, size_t len, uint64_t reason, uint8_t *out,
                         size_t out_max);

/**
 * @brief Parse the LpPacket @p lp; write "key=value" words to @p desc: len,
 *        seq_len, seq, index, count, nack (0/1), reason, frag_off, frag_len,
 *        ignored. @return 0, or the parser's negative error.
 */
int wren_wire_ndnlp_describe(const uint8_t *lp, size_t len, char *desc, size_t desc_max);

#endif

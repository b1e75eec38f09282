/**
 * @file wire_api.h
 * @brief Thin C entry points into the 6LoWPAN codec, exported from the
 *        simulator library so Python tests can call it through ctypes.
 *
 * Both functions take the same link-layer and context arguments:
 *  - l2src/l2dst: link-layer addresses in canonical (big-endian) order,
 *    2 or 8 bytes, or NULL with length 0;
 *  - ctx_prefixes: 16 prefixes of 16 bytes each (context i at 16*i), or
 *    NULL for no contexts; ctx_lens: 16 prefix lengths in bits, 0 marking a
 *    context as not valid. Valid contexts are used both ways.
 *
 * Errors are negative: -SIXLOWPAN_ERR_x from the codec, and
 * -SIXLOWPAN_ERR_TRUNCATED for an uncompressed packet shorter than its
 * headers say, -SIXLOWPAN_ERR_NOBUFS when @p out is too small.
 */
#ifndef WREN_SIM_WIRE_API_H
#define WREN_SIM_WIRE_API_H

#include <stddef.h>
#include <stdint.h>

/**
 * @brief Decompress an IPHC packet into the full IPv6 packet.
 *
 * Writes the 40-byte IPv6 header with the payload length filled in, then
 * (if a UDP NHC was present) the UDP header with its length and, if the
 * checksum was elided, the checksum computed over the pseudo-header, then
 * the rest of @p in unchanged.
 * @param[in]  in  Bytes starting with the IPHC dispatch (no FRAG header).
 * @param[out] out Output buffer of @p out_max bytes.
 * @return Bytes written to @p out, or a negative error.
 */
int wren_wire_iphc_to_ipv6(const uint8_t *in, size_t in_len, const uint8_t *l2src, size_t l2src_len,
                           const uint8_t *l2dst, size_t l2dst_len, const uint8_t *ctx_prefixes,
                           const uint8_t *ctx_lens, uint8_t *out, size_t out_max);

/**
 * @brief Compress an uncompressed IPv6 packet to IPHC (+ UDP NHC).
 *
 * The UDP header is compressed when the next header is UDP and its length
 * field equals the IPv6 payload length (otherwise it stays inline, as
 * payload). Bytes after the IPv6 payload length are ignored.
 * @param[in]  in  An IPv6 packet (40-byte header, payload).
 * @param[out] out Output buffer of @p out_max bytes.
 * @return Bytes written to @p out, or a negative error.
 */
int wren_wire_ipv6_to_iphc(const uint8_t *in, size_t in_len, const uint8_t *l2src, size_t l2src_len,
                           const uint8_t *l2dst, size_t l2dst_len, const uint8_t *ctx_prefixes,
                           const uint8_t *ctx_lens, uint8_t *out, size_t out_max);

#endif

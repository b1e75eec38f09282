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

/*
 * RPL (wire/rpl.h), for the tests against scapy and tshark. Each
 * description is one line of space-separated key=value pairs, cut to
 * @p desc_max - 1 characters.
 */

/**
 * @brief Parse an RPL control message and build it again from the parsed
 *        fields: the base, then every option parsed by its typed parser and
 *        emitted from the result (Pad1/PadN dropped; a metric container and
 *        unknown options copied as they are).
 * @param[out] desc "code=.. <base fields>" then " | opt=T <fields>" per option.
 * @return Bytes written to @p out; a negative -RPL_ERR_x from the parsers.
 */
int wren_wire_rpl_reemit(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_max,
                         char *desc, size_t desc_max);

/**
 * @brief Find and parse the RPL option (type 0x23 or 0x63) in a hop-by-hop
 *        header (from its Next Header byte).
 * @param[out] desc "type=.. flags=.. instance=.. rank=..".
 * @return 0; -RPL_ERR_TYPE if there is none; a parse error.
 */
int wren_wire_rpl_rpi_find(const uint8_t *hbh, size_t len, char *desc, size_t desc_max);

/** @brief wren_rpl_rpi_hbh_emit() of the given fields. */
int wren_wire_rpl_rpi_emit(uint8_t next, uint8_t flags, uint8_t instance, uint16_t rank,
                           uint8_t *out, size_t out_max);

/** @brief wren_rpl_srh_emit() of @p n hops (16 bytes each, end to end). */
int wren_wire_rpl_srh_emit(uint8_t next, const uint8_t *hops, size_t n, const uint8_t *dst,
                           uint8_t *out, size_t out_max);

/**
 * @brief wren_rpl_srh_process() for a node owning the @p n_own addresses at
 *        @p own (16 bytes each): @p hdr and @p dst are updated in place.
 * @return As wren_rpl_srh_process(); *err_off as it sets it.
 */
int wren_wire_rpl_srh_process(uint8_t *hdr, size_t len, uint8_t *dst, const uint8_t *own,
                              size_t n_own, uint16_t *err_off);

#endif

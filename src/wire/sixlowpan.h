/**
 * @file sixlowpan.h
 * @brief 6LoWPAN wire formats: dispatch (RFC 4944 5.1), fragment headers
 *        (RFC 4944 5.3) and IPv6 header compression with the UDP NHC
 *        (RFC 6282 sections 3 and 4.3).
 *
 * Pure wire code: no I/O, no allocation, no state. Nothing here reads or
 * writes outside the buffers it is given.
 *
 * A compressed header (LOWPAN_IPHC), fields in this order, each present or
 * not as the two IPHC bytes say:
 *
 * @verbatim
 *  +------+-----+------+----+------+----------+----------+-----------------+
 *  | IPHC | CID |  TF  | NH | HLIM | src addr | dst addr | UDP NHC (opt.)  |
 *  |  2   | 0/1 |0/1/3/4| 0/1| 0/1 | 0..16    | 0..16    | 1+0..4+0/2      |
 *  +------+-----+------+----+------+----------+----------+-----------------+
 *
 *   IPHC:  0 1 1 TF TF NH HL HL | CID SAC SAM SAM M DAC DAM DAM
 *   UDP NHC: 1 1 1 1 0 C P P, then ports (PP), then checksum (unless C)
 * @endverbatim
 *
 * The IPv6 payload length and the UDP length are elided by RFC 6282: the
 * parser cannot know them, the caller fills them in from the datagram (or
 * reassembled) size.
 *
 * Link-layer addresses are given in canonical big-endian order (as in
 * struct ieee802154_hdr): 8 bytes (EUI-64) or 2 bytes (short address).
 *
 * Usage:
 * @code
 *   struct sixlowpan_l2 l2 = {f.hdr.src_addr, 8, f.hdr.dst_addr, 2};
 *   struct sixlowpan_iphc h;
 *   if (wren_sixlowpan_iphc_parse(p, n, &l2, ctx, &h) < 0)
 *       goto drop;
 *   size_t ulen = n - h.hdr_len + (h.udp ? UDP_HDR_LEN : 0);
 *   h.ip.payload_len = (uint16_t)ulen;        // caller's job, see above
 *   h.uh.len = (uint16_t)ulen;
 *
 *   int k = wren_sixlowpan_iphc_emit(&ip, &uh, &l2, ctx, out, sizeof(out));
 *   if (k < 0)
 *       goto drop;  // out holds nothing usable
 * @endcode
 */
#ifndef WREN_WIRE_SIXLOWPAN_H
#define WREN_WIRE_SIXLOWPAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire/ipv6.h"
#include "wire/udp.h"

/** Errors, returned negated (-SIXLOWPAN_ERR_x). */
enum sixlowpan_err {
    SIXLOWPAN_ERR_TRUNCATED = 1, /**< input ends inside a header or inline field */
    SIXLOWPAN_ERR_DISPATCH,      /**< first byte is not the expected dispatch */
    SIXLOWPAN_ERR_FRAG_SIZE,     /**< datagram size below 40 or above 2047 */
    SIXLOWPAN_ERR_FRAG_OFFSET,   /**< emit: offset not a multiple of 8 / too big */
    SIXLOWPAN_ERR_CONTEXT,       /**< CID names a context that is not valid */
    SIXLOWPAN_ERR_RESERVED,      /**< reserved address mode combination */
    SIXLOWPAN_ERR_L2ADDR,        /**< address derived from a link-layer address
                                      that is missing or not 2/8 bytes long */
    SIXLOWPAN_ERR_NHC,           /**< next header compression other than UDP */
    SIXLOWPAN_ERR_NOBUFS,        /**< output buffer too small */
};

/** Dispatch classes of the first byte of a 6LoWPAN frame payload. */
enum wren_sixlowpan_dispatch {
    SIXLOWPAN_DISPATCH_NALP,        /**< 00xxxxxx: not a LoWPAN frame */
    SIXLOWPAN_DISPATCH_IPV6,        /**< 01000001: uncompressed IPv6 */
    SIXLOWPAN_DISPATCH_IPHC,        /**< 011xxxxx: LOWPAN_IPHC */
    SIXLOWPAN_DISPATCH_MESH,        /**< 10xxxxxx: mesh header */
    SIXLOWPAN_DISPATCH_FRAG1,       /**< 11000xxx: first fragment */
    SIXLOWPAN_DISPATCH_FRAGN,       /**< 11100xxx: subsequent fragment */
    SIXLOWPAN_DISPATCH_UNSUPPORTED, /**< ESC 0x40, HC1 0x42, BC0 0x50, others */
};

#define SIXLOWPAN_DISPATCH_IPV6_BYTE 0x41 /**< uncompressed IPv6 dispatch */
#define SIXLOWPAN_FRAG1_LEN 4             /**< FRAG1 header bytes */
#define SIXLOWPAN_FRAGN_LEN 5             /**< FRAGN header bytes */
#define SIXLOWPAN_FRAG_MAX_SIZE 2047      /**< datagram_size is 11 bits */
/** Contexts a node keeps, CIDs 0..n-1 (RFC 6282 has 16; each costs 19
 *  bytes). A frame naming a CID beyond the table does not decompress, as
 *  with any context not (yet) valid. */
#ifndef CONFIG_WREN_SIXLOWPAN_CTXS
#define CONFIG_WREN_SIXLOWPAN_CTXS 16
#endif
_Static_assert(CONFIG_WREN_SIXLOWPAN_CTXS >= 1 && CONFIG_WREN_SIXLOWPAN_CTXS <= 16,
               "1..16 6LoWPAN contexts");
#define SIXLOWPAN_CTX_COUNT CONFIG_WREN_SIXLOWPAN_CTXS /**< entries in a context table */
/** Longest header wren_sixlowpan_iphc_emit() writes: IPHC 2, TF 4, HLIM 1, two
 *  inline addresses 32, UDP NHC 7 (a CID byte comes only with a context,
 *  which shortens an address by at least 8). */
#define SIXLOWPAN_IPHC_MAX_LEN 46

/**
 * @brief Classify the first byte of a 6LoWPAN payload (RFC 4944 5.1,
 * RFC 6282 3.1). 0x7f is IPHC: RFC 6282 took all of 011xxxxx, so RFC 4944's
 * ESC value now reads as an IPHC header.
 * @param[in] b First byte.
 * @return The dispatch class.
 */
static inline enum wren_sixlowpan_dispatch wren_sixlowpan_dispatch(uint8_t b)
{
    if (b < 0x40)
        return SIXLOWPAN_DISPATCH_NALP;
    if ((b & 0xe0) == 0x60)
        return SIXLOWPAN_DISPATCH_IPHC;
    if (b == SIXLOWPAN_DISPATCH_IPV6_BYTE)
        return SIXLOWPAN_DISPATCH_IPV6;
    if ((b & 0xc0) == 0x80)
        return SIXLOWPAN_DISPATCH_MESH;
    if ((b & 0xf8) == 0xc0)
        return SIXLOWPAN_DISPATCH_FRAG1;
    if ((b & 0xf8) == 0xe0)
        return SIXLOWPAN_DISPATCH_FRAGN;
    return SIXLOWPAN_DISPATCH_UNSUPPORTED;
}

/**
 * @brief A fragment header (RFC 4944 5.3).
 *
 * @verbatim
 *  FRAG1: 1 1 0 0 0 size(11) | tag(16)
 *  FRAGN: 1 1 1 0 0 size(11) | tag(16) | offset/8 (8)
 * @endverbatim
 */
struct sixlowpan_frag {
    uint16_t size;   /**< datagram_size: the uncompressed IPv6 datagram, 40..2047 */
    uint16_t tag;    /**< datagram_tag */
    uint16_t offset; /**< datagram_offset in bytes (multiple of 8); 0 for FRAG1 */
    bool first;      /**< FRAG1 (true) or FRAGN (false) */
};

/**
 * @brief Parse a FRAG1 or FRAGN header.
 *
 * Only the header is checked: whether offset and payload fit the datagram
 * size is the reassembly's business.
 * @param[in]  buf Frame payload starting with the fragment dispatch.
 * @param[in]  len Bytes in @p buf.
 * @param[out] f   Result; valid only on success.
 * @return The header length (SIXLOWPAN_FRAG1_LEN or SIXLOWPAN_FRAGN_LEN):
 *         the fragment's payload starts there.
 * @return -SIXLOWPAN_ERR_TRUNCATED if @p len is 0 or shorter than the
 *         header the dispatch names.
 * @return -SIXLOWPAN_ERR_DISPATCH if the first byte is neither FRAG1 nor
 *         FRAGN.
 * @return -SIXLOWPAN_ERR_FRAG_SIZE if datagram_size is below 40 (the IPv6
 *         header alone is 40 bytes), for FRAG1 and FRAGN alike.
 */
int wren_sixlowpan_frag_parse(const uint8_t *buf, size_t len, struct sixlowpan_frag *f);

/**
 * @brief Length of the header wren_sixlowpan_frag_emit() writes.
 * @param[in] f Header.
 * @return SIXLOWPAN_FRAG1_LEN or SIXLOWPAN_FRAGN_LEN.
 */
static inline size_t wren_sixlowpan_frag_len(const struct sixlowpan_frag *f)
{
    return f->first ? SIXLOWPAN_FRAG1_LEN : SIXLOWPAN_FRAGN_LEN;
}

/**
 * @brief Write a fragment header.
 * @param[in]  f   Header.
 * @param[out] buf Output; nothing is written on error.
 * @param[in]  len Bytes available in @p buf.
 * @return Bytes written (== wren_sixlowpan_frag_len()).
 * @return -SIXLOWPAN_ERR_FRAG_SIZE if size is below 40 or above 2047.
 * @return -SIXLOWPAN_ERR_FRAG_OFFSET if a FRAG1 has a non-zero offset or a
 *         FRAGN offset is not a multiple of 8 or above 2040.
 * @return -SIXLOWPAN_ERR_NOBUFS if @p len is too small.
 */
int wren_sixlowpan_frag_emit(const struct sixlowpan_frag *f, uint8_t *buf, size_t len);

/**
 * @brief One compression context (RFC 6282 3.1.1, distributed by RFC 6775).
 *
 * Bits of the prefix beyond prefix_len are ignored. A prefix_len above 64
 * overrides interface-identifier bits; above 128 counts as 128.
 */
struct sixlowpan_ctx {
    uint8_t prefix[16];
    uint8_t prefix_len; /**< bits, 0..128 */
    bool valid;         /**< may be used to decompress */
    bool compress;      /**< may also be used to compress (RFC 6775 "C" flag) */
};

/** Link-layer addresses of the frame, canonical order, 2 or 8 bytes each. */
struct sixlowpan_l2 {
    const uint8_t *src;
    uint8_t src_len;
    const uint8_t *dst;
    uint8_t dst_len;
};

/** A decompressed IPv6 (and UDP) header. */
struct sixlowpan_iphc {
    struct ipv6_hdr ip;   /**< payload_len is 0: the caller fills it */
    bool udp;             /**< the UDP header was compressed (NH=1, UDP NHC) */
    struct udp_hdr uh;    /**< if udp: ports, checksum; len is 0 (caller) */
    bool udp_csum_elided; /**< if udp: checksum elided (C=1), uh.csum is 0 and
                               the caller must compute it */
    size_t hdr_len;       /**< compressed bytes consumed (IPHC + NHC) */
};

/**
 * @brief Decompress a LOWPAN_IPHC header (RFC 6282 section 3) and a UDP NHC
 * (4.3) that follows it.
 *
 * Every inline field is bounds-checked before it is read. After success the
 * payload (after the UDP header, or after the IPv6 header if !udp) starts
 * at buf + hdr_len. ip.next is 17 when udp is set.
 *
 * Errors come in the order of the bytes that reveal them: a reserved mode
 * or an unknown context (IPHC and CID bytes) before a truncated inline
 * field, a non-UDP NHC before truncation after it; a missing link-layer
 * address is reported only for an otherwise complete header.
 * @param[in]  buf Bytes starting with the IPHC dispatch.
 * @param[in]  len Bytes in @p buf.
 * @param[in]  l2  Link-layer addresses, for SAM/DAM=11; may be NULL.
 * @param[in]  ctx Table of SIXLOWPAN_CTX_COUNT contexts, or NULL (none valid).
 * @param[out] out Result; valid only on success.
 * @return 0 on success.
 * @return -SIXLOWPAN_ERR_TRUNCATED if @p len is 0 or the input ends inside
 *         the IPHC bytes, the CID byte, an inline field or the UDP NHC.
 * @return -SIXLOWPAN_ERR_DISPATCH if the first byte is not 011xxxxx.
 * @return -SIXLOWPAN_ERR_RESERVED for M=0 DAC=1 DAM=00 and M=1 DAC=1
 *         DAM=01..11.
 * @return -SIXLOWPAN_ERR_CONTEXT if SAC=1 (SAM!=00) or DAC=1 names a context
 *         that is not valid (or @p ctx is NULL).
 * @return -SIXLOWPAN_ERR_L2ADDR if SAM/DAM=11 and the matching link-layer
 *         address is not 2 or 8 bytes long.
 * @return -SIXLOWPAN_ERR_NHC if NH=1 and the NHC is not UDP (extension
 *         header NHC is not supported).
 */
int wren_sixlowpan_iphc_parse(const uint8_t *buf, size_t len, const struct sixlowpan_l2 *l2,
                         const struct sixlowpan_ctx *ctx, struct sixlowpan_iphc *out);

/**
 * @brief Compress an IPv6 header, and a UDP header if @p uh is given and
 * ip->next is 17, into LOWPAN_IPHC (+ UDP NHC).
 *
 * Chooses the shortest form for each field: TF, HLIM 1/64/255, addresses
 * from link-local or context prefixes (the valid && compress context with
 * the longest matching prefix) and link-layer addresses, multicast forms,
 * UDP ports 0xF0Bx/0xF0xx. The UDP checksum is always carried (never C=1);
 * ip->payload_len and uh->len are elided and not looked at. The flow label
 * is taken modulo 2^20.
 * @param[in]  ip  IPv6 header.
 * @param[in]  uh  UDP header to compress, or NULL (next header inline).
 * @param[in]  l2  Link-layer addresses; may be NULL.
 * @param[in]  ctx Table of SIXLOWPAN_CTX_COUNT contexts, or NULL.
 * @param[out] buf Output; nothing is written on error. NULL (with any
 *                 @p len) only computes the length.
 * @param[in]  len Bytes available in @p buf.
 * @return Bytes written (at most SIXLOWPAN_IPHC_MAX_LEN).
 * @return -SIXLOWPAN_ERR_NOBUFS if @p len is too small.
 */
int wren_sixlowpan_iphc_emit(const struct ipv6_hdr *ip, const struct udp_hdr *uh,
                        const struct sixlowpan_l2 *l2, const struct sixlowpan_ctx *ctx,
                        uint8_t *buf, size_t len);

/**
 * @brief Name of an error code.
 * @param[in] err An error code, negated or not.
 * @return A static string ("ok" for 0, "?" for unknown values).
 */
const char *wren_sixlowpan_strerror(int err);

#endif

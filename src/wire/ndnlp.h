/**
 * @file ndnlp.h
 * @brief NDNLPv2, NDN's link protocol: the LpPacket (TLV-TYPE 100) with the
 *        header fields wren understands (Sequence, FragIndex, FragCount,
 *        Nack with NackReason) and its Fragment. Pure: bytes in, struct or
 *        error out; no state, no I/O.
 *
 * Format (NDNLPv2 spec, redmine.named-data.net/projects/nfd/wiki/NDNLPv2,
 * "NDNLPv2 Packet Format" and "TLV-TYPE Number Assignments"; the same
 * numbers are ndn-cxx's ndn-cxx/lp/tlv.hpp):
 * @verbatim
 *  LpPacket   ::= 100 TLV-LENGTH LpHeaderField* Fragment?
 *  Sequence   ::=  81 TLV-LENGTH fixed-width unsigned integer (8 octets here)
 *  FragIndex  ::=  82 TLV-LENGTH NonNegativeInteger
 *  FragCount  ::=  83 TLV-LENGTH NonNegativeInteger
 *  Nack       ::= 800 TLV-LENGTH NackReason?
 *  NackReason ::= 801 TLV-LENGTH NonNegativeInteger
 *  Fragment   ::=  80 TLV-LENGTH BYTE+        (a network packet or a piece of one)
 *
 *  one TLV:  | TLV-TYPE (VAR-NUMBER) | TLV-LENGTH (VAR-NUMBER) | TLV-VALUE |
 *  VAR-NUMBER: first octet < 253: the number; 253: 2 more octets; 254: 4; 255: 8
 *  NonNegativeInteger: 1, 2, 4 or 8 octets, big-endian
 * @endverbatim
 *
 * Rules the parser enforces (NDNLPv2 spec; ndn-cxx lp/packet.cpp decodes the
 * same way): header fields come in increasing TLV-TYPE order and the
 * Fragment last; a known field appears at most once; an unknown header field
 * whose TLV-TYPE is in [800, 959] with its two low bits 00 is skipped (and
 * counted in ignored), any other unknown field makes the packet invalid
 * (-NDNLP_ERR_CRITICAL); FragIndex < FragCount; a packet in more than one
 * fragment carries a Sequence. Non-minimal VAR-NUMBERs and
 * NonNegativeIntegers are read; the emitter always writes the shortest.
 *
 * Receive:
 * @code
 *   struct ndnlp_pkt p;
 *   int rc = wren_ndnlp_parse(buf, len, &p);
 *   if (rc == -NDNLP_ERR_TYPE)  ... a bare Interest or Data: not an LpPacket
 *   else if (rc < 0)            ... drop, count by -rc
 *   else if (p.has_nack)        ... p.frag is the Interest it answers, p.nack_reason why
 *   else if (p.frag_count > 1)  ... a fragment: to reassembly (ndn/ndnlp_frag.h)
 *   else if (p.frag_len)        ... p.frag/p.frag_len is a whole network packet
 * @endcode
 *
 * Send:
 * @code
 *   struct ndnlp_pkt p = { .has_nack = true, .nack_reason = NDNLP_NACK_NO_ROUTE,
 *                          .frag = interest, .frag_len = n, .frag_count = 1 };
 *   int n = wren_ndnlp_emit(&p, out, sizeof(out));  // wren_ndnlp_len(&p) bytes, or -NDNLP_ERR_NOBUFS
 * @endcode
 */
#ifndef WREN_WIRE_NDNLP_H
#define WREN_WIRE_NDNLP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** TLV-TYPE numbers (NDNLPv2 spec, "TLV-TYPE Number Assignments"). */
enum {
    NDNLP_TLV_FRAGMENT = 80,
    NDNLP_TLV_SEQUENCE = 81,
    NDNLP_TLV_FRAG_INDEX = 82,
    NDNLP_TLV_FRAG_COUNT = 83,
    NDNLP_TLV_LP_PACKET = 100,
    NDNLP_TLV_NACK = 800,
    NDNLP_TLV_NACK_REASON = 801,
};

/** Header field ranges: [81, 99] (1-octet TLV-TYPE) and [800, 959] (3-octet);
 *  only unknown fields of the second range whose low two bits are 00 may be
 *  ignored (NDNLPv2 spec, "Header Field"; ndn-cxx lp/tlv.hpp HEADER3_*). */
#define NDNLP_HEADER3_MIN 800u
#define NDNLP_HEADER3_MAX 959u

/** NackReason values (NDNLPv2 spec, "Network NACK"; python-ndn's NackReason). */
enum ndnlp_nack_reason {
    NDNLP_NACK_NONE = 0,
    NDNLP_NACK_CONGESTION = 50,
    NDNLP_NACK_DUPLICATE = 100,
    NDNLP_NACK_NO_ROUTE = 150,
};

/** Sequence width this emitter writes: 8 octets, as NFD and ndn-cxx expect
 *  (ndn-cxx lp/field-decl.hpp reads a Sequence of any other width as an
 *  error). The parser reads 1..8. */
#define NDNLP_SEQ_LEN 8

/** Errors, returned negated (-NDNLP_ERR_x). */
enum ndnlp_err {
    NDNLP_ERR_TRUNCATED = 1, /**< a TLV runs past the bytes present */
    NDNLP_ERR_TYPE,          /**< the outer TLV-TYPE is not LpPacket (a bare packet?) */
    NDNLP_ERR_ORDER,         /**< fields out of TLV-TYPE order, a known one repeated,
                                  or something after the Fragment */
    NDNLP_ERR_CRITICAL,      /**< an unknown field that may not be ignored */
    NDNLP_ERR_FIELD,         /**< a known field's value malformed (width, empty Fragment) */
    NDNLP_ERR_FRAG,          /**< FragIndex >= FragCount, FragCount 0, or fragments
                                  without a Sequence */
    NDNLP_ERR_NOBUFS,        /**< emit: output buffer too small */
};

/** One LpPacket, parsed or to emit. */
struct ndnlp_pkt {
    uint64_t seq;          /**< Sequence, if seq_len */
    uint64_t frag_index;   /**< FragIndex; 0 when absent */
    uint64_t frag_count;   /**< FragCount; 1 when absent */
    uint64_t nack_reason;  /**< NackReason, if has_nack (NDNLP_NACK_NONE when absent) */
    const uint8_t *frag;   /**< Fragment's value (parse: into the buffer) */
    size_t frag_len;       /**< its length; 0: no Fragment (an IDLE packet) */
    uint16_t ignored;      /**< parse: unknown header fields skipped */
    uint8_t seq_len;       /**< octets of the Sequence: 0 none, parse 1..8, emit 8 */
    bool has_nack;         /**< a Nack header: the Fragment is the Interest nacked */
};

/**
 * @brief Parse one LpPacket from the start of @p buf.
 * @param[in]  buf, len The bytes received.
 * @param[out] p        The fields; pointers point into @p buf.
 * @return The LpPacket's whole length (TLV-TYPE to the end of its value;
 *         the bytes after it are not read), or -NDNLP_ERR_TRUNCATED,
 *         -NDNLP_ERR_TYPE, -NDNLP_ERR_ORDER, -NDNLP_ERR_CRITICAL,
 *         -NDNLP_ERR_FIELD, -NDNLP_ERR_FRAG.
 */
int wren_ndnlp_parse(const uint8_t *buf, size_t len, struct ndnlp_pkt *p);

/** @brief Bytes wren_ndnlp_emit writes for @p p (frag_index and frag_count
 *         are written when frag_count > 1, a Sequence when seq_len > 0). */
size_t wren_ndnlp_len(const struct ndnlp_pkt *p);

/** @brief Bytes of @p p before the Fragment's value: the whole LpPacket less
 *         frag_len. A fragmenter writes these, then the piece behind them. */
size_t wren_ndnlp_hdr_len(const struct ndnlp_pkt *p);

/**
 * @brief Write @p p: the LpPacket's header fields, the Fragment's TLV-TYPE
 *        and TLV-LENGTH (when frag_len > 0) and its value when p->frag is
 *        set; with p->frag NULL the value is left for the caller to write
 *        behind the wren_ndnlp_hdr_len(p) bytes written.
 * @return Bytes written (wren_ndnlp_hdr_len, plus frag_len when copied), or
 *         -NDNLP_ERR_NOBUFS when @p len is below that (nothing written).
 */
int wren_ndnlp_emit(const struct ndnlp_pkt *p, uint8_t *buf, size_t len);

/** @brief Whether an unknown LpHeaderField of @p type may be skipped. */
static inline bool wren_ndnlp_ignorable(uint64_t type)
{
    return type >= NDNLP_HEADER3_MIN && type <= NDNLP_HEADER3_MAX && (type & 3u) == 0;
}

#endif

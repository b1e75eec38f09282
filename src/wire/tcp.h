/**
 * @file tcp.h
 * @brief TCP wire format (RFC 9293 3.1): the header, its options (RFC 9293
 *        3.2, RFC 7323, RFC 2018), the checksum over the IPv6 pseudo-header
 *        (RFC 8200 8.1) and sequence-number arithmetic. Pure: bytes in,
 *        struct or error out; nothing is read outside the given buffers.
 *
 * @verbatim
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-------------------------------+-------------------------------+
 *  |          Source Port          |       Destination Port        |
 *  +-------------------------------+-------------------------------+
 *  |                        Sequence Number                        |
 *  +---------------------------------------------------------------+
 *  |                    Acknowledgment Number                      |
 *  +-------+-------+-+-+-+-+-+-+-+-+-------------------------------+
 *  |  Data | Rsrvd |C|E|U|A|P|R|S|F|            Window             |
 *  | Offset|       |W|C|R|C|S|S|Y|I|                               |
 *  +-------+-------+-+-+-+-+-+-+-+-+-------------------------------+
 *  |           Checksum            |         Urgent Pointer        |
 *  +-------------------------------+-------------------------------+
 *  |            Options (data offset * 4 - 20 bytes, <= 40)        |
 *  +---------------------------------------------------------------+
 * @endverbatim
 *
 * Receive:
 * @code
 *   struct tcp_hdr h;
 *   struct tcp_opts o;
 *   if (wren_tcp_csum_check(ip.src, ip.dst, seg, n) < 0)
 *       goto drop;
 *   int hl = wren_tcp_hdr_parse(seg, n, &h, &o);
 *   if (hl < 0)
 *       goto drop;   // RFC 9293 3.1 (MUST-7): a malformed option is reason enough
 *   // payload: seg + hl, n - hl bytes
 * @endcode
 *
 * Send (a SYN-ACK, header and payload contiguous):
 * @code
 *   struct tcp_hdr h = { .src_port = lp, .dst_port = rp, .seq = iss, .ack = irs + 1,
 *                        .flags = TCP_SYN | TCP_ACK, .window = 2048 };
 *   struct tcp_opts o = { .has_mss = true, .mss = 1220, .sack_ok = true,
 *                         .has_ts = true, .ts_val = now, .ts_ecr = peer_ts };
 *   int hl = wren_tcp_hdr_emit(&h, &o, buf, len);   // 36: MSS, SACK-permitted, timestamps
 *   put_be16(buf + TCP_OFF_CSUM, wren_tcp_csum(src, dst, buf, (size_t)hl + payload_len));
 * @endcode
 *
 * Send, scattered (the header in one buffer, the payload in others): sum
 * the pseudo-header with the whole segment length, then every piece in
 * order, the header with a zero checksum field (as wren_tcp_hdr_emit() writes it
 * when h.csum is 0). Pieces may have any length: inet_csum carries an odd
 * byte over to the next one.
 * @code
 *   struct inet_csum c;
 *   wren_tcp_csum_start(&c, src, dst, (uint32_t)(hl + payload_len));
 *   wren_inet_csum_update(&c, hdr, (size_t)hl);
 *   for (piece = payload; piece; piece = piece->next)
 *       wren_inet_csum_update(&c, piece->data, piece->size);
 *   put_be16(hdr + TCP_OFF_CSUM, wren_inet_csum_final(&c));
 * @endcode
 * To verify a scattered segment, do the same with the checksum field as
 * received: wren_inet_csum_final() is 0 when it verifies.
 */
#ifndef WREN_WIRE_TCP_H
#define WREN_WIRE_TCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire/inet_csum.h"
#include "wire/ipv6.h"

#define TCP_HDR_LEN 20     /**< without options */
#define TCP_HDR_MAX_LEN 60 /**< data offset 15 */
#define TCP_OPTS_MAX_LEN 40

/* fields, for code that reads or updates a header in place */
#define TCP_OFF_SEQ 4
#define TCP_OFF_ACK 8
#define TCP_OFF_DOFF 12 /**< data offset (high nibble), reserved bits (low) */
#define TCP_OFF_FLAGS 13
#define TCP_OFF_WINDOW 14
#define TCP_OFF_CSUM 16
#define TCP_OFF_URG 18

/** tcp_hdr.flags (RFC 9293 3.1, ECN RFC 3168 23.2). */
#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_RST 0x04
#define TCP_PSH 0x08
#define TCP_ACK 0x10
#define TCP_URG 0x20
#define TCP_ECE 0x40
#define TCP_CWR 0x80

/** Option kinds (RFC 9293 3.2, RFC 7323, RFC 2018). */
enum {
    TCP_OPT_EOL = 0,     /**< end of option list */
    TCP_OPT_NOP = 1,
    TCP_OPT_MSS = 2,     /**< length 4 */
    TCP_OPT_WSCALE = 3,  /**< length 3 */
    TCP_OPT_SACK_OK = 4, /**< SACK-permitted, length 2 */
    TCP_OPT_SACK = 5,    /**< length 2 + 8n, n 1..4 */
    TCP_OPT_TS = 8,      /**< timestamps, length 10 */
};

/** Most SACK blocks an option can carry (4 * 8 + 2 <= 40). */
#define TCP_SACK_MAX 4

/** Errors, returned negated (-TCP_ERR_x). */
enum tcp_err {
    TCP_ERR_TRUNCATED = 1, /**< fewer than 20 bytes */
    TCP_ERR_DOFF,          /**< data offset below 5 */
    TCP_ERR_DOFF_LEN,      /**< data offset beyond the segment */
    TCP_ERR_OPT_LEN,       /**< option length 0 or 1 (kinds other than EOL, NOP) */
    TCP_ERR_OPT_TRUNCATED, /**< option (or its length byte) runs past the header */
    TCP_ERR_OPT_SIZE,      /**< MSS, window scale, SACK-permitted or timestamps
                                with a length other than 4, 3, 2, 10 */
    TCP_ERR_OPT_SACK,      /**< SACK length not 2 + 8n with n 1..4 */
    TCP_ERR_CSUM,          /**< checksum does not verify */
    TCP_ERR_INVAL,         /**< emit: more than 4 SACK blocks, or options over 40 bytes */
    TCP_ERR_NOBUFS,        /**< emit: output buffer too small */
};

/** The fixed header. */
struct tcp_hdr {
    uint16_t src_port;
    uint16_t dst_port;
    uint32_t seq;
    uint32_t ack;
    uint8_t flags;   /**< TCP_FIN .. TCP_CWR */
    uint8_t rsvd;    /**< the 4 reserved bits (low nibble), as received; sent
                          as given (0 per RFC 9293) */
    uint16_t window; /**< as on the wire: not scaled */
    uint16_t csum;   /**< as received; emit writes it as given (0 before wren_tcp_csum()) */
    uint16_t urg;    /**< urgent pointer, as received: meaningful only with
                          TCP_URG, and may point beyond the segment */
};

/**
 * Options (parsed, or to send). Parse reports what the segment carries
 * whatever its flags: it is the protocol module's to ignore MSS, window
 * scale and SACK-permitted outside a SYN (RFC 9293 3.7.1, RFC 7323 2.2,
 * RFC 2018 2), TSecr without ACK, and to clamp a window scale above 14
 * (RFC 7323 2.3) and a tiny MSS. A kind that appears twice: the last wins.
 */
struct tcp_opts {
    bool has_mss;
    uint16_t mss;
    bool has_wscale;
    uint8_t wscale;  /**< shift count, as on the wire */
    bool sack_ok;    /**< SACK-permitted */
    uint8_t n_sack;  /**< SACK blocks in sack[], 0..4 */
    uint32_t sack[TCP_SACK_MAX][2]; /**< left edge, right edge */
    bool has_ts;
    uint32_t ts_val, ts_ecr;
};

/**
 * @brief Parse the header and its options.
 * @param[in]  buf The segment from its first byte (the source port).
 * @param[in]  len Bytes in @p buf: the whole segment (the upper-layer length).
 * @param[out] h   The fixed header.
 * @param[out] o   The options; zeroed first. Undefined on error.
 * @return The header length in bytes (20..60): the payload starts there.
 * @return -TCP_ERR_TRUNCATED, -TCP_ERR_DOFF, -TCP_ERR_DOFF_LEN for the header;
 *         -TCP_ERR_OPT_LEN, _OPT_TRUNCATED, _OPT_SIZE, _OPT_SACK as
 *         wren_tcp_opts_parse().
 */
int wren_tcp_hdr_parse(const uint8_t *buf, size_t len, struct tcp_hdr *h, struct tcp_opts *o);

/**
 * @brief Parse an option list (RFC 9293 3.2): kinds other than EOL and NOP
 *        have a length byte counting kind and length; unknown kinds are
 *        skipped by it (MUST-6); EOL ends the list and what follows it is
 *        padding, not read.
 * @param[in]  opts The options: the bytes after the fixed header.
 * @param[in]  len  Their length (data offset * 4 - 20).
 * @param[out] o    Zeroed first, then filled. Undefined on error.
 * @return 0.
 * @return -TCP_ERR_OPT_LEN for a length byte of 0 or 1.
 * @return -TCP_ERR_OPT_TRUNCATED if a length byte or the option it gives
 *         runs past @p len.
 * @return -TCP_ERR_OPT_SIZE for MSS, window scale, SACK-permitted or
 *         timestamps of the wrong length.
 * @return -TCP_ERR_OPT_SACK for a SACK length not 2 + 8n, n 1..4.
 */
int wren_tcp_opts_parse(const uint8_t *opts, size_t len, struct tcp_opts *o);

/**
 * @brief Bytes of options wren_tcp_opts_emit() writes: a multiple of 4.
 * @param[in] o Options, or NULL for none.
 * @return 0..40.
 * @return -TCP_ERR_INVAL if n_sack is above 4 or the options need more
 *         than 40 bytes (timestamps leave room for 3 SACK blocks; SACK
 *         blocks on a SYN with MSS, timestamps and window scale for 2).
 */
int wren_tcp_opts_len(const struct tcp_opts *o);

/**
 * @brief Write the options set in @p o, laid out as Linux does, each NOP
 *        padded to a 4-byte boundary:
 * @verbatim
 *   MSS                 02 04 mss
 *   SACK-perm + TS      04 02 08 0a val ecr     (TS alone: 01 01 08 0a ...)
 *   SACK-perm (no TS)   01 01 04 02
 *   window scale        01 03 03 shift
 *   SACK blocks         01 01 05 2+8n (left right) * n
 * @endverbatim
 *        Which to set is the sender's choice: on a SYN MSS, SACK-permitted,
 *        timestamps and (only if wanted) window scale; on other segments
 *        timestamps and SACK blocks.
 * @param[in]  o   Options, or NULL for none.
 * @param[out] buf Output; nothing is written on error.
 * @param[in]  len Bytes available.
 * @return Bytes written (wren_tcp_opts_len()).
 * @return -TCP_ERR_INVAL as wren_tcp_opts_len(); -TCP_ERR_NOBUFS.
 */
int wren_tcp_opts_emit(const struct tcp_opts *o, uint8_t *buf, size_t len);

/**
 * @brief Bytes wren_tcp_hdr_emit() writes: 20 + wren_tcp_opts_len(@p o).
 * @return 20..60, or -TCP_ERR_INVAL as wren_tcp_opts_len().
 */
int wren_tcp_hdr_len(const struct tcp_opts *o);

/**
 * @brief Write the header and options, the data offset from the options.
 *        The checksum field is written as h->csum: emit with 0, append the
 *        payload and fill it in with wren_tcp_csum() (or inet_csum, see above).
 * @param[in]  h   Header fields; rsvd is written as its low 4 bits.
 * @param[in]  o   Options, or NULL for none.
 * @param[out] buf Output; nothing is written on error.
 * @param[in]  len Bytes available.
 * @return Bytes written (wren_tcp_hdr_len()); never fails with that many.
 * @return -TCP_ERR_INVAL as wren_tcp_opts_len(); -TCP_ERR_NOBUFS.
 */
int wren_tcp_hdr_emit(const struct tcp_hdr *h, const struct tcp_opts *o, uint8_t *buf, size_t len);

/**
 * @brief The checksum to store in a segment (RFC 9293 3.1): over the IPv6
 *        pseudo-header (RFC 8200 8.1) and the segment with its checksum
 *        field taken as zero, whatever it holds.
 * @param[in] src, dst IPv6 source and destination (16 bytes each).
 * @param[in] seg      The segment, header and payload contiguous; @p len
 *                     bytes, at least 20.
 * @return The value for bytes 16-17 (put_be16(seg + TCP_OFF_CSUM, ...)).
 */
uint16_t wren_tcp_csum(const uint8_t *src, const uint8_t *dst, const uint8_t *seg, size_t len);

/**
 * @brief Verify the checksum of a received segment (RFC 9293 MUST-3: every
 *        segment is checked; there is no "no checksum" value in TCP).
 * @return 0 if it verifies.
 * @return -TCP_ERR_TRUNCATED if @p len < 20; -TCP_ERR_CSUM otherwise.
 */
int wren_tcp_csum_check(const uint8_t *src, const uint8_t *dst, const uint8_t *seg, size_t len);

/** @brief Begin a scattered checksum: the IPv6 pseudo-header of a TCP
 *         segment of @p seg_len bytes (header and payload). */
static inline void wren_tcp_csum_start(struct inet_csum *c, const uint8_t *src, const uint8_t *dst,
                                  uint32_t seg_len)
{
    wren_inet_csum_init(c);
    wren_inet_csum_pseudo(c, src, dst, seg_len, IPV6_NH_TCP);
}

/*
 * Sequence numbers (RFC 9293 3.4): compared modulo 2^32, a before b when
 * b - a (mod 2^32) is in 1 .. 2^31 - 1. Numbers exactly 2^31 apart are
 * each "before" the other (as in Linux's before()); windows are far
 * smaller, so this never arises between valid numbers.
 */

/** @brief a < b modulo 2^32. */
static inline bool wren_tcp_seq_lt(uint32_t a, uint32_t b)
{
    return ((a - b) >> 31) != 0;
}

/** @brief a <= b modulo 2^32. */
static inline bool wren_tcp_seq_le(uint32_t a, uint32_t b)
{
    return a == b || wren_tcp_seq_lt(a, b);
}

/** @brief a > b modulo 2^32. */
static inline bool wren_tcp_seq_gt(uint32_t a, uint32_t b)
{
    return wren_tcp_seq_lt(b, a);
}

/** @brief a >= b modulo 2^32. */
static inline bool wren_tcp_seq_ge(uint32_t a, uint32_t b)
{
    return wren_tcp_seq_le(b, a);
}

/**
 * @brief lo <= a < hi modulo 2^32: a lies in the half-open range of
 *        hi - lo numbers from lo (empty when lo == hi; any size up to
 *        2^32 - 1, no ambiguity). RFC 9293 3.10.7.4's tests:
 *        RCV.NXT =< SEG.SEQ < RCV.NXT+RCV.WND is
 *        wren_tcp_seq_between(seq, rcv_nxt, rcv_nxt + rcv_wnd);
 *        SND.UNA < SEG.ACK =< SND.NXT is
 *        wren_tcp_seq_between(ack, snd_una + 1, snd_nxt + 1).
 */
static inline bool wren_tcp_seq_between(uint32_t a, uint32_t lo, uint32_t hi)
{
    return a - lo < hi - lo;
}

#endif

/**
 * @file coap_tcp.h
 * @brief CoAP over TCP message framing and signals (RFC 8323 3.2, 5): pure
 *        functions on bytes, beside the UDP format of wire/coap.h.
 *
 * A message on the stream:
 *
 *     0       4       8                 (0/8/16/32 bits)
 *     +-------+-------+-----------------+--------+---------------+
 *     |  Len  |  TKL  | Extended Length |  Code  | Token (TKL)   |
 *     +-------+-------+-----------------+--------+---------------+
 *     | Options ...  | 0xFF | Payload ...                        |
 *     +---------------------------------------------------------+
 *
 * Len counts the bytes from the options to the end (marker included);
 * Len 13, 14, 15 put the count minus 13, 269, 65805 in 1, 2, 4 bytes after
 * it. There is no version, type or message ID: the stream is reliable and
 * ordered. The rest (token, options, payload) is the UDP format's, so a
 * parsed message is a struct coap_msg (type COAP_CON, mid 0) that every
 * option function of wire/coap.h reads, and a message built with the UDP
 * builder becomes a TCP one by rewriting its header in place
 * (wren_coap_tcp_from_udp()).
 *
 * Signals (codes 7.xx) carry options whose numbers mean something per
 * signal code (RFC 8323 5.2); wren_coap_tcp_signal_parse() reads them.
 */
#ifndef WREN_WIRE_COAP_TCP_H
#define WREN_WIRE_COAP_TCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire/coap.h"

/** The largest header: Len/TKL byte, a 32-bit extended length, the code. */
#define COAP_TCP_HDR_MAX 6
/** Max-Message-Size until a CSM says otherwise (RFC 8323 5.3.1). */
#define COAP_TCP_MMS_BASE 1152u

/** Signal codes (RFC 8323 5.1, 11.1). */
enum {
    COAP_CODE_CSM = COAP_CODE(7, 1),
    COAP_CODE_PING = COAP_CODE(7, 2),
    COAP_CODE_PONG = COAP_CODE(7, 3),
    COAP_CODE_RELEASE = COAP_CODE(7, 4),
    COAP_CODE_ABORT = COAP_CODE(7, 5),
};

/** Signal option numbers (RFC 8323 5.3-5.6), each for its code. */
enum {
    COAP_SIG_CSM_MAX_MESSAGE_SIZE = 2,
    COAP_SIG_CSM_BLOCK_WISE = 4,
    COAP_SIG_PING_CUSTODY = 2,          /**< also Pong */
    COAP_SIG_RELEASE_ALT_ADDRESS = 2,
    COAP_SIG_RELEASE_HOLD_OFF = 4,
    COAP_SIG_ABORT_BAD_CSM_OPTION = 2,
};

/** Errors beside enum coap_err's. */
enum {
    COAP_TCP_ERR_SIG_CRITICAL = 32, /**< a signal with an unknown critical option */
    COAP_TCP_ERR_LEN,               /**< the bytes given are not the message's length */
};

/**
 * @brief The whole length of the message starting at @p buf, from its first
 *        bytes (a stream reader calls it with what it has so far).
 * @param[out] total  the message's bytes (up to 4 GiB + 65,810); when the
 *                    header is not complete yet, the bytes needed to know
 * @return 0 (*total is the message's length), or -COAP_ERR_TRUNCATED (read
 *         up to *total bytes and ask again).
 */
int wren_coap_tcp_frame_len(const uint8_t *buf, size_t len, uint64_t *total);

/**
 * @brief Parse the one message that is exactly @p buf[@p len].
 *
 * Checks as wren_coap_parse() does (RFC 7252 3, with RFC 8323 3.2's
 * header): token length 9..15, an empty message (0.00) with anything after
 * the code, options, a marker without payload. @p m points into @p buf; its
 * type is COAP_CON and its mid 0.
 * @return 0, -COAP_ERR_TRUNCATED (no whole header), -COAP_TCP_ERR_LEN
 *         (@p len is not the length the header gives), -COAP_ERR_TKL,
 *         -COAP_ERR_EMPTY, -COAP_ERR_OPT_TRUNC, -COAP_ERR_OPT_RESERVED,
 *         -COAP_ERR_OPT_NUM, -COAP_ERR_NO_PAYLOAD.
 */
int wren_coap_tcp_parse(const uint8_t *buf, size_t len, struct coap_msg *m);

/** @brief Bytes wren_coap_tcp_emit() writes for @p m. */
size_t wren_coap_tcp_len(const struct coap_msg *m);

/**
 * @brief Write @p m (code, token, options, payload; type and mid unused)
 *        in the TCP format into @p buf[@p len].
 * @return bytes written, -COAP_ERR_NOBUFS, -COAP_ERR_TKL.
 */
int wren_coap_tcp_emit(const struct coap_msg *m, uint8_t *buf, size_t len);

/**
 * @brief Turn the UDP-format message at @p buf + @p off (@p len bytes, as
 *        the builder of wire/coap.h makes it) into the TCP format in place:
 *        the 4-byte header becomes a 2..6-byte one, the rest stays.
 * @return the offset in @p buf where the TCP message starts (it ends where
 *         the UDP one did), -COAP_ERR_NOBUFS (@p off leaves too little room
 *         before it: COAP_TCP_HDR_MAX - COAP_HDR_LEN bytes always do),
 *         -COAP_ERR_TRUNCATED (fewer than 4 bytes or than the token).
 */
int wren_coap_tcp_from_udp(uint8_t *buf, size_t off, size_t len);

/** What a signal's options say (RFC 8323 5.3-5.6). */
struct coap_tcp_signal {
    uint32_t max_message_size;  /**< CSM, when has_mms */
    uint32_t hold_off;          /**< Release, seconds, when has_hold_off */
    uint16_t bad_csm_option;    /**< Abort, when has_bad_csm_option */
    uint16_t bad_option;        /**< the unknown critical option on that error */
    uint8_t has_mms;
    uint8_t block_wise;         /**< CSM: Block-Wise-Transfer */
    uint8_t custody;            /**< Ping, Pong: Custody */
    uint8_t has_hold_off;
    uint8_t has_bad_csm_option;
    uint8_t alt_addresses;      /**< Release: Alternative-Address options */
};

/**
 * @brief Read the options of signal @p m (code 7.xx). Elective options
 *        this code does not define, or with a length their format forbids,
 *        are ignored (RFC 7252 5.4.1, 5.4.3).
 * @return 0, -COAP_TCP_ERR_SIG_CRITICAL (an unknown critical option:
 *         s->bad_option names it; the connection is to be aborted, RFC 8323
 *         5.2), -COAP_ERR_INVAL (@p m is not a signal), an option error.
 */
int wren_coap_tcp_signal_parse(const struct coap_msg *m, struct coap_tcp_signal *s);

#endif

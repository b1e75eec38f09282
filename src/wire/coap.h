/**
 * @file coap.h
 * @brief CoAP message format (RFC 7252 3), options (RFC 7252 3.1, 5.4,
 *        5.10), block options (RFC 7959 2.2) and observe sequence numbers
 *        (RFC 7641 3.4, 4.4). Pure: bytes in, struct or error out.
 *
 * @verbatim
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |Ver| T |  TKL  |      Code     |          Message ID           |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |   Token (if any, TKL bytes) ...
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |   Options (if any) ...
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |1 1 1 1 1 1 1 1|    Payload (if any) ...
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 *  one option:   | delta (4) | length (4) |  delta ext (0-2)  |  length ext (0-2)  | value |
 *                nibble 13: one more byte, value - 13; 14: two more bytes, value - 269;
 *                15: reserved (0xff alone is the payload marker)
 * @endverbatim
 *
 * The extended encodings are unique (a nibble of 13 can only say 13..268),
 * so a message's options have exactly one encoding: emitting what was parsed
 * gives the same bytes.
 *
 * Receive:
 * @code
 *   struct coap_msg m;
 *   int rc = wren_coap_parse(buf, len, &m);
 *   if (rc < 0) {
 *       if (rc != -COAP_ERR_TRUNCATED && rc != -COAP_ERR_VERSION && m.type == COAP_CON)
 *           send_rst(m.mid);     // RFC 7252 4.2: a malformed CON is rejected
 *       goto drop;
 *   }
 *   struct coap_opt_iter it;
 *   struct coap_opt o;
 *   wren_coap_opt_iter_init(&it, &m);
 *   while (wren_coap_opt_next(&it, &o) > 0)
 *       if (o.num == COAP_OPT_URI_PATH) ...   // o.val, o.len
 * @endcode
 *
 * Send (options in increasing number order; errors are sticky):
 * @code
 *   struct coap_builder b;
 *   wren_coap_build_init(&b, buf, sizeof(buf), COAP_ACK, COAP_CODE_CONTENT, mid, tok, tkl);
 *   wren_coap_build_opt_uint(&b, COAP_OPT_CONTENT_FORMAT, COAP_CF_TEXT);
 *   wren_coap_build_payload(&b, "hello", 5);
 *   int n = wren_coap_build_end(&b);    // bytes written, or -COAP_ERR_NOBUFS / -COAP_ERR_INVAL
 * @endcode
 */
#ifndef WREN_WIRE_COAP_H
#define WREN_WIRE_COAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define COAP_VERSION 1
#define COAP_HDR_LEN 4
#define COAP_TOKEN_MAX 8
#define COAP_PAYLOAD_MARKER 0xff
#define COAP_PORT 5683

/** Message types (RFC 7252 3). */
enum coap_type {
    COAP_CON = 0,
    COAP_NON = 1,
    COAP_ACK = 2,
    COAP_RST = 3,
};

/** Code c.dd as one byte (RFC 7252 3, 12.1). */
#define COAP_CODE(c, dd) ((uint8_t)(((c) << 5) | (dd)))
#define COAP_CODE_CLASS(code) ((uint8_t)((code) >> 5))
#define COAP_CODE_DETAIL(code) ((uint8_t)((code) & 0x1f))

enum coap_code {
    COAP_CODE_EMPTY = COAP_CODE(0, 0),
    COAP_CODE_GET = COAP_CODE(0, 1),
    COAP_CODE_POST = COAP_CODE(0, 2),
    COAP_CODE_PUT = COAP_CODE(0, 3),
    COAP_CODE_DELETE = COAP_CODE(0, 4),
    COAP_CODE_CREATED = COAP_CODE(2, 1),
    COAP_CODE_DELETED = COAP_CODE(2, 2),
    COAP_CODE_VALID = COAP_CODE(2, 3),
    COAP_CODE_CHANGED = COAP_CODE(2, 4),
    COAP_CODE_CONTENT = COAP_CODE(2, 5),
    COAP_CODE_CONTINUE = COAP_CODE(2, 31),          /* RFC 7959 2.9.1 */
    COAP_CODE_BAD_REQUEST = COAP_CODE(4, 0),
    COAP_CODE_UNAUTHORIZED = COAP_CODE(4, 1),
    COAP_CODE_BAD_OPTION = COAP_CODE(4, 2),
    COAP_CODE_FORBIDDEN = COAP_CODE(4, 3),
    COAP_CODE_NOT_FOUND = COAP_CODE(4, 4),
    COAP_CODE_METHOD_NOT_ALLOWED = COAP_CODE(4, 5),
    COAP_CODE_NOT_ACCEPTABLE = COAP_CODE(4, 6),
    COAP_CODE_REQUEST_INCOMPLETE = COAP_CODE(4, 8), /* RFC 7959 2.9.2 */
    COAP_CODE_PRECONDITION_FAILED = COAP_CODE(4, 12),
    COAP_CODE_TOO_LARGE = COAP_CODE(4, 13),
    COAP_CODE_UNSUPPORTED_FORMAT = COAP_CODE(4, 15),
    COAP_CODE_INTERNAL_ERROR = COAP_CODE(5, 0),
    COAP_CODE_NOT_IMPLEMENTED = COAP_CODE(5, 1),
    COAP_CODE_SERVICE_UNAVAILABLE = COAP_CODE(5, 3),
    COAP_CODE_PROXYING_NOT_SUPPORTED = COAP_CODE(5, 5),
};

/** Option numbers (RFC 7252 5.10, 12.2; RFC 7641 2; RFC 7959 2.1, 4). */
enum coap_opt_num {
    COAP_OPT_IF_MATCH = 1,
    COAP_OPT_URI_HOST = 3,
    COAP_OPT_ETAG = 4,
    COAP_OPT_IF_NONE_MATCH = 5,
    COAP_OPT_OBSERVE = 6,
    COAP_OPT_URI_PORT = 7,
    COAP_OPT_LOCATION_PATH = 8,
    COAP_OPT_URI_PATH = 11,
    COAP_OPT_CONTENT_FORMAT = 12,
    COAP_OPT_MAX_AGE = 14,
    COAP_OPT_URI_QUERY = 15,
    COAP_OPT_ACCEPT = 17,
    COAP_OPT_LOCATION_QUERY = 20,
    COAP_OPT_BLOCK2 = 23,
    COAP_OPT_BLOCK1 = 27,
    COAP_OPT_SIZE2 = 28,
    COAP_OPT_PROXY_URI = 35,
    COAP_OPT_PROXY_SCHEME = 39,
    COAP_OPT_SIZE1 = 60,
};

/** Content-Format numbers used here (RFC 7252 12.3, RFC 6690 7.2). */
enum coap_cf {
    COAP_CF_TEXT = 0,
    COAP_CF_LINK_FORMAT = 40,
    COAP_CF_OCTETS = 42,
    COAP_CF_JSON = 50,
    COAP_CF_CBOR = 60,
};

/** Option properties from the number alone (RFC 7252 5.4.6). */
#define COAP_OPT_CRITICAL(num) (((num) & 1) != 0)
#define COAP_OPT_UNSAFE(num) (((num) & 2) != 0)
#define COAP_OPT_NO_CACHE_KEY(num) (((num) & 0x1e) == 0x1c)

enum coap_err {
    COAP_ERR_TRUNCATED = 1, /**< fewer than 4 bytes */
    COAP_ERR_VERSION,       /**< version is not 1 (to be silently ignored, RFC 7252 3) */
    COAP_ERR_TKL,           /**< token length 9..15 */
    COAP_ERR_EMPTY,         /**< code 0.00 with a token, options or payload (RFC 7252 4.1) */
    COAP_ERR_OPT_TRUNC,     /**< an option header, extension or value runs past the end */
    COAP_ERR_OPT_RESERVED,  /**< delta or length nibble 15 (RFC 7252 3.1) */
    COAP_ERR_OPT_NUM,       /**< option number beyond 65535 */
    COAP_ERR_NO_PAYLOAD,    /**< payload marker followed by nothing (RFC 7252 3) */
    COAP_ERR_NOBUFS,        /**< emit: the buffer is too small */
    COAP_ERR_INVAL,         /**< emit/decode: a value the format cannot hold, options out
                                 of order, a reserved block size (SZX 7) */
};

/**
 * A parsed message. The option and payload pointers point into the buffer
 * that was parsed (which must outlive the struct); the options are checked
 * whole by wren_coap_parse(), so iterating them cannot fail.
 */
struct coap_msg {
    uint8_t type;            /**< enum coap_type */
    uint8_t tkl;             /**< token length, 0..8 */
    uint8_t code;
    uint16_t mid;            /**< message ID */
    uint8_t token[COAP_TOKEN_MAX];
    const uint8_t *opts;     /**< the options' bytes */
    size_t opts_len;
    const uint8_t *payload;  /**< after the marker; NULL when there is none */
    size_t payload_len;
};

/** One option: its number and value (pointing into the message). */
struct coap_opt {
    uint16_t num;
    uint16_t len;
    const uint8_t *val;
};

/** Walks a message's options in order. */
struct coap_opt_iter {
    const uint8_t *p;
    size_t left;
    uint32_t num;
};

/**
 * @brief Parse one CoAP message of @p len bytes.
 *
 * Beyond 4 bytes with version 1, @p m's type, tkl (when <= 8), code and mid
 * are filled even when a later check fails, so a malformed CON can be
 * answered with a RST.
 * @return 0, or -COAP_ERR_TRUNCATED, -COAP_ERR_VERSION, -COAP_ERR_TKL,
 *         -COAP_ERR_EMPTY, -COAP_ERR_OPT_TRUNC, -COAP_ERR_OPT_RESERVED,
 *         -COAP_ERR_OPT_NUM, -COAP_ERR_NO_PAYLOAD.
 */
int wren_coap_parse(const uint8_t *buf, size_t len, struct coap_msg *m);

/** @brief Bytes wren_coap_emit() writes for @p m. */
size_t wren_coap_len(const struct coap_msg *m);

/**
 * @brief Write @p m (header, token, its option bytes as they are, payload
 *        behind a marker when it has any).
 * @return the length, or -COAP_ERR_NOBUFS when @p len is below wren_coap_len().
 */
int wren_coap_emit(const struct coap_msg *m, uint8_t *buf, size_t len);

/** @brief Write what follows the header in either framing (UDP, or TCP's
 *         in wire/coap_tcp.c): the token, the option bytes as they are, and
 *         the payload behind a marker when there is one, from @p p, which
 *         the caller has checked has room. */
void wren_coap_emit_body(const struct coap_msg *m, uint8_t *p);

/** @brief Start walking @p m's options. */
void wren_coap_opt_iter_init(struct coap_opt_iter *it, const struct coap_msg *m);

/**
 * @brief The next option into @p o.
 * @return 1 (an option), 0 (no more), or a negative -COAP_ERR_x if the bytes
 *         are malformed (only for options that wren_coap_parse() did not check).
 */
int wren_coap_opt_next(struct coap_opt_iter *it, struct coap_opt *o);

/**
 * @brief Check a whole option list of @p len bytes (no payload marker).
 * @return 0 or a negative -COAP_ERR_OPT_x.
 */
int wren_coap_opts_check(const uint8_t *p, size_t len);

/**
 * @brief The first option number @p num of @p m into @p o.
 * @return 1 (found) or 0.
 */
int wren_coap_opt_find(const struct coap_msg *m, uint16_t num, struct coap_opt *o);

/**
 * @brief The value of uint option @p o (RFC 7252 3.2: big-endian, leading
 *        zero bytes allowed, empty is 0).
 * @return 0, or -COAP_ERR_INVAL when longer than 4 bytes.
 */
int wren_coap_opt_uint(const struct coap_opt *o, uint32_t *v);

/**
 * @brief Whether option @p num with a value of @p len bytes is one this
 *        code knows with a length inside its defined range (RFC 7252 5.4.3:
 *        a value outside the range is treated like an unrecognized option).
 */
bool wren_coap_opt_known(uint16_t num, size_t len);

/**
 * @brief Both of the above in one lookup: 0 for an option unknown or with a
 *        length outside its range, 1 a known one, 2 a known repeatable one.
 */
int wren_coap_opt_class(uint16_t num, size_t len);

/** Whether option @p num may occur more than once (RFC 7252 5.4.5). */
bool wren_coap_opt_repeatable(uint16_t num);

/** Bytes the minimal big-endian form of @p v takes: 0..4. */
uint8_t wren_coap_uint_len(uint32_t v);

/** A message under construction (wren_coap_build_*). */
struct coap_builder {
    uint8_t *buf;
    size_t cap;
    size_t len;
    uint16_t last;      /**< number of the last option written */
    int err;            /**< first error (sticky), 0 when none */
    bool done_opts;     /**< a payload was started: no more options */
};

/** @brief Start a message in @p buf[@p cap]: header and token. */
void wren_coap_build_init(struct coap_builder *b, uint8_t *buf, size_t cap, uint8_t type,
                          uint8_t code, uint16_t mid, const uint8_t *token, uint8_t tkl);

/** @brief Append option @p num (not below the previous one) with @p len bytes of @p val. */
void wren_coap_build_opt(struct coap_builder *b, uint16_t num, const void *val, size_t len);

/** @brief Append uint option @p num in its shortest form. */
void wren_coap_build_opt_uint(struct coap_builder *b, uint16_t num, uint32_t v);

/** @brief Append each '/'-separated segment of @p path as option @p num
 *         (Uri-Path, Location-Path); a leading '/' is skipped. */
void wren_coap_build_opt_path(struct coap_builder *b, uint16_t num, const char *path);

/** @brief Append each '&'-separated part of @p query ("k=v&x") as option
 *         @p num (Uri-Query, Location-Query). */
void wren_coap_build_opt_query(struct coap_builder *b, uint16_t num, const char *query);

/**
 * @brief Append the payload marker and @p len bytes of @p data (nothing when
 *        @p len is 0: an empty payload has no marker).
 */
void wren_coap_build_payload(struct coap_builder *b, const void *data, size_t len);

/**
 * @brief Reserve room for a payload of up to @p max bytes (the marker is
 *        written); the caller writes into the returned pointer, then calls
 *        wren_coap_build_payload_done() with the length used.
 * @return where the payload goes, or NULL (error set) without room.
 */
uint8_t *wren_coap_build_payload_start(struct coap_builder *b, size_t *max);

/** @brief @p len bytes were written at wren_coap_build_payload_start()'s pointer
 *         (0 removes the marker again). */
void wren_coap_build_payload_done(struct coap_builder *b, size_t len);

/** @return the message's length, or -COAP_ERR_NOBUFS / -COAP_ERR_INVAL. */
int wren_coap_build_end(const struct coap_builder *b);

/** A Block1/Block2 value (RFC 7959 2.2). */
struct coap_block {
    uint32_t num; /**< block number, < 2^20 */
    uint8_t more; /**< M */
    uint8_t szx;  /**< size exponent: size = 2^(szx + 4), 0..6 */
};

#define COAP_BLOCK_SIZE(szx) ((size_t)16u << (szx))
#define COAP_BLOCK_NUM_MAX 0xfffffu

/**
 * @brief Decode a block option's uint value @p v (0..3 bytes).
 * @return 0, or -COAP_ERR_INVAL for SZX 7 (reserved) or a value beyond 3 bytes.
 */
int wren_coap_block_decode(uint32_t v, struct coap_block *blk);

/** @brief Encode @p blk as a uint value; -COAP_ERR_INVAL if num or szx is out of range. */
int32_t wren_coap_block_encode(const struct coap_block *blk);

/** The largest SZX whose block fits @p bytes (-1 when below 16). */
int wren_coap_block_szx_fit(size_t bytes);

/** Observe sequence numbers are 24 bits (RFC 7641 3.4, 4.4). */
#define COAP_OBSERVE_MASK 0xffffffu
#define COAP_OBSERVE_REGISTER 0
#define COAP_OBSERVE_DEREGISTER 1

/**
 * @brief RFC 7641 3.4: whether a notification with sequence number @p v2
 *        received at @p t2_ms is newer than the one with @p v1 received at
 *        @p t1_ms (either by the 24-bit serial order, or because more than
 *        128 seconds passed).
 */
bool wren_coap_observe_fresher(uint32_t v1, uint64_t t1_ms, uint32_t v2, uint64_t t2_ms);

#endif

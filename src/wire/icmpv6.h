/**
 * @file icmpv6.h
 * @brief ICMPv6 (RFC 4443) and neighbor discovery (RFC 4861, RFC 4862,
 *        6LoWPAN-ND RFC 6775 / RFC 8505) wire formats: messages, ND options,
 *        checksum over the IPv6 pseudo-header. Pure: bytes in, struct or
 *        error out; nothing is read outside the given buffers.
 *
 * A message is a 4-byte header, a fixed part whose size depends on the type
 * and a variable tail (icmpv6_msg.data):
 *
 * @verbatim
 *  +------+------+----------+-------------------------+---------------------+
 *  | type | code | checksum | fixed part              | data                |
 *  |  1   |  1   |    2     | echo, errors, RS: 4     | echo data,          |
 *  |      |      |          | RA 12, NS/NA 20,        | invoking packet,    |
 *  |      |      |          | redirect 36,            | ND options, ...     |
 *  |      |      |          | DAR/DAC 28..52, else 0  |                     |
 *  +------+------+----------+-------------------------+---------------------+
 * @endverbatim
 *
 * ND options are type, length (units of 8 octets, never 0), value:
 * step through icmpv6_msg.data with wren_icmpv6_opt_next() and read each with the
 * icmpv6_opt_*_parse() for its type.
 *
 * Pointers in the structs refer into the parsed buffer (parse) or are copied
 * from (emit); the structs own nothing. Addresses are 16 bytes, network order.
 *
 * Receive:
 * @code
 *   struct icmpv6_msg m;
 *   if (wren_icmpv6_csum_check(ip.src, ip.dst, p, n) < 0 || wren_icmpv6_parse(p, n, &m) < 0)
 *       goto drop;
 *   if (m.type == ICMPV6_ND_NS) {
 *       struct icmpv6_opt_iter it;
 *       struct icmpv6_opt o;
 *       int rc;
 *       wren_icmpv6_opt_iter_init(&it, m.data, m.data_len);
 *       while ((rc = wren_icmpv6_opt_next(&it, &o)) > 0)
 *           if (o.type == ICMPV6_OPT_ARO) ... wren_icmpv6_opt_aro_parse(&o, &aro) ...
 *       if (rc < 0)
 *           goto drop;   // RFC 4861 4.6: a bad option invalidates the message
 *   }
 * @endcode
 *
 * Send (a neighbor solicitation with SLLAO and ARO):
 * @code
 *   struct icmpv6_msg m = { .type = ICMPV6_ND_NS, .nd.target = addr };
 *   int n = wren_icmpv6_emit(&m, buf, len);                          // 24
 *   n += wren_icmpv6_opt_lladdr_emit(ICMPV6_OPT_SLLAO, eui64, 8, buf + n, len - n);
 *   n += wren_icmpv6_opt_aro_emit(&aro, buf + n, len - n);
 *   put_be16(buf + 2, wren_icmpv6_csum(src, dst, buf, n));
 * @endcode
 * (check each return value for errors in real code).
 */
#ifndef WREN_WIRE_ICMPV6_H
#define WREN_WIRE_ICMPV6_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire/icmpv6_types.h"

/** Errors, returned negated (-ICMPV6_ERR_x). */
enum icmpv6_err {
    ICMPV6_ERR_TRUNCATED = 1, /**< message shorter than its type's minimum */
    ICMPV6_ERR_CODE,          /**< DAR/DAC code suffix above 4 (unknown ROVR size) */
    ICMPV6_ERR_CSUM,          /**< checksum does not verify */
    ICMPV6_ERR_OPT_LEN,       /**< ND option with length 0 (RFC 4861 4.6) */
    ICMPV6_ERR_OPT_TRUNCATED, /**< ND option runs past the end of the message */
    ICMPV6_ERR_OPT_SIZE,      /**< ND option length not one its type allows */
    ICMPV6_ERR_PREFIX_LEN,    /**< prefix or context length above 128, or above
                                   what the option carries */
    ICMPV6_ERR_INVAL,         /**< emit: a field value the format cannot carry */
    ICMPV6_ERR_NOBUFS,        /**< emit: output buffer too small */
    ICMPV6_ERR_OPT_PADDING,   /**< one-unit SLLAO/TLLAO whose padding is not zero: no
                                   address of the link's one-unit length (lwIP puts a
                                   6-byte MAC in an 802.15.4 option) */
};

/*
 * Message types and the common codes come from wire/icmpv6_types.h:
 * ICMPV6_DEST_UNREACH, _PKT_TOO_BIG, _TIME_EXCEEDED, _PARAM_PROBLEM (errors,
 * below 128), ICMPV6_ECHO_REQUEST/_REPLY, ICMPV6_ND_RS/_RA/_NS/_NA/_REDIRECT,
 * ICMPV6_DAR/_DAC, ICMPV6_UNREACH_*, ICMPV6_PARAM_*.
 */

/* Codes not (yet) in icmpv6_types.h (RFC 4443 3, RFC 6554, RFC 7112). */
#define ICMPV6_UNREACH_SCOPE 2
#define ICMPV6_UNREACH_POLICY 5
#define ICMPV6_UNREACH_REJECT 6
#define ICMPV6_UNREACH_SRH 7    /**< error in source routing header */
#define ICMPV6_TIME_HOP_LIMIT 0
#define ICMPV6_TIME_REASSEMBLY 1
#define ICMPV6_PARAM_CHAIN 3    /**< first fragment lacks the header chain */

/** Most bytes of an error message: it must fit the minimum MTU (RFC 4443
 *  2.4 (c)) behind a bare IPv6 header. Subtract any extension headers. */
#define ICMPV6_ERROR_MAX_LEN (1280 - 40)

/** icmpv6_ra.flags (RFC 4861 4.2); other bits (H, Prf) are kept as they are. */
#define ICMPV6_RA_M 0x80 /**< managed address configuration */
#define ICMPV6_RA_O 0x40 /**< other configuration */
/** icmpv6_nd.flags for NA (RFC 4861 4.4). */
#define ICMPV6_NA_R 0x80 /**< router */
#define ICMPV6_NA_S 0x40 /**< solicited */
#define ICMPV6_NA_O 0x20 /**< override */

/** Router advertisement body (RFC 4861 4.2). */
struct icmpv6_ra {
    uint8_t cur_hop_limit;
    uint8_t flags;            /**< ICMPV6_RA_* */
    uint16_t router_lifetime; /**< seconds */
    uint32_t reachable_time;  /**< milliseconds */
    uint32_t retrans_timer;   /**< milliseconds */
};

/** NS, NA and redirect bodies (RFC 4861 4.3, 4.4, 4.5). */
struct icmpv6_nd {
    uint8_t flags;         /**< NA: ICMPV6_NA_*; parse leaves 0 for NS/redirect */
    const uint8_t *target; /**< target address */
    const uint8_t *dst;    /**< redirect only: destination address */
};

/** DAR/DAC body (RFC 6775 4.4; EDAR/EDAC RFC 8505 4.2). The low four bits
 *  of the code (code suffix) give the ROVR size: 0 the 8-byte EUI-64 of
 *  RFC 6775, 1..4 an 8/16/24/32-byte ROVR. */
struct icmpv6_dar {
    uint8_t status;       /**< ICMPV6_ARO_* (DAC) */
    uint8_t tid;          /**< transaction id (EDAR/EDAC; reserved in RFC 6775) */
    uint16_t lifetime;    /**< registration lifetime, units of 60 s */
    const uint8_t *rovr;  /**< EUI-64 or ROVR, rovr_len bytes */
    uint8_t rovr_len;     /**< parse: from the code; emit: must match the code */
    const uint8_t *addr;  /**< registered address */
};

/** A message. The union member in use follows the type. */
struct icmpv6_msg {
    uint8_t type;
    uint8_t code;
    uint16_t csum; /**< as received; emit writes 0 */
    union {
        struct {
            uint16_t id;
            uint16_t seq;
        } echo;                /**< echo request/reply */
        uint32_t param;        /**< error types 1-4: packet too big MTU, parameter
                                    problem pointer; unused (0) for 1 and 3 */
        struct icmpv6_ra ra;   /**< RA */
        struct icmpv6_nd nd;   /**< NS, NA, redirect */
        struct icmpv6_dar dar; /**< DAR, DAC */
    };
    const uint8_t *data; /**< after the fixed part: echo data, the invoking packet,
                              ND options (RS, RA, NS, NA, redirect); unknown types:
                              everything after the 4-byte header */
    size_t data_len;
};

/**
 * @brief Parse a message: header, the fixed part of its type, data.
 *
 * Checks only the length (and the DAR/DAC code suffix), not the checksum, the
 * code or the ND validity rules of RFC 4861 (hop limit 255, code 0, ...):
 * those are the caller's. Options are not walked.
 * @param[in]  buf Message, from the type byte; must outlive @p m.
 * @param[in]  len Bytes in @p buf (the upper-layer length).
 * @param[out] m   Result; zeroed first.
 * @return 0.
 * @return -ICMPV6_ERR_TRUNCATED if @p len is below the minimum of the type:
 *         4 (unknown types), 8 (errors 1-4, echo, RS), 16 (RA), 24 (NS, NA),
 *         40 (redirect), 32..56 (DAR/DAC, by ROVR size).
 * @return -ICMPV6_ERR_CODE for DAR/DAC with a code suffix above 4.
 */
int wren_icmpv6_parse(const uint8_t *buf, size_t len, struct icmpv6_msg *m);

/**
 * @brief Bytes wren_icmpv6_emit() writes given enough room (data not truncated).
 * @return Bytes, or -ICMPV6_ERR_CODE as for parse.
 */
int wren_icmpv6_len(const struct icmpv6_msg *m);

/**
 * @brief Write a message with a zero checksum: header, fixed part, data.
 *
 * For error messages (types below 128) @p len is the budget: the invoking
 * packet (m->data) is quoted only as far as it fits, so pass at most
 * ICMPV6_ERROR_MAX_LEN minus any extension headers (RFC 4443 2.4 (c)). Other
 * types must fit whole. m->data may overlap @p buf (it is moved first), and
 * the address pointers may point at their own place in @p buf (emit in place,
 * e.g. turning an echo request into a reply).
 * Fill in the checksum last with wren_icmpv6_csum(), after appending options.
 * @param[in]  m   Message; the union member of its type, data/data_len.
 * @param[out] buf Output; nothing is written on error.
 * @param[in]  len Bytes available in @p buf.
 * @return Bytes written.
 * @return -ICMPV6_ERR_NOBUFS if the fixed part (or, for non-errors, the data)
 *         does not fit.
 * @return -ICMPV6_ERR_CODE as for parse; -ICMPV6_ERR_INVAL if dar.rovr_len
 *         does not match the code.
 */
int wren_icmpv6_emit(const struct icmpv6_msg *m, uint8_t *buf, size_t len);

/**
 * @brief Write an error message (types 1-4) quoting as much of the invoking
 *        packet as @p len allows: wren_icmpv6_emit() of {type, code, param, data}.
 * @param[in] param     Packet too big: the MTU; parameter problem: the
 *                      pointer; 0 otherwise.
 * @param[in] pkt       The invoking packet from its IPv6 header.
 * @param[in] len       The budget, at most ICMPV6_ERROR_MAX_LEN.
 * @return Bytes written (8 + what was quoted), -ICMPV6_ERR_NOBUFS if len < 8.
 */
static inline int wren_icmpv6_error_emit(uint8_t type, uint8_t code, uint32_t param,
                                    const uint8_t *pkt, size_t pkt_len, uint8_t *buf,
                                    size_t len)
{
    struct icmpv6_msg m = { .type = type, .code = code, .param = param, .data = pkt,
                            .data_len = pkt_len };
    return wren_icmpv6_emit(&m, buf, len);
}

/**
 * @brief Write an echo request or reply (RFC 4443 4.1, 4.2).
 * @return Bytes written (8 + data_len), -ICMPV6_ERR_NOBUFS.
 */
static inline int wren_icmpv6_echo_emit(uint8_t type, uint16_t id, uint16_t seq,
                                   const uint8_t *data, size_t data_len, uint8_t *buf,
                                   size_t len)
{
    struct icmpv6_msg m = { .type = type, .echo = { id, seq }, .data = data,
                            .data_len = data_len };
    return wren_icmpv6_emit(&m, buf, len);
}

/**
 * @brief The checksum to store in a message (RFC 4443 2.3): over the IPv6
 *        pseudo-header (RFC 8200 8.1) and @p msg with its checksum field
 *        taken as zero, whatever it holds.
 * @param[in] src, dst IPv6 source and destination (16 bytes each).
 * @param[in] msg      The message; @p len bytes.
 * @return The value for bytes 2-3 (put_be16()).
 */
uint16_t wren_icmpv6_csum(const uint8_t *src, const uint8_t *dst, const uint8_t *msg, size_t len);

/**
 * @brief Verify the checksum of a received message.
 * @return 0 if it verifies.
 * @return -ICMPV6_ERR_TRUNCATED if @p len < 4; -ICMPV6_ERR_CSUM otherwise.
 */
int wren_icmpv6_csum_check(const uint8_t *src, const uint8_t *dst, const uint8_t *msg, size_t len);

/* ---- ND options (RFC 4861 4.6, RFC 6775 4) ---- */

/** Option types. */
enum {
    ICMPV6_OPT_SLLAO = 1, /**< source link-layer address */
    ICMPV6_OPT_TLLAO = 2, /**< target link-layer address */
    ICMPV6_OPT_PIO = 3,   /**< prefix information */
    ICMPV6_OPT_RHO = 4,   /**< redirected header */
    ICMPV6_OPT_MTU = 5,
    ICMPV6_OPT_ARO = 33,  /**< (extended) address registration */
    ICMPV6_OPT_6CO = 34,  /**< 6LoWPAN context */
    ICMPV6_OPT_ABRO = 35, /**< authoritative border router */
};

/** Registration status (ARO and DAC; RFC 6775 4.1, RFC 8505 4.1). */
enum {
    ICMPV6_ARO_SUCCESS = 0,
    ICMPV6_ARO_DUPLICATE = 1,
    ICMPV6_ARO_NC_FULL = 2,
    ICMPV6_ARO_MOVED = 3,
    ICMPV6_ARO_REMOVED = 4,
};

/** icmpv6_aro.flags (RFC 8505 4.1): I (2 bits), R, T. All 0 in an RFC 6775 ARO. */
#define ICMPV6_ARO_T 0x01      /**< TID field is valid (EARO) */
#define ICMPV6_ARO_R 0x02      /**< register to be routed */
#define ICMPV6_ARO_I_MASK 0x0c /**< I field: what the ROVR is */
/** icmpv6_pio.flags (RFC 4861 4.6.2). */
#define ICMPV6_PIO_L 0x80 /**< on-link */
#define ICMPV6_PIO_A 0x40 /**< autonomous address configuration */
/** icmpv6_6co.flags (RFC 6775 4.2): C and the context id. */
#define ICMPV6_6CO_C 0x10
#define ICMPV6_6CO_CID_MASK 0x0f

/** Where wren_icmpv6_opt_next() is in a list of options. */
struct icmpv6_opt_iter {
    const uint8_t *p;
    size_t left;
};

/** One option. */
struct icmpv6_opt {
    uint8_t type;
    uint8_t len;      /**< length field: units of 8 octets, >= 1 */
    const uint8_t *p; /**< the option from its type byte: len * 8 bytes */
};

/** Link-layer address option (SLLAO/TLLAO). */
struct icmpv6_lladdr {
    const uint8_t *addr; /**< as on the link in canonical (big-endian) order */
    uint8_t len;         /**< bytes: 8, or the one-unit length of the link */
};

/** Prefix information option (RFC 4861 4.6.2). */
struct icmpv6_pio {
    uint8_t prefix_len;  /**< bits, <= 128 */
    uint8_t flags;       /**< ICMPV6_PIO_*; other bits kept */
    uint32_t valid;      /**< valid lifetime, seconds (0xffffffff: infinity) */
    uint32_t preferred;  /**< preferred lifetime, seconds */
    const uint8_t *prefix; /**< 16 bytes */
};

/** Address registration option, ARO (RFC 6775 4.1) or EARO (RFC 8505 4.1). */
struct icmpv6_aro {
    uint8_t status;      /**< ICMPV6_ARO_*; 0 in NS */
    uint8_t opaque;      /**< EARO opaque field; 0 in ARO */
    uint8_t flags;       /**< ICMPV6_ARO_T/R/I_MASK; 0 in ARO */
    uint8_t tid;         /**< transaction id if T; 0 in ARO */
    uint16_t lifetime;   /**< registration lifetime, units of 60 s */
    const uint8_t *rovr; /**< EUI-64 (ARO) or ROVR */
    uint8_t rovr_len;    /**< 8, 16, 24 or 32 (option length 2..5) */
};

/** 6LoWPAN context option, 6CO (RFC 6775 4.2). */
struct icmpv6_6co {
    uint8_t ctx_len;       /**< context length, bits, <= 128 */
    uint8_t flags;         /**< ICMPV6_6CO_C | context id */
    uint16_t lifetime;     /**< valid lifetime, units of 60 s */
    const uint8_t *prefix; /**< parse: 8 or 16 bytes (option length 2 or 3);
                                emit: (ctx_len + 7) / 8 bytes are read */
};

/** Authoritative border router option, ABRO (RFC 6775 4.3). */
struct icmpv6_abro {
    uint32_t version;    /**< version high << 16 | version low */
    uint16_t lifetime;   /**< valid lifetime, units of 60 s (0: default 10000) */
    const uint8_t *addr; /**< 6LBR address */
};

/** @brief Start stepping through @p len bytes of options at @p opts. */
static inline void wren_icmpv6_opt_iter_init(struct icmpv6_opt_iter *it, const uint8_t *opts,
                                        size_t len)
{
    it->p = opts;
    it->left = len;
}

/**
 * @brief The next option (RFC 4861 4.6).
 * @param[in,out] it Iterator; on error it stays put, so the error repeats.
 * @param[out]    o  The option, when 1 is returned.
 * @return 1 with @p o; 0 at the end of the list.
 * @return -ICMPV6_ERR_OPT_LEN for a length of 0.
 * @return -ICMPV6_ERR_OPT_TRUNCATED if the option (or its 2-byte header) runs
 *         past the end.
 */
int wren_icmpv6_opt_next(struct icmpv6_opt_iter *it, struct icmpv6_opt *o);

/*
 * Typed option parsers. Each takes an option from wren_icmpv6_opt_next() (of the
 * type it reads: the type is not checked) and returns 0, or
 * -ICMPV6_ERR_OPT_SIZE if the option length is not one the type allows.
 */

/**
 * @brief SLLAO/TLLAO. A two-unit option carries an 8-byte (EUI-64) address;
 *        a one-unit option carries @p unit_len bytes, which depends on the
 *        link: 2 for an IEEE 802.15.4 short address (RFC 4944 8), 6 for
 *        Ethernet or BLE. The rest of the option is padding, zero in a
 *        one-unit option (RFC 4944 8): anything else there means the
 *        address is not @p unit_len bytes long, and the option is refused.
 *        (A two-unit option's 8 bytes are unambiguous; its padding is not
 *        checked.)
 * @param[in] unit_len 1..6.
 * @return 0, -ICMPV6_ERR_OPT_SIZE (length not 1 or 2), -ICMPV6_ERR_OPT_PADDING
 *         (one unit, padding not zero), -ICMPV6_ERR_INVAL (@p unit_len out
 *         of range).
 */
int wren_icmpv6_opt_lladdr_parse(const struct icmpv6_opt *o, uint8_t unit_len,
                            struct icmpv6_lladdr *ll);
/** @brief PIO: length 4. @return 0, -ICMPV6_ERR_OPT_SIZE, -ICMPV6_ERR_PREFIX_LEN (> 128). */
int wren_icmpv6_opt_pio_parse(const struct icmpv6_opt *o, struct icmpv6_pio *pio);
/** @brief MTU option: length 1. @return 0, -ICMPV6_ERR_OPT_SIZE. */
int wren_icmpv6_opt_mtu_parse(const struct icmpv6_opt *o, uint32_t *mtu);
/** @brief ARO/EARO: length 2..5 (ROVR 8..32 bytes). @return 0, -ICMPV6_ERR_OPT_SIZE. */
int wren_icmpv6_opt_aro_parse(const struct icmpv6_opt *o, struct icmpv6_aro *aro);
/** @brief 6CO: length 2 or 3 (prefix field of 8 or 16 bytes).
 *  @return 0, -ICMPV6_ERR_OPT_SIZE, -ICMPV6_ERR_PREFIX_LEN (context length
 *          above 128 or above the prefix field). */
int wren_icmpv6_opt_6co_parse(const struct icmpv6_opt *o, struct icmpv6_6co *c);
/** @brief ABRO: length 3. @return 0, -ICMPV6_ERR_OPT_SIZE. */
int wren_icmpv6_opt_abro_parse(const struct icmpv6_opt *o, struct icmpv6_abro *a);

/*
 * Option emitters. Each writes one whole option, reserved fields and padding
 * zero, and returns its length in bytes, or -ICMPV6_ERR_NOBUFS if @p len is
 * too small (nothing is written then). Input pointers must not point into
 * the output.
 */

/** @brief SLLAO (type ICMPV6_OPT_SLLAO) or TLLAO: @p addr_len 1..14 bytes,
 *         zero-padded to 8 or 16. @return 8 or 16, -ICMPV6_ERR_INVAL, -NOBUFS. */
int wren_icmpv6_opt_lladdr_emit(uint8_t type, const uint8_t *addr, size_t addr_len, uint8_t *buf,
                           size_t len);
/** @brief PIO. @return 32, -ICMPV6_ERR_PREFIX_LEN (> 128), -ICMPV6_ERR_NOBUFS. */
int wren_icmpv6_opt_pio_emit(const struct icmpv6_pio *pio, uint8_t *buf, size_t len);
/** @brief MTU option. @return 8, -ICMPV6_ERR_NOBUFS. */
int wren_icmpv6_opt_mtu_emit(uint32_t mtu, uint8_t *buf, size_t len);
/** @brief ARO/EARO. @return 16..40, -ICMPV6_ERR_INVAL (rovr_len not 8/16/24/32),
 *         -ICMPV6_ERR_NOBUFS. */
int wren_icmpv6_opt_aro_emit(const struct icmpv6_aro *aro, uint8_t *buf, size_t len);
/** @brief 6CO: length 2 if ctx_len <= 64, else 3; the prefix beyond ctx_len
 *         bytes is zero. @return 16 or 24, -ICMPV6_ERR_PREFIX_LEN, -NOBUFS. */
int wren_icmpv6_opt_6co_emit(const struct icmpv6_6co *c, uint8_t *buf, size_t len);
/** @brief ABRO. @return 24, -ICMPV6_ERR_NOBUFS. */
int wren_icmpv6_opt_abro_emit(const struct icmpv6_abro *a, uint8_t *buf, size_t len);

#endif

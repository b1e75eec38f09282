/**
 * @file rpl.h
 * @brief RPL wire formats: control messages and options (RFC 6550 6), the
 *        RPL option carried in a hop-by-hop header (RPI, RFC 6553 / RFC 9008)
 *        and the RPL source routing header (SRH, RFC 6554). Pure: bytes in,
 *        struct or error out; nothing is read or written outside the given
 *        buffers.
 *
 * A control message is ICMPv6 type 155; the code says which (DIS, DIO, DAO,
 * DAO-ACK); a base of fixed size follows the 4-byte ICMPv6 header, then
 * options up to the end of the message:
 *
 * @verbatim
 *  +-----+------+------+------------------------------------+-------------+
 *  | 155 | code | csum | base: DIS 2, DIO 24, DAO 4 (+16 if  | options ... |
 *  |     |      |      | D), DAO-ACK 4 (+16 if D)            |             |
 *  +-----+------+------+------------------------------------+-------------+
 * @endverbatim
 *
 * RPL options are type, length in octets (not units, and not counting the two
 * header bytes), data. Pad1 is a single zero byte. wren_rpl_opt_next() steps
 * over Pad1/PadN and returns the rest; each typed parser takes one option.
 *
 * The SRH (routing type 3) carries n addresses; all but the last have their
 * first CmprI octets elided, the last its first CmprE octets, taken from the
 * IPv6 destination address; Pad octets end the header on 8 octets:
 *
 * @verbatim
 *  | next | hdr ext len | 3 | segs left | CmprI CmprE | Pad rsv | rsv (2) |
 *  | Address[1] (16 - CmprI) ... Address[n-1] | Address[n] (16 - CmprE) | pad |
 * @endverbatim
 *
 * Receive a DIO:
 * @code
 *   struct rpl_msg m;
 *   if (wren_rpl_msg_parse(buf, len, &m) < 0 || m.code != RPL_CODE_DIO) goto drop;
 *   struct rpl_opt_iter it; struct rpl_opt o; int rc;
 *   wren_rpl_opt_iter_init(&it, m.opts, m.opts_len);
 *   while ((rc = wren_rpl_opt_next(&it, &o)) > 0)
 *       if (o.type == RPL_OPT_CONFIG && wren_rpl_opt_config_parse(&o, &cfg) < 0) goto drop;
 *   if (rc < 0) goto drop;
 * @endcode
 */
#ifndef WREN_WIRE_RPL_H
#define WREN_WIRE_RPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** ICMPv6 type of RPL control messages (RFC 6550 6). */
#define ICMPV6_RPL 155

/** Message codes (RFC 6550 6). Secure variants (0x80..0x83) and the
 *  consistency check (0x8a) are not parsed: -RPL_ERR_CODE. */
enum {
    RPL_CODE_DIS = 0x00,
    RPL_CODE_DIO = 0x01,
    RPL_CODE_DAO = 0x02,
    RPL_CODE_DAO_ACK = 0x03,
};

/** Errors, returned negated (-RPL_ERR_x). */
enum rpl_err {
    RPL_ERR_TRUNCATED = 1, /**< shorter than the fixed part its fields imply */
    RPL_ERR_TYPE,          /**< not ICMPv6 type 155 / not routing type 3 */
    RPL_ERR_CODE,          /**< a message code this parser does not know */
    RPL_ERR_OPT_TRUNCATED, /**< an option runs past the end of the message */
    RPL_ERR_OPT_SIZE,      /**< an option length its type does not allow */
    RPL_ERR_PREFIX_LEN,    /**< prefix length above 128 or above the bytes carried */
    RPL_ERR_SRH_LEN,       /**< SRH: CmprI/CmprE/Pad and the length give no whole
                                number of addresses (at least one) */
    RPL_ERR_SRH_SEGS,      /**< SRH: segments left above the number of addresses */
    RPL_ERR_SRH_MCAST,     /**< SRH: next address or destination is multicast */
    RPL_ERR_SRH_LOOP,      /**< SRH: the next address is ours, or two of ours with
                                another between */
    RPL_ERR_INVAL,         /**< emit: a value the format cannot carry */
    RPL_ERR_NOBUFS,        /**< emit: output buffer too small */
};

/* ---- control messages (RFC 6550 6.2 - 6.5) ---- */

/** DIO MOP values (RFC 6550 6.3.1). */
enum {
    RPL_MOP_NO_DOWN = 0,
    RPL_MOP_NON_STORING = 1,
    RPL_MOP_STORING = 2,
    RPL_MOP_STORING_MCAST = 3,
};

/** DIO flags byte 4 of the base: G, MOP (3 bits), Prf (3 bits). */
#define RPL_DIO_G 0x80
#define RPL_DIO_MOP(b) (((b) >> 3) & 7)
#define RPL_DIO_PRF(b) ((b) & 7)
/** DAO flags. */
#define RPL_DAO_K 0x80 /**< an ACK is wanted */
#define RPL_DAO_D 0x40 /**< DODAGID present (set by emit from dodagid) */
/** DAO-ACK flags. */
#define RPL_DAO_ACK_D 0x80 /**< DODAGID present (set by emit from dodagid) */

/** DAO-ACK status (RFC 6550 6.5, RFC 9010 12.6): 0 accepted, 1..127
 *  accepted with a warning, 128..255 rejected. */
enum {
    RPL_DAO_ACK_OK = 0,
    RPL_DAO_ACK_UNABLE_TO_ACCEPT = 128, /**< RFC 6550; RFC 9010 12.6: "unqualified
                                             rejection" (no room, another mode) */
};

/** Infinite rank (RFC 6550 17). */
#define RPL_INFINITE_RANK 0xffff

/** DIS base (RFC 6550 6.2.1). */
struct rpl_dis {
    uint8_t flags;
};

/** DIO base (RFC 6550 6.3.1). */
struct rpl_dio {
    uint8_t instance;
    uint8_t version;
    uint16_t rank;
    uint8_t g_mop_prf; /**< RPL_DIO_G | MOP << 3 | Prf; bit 6 kept as read */
    uint8_t dtsn;
    uint8_t flags;
    const uint8_t *dodagid; /**< 16 bytes */
};

/** DAO base (RFC 6550 6.4.1). */
struct rpl_dao {
    uint8_t instance;
    uint8_t flags;          /**< RPL_DAO_K, other bits kept; D follows dodagid */
    uint8_t seq;
    const uint8_t *dodagid; /**< 16 bytes, or NULL (no D flag) */
};

/** DAO-ACK base (RFC 6550 6.5.1). */
struct rpl_dao_ack {
    uint8_t instance;
    uint8_t flags; /**< D follows dodagid; the other bits kept */
    uint8_t seq;
    uint8_t status;
    const uint8_t *dodagid; /**< 16 bytes, or NULL */
};

/** A control message. The union member in use follows the code. */
struct rpl_msg {
    uint8_t code;
    uint16_t csum; /**< as received; emit writes 0 */
    union {
        struct rpl_dis dis;
        struct rpl_dio dio;
        struct rpl_dao dao;
        struct rpl_dao_ack dao_ack;
    };
    const uint8_t *opts; /**< options after the base */
    size_t opts_len;
};

/**
 * @brief Parse a control message from its ICMPv6 type byte.
 *
 * Checks the type, the code and the length of the base; not the checksum
 * and not the options (walk them with wren_rpl_opt_next()).
 * @param[in]  buf The ICMPv6 message; must outlive @p m.
 * @param[in]  len Its length.
 * @param[out] m   Result; zeroed first.
 * @return 0; -RPL_ERR_TRUNCATED (below 4 or the base of the code),
 *         -RPL_ERR_TYPE (not 155), -RPL_ERR_CODE (not DIS/DIO/DAO/DAO-ACK).
 */
int wren_rpl_msg_parse(const uint8_t *buf, size_t len, struct rpl_msg *m);

/** @brief Bytes wren_rpl_msg_emit() writes; -RPL_ERR_CODE for an unknown code. */
int wren_rpl_msg_len(const struct rpl_msg *m);

/**
 * @brief Write a control message with a zero checksum: header, base, then
 *        m->opts copied (it may be emitted options, or none). The pointers
 *        of @p m (options, DODAGID) point outside @p buf or at their own
 *        place in it (emitting over what was parsed from it); no other
 *        overlap. The typed options' emits take the same.
 * @return Bytes written; -RPL_ERR_NOBUFS (nothing written), -RPL_ERR_CODE.
 */
int wren_rpl_msg_emit(const struct rpl_msg *m, uint8_t *buf, size_t len);

/* ---- options (RFC 6550 6.7) ---- */

enum {
    RPL_OPT_PAD1 = 0x00,
    RPL_OPT_PADN = 0x01,
    RPL_OPT_METRIC = 0x02, /**< DAG metric container: content not parsed */
    RPL_OPT_ROUTE = 0x03,  /**< route information */
    RPL_OPT_CONFIG = 0x04, /**< DODAG configuration */
    RPL_OPT_TARGET = 0x05, /**< RPL target */
    RPL_OPT_TRANSIT = 0x06,
    RPL_OPT_SOLICITED = 0x07,
    RPL_OPT_PREFIX = 0x08, /**< prefix information */
};

/** Where wren_rpl_opt_next() is in a list of options. */
struct rpl_opt_iter {
    const uint8_t *p;
    size_t left;
};

/** One option (not Pad1/PadN). */
struct rpl_opt {
    uint8_t type;
    uint8_t len;         /**< length field: bytes of data */
    const uint8_t *data; /**< the option's data, after type and length */
};

/** @brief Start stepping through @p len bytes of options at @p opts. */
static inline void wren_rpl_opt_iter_init(struct rpl_opt_iter *it, const uint8_t *opts,
                                          size_t len)
{
    it->p = opts;
    it->left = len;
}

/**
 * @brief The next option, Pad1 and PadN skipped (RFC 6550 6.7.1).
 * @param[in,out] it Iterator; on error it stays put, so the error repeats.
 * @return 1 with @p o; 0 at the end; -RPL_ERR_OPT_TRUNCATED if an option's
 *         header or data runs past the end.
 */
int wren_rpl_opt_next(struct rpl_opt_iter *it, struct rpl_opt *o);

/**
 * @brief Write PadN (or Pad1 when @p n is 1) covering @p n bytes (1..7).
 * @return n; -RPL_ERR_INVAL, -RPL_ERR_NOBUFS.
 */
int wren_rpl_opt_pad_emit(size_t n, uint8_t *buf, size_t len);

/**
 * @brief Write an option of @p type with @p data_len bytes of @p data
 *        (a DAG metric container, or one already encoded).
 * @return 2 + data_len; -RPL_ERR_INVAL (above 255), -RPL_ERR_NOBUFS.
 */
int wren_rpl_opt_raw_emit(uint8_t type, const uint8_t *data, size_t data_len, uint8_t *buf,
                          size_t len);

/** Route information (RFC 6550 6.7.5). */
struct rpl_opt_route {
    uint8_t prefix_len;    /**< bits, <= 128 */
    uint8_t flags;         /**< Prf in bits 4-3, other bits kept */
    uint32_t lifetime;     /**< seconds, 0xffffffff infinity */
    const uint8_t *prefix; /**< prefix_bytes bytes */
    uint8_t prefix_bytes;  /**< parse: as carried (>= (prefix_len + 7) / 8, <= 16);
                                emit: written as given */
};

/** DODAG configuration (RFC 6550 6.7.6). */
struct rpl_opt_config {
    uint8_t flags;       /**< A (0x08) and PCS (0x07); other bits kept */
    uint8_t dio_int_doublings;
    uint8_t dio_int_min; /**< Imin = 2^dio_int_min ms */
    uint8_t dio_redundancy;
    uint16_t max_rank_inc;
    uint16_t min_hop_rank_inc;
    uint16_t ocp;        /**< objective code point: 0 OF0, 1 MRHOF */
    uint8_t def_lifetime;
    uint16_t lifetime_unit; /**< seconds */
};
#define RPL_CONFIG_A 0x08
#define RPL_CONFIG_PCS(f) ((f) & 7)

/** RPL target (RFC 6550 6.7.7). */
struct rpl_opt_target {
    uint8_t flags;
    uint8_t prefix_len;    /**< bits, <= 128 */
    const uint8_t *prefix; /**< prefix_bytes bytes */
    uint8_t prefix_bytes;  /**< as for rpl_opt_route */
};

/** Transit information E flag: the target is external (RFC 6550 6.7.8; a
 *  6LR's RPL-unaware leaf, RFC 9010 9.2.2). */
#define RPL_TRANSIT_E 0x80

/** Transit information (RFC 6550 6.7.8). */
struct rpl_opt_transit {
    uint8_t flags; /**< E (0x80) and the rest, kept */
    uint8_t path_control;
    uint8_t path_seq;
    uint8_t path_lifetime;  /**< units of the config's lifetime unit; 0 no-path */
    const uint8_t *parent;  /**< 16 bytes (non-storing), or NULL */
};

/** Solicited information (RFC 6550 6.7.9). */
struct rpl_opt_solicited {
    uint8_t instance;
    uint8_t flags;          /**< V 0x80, I 0x40, D 0x20, rest kept */
    const uint8_t *dodagid; /**< 16 bytes */
    uint8_t version;
};
#define RPL_SOL_V 0x80
#define RPL_SOL_I 0x40
#define RPL_SOL_D 0x20

/** Prefix information (RFC 6550 6.7.10). */
struct rpl_opt_prefix {
    uint8_t prefix_len; /**< bits, <= 128 */
    uint8_t flags;      /**< L 0x80, A 0x40, R 0x20, rest kept */
    uint32_t valid;     /**< seconds */
    uint32_t preferred; /**< seconds */
    const uint8_t *prefix; /**< 16 bytes */
};
#define RPL_PIO_L 0x80
#define RPL_PIO_A 0x40
#define RPL_PIO_R 0x20

/*
 * Typed options: parse takes an option wren_rpl_opt_next() returned and
 * checks its length (-RPL_ERR_OPT_SIZE) and prefix length
 * (-RPL_ERR_PREFIX_LEN); the type is the caller's to check. Emit writes the
 * whole option (type, length, data) and returns its size, or
 * -RPL_ERR_NOBUFS (nothing written) / -RPL_ERR_INVAL.
 * Lengths: route 6..22, config 14, target 2..18, transit 4 or 20,
 * solicited 19, prefix 30.
 */
int wren_rpl_opt_route_parse(const struct rpl_opt *o, struct rpl_opt_route *r);
int wren_rpl_opt_route_emit(const struct rpl_opt_route *r, uint8_t *buf, size_t len);
int wren_rpl_opt_config_parse(const struct rpl_opt *o, struct rpl_opt_config *c);
int wren_rpl_opt_config_emit(const struct rpl_opt_config *c, uint8_t *buf, size_t len);
int wren_rpl_opt_target_parse(const struct rpl_opt *o, struct rpl_opt_target *t);
int wren_rpl_opt_target_emit(const struct rpl_opt_target *t, uint8_t *buf, size_t len);
int wren_rpl_opt_transit_parse(const struct rpl_opt *o, struct rpl_opt_transit *t);
int wren_rpl_opt_transit_emit(const struct rpl_opt_transit *t, uint8_t *buf, size_t len);
int wren_rpl_opt_solicited_parse(const struct rpl_opt *o, struct rpl_opt_solicited *s);
int wren_rpl_opt_solicited_emit(const struct rpl_opt_solicited *s, uint8_t *buf, size_t len);
int wren_rpl_opt_prefix_parse(const struct rpl_opt *o, struct rpl_opt_prefix *p);
int wren_rpl_opt_prefix_emit(const struct rpl_opt_prefix *p, uint8_t *buf, size_t len);

/* ---- the RPL option in a hop-by-hop header (RFC 6553, RFC 9008) ---- */

/** Option type: RFC 9008's 0x23 (action bits 00: routers outside the RPL
 *  domain skip it) is what wren sends; RFC 6553's 0x63 is accepted too. */
#define RPL_RPI_TYPE 0x23
#define RPL_RPI_TYPE_6553 0x63
/** Opt Data Len of an RPI without sub-TLVs. */
#define RPL_RPI_LEN 4
/** Flags (RFC 6553 3). */
#define RPL_RPI_O 0x80 /**< down: the packet travels away from the root */
#define RPL_RPI_R 0x40 /**< rank error seen */
#define RPL_RPI_F 0x20 /**< forwarding error */

/** The RPI. */
struct rpl_rpi {
    uint8_t flags; /**< RPL_RPI_O/R/F; low bits kept */
    uint8_t instance;
    uint16_t rank; /**< SenderRank */
};

/**
 * @brief Parse an RPI from its option data (after type and Opt Data Len).
 * @param[in] data, len The option data; sub-TLVs past 4 bytes are ignored.
 * @return 0; -RPL_ERR_OPT_SIZE if @p len < 4.
 */
int wren_rpl_rpi_parse(const uint8_t *data, size_t len, struct rpl_rpi *r);

/**
 * @brief Write a hop-by-hop header of 8 bytes holding only the RPI (type
 *        RPL_RPI_TYPE): next header, length 0, the 6-byte option.
 * @return 8; -RPL_ERR_NOBUFS.
 */
int wren_rpl_rpi_hbh_emit(uint8_t next, const struct rpl_rpi *r, uint8_t *buf, size_t len);

/* ---- source routing header (RFC 6554) ---- */

/** Routing type of the SRH. */
#define RPL_SRH_TYPE 3
/** Most bytes an SRH can have ((255 + 1) * 8). */
#define RPL_SRH_MAX_LEN 2048

/** An SRH. */
struct rpl_srh {
    uint8_t next;
    uint8_t segs_left;
    uint8_t cmpr_i, cmpr_e, pad;
    uint16_t n;            /**< addresses carried */
    const uint8_t *addrs;  /**< Address[1] */
    size_t len;            /**< the header's bytes, (hdr ext len + 1) * 8 */
};

/**
 * @brief Parse an SRH (routing type 3) from its Next Header byte.
 *
 * n = ((hdr ext len * 8) - Pad - (16 - CmprE)) / (16 - CmprI) + 1 must be a
 * whole number of at least 1 (RFC 6554 3). Segments left is not checked
 * against n here: that is processing (wren_rpl_srh_process()).
 * @return 0; -RPL_ERR_TRUNCATED (header past @p len), -RPL_ERR_TYPE,
 *         -RPL_ERR_SRH_LEN.
 */
int wren_rpl_srh_parse(const uint8_t *buf, size_t len, struct rpl_srh *s);

/**
 * @brief Address[i] (1..n) expanded with the elided octets of @p dst.
 */
void wren_rpl_srh_addr(const struct rpl_srh *s, unsigned i, const uint8_t dst[16],
                       uint8_t out[16]);

/**
 * @brief Bytes of the SRH that wren_rpl_srh_emit() writes for @p hops.
 * @return Bytes (a multiple of 8), -RPL_ERR_INVAL if n is 0 or the header
 *         would pass 2,048 bytes.
 */
int wren_rpl_srh_len(const uint8_t (*hops)[16], size_t n, const uint8_t dst[16]);

/**
 * @brief Write an SRH routing a packet whose IPv6 destination is @p dst (the
 *        first hop) through @p hops[0..n-1] (the last is the final
 *        destination), compressed: CmprI is the octets all but the last share
 *        with @p dst, CmprE those the last shares; segments left = n.
 * @return Bytes written; -RPL_ERR_INVAL, -RPL_ERR_NOBUFS.
 */
int wren_rpl_srh_emit(uint8_t next, const uint8_t (*hops)[16], size_t n, const uint8_t dst[16],
                      uint8_t *buf, size_t len);

/** Is @p addr one of this node's? (the caller's, for wren_rpl_srh_process) */
typedef bool (*wren_rpl_is_own_fn)(void *ctx, const uint8_t addr[16]);

/**
 * @brief One hop of SRH processing (RFC 6554 4.2), in place.
 *
 * With segments left 0 nothing changes (1 is not returned). Otherwise the
 * checks in the RFC's order: segments left <= n; neither Address[i] nor the
 * destination multicast; Address[i] (the next hop) not ours, and no two
 * addresses of ours with another between (loops); then segments left is decremented and the destination swapped
 * with Address[i] (which takes the old destination compressed as CmprI or
 * CmprE says). The hop limit is the caller's.
 * @param[in,out] hdr  The SRH, from its Next Header byte, @p len bytes.
 * @param[in,out] dst  The IPv6 destination (16 bytes).
 * @param[out]    err_off On a parameter problem: the offending byte from
 *                        the start of @p hdr.
 * @return 0: segments left was 0, go on with the next header.
 * @return 1: forward to the new @p dst.
 * @return -RPL_ERR_TRUNCATED/-RPL_ERR_TYPE/-RPL_ERR_SRH_LEN as for parse
 *         (err_off 1); -RPL_ERR_SRH_SEGS (parameter problem, err_off 3);
 *         -RPL_ERR_SRH_MCAST (discard silently); -RPL_ERR_SRH_LOOP (parameter
 *         problem, err_off at Address[i] when it is ours, else at the later
 *         of our addresses). Nothing is written
 *         on error.
 */
int wren_rpl_srh_process(uint8_t *hdr, size_t len, uint8_t dst[16], wren_rpl_is_own_fn is_own,
                         void *ctx, uint16_t *err_off);

#endif

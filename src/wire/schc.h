/**
 * @file schc.h
 * @brief SCHC header compression and decompression (RFC 8724 section 7)
 *        for IPv6 and UDP, with the LoRaWAN profile's 8-bit rule ID
 *        (RFC 9011 section 5.1: the rule ID travels in FPort).
 *
 * Pure code: bytes and a rule set in, bytes or a negative error out; no
 * state, no I/O. A SCHC packet (RFC 8724 5.1, 7.3):
 *
 * @verbatim
 *  +---------+----------------------+------------------+~~~~~~~~~+
 *  | rule ID | compression residue  | payload          | padding |
 *  | 8 bits  | bits, in rule order  | bit-aligned, not |  0..7   |
 *  |         |                      | byte-aligned     |  zeros  |
 *  +---------+----------------------+------------------+~~~~~~~~~+
 * @endverbatim
 *
 * The payload follows the residue bit by bit; the padding at the end makes
 * the whole a number of bytes (LoRaWAN's L2 word, RFC 9011 5.2), so the
 * decompressor takes floor(remaining bits / 8) bytes of payload.
 *
 * A rule lists field descriptors (RFC 8724 7.1): the field (IPv6 and UDP
 * fields as RFC 8724 section 10 names them: addresses split into prefix and
 * IID of the Device and of the Application, ports of the Device and of the
 * Application), its position (1: no repeated fields here), the direction it
 * applies to, target values, the matching operator and the
 * compression/decompression action. Field lengths are fixed by the field.
 * The residue holds, in the rule's order, each field's value (value-sent),
 * mapping index (mapping-sent, ceil(log2(n)) bits, 7.5.5) or its LSBs
 * (LSB with MSB(x): length - x bits, 7.5.6); not-sent and compute-* send
 * nothing (compute-length: IPv6 payload length and UDP length; compute-
 * checksum: the UDP checksum, 7.5.8).
 *
 * Uplink (Dev to App) has the Device's address and port as IPv6/UDP source;
 * downlink as destination (RFC 8724 7.1).
 *
 * @code
 *   struct wren_schc_rules rs;
 *   char err[80];
 *   if (wren_schc_rules_parse(&rs, text, strlen(text), err, sizeof(err)) < 0) puts(err);
 *   int n = wren_schc_compress(&rs, WREN_SCHC_UP, ip, ip_len, out, sizeof(out));
 *   int m = wren_schc_decompress(&rs, WREN_SCHC_UP, out, n, back, sizeof(back));
 * @endcode
 */
#ifndef WREN_WIRE_SCHC_H
#define WREN_WIRE_SCHC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Rules of one interface's rule set (compression, no-compression and
 *  fragmentation rules together). */
#ifndef CONFIG_WREN_SCHC_RULES
#define CONFIG_WREN_SCHC_RULES 6
#endif
/** Field descriptors of all rules of a set together (a full IPv6/UDP rule
 *  has 14). */
#ifndef CONFIG_WREN_SCHC_FIELDS
#define CONFIG_WREN_SCHC_FIELDS 48
#endif
/** Bytes of target values of a set (a 64-bit prefix takes 8). */
#ifndef CONFIG_WREN_SCHC_TV_BYTES
#define CONFIG_WREN_SCHC_TV_BYTES 160
#endif
/** Target values a match-mapping may list. */
#define WREN_SCHC_MAP_MAX 16
_Static_assert(CONFIG_WREN_SCHC_RULES >= 1 && CONFIG_WREN_SCHC_RULES <= 255, "rule count");
_Static_assert(CONFIG_WREN_SCHC_FIELDS <= 255, "field indices are 8 bits");
_Static_assert(CONFIG_WREN_SCHC_TV_BYTES <= 65535, "target value offsets are 16 bits");

/** Field IDs (RFC 8724 section 10). */
enum wren_schc_fid {
    WREN_SCHC_IPV6_VER = 0,   /**< 4 bits (10.1) */
    WREN_SCHC_IPV6_TC,        /**< 8 bits, Traffic Class (10.2) */
    WREN_SCHC_IPV6_FL,        /**< 20 bits (10.3) */
    WREN_SCHC_IPV6_LEN,       /**< 16 bits, payload length (10.4) */
    WREN_SCHC_IPV6_NXT,       /**< 8 bits (10.5) */
    WREN_SCHC_IPV6_HOP,       /**< 8 bits (10.6) */
    WREN_SCHC_IPV6_DEV_PREFIX, /**< 64 bits (10.7.1) */
    WREN_SCHC_IPV6_DEV_IID,   /**< 64 bits (10.7.2) */
    WREN_SCHC_IPV6_APP_PREFIX, /**< 64 bits (10.7.1) */
    WREN_SCHC_IPV6_APP_IID,   /**< 64 bits (10.7.2) */
    WREN_SCHC_UDP_DEV_PORT,   /**< 16 bits (10.9) */
    WREN_SCHC_UDP_APP_PORT,   /**< 16 bits (10.9) */
    WREN_SCHC_UDP_LEN,        /**< 16 bits (10.10) */
    WREN_SCHC_UDP_CKSUM,      /**< 16 bits (10.11) */
    WREN_SCHC_FID_COUNT,
};

/** Directions (RFC 8724 7.1: Up is Dev to App). */
enum wren_schc_dir {
    WREN_SCHC_BI = 0,
    WREN_SCHC_UP = 1,
    WREN_SCHC_DOWN = 2,
};

/** Matching operators (RFC 8724 7.4). */
enum wren_schc_mo {
    WREN_SCHC_MO_EQUAL = 0,
    WREN_SCHC_MO_IGNORE,
    WREN_SCHC_MO_MSB,          /**< MSB(x): the field's x leading bits equal the TV's */
    WREN_SCHC_MO_MATCH_MAPPING,
};

/** Compression/decompression actions (RFC 8724 7.5). */
enum wren_schc_cda {
    WREN_SCHC_CDA_NOT_SENT = 0,
    WREN_SCHC_CDA_VALUE_SENT,
    WREN_SCHC_CDA_MAPPING_SENT,
    WREN_SCHC_CDA_LSB,
    WREN_SCHC_CDA_COMPUTE,     /**< compute-length or compute-checksum, by field */
};

/** Kinds of rule. */
enum wren_schc_kind {
    WREN_SCHC_RULE_COMPRESS = 0,
    WREN_SCHC_RULE_NOCOMP,     /**< the packet whole after the rule ID (RFC 8724 6) */
    WREN_SCHC_RULE_FRAG_UP,    /**< fragmentation, uplink (RFC 9011 5.6.2: ACK-on-Error) */
    WREN_SCHC_RULE_FRAG_DOWN,  /**< fragmentation, downlink (RFC 9011 5.6.3: ACK-Always) */
};

/** One field descriptor (8 bytes). Target values live in the set's @c tv:
 *  @c tv_n values of the field's length in bytes, big-endian, right-aligned. */
struct wren_schc_field {
    uint8_t fid;   /**< enum wren_schc_fid */
    uint8_t dir;   /**< enum wren_schc_dir */
    uint8_t mo;    /**< enum wren_schc_mo */
    uint8_t cda;   /**< enum wren_schc_cda */
    uint8_t msb;   /**< x of MSB(x) */
    uint8_t tv_n;  /**< target values: 0, 1, or a mapping's 2..WREN_SCHC_MAP_MAX */
    uint16_t tv;   /**< offset of the first in the set's tv[] */
};

struct wren_schc_rule {
    uint8_t id;     /**< 8-bit rule ID (RFC 9011 5.1: FPort) */
    uint8_t kind;   /**< enum wren_schc_kind */
    uint8_t first;  /**< its first field in the set's fields[] */
    uint8_t count;  /**< its fields */
};

/** A rule set: a static table, for one interface. */
struct wren_schc_rules {
    uint8_t n_rules;
    uint8_t n_fields;
    uint16_t tv_used;
    struct wren_schc_rule rules[CONFIG_WREN_SCHC_RULES];
    struct wren_schc_field fields[CONFIG_WREN_SCHC_FIELDS];
    uint8_t tv[CONFIG_WREN_SCHC_TV_BYTES];
};

/** Errors, returned negated (-SCHC_ERR_x). */
enum wren_schc_err {
    SCHC_ERR_NO_RULE = 1,   /**< compress: no rule matches and no no-compression rule;
                                 decompress: unknown rule ID */
    SCHC_ERR_NOT_IPV6,      /**< compress: not an IPv6 packet (or shorter than its header) */
    SCHC_ERR_TRUNCATED,     /**< decompress: the residue runs past the end */
    SCHC_ERR_NOBUFS,        /**< the output does not fit */
    SCHC_ERR_MAPPING,       /**< decompress: a mapping index beyond the list */
    SCHC_ERR_KIND,          /**< decompress: a fragmentation rule's ID */
    SCHC_ERR_LENGTH,        /**< decompress: a computed length above 65535 */
};

/** Bits of field @p fid (0 for an unknown one). */
unsigned wren_schc_field_bits(unsigned fid);

/** The rule of ID @p id in @p rs, or NULL. */
const struct wren_schc_rule *wren_schc_rule_find(const struct wren_schc_rules *rs, uint8_t id);
/** The first rule of kind @p kind in @p rs, or NULL. */
const struct wren_schc_rule *wren_schc_rule_of_kind(const struct wren_schc_rules *rs, uint8_t kind);

/**
 * @brief Compress IPv6 packet @p pkt (@p len bytes) sent in direction
 *        @p dir: the first compression rule that matches it (RFC 8724 7.3),
 *        else the no-compression rule.
 * @param[out] out SCHC packet, rule ID first.
 * @return its length; -SCHC_ERR_NOT_IPV6, -SCHC_ERR_NO_RULE, -SCHC_ERR_NOBUFS.
 */
int wren_schc_compress(const struct wren_schc_rules *rs, unsigned dir, const uint8_t *pkt,
                       size_t len, uint8_t *out, size_t cap);

/**
 * @brief Decompress SCHC packet @p schc (@p len bytes, rule ID first)
 *        received in direction @p dir into the IPv6 packet it stands for.
 * @return the packet's length; -SCHC_ERR_NO_RULE, _KIND, _TRUNCATED,
 *         _MAPPING, _LENGTH, _NOBUFS.
 */
int wren_schc_decompress(const struct wren_schc_rules *rs, unsigned dir, const uint8_t *schc,
                         size_t len, uint8_t *out, size_t cap);

/**
 * @brief Read a rule set from its text form (@p text_len bytes at most,
 *        or up to a NUL), replacing @p rs.
 *
 * One statement a line; '#' starts a comment:
 * @verbatim
 *  rule ID [compress|nocomp|frag-up|frag-down]
 *  FIELD DIR MO CDA [TV[,TV...]]
 *    FIELD  ipv6.ver ipv6.tc ipv6.fl ipv6.len ipv6.nxt ipv6.hop ipv6.devpre
 *           ipv6.deviid ipv6.apppre ipv6.appiid udp.devport udp.appport
 *           udp.len udp.cksum
 *    DIR    bi up down
 *    MO     equal ignore msb(X) match-mapping
 *    CDA    not-sent value-sent mapping-sent lsb compute
 *    TV     a number: decimal or 0x hex (the whole field, right-aligned)
 * @endverbatim
 * A compression rule names every IPv6 field, and every UDP field or none
 * (the UDP header then is payload), once per direction.
 * @param[out] err  one line naming the mistake (line number and word).
 * @return 0, or -EINVAL (bad text) / -ENOSPC (beyond the set's sizes).
 */
int wren_schc_rules_parse(struct wren_schc_rules *rs, const char *text, size_t text_len,
                          char *err, size_t err_len);

#endif

/**
 * @file ndn_tlv.h
 * @brief NDN packet format 0.3 (named-data.net/doc/NDN-packet-spec/0.3):
 *        TLV numbers, Names, Interests and Data, with the DigestSha256
 *        signature and the parameters digest computed and checked.
 *
 * Pure wire code: no I/O, no state. A parsed packet points into the
 * caller's buffer (nothing is copied); emit writes into the caller's
 * buffer. Every TLV is TYPE LENGTH VALUE with TYPE and LENGTH var-numbers
 * (section 1.1):
 *
 * @verbatim
 *   first octet   | the number
 *   0..252        | itself (1 octet)
 *   253 (0xFD)    | the next 2 octets, big-endian
 *   254 (0xFE)    | the next 4 octets
 *   255 (0xFF)    | the next 8 octets
 *
 *   Interest 0x05 = Name CanBePrefix? MustBeFresh? ForwardingHint? Nonce?
 *                   InterestLifetime? HopLimit?
 *                   (ApplicationParameters InterestSignatureInfo?
 *                    InterestSignatureValue?)?
 *   Data 0x06     = Name MetaInfo? Content? SignatureInfo SignatureValue
 *   Name 0x07     = NameComponent*, each a TLV of type 1..65535
 * @endverbatim
 *
 * Unknown elements follow section 1.3 (evolvability): a type of 0..31, or
 * an odd type above, is critical and its packet is refused (-EPROTONOSUPPORT);
 * an unknown even type above 31 is skipped. Known elements must come in the
 * order above (-EBADMSG otherwise). Lengths are limited to 65535 octets
 * (a packet larger than that is refused: -EMSGSIZE).
 *
 * @code
 *   struct ndn_interest in;
 *   if (wren_ndn_interest_parse(buf, n, &in) < 0) goto drop;
 *   // in.name.v / in.name.len: the Name's value, in.nonce, ...
 *
 *   struct ndn_interest q = { .name = name, .has_nonce = true, .nonce = 7 };
 *   uint8_t out[128];
 *   int len = wren_ndn_interest_emit(&q, out, sizeof(out)); // bytes, or -EMSGSIZE
 * @endcode
 */
#ifndef WREN_WIRE_NDN_TLV_H
#define WREN_WIRE_NDN_TLV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** TLV-TYPE numbers (packet spec 0.3, "TLV-TYPE number assignments"). */
enum {
    NDN_T_IMPLICIT_DIGEST = 0x01, /**< ImplicitSha256DigestComponent */
    NDN_T_PARAMS_DIGEST = 0x02,   /**< ParametersSha256DigestComponent */
    NDN_T_INTEREST = 0x05,
    NDN_T_DATA = 0x06,
    NDN_T_NAME = 0x07,
    NDN_T_GENERIC = 0x08,         /**< GenericNameComponent */
    NDN_T_NONCE = 0x0a,
    NDN_T_LIFETIME = 0x0c,        /**< InterestLifetime */
    NDN_T_MUST_BE_FRESH = 0x12,
    NDN_T_META_INFO = 0x14,
    NDN_T_CONTENT = 0x15,
    NDN_T_SIG_INFO = 0x16,
    NDN_T_SIG_VALUE = 0x17,
    NDN_T_CONTENT_TYPE = 0x18,
    NDN_T_FRESHNESS = 0x19,
    NDN_T_FINAL_BLOCK = 0x1a,
    NDN_T_SIG_TYPE = 0x1b,
    NDN_T_FWD_HINT = 0x1e,
    NDN_T_CAN_BE_PREFIX = 0x21,
    NDN_T_HOP_LIMIT = 0x22,
    NDN_T_APP_PARAMS = 0x24,
    NDN_T_ISIG_INFO = 0x2c,
    NDN_T_ISIG_VALUE = 0x2e,
    NDN_T_LP_PACKET = 0x64,       /**< NDNLPv2 (src/wire/ndnlp.h, not this codec) */
};

/** The 802.15.4 dispatch byte before every NDN packet in a frame: in RFC
 *  4944's NALP range 00xxxxxx ("not a LoWPAN frame", section 5.1), so
 *  6LoWPAN leaves the frame alone (0x3f is wren's raw frame generator's,
 *  src/apps/rawgen.h). The NDN type byte cannot be the dispatch itself: an
 *  NDNLPv2 LpPacket (0x64) reads as IPHC (011xxxxx). */
#define NDN_IEEE802154_DISPATCH 0x3e
/** NDN's EtherType (NFD's Ethernet face; the IEEE registry's 0x8624). */
#define NDN_ETHERTYPE 0x8624

#define NDN_DIGEST_LEN 32             /**< SHA-256 */
#define NDN_SIG_DIGEST_SHA256 0       /**< SignatureType DigestSha256 */
#define NDN_LIFETIME_DEFAULT_MS 4000  /**< InterestLifetime when absent (0.3, Interest) */
#define NDN_VARNUM_MAX_LEN 9

/** A Name: its TLV-VALUE (the components, each a whole TLV) in the buffer. */
struct ndn_name {
    const uint8_t *v;
    uint16_t len;
    uint8_t ncomp;       /**< number of components (at most 255) */
    int16_t params_idx;  /**< index of the ParametersSha256DigestComponent, or -1 */
};

struct ndn_interest {
    struct ndn_name name;
    bool can_be_prefix;
    bool must_be_fresh;
    bool has_nonce;
    bool has_lifetime;
    bool has_hop_limit;
    bool has_params;        /**< ApplicationParameters present (maybe empty) */
    uint8_t hop_limit;
    uint32_t nonce;         /**< the 4 Nonce octets, big-endian */
    uint32_t lifetime_ms;   /**< NDN_LIFETIME_DEFAULT_MS when absent (after parse) */
    const uint8_t *fwd_hint;/**< ForwardingHint's TLV-VALUE, or NULL */
    uint16_t fwd_hint_len;
    const uint8_t *params;  /**< ApplicationParameters' TLV-VALUE */
    uint16_t params_len;
    /** after ApplicationParameters: the Interest's signature elements,
     *  kept as they are (covered by the parameters digest) */
    const uint8_t *params_tail;
    uint16_t params_tail_len;
    /** parse: where the HopLimit octet is (a forwarder decrements it there) */
    const uint8_t *hop_limit_at;
};

struct ndn_data {
    struct ndn_name name;
    bool has_meta;           /**< a MetaInfo element (maybe empty) */
    bool has_content_type;
    bool has_freshness;
    bool has_content;
    uint32_t content_type;
    uint32_t freshness_ms;
    const uint8_t *final_block; /**< FinalBlockId's TLV-VALUE (one component TLV), or NULL */
    uint16_t final_block_len;
    const uint8_t *content;
    uint16_t content_len;
    uint32_t sig_type;
    /** SignatureInfo's elements after SignatureType (KeyLocator, ...), as they are */
    const uint8_t *sig_info_rest;
    uint16_t sig_info_rest_len;
    /** SignatureValue's TLV-VALUE; emit with DigestSha256 and NULL computes it */
    const uint8_t *sig_value;
    uint16_t sig_value_len;
};

/** @brief Read a var-number. @return octets used, or -EMSGSIZE (truncated). */
int wren_ndn_varnum_parse(const uint8_t *buf, size_t len, uint64_t *v);
/** @brief Octets of the var-number @p v: 1, 3, 5 or 9. */
size_t wren_ndn_varnum_len(uint64_t v);
/** @brief Write @p v (wren_ndn_varnum_len(v) octets). @return that length. */
size_t wren_ndn_varnum_emit(uint64_t v, uint8_t *out);

/**
 * @brief Read one TLV at @p buf.
 * @param[out] type, val, vlen  its TYPE and VALUE
 * @return octets of the whole TLV, -EMSGSIZE (it overruns @p len or is
 *         longer than 65535), -EBADMSG (TYPE 0 or above 2^32-1).
 */
int wren_ndn_tlv_parse(const uint8_t *buf, size_t len, uint32_t *type, const uint8_t **val,
                       uint16_t *vlen);

/** @brief The critical-type rule of section 1.3: 0..31, or odd. */
static inline bool wren_ndn_type_critical(uint32_t type)
{
    return type <= 31 || (type & 1);
}

/**
 * @brief Check a Name's TLV-VALUE @p v (@p len octets) into @p n.
 * @return 0, -EMSGSIZE, -EBADMSG (a component of type 0, a digest
 *         component not 32 octets long, more than 255 components, two
 *         parameters digests).
 */
int wren_ndn_name_parse(const uint8_t *v, size_t len, struct ndn_name *n);
/** @brief Whether @p prefix is a prefix of @p name (components, whole). */
bool wren_ndn_name_is_prefix(const struct ndn_name *prefix, const struct ndn_name *name);
/** @brief Whether @p a and @p b are the same name. */
bool wren_ndn_name_eq(const struct ndn_name *a, const struct ndn_name *b);
/**
 * @brief Whether the Data @p d (its whole packet: @p pkt, @p len octets)
 *        answers an Interest for @p asked: the same name, a longer one
 *        with @p can_be_prefix, or the Data's full name, its name and the
 *        ImplicitSha256DigestComponent of the whole packet (spec 0.3, 2.1).
 */
bool wren_ndn_data_answers(const struct ndn_name *asked, bool can_be_prefix,
                           const struct ndn_data *d, const uint8_t *pkt, size_t len);
/** @brief The Name's value without its last component, or @p n itself when empty. */
struct ndn_name wren_ndn_name_parent(const struct ndn_name *n);

/**
 * @brief Components of a URI ("/a/b%2Fc/seg=3" style: generic components,
 *        percent-escapes, and "N=" for a typed component of number N) as a
 *        Name's TLV-VALUE into @p out.
 * @return its length, -EMSGSIZE (@p max too small), -EINVAL (a bad escape,
 *         an empty component, a bad type number).
 */
int wren_ndn_name_from_uri(const char *uri, uint8_t *out, size_t max);
/** @brief @p n as a URI into @p out (always terminated). @return its length. */
size_t wren_ndn_name_to_uri(const struct ndn_name *n, char *out, size_t max);

/** @brief The packet type of a whole packet (its first TLV-TYPE), or 0. */
uint32_t wren_ndn_packet_type(const uint8_t *buf, size_t len);

/**
 * @brief Parse an Interest filling @p len octets exactly.
 * @return 0, or -EMSGSIZE (truncated), -EBADMSG (malformed, out of order,
 *         a parameters digest component without ApplicationParameters or
 *         the other way round), -EPROTONOSUPPORT (an unknown critical
 *         element), -EILSEQ (the parameters digest does not match).
 */
int wren_ndn_interest_parse(const uint8_t *buf, size_t len, struct ndn_interest *in);
/** @brief Octets wren_ndn_interest_emit() writes for @p in. */
size_t wren_ndn_interest_len(const struct ndn_interest *in);
/**
 * @brief Write @p in: the elements its has_ flags and pointers name, in the
 *        spec's order. With parameters and a name without a parameters
 *        digest, the digest is computed and appended to the name.
 * @return the length, or -EMSGSIZE (@p max below wren_ndn_interest_len()).
 */
int wren_ndn_interest_emit(const struct ndn_interest *in, uint8_t *buf, size_t max);

/**
 * @brief Parse a Data filling @p len octets exactly; a DigestSha256
 *        signature is verified.
 * @return 0, or as wren_ndn_interest_parse(); -EILSEQ: the digest is wrong.
 */
int wren_ndn_data_parse(const uint8_t *buf, size_t len, struct ndn_data *d);
/** @brief Octets wren_ndn_data_emit() writes for @p d. */
size_t wren_ndn_data_len(const struct ndn_data *d);
/**
 * @brief Write @p d; with sig_type DigestSha256 and no sig_value the
 *        SHA-256 of Name..SignatureInfo is computed into the SignatureValue.
 * @return the length, or -EMSGSIZE.
 */
int wren_ndn_data_emit(const struct ndn_data *d, uint8_t *buf, size_t max);

#endif

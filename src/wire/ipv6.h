/**
 * @file ipv6.h
 * @brief IPv6 wire format (RFC 8200): fixed header, extension-header walk,
 *        address helpers. Pure: bytes in, struct or error out.
 */
#ifndef WREN_WIRE_IPV6_H
#define WREN_WIRE_IPV6_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IPV6_HDR_LEN 40
#define IPV6_MIN_MTU 1280

/* fixed-header fields, for code that reads or updates a header in place */
#define IPV6_OFF_PAYLOAD_LEN 4
#define IPV6_OFF_NEXT 6
#define IPV6_OFF_HOP_LIMIT 7
#define IPV6_OFF_SRC 8
#define IPV6_OFF_DST 24

/* next header values */
#define IPV6_NH_HOPOPT 0
#define IPV6_NH_TCP 6
#define IPV6_NH_UDP 17
#define IPV6_NH_IPV6 41
#define IPV6_NH_ROUTING 43
#define IPV6_NH_FRAGMENT 44
#define IPV6_NH_ICMPV6 58
#define IPV6_NH_NONE 59
#define IPV6_NH_DSTOPTS 60

/** The fixed header. Addresses in network order. */
struct ipv6_hdr {
    uint8_t tc;            /**< traffic class */
    uint32_t flow;         /**< flow label, 20 bits */
    uint16_t payload_len;
    uint8_t next;          /**< next header */
    uint8_t hop_limit;
    uint8_t src[16];
    uint8_t dst[16];
};

/** Errors, returned negated. */
enum ipv6_err {
    IPV6_ERR_TRUNCATED = 1,  /**< shorter than the header (or than a field says) */
    IPV6_ERR_VERSION,        /**< version field is not 6 */
    IPV6_ERR_EXT,            /**< malformed extension header */
};

/**
 * @brief Parse the fixed header from @p buf.
 * @return 0, -IPV6_ERR_TRUNCATED (len < 40), -IPV6_ERR_VERSION. The payload
 *         length is not checked against @p len: that is the caller's policy.
 */
int wren_ipv6_hdr_parse(const uint8_t *buf, size_t len, struct ipv6_hdr *h);

/** @brief Write the 40-byte fixed header of @p h to @p buf. */
void wren_ipv6_hdr_emit(const struct ipv6_hdr *h, uint8_t *buf);

/* address helpers (a = 16 bytes, network order) */
static inline bool wren_ipv6_addr_is_multicast(const uint8_t *a)
{
    return a[0] == 0xff;
}

static inline bool wren_ipv6_addr_is_link_local(const uint8_t *a)
{
    return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

/** @brief Copy address @p src to @p dst (a call: smaller than an inline copy). */
void wren_ipv6_addr_copy(uint8_t *dst, const uint8_t *src);
bool wren_ipv6_addr_is_unspecified(const uint8_t *a);
bool wren_ipv6_addr_is_loopback(const uint8_t *a);
/** @brief Whether the first @p bits bits of @p a and @p b are equal. */
bool wren_ipv6_prefix_equal(const uint8_t *a, const uint8_t *b, unsigned bits);
/** @brief Number of leading bits @p a and @p b share (0..128). */
unsigned wren_ipv6_prefix_common(const uint8_t *a, const uint8_t *b);

#endif

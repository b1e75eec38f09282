/**
 * @file ipv6_ext.h
 * @brief IPv6 extension-header walker (RFC 8200 section 4). Pure: bytes in,
 *        a summary or an error out; never reads outside the given data.
 *
 * The walker starts with the Next Header value of the fixed header and the
 * bytes that follow the fixed header, and steps over hop-by-hop options (only
 * as the first header), destination options, routing and fragment headers:
 *
 * @verbatim
 *  fixed hdr (40) | HBH | DST | RH | FRAG | upper-layer header ...
 *   next=0 -------^
 *  data[0] -------^                         ^-- e->off, e->next
 * @endverbatim
 *
 * It stops at the first header it does not walk (upper layer, No Next
 * Header, ESP, AH, Mobility, anything unknown) and also where this node must
 * act before going on:
 * - after a fragment header: what follows is the fragmentable part, to be
 *   reassembled (RFC 8200 4.5) and walked again from e->next;
 * - after a routing header with segments left != 0: the node processes the
 *   routing header (RFC 8200 4.4) and what follows belongs to a later hop.
 *
 * A routing header with segments left == 0 is stepped over whatever its
 * type; type 0 with segments left != 0 is an error (RFC 5095 section 3).
 *
 * All offsets are from the start of the given data (the byte after the fixed
 * header). An ICMPv6 Parameter Problem pointer counts from the start of the
 * IPv6 header: add IPV6_HDR_LEN.
 *
 * Usage:
 * @code
 *   struct ipv6_ext e;
 *   int rc = wren_ipv6_ext_walk(h.next, pkt + 40, plen, NULL, 0, &e);
 *   if (rc == -IPV6_EXT_ERR_RH0)
 *       send_param_problem(0, 40 + e.err_off);
 *   else if (rc < 0)
 *       goto drop;
 *   else if (e.opt_off && (pkt[40 + e.opt_off] >> 6) != IPV6_OPT_ACT_SKIP)
 *       ... discard; maybe parameter problem code 2 at 40 + e.opt_off
 * @endcode
 */
#ifndef WREN_WIRE_IPV6_EXT_H
#define WREN_WIRE_IPV6_EXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Most extension headers walked in one call; one more is an error (1..31). */
#ifndef CONFIG_IPV6_EXT_MAX_HDRS
#define CONFIG_IPV6_EXT_MAX_HDRS 8
#endif

/** Errors, returned negated (-IPV6_EXT_ERR_x). */
enum ipv6_ext_err {
    IPV6_EXT_ERR_TRUNCATED = 1, /**< a header runs past the data; err_off = its Hdr Ext
                                     Len field, or its start if under 8 bytes remain */
    IPV6_EXT_ERR_OPT,           /**< an option runs past its header; err_off = the option */
    IPV6_EXT_ERR_HBH,           /**< hop-by-hop not first; err_off = the Next Header
                                     field naming it (RFC 8200 4.1: code 1) */
    IPV6_EXT_ERR_CHAIN,         /**< more than CONFIG_IPV6_EXT_MAX_HDRS headers;
                                     err_off = the first header over the limit */
    IPV6_EXT_ERR_RH0,           /**< routing type 0 with segments left != 0;
                                     err_off = its Routing Type field (RFC 5095: code 0) */
};

/** Option types of RFC 8200 4.2 that the walker knows itself. */
#define IPV6_OPT_PAD1 0x00
#define IPV6_OPT_PADN 0x01

/** Action for an unrecognised option: the top two bits of its type. */
enum {
    IPV6_OPT_ACT_SKIP = 0,      /**< skip it, continue */
    IPV6_OPT_ACT_DISCARD = 1,   /**< discard the packet silently */
    IPV6_OPT_ACT_ICMP = 2,      /**< discard, parameter problem code 2 */
    IPV6_OPT_ACT_ICMP_UCAST = 3 /**< as 2, unless the destination is multicast */
};

/** ipv6_ext.flags */
#define IPV6_EXT_F_HBH 0x01  /**< hop-by-hop header present (always at offset 0) */
#define IPV6_EXT_F_RH 0x02   /**< a routing header was walked: rh_* */
#define IPV6_EXT_F_FRAG 0x04 /**< the walk stopped after a fragment header: frag_* */

/** What the walk found. Fields of absent headers read 0. */
struct ipv6_ext {
    uint8_t next;      /**< Next Header value where the walk stopped */
    uint8_t flags;     /**< IPV6_EXT_F_* */
    uint16_t off;      /**< where the header named by next begins */
    uint16_t last_off; /**< the last extension header walked; its byte 0 is the Next
                            Header field holding next (if off == 0 that field is in
                            the fixed header, pointer 6) */
    uint16_t rh_off;   /**< the last routing header walked */
    uint8_t rh_type;
    uint8_t rh_segs_left; /**< != 0: the walk stopped right after this header */
    uint16_t frag_hdr_off;
    uint16_t frag_offset; /**< fragment offset in bytes (13 bits x 8) */
    bool frag_more;       /**< M flag */
    uint32_t frag_id;     /**< identification */
    uint16_t opt_off;     /**< first unrecognised option in a hop-by-hop or
                               destination options header whose action is not
                               skip; 0 if none (its type byte gives the action) */
    uint16_t err_off;     /**< on error: the offending byte, see enum ipv6_ext_err */
};

/** One option inside a hop-by-hop or destination options header. */
struct ipv6_ext_opt {
    uint8_t type;
    uint8_t len;  /**< bytes of data */
    uint16_t off; /**< the type byte, from the start of the header */
};

/**
 * @brief Walk the extension headers (RFC 8200 section 4).
 * @param[in]  next     Next Header of the fixed header.
 * @param[in]  data     The bytes after the fixed header.
 * @param[in]  len      Bytes in @p data.
 * @param[in]  known    Option types (other than Pad1/PadN) that the caller
 *                      recognises; NULL if none.
 * @param[in]  n_known  Entries in @p known.
 * @param[out] e        Result; zeroed first. err_off is set on error.
 * @return 0: e->next/e->off say where the walk stopped.
 * @return -IPV6_EXT_ERR_x, see enum ipv6_ext_err.
 */
int wren_ipv6_ext_walk(uint8_t next, const uint8_t *data, size_t len, const uint8_t *known,
                  size_t n_known, struct ipv6_ext *e);

/**
 * @brief Check the hop-by-hop options header alone (RFC 8200 4, 4.3: what a
 *        router examines of a datagram it forwards; the headers after it are
 *        the destination's). As wren_ipv6_ext_walk() but the walk stops
 *        after the first header: with @p next other than hop-by-hop it
 *        returns 0 at once (e->next = @p next, e->off = 0).
 * @return 0, -IPV6_EXT_ERR_TRUNCATED or -IPV6_EXT_ERR_OPT (e->err_off);
 *         e->opt_off as for wren_ipv6_ext_walk().
 */
int wren_ipv6_ext_walk_hbh(uint8_t next, const uint8_t *data, size_t len, const uint8_t *known,
                           size_t n_known, struct ipv6_ext *e);

/**
 * @brief Step through the options of a hop-by-hop or destination options
 *        header, skipping Pad1 and PadN.
 * @param[in]     hdr     The header, from its Next Header byte.
 * @param[in]     hdr_len Its length, (hdr[1] + 1) * 8 (must be <= 2048).
 * @param[in,out] pos     Start with 2; advanced past each option.
 * @param[out]    o       The option (when 1 is returned).
 * @return 1 with @p o, 0 at the end of the header.
 * @return -IPV6_EXT_ERR_OPT if an option runs past the header (*pos is left at it).
 */
int wren_ipv6_ext_opt_next(const uint8_t *hdr, size_t hdr_len, size_t *pos, struct ipv6_ext_opt *o);

#endif

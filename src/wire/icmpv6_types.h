/**
 * @file icmpv6_types.h
 * @brief ICMPv6 message types and codes (RFC 4443, RFC 4861, RFC 6775).
 */
#ifndef WREN_WIRE_ICMPV6_TYPES_H
#define WREN_WIRE_ICMPV6_TYPES_H

#define ICMPV6_DEST_UNREACH 1
#define ICMPV6_PKT_TOO_BIG 2
#define ICMPV6_TIME_EXCEEDED 3
#define ICMPV6_PARAM_PROBLEM 4
#define ICMPV6_ECHO_REQUEST 128
#define ICMPV6_ECHO_REPLY 129
#define ICMPV6_ND_RS 133
#define ICMPV6_ND_RA 134
#define ICMPV6_ND_NS 135
#define ICMPV6_ND_NA 136
#define ICMPV6_ND_REDIRECT 137
#define ICMPV6_DAR 157
#define ICMPV6_DAC 158

/* destination unreachable codes */
#define ICMPV6_UNREACH_NO_ROUTE 0
#define ICMPV6_UNREACH_ADMIN 1
#define ICMPV6_UNREACH_BEYOND_SCOPE 2
#define ICMPV6_UNREACH_ADDR 3
#define ICMPV6_UNREACH_PORT 4
#define ICMPV6_UNREACH_SRH 7 /**< error in source routing header (RFC 6554 4.2) */

/* parameter problem codes */
#define ICMPV6_PARAM_HDR 0
#define ICMPV6_PARAM_NEXT_HDR 1
#define ICMPV6_PARAM_OPTION 2

#endif

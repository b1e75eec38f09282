/**
 * @file addr_str.h
 * @brief IPv6 addresses as text: parse RFC 4291 section 2.2 forms (without
 *        embedded IPv4), print RFC 5952 canonical form.
 */
#ifndef WREN_IPV6_ADDR_STR_H
#define WREN_IPV6_ADDR_STR_H

#include <stddef.h>
#include <stdint.h>

/** Longest text an address prints as, with the terminating NUL. */
#define WREN_IPV6_ADDR_STRLEN 40

/** @brief Parse @p s (NUL-terminated) into @p addr. @return 0 or -EINVAL. */
int wren_ipv6_addr_from_str(uint8_t *addr, const char *s);

/** @brief Print @p addr into @p buf (at least WREN_IPV6_ADDR_STRLEN bytes). @return buf. */
char *wren_ipv6_addr_to_str(char *buf, const uint8_t *addr);

#endif

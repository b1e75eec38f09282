/**
 * @file inet_csum.h
 * @brief The Internet checksum (RFC 1071) over scattered data, with the
 *        IPv6 pseudo-header of RFC 8200 section 8.1.
 *
 *     struct inet_csum c;
 *     wren_inet_csum_init(&c);
 *     wren_inet_csum_pseudo(&c, src, dst, upper_len, IPV6_NH_UDP);
 *     for (s = pkt; s; s = s->next) wren_inet_csum_update(&c, s->data, s->size);
 *     uint16_t csum = wren_inet_csum_final(&c);   // 0 means the data checks
 *
 * Pieces may have odd lengths: the running state remembers the odd byte.
 */
#ifndef WREN_WIRE_INET_CSUM_H
#define WREN_WIRE_INET_CSUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct inet_csum {
    uintptr_t sum;  /**< a register-wide sum in the host's byte order; folded
                         and swapped at the end */
    bool odd;       /**< an odd number of bytes has been added so far */
};

void wren_inet_csum_init(struct inet_csum *c);
/** @brief Add @p len bytes (any length, any alignment). */
void wren_inet_csum_update(struct inet_csum *c, const uint8_t *buf, size_t len);
/** @brief Add the IPv6 pseudo-header (must be added at an even offset). */
void wren_inet_csum_pseudo(struct inet_csum *c, const uint8_t *src, const uint8_t *dst,
                      uint32_t upper_len, uint8_t next);
/** @brief The ones' complement of the folded sum: the value to put in the
 *         checksum field, or 0 when verifying data that includes its checksum. */
uint16_t wren_inet_csum_final(const struct inet_csum *c);

#endif

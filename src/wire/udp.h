/**
 * @file udp.h
 * @brief UDP wire format (RFC 768) and its checksum over the IPv6
 *        pseudo-header (RFC 8200 section 8.1).
 */
#ifndef WREN_WIRE_UDP_H
#define WREN_WIRE_UDP_H

#include <stddef.h>
#include <stdint.h>

#define UDP_HDR_LEN 8

struct udp_hdr {
    uint16_t src_port;
    uint16_t dst_port;
    uint16_t len;      /**< header + payload */
    uint16_t csum;
};

enum udp_err {
    UDP_ERR_TRUNCATED = 1, /**< fewer than 8 bytes */
    UDP_ERR_LENGTH,        /**< length field below 8 or beyond the bytes present */
};

/** @brief Parse the header; the length field must lie within [8, len].
 *  @return 0 or -UDP_ERR_x. */
int wren_udp_hdr_parse(const uint8_t *buf, size_t len, struct udp_hdr *h);

/** @brief Write the 8-byte header. */
void wren_udp_hdr_emit(const struct udp_hdr *h, uint8_t *buf);

#endif

/**
 * @file ethernet.h
 * @brief Ethernet II framing (IEEE 802.3 with an EtherType) and the IPv6
 *        multicast mapping of RFC 2464.
 *
 * Pure wire code. A frame as a TAP device or a NIC driver gives it, without
 * preamble and FCS:
 *
 * @verbatim
 *  +---------+---------+-----------+------------------------+
 *  | dst MAC | src MAC | EtherType | payload (46..1500)     |
 *  |    6    |    6    |     2     | short frames are padded |
 *  +---------+---------+-----------+------------------------+
 * @endverbatim
 */
#ifndef WREN_WIRE_ETHERNET_H
#define WREN_WIRE_ETHERNET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ETH_ADDR_LEN 6
#define ETH_HDR_LEN 14
#define ETH_MIN_FRAME 60 /**< shortest frame on the wire, FCS excluded */
#define ETH_MTU 1500     /**< largest payload */
#define ETHERTYPE_IPV6 0x86dd

/** Errors, returned negated (-ETH_ERR_x). */
enum eth_err {
    ETH_ERR_TRUNCATED = 1, /**< shorter than the 14-byte header */
    ETH_ERR_LENGTH,        /**< an IEEE 802.3 length field, not an EtherType (< 0x600) */
};

struct eth_hdr {
    uint8_t dst[ETH_ADDR_LEN];
    uint8_t src[ETH_ADDR_LEN];
    uint16_t type; /**< EtherType, host order */
};

/** @brief Parse the header of @p buf. @return 0 or -ETH_ERR_x. */
int wren_eth_hdr_parse(const uint8_t *buf, size_t len, struct eth_hdr *h);

/** @brief Write the 14-byte header. */
void wren_eth_hdr_emit(const struct eth_hdr *h, uint8_t *buf);

/** @brief RFC 2464 section 7: 33:33 and the group's last four bytes. */
void wren_eth_mac_from_ipv6_mcast(uint8_t *mac, const uint8_t *group);

/** @brief Group (multicast or broadcast) address: the I/G bit. */
static inline bool wren_eth_addr_is_group(const uint8_t *a)
{
    return (a[0] & 0x01) != 0;
}

#endif

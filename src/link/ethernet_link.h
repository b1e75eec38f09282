/**
 * @file ethernet_link.h
 * @brief The Ethernet link layer of an interface (RFC 2464: IPv6 over
 *        Ethernet): Ethernet II header on TX, parse, address filtering and
 *        demultiplexing on RX. No 6LoWPAN: IPv6 datagrams ride directly.
 *
 * TX: the packet starts with a netif header. A 6-byte destination is used
 * as is; with none (dst_len 0) and the MULTICAST or BROADCAST flag, an IPv6
 * multicast destination maps to 33:33 and the group's last four bytes (RFC
 * 2464 section 7), anything else to ff:ff:ff:ff:ff:ff. The source is the
 * interface's MAC, the EtherType 0x86DD. Unicast without a link address is
 * refused (tx_drop_bad): resolving next hops is neighbor discovery's work
 * (src/nib/nd_eth.h), above this layer.
 *
 * RX: frames for our MAC or a group address (the IPv6 layer filters the
 * groups) with EtherType 0x86DD go up as (WREN_NETTYPE_IPV6, ALL) with the
 * Ethernet header marked as a WREN_NETTYPE_ETHERNET snip and a netif
 * header (6-byte source and destination, MULTICAST/BROADCAST flags) last.
 * Other EtherTypes count as rx_drop_unsupported, other destinations as
 * rx_drop_not_for_us, short frames as rx_drop_malformed.
 *
 * The interface answers WREN_NETOPT_DEVICE_TYPE with
 * WREN_NETDEV_TYPE_ETHERNET (so the IPv6 layer runs classic neighbor
 * discovery on it), WREN_NETOPT_ADDRESS with the 6-byte MAC and
 * WREN_NETOPT_ADDR_LEN with 6.
 *
 *     static struct wren_ethernet_netif eth;
 *     int id = wren_ethernet_netif_add(node, &eth, &tap.netdev);
 *     wren_ipv6_netif_add(&ipv6, (uint8_t)id);
 *     wren_nd_eth_init(node, &nd, (uint8_t)id);
 */
#ifndef WREN_LINK_ETHERNET_LINK_H
#define WREN_LINK_ETHERNET_LINK_H

#include <stdbool.h>
#include <stdint.h>

#include "net/netif.h"
#include "stack/stack.h"

struct wren_ethernet_netif {
    struct wren_netif netif; /**< first */
    uint8_t mac[6];          /**< network order */
    uint16_t mtu;            /**< largest payload, 1500 unless the device says less */
    bool promiscuous;        /**< pass up frames for any destination */
};

extern const struct wren_netif_link_ops wren_ethernet_link;

/** @brief Add an Ethernet interface over @p dev to @p node; its MAC comes
 *         from the device (WREN_NETOPT_ADDRESS, 6 bytes).
 *  @return the interface id or -errno. */
int wren_ethernet_netif_add(struct wren_node *node, struct wren_ethernet_netif *nif,
                            struct wren_netdev *dev);

/** The link layer, for the stack assembly (src/stack/stack.h). */
extern const struct wren_link_def wren_link_ethernet;

#endif

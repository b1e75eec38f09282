/**
 * @file ieee802154_link.h
 * @brief The 802.15.4 link layer of an interface: MAC header on TX, parse,
 *        address filtering and demultiplexing on RX.
 *
 * On TX the netif header's destination selects the frame's destination
 * (none or 0xffff: broadcast); the source is the interface's short or
 * extended address (WREN_NETOPT_ADDR_LEN). On RX only data frames for this
 * PAN and address (or broadcast) go up, as WREN_NETTYPE_SIXLOWPAN when the
 * payload starts with a 6LoWPAN dispatch and WREN_NETTYPE_UNDEF when it
 * starts with a NALP byte (RFC 4944 section 5.1: "not a LoWPAN frame").
 * Everything else is dropped and counted by reason.
 */
#ifndef WREN_LINK_IEEE802154_LINK_H
#define WREN_LINK_IEEE802154_LINK_H

#include <stdbool.h>
#include <stdint.h>

#include "net/netif.h"

/** Default PAN ID when the device does not report one. */
#define WREN_IEEE802154_DEFAULT_PAN 0x0023

struct wren_ieee802154_netif {
    struct wren_netif netif;   /**< first */
    uint16_t pan;
    uint8_t short_addr[2];     /**< network order */
    uint8_t long_addr[8];      /**< EUI-64, network order */
    uint8_t seq;
    uint8_t src_len;           /**< 2 or 8 */
    bool ack_req;              /**< ask for ACKs on unicast */
    bool promiscuous;
};

extern const struct wren_netif_link_ops wren_ieee802154_link;

/** @brief Add an 802.15.4 interface over @p dev to @p node.
 *  @return the interface id or -errno. */
int wren_ieee802154_netif_add(struct wren_node *node, struct wren_ieee802154_netif *nif,
                              struct wren_netdev *dev);

#endif

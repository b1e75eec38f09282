/**
 * @file udp.h
 * @brief The UDP layer (RFC 768 over IPv6): checksums, length checks, and
 *        demultiplexing by destination port.
 *
 * Registered as (WREN_NETTYPE_UDP, ALL).
 * - SND: [netif]? -> [IPv6 header] -> [UDP header, 8 bytes] -> payload.
 *   Fills in the UDP length and checksum; an unspecified IPv6 source is
 *   first chosen by asking the IPv6 layer (GET WREN_NETOPT_IPV6_SRC_SELECT).
 * - RCV: [UDP datagram] -> [IPv6 header] -> ... Checks length and checksum
 *   (a zero checksum is invalid over IPv6, RFC 8200 8.1), marks the header
 *   and dispatches the payload to (WREN_NETTYPE_UDP, destination port).
 *   With no receiver, asks ICMPv6 for a port-unreachable error.
 */
#ifndef WREN_UDP_UDP_H
#define WREN_UDP_UDP_H

#include <stdint.h>

#include "core/module.h"
#include "net/netreg.h"
#include "pktbuf/pktbuf.h"

struct wren_udp_stats {
    uint32_t rx;
    uint32_t rx_drop_hdr;       /**< shorter than a header or bad length field */
    uint32_t rx_drop_csum;      /**< checksum zero or wrong */
    uint32_t rx_drop_no_port;   /**< nobody listening */
    uint32_t tx;
    uint32_t tx_drop_bad;       /**< malformed request from above */
    uint32_t tx_drop_no_src;    /**< no source address */
};

struct wren_udp {
    struct wren_module module;  /**< first */
    struct wren_netreg_entry reg;
    struct wren_node *node;
    struct wren_udp_stats stats;
};

/** @brief Start the UDP layer of @p node. */
int wren_udp_init(struct wren_node *node, struct wren_udp *udp);

/** @brief Prepend a UDP header snip (length and checksum left to the layer). */
struct wren_snip *wren_udp_hdr_add(struct wren_pktbuf *pb, struct wren_snip *pkt,
                                   uint16_t src_port, uint16_t dst_port);

#endif

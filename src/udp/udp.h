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
 *   A datagram whose checksum its 6LoWPAN sender elided (netif header flag
 *   WREN_NETIF_HDR_CSUM_ELIDED) goes up only when every receiver of the
 *   port answers GET WREN_NETOPT_UDP_CSUM_ELIDED_OK with 1; else it is
 *   dropped and counted (rx_drop_csum_elided), as Linux's 6LoWPAN does.
 *   With no receiver, asks ICMPv6 for a port-unreachable error.
 */
#ifndef WREN_UDP_UDP_H
#define WREN_UDP_UDP_H

#include "core/counters.h"
#include <stdint.h>

#include "core/module.h"
#include "net/netreg.h"
#include "pktbuf/pktbuf.h"

#define WREN_UDP_COUNTERS(C)                                                                 \
    C(rx)                                                                                    \
    C(rx_drop_hdr)         /* shorter than a header or bad length field */                   \
    C(rx_drop_csum)        /* checksum zero or wrong */                                      \
    C(rx_drop_csum_elided) /* checksum elided by the sender (RFC 6282 4.3.2), not wanted */  \
    C(rx_drop_no_port)     /* nobody listening */                                            \
    C(tx)                                                                                    \
    C(tx_drop_bad)         /* malformed request from above */                                \
    C(tx_drop_no_src)      /* no source address */

struct wren_udp_stats {
    WREN_UDP_COUNTERS(WREN_COUNTER_U32)
};

struct wren_udp {
    struct wren_module module;  /**< first */
    struct wren_netreg_entry reg;
    struct wren_node *node;
    struct wren_udp_stats stats;
};

/** @brief Start the UDP layer of @p node. */
int wren_udp_init(struct wren_node *node, struct wren_udp *udp);

/** The module, for the stack assembly (src/stack/stack.h). */
extern const struct wren_module_ops wren_udp_module;

#endif

/**
 * @file nettype.h
 * @brief Protocol types: what a snip holds and what netreg demultiplexes on.
 */
#ifndef WREN_NET_NETTYPE_H
#define WREN_NET_NETTYPE_H

enum wren_nettype {
    WREN_NETTYPE_UNDEF = 0,    /**< payload of no known protocol (raw) */
    WREN_NETTYPE_NETIF,        /**< struct wren_netif_hdr: per-packet link info */
    WREN_NETTYPE_IEEE802154,   /**< an 802.15.4 MAC header */
    WREN_NETTYPE_ETHERNET,     /**< an Ethernet header */
    WREN_NETTYPE_SIXLOWPAN,    /**< a 6LoWPAN frame or header */
    WREN_NETTYPE_IPV6,
    WREN_NETTYPE_IPV6_EXT,
    WREN_NETTYPE_ICMPV6,
    WREN_NETTYPE_UDP,
    WREN_NETTYPE_TCP,
    WREN_NETTYPE_SIXTOP,       /**< a 6P message (RFC 8480), from the 6top IE of a TSCH
                                    frame: netif header (neighbour), then the message */
    WREN_NETTYPE_NDN,          /**< an NDN packet (TLV 0.3): from a link layer (802.15.4
                                    dispatch 0x3e, EtherType 0x8624) to the NDN
                                    forwarder (demux ALL), from it to an application (demux:
                                    the app's face) */
    WREN_NETTYPE_LORA,         /**< a LoRa PHY payload as the modem received it (a LoRaWAN
                                    frame, say): netif header (interface, RSSI) last */
    WREN_NETTYPE_SCHC,         /**< a SCHC message (RFC 8724), rule ID first (on LoRaWAN
                                    the FPort), demultiplexed by interface id */
    WREN_NETTYPE_NUMOF
};

#endif

/**
 * @file netopt.h
 * @brief Option keys for GET/SET, shared by netdev drivers and modules.
 *
 * Each key documents its value type. Multi-byte integers are in host byte
 * order; addresses are in network (big-endian) order. A driver or module
 * that does not know a key answers -ENOTSUP.
 */
#ifndef WREN_NET_NETOPT_H
#define WREN_NET_NETOPT_H

#include "core/counters.h"
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum wren_netopt {
    WREN_NETOPT_CHANNEL = 1,     /**< uint16_t radio channel */
    WREN_NETOPT_ADDRESS,         /**< uint8_t[2] short address (802.15.4), uint8_t[6] MAC
                                      (Ethernet) */
    WREN_NETOPT_ADDRESS_LONG,    /**< uint8_t[8] EUI-64 (802.15.4) */
    WREN_NETOPT_ADDR_LEN,        /**< uint16_t source address length used for TX (2 or 8;
                                      6 on Ethernet) */
    WREN_NETOPT_NID,             /**< uint16_t PAN ID */
    WREN_NETOPT_TX_POWER,        /**< int16_t dBm */
    WREN_NETOPT_MAX_PDU_SIZE,    /**< uint16_t largest payload a frame can carry */
    WREN_NETOPT_CCA_BEFORE_TX,   /**< uint8_t bool: radio does a CCA before each TX */
    WREN_NETOPT_ACK_REQ,         /**< uint8_t bool: request ACKs for unicast */
    WREN_NETOPT_PROMISCUOUS,     /**< uint8_t bool: accept frames for any address */
    WREN_NETOPT_STATE,           /**< uint8_t enum wren_netopt_state */
    WREN_NETOPT_RADIO_TIME,      /**< struct wren_radio_time */
    WREN_NETOPT_DEVICE_TYPE,     /**< uint16_t enum wren_netdev_type */
    WREN_NETOPT_STATS,           /**< struct wren_netif_stats (netif) */
    WREN_NETOPT_IS_WIRED,        /**< uint8_t bool */
    WREN_NETOPT_RSSI_LAST,       /**< int16_t RSSI of the last received frame, dBm */
    WREN_NETOPT_TX_QUEUE_LEN,    /**< uint16_t packets queued for TX */
    WREN_NETOPT_DEV_STATS,       /**< GET: the device's counters (its driver's counter set) */
    WREN_NETOPT_IF_ID,           /**< GET: uint8_t interface a per-interface module serves */
    WREN_NETOPT_LINK_DELAY,      /**< GET: uint32_t us a device's link may add to a frame's
                                      delivery beyond its airtime (ZEP: a hub and process
                                      scheduling); the MAC waits that much longer for ACKs */

    /* fault injection in drivers that offer it (the TAP driver), for tests */
    WREN_NETOPT_FAULTS = 0x60,   /**< struct wren_netopt_faults */
    WREN_NETOPT_FAULT_STATS,     /**< GET: struct wren_netopt_fault_stats */

    /* 802.15.4 MAC (CSMA-CA, acknowledgements, retries) */
    WREN_NETOPT_CSMA = 0x80,       /**< uint8_t bool: unslotted CSMA-CA before each frame */
    WREN_NETOPT_CSMA_MIN_BE,       /**< uint8_t macMinBE (0..max) */
    WREN_NETOPT_CSMA_MAX_BE,       /**< uint8_t macMaxBE (3..8) */
    WREN_NETOPT_CSMA_MAX_BACKOFFS, /**< uint8_t macMaxCSMABackoffs (0..5) */
    WREN_NETOPT_MAX_RETRIES,       /**< uint8_t macMaxFrameRetries (0..7) */
    WREN_NETOPT_RETRY_DELAY,       /**< uint16_t ms: retries wait a random 0..this long */
    WREN_NETOPT_MAC_STATS,         /**< GET: struct wren_mac_stats */
    WREN_NETOPT_MAC_PARENT,        /**< uint8_t[2 or 8]: the parent a sleepy node polls */
    WREN_NETOPT_MAC_POLL,          /**< uint32_t[2] ms: poll interval min, max (0: always on;
                                        min == max: fixed; else adaptive) */
    WREN_NETOPT_LINK_ETX,          /**< GET: struct wren_link_etx (link/link_est.h): in the
                                        neighbour's link address, out its ETX; -ENOENT if
                                        nothing was sent to it yet */
    WREN_NETOPT_MAC_LPL,           /**< uint16_t ms: low-power listening's check interval
                                        (0: off, the radio always on; CSMA MAC only) */

    /* 802.15.4 security (link/ieee802154_sec.h), per interface */
    WREN_NETOPT_SEC_KEY = 0x90,      /**< SET: struct wren_ieee802154_sec_key (index 1..255;
                                          replaces a key of the same index; -ENOSPC table
                                          full); GET: uint8_t[] the indices of the keys set */
    WREN_NETOPT_SEC_KEY_DEL,         /**< SET: uint8_t key index to forget (-ENOENT) */
    WREN_NETOPT_SEC_LEVEL,           /**< SET: struct wren_ieee802154_sec_policy; GET: the
                                          same, in: its frame_type */
    WREN_NETOPT_SEC_FRAME_COUNTER,   /**< uint32_t frame counter of the next secured frame
                                          (SET: restore it after a reboot; never lower it) */
    WREN_NETOPT_SEC_STATS,           /**< GET: struct wren_ieee802154_sec_stats */
    WREN_NETOPT_SEC_OVERHEAD,        /**< GET: uint16_t bytes security adds to a data frame
                                          (auxiliary header and MIC); 0: unsecured */

    /* radio timing, for a slotted MAC (TSCH); times are the node's own clock
     * (wren_node_now(): in the simulator each node's crystal drifts) */
    WREN_NETOPT_RX_TIMESTAMP = 0x70, /**< GET: uint64_t us, local time at which the last
                                          received frame's first symbol (SHR) began */
    WREN_NETOPT_TX_DELAY,            /**< GET: uint32_t us from send() (CCA off) to the
                                          frame's first symbol on the air */

    /* TSCH (mac/tsch/tsch.h); cells and state of the interface's TSCH MAC */
    WREN_NETOPT_TSCH_CELL_ADD = 0xa0, /**< SET: struct wren_tsch_cell (counters ignored);
                                           -EEXIST same slotframe/slot/channel offset/
                                           neighbour, -ENOSPC table full */
    WREN_NETOPT_TSCH_CELL_DEL,        /**< SET: struct wren_tsch_cell: the cell with the same
                                           slotframe, slot offset, channel offset and
                                           neighbour (-ENOENT) */
    WREN_NETOPT_TSCH_CELLS,           /**< GET: struct wren_tsch_cell[], every cell with its
                                           counters */
    WREN_NETOPT_TSCH_SYNC,            /**< GET: struct wren_tsch_sync_info */
    WREN_NETOPT_TSCH_TIME_SOURCE,     /**< SET: uint8_t[8] EUI-64 of the neighbour to keep
                                           time with (RPL's preferred parent); 0 bytes: any */
    WREN_NETOPT_TSCH_JOIN_PRIO,       /**< SET: uint8_t join metric our EBs advertise
                                           (RFC 8180 6.1: DAGRank(rank) - 1; 0xff: do not
                                           send EBs) */
    WREN_NETOPT_TSCH_QUEUES,          /**< GET: struct wren_tsch_queue_info[], one per
                                           neighbour with frames queued */
    WREN_NETOPT_TSCH_ROLE,            /**< SET/GET: uint8_t enum wren_tsch_role */
    WREN_NETOPT_TSCH_STATS,           /**< GET: struct wren_tsch_stats (mac/tsch/tsch.h) */
    WREN_NETOPT_TSCH_CONFIG,          /**< SET/GET: struct wren_tsch_config (mac/tsch/tsch.h):
                                           timeslot template, minimal schedule, periods */
    WREN_NETOPT_TSCH_CELLS_FREE,      /**< GET: uint16_t cells the schedule has room for */

    /* a LoRa modem (drivers/lora_phy.h; the sim's runtime/sim/lora_medium.h, the
     * host's runtime/host/lora_udp.h). WREN_NETOPT_CHANNEL on a LoRa device is
     * the index of an EU868 default channel (0..2: 868.1, 868.3, 868.5 MHz,
     * LoRaWAN RP002-1.0.3 2.4.2), WREN_NETOPT_TX_POWER its output in dBm
     * (-4..20), WREN_NETOPT_MAX_PDU_SIZE the largest payload of the present
     * setting and region */
    WREN_NETOPT_LORA_SF = 0xb0,      /**< uint8_t spreading factor 7..12 */
    WREN_NETOPT_LORA_BW,             /**< uint16_t bandwidth, kHz: 125, 250, 500 */
    WREN_NETOPT_LORA_CR,             /**< uint8_t coding rate 4/x: x = 5..8 */
    WREN_NETOPT_LORA_FREQ,           /**< uint32_t centre frequency, Hz */
    WREN_NETOPT_LORA_SYNCWORD,       /**< uint8_t sync word (0x34: LoRaWAN public, 0x12:
                                          private); frames with another are not received */
    WREN_NETOPT_LORA_PREAMBLE,       /**< uint16_t programmed preamble symbols (6..65535) */
    WREN_NETOPT_LORA_DUTY_CYCLE,     /**< uint16_t duty-cycle limit per sub-band in 1/100 %
                                          (100: 1 %), 0: none; SET WREN_LORA_DC_REGIONAL:
                                          the ETSI sub-band's of the frequency (GET answers
                                          the value in force) */
    WREN_NETOPT_LORA_REGION,         /**< uint8_t enum wren_lora_region (payload limits) */
    WREN_NETOPT_LORA_AIRTIME,        /**< GET: in: uint16_t payload bytes; out: uint32_t
                                          us on air at the present setting */
    WREN_NETOPT_LORA_DC_WAIT,        /**< GET: uint32_t us until the present sub-band takes a
                                          frame again (0: now) */

    /* IPv6 module options; ctx is the interface id where one is needed */
    WREN_NETOPT_IPV6_ADDR = 0x100, /**< GET: struct wren_ipv6_addr[] of interface ctx;
                                        SET: add one struct wren_ipv6_addr */
    WREN_NETOPT_IPV6_ADDR_REMOVE,  /**< SET: uint8_t[16] address to remove from ctx */
    WREN_NETOPT_IPV6_GROUP_JOIN,   /**< SET: uint8_t[16] multicast group on ctx */
    WREN_NETOPT_IPV6_GROUP_LEAVE,  /**< SET: uint8_t[16] multicast group on ctx */
    WREN_NETOPT_IPV6_SRC_SELECT,   /**< GET: in: uint8_t[16] destination; out:
                                        uint8_t[16] source (RFC 6724), ctx 0 = any */
    WREN_NETOPT_IPV6_FORWARDING,   /**< uint8_t bool: route between interfaces */
    WREN_NETOPT_IPV6_ROUTE_ADD,    /**< SET: struct wren_fib_entry */
    WREN_NETOPT_IPV6_ROUTE_DEL,    /**< SET: struct wren_fib_entry (prefix, len) */
    WREN_NETOPT_IPV6_ROUTES,       /**< GET: struct wren_fib_entry[] */
    WREN_NETOPT_IPV6_STATS,        /**< GET: struct wren_ipv6_stats */
    WREN_NETOPT_IPV6_MTU,          /**< uint16_t link MTU of interface ctx */
    WREN_NETOPT_HOP_LIMIT,         /**< uint8_t default hop limit of interface ctx */
    WREN_NETOPT_IPV6_NETIF_ADD,    /**< SET: uint8_t interface id to run IPv6 on */
    WREN_NETOPT_IPV6_IS_OWN,       /**< GET: in: uint8_t[16] address; out: uint8_t 1 if it
                                        is one of the node's unicast addresses, else 0 */

    /* 6LoWPAN and neighbor discovery */
    WREN_NETOPT_SIXLOWPAN_CTX = 0x180, /**< SET/GET: struct sixlowpan_ctx of context id ctx */
    WREN_NETOPT_NIB_L2,            /**< GET: in: uint8_t[16] neighbor on interface ctx;
                                        out: its link-layer address; -ENOENT if unknown */
    WREN_NETOPT_NIB_HOLD,          /**< SET: struct wren_nib_hold on interface ctx: resolve
                                        the next hop (classic ND, RFC 4861 7.2.2) and send
                                        the packet when it answers. 0: the module took the
                                        packet; -errno: refused, the caller still owns it */
    WREN_NETOPT_NIB_ABRO,          /**< GET: struct wren_nib_abro, the authoritative border
                                        router a 6LoWPAN NIB knows (its own or learned from
                                        RAs); -ENOENT if none */

    /* SCHC and LoRaWAN (src/schc, src/link/lorawan_link.h) */
    WREN_NETOPT_SCHC_RULES = 0x1a0, /**< SET: the rule set's text (schc.h), NUL-terminated or
                                        not; -EINVAL and the old set kept on a mistake (GET
                                        WREN_NETOPT_SCHC_ERROR says which); GET: struct
                                        wren_schc_rules */
    WREN_NETOPT_SCHC_ERROR,        /**< GET: char[], the last SET's mistake, one line */
    WREN_NETOPT_SCHC_TIMERS,       /**< SET/GET: uint32_t[2] ms: the uplink's Retransmission
                                        Timer, both Inactivity Timers (the downlink's
                                        Retransmission Timer a ninth of it; RFC 9011: 12
                                        hours by default); 0 keeps one */
    WREN_NETOPT_LORAWAN_SESSION,   /**< SET/GET: struct wren_lorawan_session of a LoRaWAN
                                        interface (DevAddr, keys, role); SET restarts the
                                        frame counters */

    /* RPL */
    WREN_NETOPT_RPL_ROLE = 0x1c0,  /**< SET: struct wren_rpl_role_cfg; GET: uint8_t role */
    WREN_NETOPT_RPL_SRH,           /**< GET, asked by IPv6 of the module taking ICMPv6 type
                                        155 for each datagram it originates: in:
                                        uint8_t[16] destination; out: uint8_t interface,
                                        uint8_t[16] first hop (on that link), then an RFC 6554
                                        SRH to insert (its next header left 0), or nothing;
                                        -ENOENT: no source route, route as usual */
    WREN_NETOPT_RPL_RPI,           /**< GET, asked by IPv6 for each datagram it originates
                                        (not link-local): in: uint8_t[16] destination; out:
                                        the 4 bytes of RPI data (RFC 6553: flags, instance,
                                        sender rank); -ENOENT: not in a DODAG, no RPI */
    WREN_NETOPT_RPL_RPI_FWD,       /**< GET, asked by IPv6 forwarding a datagram with an RPI:
                                        in: uint8_t[16] destination, the 4 RPI bytes, the
                                        previous hop's IID (8); out: the RPI bytes to write
                                        back; -ELOOP: drop it */
    WREN_NETOPT_RPL_ROUTE,         /**< GET, asked by IPv6 routing a datagram (originated or
                                        forwarded): in: uint8_t[16] destination; out:
                                        uint8_t interface, uint8_t prefix length, uint8_t[16]
                                        next hop (a storing-mode downward route; the longer
                                        of it and the FIB's match wins); -ENOENT: none */
    WREN_NETOPT_RPL_ROUTE_MEM,     /**< SET (role off only): struct wren_rpl_route_mem, the
                                        caller's memory for the route table (a root's source
                                        routes, a storing router's routes) instead of the
                                        CONFIG_WREN_RPL_ROUTES built in; mem NULL: back to
                                        the built-in table. -EBUSY with a role */
    WREN_NETOPT_RPL_TUNNEL,        /**< GET, asked by IPv6 forwarding a datagram: in:
                                        uint8_t[16] destination, uint8_t 1 if it carries an
                                        RPI, and (when forwarding) uint8_t[16] its source;
                                        out: uint8_t[16] the end of an IPv6-in-IPv6 tunnel
                                        to put it in (RFC 9008: a root sending it down its
                                        DODAG, a 6LR sending a RPL-unaware leaf's datagram
                                        up to the root); -ENOENT: forward it as it is */
    WREN_NETOPT_RPL_PARENT,        /**< GET: uint8_t[16] the preferred parent's link-local
                                        address and uint8_t[8] its link-layer (EUI-64)
                                        address; -ENOENT: none (root, or not joined) */
    WREN_NETOPT_RPL_RANK,          /**< GET: uint16_t our rank (0xffff: infinite, not in
                                        a DODAG) */
    WREN_NETOPT_RPL_DIO_CONFIG,    /**< SET: uint8_t, how many of the multicast (Trickle)
                                        DIOs from now on carry the DODAG configuration
                                        option (255: all, the default); unicast DIOs
                                        always do (RFC 6550 8.3). A test knob: a root
                                        that behaves as RIOT's and Contiki-NG's do */
    WREN_NETOPT_RPL_REGISTERED,    /**< SET: struct wren_rpl_reg, by a NIB that accepted
                                        an address registration (ARO/EARO; lifetime 0:
                                        deregistered), to every RPL module: a RPL-unaware
                                        leaf's address is announced on its behalf
                                        (RFC 9010) */
    WREN_NETOPT_RPL_RUL,           /**< GET, asked by IPv6 sending a datagram with an RPI:
                                        in: uint8_t[16] destination, uint8_t interface; 1:
                                        the destination is a RPL-unaware leaf we serve, 0:
                                        the interface is this instance's and the
                                        destination is not (RFC 9008: the RPI stays); 2:
                                        neither, and this instance is a root (a forwarded
                                        RPI may leave the domain there, RFC 9008 7.2.1);
                                        -ENOENT: not this instance's */
    WREN_NETOPT_RPL_PREFIX,        /**< GET: struct wren_rpl_prefix, the DODAG's /64 while
                                        the module routes in it (root, or joined router);
                                        -ENOENT otherwise. Asked by the NIBs each second:
                                        they are 6LRs of it (RAs with PIO, registrations),
                                        on the RPL link and on the node's other links */

    /* transport */
    WREN_NETOPT_UDP_CSUM_ELIDED_OK = 0x200, /**< uint8_t bool, of a UDP receiver (a socket):
                                                 it takes datagrams whose checksum the
                                                 sender elided (RFC 6282 4.3.2); UDP asks
                                                 with GET, no answer means no */

    /* NDN (src/ndn/ndn.h) */
    WREN_NETOPT_NDN_FACE = 0x240, /**< SET on the forwarder: struct wren_ndn_face_cfg, a face
                                       found or made; answers its id (> 0) or -ENOSPC.
                                       GET ctx = face id: struct wren_ndn_face */
    WREN_NETOPT_NDN_ROUTE,        /**< SET on the forwarder: struct wren_ndn_route (add, or
                                       remove with cost WREN_NDN_ROUTE_DEL); 0, -ENOSPC,
                                       -ENOENT, -EINVAL */
    WREN_NETOPT_NDN_FACE_DEL,     /**< SET on the forwarder: uint8_t face id: an app closed
                                       its face (its routes and PIT records go) */
};

struct wren_snip;

/** SET WREN_NETOPT_LORA_DUTY_CYCLE to this: the regulatory limit of the
 *  frequency's sub-band (ETSI EN 300 220-2, drivers/lora_phy.h). */
#define WREN_LORA_DC_REGIONAL 0xffffu

/** Value of SET WREN_NETOPT_RPL_REGISTERED. */
struct wren_rpl_reg {
    uint8_t addr[16];    /**< the registered address */
    uint32_t lifetime_s; /**< 0: deregistered */
    uint8_t if_id;       /**< where its owner is */
    uint8_t flags;       /**< WREN_RPL_REG_* */
};
#define WREN_RPL_REG_EARO 0x01 /**< an RFC 8505 EARO (T flag): R says whether to route */
#define WREN_RPL_REG_R 0x02    /**< EARO R flag: the owner asks to be routed (RFC 9010) */

/** Value of GET WREN_NETOPT_RPL_PREFIX. */
struct wren_rpl_prefix {
    uint8_t prefix[16];
    uint8_t len; /**< 1..64 */
};

/** Value of SET WREN_NETOPT_NIB_HOLD. */
struct wren_nib_hold {
    uint8_t next_hop[16];        /**< the neighbor to resolve */
    struct wren_snip *pkt;       /**< netif header (if_id set, no destination) first */
};

/** Value of GET WREN_NETOPT_NIB_ABRO (RFC 6775 4.3). */
struct wren_nib_abro {
    uint8_t addr[16];            /**< the 6LBR's address */
    uint32_t version;
    uint16_t lifetime;           /**< units of 60 s (0: the default, 10,000) */
};

enum wren_netopt_state {
    WREN_NETOPT_STATE_OFF = 0,   /**< powered down */
    WREN_NETOPT_STATE_IDLE,      /**< listening */
    WREN_NETOPT_STATE_RX,        /**< receiving a frame */
    WREN_NETOPT_STATE_TX,        /**< transmitting */
};

/** Time a radio spent in each state since it was initialised, us. */
struct wren_radio_time {
    uint64_t off;
    uint64_t listen;
    uint64_t rx;
    uint64_t tx;
};

/** Value of WREN_NETOPT_FAULTS: what happens to each frame, drawn per frame
 *  and per direction (to and from the device) from a PRNG seeded by @c seed. */
struct wren_netopt_faults {
    uint64_t seed;       /**< SET: 0 keeps the PRNGs' state, else reseeds them */
    uint16_t loss;       /**< frames dropped, in 1/100 % (0..10000) */
    uint16_t reorder;    /**< frames held back and sent after the next one, 1/100 % */
    uint16_t hold_ms;    /**< a held frame goes alone after this (0: 5 ms) */
    uint16_t reserved;
};

/** Value of GET WREN_NETOPT_FAULT_STATS: rx is from the device to the stack,
 *  tx from the stack to the device. */
#define WREN_NETOPT_FAULT_COUNTERS(C)                                       \
    C(rx_dropped)                                                           \
    C(rx_reordered)       /* held frames a later one overtook */            \
    C(rx_held_timeout)    /* held frames that went alone, after hold_ms */  \
    C(tx_dropped)                                                           \
    C(tx_reordered)                                                         \
    C(tx_held_timeout)

struct wren_netopt_fault_stats {
    WREN_NETOPT_FAULT_COUNTERS(WREN_COUNTER_U32)
};

/**
 * @brief Answer a GET: copy @p len bytes of @p src into @p val.
 * @return @p len, or -EOVERFLOW if @p max is smaller.
 */
int wren_netopt_put(void *val, size_t max, const void *src, size_t len);

#endif

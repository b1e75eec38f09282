/**
 * @file ipv6.h
 * @brief The IPv6 layer (RFC 8200): addresses per interface, source
 *        selection, a FIB with longest-prefix match, forwarding between
 *        interfaces, multicast reception, loopback, and demultiplexing to
 *        the upper layers.
 *
 * Registered as (WREN_NETTYPE_IPV6, ALL). It takes:
 * - SND: a packet [netif header]? -> [IPv6 header, 40 bytes] -> upper
 *   layers. The optional netif header pins the interface. Zero fields of
 *   the header are filled in: an unspecified source (selected), hop limit
 *   0 (the interface's default), the payload length (always computed).
 * - RCV: a packet whose first snip holds the datagram from its fixed
 *   header on, followed by link headers and the netif header.
 *
 * Received datagrams for this node go up, with the IPv6 header marked as
 * its own snip, to (protocol type, ALL) — UDP, ICMPv6, TCP — and to raw
 * sockets registered as (WREN_NETTYPE_IPV6, next header). Packets for
 * others are forwarded when forwarding is on. ICMPv6 errors are asked of
 * the ICMPv6 module with a WREN_MSG_ICMPV6_ERROR message.
 */
#ifndef WREN_IPV6_IPV6_H
#define WREN_IPV6_IPV6_H

#include "core/counters.h"
#include <stdbool.h>
#include <stdint.h>

#include "core/module.h"
#include "core/node.h"
#include "ipv6/fib.h"
#include "net/netreg.h"
#include "pktbuf/pktbuf.h"

#ifndef CONFIG_WREN_IPV6_IFS
#define CONFIG_WREN_IPV6_IFS 3       /**< interfaces IPv6 runs on (802.15.4, LoRa, Ethernet) */
#endif
#ifndef CONFIG_WREN_IPV6_ADDRS
#define CONFIG_WREN_IPV6_ADDRS 3     /**< unicast addresses per interface */
#endif
#ifndef CONFIG_WREN_IPV6_GROUPS
/** Groups an interface may join besides all-nodes and the solicited-node
 *  groups of its addresses, which are always received (all-routers,
 *  all-RPL-nodes, CoAP's all-CoAP-nodes link- and site-local). 0: none (a
 *  host needs none; GROUP_JOIN answers -ENOTSUP). */
#define CONFIG_WREN_IPV6_GROUPS 4
#endif
#define WREN_IPV6_DEFAULT_HOP_LIMIT 64
/** Largest RPL source routing header inserted at a non-storing root: 16
 *  uncompressed addresses (compression makes room for more hops). */
#define WREN_IPV6_SRH_MAX (8 + 16 * 16)
_Static_assert(CONFIG_WREN_IPV6_IFS >= 1 && CONFIG_WREN_IPV6_ADDRS >= 1,
               "an interface and its link-local address at least");
_Static_assert(CONFIG_WREN_IPV6_GROUPS >= 0, "0 or more joined groups");

/**
 * A router's features: forwarding between interfaces (and the ICMPv6 errors
 * about datagrams it cannot forward: time exceeded, packet too big, no
 * route), WREN_NETOPT_IPV6_FORWARDING. 0 builds a host, which never
 * forwards: SET WREN_NETOPT_IPV6_FORWARDING answers -ENOTSUP and datagrams
 * for others are dropped (rx_drop_not_for_us).
 */
#ifndef CONFIG_WREN_IPV6_ROUTER
#define CONFIG_WREN_IPV6_ROUTER 1
#endif
/** RPL's hooks (1 by default in a router): the RPL option (RPI) of datagrams
 *  originated and forwarded, a non-storing root's source routes (RFC 6554)
 *  and their processing, a root's tunnels down (RFC 9008), storing mode's
 *  downward routes, each asked of the
 *  module taking ICMPv6 type 155. 0 leaves them out of a router that runs
 *  no RPL (and lets the size report count RPL's whole cost). */
#ifndef CONFIG_WREN_IPV6_RPL
#define CONFIG_WREN_IPV6_RPL CONFIG_WREN_IPV6_ROUTER
#endif
_Static_assert(!CONFIG_WREN_IPV6_RPL || CONFIG_WREN_IPV6_ROUTER, "RPL's hooks need a router");

/**
 * Links whose next hops need address resolution by neighbor discovery
 * (Ethernet, RFC 2464 and RFC 4861 7.2: unresolved packets are handed to
 * the ND module with SET WREN_NETOPT_NIB_HOLD; the MTU comes from the
 * device). 0: IPv6 runs on 6LoWPAN links only, whose addresses carry the
 * link address (RFC 6775 5.2); wren_ipv6_netif_add() refuses an Ethernet
 * device with -ENOTSUP, and no IID is made from an EUI-48.
 */
#ifndef CONFIG_WREN_IPV6_ETHERNET
#define CONFIG_WREN_IPV6_ETHERNET 1
#endif

/** Ask the ICMPv6 module for an error about the packet the message carries;
 *  msg.arg is the pointer (parameter problem) or MTU (packet too big). */
#define WREN_MSG_ICMPV6_ERROR(type, code) ((uint16_t)(0x5800u | (type) << 4 | (code)))
#define WREN_MSG_IS_ICMPV6_ERROR(t) (((t) & 0xff00u) == 0x5800u)

enum wren_ipv6_addr_state {
    WREN_IPV6_ADDR_UNUSED = 0,
    WREN_IPV6_ADDR_TENTATIVE,   /**< DAD not finished: not used as a source */
    WREN_IPV6_ADDR_VALID,
};

struct wren_ipv6_addr {
    uint8_t addr[16];
    uint8_t prefix_len;
    uint8_t state;              /**< enum wren_ipv6_addr_state */
};

enum {
    WREN_IPV6_IF_SIXLO = 0x01,  /**< 6LoWPAN below: send through the 6LoWPAN module */
    WREN_IPV6_IF_ND = 0x02,     /**< Ethernet: unresolved next hops go to neighbor
                                     discovery (SET WREN_NETOPT_NIB_HOLD), never to the IID */
    WREN_IPV6_IF_SCHC = 0x04,   /**< LoRa: send through the interface's SCHC module */
};

struct wren_ipv6_if {
    uint8_t if_id;              /**< 0: slot unused */
    uint8_t flags;
    uint8_t hop_limit;
    uint8_t l2len;
    uint16_t mtu;
    uint8_t l2addr[8];          /**< the address the interface sends from */
    struct wren_ipv6_addr addrs[CONFIG_WREN_IPV6_ADDRS];
#if CONFIG_WREN_IPV6_GROUPS
    uint8_t groups[CONFIG_WREN_IPV6_GROUPS][16];
#endif
};

#define WREN_IPV6_COUNTERS(C)                                                 \
    C(rx_pkts)                                                                \
    C(rx_delivered)                                                           \
    C(rx_forwarded)                                                           \
    C(rx_drop_hdr)            /* truncated header or wrong version */         \
    C(rx_drop_len)            /* payload length beyond the bytes present */   \
    C(rx_drop_src)            /* multicast or otherwise impossible source */  \
    C(rx_drop_not_for_us)     /* not ours and not forwarded */                \
    C(rx_drop_hop_limit)      /* hop limit exhausted while forwarding */      \
    C(rx_drop_scope)          /* link-local source not forwarded (RFC 4291) */\
    C(rx_drop_no_route)       /* nowhere to forward */                        \
    C(rx_drop_ext)            /* bad or unsupported extension header */       \
    C(rx_drop_hbh_fwd)        /* not forwarded: a malformed hop-by-hop header,\
                                 or an option whose type says discard */      \
    C(rx_drop_no_receiver)    /* no upper layer for the next header */        \
    C(rx_drop_nobuf)                                                          \
    C(tx_pkts)                                                                \
    C(tx_loopback)                                                            \
    C(tx_drop_bad)            /* malformed request from above */              \
    C(tx_drop_no_route)                                                       \
    C(tx_drop_no_src)         /* no source address for the destination */     \
    C(tx_drop_too_big)        /* larger than the link MTU */                  \
    C(tx_drop_nobuf)                                                          \
    C(tx_drop_self)           /* the next hop is this node (its own address   \
                                 or link address): never sent */              \
    C(tx_srh)                 /* RPL source routing headers inserted */       \
    C(rx_srh_forwarded)       /* sent on to a source route's next hop */      \
    C(rx_drop_srh)            /* RFC 6554 4.2: bad, looping or multicast */   \
    C(tx_rpi)                 /* RPL options (RPI) inserted */                \
    C(rx_drop_rpl_loop)       /* a second rank error in an RPI: a loop */     \
    C(tx_tunnel)              /* IPv6-in-IPv6 down a DODAG (9008): forwarded, \
                                 or ours to a RPL-unaware leaf's 6LR */       \
    C(rx_decap)               /* IPv6-in-IPv6 to us: the inner one went on */ \
    C(rx_drop_decap)          /* a tunnel in a tunnel, or a bad inner header */\
    C(tx_rpi_removed)         /* RPIs taken off datagrams leaving the RPL     \
                                 domain (RFC 9008): to a RPL-unaware leaf, or \
                                 out of an interface not in the instance */ \
    WREN_IPV6_COUNTERS_MEM(C)

/* with state made on first use (core/config.h CONFIG_WREN_NODE_MEM): the
 * interfaces after the first made by the second one added */
#if CONFIG_WREN_NODE_MEM && CONFIG_WREN_IPV6_IFS > 1
#define WREN_IPV6_IFS_LAZY 1
#define WREN_IPV6_COUNTERS_MEM(C) \
    C(no_mem)                 /* interfaces refused: no memory for the slots after the first */
struct wren_ipv6_ifs_more {
    struct wren_ipv6_if e[CONFIG_WREN_IPV6_IFS - 1];
};
#else
#define WREN_IPV6_IFS_LAZY 0
#define WREN_IPV6_COUNTERS_MEM(C)
#endif

struct wren_ipv6_stats {
    WREN_IPV6_COUNTERS(WREN_COUNTER_U32)
};

struct wren_ipv6 {
    struct wren_module module;   /**< first */
    struct wren_node *node;
    struct wren_ipv6_stats stats; /**< near the start: short instructions count */
    struct wren_netreg_entry reg;
    bool forwarding;
#if WREN_IPV6_IFS_LAZY
    struct wren_ipv6_if ifs[1]; /**< the first interface's slot (WREN_IPV6_IF) */
    WREN_LAZY(struct wren_ipv6_ifs_more, more_ifs); /**< the others': made by the second */
#else
    struct wren_ipv6_if ifs[CONFIG_WREN_IPV6_IFS];
#endif
    WREN_LAZY(struct wren_fib, fib); /**< routes: made by the first one added (core/node.h) */
};

/** @brief Start the IPv6 layer of @p node (registers it in netreg). */
int wren_ipv6_init(struct wren_node *node, struct wren_ipv6 *ip);

/**
 * @brief Run IPv6 on interface @p if_id: learns its link address and MTU
 *        through netapi GET and gives it a link-local address whose
 *        interface identifier comes from that link address (RFC 4944 /
 *        RFC 6282 3.2.2 for 802.15.4).
 * @return 0, -ENOSPC, -ENODEV, -ENOTSUP (an Ethernet device without
 *         CONFIG_WREN_IPV6_ETHERNET).
 */
int wren_ipv6_netif_add(struct wren_ipv6 *ip, uint8_t if_id);

/** @brief Add an address to interface @p if_id. @return 0, -ENOSPC, -ENODEV, -EINVAL. */
int wren_ipv6_addr_add(struct wren_ipv6 *ip, uint8_t if_id, const uint8_t *addr,
                       uint8_t prefix_len, uint8_t state);

/** @brief Pick a source address for @p dst (RFC 6724, simplified: a usable
 *         address of the same scope, on the outgoing interface if known,
 *         with the longest common prefix). @return 0 or -EADDRNOTAVAIL. */
int wren_ipv6_select_src(const struct wren_ipv6 *ip, uint8_t if_id, const uint8_t *dst,
                         uint8_t *src);

/** @brief Whether @p addr is one of this node's unicast addresses. */
bool wren_ipv6_is_own(const struct wren_ipv6 *ip, const uint8_t *addr);

/**
 * @brief Prepend an IPv6 header snip to @p pkt (TX), fields as given; zero
 *        source, hop limit or payload length are filled in by the layer.
 *        With @p if_id (not 0) a netif header in front pins the interface.
 * @return the new head, or NULL (pkt untouched) if the buffer is full.
 */
struct wren_snip *wren_ipv6_hdr_add(struct wren_pktbuf *pb, struct wren_snip *pkt,
                                    const uint8_t *src, const uint8_t *dst, uint8_t next,
                                    uint8_t if_id);

/**
 * @brief The upper-layer checksum (RFC 8200 section 8.1) of @p len bytes of
 *        the packet from snip @p s on, over the pseudo-header of @p src, @p dst
 *        and next header @p next. In RX order the datagram's snips are
 *        followed by the IPv6 header: only @p len bytes are summed.
 * @return the ones' complement sum to store; 0 when it verifies data that
 *         include their checksum.
 */
uint16_t wren_ipv6_upper_csum(const uint8_t *src, const uint8_t *dst, uint8_t next,
                              const struct wren_snip *s, size_t len);

/** @brief Write a 40-byte IPv6 header at @p h: version 6, next header
 *         @p next, the addresses (@p src NULL: unspecified), all else zero
 *         for the layer to fill in. */
void wren_ipv6_hdr_init(uint8_t *h, const uint8_t *src, const uint8_t *dst, uint8_t next);

/** @brief Interface identifier from a link-layer address: 2 (802.15.4
 *         short), 6 (EUI-48, RFC 4291 appendix A; with
 *         CONFIG_WREN_IPV6_ETHERNET only) or 8 bytes (EUI-64). */
void wren_ipv6_iid_from_l2(uint8_t *iid, const uint8_t *l2, uint8_t l2len);

/** @brief The link-layer address an interface identifier encodes (the
 *         inverse of wren_ipv6_iid_from_l2). @return its length (2 or 8). */
uint8_t wren_ipv6_l2_from_iid(const uint8_t *iid, uint8_t *l2);

/** The module, for the stack assembly (src/stack/stack.h). */
extern const struct wren_module_ops wren_ipv6_module;

#endif

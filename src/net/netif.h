/**
 * @file netif.h
 * @brief Network interfaces: a device plus its link layer, as one module.
 *
 * A node has any number of interfaces, each a module that takes SND
 * messages (packets headed by a WREN_NETTYPE_NETIF snip naming the link
 * destination) and ISR messages from its device. On receive it reads the
 * frame into the packet buffer, lets its link layer parse and mark the
 * header, and dispatches the payload up through netreg with a netif header
 * (source/destination link address, interface, RSSI, LQI) at the end of the
 * packet.
 *
 * The link layer (802.15.4, Ethernet, ...) is a set of operations the
 * interface calls; it keeps its own state in a struct that embeds the
 * struct wren_netif.
 */
#ifndef WREN_NET_NETIF_H
#define WREN_NET_NETIF_H

#include "core/counters.h"
#include <stdbool.h>
#include <stdint.h>

#include "core/config.h"
#include "core/module.h"
#include "net/netdev.h"
#include "pktbuf/pktbuf.h"

struct wren_node;
struct wren_netif;

#define WREN_NETIF_L2ADDR_MAX 8

/** Flags of a netif header. */
enum {
    WREN_NETIF_HDR_BROADCAST = 0x01, /**< to / received as link broadcast */
    WREN_NETIF_HDR_MULTICAST = 0x02,
    WREN_NETIF_HDR_NO_ACK = 0x04,    /**< do not ask for a link-layer ACK */
    WREN_NETIF_HDR_FRAG_CONT = 0x08, /**< TX: a later fragment of a datagram (6LoWPAN FRAGN);
                                          worthless once an earlier one is lost */
    WREN_NETIF_HDR_CSUM_ELIDED = 0x10, /**< RX: the sender elided the UDP checksum (6LoWPAN
                                            NHC C bit, RFC 6282 4.3.2); the one in the
                                            datagram is the decompressor's and proves
                                            nothing (UDP delivers it only on request) */
};

/** Data of a WREN_NETTYPE_NETIF snip. Addresses in network byte order. */
struct wren_netif_hdr {
    uint8_t src[WREN_NETIF_L2ADDR_MAX];
    uint8_t dst[WREN_NETIF_L2ADDR_MAX];
    uint8_t src_len;
    uint8_t dst_len;
    uint8_t if_id;
    uint8_t flags;
    int16_t rssi;
    uint8_t lqi;
    struct wren_snip *q_next;  /**< the interface's send queue link (TX only) */
};

/** Counters of an interface; every drop has a reason. */
#define WREN_NETIF_COUNTERS(C)                                                                                                    \
    C(tx_frames)              /* frames handed to the device */                                                                   \
    C(tx_bytes)                                                                                                                   \
    C(tx_ok)                  /* TX_COMPLETE */                                                                                   \
    C(tx_noack)               /* TX_NOACK */                                                                                      \
    C(tx_busy)                /* TX_MEDIUM_BUSY: channel access failure */                                                        \
    C(tx_drop_queue)          /* send queue full */                                                                               \
    C(tx_drop_bad)            /* packet without usable netif header or too long */                                                \
    C(tx_drop_dev)            /* device refused the frame */                                                                      \
    C(tx_drop_frag)           /* later fragments not sent: an earlier one of the same datagram failed or found the queue full */  \
    C(rx_frames)              /* frames accepted and passed up */                                                                 \
    C(rx_bytes)                                                                                                                   \
    C(rx_drop_nobuf)          /* packet buffer exhausted */                                                                       \
    C(rx_drop_malformed)      /* link header did not parse */                                                                     \
    C(rx_drop_unsupported)    /* frame type / security we do not handle */                                                        \
    C(rx_drop_not_for_us)     /* addressed to another node or PAN */                                                              \
    C(rx_drop_no_receiver)    /* nobody registered for the payload */                                                             \
    C(rx_drop_queue)          /* the node's message queue was full */

struct wren_netif_stats {
    WREN_NETIF_COUNTERS(WREN_COUNTER_U32)
};

/** What a link technology provides to an interface. */
struct wren_netif_link_ops {
    /** Set defaults and read the device's addresses. */
    void (*init)(struct wren_netif *netif);
    /** Frame @p pkt (netif header first) and hand it to the device.
     *  Owns @p pkt. @return 0 (sending: wren_netif_tx_done() follows), 1
     *  (taken over, e.g. held for a sleepy neighbor: no event follows), or
     *  -EBUSY (then the caller still owns it and queues it), or another
     *  -errno after having dropped it. */
    int (*send)(struct wren_netif *netif, struct wren_snip *pkt);
    /** Parse the frame in @p pkt (one snip), mark the header, add the netif
     *  header and dispatch the payload. Owns @p pkt. */
    void (*recv)(struct wren_netif *netif, struct wren_snip *pkt,
                 const struct wren_netdev_rx_info *info);
    /** The device finished a transmission (TX_COMPLETE, TX_NOACK,
     *  TX_MEDIUM_BUSY). A link with a MAC of its own (retries, ACKs) takes
     *  these and calls wren_netif_tx_done() when its frame is done; without
     *  this operation each event ends the frame. */
    void (*tx_event)(struct wren_netif *netif, enum wren_netdev_event ev);
    /** Link-level options; -ENOTSUP to fall through to the device. */
    int (*get)(struct wren_netif *netif, uint16_t opt, void *val, size_t max);
    int (*set)(struct wren_netif *netif, uint16_t opt, const void *val, size_t len);
    /** What the link layer counts (its GET answers counters->opt), or NULL. */
    const struct wren_counter_set *counters;
#if CONFIG_WREN_IEEE802154_SEC
    /** A second set of it (802.15.4: security), or NULL. (Only with
     *  CONFIG_WREN_IEEE802154_SEC: images without it stay as they were.) */
    const struct wren_counter_set *counters2;
#endif
    /** The enum wren_netdev_type it frames for (modules pick interfaces by it). */
    uint8_t type;
};

struct wren_netif {
    struct wren_module module;        /**< first: netif is a module */
    struct wren_netif *next;
    struct wren_node *node;
    struct wren_netdev *dev;
    const struct wren_netif_link_ops *link;
    struct wren_snip *txq_head;        /**< send queue, linked via netif headers */
    struct wren_snip *txq_tail;
    uint8_t txq_len;
    uint8_t id;                        /**< 1-based, unique in the node */
    bool tx_busy;                      /**< a frame is with the device */
    bool txq_drop_cont;                /**< the last packet queued was dropped: drop the
                                            fragments that follow it (FRAG_CONT) too */
    struct wren_netif_stats stats;
};

/**
 * @brief Add @p netif to @p node over @p dev with link layer @p link, and
 *        bring the device up.
 * @return the interface id (>0), or -errno from the device's init.
 */
int wren_netif_add(struct wren_node *node, struct wren_netif *netif,
                   struct wren_netdev *dev, const struct wren_netif_link_ops *link);

/** @brief The interface with id @p id, or NULL. */
struct wren_netif *wren_netif_get(struct wren_node *node, uint8_t id);

/**
 * @brief Prepend a netif header to @p pkt (TX: the header goes first).
 * @return the new head, or NULL if the packet buffer is full (then @p pkt
 *         is untouched and still the caller's).
 */
struct wren_snip *wren_netif_hdr_add(struct wren_pktbuf *pb, struct wren_snip *pkt,
                                     const uint8_t *src, uint8_t src_len,
                                     const uint8_t *dst, uint8_t dst_len);

/** @brief The netif header data of snip @p s (of type WREN_NETTYPE_NETIF). */
static inline struct wren_netif_hdr *wren_netif_hdr(struct wren_snip *s)
{
    return (struct wren_netif_hdr *)(void *)s->data;
}

/** @brief The interface id a netif header names. */
static inline uint8_t wren_netif_hdr_if(struct wren_snip *s)
{
    return wren_netif_hdr(s)->if_id;
}

/** @brief The link layer, busy with frames of its own, can take the
 *         interface's next frame again (no frame of the interface ended). */
void wren_netif_tx_resume(struct wren_netif *netif);

/** @brief Tell @p netif the device finished a frame (called from the link
 *         layer or driver event path): counts, then sends the next queued. */
void wren_netif_tx_done(struct wren_netif *netif, enum wren_netdev_event ev);

#endif

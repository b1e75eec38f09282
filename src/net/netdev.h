/**
 * @file netdev.h
 * @brief The network device driver API: the only thing a driver implements.
 *
 * A driver moves whole frames: link-layer framing lives above it. Sending
 * takes an iolist (scatter list) and copies it into the device; receiving
 * is two-step: the driver signals RX_COMPLETE, then the stack calls recv()
 * to learn the size, read the frame, or drop it. Drivers signal events
 * through event_cb; from interrupt context they signal only
 * WREN_NETDEV_EV_ISR, and the stack calls isr() later from its own context,
 * where the driver reports the real events.
 *
 *     recv(dev, NULL, 0, NULL)       -> size of the pending frame (0: none)
 *     recv(dev, NULL, n, NULL), n>0  -> drop the pending frame
 *     recv(dev, buf, n, &info)       -> copy it into buf (at most n), drop it,
 *                                       return its length (-ENOBUFS if n is short)
 */
#ifndef WREN_NET_NETDEV_H
#define WREN_NET_NETDEV_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/counters.h"

struct wren_iolist {
    const struct wren_iolist *next;
    const void *base;
    size_t len;
};

/** @brief Sum of the lengths of an iolist. */
static inline size_t wren_iolist_size(const struct wren_iolist *iol)
{
    size_t n = 0;
    for (; iol; iol = iol->next) {
        n += iol->len;
    }
    return n;
}

enum wren_netdev_event {
    WREN_NETDEV_EV_ISR = 1,        /**< call isr() from thread context */
    WREN_NETDEV_EV_RX_STARTED,     /**< a frame is being received */
    WREN_NETDEV_EV_RX_COMPLETE,    /**< a frame waits for recv() */
    WREN_NETDEV_EV_TX_STARTED,     /**< the frame is on the air */
    WREN_NETDEV_EV_TX_COMPLETE,    /**< sent (acknowledged, if an ACK was asked for) */
    WREN_NETDEV_EV_TX_NOACK,       /**< sent, but no ACK came */
    WREN_NETDEV_EV_TX_MEDIUM_BUSY, /**< not sent: the channel was busy */
    WREN_NETDEV_EV_LINK_UP,
    WREN_NETDEV_EV_LINK_DOWN,
};

enum wren_netdev_type {
    WREN_NETDEV_TYPE_IEEE802154 = 1,
    WREN_NETDEV_TYPE_ETHERNET,
    WREN_NETDEV_TYPE_LOOPBACK,
    WREN_NETDEV_TYPE_LORA,       /**< a LoRa modem: frames of up to 255 bytes, no addresses;
                                      LoRaWAN data frames with SCHC above (src/schc) */
};
/** The link type of LoRa interfaces (the SCHC module runs on each). */
#define WREN_LINK_LORA WREN_NETDEV_TYPE_LORA

/** What the device knows about a received frame. */
struct wren_netdev_rx_info {
    int16_t rssi; /**< dBm */
    uint8_t lqi;  /**< 0..255 */
};

struct wren_netdev;

struct wren_netdev_driver {
    /** Bring the device up. @return 0 or -errno. */
    int (*init)(struct wren_netdev *dev);
    /** Copy @p iol out as one frame. @return bytes accepted, -EBUSY while a
     *  previous frame is still going out, -EMSGSIZE if too long. */
    int (*send)(struct wren_netdev *dev, const struct wren_iolist *iol);
    /** See the file comment. */
    int (*recv)(struct wren_netdev *dev, void *buf, size_t len,
                struct wren_netdev_rx_info *info);
    /** Handle a pending interrupt, reporting events through event_cb. */
    void (*isr)(struct wren_netdev *dev);
    /** Read option @p opt (enum wren_netopt). @return length or -errno. */
    int (*get)(struct wren_netdev *dev, uint16_t opt, void *val, size_t max);
    /** Write option @p opt. @return 0/length or -errno. */
    int (*set)(struct wren_netdev *dev, uint16_t opt, const void *val, size_t len);
    /** What the device counts (GET WREN_NETOPT_DEV_STATS answers it), or NULL. */
    const struct wren_counter_set *counters;
};

struct wren_netdev {
    const struct wren_netdev_driver *driver;
    void (*event_cb)(struct wren_netdev *dev, enum wren_netdev_event ev);
    void *context; /**< the stack's: the interface using this device */
};

/**
 * The recv() contract (see the file comment) for a driver holding one
 * received frame of @p flen bytes at @p frame, reported with @p rssi and
 * @p lqi. Sets *@p taken when the call consumed the frame (read or dropped),
 * so the driver can free its slot. @return what recv() returns.
 */
static inline int wren_netdev_recv_held(const void *frame, size_t flen,
                                        int16_t rssi, uint8_t lqi,
                                        void *buf, size_t len,
                                        struct wren_netdev_rx_info *info,
                                        bool *taken)
{
    *taken = (buf != NULL || len != 0);
    if (buf == NULL) {
        return len ? 0 : (int)flen;
    }
    if (len < flen) {
        return -ENOBUFS;
    }
    memcpy(buf, frame, flen);
    if (info) {
        info->rssi = rssi;
        info->lqi = lqi;
    }
    return (int)flen;
}

#endif

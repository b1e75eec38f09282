/**
 * @file loopback.h
 * @brief Loopback and L2-reflector netdevs (for tests and micro-benchmarks).
 *
 * The loopback device hands every frame it is given straight back as a
 * received frame. The reflector does the same for 802.15.4 frames but
 * swaps source and destination (addresses and PAN IDs), so the frame comes
 * back as if a peer had echoed it: it crosses the whole stack both ways, as
 * in the RIOT paper's micro-benchmarks. Two loopback devices can also be
 * joined into a pair (a wire): each frame one sends, the other receives,
 * so two nodes in one process exchange frames through their whole stacks.
 * A wire has flow control: while the receiver has not read its last frame,
 * the sender's next one waits in the sender, and its TX_COMPLETE with it.
 * All complete at once, with no airtime: they measure the stack, not a
 * channel.
 */
#ifndef WREN_DRIVERS_LOOPBACK_H
#define WREN_DRIVERS_LOOPBACK_H

#include <stdbool.h>
#include <stdint.h>

#include "net/netdev.h"

/** Largest frame the loopback devices hold. */
#ifndef CONFIG_WREN_LOOPBACK_MTU
#define CONFIG_WREN_LOOPBACK_MTU 1280
#endif

struct wren_loopback {
    struct wren_netdev netdev;   /**< first */
    uint16_t mtu;                /**< largest frame accepted */
    uint16_t device_type;        /**< what WREN_NETOPT_DEVICE_TYPE reports */
    bool reflect;                /**< swap 802.15.4 addresses on the way back */
    struct wren_loopback *peer;  /**< the other end of a pair, or NULL */
    uint8_t pending;
    uint16_t len;
    uint8_t addr[8];             /**< what ADDRESS / ADDRESS_LONG report */
    uint16_t pan;
    uint32_t frames;             /**< frames looped */
    uint32_t reflect_errors;     /**< frames the reflector could not parse */
    uint16_t rx_seq;             /**< frames arrived, to tell a new one from the last */
    uint16_t held_len;           /**< pair: a frame waiting for the peer's buffer */
    bool held;
    uint8_t buf[CONFIG_WREN_LOOPBACK_MTU];
    uint8_t hold[CONFIG_WREN_LOOPBACK_MTU];
};

/** @brief Set up a loopback device that reports @p device_type and carries
 *         frames up to @p mtu bytes. */
void wren_loopback_setup(struct wren_loopback *lo, uint16_t device_type, uint16_t mtu);

/** @brief Join two loopback devices into a wire; give each a distinct
 *         address (the last byte of @p b's EUI-64 and short address is 2). */
void wren_loopback_pair(struct wren_loopback *a, struct wren_loopback *b);

/** @brief Hand @p lo a frame as if it had been received (tests, images).
 *  @return 0, -EBUSY (a frame is unread), -EMSGSIZE. */
int wren_loopback_inject(struct wren_loopback *lo, const void *frame, size_t len);

/** @brief Set up an 802.15.4 L2 reflector (mtu 125: a PSDU without FCS). */
void wren_reflector_setup(struct wren_loopback *lo);

#endif

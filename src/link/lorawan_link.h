/**
 * @file lorawan_link.h
 * @brief The LoRaWAN link layer of a LoRa interface: each frame a LoRaWAN
 *        1.0.x data frame (wire/lorawan.h) carrying one SCHC message, its
 *        rule ID in FPort (RFC 9011 5.1).
 *
 * One session per interface (ABP-style: DevAddr, NwkSKey, AppSKey given by
 * SET WREN_NETOPT_LORAWAN_SESSION), in one of two roles: a device sends
 * unconfirmed uplinks and takes downlinks; the network side (a router's
 * gateway interface) the reverse, for that one device. Join (OTAA), confirmed frames, MAC
 * commands, ADR and receive windows are not implemented: the frames ride
 * whatever LoRa device the interface has.
 *
 * TX: [netif] -> SCHC message (rule ID first) -> FPort = rule ID,
 * FRMPayload = the rest, encrypted with AppSKey, FCnt counting up, MIC.
 * RX: parse, direction, DevAddr, MIC (with the 32-bit counter rebuilt from
 * the 16 on the air, LoRaWAN 1.0.3 4.3.1.5), counter above the last one
 * taken, decrypt; the message goes up as (WREN_NETTYPE_SCHC, interface id)
 * with FPort as its first byte, the LoRaWAN header marked as a snip of its
 * own and a netif header last. Every refusal has a counter.
 *
 * Answers WREN_NETOPT_DEVICE_TYPE with WREN_NETDEV_TYPE_LORA,
 * WREN_NETOPT_ADDRESS_LONG with the 8-byte DevEUI (the device's, or
 * 02:57:52:ff:fe and the node id), WREN_NETOPT_MAX_PDU_SIZE with the
 * largest SCHC message a frame carries (the device's PDU less 12 bytes of
 * MHDR, FHDR and MIC, plus FPort).
 */
#ifndef WREN_LINK_LORAWAN_LINK_H
#define WREN_LINK_LORAWAN_LINK_H

#include <stdbool.h>
#include <stdint.h>

#include "core/counters.h"
#include "net/netif.h"
#include "stack/stack.h"

/** Largest LoRa PHY payload (the SX127x FIFO, 255 bytes). */
#define WREN_LORAWAN_MAX_FRAME 255

enum {
    WREN_LORAWAN_ROLE_DEVICE = 0,  /**< sends uplinks */
    WREN_LORAWAN_ROLE_NETWORK = 1, /**< sends downlinks */
};

/** Value of WREN_NETOPT_LORAWAN_SESSION. */
struct wren_lorawan_session {
    uint32_t devaddr;
    uint8_t nwkskey[16];
    uint8_t appskey[16];
    uint8_t role;          /**< WREN_LORAWAN_ROLE_* */
};

#define WREN_LORAWAN_COUNTERS(C)                                                     \
    C(tx_frames)                                                                     \
    C(tx_drop_too_long)     /* the SCHC message does not fit a frame */              \
    C(rx_frames)                                                                     \
    C(rx_drop_malformed)    /* not a LoRaWAN 1.0 data frame */                       \
    C(rx_drop_direction)    /* an uplink at a device, a downlink at the network */   \
    C(rx_drop_not_for_us)   /* another DevAddr */                                    \
    C(rx_drop_no_port)      /* no FPort, or FPort 0 (MAC commands only) */           \
    C(rx_drop_mic)                                                                   \
    C(rx_drop_replay)       /* a frame counter not above the last one taken */       \
    C(rx_drop_nobuf)                                                                 \
    C(rx_drop_no_receiver)  /* no SCHC module on the interface */

struct wren_lorawan_stats {
    WREN_LORAWAN_COUNTERS(WREN_COUNTER_U32)
};

struct wren_lorawan_netif {
    struct wren_netif netif; /**< first */
    struct wren_lorawan_session s;
    uint32_t fcnt_tx;        /**< the next frame's counter */
    uint32_t fcnt_rx;        /**< the last counter taken */
    bool rx_any;             /**< a frame was taken since the session began */
    uint8_t eui[8];
    uint16_t mtu;            /**< largest SCHC message */
    struct wren_lorawan_stats stats;
};

extern const struct wren_netif_link_ops wren_lorawan_link_ops;

/** @brief Add a LoRaWAN interface over @p dev (a LoRa device) to @p node,
 *         with the default session (DevAddr 0x260b0001, all-zero test keys,
 *         device role). @return the interface id or -errno. */
int wren_lorawan_netif_add(struct wren_node *node, struct wren_lorawan_netif *nif,
                           struct wren_netdev *dev);

/** The link layer, for the stack assembly (src/stack/stack.h). */
extern const struct wren_link_def wren_link_lorawan;

#endif

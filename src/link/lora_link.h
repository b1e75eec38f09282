/**
 * @file lora_link.h
 * @brief The raw LoRa link layer of an interface: a LoRa frame has no link
 *        header of its own (the modem's PHY header holds length, coding
 *        rate and CRC; no addresses), so this layer moves payloads as they
 *        are. Framing such as LoRaWAN's (MHDR, DevAddr, FCnt, FPort, MIC)
 *        belongs to the adaptation module above it.
 *
 * TX: a packet headed by a netif header (destination ignored: every
 * receiver on the frequency, spreading factor and sync word hears the
 * frame) goes to the device as one frame of its snips. A device that
 * refuses it (too long for the setting: -EMSGSIZE; the duty-cycle limit
 * closed the sub-band: -EAGAIN, counted by the device as dc_drop) drops it
 * (tx_drop_dev).
 *
 * RX: each frame goes up whole as (WREN_NETTYPE_LORA, ALL) with a netif
 * header (no addresses; interface, RSSI, LQI) last; nobody registered:
 * rx_drop_no_receiver.
 *
 * The interface answers WREN_NETOPT_DEVICE_TYPE with WREN_NETDEV_TYPE_LORA
 * and WREN_NETOPT_ADDR_LEN with 0; everything else is the device's (the
 * LoRa netopts, WREN_NETOPT_MAX_PDU_SIZE).
 */
#ifndef WREN_LINK_LORA_LINK_H
#define WREN_LINK_LORA_LINK_H

#include "net/netif.h"
#include "stack/stack.h"

struct wren_lora_netif {
    struct wren_netif netif; /**< first */
};

extern const struct wren_netif_link_ops wren_lora_link;

/** @brief Add a LoRa interface over @p dev to @p node. @return its id or -errno. */
int wren_lora_netif_add(struct wren_node *node, struct wren_lora_netif *nif,
                        struct wren_netdev *dev);

/** The link layer, for the stack assembly (src/stack/stack.h). */
extern const struct wren_link_def wren_link_lora;

#endif

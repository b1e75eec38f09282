/**
 * @file sim_eth.h
 * @brief A simulated wired Ethernet segment (a bus) and its ports: the
 *        uplink of the Figure 1 router (RIOT paper, section 1), to a host.
 *
 * A port is an Ethernet netdev (WREN_NETDEV_TYPE_ETHERNET, 6-byte MAC
 * 02:57:52:00:HH:LL from the node id) under the Ethernet link layer
 * (src/link/ethernet_link.h). A frame sent takes len * 8 / bit rate on its
 * port (a port sends one frame at a time: the next waits, full duplex, no
 * collisions, as a switched link), then reaches every other port of the
 * bus after the latency; the link layer keeps what is for it. Nothing is
 * random: the same run gives the same frames at the same times. A port
 * holds up to WREN_SIM_ETH_RXQ frames in flight towards it; one more is
 * dropped and counted (rx_overrun). Every frame can be captured
 * (LINKTYPE_ETHERNET, 1) at the time it is sent.
 *
 *     wren_sim_set_eth(s, 1);          // nodes added from now on get a port
 *     h = wren_sim_add_node(s, ...);
 *     wren_sim_set_eth(s, 0);
 *     wren_sim_eth_params(s, 100, 100000000); // 100 us, 100 Mbit/s
 */
#ifndef WREN_SIM_SIM_ETH_H
#define WREN_SIM_SIM_ETH_H

#include <stdint.h>

#include "core/counters.h"
#include "core/timer.h"
#include "link/ethernet_link.h"
#include "net/netdev.h"
#include "sim/pcap.h"

struct wren_sim;
struct wren_sim_node;
struct wren_stack_iface;
struct wren_world;
struct wren_world_clock;

#define WREN_SIM_ETH_FRAME_MAX 1514 /**< header and 1,500 bytes (IEEE 802.3) */
#define WREN_SIM_ETH_RXQ 8          /**< frames in flight towards one port */
#define WREN_SIM_ETH_LATENCY_US 50  /**< default one-way latency */
#define WREN_SIM_ETH_BITRATE 100000000u /**< default: 100 Mbit/s (100BASE-TX) */

#define WREN_SIM_ETH_COUNTERS(C)                                        \
    C(tx_frames)                                                        \
    C(rx_frames)                                                        \
    C(rx_overrun)  /* WREN_SIM_ETH_RXQ frames were already in flight */

struct wren_sim_eth_stats {
    WREN_SIM_ETH_COUNTERS(WREN_COUNTER_U32)
};

struct wren_sim_eth_bus;

struct wren_sim_eth_rx {
    uint64_t at;   /**< arrival (world time) */
    uint16_t len;
    uint8_t buf[WREN_SIM_ETH_FRAME_MAX];
};

/** One port: its device, its link layer's state, frames coming to it. */
struct wren_sim_eth {
    struct wren_netdev netdev; /**< first */
    struct wren_ethernet_netif netif;
    struct wren_sim_eth_bus *bus;
    struct wren_timer rx_timer;  /**< the first arrival */
    struct wren_timer tx_timer;  /**< the end of the frame going out */
    uint64_t tx_free;            /**< when the port can send again */
    struct wren_sim_eth_rx rxq[WREN_SIM_ETH_RXQ]; /**< in arrival order */
    uint8_t n_rx;
    uint8_t n_ready;             /**< of them, arrived */
    uint8_t pend_tx;
    uint8_t mac[6];
    struct wren_sim_eth_stats stats;
};

struct wren_sim_eth_bus {
    struct wren_world *world;
    struct wren_sim_eth **ports;
    uint32_t n_ports;
    uint32_t cap_ports;
    uint32_t latency_us;
    uint32_t bitrate;
    struct wren_pcap pcap;
};

/** @brief Nodes added from now on get an Ethernet port on the bus (@p on 1)
 *         or not (0, the default). @return 0 or -ENOMEM. */
int wren_sim_set_eth(struct wren_sim *s, int on);
/** @brief The bus's one-way latency and bit rate (defaults above).
 *  @return 0, -EINVAL (bit rate 0), -ENODEV (no bus: wren_sim_set_eth). */
int wren_sim_eth_params(struct wren_sim *s, uint32_t latency_us, uint32_t bitrate);
/** @brief Node @p id's Ethernet interface id, -EINVAL, -ENODEV (none). */
int wren_sim_eth_if(struct wren_sim *s, uint32_t id);
/** @brief Capture every frame of the bus to @p path (LINKTYPE_ETHERNET).
 *  @return 0, -ENODEV (no bus), -errno. */
int wren_sim_eth_open_pcap(struct wren_sim *s, const char *path);

/* for sim.c */
int wren_sim_eth_attach(struct wren_sim *s, struct wren_sim_node *sn);
void wren_sim_eth_iface(struct wren_sim_node *sn, struct wren_stack_iface *out);
void wren_sim_eth_bus_free(struct wren_sim_eth_bus *bus);

#endif

/**
 * @file sim_lora.h
 * @brief LoRa interfaces of simulated nodes (runtime/sim/lora_medium.h):
 *        the simulator's C API for them.
 *
 * After wren_sim_set_lora(s, 1), every node added gets a LoRa interface
 * beside its 802.15.4 one (the next interface id, 2; wren_sim_lora_if()
 * says which), its radio at the node's position on the simulation's LoRa
 * medium. The interface's link layer is the raw LoRa link
 * (src/link/lora_link.h): frames go up as WREN_NETTYPE_LORA; or, after
 * wren_sim_set_lora_link(s, 1), LoRaWAN (src/link/lorawan_link.h) with the
 * SCHC module above it: IPv6 over SCHC over LoRaWAN (RFC 9011), the session
 * set by wren_sim_lora_netopt_set(WREN_NETOPT_LORAWAN_SESSION) and the rules
 * by wren_sim_lora_schc_set(WREN_NETOPT_SCHC_RULES).
 *
 *     wren_sim_set_lora(s, 1);
 *     a = wren_sim_add_node(s, 0, 0, 0, 0);
 *     b = wren_sim_add_node(s, 100, 0, 0, 0);
 *     uint8_t sf = 9;
 *     wren_sim_lora_netopt_set(s, a, WREN_NETOPT_LORA_SF, &sf, 1);
 *     wren_sim_lora_send(s, a, payload, 20);
 */
#ifndef WREN_SIM_SIM_LORA_H
#define WREN_SIM_SIM_LORA_H

#include <stddef.h>
#include <stdint.h>

#include "link/lora_link.h"
#include "link/lorawan_link.h"
#include "sim/lora_medium.h"

struct wren_sim;
struct wren_sim_node;
struct wren_stack_iface;

/** A node's LoRa interface: its radio and link state, and its periodic
 *  sender (wren_sim_lora_periodic). */
struct wren_sim_lora {
    struct wren_lora_radio radio;
    union {
        struct wren_netif netif;           /**< first of both */
        struct wren_lora_netif raw;        /**< the raw LoRa link's state */
        struct wren_lorawan_netif wan;     /**< the LoRaWAN link's state */
    } netif;
    uint8_t lorawan;         /**< 1: the interface runs wren_link_lorawan */
    struct wren_node *node;
    struct wren_timer app_timer;
    uint64_t app_interval_us;
    uint32_t app_left;       /**< frames still to hand over (UINT32_MAX: no end) */
    uint32_t app_seq;
    uint16_t app_size;
};

/** @brief Nodes added from now on have a LoRa interface (@p on 1) or not
 *         (0, the default). @return 0 or -ENOMEM (the medium). */
int wren_sim_set_lora(struct wren_sim *s, int on);

/** @brief Nodes added from now on get the LoRaWAN link (@p lorawan 1) or
 *         the raw LoRa link (0, the default) on their LoRa interface. */
void wren_sim_set_lora_link(struct wren_sim *s, int lorawan);

/** @brief SET @p opt on the SCHC module of node @p id's LoRa interface.
 *  @return as the module's SET; -ENODEV (no LoRa interface, no SCHC). */
int wren_sim_lora_schc_set(struct wren_sim *s, uint32_t id, uint16_t opt, const void *val,
                           size_t len);
/** @brief GET @p opt from that SCHC module (WREN_NETOPT_SCHC_ERROR: the
 *         last SET's mistake). */
int wren_sim_lora_schc_get(struct wren_sim *s, uint32_t id, uint16_t opt, void *val,
                           size_t max);

/** @brief Node @p id's LoRa interface id, -EINVAL (no such node), -ENODEV
 *         (it has none). */
int wren_sim_lora_if(struct wren_sim *s, uint32_t id);

/** @brief SET @p opt on node @p id's LoRa interface (through netapi). */
int wren_sim_lora_netopt_set(struct wren_sim *s, uint32_t id, uint16_t opt, const void *val,
                             size_t len);
/** @brief GET @p opt from node @p id's LoRa interface (through netapi). */
int wren_sim_lora_netopt_get(struct wren_sim *s, uint32_t id, uint16_t opt, void *val,
                             size_t max);

/**
 * @brief Hand node @p id's LoRa interface a frame of @p len bytes to send
 *        (a packet headed by a netif header, as an upper layer would).
 * @return 0 (queued or sent: the counters tell), -EINVAL, -ENODEV, -ENOBUFS
 *         (the node's packet buffer is full).
 */
int wren_sim_lora_send(struct wren_sim *s, uint32_t id, const uint8_t *frame, size_t len);

/**
 * @brief From @p start_us on, hand node @p id's LoRa interface a frame of
 *        @p size bytes every @p interval_us, @p count times (0: no end): a
 *        sensor sending one value per frame. Each frame carries its
 *        sequence number (4 bytes, big-endian) and zeros. What becomes of
 *        them is in the counters: netif<N>.tx_frames / tx_drop_queue /
 *        tx_drop_dev, lora<N>.tx_frames / dc_drop, a receiver's
 *        lora<N>.rx_frames. @p interval_us 0 stops it.
 * @return 0, -EINVAL (no such node, size 4..255), -ENODEV (no LoRa).
 */
int wren_sim_lora_periodic(struct wren_sim *s, uint32_t id, uint16_t size, uint32_t interval_us,
                           uint32_t count, uint64_t start_us);

/** @brief Capture every LoRa frame to @p path (LINKTYPE_LORATAP).
 *  @return 0, -ENODEV (no LoRa medium: wren_sim_set_lora first), -errno. */
int wren_sim_lora_open_pcap(struct wren_sim *s, const char *path);

/** @brief The LoRa medium's path loss (wren_lora_medium_set_pathloss).
 *  @return 0, -ENODEV (no LoRa medium), -EINVAL. */
int wren_sim_lora_pathloss(struct wren_sim *s, double d0_m, double pl_d0_db, double gamma,
                           double sigma_db);

/** @brief Power (dBm) at node @p to of a LoRa frame node @p from sends now;
 *         NaN without LoRa interfaces on both. */
double wren_sim_lora_rx_dbm(struct wren_sim *s, uint32_t from, uint32_t to);

/* for sim.c: a new node's LoRa interface */
int wren_sim_lora_attach(struct wren_sim *s, struct wren_sim_node *sn, double x, double y,
                         double z);
void wren_sim_lora_iface(struct wren_sim *s, struct wren_sim_node *sn,
                         struct wren_stack_iface *out);

#endif

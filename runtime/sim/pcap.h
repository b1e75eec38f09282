/**
 * @file pcap.h
 * @brief pcap capture files with virtual timestamps.
 */
#ifndef WREN_SIM_PCAP_H
#define WREN_SIM_PCAP_H

#include <stdint.h>
#include <stdio.h>

/** LINKTYPE_IEEE802_15_4_WITHFCS: 802.15.4 PSDU including the FCS. */
#define WREN_PCAP_LINKTYPE_IEEE802154_FCS 195
/**
 * LINKTYPE_IEEE802_15_4_TAP: a TAP header of TLVs before the PSDU (with
 * FCS). wren writes two TLVs, so that tools see the channel of each frame
 * (tshark: wpan-tap.ch_num, wpan-tap.ch_page, wpan-tap.fcs_type):
 *
 *     0      1      2             4
 *     +------+------+-------------+
 *     | ver 0| rsvd | length 20   |   header, little-endian
 *     +------+------+-------------+---------------------------+
 *     | type 0 (FCS type)  | len 1 | 1 (16-bit CRC) | pad x3   |
 *     +--------------------+-------+--------------------------+
 *     | type 3 (channel)   | len 3 | channel (LE16) | page | pad |
 *     +--------------------+-------+--------------------------+
 *     | PSDU with FCS ...
 */
#define WREN_PCAP_LINKTYPE_IEEE802154_TAP 283
/** LINKTYPE_LORATAP: a LoRaTap header (src/wire/loratap.h) before each LoRa
 *  frame; the LoRa medium (runtime/sim/lora_medium.h) writes these, each
 *  record passed whole to wren_pcap_write(). */
#define WREN_PCAP_LINKTYPE_LORATAP 270
/** LINKTYPE_ETHERNET: IEEE 802.3 frames without FCS (runtime/sim/sim_eth.h). */
#define WREN_PCAP_LINKTYPE_ETHERNET 1

struct wren_pcap {
    FILE *f;
    uint64_t frames;
    uint32_t linktype;
};

/** @brief Create @p path with a pcap header for @p linktype (195, 283, 270 or 1).
 *  @return 0, -EINVAL for another link type, or -errno. */
int wren_pcap_open(struct wren_pcap *p, const char *path, uint32_t linktype);
/** @brief Append one frame captured at @p ts_us (a TAP capture without a
 *         channel TLV). */
void wren_pcap_write(struct wren_pcap *p, uint64_t ts_us, const uint8_t *data, size_t len);
/** @brief Append one PSDU that went out on @p channel (channel page 0) at
 *         @p ts_us; the channel is in the record of a TAP capture only. */
void wren_pcap_write_154(struct wren_pcap *p, uint64_t ts_us, const uint8_t *psdu, size_t len,
                         uint16_t channel);
/** @brief Flush and close. */
void wren_pcap_close(struct wren_pcap *p);

#endif

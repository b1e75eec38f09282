/**
 * @file loratap.h
 * @brief The LoRaTap header, version 0: a LoRa frame's radio metadata in
 *        front of its payload, for pcap files (LINKTYPE_LORATAP, 270) and
 *        for wren's LoRa-over-UDP transport between host processes.
 *
 * Pure wire code. Layout (github.com/eriknl/LoRaTap, README; multi-byte
 * fields big-endian), 15 bytes:
 *
 * @verbatim
 *  +-----+-----+--------+-----------+----+----+-------+-------+-------+-----+------+
 *  | ver | pad | length | frequency | bw | sf | p_rssi| max   | cur   | snr | sync |
 *  |  1  |  1  |   2    |  4 (Hz)   |  1 |  1 |   1   | rssi 1| rssi 1|  1  |  1   |
 *  +-----+-----+--------+-----------+----+----+-------+-------+-------+-----+------+
 * @endverbatim
 *
 * bw is the bandwidth in 125 kHz steps (1, 2, 4); an RSSI byte r means
 * -139 + r dBm (the SX127x's RegPktRssiValue scale), 255 "not available";
 * snr is two's complement in quarter dB. A longer length (later versions'
 * extensions) is skipped by parse; version 0 is the only one emitted.
 */
#ifndef WREN_WIRE_LORATAP_H
#define WREN_WIRE_LORATAP_H

#include <stddef.h>
#include <stdint.h>

#define LORATAP_V0_LEN 15u
#define LORATAP_LINKTYPE 270u   /**< LINKTYPE_LORATAP (tcpdump.org link types) */
#define LORATAP_RSSI_NA 255u    /**< an RSSI field's "not available" */

struct loratap_hdr {
    uint8_t version;    /**< 0 or 1 (parse); emit writes 0 */
    uint16_t len;       /**< header length in the packet (parse); emit writes 15 */
    uint32_t freq_hz;
    uint8_t bw_steps;   /**< bandwidth / 125 kHz: 1, 2, 4 */
    uint8_t sf;         /**< 7..12 (parse accepts 6..12) */
    uint8_t packet_rssi;
    uint8_t max_rssi;
    uint8_t current_rssi;
    int8_t snr_qdb;     /**< SNR, quarter dB */
    uint8_t sync_word;
};

/** Errors, returned negated. */
enum loratap_err {
    LORATAP_ERR_TRUNCATED = 1, /**< shorter than 15 bytes, or than its length field */
    LORATAP_ERR_VERSION,       /**< neither version 0 nor 1 */
    LORATAP_ERR_LENGTH,        /**< length field below 15 */
    LORATAP_ERR_BANDWIDTH,     /**< bandwidth not 1, 2 or 4 steps */
    LORATAP_ERR_SF,            /**< spreading factor outside 6..12 */
    LORATAP_ERR_NOBUFS,        /**< emit: the buffer is shorter than 15 */
};

/** @brief Parse the header at @p buf (@p n bytes). @return its length (the
 *         payload follows there) or -LORATAP_ERR_x. */
int wren_loratap_parse(const uint8_t *buf, size_t n, struct loratap_hdr *h);

/** @brief Write @p h as a version 0 header. @return 15 or -LORATAP_ERR_NOBUFS. */
int wren_loratap_emit(const struct loratap_hdr *h, uint8_t *buf, size_t n);

/** @brief The RSSI byte for @p dbm (-139..116 dBm; clamped). */
uint8_t wren_loratap_rssi(int dbm);

#endif

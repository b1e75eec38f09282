/**
 * @file zep.h
 * @brief ZigBee Encapsulation Protocol, version 2: 802.15.4 frames over UDP
 *        (port 17754), as Wireshark dissects them and RIOT's native port
 *        sends them.
 *
 * Pure wire code: no I/O, no state. A data packet is a 32-byte header and
 * the PSDU; an acknowledgement is 8 bytes:
 *
 * @verbatim
 *  data (type 1):
 *  +----+-----+------+------+-----------+---------+-----+-----------+-----+------+-----+------+
 *  | EX | ver | type | chan | device id | CRC/LQI | LQI | timestamp | seq | resv | len | PSDU |
 *  |  2 |  1  |  1   |  1   |     2     |    1    |  1  | 8 (NTP)   |  4  |  10  |  1  | len  |
 *  +----+-----+------+------+-----------+---------+-----+-----------+-----+------+-----+------+
 *  ack (type 2):
 *  +----+-----+------+-----+
 *  | EX | ver | type | seq |
 *  +----+-----+------+-----+
 * @endverbatim
 *
 * Multi-byte fields are big-endian. With the CRC/LQI mode byte 1 ("CRC
 * mode") the PSDU ends in its 2-byte FCS; with 0 the last two bytes are
 * LQI and RSSI instead — Wireshark then reports a bad FCS, so wren always
 * sends CRC mode.
 *
 * @code
 *   struct zep_frame f;
 *   if (wren_zep_parse(buf, n, &f) < 0 || f.hdr.type != ZEP_TYPE_DATA)
 *       goto drop;
 *   // f.psdu: f.hdr.len bytes, the 802.15.4 frame with its FCS
 *
 *   struct zep_hdr h = { .type = ZEP_TYPE_DATA, .channel = 26, .crc_mode = 1,
 *                        .lqi = 255, .seq = seq++, .len = psdu_len };
 *   wren_zep_emit(&h, out, ZEP_V2_HDR_LEN);  // then the PSDU right behind it
 * @endcode
 */
#ifndef WREN_WIRE_ZEP_H
#define WREN_WIRE_ZEP_H

#include <stddef.h>
#include <stdint.h>

#define ZEP_PORT 17754    /**< the UDP port Wireshark dissects as ZEP */
#define ZEP_V2_HDR_LEN 32 /**< header of a data packet */
#define ZEP_V2_ACK_LEN 8  /**< a whole acknowledgement */
#define ZEP_MAX_PSDU 127  /**< aMaxPhyPacketSize */

/** Packet types (version 2). */
enum {
    ZEP_TYPE_DATA = 1,
    ZEP_TYPE_ACK = 2,
};

/** Errors, returned negated (-ZEP_ERR_x). */
enum zep_err {
    ZEP_ERR_TRUNCATED = 1, /**< shorter than the header its type needs */
    ZEP_ERR_PREAMBLE,      /**< does not start with "EX" */
    ZEP_ERR_VERSION,       /**< not version 2 */
    ZEP_ERR_TYPE,          /**< neither data nor ack */
    ZEP_ERR_LENGTH,        /**< length field above 127 or beyond the bytes present */
    ZEP_ERR_NOBUFS,        /**< output buffer too small */
};

struct zep_hdr {
    uint8_t type;       /**< ZEP_TYPE_DATA or ZEP_TYPE_ACK */
    uint8_t channel;    /**< 802.15.4 channel (11..26 on 2.4 GHz) */
    uint16_t device_id; /**< the sender's id */
    uint8_t crc_mode;   /**< 1: PSDU ends in its FCS; 0: in LQI and RSSI */
    uint8_t lqi;
    uint32_t ts_sec;  /**< NTP timestamp: seconds since 1900 */
    uint32_t ts_frac; /**< NTP timestamp: fraction of a second, 2^-32 s */
    uint32_t seq;     /**< sequence number (data and ack) */
    uint8_t len;      /**< PSDU length, FCS included (data only) */
};

struct zep_frame {
    struct zep_hdr hdr;
    const uint8_t *psdu; /**< into the parsed buffer (data only, else NULL) */
};

/**
 * @brief Parse a ZEP v2 packet. Bytes after the PSDU are ignored.
 * @param[in]  buf  the UDP payload
 * @param[in]  len  its length
 * @param[out] f    the header; f->psdu points into @p buf
 * @return 0 or -ZEP_ERR_x (checked in this order: truncated fixed part,
 *         preamble, version, type, truncated header, length).
 */
int wren_zep_parse(const uint8_t *buf, size_t len, struct zep_frame *f);

/** @brief Header length of @p h: ZEP_V2_HDR_LEN (data) or ZEP_V2_ACK_LEN. */
size_t wren_zep_hdr_len(const struct zep_hdr *h);

/**
 * @brief Write the header of @p h (reserved bytes zero); a data packet's
 *        PSDU of h->len bytes goes right behind it.
 * @return the header length, or -ZEP_ERR_NOBUFS if @p len is shorter,
 *         -ZEP_ERR_TYPE / -ZEP_ERR_LENGTH for a header that cannot be sent.
 */
int wren_zep_emit(const struct zep_hdr *h, uint8_t *buf, size_t len);

#endif

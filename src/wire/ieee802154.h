/**
 * @file ieee802154.h
 * @brief IEEE 802.15.4-2015 MAC frame format: parse, length, emit, FCS.
 *
 * Pure wire code: bytes in, a frame representation or an error out. No I/O,
 * no allocation, no state. The functions here never read or write outside
 * the buffers they are given.
 *
 * Frame versions 0 (2003), 1 (2006) and 2 (2015); beacon, data, ACK (Imm-Ack
 * and Enh-Ack) and MAC command frames. An MPDU without its FCS looks like:
 *
 * @verbatim
 *  +-----+-----+---------+--------+---------+--------+-----------+
 *  | FCF | Seq | Dst PAN | Dst    | Src PAN | Src    | Aux sec.  |  MHR
 *  |  2  | 0/1 |   0/2   | 0/2/8  |   0/2   | 0/2/8  | 0/1+0/4+k |
 *  +-----+-----+---------+--------+---------+--------+-----------+
 *  | header IEs [HT1 | payload IEs [PT]] or [HT2]  (version 2)   |
 *  +------------+--------------------------+--------------------+
 *  | cmd id 0/1 | payload                  | MIC 0/4/8/16       |
 *  +------------+--------------------------+--------------------+
 * @endverbatim
 *
 * Addresses are kept in canonical (big-endian, "as written") order, the
 * reverse of the little-endian over-the-air order: a short address sits in
 * dst_addr[0..1] with dst_addr[0] its high byte, an extended address is the
 * EUI-64 in dst_addr[0..7]. PAN IDs are host-order integers.
 *
 * Usage:
 * @code
 *   struct ieee802154_frame f;
 *   if (wren_ieee802154_fcs_check(psdu, psdu_len) < 0 ||
 *       wren_ieee802154_parse(psdu, psdu_len - 2, &f) < 0)
 *       goto drop;
 *   // f.payload points into psdu: f.payload_len bytes
 *
 *   int n = wren_ieee802154_emit(&f, buf, sizeof(buf) - 2);
 *   if (n >= 0)
 *       put_le16(buf + n, wren_ieee802154_fcs(buf, (size_t)n));
 * @endcode
 */
#ifndef WREN_WIRE_IEEE802154_H
#define WREN_WIRE_IEEE802154_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Errors, returned negated (-IEEE802154_ERR_x). */
enum ieee802154_err {
    IEEE802154_ERR_TRUNCATED = 1, /**< frame shorter than its fields imply */
    IEEE802154_ERR_FRAME_TYPE,    /**< frame type 4..7 (unsupported/reserved) */
    IEEE802154_ERR_VERSION,       /**< frame version 3 (reserved), or 2 without
                                       CONFIG_WREN_IEEE802154_2015 */
    IEEE802154_ERR_ADDR_MODE,     /**< addressing mode 1 (reserved) */
    IEEE802154_ERR_PANID,         /**< PAN ID compression without 2 addresses */
    IEEE802154_ERR_IE,            /**< malformed IE list or IEs without v2 */
    IEEE802154_ERR_SECURITY,      /**< 2003 security or bad aux. header repr, or
                                       any without CONFIG_WREN_IEEE802154_SECURITY */
    IEEE802154_ERR_FCS,           /**< frame check sequence mismatch */
    IEEE802154_ERR_NOBUFS,        /**< output buffer too small */
};

/** Frame types (FCF bits 0-2). */
enum {
    IEEE802154_TYPE_BEACON = 0,
    IEEE802154_TYPE_DATA = 1,
    IEEE802154_TYPE_ACK = 2,
    IEEE802154_TYPE_CMD = 3,
};

/** Addressing modes (FCF bits 10-11 and 14-15); 1 is reserved. */
enum {
    IEEE802154_ADDR_NONE = 0,
    IEEE802154_ADDR_SHORT = 2,
    IEEE802154_ADDR_EXT = 3,
};

/**
 * 802.15.4-2015 (version 2) frames: information elements, sequence number
 * suppression, its PAN ID compression table. 0 for nodes on 2003/2006
 * networks: version 2 frames then parse as IEEE802154_ERR_VERSION and
 * cannot be emitted, like the reserved version 3.
 */
#ifndef CONFIG_WREN_IEEE802154_2015
#define CONFIG_WREN_IEEE802154_2015 1
#endif

/**
 * The auxiliary security header and MIC of secured frames (parsed here;
 * secured and unsecured by the link layer, link/ieee802154_sec.h, with
 * CONFIG_WREN_IEEE802154_SEC). 0: a secured frame parses as
 * IEEE802154_ERR_SECURITY and cannot be emitted.
 */
#ifndef CONFIG_WREN_IEEE802154_SECURITY
#define CONFIG_WREN_IEEE802154_SECURITY 1
#endif

/** Frame versions (FCF bits 12-13); 3 is reserved. */
enum {
    IEEE802154_VERSION_2003 = 0,
    IEEE802154_VERSION_2006 = 1,
    IEEE802154_VERSION_2015 = 2,
};

#define IEEE802154_CMD_DATA_REQ 0x04 /**< MAC command: data request */
#define IEEE802154_FCS_LEN 2         /**< bytes of FCS after the MPDU */
#define IEEE802154_BROADCAST 0xffff  /**< broadcast short address / PAN ID */

/**
 * @brief MAC header (MHR) representation, including the auxiliary security
 * header.
 *
 * seq_suppressed, ie_present, fc_suppressed and asn_in_nonce exist only in
 * version 2 frames: parse leaves them false for versions 0/1 and emit writes
 * 0 there. A PAN ID absent from the frame reads as the other PAN ID if that
 * one is present (intra-PAN), else 0. Fields not present read as 0.
 */
struct ieee802154_hdr {
    uint8_t type;     /**< IEEE802154_TYPE_* */
    uint8_t version;  /**< IEEE802154_VERSION_* */
    uint8_t dst_mode; /**< IEEE802154_ADDR_* */
    uint8_t src_mode; /**< IEEE802154_ADDR_* */
    uint8_t seq;      /**< sequence number (unless seq_suppressed) */
    bool security;    /**< security enabled: aux. header and MIC present */
    bool frame_pending;
    bool ack_req;
    bool panid_comp;
    bool seq_suppressed; /**< v2: no sequence number */
    bool ie_present;     /**< v2: IE list follows the MHR */
    uint16_t dst_pan;
    uint16_t src_pan;
    uint8_t dst_addr[8]; /**< canonical order, see file comment */
    uint8_t src_addr[8];
    /* Auxiliary security header (802.15.4-2015 9.4), used if security. */
    uint8_t sec_level;   /**< 0..7; MIC length from level & 3 */
    uint8_t key_id_mode; /**< 0..3: key identifier of 0/1/5/9 bytes */
    bool fc_suppressed;  /**< v2: no frame counter */
    bool asn_in_nonce;   /**< v2: ASN used in the nonce */
    uint8_t key_index;   /**< key id modes 1..3 */
    uint32_t frame_counter;
    uint8_t key_source[8]; /**< wire order; 4 (mode 2) or 8 (mode 3) bytes */
};

/**
 * @brief A whole MPDU. Pointers refer into the parsed buffer (parse; never
 * NULL there, even for empty ranges) or are copied from (emit; NULL is fine
 * for an empty range); the frame owns nothing.
 *
 * hdr_ie is the header IE list without its HT1/HT2 termination IE;
 * payload_ie the payload IE list (after HT1) without its termination IE.
 * Emit copies both lists verbatim and adds the termination IEs that are
 * needed. In a secured frame the payload IEs are encrypted, so after HT1
 * parse does not walk them: payload_ie then covers everything up to the MIC
 * and there is no cmd_id or payload.
 */
struct ieee802154_frame {
    struct ieee802154_hdr hdr;
    const uint8_t *hdr_ie;
    size_t hdr_ie_len;
    const uint8_t *payload_ie;
    size_t payload_ie_len;
    const uint8_t *payload; /**< MAC payload after the command id */
    size_t payload_len;
    const uint8_t *mic; /**< wren_ieee802154_mic_len() bytes; emit: NULL = 0s */
    uint8_t cmd_id;     /**< MAC command frames only */
};

/**
 * @brief Address field length for an addressing mode.
 * @param[in] mode IEEE802154_ADDR_*.
 * @return 0, 2 or 8 (0 for reserved modes).
 */
static inline size_t wren_ieee802154_addr_len(uint8_t mode)
{
    return mode == IEEE802154_ADDR_EXT ? 8 : mode == IEEE802154_ADDR_SHORT ? 2 : 0;
}

/**
 * @brief MIC length of a header: 0, 4, 8 or 16 by sec_level & 3.
 * @param[in] h Header.
 * @return MIC bytes at the end of the MPDU; 0 if security is off.
 */
static inline size_t wren_ieee802154_mic_len(const struct ieee802154_hdr *h)
{
    unsigned l = h->sec_level & 3u;
    return CONFIG_WREN_IEEE802154_SECURITY && h->security && l ? (size_t)2 << l : 0;
}

/**
 * @brief Whether the destination PAN ID field is present.
 *
 * Versions 0/1: present with a destination address. Version 2:
 * 802.15.4-2015 Table 7-2.
 * @param[in] h Header (modes, version, panid_comp).
 * @return true if the frame carries a destination PAN ID.
 */
bool wren_ieee802154_has_dst_pan(const struct ieee802154_hdr *h);

/**
 * @brief Whether the source PAN ID field is present.
 *
 * Versions 0/1: present with a source address unless panid_comp.
 * Version 2: 802.15.4-2015 Table 7-2.
 * @param[in] h Header.
 * @return true if the frame carries a source PAN ID.
 */
bool wren_ieee802154_has_src_pan(const struct ieee802154_hdr *h);

/**
 * @brief Parse an MPDU (without FCS).
 * @param[in]  mpdu Frame bytes; must outlive @p f (f points into it).
 * @param[in]  len  Bytes in @p mpdu, excluding the FCS.
 * @param[out] f    Result; zeroed first, valid only on success.
 * @return 0 on success.
 * @return -IEEE802154_ERR_TRUNCATED if the frame ends inside the MHR, the
 *         auxiliary security header, the MIC or the command id.
 * @return -IEEE802154_ERR_FRAME_TYPE for frame types 4..7.
 * @return -IEEE802154_ERR_VERSION for frame version 3.
 * @return -IEEE802154_ERR_ADDR_MODE for addressing mode 1.
 * @return -IEEE802154_ERR_PANID for versions 0/1 with PAN ID compression
 *         but not both addresses.
 * @return -IEEE802154_ERR_IE if an IE runs past the end (before the MIC),
 *         has the wrong type for its list, or a termination IE has content.
 * @return -IEEE802154_ERR_SECURITY for a secured version 0 (2003) frame.
 */
int wren_ieee802154_parse(const uint8_t *mpdu, size_t len, struct ieee802154_frame *f);

/**
 * @brief Length of the MHR described by @p h, auxiliary security header
 * included.
 * @param[in] h Header.
 * @return Bytes (2..37).
 * @return -IEEE802154_ERR_FRAME_TYPE, _VERSION, _ADDR_MODE, _PANID as for
 *         parse; -IEEE802154_ERR_SECURITY if security is set with version 0,
 *         sec_level > 7 or key_id_mode > 3.
 */
int wren_ieee802154_hdr_len(const struct ieee802154_hdr *h);

/**
 * @brief Write the MHR described by @p h.
 * @param[in]  h   Header.
 * @param[out] buf Output; nothing is written on error.
 * @param[in]  len Bytes available in @p buf.
 * @return Bytes written (== wren_ieee802154_hdr_len()).
 * @return -IEEE802154_ERR_NOBUFS if @p len is too small.
 * @return The errors of wren_ieee802154_hdr_len().
 */
int wren_ieee802154_hdr_emit(const struct ieee802154_hdr *h, uint8_t *buf, size_t len);

/**
 * @brief Length of the MPDU (without FCS) that wren_ieee802154_emit() writes.
 * @param[in] f Frame.
 * @return Bytes.
 * @return The errors of wren_ieee802154_hdr_len().
 * @return -IEEE802154_ERR_IE if IE lists are given but the header is not
 *         version 2 with ie_present, or a secured frame has both payload
 *         IEs and a payload.
 * @return -IEEE802154_ERR_NOBUFS if a list or payload is 64 KiB or more.
 */
int wren_ieee802154_len(const struct ieee802154_frame *f);

/**
 * @brief Write a whole MPDU without FCS: MHR, header IEs, HT1 + payload
 * IEs (+ payload termination IE) or HT2 as needed, command id, payload and
 * MIC (copied from f->mic, zeros if NULL, for the security layer to fill).
 * @param[in]  f   Frame.
 * @param[out] buf Output; nothing is written on error.
 * @param[in]  len Bytes available in @p buf.
 * @return Bytes written (== wren_ieee802154_len()).
 * @return -IEEE802154_ERR_NOBUFS if @p len is too small.
 * @return The errors of wren_ieee802154_len().
 */
int wren_ieee802154_emit(const struct ieee802154_frame *f, uint8_t *buf, size_t len);

/**
 * @brief Frame check sequence: CRC-16/KERMIT (ITU-T polynomial 0x1021,
 * reflected, initial value 0). Sent little-endian after the MPDU.
 * @param[in] buf Bytes.
 * @param[in] len Byte count.
 * @return The CRC, to store with put_le16().
 */
uint16_t wren_ieee802154_fcs(const uint8_t *buf, size_t len);

/**
 * @brief Check the FCS at the end of a PSDU.
 * @param[in] psdu MPDU followed by its 2-byte little-endian FCS.
 * @param[in] len  Bytes in @p psdu, FCS included.
 * @return 0 if the FCS matches.
 * @return -IEEE802154_ERR_TRUNCATED if @p len < 2.
 * @return -IEEE802154_ERR_FCS on mismatch.
 */
int wren_ieee802154_fcs_check(const uint8_t *psdu, size_t len);

/**
 * @brief Name of an error code.
 * @param[in] err An error code, negated or not.
 * @return A static string ("ok" for 0, "?" for unknown values).
 */
const char *wren_ieee802154_strerror(int err);

#endif

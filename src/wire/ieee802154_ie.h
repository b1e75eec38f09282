/**
 * @file ieee802154_ie.h
 * @brief IEEE 802.15.4-2015 Information Elements (7.4) used by TSCH and
 *        6TiSCH: parse and emit of header IEs, payload IEs and the MLME /
 *        IETF sub-IEs, plus builders for Enhanced Beacons and Enh-Acks.
 *
 * Pure wire code like wire/ieee802154.h: bytes in, a representation or an
 * error out; no state, no allocation. Parsed representations point into the
 * parsed buffer (they own nothing). wren_ieee802154_parse() splits a frame
 * into its header IE list and payload IE list (termination IEs removed);
 * the functions here read and write those lists.
 *
 * @verbatim
 *  header IE  (7.4.2.1):  | len:7 | element id:8 | type=0 |  content (len)
 *  payload IE (7.4.3.1):  | len:11 | group id:4  | type=1 |  content (len)
 *  MLME (group 0x1) content: a list of sub-IEs (7.4.4.1):
 *    short sub-IE: | len:8  | sub-id:7 | type=0 |  content
 *    long sub-IE:  | len:11 | sub-id:4 | type=1 |  content
 *  IETF (group 0x5) content (RFC 8137): | sub-id:8 | content |
 *    6top sub-IE (sub-id 0xc9, RFC 8480 3.1): content = the 6P message
 *
 *  frame: MHR (FC, seq, addressing, aux security header) | header IEs |
 *         [HT1 | payload IEs | [PT]] or [HT2] | payload | MIC
 * @endverbatim
 *
 * With security the payload IEs are encrypted: wren_ieee802154_parse() then
 * leaves everything after HT1 in f->payload_ie; after decryption the link
 * layer calls wren_ieee802154_payload_ie_split() on the plaintext to find
 * where the payload IEs end and the payload starts.
 *
 * Lengths are checked before every read. Unknown IEs and sub-IEs are
 * skipped; a known IE with a length its format does not allow is an error
 * naming the reason, so a MAC can count drops by reason.
 *
 * Usage (receive an EB):
 * @code
 *   struct ieee802154_frame f;
 *   struct ieee802154_payload_ies pie;
 *   if (wren_ieee802154_parse(mpdu, len, &f) < 0 ||
 *       wren_ieee802154_payload_ies_parse(f.payload_ie, f.payload_ie_len, &pie) < 0)
 *       goto drop;
 *   if (pie.mlme.present & IEEE802154_MLME_SYNC)
 *       asn = pie.mlme.sync.asn;
 * @endcode
 * Usage (send an Enh-Ack for a received frame @c rx):
 * @code
 *   struct ieee802154_frame ack;
 *   uint8_t ies[IEEE802154_IE_TIME_CORR_LEN];
 *   struct ieee802154_time_corr tc = {.us = -12, .nack = false};
 *   if (wren_ieee802154_enhack_frame(&ack, &rx.hdr, &tc, ies, sizeof(ies)) == 0)
 *       n = wren_ieee802154_emit(&ack, buf, sizeof(buf));
 * @endcode
 */
#ifndef WREN_WIRE_IEEE802154_IE_H
#define WREN_WIRE_IEEE802154_IE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire/ieee802154.h"

/** Errors, returned negated (-IEEE802154_IE_ERR_x). One per drop reason. */
enum ieee802154_ie_err {
    IEEE802154_IE_ERR_TRUNCATED = 1, /**< an IE or sub-IE runs past its list */
    IEEE802154_IE_ERR_TYPE,          /**< payload IE in a header IE list or the
                                          reverse; termination IE inside a list */
    IEEE802154_IE_ERR_LENGTH,        /**< a known IE's length does not fit its
                                          format (e.g. Sync IE not 6 bytes) */
    IEEE802154_IE_ERR_COUNT,         /**< a count field (slotframes, links,
                                          channels) disagrees with the length */
    IEEE802154_IE_ERR_DUPLICATE,     /**< a known IE twice in one frame */
    IEEE802154_IE_ERR_NOBUFS,        /**< output buffer too small */
    IEEE802154_IE_ERR_INVAL,         /**< emit: a value that cannot be encoded */
};

/** Header IE element ids (802.15.4-2015 Table 7-7). */
enum {
    IEEE802154_HIE_TIME_CORR = 0x1e, /**< ACK/NACK Time Correction IE */
    IEEE802154_HIE_HT1 = 0x7e,       /**< header termination 1: payload IEs follow */
    IEEE802154_HIE_HT2 = 0x7f,       /**< header termination 2: payload follows */
};

/** Payload IE group ids (Table 7-15). */
enum {
    IEEE802154_PIE_ESDU = 0x0,
    IEEE802154_PIE_MLME = 0x1,
    IEEE802154_PIE_IETF = 0x5, /**< RFC 8137 */
    IEEE802154_PIE_TERM = 0xf, /**< payload termination IE */
};

/** MLME sub-IE ids (Tables 7-16 short, 7-17 long). */
enum {
    IEEE802154_SUBIE_TSCH_SYNC = 0x1a,      /**< short */
    IEEE802154_SUBIE_TSCH_SLOTFRAME = 0x1b, /**< short */
    IEEE802154_SUBIE_TSCH_TIMESLOT = 0x1c,  /**< short */
    IEEE802154_SUBIE_CHANNEL_HOPPING = 0x9, /**< long */
};

/** IETF IE sub-id of the 6top IE (RFC 8480 3.1, IANA). */
#define IEEE802154_IETF_6TOP 0xc9

/** Bytes of a header IE carrying a Time Correction (descriptor + 2). */
#define IEEE802154_IE_TIME_CORR_LEN 4

/** Link options of the Slotframe and Link IE (7.4.4.3); the same bits as
 *  WREN_TSCH_CELL_* in mac/tsch/tsch.h. */
enum {
    IEEE802154_LINK_TX = 0x01,
    IEEE802154_LINK_RX = 0x02,
    IEEE802154_LINK_SHARED = 0x04,
    IEEE802154_LINK_TIMEKEEPING = 0x08,
    IEEE802154_LINK_PRIORITY = 0x10,
};

/**
 * @brief One IE or sub-IE as found by an iterator: id and content.
 *
 * id is the element id (header IE), the group id (payload IE) or the sub-id
 * (MLME sub-IE, with long_form telling short from long).
 */
struct ieee802154_ie {
    const uint8_t *content;
    uint16_t len;
    uint8_t id;
    bool long_form; /**< MLME sub-IEs: long format (type 1) */
};

/** Which list an iterator walks. */
enum ieee802154_ie_list {
    IEEE802154_IE_LIST_HDR = 0, /**< header IEs */
    IEEE802154_IE_LIST_PAYLOAD, /**< payload IEs */
    IEEE802154_IE_LIST_MLME,    /**< sub-IEs inside an MLME payload IE */
};

/** Iterator over an IE list; initialise with wren_ieee802154_ie_iter_init. */
struct ieee802154_ie_iter {
    const uint8_t *buf;
    size_t len, pos;
    uint8_t list; /**< enum ieee802154_ie_list */
};

/** ACK/NACK Time Correction IE (7.4.2.7). */
struct ieee802154_time_corr {
    int16_t us; /**< time sync info: -2048..2047 microseconds (12-bit signed) */
    bool nack;  /**< the frame was received but not accepted */
};

/** Header IEs the TSCH MAC uses. */
struct ieee802154_hdr_ies {
    bool has_time_corr;
    struct ieee802154_time_corr time_corr;
};

/** TSCH Synchronization IE (7.4.4.2). */
struct ieee802154_tsch_sync {
    uint64_t asn;        /**< 40 bits */
    uint8_t join_metric; /**< RFC 8180: rank-based join priority */
};

/**
 * TSCH Timeslot IE (7.4.4.4): the template id alone (full == false), or
 * the whole template, times in microseconds. max_tx and length use 3 bytes
 * on the wire when one of them exceeds 0xffff (content 27 bytes, else 25).
 */
struct ieee802154_tsch_timeslot {
    uint8_t id;
    bool full;
    uint16_t cca_offset, cca, tx_offset, rx_offset, rx_ack_delay, tx_ack_delay, rx_wait,
        ack_wait, rx_tx, max_ack;
    uint32_t max_tx, length;
};

/** One link of the Slotframe and Link IE (7.4.4.3). */
struct ieee802154_tsch_link {
    uint16_t timeslot;
    uint16_t channel_offset;
    uint8_t options; /**< IEEE802154_LINK_* */
};

/**
 * One slotframe descriptor of the Slotframe and Link IE. Emit reads links[]
 * (n_links entries); parse sets wire to the links' bytes (5 each) and links
 * to NULL: read them with wren_ieee802154_tsch_link_get().
 */
struct ieee802154_tsch_slotframe {
    uint8_t handle;
    uint16_t size; /**< timeslots */
    uint8_t n_links;
    const struct ieee802154_tsch_link *links; /**< emit */
    const uint8_t *wire;                      /**< parse */
};

/**
 * Channel Hopping IE (7.4.4.31): the hopping sequence id alone
 * (full == false), or the full description: channel page, number of
 * channels, PHY configuration, hopping sequence, current hop. seq points at
 * seq_len little-endian 16-bit channel numbers (parse: into the frame;
 * emit: the same layout); read entries with
 * wren_ieee802154_hopping_channel(). Channel pages 9 and 10 (SUN PHYs) add
 * an extended bitmap that is not decoded here: such an IE parses as its id
 * only (full == false), and emit refuses it.
 */
struct ieee802154_channel_hopping {
    uint8_t id;
    bool full;
    uint8_t page;
    uint16_t n_channels;
    uint32_t phy_config;
    uint16_t seq_len;
    const uint8_t *seq;
    uint16_t current_hop;
};

/** Bits of ieee802154_mlme_ies.present. */
enum {
    IEEE802154_MLME_SYNC = 0x01,
    IEEE802154_MLME_TIMESLOT = 0x02,
    IEEE802154_MLME_HOPPING = 0x04,
    IEEE802154_MLME_SLOTFRAMES = 0x08,
};

/**
 * Content of the MLME payload IE that TSCH uses (an EB's, RFC 8180 6.1).
 * Slotframes: emit reads slotframes[0..n_slotframes); parse sets
 * slotframes to NULL and sf_wire/sf_wire_len to the descriptors on the
 * wire: walk them with wren_ieee802154_tsch_slotframe_next().
 */
struct ieee802154_mlme_ies {
    uint8_t present; /**< IEEE802154_MLME_* */
    struct ieee802154_tsch_sync sync;
    struct ieee802154_tsch_timeslot timeslot;
    struct ieee802154_channel_hopping hopping;
    uint8_t n_slotframes;
    const struct ieee802154_tsch_slotframe *slotframes; /**< emit */
    const uint8_t *sf_wire;                             /**< parse */
    uint16_t sf_wire_len;
};

/** Payload IEs the TSCH MAC uses: the MLME IE and the IETF IE's 6top sub-IE. */
struct ieee802154_payload_ies {
    struct ieee802154_mlme_ies mlme; /**< present == 0: no MLME IE */
    bool has_sixtop;
    const uint8_t *sixtop; /**< the 6P message (after the sub-id byte) */
    uint16_t sixtop_len;
};

/* --- generic lists ------------------------------------------------------- */

/**
 * @brief Start iterating over an IE list.
 * @param[out] it   Iterator.
 * @param[in]  list enum ieee802154_ie_list: what kind of IEs @p buf holds.
 * @param[in]  buf  The list (e.g. f.hdr_ie, f.payload_ie, an MLME IE's content).
 * @param[in]  len  Bytes in @p buf.
 */
void wren_ieee802154_ie_iter_init(struct ieee802154_ie_iter *it, uint8_t list, const uint8_t *buf,
                                  size_t len);

/**
 * @brief Next IE of the list. Termination IEs are returned like others
 * (header id 0x7e/0x7f, payload group 0xf); their content must be empty.
 * @param[in,out] it Iterator; after an error it stays at the bad IE.
 * @param[out]    ie The IE; content points into the list.
 * @return 1 with an IE, 0 at the end of the list.
 * @return -IEEE802154_IE_ERR_TRUNCATED if a descriptor or content runs past
 *         the end.
 * @return -IEEE802154_IE_ERR_TYPE if a header/payload list holds an IE of the
 *         other type, or a termination IE has content.
 */
int wren_ieee802154_ie_next(struct ieee802154_ie_iter *it, struct ieee802154_ie *ie);

/**
 * @brief Split a payload IE region (the plaintext after HT1 of a secured
 * frame, or any payload IE list followed by a payload) into the payload
 * IEs and what follows the payload termination IE.
 * @param[in]  buf    Bytes after HT1.
 * @param[in]  len    Bytes in @p buf.
 * @param[out] ie_len Length of the payload IE list (termination excluded).
 * @param[out] rest   Offset of the payload after the termination IE; == len
 *                    if the list runs to the end without one.
 * @return 0 on success; the errors of wren_ieee802154_ie_next().
 */
int wren_ieee802154_payload_ie_split(const uint8_t *buf, size_t len, size_t *ie_len,
                                     size_t *rest);

/* --- header IEs ---------------------------------------------------------- */

/**
 * @brief Parse a header IE list (f.hdr_ie): Time Correction; unknown IEs
 * skipped.
 * @param[in]  buf List without termination IE.
 * @param[in]  len Bytes in @p buf.
 * @param[out] out Result; zeroed first.
 * @return 0 on success.
 * @return -IEEE802154_IE_ERR_TRUNCATED, _TYPE as wren_ieee802154_ie_next().
 * @return -IEEE802154_IE_ERR_LENGTH if the Time Correction IE is not 2 bytes.
 * @return -IEEE802154_IE_ERR_DUPLICATE for a second Time Correction IE.
 */
int wren_ieee802154_hdr_ies_parse(const uint8_t *buf, size_t len, struct ieee802154_hdr_ies *out);

/**
 * @brief Length of the header IE list wren_ieee802154_hdr_ies_emit() writes.
 * @param[in] in Header IEs.
 * @return Bytes.
 */
int wren_ieee802154_hdr_ies_len(const struct ieee802154_hdr_ies *in);

/**
 * @brief Write a header IE list (no termination IE: the frame emit adds it).
 * @param[in]  in  Header IEs.
 * @param[out] buf Output; nothing written on error.
 * @param[in]  len Bytes available.
 * @return Bytes written.
 * @return -IEEE802154_IE_ERR_NOBUFS if @p len is too small.
 * @return -IEEE802154_IE_ERR_INVAL if time_corr.us is outside -2048..2047.
 */
int wren_ieee802154_hdr_ies_emit(const struct ieee802154_hdr_ies *in, uint8_t *buf, size_t len);

/* --- payload IEs --------------------------------------------------------- */

/**
 * @brief Parse a payload IE list (f.payload_ie, or the list found by
 * wren_ieee802154_payload_ie_split()): the MLME IE's TSCH sub-IEs and the
 * IETF IE's 6top sub-IE; unknown IEs, sub-IEs and IETF sub-ids skipped.
 * @param[in]  buf List without termination IE.
 * @param[in]  len Bytes in @p buf.
 * @param[out] out Result; zeroed first; pointers into @p buf.
 * @return 0 on success.
 * @return -IEEE802154_IE_ERR_TRUNCATED, _TYPE as wren_ieee802154_ie_next()
 *         (also inside the MLME IE).
 * @return -IEEE802154_IE_ERR_LENGTH for a Sync IE not 6 bytes, a Timeslot IE
 *         not 1, 25 or 27, a Channel Hopping IE of 2..11 bytes, an IETF IE
 *         without its sub-id byte, a Slotframe and Link IE without its
 *         count byte.
 * @return -IEEE802154_IE_ERR_COUNT if the slotframe/link counts or the
 *         hopping sequence length disagree with the IE's length.
 * @return -IEEE802154_IE_ERR_DUPLICATE for a TSCH sub-IE or 6top IE twice.
 */
int wren_ieee802154_payload_ies_parse(const uint8_t *buf, size_t len,
                                      struct ieee802154_payload_ies *out);

/**
 * @brief Length of the payload IE list wren_ieee802154_payload_ies_emit()
 * writes.
 * @param[in] in Payload IEs.
 * @return Bytes.
 * @return -IEEE802154_IE_ERR_INVAL as for emit.
 */
int wren_ieee802154_payload_ies_len(const struct ieee802154_payload_ies *in);

/**
 * @brief Write a payload IE list: an MLME IE with the sub-IEs in
 * mlme.present (Sync, Timeslot, Channel Hopping, Slotframe and Link, in
 * that order), then an IETF IE with the 6top sub-IE if has_sixtop. No
 * termination IE: the frame emit adds it.
 * @param[in]  in  Payload IEs.
 * @param[out] buf Output; nothing written on error.
 * @param[in]  len Bytes available.
 * @return Bytes written.
 * @return -IEEE802154_IE_ERR_NOBUFS if @p len is too small.
 * @return -IEEE802154_IE_ERR_INVAL for an ASN over 40 bits, an IE content
 *         over 2047 bytes (sub-IE: 255 short, 2047 long), more than 255
 *         slotframes, a full Channel Hopping IE on page 9 or 10.
 */
int wren_ieee802154_payload_ies_emit(const struct ieee802154_payload_ies *in, uint8_t *buf,
                                     size_t len);

/**
 * @brief Next slotframe of a parsed Slotframe and Link IE.
 * @param[in]     m   Parsed MLME IEs (sf_wire).
 * @param[in,out] pos 0 to start.
 * @param[out]    sf  The slotframe; links via wren_ieee802154_tsch_link_get().
 * @return 1 with a slotframe, 0 after the last.
 */
int wren_ieee802154_tsch_slotframe_next(const struct ieee802154_mlme_ies *m, size_t *pos,
                                        struct ieee802154_tsch_slotframe *sf);

/**
 * @brief Link @p i of a slotframe (parsed: from wire; to emit: links[i]).
 * @param[in]  sf  Slotframe.
 * @param[in]  i   Index below sf->n_links.
 * @param[out] out The link.
 */
void wren_ieee802154_tsch_link_get(const struct ieee802154_tsch_slotframe *sf, unsigned i,
                                   struct ieee802154_tsch_link *out);

/**
 * @brief Entry @p i of a hopping sequence.
 * @param[in] h Channel Hopping IE with full set.
 * @param[in] i Index below h->seq_len.
 * @return The channel number.
 */
uint16_t wren_ieee802154_hopping_channel(const struct ieee802154_channel_hopping *h, unsigned i);

/** @brief The default timeslot template (802.15.4-2015 Table 8-99,
 *  2.4 GHz, 10 ms), id 0. @param[out] ts Template, full set. */
void wren_ieee802154_tsch_timeslot_default(struct ieee802154_tsch_timeslot *ts);

/* --- frame builders ------------------------------------------------------ */

/**
 * @brief Fill @p f as an Enhanced Beacon (RFC 8180 6.1, Appendix A): beacon
 * frame, version 2, sequence number suppressed, PAN ID compression 1, dst
 * short broadcast 0xffff with the destination PAN ID, src extended (no
 * source PAN ID, Table 7-2), IE present, no header IEs, the payload IEs
 * emitted into @p ie_buf. The caller may then set security fields or the
 * sequence number and calls wren_ieee802154_emit().
 * @param[out] f       Frame; zeroed first; payload_ie points into @p ie_buf.
 * @param[in]  pan_id  PAN ID.
 * @param[in]  src     Own EUI-64, canonical order.
 * @param[in]  ies     Payload IEs (for RFC 8180: Sync, Timeslot id 0,
 *                     Channel Hopping id 0, one slotframe with the minimal
 *                     cell).
 * @param[out] ie_buf  Scratch for the payload IEs; must outlive @p f.
 * @param[in]  ie_len  Bytes in @p ie_buf.
 * @return 0, or the errors of wren_ieee802154_payload_ies_emit().
 */
int wren_ieee802154_eb_frame(struct ieee802154_frame *f, uint16_t pan_id, const uint8_t src[8],
                             const struct ieee802154_payload_ies *ies, uint8_t *ie_buf,
                             size_t ie_len);

/**
 * @brief The payload IEs of a minimal 6TiSCH EB (RFC 8180 4, 6.1): TSCH
 * Sync (asn, join_metric), Timeslot id 0, Channel Hopping id 0, one
 * slotframe (handle 0, @p sf_size) with the minimal cell @p cell (slot 0,
 * channel offset 0, TX|RX|SHARED|TIMEKEEPING).
 * @param[out] ies        Result (mlme.slotframes points to @p sf).
 * @param[out] sf         Storage for the slotframe; must outlive @p ies.
 * @param[out] cell       Storage for the link; must outlive @p ies.
 * @param[in]  asn        Absolute slot number of the EB's slot.
 * @param[in]  join_metric Join metric (RFC 8180 6.1: DAGRank(rank) - 1).
 * @param[in]  sf_size    Slotframe length in timeslots.
 */
void wren_ieee802154_eb_minimal_ies(struct ieee802154_payload_ies *ies,
                                    struct ieee802154_tsch_slotframe *sf,
                                    struct ieee802154_tsch_link *cell, uint64_t asn,
                                    uint8_t join_metric, uint16_t sf_size);

/**
 * @brief Fill @p f as the Enh-Ack (802.15.4-2015 7.3.3, RFC 8180 5.1) of a
 * received frame: ack frame, version 2, the acked frame's sequence number
 * (suppressed if it was), destination = the acked frame's source address
 * (same mode; none if it had none), no source address, PAN ID compression
 * 1 (no PAN ID fields, Table 7-2), a Time Correction header IE written to
 * @p ie_buf, no payload. The caller may set security fields (an Enh-Ack to
 * a secured frame is secured, RFC 8180 5.4) before emitting.
 * @param[out] f      Frame; zeroed first; hdr_ie points into @p ie_buf.
 * @param[in]  rx     Header of the frame being acknowledged.
 * @param[in]  tc     Time correction and ACK/NACK.
 * @param[out] ie_buf Scratch, IEEE802154_IE_TIME_CORR_LEN bytes; must
 *                    outlive @p f.
 * @param[in]  ie_len Bytes in @p ie_buf.
 * @return 0, or the errors of wren_ieee802154_hdr_ies_emit().
 */
int wren_ieee802154_enhack_frame(struct ieee802154_frame *f, const struct ieee802154_hdr *rx,
                                 const struct ieee802154_time_corr *tc, uint8_t *ie_buf,
                                 size_t ie_len);

/**
 * @brief Name of an IE error code.
 * @param[in] err An error code, negated or not.
 * @return A static string ("ok" for 0, "?" for unknown values).
 */
const char *wren_ieee802154_ie_strerror(int err);

#endif

/**
 * @file wire_tsch.h
 * @brief ctypes entry points into the 802.15.4-2015 IE codec
 *        (wire/ieee802154_ie.h), exported from the simulator library so
 *        Python tests can build TSCH frames with wren's code and check them
 *        with tshark and scapy.
 *
 * Frame builders write a PSDU (MPDU and FCS) to @p out and return its
 * length, or a negative -IEEE802154_ERR_x / -IEEE802154_IE_ERR_x. Addresses
 * are EUI-64s in canonical order.
 */
#ifndef WREN_SIM_WIRE_TSCH_H
#define WREN_SIM_WIRE_TSCH_H

#include <stddef.h>
#include <stdint.h>

/**
 * @brief A minimal-6TiSCH EB (wren_ieee802154_eb_minimal_ies): full == 0
 * gives the timeslot template and hopping sequence by id 0; full == 1
 * writes the default template and the hopping sequence @p hop_seq
 * (@p hop_len little-endian 16-bit channels) in full; full == 2 the same
 * with template id 1 whose max_tx (65,541 us) and length (70,000 us) need
 * the 27-byte form.
 */
int wren_wire_tsch_eb(uint16_t pan, const uint8_t *src, uint64_t asn, uint8_t join_metric,
                      uint16_t sf_size, int full, const uint8_t *hop_seq, uint16_t hop_len,
                      uint8_t *out, size_t out_max);

/** @brief The Enh-Ack of the MPDU @p rx (no FCS) with a time correction. */
int wren_wire_tsch_enhack(const uint8_t *rx, size_t rx_len, int us, int nack, uint8_t *out,
                          size_t out_max);

/** @brief A data frame (ext/ext addresses) carrying the 6P message @p msg in
 *  a 6top IE (IETF payload IE, RFC 8480 3.1). */
int wren_wire_tsch_sixtop_data(uint16_t pan, const uint8_t *src, const uint8_t *dst, uint8_t seq,
                               const uint8_t *msg, size_t msg_len, uint8_t *out, size_t out_max);

/** @brief A data frame (no payload) with the given frame version, addressing
 *  modes, PAN ID compression and sequence number suppression; addresses
 *  canonical, 8 bytes each (the first 2 used for short ones). */
int wren_wire_ieee802154_data(uint8_t version, uint8_t dst_mode, uint8_t src_mode, int panid_comp,
                              int seq_suppressed, uint16_t dst_pan, uint16_t src_pan,
                              const uint8_t *dst, const uint8_t *src, uint8_t *out,
                              size_t out_max);

/** @brief Parse a PSDU: which PAN ID fields it carries (bit 0 destination,
 *  bit 1 source) and the PAN IDs as wren reads them (@p pans[2]).
 *  @return the bits, or -IEEE802154_ERR_x. */
int wren_wire_ieee802154_pans(const uint8_t *psdu, size_t len, uint16_t *pans);

/**
 * @brief Parse a PSDU with wren's parsers and describe it as
 * "key=value ..." text (time correction, ASN, template, hopping sequence,
 * slotframes and links, 6top message in hex).
 * @return 0; a frame error -IEEE802154_ERR_x; an IE error
 *         -100 - IEEE802154_IE_ERR_x.
 */
int wren_wire_tsch_describe(const uint8_t *psdu, size_t len, char *desc, size_t desc_max);

#endif

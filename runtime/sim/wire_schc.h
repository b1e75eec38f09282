/**
 * @file wire_schc.h
 * @brief ctypes entry points into the SCHC codec (wire/schc.h), SCHC
 *        fragmentation (schc/schc_frag.h) and LoRaWAN framing
 *        (wire/lorawan.h), exported from the simulator library so Python
 *        tests can check them against microschc, an independent
 *        reassembler, scapy and tshark.
 *
 * Each returns a length or a negative error of the codec it calls; a rule
 * text that does not parse returns -1000 with its one-line mistake in
 * @p err.
 */
#ifndef WREN_SIM_WIRE_SCHC_H
#define WREN_SIM_WIRE_SCHC_H

#include <stddef.h>
#include <stdint.h>

/** @brief Compress IPv6 packet @p pkt with the rule text @p rules in
 *  direction @p dir (1 up, 2 down) into @p out. */
int wren_wire_schc_compress(const char *rules, int dir, const uint8_t *pkt, size_t len,
                            uint8_t *out, size_t out_max, char *err, size_t err_len);

/** @brief Decompress SCHC packet @p schc with @p rules in direction @p dir. */
int wren_wire_schc_decompress(const char *rules, int dir, const uint8_t *schc, size_t len,
                              uint8_t *out, size_t out_max, char *err, size_t err_len);

/**
 * @brief The first pass of fragments of SCHC packet @p pkt with RFC 9011's
 *        uplink (@p down 0) or downlink (1) profile, @p mtu bytes a message,
 *        as if every ACK said all was well (ACK-Always's ACKs taken as they
 *        would come). Each message goes to @p out as a 2-byte big-endian
 *        length and the message. @return bytes written.
 */
int wren_wire_schc_fragment(int down, const uint8_t *pkt, size_t len, size_t mtu, uint8_t *out,
                            size_t out_max);

/**
 * @brief Feed the messages in @p msgs (2-byte length, message, ...) to a
 *        receiver of the uplink (@p down 0) or downlink profile; the ACKs
 *        it sends go to @p acks in the same form (*@p acks_len bytes).
 * @return the reassembled packet's length (in @p out), 0 if none came
 *         whole, or the last refusal (negative).
 */
int wren_wire_schc_reassemble(int down, const uint8_t *msgs, size_t len, uint8_t *out,
                              size_t out_max, uint8_t *acks, size_t acks_max, size_t *acks_len);

/** @brief A sealed LoRaWAN data frame (unconfirmed, up or down). */
int wren_wire_lorawan_seal(uint32_t devaddr, int down, uint32_t fcnt, uint8_t fport,
                           const uint8_t *nwkskey, const uint8_t *appskey, const uint8_t *pl,
                           size_t n, uint8_t *out, size_t out_max);

/** @brief RFC 9011 5.3's IID of @p deveui under @p appskey into @p iid (8 bytes). */
void wren_wire_lorawan_iid(const uint8_t *appskey, const uint8_t *deveui, uint8_t *iid);

#endif

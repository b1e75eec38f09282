/**
 * @file lora_modem.h
 * @brief A LoRa modem's settings and its duty-cycle bookkeeping, as every
 *        LoRa netdev keeps them (the sim's radio, runtime/sim/lora_medium.h;
 *        the host's LoRa-over-UDP device, runtime/host/lora_udp.h): the
 *        LoRa netopts (src/net/netopt.h, 0xb0..) answered and checked in one
 *        place. Pure: times come from the caller, no I/O.
 *
 * Defaults (wren_lora_modem_init): SF7, 125 kHz, CR 4/5, 8 preamble
 * symbols, payload CRC, 868.1 MHz (EU868's first default channel), 14 dBm
 * (the SX1276 RFO pin's maximum, datasheet RegPaConfig), sync word 0x34
 * (LoRaWAN's), EU868 payload limits, the regional duty cycle.
 */
#ifndef WREN_DRIVERS_LORA_MODEM_H
#define WREN_DRIVERS_LORA_MODEM_H

#include <stddef.h>
#include <stdint.h>

#include "drivers/lora_phy.h"

/** EU868's default channels (LoRaWAN RP002-1.0.3 2.4.2), WREN_NETOPT_CHANNEL 0..2. */
#define WREN_LORA_EU868_CH0_HZ 868100000u
#define WREN_LORA_CHANNEL_STEP_HZ 200000u
#define WREN_LORA_CHANNELS 3u

struct wren_lora_modem {
    struct wren_lora_phy phy; /**< SF, BW, CR, preamble, CRC */
    uint32_t freq_hz;
    int16_t tx_power;         /**< dBm */
    uint16_t dc;              /**< as set: 0, 1..10000 (1/100 %), or WREN_LORA_DC_REGIONAL */
    uint8_t region;           /**< enum wren_lora_region */
    uint8_t syncword;
    uint64_t band_free[WREN_LORA_SUB_BANDS + 1]; /**< per sub-band (the last: outside
                                                      ETSI's), when it opens again, us */
};

/** @brief The defaults above. */
void wren_lora_modem_init(struct wren_lora_modem *m);

/** @brief The duty-cycle limit in force (1/100 %, 0: none) and, in
 *         *@p slot, the index of its sub-band in band_free. */
uint16_t wren_lora_modem_dc(const struct wren_lora_modem *m, unsigned *slot);

/** @brief How long from @p now until the present sub-band takes a frame, us. */
uint64_t wren_lora_modem_dc_wait(const struct wren_lora_modem *m, uint64_t now);

/** @brief A frame of @p airtime_us ending at @p end went out: close its
 *         sub-band for the limit's off time. */
void wren_lora_modem_sent(struct wren_lora_modem *m, uint64_t end, uint32_t airtime_us);

/** @brief The largest payload of the present setting and region. */
unsigned wren_lora_modem_max_payload(const struct wren_lora_modem *m);

/**
 * @brief GET @p opt: the LoRa netopts, WREN_NETOPT_CHANNEL, TX_POWER,
 *        MAX_PDU_SIZE and DEVICE_TYPE; WREN_NETOPT_LORA_DC_WAIT as of @p now.
 * @return the length, -EOVERFLOW, -ENOENT (CHANNEL: the frequency is none of
 *         the default channels), -EINVAL (AIRTIME of more than 255 bytes), or
 *         -ENOTSUP for another option.
 */
int wren_lora_modem_get(const struct wren_lora_modem *m, uint16_t opt, void *val, size_t max,
                        uint64_t now);

/**
 * @brief SET @p opt (as for GET, but MAX_PDU_SIZE, DEVICE_TYPE, AIRTIME and
 *        DC_WAIT are read-only). A value the modem does not have changes
 *        nothing.
 * @return 1 when the receive setting changed (SF, BW, CR, preamble,
 *         frequency, sync word: a reception under the old one is lost), 0
 *         when something else was set or nothing changed, -EINVAL, -ENOTSUP.
 */
int wren_lora_modem_set(struct wren_lora_modem *m, uint16_t opt, const void *val, size_t len);

/** @brief Whether SET @p opt can change the receive setting (callers
 *         refuse those with -EBUSY while a frame is on the air). */
int wren_lora_modem_opt_retunes(uint16_t opt);

#endif

/**
 * @file lora_phy.h
 * @brief LoRa PHY arithmetic: time on air, receiver sensitivity, largest
 *        payload per region, ETSI duty-cycle sub-bands. Pure functions, no
 *        state: the sim's LoRa medium, the host's LoRa device and its hub
 *        share them.
 *
 * Time on air (Semtech SX1276/77/78/79 datasheet, section 4.1.1.7 "Time on
 * air"; the same formula is in AN1200.13, "LoRa Modem Designer's Guide"):
 *
 *     Tsym      = 2^SF / BW
 *     Tpreamble = (n_preamble + 4.25) * Tsym
 *     n_payload = 8 + max(ceil((8 PL - 4 SF + 28 + 16 CRC - 20 IH)
 *                              / (4 (SF - 2 DE))) * (CR + 4), 0)
 *     Tpacket   = Tpreamble + n_payload * Tsym
 *
 * PL payload bytes, CRC 1 with the payload CRC, IH 1 in implicit header mode
 * (wren always sends the explicit header: IH = 0), DE 1 with low data rate
 * optimisation, CR 1..4 for coding rates 4/5..4/8. The datasheet mandates DE
 * when a symbol lasts longer than 16 ms (RegModemConfig3,
 * "LowDataRateOptimize"): SF11 and SF12 at 125 kHz, SF12 at 250 kHz (as
 * Semtech's LoRaMac-node sets it); lora_phy switches it on exactly then. All times are whole microseconds: Tsym is 256 us at least and a
 * multiple of 4, so nothing is rounded.
 */
#ifndef WREN_DRIVERS_LORA_PHY_H
#define WREN_DRIVERS_LORA_PHY_H

#include <stdbool.h>
#include <stdint.h>

#define WREN_LORA_SF_MIN 7
#define WREN_LORA_SF_MAX 12
/** The LoRa modem's FIFO and length field: 255 payload bytes at most
 *  (SX1276 datasheet 4.1.2.3, RegPayloadLength 1..255). */
#define WREN_LORA_MAX_PAYLOAD 255u
/** LoRaWAN's preamble, 8 symbols in every region (RP002-1.0.3, 2.x.1
 *  "Preamble format": 8 symbols for LoRa modulation). */
#define WREN_LORA_PREAMBLE_DEFAULT 8u
/** LoRaWAN's public sync word (LoRaTap's 0x34, "reserved for LoRaWAN"). */
#define WREN_LORA_SYNCWORD_LORAWAN 0x34u

/** Settings that fix a frame's time on air. */
struct wren_lora_phy {
    uint8_t sf;        /**< spreading factor 7..12 */
    uint8_t cr;        /**< coding rate denominator 5..8 (4/5..4/8) */
    uint16_t bw_khz;   /**< 125, 250 or 500 */
    uint16_t preamble; /**< programmed preamble symbols (the modem adds 4.25) */
    bool crc;          /**< payload CRC on */
};

/** @brief Whether @p p is a setting the modem has (SF 7..12, BW 125/250/500,
 *         CR 5..8, preamble 6..65535). */
bool wren_lora_phy_valid(const struct wren_lora_phy *p);

/** @brief Symbol time of @p p, us (2^SF / BW). */
uint32_t wren_lora_symbol_us(const struct wren_lora_phy *p);

/** @brief Whether low data rate optimisation is on: the symbol lasts more
 *         than 16 ms (SF11, SF12 at 125 kHz; SF12 at 250 kHz). */
bool wren_lora_ldro(const struct wren_lora_phy *p);

/** @brief Payload symbols of a frame of @p len bytes (explicit header). */
uint32_t wren_lora_payload_symbols(const struct wren_lora_phy *p, unsigned len);

/** @brief Time on air of a frame of @p len payload bytes, us; 0 if @p p is
 *         not valid. */
uint32_t wren_lora_airtime_us(const struct wren_lora_phy *p, unsigned len);

/** @brief Time from the frame's start to the end of its preamble, us. */
uint32_t wren_lora_preamble_us(const struct wren_lora_phy *p);

/**
 * @brief Receiver sensitivity, dBm, of an SX1276 in the 862-1020 MHz band
 *        (SX1276/77/78/79 datasheet rev. 7, Table 10, RFS_L125_HF,
 *        RFS_L250_HF, RFS_L500_HF; highest LNA gain). 0 for an invalid
 *        setting.
 */
int16_t wren_lora_sensitivity_dbm(uint8_t sf, uint16_t bw_khz);

/** Regions whose payload limits lora_phy knows. */
enum wren_lora_region {
    WREN_LORA_REGION_NONE = 0, /**< plain LoRa: the modem's 255 bytes */
    WREN_LORA_REGION_EU868,    /**< LoRaWAN RP002-1.0.3, EU863-870 */
};

/**
 * @brief Largest PHY payload (what the modem sends: a LoRaWAN PHYPayload,
 *        MHDR to MIC) at @p sf / @p bw_khz in @p region, bytes; 0 where the
 *        region has no data rate for the setting.
 *
 * EU868 (RP002-1.0.3, 2.4.6 "EU863-870 Maximum payload size": M, the
 * largest MACPayload, per data rate): DR0-DR2 (SF12-SF10/125 kHz) M = 59,
 * DR3 (SF9/125) M = 123, DR4-DR6 (SF8, SF7/125, SF7/250) M = 250; the
 * PHYPayload adds MHDR and MIC, 5 bytes: 64, 128, 255. The application's
 * FRMPayload without FOpts is N = M - 8 (51, 115, 242; 222 where repeaters
 * must fit). Settings the region has no data rate for (SF8-12 at 250 kHz,
 * any 500 kHz) get 0.
 */
unsigned wren_lora_max_payload(enum wren_lora_region region, uint8_t sf, uint16_t bw_khz);

/**
 * @brief The duty-cycle limit of the ETSI EN 300 220-2 (V3.2.1) sub-band
 *        holding @p freq_hz, in 1/100 % (100 = 1 %), for non-specific short
 *        range devices (Annex B, Table B.1; the bands LoRaWAN's EU868 plan
 *        uses): 863-865 MHz 0.1 %, 865-868 MHz 1 %, 868.0-868.6 MHz 1 %,
 *        868.7-869.2 MHz 0.1 %, 869.4-869.65 MHz 10 %, 869.7-870 MHz 1 %.
 *        0 outside them (no regulated band known: no limit).
 * @param[out] sub_band  an index of the sub-band (0..5), or 0xff outside
 */
uint16_t wren_lora_etsi_duty_cycle(uint32_t freq_hz, uint8_t *sub_band);

/** Number of sub-bands wren_lora_etsi_duty_cycle() tells apart. */
#define WREN_LORA_SUB_BANDS 6

/**
 * @brief The time a sub-band stays closed after a frame of @p airtime_us
 *        under a duty cycle of @p dc (1/100 %): airtime * (1/dc - 1), as
 *        LoRaMac-node's band "time off" does, so that frames never exceed
 *        the fraction over any span that starts with one. 0 if @p dc is 0
 *        (no limit) or 10000 (100 %).
 */
uint64_t wren_lora_dc_off_us(uint32_t airtime_us, uint16_t dc);

#endif

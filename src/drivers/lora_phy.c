#include "drivers/lora_phy.h"

bool wren_lora_phy_valid(const struct wren_lora_phy *p)
{
    return p->sf >= WREN_LORA_SF_MIN && p->sf <= WREN_LORA_SF_MAX && p->cr >= 5 && p->cr <= 8 &&
           (p->bw_khz == 125 || p->bw_khz == 250 || p->bw_khz == 500) && p->preamble >= 6;
}

uint32_t wren_lora_symbol_us(const struct wren_lora_phy *p)
{
    /* 2^SF / (BW kHz * 1000) s = 2^SF * 1000 / BW kHz us: exact for 125, 250, 500 */
    return ((uint32_t)1000u << p->sf) / p->bw_khz;
}

bool wren_lora_ldro(const struct wren_lora_phy *p)
{
    return wren_lora_symbol_us(p) > 16000u;
}

uint32_t wren_lora_payload_symbols(const struct wren_lora_phy *p, unsigned len)
{
    /* datasheet 4.1.1.7, explicit header (IH = 0) */
    int32_t num = 8 * (int32_t)len - 4 * p->sf + 28 + (p->crc ? 16 : 0);
    int32_t den = 4 * (p->sf - (wren_lora_ldro(p) ? 2 : 0));
    int32_t blocks = num > 0 ? (num + den - 1) / den : 0;
    return 8u + (uint32_t)blocks * p->cr;
}

uint32_t wren_lora_preamble_us(const struct wren_lora_phy *p)
{
    /* (n + 4.25) symbols; a symbol is a multiple of 4 us */
    return (4u * p->preamble + 17u) * (wren_lora_symbol_us(p) / 4u);
}

uint32_t wren_lora_airtime_us(const struct wren_lora_phy *p, unsigned len)
{
    if (!wren_lora_phy_valid(p)) {
        return 0;
    }
    return wren_lora_preamble_us(p) + wren_lora_payload_symbols(p, len) * wren_lora_symbol_us(p);
}

/* SX1276 datasheet rev. 7, Table 10, band 1 (862-1020 MHz), SF7..SF12,
 * as -dBm */
static const uint8_t sens_125[6] = {123, 126, 129, 132, 133, 136};
static const uint8_t sens_250[6] = {120, 123, 125, 128, 130, 133};
static const uint8_t sens_500[6] = {116, 119, 122, 125, 128, 130};

int16_t wren_lora_sensitivity_dbm(uint8_t sf, uint16_t bw_khz)
{
    if (sf < WREN_LORA_SF_MIN || sf > WREN_LORA_SF_MAX) {
        return 0;
    }
    unsigned i = sf - WREN_LORA_SF_MIN;
    switch (bw_khz) {
    case 125:
        return (int16_t)-sens_125[i];
    case 250:
        return (int16_t)-sens_250[i];
    case 500:
        return (int16_t)-sens_500[i];
    default:
        return 0;
    }
}

unsigned wren_lora_max_payload(enum wren_lora_region region, uint8_t sf, uint16_t bw_khz)
{
    if (sf < WREN_LORA_SF_MIN || sf > WREN_LORA_SF_MAX) {
        return 0;
    }
    if (region != WREN_LORA_REGION_EU868) {
        return (bw_khz == 125 || bw_khz == 250 || bw_khz == 500) ? WREN_LORA_MAX_PAYLOAD : 0;
    }
    /* RP002-1.0.3 2.4.6: M + MHDR (1) + MIC (4) */
    if (bw_khz == 250) {
        return sf == 7 ? 250u + 5u : 0; /* DR6 */
    }
    if (bw_khz != 125) {
        return 0;
    }
    return sf >= 10 ? 59u + 5u : sf == 9 ? 123u + 5u : 250u + 5u;
}

/* ETSI EN 300 220-2 V3.2.1, Annex B, Table B.1 (non-specific SRDs) */
static const struct {
    uint32_t lo, hi; /* Hz, [lo, hi) */
    uint16_t dc;     /* 1/100 % */
} etsi_bands[WREN_LORA_SUB_BANDS] = {
    {863000000u, 865000000u, 10},   {865000000u, 868000000u, 100},
    {868000000u, 868600000u, 100},  {868700000u, 869200000u, 10},
    {869400000u, 869650000u, 1000}, {869700000u, 870000000u, 100},
};

uint16_t wren_lora_etsi_duty_cycle(uint32_t freq_hz, uint8_t *sub_band)
{
    for (uint8_t i = 0; i < WREN_LORA_SUB_BANDS; i++) {
        if (freq_hz >= etsi_bands[i].lo && freq_hz < etsi_bands[i].hi) {
            *sub_band = i;
            return etsi_bands[i].dc;
        }
    }
    *sub_band = 0xff;
    return 0;
}

uint64_t wren_lora_dc_off_us(uint32_t airtime_us, uint16_t dc)
{
    if (dc == 0 || dc >= 10000u) {
        return 0;
    }
    /* airtime * (10000 / dc - 1), rounded up so the limit always holds */
    uint64_t total = ((uint64_t)airtime_us * 10000u + dc - 1u) / dc;
    return total - airtime_us;
}

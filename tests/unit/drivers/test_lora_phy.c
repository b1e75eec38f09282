/* LoRa PHY arithmetic (src/drivers/lora_phy.h) against published figures. */
#include "test.h"

#include "drivers/lora_phy.h"

static struct wren_lora_phy phy(uint8_t sf, uint16_t bw, uint8_t cr)
{
    return (struct wren_lora_phy){.sf = sf, .bw_khz = bw, .cr = cr, .preamble = 8, .crc = true};
}

/* Thomas Telkamp's LoRa airtime spreadsheet (formulas from Semtech AN1200.13),
 * docs.google.com/spreadsheets/d/1eL1nHxMidIcIdDE_l-DoY3kmE2e8b0YpOBW64WnYxj8:
 * 24 application bytes + 13 LoRaWAN header bytes = 37, explicit header, low
 * data rate optimisation "auto" (SF11/12 at 125 kHz), CR 4/5, 8 preamble
 * symbols, 125 kHz: payloadSymbNb and Tpacket per SF. */
TEST(test_airtime__telkamp_sheet_37_bytes_sf7_to_sf12)
{
    static const struct {
        uint8_t sf;
        uint32_t symbols;
        uint32_t us;
    } want[] = {
        {7, 68, 82176},   {8, 58, 143872},   {9, 53, 267264},
        {10, 48, 493568}, {11, 53, 1069056}, {12, 48, 1974272},
    };
    for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        struct wren_lora_phy p = phy(want[i].sf, 125, 5);
        CHECK_EQ(wren_lora_payload_symbols(&p, 37), want[i].symbols);
        CHECK_EQ(wren_lora_airtime_us(&p, 37), want[i].us);
        CHECK_EQ(wren_lora_ldro(&p), want[i].sf >= 11);
    }
}

/* The same author's earlier sheet (docs.google.com/spreadsheets/d/
 * 1voGAtQAjC1qBmaVuP1ApNKs1ekgUjavHuVQIXyYSvNc): 13 bytes at SF9/125 kHz,
 * CR 4/5, explicit header, no LDRO: Tsym 4.096 ms, Tpreamble 50.176 ms,
 * 28 payload symbols, Tpacket 164.864 ms. */
TEST(test_airtime__telkamp_sheet_13_bytes_sf9)
{
    struct wren_lora_phy p = phy(9, 125, 5);
    CHECK_EQ(wren_lora_symbol_us(&p), 4096);
    CHECK_EQ(wren_lora_preamble_us(&p), 50176);
    CHECK_EQ(wren_lora_payload_symbols(&p, 13), 28);
    CHECK_EQ(wren_lora_airtime_us(&p, 13), 164864);
}

/* The formula's structure: wider bands shorten symbols; LDRO only when a
 * symbol exceeds 16 ms; stronger coding never shortens a frame; longer
 * frames never take less time. */
TEST(test_airtime__bandwidth_coding_rate_and_ldro)
{
    struct wren_lora_phy a = phy(12, 125, 5), b = phy(12, 250, 5), c = phy(12, 500, 5);
    CHECK_EQ(wren_lora_symbol_us(&a), 32768);
    CHECK_EQ(wren_lora_symbol_us(&b), 16384);
    CHECK_EQ(wren_lora_symbol_us(&c), 8192);
    /* RegModemConfig3: LDRO when a symbol lasts more than 16 ms: SF11 and
     * SF12 at 125 kHz, SF12 at 250 kHz (16.384 ms) as LoRaMac-node sets it */
    CHECK(wren_lora_ldro(&a));
    CHECK(wren_lora_ldro(&b));
    CHECK(!wren_lora_ldro(&c));
    struct wren_lora_phy d = phy(11, 250, 5);
    CHECK(!wren_lora_ldro(&d)); /* 8.192 ms */
    /* SF7 at 250 kHz: half SF7/125's symbol, the same symbol count */
    struct wren_lora_phy s7 = phy(7, 125, 5), s7w = phy(7, 250, 5);
    CHECK_EQ(wren_lora_airtime_us(&s7w, 20) * 2, wren_lora_airtime_us(&s7, 20));
    for (uint8_t sf = 7; sf <= 12; sf++) {
        uint32_t prev_cr = 0;
        for (uint8_t cr = 5; cr <= 8; cr++) {
            struct wren_lora_phy p = phy(sf, 125, cr);
            uint32_t t = wren_lora_airtime_us(&p, 50);
            CHECK(t >= prev_cr);
            prev_cr = t;
            uint32_t prev_len = 0;
            for (unsigned len = 0; len <= 255; len++) {
                uint32_t u = wren_lora_airtime_us(&p, len);
                CHECK(u >= prev_len);
                prev_len = u;
            }
        }
    }
    /* 4/8 at SF7: 20 bytes -> 8*20-28+28+16 = 176 bits, 7 blocks of 8 symbols */
    struct wren_lora_phy h = phy(7, 125, 8);
    CHECK_EQ(wren_lora_payload_symbols(&h, 20), 8 + 7 * 8);
}

TEST(test_airtime__invalid_settings_give_zero)
{
    struct wren_lora_phy p = phy(6, 125, 5);
    CHECK_EQ(wren_lora_airtime_us(&p, 10), 0);
    p = phy(13, 125, 5);
    CHECK_EQ(wren_lora_airtime_us(&p, 10), 0);
    p = phy(7, 200, 5);
    CHECK_EQ(wren_lora_airtime_us(&p, 10), 0);
    p = phy(7, 125, 4);
    CHECK_EQ(wren_lora_airtime_us(&p, 10), 0);
    p = phy(7, 125, 9);
    CHECK_EQ(wren_lora_airtime_us(&p, 10), 0);
}

/* SX1276 datasheet rev. 7, Table 10 (862-1020 MHz band) */
TEST(test_sensitivity__sx1276_table_10)
{
    CHECK_EQ(wren_lora_sensitivity_dbm(7, 125), -123);
    CHECK_EQ(wren_lora_sensitivity_dbm(10, 125), -132);
    CHECK_EQ(wren_lora_sensitivity_dbm(12, 125), -136);
    CHECK_EQ(wren_lora_sensitivity_dbm(7, 250), -120);
    CHECK_EQ(wren_lora_sensitivity_dbm(12, 500), -130);
    CHECK_EQ(wren_lora_sensitivity_dbm(6, 125), 0);
    CHECK_EQ(wren_lora_sensitivity_dbm(7, 62), 0);
    for (uint8_t sf = 8; sf <= 12; sf++) {
        CHECK(wren_lora_sensitivity_dbm(sf, 125) < wren_lora_sensitivity_dbm(sf - 1, 125));
        CHECK(wren_lora_sensitivity_dbm(sf, 125) < wren_lora_sensitivity_dbm(sf, 250));
        CHECK(wren_lora_sensitivity_dbm(sf, 250) < wren_lora_sensitivity_dbm(sf, 500));
    }
}

/* LoRaWAN RP002-1.0.3, 2.4.6: EU863-870 M per data rate, + MHDR and MIC */
TEST(test_max_payload__eu868_per_data_rate)
{
    CHECK_EQ(wren_lora_max_payload(WREN_LORA_REGION_EU868, 12, 125), 64);
    CHECK_EQ(wren_lora_max_payload(WREN_LORA_REGION_EU868, 10, 125), 64);
    CHECK_EQ(wren_lora_max_payload(WREN_LORA_REGION_EU868, 9, 125), 128);
    CHECK_EQ(wren_lora_max_payload(WREN_LORA_REGION_EU868, 8, 125), 255);
    CHECK_EQ(wren_lora_max_payload(WREN_LORA_REGION_EU868, 7, 125), 255);
    CHECK_EQ(wren_lora_max_payload(WREN_LORA_REGION_EU868, 7, 250), 255);
    CHECK_EQ(wren_lora_max_payload(WREN_LORA_REGION_EU868, 8, 250), 0);
    CHECK_EQ(wren_lora_max_payload(WREN_LORA_REGION_EU868, 7, 500), 0);
    /* N = M - 8: the application's bytes without FOpts, as the regional
     * parameters list them (51 at SF12-10, 115 at SF9) */
    CHECK_EQ(wren_lora_max_payload(WREN_LORA_REGION_EU868, 12, 125) - 5 - 8, 51);
    CHECK_EQ(wren_lora_max_payload(WREN_LORA_REGION_EU868, 9, 125) - 5 - 8, 115);
    CHECK_EQ(wren_lora_max_payload(WREN_LORA_REGION_NONE, 12, 500), 255);
    CHECK_EQ(wren_lora_max_payload(WREN_LORA_REGION_NONE, 13, 125), 0);
}

/* ETSI EN 300 220-2 V3.2.1 Annex B: the EU868 default channels 868.1, 868.3,
 * 868.5 MHz share the 1 % sub-band; 869.525 MHz (RX2) is in the 10 % one */
TEST(test_duty_cycle__etsi_sub_bands_and_off_time)
{
    uint8_t a, b, c;
    CHECK_EQ(wren_lora_etsi_duty_cycle(868100000u, &a), 100);
    CHECK_EQ(wren_lora_etsi_duty_cycle(868500000u, &b), 100);
    CHECK_EQ(a, b);
    CHECK_EQ(wren_lora_etsi_duty_cycle(869525000u, &c), 1000);
    CHECK(c != a);
    CHECK_EQ(wren_lora_etsi_duty_cycle(868650000u, &c), 0); /* between bands */
    CHECK_EQ(c, 0xff);
    CHECK_EQ(wren_lora_etsi_duty_cycle(915000000u, &c), 0);
    CHECK_EQ(wren_lora_etsi_duty_cycle(864000000u, &c), 10);
    /* 1 %: a frame of 61.696 ms closes the band for 99 times as long */
    CHECK_EQ(wren_lora_dc_off_us(61696, 100), 61696u * 99u);
    CHECK_EQ(wren_lora_dc_off_us(1000, 1000), 9000);
    CHECK_EQ(wren_lora_dc_off_us(1000, 0), 0);
    CHECK_EQ(wren_lora_dc_off_us(1000, 10000), 0);
    /* rounded up: never less than the limit allows */
    CHECK_EQ(wren_lora_dc_off_us(1, 3), 3333);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_airtime__telkamp_sheet_37_bytes_sf7_to_sf12),
        cmocka_unit_test(test_airtime__telkamp_sheet_13_bytes_sf9),
        cmocka_unit_test(test_airtime__bandwidth_coding_rate_and_ldro),
        cmocka_unit_test(test_airtime__invalid_settings_give_zero),
        cmocka_unit_test(test_sensitivity__sx1276_table_10),
        cmocka_unit_test(test_max_payload__eu868_per_data_rate),
        cmocka_unit_test(test_duty_cycle__etsi_sub_bands_and_off_time),
    };
    return cmocka_run_group_tests_name("lora_phy", tests, NULL, NULL);
}

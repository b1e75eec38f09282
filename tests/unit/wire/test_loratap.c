/* The LoRaTap v0 header (src/wire/loratap.h): round trip and every refusal. */
#include "test.h"

#include "wire/loratap.h"

/* 868.1 MHz, 125 kHz, SF7, RSSI -100 dBm (39), SNR 7.5 dB (30), sync 0x34 */
static const uint8_t v0[] = {0x00, 0x00, 0x00, 0x0f, 0x33, 0xbe, 0x27, 0xa0,
                             0x01, 0x07, 0x27, 0xff, 0xff, 0x1e, 0x34, 'h', 'i'};

TEST(test_parse__v0_fields_and_payload_offset)
{
    struct loratap_hdr h;
    CHECK_EQ(wren_loratap_parse(v0, sizeof(v0), &h), 15);
    CHECK_EQ(h.version, 0);
    CHECK_EQ(h.freq_hz, 868100000u);
    CHECK_EQ(h.bw_steps, 1);
    CHECK_EQ(h.sf, 7);
    CHECK_EQ(h.packet_rssi, 39);
    CHECK_EQ(-139 + h.packet_rssi, -100);
    CHECK_EQ(h.snr_qdb, 30);
    CHECK_EQ(h.sync_word, 0x34);
    uint8_t out[15];
    CHECK_EQ(wren_loratap_emit(&h, out, sizeof(out)), 15);
    CHECK_MEM(out, v0, 15);
}

TEST(test_parse__refusals_by_reason)
{
    struct loratap_hdr h;
    uint8_t b[sizeof(v0)];
    CHECK_EQ(wren_loratap_parse(v0, 14, &h), -LORATAP_ERR_TRUNCATED);
    memcpy(b, v0, sizeof(b));
    b[0] = 2;
    CHECK_EQ(wren_loratap_parse(b, sizeof(b), &h), -LORATAP_ERR_VERSION);
    memcpy(b, v0, sizeof(b));
    b[3] = 14;
    CHECK_EQ(wren_loratap_parse(b, sizeof(b), &h), -LORATAP_ERR_LENGTH);
    b[3] = 18; /* longer than the packet */
    CHECK_EQ(wren_loratap_parse(b, sizeof(b), &h), -LORATAP_ERR_TRUNCATED);
    memcpy(b, v0, sizeof(b));
    b[8] = 3;
    CHECK_EQ(wren_loratap_parse(b, sizeof(b), &h), -LORATAP_ERR_BANDWIDTH);
    memcpy(b, v0, sizeof(b));
    b[9] = 13;
    CHECK_EQ(wren_loratap_parse(b, sizeof(b), &h), -LORATAP_ERR_SF);
    uint8_t small[14];
    CHECK_EQ(wren_loratap_emit(&h, small, sizeof(small)), -LORATAP_ERR_NOBUFS);
}

TEST(test_parse__longer_header_skipped)
{
    /* a version 1 header with its extension: the payload starts after it */
    uint8_t b[40] = {0x01, 0x00, 0x00, 0x23, 0x33, 0xbe, 0x27, 0xa0, 0x04, 0x0c};
    struct loratap_hdr h;
    CHECK_EQ(wren_loratap_parse(b, sizeof(b), &h), 0x23);
    CHECK_EQ(h.bw_steps, 4);
    CHECK_EQ(h.sf, 12);
}

TEST(test_rssi__scale_and_clamp)
{
    CHECK_EQ(wren_loratap_rssi(-139), 0);
    CHECK_EQ(wren_loratap_rssi(-100), 39);
    CHECK_EQ(wren_loratap_rssi(-200), 0);
    CHECK_EQ(wren_loratap_rssi(200), 254); /* 255 is "not available" */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse__v0_fields_and_payload_offset),
        cmocka_unit_test(test_parse__refusals_by_reason),
        cmocka_unit_test(test_parse__longer_header_skipped),
        cmocka_unit_test(test_rssi__scale_and_clamp),
    };
    return cmocka_run_group_tests_name("loratap", tests, NULL, NULL);
}

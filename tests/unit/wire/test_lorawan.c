/**
 * @file test_lorawan.c
 * @brief LoRaWAN 1.0.x data frames: a published frame (the lora-packet
 *        library's README example: DevAddr 49be7df1, FCnt 2, FPort 1,
 *        "test" under its keys), parse errors, seal/open round trips.
 *        tests/py/test_schc_interop.py has tshark decode and check them.
 */
#include "core/byteorder.h"
#include "test.h"
#include "wire/lorawan.h"

static const uint8_t nwk[16] = {0x44, 0x02, 0x42, 0x41, 0xed, 0x4c, 0xe9, 0xa6,
                                0x8c, 0x6a, 0x8b, 0xc0, 0x55, 0x23, 0x3f, 0xd3};
static const uint8_t app[16] = {0xec, 0x92, 0x58, 0x02, 0xae, 0x43, 0x0c, 0xa7,
                                0x7f, 0xd3, 0xdd, 0x73, 0xcb, 0x2c, 0xc5, 0x88};
static const uint8_t frame[17] = {0x40, 0xf1, 0x7d, 0xbe, 0x49, 0x00, 0x02, 0x00, 0x01,
                                  0x95, 0x43, 0x78, 0x76, 0x2b, 0x11, 0xff, 0x0d};

TEST(test_lorawan_parse__published_frame)
{
    struct wren_lorawan_frame f;
    CHECK_EQ(wren_lorawan_parse(frame, sizeof(frame), &f), 0);
    CHECK_EQ(f.mtype, LORAWAN_UNCONF_UP);
    CHECK_EQ(f.devaddr, 0x49be7df1);
    CHECK_EQ(f.fcnt, 2);
    CHECK(f.has_port);
    CHECK_EQ(f.fport, 1);
    CHECK_EQ(f.payload_len, 4);
    CHECK_EQ(f.mic, 0x0dff112b);
    uint8_t buf[17];
    memcpy(buf, frame, sizeof(buf));
    CHECK_EQ(wren_lorawan_open(&f, nwk, app, 2, buf, sizeof(buf)), 0);
    CHECK_MEM(buf + 9, "test", 4);
    /* the other counter, or a flipped bit, fails the MIC and decrypts nothing */
    memcpy(buf, frame, sizeof(buf));
    CHECK_EQ(wren_lorawan_open(&f, nwk, app, 0x10002, buf, sizeof(buf)), -LORAWAN_ERR_MIC);
    buf[10] ^= 1;
    CHECK_EQ(wren_lorawan_open(&f, nwk, app, 2, buf, sizeof(buf)), -LORAWAN_ERR_MIC);
    CHECK_EQ(buf[9], 0x95);
}

TEST(test_lorawan_seal__published_frame)
{
    struct wren_lorawan_frame f = {.mtype = LORAWAN_UNCONF_UP, .devaddr = 0x49be7df1, .fcnt = 2,
                                   .has_port = true, .fport = 1,
                                   .payload = (const uint8_t *)"test", .payload_len = 4};
    uint8_t buf[32];
    CHECK_EQ(wren_lorawan_seal(&f, nwk, app, 2, buf, sizeof(buf)), sizeof(frame));
    CHECK_MEM(buf, frame, sizeof(frame));
    CHECK_EQ(wren_lorawan_seal(&f, nwk, app, 2, buf, sizeof(frame) - 1), -LORAWAN_ERR_NOBUFS);
}

TEST(test_lorawan_parse__errors)
{
    struct wren_lorawan_frame f;
    for (size_t n = 0; n < LORAWAN_MIN_LEN; n++) {
        CHECK(wren_lorawan_parse(frame, n, &f) < 0);
    }
    uint8_t b[24];
    memcpy(b, frame, sizeof(frame));
    b[0] = 0x00; /* join request */
    CHECK_EQ(wren_lorawan_parse(b, sizeof(frame), &f), -LORAWAN_ERR_TYPE);
    b[0] = 0x41;
    CHECK_EQ(wren_lorawan_parse(b, sizeof(frame), &f), -LORAWAN_ERR_MAJOR);
    b[0] = 0x40;
    b[5] = 0x0f; /* 15 bytes of FOpts: more than the frame has */
    CHECK_EQ(wren_lorawan_parse(b, sizeof(frame), &f), -LORAWAN_ERR_TRUNCATED);
    b[5] = 0x01; /* one FOpt, then FPort 0 */
    b[8] = 0x02;
    b[9] = 0x00;
    CHECK_EQ(wren_lorawan_parse(b, sizeof(frame), &f), -LORAWAN_ERR_FOPTS_PORT0);
    /* header and MIC only: no FPort */
    memcpy(b, frame, 8);
    memcpy(b + 8, frame + 13, 4);
    CHECK_EQ(wren_lorawan_parse(b, 12, &f), 0);
    CHECK(!f.has_port);
    CHECK_EQ(f.payload_len, 0);
}

TEST(test_lorawan_emit__round_trip_every_shape)
{
    static const uint8_t opts[3] = {0x02, 0x03, 0x04};
    uint8_t pl[40], buf[64], copy[64];
    for (unsigned i = 0; i < sizeof(pl); i++) {
        pl[i] = (uint8_t)(i * 7);
    }
    for (unsigned mt = LORAWAN_UNCONF_UP; mt <= LORAWAN_CONF_DOWN; mt++) {
        for (unsigned n = 0; n <= sizeof(pl); n += 13) {
            struct wren_lorawan_frame f = {.mtype = (uint8_t)mt, .devaddr = 0x26011234,
                                           .fctrl = LORAWAN_FCTRL_ADR, .fopts_len = 3,
                                           .fopts = opts, .fcnt = 0xfffe, .has_port = true,
                                           .fport = 20, .payload = pl, .payload_len = n};
            int len = wren_lorawan_seal(&f, nwk, app, 0x1fffe, buf, sizeof(buf));
            CHECK_EQ(len, wren_lorawan_len(&f));
            memcpy(copy, buf, (size_t)len);
            struct wren_lorawan_frame g;
            CHECK_EQ(wren_lorawan_parse(buf, (size_t)len, &g), 0);
            CHECK_EQ(g.mtype, mt);
            CHECK_EQ(g.fctrl, LORAWAN_FCTRL_ADR);
            CHECK_EQ(g.fcnt, 0xfffe);
            CHECK_MEM(g.fopts, opts, 3);
            CHECK(n == 0 || memcmp(g.payload, pl, n) != 0); /* encrypted */
            CHECK_EQ(wren_lorawan_open(&g, nwk, app, 0x1fffe, buf, (size_t)len), 0);
            CHECK_MEM(g.payload, pl, n);
            /* emit of the parse gives the bytes back */
            g.payload = copy + (g.payload - buf);
            CHECK_EQ(wren_lorawan_emit(&g, buf, sizeof(buf)), len);
            CHECK_MEM(buf, copy, (size_t)len);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lorawan_parse__published_frame),
        cmocka_unit_test(test_lorawan_seal__published_frame),
        cmocka_unit_test(test_lorawan_parse__errors),
        cmocka_unit_test(test_lorawan_emit__round_trip_every_shape),
    };
    return cmocka_run_group_tests_name("lorawan", tests, NULL, NULL);
}

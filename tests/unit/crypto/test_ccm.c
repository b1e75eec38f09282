/* AES-128 and CCM* (crypto/ccm.h) against published vectors: FIPS 197
 * Appendix C.1, RFC 3610 packet vector #1, and the three frames of
 * IEEE 802.15.4-2006 Annex C.2 (beacon MIC-64, data ENC, command
 * ENC-MIC-64). Random lengths, keys and MIC sizes are compared with the
 * Python cryptography package in tests/py/test_ccm.py. */
#include <errno.h>

#include "crypto/ccm.h"
#include "test.h"

static const uint8_t key_c0[16] = {0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7,
                                   0xc8, 0xc9, 0xca, 0xcb, 0xcc, 0xcd, 0xce, 0xcf};

/* 802.15.4 nonce: source EUI-64 ac:de:48:00:00:00:00:01, frame counter 5,
 * security level (last byte, set per test). */
static uint8_t nonce_154[13] = {0xac, 0xde, 0x48, 0, 0, 0, 0, 0x01, 0, 0, 0, 0x05, 0};

TEST(test_aes128_encrypt__fips197_c1)
{
    uint8_t key[16], blk[16];
    static const uint8_t want[16] = {0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b, 0x04, 0x30,
                                     0xd8, 0xcd, 0xb7, 0x80, 0x70, 0xb4, 0xc5, 0x5a};
    for (int i = 0; i < 16; i++) {
        key[i] = (uint8_t)i;
        blk[i] = (uint8_t)(i * 0x11);
    }
    wren_aes128_encrypt(key, blk, blk); /* in place */
    CHECK(memcmp(blk, want, 16) == 0);
}

TEST(test_ccm__rfc3610_vector_1)
{
    static const uint8_t nonce[13] = {0, 0, 0, 3, 2, 1, 0, 0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5};
    static const uint8_t want[31] = {0x58, 0x8c, 0x97, 0x9a, 0x61, 0xc6, 0x63, 0xd2, 0xf0, 0x66, 0xd0,
                                     0xc2, 0xc0, 0xf9, 0x89, 0x80, 0x6d, 0x5f, 0x6b, 0x61, 0xda, 0xc3,
                                     0x84, 0x17, 0xe8, 0xd1, 0x2c, 0xfd, 0xf9, 0x26, 0xe0};
    uint8_t buf[39];
    for (int i = 0; i < 31; i++) {
        buf[i] = (uint8_t)i; /* a = 00..07, m = 08..1e */
    }
    CHECK_EQ(wren_ccm_seal(key_c0, nonce, buf, 8, 23, 8), 0);
    CHECK(memcmp(buf + 8, want, 31) == 0);
    CHECK_EQ(wren_ccm_open(key_c0, nonce, buf, 8, 23, 8), 0);
    for (int i = 0; i < 31; i++) {
        CHECK_EQ(buf[i], i);
    }
}

/* C.2.1: a secured beacon, security level 2 (MIC-64): all authenticated. */
TEST(test_ccm__ieee802154_annex_c_beacon_mic64)
{
    uint8_t f[34] = {0x08, 0xd0, 0x84, 0x21, 0x43, 0x01, 0x00, 0x00, 0x00, 0x00, 0x48, 0xde,
                     0xac, 0x02, 0x05, 0x00, 0x00, 0x00, 0x55, 0xcf, 0x00, 0x00, 0x51, 0x52,
                     0x53, 0x54};
    static const uint8_t mic[8] = {0x22, 0x3b, 0xc1, 0xec, 0x84, 0x1a, 0xb5, 0x53};
    nonce_154[12] = 2;
    CHECK_EQ(wren_ccm_seal(key_c0, nonce_154, f, 26, 0, 8), 0);
    CHECK(memcmp(f + 26, mic, 8) == 0);
    CHECK_EQ(wren_ccm_open(key_c0, nonce_154, f, 26, 0, 8), 0);
    f[20] ^= 1; /* one bit of the open payload */
    CHECK_EQ(wren_ccm_open(key_c0, nonce_154, f, 26, 0, 8), -EBADMSG);
}

/* C.2.2: a data frame, security level 4 (ENC, no MIC): CCM*'s M = 0. */
TEST(test_ccm__ieee802154_annex_c_data_enc)
{
    uint8_t f[30] = {0x69, 0xdc, 0x84, 0x21, 0x43, 0x02, 0x00, 0x00, 0x00, 0x00,
                     0x48, 0xde, 0xac, 0x01, 0x00, 0x00, 0x00, 0x00, 0x48, 0xde,
                     0xac, 0x04, 0x05, 0x00, 0x00, 0x00, 0x61, 0x62, 0x63, 0x64};
    static const uint8_t enc[4] = {0xd4, 0x3e, 0x02, 0x2b};
    nonce_154[12] = 4;
    CHECK_EQ(wren_ccm_seal(key_c0, nonce_154, f, 26, 4, 0), 0);
    CHECK(memcmp(f + 26, enc, 4) == 0);
    CHECK_EQ(wren_ccm_open(key_c0, nonce_154, f, 26, 4, 0), 0);
    CHECK(memcmp(f + 26, "abcd", 4) == 0);
}

/* C.2.3: a MAC command, security level 6 (ENC-MIC-64): the command id is
 * authenticated, its payload encrypted. */
TEST(test_ccm__ieee802154_annex_c_command_enc_mic64)
{
    uint8_t f[38] = {0x2b, 0xdc, 0x84, 0x21, 0x43, 0x02, 0x00, 0x00, 0x00, 0x00, 0x48, 0xde, 0xac,
                     0xff, 0xff, 0x01, 0x00, 0x00, 0x00, 0x00, 0x48, 0xde, 0xac, 0x06, 0x05, 0x00,
                     0x00, 0x00, 0x01, 0xce};
    static const uint8_t want[9] = {0xd8, 0x4f, 0xde, 0x52, 0x90, 0x61, 0xf9, 0xc6, 0xf1};
    nonce_154[12] = 6;
    CHECK_EQ(wren_ccm_seal(key_c0, nonce_154, f, 29, 1, 8), 0);
    CHECK(memcmp(f + 29, want, 9) == 0);
    CHECK_EQ(wren_ccm_open(key_c0, nonce_154, f, 29, 1, 8), 0);
    CHECK_EQ(f[29], 0xce);
    /* every single-bit flip of the ciphertext or the MIC is caught */
    CHECK_EQ(wren_ccm_seal(key_c0, nonce_154, f, 29, 1, 8), 0);
    for (int bit = 29 * 8; bit < 38 * 8; bit++) {
        uint8_t g[38];
        memcpy(g, f, sizeof(g));
        g[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        CHECK_EQ(wren_ccm_open(key_c0, nonce_154, g, 29, 1, 8), -EBADMSG);
    }
    /* another nonce (frame counter) does not open it */
    nonce_154[11] = 6;
    CHECK_EQ(wren_ccm_open(key_c0, nonce_154, f, 29, 1, 8), -EBADMSG);
    nonce_154[11] = 5;
}

TEST(test_ccm__bad_mic_len_touches_nothing)
{
    uint8_t buf[40], copy[40];
    for (int i = 0; i < 40; i++) {
        buf[i] = (uint8_t)(i * 7);
    }
    memcpy(copy, buf, sizeof(buf));
    static const size_t bad[] = {1, 2, 3, 5, 6, 12, 15, 17, 32};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        CHECK_EQ(wren_ccm_seal(key_c0, nonce_154, buf, 4, 8, bad[i]), -EBADMSG);
        CHECK_EQ(wren_ccm_open(key_c0, nonce_154, buf, 4, 8, bad[i]), -EBADMSG);
        CHECK(memcmp(buf, copy, sizeof(buf)) == 0);
    }
}

/* Lengths around the block boundaries, every MIC size: open(seal(x)) = x. */
TEST(test_ccm__round_trip_all_lengths)
{
    static const size_t mics[] = {0, 4, 8, 16};
    for (size_t a = 0; a <= 34; a++) {
        for (size_t m = 0; m <= 34; m++) {
            for (size_t k = 0; k < 4; k++) {
                uint8_t buf[90], copy[90];
                for (size_t i = 0; i < sizeof(buf); i++) {
                    buf[i] = (uint8_t)(i * 13 + a + m);
                }
                memcpy(copy, buf, sizeof(buf));
                CHECK_EQ(wren_ccm_seal(key_c0, nonce_154, buf, a, m, mics[k]), 0);
                CHECK(memcmp(buf, copy, a) == 0); /* a stays in the clear */
                CHECK(m < 4 || memcmp(buf + a, copy + a, m) != 0);
                CHECK(memcmp(buf + a + m + mics[k], copy + a + m + mics[k],
                             sizeof(buf) - a - m - mics[k]) == 0); /* nothing beyond */
                CHECK_EQ(wren_ccm_open(key_c0, nonce_154, buf, a, m, mics[k]), 0);
                CHECK(memcmp(buf, copy, a + m) == 0);
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_aes128_encrypt__fips197_c1),
        cmocka_unit_test(test_ccm__rfc3610_vector_1),
        cmocka_unit_test(test_ccm__ieee802154_annex_c_beacon_mic64),
        cmocka_unit_test(test_ccm__ieee802154_annex_c_data_enc),
        cmocka_unit_test(test_ccm__ieee802154_annex_c_command_enc_mic64),
        cmocka_unit_test(test_ccm__bad_mic_len_touches_nothing),
        cmocka_unit_test(test_ccm__round_trip_all_lengths),
    };
    return cmocka_run_group_tests_name("ccm", tests, NULL, NULL);
}

/**
 * @file test_ieee802154_2006only.c
 * @brief The 802.15.4 frame codec as a node on a 2006 network builds it
 *        (CONFIG_WREN_IEEE802154_2015=0, CONFIG_WREN_IEEE802154_SECURITY=0,
 *        as in the 6ln_host Cortex-M3 images): 2006 frames work as ever, and
 *        what is left out is refused, never half-parsed.
 */
#define CONFIG_WREN_IEEE802154_2015 0
#define CONFIG_WREN_IEEE802154_SECURITY 0
/* this binary's own copy of the codec, compiled with the options above */
#include "wire/ieee802154.c"

#include "test.h"

/* clang-format off */
static const uint8_t data_2006[] = {
    0x41, 0x98, 0x2a, 0xcd, 0xab, 0x34, 0x12, 0x78, 0x56, 'h', 'i',
};
/* the same frame as version 2 (FCF bits 12-13 = 2) */
static const uint8_t data_2015[] = {
    0x41, 0xa8, 0x2a, 0xcd, 0xab, 0x34, 0x12, 0x78, 0x56, 'h', 'i',
};
/* 2006, security enabled: level 5, key id mode 1 (index 7) */
static const uint8_t secured_2006[] = {
    0x49, 0x98, 0x01, 0xcd, 0xab, 0x34, 0x12, 0x78, 0x56,
    0x0d, 0x04, 0x03, 0x02, 0x01, 0x07, 0xaa, 0xbb, 0xcc, 0x01, 0x02, 0x03, 0x04,
};
/* clang-format on */

TEST(test_2006only__2006_frames_round_trip)
{
    struct ieee802154_frame f;
    CHECK_EQ(wren_ieee802154_parse(data_2006, sizeof(data_2006), &f), 0);
    CHECK_EQ(f.hdr.version, IEEE802154_VERSION_2006);
    CHECK_EQ(f.payload_len, 2);
    uint8_t buf[32];
    CHECK_EQ(wren_ieee802154_emit(&f, buf, sizeof(buf)), (int)sizeof(data_2006));
    CHECK_MEM(buf, data_2006, sizeof(data_2006));
}

TEST(test_2006only__version_2_refused)
{
    struct ieee802154_frame f;
    CHECK_EQ(wren_ieee802154_parse(data_2015, sizeof(data_2015), &f), -IEEE802154_ERR_VERSION);
    struct ieee802154_hdr h;
    memset(&h, 0, sizeof(h));
    h.type = IEEE802154_TYPE_DATA;
    h.version = IEEE802154_VERSION_2015;
    h.dst_mode = h.src_mode = IEEE802154_ADDR_SHORT;
    uint8_t buf[32];
    CHECK_EQ(wren_ieee802154_hdr_emit(&h, buf, sizeof(buf)), -IEEE802154_ERR_VERSION);
}

TEST(test_2006only__security_refused)
{
    struct ieee802154_frame f;
    CHECK_EQ(wren_ieee802154_parse(secured_2006, sizeof(secured_2006), &f), -IEEE802154_ERR_SECURITY);
    struct ieee802154_hdr h;
    memset(&h, 0, sizeof(h));
    h.type = IEEE802154_TYPE_DATA;
    h.version = IEEE802154_VERSION_2006;
    h.dst_mode = h.src_mode = IEEE802154_ADDR_SHORT;
    h.security = true;
    h.sec_level = 5;
    CHECK_EQ(wren_ieee802154_mic_len(&h), 0);
    uint8_t buf[32];
    CHECK_EQ(wren_ieee802154_hdr_emit(&h, buf, sizeof(buf)), -IEEE802154_ERR_SECURITY);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_2006only__2006_frames_round_trip),
        cmocka_unit_test(test_2006only__version_2_refused),
        cmocka_unit_test(test_2006only__security_refused),
    };
    return cmocka_run_group_tests_name("ieee802154_2006only", tests, NULL, NULL);
}

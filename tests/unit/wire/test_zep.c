/**
 * @file test_zep.c
 * @brief ZEP v2 (802.15.4 over UDP) and Ethernet II headers. The ZEP vector
 *        was checked with tshark 4.0: version 2, data, channel 26, device
 *        0x1234, CRC mode, seq 7, length 14, wpan.fcs_ok 1.
 */
#include <errno.h>

#include "core/byteorder.h"
#include "test.h"
#include "wire/ethernet.h"
#include "wire/ieee802154.h"
#include "wire/zep.h"

/* a broadcast data frame from 0x0001 in PAN 0x0023, NALP payload, with FCS */
static const uint8_t zep_data[46] = {
    0x45, 0x58, 0x02, 0x01, 0x1a, 0x12, 0x34, 0x01, 0xc8, 0xe8, 0xf1, 0xa2, 0xb3, 0x80, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0e,
    0x41, 0x88, 0x05, 0x23, 0x00, 0xff, 0xff, 0x01, 0x00, 0x3f, 0x01, 0x02, 0x69, 0xcf};

static const uint8_t zep_ack[8] = {'E', 'X', 2, 2, 0x01, 0x02, 0x03, 0x04};

TEST(test_zep_parse__data)
{
    struct zep_frame f;
    CHECK_EQ(wren_zep_parse(zep_data, sizeof(zep_data), &f), 0);
    CHECK_EQ(f.hdr.type, ZEP_TYPE_DATA);
    CHECK_EQ(f.hdr.channel, 26);
    CHECK_EQ(f.hdr.device_id, 0x1234);
    CHECK_EQ(f.hdr.crc_mode, 1);
    CHECK_EQ(f.hdr.lqi, 200);
    CHECK_EQ(f.hdr.ts_sec, 0xe8f1a2b3u);
    CHECK_EQ(f.hdr.ts_frac, 0x80000000u);
    CHECK_EQ(f.hdr.seq, 7);
    CHECK_EQ(f.hdr.len, 14);
    CHECK(f.psdu == zep_data + ZEP_V2_HDR_LEN);
    CHECK_EQ(wren_ieee802154_fcs_check(f.psdu, f.hdr.len), 0);
}

TEST(test_zep_parse__ack)
{
    struct zep_frame f;
    CHECK_EQ(wren_zep_parse(zep_ack, sizeof(zep_ack), &f), 0);
    CHECK_EQ(f.hdr.type, ZEP_TYPE_ACK);
    CHECK_EQ(f.hdr.seq, 0x01020304u);
    CHECK(f.psdu == NULL);
    CHECK_EQ(wren_zep_hdr_len(&f.hdr), ZEP_V2_ACK_LEN);
}

TEST(test_zep_parse__every_truncation)
{
    struct zep_frame f;
    for (size_t n = 0; n < ZEP_V2_HDR_LEN; n++) {
        CHECK_EQ(wren_zep_parse(zep_data, n, &f), -ZEP_ERR_TRUNCATED);
    }
    /* a header whose PSDU is cut short */
    for (size_t n = ZEP_V2_HDR_LEN; n < sizeof(zep_data); n++) {
        CHECK_EQ(wren_zep_parse(zep_data, n, &f), -ZEP_ERR_LENGTH);
    }
    for (size_t n = 0; n < ZEP_V2_ACK_LEN; n++) {
        CHECK_EQ(wren_zep_parse(zep_ack, n, &f), -ZEP_ERR_TRUNCATED);
    }
}

TEST(test_zep_parse__bad_fields)
{
    uint8_t b[sizeof(zep_data)];
    struct zep_frame f;
    memcpy(b, zep_data, sizeof(b));
    b[1] = 'Y';
    CHECK_EQ(wren_zep_parse(b, sizeof(b), &f), -ZEP_ERR_PREAMBLE);
    memcpy(b, zep_data, sizeof(b));
    b[2] = 1;
    CHECK_EQ(wren_zep_parse(b, sizeof(b), &f), -ZEP_ERR_VERSION);
    memcpy(b, zep_data, sizeof(b));
    b[3] = 3;
    CHECK_EQ(wren_zep_parse(b, sizeof(b), &f), -ZEP_ERR_TYPE);
    memcpy(b, zep_data, sizeof(b));
    b[31] = 0x80 | 14; /* above 127 */
    CHECK_EQ(wren_zep_parse(b, sizeof(b), &f), -ZEP_ERR_LENGTH);
    /* trailing bytes after the PSDU are ignored */
    memcpy(b, zep_data, sizeof(b));
    b[31] = 10;
    CHECK_EQ(wren_zep_parse(b, sizeof(b), &f), 0);
    CHECK_EQ(f.hdr.len, 10);
}

TEST(test_zep_emit__round_trip)
{
    struct zep_frame f;
    uint8_t out[sizeof(zep_data)];
    CHECK_EQ(wren_zep_parse(zep_data, sizeof(zep_data), &f), 0);
    CHECK_EQ(wren_zep_emit(&f.hdr, out, ZEP_V2_HDR_LEN - 1), -ZEP_ERR_NOBUFS);
    CHECK_EQ(wren_zep_emit(&f.hdr, out, sizeof(out)), ZEP_V2_HDR_LEN);
    memcpy(out + ZEP_V2_HDR_LEN, f.psdu, f.hdr.len);
    CHECK_MEM(out, zep_data, sizeof(zep_data));

    CHECK_EQ(wren_zep_parse(zep_ack, sizeof(zep_ack), &f), 0);
    CHECK_EQ(wren_zep_emit(&f.hdr, out, sizeof(out)), ZEP_V2_ACK_LEN);
    CHECK_MEM(out, zep_ack, sizeof(zep_ack));
}

TEST(test_zep_emit__refuses_bad_header)
{
    uint8_t out[64];
    struct zep_hdr h = {.type = 9};
    CHECK_EQ(wren_zep_emit(&h, out, sizeof(out)), -ZEP_ERR_TYPE);
    h = (struct zep_hdr){.type = ZEP_TYPE_DATA, .len = 128};
    CHECK_EQ(wren_zep_emit(&h, out, sizeof(out)), -ZEP_ERR_LENGTH);
}

static const uint8_t eth_frame[14] = {0x33, 0x33, 0xff, 0x00, 0x00, 0x01, 0x02,
                                      0x00, 0x00, 0x00, 0x00, 0x07, 0x86, 0xdd};

TEST(test_eth_hdr_parse__ipv6)
{
    struct eth_hdr h;
    uint8_t out[ETH_HDR_LEN];
    CHECK_EQ(wren_eth_hdr_parse(eth_frame, sizeof(eth_frame), &h), 0);
    CHECK_EQ(h.type, ETHERTYPE_IPV6);
    CHECK(wren_eth_addr_is_group(h.dst));
    CHECK(!wren_eth_addr_is_group(h.src));
    CHECK_EQ(h.src[5], 7);
    wren_eth_hdr_emit(&h, out);
    CHECK_MEM(out, eth_frame, sizeof(out));
    for (size_t n = 0; n < ETH_HDR_LEN; n++) {
        CHECK_EQ(wren_eth_hdr_parse(eth_frame, n, &h), -ETH_ERR_TRUNCATED);
    }
    uint8_t b[14];
    memcpy(b, eth_frame, sizeof(b));
    put_be16(b + 12, 1500); /* an 802.3 length field */
    CHECK_EQ(wren_eth_hdr_parse(b, sizeof(b), &h), -ETH_ERR_LENGTH);
}

TEST(test_eth_mac_from_ipv6_mcast__rfc2464)
{
    /* ff02::1:ff00:1 -> 33:33:ff:00:00:01 */
    static const uint8_t g[16] = {0xff, 0x02, [11] = 1, [12] = 0xff, [15] = 1};
    uint8_t mac[6];
    wren_eth_mac_from_ipv6_mcast(mac, g);
    CHECK_MEM(mac, eth_frame, 6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zep_parse__data),
        cmocka_unit_test(test_zep_parse__ack),
        cmocka_unit_test(test_zep_parse__every_truncation),
        cmocka_unit_test(test_zep_parse__bad_fields),
        cmocka_unit_test(test_zep_emit__round_trip),
        cmocka_unit_test(test_zep_emit__refuses_bad_header),
        cmocka_unit_test(test_eth_hdr_parse__ipv6),
        cmocka_unit_test(test_eth_mac_from_ipv6_mcast__rfc2464),
    };
    return cmocka_run_group_tests_name("zep", tests, NULL, NULL);
}

/**
 * @file test_ieee802154.c
 * @brief Unit tests for the IEEE 802.15.4 MAC frame format.
 */
#include "wire/ieee802154.h"

#include <stdint.h>
#include <string.h>

#include "core/byteorder.h"
#include "test.h"

#define TRUNC (-IEEE802154_ERR_TRUNCATED)
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Canonical frames, one wire field per line. */
/* clang-format off */
/* 2006 data frame, short addresses, PAN ID compression, payload "hi". */
static const uint8_t data_2006[] = {
    0x41, 0x98,             /* FCF: data, comp, dst short, v1, src short */
    0x2a,                   /* seq */
    0xcd, 0xab,             /* dst PAN 0xabcd */
    0x34, 0x12,             /* dst 0x1234 */
    0x78, 0x56,             /* src 0x5678 (PAN elided) */
    'h',  'i',
};

/* 2003 data frame, extended addresses, PAN ID compression. */
static const uint8_t data_2003_ext[] = {
    0x41, 0xcc, 0x07, 0xff, 0xff,                   /* dst PAN broadcast */
    0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x00, /* dst 00:11:..:77 */
    0x04, 0x03, 0x02, 0x01, 0x00, 0x4b, 0x12, 0x02, /* src 02:12:4b:00:01:.. */
    0x01, 0x02, 0x03,
};
static const uint8_t eui_dst[8] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77};
static const uint8_t eui_src[8] = {0x02, 0x12, 0x4b, 0x00, 0x01, 0x02, 0x03, 0x04};

/* 2015 data frame with a header IE (time correction) and HT2. */
static const uint8_t data_2015_ht2[] = {
    0x41, 0xaa,             /* FCF: data, comp, IE present, short/short, v2 */
    0x05, 0xcd, 0xab, 0x34, 0x12, 0x78, 0x56,
    0x02, 0x0f, 0xe8, 0x03, /* header IE id 0x1e, length 2 */
    0x80, 0x3f,             /* HT2 */
    0x01, 0x02, 0x03,       /* payload */
};

/* 2015 data frame: header IE, HT1, payload IE (group 1), PT, payload. */
static const uint8_t data_2015_ht1[] = {
    0x41, 0xaa, 0x06, 0xcd, 0xab, 0x34, 0x12, 0x78, 0x56,
    0x02, 0x0f, 0xe8, 0x03, /* header IE */
    0x00, 0x3f,             /* HT1 */
    0x03, 0x88, 0x1a, 0x2b, 0x3c, /* payload IE group 1, length 3 */
    0x00, 0xf8,             /* payload termination IE */
    0x55,                   /* payload */
};

/* Enh-Ack: 2015 ACK, no addresses, a header IE running to the end. */
static const uint8_t enh_ack[] = {
    0x02, 0x22, 0x33, 0x02, 0x0f, 0x10, 0x00,
};

/* Imm-Ack with its FCS. */
static const uint8_t imm_ack_psdu[] = {0x02, 0x00, 0x2a, 0xe0, 0x3b};

/* 2006 MAC command: data request, AR, short dst, extended src. */
static const uint8_t cmd_data_req[] = {
    0x63, 0xd8, 0x10, 0xcd, 0xab, 0x00, 0x00,
    0x04, 0x03, 0x02, 0x01, 0x00, 0x4b, 0x12, 0x02,
    0x04, /* command id */
};

/* 2006 secured data frame: ENC-MIC-32, key id mode 1. */
static const uint8_t secured_2006[] = {
    0x49, 0x98, 0x01, 0xcd, 0xab, 0x34, 0x12, 0x78, 0x56,
    0x0d,                   /* sec. control: level 5, key id mode 1 */
    0x04, 0x03, 0x02, 0x01, /* frame counter 0x01020304 */
    0x07,                   /* key index */
    0xaa, 0xbb, 0xcc,       /* (encrypted) payload */
    0xde, 0xad, 0xbe, 0xef, /* MIC-32 */
};

/* 2015 secured frame, frame counter suppressed, encrypted payload IEs. */
static const uint8_t secured_2015_ht1[] = {
    0x49, 0xaa, 0x08, 0xcd, 0xab, 0x34, 0x12, 0x78, 0x56,
    0x2d, 0x01,             /* level 5, key id mode 1, FC suppressed; idx */
    0x02, 0x0f, 0xe8, 0x03, /* header IE (clear) */
    0x00, 0x3f,             /* HT1 */
    0x91, 0x92, 0x93, 0x94, 0x95, /* encrypted payload IEs + payload */
    0xa1, 0xa2, 0xa3, 0xa4, /* MIC-32 */
};

/* 2003 beacon: source address only, superframe spec etc. as payload. */
static const uint8_t beacon_2003[] = {
    0x00, 0x80, 0x99, 0x34, 0x12, 0x01, 0x00, 0xff, 0xcf, 0x00, 0x00,
};
/* clang-format on */

/* ---- FCS ------------------------------------------------------------ */

TEST(test_ieee802154_fcs__check_value)
{
    CHECK_EQ(wren_ieee802154_fcs((const uint8_t *)"123456789", 9), 0x2189);
}

TEST(test_ieee802154_fcs__empty_is_zero)
{
    CHECK_EQ(wren_ieee802154_fcs((const uint8_t *)"", 0), 0);
}

TEST(test_ieee802154_fcs__imm_ack)
{
    CHECK_EQ(wren_ieee802154_fcs(imm_ack_psdu, 3), get_le16(imm_ack_psdu + 3));
}

/* the byte-at-a-time CRC against the definition, one bit at a time
 * (IEEE 802.15.4-2020 7.2.11: x^16 + x^12 + x^5 + 1, reflected), over
 * every byte value after every other and frames of every length */
static uint16_t fcs_bitwise(const uint8_t *buf, size_t len)
{
    uint16_t crc = 0;
    while (len--) {
        crc ^= *buf++;
        for (int i = 0; i < 8; i++) {
            crc = (crc & 1) ? (uint16_t)((crc >> 1) ^ 0x8408u) : (uint16_t)(crc >> 1);
        }
    }
    return crc;
}

TEST(test_ieee802154_fcs__same_as_bitwise)
{
    uint8_t buf[127];
    for (unsigned a = 0; a < 256; a++) {
        for (unsigned b = 0; b < 256; b++) {
            uint8_t two[2] = { (uint8_t)a, (uint8_t)b };
            CHECK_EQ(wren_ieee802154_fcs(two, 2), fcs_bitwise(two, 2));
        }
    }
    uint32_t x = 1;
    for (size_t n = 0; n <= sizeof(buf); n++) {
        for (size_t i = 0; i < n; i++) {
            x = x * 1103515245u + 12345u;
            buf[i] = (uint8_t)(x >> 16);
        }
        CHECK_EQ(wren_ieee802154_fcs(buf, n), fcs_bitwise(buf, n));
    }
}

TEST(test_ieee802154_fcs_check__valid)
{
    uint8_t buf[sizeof(data_2006) + 2];

    CHECK_EQ(wren_ieee802154_fcs_check(imm_ack_psdu, sizeof(imm_ack_psdu)), 0);
    memcpy(buf, data_2006, sizeof(data_2006));
    put_le16(buf + sizeof(data_2006), wren_ieee802154_fcs(data_2006, sizeof(data_2006)));
    CHECK_EQ(wren_ieee802154_fcs_check(buf, sizeof(buf)), 0);
}

TEST(test_ieee802154_fcs_check__bad_fcs)
{
    uint8_t buf[sizeof(imm_ack_psdu)];

    for (size_t i = 0; i < sizeof(buf) * 8; i++) {
        memcpy(buf, imm_ack_psdu, sizeof(buf));
        buf[i / 8] ^= (uint8_t)(1u << (i % 8));
        CHECK_EQ(wren_ieee802154_fcs_check(buf, sizeof(buf)), -IEEE802154_ERR_FCS);
    }
}

TEST(test_ieee802154_fcs_check__too_short)
{
    CHECK_EQ(wren_ieee802154_fcs_check(imm_ack_psdu, 0), TRUNC);
    CHECK_EQ(wren_ieee802154_fcs_check(imm_ack_psdu, 1), TRUNC);
    /* Two zero bytes are an empty MPDU with a correct FCS. */
    CHECK_EQ(wren_ieee802154_fcs_check((const uint8_t *)"\0", 2), 0);
}

/* ---- parse: canonical frames ----------------------------------------- */

TEST(test_ieee802154_parse__data_2006_short_panid_comp)
{
    struct ieee802154_frame f;
    const struct ieee802154_hdr *h = &f.hdr;

    CHECK_EQ(wren_ieee802154_parse(data_2006, sizeof(data_2006), &f), 0);
    CHECK_EQ(h->type, IEEE802154_TYPE_DATA);
    CHECK_EQ(h->version, IEEE802154_VERSION_2006);
    CHECK_EQ(h->dst_mode, IEEE802154_ADDR_SHORT);
    CHECK_EQ(h->src_mode, IEEE802154_ADDR_SHORT);
    CHECK(h->panid_comp && !h->security && !h->frame_pending && !h->ack_req);
    CHECK(!h->seq_suppressed && !h->ie_present);
    CHECK_EQ(h->seq, 0x2a);
    CHECK_EQ(h->dst_pan, 0xabcd);
    CHECK_EQ(h->src_pan, 0xabcd); /* intra-PAN */
    CHECK_MEM(h->dst_addr, "\x12\x34\0\0\0\0\0\0", 8);
    CHECK_MEM(h->src_addr, "\x56\x78\0\0\0\0\0\0", 8);
    CHECK_EQ(f.payload_len, 2);
    CHECK(f.payload == data_2006 + 9);
    CHECK_EQ(f.hdr_ie_len, 0);
    CHECK_EQ(f.payload_ie_len, 0);
    CHECK_EQ(wren_ieee802154_hdr_len(h), 9);
}

TEST(test_ieee802154_parse__data_2003_ext_addresses)
{
    struct ieee802154_frame f;

    CHECK_EQ(wren_ieee802154_parse(data_2003_ext, sizeof(data_2003_ext), &f), 0);
    CHECK_EQ(f.hdr.version, IEEE802154_VERSION_2003);
    CHECK_EQ(f.hdr.dst_mode, IEEE802154_ADDR_EXT);
    CHECK_EQ(f.hdr.src_mode, IEEE802154_ADDR_EXT);
    CHECK_EQ(f.hdr.dst_pan, 0xffff);
    CHECK_EQ(f.hdr.src_pan, 0xffff);
    CHECK_MEM(f.hdr.dst_addr, eui_dst, 8);
    CHECK_MEM(f.hdr.src_addr, eui_src, 8);
    CHECK_EQ(f.payload_len, 3);
    CHECK_MEM(f.payload, "\x01\x02\x03", 3);
}

TEST(test_ieee802154_parse__2015_header_ie_ht2)
{
    struct ieee802154_frame f;

    CHECK_EQ(wren_ieee802154_parse(data_2015_ht2, sizeof(data_2015_ht2), &f), 0);
    CHECK_EQ(f.hdr.version, IEEE802154_VERSION_2015);
    CHECK(f.hdr.ie_present && !f.hdr.seq_suppressed);
    CHECK_EQ(f.hdr.dst_pan, 0xabcd);
    CHECK(f.hdr_ie == data_2015_ht2 + 9);
    CHECK_EQ(f.hdr_ie_len, 4);
    CHECK_EQ(f.payload_ie_len, 0);
    CHECK_EQ(f.payload_len, 3);
    CHECK(f.payload == data_2015_ht2 + 15);
}

TEST(test_ieee802154_parse__2015_header_and_payload_ies)
{
    struct ieee802154_frame f;

    CHECK_EQ(wren_ieee802154_parse(data_2015_ht1, sizeof(data_2015_ht1), &f), 0);
    CHECK_EQ(f.hdr_ie_len, 4);
    CHECK(f.payload_ie == data_2015_ht1 + 15);
    CHECK_EQ(f.payload_ie_len, 5);
    CHECK_EQ(f.payload_len, 1);
    CHECK_EQ(f.payload[0], 0x55);
}

TEST(test_ieee802154_parse__2015_payload_ies_to_end)
{
    /* HT1 with payload IEs and no PT: the IEs run to the end. */
    struct ieee802154_frame f;

    CHECK_EQ(wren_ieee802154_parse(data_2015_ht1, sizeof(data_2015_ht1) - 3, &f), 0);
    CHECK_EQ(f.payload_ie_len, 5);
    CHECK_EQ(f.payload_len, 0);
}

TEST(test_ieee802154_parse__enh_ack)
{
    struct ieee802154_frame f;

    CHECK_EQ(wren_ieee802154_parse(enh_ack, sizeof(enh_ack), &f), 0);
    CHECK_EQ(f.hdr.type, IEEE802154_TYPE_ACK);
    CHECK_EQ(f.hdr.version, IEEE802154_VERSION_2015);
    CHECK_EQ(f.hdr.seq, 0x33);
    CHECK(!wren_ieee802154_has_dst_pan(&f.hdr) && !wren_ieee802154_has_src_pan(&f.hdr));
    CHECK_EQ(f.hdr_ie_len, 4); /* no termination: runs to the end */
    CHECK_EQ(f.payload_len, 0);
}

TEST(test_ieee802154_parse__enh_ack_seq_suppressed_ext_dst)
{
    /* clang-format off */
    static const uint8_t frame[] = {
        0x42, 0x2f, /* ACK, comp, seq suppressed, IE, dst ext, v2 */
        0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x00,
        0x02, 0x0f, 0x10, 0x00,
    };
    /* clang-format on */
    struct ieee802154_frame f;

    CHECK_EQ(wren_ieee802154_parse(frame, sizeof(frame), &f), 0);
    CHECK(f.hdr.seq_suppressed && f.hdr.ie_present && f.hdr.panid_comp);
    CHECK_EQ(f.hdr.seq, 0);
    CHECK_EQ(f.hdr.dst_mode, IEEE802154_ADDR_EXT);
    CHECK_MEM(f.hdr.dst_addr, eui_dst, 8);
    CHECK_EQ(f.hdr.dst_pan, 0); /* Table 7-2: dst only + comp: no PAN */
    CHECK_EQ(f.hdr_ie_len, 4);
}

TEST(test_ieee802154_parse__imm_ack)
{
    struct ieee802154_frame f;

    CHECK_EQ(wren_ieee802154_fcs_check(imm_ack_psdu, sizeof(imm_ack_psdu)), 0);
    CHECK_EQ(wren_ieee802154_parse(imm_ack_psdu, sizeof(imm_ack_psdu) - 2, &f), 0);
    CHECK_EQ(f.hdr.type, IEEE802154_TYPE_ACK);
    CHECK_EQ(f.hdr.seq, 0x2a);
    CHECK_EQ(f.hdr.dst_mode, IEEE802154_ADDR_NONE);
    CHECK_EQ(f.payload_len, 0);
}

TEST(test_ieee802154_parse__cmd_data_request)
{
    struct ieee802154_frame f;

    CHECK_EQ(wren_ieee802154_parse(cmd_data_req, sizeof(cmd_data_req), &f), 0);
    CHECK_EQ(f.hdr.type, IEEE802154_TYPE_CMD);
    CHECK(f.hdr.ack_req);
    CHECK_EQ(f.cmd_id, IEEE802154_CMD_DATA_REQ);
    CHECK_EQ(f.payload_len, 0);
    CHECK_MEM(f.hdr.dst_addr, "\0\0", 2);
    CHECK_MEM(f.hdr.src_addr, eui_src, 8);
}

TEST(test_ieee802154_parse__secured_2006)
{
    struct ieee802154_frame f;
    const struct ieee802154_hdr *h = &f.hdr;

    CHECK_EQ(wren_ieee802154_parse(secured_2006, sizeof(secured_2006), &f), 0);
    CHECK(h->security);
    CHECK_EQ(h->sec_level, 5);
    CHECK_EQ(h->key_id_mode, 1);
    CHECK(!h->fc_suppressed && !h->asn_in_nonce);
    CHECK_EQ(h->frame_counter, 0x01020304);
    CHECK_EQ(h->key_index, 7);
    CHECK_EQ(wren_ieee802154_mic_len(h), 4);
    CHECK_EQ(wren_ieee802154_hdr_len(h), 15);
    CHECK_EQ(f.payload_len, 3);
    CHECK(f.payload == secured_2006 + 15);
    CHECK(f.mic == secured_2006 + 18);
}

TEST(test_ieee802154_parse__secured_key_id_modes)
{
    /* Key id modes 2 and 3 carry a 4/8-byte key source before the index. */
    uint8_t buf[40];
    struct ieee802154_frame f;

    for (uint8_t mode = 0; mode < 4; mode++) {
        size_t n = 0;
        memcpy(buf, secured_2006, 9);
        n = 9;
        buf[n++] = (uint8_t)(0x02 | mode << 3); /* MIC-64 */
        memcpy(buf + n, "\x01\x00\x00\x00", 4);
        n += 4;
        for (size_t i = 0; i < (mode ? (mode - 1u) * 4 : 0); i++)
            buf[n++] = (uint8_t)(0xa0 + i);
        if (mode)
            buf[n++] = 0x42;
        memset(buf + n, 0xee, 8); /* MIC */
        CHECK_EQ(wren_ieee802154_parse(buf, n + 8, &f), 0);
        CHECK_EQ(f.hdr.key_id_mode, mode);
        CHECK_EQ(wren_ieee802154_hdr_len(&f.hdr), (int)n);
        CHECK_EQ(f.hdr.key_index, mode ? 0x42 : 0);
        if (mode >= 2)
            CHECK_MEM(f.hdr.key_source, "\xa0\xa1\xa2\xa3", 4);
        if (mode == 3)
            CHECK_EQ(f.hdr.key_source[7], 0xa7);
        CHECK_EQ(f.payload_len, 0);
        CHECK_EQ(wren_ieee802154_parse(buf, n + 7, &f), TRUNC);
    }
}

TEST(test_ieee802154_parse__mic_lengths)
{
    static const uint8_t mic[8] = {0, 4, 8, 16, 0, 4, 8, 16};
    uint8_t buf[64];
    struct ieee802154_frame f;

    memset(buf, 0, sizeof(buf));
    memcpy(buf, secured_2006, 9);
    for (uint8_t level = 0; level < 8; level++) {
        buf[9] = level; /* key id mode 0: aux header is 5 bytes */
        CHECK_EQ(wren_ieee802154_parse(buf, 14 + mic[level], &f), 0);
        CHECK_EQ(wren_ieee802154_mic_len(&f.hdr), mic[level]);
        CHECK_EQ(f.payload_len, 0);
        if (mic[level])
            CHECK_EQ(wren_ieee802154_parse(buf, 14 + mic[level] - 1u, &f), TRUNC);
    }
}

TEST(test_ieee802154_parse__secured_2015_fc_suppressed_opaque_ies)
{
    struct ieee802154_frame f;
    const struct ieee802154_hdr *h = &f.hdr;

    CHECK_EQ(wren_ieee802154_parse(secured_2015_ht1, sizeof(secured_2015_ht1), &f), 0);
    CHECK(h->security && h->fc_suppressed && !h->asn_in_nonce);
    CHECK_EQ(h->frame_counter, 0);
    CHECK_EQ(h->key_index, 1);
    CHECK_EQ(f.hdr_ie_len, 4);
    CHECK(f.payload_ie == secured_2015_ht1 + 17);
    CHECK_EQ(f.payload_ie_len, 5); /* ciphertext, up to the MIC */
    CHECK_EQ(f.payload_len, 0);
    CHECK(f.mic == secured_2015_ht1 + 22);
}

TEST(test_ieee802154_parse__beacon_2003)
{
    struct ieee802154_frame f;

    CHECK_EQ(wren_ieee802154_parse(beacon_2003, sizeof(beacon_2003), &f), 0);
    CHECK_EQ(f.hdr.type, IEEE802154_TYPE_BEACON);
    CHECK_EQ(f.hdr.dst_mode, IEEE802154_ADDR_NONE);
    CHECK_EQ(f.hdr.src_pan, 0x1234);
    CHECK_EQ(f.hdr.dst_pan, 0x1234);
    CHECK_MEM(f.hdr.src_addr, "\x00\x01", 2);
    CHECK_EQ(f.payload_len, 4);
}

TEST(test_ieee802154_parse__reserved_bits_ignored_before_v2)
{
    /* Bits 7-9 set in a 2006 frame: no seq suppression, no IEs. */
    uint8_t buf[sizeof(data_2006)];
    struct ieee802154_frame f;

    memcpy(buf, data_2006, sizeof(buf));
    buf[0] |= 0x80;
    buf[1] |= 0x03;
    CHECK_EQ(wren_ieee802154_parse(buf, sizeof(buf), &f), 0);
    CHECK(!f.hdr.seq_suppressed && !f.hdr.ie_present);
    CHECK_EQ(f.hdr.seq, 0x2a);
    CHECK_EQ(f.payload_len, 2);
}

TEST(test_ieee802154_parse__reserved_sec_bits_ignored_before_v2)
{
    uint8_t buf[sizeof(secured_2006)];
    struct ieee802154_frame f;

    memcpy(buf, secured_2006, sizeof(buf));
    buf[9] |= 0xe0;
    CHECK_EQ(wren_ieee802154_parse(buf, sizeof(buf), &f), 0);
    CHECK(!f.hdr.fc_suppressed && !f.hdr.asn_in_nonce);
    CHECK_EQ(f.hdr.frame_counter, 0x01020304);
}

/* ---- parse: errors ------------------------------------------------- */

/* Every prefix shorter than min is truncated; every longer one parses. */
static int prefixes_ok(const uint8_t *frame, size_t len, size_t min)
{
    struct ieee802154_frame f;

    for (size_t n = 0; n <= len; n++) {
        int rc = wren_ieee802154_parse(frame, n, &f);
        if (rc != (n < min ? TRUNC : 0)) {
            printf("  len %zu: %d\n", n, rc);
            return 0;
        }
    }
    return 1;
}

TEST(test_ieee802154_parse__truncated_at_each_boundary)
{
    CHECK(prefixes_ok(data_2006, sizeof(data_2006), 9));
    CHECK(prefixes_ok(data_2003_ext, sizeof(data_2003_ext), 21));
    CHECK(prefixes_ok(imm_ack_psdu, 3, 3));
    CHECK(prefixes_ok(cmd_data_req, sizeof(cmd_data_req), 16));
    CHECK(prefixes_ok(secured_2006, sizeof(secured_2006), 19));
    CHECK(prefixes_ok(beacon_2003, sizeof(beacon_2003), 7));
}

TEST(test_ieee802154_parse__secured_shorter_than_mic)
{
    struct ieee802154_frame f;

    /* Aux header complete but fewer than 4 bytes left for the MIC. */
    for (size_t n = 15; n < 19; n++)
        CHECK_EQ(wren_ieee802154_parse(secured_2006, n, &f), TRUNC);
    /* MIC-128: 15-byte MHR + 16-byte MIC. */
    uint8_t buf[32] = {0};
    memcpy(buf, secured_2006, sizeof(secured_2006));
    buf[9] = 0x0f;
    CHECK_EQ(wren_ieee802154_parse(buf, 31, &f), 0);
    CHECK_EQ(wren_ieee802154_parse(buf, 30, &f), TRUNC);
    CHECK_EQ(wren_ieee802154_parse(buf, sizeof(secured_2006), &f), TRUNC);
}

TEST(test_ieee802154_parse__cmd_without_id)
{
    struct ieee802154_frame f;

    CHECK_EQ(wren_ieee802154_parse(cmd_data_req, sizeof(cmd_data_req) - 1, &f), TRUNC);
}

TEST(test_ieee802154_parse__reserved_frame_type)
{
    uint8_t buf[sizeof(data_2006)];
    struct ieee802154_frame f;

    memcpy(buf, data_2006, sizeof(buf));
    for (uint8_t t = 4; t < 8; t++) {
        buf[0] = (uint8_t)((buf[0] & ~7u) | t);
        CHECK_EQ(wren_ieee802154_parse(buf, sizeof(buf), &f), -IEEE802154_ERR_FRAME_TYPE);
        CHECK_EQ(wren_ieee802154_parse(buf, 2, &f), -IEEE802154_ERR_FRAME_TYPE);
    }
}

TEST(test_ieee802154_parse__reserved_version)
{
    uint8_t buf[sizeof(data_2006)];
    struct ieee802154_frame f;

    memcpy(buf, data_2006, sizeof(buf));
    buf[1] |= 0x30;
    CHECK_EQ(wren_ieee802154_parse(buf, sizeof(buf), &f), -IEEE802154_ERR_VERSION);
}

TEST(test_ieee802154_parse__reserved_addr_mode)
{
    uint8_t buf[sizeof(data_2006)];
    struct ieee802154_frame f;

    memcpy(buf, data_2006, sizeof(buf));
    buf[1] = (uint8_t)((buf[1] & ~0x0cu) | 0x04); /* dst mode 1 */
    CHECK_EQ(wren_ieee802154_parse(buf, sizeof(buf), &f), -IEEE802154_ERR_ADDR_MODE);
    memcpy(buf, data_2006, sizeof(buf));
    buf[1] = (uint8_t)((buf[1] & ~0xc0u) | 0x40); /* src mode 1 */
    CHECK_EQ(wren_ieee802154_parse(buf, sizeof(buf), &f), -IEEE802154_ERR_ADDR_MODE);
}

TEST(test_ieee802154_parse__panid_comp_without_both_addresses)
{
    /* Versions 0/1: compression with one or no address is invalid. */
    static const uint8_t frames[][2] = {
        {0x41, 0x18}, /* dst short only */
        {0x41, 0x90}, /* src short only */
        {0x41, 0x10}, /* none */
        {0x41, 0x0c}, /* v0, dst ext only */
    };
    uint8_t buf[32] = {0};
    struct ieee802154_frame f;

    for (size_t i = 0; i < ARRAY_LEN(frames); i++) {
        memcpy(buf, frames[i], 2);
        CHECK_EQ(wren_ieee802154_parse(buf, sizeof(buf), &f), -IEEE802154_ERR_PANID);
    }
}

TEST(test_ieee802154_parse__secured_2003)
{
    uint8_t buf[sizeof(secured_2006)];
    struct ieee802154_frame f;

    memcpy(buf, secured_2006, sizeof(buf));
    buf[1] &= (uint8_t)~0x30u; /* version 0 */
    CHECK_EQ(wren_ieee802154_parse(buf, sizeof(buf), &f), -IEEE802154_ERR_SECURITY);
}

TEST(test_ieee802154_parse__ie_past_end)
{
    uint8_t buf[sizeof(data_2015_ht1)];
    struct ieee802154_frame f;

    /* Header IE content cut short / length beyond the frame. */
    CHECK_EQ(wren_ieee802154_parse(data_2015_ht2, 12, &f), -IEEE802154_ERR_IE);
    CHECK_EQ(wren_ieee802154_parse(data_2015_ht2, 10, &f), -IEEE802154_ERR_IE);
    memcpy(buf, data_2015_ht2, sizeof(data_2015_ht2));
    buf[9] = 0x7f; /* length 127 */
    CHECK_EQ(wren_ieee802154_parse(buf, sizeof(data_2015_ht2), &f), -IEEE802154_ERR_IE);
    /* Payload IE length beyond the frame. */
    memcpy(buf, data_2015_ht1, sizeof(buf));
    buf[15] = 0xff; /* length 255 */
    CHECK_EQ(wren_ieee802154_parse(buf, sizeof(buf), &f), -IEEE802154_ERR_IE);
    /* Payload IE cut inside its content or its descriptor. */
    CHECK_EQ(wren_ieee802154_parse(data_2015_ht1, 19, &f), -IEEE802154_ERR_IE);
    CHECK_EQ(wren_ieee802154_parse(data_2015_ht1, 16, &f), -IEEE802154_ERR_IE);
    /* Header IEs must not run into the MIC of a secured frame. */
    memcpy(buf, secured_2015_ht1, 17);
    buf[11] = 0x06; /* header IE length 6: 2 bytes past the MIC start */
    memset(buf + 17, 0, 4);
    CHECK_EQ(wren_ieee802154_parse(buf, 21, &f), -IEEE802154_ERR_IE);
}

TEST(test_ieee802154_parse__ie_bad_type_or_termination)
{
    uint8_t buf[sizeof(data_2015_ht1)];
    struct ieee802154_frame f;

    /* A payload IE (type 1) among the header IEs. */
    memcpy(buf, data_2015_ht2, sizeof(data_2015_ht2));
    buf[10] |= 0x80;
    CHECK_EQ(wren_ieee802154_parse(buf, sizeof(data_2015_ht2), &f), -IEEE802154_ERR_IE);
    /* HT2 with content. */
    memcpy(buf, data_2015_ht2, sizeof(data_2015_ht2));
    buf[13] = 0x81;
    CHECK_EQ(wren_ieee802154_parse(buf, sizeof(data_2015_ht2), &f), -IEEE802154_ERR_IE);
    /* A header IE (type 0) among the payload IEs. */
    memcpy(buf, data_2015_ht1, sizeof(buf));
    buf[16] = 0x08;
    CHECK_EQ(wren_ieee802154_parse(buf, sizeof(buf), &f), -IEEE802154_ERR_IE);
    /* Payload termination with content. */
    memcpy(buf, data_2015_ht1, sizeof(buf));
    buf[20] = 0x01;
    CHECK_EQ(wren_ieee802154_parse(buf, sizeof(buf), &f), -IEEE802154_ERR_IE);
}

TEST(test_ieee802154_parse__reserved_header_ie_ids_are_not_terminations)
{
    /* Header IE id 0x80 (reserved; descriptor 0x4001), length 1, then HT2
     * and a payload: the reserved IE belongs to the list, it ends nothing. */
    static const uint8_t frame[] = {0x01, 0x22, 0x01, 0x01, 0x40, 0xaa, 0x80, 0x3f, 0x99};
    struct ieee802154_frame f;

    CHECK_EQ(wren_ieee802154_parse(frame, sizeof(frame), &f), 0);
    CHECK_EQ(f.hdr_ie_len, 3);
    CHECK_EQ(f.payload_len, 1);
    CHECK_EQ(f.payload[0], 0x99);
}

TEST(test_ieee802154_parse__ie_empty_lists)
{
    /* HT2 only; HT1 + PT only. */
    static const uint8_t ht2_only[] = {0x01, 0x22, 0x01, 0x80, 0x3f, 0x99};
    static const uint8_t ht1_pt[] = {0x01, 0x22, 0x01, 0x00, 0x3f, 0x00, 0xf8, 0x99};
    struct ieee802154_frame f;

    CHECK_EQ(wren_ieee802154_parse(ht2_only, sizeof(ht2_only), &f), 0);
    CHECK(f.hdr.ie_present);
    CHECK_EQ(f.hdr_ie_len, 0);
    CHECK_EQ(f.payload_len, 1);
    CHECK_EQ(wren_ieee802154_parse(ht1_pt, sizeof(ht1_pt), &f), 0);
    CHECK_EQ(f.hdr_ie_len, 0);
    CHECK_EQ(f.payload_ie_len, 0);
    CHECK_EQ(f.payload_len, 1);
}

/* ---- PAN ID presence ----------------------------------------------- */

TEST(test_ieee802154_has_pan__table_7_2)
{
    /* {dst mode, src mode, comp, dst PAN, src PAN} for version 2. */
    /* clang-format off */
    static const uint8_t t[][5] = {
        {0, 0, 0, 0, 0}, {0, 0, 1, 1, 0}, {2, 0, 0, 1, 0}, {3, 0, 0, 1, 0},
        {2, 0, 1, 0, 0}, {3, 0, 1, 0, 0}, {0, 2, 0, 0, 1}, {0, 3, 0, 0, 1},
        {0, 2, 1, 0, 0}, {0, 3, 1, 0, 0}, {3, 3, 0, 1, 0}, {3, 3, 1, 0, 0},
        {2, 2, 0, 1, 1}, {2, 3, 0, 1, 1}, {3, 2, 0, 1, 1}, {2, 3, 1, 1, 0},
        {3, 2, 1, 1, 0}, {2, 2, 1, 1, 0},
    };
    /* clang-format on */
    struct ieee802154_hdr h;

    for (size_t i = 0; i < ARRAY_LEN(t); i++) {
        memset(&h, 0, sizeof(h));
        h.version = IEEE802154_VERSION_2015;
        h.dst_mode = t[i][0];
        h.src_mode = t[i][1];
        h.panid_comp = t[i][2];
        CHECK_EQ(wren_ieee802154_has_dst_pan(&h), t[i][3]);
        CHECK_EQ(wren_ieee802154_has_src_pan(&h), t[i][4]);
    }
}

TEST(test_ieee802154_has_pan__classic_rule)
{
    /* clang-format off */
    static const uint8_t t[][5] = {
        {0, 0, 0, 0, 0}, {2, 0, 0, 1, 0}, {0, 3, 0, 0, 1}, {3, 3, 0, 1, 1},
        {2, 3, 0, 1, 1}, {3, 3, 1, 1, 0}, {2, 2, 1, 1, 0},
    };
    /* clang-format on */
    struct ieee802154_hdr h;

    for (uint8_t v = 0; v < 2; v++) {
        for (size_t i = 0; i < ARRAY_LEN(t); i++) {
            memset(&h, 0, sizeof(h));
            h.version = v;
            h.dst_mode = t[i][0];
            h.src_mode = t[i][1];
            h.panid_comp = t[i][2];
            CHECK_EQ(wren_ieee802154_has_dst_pan(&h), t[i][3]);
            CHECK_EQ(wren_ieee802154_has_src_pan(&h), t[i][4]);
        }
    }
}

TEST(test_ieee802154_parse__v2_pan_ids_from_table)
{
    /* ext/ext, comp=0: only the destination PAN ID is on the wire. */
    /* clang-format off */
    static const uint8_t frame[] = {
        0x01, 0xec, 0x01, 0x34, 0x12, /* dst PAN */
        0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x00,
        0x04, 0x03, 0x02, 0x01, 0x00, 0x4b, 0x12, 0x02, 0xaa,
    };
    /* clang-format on */
    /* none/none, comp=1: a destination PAN ID alone. */
    static const uint8_t pan_only[] = {0x41, 0x20, 0x01, 0xff, 0xff};
    struct ieee802154_frame f;

    CHECK_EQ(wren_ieee802154_parse(frame, sizeof(frame), &f), 0);
    CHECK_EQ(f.hdr.dst_pan, 0x1234);
    CHECK_EQ(f.hdr.src_pan, 0x1234);
    CHECK_MEM(f.hdr.src_addr, eui_src, 8);
    CHECK_EQ(f.payload_len, 1);
    CHECK_EQ(wren_ieee802154_parse(pan_only, sizeof(pan_only), &f), 0);
    CHECK_EQ(f.hdr.dst_pan, 0xffff);
    CHECK_EQ(f.payload_len, 0);
    CHECK_EQ(wren_ieee802154_parse(pan_only, 4, &f), TRUNC);
}

/* ---- emit ---------------------------------------------------------- */

static void make_hdr(struct ieee802154_hdr *h, uint8_t type, uint8_t version, uint8_t dst,
                     uint8_t src, bool comp)
{
    memset(h, 0, sizeof(*h));
    h->type = type;
    h->version = version;
    h->dst_mode = dst;
    h->src_mode = src;
    h->panid_comp = comp;
    h->seq = 0x5a;
    h->dst_pan = 0xabcd;
    h->src_pan = comp ? 0xabcd : 0x1234;
    if (dst == IEEE802154_ADDR_EXT)
        memcpy(h->dst_addr, eui_dst, 8);
    else if (dst == IEEE802154_ADDR_SHORT)
        memcpy(h->dst_addr, "\x12\x34", 2);
    if (src == IEEE802154_ADDR_EXT)
        memcpy(h->src_addr, eui_src, 8);
    else if (src == IEEE802154_ADDR_SHORT)
        memcpy(h->src_addr, "\x56\x78", 2);
}

TEST(test_ieee802154_emit__data_2006_canonical)
{
    struct ieee802154_frame f;
    uint8_t buf[64];

    memset(&f, 0, sizeof(f));
    make_hdr(&f.hdr, IEEE802154_TYPE_DATA, IEEE802154_VERSION_2006, IEEE802154_ADDR_SHORT,
             IEEE802154_ADDR_SHORT, true);
    f.hdr.seq = 0x2a;
    f.payload = (const uint8_t *)"hi";
    f.payload_len = 2;
    CHECK_EQ(wren_ieee802154_len(&f), sizeof(data_2006));
    CHECK_EQ(wren_ieee802154_emit(&f, buf, sizeof(buf)), sizeof(data_2006));
    CHECK_MEM(buf, data_2006, sizeof(data_2006));
}

/* Parse a canonical frame, emit it, expect the same bytes. */
static int reemit_same(const uint8_t *frame, size_t len)
{
    struct ieee802154_frame f;
    uint8_t buf[128];
    int n;

    if (wren_ieee802154_parse(frame, len, &f) != 0)
        return 0;
    n = wren_ieee802154_len(&f);
    if (n != (int)len || wren_ieee802154_emit(&f, buf, sizeof(buf)) != n)
        return 0;
    return memcmp(buf, frame, len) == 0;
}

TEST(test_ieee802154_emit__canonical_frames_reemit_identically)
{
    CHECK(reemit_same(data_2006, sizeof(data_2006)));
    CHECK(reemit_same(data_2003_ext, sizeof(data_2003_ext)));
    CHECK(reemit_same(data_2015_ht2, sizeof(data_2015_ht2)));
    CHECK(reemit_same(data_2015_ht1, sizeof(data_2015_ht1)));
    CHECK(reemit_same(enh_ack, sizeof(enh_ack)));
    CHECK(reemit_same(imm_ack_psdu, 3));
    CHECK(reemit_same(cmd_data_req, sizeof(cmd_data_req)));
    CHECK(reemit_same(secured_2006, sizeof(secured_2006)));
    CHECK(reemit_same(secured_2015_ht1, sizeof(secured_2015_ht1)));
    CHECK(reemit_same(beacon_2003, sizeof(beacon_2003)));
}

TEST(test_ieee802154_emit__termination_ies)
{
    static const uint8_t hie[] = {0x02, 0x0f, 0xe8, 0x03};
    static const uint8_t pie[] = {0x03, 0x88, 0x1a, 0x2b, 0x3c};
    struct ieee802154_frame f;
    uint8_t buf[64];
    int n;

    memset(&f, 0, sizeof(f));
    make_hdr(&f.hdr, IEEE802154_TYPE_DATA, IEEE802154_VERSION_2015, IEEE802154_ADDR_NONE,
             IEEE802154_ADDR_NONE, false);
    f.hdr.ie_present = true;
    /* Header IEs only, no payload: no termination. */
    f.hdr_ie = hie;
    f.hdr_ie_len = sizeof(hie);
    n = wren_ieee802154_emit(&f, buf, sizeof(buf));
    CHECK_EQ(n, 3 + 4);
    /* With a payload: HT2. */
    f.payload = (const uint8_t *)"\x77";
    f.payload_len = 1;
    n = wren_ieee802154_emit(&f, buf, sizeof(buf));
    CHECK_EQ(n, 3 + 4 + 2 + 1);
    CHECK_MEM(buf + 7, "\x80\x3f\x77", 3);
    /* Payload IEs and a payload: HT1, IEs, PT. */
    f.payload_ie = pie;
    f.payload_ie_len = sizeof(pie);
    n = wren_ieee802154_emit(&f, buf, sizeof(buf));
    CHECK_EQ(n, 3 + 4 + 2 + 5 + 2 + 1);
    CHECK_MEM(buf + 7, "\x00\x3f\x03\x88\x1a\x2b\x3c\x00\xf8\x77", 10);
    /* Payload IEs only: HT1, no PT. */
    f.payload_len = 0;
    n = wren_ieee802154_emit(&f, buf, sizeof(buf));
    CHECK_EQ(n, 3 + 4 + 2 + 5);
    /* A command frame: the command id counts as payload. */
    f.hdr.type = IEEE802154_TYPE_CMD;
    f.cmd_id = 0x04;
    f.payload_ie_len = 0;
    n = wren_ieee802154_emit(&f, buf, sizeof(buf));
    CHECK_EQ(n, 3 + 4 + 2 + 1);
    CHECK_MEM(buf + 7, "\x80\x3f\x04", 3);
}

TEST(test_ieee802154_emit__reserved_bits_zero_before_v2)
{
    struct ieee802154_hdr h;
    uint8_t buf[64];

    make_hdr(&h, IEEE802154_TYPE_DATA, IEEE802154_VERSION_2006, IEEE802154_ADDR_SHORT,
             IEEE802154_ADDR_SHORT, true);
    h.seq_suppressed = true;
    h.ie_present = true;
    h.security = true;
    h.fc_suppressed = true;
    h.asn_in_nonce = true;
    CHECK_EQ(wren_ieee802154_hdr_emit(&h, buf, sizeof(buf)), 9 + 5);
    CHECK_EQ(buf[1] & 0x03, 0);
    CHECK_EQ(buf[2], 0x5a); /* sequence number present */
    CHECK_EQ(buf[9] & 0x60, 0);
}

TEST(test_ieee802154_emit__mic_zero_filled)
{
    struct ieee802154_frame f;
    uint8_t buf[64];

    memset(&f, 0, sizeof(f));
    make_hdr(&f.hdr, IEEE802154_TYPE_DATA, IEEE802154_VERSION_2006, IEEE802154_ADDR_SHORT,
             IEEE802154_ADDR_SHORT, true);
    f.hdr.security = true;
    f.hdr.sec_level = 6; /* ENC-MIC-64 */
    memset(buf, 0xaa, sizeof(buf));
    CHECK_EQ(wren_ieee802154_emit(&f, buf, sizeof(buf)), 14 + 8);
    CHECK_MEM(buf + 14, "\0\0\0\0\0\0\0\0", 8);
    CHECK_EQ(buf[22], 0xaa);
}

TEST(test_ieee802154_emit__buffer_too_short)
{
    struct ieee802154_frame f;
    uint8_t buf[64];
    int len;

    CHECK_EQ(wren_ieee802154_parse(data_2015_ht1, sizeof(data_2015_ht1), &f), 0);
    len = wren_ieee802154_len(&f);
    CHECK_EQ(len, sizeof(data_2015_ht1));
    for (size_t n = 0; n < (size_t)len; n++) {
        memset(buf, 0xaa, sizeof(buf));
        CHECK_EQ(wren_ieee802154_emit(&f, buf, n), -IEEE802154_ERR_NOBUFS);
        for (size_t i = 0; i < sizeof(buf); i++)
            CHECK_EQ(buf[i], 0xaa); /* nothing written */
    }
    CHECK_EQ(wren_ieee802154_emit(&f, buf, (size_t)len), len);
    for (size_t n = 0; n < 9; n++)
        CHECK_EQ(wren_ieee802154_hdr_emit(&f.hdr, buf, n), -IEEE802154_ERR_NOBUFS);
    CHECK_EQ(wren_ieee802154_hdr_emit(&f.hdr, buf, 9), 9);
}

TEST(test_ieee802154_emit__invalid_repr)
{
    struct ieee802154_frame f;
    uint8_t buf[64];

    memset(&f, 0, sizeof(f));
    make_hdr(&f.hdr, 4, 1, 2, 2, false);
    CHECK_EQ(wren_ieee802154_emit(&f, buf, sizeof(buf)), -IEEE802154_ERR_FRAME_TYPE);
    make_hdr(&f.hdr, 1, 3, 2, 2, false);
    CHECK_EQ(wren_ieee802154_emit(&f, buf, sizeof(buf)), -IEEE802154_ERR_VERSION);
    make_hdr(&f.hdr, 1, 1, 1, 2, false);
    CHECK_EQ(wren_ieee802154_emit(&f, buf, sizeof(buf)), -IEEE802154_ERR_ADDR_MODE);
    make_hdr(&f.hdr, 1, 1, 2, 4, false);
    CHECK_EQ(wren_ieee802154_hdr_len(&f.hdr), -IEEE802154_ERR_ADDR_MODE);
    make_hdr(&f.hdr, 1, 1, 2, 0, true);
    CHECK_EQ(wren_ieee802154_hdr_len(&f.hdr), -IEEE802154_ERR_PANID);
    make_hdr(&f.hdr, 1, 0, 2, 2, false);
    f.hdr.security = true;
    CHECK_EQ(wren_ieee802154_hdr_len(&f.hdr), -IEEE802154_ERR_SECURITY);
    f.hdr.version = 1;
    f.hdr.sec_level = 8;
    CHECK_EQ(wren_ieee802154_hdr_len(&f.hdr), -IEEE802154_ERR_SECURITY);
    f.hdr.sec_level = 7;
    f.hdr.key_id_mode = 4;
    CHECK_EQ(wren_ieee802154_hdr_emit(&f.hdr, buf, sizeof(buf)), -IEEE802154_ERR_SECURITY);
    /* IEs need version 2 and ie_present. */
    make_hdr(&f.hdr, 1, 1, 2, 2, false);
    f.hdr.ie_present = true;
    f.hdr_ie = (const uint8_t *)"\x00\x00";
    f.hdr_ie_len = 2;
    CHECK_EQ(wren_ieee802154_len(&f), -IEEE802154_ERR_IE);
    f.hdr.version = 2;
    f.hdr.ie_present = false;
    CHECK_EQ(wren_ieee802154_len(&f), -IEEE802154_ERR_IE);
    f.hdr.ie_present = true;
    CHECK_EQ(wren_ieee802154_len(&f), 11 + 2); /* v2 short/short: both PANs */
    /* Secured: encrypted payload IEs cannot be followed by a payload. */
    f.hdr.security = true;
    f.payload_ie = (const uint8_t *)"\x01";
    f.payload_ie_len = 1;
    f.payload = (const uint8_t *)"\x02";
    f.payload_len = 1;
    CHECK_EQ(wren_ieee802154_len(&f), -IEEE802154_ERR_IE);
    /* Absurd lengths. */
    f.hdr.security = false;
    f.payload_len = 0x10000;
    CHECK_EQ(wren_ieee802154_len(&f), -IEEE802154_ERR_NOBUFS);
}

/* memcmp that accepts NULL for empty ranges. */
static int mem_eq(const uint8_t *a, const uint8_t *b, size_t n)
{
    return n == 0 || memcmp(a, b, n) == 0;
}

/* Fields that are on the wire must survive emit -> parse. */
static int same_hdr(const struct ieee802154_hdr *a, const struct ieee802154_hdr *b)
{
    bool v2 = a->version == IEEE802154_VERSION_2015;

    if (a->type != b->type || a->version != b->version || a->dst_mode != b->dst_mode ||
        a->src_mode != b->src_mode || a->security != b->security ||
        a->frame_pending != b->frame_pending || a->ack_req != b->ack_req ||
        a->panid_comp != b->panid_comp || (v2 && a->seq_suppressed) != b->seq_suppressed ||
        (v2 && a->ie_present) != b->ie_present)
        return 0;
    if (!b->seq_suppressed && a->seq != b->seq)
        return 0;
    if ((wren_ieee802154_has_dst_pan(a) && a->dst_pan != b->dst_pan) ||
        (wren_ieee802154_has_src_pan(a) && a->src_pan != b->src_pan))
        return 0;
    if (memcmp(a->dst_addr, b->dst_addr, wren_ieee802154_addr_len(a->dst_mode)) ||
        memcmp(a->src_addr, b->src_addr, wren_ieee802154_addr_len(a->src_mode)))
        return 0;
    if (a->security &&
        (a->sec_level != b->sec_level || a->key_id_mode != b->key_id_mode ||
         (v2 && a->fc_suppressed) != b->fc_suppressed ||
         (v2 && a->asn_in_nonce) != b->asn_in_nonce ||
         (!b->fc_suppressed && a->frame_counter != b->frame_counter) ||
         (a->key_id_mode && a->key_index != b->key_index) ||
         memcmp(a->key_source, b->key_source, a->key_id_mode ? (a->key_id_mode - 1u) * 4 : 0)))
        return 0;
    return 1;
}

TEST(test_ieee802154_emit__roundtrip_all_combinations)
{
    static const uint8_t modes[] = {0, 2, 3};
    static const uint8_t hie[] = {0x02, 0x0f, 0xe8, 0x03, 0x00, 0x00};
    static const uint8_t pie[] = {0x03, 0x88, 0x1a, 0x2b, 0x3c};
    static const uint8_t mic[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    struct ieee802154_frame f, g;
    uint8_t buf[128], buf2[128];
    int count = 0;

    for (unsigned i = 0; i < 3 * 4 * 3 * 3 * 2 * 2 * 2 * 2 * 4; i++) {
        unsigned x = i;
        uint8_t version = (uint8_t)(x % 3), type = (uint8_t)((x /= 3) % 4);
        uint8_t dst = modes[(x /= 4) % 3], src = modes[(x /= 3) % 3];
        bool comp = (x /= 3) % 2, sec = (x /= 2) % 2, ss = (x /= 2) % 2, ie = (x /= 2) % 2;
        unsigned extra = (x /= 2) % 4;
        int rc, n;

        memset(&f, 0, sizeof(f));
        make_hdr(&f.hdr, type, version, dst, src, comp);
        f.hdr.seq = (uint8_t)i;
        f.hdr.frame_pending = extra & 1;
        f.hdr.ack_req = extra & 2;
        f.hdr.seq_suppressed = ss;
        f.hdr.ie_present = ie;
        f.hdr.security = sec;
        f.hdr.sec_level = (uint8_t)(i % 8);
        f.hdr.key_id_mode = (uint8_t)(extra);
        f.hdr.fc_suppressed = extra & 1;
        f.hdr.asn_in_nonce = extra & 2;
        f.hdr.frame_counter = 0x12345678u + i;
        memcpy(f.hdr.key_source, "\x10\x20\x30\x40\x50\x60\x70\x80", 8);
        f.hdr.key_index = (uint8_t)(i >> 3);
        f.cmd_id = (uint8_t)i;
        f.mic = mic;
        if (version == 2 && ie) {
            f.hdr_ie = hie;
            f.hdr_ie_len = (extra & 1) ? sizeof(hie) : 0;
            if (!sec || extra & 2) {
                f.payload_ie = pie;
                f.payload_ie_len = (extra & 2) ? sizeof(pie) : 0;
            }
        }
        if (!(sec && f.payload_ie_len) && extra != 3) {
            f.payload = (const uint8_t *)"payload";
            f.payload_len = extra * 2;
        }

        rc = wren_ieee802154_emit(&f, buf, sizeof(buf));
        if (version < 2 && comp && !(dst && src)) {
            CHECK_EQ(rc, -IEEE802154_ERR_PANID);
            continue;
        }
        if (version == 0 && sec) {
            CHECK_EQ(rc, -IEEE802154_ERR_SECURITY);
            continue;
        }
        CHECK(rc > 0);
        CHECK_EQ(rc, wren_ieee802154_len(&f));
        n = rc;
        rc = wren_ieee802154_parse(buf, (size_t)n, &g);
        if (rc != 0)
            printf("  combination %u: parse %d\n", i, rc);
        CHECK_EQ(rc, 0);
        CHECK(same_hdr(&f.hdr, &g.hdr));
        CHECK_EQ(g.hdr_ie_len, f.hdr_ie_len);
        CHECK(mem_eq(g.hdr_ie, f.hdr_ie, f.hdr_ie_len));
        CHECK_EQ(g.payload_ie_len, f.payload_ie_len);
        CHECK(mem_eq(g.payload_ie, f.payload_ie, f.payload_ie_len));
        CHECK_EQ(g.payload_len, f.payload_len);
        CHECK(mem_eq(g.payload, f.payload, f.payload_len));
        if (type == IEEE802154_TYPE_CMD && !(sec && f.payload_ie_len))
            CHECK_EQ(g.cmd_id, f.cmd_id);
        CHECK_MEM(g.mic, mic, wren_ieee802154_mic_len(&f.hdr));
        CHECK_EQ(wren_ieee802154_hdr_len(&g.hdr), wren_ieee802154_hdr_len(&f.hdr));
        /* Emitting the parsed frame gives the same bytes again. */
        CHECK_EQ(wren_ieee802154_emit(&g, buf2, (size_t)n), n);
        CHECK_MEM(buf2, buf, (size_t)n);
        count++;
    }
    CHECK(count > 1000);
}

TEST(test_ieee802154_emit__fcs_appended_checks)
{
    struct ieee802154_frame f;
    uint8_t buf[64];
    int n;

    CHECK_EQ(wren_ieee802154_parse(cmd_data_req, sizeof(cmd_data_req), &f), 0);
    n = wren_ieee802154_emit(&f, buf, sizeof(buf) - IEEE802154_FCS_LEN);
    CHECK_EQ(n, sizeof(cmd_data_req));
    put_le16(buf + n, wren_ieee802154_fcs(buf, (size_t)n));
    CHECK_EQ(wren_ieee802154_fcs_check(buf, (size_t)n + 2), 0);
}

/* ---- helpers ------------------------------------------------------- */

TEST(test_ieee802154_addr_len__modes)
{
    CHECK_EQ(wren_ieee802154_addr_len(IEEE802154_ADDR_NONE), 0);
    CHECK_EQ(wren_ieee802154_addr_len(1), 0);
    CHECK_EQ(wren_ieee802154_addr_len(IEEE802154_ADDR_SHORT), 2);
    CHECK_EQ(wren_ieee802154_addr_len(IEEE802154_ADDR_EXT), 8);
}

TEST(test_ieee802154_strerror__all_codes)
{
    for (int e = 1; e <= IEEE802154_ERR_NOBUFS; e++) {
        CHECK(wren_ieee802154_strerror(-e) != NULL);
        CHECK(strcmp(wren_ieee802154_strerror(-e), wren_ieee802154_strerror(e)) == 0);
        CHECK(strcmp(wren_ieee802154_strerror(-e), "?") != 0);
    }
    CHECK(strcmp(wren_ieee802154_strerror(0), "ok") == 0);
    CHECK(strcmp(wren_ieee802154_strerror(-100), "?") == 0);
    CHECK(strcmp(wren_ieee802154_strerror(-2147483647 - 1), "?") == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ieee802154_fcs__check_value),
        cmocka_unit_test(test_ieee802154_fcs__empty_is_zero),
        cmocka_unit_test(test_ieee802154_fcs__imm_ack),
        cmocka_unit_test(test_ieee802154_fcs__same_as_bitwise),
        cmocka_unit_test(test_ieee802154_fcs_check__valid),
        cmocka_unit_test(test_ieee802154_fcs_check__bad_fcs),
        cmocka_unit_test(test_ieee802154_fcs_check__too_short),
        cmocka_unit_test(test_ieee802154_parse__data_2006_short_panid_comp),
        cmocka_unit_test(test_ieee802154_parse__data_2003_ext_addresses),
        cmocka_unit_test(test_ieee802154_parse__2015_header_ie_ht2),
        cmocka_unit_test(test_ieee802154_parse__2015_header_and_payload_ies),
        cmocka_unit_test(test_ieee802154_parse__2015_payload_ies_to_end),
        cmocka_unit_test(test_ieee802154_parse__enh_ack),
        cmocka_unit_test(test_ieee802154_parse__enh_ack_seq_suppressed_ext_dst),
        cmocka_unit_test(test_ieee802154_parse__imm_ack),
        cmocka_unit_test(test_ieee802154_parse__cmd_data_request),
        cmocka_unit_test(test_ieee802154_parse__secured_2006),
        cmocka_unit_test(test_ieee802154_parse__secured_key_id_modes),
        cmocka_unit_test(test_ieee802154_parse__mic_lengths),
        cmocka_unit_test(test_ieee802154_parse__secured_2015_fc_suppressed_opaque_ies),
        cmocka_unit_test(test_ieee802154_parse__beacon_2003),
        cmocka_unit_test(test_ieee802154_parse__reserved_bits_ignored_before_v2),
        cmocka_unit_test(test_ieee802154_parse__reserved_sec_bits_ignored_before_v2),
        cmocka_unit_test(test_ieee802154_parse__truncated_at_each_boundary),
        cmocka_unit_test(test_ieee802154_parse__secured_shorter_than_mic),
        cmocka_unit_test(test_ieee802154_parse__cmd_without_id),
        cmocka_unit_test(test_ieee802154_parse__reserved_frame_type),
        cmocka_unit_test(test_ieee802154_parse__reserved_version),
        cmocka_unit_test(test_ieee802154_parse__reserved_addr_mode),
        cmocka_unit_test(test_ieee802154_parse__panid_comp_without_both_addresses),
        cmocka_unit_test(test_ieee802154_parse__secured_2003),
        cmocka_unit_test(test_ieee802154_parse__ie_past_end),
        cmocka_unit_test(test_ieee802154_parse__ie_bad_type_or_termination),
        cmocka_unit_test(test_ieee802154_parse__reserved_header_ie_ids_are_not_terminations),
        cmocka_unit_test(test_ieee802154_parse__ie_empty_lists),
        cmocka_unit_test(test_ieee802154_has_pan__table_7_2),
        cmocka_unit_test(test_ieee802154_has_pan__classic_rule),
        cmocka_unit_test(test_ieee802154_parse__v2_pan_ids_from_table),
        cmocka_unit_test(test_ieee802154_emit__data_2006_canonical),
        cmocka_unit_test(test_ieee802154_emit__canonical_frames_reemit_identically),
        cmocka_unit_test(test_ieee802154_emit__termination_ies),
        cmocka_unit_test(test_ieee802154_emit__reserved_bits_zero_before_v2),
        cmocka_unit_test(test_ieee802154_emit__mic_zero_filled),
        cmocka_unit_test(test_ieee802154_emit__buffer_too_short),
        cmocka_unit_test(test_ieee802154_emit__invalid_repr),
        cmocka_unit_test(test_ieee802154_emit__roundtrip_all_combinations),
        cmocka_unit_test(test_ieee802154_emit__fcs_appended_checks),
        cmocka_unit_test(test_ieee802154_addr_len__modes),
        cmocka_unit_test(test_ieee802154_strerror__all_codes),
    };
    return cmocka_run_group_tests_name("ieee802154", tests, NULL, NULL);
}

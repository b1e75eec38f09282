/**
 * @file test_ieee802154_ie.c
 * @brief Unit tests for the IEEE 802.15.4-2015 information elements used by
 *        TSCH (wire/ieee802154_ie.h).
 */
#include "wire/ieee802154_ie.h"

#include <stdint.h>
#include <string.h>

#include "core/byteorder.h"
#include "test.h"

#define IE_ERR(e) (-IEEE802154_IE_ERR_##e)

/* clang-format off */
/* The payload IEs of a minimal 6TiSCH EB (RFC 8180 Appendix A layout):
 * ASN 0x0123456789, join metric 3, slotframe of 101 slots. */
static const uint8_t eb_pies[] = {
    0x1a, 0x88,                         /* MLME IE, length 26 */
    0x06, 0x1a,                         /* short sub-IE 0x1a (Sync), length 6 */
    0x89, 0x67, 0x45, 0x23, 0x01,       /* ASN */
    0x03,                               /* join metric */
    0x01, 0x1c, 0x00,                   /* Timeslot IE: template id 0 */
    0x01, 0xc8, 0x00,                   /* long sub-IE 0x9 (Channel Hopping): id 0 */
    0x0a, 0x1b,                         /* Slotframe and Link IE, length 10 */
    0x01,                               /* 1 slotframe */
    0x00, 0x65, 0x00, 0x01,             /* handle 0, size 101, 1 link */
    0x00, 0x00, 0x00, 0x00, 0x0f,       /* slot 0, channel offset 0, TX|RX|S|TK */
};

/* The whole EB (tshark-checked): beacon, v2, seq suppressed, PAN ID
 * compression, dst 0xabcd/0xffff, src extended, HT1, the IEs above. */
static const uint8_t eb_mpdu_head[] = {
    0x40, 0xeb, 0xcd, 0xab, 0xff, 0xff,
    0x01, 0x00, 0xe0, 0xff, 0x7f, 0x52, 0x57, 0x02,
    0x00, 0x3f,
};
static const uint8_t eui_a[8] = {0x02, 0x57, 0x52, 0x7f, 0xff, 0xe0, 0x00, 0x01};

/* A 2015 data frame from eui_a (ext/ext, seq 7) and its Enh-Ack with a
 * time correction of -12 us. */
static const uint8_t data_ext[] = {
    0x21, 0xee, 0x07, 0xcd, 0xab,
    0x02, 0x00, 0xe0, 0xff, 0x7f, 0x52, 0x57, 0x02,
    0x01, 0x00, 0xe0, 0xff, 0x7f, 0x52, 0x57, 0x02,
    0x00, 0x3f, 0x03, 0xa8, 0xc9, 0x00, 0x01,
};
static const uint8_t enhack_ext[] = {
    0x42, 0x2e, 0x07,
    0x01, 0x00, 0xe0, 0xff, 0x7f, 0x52, 0x57, 0x02,
    0x02, 0x0f, 0xf4, 0x0f,
};
/* clang-format on */

/* ---- iterator ------------------------------------------------------- */

TEST(test_ieee802154_ie_next__each_list_kind)
{
    static const uint8_t hdr[] = {0x02, 0x0f, 0xaa, 0xbb, 0x00, 0x3f};
    static const uint8_t mlme[] = {0x01, 0x1c, 0x07, 0x02, 0xc8, 0x05, 0x06};
    struct ieee802154_ie_iter it;
    struct ieee802154_ie ie;

    wren_ieee802154_ie_iter_init(&it, IEEE802154_IE_LIST_HDR, hdr, sizeof(hdr));
    CHECK_EQ(wren_ieee802154_ie_next(&it, &ie), 1);
    CHECK_EQ(ie.id, IEEE802154_HIE_TIME_CORR);
    CHECK_EQ(ie.len, 2);
    CHECK(ie.content == hdr + 2);
    CHECK_EQ(wren_ieee802154_ie_next(&it, &ie), 1);
    CHECK_EQ(ie.id, IEEE802154_HIE_HT1);
    CHECK_EQ(ie.len, 0);
    CHECK_EQ(wren_ieee802154_ie_next(&it, &ie), 0);

    wren_ieee802154_ie_iter_init(&it, IEEE802154_IE_LIST_PAYLOAD, eb_pies, sizeof(eb_pies));
    CHECK_EQ(wren_ieee802154_ie_next(&it, &ie), 1);
    CHECK_EQ(ie.id, IEEE802154_PIE_MLME);
    CHECK_EQ(ie.len, 26);
    CHECK_EQ(wren_ieee802154_ie_next(&it, &ie), 0);

    wren_ieee802154_ie_iter_init(&it, IEEE802154_IE_LIST_MLME, mlme, sizeof(mlme));
    CHECK_EQ(wren_ieee802154_ie_next(&it, &ie), 1);
    CHECK(!ie.long_form);
    CHECK_EQ(ie.id, IEEE802154_SUBIE_TSCH_TIMESLOT);
    CHECK_EQ(ie.content[0], 7);
    CHECK_EQ(wren_ieee802154_ie_next(&it, &ie), 1);
    CHECK(ie.long_form);
    CHECK_EQ(ie.id, IEEE802154_SUBIE_CHANNEL_HOPPING);
    CHECK_EQ(ie.len, 2);
    CHECK_EQ(wren_ieee802154_ie_next(&it, &ie), 0);
}

TEST(test_ieee802154_ie_next__errors)
{
    static const uint8_t one[] = {0x02};
    static const uint8_t past[] = {0x03, 0x0f, 0xaa, 0xbb};
    static const uint8_t payload_in_hdr[] = {0x00, 0x88};
    static const uint8_t ht1_content[] = {0x01, 0x3f, 0x00};
    static const uint8_t pt_content[] = {0x01, 0xf8, 0x00};
    static const uint8_t hdr_in_payload[] = {0x00, 0x08};
    struct ieee802154_ie_iter it;
    struct ieee802154_ie ie;

    wren_ieee802154_ie_iter_init(&it, IEEE802154_IE_LIST_HDR, one, sizeof(one));
    CHECK_EQ(wren_ieee802154_ie_next(&it, &ie), IE_ERR(TRUNCATED));
    wren_ieee802154_ie_iter_init(&it, IEEE802154_IE_LIST_HDR, past, sizeof(past));
    CHECK_EQ(wren_ieee802154_ie_next(&it, &ie), IE_ERR(TRUNCATED));
    wren_ieee802154_ie_iter_init(&it, IEEE802154_IE_LIST_HDR, payload_in_hdr, 2);
    CHECK_EQ(wren_ieee802154_ie_next(&it, &ie), IE_ERR(TYPE));
    wren_ieee802154_ie_iter_init(&it, IEEE802154_IE_LIST_HDR, ht1_content, 3);
    CHECK_EQ(wren_ieee802154_ie_next(&it, &ie), IE_ERR(TYPE));
    wren_ieee802154_ie_iter_init(&it, IEEE802154_IE_LIST_PAYLOAD, pt_content, 3);
    CHECK_EQ(wren_ieee802154_ie_next(&it, &ie), IE_ERR(TYPE));
    wren_ieee802154_ie_iter_init(&it, IEEE802154_IE_LIST_PAYLOAD, hdr_in_payload, 2);
    CHECK_EQ(wren_ieee802154_ie_next(&it, &ie), IE_ERR(TYPE));
    /* a long sub-IE length past the MLME content */
    wren_ieee802154_ie_iter_init(&it, IEEE802154_IE_LIST_MLME, eb_pies + 13, 3);
    CHECK_EQ(wren_ieee802154_ie_next(&it, &ie), 1);
    wren_ieee802154_ie_iter_init(&it, IEEE802154_IE_LIST_MLME, eb_pies + 13, 2);
    CHECK_EQ(wren_ieee802154_ie_next(&it, &ie), IE_ERR(TRUNCATED));
}

TEST(test_ieee802154_payload_ie_split__with_and_without_termination)
{
    static const uint8_t with_pt[] = {0x01, 0xa8, 0xc9, 0x00, 0xf8, 0x41, 0x60};
    static const uint8_t bad[] = {0x05, 0xa8, 0xc9};
    size_t ie_len = 99, rest = 99;

    CHECK_EQ(wren_ieee802154_payload_ie_split(with_pt, sizeof(with_pt), &ie_len, &rest), 0);
    CHECK_EQ(ie_len, 3);
    CHECK_EQ(rest, 5);
    CHECK_EQ(wren_ieee802154_payload_ie_split(eb_pies, sizeof(eb_pies), &ie_len, &rest), 0);
    CHECK_EQ(ie_len, sizeof(eb_pies));
    CHECK_EQ(rest, sizeof(eb_pies));
    CHECK_EQ(wren_ieee802154_payload_ie_split(with_pt, 0, &ie_len, &rest), 0);
    CHECK_EQ(ie_len, 0);
    CHECK_EQ(rest, 0);
    CHECK_EQ(wren_ieee802154_payload_ie_split(bad, sizeof(bad), &ie_len, &rest),
             IE_ERR(TRUNCATED));
}

/* ---- header IEs ----------------------------------------------------- */

TEST(test_ieee802154_hdr_ies_parse__time_correction)
{
    /* unknown IE 0x20 (2 bytes) skipped, then time correction +100 us NACK */
    static const uint8_t list[] = {0x02, 0x10, 0x11, 0x22, 0x02, 0x0f, 0x64, 0x80};
    static const uint8_t neg[] = {0x02, 0x0f, 0x00, 0x08};     /* -2048 */
    static const uint8_t rsv[] = {0x02, 0x0f, 0xff, 0x7f};     /* -1, reserved bits set */
    struct ieee802154_hdr_ies h;

    CHECK_EQ(wren_ieee802154_hdr_ies_parse(list, sizeof(list), &h), 0);
    CHECK(h.has_time_corr);
    CHECK_EQ(h.time_corr.us, 100);
    CHECK(h.time_corr.nack);
    CHECK_EQ(wren_ieee802154_hdr_ies_parse(enhack_ext + 11, 4, &h), 0);
    CHECK_EQ(h.time_corr.us, -12);
    CHECK(!h.time_corr.nack);
    CHECK_EQ(wren_ieee802154_hdr_ies_parse(neg, sizeof(neg), &h), 0);
    CHECK_EQ(h.time_corr.us, -2048);
    CHECK_EQ(wren_ieee802154_hdr_ies_parse(rsv, sizeof(rsv), &h), 0);
    CHECK_EQ(h.time_corr.us, -1);
    CHECK(!h.time_corr.nack);
    CHECK_EQ(wren_ieee802154_hdr_ies_parse(list, 0, &h), 0);
    CHECK(!h.has_time_corr);
}

TEST(test_ieee802154_hdr_ies_parse__errors)
{
    static const uint8_t short_tc[] = {0x01, 0x0f, 0x64};
    static const uint8_t twice[] = {0x02, 0x0f, 0x64, 0x00, 0x02, 0x0f, 0x64, 0x00};
    static const uint8_t term[] = {0x00, 0x3f};
    struct ieee802154_hdr_ies h;

    CHECK_EQ(wren_ieee802154_hdr_ies_parse(short_tc, sizeof(short_tc), &h), IE_ERR(LENGTH));
    CHECK_EQ(wren_ieee802154_hdr_ies_parse(twice, sizeof(twice), &h), IE_ERR(DUPLICATE));
    CHECK_EQ(wren_ieee802154_hdr_ies_parse(term, sizeof(term), &h), IE_ERR(TYPE));
    CHECK_EQ(wren_ieee802154_hdr_ies_parse(twice, 3, &h), IE_ERR(TRUNCATED));
}

TEST(test_ieee802154_hdr_ies_emit__canonical_and_limits)
{
    struct ieee802154_hdr_ies h = {true, {-12, false}};
    uint8_t buf[8];

    CHECK_EQ(wren_ieee802154_hdr_ies_len(&h), 4);
    CHECK_EQ(wren_ieee802154_hdr_ies_emit(&h, buf, sizeof(buf)), 4);
    CHECK(memcmp(buf, enhack_ext + 11, 4) == 0);
    h.time_corr.us = 2047;
    h.time_corr.nack = true;
    CHECK_EQ(wren_ieee802154_hdr_ies_emit(&h, buf, sizeof(buf)), 4);
    CHECK_EQ(get_le16(buf + 2), 0x87ff);
    h.time_corr.us = 2048;
    CHECK_EQ(wren_ieee802154_hdr_ies_emit(&h, buf, sizeof(buf)), IE_ERR(INVAL));
    h.time_corr.us = -2049;
    CHECK_EQ(wren_ieee802154_hdr_ies_len(&h), IE_ERR(INVAL));
    h.time_corr.us = 0;
    memset(buf, 0x5a, sizeof(buf));
    CHECK_EQ(wren_ieee802154_hdr_ies_emit(&h, buf, 3), IE_ERR(NOBUFS));
    CHECK_EQ(buf[0], 0x5a);
    h.has_time_corr = false;
    CHECK_EQ(wren_ieee802154_hdr_ies_emit(&h, buf, 0), 0);
}

/* ---- payload IEs ---------------------------------------------------- */

TEST(test_ieee802154_payload_ies_parse__minimal_eb)
{
    struct ieee802154_payload_ies p;
    struct ieee802154_tsch_slotframe sf;
    struct ieee802154_tsch_link l;
    size_t pos = 0;

    CHECK_EQ(wren_ieee802154_payload_ies_parse(eb_pies, sizeof(eb_pies), &p), 0);
    CHECK_EQ(p.mlme.present, IEEE802154_MLME_SYNC | IEEE802154_MLME_TIMESLOT |
                                 IEEE802154_MLME_HOPPING | IEEE802154_MLME_SLOTFRAMES);
    CHECK_EQ(p.mlme.sync.asn, 0x0123456789ull);
    CHECK_EQ(p.mlme.sync.join_metric, 3);
    CHECK_EQ(p.mlme.timeslot.id, 0);
    CHECK(!p.mlme.timeslot.full);
    CHECK_EQ(p.mlme.hopping.id, 0);
    CHECK(!p.mlme.hopping.full);
    CHECK_EQ(p.mlme.n_slotframes, 1);
    CHECK_EQ(wren_ieee802154_tsch_slotframe_next(&p.mlme, &pos, &sf), 1);
    CHECK_EQ(sf.handle, 0);
    CHECK_EQ(sf.size, 101);
    CHECK_EQ(sf.n_links, 1);
    wren_ieee802154_tsch_link_get(&sf, 0, &l);
    CHECK_EQ(l.timeslot, 0);
    CHECK_EQ(l.channel_offset, 0);
    CHECK_EQ(l.options, 0x0f);
    CHECK_EQ(wren_ieee802154_tsch_slotframe_next(&p.mlme, &pos, &sf), 0);
    CHECK(!p.has_sixtop);
}

TEST(test_ieee802154_payload_ies_emit__minimal_eb_canonical)
{
    struct ieee802154_payload_ies p;
    struct ieee802154_tsch_slotframe sf;
    struct ieee802154_tsch_link cell;
    uint8_t buf[64];

    wren_ieee802154_eb_minimal_ies(&p, &sf, &cell, 0x0123456789ull, 3, 101);
    CHECK_EQ(wren_ieee802154_payload_ies_len(&p), (int)sizeof(eb_pies));
    CHECK_EQ(wren_ieee802154_payload_ies_emit(&p, buf, sizeof(buf)), (int)sizeof(eb_pies));
    CHECK(memcmp(buf, eb_pies, sizeof(eb_pies)) == 0);
    memset(buf, 0x5a, sizeof(buf));
    CHECK_EQ(wren_ieee802154_payload_ies_emit(&p, buf, sizeof(eb_pies) - 1), IE_ERR(NOBUFS));
    CHECK_EQ(buf[0], 0x5a);
}

/* Emit, parse back, compare the TSCH content. */
static void roundtrip(const struct ieee802154_payload_ies *in, struct ieee802154_payload_ies *out,
                      uint8_t *buf, size_t len)
{
    int n = wren_ieee802154_payload_ies_emit(in, buf, len);

    CHECK(n > 0);
    CHECK_EQ(wren_ieee802154_payload_ies_len(in), n);
    CHECK_EQ(wren_ieee802154_payload_ies_parse(buf, (size_t)n, out), 0);
    CHECK_EQ(out->mlme.present, in->mlme.present);
    CHECK_EQ(out->has_sixtop, in->has_sixtop);
}

TEST(test_ieee802154_payload_ies__full_timeslot_and_hopping_roundtrip)
{
    static const uint8_t seq[] = {16, 0, 17, 0, 23, 0, 18, 0};
    struct ieee802154_payload_ies in, out;
    struct ieee802154_tsch_timeslot *t = &in.mlme.timeslot;
    uint8_t buf[128];

    memset(&in, 0, sizeof(in));
    in.mlme.present = IEEE802154_MLME_TIMESLOT | IEEE802154_MLME_HOPPING;
    wren_ieee802154_tsch_timeslot_default(t);
    t->id = 1;
    in.mlme.hopping = (struct ieee802154_channel_hopping){
        .id = 2, .full = true, .page = 0, .n_channels = 16, .phy_config = 0x07fff800,
        .seq_len = 4, .seq = seq, .current_hop = 3};
    roundtrip(&in, &out, buf, sizeof(buf));
    CHECK_EQ(buf[2], 25); /* 2-byte form */
    CHECK(out.mlme.timeslot.full);
    CHECK_EQ(out.mlme.timeslot.id, 1);
    CHECK_EQ(out.mlme.timeslot.cca_offset, 1800);
    CHECK_EQ(out.mlme.timeslot.max_ack, 2400);
    CHECK_EQ(out.mlme.timeslot.max_tx, 4256);
    CHECK_EQ(out.mlme.timeslot.length, 10000);
    CHECK(out.mlme.hopping.full);
    CHECK_EQ(out.mlme.hopping.id, 2);
    CHECK_EQ(out.mlme.hopping.n_channels, 16);
    CHECK_EQ(out.mlme.hopping.phy_config, 0x07fff800);
    CHECK_EQ(out.mlme.hopping.seq_len, 4);
    CHECK_EQ(wren_ieee802154_hopping_channel(&out.mlme.hopping, 2), 23);
    CHECK_EQ(out.mlme.hopping.current_hop, 3);

    /* a 20 ms slot still fits 2 bytes; 70 ms needs the 3-byte form */
    t->length = 70000;
    roundtrip(&in, &out, buf, sizeof(buf));
    CHECK_EQ(buf[2], 27);
    CHECK_EQ(out.mlme.timeslot.length, 70000);
    CHECK_EQ(out.mlme.timeslot.max_tx, 4256);
    t->length = 1u << 24;
    CHECK_EQ(wren_ieee802154_payload_ies_len(&in), IE_ERR(INVAL));
}

TEST(test_ieee802154_payload_ies_parse__wrong_lengths)
{
    /* clang-format off */
    static const uint8_t sync5[] = {0x07, 0x88, 0x05, 0x1a, 1, 2, 3, 4, 5};
    static const uint8_t ts2[] = {0x04, 0x88, 0x02, 0x1c, 0, 0};
    static const uint8_t hop5[] = {0x07, 0x88, 0x05, 0xc8, 0, 0, 0, 0, 0};
    static const uint8_t hop_seq[] = { /* sequence length 2 but 1 entry */
        0x0e, 0x88, 0x0c, 0xc8, 0, 0, 16, 0, 0, 0, 0, 0, 2, 0, 11, 0};
    static const uint8_t sf_empty[] = {0x02, 0x88, 0x00, 0x1b};
    static const uint8_t sf_count[] = {0x07, 0x88, 0x05, 0x1b, 2, 0, 10, 0, 0};
    static const uint8_t sf_links[] = {0x07, 0x88, 0x05, 0x1b, 1, 0, 10, 0, 1};
    static const uint8_t sf_trail[] = {0x08, 0x88, 0x06, 0x1b, 1, 0, 10, 0, 0, 9};
    static const uint8_t ietf_empty[] = {0x00, 0xa8};
    static const uint8_t sync_twice[] = {
        0x08, 0x88, 0x06, 0x1a, 1, 2, 3, 4, 5, 6,
        0x08, 0x88, 0x06, 0x1a, 1, 2, 3, 4, 5, 6};
    static const uint8_t sixtop_twice[] = {0x01, 0xa8, 0xc9, 0x01, 0xa8, 0xc9};
    static const uint8_t mlme_trunc[] = {0x03, 0x88, 0x06, 0x1a, 1};
    /* clang-format on */
    struct ieee802154_payload_ies p;

    CHECK_EQ(wren_ieee802154_payload_ies_parse(sync5, sizeof(sync5), &p), IE_ERR(LENGTH));
    CHECK_EQ(wren_ieee802154_payload_ies_parse(ts2, sizeof(ts2), &p), IE_ERR(LENGTH));
    CHECK_EQ(wren_ieee802154_payload_ies_parse(hop5, sizeof(hop5), &p), IE_ERR(LENGTH));
    CHECK_EQ(wren_ieee802154_payload_ies_parse(hop_seq, sizeof(hop_seq), &p), IE_ERR(COUNT));
    CHECK_EQ(wren_ieee802154_payload_ies_parse(sf_empty, sizeof(sf_empty), &p), IE_ERR(LENGTH));
    CHECK_EQ(wren_ieee802154_payload_ies_parse(sf_count, sizeof(sf_count), &p), IE_ERR(COUNT));
    CHECK_EQ(wren_ieee802154_payload_ies_parse(sf_links, sizeof(sf_links), &p), IE_ERR(COUNT));
    CHECK_EQ(wren_ieee802154_payload_ies_parse(sf_trail, sizeof(sf_trail), &p), IE_ERR(COUNT));
    CHECK_EQ(wren_ieee802154_payload_ies_parse(ietf_empty, sizeof(ietf_empty), &p),
             IE_ERR(LENGTH));
    CHECK_EQ(wren_ieee802154_payload_ies_parse(sync_twice, sizeof(sync_twice), &p),
             IE_ERR(DUPLICATE));
    CHECK_EQ(wren_ieee802154_payload_ies_parse(sixtop_twice, sizeof(sixtop_twice), &p),
             IE_ERR(DUPLICATE));
    CHECK_EQ(wren_ieee802154_payload_ies_parse(mlme_trunc, sizeof(mlme_trunc), &p),
             IE_ERR(TRUNCATED));
    CHECK_EQ(wren_ieee802154_payload_ies_parse(eb_pies, sizeof(eb_pies) - 1, &p),
             IE_ERR(TRUNCATED));
}

TEST(test_ieee802154_payload_ies_parse__unknown_skipped)
{
    /* clang-format off */
    static const uint8_t list[] = {
        0x02, 0x90, 0xaa, 0xbb,             /* payload group 0x2 (vendor): skipped */
        0x02, 0xa8, 0x42, 0x00,             /* IETF IE, sub-id 0x42: skipped */
        0x0b, 0x88,                         /* MLME IE, length 11 */
        0x01, 0x40, 0x77,                   /* short sub-IE 0x40: skipped */
        0x00, 0xa0,                         /* long sub-IE 0x4, empty: skipped */
        0x01, 0x1c, 0x05,                   /* Timeslot id 5 */
        0x01, 0xc8, 0x09,                   /* Channel Hopping id 9 */
        0x04, 0xa8, 0xc9, 0x10, 0x20, 0x30, /* 6top: 3-byte 6P message */
    };
    /* A full Channel Hopping IE on SUN page 9: id only. */
    static const uint8_t sun[] = {
        0x0e, 0x88, 0x0c, 0xc8, 7, 9, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    /* clang-format on */
    struct ieee802154_payload_ies p;

    CHECK_EQ(wren_ieee802154_payload_ies_parse(list, sizeof(list), &p), 0);
    CHECK_EQ(p.mlme.present, IEEE802154_MLME_TIMESLOT | IEEE802154_MLME_HOPPING);
    CHECK_EQ(p.mlme.timeslot.id, 5);
    CHECK_EQ(p.mlme.hopping.id, 9);
    CHECK(p.has_sixtop);
    CHECK_EQ(p.sixtop_len, 3);
    CHECK(p.sixtop == list + 24);
    CHECK_EQ(wren_ieee802154_payload_ies_parse(sun, sizeof(sun), &p), 0);
    CHECK_EQ(p.mlme.present, IEEE802154_MLME_HOPPING);
    CHECK_EQ(p.mlme.hopping.id, 7);
    CHECK(!p.mlme.hopping.full);
}

TEST(test_ieee802154_payload_ies_emit__sixtop_and_limits)
{
    static const uint8_t msg[] = {0x00, 0x01, 0x00, 0x05};
    static uint8_t big[2047];
    struct ieee802154_payload_ies in, out;
    uint8_t buf[2100];

    memset(&in, 0, sizeof(in));
    in.has_sixtop = true;
    in.sixtop = msg;
    in.sixtop_len = sizeof(msg);
    roundtrip(&in, &out, buf, sizeof(buf));
    CHECK_EQ(get_le16(buf), 0xa805);
    CHECK_EQ(buf[2], IEEE802154_IETF_6TOP);
    CHECK_EQ(out.sixtop_len, sizeof(msg));
    CHECK(memcmp(out.sixtop, msg, sizeof(msg)) == 0);
    /* an IE's content is at most 2047 bytes: the sub-id and 2046 */
    in.sixtop = big;
    in.sixtop_len = 2046;
    CHECK_EQ(wren_ieee802154_payload_ies_len(&in), 2049);
    in.sixtop_len = 2047;
    CHECK_EQ(wren_ieee802154_payload_ies_len(&in), IE_ERR(INVAL));
    /* ASN over 40 bits; a full hopping IE on page 10 */
    memset(&in, 0, sizeof(in));
    in.mlme.present = IEEE802154_MLME_SYNC;
    in.mlme.sync.asn = 1ull << 40;
    CHECK_EQ(wren_ieee802154_payload_ies_emit(&in, buf, sizeof(buf)), IE_ERR(INVAL));
    in.mlme.sync.asn = (1ull << 40) - 1;
    roundtrip(&in, &out, buf, sizeof(buf));
    CHECK_EQ(out.mlme.sync.asn, (1ull << 40) - 1);
    in.mlme.present = IEEE802154_MLME_HOPPING;
    in.mlme.hopping.full = true;
    in.mlme.hopping.page = 10;
    CHECK_EQ(wren_ieee802154_payload_ies_len(&in), IE_ERR(INVAL));
    /* nothing at all: an empty list */
    memset(&in, 0, sizeof(in));
    CHECK_EQ(wren_ieee802154_payload_ies_emit(&in, buf, 0), 0);
}

TEST(test_ieee802154_payload_ies__slotframes_roundtrip)
{
    static const struct ieee802154_tsch_link l0[] = {{0, 0, 0x0f}};
    static const struct ieee802154_tsch_link l1[] = {{3, 5, 0x01}, {7, 11, 0x12}};
    const struct ieee802154_tsch_slotframe sfs[] = {
        {.handle = 0, .size = 101, .n_links = 1, .links = l0},
        {.handle = 1, .size = 7, .n_links = 2, .links = l1},
        {.handle = 2, .size = 3, .n_links = 0, .links = NULL},
    };
    struct ieee802154_payload_ies in, out;
    struct ieee802154_tsch_slotframe sf;
    struct ieee802154_tsch_link l;
    uint8_t buf[64];
    size_t pos = 0;

    memset(&in, 0, sizeof(in));
    in.mlme.present = IEEE802154_MLME_SLOTFRAMES;
    in.mlme.n_slotframes = 3;
    in.mlme.slotframes = sfs;
    roundtrip(&in, &out, buf, sizeof(buf));
    CHECK_EQ(out.mlme.n_slotframes, 3);
    CHECK_EQ(wren_ieee802154_tsch_slotframe_next(&out.mlme, &pos, &sf), 1);
    CHECK_EQ(sf.size, 101);
    CHECK_EQ(wren_ieee802154_tsch_slotframe_next(&out.mlme, &pos, &sf), 1);
    CHECK_EQ(sf.handle, 1);
    CHECK_EQ(sf.n_links, 2);
    wren_ieee802154_tsch_link_get(&sf, 1, &l);
    CHECK_EQ(l.timeslot, 7);
    CHECK_EQ(l.channel_offset, 11);
    CHECK_EQ(l.options, 0x12);
    CHECK_EQ(wren_ieee802154_tsch_slotframe_next(&out.mlme, &pos, &sf), 1);
    CHECK_EQ(sf.handle, 2);
    CHECK_EQ(sf.n_links, 0);
    CHECK_EQ(wren_ieee802154_tsch_slotframe_next(&out.mlme, &pos, &sf), 0);
    /* a hand-made view that claims more links than its bytes: stops */
    out.mlme.sf_wire_len = 6;
    pos = 0;
    CHECK_EQ(wren_ieee802154_tsch_slotframe_next(&out.mlme, &pos, &sf), 0);
}

/* ---- frames --------------------------------------------------------- */

TEST(test_ieee802154_eb_frame__rfc8180_layout)
{
    struct ieee802154_payload_ies p, q;
    struct ieee802154_tsch_slotframe sf;
    struct ieee802154_tsch_link cell;
    struct ieee802154_frame f, g;
    uint8_t ies[64], buf[128];
    int n;

    wren_ieee802154_eb_minimal_ies(&p, &sf, &cell, 0x0123456789ull, 3, 101);
    CHECK_EQ(wren_ieee802154_eb_frame(&f, 0xabcd, eui_a, &p, ies, sizeof(ies)), 0);
    n = wren_ieee802154_emit(&f, buf, sizeof(buf));
    CHECK_EQ(n, (int)(sizeof(eb_mpdu_head) + sizeof(eb_pies)));
    CHECK(memcmp(buf, eb_mpdu_head, sizeof(eb_mpdu_head)) == 0);
    CHECK(memcmp(buf + sizeof(eb_mpdu_head), eb_pies, sizeof(eb_pies)) == 0);
    CHECK_EQ(wren_ieee802154_parse(buf, (size_t)n, &g), 0);
    CHECK(wren_ieee802154_has_dst_pan(&g.hdr) && !wren_ieee802154_has_src_pan(&g.hdr));
    CHECK_EQ(g.hdr.dst_pan, 0xabcd);
    CHECK_EQ(wren_ieee802154_payload_ies_parse(g.payload_ie, g.payload_ie_len, &q), 0);
    CHECK_EQ(q.mlme.sync.asn, 0x0123456789ull);
    CHECK_EQ(wren_ieee802154_eb_frame(&f, 0xabcd, eui_a, &p, ies, 10), IE_ERR(NOBUFS));
}

TEST(test_ieee802154_enhack_frame__addressed_to_the_sender)
{
    struct ieee802154_time_corr tc = {-12, false};
    struct ieee802154_frame rx, f, g;
    struct ieee802154_hdr_ies h;
    uint8_t ie[IEEE802154_IE_TIME_CORR_LEN], buf[64];
    int n;

    CHECK_EQ(wren_ieee802154_parse(data_ext, sizeof(data_ext), &rx), 0);
    CHECK_EQ(wren_ieee802154_enhack_frame(&f, &rx.hdr, &tc, ie, sizeof(ie)), 0);
    n = wren_ieee802154_emit(&f, buf, sizeof(buf));
    CHECK_EQ(n, (int)sizeof(enhack_ext));
    CHECK(memcmp(buf, enhack_ext, sizeof(enhack_ext)) == 0);
    CHECK_EQ(wren_ieee802154_parse(buf, (size_t)n, &g), 0);
    CHECK_EQ(wren_ieee802154_hdr_ies_parse(g.hdr_ie, g.hdr_ie_len, &h), 0);
    CHECK_EQ(h.time_corr.us, -12);
    CHECK_EQ(wren_ieee802154_enhack_frame(&f, &rx.hdr, &tc, ie, 3), IE_ERR(NOBUFS));
}

TEST(test_ieee802154_enhack_frame__short_none_and_suppressed_sources)
{
    struct ieee802154_time_corr tc = {5, true};
    struct ieee802154_hdr rx;
    struct ieee802154_frame f, g;
    uint8_t ie[IEEE802154_IE_TIME_CORR_LEN], buf[64];
    int n;

    /* short source: short destination, no PAN ID */
    memset(&rx, 0, sizeof(rx));
    rx.type = IEEE802154_TYPE_DATA;
    rx.version = IEEE802154_VERSION_2015;
    rx.seq = 9;
    rx.src_mode = IEEE802154_ADDR_SHORT;
    rx.src_addr[0] = 0x12;
    rx.src_addr[1] = 0x34;
    CHECK_EQ(wren_ieee802154_enhack_frame(&f, &rx, &tc, ie, sizeof(ie)), 0);
    n = wren_ieee802154_emit(&f, buf, sizeof(buf));
    CHECK_EQ(n, 2 + 1 + 2 + 4);
    CHECK_EQ(wren_ieee802154_parse(buf, (size_t)n, &g), 0);
    CHECK_EQ(g.hdr.dst_mode, IEEE802154_ADDR_SHORT);
    CHECK_EQ(g.hdr.dst_addr[0], 0x12);
    CHECK(!wren_ieee802154_has_dst_pan(&g.hdr) && !wren_ieee802154_has_src_pan(&g.hdr));
    CHECK_EQ(g.hdr.seq, 9);
    /* no source and a suppressed sequence number: nothing but FC + IE */
    rx.src_mode = IEEE802154_ADDR_NONE;
    rx.seq_suppressed = true;
    CHECK_EQ(wren_ieee802154_enhack_frame(&f, &rx, &tc, ie, sizeof(ie)), 0);
    n = wren_ieee802154_emit(&f, buf, sizeof(buf));
    CHECK_EQ(n, 2 + 4);
    CHECK_EQ(wren_ieee802154_parse(buf, (size_t)n, &g), 0);
    CHECK(g.hdr.seq_suppressed);
    CHECK(!wren_ieee802154_has_dst_pan(&g.hdr));
    /* a 2006 frame has no suppression bit: the Enh-Ack carries its seq */
    rx.version = IEEE802154_VERSION_2006;
    CHECK_EQ(wren_ieee802154_enhack_frame(&f, &rx, &tc, ie, sizeof(ie)), 0);
    CHECK(!f.hdr.seq_suppressed);
}

TEST(test_ieee802154_ie_strerror__all_codes)
{
    CHECK(strcmp(wren_ieee802154_ie_strerror(0), "ok") == 0);
    CHECK(strcmp(wren_ieee802154_ie_strerror(IE_ERR(LENGTH)), "IE length") == 0);
    CHECK(strcmp(wren_ieee802154_ie_strerror(IEEE802154_IE_ERR_INVAL), "IE value") == 0);
    CHECK(strcmp(wren_ieee802154_ie_strerror(IE_ERR(INVAL) - 1), "?") == 0);
    for (int e = 1; e <= IEEE802154_IE_ERR_INVAL; e++)
        CHECK(strcmp(wren_ieee802154_ie_strerror(-e), "?") != 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ieee802154_ie_next__each_list_kind),
        cmocka_unit_test(test_ieee802154_ie_next__errors),
        cmocka_unit_test(test_ieee802154_payload_ie_split__with_and_without_termination),
        cmocka_unit_test(test_ieee802154_hdr_ies_parse__time_correction),
        cmocka_unit_test(test_ieee802154_hdr_ies_parse__errors),
        cmocka_unit_test(test_ieee802154_hdr_ies_emit__canonical_and_limits),
        cmocka_unit_test(test_ieee802154_payload_ies_parse__minimal_eb),
        cmocka_unit_test(test_ieee802154_payload_ies_emit__minimal_eb_canonical),
        cmocka_unit_test(test_ieee802154_payload_ies__full_timeslot_and_hopping_roundtrip),
        cmocka_unit_test(test_ieee802154_payload_ies_parse__wrong_lengths),
        cmocka_unit_test(test_ieee802154_payload_ies_parse__unknown_skipped),
        cmocka_unit_test(test_ieee802154_payload_ies_emit__sixtop_and_limits),
        cmocka_unit_test(test_ieee802154_payload_ies__slotframes_roundtrip),
        cmocka_unit_test(test_ieee802154_eb_frame__rfc8180_layout),
        cmocka_unit_test(test_ieee802154_enhack_frame__addressed_to_the_sender),
        cmocka_unit_test(test_ieee802154_enhack_frame__short_none_and_suppressed_sources),
        cmocka_unit_test(test_ieee802154_ie_strerror__all_codes),
    };
    return cmocka_run_group_tests_name("ieee802154_ie", tests, NULL, NULL);
}

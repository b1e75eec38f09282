/**
 * @file test_ndnlp.c
 * @brief NDNLPv2 LpPacket codec (wire/ndnlp.h). The Nack vector is python-ndn
 *        0.5.2's make_network_nack(make_interest('/wren/lp', nonce 0x01020304,
 *        lifetime 4000), 150); the fragment vectors are written by hand from
 *        the NDNLPv2 spec's TLV-TYPE numbers.
 */
#include <errno.h>

#include "test.h"
#include "wire/ndnlp.h"

/* the Interest python-ndn encoded for /wren/lp */
static const uint8_t interest[24] = {
    0x05, 0x16, 0x07, 0x0a, 0x08, 0x04, 0x77, 0x72, 0x65, 0x6e, 0x08, 0x02,
    0x6c, 0x70, 0x0a, 0x04, 0x01, 0x02, 0x03, 0x04, 0x0c, 0x02, 0x0f, 0xa0};

/* LpPacket { Nack { NackReason 150 }, Fragment { that Interest } } */
static const uint8_t nack[37] = {
    0x64, 0x23, 0xfd, 0x03, 0x20, 0x05, 0xfd, 0x03, 0x21, 0x01, 0x96, 0x50, 0x18,
    0x05, 0x16, 0x07, 0x0a, 0x08, 0x04, 0x77, 0x72, 0x65, 0x6e, 0x08, 0x02, 0x6c,
    0x70, 0x0a, 0x04, 0x01, 0x02, 0x03, 0x04, 0x0c, 0x02, 0x0f, 0xa0};

/* LpPacket { Sequence 0x0105 (8 octets), FragIndex 1, FragCount 3, Fragment aa bb cc } */
static const uint8_t frag[23] = {
    0x64, 0x15, 0x51, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x05,
    0x52, 0x01, 0x01, 0x53, 0x01, 0x03, 0x50, 0x03, 0xaa, 0xbb, 0xcc};

static uint8_t big[70000];

TEST(test_ndnlp_parse__python_ndn_nack)
{
    struct ndnlp_pkt p;
    CHECK_EQ(wren_ndnlp_parse(nack, sizeof(nack), &p), sizeof(nack));
    CHECK(p.has_nack);
    CHECK_EQ(p.nack_reason, NDNLP_NACK_NO_ROUTE);
    CHECK_EQ(p.frag_len, sizeof(interest));
    CHECK(p.frag == nack + 13);
    CHECK_EQ(memcmp(p.frag, interest, sizeof(interest)), 0);
    CHECK_EQ(p.seq_len, 0);
    CHECK_EQ(p.frag_index, 0);
    CHECK_EQ(p.frag_count, 1);
    CHECK_EQ(p.ignored, 0);
}

TEST(test_ndnlp_emit__nack_as_python_ndn)
{
    struct ndnlp_pkt p = { .has_nack = true, .nack_reason = NDNLP_NACK_NO_ROUTE,
                           .frag = interest, .frag_len = sizeof(interest) };
    uint8_t out[64];
    CHECK_EQ(wren_ndnlp_len(&p), sizeof(nack));
    CHECK_EQ(wren_ndnlp_hdr_len(&p), sizeof(nack) - sizeof(interest));
    CHECK_EQ(wren_ndnlp_emit(&p, out, sizeof(out)), sizeof(nack));
    CHECK_EQ(memcmp(out, nack, sizeof(nack)), 0);
}

TEST(test_ndnlp_parse__fragment)
{
    struct ndnlp_pkt p;
    uint8_t out[32];
    CHECK_EQ(wren_ndnlp_parse(frag, sizeof(frag), &p), sizeof(frag));
    CHECK_EQ(p.seq, 0x0105);
    CHECK_EQ(p.seq_len, 8);
    CHECK_EQ(p.frag_index, 1);
    CHECK_EQ(p.frag_count, 3);
    CHECK(!p.has_nack);
    CHECK_EQ(p.frag_len, 3);
    CHECK(p.frag == frag + 20);
    CHECK_EQ(wren_ndnlp_emit(&p, out, sizeof(out)), sizeof(frag));
    CHECK_EQ(memcmp(out, frag, sizeof(frag)), 0);
}

TEST(test_ndnlp_parse__bytes_after_are_not_read)
{
    uint8_t b[sizeof(frag) + 2];
    struct ndnlp_pkt p;
    memcpy(b, frag, sizeof(frag));
    b[sizeof(frag)] = 0x05;
    b[sizeof(frag) + 1] = 0x00;
    CHECK_EQ(wren_ndnlp_parse(b, sizeof(b), &p), sizeof(frag));
}

TEST(test_ndnlp_parse__every_truncation)
{
    struct ndnlp_pkt p;
    for (size_t n = 0; n < sizeof(nack); n++) {
        CHECK_EQ(wren_ndnlp_parse(nack, n, &p), -NDNLP_ERR_TRUNCATED);
    }
    for (size_t n = 0; n < sizeof(frag); n++) {
        CHECK_EQ(wren_ndnlp_parse(frag, n, &p), -NDNLP_ERR_TRUNCATED);
    }
}

TEST(test_ndnlp_parse__bare_interest_is_not_lp)
{
    struct ndnlp_pkt p;
    CHECK_EQ(wren_ndnlp_parse(interest, sizeof(interest), &p), -NDNLP_ERR_TYPE);
}

/* an inner TLV: LpPacket { v } */
static int parse_inner(const uint8_t *v, size_t n, struct ndnlp_pkt *p)
{
    uint8_t b[64] = { NDNLP_TLV_LP_PACKET, (uint8_t)n };
    if (n) {
        memcpy(b + 2, v, n);
    }
    return wren_ndnlp_parse(b, n + 2, p);
}

TEST(test_ndnlp_parse__idle_packet)
{
    struct ndnlp_pkt p;
    CHECK_EQ(parse_inner(NULL, 0, &p), 2);
    CHECK_EQ(p.frag_len, 0);
    CHECK(!p.has_nack);
}

/* unknown header fields in [800, 959] with the low two bits 00 are skipped */
TEST(test_ndnlp_parse__ignorable_unknown_skipped)
{
    /* IncomingFaceId 812, CongestionMark 832 twice, 956; then a Fragment */
    static const uint8_t v[] = { 0xfd, 0x03, 0x2c, 0x01, 0x07, 0xfd, 0x03, 0x40, 0x01, 0x01,
                                 0xfd, 0x03, 0x40, 0x00, 0xfd, 0x03, 0xbc, 0x00,
                                 0x50, 0x02, 0x06, 0x00 };
    struct ndnlp_pkt p;
    CHECK_EQ(parse_inner(v, sizeof(v), &p), sizeof(v) + 2);
    CHECK_EQ(p.ignored, 4);
    CHECK_EQ(p.frag_len, 2);
    CHECK(wren_ndnlp_ignorable(800) && wren_ndnlp_ignorable(956));
    CHECK(!wren_ndnlp_ignorable(801) && !wren_ndnlp_ignorable(960) && !wren_ndnlp_ignorable(98));
}

/* every other unknown field drops the packet */
TEST(test_ndnlp_parse__critical_unknown_dropped)
{
    static const uint8_t pit_token[] = { 0x62, 0x01, 0x00, 0x50, 0x01, 0x06 };
    static const uint8_t reason_outside[] = { 0xfd, 0x03, 0x21, 0x01, 0x00 };
    static const uint8_t t960[] = { 0xfd, 0x03, 0xc0, 0x00 };
    static const uint8_t t799[] = { 0xfd, 0x03, 0x1f, 0x00 };
    static const uint8_t t802[] = { 0xfd, 0x03, 0x22, 0x00 };
    static const uint8_t interest_inside[] = { 0x05, 0x00 };
    struct ndnlp_pkt p;
    CHECK_EQ(parse_inner(pit_token, sizeof(pit_token), &p), -NDNLP_ERR_CRITICAL);
    CHECK_EQ(parse_inner(reason_outside, sizeof(reason_outside), &p), -NDNLP_ERR_CRITICAL);
    CHECK_EQ(parse_inner(t960, sizeof(t960), &p), -NDNLP_ERR_CRITICAL);
    CHECK_EQ(parse_inner(t799, sizeof(t799), &p), -NDNLP_ERR_CRITICAL);
    CHECK_EQ(parse_inner(t802, sizeof(t802), &p), -NDNLP_ERR_CRITICAL);
    CHECK_EQ(parse_inner(interest_inside, sizeof(interest_inside), &p), -NDNLP_ERR_CRITICAL);
}

TEST(test_ndnlp_parse__order)
{
    static const uint8_t count_before_index[] = { 0x51, 0x01, 0x00, 0x53, 0x01, 0x02,
                                                  0x52, 0x01, 0x00, 0x50, 0x01, 0x06 };
    static const uint8_t header_after_fragment[] = { 0x50, 0x01, 0x06, 0x51, 0x01, 0x00 };
    static const uint8_t seq_twice[] = { 0x51, 0x01, 0x00, 0x51, 0x01, 0x01 };
    static const uint8_t fragment_twice[] = { 0x50, 0x01, 0x06, 0x50, 0x01, 0x06 };
    static const uint8_t nack_twice[] = { 0xfd, 0x03, 0x20, 0x00, 0xfd, 0x03, 0x20, 0x00 };
    static const uint8_t unknown_before_nack[] = { 0xfd, 0x03, 0x40, 0x00, 0xfd, 0x03, 0x20, 0x00 };
    struct ndnlp_pkt p;
    CHECK_EQ(parse_inner(count_before_index, sizeof(count_before_index), &p), -NDNLP_ERR_ORDER);
    CHECK_EQ(parse_inner(header_after_fragment, sizeof(header_after_fragment), &p),
             -NDNLP_ERR_ORDER);
    CHECK_EQ(parse_inner(seq_twice, sizeof(seq_twice), &p), -NDNLP_ERR_ORDER);
    CHECK_EQ(parse_inner(fragment_twice, sizeof(fragment_twice), &p), -NDNLP_ERR_ORDER);
    CHECK_EQ(parse_inner(nack_twice, sizeof(nack_twice), &p), -NDNLP_ERR_ORDER);
    CHECK_EQ(parse_inner(unknown_before_nack, sizeof(unknown_before_nack), &p), -NDNLP_ERR_ORDER);
}

TEST(test_ndnlp_parse__bad_field)
{
    static const uint8_t seq9[] = { 0x51, 0x09, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
    static const uint8_t seq0[] = { 0x51, 0x00 };
    static const uint8_t index3[] = { 0x51, 0x01, 0x00, 0x52, 0x03, 0, 0, 1, 0x53, 0x01, 0x02 };
    static const uint8_t count0len[] = { 0x51, 0x01, 0x00, 0x53, 0x00 };
    static const uint8_t empty_fragment[] = { 0x50, 0x00 };
    static const uint8_t reason3[] = { 0xfd, 0x03, 0x20, 0x07, 0xfd, 0x03, 0x21, 0x03, 0, 0, 1 };
    static const uint8_t reason_twice[] = { 0xfd, 0x03, 0x20, 0x0a, 0xfd, 0x03, 0x21, 0x01,
                                            0x32, 0xfd, 0x03, 0x21, 0x01, 0x32 };
    static const uint8_t nack_cut[] = { 0xfd, 0x03, 0x20, 0x02, 0xfd, 0x03 };
    struct ndnlp_pkt p;
    CHECK_EQ(parse_inner(seq9, sizeof(seq9), &p), -NDNLP_ERR_FIELD);
    CHECK_EQ(parse_inner(seq0, sizeof(seq0), &p), -NDNLP_ERR_FIELD);
    CHECK_EQ(parse_inner(index3, sizeof(index3), &p), -NDNLP_ERR_FIELD);
    CHECK_EQ(parse_inner(count0len, sizeof(count0len), &p), -NDNLP_ERR_FIELD);
    CHECK_EQ(parse_inner(empty_fragment, sizeof(empty_fragment), &p), -NDNLP_ERR_FIELD);
    CHECK_EQ(parse_inner(reason3, sizeof(reason3), &p), -NDNLP_ERR_FIELD);
    CHECK_EQ(parse_inner(reason_twice, sizeof(reason_twice), &p), -NDNLP_ERR_FIELD);
    CHECK_EQ(parse_inner(nack_cut, sizeof(nack_cut), &p), -NDNLP_ERR_FIELD);
}

TEST(test_ndnlp_parse__bad_fragmentation)
{
    static const uint8_t index_eq_count[] = { 0x51, 0x01, 0x00, 0x52, 0x01, 0x03,
                                              0x53, 0x01, 0x03, 0x50, 0x01, 0x06 };
    static const uint8_t count0[] = { 0x51, 0x01, 0x00, 0x53, 0x01, 0x00, 0x50, 0x01, 0x06 };
    static const uint8_t index_alone[] = { 0x51, 0x01, 0x00, 0x52, 0x01, 0x01, 0x50, 0x01, 0x06 };
    static const uint8_t no_seq[] = { 0x52, 0x01, 0x00, 0x53, 0x01, 0x02, 0x50, 0x01, 0x06 };
    static const uint8_t count1_no_seq[] = { 0x52, 0x01, 0x00, 0x53, 0x01, 0x01, 0x50, 0x01, 0x06 };
    struct ndnlp_pkt p;
    CHECK_EQ(parse_inner(index_eq_count, sizeof(index_eq_count), &p), -NDNLP_ERR_FRAG);
    CHECK_EQ(parse_inner(count0, sizeof(count0), &p), -NDNLP_ERR_FRAG);
    CHECK_EQ(parse_inner(index_alone, sizeof(index_alone), &p), -NDNLP_ERR_FRAG);
    CHECK_EQ(parse_inner(no_seq, sizeof(no_seq), &p), -NDNLP_ERR_FRAG);
    /* one piece of one: no Sequence needed */
    CHECK_EQ(parse_inner(count1_no_seq, sizeof(count1_no_seq), &p), sizeof(count1_no_seq) + 2);
}

/* VAR-NUMBERs: non-minimal forms are read; the emitter writes the shortest */
TEST(test_ndnlp_parse__long_varnumbers)
{
    static const uint8_t v[] = { 0x64, 0xfd, 0x00, 0x0f, 0xfe, 0x00, 0x00, 0x00, 0x50,
                                 0xff, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x06 };
    static const uint8_t shortest[] = { 0x64, 0x03, 0x50, 0x01, 0x06 };
    uint8_t out[8];
    struct ndnlp_pkt p;
    CHECK_EQ(wren_ndnlp_parse(v, sizeof(v), &p), sizeof(v));
    CHECK_EQ(p.frag_len, 1);
    CHECK_EQ(p.frag[0], 0x06);
    CHECK_EQ(wren_ndnlp_emit(&p, out, sizeof(out)), sizeof(shortest));
    CHECK_EQ(memcmp(out, shortest, sizeof(shortest)), 0);
    /* a length past what a size_t of the buffer can hold is truncation */
    static const uint8_t huge[] = { 0x64, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    CHECK_EQ(wren_ndnlp_parse(huge, sizeof(huge), &p), -NDNLP_ERR_TRUNCATED);
}

/* Fragments whose lengths cross each VAR-NUMBER width round-trip, and the
 * TLV-LENGTH octets are the ones the NDN TLV encoding prescribes. */
TEST(test_ndnlp_emit__varnumber_widths)
{
    static const size_t lens[] = { 1, 250, 251, 252, 253, 65535, 65536 - 20, 65536 };
    static const size_t tl[] = { 1, 1, 1, 1, 3, 3, 3, 5 };
    static uint8_t out[70100];
    for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
        for (size_t i = 0; i < lens[k]; i++) {
            big[i] = (uint8_t)(i * 13 + k);
        }
        struct ndnlp_pkt p = { .seq = 7, .seq_len = 8, .frag = big, .frag_len = lens[k] };
        struct ndnlp_pkt q;
        int n = wren_ndnlp_emit(&p, out, sizeof(out));
        CHECK_EQ(n, wren_ndnlp_len(&p));
        CHECK_EQ(wren_ndnlp_parse(out, (size_t)n, &q), n);
        CHECK_EQ(q.frag_len, lens[k]);
        CHECK_EQ(q.seq, 7);
        CHECK_EQ(memcmp(q.frag, big, lens[k]), 0);
        /* the Fragment's TLV-LENGTH right before its value */
        size_t at = (size_t)(q.frag - out) - tl[k];
        CHECK_EQ(out[at - 1], NDNLP_TLV_FRAGMENT);
        CHECK_EQ(tl[k] == 1 ? out[at] : out[at] - 252u, tl[k] == 1 ? lens[k] : tl[k] == 3 ? 1 : 2);
    }
}

TEST(test_ndnlp_emit__short_buffer_writes_nothing)
{
    struct ndnlp_pkt p;
    uint8_t out[sizeof(nack)];
    CHECK_EQ(wren_ndnlp_parse(nack, sizeof(nack), &p), sizeof(nack));
    memset(out, 0x5a, sizeof(out));
    CHECK_EQ(wren_ndnlp_emit(&p, out, sizeof(nack) - 1), -NDNLP_ERR_NOBUFS);
    CHECK_EQ(out[0], 0x5a);
    /* header only: the Fragment's value is the caller's to write */
    p.frag = NULL;
    CHECK_EQ(wren_ndnlp_emit(&p, out, wren_ndnlp_hdr_len(&p)), 13);
    CHECK_EQ(memcmp(out, nack, 13), 0);
}

TEST(test_ndnlp_emit__nack_without_reason)
{
    static const uint8_t want[] = { 0x64, 0x07, 0xfd, 0x03, 0x20, 0x00, 0x50, 0x01, 0x06 };
    static const uint8_t one = 0x06;
    struct ndnlp_pkt p = { .has_nack = true, .frag = &one, .frag_len = 1 }, q;
    uint8_t out[16];
    CHECK_EQ(wren_ndnlp_emit(&p, out, sizeof(out)), sizeof(want));
    CHECK_EQ(memcmp(out, want, sizeof(want)), 0);
    CHECK_EQ(wren_ndnlp_parse(out, sizeof(want), &q), sizeof(want));
    CHECK(q.has_nack);
    CHECK_EQ(q.nack_reason, NDNLP_NACK_NONE);
}

/* FragIndex and FragCount are NonNegativeIntegers of 1, 2, 4 or 8 octets */
TEST(test_ndnlp_emit__fragment_numbers_widths)
{
    static const uint64_t counts[] = { 2, 255, 256, 65535, 65536, UINT64_C(1) << 32 };
    static const uint8_t one = 0x06;
    for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
        struct ndnlp_pkt p = { .seq = 1, .seq_len = 8, .frag_index = counts[k] - 1,
                               .frag_count = counts[k], .frag = &one, .frag_len = 1 };
        struct ndnlp_pkt q;
        uint8_t out[64];
        int n = wren_ndnlp_emit(&p, out, sizeof(out));
        CHECK_EQ(wren_ndnlp_parse(out, (size_t)n, &q), n);
        CHECK_EQ(q.frag_index, counts[k] - 1);
        CHECK_EQ(q.frag_count, counts[k]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ndnlp_parse__python_ndn_nack),
        cmocka_unit_test(test_ndnlp_emit__nack_as_python_ndn),
        cmocka_unit_test(test_ndnlp_parse__fragment),
        cmocka_unit_test(test_ndnlp_parse__bytes_after_are_not_read),
        cmocka_unit_test(test_ndnlp_parse__every_truncation),
        cmocka_unit_test(test_ndnlp_parse__bare_interest_is_not_lp),
        cmocka_unit_test(test_ndnlp_parse__idle_packet),
        cmocka_unit_test(test_ndnlp_parse__ignorable_unknown_skipped),
        cmocka_unit_test(test_ndnlp_parse__critical_unknown_dropped),
        cmocka_unit_test(test_ndnlp_parse__order),
        cmocka_unit_test(test_ndnlp_parse__bad_field),
        cmocka_unit_test(test_ndnlp_parse__bad_fragmentation),
        cmocka_unit_test(test_ndnlp_parse__long_varnumbers),
        cmocka_unit_test(test_ndnlp_emit__varnumber_widths),
        cmocka_unit_test(test_ndnlp_emit__short_buffer_writes_nothing),
        cmocka_unit_test(test_ndnlp_emit__nack_without_reason),
        cmocka_unit_test(test_ndnlp_emit__fragment_numbers_widths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

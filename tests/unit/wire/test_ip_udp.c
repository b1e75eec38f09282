/**
 * @file test_ip_udp.c
 * @brief IPv6 fixed header, UDP header and Internet checksum (RFC 1071,
 *        RFC 8200 8.1). Packet vectors generated with scapy 2.8.
 */
#include <stdlib.h>

#include "core/byteorder.h"
#include "test.h"
#include "wire/inet_csum.h"
#include "wire/ipv6.h"
#include "wire/udp.h"

static const uint8_t udp_pkt[53] = {
    0x60, 0x00, 0x00, 0x00, 0x00, 0x0d, 0x11, 0x40, 0x20, 0x01, 0x0d, 0xb8,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x02, 0x16, 0x33, 0x16, 0x33, 0x00, 0x0d, 0x92, 0x19,
    0x63, 0x6f, 0x61, 0x70, 0x21
};

static const uint8_t udp_odd_pkt[51] = {
    0x60, 0x00, 0x00, 0x00, 0x00, 0x0b, 0x11, 0x40, 0x20, 0x01, 0x0d, 0xb8,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x02, 0x04, 0xd2, 0x16, 0x2e, 0x00, 0x0b, 0xb5, 0xfe,
    0x6f, 0x64, 0x64
};

static const uint8_t ip_tc_fl_pkt[40] = {
    0x6b, 0x81, 0x23, 0x45, 0x00, 0x08, 0x11, 0x11, 0x20, 0x01, 0x0d, 0xb8,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x02
};

/* RFC 1071 section 3: the sum of these is 0xddf2 (after folding) */
static const uint8_t rfc1071[8] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };

/* Reference: sum of big-endian 16-bit words, odd byte padded, folded. */
static uint16_t ref_csum(const uint8_t *b, size_t n)
{
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++) {
        s += (i & 1) ? b[i] : (uint64_t)b[i] << 8;
    }
    while (s >> 16) {
        s = (s & 0xffff) + (s >> 16);
    }
    return (uint16_t)~s;
}

static uint16_t csum_of(const uint8_t *b, size_t n)
{
    struct inet_csum c;
    wren_inet_csum_init(&c);
    wren_inet_csum_update(&c, b, n);
    return wren_inet_csum_final(&c);
}

/* ---- inet_csum ---- */

TEST(test_inet_csum_update__rfc1071_example)
{
    CHECK_EQ(csum_of(rfc1071, sizeof(rfc1071)), (uint16_t)~0xddf2);
}

TEST(test_inet_csum_update__every_two_and_three_piece_split)
{
    /* odd-length pieces: the odd byte carries over to the next piece */
    for (size_t a = 0; a <= 8; a++) {
        for (size_t b = a; b <= 8; b++) {
            struct inet_csum c;
            wren_inet_csum_init(&c);
            wren_inet_csum_update(&c, rfc1071, a);
            wren_inet_csum_update(&c, rfc1071 + a, b - a);
            wren_inet_csum_update(&c, rfc1071 + b, 8 - b);
            CHECK_EQ(wren_inet_csum_final(&c), (uint16_t)~0xddf2);
        }
    }
}

TEST(test_inet_csum_update__one_byte_pieces)
{
    struct inet_csum c;
    wren_inet_csum_init(&c);
    for (size_t i = 0; i < sizeof(rfc1071); i++) {
        wren_inet_csum_update(&c, rfc1071 + i, 1);
        wren_inet_csum_update(&c, rfc1071, 0); /* empty pieces change nothing */
    }
    CHECK_EQ(wren_inet_csum_final(&c), (uint16_t)~0xddf2);
}

TEST(test_inet_csum_update__odd_total_length)
{
    /* the last odd byte is the high half of a word padded with zero */
    static const uint8_t b[3] = { 0x01, 0x02, 0x03 };
    CHECK_EQ(csum_of(b, 3), (uint16_t)~0x0402);
    struct inet_csum c;
    wren_inet_csum_init(&c);
    wren_inet_csum_update(&c, b, 1);
    wren_inet_csum_update(&c, b + 1, 1);
    wren_inet_csum_update(&c, b + 2, 1);
    CHECK_EQ(wren_inet_csum_final(&c), (uint16_t)~0x0402);
}

TEST(test_inet_csum_final__empty_and_zero)
{
    static const uint8_t z[6] = { 0 };
    CHECK_EQ(csum_of(z, 0), 0xffff);
    CHECK_EQ(csum_of(z, sizeof(z)), 0xffff);
}

TEST(test_inet_csum_final__data_with_its_checksum_gives_zero)
{
    uint8_t b[10];
    memcpy(b, rfc1071, 8);
    put_be16(b + 8, csum_of(rfc1071, 8));
    CHECK_EQ(csum_of(b, sizeof(b)), 0);
}

TEST(test_inet_csum_update__long_pieces_match_reference)
{
    /* 128 KiB of 0xff (worst case for carries), then pseudo-random data in
     * odd-sized pieces */
    size_t n = 128 * 1024 + 1;
    uint8_t *b = malloc(n);
    memset(b, 0xff, n);
    CHECK_EQ(csum_of(b, n), ref_csum(b, n));
    uint32_t x = 12345;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        b[i] = (uint8_t)(x >> 16);
    }
    struct inet_csum c;
    wren_inet_csum_init(&c);
    for (size_t i = 0, step = 1; i < n; i += step, step = step * 3 % 1001 + 1) {
        wren_inet_csum_update(&c, b + i, step < n - i ? step : n - i);
    }
    CHECK_EQ(wren_inet_csum_final(&c), ref_csum(b, n));
    free(b);
}

TEST(test_inet_csum_pseudo__udp_capture)
{
    const uint8_t *udp = udp_pkt + 40;
    size_t n = sizeof(udp_pkt) - 40;
    uint8_t copy[13];
    struct inet_csum c;
    CHECK_EQ(n, sizeof(copy));
    memcpy(copy, udp, n);
    put_be16(copy + 6, 0);
    wren_inet_csum_init(&c);
    wren_inet_csum_pseudo(&c, udp_pkt + 8, udp_pkt + 24, (uint32_t)n, IPV6_NH_UDP);
    wren_inet_csum_update(&c, copy, n);
    CHECK_EQ(wren_inet_csum_final(&c), 0x9219);
    /* verifying the captured datagram, header and payload as two pieces */
    wren_inet_csum_init(&c);
    wren_inet_csum_pseudo(&c, udp_pkt + 8, udp_pkt + 24, (uint32_t)n, IPV6_NH_UDP);
    wren_inet_csum_update(&c, udp, 8);
    wren_inet_csum_update(&c, udp + 8, n - 8);
    CHECK_EQ(wren_inet_csum_final(&c), 0);
}

TEST(test_inet_csum_pseudo__odd_length_udp_capture)
{
    const uint8_t *udp = udp_odd_pkt + 40;
    size_t n = sizeof(udp_odd_pkt) - 40;
    struct inet_csum c;
    CHECK_EQ(get_be16(udp + 6), 0xb5fe);
    wren_inet_csum_init(&c);
    wren_inet_csum_pseudo(&c, udp_odd_pkt + 8, udp_odd_pkt + 24, (uint32_t)n, IPV6_NH_UDP);
    wren_inet_csum_update(&c, udp, 3); /* odd pieces */
    wren_inet_csum_update(&c, udp + 3, 6);
    wren_inet_csum_update(&c, udp + 9, n - 9);
    CHECK_EQ(wren_inet_csum_final(&c), 0);
}

TEST(test_inet_csum_pseudo__length_and_next_header_count)
{
    const uint8_t *udp = udp_pkt + 40;
    size_t n = sizeof(udp_pkt) - 40;
    struct inet_csum c;
    wren_inet_csum_init(&c);
    wren_inet_csum_pseudo(&c, udp_pkt + 8, udp_pkt + 24, (uint32_t)n + 0x10000, IPV6_NH_UDP);
    wren_inet_csum_update(&c, udp, n);
    CHECK(wren_inet_csum_final(&c) != 0);
    wren_inet_csum_init(&c);
    wren_inet_csum_pseudo(&c, udp_pkt + 8, udp_pkt + 24, (uint32_t)n, IPV6_NH_TCP);
    wren_inet_csum_update(&c, udp, n);
    CHECK(wren_inet_csum_final(&c) != 0);
}

/* ---- UDP ---- */

TEST(test_udp_hdr_parse__capture)
{
    struct udp_hdr h;
    CHECK_EQ(wren_udp_hdr_parse(udp_pkt + 40, sizeof(udp_pkt) - 40, &h), 0);
    CHECK_EQ(h.src_port, 5683);
    CHECK_EQ(h.dst_port, 5683);
    CHECK_EQ(h.len, 13);
    CHECK_EQ(h.csum, 0x9219);
}

TEST(test_udp_hdr_parse__truncated)
{
    struct udp_hdr h;
    for (size_t n = 0; n < UDP_HDR_LEN; n++) {
        CHECK_EQ(wren_udp_hdr_parse(udp_pkt + 40, n, &h), -UDP_ERR_TRUNCATED);
    }
}

TEST(test_udp_hdr_parse__length_field_out_of_range)
{
    uint8_t b[16] = { 0, 1, 0, 2, 0, 0, 0, 0 };
    struct udp_hdr h;
    for (uint16_t l = 0; l < 8; l++) {
        put_be16(b + 4, l);
        CHECK_EQ(wren_udp_hdr_parse(b, sizeof(b), &h), -UDP_ERR_LENGTH);
    }
    put_be16(b + 4, 17);
    CHECK_EQ(wren_udp_hdr_parse(b, sizeof(b), &h), -UDP_ERR_LENGTH);
    put_be16(b + 4, 0xffff);
    CHECK_EQ(wren_udp_hdr_parse(b, sizeof(b), &h), -UDP_ERR_LENGTH);
    put_be16(b + 4, 16);
    CHECK_EQ(wren_udp_hdr_parse(b, sizeof(b), &h), 0);
    put_be16(b + 4, 8); /* shorter than the IP payload: trailing bytes allowed */
    CHECK_EQ(wren_udp_hdr_parse(b, sizeof(b), &h), 0);
    CHECK_EQ(h.len, 8);
}

TEST(test_udp_hdr_emit__round_trip)
{
    struct udp_hdr h = { 0xfedc, 7, 8, 0xbeef }, g;
    uint8_t b[8];
    wren_udp_hdr_emit(&h, b);
    CHECK_EQ(wren_udp_hdr_parse(b, sizeof(b), &g), 0);
    CHECK(g.src_port == 0xfedc && g.dst_port == 7 && g.len == 8 && g.csum == 0xbeef);
    wren_udp_hdr_emit(&g, b);
    struct udp_hdr c;
    CHECK_EQ(wren_udp_hdr_parse(udp_pkt + 40, 13, &c), 0);
    wren_udp_hdr_emit(&c, b);
    CHECK_MEM(b, udp_pkt + 40, 8);
}

/* ---- IPv6 ---- */

TEST(test_ipv6_hdr_parse__capture_with_class_and_flow)
{
    struct ipv6_hdr h;
    CHECK_EQ(wren_ipv6_hdr_parse(ip_tc_fl_pkt, sizeof(ip_tc_fl_pkt), &h), 0);
    CHECK_EQ(h.tc, 0xb8);
    CHECK_EQ(h.flow, 0x12345);
    CHECK_EQ(h.payload_len, 8);
    CHECK_EQ(h.next, IPV6_NH_UDP);
    CHECK_EQ(h.hop_limit, 17);
    CHECK_MEM(h.src, ip_tc_fl_pkt + 8, 16);
    CHECK_MEM(h.dst, ip_tc_fl_pkt + 24, 16);
}

TEST(test_ipv6_hdr_parse__truncated)
{
    struct ipv6_hdr h;
    for (size_t n = 0; n < IPV6_HDR_LEN; n++) {
        CHECK_EQ(wren_ipv6_hdr_parse(ip_tc_fl_pkt, n, &h), -IPV6_ERR_TRUNCATED);
    }
}

TEST(test_ipv6_hdr_parse__bad_version)
{
    uint8_t b[40];
    struct ipv6_hdr h;
    memcpy(b, ip_tc_fl_pkt, sizeof(b));
    for (unsigned v = 0; v < 16; v++) {
        b[0] = (uint8_t)(v << 4 | (b[0] & 0x0f));
        CHECK_EQ(wren_ipv6_hdr_parse(b, sizeof(b), &h), v == 6 ? 0 : -IPV6_ERR_VERSION);
    }
}

TEST(test_ipv6_hdr_emit__round_trip)
{
    struct ipv6_hdr h;
    uint8_t b[40];
    CHECK_EQ(wren_ipv6_hdr_parse(ip_tc_fl_pkt, sizeof(ip_tc_fl_pkt), &h), 0);
    wren_ipv6_hdr_emit(&h, b);
    CHECK_MEM(b, ip_tc_fl_pkt, 40);
    h.flow = 0xfff12345; /* only 20 bits are written */
    wren_ipv6_hdr_emit(&h, b);
    CHECK_MEM(b, ip_tc_fl_pkt, 40);
}

TEST(test_ipv6_addr__classes)
{
    static const uint8_t unspec[16] = { 0 };
    static const uint8_t loop[16] = { [15] = 1 };
    static const uint8_t ll[16] = { 0xfe, 0x80, [15] = 1 };
    static const uint8_t ll_hi[16] = { 0xfe, 0xbf };
    static const uint8_t site[16] = { 0xfe, 0xc0 };
    static const uint8_t mc[16] = { 0xff, 0x02, [15] = 1 };
    static const uint8_t other[16] = { 0x20, 0x01, [15] = 1 };
    CHECK(wren_ipv6_addr_is_unspecified(unspec));
    CHECK(!wren_ipv6_addr_is_unspecified(loop));
    CHECK(wren_ipv6_addr_is_loopback(loop));
    CHECK(!wren_ipv6_addr_is_loopback(unspec));
    CHECK(!wren_ipv6_addr_is_loopback(ll));
    CHECK(wren_ipv6_addr_is_link_local(ll));
    CHECK(wren_ipv6_addr_is_link_local(ll_hi));
    CHECK(!wren_ipv6_addr_is_link_local(site));
    CHECK(!wren_ipv6_addr_is_link_local(other));
    CHECK(wren_ipv6_addr_is_multicast(mc));
    CHECK(!wren_ipv6_addr_is_multicast(other));
}

TEST(test_ipv6_prefix_equal__bit_lengths)
{
    static const uint8_t a[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0, 0x80 };
    static const uint8_t b[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0, 0xc0 };
    CHECK(wren_ipv6_prefix_equal(a, b, 0));
    CHECK(wren_ipv6_prefix_equal(a, b, 64));
    CHECK(wren_ipv6_prefix_equal(a, b, 65));
    CHECK(!wren_ipv6_prefix_equal(a, b, 66));
    CHECK(!wren_ipv6_prefix_equal(a, b, 128));
    CHECK(wren_ipv6_prefix_equal(a, a, 128));
    CHECK(wren_ipv6_prefix_equal(a, a, 200)); /* clamped to 128 */
    CHECK(!wren_ipv6_prefix_equal(a, b, 200));
}

TEST(test_ipv6_prefix_common__lengths)
{
    static const uint8_t a[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0, 0x80 };
    static const uint8_t b[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0, 0xc0 };
    static const uint8_t c[16] = { 0xa0 };
    uint8_t d[16];
    CHECK_EQ(wren_ipv6_prefix_common(a, b), 65);
    CHECK_EQ(wren_ipv6_prefix_common(a, a), 128);
    CHECK_EQ(wren_ipv6_prefix_common(a, c), 0);
    memcpy(d, a, 16);
    d[15] ^= 1;
    CHECK_EQ(wren_ipv6_prefix_common(a, d), 127);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inet_csum_update__rfc1071_example),
        cmocka_unit_test(test_inet_csum_update__every_two_and_three_piece_split),
        cmocka_unit_test(test_inet_csum_update__one_byte_pieces),
        cmocka_unit_test(test_inet_csum_update__odd_total_length),
        cmocka_unit_test(test_inet_csum_final__empty_and_zero),
        cmocka_unit_test(test_inet_csum_final__data_with_its_checksum_gives_zero),
        cmocka_unit_test(test_inet_csum_update__long_pieces_match_reference),
        cmocka_unit_test(test_inet_csum_pseudo__udp_capture),
        cmocka_unit_test(test_inet_csum_pseudo__odd_length_udp_capture),
        cmocka_unit_test(test_inet_csum_pseudo__length_and_next_header_count),
        cmocka_unit_test(test_udp_hdr_parse__capture),
        cmocka_unit_test(test_udp_hdr_parse__truncated),
        cmocka_unit_test(test_udp_hdr_parse__length_field_out_of_range),
        cmocka_unit_test(test_udp_hdr_emit__round_trip),
        cmocka_unit_test(test_ipv6_hdr_parse__capture_with_class_and_flow),
        cmocka_unit_test(test_ipv6_hdr_parse__truncated),
        cmocka_unit_test(test_ipv6_hdr_parse__bad_version),
        cmocka_unit_test(test_ipv6_hdr_emit__round_trip),
        cmocka_unit_test(test_ipv6_addr__classes),
        cmocka_unit_test(test_ipv6_prefix_equal__bit_lengths),
        cmocka_unit_test(test_ipv6_prefix_common__lengths),
    };
    return cmocka_run_group_tests_name("ip_udp", tests, NULL, NULL);
}

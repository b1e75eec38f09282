/**
 * @file test_schc.c
 * @brief SCHC compression/decompression (RFC 8724 7) and the rule text.
 *        The expected SCHC bytes are worked out bit by bit in the comments.
 */
#include <errno.h>

#include "core/byteorder.h"
#include "test.h"
#include "wire/inet_csum.h"
#include "wire/schc.h"

static const char rules_text[] =
    "# sensor (Device) to router (Application), RFC 8724 10\n"
    "rule 1\n"
    "ipv6.ver    bi equal  not-sent 6\n"
    "ipv6.tc     bi equal  not-sent 0\n"
    "ipv6.fl     bi ignore not-sent 0\n"
    "ipv6.len    bi ignore compute\n"
    "ipv6.nxt    bi equal  not-sent 17\n"
    "ipv6.hop    bi ignore not-sent 64\n"
    "ipv6.devpre bi equal  not-sent 0x20010db800000000\n"
    "ipv6.deviid bi msb(56) lsb 0x0000000000000000\n"
    "ipv6.apppre bi equal  not-sent 0x20010db800000000\n"
    "ipv6.appiid bi equal  not-sent 2\n"
    "udp.devport bi msb(12) lsb 0xf0b0\n"
    "udp.appport bi match-mapping mapping-sent 5683,5684,5685\n"
    "udp.len     bi ignore compute\n"
    "udp.cksum   bi ignore compute\n"
    "rule 250 nocomp\n";

/* A UDP/IPv6 packet from 2001:db8::DEV port SPORT to 2001:db8::2 port DPORT
 * (or the reverse), payload "ABCD", lengths and checksum right. */
static size_t build(uint8_t *p, bool down, uint16_t dev_port, uint16_t app_port, uint8_t iid)
{
    static const uint8_t pre[8] = { 0x20, 0x01, 0x0d, 0xb8 };
    memset(p, 0, 52);
    p[0] = 0x60;
    put_be16(p + 4, 12);
    p[6] = 17;
    p[7] = 64;
    uint8_t *dev = p + (down ? 24 : 8), *app = p + (down ? 8 : 24);
    memcpy(dev, pre, 8);
    dev[15] = iid;
    memcpy(app, pre, 8);
    app[15] = 2;
    put_be16(p + 40, down ? app_port : dev_port);
    put_be16(p + 42, down ? dev_port : app_port);
    put_be16(p + 44, 12);
    memcpy(p + 48, "ABCD", 4);
    struct inet_csum c;
    wren_inet_csum_init(&c);
    wren_inet_csum_pseudo(&c, p + 8, p + 24, 12, 17);
    wren_inet_csum_update(&c, p + 40, 12);
    put_be16(p + 46, wren_inet_csum_final(&c));
    return 52;
}

static struct wren_schc_rules rs;

static void load(void)
{
    char err[120];
    int rc = wren_schc_rules_parse(&rs, rules_text, sizeof(rules_text), err, sizeof(err));
    if (rc != 0) {
        print_error("%s\n", err);
    }
    CHECK_EQ(rc, 0);
}

/* rule ID 00000001; deviid LSB 8: 00000001; devport LSB 4: 0001; appport
 * index 1 of 3 (2 bits): 01; "ABCD" unaligned; 2 bits of padding:
 * 00000001 00000001 00010101 00000101 00001001 00001101 00010000 */
static const uint8_t expect_up[] = { 0x01, 0x01, 0x15, 0x05, 0x09, 0x0d, 0x10 };

TEST(test_schc_compress__up_bits)
{
    load();
    uint8_t p[64], out[64], back[64];
    size_t n = build(p, false, 0xf0b1, 5684, 1);
    int m = wren_schc_compress(&rs, WREN_SCHC_UP, p, n, out, sizeof(out));
    CHECK_EQ(m, sizeof(expect_up));
    CHECK_MEM(out, expect_up, sizeof(expect_up));
    CHECK_EQ(wren_schc_decompress(&rs, WREN_SCHC_UP, out, (size_t)m, back, sizeof(back)), n);
    CHECK_MEM(back, p, n);
}

TEST(test_schc_compress__down_swaps_dev_and_app)
{
    load();
    uint8_t p[64], out[64], back[64];
    size_t n = build(p, true, 0xf0b1, 5684, 1);
    int m = wren_schc_compress(&rs, WREN_SCHC_DOWN, p, n, out, sizeof(out));
    CHECK_EQ(m, sizeof(expect_up));
    CHECK_MEM(out, expect_up, sizeof(expect_up));
    CHECK_EQ(wren_schc_decompress(&rs, WREN_SCHC_DOWN, out, (size_t)m, back, sizeof(back)), n);
    CHECK_MEM(back, p, n);
    /* read as uplink, the same bytes are the other packet */
    CHECK_EQ(wren_schc_decompress(&rs, WREN_SCHC_UP, out, (size_t)m, back, sizeof(back)), n);
    CHECK(memcmp(back, p, n) != 0);
}

TEST(test_schc_compress__no_match_goes_nocomp)
{
    load();
    uint8_t p[64], out[64], back[64];
    size_t n = build(p, false, 0x1234, 5684, 1); /* port outside MSB(12) */
    int m = wren_schc_compress(&rs, WREN_SCHC_UP, p, n, out, sizeof(out));
    CHECK_EQ(m, n + 1);
    CHECK_EQ(out[0], 250);
    CHECK_MEM(out + 1, p, n);
    CHECK_EQ(wren_schc_decompress(&rs, WREN_SCHC_UP, out, (size_t)m, back, sizeof(back)), n);
    CHECK_MEM(back, p, n);
    /* a checksum that does not check cannot be compute-checksum'd */
    n = build(p, false, 0xf0b1, 5684, 1);
    p[47] ^= 1;
    CHECK_EQ(wren_schc_compress(&rs, WREN_SCHC_UP, p, n, out, sizeof(out)), n + 1);
    /* a mapping that does not hold it */
    n = build(p, false, 0xf0b1, 80, 1);
    CHECK_EQ(wren_schc_compress(&rs, WREN_SCHC_UP, p, n, out, sizeof(out)), n + 1);
}

TEST(test_schc_compress__no_rule)
{
    char err[80];
    CHECK_EQ(wren_schc_rules_parse(&rs, "rule 3 frag-up\n", 15, err, sizeof(err)), 0);
    uint8_t p[64], out[64];
    size_t n = build(p, false, 0xf0b1, 5684, 1);
    CHECK_EQ(wren_schc_compress(&rs, WREN_SCHC_UP, p, n, out, sizeof(out)), -SCHC_ERR_NO_RULE);
    p[0] = 0x40;
    CHECK_EQ(wren_schc_compress(&rs, WREN_SCHC_UP, p, n, out, sizeof(out)), -SCHC_ERR_NOT_IPV6);
    uint8_t f[2] = { 3, 0 };
    CHECK_EQ(wren_schc_decompress(&rs, WREN_SCHC_UP, f, 2, out, sizeof(out)), -SCHC_ERR_KIND);
    f[0] = 4;
    CHECK_EQ(wren_schc_decompress(&rs, WREN_SCHC_UP, f, 2, out, sizeof(out)), -SCHC_ERR_NO_RULE);
}

TEST(test_schc_decompress__bad_input)
{
    load();
    uint8_t out[64];
    /* the residue is 14 bits after the rule ID: 2 bytes are too few */
    CHECK_EQ(wren_schc_decompress(&rs, WREN_SCHC_UP, expect_up, 2, out, 64), -SCHC_ERR_TRUNCATED);
    CHECK_EQ(wren_schc_decompress(&rs, WREN_SCHC_UP, expect_up, 0, out, 64), -SCHC_ERR_TRUNCATED);
    /* 3 bytes: no payload, 2 bits of padding */
    CHECK_EQ(wren_schc_decompress(&rs, WREN_SCHC_UP, expect_up, 3, out, 64), 48);
    CHECK_EQ(get_be16(out + 4), 8);
    /* mapping index 3 of 3 values */
    uint8_t bad[7];
    memcpy(bad, expect_up, 7);
    bad[2] |= 0x0c;
    CHECK_EQ(wren_schc_decompress(&rs, WREN_SCHC_UP, bad, 7, out, 64), -SCHC_ERR_MAPPING);
    CHECK_EQ(wren_schc_decompress(&rs, WREN_SCHC_UP, expect_up, 7, out, 51), -SCHC_ERR_NOBUFS);
}

TEST(test_schc_compress__nobufs)
{
    load();
    uint8_t p[64], out[64];
    size_t n = build(p, false, 0xf0b1, 5684, 1);
    for (size_t cap = 0; cap < sizeof(expect_up); cap++) {
        CHECK_EQ(wren_schc_compress(&rs, WREN_SCHC_UP, p, n, out, cap), -SCHC_ERR_NOBUFS);
    }
}

static void expect_mistake(const char *text, const char *msg)
{
    char err[160];
    CHECK(wren_schc_rules_parse(&rs, text, strlen(text), err, sizeof(err)) < 0);
    if (strstr(err, msg) == NULL) {
        print_error("got: %s\nwanted: %s\n", err, msg);
        CHECK(0);
    }
    CHECK(strchr(err, '\n') == NULL);
    CHECK_EQ(rs.n_rules, 0);
}

TEST(test_schc_rules_parse__mistakes)
{
    expect_mistake("rule 1\nipv6.vers bi equal not-sent 6\n", "line 2: unknown field 'ipv6.vers'");
    expect_mistake("rule 1\nipv6.ver sideways equal not-sent 6\n", "unknown direction");
    expect_mistake("rule 1\nipv6.ver bi msb(2) not-sent 6\n", "lsb goes with msb(x)");
    expect_mistake("rule 1\nipv6.ver bi equal not-sent 16\n", "bad target value");
    expect_mistake("rule 1\nipv6.ver bi equal not-sent 6\n", "a field missing");
    expect_mistake("rule 300\n", "ID 0..255");
    expect_mistake("rule 1 nocomp\nrule 1 frag-up\n", "rule ID used twice");
    expect_mistake("ipv6.ver bi equal not-sent 6\n", "field outside a compression rule");
    expect_mistake("rule 1\nipv6.hop bi ignore compute\n", "compute is for");
    expect_mistake("rule 1\nudp.appport bi match-mapping mapping-sent 1\n", "two target values");
    expect_mistake("rule 2 fragment\n", "unknown rule kind");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schc_compress__up_bits),
        cmocka_unit_test(test_schc_compress__down_swaps_dev_and_app),
        cmocka_unit_test(test_schc_compress__no_match_goes_nocomp),
        cmocka_unit_test(test_schc_compress__no_rule),
        cmocka_unit_test(test_schc_decompress__bad_input),
        cmocka_unit_test(test_schc_compress__nobufs),
        cmocka_unit_test(test_schc_rules_parse__mistakes),
    };
    return cmocka_run_group_tests_name("schc", tests, NULL, NULL);
}

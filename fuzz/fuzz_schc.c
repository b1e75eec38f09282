/**
 * @file fuzz_schc.c
 * @brief libFuzzer target for SCHC decompression (wire/schc.h) and the
 *        rule text.
 *
 * The input is decompressed in both directions with a rule set that has
 * every matching operator and action; what decompresses is compressed
 * again (it must compress: the rules cover it or the no-compression rule
 * does) and decompressed once more to the same packet. The same bytes also
 * go through the rule text parser, which must either fail with one line
 * or give a set that compresses and decompresses an IPv6/UDP packet back.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire/schc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        if (!(cond))                                                                               \
            abort();                                                                               \
    } while (0)

static const char rules_text[] =
    "rule 1\n"
    "ipv6.ver bi equal not-sent 6\nipv6.tc bi ignore value-sent\n"
    "ipv6.fl bi msb(4) lsb 0\nipv6.len bi ignore compute\n"
    "ipv6.nxt bi equal not-sent 17\nipv6.hop bi match-mapping mapping-sent 1,64,255\n"
    "ipv6.devpre bi equal not-sent 0xfe80000000000000\nipv6.deviid up ignore value-sent\n"
    "ipv6.deviid down msb(56) lsb 0x0257520000000000\n"
    "ipv6.apppre bi ignore value-sent\nipv6.appiid bi equal not-sent 2\n"
    "udp.devport bi msb(12) lsb 0xf0b0\nudp.appport bi match-mapping mapping-sent 5683,5684\n"
    "udp.len bi ignore compute\nudp.cksum bi ignore compute\n"
    "rule 2\n"
    "ipv6.ver bi equal not-sent 6\nipv6.tc bi ignore value-sent\n"
    "ipv6.fl bi ignore value-sent\nipv6.len bi ignore value-sent\n"
    "ipv6.nxt bi ignore value-sent\nipv6.hop bi ignore value-sent\n"
    "ipv6.devpre bi ignore value-sent\nipv6.deviid bi ignore value-sent\n"
    "ipv6.apppre bi ignore value-sent\nipv6.appiid bi ignore value-sent\n"
    "rule 250 nocomp\n";

static void round_trip(const struct wren_schc_rules *rs, unsigned dir, const uint8_t *pkt, int n)
{
    static uint8_t c[2048 + 1], back[2048]; /* a packet of n bytes compresses to n + 1 at most */
    int m = wren_schc_compress(rs, dir, pkt, (size_t)n, c, sizeof(c));
    if (n < 40 || (pkt[0] >> 4) != 6) {
        REQUIRE(m == -SCHC_ERR_NOT_IPV6);
        return;
    }
    REQUIRE(m > 0);
    int k = wren_schc_decompress(rs, dir, c, (size_t)m, back, sizeof(back));
    REQUIRE(k == n && memcmp(back, pkt, (size_t)n) == 0);
}

static void rules_from_input(const uint8_t *data, size_t size)
{
    static struct wren_schc_rules rs;
    char err[100];
    err[0] = 1;
    int rc = wren_schc_rules_parse(&rs, (const char *)data, size, err, sizeof(err));
    REQUIRE(rc == 0 || rc == -22 /* EINVAL */ || rc == -28 /* ENOSPC */);
    REQUIRE(rc == 0 ? err[0] == 0 : strchr(err, '\n') == NULL && err[0] != 0);
    REQUIRE(rs.n_rules <= CONFIG_WREN_SCHC_RULES && rs.n_fields <= CONFIG_WREN_SCHC_FIELDS);
    if (rc == 0) {
        uint8_t out[128];
        (void)wren_schc_decompress(&rs, WREN_SCHC_UP, data, size, out, sizeof(out));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct wren_schc_rules rs;
    static uint8_t out[2048];
    if (rs.n_rules == 0) {
        REQUIRE(wren_schc_rules_parse(&rs, rules_text, sizeof(rules_text), NULL, 0) == 0);
    }
    for (unsigned dir = WREN_SCHC_UP; dir <= WREN_SCHC_DOWN; dir++) {
        int n = wren_schc_decompress(&rs, dir, data, size, out, sizeof(out));
        REQUIRE(n >= -SCHC_ERR_LENGTH && n != 0 - SCHC_ERR_NOT_IPV6);
        REQUIRE(n < 0 || (size_t)n <= size + 48);
        if (n > 0) {
            static uint8_t copy[2048];
            memcpy(copy, out, (size_t)n);
            round_trip(&rs, dir, copy, n);
        }
    }
    rules_from_input(data, size);
    return 0;
}

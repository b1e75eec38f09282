/**
 * @file fuzz_iphc.c
 * @brief libFuzzer target for the LOWPAN_IPHC / UDP NHC codec.
 *
 * Decode the input with each combination of short/extended (and missing)
 * link-layer addresses against a context table in which some contexts are
 * valid (one only for decompression, one with a prefix longer than 64 bits,
 * one that is not byte-aligned, one of length 0). If it decodes, the header
 * must lie inside the input; encode the result (the exact-size buffer works,
 * one byte less fails with nothing written), decode that again and require
 * every IPv6/UDP field to round-trip, and a second encode to give the same
 * bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire/sixlowpan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        if (!(cond))                                                                               \
            abort();                                                                               \
    } while (0)

static const uint8_t eui_src[8] = {0x00, 0x12, 0x4b, 0x00, 0x01, 0x02, 0x03, 0x04};
static const uint8_t eui_dst[8] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01};
static const uint8_t short_src[2] = {0x12, 0x34};
static const uint8_t short_dst[2] = {0xab, 0xcd};

/* clang-format off */
static const struct sixlowpan_ctx ctx[SIXLOWPAN_CTX_COUNT] = {
    [0] = {{0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01}, 64, true, true},
    [1] = {{0x20, 0x01, 0x0d, 0xb8, 0xff, 0xff, 0x00, 0x01, 0x00, 0x02, 0x00, 0x03}, 96, true,
           true},
    [2] = {{0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01, 0x00, 0x1f, 0xff, 0xff}, 60, true, true},
    [3] = {{0xfd, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}, 64, true, false},
    [4] = {{0x20, 0x01, 0x0d, 0xb8, 0xbe, 0xef}, 48, true, true},
    [5] = {{0x20, 0x01, 0x0d, 0xb8, 0x00, 0x05}, 64, false, true},
    [9] = {{0x20, 0x01, 0x0d, 0xb8, 0x00, 0x09, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x09}, 128, true, true},
    [15] = {{0}, 0, true, true},
};
/* clang-format on */

static void same_hdr(const struct sixlowpan_iphc *a, const struct sixlowpan_iphc *b)
{
    REQUIRE(a->ip.tc == b->ip.tc);
    REQUIRE(a->ip.flow == b->ip.flow);
    REQUIRE(a->ip.payload_len == 0 && b->ip.payload_len == 0);
    REQUIRE(a->ip.next == b->ip.next);
    REQUIRE(a->ip.hop_limit == b->ip.hop_limit);
    REQUIRE(memcmp(a->ip.src, b->ip.src, 16) == 0);
    REQUIRE(memcmp(a->ip.dst, b->ip.dst, 16) == 0);
    REQUIRE(a->udp == b->udp);
    REQUIRE(a->uh.src_port == b->uh.src_port);
    REQUIRE(a->uh.dst_port == b->uh.dst_port);
    REQUIRE(a->uh.len == 0 && b->uh.len == 0);
    /* an elided checksum decodes as 0 and is then carried inline as 0 */
    REQUIRE(a->uh.csum == b->uh.csum);
    REQUIRE(!b->udp_csum_elided);
}

static void one(const uint8_t *data, size_t size, const struct sixlowpan_l2 *l2,
                const struct sixlowpan_ctx *table)
{
    struct sixlowpan_iphc h, g;
    uint8_t e[SIXLOWPAN_IPHC_MAX_LEN + 1], e2[SIXLOWPAN_IPHC_MAX_LEN];
    int rc, n;

    rc = wren_sixlowpan_iphc_parse(data, size, l2, table, &h);
    REQUIRE(rc <= 0 && rc >= -SIXLOWPAN_ERR_NOBUFS);
    REQUIRE(wren_sixlowpan_strerror(rc) != NULL);
    if (rc)
        return;
    REQUIRE(h.hdr_len >= 2 && h.hdr_len <= size);
    REQUIRE(h.ip.next == 17 || !h.udp);
    REQUIRE(h.udp || (h.uh.src_port == 0 && h.uh.dst_port == 0 && h.uh.csum == 0));

    /* a prefix of the header never decodes */
    REQUIRE(wren_sixlowpan_iphc_parse(data, h.hdr_len - 1, l2, table, &g) == -SIXLOWPAN_ERR_TRUNCATED);

    const struct udp_hdr *uh = h.udp ? &h.uh : NULL;
    n = wren_sixlowpan_iphc_emit(&h.ip, uh, l2, table, NULL, 0);
    REQUIRE(n >= 2 && n <= SIXLOWPAN_IPHC_MAX_LEN);
    memset(e, 0xa5, sizeof(e));
    REQUIRE(wren_sixlowpan_iphc_emit(&h.ip, uh, l2, table, e, (size_t)n - 1) == -SIXLOWPAN_ERR_NOBUFS);
    for (size_t i = 0; i < sizeof(e); i++)
        REQUIRE(e[i] == 0xa5);
    REQUIRE(wren_sixlowpan_iphc_emit(&h.ip, uh, l2, table, e, (size_t)n) == n);
    REQUIRE(e[n] == 0xa5);

    REQUIRE(wren_sixlowpan_iphc_parse(e, (size_t)n, l2, table, &g) == 0);
    REQUIRE(g.hdr_len == (size_t)n);
    same_hdr(&h, &g);

    /* emit is a fixed point after one parse */
    REQUIRE(wren_sixlowpan_iphc_emit(&g.ip, g.udp ? &g.uh : NULL, l2, table, e2, sizeof(e2)) == n);
    REQUIRE(memcmp(e, e2, (size_t)n) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (unsigned k = 0; k < 4; k++) {
        struct sixlowpan_l2 l2 = {
            .src = k & 1 ? eui_src : short_src,
            .src_len = k & 1 ? 8 : 2,
            .dst = k & 2 ? eui_dst : short_dst,
            .dst_len = k & 2 ? 8 : 2,
        };
        one(data, size, &l2, ctx);
    }
    one(data, size, NULL, NULL);
    return 0;
}

/**
 * @file test_sixlowpan.c
 * @brief Unit tests for the 6LoWPAN wire formats: dispatch, FRAG1/FRAGN,
 *        IPHC and the UDP NHC (RFC 4944, RFC 6282).
 */
#include "wire/sixlowpan.h"

#include <stdint.h>
#include <string.h>

#include "core/byteorder.h"
#include "test.h"

#define TRUNC (-SIXLOWPAN_ERR_TRUNCATED)
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Link-layer addresses, canonical order. */
static const uint8_t eui_a[8] = {0x00, 0x12, 0x4b, 0x00, 0x01, 0x02, 0x03, 0x04};
static const uint8_t eui_b[8] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01};
static const uint8_t short_a[2] = {0x12, 0x34};
static const uint8_t short_b[2] = {0x56, 0x78};

/* clang-format off */
static const uint8_t pfx_src[8] = {0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01, 0x00, 0x00};
static const uint8_t pfx_dst[8] = {0x20, 0x01, 0x0d, 0xb8, 0x00, 0x02, 0x00, 0x00};
static const uint8_t pfx_mc[8]  = {0x20, 0x01, 0x0d, 0xb8, 0xbe, 0xef, 0x00, 0x00};
/* clang-format on */

static struct sixlowpan_ctx ctx[SIXLOWPAN_CTX_COUNT];

/* 0: 2001:db8:1::/64, 3: 2001:db8:2::/64, 9: 2001:db8:beef::/64 (all
 * compress); 5: 2001:db8:ffff:1:2:3::/96; 7: fd00::/8 valid but not for
 * compression; 11: 2001:db8:1::/48, shorter than 0 (never preferred). */
static void ctx_reset(void)
{
    memset(ctx, 0, sizeof(ctx));
    memcpy(ctx[0].prefix, pfx_src, 8);
    ctx[0].prefix_len = 64;
    memcpy(ctx[3].prefix, pfx_dst, 8);
    ctx[3].prefix_len = 64;
    memcpy(ctx[9].prefix, pfx_mc, 8);
    ctx[9].prefix_len = 64;
    static const uint8_t p5[12] = {0x20, 0x01, 0x0d, 0xb8, 0xff, 0xff,
                                   0x00, 0x01, 0x00, 0x02, 0x00, 0x03};
    memcpy(ctx[5].prefix, p5, sizeof(p5));
    ctx[5].prefix_len = 96;
    ctx[7].prefix[0] = 0xfd;
    ctx[7].prefix_len = 8;
    memcpy(ctx[11].prefix, pfx_src, 6);
    ctx[11].prefix_len = 48;
    for (int i = 0; i < SIXLOWPAN_CTX_COUNT; i++) {
        ctx[i].valid = ctx[i].prefix_len != 0;
        ctx[i].compress = ctx[i].valid && i != 7;
    }
}

/* RFC 6282 3.2.2, written out independently of the codec. */
static void iid_from_l2(uint8_t *iid, const uint8_t *l2, size_t len)
{
    memset(iid, 0, 8);
    if (len == 8) {
        memcpy(iid, l2, 8);
        iid[0] ^= 0x02;
    } else {
        iid[3] = 0xff;
        iid[4] = 0xfe;
        iid[6] = l2[0];
        iid[7] = l2[1];
    }
}

static void set_addr(uint8_t *a, const char *hex)
{
    CHECK(strlen(hex) == 32); /* a bad address literal */
    for (int i = 0; i < 16; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        a[i] = (uint8_t)v;
    }
}

/* ---- dispatch ------------------------------------------------------- */

TEST(test_sixlowpan_dispatch__every_byte)
{
    for (unsigned b = 0; b < 256; b++) {
        enum wren_sixlowpan_dispatch want;
        if (b < 0x40)
            want = SIXLOWPAN_DISPATCH_NALP;
        else if (b == 0x41)
            want = SIXLOWPAN_DISPATCH_IPV6;
        else if (b >= 0x60 && b <= 0x7f)
            want = SIXLOWPAN_DISPATCH_IPHC;
        else if (b >= 0x80 && b <= 0xbf)
            want = SIXLOWPAN_DISPATCH_MESH;
        else if (b >= 0xc0 && b <= 0xc7)
            want = SIXLOWPAN_DISPATCH_FRAG1;
        else if (b >= 0xe0 && b <= 0xe7)
            want = SIXLOWPAN_DISPATCH_FRAGN;
        else
            want = SIXLOWPAN_DISPATCH_UNSUPPORTED;
        CHECK_EQ(wren_sixlowpan_dispatch((uint8_t)b), want);
    }
}

TEST(test_sixlowpan_dispatch__named_values)
{
    CHECK_EQ(wren_sixlowpan_dispatch(0x40), SIXLOWPAN_DISPATCH_UNSUPPORTED); /* ESC */
    CHECK_EQ(wren_sixlowpan_dispatch(0x42), SIXLOWPAN_DISPATCH_UNSUPPORTED); /* HC1 */
    CHECK_EQ(wren_sixlowpan_dispatch(0x50), SIXLOWPAN_DISPATCH_UNSUPPORTED); /* BC0 */
    CHECK_EQ(wren_sixlowpan_dispatch(0x7f), SIXLOWPAN_DISPATCH_IPHC);
    CHECK_EQ(wren_sixlowpan_dispatch(0xc8), SIXLOWPAN_DISPATCH_UNSUPPORTED);
    CHECK_EQ(wren_sixlowpan_dispatch(0xf0), SIXLOWPAN_DISPATCH_UNSUPPORTED);
}

/* ---- fragment headers ----------------------------------------------- */

TEST(test_sixlowpan_frag_parse__frag1)
{
    static const uint8_t b[] = {0xc5, 0x00, 0x12, 0x34, 0x7f};
    struct sixlowpan_frag f;

    CHECK_EQ(wren_sixlowpan_frag_parse(b, sizeof(b), &f), SIXLOWPAN_FRAG1_LEN);
    CHECK(f.first);
    CHECK_EQ(f.size, 1280);
    CHECK_EQ(f.tag, 0x1234);
    CHECK_EQ(f.offset, 0);
    CHECK_EQ(wren_sixlowpan_frag_len(&f), 4);
}

TEST(test_sixlowpan_frag_parse__fragn)
{
    static const uint8_t b[] = {0xe7, 0xff, 0xab, 0xcd, 0x0c};
    struct sixlowpan_frag f;

    CHECK_EQ(wren_sixlowpan_frag_parse(b, sizeof(b), &f), SIXLOWPAN_FRAGN_LEN);
    CHECK(!f.first);
    CHECK_EQ(f.size, 2047);
    CHECK_EQ(f.tag, 0xabcd);
    CHECK_EQ(f.offset, 96);
    CHECK_EQ(wren_sixlowpan_frag_len(&f), 5);
}

TEST(test_sixlowpan_frag_parse__shorter_than_header)
{
    static const uint8_t f1[] = {0xc5, 0x00, 0x12, 0x34};
    static const uint8_t fn[] = {0xe5, 0x00, 0x12, 0x34, 0x01};
    struct sixlowpan_frag f;

    for (size_t n = 0; n < sizeof(f1); n++)
        CHECK_EQ(wren_sixlowpan_frag_parse(f1, n, &f), TRUNC);
    for (size_t n = 0; n < sizeof(fn); n++)
        CHECK_EQ(wren_sixlowpan_frag_parse(fn, n, &f), TRUNC);
    CHECK_EQ(wren_sixlowpan_frag_parse(f1, sizeof(f1), &f), 4);
    CHECK_EQ(wren_sixlowpan_frag_parse(fn, sizeof(fn), &f), 5);
}

TEST(test_sixlowpan_frag_parse__size_below_40)
{
    uint8_t b[] = {0xc0, 39, 0x00, 0x01, 0x00};
    struct sixlowpan_frag f;

    CHECK_EQ(wren_sixlowpan_frag_parse(b, sizeof(b), &f), -SIXLOWPAN_ERR_FRAG_SIZE);
    b[1] = 0;
    CHECK_EQ(wren_sixlowpan_frag_parse(b, sizeof(b), &f), -SIXLOWPAN_ERR_FRAG_SIZE);
    b[0] = 0xe0;
    CHECK_EQ(wren_sixlowpan_frag_parse(b, sizeof(b), &f), -SIXLOWPAN_ERR_FRAG_SIZE);
    b[1] = 40;
    CHECK_EQ(wren_sixlowpan_frag_parse(b, sizeof(b), &f), 5);
    b[0] = 0xc0;
    CHECK_EQ(wren_sixlowpan_frag_parse(b, sizeof(b), &f), 4);
    CHECK_EQ(f.size, 40);
}

TEST(test_sixlowpan_frag_parse__not_a_fragment)
{
    static const uint8_t bad[] = {0x41, 0x7f, 0xc8, 0xd0, 0xe8, 0x80, 0x00};
    uint8_t b[5] = {0, 0x80, 0, 0, 0};
    struct sixlowpan_frag f;

    for (size_t i = 0; i < sizeof(bad); i++) {
        b[0] = bad[i];
        CHECK_EQ(wren_sixlowpan_frag_parse(b, sizeof(b), &f), -SIXLOWPAN_ERR_DISPATCH);
    }
}

TEST(test_sixlowpan_frag_emit__vectors)
{
    struct sixlowpan_frag f1 = {.size = 1280, .tag = 0x1234, .offset = 0, .first = true};
    struct sixlowpan_frag fn = {.size = 2047, .tag = 0xabcd, .offset = 96, .first = false};
    static const uint8_t w1[] = {0xc5, 0x00, 0x12, 0x34};
    static const uint8_t wn[] = {0xe7, 0xff, 0xab, 0xcd, 0x0c};
    uint8_t b[8];

    CHECK_EQ(wren_sixlowpan_frag_emit(&f1, b, sizeof(b)), 4);
    CHECK_MEM(b, w1, 4);
    CHECK_EQ(wren_sixlowpan_frag_emit(&fn, b, 5), 5);
    CHECK_MEM(b, wn, 5);
}

TEST(test_sixlowpan_frag_emit__round_trip_all_sizes_offsets)
{
    uint8_t b[5];
    struct sixlowpan_frag f, g;

    for (unsigned size = 40; size <= SIXLOWPAN_FRAG_MAX_SIZE; size++) {
        f = (struct sixlowpan_frag){
            .size = (uint16_t)size, .tag = (uint16_t)(size * 31), .first = true};
        CHECK_EQ(wren_sixlowpan_frag_emit(&f, b, sizeof(b)), 4);
        CHECK_EQ(wren_sixlowpan_frag_parse(b, 4, &g), 4);
        CHECK(g.first && g.size == f.size && g.tag == f.tag && g.offset == 0);
    }
    for (unsigned off = 0; off <= 2040; off += 8) {
        f = (struct sixlowpan_frag){.size = 2047, .tag = (uint16_t)~off, .offset = (uint16_t)off};
        CHECK_EQ(wren_sixlowpan_frag_emit(&f, b, sizeof(b)), 5);
        CHECK_EQ(wren_sixlowpan_frag_parse(b, 5, &g), 5);
        CHECK(!g.first && g.size == 2047 && g.tag == f.tag && g.offset == off);
    }
}

TEST(test_sixlowpan_frag_emit__bad_size)
{
    struct sixlowpan_frag f = {.size = 39, .first = true};
    uint8_t b[5];

    CHECK_EQ(wren_sixlowpan_frag_emit(&f, b, sizeof(b)), -SIXLOWPAN_ERR_FRAG_SIZE);
    f.size = 2048;
    CHECK_EQ(wren_sixlowpan_frag_emit(&f, b, sizeof(b)), -SIXLOWPAN_ERR_FRAG_SIZE);
    f.first = false;
    CHECK_EQ(wren_sixlowpan_frag_emit(&f, b, sizeof(b)), -SIXLOWPAN_ERR_FRAG_SIZE);
}

TEST(test_sixlowpan_frag_emit__bad_offset)
{
    struct sixlowpan_frag f = {.size = 100, .offset = 8, .first = true};
    uint8_t b[5];

    CHECK_EQ(wren_sixlowpan_frag_emit(&f, b, sizeof(b)), -SIXLOWPAN_ERR_FRAG_OFFSET);
    f.first = false;
    f.offset = 4;
    CHECK_EQ(wren_sixlowpan_frag_emit(&f, b, sizeof(b)), -SIXLOWPAN_ERR_FRAG_OFFSET);
    f.offset = 2048;
    CHECK_EQ(wren_sixlowpan_frag_emit(&f, b, sizeof(b)), -SIXLOWPAN_ERR_FRAG_OFFSET);
}

TEST(test_sixlowpan_frag_emit__buffer_too_small)
{
    struct sixlowpan_frag f1 = {.size = 100, .tag = 1, .first = true};
    struct sixlowpan_frag fn = {.size = 100, .tag = 1, .offset = 16};
    uint8_t b[5];

    for (size_t n = 0; n < 4; n++) {
        memset(b, 0xaa, sizeof(b));
        CHECK_EQ(wren_sixlowpan_frag_emit(&f1, b, n), -SIXLOWPAN_ERR_NOBUFS);
        CHECK_EQ(b[0], 0xaa);
    }
    for (size_t n = 0; n < 5; n++) {
        memset(b, 0xaa, sizeof(b));
        CHECK_EQ(wren_sixlowpan_frag_emit(&fn, b, n), -SIXLOWPAN_ERR_NOBUFS);
        CHECK_EQ(b[0], 0xaa);
    }
}

/* ---- IPHC: exact byte vectors --------------------------------------- */

static void check_hdr_eq(const struct ipv6_hdr *a, const struct ipv6_hdr *b)
{
    CHECK_EQ(a->tc, b->tc);
    CHECK_EQ(a->flow, b->flow);
    CHECK_EQ(a->payload_len, b->payload_len);
    CHECK_EQ(a->next, b->next);
    CHECK_EQ(a->hop_limit, b->hop_limit);
    CHECK_MEM(a->src, b->src, 16);
    CHECK_MEM(a->dst, b->dst, 16);
}

/* Encode, compare with the expected bytes, decode, compare with ip/uh. */
static void check_vector(const struct ipv6_hdr *ip, const struct udp_hdr *uh,
                         const struct sixlowpan_l2 *l2, const uint8_t *want, size_t want_len)
{
    uint8_t b[SIXLOWPAN_IPHC_MAX_LEN];
    struct sixlowpan_iphc h;

    CHECK_EQ(wren_sixlowpan_iphc_emit(ip, uh, l2, ctx, b, sizeof(b)), (int)want_len);
    CHECK_MEM(b, want, want_len);
    CHECK_EQ(wren_sixlowpan_iphc_parse(want, want_len, l2, ctx, &h), 0);
    CHECK_EQ(h.hdr_len, want_len);
    check_hdr_eq(&h.ip, ip);
    CHECK_EQ(h.udp, uh != NULL && ip->next == IPV6_NH_UDP);
    if (h.udp) {
        CHECK_EQ(h.uh.src_port, uh->src_port);
        CHECK_EQ(h.uh.dst_port, uh->dst_port);
        CHECK_EQ(h.uh.csum, uh->csum);
        CHECK_EQ(h.uh.len, 0);
        CHECK(!h.udp_csum_elided);
    }
}

/* Link-local UDP, everything from the MAC addresses: the smallest header. */
TEST(test_sixlowpan_iphc_emit__link_local_udp_fully_compressed)
{
    struct ipv6_hdr ip = {.next = IPV6_NH_UDP, .hop_limit = 255};
    struct udp_hdr uh = {.src_port = 0xf0b1, .dst_port = 0xf0b2, .csum = 0xbeef};
    struct sixlowpan_l2 l2 = {eui_a, 8, eui_b, 8};
    static const uint8_t want[] = {0x7f, 0x33, 0xf3, 0x12, 0xbe, 0xef};

    ctx_reset();
    set_addr(ip.src, "fe8000000000000002124b0001020304");
    set_addr(ip.dst, "fe800000000000000000000000000001");
    check_vector(&ip, &uh, &l2, want, sizeof(want));
}

/* Global addresses from two contexts (CID byte), short MAC addresses. */
TEST(test_sixlowpan_iphc_emit__global_with_contexts)
{
    struct ipv6_hdr ip = {.next = IPV6_NH_ICMPV6, .hop_limit = 64};
    struct sixlowpan_l2 l2 = {short_a, 2, short_b, 2};
    /* TF=11 NH inline HLIM=64 | CID SAC=1 SAM=11 M=0 DAC=1 DAM=10, SCI 0
     * DCI 3, next header 58, 16 bits of dst */
    static const uint8_t want[] = {0x7a, 0xf6, 0x03, 0x3a, 0xbe, 0xef};

    ctx_reset();
    set_addr(ip.src, "20010db800010000000000fffe001234");
    set_addr(ip.dst, "20010db800020000000000fffe00beef");
    check_vector(&ip, NULL, &l2, want, sizeof(want));
}

/* TF=01 (ECN + flow label), 64-bit link-local IID, ff02::1a, UDP inline ports. */
TEST(test_sixlowpan_iphc_emit__tf01_multicast_8bit)
{
    struct ipv6_hdr ip = {.tc = 0x02, .flow = 0x12345, .next = IPV6_NH_UDP, .hop_limit = 1};
    struct udp_hdr uh = {.src_port = 5683, .dst_port = 5683, .csum = 0x0102};
    struct sixlowpan_l2 l2 = {short_a, 2, short_b, 2};
    static const uint8_t want[] = {0x6d, 0x1b, 0x81, 0x23, 0x45, 0,    0,    0,    0,    0,   0,
                                   0,    1,    0x1a, 0xf0, 0x16, 0x33, 0x16, 0x33, 0x01, 0x02};

    ctx_reset();
    set_addr(ip.src, "fe800000000000000000000000000001");
    set_addr(ip.dst, "ff02000000000000000000000000001a");
    check_vector(&ip, &uh, &l2, want, sizeof(want));
}

/* TF=00 with DSCP EF + ECN 01, unspecified source, 128-bit destination. */
TEST(test_sixlowpan_iphc_emit__tf00_unspecified_src_inline_dst)
{
    struct ipv6_hdr ip = {.tc = 0xb9, .flow = 0xabcde, .next = IPV6_NH_TCP, .hop_limit = 17};
    struct sixlowpan_l2 l2 = {eui_a, 8, eui_b, 8};
    static const uint8_t want[] = {0x60, 0x40, 0x6e, 0x0a, 0xbc, 0xde, 0x06, 0x11,
                                   0x20, 0x01, 0x0d, 0xb8, 0,    0,    0,    0,
                                   0,    0,    0,    0,    0,    0,    0,    1};

    ctx_reset();
    set_addr(ip.dst, "20010db8000000000000000000000001");
    check_vector(&ip, NULL, &l2, want, sizeof(want));
}

/* TF=10 (DSCP only), 16-bit link-local source, RFC 3306 multicast from a
 * context (M=1 DAC=1), UDP next header carried inline. */
TEST(test_sixlowpan_iphc_emit__tf10_unicast_prefix_multicast)
{
    struct ipv6_hdr ip = {.tc = 0xb8, .next = IPV6_NH_UDP, .hop_limit = 255};
    struct sixlowpan_l2 l2 = {eui_a, 8, eui_b, 8};
    static const uint8_t want[] = {0x73, 0xac, 0x09, 0x2e, 0x11, 0xab, 0xcd,
                                   0x3e, 0x00, 0x12, 0x34, 0x56, 0x78};

    ctx_reset();
    set_addr(ip.src, "fe80000000000000000000fffe00abcd");
    set_addr(ip.dst, "ff3e004020010db8beef000012345678");
    check_vector(&ip, NULL, &l2, want, sizeof(want));
}

/* A context longer than 64 bits overrides IID bits derived from the MAC. */
TEST(test_sixlowpan_iphc_parse__context_longer_than_64_bits)
{
    static const uint8_t b[] = {0x7b, 0xf3, 0x50, 0x3b};
    struct sixlowpan_l2 l2 = {short_a, 2, eui_b, 8};
    struct sixlowpan_iphc h;
    uint8_t src[16], dst[16], out[SIXLOWPAN_IPHC_MAX_LEN];

    ctx_reset();
    /* ctx 5 covers 96 bits; fe00:1234 of the short-address IID remains */
    set_addr(src, "20010db8ffff000100020003fe001234");
    set_addr(dst, "fe800000000000000000000000000001");
    CHECK_EQ(wren_sixlowpan_iphc_parse(b, sizeof(b), &l2, ctx, &h), 0);
    CHECK_EQ(h.hdr_len, 4);
    CHECK_MEM(h.ip.src, src, 16);
    CHECK_MEM(h.ip.dst, dst, 16);
    CHECK_EQ(h.ip.next, IPV6_NH_NONE);
    CHECK_EQ(h.ip.hop_limit, 255);
    CHECK(!h.udp);
    /* and the encoder finds the same form */
    CHECK_EQ(wren_sixlowpan_iphc_emit(&h.ip, NULL, &l2, ctx, out, sizeof(out)), 4);
    CHECK_MEM(out, b, 4);
}

/* Prefix bits beyond prefix_len are ignored; bits between a short prefix
 * and 64 are zero (RFC 6282 3.1.1 "any remaining bits are zero"). */
TEST(test_sixlowpan_iphc__context_prefix_not_byte_aligned)
{
    struct ipv6_hdr ip = {.next = IPV6_NH_NONE, .hop_limit = 64}, ip2;
    struct sixlowpan_l2 l2 = {short_a, 2, short_b, 2};
    struct sixlowpan_iphc h;
    uint8_t b[SIXLOWPAN_IPHC_MAX_LEN];
    int n;

    memset(ctx, 0, sizeof(ctx)); /* only this context */
    set_addr(ctx[2].prefix, "20010db80001001fffffffffffffffff"); /* garbage after /60 */
    ctx[2].prefix_len = 60;
    ctx[2].valid = ctx[2].compress = true;
    set_addr(ip.src, "20010db80001001000000000000000aa");
    set_addr(ip.dst, "fe800000000000000000000000000001");
    n = wren_sixlowpan_iphc_emit(&ip, NULL, &l2, ctx, b, sizeof(b));
    CHECK_EQ(n, 2 + 1 + 1 + 8 + 8); /* CID, NH, src 64 bits, dst 64 bits */
    CHECK_EQ(b[1] & 0xf0, 0xd0);    /* CID SAC=1 SAM=01 */
    CHECK_EQ(b[2], 0x20);
    CHECK_EQ(wren_sixlowpan_iphc_parse(b, (size_t)n, &l2, ctx, &h), 0);
    check_hdr_eq(&h.ip, &ip);
    /* bits 60..63 set: not derivable from the /60 context -> inline */
    ip2 = ip;
    ip2.src[7] = 0x1f;
    n = wren_sixlowpan_iphc_emit(&ip2, NULL, &l2, ctx, b, sizeof(b));
    CHECK_EQ(n, 2 + 1 + 16 + 8);
    CHECK_EQ(b[1] & 0xf0, 0x00);
    CHECK_EQ(wren_sixlowpan_iphc_parse(b, (size_t)n, &l2, ctx, &h), 0);
    check_hdr_eq(&h.ip, &ip2);
}

TEST(test_sixlowpan_iphc_emit__longest_matching_context)
{
    struct ipv6_hdr ip = {.next = IPV6_NH_NONE, .hop_limit = 64};
    struct sixlowpan_l2 l2 = {short_a, 2, short_b, 2};
    uint8_t b[SIXLOWPAN_IPHC_MAX_LEN];

    ctx_reset();
    /* ctx 11 (/48) and ctx 0 (/64) both match: the /64 one is used */
    set_addr(ip.src, "20010db8000100000000000000000abc");
    set_addr(ip.dst, "fe80000000000000000000fffe009999");
    CHECK_EQ(wren_sixlowpan_iphc_emit(&ip, NULL, &l2, ctx, b, sizeof(b)), 2 + 1 + 8 + 2);
    CHECK_EQ(b[1], 0x52); /* SAC=1 SAM=01, no CID: context 0; DAM=10 */
    /* with ctx 0 gone, the /48 one (CID 11) */
    ctx[0].valid = false;
    CHECK_EQ(wren_sixlowpan_iphc_emit(&ip, NULL, &l2, ctx, b, sizeof(b)), 2 + 1 + 1 + 8 + 2);
    CHECK_EQ(b[1], 0xd2);
    CHECK_EQ(b[2], 0xb0);
    /* a context not marked for compression is only used to decompress */
    ctx[11].compress = false;
    CHECK_EQ(wren_sixlowpan_iphc_emit(&ip, NULL, &l2, ctx, b, sizeof(b)), 2 + 1 + 16 + 2);
    ctx[11].compress = true;
    ctx[11].valid = false;
    CHECK_EQ(wren_sixlowpan_iphc_emit(&ip, NULL, &l2, ctx, b, sizeof(b)), 2 + 1 + 16 + 2);
    /* no table at all */
    CHECK_EQ(wren_sixlowpan_iphc_emit(&ip, NULL, &l2, NULL, b, sizeof(b)), 2 + 1 + 16 + 2);
}

TEST(test_sixlowpan_iphc_parse__udp_checksum_elided)
{
    static const uint8_t b[] = {0x7f, 0x33, 0xf7, 0x12, 'h', 'i'};
    struct sixlowpan_l2 l2 = {eui_a, 8, eui_b, 8};
    struct sixlowpan_iphc h;

    CHECK_EQ(wren_sixlowpan_iphc_parse(b, sizeof(b), &l2, NULL, &h), 0);
    CHECK_EQ(h.hdr_len, 4);
    CHECK(h.udp);
    CHECK(h.udp_csum_elided);
    CHECK_EQ(h.uh.src_port, 0xf0b1);
    CHECK_EQ(h.uh.dst_port, 0xf0b2);
    CHECK_EQ(h.uh.csum, 0);
    CHECK_EQ(h.ip.next, IPV6_NH_UDP);
    CHECK_EQ(h.ip.payload_len, 0);
}

TEST(test_sixlowpan_iphc_parse__udp_port_forms)
{
    /* link-local from MAC, PP=01 and PP=10, checksum inline */
    static const uint8_t p1[] = {0x7f, 0x33, 0xf1, 0x04, 0xd2, 0x12, 0xaa, 0xbb};
    static const uint8_t p2[] = {0x7f, 0x33, 0xf2, 0x34, 0x16, 0x33, 0xaa, 0xbb};
    struct sixlowpan_l2 l2 = {eui_a, 8, eui_b, 8};
    struct sixlowpan_iphc h;

    CHECK_EQ(wren_sixlowpan_iphc_parse(p1, sizeof(p1), &l2, NULL, &h), 0);
    CHECK_EQ(h.uh.src_port, 1234);
    CHECK_EQ(h.uh.dst_port, 0xf012);
    CHECK_EQ(h.uh.csum, 0xaabb);
    CHECK_EQ(h.hdr_len, sizeof(p1));
    CHECK_EQ(wren_sixlowpan_iphc_parse(p2, sizeof(p2), &l2, NULL, &h), 0);
    CHECK_EQ(h.uh.src_port, 0xf034);
    CHECK_EQ(h.uh.dst_port, 5683);
    CHECK_EQ(h.hdr_len, sizeof(p2));
}

TEST(test_sixlowpan_iphc_parse__tf_reserved_bits_ignored)
{
    /* TF=00 and TF=01 with their pad bits set */
    static const uint8_t b0[] = {0x63, 0x33, 0x6e, 0xfa, 0xbc, 0xde, 0x3b};
    static const uint8_t b1[] = {0x6b, 0x33, 0xb1, 0x23, 0x45, 0x3b};
    struct sixlowpan_l2 l2 = {eui_a, 8, eui_b, 8};
    struct sixlowpan_iphc h;

    CHECK_EQ(wren_sixlowpan_iphc_parse(b0, sizeof(b0), &l2, NULL, &h), 0);
    CHECK_EQ(h.ip.tc, 0xb9);
    CHECK_EQ(h.ip.flow, 0xabcde);
    CHECK_EQ(wren_sixlowpan_iphc_parse(b1, sizeof(b1), &l2, NULL, &h), 0);
    CHECK_EQ(h.ip.tc, 0x02);
    CHECK_EQ(h.ip.flow, 0x12345);
}

/* ---- IPHC: errors ---------------------------------------------------- */

TEST(test_sixlowpan_iphc_parse__empty_and_dispatch)
{
    static const uint8_t b[] = {0x41, 0x33};
    static const uint8_t iphc[] = {0x7f, 0x33};
    struct sixlowpan_iphc h;

    CHECK_EQ(wren_sixlowpan_iphc_parse(b, 0, NULL, NULL, &h), TRUNC);
    CHECK_EQ(wren_sixlowpan_iphc_parse(b, sizeof(b), NULL, NULL, &h), -SIXLOWPAN_ERR_DISPATCH);
    CHECK_EQ(wren_sixlowpan_iphc_parse(iphc, 1, NULL, NULL, &h), TRUNC);
}

TEST(test_sixlowpan_iphc_parse__missing_cid_byte)
{
    static const uint8_t b[] = {0x7b, 0xb3};
    struct sixlowpan_l2 l2 = {eui_a, 8, eui_b, 8};
    struct sixlowpan_iphc h;

    ctx_reset();
    CHECK_EQ(wren_sixlowpan_iphc_parse(b, sizeof(b), &l2, ctx, &h), TRUNC);
}

TEST(test_sixlowpan_iphc_parse__reserved_modes)
{
    /* M=0 DAC=1 DAM=00; M=1 DAC=1 DAM=01..11 */
    static const uint8_t dm[] = {0x04, 0x0d, 0x0e, 0x0f};
    uint8_t b[40] = {0x7b, 0x00, 0x3b};
    struct sixlowpan_iphc h;

    ctx_reset();
    for (size_t i = 0; i < sizeof(dm); i++) {
        b[1] = dm[i];
        CHECK_EQ(wren_sixlowpan_iphc_parse(b, sizeof(b), NULL, ctx, &h), -SIXLOWPAN_ERR_RESERVED);
    }
}

TEST(test_sixlowpan_iphc_parse__unknown_context)
{
    uint8_t b[40] = {0x7b, 0, 0, 0x3b};
    struct sixlowpan_l2 l2 = {eui_a, 8, eui_b, 8};
    struct sixlowpan_iphc h;

    ctx_reset();
    /* SAC=1 SAM=01 without a table, and with SCI 2 (not valid) */
    b[1] = 0x50;
    CHECK_EQ(wren_sixlowpan_iphc_parse(b, sizeof(b), &l2, NULL, &h), -SIXLOWPAN_ERR_CONTEXT);
    b[1] = 0xd0;
    b[2] = 0x20;
    CHECK_EQ(wren_sixlowpan_iphc_parse(b, sizeof(b), &l2, ctx, &h), -SIXLOWPAN_ERR_CONTEXT);
    b[2] = 0x00; /* context 0 is valid */
    CHECK_EQ(wren_sixlowpan_iphc_parse(b, sizeof(b), &l2, ctx, &h), 0);
    /* DAC=1 with DCI 4, and M=1 DAC=1 DAM=00 with DCI 15 */
    b[1] = 0x87;
    b[2] = 0x04;
    CHECK_EQ(wren_sixlowpan_iphc_parse(b, sizeof(b), &l2, ctx, &h), -SIXLOWPAN_ERR_CONTEXT);
    b[1] = 0x8c;
    b[2] = 0x0f;
    CHECK_EQ(wren_sixlowpan_iphc_parse(b, sizeof(b), &l2, ctx, &h), -SIXLOWPAN_ERR_CONTEXT);
    b[2] = 0x09;
    CHECK_EQ(wren_sixlowpan_iphc_parse(b, sizeof(b), &l2, ctx, &h), 0);
    /* a context valid for compression only counts when valid */
    ctx[9].valid = false;
    CHECK_EQ(wren_sixlowpan_iphc_parse(b, sizeof(b), &l2, ctx, &h), -SIXLOWPAN_ERR_CONTEXT);
    /* context 7 is valid but not for compression: decompression uses it */
    b[2] = 0x07;
    b[1] = 0x87;
    CHECK_EQ(wren_sixlowpan_iphc_parse(b, sizeof(b), &l2, ctx, &h), 0);
    CHECK_EQ(h.ip.dst[0], 0xfd);
}

TEST(test_sixlowpan_iphc_parse__unspecified_needs_no_context)
{
    static const uint8_t b[] = {0x7b, 0x43, 0x3a}; /* SAC=1 SAM=00, DAM=11 */
    struct sixlowpan_l2 l2 = {eui_a, 8, eui_b, 8};
    struct sixlowpan_iphc h;
    static const uint8_t zero[16];

    CHECK_EQ(wren_sixlowpan_iphc_parse(b, sizeof(b), &l2, NULL, &h), 0);
    CHECK_MEM(h.ip.src, zero, 16);
    CHECK_EQ(h.ip.dst[15], 0x01);
}

TEST(test_sixlowpan_iphc_parse__no_link_layer_address)
{
    static const uint8_t s[] = {0x7b, 0x32, 0x3a, 0x00, 0x01}; /* SAM=11 */
    static const uint8_t d[] = {0x7b, 0x23, 0x3a, 0x00, 0x01}; /* DAM=11 */
    static const uint8_t four[4] = {1, 2, 3, 4};
    struct sixlowpan_l2 l2 = {four, 4, four, 4};
    struct sixlowpan_iphc h;

    CHECK_EQ(wren_sixlowpan_iphc_parse(s, sizeof(s), NULL, NULL, &h), -SIXLOWPAN_ERR_L2ADDR);
    CHECK_EQ(wren_sixlowpan_iphc_parse(d, sizeof(d), NULL, NULL, &h), -SIXLOWPAN_ERR_L2ADDR);
    CHECK_EQ(wren_sixlowpan_iphc_parse(s, sizeof(s), &l2, NULL, &h), -SIXLOWPAN_ERR_L2ADDR);
    CHECK_EQ(wren_sixlowpan_iphc_parse(d, sizeof(d), &l2, NULL, &h), -SIXLOWPAN_ERR_L2ADDR);
    l2.src_len = 2;
    CHECK_EQ(wren_sixlowpan_iphc_parse(s, sizeof(s), &l2, NULL, &h), 0);
    CHECK_EQ(wren_sixlowpan_iphc_parse(d, sizeof(d), &l2, NULL, &h), -SIXLOWPAN_ERR_L2ADDR);
    /* truncation is reported first */
    CHECK_EQ(wren_sixlowpan_iphc_parse(d, 4, &l2, NULL, &h), TRUNC);
}

TEST(test_sixlowpan_iphc_parse__unsupported_nhc)
{
    /* extension header NHC (1110 EID N), and bytes that are no NHC at all */
    static const uint8_t nhc[] = {0xe0, 0xe1, 0xee, 0xef, 0xf8, 0xff, 0x00, 0x11};
    uint8_t b[16] = {0x7f, 0x33};
    struct sixlowpan_l2 l2 = {eui_a, 8, eui_b, 8};
    struct sixlowpan_iphc h;

    for (size_t i = 0; i < sizeof(nhc); i++) {
        b[2] = nhc[i];
        CHECK_EQ(wren_sixlowpan_iphc_parse(b, sizeof(b), &l2, NULL, &h), -SIXLOWPAN_ERR_NHC);
    }
    CHECK_EQ(wren_sixlowpan_iphc_parse(b, 2, &l2, NULL, &h), TRUNC);
}

TEST(test_sixlowpan_iphc_emit__buffer_too_small)
{
    struct ipv6_hdr ip = {.tc = 0xb9, .flow = 1, .next = IPV6_NH_UDP, .hop_limit = 7};
    struct udp_hdr uh = {.src_port = 1, .dst_port = 2, .csum = 3};
    uint8_t b[SIXLOWPAN_IPHC_MAX_LEN + 1];
    int n;

    ctx_reset();
    set_addr(ip.src, "20010db8999900000000000000000001");
    set_addr(ip.dst, "ff0e0001000000000000000000000001");
    n = wren_sixlowpan_iphc_emit(&ip, &uh, NULL, ctx, NULL, 0);
    CHECK_EQ(n, SIXLOWPAN_IPHC_MAX_LEN); /* the longest form there is */
    for (int k = 0; k < n; k++) {
        memset(b, 0xaa, sizeof(b));
        CHECK_EQ(wren_sixlowpan_iphc_emit(&ip, &uh, NULL, ctx, b, (size_t)k), -SIXLOWPAN_ERR_NOBUFS);
        for (size_t i = 0; i < sizeof(b); i++)
            CHECK_EQ(b[i], 0xaa);
    }
    CHECK_EQ(wren_sixlowpan_iphc_emit(&ip, &uh, NULL, ctx, b, (size_t)n), n);
    CHECK_EQ(b[n], 0xaa);
}

TEST(test_sixlowpan_iphc_emit__next_header_inline_without_udp_header)
{
    struct ipv6_hdr ip = {.next = IPV6_NH_UDP, .hop_limit = 64};
    struct udp_hdr uh = {.src_port = 1, .dst_port = 2};
    struct sixlowpan_l2 l2 = {eui_a, 8, eui_b, 8};
    uint8_t b[SIXLOWPAN_IPHC_MAX_LEN];

    set_addr(ip.src, "fe8000000000000002124b0001020304");
    set_addr(ip.dst, "fe800000000000000000000000000001");
    CHECK_EQ(wren_sixlowpan_iphc_emit(&ip, NULL, &l2, NULL, b, sizeof(b)), 3);
    CHECK_EQ(b[0], 0x7a);
    CHECK_EQ(b[2], IPV6_NH_UDP);
    ip.next = IPV6_NH_ICMPV6; /* a UDP header with another next header is ignored */
    CHECK_EQ(wren_sixlowpan_iphc_emit(&ip, &uh, &l2, NULL, b, sizeof(b)), 3);
    CHECK_EQ(b[2], IPV6_NH_ICMPV6);
}

/* ---- IPHC: every mode combination round-trips ------------------------ */

/* The address the encoder must compress with mode (SAC/SAM or M/DAC/DAM). */
static void mode_addr(uint8_t *a, unsigned mode, bool dst, const uint8_t *l2, size_t l2len)
{
    uint8_t iid[8];

    memset(a, 0, 16);
    switch (mode) {
    case 0:
        set_addr(a, "20010db899990000000100020003ab04");
        break;
    case 1:
        set_addr(a, "fe80000000000000123456789abcdef0");
        break;
    case 2:
        set_addr(a, "fe80000000000000000000fffe00abcd");
        break;
    case 3:
        a[0] = 0xfe;
        a[1] = 0x80;
        iid_from_l2(iid, l2, l2len);
        memcpy(a + 8, iid, 8);
        break;
    case 4:
        break; /* :: */
    case 5:
        set_addr(a, "0000000000000000123456789abcdef0");
        break;
    case 6:
        set_addr(a, "0000000000000000000000fffe00abcd");
        break;
    case 7:
        iid_from_l2(iid, l2, l2len);
        memcpy(a + 8, iid, 8);
        break;
    case 8:
        set_addr(a, "ff0e0001000000000000000000000001");
        break;
    case 9:
        set_addr(a, "ff05000000000000000000abcdef1234");
        break;
    case 10:
        set_addr(a, "ff050000000000000000000000abcdef");
        break;
    case 11:
        set_addr(a, "ff02000000000000000000000000001a");
        break;
    case 12:
        set_addr(a, "ff3e004020010db8beef000012345678");
        break;
    default:
        break;
    }
    if (mode >= 5 && mode <= 7)
        memcpy(a, dst ? pfx_dst : pfx_src, 8);
}

struct shape {
    uint8_t tc;
    uint32_t flow;
    unsigned tf;
};

static const struct shape tf_shapes[4] = {
    {0xb9, 0xabcde, 0}, /* DSCP and ECN and flow label */
    {0x01, 0x12345, 1}, /* ECN and flow label */
    {0xb8, 0, 2},       /* DSCP and ECN */
    {0, 0, 3},          /* nothing */
};
static const uint8_t hl_values[4] = {17, 1, 64, 255};
static const uint8_t addr_inline[13] = {16, 8, 2, 0, 0, 8, 2, 0, 16, 6, 4, 1, 6};

struct nh_shape {
    uint8_t next;
    bool with_uh;
    uint16_t sp, dp;
    unsigned nhc_len; /* 0: next header inline */
};

static const struct nh_shape nh_shapes[] = {
    {IPV6_NH_ICMPV6, false, 0, 0, 0},       {IPV6_NH_UDP, false, 0, 0, 0},
    {IPV6_NH_ICMPV6, true, 1, 2, 0},        {IPV6_NH_UDP, true, 1234, 5683, 7}, /* PP=00 */
    {IPV6_NH_UDP, true, 1234, 0xf012, 6},                                       /* PP=01 */
    {IPV6_NH_UDP, true, 0xf034, 5683, 6},                                       /* PP=10 */
    {IPV6_NH_UDP, true, 0xf0b1, 0xf0bf, 4},                                     /* PP=11 */
};

static void one_combination(unsigned tfi, unsigned hli, unsigned sm, unsigned dm, size_t sl,
                            size_t dl, unsigned nhi)
{
    const uint8_t *ls = sl == 8 ? eui_a : short_a, *ld = dl == 8 ? eui_b : short_b;
    struct sixlowpan_l2 l2 = {ls, (uint8_t)sl, ld, (uint8_t)dl};
    const struct nh_shape *nh = &nh_shapes[nhi];
    struct ipv6_hdr ip = {.tc = tf_shapes[tfi].tc,
                          .flow = tf_shapes[tfi].flow,
                          .next = nh->next,
                          .hop_limit = hl_values[hli]};
    struct udp_hdr uh = {.src_port = nh->sp, .dst_port = nh->dp, .csum = 0x5a5a};
    uint8_t b[SIXLOWPAN_IPHC_MAX_LEN + 4];
    struct sixlowpan_iphc h;
    bool cid = dm >= 5 && dm != 8 && dm != 9 && dm != 10 && dm != 11;
    static const uint8_t tf_len[4] = {4, 3, 1, 0};
    size_t want = 2 + cid + tf_len[tfi] + (nh->nhc_len ? nh->nhc_len : 1) + (hli == 0) +
                  addr_inline[sm] + addr_inline[dm];
    int n;

    mode_addr(ip.src, sm, false, ls, sl);
    mode_addr(ip.dst, dm, true, ld, dl);
    n = wren_sixlowpan_iphc_emit(&ip, nh->with_uh ? &uh : NULL, &l2, ctx, b, sizeof(b));
    CHECK_EQ(n, (int)want);
    CHECK_EQ(wren_sixlowpan_iphc_emit(&ip, nh->with_uh ? &uh : NULL, &l2, ctx, NULL, 0), n);
    /* the header says what we expect */
    CHECK_EQ(b[0] >> 5, 3);
    CHECK_EQ((b[0] >> 3) & 3, tf_shapes[tfi].tf);
    CHECK_EQ((b[0] >> 2) & 1, nh->nhc_len != 0);
    CHECK_EQ(b[0] & 3, hli);
    CHECK_EQ(b[1] >> 7, cid);
    CHECK_EQ((b[1] >> 4) & 7, sm);
    CHECK_EQ(b[1] & 15, dm);
    if (cid)
        CHECK_EQ(b[2], dm == 12 ? 0x09 : 0x03);
    /* decode gives back every field */
    CHECK_EQ(wren_sixlowpan_iphc_parse(b, (size_t)n, &l2, ctx, &h), 0);
    CHECK_EQ(h.hdr_len, (size_t)n);
    check_hdr_eq(&h.ip, &ip);
    CHECK_EQ(h.udp, nh->nhc_len != 0);
    if (h.udp) {
        CHECK_EQ(h.uh.src_port, uh.src_port);
        CHECK_EQ(h.uh.dst_port, uh.dst_port);
        CHECK_EQ(h.uh.csum, uh.csum);
        CHECK(!h.udp_csum_elided);
    }
    /* every truncation point is reported as such */
    for (int k = 0; k < n; k++)
        CHECK_EQ(wren_sixlowpan_iphc_parse(b, (size_t)k, &l2, ctx, &h), TRUNC);
    /* trailing payload bytes are not consumed */
    CHECK_EQ(wren_sixlowpan_iphc_parse(b, sizeof(b), &l2, ctx, &h), 0);
    CHECK_EQ(h.hdr_len, (size_t)n);
}

TEST(test_sixlowpan_iphc__round_trip_every_mode)
{
    static const unsigned dmodes[] = {0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12};
    unsigned count = 0;

    ctx_reset();
    for (unsigned tfi = 0; tfi < 4; tfi++)
        for (unsigned hli = 0; hli < 4; hli++)
            for (unsigned sm = 0; sm < 8; sm++)
                for (size_t di = 0; di < ARRAY_LEN(dmodes); di++)
                    for (size_t sl = 2; sl <= 8; sl += 6)
                        for (size_t dl = 2; dl <= 8; dl += 6)
                            for (unsigned nhi = 0; nhi < ARRAY_LEN(nh_shapes); nhi++) {
                                /* a failed CHECK names the combination */
                                static char at[64];
                                snprintf(at, sizeof(at),
                                         "tf %u hlim %u sam %u dam %u l2 %zu/%zu nh %u", tfi, hli,
                                         sm, dmodes[di], sl, dl, nhi);
                                wren_test_context = at;
                                one_combination(tfi, hli, sm, dmodes[di], sl, dl, nhi);
                                wren_test_context = NULL;
                                count++;
                            }
    CHECK_EQ(count, 4 * 4 * 8 * 12 * 4 * ARRAY_LEN(nh_shapes));
}

/* Every byte value in every position of a few headers decodes or fails
 * cleanly, and what decodes re-encodes to the same fields. */
TEST(test_sixlowpan_iphc__byte_mutations_round_trip)
{
    static const uint8_t seed[] = {0x60, 0xd6, 0x39, 0x6e, 0x0a, 0xbc, 0xde, 0x11, 0x11,
                                   1,    2,    3,    4,    5,    6,    7,    8,    0xab,
                                   0xcd, 0xf0, 0x04, 0xd2, 0x16, 0x33, 0x01, 0x02};
    struct sixlowpan_l2 l2 = {short_a, 2, eui_b, 8};
    uint8_t b[sizeof(seed)], e[SIXLOWPAN_IPHC_MAX_LEN];
    struct sixlowpan_iphc h, g;

    ctx_reset();
    for (size_t i = 0; i < sizeof(seed); i++) {
        for (unsigned v = 0; v < 256; v++) {
            memcpy(b, seed, sizeof(b));
            b[i] = (uint8_t)v;
            int rc = wren_sixlowpan_iphc_parse(b, sizeof(b), &l2, ctx, &h);
            CHECK(rc <= 0 && rc >= -SIXLOWPAN_ERR_NOBUFS);
            if (rc)
                continue;
            CHECK(h.hdr_len <= sizeof(b));
            int n = wren_sixlowpan_iphc_emit(&h.ip, h.udp ? &h.uh : NULL, &l2, ctx, e, sizeof(e));
            CHECK(n > 0);
            CHECK_EQ(wren_sixlowpan_iphc_parse(e, (size_t)n, &l2, ctx, &g), 0);
            check_hdr_eq(&g.ip, &h.ip);
            CHECK_EQ(g.udp, h.udp);
            CHECK_EQ(g.uh.src_port, h.uh.src_port);
            CHECK_EQ(g.uh.dst_port, h.uh.dst_port);
            CHECK_EQ(g.uh.csum, h.uh.csum);
        }
    }
}

TEST(test_sixlowpan_strerror__names)
{
    CHECK(strcmp(wren_sixlowpan_strerror(0), "ok") == 0);
    CHECK(strcmp(wren_sixlowpan_strerror(-SIXLOWPAN_ERR_TRUNCATED), "truncated") == 0);
    CHECK(strcmp(wren_sixlowpan_strerror(SIXLOWPAN_ERR_CONTEXT), "unknown context") == 0);
    CHECK(strcmp(wren_sixlowpan_strerror(-SIXLOWPAN_ERR_NOBUFS), "no space") == 0);
    CHECK(strcmp(wren_sixlowpan_strerror(-SIXLOWPAN_ERR_NOBUFS - 1), "?") == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sixlowpan_dispatch__every_byte),
        cmocka_unit_test(test_sixlowpan_dispatch__named_values),
        cmocka_unit_test(test_sixlowpan_frag_parse__frag1),
        cmocka_unit_test(test_sixlowpan_frag_parse__fragn),
        cmocka_unit_test(test_sixlowpan_frag_parse__shorter_than_header),
        cmocka_unit_test(test_sixlowpan_frag_parse__size_below_40),
        cmocka_unit_test(test_sixlowpan_frag_parse__not_a_fragment),
        cmocka_unit_test(test_sixlowpan_frag_emit__vectors),
        cmocka_unit_test(test_sixlowpan_frag_emit__round_trip_all_sizes_offsets),
        cmocka_unit_test(test_sixlowpan_frag_emit__bad_size),
        cmocka_unit_test(test_sixlowpan_frag_emit__bad_offset),
        cmocka_unit_test(test_sixlowpan_frag_emit__buffer_too_small),
        cmocka_unit_test(test_sixlowpan_iphc_emit__link_local_udp_fully_compressed),
        cmocka_unit_test(test_sixlowpan_iphc_emit__global_with_contexts),
        cmocka_unit_test(test_sixlowpan_iphc_emit__tf01_multicast_8bit),
        cmocka_unit_test(test_sixlowpan_iphc_emit__tf00_unspecified_src_inline_dst),
        cmocka_unit_test(test_sixlowpan_iphc_emit__tf10_unicast_prefix_multicast),
        cmocka_unit_test(test_sixlowpan_iphc_parse__context_longer_than_64_bits),
        cmocka_unit_test(test_sixlowpan_iphc__context_prefix_not_byte_aligned),
        cmocka_unit_test(test_sixlowpan_iphc_emit__longest_matching_context),
        cmocka_unit_test(test_sixlowpan_iphc_parse__udp_checksum_elided),
        cmocka_unit_test(test_sixlowpan_iphc_parse__udp_port_forms),
        cmocka_unit_test(test_sixlowpan_iphc_parse__tf_reserved_bits_ignored),
        cmocka_unit_test(test_sixlowpan_iphc_parse__empty_and_dispatch),
        cmocka_unit_test(test_sixlowpan_iphc_parse__missing_cid_byte),
        cmocka_unit_test(test_sixlowpan_iphc_parse__reserved_modes),
        cmocka_unit_test(test_sixlowpan_iphc_parse__unknown_context),
        cmocka_unit_test(test_sixlowpan_iphc_parse__unspecified_needs_no_context),
        cmocka_unit_test(test_sixlowpan_iphc_parse__no_link_layer_address),
        cmocka_unit_test(test_sixlowpan_iphc_parse__unsupported_nhc),
        cmocka_unit_test(test_sixlowpan_iphc_emit__buffer_too_small),
        cmocka_unit_test(test_sixlowpan_iphc_emit__next_header_inline_without_udp_header),
        cmocka_unit_test(test_sixlowpan_iphc__round_trip_every_mode),
        cmocka_unit_test(test_sixlowpan_iphc__byte_mutations_round_trip),
        cmocka_unit_test(test_sixlowpan_strerror__names),
    };
    return cmocka_run_group_tests_name("sixlowpan", tests, NULL, NULL);
}

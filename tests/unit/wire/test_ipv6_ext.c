/**
 * @file test_ipv6_ext.c
 * @brief IPv6 extension-header walker (RFC 8200 4, RFC 5095). Vectors are
 *        whole IPv6 packets generated with scapy 2.8; the walker gets the
 *        fixed header's Next Header and the bytes from offset 40.
 */
#include <stdlib.h>

#include "test.h"
#include "wire/ipv6.h"
#include "wire/ipv6_ext.h"

/*
 * ext_chain_pkt after the fixed header (next = 0):
 *   0 HBH  nh 60, Router Alert (0x05, action skip), PadN
 *   8 DST  nh 43, PadN(4)
 *  16 RH   nh 44, type 0, segments left 0, one address (24 bytes)
 *  40 FRAG nh 17, offset 0, M = 1, id 0xdeadbeef
 *  48 UDP
 * ext_dst_unknown_pkt: DST with option 0xc2 (action 3), then UDP.
 * ext_frag_pkt: FRAG nh 58, offset 185 (1480 bytes), M = 0, id 42.
 */
static const uint8_t ext_chain_pkt[96] = {
    0x60, 0x00, 0x00, 0x00, 0x00, 0x38, 0x00, 0x40, 0x20, 0x01, 0x0d, 0xb8,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x02, 0x3c, 0x00, 0x05, 0x02, 0x00, 0x00, 0x01, 0x00,
    0x2b, 0x00, 0x01, 0x04, 0x00, 0x00, 0x00, 0x00, 0x2c, 0x02, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x11, 0x00, 0x00, 0x01,
    0xde, 0xad, 0xbe, 0xef, 0x00, 0x01, 0x00, 0x02, 0x00, 0x08, 0xa4, 0x66
};

static const uint8_t ext_dst_unknown_pkt[56] = {
    0x60, 0x00, 0x00, 0x00, 0x00, 0x10, 0x3c, 0x40, 0x20, 0x01, 0x0d, 0xb8,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x02, 0x11, 0x00, 0xc2, 0x02, 0x01, 0x02, 0x01, 0x00,
    0x00, 0x01, 0x00, 0x02, 0x00, 0x08, 0xa4, 0x66
};

static const uint8_t ext_frag_pkt[56] = {
    0x60, 0x00, 0x00, 0x00, 0x00, 0x10, 0x2c, 0x40, 0x20, 0x01, 0x0d, 0xb8,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x02, 0x3a, 0x00, 0x05, 0xc8, 0x00, 0x00, 0x00, 0x2a,
    0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38
};

#define DATA(pkt) ((pkt) + 40)
#define DATA_LEN(pkt) (sizeof(pkt) - 40)

/* Walk a copy of exactly @p len bytes on the heap so ASan sees overreads. */
static int walk(uint8_t next, const uint8_t *data, size_t len, const uint8_t *known,
                size_t n_known, struct ipv6_ext *e)
{
    uint8_t *b = malloc(len ? len : 1);
    memcpy(b, data, len);
    int rc = wren_ipv6_ext_walk(next, b, len, known, n_known, e);
    free(b);
    return rc;
}

/* An options header of 8 * units bytes: next header, length, then @p opts
 * (the rest zero = Pad1). */
static void opt_hdr(uint8_t *h, uint8_t nh, unsigned units, const uint8_t *opts, size_t n)
{
    memset(h, 0, units * 8);
    h[0] = nh;
    h[1] = (uint8_t)(units - 1);
    if (n) {
        memcpy(h + 2, opts, n);
    }
}

TEST(test_ipv6_ext_walk__no_extension_headers)
{
    static const uint8_t udp[8] = { 0 };
    struct ipv6_ext e;
    CHECK_EQ(walk(IPV6_NH_UDP, udp, sizeof(udp), NULL, 0, &e), 0);
    CHECK_EQ(e.next, IPV6_NH_UDP);
    CHECK_EQ(e.off, 0);
    CHECK_EQ(e.flags, 0);
    CHECK_EQ(e.opt_off, 0);
    /* an upper layer with no bytes at all is the caller's business */
    CHECK_EQ(walk(IPV6_NH_ICMPV6, udp, 0, NULL, 0, &e), 0);
    CHECK_EQ(e.off, 0);
}

TEST(test_ipv6_ext_walk__no_next_header)
{
    static const uint8_t junk[4] = { 1, 2, 3, 4 };
    struct ipv6_ext e;
    CHECK_EQ(walk(IPV6_NH_NONE, junk, sizeof(junk), NULL, 0, &e), 0);
    CHECK_EQ(e.next, IPV6_NH_NONE);
    CHECK_EQ(e.off, 0);
}

TEST(test_ipv6_ext_walk__scapy_chain)
{
    struct ipv6_ext e;
    CHECK_EQ(ext_chain_pkt[6], IPV6_NH_HOPOPT);
    CHECK_EQ(walk(ext_chain_pkt[6], DATA(ext_chain_pkt), DATA_LEN(ext_chain_pkt), NULL, 0, &e),
             0);
    CHECK_EQ(e.flags, IPV6_EXT_F_HBH | IPV6_EXT_F_RH | IPV6_EXT_F_FRAG);
    CHECK_EQ(e.rh_off, 16);
    CHECK_EQ(e.rh_type, 0);
    CHECK_EQ(e.rh_segs_left, 0);
    CHECK_EQ(e.frag_hdr_off, 40);
    CHECK_EQ(e.frag_offset, 0);
    CHECK_EQ(e.frag_more, 1);
    CHECK_EQ(e.frag_id, 0xdeadbeef);
    /* stopped after the fragment header: the fragmentable part */
    CHECK_EQ(e.next, IPV6_NH_UDP);
    CHECK_EQ(e.off, 48);
    CHECK_EQ(e.last_off, 40);
    CHECK_EQ(e.opt_off, 0); /* router alert: action skip */
}

/* a forwarding router's walk (RFC 8200 4.3): the hop-by-hop header alone;
 * what follows is not looked at, even a routing type 0 in use */
TEST(test_ipv6_ext_walk_hbh__first_header_only)
{
    struct ipv6_ext e;
    uint8_t d[DATA_LEN(ext_chain_pkt)];
    memcpy(d, DATA(ext_chain_pkt), sizeof(d));
    d[16 + 3] = 1; /* the type 0 routing header with a segment left */
    CHECK_EQ(wren_ipv6_ext_walk(IPV6_NH_HOPOPT, d, sizeof(d), NULL, 0, &e), -IPV6_EXT_ERR_RH0);
    CHECK_EQ(wren_ipv6_ext_walk_hbh(IPV6_NH_HOPOPT, d, sizeof(d), NULL, 0, &e), 0);
    CHECK_EQ(e.flags, IPV6_EXT_F_HBH);
    CHECK_EQ(e.off, 8);
    CHECK_EQ(e.next, IPV6_NH_DSTOPTS);
    CHECK_EQ(e.opt_off, 0);
    /* its option running past it is still an error */
    d[3] = 5; /* the router alert option's length */
    CHECK_EQ(wren_ipv6_ext_walk_hbh(IPV6_NH_HOPOPT, d, sizeof(d), NULL, 0, &e), -IPV6_EXT_ERR_OPT);
    CHECK_EQ(e.err_off, 2);
    /* no hop-by-hop header: nothing to check */
    CHECK_EQ(wren_ipv6_ext_walk_hbh(IPV6_NH_ROUTING, d, sizeof(d), NULL, 0, &e), 0);
    CHECK_EQ(e.off, 0);
    CHECK_EQ(e.next, IPV6_NH_ROUTING);
}

TEST(test_ipv6_ext_walk__destination_option_unrecognised)
{
    struct ipv6_ext e;
    CHECK_EQ(walk(ext_dst_unknown_pkt[6], DATA(ext_dst_unknown_pkt),
                  DATA_LEN(ext_dst_unknown_pkt), NULL, 0, &e),
             0);
    CHECK_EQ(e.next, IPV6_NH_UDP);
    CHECK_EQ(e.off, 8);
    CHECK_EQ(e.flags, 0);
    CHECK_EQ(e.opt_off, 2);
    CHECK_EQ(DATA(ext_dst_unknown_pkt)[e.opt_off] >> 6, IPV6_OPT_ACT_ICMP_UCAST);
}

TEST(test_ipv6_ext_walk__unrecognised_option_known_to_caller)
{
    static const uint8_t known[] = { 0x63, 0xc2 };
    struct ipv6_ext e;
    CHECK_EQ(walk(ext_dst_unknown_pkt[6], DATA(ext_dst_unknown_pkt),
                  DATA_LEN(ext_dst_unknown_pkt), known, sizeof(known), &e),
             0);
    CHECK_EQ(e.opt_off, 0);
}

TEST(test_ipv6_ext_walk__option_actions)
{
    /* skip (00) options are never reported; 01, 10, 11 are */
    for (unsigned act = 0; act < 4; act++) {
        uint8_t h[8];
        const uint8_t opt[4] = { (uint8_t)(act << 6 | 0x1e), 2, 0xaa, 0xbb };
        struct ipv6_ext e;
        opt_hdr(h, IPV6_NH_TCP, 1, opt, sizeof(opt));
        CHECK_EQ(walk(IPV6_NH_HOPOPT, h, sizeof(h), NULL, 0, &e), 0);
        CHECK_EQ(e.flags, IPV6_EXT_F_HBH);
        CHECK_EQ(e.opt_off, act ? 2 : 0);
    }
}

TEST(test_ipv6_ext_walk__first_unrecognised_option_reported)
{
    /* HBH: skip-option, then 0x63 (discard); DST: 0x80 (ICMP) */
    uint8_t b[24];
    const uint8_t o1[] = { 0x1e, 0, 0x63, 1, 0 };
    const uint8_t o2[] = { 0x80, 0 };
    static const uint8_t known[] = { 0x63 };
    struct ipv6_ext e;
    opt_hdr(b, IPV6_NH_DSTOPTS, 1, o1, sizeof(o1));
    opt_hdr(b + 8, IPV6_NH_UDP, 1, o2, sizeof(o2));
    CHECK_EQ(walk(IPV6_NH_HOPOPT, b, 16, NULL, 0, &e), 0);
    CHECK_EQ(e.opt_off, 4);
    CHECK_EQ(walk(IPV6_NH_HOPOPT, b, 16, known, sizeof(known), &e), 0);
    CHECK_EQ(e.opt_off, 10);
    CHECK_EQ(e.off, 16);
}

TEST(test_ipv6_ext_walk__fragment_nonzero_offset)
{
    struct ipv6_ext e;
    CHECK_EQ(walk(ext_frag_pkt[6], DATA(ext_frag_pkt), DATA_LEN(ext_frag_pkt), NULL, 0, &e), 0);
    CHECK_EQ(e.flags, IPV6_EXT_F_FRAG);
    CHECK_EQ(e.frag_offset, 1480);
    CHECK_EQ(e.frag_more, 0);
    CHECK_EQ(e.frag_id, 42);
    CHECK_EQ(e.next, IPV6_NH_ICMPV6);
    CHECK_EQ(e.off, 8);
}

TEST(test_ipv6_ext_walk__fragment_largest_offset)
{
    static const uint8_t f[8] = { IPV6_NH_UDP, 0, 0xff, 0xf9, 0, 0, 0, 1 };
    struct ipv6_ext e;
    CHECK_EQ(walk(IPV6_NH_FRAGMENT, f, sizeof(f), NULL, 0, &e), 0);
    CHECK_EQ(e.frag_offset, 65528); /* 8191 * 8; res bits ignored */
    CHECK_EQ(e.frag_more, 1);
}

TEST(test_ipv6_ext_walk__fragment_header_stops_walk)
{
    /* what follows a fragment header is not walked, even if it looks like
     * a broken header: it is to be reassembled first */
    static const uint8_t f[10] = { IPV6_NH_DSTOPTS, 0, 0, 1, 0, 0, 0, 1, 0, 200 };
    struct ipv6_ext e;
    CHECK_EQ(walk(IPV6_NH_FRAGMENT, f, sizeof(f), NULL, 0, &e), 0);
    CHECK_EQ(e.next, IPV6_NH_DSTOPTS);
    CHECK_EQ(e.off, 8);
}

TEST(test_ipv6_ext_walk__hop_by_hop_not_first)
{
    uint8_t b[16];
    struct ipv6_ext e;
    opt_hdr(b, IPV6_NH_HOPOPT, 1, NULL, 0);
    opt_hdr(b + 8, IPV6_NH_UDP, 1, NULL, 0);
    CHECK_EQ(walk(IPV6_NH_DSTOPTS, b, sizeof(b), NULL, 0, &e), -IPV6_EXT_ERR_HBH);
    CHECK_EQ(e.err_off, 0); /* the Next Header field that names it */
    /* and a second hop-by-hop right after the first */
    opt_hdr(b, IPV6_NH_HOPOPT, 1, NULL, 0);
    CHECK_EQ(walk(IPV6_NH_HOPOPT, b, sizeof(b), NULL, 0, &e), -IPV6_EXT_ERR_HBH);
    CHECK_EQ(e.err_off, 0);
}

TEST(test_ipv6_ext_walk__chain_too_long)
{
    uint8_t b[8 * (CONFIG_IPV6_EXT_MAX_HDRS + 1) + 8];
    struct ipv6_ext e;
    for (unsigned i = 0; i <= CONFIG_IPV6_EXT_MAX_HDRS; i++) {
        opt_hdr(b + 8 * i, IPV6_NH_DSTOPTS, 1, NULL, 0);
    }
    b[8 * (CONFIG_IPV6_EXT_MAX_HDRS - 1)] = IPV6_NH_UDP;
    CHECK_EQ(walk(IPV6_NH_DSTOPTS, b, sizeof(b), NULL, 0, &e), 0);
    CHECK_EQ(e.off, 8 * CONFIG_IPV6_EXT_MAX_HDRS);
    b[8 * (CONFIG_IPV6_EXT_MAX_HDRS - 1)] = IPV6_NH_DSTOPTS;
    b[8 * CONFIG_IPV6_EXT_MAX_HDRS] = IPV6_NH_UDP;
    CHECK_EQ(walk(IPV6_NH_DSTOPTS, b, sizeof(b), NULL, 0, &e), -IPV6_EXT_ERR_CHAIN);
    CHECK_EQ(e.err_off, 8 * CONFIG_IPV6_EXT_MAX_HDRS);
}

TEST(test_ipv6_ext_walk__routing_type0_segments_left)
{
    /* RFC 5095 3: parameter problem code 0 at the Routing Type field */
    uint8_t b[8 + 24];
    static const uint8_t rh0[4] = { IPV6_NH_UDP, 2, 0, 1 };
    struct ipv6_ext e;
    opt_hdr(b, IPV6_NH_ROUTING, 1, NULL, 0);
    memset(b + 8, 0, 24);
    memcpy(b + 8, rh0, sizeof(rh0));
    CHECK_EQ(walk(IPV6_NH_DSTOPTS, b, sizeof(b), NULL, 0, &e), -IPV6_EXT_ERR_RH0);
    CHECK_EQ(e.err_off, 10);
}

TEST(test_ipv6_ext_walk__routing_type0_segments_left_zero_skipped)
{
    uint8_t b[24 + 8] = { IPV6_NH_TCP, 2, 0, 0 };
    struct ipv6_ext e;
    CHECK_EQ(walk(IPV6_NH_ROUTING, b, sizeof(b), NULL, 0, &e), 0);
    CHECK_EQ(e.next, IPV6_NH_TCP);
    CHECK_EQ(e.off, 24);
    CHECK_EQ(e.flags, IPV6_EXT_F_RH);
    CHECK_EQ(e.rh_type, 0);
    CHECK_EQ(e.rh_segs_left, 0);
}

TEST(test_ipv6_ext_walk__routing_segments_left_stops_walk)
{
    /* RPL source route (type 3), segments left 2: this node forwards; the
     * truncated header after it is not looked at */
    uint8_t b[16 + 2] = { IPV6_NH_DSTOPTS, 1, 3, 2 };
    b[16] = IPV6_NH_UDP;
    b[17] = 5;
    struct ipv6_ext e;
    CHECK_EQ(walk(IPV6_NH_ROUTING, b, sizeof(b), NULL, 0, &e), 0);
    CHECK_EQ(e.flags, IPV6_EXT_F_RH);
    CHECK_EQ(e.rh_off, 0);
    CHECK_EQ(e.rh_type, 3);
    CHECK_EQ(e.rh_segs_left, 2);
    CHECK_EQ(e.next, IPV6_NH_DSTOPTS);
    CHECK_EQ(e.off, 16);
}

TEST(test_ipv6_ext_walk__every_truncation_of_chain)
{
    const uint8_t *d = DATA(ext_chain_pkt);
    for (size_t n = 0; n < 48; n++) {
        struct ipv6_ext e;
        CHECK_EQ(walk(IPV6_NH_HOPOPT, d, n, NULL, 0, &e), -IPV6_EXT_ERR_TRUNCATED);
        CHECK(e.err_off <= n);
    }
    for (size_t n = 48; n <= DATA_LEN(ext_chain_pkt); n++) {
        struct ipv6_ext e;
        CHECK_EQ(walk(IPV6_NH_HOPOPT, d, n, NULL, 0, &e), 0);
        CHECK_EQ(e.off, 48);
    }
}

TEST(test_ipv6_ext_walk__header_length_past_end)
{
    /* Hdr Ext Len says 16 bytes, 8 are there: pointer at the length */
    uint8_t b[8];
    struct ipv6_ext e;
    opt_hdr(b, IPV6_NH_UDP, 1, NULL, 0);
    b[1] = 1;
    CHECK_EQ(walk(IPV6_NH_DSTOPTS, b, sizeof(b), NULL, 0, &e), -IPV6_EXT_ERR_TRUNCATED);
    CHECK_EQ(e.err_off, 1);
    b[1] = 255;
    CHECK_EQ(walk(IPV6_NH_ROUTING, b, sizeof(b), NULL, 0, &e), -IPV6_EXT_ERR_TRUNCATED);
    CHECK_EQ(e.err_off, 1);
    /* fewer than 8 bytes of a header: pointer at its start */
    CHECK_EQ(walk(IPV6_NH_FRAGMENT, b, 7, NULL, 0, &e), -IPV6_EXT_ERR_TRUNCATED);
    CHECK_EQ(e.err_off, 0);
}

TEST(test_ipv6_ext_walk__header_missing_after_last)
{
    uint8_t b[8];
    struct ipv6_ext e;
    opt_hdr(b, IPV6_NH_DSTOPTS, 1, NULL, 0);
    CHECK_EQ(walk(IPV6_NH_DSTOPTS, b, sizeof(b), NULL, 0, &e), -IPV6_EXT_ERR_TRUNCATED);
    CHECK_EQ(e.err_off, 8);
}

TEST(test_ipv6_ext_walk__option_past_header)
{
    /* PadN claiming 10 bytes inside an 8-byte header */
    uint8_t b[16];
    const uint8_t padn[2] = { IPV6_OPT_PADN, 10 };
    struct ipv6_ext e;
    memset(b, 0, sizeof(b));
    opt_hdr(b, IPV6_NH_UDP, 1, padn, sizeof(padn));
    CHECK_EQ(walk(IPV6_NH_HOPOPT, b, sizeof(b), NULL, 0, &e), -IPV6_EXT_ERR_OPT);
    CHECK_EQ(e.err_off, 2);
    /* exactly filling the header is fine */
    b[3] = 4;
    CHECK_EQ(walk(IPV6_NH_HOPOPT, b, sizeof(b), NULL, 0, &e), 0);
    b[3] = 5;
    CHECK_EQ(walk(IPV6_NH_HOPOPT, b, sizeof(b), NULL, 0, &e), -IPV6_EXT_ERR_OPT);
}

TEST(test_ipv6_ext_walk__option_type_in_last_byte)
{
    /* the last byte holds a type that is not Pad1: no room for its length */
    uint8_t b[8];
    struct ipv6_ext e;
    opt_hdr(b, IPV6_NH_UDP, 1, NULL, 0);
    b[7] = 0x05;
    CHECK_EQ(walk(IPV6_NH_DSTOPTS, b, sizeof(b), NULL, 0, &e), -IPV6_EXT_ERR_OPT);
    CHECK_EQ(e.err_off, 7);
    b[7] = IPV6_OPT_PAD1;
    CHECK_EQ(walk(IPV6_NH_DSTOPTS, b, sizeof(b), NULL, 0, &e), 0);
}

TEST(test_ipv6_ext_walk__option_error_in_second_header)
{
    uint8_t b[16];
    const uint8_t bad[2] = { 0x1e, 5 };
    struct ipv6_ext e;
    opt_hdr(b, IPV6_NH_DSTOPTS, 1, NULL, 0);
    opt_hdr(b + 8, IPV6_NH_UDP, 1, bad, sizeof(bad));
    CHECK_EQ(walk(IPV6_NH_HOPOPT, b, sizeof(b), NULL, 0, &e), -IPV6_EXT_ERR_OPT);
    CHECK_EQ(e.err_off, 10);
}

TEST(test_ipv6_ext_walk__largest_header)
{
    /* Hdr Ext Len 255: 2048 bytes of PadN runs */
    static uint8_t b[2048 + 8];
    struct ipv6_ext e;
    memset(b, 0, sizeof(b));
    b[0] = IPV6_NH_UDP;
    b[1] = 255;
    for (size_t p = 2; p + 8 <= 2048; p += 8) {
        b[p] = IPV6_OPT_PADN;
        b[p + 1] = 6;
    }
    b[2042] = IPV6_OPT_PADN;
    b[2043] = 4;
    CHECK_EQ(walk(IPV6_NH_DSTOPTS, b, sizeof(b), NULL, 0, &e), 0);
    CHECK_EQ(e.off, 2048);
    CHECK_EQ(walk(IPV6_NH_DSTOPTS, b, 2047, NULL, 0, &e), -IPV6_EXT_ERR_TRUNCATED);
}

TEST(test_ipv6_ext_walk__zero_length_padding_terminates)
{
    /* a header full of PadN with length 0 */
    uint8_t b[64];
    struct ipv6_ext e;
    memset(b, 0, sizeof(b));
    b[0] = IPV6_NH_UDP;
    b[1] = 7;
    for (size_t p = 2; p < 64; p += 2) {
        b[p] = IPV6_OPT_PADN;
    }
    CHECK_EQ(walk(IPV6_NH_HOPOPT, b, sizeof(b), NULL, 0, &e), 0);
    CHECK_EQ(e.off, 64);
}

TEST(test_ipv6_ext_walk__unwalked_headers_stop)
{
    /* ESP, AH, mobility and unknown values end the walk: the caller's */
    static const uint8_t stops[] = { 50, 51, 135, 139, 253, IPV6_NH_IPV6, IPV6_NH_ICMPV6 };
    uint8_t b[8];
    opt_hdr(b, 0, 1, NULL, 0);
    for (size_t i = 0; i < sizeof(stops); i++) {
        struct ipv6_ext e;
        b[0] = stops[i];
        CHECK_EQ(walk(IPV6_NH_DSTOPTS, b, sizeof(b), NULL, 0, &e), 0);
        CHECK_EQ(e.next, stops[i]);
        CHECK_EQ(e.off, 8);
        CHECK_EQ(e.last_off, 0);
    }
}

TEST(test_ipv6_ext_opt_next__skips_padding)
{
    static const uint8_t h[16] = { IPV6_NH_UDP, 1, IPV6_OPT_PAD1, IPV6_OPT_PADN, 1, 0,
                                   0x05, 2, 0, 0, 0xc2, 0, IPV6_OPT_PAD1, IPV6_OPT_PADN, 0,
                                   IPV6_OPT_PAD1 };
    size_t pos = 2;
    struct ipv6_ext_opt o;
    CHECK_EQ(wren_ipv6_ext_opt_next(h, sizeof(h), &pos, &o), 1);
    CHECK_EQ(o.type, 0x05);
    CHECK_EQ(o.len, 2);
    CHECK_EQ(o.off, 6);
    CHECK_EQ(wren_ipv6_ext_opt_next(h, sizeof(h), &pos, &o), 1);
    CHECK_EQ(o.type, 0xc2);
    CHECK_EQ(o.len, 0);
    CHECK_EQ(o.off, 10);
    CHECK_EQ(wren_ipv6_ext_opt_next(h, sizeof(h), &pos, &o), 0);
    CHECK_EQ(pos, 16);
    CHECK_EQ(wren_ipv6_ext_opt_next(h, sizeof(h), &pos, &o), 0);
}

TEST(test_ipv6_ext_opt_next__option_past_header)
{
    static const uint8_t h[8] = { IPV6_NH_UDP, 0, 0x05, 2, 0, 0, 0x07, 1 };
    size_t pos = 2;
    struct ipv6_ext_opt o;
    CHECK_EQ(wren_ipv6_ext_opt_next(h, sizeof(h), &pos, &o), 1);
    CHECK_EQ(wren_ipv6_ext_opt_next(h, sizeof(h), &pos, &o), -IPV6_EXT_ERR_OPT);
    CHECK_EQ(pos, 6);
    CHECK_EQ(wren_ipv6_ext_opt_next(h, sizeof(h), &pos, &o), -IPV6_EXT_ERR_OPT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ipv6_ext_walk__no_extension_headers),
        cmocka_unit_test(test_ipv6_ext_walk__no_next_header),
        cmocka_unit_test(test_ipv6_ext_walk__scapy_chain),
        cmocka_unit_test(test_ipv6_ext_walk__destination_option_unrecognised),
        cmocka_unit_test(test_ipv6_ext_walk__unrecognised_option_known_to_caller),
        cmocka_unit_test(test_ipv6_ext_walk__option_actions),
        cmocka_unit_test(test_ipv6_ext_walk__first_unrecognised_option_reported),
        cmocka_unit_test(test_ipv6_ext_walk__fragment_nonzero_offset),
        cmocka_unit_test(test_ipv6_ext_walk__fragment_largest_offset),
        cmocka_unit_test(test_ipv6_ext_walk__fragment_header_stops_walk),
        cmocka_unit_test(test_ipv6_ext_walk__hop_by_hop_not_first),
        cmocka_unit_test(test_ipv6_ext_walk__chain_too_long),
        cmocka_unit_test(test_ipv6_ext_walk__routing_type0_segments_left),
        cmocka_unit_test(test_ipv6_ext_walk__routing_type0_segments_left_zero_skipped),
        cmocka_unit_test(test_ipv6_ext_walk__routing_segments_left_stops_walk),
        cmocka_unit_test(test_ipv6_ext_walk__every_truncation_of_chain),
        cmocka_unit_test(test_ipv6_ext_walk__header_length_past_end),
        cmocka_unit_test(test_ipv6_ext_walk__header_missing_after_last),
        cmocka_unit_test(test_ipv6_ext_walk__option_past_header),
        cmocka_unit_test(test_ipv6_ext_walk__option_type_in_last_byte),
        cmocka_unit_test(test_ipv6_ext_walk__option_error_in_second_header),
        cmocka_unit_test(test_ipv6_ext_walk__largest_header),
        cmocka_unit_test(test_ipv6_ext_walk__zero_length_padding_terminates),
        cmocka_unit_test(test_ipv6_ext_walk__unwalked_headers_stop),
        cmocka_unit_test(test_ipv6_ext_walk_hbh__first_header_only),
        cmocka_unit_test(test_ipv6_ext_opt_next__skips_padding),
        cmocka_unit_test(test_ipv6_ext_opt_next__option_past_header),
    };
    return cmocka_run_group_tests_name("ipv6_ext", tests, NULL, NULL);
}

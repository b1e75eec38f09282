/**
 * @file test_tcp.c
 * @brief TCP wire format: header and options parse/emit, checksum over the
 *        IPv6 pseudo-header, sequence arithmetic. Vectors are the TCP part
 *        of IPv6 packets built by scapy 2.8 between 2001:db8::1 and
 *        2001:db8::2 (checksums by scapy), e.g.
 *        bytes(IPv6(src=a, dst=b)/TCP(sport=43210, dport=80, flags='S',
 *              options=[('MSS',1440),('SAckOK',b''),('Timestamp',(1000,0)),
 *                       ('NOP',None),('WScale',7)]))[40:]
 *        (the scapy call is above each vector).
 */
#include <stdlib.h>

#include "core/byteorder.h"
#include "test.h"
#include "wire/tcp.h"

static const uint8_t addr1[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t addr2[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

/* ---- vectors ---- */

/* 2001:db8::1 -> ::2, TCP(sport=43210, dport=80, seq=0x12345678, flags='S', window=64800,
 * options=[('MSS',1440), ('SAckOK',b''), ('Timestamp',(1000,0)), ('NOP',None), ('WScale',7)]):
 * Linux's SYN layout */
static const uint8_t syn_linux[40] = {
    0xa8, 0xca, 0x00, 0x50, 0x12, 0x34, 0x56, 0x78, 0x00, 0x00, 0x00, 0x00,
    0xa0, 0x02, 0xfd, 0x20, 0xd9, 0xcf, 0x00, 0x00, 0x02, 0x04, 0x05, 0xa0,
    0x04, 0x02, 0x08, 0x0a, 0x00, 0x00, 0x03, 0xe8, 0x00, 0x00, 0x00, 0x00,
    0x01, 0x03, 0x03, 0x07
};

/* ::2 -> ::1, TCP(sport=80, dport=43210, seq=0xfffffff0, ack=0x12345679, flags='SA',
 * window=2048, options=[('MSS',1220), ('SAckOK',b''), ('Timestamp',(5000,1000))]) */
static const uint8_t synack[36] = {
    0x00, 0x50, 0xa8, 0xca, 0xff, 0xff, 0xff, 0xf0, 0x12, 0x34, 0x56, 0x79,
    0x90, 0x12, 0x08, 0x00, 0xd0, 0x50, 0x00, 0x00, 0x02, 0x04, 0x04, 0xc4,
    0x04, 0x02, 0x08, 0x0a, 0x00, 0x00, 0x13, 0x88, 0x00, 0x00, 0x03, 0xe8
};

/* ::1 -> ::2, TCP(sport=43210, dport=80, seq=0x12345679, ack=0xfffffff1, flags='PA',
 * window=506, options=[('NOP',None), ('NOP',None), ('Timestamp',(1010,5000))])/b'hello wren' */
static const uint8_t data_ts[42] = {
    0xa8, 0xca, 0x00, 0x50, 0x12, 0x34, 0x56, 0x79, 0xff, 0xff, 0xff, 0xf1,
    0x80, 0x18, 0x01, 0xfa, 0xcf, 0x35, 0x00, 0x00, 0x01, 0x01, 0x08, 0x0a,
    0x00, 0x00, 0x03, 0xf2, 0x00, 0x00, 0x13, 0x88, 0x68, 0x65, 0x6c, 0x6c,
    0x6f, 0x20, 0x77, 0x72, 0x65, 0x6e
};

/* ::2 -> ::1, TCP(sport=80, dport=43210, seq=0xfffffff1, ack=0x12345683, flags='A',
 * window=2048, options=[NOP, NOP, ('Timestamp',(5020,1010)), NOP, NOP, ('SAck',(0x12345700,
 * 0x12345800, 0x12345900, 0x12345a00, 0x10, 0x20))]) */
static const uint8_t ack_sack3[60] = {
    0x00, 0x50, 0xa8, 0xca, 0xff, 0xff, 0xff, 0xf1, 0x12, 0x34, 0x56, 0x83,
    0xf0, 0x10, 0x08, 0x00, 0xc8, 0xbd, 0x00, 0x00, 0x01, 0x01, 0x08, 0x0a,
    0x00, 0x00, 0x13, 0x9c, 0x00, 0x00, 0x03, 0xf2, 0x01, 0x01, 0x05, 0x1a,
    0x12, 0x34, 0x57, 0x00, 0x12, 0x34, 0x58, 0x00, 0x12, 0x34, 0x59, 0x00,
    0x12, 0x34, 0x5a, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x20
};

/* ::1 -> ::2, TCP(sport=1024, dport=7, seq=1, flags='SEC', window=1000, options=[('MSS',536),
 * ('NOP',None), ('NOP',None), ('SAckOK',b''), ('NOP',None), ('WScale',2)]) */
static const uint8_t syn_nots[32] = {
    0x04, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
    0x80, 0xc2, 0x03, 0xe8, 0x0e, 0x8e, 0x00, 0x00, 0x02, 0x04, 0x02, 0x18,
    0x01, 0x01, 0x04, 0x02, 0x01, 0x03, 0x03, 0x02
};

/* ::1 -> ::2, TCP(sport=5, dport=6, seq=7, ack=8, flags='RUA', window=0, urgptr=0x1234,
 * reserved=5)/b'x' (scapy's 3 reserved bits and NS: our nibble 0xa) */
static const uint8_t rst_urg[21] = {
    0x00, 0x05, 0x00, 0x06, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x08,
    0x5a, 0x34, 0x00, 0x00, 0xbf, 0xec, 0x12, 0x34, 0x78
};

/* ::1 -> ::2, TCP(sport=1, dport=2, seq=3, ack=4, flags='A', window=5,
 * options=[(30,b'\xaa\xbb\xcc\xdd'), ('NOP',None), ('MSS',1000), ('EOL',None)]) */
static const uint8_t opt_eol_unknown[32] = {
    0x00, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x04,
    0x80, 0x10, 0x00, 0x05, 0xa1, 0x9f, 0x00, 0x00, 0x1e, 0x06, 0xaa, 0xbb,
    0xcc, 0xdd, 0x01, 0x02, 0x04, 0x03, 0xe8, 0x00
};

/* A 20-byte header (data offset 5, ACK) followed by @p n option bytes,
 * data offset set to cover them (n a multiple of 4). */
static size_t with_opts(uint8_t *buf, const uint8_t *opts, size_t n)
{
    static const uint8_t base[20] = { 0x00, 0x01, 0x00, 0x02, 0, 0, 0, 3, 0, 0, 0, 4,
                                      0x50, 0x10, 0x00, 0x05 };
    memcpy(buf, base, 20);
    memcpy(buf + 20, opts, n);
    buf[12] = (uint8_t)((20 + n) / 4 << 4);
    return 20 + n;
}

static int parse_opts_in_hdr(const uint8_t *opts, size_t n, struct tcp_opts *o)
{
    uint8_t buf[TCP_HDR_MAX_LEN];
    struct tcp_hdr h;
    return wren_tcp_hdr_parse(buf, with_opts(buf, opts, n), &h, o);
}

static int opts_equal(const struct tcp_opts *a, const struct tcp_opts *b)
{
    if (a->has_mss != b->has_mss || (a->has_mss && a->mss != b->mss))
        return 0;
    if (a->has_wscale != b->has_wscale || (a->has_wscale && a->wscale != b->wscale))
        return 0;
    if (a->sack_ok != b->sack_ok || a->n_sack != b->n_sack || a->has_ts != b->has_ts)
        return 0;
    if (a->has_ts && (a->ts_val != b->ts_val || a->ts_ecr != b->ts_ecr))
        return 0;
    for (unsigned i = 0; i < a->n_sack; i++)
        if (a->sack[i][0] != b->sack[i][0] || a->sack[i][1] != b->sack[i][1])
            return 0;
    return 1;
}

static int hdr_equal(const struct tcp_hdr *a, const struct tcp_hdr *b)
{
    return a->src_port == b->src_port && a->dst_port == b->dst_port && a->seq == b->seq &&
           a->ack == b->ack && a->flags == b->flags && a->rsvd == b->rsvd &&
           a->window == b->window && a->csum == b->csum && a->urg == b->urg;
}

/* ---- wren_tcp_hdr_parse: captures ---- */

TEST(test_tcp_hdr_parse__linux_syn)
{
    struct tcp_hdr h;
    struct tcp_opts o;
    CHECK_EQ(wren_tcp_hdr_parse(syn_linux, sizeof(syn_linux), &h, &o), 40);
    CHECK_EQ(h.src_port, 43210);
    CHECK_EQ(h.dst_port, 80);
    CHECK_EQ(h.seq, 0x12345678);
    CHECK_EQ(h.ack, 0);
    CHECK_EQ(h.flags, TCP_SYN);
    CHECK_EQ(h.rsvd, 0);
    CHECK_EQ(h.window, 64800);
    CHECK_EQ(h.csum, 0xd9cf);
    CHECK_EQ(h.urg, 0);
    CHECK(o.has_mss && o.mss == 1440);
    CHECK(o.sack_ok);
    CHECK(o.has_ts && o.ts_val == 1000 && o.ts_ecr == 0);
    CHECK(o.has_wscale && o.wscale == 7);
    CHECK_EQ(o.n_sack, 0);
}

TEST(test_tcp_hdr_parse__syn_ack)
{
    struct tcp_hdr h;
    struct tcp_opts o;
    CHECK_EQ(wren_tcp_hdr_parse(synack, sizeof(synack), &h, &o), 36);
    CHECK_EQ(h.src_port, 80);
    CHECK_EQ(h.dst_port, 43210);
    CHECK_EQ(h.seq, 0xfffffff0u);
    CHECK_EQ(h.ack, 0x12345679);
    CHECK_EQ(h.flags, TCP_SYN | TCP_ACK);
    CHECK_EQ(h.window, 2048);
    CHECK(o.has_mss && o.mss == 1220);
    CHECK(o.sack_ok);
    CHECK(o.has_ts && o.ts_val == 5000 && o.ts_ecr == 1000);
    CHECK(!o.has_wscale);
    CHECK_EQ(o.n_sack, 0);
}

TEST(test_tcp_hdr_parse__data_with_timestamps)
{
    struct tcp_hdr h;
    struct tcp_opts o;
    int hl = wren_tcp_hdr_parse(data_ts, sizeof(data_ts), &h, &o);
    CHECK_EQ(hl, 32);
    CHECK_EQ(h.flags, TCP_PSH | TCP_ACK);
    CHECK_EQ(h.ack, 0xfffffff1u);
    CHECK_EQ(h.window, 506);
    CHECK(!o.has_mss && !o.sack_ok && !o.has_wscale && o.n_sack == 0);
    CHECK(o.has_ts && o.ts_val == 1010 && o.ts_ecr == 5000);
    CHECK_EQ(sizeof(data_ts) - (size_t)hl, 10);
    CHECK_MEM(data_ts + hl, "hello wren", 10);
}

TEST(test_tcp_hdr_parse__ack_with_three_sack_blocks)
{
    struct tcp_hdr h;
    struct tcp_opts o;
    CHECK_EQ(wren_tcp_hdr_parse(ack_sack3, sizeof(ack_sack3), &h, &o), 60);
    CHECK_EQ(h.flags, TCP_ACK);
    CHECK_EQ(h.ack, 0x12345683);
    CHECK(o.has_ts && o.ts_val == 5020 && o.ts_ecr == 1010);
    CHECK_EQ(o.n_sack, 3);
    CHECK_EQ(o.sack[0][0], 0x12345700);
    CHECK_EQ(o.sack[0][1], 0x12345800);
    CHECK_EQ(o.sack[1][0], 0x12345900);
    CHECK_EQ(o.sack[1][1], 0x12345a00);
    CHECK_EQ(o.sack[2][0], 0x10);
    CHECK_EQ(o.sack[2][1], 0x20);
}

TEST(test_tcp_hdr_parse__ecn_syn_without_timestamps)
{
    struct tcp_hdr h;
    struct tcp_opts o;
    CHECK_EQ(wren_tcp_hdr_parse(syn_nots, sizeof(syn_nots), &h, &o), 32);
    CHECK_EQ(h.flags, TCP_SYN | TCP_ECE | TCP_CWR);
    CHECK(o.has_mss && o.mss == 536);
    CHECK(o.sack_ok && !o.has_ts);
    CHECK(o.has_wscale && o.wscale == 2);
}

TEST(test_tcp_hdr_parse__reserved_bits_and_urgent_pointer)
{
    struct tcp_hdr h;
    struct tcp_opts o;
    /* the urgent pointer points past the 1-byte payload: exposed as is */
    CHECK_EQ(wren_tcp_hdr_parse(rst_urg, sizeof(rst_urg), &h, &o), 20);
    CHECK_EQ(h.flags, TCP_RST | TCP_URG | TCP_ACK);
    CHECK_EQ(h.rsvd, 0xa);
    CHECK_EQ(h.urg, 0x1234);
    CHECK_EQ(h.window, 0);
    CHECK(!o.has_mss && !o.sack_ok && !o.has_ts && !o.has_wscale && o.n_sack == 0);
}

TEST(test_tcp_hdr_parse__unknown_option_skipped_and_eol_ends_list)
{
    struct tcp_hdr h;
    struct tcp_opts o;
    CHECK_EQ(wren_tcp_hdr_parse(opt_eol_unknown, sizeof(opt_eol_unknown), &h, &o), 32);
    CHECK(o.has_mss && o.mss == 1000);
    CHECK(!o.sack_ok && !o.has_ts && !o.has_wscale && o.n_sack == 0);
}

TEST(test_tcp_hdr_parse__bytes_after_eol_are_not_read)
{
    /* after EOL comes padding: even what would be a malformed option */
    static const uint8_t opts[8] = { 0x02, 0x04, 0x01, 0x00, 0x00, 0x05, 0x01, 0x00 };
    struct tcp_opts o;
    CHECK_EQ(parse_opts_in_hdr(opts, sizeof(opts), &o), 28);
    CHECK(o.has_mss && o.mss == 256);
    CHECK_EQ(o.n_sack, 0);
}

TEST(test_tcp_hdr_parse__option_ends_at_header_end)
{
    /* no EOL needed when the options fill the header (RFC 9293 3.1) */
    static const uint8_t opts[4] = { 0x02, 0x04, 0x05, 0xb4 };
    struct tcp_opts o;
    CHECK_EQ(parse_opts_in_hdr(opts, sizeof(opts), &o), 24);
    CHECK(o.has_mss && o.mss == 1460);
}

TEST(test_tcp_hdr_parse__max_header_of_unknown_options)
{
    /* a 40-byte unknown option (kind 254, RFC 6994 experimental) */
    uint8_t opts[40];
    memset(opts, 0xee, sizeof(opts));
    opts[0] = 254;
    opts[1] = 40;
    struct tcp_opts o;
    CHECK_EQ(parse_opts_in_hdr(opts, sizeof(opts), &o), 60);
    CHECK(!o.has_mss && !o.has_ts && o.n_sack == 0);
}

TEST(test_tcp_hdr_parse__sack_four_blocks)
{
    uint8_t opts[36] = { 0x01, 0x01, 0x05, 34 };
    for (unsigned i = 0; i < 8; i++)
        put_be32(opts + 4 + 4 * i, 0x1000u * (i + 1));
    struct tcp_opts o;
    CHECK_EQ(parse_opts_in_hdr(opts, sizeof(opts), &o), 56);
    CHECK_EQ(o.n_sack, 4);
    CHECK_EQ(o.sack[0][0], 0x1000);
    CHECK_EQ(o.sack[3][1], 0x8000);
}

TEST(test_tcp_hdr_parse__duplicate_option_last_wins)
{
    static const uint8_t opts[8] = { 0x02, 0x04, 0x01, 0x00, 0x02, 0x04, 0x02, 0x00 };
    struct tcp_opts o;
    CHECK_EQ(parse_opts_in_hdr(opts, sizeof(opts), &o), 28);
    CHECK_EQ(o.mss, 512);
}

TEST(test_tcp_hdr_parse__options_cleared_first)
{
    struct tcp_hdr h;
    struct tcp_opts o;
    memset(&o, 0xff, sizeof(o));
    CHECK_EQ(wren_tcp_hdr_parse(rst_urg, sizeof(rst_urg), &h, &o), 20);
    CHECK(!o.has_mss && !o.sack_ok && !o.has_ts && !o.has_wscale && o.n_sack == 0);
}

/* ---- wren_tcp_hdr_parse: errors ---- */

TEST(test_tcp_hdr_parse__truncated_header)
{
    struct tcp_hdr h;
    struct tcp_opts o;
    for (size_t n = 0; n < TCP_HDR_LEN; n++) {
        /* an exact-size copy: ASan catches any read past it */
        uint8_t *c = malloc(n ? n : 1);
        CHECK(c);
        memcpy(c, rst_urg, n);
        int rc = wren_tcp_hdr_parse(c, n, &h, &o);
        free(c);
        CHECK_EQ(rc, -TCP_ERR_TRUNCATED);
    }
}

TEST(test_tcp_hdr_parse__data_offset_below_5)
{
    uint8_t b[sizeof(syn_linux)];
    struct tcp_hdr h;
    struct tcp_opts o;
    for (unsigned d = 0; d < 5; d++) {
        memcpy(b, syn_linux, sizeof(b));
        b[12] = (uint8_t)(d << 4);
        CHECK_EQ(wren_tcp_hdr_parse(b, sizeof(b), &h, &o), -TCP_ERR_DOFF);
    }
}

TEST(test_tcp_hdr_parse__data_offset_beyond_segment)
{
    struct tcp_hdr h;
    struct tcp_opts o;
    /* 40-byte header: every shorter segment */
    for (size_t n = TCP_HDR_LEN; n < sizeof(syn_linux); n++) {
        uint8_t *c = malloc(n);
        CHECK(c);
        memcpy(c, syn_linux, n);
        int rc = wren_tcp_hdr_parse(c, n, &h, &o);
        free(c);
        CHECK_EQ(rc, -TCP_ERR_DOFF_LEN);
    }
    uint8_t b[24];
    memcpy(b, rst_urg, 20);
    b[12] = 0xf0; /* 60 bytes claimed */
    CHECK_EQ(wren_tcp_hdr_parse(b, sizeof(b), &h, &o), -TCP_ERR_DOFF_LEN);
}

TEST(test_tcp_hdr_parse__option_length_0)
{
    static const uint8_t unknown[4] = { 0x1e, 0x00, 0x01, 0x01 };
    static const uint8_t mss[4] = { 0x02, 0x00, 0x05, 0xb4 };
    static const uint8_t sack[4] = { 0x01, 0x01, 0x05, 0x00 };
    struct tcp_opts o;
    CHECK_EQ(parse_opts_in_hdr(unknown, 4, &o), -TCP_ERR_OPT_LEN);
    CHECK_EQ(parse_opts_in_hdr(mss, 4, &o), -TCP_ERR_OPT_LEN);
    CHECK_EQ(parse_opts_in_hdr(sack, 4, &o), -TCP_ERR_OPT_LEN);
}

TEST(test_tcp_hdr_parse__option_length_1)
{
    static const uint8_t unknown[4] = { 0x1e, 0x01, 0x01, 0x01 };
    static const uint8_t ts[4] = { 0x01, 0x01, 0x08, 0x01 };
    struct tcp_opts o;
    CHECK_EQ(parse_opts_in_hdr(unknown, 4, &o), -TCP_ERR_OPT_LEN);
    CHECK_EQ(parse_opts_in_hdr(ts, 4, &o), -TCP_ERR_OPT_LEN);
}

TEST(test_tcp_hdr_parse__option_past_header)
{
    /* timestamps of length 10 in a 8-byte option area, payload behind it */
    static const uint8_t opts[8] = { 0x01, 0x01, 0x08, 0x0a, 0x00, 0x00, 0x00, 0x01 };
    uint8_t b[40];
    size_t n = with_opts(b, opts, sizeof(opts));
    memset(b + n, 0x55, sizeof(b) - n);
    struct tcp_hdr h;
    struct tcp_opts o;
    CHECK_EQ(wren_tcp_hdr_parse(b, sizeof(b), &h, &o), -TCP_ERR_OPT_TRUNCATED);
    /* an unknown option overlong by one */
    static const uint8_t unknown[4] = { 0x1e, 0x05, 0x00, 0x00 };
    CHECK_EQ(parse_opts_in_hdr(unknown, 4, &o), -TCP_ERR_OPT_TRUNCATED);
    /* length 255 */
    static const uint8_t huge[4] = { 0x01, 0x1e, 0xff, 0x00 };
    CHECK_EQ(parse_opts_in_hdr(huge, 4, &o), -TCP_ERR_OPT_TRUNCATED);
}

TEST(test_tcp_hdr_parse__option_length_byte_missing)
{
    /* the kind is the last byte of the header */
    static const uint8_t opts[4] = { 0x01, 0x01, 0x01, 0x02 };
    struct tcp_opts o;
    CHECK_EQ(parse_opts_in_hdr(opts, 4, &o), -TCP_ERR_OPT_TRUNCATED);
}

TEST(test_tcp_hdr_parse__wrong_mss_length)
{
    static const uint8_t mss3[4] = { 0x02, 0x03, 0x05, 0x01 };
    static const uint8_t mss5[8] = { 0x02, 0x05, 0x05, 0xb4, 0x00, 0x01, 0x01, 0x01 };
    static const uint8_t mss2[4] = { 0x02, 0x02, 0x01, 0x01 };
    struct tcp_opts o;
    CHECK_EQ(parse_opts_in_hdr(mss3, 4, &o), -TCP_ERR_OPT_SIZE);
    CHECK_EQ(parse_opts_in_hdr(mss5, 8, &o), -TCP_ERR_OPT_SIZE);
    CHECK_EQ(parse_opts_in_hdr(mss2, 4, &o), -TCP_ERR_OPT_SIZE);
}

TEST(test_tcp_hdr_parse__wrong_wscale_sack_ok_timestamp_length)
{
    static const uint8_t ws4[4] = { 0x03, 0x04, 0x00, 0x07 };
    static const uint8_t sok3[4] = { 0x04, 0x03, 0x00, 0x01 };
    static const uint8_t ts8[8] = { 0x08, 0x08, 0, 0, 0, 1, 0, 0 };
    static const uint8_t ts12[12] = { 0x08, 0x0c, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0 };
    struct tcp_opts o;
    CHECK_EQ(parse_opts_in_hdr(ws4, 4, &o), -TCP_ERR_OPT_SIZE);
    CHECK_EQ(parse_opts_in_hdr(sok3, 4, &o), -TCP_ERR_OPT_SIZE);
    CHECK_EQ(parse_opts_in_hdr(ts8, 8, &o), -TCP_ERR_OPT_SIZE);
    CHECK_EQ(parse_opts_in_hdr(ts12, 12, &o), -TCP_ERR_OPT_SIZE);
}

TEST(test_tcp_hdr_parse__sack_length_not_2_plus_8n)
{
    uint8_t opts[20] = { 0x01, 0x05, 11 }; /* 2 + 8 + 1 */
    struct tcp_opts o;
    CHECK_EQ(parse_opts_in_hdr(opts, 12, &o), -TCP_ERR_OPT_SACK);
    opts[2] = 17; /* 2 + 16 - 1 */
    CHECK_EQ(parse_opts_in_hdr(opts, 20, &o), -TCP_ERR_OPT_SACK);
    opts[2] = 2; /* no blocks */
    CHECK_EQ(parse_opts_in_hdr(opts, 4, &o), -TCP_ERR_OPT_SACK);
}

TEST(test_tcp_hdr_parse__error_after_valid_options)
{
    static const uint8_t opts[8] = { 0x02, 0x04, 0x05, 0xb4, 0x01, 0x1e, 0x00, 0x00 };
    struct tcp_opts o;
    CHECK_EQ(parse_opts_in_hdr(opts, 8, &o), -TCP_ERR_OPT_LEN);
}

/* ---- wren_tcp_opts_parse ---- */

TEST(test_tcp_opts_parse__empty_and_padding_only)
{
    static const uint8_t nops[3] = { 0x01, 0x01, 0x01 };
    struct tcp_opts o;
    memset(&o, 0xff, sizeof(o));
    CHECK_EQ(wren_tcp_opts_parse(NULL, 0, &o), 0);
    CHECK(!o.has_mss && !o.sack_ok && !o.has_ts && !o.has_wscale && o.n_sack == 0);
    CHECK_EQ(wren_tcp_opts_parse(nops, sizeof(nops), &o), 0);
    CHECK_EQ(wren_tcp_opts_parse(nops, 1, &o), 0);
}

TEST(test_tcp_opts_parse__five_sack_blocks_refused)
{
    /* 42 bytes cannot sit in a header, but the list parser alone takes any length */
    uint8_t opts[42] = { 0x05, 42 };
    struct tcp_opts o;
    CHECK_EQ(wren_tcp_opts_parse(opts, sizeof(opts), &o), -TCP_ERR_OPT_SACK);
}

TEST(test_tcp_opts_parse__every_prefix_of_sack_option)
{
    /* cut anywhere: the length byte or the value is missing */
    const uint8_t *opts = ack_sack3 + 20;
    struct tcp_opts o;
    for (size_t n = 0; n <= 40; n++) {
        uint8_t *c = malloc(n ? n : 1);
        CHECK(c);
        memcpy(c, opts, n);
        int rc = wren_tcp_opts_parse(c, n, &o);
        free(c);
        if (n <= 2 || n == 12 || n == 13 || n == 14 || n == 40)
            CHECK_EQ(rc, 0);
        else
            CHECK_EQ(rc, -TCP_ERR_OPT_TRUNCATED);
    }
}

/* ---- wren_tcp_opts_len / wren_tcp_hdr_len ---- */

TEST(test_tcp_opts_len__each_option)
{
    struct tcp_opts o = { 0 };
    CHECK_EQ(wren_tcp_opts_len(NULL), 0);
    CHECK_EQ(wren_tcp_opts_len(&o), 0);
    o.has_mss = true;
    CHECK_EQ(wren_tcp_opts_len(&o), 4);
    o.sack_ok = true;
    CHECK_EQ(wren_tcp_opts_len(&o), 8);
    o.has_ts = true; /* SACK-permitted rides in the timestamps' NOPs */
    CHECK_EQ(wren_tcp_opts_len(&o), 16);
    o.has_wscale = true;
    CHECK_EQ(wren_tcp_opts_len(&o), 20);
    o.n_sack = 2;
    CHECK_EQ(wren_tcp_opts_len(&o), 40);
    CHECK_EQ(wren_tcp_hdr_len(&o), 60);
    CHECK_EQ(wren_tcp_hdr_len(NULL), 20);
}

TEST(test_tcp_opts_len__too_many_sack_blocks)
{
    struct tcp_opts o = { .n_sack = 4 };
    CHECK_EQ(wren_tcp_opts_len(&o), 36);
    o.has_ts = true; /* 12 + 36 > 40 */
    CHECK_EQ(wren_tcp_opts_len(&o), -TCP_ERR_INVAL);
    CHECK_EQ(wren_tcp_hdr_len(&o), -TCP_ERR_INVAL);
    o.n_sack = 3;
    CHECK_EQ(wren_tcp_opts_len(&o), 40);
    o.has_ts = false;
    o.n_sack = 5;
    CHECK_EQ(wren_tcp_opts_len(&o), -TCP_ERR_INVAL);
    o.n_sack = 255;
    CHECK_EQ(wren_tcp_opts_len(&o), -TCP_ERR_INVAL);
    struct tcp_opts syn = { .has_mss = true, .sack_ok = true, .has_ts = true,
                            .has_wscale = true, .n_sack = 3 };
    CHECK_EQ(wren_tcp_opts_len(&syn), -TCP_ERR_INVAL);
}

/* ---- wren_tcp_hdr_emit: against the captures ---- */

static void hdr_of(const uint8_t *seg, size_t len, struct tcp_hdr *h, struct tcp_opts *o)
{
    if (wren_tcp_hdr_parse(seg, len, h, o) < 0)
        abort();
}

TEST(test_tcp_hdr_emit__linux_syn_layout)
{
    struct tcp_hdr h = { .src_port = 43210, .dst_port = 80, .seq = 0x12345678,
                         .flags = TCP_SYN, .window = 64800 };
    struct tcp_opts o = { .has_mss = true, .mss = 1440, .sack_ok = true, .has_ts = true,
                          .ts_val = 1000, .has_wscale = true, .wscale = 7 };
    uint8_t b[60];
    CHECK_EQ(wren_tcp_hdr_emit(&h, &o, b, sizeof(b)), 40);
    put_be16(b + TCP_OFF_CSUM, wren_tcp_csum(addr1, addr2, b, 40));
    CHECK_MEM(b, syn_linux, sizeof(syn_linux));
}

TEST(test_tcp_hdr_emit__syn_ack)
{
    struct tcp_hdr h = { .src_port = 80, .dst_port = 43210, .seq = 0xfffffff0u,
                         .ack = 0x12345679, .flags = TCP_SYN | TCP_ACK, .window = 2048 };
    struct tcp_opts o = { .has_mss = true, .mss = 1220, .sack_ok = true, .has_ts = true,
                          .ts_val = 5000, .ts_ecr = 1000 };
    uint8_t b[60];
    CHECK_EQ(wren_tcp_hdr_len(&o), 36);
    CHECK_EQ(wren_tcp_hdr_emit(&h, &o, b, sizeof(b)), 36);
    CHECK_EQ(get_be16(b + TCP_OFF_CSUM), 0);
    put_be16(b + TCP_OFF_CSUM, wren_tcp_csum(addr2, addr1, b, 36));
    CHECK_MEM(b, synack, sizeof(synack));
}

TEST(test_tcp_hdr_emit__data_with_timestamps)
{
    struct tcp_hdr h = { .src_port = 43210, .dst_port = 80, .seq = 0x12345679,
                         .ack = 0xfffffff1u, .flags = TCP_PSH | TCP_ACK, .window = 506 };
    struct tcp_opts o = { .has_ts = true, .ts_val = 1010, .ts_ecr = 5000 };
    uint8_t b[64];
    int hl = wren_tcp_hdr_emit(&h, &o, b, sizeof(b));
    CHECK_EQ(hl, 32);
    memcpy(b + hl, "hello wren", 10);
    put_be16(b + TCP_OFF_CSUM, wren_tcp_csum(addr1, addr2, b, (size_t)hl + 10));
    CHECK_MEM(b, data_ts, sizeof(data_ts));
}

TEST(test_tcp_hdr_emit__ack_with_three_sack_blocks)
{
    struct tcp_hdr h = { .src_port = 80, .dst_port = 43210, .seq = 0xfffffff1u,
                         .ack = 0x12345683, .flags = TCP_ACK, .window = 2048 };
    struct tcp_opts o = { .has_ts = true, .ts_val = 5020, .ts_ecr = 1010, .n_sack = 3,
                          .sack = { { 0x12345700, 0x12345800 },
                                    { 0x12345900, 0x12345a00 },
                                    { 0x10, 0x20 } } };
    uint8_t b[60];
    CHECK_EQ(wren_tcp_hdr_emit(&h, &o, b, sizeof(b)), 60);
    put_be16(b + TCP_OFF_CSUM, wren_tcp_csum(addr2, addr1, b, 60));
    CHECK_MEM(b, ack_sack3, sizeof(ack_sack3));
}

TEST(test_tcp_hdr_emit__ecn_syn_without_timestamps)
{
    struct tcp_hdr h;
    struct tcp_opts o;
    hdr_of(syn_nots, sizeof(syn_nots), &h, &o);
    uint8_t b[60];
    /* MSS, NOP NOP SACK-permitted, NOP window scale: scapy's bytes exactly */
    CHECK_EQ(wren_tcp_hdr_emit(&h, &o, b, sizeof(b)), 32);
    CHECK_MEM(b, syn_nots, sizeof(syn_nots));
}

TEST(test_tcp_hdr_emit__no_options_reserved_bits_urgent)
{
    struct tcp_hdr h;
    struct tcp_opts o;
    hdr_of(rst_urg, sizeof(rst_urg), &h, &o);
    uint8_t b[21];
    CHECK_EQ(wren_tcp_hdr_emit(&h, NULL, b, sizeof(b)), 20);
    b[20] = 'x';
    CHECK_MEM(b, rst_urg, sizeof(rst_urg));
    h.rsvd = 0xf5; /* only the low 4 bits are a field */
    CHECK_EQ(wren_tcp_hdr_emit(&h, &o, b, sizeof(b)), 20);
    CHECK_EQ(b[12], 0x55);
}

TEST(test_tcp_hdr_emit__buffer_too_small)
{
    struct tcp_hdr h;
    struct tcp_opts o;
    hdr_of(ack_sack3, sizeof(ack_sack3), &h, &o);
    uint8_t b[60];
    for (size_t n = 0; n < 60; n++) {
        memset(b, 0xa5, sizeof(b));
        CHECK_EQ(wren_tcp_hdr_emit(&h, &o, b, n), -TCP_ERR_NOBUFS);
        for (size_t i = 0; i < sizeof(b); i++)
            CHECK_EQ(b[i], 0xa5);
    }
    CHECK_EQ(wren_tcp_hdr_emit(&h, &o, b, 60), 60);
}

TEST(test_tcp_hdr_emit__options_over_40_bytes)
{
    struct tcp_hdr h = { .flags = TCP_ACK };
    struct tcp_opts o = { .has_ts = true, .n_sack = 4 };
    uint8_t b[80];
    memset(b, 0xa5, sizeof(b));
    CHECK_EQ(wren_tcp_hdr_emit(&h, &o, b, sizeof(b)), -TCP_ERR_INVAL);
    CHECK_EQ(wren_tcp_opts_emit(&o, b, sizeof(b)), -TCP_ERR_INVAL);
    CHECK_EQ(b[0], 0xa5);
}

TEST(test_tcp_opts_emit__layout_and_size)
{
    struct tcp_opts o = { .has_ts = true, .ts_val = 1, .ts_ecr = 2, .n_sack = 1,
                          .sack = { { 3, 4 } } };
    static const uint8_t want[24] = { 0x01, 0x01, 0x08, 0x0a, 0, 0, 0, 1, 0, 0, 0, 2,
                                      0x01, 0x01, 0x05, 0x0a, 0, 0, 0, 3, 0, 0, 0, 4 };
    uint8_t b[24];
    CHECK_EQ(wren_tcp_opts_emit(&o, b, 23), -TCP_ERR_NOBUFS);
    CHECK_EQ(wren_tcp_opts_emit(&o, b, 24), 24);
    CHECK_MEM(b, want, sizeof(want));
    CHECK_EQ(wren_tcp_opts_emit(NULL, b, 0), 0);
    struct tcp_opts none = { 0 };
    CHECK_EQ(wren_tcp_opts_emit(&none, NULL, 0), 0);
}

/* ---- round trips ---- */

TEST(test_tcp_hdr_emit__round_trip_every_option_combination)
{
    unsigned tried = 0;
    for (unsigned m = 0; m < 16; m++) {
        for (unsigned ns = 0; ns <= 5; ns++) {
            struct tcp_hdr h = { .src_port = (uint16_t)(1000 + m), .dst_port = 0xffff,
                                 .seq = 0xfffffffeu - m, .ack = m * 0x01010101u,
                                 .flags = (uint8_t)(m * 17), .rsvd = (uint8_t)(m & 0xf),
                                 .window = (uint16_t)(ns * 777), .csum = 0xbeef,
                                 .urg = (uint16_t)(m << 8) };
            struct tcp_opts o = { .has_mss = m & 1, .mss = (uint16_t)(536 + m),
                                  .sack_ok = (m >> 1) & 1, .has_ts = (m >> 2) & 1,
                                  .ts_val = 0x80000000u + m, .ts_ecr = ~m,
                                  .has_wscale = (m >> 3) & 1, .wscale = (uint8_t)(m + 1),
                                  .n_sack = (uint8_t)ns };
            for (unsigned i = 0; i < TCP_SACK_MAX; i++) {
                o.sack[i][0] = 0xfffff000u + 0x100 * i;
                o.sack[i][1] = o.sack[i][0] + 0x80 + m;
            }
            uint8_t b[TCP_HDR_MAX_LEN + 4];
            int want = wren_tcp_hdr_len(&o);
            int n = wren_tcp_hdr_emit(&h, &o, b, sizeof(b));
            CHECK_EQ(n, want);
            /* the options' sizes: MSS 4, TS 12 or SACK-permitted alone 4, WS 4,
             * SACK blocks 4 + 8n; at most 40 */
            unsigned olen = 4 * (m & 1) + ((m & 4) ? 12 : (m & 2) ? 4 : 0) + 4 * (m >> 3 & 1) +
                            (ns ? 4 + 8 * ns : 0);
            CHECK_EQ(n, olen <= 40 ? (int)(20 + olen) : -TCP_ERR_INVAL);
            if (n < 0)
                continue;
            tried++;
            CHECK_EQ(n % 4, 0);
            CHECK_EQ(wren_tcp_hdr_emit(&h, &o, b, (size_t)n), n); /* exactly enough */
            struct tcp_hdr h2;
            struct tcp_opts o2;
            CHECK_EQ(wren_tcp_hdr_parse(b, (size_t)n, &h2, &o2), n);
            CHECK(hdr_equal(&h, &h2));
            CHECK(opts_equal(&o, &o2));
            /* NOPs pad, never EOL: every option ends on a 4-byte boundary
             * but SACK-permitted, which the timestamps follow directly */
            for (int i = 20; i < n;) {
                if (b[i] == TCP_OPT_NOP) {
                    i++;
                    continue;
                }
                CHECK(b[i] != TCP_OPT_EOL && i + 1 < n && b[i + 1] >= 2);
                int k = b[i];
                i += b[i + 1];
                CHECK(i % 4 == 0 || (k == TCP_OPT_SACK_OK && b[i] == TCP_OPT_TS));
            }
        }
    }
    CHECK_EQ(tried, 62); /* of 96: 5 blocks never fit, 4 fit beside 4 bytes at most */
}

TEST(test_tcp_hdr_parse__round_trip_captures)
{
    /* parse -> emit gives the capture back: all are laid out as wren emits */
    const uint8_t *caps[] = { syn_linux, synack, data_ts, ack_sack3, syn_nots, rst_urg };
    const size_t lens[] = { sizeof(syn_linux), sizeof(synack), sizeof(data_ts),
                            sizeof(ack_sack3), sizeof(syn_nots), sizeof(rst_urg) };
    for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
        struct tcp_hdr h;
        struct tcp_opts o;
        int hl = wren_tcp_hdr_parse(caps[i], lens[i], &h, &o);
        CHECK(hl >= 20);
        uint8_t b[TCP_HDR_MAX_LEN];
        CHECK_EQ(wren_tcp_hdr_emit(&h, &o, b, sizeof(b)), hl);
        CHECK_MEM(b, caps[i], (size_t)hl);
    }
}

/* ---- checksum ---- */

TEST(test_tcp_csum_check__every_capture)
{
    CHECK_EQ(wren_tcp_csum_check(addr1, addr2, syn_linux, sizeof(syn_linux)), 0);
    CHECK_EQ(wren_tcp_csum_check(addr2, addr1, synack, sizeof(synack)), 0);
    CHECK_EQ(wren_tcp_csum_check(addr1, addr2, data_ts, sizeof(data_ts)), 0);
    CHECK_EQ(wren_tcp_csum_check(addr2, addr1, ack_sack3, sizeof(ack_sack3)), 0);
    CHECK_EQ(wren_tcp_csum_check(addr1, addr2, syn_nots, sizeof(syn_nots)), 0);
    CHECK_EQ(wren_tcp_csum_check(addr1, addr2, rst_urg, sizeof(rst_urg)), 0);
    CHECK_EQ(wren_tcp_csum_check(addr1, addr2, opt_eol_unknown, sizeof(opt_eol_unknown)), 0);
}

TEST(test_tcp_csum_check__corrupted)
{
    uint8_t b[sizeof(data_ts)];
    for (size_t i = 0; i < sizeof(b); i++) {
        memcpy(b, data_ts, sizeof(b));
        b[i] ^= 0x01;
        CHECK_EQ(wren_tcp_csum_check(addr1, addr2, b, sizeof(b)), -TCP_ERR_CSUM);
    }
    /* wrong addresses, wrong length */
    CHECK_EQ(wren_tcp_csum_check(addr2, addr2, data_ts, sizeof(data_ts)), -TCP_ERR_CSUM);
    CHECK_EQ(wren_tcp_csum_check(addr1, addr2, data_ts, sizeof(data_ts) - 2), -TCP_ERR_CSUM);
}

TEST(test_tcp_csum_check__truncated)
{
    CHECK_EQ(wren_tcp_csum_check(addr1, addr2, rst_urg, 19), -TCP_ERR_TRUNCATED);
    CHECK_EQ(wren_tcp_csum_check(addr1, addr2, rst_urg, 0), -TCP_ERR_TRUNCATED);
}

TEST(test_tcp_csum__ignores_checksum_field)
{
    uint8_t b[sizeof(rst_urg)];
    memcpy(b, rst_urg, sizeof(b));
    b[16] = 0x12;
    b[17] = 0x34;
    /* an odd length: the payload byte is padded */
    CHECK_EQ(wren_tcp_csum(addr1, addr2, b, sizeof(b)), get_be16(rst_urg + TCP_OFF_CSUM));
}

TEST(test_tcp_csum__scattered_pieces)
{
    /* the header with a zero checksum, then the payload in every 2-piece split */
    uint8_t hdr[32];
    memcpy(hdr, data_ts, 32);
    hdr[16] = hdr[17] = 0;
    const uint8_t *pay = data_ts + 32;
    for (size_t cut = 0; cut <= 10; cut++) {
        struct inet_csum c;
        wren_tcp_csum_start(&c, addr1, addr2, sizeof(data_ts));
        wren_inet_csum_update(&c, hdr, sizeof(hdr));
        wren_inet_csum_update(&c, pay, cut);
        wren_inet_csum_update(&c, pay + cut, 10 - cut);
        CHECK_EQ(wren_inet_csum_final(&c), get_be16(data_ts + TCP_OFF_CSUM));
        /* and verifying the received pieces */
        wren_tcp_csum_start(&c, addr1, addr2, sizeof(data_ts));
        wren_inet_csum_update(&c, data_ts, 32 + cut);
        wren_inet_csum_update(&c, data_ts + 32 + cut, 10 - cut);
        CHECK_EQ(wren_inet_csum_final(&c), 0);
    }
}

/* ---- sequence arithmetic ---- */

TEST(test_tcp_seq_lt__across_the_wrap)
{
    CHECK(wren_tcp_seq_lt(1, 2));
    CHECK(!wren_tcp_seq_lt(2, 1));
    CHECK(!wren_tcp_seq_lt(5, 5));
    CHECK(wren_tcp_seq_lt(0xffffffffu, 0));
    CHECK(wren_tcp_seq_lt(0xfffffff0u, 0x10));
    CHECK(!wren_tcp_seq_lt(0x10, 0xfffffff0u));
    CHECK(wren_tcp_seq_lt(0, 0x7fffffffu));
    CHECK(!wren_tcp_seq_lt(0, 0x80000001u)); /* more than half ahead: behind */
    CHECK(wren_tcp_seq_lt(0x80000001u, 0));
}

TEST(test_tcp_seq_le_gt_ge__across_the_wrap)
{
    CHECK(wren_tcp_seq_le(0xffffffffu, 0));
    CHECK(wren_tcp_seq_le(7, 7));
    CHECK(!wren_tcp_seq_le(0, 0xffffffffu));
    CHECK(wren_tcp_seq_gt(0, 0xffffffffu));
    CHECK(!wren_tcp_seq_gt(7, 7));
    CHECK(!wren_tcp_seq_gt(0xffffffffu, 0));
    CHECK(wren_tcp_seq_ge(0, 0xffffffffu));
    CHECK(wren_tcp_seq_ge(7, 7));
    CHECK(!wren_tcp_seq_ge(0xffffffffu, 0));
    /* consistency over a sweep around the wrap */
    for (uint32_t a = 0xfffffff8u; a != 8; a++) {
        for (uint32_t d = 1; d < 100; d += 7) {
            uint32_t b = a + d;
            CHECK(wren_tcp_seq_lt(a, b) && wren_tcp_seq_le(a, b) && !wren_tcp_seq_ge(a, b) &&
                  !wren_tcp_seq_gt(a, b));
            CHECK(wren_tcp_seq_gt(b, a) && wren_tcp_seq_ge(b, a) && !wren_tcp_seq_le(b, a) &&
                  !wren_tcp_seq_lt(b, a));
        }
    }
}

TEST(test_tcp_seq_lt__half_the_space_apart)
{
    /* 2^31 apart: each before the other (as Linux's before()) */
    CHECK(wren_tcp_seq_lt(0, 0x80000000u));
    CHECK(wren_tcp_seq_lt(0x80000000u, 0));
}

TEST(test_tcp_seq_between__window_across_the_wrap)
{
    uint32_t nxt = 0xfffffc00u, wnd = 2048; /* [nxt, nxt + wnd) spans the wrap */
    CHECK(wren_tcp_seq_between(nxt, nxt, nxt + wnd));
    CHECK(wren_tcp_seq_between(0xffffffffu, nxt, nxt + wnd));
    CHECK(wren_tcp_seq_between(0, nxt, nxt + wnd));
    CHECK(wren_tcp_seq_between(nxt + wnd - 1, nxt, nxt + wnd));
    CHECK(!wren_tcp_seq_between(nxt + wnd, nxt, nxt + wnd));
    CHECK(!wren_tcp_seq_between(nxt - 1, nxt, nxt + wnd));
    CHECK(!wren_tcp_seq_between(0x80000000u, nxt, nxt + wnd));
}

TEST(test_tcp_seq_between__empty_and_full_ranges)
{
    CHECK(!wren_tcp_seq_between(5, 5, 5));
    CHECK(!wren_tcp_seq_between(0, 5, 5));
    /* 2^32 - 1 numbers: all but hi */
    CHECK(wren_tcp_seq_between(0x12345678u, 1, 0));
    CHECK(!wren_tcp_seq_between(0, 1, 0));
}

TEST(test_tcp_seq_between__ack_acceptability)
{
    /* SND.UNA < SEG.ACK =< SND.NXT across the wrap */
    uint32_t una = 0xfffffffeu, nxt = 3;
    CHECK(!wren_tcp_seq_between(una, una + 1, nxt + 1));
    CHECK(wren_tcp_seq_between(0xffffffffu, una + 1, nxt + 1));
    CHECK(wren_tcp_seq_between(0, una + 1, nxt + 1));
    CHECK(wren_tcp_seq_between(nxt, una + 1, nxt + 1));
    CHECK(!wren_tcp_seq_between(nxt + 1, una + 1, nxt + 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tcp_hdr_parse__linux_syn),
        cmocka_unit_test(test_tcp_hdr_parse__syn_ack),
        cmocka_unit_test(test_tcp_hdr_parse__data_with_timestamps),
        cmocka_unit_test(test_tcp_hdr_parse__ack_with_three_sack_blocks),
        cmocka_unit_test(test_tcp_hdr_parse__ecn_syn_without_timestamps),
        cmocka_unit_test(test_tcp_hdr_parse__reserved_bits_and_urgent_pointer),
        cmocka_unit_test(test_tcp_hdr_parse__unknown_option_skipped_and_eol_ends_list),
        cmocka_unit_test(test_tcp_hdr_parse__bytes_after_eol_are_not_read),
        cmocka_unit_test(test_tcp_hdr_parse__option_ends_at_header_end),
        cmocka_unit_test(test_tcp_hdr_parse__max_header_of_unknown_options),
        cmocka_unit_test(test_tcp_hdr_parse__sack_four_blocks),
        cmocka_unit_test(test_tcp_hdr_parse__duplicate_option_last_wins),
        cmocka_unit_test(test_tcp_hdr_parse__options_cleared_first),
        cmocka_unit_test(test_tcp_hdr_parse__truncated_header),
        cmocka_unit_test(test_tcp_hdr_parse__data_offset_below_5),
        cmocka_unit_test(test_tcp_hdr_parse__data_offset_beyond_segment),
        cmocka_unit_test(test_tcp_hdr_parse__option_length_0),
        cmocka_unit_test(test_tcp_hdr_parse__option_length_1),
        cmocka_unit_test(test_tcp_hdr_parse__option_past_header),
        cmocka_unit_test(test_tcp_hdr_parse__option_length_byte_missing),
        cmocka_unit_test(test_tcp_hdr_parse__wrong_mss_length),
        cmocka_unit_test(test_tcp_hdr_parse__wrong_wscale_sack_ok_timestamp_length),
        cmocka_unit_test(test_tcp_hdr_parse__sack_length_not_2_plus_8n),
        cmocka_unit_test(test_tcp_hdr_parse__error_after_valid_options),
        cmocka_unit_test(test_tcp_opts_parse__empty_and_padding_only),
        cmocka_unit_test(test_tcp_opts_parse__five_sack_blocks_refused),
        cmocka_unit_test(test_tcp_opts_parse__every_prefix_of_sack_option),
        cmocka_unit_test(test_tcp_opts_len__each_option),
        cmocka_unit_test(test_tcp_opts_len__too_many_sack_blocks),
        cmocka_unit_test(test_tcp_hdr_emit__linux_syn_layout),
        cmocka_unit_test(test_tcp_hdr_emit__syn_ack),
        cmocka_unit_test(test_tcp_hdr_emit__data_with_timestamps),
        cmocka_unit_test(test_tcp_hdr_emit__ack_with_three_sack_blocks),
        cmocka_unit_test(test_tcp_hdr_emit__ecn_syn_without_timestamps),
        cmocka_unit_test(test_tcp_hdr_emit__no_options_reserved_bits_urgent),
        cmocka_unit_test(test_tcp_hdr_emit__buffer_too_small),
        cmocka_unit_test(test_tcp_hdr_emit__options_over_40_bytes),
        cmocka_unit_test(test_tcp_opts_emit__layout_and_size),
        cmocka_unit_test(test_tcp_hdr_emit__round_trip_every_option_combination),
        cmocka_unit_test(test_tcp_hdr_parse__round_trip_captures),
        cmocka_unit_test(test_tcp_csum_check__every_capture),
        cmocka_unit_test(test_tcp_csum_check__corrupted),
        cmocka_unit_test(test_tcp_csum_check__truncated),
        cmocka_unit_test(test_tcp_csum__ignores_checksum_field),
        cmocka_unit_test(test_tcp_csum__scattered_pieces),
        cmocka_unit_test(test_tcp_seq_lt__across_the_wrap),
        cmocka_unit_test(test_tcp_seq_le_gt_ge__across_the_wrap),
        cmocka_unit_test(test_tcp_seq_lt__half_the_space_apart),
        cmocka_unit_test(test_tcp_seq_between__window_across_the_wrap),
        cmocka_unit_test(test_tcp_seq_between__empty_and_full_ranges),
        cmocka_unit_test(test_tcp_seq_between__ack_acceptability),
    };
    return cmocka_run_group_tests_name("tcp", tests, NULL, NULL);
}

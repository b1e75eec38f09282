/**
 * @file fuzz_tcp.c
 * @brief libFuzzer target for the TCP header and option parser and emitter.
 *
 * The input is one TCP segment. Parsed from an exact-size copy (ASan bounds),
 * the result must agree with the bytes and the error must be the one the
 * bytes call for; the header alone parses the same (nothing past it is
 * read). What parses is emitted into exactly wren_tcp_hdr_len() bytes (one less
 * is refused) and re-parsed to the same fields; options that do not fit
 * 40 bytes in wren's layout (INVAL) lose SACK blocks until they do. The
 * checksum computed whole, verified, and summed in two pieces agree. The
 * input is also parsed as a bare option list, and sequence arithmetic is
 * checked on words of the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/byteorder.h"
#include "wire/tcp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        if (!(cond))                                                                               \
            abort();                                                                               \
    } while (0)

static const uint8_t src[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t dst[16] = { 0xfe, 0x80, [8] = 0x02, [15] = 0x42 };

static int parse_copy(const uint8_t *d, size_t n, struct tcp_hdr *h, struct tcp_opts *o)
{
    uint8_t *c = malloc(n ? n : 1);
    REQUIRE(c);
    if (n)
        memcpy(c, d, n);
    int rc = wren_tcp_hdr_parse(c, n, h, o);
    free(c);
    return rc;
}

static int opts_parse_copy(const uint8_t *d, size_t n, struct tcp_opts *o)
{
    uint8_t *c = malloc(n ? n : 1);
    REQUIRE(c);
    if (n)
        memcpy(c, d, n);
    int rc = wren_tcp_opts_parse(c, n, o);
    free(c);
    return rc;
}

static void same_hdr(const struct tcp_hdr *a, const struct tcp_hdr *b)
{
    REQUIRE(a->src_port == b->src_port && a->dst_port == b->dst_port);
    REQUIRE(a->seq == b->seq && a->ack == b->ack && a->flags == b->flags);
    REQUIRE(a->rsvd == b->rsvd && a->window == b->window && a->csum == b->csum);
    REQUIRE(a->urg == b->urg);
}

static void same_opts(const struct tcp_opts *a, const struct tcp_opts *b)
{
    REQUIRE(a->has_mss == b->has_mss && a->mss == b->mss);
    REQUIRE(a->has_wscale == b->has_wscale && a->wscale == b->wscale);
    REQUIRE(a->sack_ok == b->sack_ok && a->n_sack == b->n_sack);
    REQUIRE(a->has_ts == b->has_ts && a->ts_val == b->ts_val && a->ts_ecr == b->ts_ecr);
    for (unsigned i = 0; i < a->n_sack; i++)
        REQUIRE(a->sack[i][0] == b->sack[i][0] && a->sack[i][1] == b->sack[i][1]);
}

static void check_opts_cleared(const struct tcp_opts *o)
{
    /* parse zeroes first: absent options read as 0 (so same_opts holds) */
    if (!o->has_mss)
        REQUIRE(o->mss == 0);
    if (!o->has_wscale)
        REQUIRE(o->wscale == 0);
    if (!o->has_ts)
        REQUIRE(o->ts_val == 0 && o->ts_ecr == 0);
    REQUIRE(o->n_sack <= TCP_SACK_MAX);
}

static void emit_round_trip(const struct tcp_hdr *h, struct tcp_opts *o)
{
    int n = wren_tcp_hdr_len(o);
    int ol = wren_tcp_opts_len(o);
    if (n < 0) {
        /* only for options over 40 bytes: SACK blocks beside much else */
        REQUIRE(n == -TCP_ERR_INVAL && ol == -TCP_ERR_INVAL && o->n_sack > 0);
        while (o->n_sack && wren_tcp_hdr_len(o) < 0)
            o->n_sack--;
        n = wren_tcp_hdr_len(o);
        ol = wren_tcp_opts_len(o);
    }
    REQUIRE(n >= TCP_HDR_LEN && n <= TCP_HDR_MAX_LEN && n % 4 == 0 && n == TCP_HDR_LEN + ol);

    uint8_t *b = malloc((size_t)n);
    REQUIRE(b);
    REQUIRE(wren_tcp_hdr_emit(h, o, b, (size_t)n - 1) == -TCP_ERR_NOBUFS);
    REQUIRE(wren_tcp_hdr_emit(h, o, b, (size_t)n) == n);
    struct tcp_hdr h2;
    struct tcp_opts o2;
    REQUIRE(wren_tcp_hdr_parse(b, (size_t)n, &h2, &o2) == n);
    same_hdr(h, &h2);
    same_opts(o, &o2);

    /* the options alone */
    uint8_t ob[TCP_OPTS_MAX_LEN];
    REQUIRE(wren_tcp_opts_emit(o, ob, sizeof(ob)) == ol);
    REQUIRE(memcmp(ob, b + TCP_HDR_LEN, (size_t)ol) == 0);
    free(b);
}

static void check_csum(const uint8_t *d, size_t size)
{
    if (size < TCP_HDR_LEN) {
        REQUIRE(wren_tcp_csum_check(src, dst, d, size) == -TCP_ERR_TRUNCATED);
        return;
    }
    uint8_t *c = malloc(size);
    REQUIRE(c);
    memcpy(c, d, size);
    uint16_t cs = wren_tcp_csum(src, dst, c, size);
    put_be16(c + TCP_OFF_CSUM, cs);
    REQUIRE(wren_tcp_csum_check(src, dst, c, size) == 0);
    REQUIRE(wren_tcp_csum(src, dst, c, size) == cs);

    /* two pieces, with a zero checksum field */
    c[TCP_OFF_CSUM] = c[TCP_OFF_CSUM + 1] = 0;
    size_t cut = d[0] % (size + 1);
    struct inet_csum s;
    wren_tcp_csum_start(&s, src, dst, (uint32_t)size);
    wren_inet_csum_update(&s, c, cut);
    wren_inet_csum_update(&s, c + cut, size - cut);
    REQUIRE(wren_inet_csum_final(&s) == cs);
    free(c);
}

static void check_seq(const uint8_t *d, size_t size)
{
    if (size < 12)
        return;
    uint32_t a = get_be32(d), b = get_be32(d + 4), c = get_be32(d + 8);
    REQUIRE(wren_tcp_seq_lt(a, b) == wren_tcp_seq_gt(b, a));
    REQUIRE(wren_tcp_seq_le(a, b) == wren_tcp_seq_ge(b, a));
    REQUIRE(wren_tcp_seq_le(a, b) == (a == b || wren_tcp_seq_lt(a, b)));
    if (b - a != 0x80000000u && a != b)
        REQUIRE(wren_tcp_seq_lt(a, b) != wren_tcp_seq_lt(b, a));
    /* [a, c) holds b exactly when b is reached first walking up from a */
    REQUIRE(wren_tcp_seq_between(b, a, c) == (b - a < c - a));
    if (wren_tcp_seq_between(b, a, c))
        REQUIRE(wren_tcp_seq_ge(b, a) || c - a > 0x80000000u);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct tcp_hdr h, h2;
    struct tcp_opts o, o2;

    /* the whole input as an option list */
    int orc = opts_parse_copy(data, size, &o);
    REQUIRE(orc == 0 || (orc <= -TCP_ERR_OPT_LEN && orc >= -TCP_ERR_OPT_SACK));
    if (orc == 0)
        check_opts_cleared(&o);

    check_csum(data, size);
    check_seq(data, size);

    int rc = parse_copy(data, size, &h, &o);
    if (size < TCP_HDR_LEN) {
        REQUIRE(rc == -TCP_ERR_TRUNCATED);
        return 0;
    }
    size_t hl = (size_t)(data[12] >> 4) * 4;
    if (hl < TCP_HDR_LEN) {
        REQUIRE(rc == -TCP_ERR_DOFF);
        return 0;
    }
    if (hl > size) {
        REQUIRE(rc == -TCP_ERR_DOFF_LEN);
        return 0;
    }
    /* the header is the options' only input: parsed alone they say the same */
    REQUIRE(opts_parse_copy(data + TCP_HDR_LEN, hl - TCP_HDR_LEN, &o2) == (rc < 0 ? rc : 0));
    /* nothing past the header is read */
    REQUIRE(parse_copy(data, hl, &h2, &o2) == rc);
    if (rc < 0) {
        REQUIRE(rc <= -TCP_ERR_OPT_LEN && rc >= -TCP_ERR_OPT_SACK);
        return 0;
    }
    REQUIRE((size_t)rc == hl);
    same_hdr(&h, &h2);
    same_opts(&o, &o2);
    check_opts_cleared(&o);

    REQUIRE(h.src_port == get_be16(data) && h.dst_port == get_be16(data + 2));
    REQUIRE(h.seq == get_be32(data + 4) && h.ack == get_be32(data + 8));
    REQUIRE(h.rsvd == (data[12] & 0x0f) && h.flags == data[13]);
    REQUIRE(h.window == get_be16(data + 14) && h.csum == get_be16(data + 16));
    REQUIRE(h.urg == get_be16(data + 18));

    emit_round_trip(&h, &o);
    return 0;
}

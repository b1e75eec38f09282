/**
 * @file fuzz_icmpv6_ndp.c
 * @brief libFuzzer target for ICMPv6 / neighbor discovery parsing and
 *        emitting.
 *
 * The input is one ICMPv6 message. If it parses: the tail lies inside the
 * input, wren_icmpv6_len() is the input length, emitting into exactly that many
 * bytes gives the input back (checksum and reserved fields zeroed), the
 * emitted message re-parses to the same fields, a shorter buffer is refused
 * (or, for errors, cuts the quote), and a filled-in checksum verifies. The
 * options of ND messages, and the whole input taken as an option list, are
 * walked; each option goes through every typed parser, and whatever parses
 * is emitted and re-parsed to the same values.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/byteorder.h"
#include "wire/icmpv6.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        if (!(cond))                                                                               \
            abort();                                                                               \
    } while (0)

static const uint8_t src[16] = { 0xfe, 0x80, [15] = 1 };
static const uint8_t dst[16] = { 0xff, 0x02, [15] = 2 };

static int mem_eq(const uint8_t *a, const uint8_t *b, size_t n)
{
    return n == 0 || memcmp(a, b, n) == 0;
}

static void same_msg(const struct icmpv6_msg *a, const struct icmpv6_msg *b)
{
    REQUIRE(a->type == b->type && a->code == b->code);
    REQUIRE(a->data_len == b->data_len && mem_eq(a->data, b->data, a->data_len));
    switch (a->type) {
    case ICMPV6_ECHO_REQUEST:
    case ICMPV6_ECHO_REPLY:
        REQUIRE(a->echo.id == b->echo.id && a->echo.seq == b->echo.seq);
        break;
    case ICMPV6_DEST_UNREACH:
    case ICMPV6_PKT_TOO_BIG:
    case ICMPV6_TIME_EXCEEDED:
    case ICMPV6_PARAM_PROBLEM:
        REQUIRE(a->param == b->param);
        break;
    case ICMPV6_ND_RA:
        REQUIRE(a->ra.cur_hop_limit == b->ra.cur_hop_limit && a->ra.flags == b->ra.flags);
        REQUIRE(a->ra.router_lifetime == b->ra.router_lifetime);
        REQUIRE(a->ra.reachable_time == b->ra.reachable_time);
        REQUIRE(a->ra.retrans_timer == b->ra.retrans_timer);
        break;
    case ICMPV6_ND_NS:
    case ICMPV6_ND_NA:
    case ICMPV6_ND_REDIRECT:
        REQUIRE(a->nd.flags == b->nd.flags && mem_eq(a->nd.target, b->nd.target, 16));
        REQUIRE((a->nd.dst == NULL) == (b->nd.dst == NULL));
        if (a->nd.dst)
            REQUIRE(mem_eq(a->nd.dst, b->nd.dst, 16));
        break;
    case ICMPV6_DAR:
    case ICMPV6_DAC:
        REQUIRE(a->dar.status == b->dar.status && a->dar.tid == b->dar.tid);
        REQUIRE(a->dar.lifetime == b->dar.lifetime && a->dar.rovr_len == b->dar.rovr_len);
        REQUIRE(mem_eq(a->dar.rovr, b->dar.rovr, a->dar.rovr_len));
        REQUIRE(mem_eq(a->dar.addr, b->dar.addr, 16));
        break;
    default:
        break;
    }
}

/* One option through each typed parser; emit what parses and parse again. */
static void check_opt(const struct icmpv6_opt *o)
{
    uint8_t out[48];
    struct icmpv6_opt_iter it;
    struct icmpv6_opt p;
    int n;

#define REPARSE()                                                                                  \
    do {                                                                                           \
        REQUIRE(n > 0 && (size_t)n <= sizeof(out));                                                \
        wren_icmpv6_opt_iter_init(&it, out, (size_t)n);                                                 \
        REQUIRE(wren_icmpv6_opt_next(&it, &p) == 1);                                                    \
        REQUIRE(wren_icmpv6_opt_next(&it, &p) == 0);                                                    \
    } while (0)

    for (uint8_t unit = 2; unit <= 6; unit += 4) {
        struct icmpv6_lladdr a, b;
        int rc = wren_icmpv6_opt_lladdr_parse(o, unit, &a);
        REQUIRE(rc == 0 || rc == -ICMPV6_ERR_OPT_SIZE || rc == -ICMPV6_ERR_OPT_PADDING);
        /* refused for its padding exactly when a one-unit option has a byte
         * past the address that is not zero */
        int pad = 0;
        for (unsigned i = 2u + unit; o->len == 1 && i < 8; i++) {
            pad |= o->p[i];
        }
        REQUIRE((rc == -ICMPV6_ERR_OPT_PADDING) == (o->len == 1 && pad != 0));
        if (rc == 0) {
            REQUIRE(a.len == (o->len == 1 ? unit : 8) && a.addr == o->p + 2);
            n = wren_icmpv6_opt_lladdr_emit(o->type, a.addr, a.len, out, sizeof(out));
            REPARSE();
            REQUIRE(n == o->len * 8);
            REQUIRE(wren_icmpv6_opt_lladdr_parse(&p, unit, &b) == 0);
            REQUIRE(b.len == a.len && mem_eq(a.addr, b.addr, a.len));
        }
    }
    {
        struct icmpv6_pio a, b;
        int rc = wren_icmpv6_opt_pio_parse(o, &a);
        REQUIRE(rc == 0 || rc == -ICMPV6_ERR_OPT_SIZE || rc == -ICMPV6_ERR_PREFIX_LEN);
        REQUIRE((rc == -ICMPV6_ERR_PREFIX_LEN) == (o->len == 4 && o->p[2] > 128));
        if (rc == 0) {
            n = wren_icmpv6_opt_pio_emit(&a, out, sizeof(out));
            REPARSE();
            REQUIRE(wren_icmpv6_opt_pio_parse(&p, &b) == 0);
            REQUIRE(a.prefix_len == b.prefix_len && a.flags == b.flags);
            REQUIRE(a.valid == b.valid && a.preferred == b.preferred);
            REQUIRE(mem_eq(a.prefix, b.prefix, 16));
            REQUIRE(mem_eq(out + 1, o->p + 1, 11) && mem_eq(out + 16, o->p + 16, 16));
        }
    }
    {
        uint32_t a, b;
        int rc = wren_icmpv6_opt_mtu_parse(o, &a);
        REQUIRE(rc == 0 || rc == -ICMPV6_ERR_OPT_SIZE);
        if (rc == 0) {
            n = wren_icmpv6_opt_mtu_emit(a, out, sizeof(out));
            REPARSE();
            REQUIRE(wren_icmpv6_opt_mtu_parse(&p, &b) == 0 && a == b);
        }
    }
    {
        struct icmpv6_aro a, b;
        int rc = wren_icmpv6_opt_aro_parse(o, &a);
        REQUIRE(rc == 0 || rc == -ICMPV6_ERR_OPT_SIZE);
        if (rc == 0) {
            n = wren_icmpv6_opt_aro_emit(&a, out, sizeof(out));
            REPARSE();
            REQUIRE(wren_icmpv6_opt_aro_parse(&p, &b) == 0);
            REQUIRE(a.status == b.status && a.opaque == b.opaque && a.flags == b.flags);
            REQUIRE(a.tid == b.tid && a.lifetime == b.lifetime && a.rovr_len == b.rovr_len);
            REQUIRE(mem_eq(a.rovr, b.rovr, a.rovr_len));
            REQUIRE(n == o->len * 8 && mem_eq(out + 1, o->p + 1, (size_t)n - 1));
        }
    }
    {
        struct icmpv6_6co a, b;
        int rc = wren_icmpv6_opt_6co_parse(o, &a);
        REQUIRE(rc == 0 || rc == -ICMPV6_ERR_OPT_SIZE || rc == -ICMPV6_ERR_PREFIX_LEN);
        if (rc == 0) {
            REQUIRE(a.ctx_len <= (o->len - 1) * 64);
            n = wren_icmpv6_opt_6co_emit(&a, out, sizeof(out));
            REPARSE();
            REQUIRE(wren_icmpv6_opt_6co_parse(&p, &b) == 0);
            REQUIRE(a.ctx_len == b.ctx_len && a.flags == b.flags && a.lifetime == b.lifetime);
            REQUIRE(mem_eq(a.prefix, b.prefix, (a.ctx_len + 7u) / 8));
        }
    }
    {
        struct icmpv6_abro a, b;
        int rc = wren_icmpv6_opt_abro_parse(o, &a);
        REQUIRE(rc == 0 || rc == -ICMPV6_ERR_OPT_SIZE);
        if (rc == 0) {
            n = wren_icmpv6_opt_abro_emit(&a, out, sizeof(out));
            REPARSE();
            REQUIRE(wren_icmpv6_opt_abro_parse(&p, &b) == 0);
            REQUIRE(a.version == b.version && a.lifetime == b.lifetime);
            REQUIRE(mem_eq(a.addr, b.addr, 16) && mem_eq(out + 1, o->p + 1, 23));
        }
    }
#undef REPARSE
}

/* Walk an option list; every option lies inside it, in order. */
static void check_opts(const uint8_t *opts, size_t len)
{
    struct icmpv6_opt_iter it;
    struct icmpv6_opt o;
    size_t used = 0;
    int rc;
    wren_icmpv6_opt_iter_init(&it, opts, len);
    while ((rc = wren_icmpv6_opt_next(&it, &o)) > 0) {
        REQUIRE(o.p == opts + used && o.len >= 1 && used + o.len * 8u <= len);
        REQUIRE(o.type == o.p[0] && o.len == o.p[1]);
        used += o.len * 8u;
        check_opt(&o);
    }
    if (rc == 0) {
        REQUIRE(used == len);
    } else {
        REQUIRE(rc == -ICMPV6_ERR_OPT_LEN || rc == -ICMPV6_ERR_OPT_TRUNCATED);
        REQUIRE(wren_icmpv6_opt_next(&it, &o) == rc); /* sticky */
        if (rc == -ICMPV6_ERR_OPT_LEN)
            REQUIRE(len - used >= 2 && opts[used + 1] == 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct icmpv6_msg m, m2;

    int rc = wren_icmpv6_csum_check(src, dst, data, size);
    REQUIRE(rc == 0 || rc == -ICMPV6_ERR_CSUM || rc == -ICMPV6_ERR_TRUNCATED);
    REQUIRE((rc == -ICMPV6_ERR_TRUNCATED) == (size < 4));

    check_opts(data, size);

    rc = wren_icmpv6_parse(data, size, &m);
    REQUIRE(rc == 0 || rc == -ICMPV6_ERR_TRUNCATED || rc == -ICMPV6_ERR_CODE);
    if (rc != 0)
        return 0;
    REQUIRE(m.type == data[0] && m.code == data[1] && m.csum == get_be16(data + 2));
    REQUIRE(m.data >= data + 4 && m.data + m.data_len == data + size);
    REQUIRE(wren_icmpv6_len(&m) == (int)size);

    if (m.type >= ICMPV6_ND_RS && m.type <= ICMPV6_ND_REDIRECT)
        check_opts(m.data, m.data_len);

    /* emit into exactly size bytes: the input with checksum and reserved
     * fields zeroed */
    uint8_t *out = malloc(size);
    uint8_t *want = malloc(size);
    REQUIRE(out && want);
    memcpy(want, data, size);
    put_be16(want + 2, 0);
    switch (m.type) {
    case ICMPV6_ND_RS:
    case ICMPV6_ND_NS:
    case ICMPV6_ND_REDIRECT:
        memset(want + 4, 0, 4);
        break;
    case ICMPV6_ND_NA:
        memset(want + 5, 0, 3);
        break;
    default:
        break;
    }
    REQUIRE(wren_icmpv6_emit(&m, out, size) == (int)size);
    REQUIRE(memcmp(out, want, size) == 0);
    REQUIRE(wren_icmpv6_parse(out, size, &m2) == 0);
    same_msg(&m, &m2);

    /* a checksum filled in verifies */
    put_be16(out + 2, wren_icmpv6_csum(src, dst, out, size));
    REQUIRE(wren_icmpv6_csum_check(src, dst, out, size) == 0);

    /* short buffers: refused without writing, or (errors) the quote is cut */
    size_t fixed = size - m.data_len;
    for (size_t k = size; k-- > 0;) {
        memset(out, 0xa5, size);
        int n = wren_icmpv6_emit(&m, out, k);
        if (m.type < 128 && k >= fixed) {
            REQUIRE(n == (int)k && memcmp(out, want, k) == 0);
        } else {
            REQUIRE(n == -ICMPV6_ERR_NOBUFS);
            for (size_t j = 0; j < size; j++)
                REQUIRE(out[j] == 0xa5);
        }
        if (k + 64 < size)
            k = k > 64 ? 64 : k; /* keep long inputs fast */
    }

    /* in place: emit over a copy of the input itself */
    memcpy(out, data, size);
    REQUIRE(wren_icmpv6_parse(out, size, &m2) == 0);
    REQUIRE(wren_icmpv6_emit(&m2, out, size) == (int)size);
    REQUIRE(memcmp(out, want, size) == 0);

    free(out);
    free(want);
    return 0;
}

/**
 * @file fuzz_rpl.c
 * @brief libFuzzer target for the RPL wire formats (wire/rpl.h).
 *
 * The input is tried as
 *  - a control message: whatever parses emits into exactly its length as the
 *    input with checksum and reserved bytes zeroed, and re-parses alike; its
 *    options (and the whole input taken as an option list) are walked, each
 *    through every typed parser, and what parses is emitted and re-parsed to
 *    the same values;
 *  - an RPI (option data);
 *  - byte 0 selecting "our" addresses, bytes 1..16 the IPv6 destination and
 *    the rest an SRH, copied into a buffer of exactly its size: parse, expand
 *    every address, process one hop (RFC 6554 4.2) in place: on error nothing
 *    changed, on success segments left went down by one, the destination is
 *    the address the header named and only that address's slot changed;
 *  - the same bytes as a list of hops: an SRH emitted for them parses back to
 *    the same addresses and walks hop by hop (never reading or writing past
 *    its buffer).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire/rpl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        if (!(cond))                                                                               \
            abort();                                                                               \
    } while (0)

static int mem_eq(const uint8_t *a, const uint8_t *b, size_t n)
{
    return n == 0 || memcmp(a, b, n) == 0;
}

/* One option through each typed parser; emit what parses, parse again. */
static void check_opt(const struct rpl_opt *o)
{
    uint8_t out[300];
    struct rpl_opt_iter it;
    struct rpl_opt p;
    int n, rc;

#define REPARSE()                                                                                  \
    do {                                                                                           \
        REQUIRE(n > 0 && (size_t)n <= sizeof(out));                                                \
        wren_rpl_opt_iter_init(&it, out, (size_t)n);                                               \
        REQUIRE(wren_rpl_opt_next(&it, &p) == 1);                                                  \
        REQUIRE(wren_rpl_opt_next(&it, &p) == 0);                                                  \
        REQUIRE(p.len == o->len && mem_eq(p.data, o->data, o->len));                               \
    } while (0)

    {
        struct rpl_opt_route a, b;
        rc = wren_rpl_opt_route_parse(o, &a);
        REQUIRE(rc == 0 || rc == -RPL_ERR_OPT_SIZE || rc == -RPL_ERR_PREFIX_LEN);
        if (rc == 0) {
            REQUIRE(a.prefix_len <= 128 && a.prefix_bytes <= 16);
            REQUIRE((a.prefix_len + 7u) / 8 <= a.prefix_bytes);
            n = wren_rpl_opt_route_emit(&a, out, sizeof(out));
            out[0] = o->type;
            REPARSE();
            REQUIRE(wren_rpl_opt_route_parse(&p, &b) == 0);
            REQUIRE(a.lifetime == b.lifetime && a.flags == b.flags);
        }
    }
    {
        struct rpl_opt_config a;
        rc = wren_rpl_opt_config_parse(o, &a);
        REQUIRE(rc == 0 || rc == -RPL_ERR_OPT_SIZE);
        REQUIRE((rc == 0) == (o->len == 14));
        if (rc == 0) {
            n = wren_rpl_opt_config_emit(&a, out, sizeof(out));
            out[0] = o->type;
            out[12] = o->data[10]; /* the reserved byte: emit writes 0 */
            REPARSE();
        }
    }
    {
        struct rpl_opt_target a;
        rc = wren_rpl_opt_target_parse(o, &a);
        REQUIRE(rc == 0 || rc == -RPL_ERR_OPT_SIZE || rc == -RPL_ERR_PREFIX_LEN);
        if (rc == 0) {
            n = wren_rpl_opt_target_emit(&a, out, sizeof(out));
            out[0] = o->type;
            REPARSE();
        }
    }
    {
        struct rpl_opt_transit a;
        rc = wren_rpl_opt_transit_parse(o, &a);
        REQUIRE(rc == 0 || rc == -RPL_ERR_OPT_SIZE);
        if (rc == 0) {
            n = wren_rpl_opt_transit_emit(&a, out, sizeof(out));
            out[0] = o->type;
            REPARSE();
        }
    }
    {
        struct rpl_opt_solicited a;
        rc = wren_rpl_opt_solicited_parse(o, &a);
        REQUIRE(rc == 0 || rc == -RPL_ERR_OPT_SIZE);
        if (rc == 0) {
            n = wren_rpl_opt_solicited_emit(&a, out, sizeof(out));
            out[0] = o->type;
            REPARSE();
        }
    }
    {
        struct rpl_opt_prefix a;
        rc = wren_rpl_opt_prefix_parse(o, &a);
        REQUIRE(rc == 0 || rc == -RPL_ERR_OPT_SIZE || rc == -RPL_ERR_PREFIX_LEN);
        if (rc == 0) {
            n = wren_rpl_opt_prefix_emit(&a, out, sizeof(out));
            out[0] = o->type;
            memcpy(out + 12, o->data + 10, 4); /* reserved2: emit writes 0 */
            REPARSE();
        }
    }
    n = wren_rpl_opt_raw_emit(o->type, o->data, o->len, out, sizeof(out));
    REPARSE();
#undef REPARSE
}

static void check_opts(const uint8_t *opts, size_t len)
{
    struct rpl_opt_iter it;
    struct rpl_opt o;
    int rc;
    wren_rpl_opt_iter_init(&it, opts, len);
    while ((rc = wren_rpl_opt_next(&it, &o)) > 0) {
        REQUIRE(o.data >= opts + 2 && o.data + o.len <= opts + len);
        REQUIRE(o.type != RPL_OPT_PAD1 && o.type != RPL_OPT_PADN);
        check_opt(&o);
    }
    REQUIRE(rc == 0 || rc == -RPL_ERR_OPT_TRUNCATED);
    if (rc < 0)
        REQUIRE(wren_rpl_opt_next(&it, &o) == rc); /* sticky */
}

static void check_msg(const uint8_t *data, size_t size)
{
    struct rpl_msg m, m2;
    int rc = wren_rpl_msg_parse(data, size, &m);
    REQUIRE(rc == 0 || rc == -RPL_ERR_TRUNCATED || rc == -RPL_ERR_TYPE || rc == -RPL_ERR_CODE);
    if (rc != 0)
        return;
    REQUIRE(m.opts + m.opts_len == data + size);
    REQUIRE(wren_rpl_msg_len(&m) == (int)size);
    check_opts(m.opts, m.opts_len);

    uint8_t *out = malloc(size), *want = malloc(size);
    REQUIRE(out && want);
    memcpy(want, data, size);
    want[2] = want[3] = 0;
    switch (m.code) {
    case RPL_CODE_DIS:
        want[5] = 0;
        break;
    case RPL_CODE_DIO:
        want[11] = 0;
        break;
    case RPL_CODE_DAO:
        want[6] = 0;
        break;
    default:
        break;
    }
    REQUIRE(wren_rpl_msg_emit(&m, out, size) == (int)size);
    REQUIRE(memcmp(out, want, size) == 0);
    REQUIRE(wren_rpl_msg_parse(out, size, &m2) == 0);
    REQUIRE(m2.code == m.code && m2.opts_len == m.opts_len);
    /* one byte short: refused, nothing written */
    memset(out, 0xa5, size);
    REQUIRE(wren_rpl_msg_emit(&m, out, size - 1) == -RPL_ERR_NOBUFS);
    for (size_t i = 0; i < size; i++)
        REQUIRE(out[i] == 0xa5);
    /* in place over a copy of the input */
    memcpy(out, data, size);
    REQUIRE(wren_rpl_msg_parse(out, size, &m2) == 0);
    REQUIRE(wren_rpl_msg_emit(&m2, out, size) == (int)size);
    REQUIRE(memcmp(out, want, size) == 0);
    free(out);
    free(want);
}

struct own {
    uint8_t sel;
};

/* "ours": addresses whose last byte has the selector's low 3 bits */
static bool is_own(void *ctx, const uint8_t a[16])
{
    const struct own *o = ctx;
    return (a[15] & 7) == (o->sel & 7) && (o->sel & 0x80) == 0;
}

static void check_srh(const uint8_t *data, size_t size)
{
    if (size < 17)
        return;
    struct own own = {data[0]};
    uint8_t dst[16], dst0[16], a[16];
    memcpy(dst, data + 1, 16);
    memcpy(dst0, dst, 16);
    size_t len = size - 17;
    uint8_t *hdr = malloc(len ? len : 1);
    REQUIRE(hdr);
    memcpy(hdr, data + 17, len);

    struct rpl_srh s;
    int rc = wren_rpl_srh_parse(hdr, len, &s);
    REQUIRE(rc == 0 || rc == -RPL_ERR_TRUNCATED || rc == -RPL_ERR_TYPE || rc == -RPL_ERR_SRH_LEN);
    if (rc == 0) {
        REQUIRE(s.len <= len && s.len % 8 == 0 && s.n >= 1);
        REQUIRE((s.n - 1u) * (16u - s.cmpr_i) + (16u - s.cmpr_e) + s.pad + 8 == s.len);
        for (unsigned i = 1; i <= s.n; i++)
            wren_rpl_srh_addr(&s, i, dst, a);
    }
    uint16_t off = 0xffff;
    rc = wren_rpl_srh_process(hdr, len, dst, is_own, &own, &off);
    if (rc <= 0) {
        REQUIRE(mem_eq(hdr, data + 17, len) && memcmp(dst, dst0, 16) == 0);
        if (rc == -RPL_ERR_SRH_SEGS)
            REQUIRE(off == 3);
        if (rc == -RPL_ERR_SRH_LOOP)
            REQUIRE(off >= 8 && off < s.len);
        if (rc == 0)
            REQUIRE(s.segs_left == 0);
    } else {
        REQUIRE(rc == 1);
        REQUIRE(hdr[3] + 1 == data[17 + 3]);
        unsigned i = s.n - hdr[3];
        struct rpl_srh s0;
        REQUIRE(wren_rpl_srh_parse(data + 17, len, &s0) == 0);
        wren_rpl_srh_addr(&s0, i, dst0, a);
        REQUIRE(memcmp(a, dst, 16) == 0 && dst[0] != 0xff && dst0[0] != 0xff);
        /* only the slot of Address[i] (and segments left) changed */
        size_t slot = 8 + (size_t)(i - 1) * (16u - s.cmpr_i);
        size_t slot_len = i == s.n ? 16u - s.cmpr_e : 16u - s.cmpr_i;
        for (size_t k = 0; k < len; k++)
            if (k != 3 && (k < slot || k >= slot + slot_len))
                REQUIRE(hdr[k] == data[17 + k]);
    }
    free(hdr);
}

/* The input as hops: emit, parse back, walk. */
static void check_srh_emit(const uint8_t *data, size_t size)
{
    if (size < 32)
        return;
    size_t n = size / 16 - 1;
    if (n > 40)
        n = 40;
    const uint8_t *dst0 = data;
    const uint8_t(*hops)[16] = (const uint8_t(*)[16])(data + 16);
    int len = wren_rpl_srh_len(hops, n, dst0);
    REQUIRE(len > 0 && len % 8 == 0);
    uint8_t *hdr = malloc((size_t)len);
    REQUIRE(hdr);
    REQUIRE(wren_rpl_srh_emit(17, hops, n, dst0, hdr, (size_t)len - 1) == -RPL_ERR_NOBUFS);
    REQUIRE(wren_rpl_srh_emit(17, hops, n, dst0, hdr, (size_t)len) == len);
    struct rpl_srh s;
    REQUIRE(wren_rpl_srh_parse(hdr, (size_t)len, &s) == 0);
    REQUIRE(s.n == n && s.segs_left == n && s.len == (size_t)len);
    uint8_t a[16], dst[16];
    for (unsigned i = 1; i <= n; i++) {
        wren_rpl_srh_addr(&s, i, dst0, a);
        REQUIRE(memcmp(a, hops[i - 1], 16) == 0);
    }
    /* walk: a node owns only the current destination (last byte rule off) */
    struct own none = {0x80};
    memcpy(dst, dst0, 16);
    for (size_t k = 0; k < n; k++) {
        uint16_t off;
        int rc = wren_rpl_srh_process(hdr, (size_t)len, dst, is_own, &none, &off);
        if (rc == -RPL_ERR_SRH_MCAST)
            break;
        REQUIRE(rc == 1);
        REQUIRE(memcmp(dst, hops[k], 16) == 0);
    }
    free(hdr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct rpl_rpi r;
    int rc = wren_rpl_rpi_parse(data, size, &r);
    REQUIRE((rc == 0) == (size >= 4));
    if (rc == 0) {
        uint8_t hbh[8];
        REQUIRE(wren_rpl_rpi_hbh_emit(data[0], &r, hbh, sizeof(hbh)) == 8);
        REQUIRE(mem_eq(hbh + 4, data, 4) && hbh[3] == RPL_RPI_LEN);
    }
    check_opts(data, size);
    check_msg(data, size);
    check_srh(data, size);
    check_srh_emit(data, size);
    return 0;
}

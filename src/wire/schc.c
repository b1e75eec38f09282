/* SCHC compression and decompression of IPv6/UDP (RFC 8724 section 7, the
 * fields of section 10), with 8-bit rule IDs (RFC 9011 5.1). Pure code.
 * The rule set's text form: schc_rules.c. */
#include "wire/schc.h"

#include <string.h>

#include "core/byteorder.h"
#include "wire/inet_csum.h"
#include "wire/schc_bits.h"

#define IPV6_HDR 40
#define UDP_HDR 8
#define MAX_HDR (IPV6_HDR + UDP_HDR)
#define NH_UDP 17

/* Where each field lies in an IPv6 + UDP header, in bits: uplink (the
 * Device is the source, RFC 8724 7.1) and downlink offsets, and length. */
static const struct {
    uint16_t up, down;
    uint8_t bits;
} layout[WREN_SCHC_FID_COUNT] = {
    [WREN_SCHC_IPV6_VER] = {0, 0, 4},
    [WREN_SCHC_IPV6_TC] = {4, 4, 8},
    [WREN_SCHC_IPV6_FL] = {12, 12, 20},
    [WREN_SCHC_IPV6_LEN] = {32, 32, 16},
    [WREN_SCHC_IPV6_NXT] = {48, 48, 8},
    [WREN_SCHC_IPV6_HOP] = {56, 56, 8},
    [WREN_SCHC_IPV6_DEV_PREFIX] = {64, 192, 64},
    [WREN_SCHC_IPV6_DEV_IID] = {128, 256, 64},
    [WREN_SCHC_IPV6_APP_PREFIX] = {192, 64, 64},
    [WREN_SCHC_IPV6_APP_IID] = {256, 128, 64},
    [WREN_SCHC_UDP_DEV_PORT] = {320, 336, 16},
    [WREN_SCHC_UDP_APP_PORT] = {336, 320, 16},
    [WREN_SCHC_UDP_LEN] = {352, 352, 16},
    [WREN_SCHC_UDP_CKSUM] = {368, 368, 16},
};

unsigned wren_schc_field_bits(unsigned fid)
{
    return fid < WREN_SCHC_FID_COUNT ? layout[fid].bits : 0;
}

static unsigned fbytes(unsigned fid)
{
    return (layout[fid].bits + 7u) / 8u;
}

static unsigned idx_bits(unsigned n)
{
    unsigned k = 0;
    while ((1u << k) < n) {
        k++;
    }
    return k;
}

/* Field @p fid of header @p h, sent in direction @p dir, into @p v. */
static void field_get(const uint8_t *h, unsigned fid, unsigned dir, uint8_t *v)
{
    unsigned off = dir == WREN_SCHC_DOWN ? layout[fid].down : layout[fid].up;
    unsigned n = layout[fid].bits, nb = fbytes(fid);
    memset(v, 0, nb);
    for (unsigned i = 0; i < n; i++) {
        bit_set(v, nb * 8u - n + i, bit_at(h, off + i));
    }
}

static void field_set(uint8_t *h, unsigned fid, unsigned dir, const uint8_t *v)
{
    unsigned off = dir == WREN_SCHC_DOWN ? layout[fid].down : layout[fid].up;
    unsigned n = layout[fid].bits, nb = fbytes(fid);
    for (unsigned i = 0; i < n; i++) {
        bit_set(h, off + i, bit_at(v, nb * 8u - n + i));
    }
}

/* ---- rules --------------------------------------------------------------- */

const struct wren_schc_rule *wren_schc_rule_find(const struct wren_schc_rules *rs, uint8_t id)
{
    for (unsigned i = 0; i < rs->n_rules; i++) {
        if (rs->rules[i].id == id) {
            return &rs->rules[i];
        }
    }
    return NULL;
}

const struct wren_schc_rule *wren_schc_rule_of_kind(const struct wren_schc_rules *rs, uint8_t kind)
{
    for (unsigned i = 0; i < rs->n_rules; i++) {
        if (rs->rules[i].kind == kind) {
            return &rs->rules[i];
        }
    }
    return NULL;
}

static bool applies(const struct wren_schc_field *f, unsigned dir)
{
    return f->dir == WREN_SCHC_BI || f->dir == dir;
}

static bool rule_has_udp(const struct wren_schc_rules *rs, const struct wren_schc_rule *r,
                         unsigned dir)
{
    for (unsigned i = 0; i < r->count; i++) {
        const struct wren_schc_field *f = &rs->fields[r->first + i];
        if (applies(f, dir) && f->fid >= WREN_SCHC_UDP_DEV_PORT) {
            return true;
        }
    }
    return false;
}

static const uint8_t *tv_at(const struct wren_schc_rules *rs, const struct wren_schc_field *f,
                            unsigned k)
{
    return rs->tv + f->tv + k * fbytes(f->fid);
}

/* MSB(x): the x leading bits of the field's value equal the TV's. */
static bool msb_equal(const uint8_t *a, const uint8_t *b, unsigned fid, unsigned x)
{
    unsigned lead = fbytes(fid) * 8u - layout[fid].bits;
    for (unsigned i = 0; i < x; i++) {
        if (bit_at(a, lead + i) != bit_at(b, lead + i)) {
            return false;
        }
    }
    return true;
}

/* The mapping index of @p v, or -1. */
static int map_index(const struct wren_schc_rules *rs, const struct wren_schc_field *f,
                     const uint8_t *v)
{
    for (unsigned k = 0; k < f->tv_n; k++) {
        if (memcmp(tv_at(rs, f, k), v, fbytes(f->fid)) == 0) {
            return (int)k;
        }
    }
    return -1;
}

/* Does a computed field hold what decompression would compute (lengths
 * from the packet's size, a checksum that checks)? Else the rule cannot
 * give the packet back as it was. */
static bool compute_holds(const uint8_t *pkt, size_t len, unsigned fid)
{
    switch (fid) {
    case WREN_SCHC_IPV6_LEN:
        return get_be16(pkt + 4) == len - IPV6_HDR;
    case WREN_SCHC_UDP_LEN:
        return get_be16(pkt + IPV6_HDR + 4) == len - IPV6_HDR;
    case WREN_SCHC_UDP_CKSUM: {
        struct inet_csum c;
        wren_inet_csum_init(&c);
        wren_inet_csum_pseudo(&c, pkt + 8, pkt + 24, (uint32_t)(len - IPV6_HDR), NH_UDP);
        wren_inet_csum_update(&c, pkt + IPV6_HDR, len - IPV6_HDR);
        return get_be16(pkt + IPV6_HDR + 6) != 0 && wren_inet_csum_final(&c) == 0;
    }
    default:
        return false;
    }
}

static bool field_matches(const struct wren_schc_rules *rs, const struct wren_schc_field *f,
                          const uint8_t *pkt, size_t len, unsigned dir)
{
    uint8_t v[8];
    field_get(pkt, f->fid, dir, v);
    if (f->cda == WREN_SCHC_CDA_COMPUTE && !compute_holds(pkt, len, f->fid)) {
        return false;
    }
    switch (f->mo) {
    case WREN_SCHC_MO_EQUAL:
        return memcmp(v, tv_at(rs, f, 0), fbytes(f->fid)) == 0;
    case WREN_SCHC_MO_MSB:
        return msb_equal(v, tv_at(rs, f, 0), f->fid, f->msb);
    case WREN_SCHC_MO_MATCH_MAPPING:
        return map_index(rs, f, v) >= 0;
    default:
        return true;
    }
}

static bool rule_matches(const struct wren_schc_rules *rs, const struct wren_schc_rule *r,
                         const uint8_t *pkt, size_t len, unsigned dir)
{
    if (r->kind != WREN_SCHC_RULE_COMPRESS) {
        return false;
    }
    bool udp = rule_has_udp(rs, r, dir);
    if (udp && (pkt[6] != NH_UDP || len < MAX_HDR)) {
        return false;
    }
    for (unsigned i = 0; i < r->count; i++) {
        const struct wren_schc_field *f = &rs->fields[r->first + i];
        if (applies(f, dir) && !field_matches(rs, f, pkt, len, dir)) {
            return false;
        }
    }
    return true;
}

/* ---- compression ----------------------------------------------------------- */

static void residue_put(const struct wren_schc_rules *rs, const struct wren_schc_field *f,
                        const uint8_t *pkt, unsigned dir, struct bits *b)
{
    uint8_t v[8];
    unsigned nb = fbytes(f->fid), n = layout[f->fid].bits;
    field_get(pkt, f->fid, dir, v);
    if (f->cda == WREN_SCHC_CDA_VALUE_SENT) {
        put_bits(b, v, nb, n);
    } else if (f->cda == WREN_SCHC_CDA_LSB) {
        put_bits(b, v, nb, n - f->msb);
    } else if (f->cda == WREN_SCHC_CDA_MAPPING_SENT) {
        uint8_t k[2];
        put_be16(k, (uint16_t)map_index(rs, f, v));
        put_bits(b, k, 2, idx_bits(f->tv_n));
    }
}

/* Append @p n bytes at any bit position (RFC 8724 5.1: the payload follows
 * the residue unaligned), then zero padding to the byte. */
static void put_tail(struct bits *b, const uint8_t *p, size_t n)
{
    if ((b->pos & 7) == 0 && b->end - b->pos >= n * 8u) {
        memcpy(b->w + b->pos / 8, p, n);
        b->pos += n * 8u;
    } else {
        for (size_t i = 0; i < n && !b->err; i++) {
            put_bits(b, p + i, 1, 8);
        }
    }
    static const uint8_t zero = 0;
    put_bits(b, &zero, 1, (unsigned)((8u - (b->pos & 7)) & 7));
}

static int compress_with(const struct wren_schc_rules *rs, const struct wren_schc_rule *r,
                         unsigned dir, const uint8_t *pkt, size_t len, uint8_t *out, size_t cap)
{
    struct bits b = { .w = out, .end = cap * 8u };
    put_bits(&b, &r->id, 1, 8);
    size_t hl = 0;
    if (r->kind == WREN_SCHC_RULE_COMPRESS) {
        hl = rule_has_udp(rs, r, dir) ? MAX_HDR : IPV6_HDR;
        for (unsigned i = 0; i < r->count; i++) {
            const struct wren_schc_field *f = &rs->fields[r->first + i];
            if (applies(f, dir)) {
                residue_put(rs, f, pkt, dir, &b);
            }
        }
    }
    put_tail(&b, pkt + hl, len - hl);
    return b.err ? -SCHC_ERR_NOBUFS : (int)(b.pos / 8u);
}

int wren_schc_compress(const struct wren_schc_rules *rs, unsigned dir, const uint8_t *pkt,
                       size_t len, uint8_t *out, size_t cap)
{
    if (len < IPV6_HDR || (pkt[0] >> 4) != 6) {
        return -SCHC_ERR_NOT_IPV6;
    }
    for (unsigned i = 0; i < rs->n_rules; i++) {
        if (rule_matches(rs, &rs->rules[i], pkt, len, dir)) {
            return compress_with(rs, &rs->rules[i], dir, pkt, len, out, cap);
        }
    }
    const struct wren_schc_rule *nc = wren_schc_rule_of_kind(rs, WREN_SCHC_RULE_NOCOMP);
    return nc ? compress_with(rs, nc, dir, pkt, len, out, cap) : -SCHC_ERR_NO_RULE;
}

/* ---- decompression --------------------------------------------------------- */

static int residue_get(const struct wren_schc_rules *rs, const struct wren_schc_field *f,
                       unsigned dir, struct bits *b, uint8_t *h)
{
    uint8_t v[8] = { 0 };
    unsigned nb = fbytes(f->fid), n = layout[f->fid].bits;
    switch (f->cda) {
    case WREN_SCHC_CDA_NOT_SENT:
        memcpy(v, tv_at(rs, f, 0), nb);
        break;
    case WREN_SCHC_CDA_VALUE_SENT:
        get_bits(b, v, nb, n);
        break;
    case WREN_SCHC_CDA_LSB: {
        get_bits(b, v, nb, n - f->msb);
        const uint8_t *tv = tv_at(rs, f, 0);
        unsigned lead = nb * 8u - n;
        for (unsigned i = 0; i < f->msb; i++) {
            bit_set(v, lead + i, bit_at(tv, lead + i));
        }
        break;
    }
    case WREN_SCHC_CDA_MAPPING_SENT: {
        uint8_t k[2];
        get_bits(b, k, 2, idx_bits(f->tv_n));
        if (get_be16(k) >= f->tv_n) {
            return -SCHC_ERR_MAPPING;
        }
        memcpy(v, tv_at(rs, f, get_be16(k)), nb);
        break;
    }
    default:
        return 0; /* compute: filled in at the end */
    }
    field_set(h, f->fid, dir, v);
    return 0;
}

/* compute-length and compute-checksum (RFC 8724 7.5.8) over the
 * whole packet @p p of @p len bytes. */
static void compute_fields(const struct wren_schc_rules *rs, const struct wren_schc_rule *r,
                           unsigned dir, uint8_t *p, size_t len)
{
    bool cksum = false;
    for (unsigned i = 0; i < r->count; i++) {
        const struct wren_schc_field *f = &rs->fields[r->first + i];
        if (!applies(f, dir) || f->cda != WREN_SCHC_CDA_COMPUTE) {
            continue;
        }
        if (f->fid == WREN_SCHC_IPV6_LEN) {
            put_be16(p + 4, (uint16_t)(len - IPV6_HDR));
        } else if (f->fid == WREN_SCHC_UDP_LEN) {
            put_be16(p + IPV6_HDR + 4, (uint16_t)(len - IPV6_HDR));
        } else {
            cksum = true;
        }
    }
    if (cksum) {
        struct inet_csum c;
        put_be16(p + IPV6_HDR + 6, 0);
        wren_inet_csum_init(&c);
        wren_inet_csum_pseudo(&c, p + 8, p + 24, (uint32_t)(len - IPV6_HDR), NH_UDP);
        wren_inet_csum_update(&c, p + IPV6_HDR, len - IPV6_HDR);
        uint16_t s = wren_inet_csum_final(&c);
        put_be16(p + IPV6_HDR + 6, s ? s : 0xffff);
    }
}

static int decompress_with(const struct wren_schc_rules *rs, const struct wren_schc_rule *r,
                           unsigned dir, struct bits *b, uint8_t *out, size_t cap)
{
    uint8_t h[MAX_HDR] = { 0 };
    size_t hl = rule_has_udp(rs, r, dir) ? MAX_HDR : IPV6_HDR;
    for (unsigned i = 0; i < r->count; i++) {
        const struct wren_schc_field *f = &rs->fields[r->first + i];
        int rc = applies(f, dir) ? residue_get(rs, f, dir, b, h) : 0;
        if (rc < 0) {
            return rc;
        }
    }
    if (b->err) {
        return -SCHC_ERR_TRUNCATED;
    }
    size_t pl = (b->end - b->pos) / 8u;
    if (pl + hl > cap) {
        return -SCHC_ERR_NOBUFS;
    }
    if (pl + hl - IPV6_HDR > 0xffff) {
        return -SCHC_ERR_LENGTH;
    }
    memcpy(out, h, hl);
    for (size_t i = 0; i < pl; i++) {
        get_bits(b, out + hl + i, 1, 8);
    }
    compute_fields(rs, r, dir, out, hl + pl);
    return (int)(hl + pl);
}

int wren_schc_decompress(const struct wren_schc_rules *rs, unsigned dir, const uint8_t *schc,
                         size_t len, uint8_t *out, size_t cap)
{
    if (len < 1) {
        return -SCHC_ERR_TRUNCATED;
    }
    const struct wren_schc_rule *r = wren_schc_rule_find(rs, schc[0]);
    if (r == NULL) {
        return -SCHC_ERR_NO_RULE;
    }
    if (r->kind == WREN_SCHC_RULE_NOCOMP) {
        if (len - 1 > cap) {
            return -SCHC_ERR_NOBUFS;
        }
        memcpy(out, schc + 1, len - 1);
        return (int)(len - 1);
    }
    if (r->kind != WREN_SCHC_RULE_COMPRESS) {
        return -SCHC_ERR_KIND;
    }
    struct bits b = { .r = schc, .pos = 8, .end = len * 8u };
    return decompress_with(rs, r, dir, &b, out, cap);
}

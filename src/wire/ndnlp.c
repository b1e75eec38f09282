/* NDNLPv2 LpPacket codec (see ndnlp.h; NDNLPv2 spec, "NDNLPv2 Packet Format"). */
#include "wire/ndnlp.h"

#include <limits.h>
#include <string.h>

/* ---- TLV primitives (NDN packet format v0.3, "TLV Encoding") -------------
 * Kept small and static here; the NDN codec (wire/ndn_tlv) has its own. */

/* bounded reader with a sticky error flag (STYLE.md) */
struct rd {
    const uint8_t *p;
    size_t left;
    bool err;
};

static uint64_t rd_be(struct rd *r, size_t n)
{
    if (r->err || r->left < n) {
        r->err = true;
        return 0;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        v = v << 8 | r->p[i];
    }
    r->p += n;
    r->left -= n;
    return v;
}

/* VAR-NUMBER: < 253 itself, 253/254/255 then 2/4/8 octets big-endian */
static uint64_t rd_varnum(struct rd *r)
{
    uint64_t first = rd_be(r, 1);
    if (first < 253) {
        return first;
    }
    return rd_be(r, (size_t)1 << (first - 252));
}

/* one TLV's type and length; the value must be present */
static void rd_tl(struct rd *r, uint64_t *type, uint64_t *len)
{
    *type = rd_varnum(r);
    *len = rd_varnum(r);
    if (!r->err && *len > r->left) {
        r->err = true;
    }
}

static size_t varnum_len(uint64_t n)
{
    return n < 253 ? 1 : n <= 0xffff ? 3 : n <= 0xffffffffu ? 5 : 9;
}

static uint8_t *put_be(uint8_t *b, uint64_t v, size_t n)
{
    for (size_t i = n; i-- > 0; v >>= 8) {
        b[i] = (uint8_t)v;
    }
    return b + n;
}

static uint8_t *put_varnum(uint8_t *b, uint64_t n)
{
    size_t len = varnum_len(n);
    if (len == 1) {
        *b = (uint8_t)n;
        return b + 1;
    }
    *b = (uint8_t)(252 + (len == 3 ? 1 : len == 5 ? 2 : 3));
    return put_be(b + 1, n, len - 1);
}

/* NonNegativeInteger (v0.3 "Non-Negative Integer Encoding"): 1, 2, 4 or 8 octets */
static size_t nni_len(uint64_t n)
{
    return n <= 0xff ? 1 : n <= 0xffff ? 2 : n <= 0xffffffffu ? 4 : 8;
}

static int get_nni(const uint8_t *v, uint64_t len, uint64_t *out)
{
    if (len != 1 && len != 2 && len != 4 && len != 8) {
        return -NDNLP_ERR_FIELD;
    }
    struct rd r = { v, (size_t)len, false };
    *out = rd_be(&r, (size_t)len);
    return 0;
}

static uint8_t *put_nni_tlv(uint8_t *b, uint64_t type, uint64_t v)
{
    size_t n = nni_len(v);
    b = put_varnum(b, type);
    b = put_varnum(b, n);
    return put_be(b, v, n);
}

/* ---- parse -------------------------------------------------------------- */

/* Nack's value: an optional NackReason; other elements are skipped */
static int parse_nack(struct ndnlp_pkt *p, const uint8_t *v, uint64_t len)
{
    struct rd r = { v, (size_t)len, false };
    bool seen = false;
    p->has_nack = true;
    p->nack_reason = NDNLP_NACK_NONE;
    while (r.left > 0) {
        uint64_t t, l;
        rd_tl(&r, &t, &l);
        if (r.err) {
            return -NDNLP_ERR_FIELD;
        }
        if (t == NDNLP_TLV_NACK_REASON) {
            if (seen || get_nni(r.p, l, &p->nack_reason) < 0) {
                return -NDNLP_ERR_FIELD;
            }
            seen = true;
        }
        r.p += l;
        r.left -= (size_t)l;
    }
    return 0;
}

/* One field of the LpPacket: 0 known and stored, 1 unknown and skipped. */
static int parse_field(struct ndnlp_pkt *p, uint64_t t, const uint8_t *v, uint64_t l)
{
    switch (t) {
    case NDNLP_TLV_FRAGMENT:
        if (l == 0) {
            return -NDNLP_ERR_FIELD; /* BYTE+ */
        }
        p->frag = v;
        p->frag_len = (size_t)l;
        return 0;
    case NDNLP_TLV_SEQUENCE: {
        if (l == 0 || l > 8) {
            return -NDNLP_ERR_FIELD;
        }
        struct rd r = { v, (size_t)l, false };
        p->seq = rd_be(&r, (size_t)l);
        p->seq_len = (uint8_t)l;
        return 0;
    }
    case NDNLP_TLV_FRAG_INDEX:
        return get_nni(v, l, &p->frag_index);
    case NDNLP_TLV_FRAG_COUNT:
        return get_nni(v, l, &p->frag_count);
    case NDNLP_TLV_NACK:
        return parse_nack(p, v, l);
    default:
        if (!wren_ndnlp_ignorable(t)) {
            return -NDNLP_ERR_CRITICAL;
        }
        if (p->ignored < UINT16_MAX) {
            p->ignored++;
        }
        return 1;
    }
}

/* sort key: header fields by TLV-TYPE, the Fragment after all of them */
static uint64_t field_rank(uint64_t t)
{
    return t == NDNLP_TLV_FRAGMENT ? UINT64_MAX : t;
}

static int parse_fields(struct ndnlp_pkt *p, struct rd *r)
{
    uint64_t prev = 0;
    bool prev_ignored = false;
    while (r->left > 0) {
        uint64_t t, l;
        rd_tl(r, &t, &l);
        if (r->err) {
            return -NDNLP_ERR_TRUNCATED;
        }
        int rc = parse_field(p, t, r->p, l);
        if (rc < 0) {
            return rc;
        }
        uint64_t rank = field_rank(t);
        /* increasing order; only skipped unknown fields may repeat */
        if (rank < prev || (rank == prev && !(rc == 1 && prev_ignored))) {
            return -NDNLP_ERR_ORDER;
        }
        prev = rank;
        prev_ignored = rc == 1;
        r->p += l;
        r->left -= (size_t)l;
    }
    return 0;
}

int wren_ndnlp_parse(const uint8_t *buf, size_t len, struct ndnlp_pkt *p)
{
    struct rd r = { buf, len, false };
    uint64_t type, vlen;
    memset(p, 0, sizeof(*p));
    p->frag_count = 1;
    type = rd_varnum(&r);
    if (!r.err && type != NDNLP_TLV_LP_PACKET) {
        return -NDNLP_ERR_TYPE;
    }
    vlen = rd_varnum(&r);
    if (r.err || vlen > r.left || len - r.left + vlen > INT_MAX) {
        return -NDNLP_ERR_TRUNCATED;
    }
    size_t total = len - r.left + (size_t)vlen;
    struct rd in = { r.p, (size_t)vlen, false };
    int rc = parse_fields(p, &in);
    if (rc < 0) {
        return rc;
    }
    /* NDNLPv2 "Indexed Fragmentation": FragIndex < FragCount; a message in
     * pieces is identified by Sequence - FragIndex, so it needs a Sequence */
    if (p->frag_count == 0 || p->frag_index >= p->frag_count ||
        (p->frag_count > 1 && p->seq_len == 0)) {
        return -NDNLP_ERR_FRAG;
    }
    return (int)total;
}

/* ---- emit --------------------------------------------------------------- */

static size_t nack_value_len(const struct ndnlp_pkt *p)
{
    return p->nack_reason ? 3 + 1 + nni_len(p->nack_reason) : 0; /* 801 takes 3 octets */
}

/* bytes of the LpPacket's value before the Fragment's value */
static size_t fields_len(const struct ndnlp_pkt *p)
{
    size_t n = 0;
    if (p->seq_len) {
        n += 2 + NDNLP_SEQ_LEN;
    }
    if (p->frag_count > 1) {
        n += 2 + nni_len(p->frag_index) + 2 + nni_len(p->frag_count);
    }
    if (p->has_nack) {
        size_t v = nack_value_len(p);
        n += 3 + varnum_len(v) + v;
    }
    if (p->frag_len) {
        n += 1 + varnum_len(p->frag_len);
    }
    return n;
}

size_t wren_ndnlp_hdr_len(const struct ndnlp_pkt *p)
{
    size_t inner = fields_len(p) + p->frag_len;
    return 1 + varnum_len(inner) + inner - p->frag_len;
}

size_t wren_ndnlp_len(const struct ndnlp_pkt *p)
{
    return wren_ndnlp_hdr_len(p) + p->frag_len;
}

static uint8_t *emit_fields(const struct ndnlp_pkt *p, uint8_t *b)
{
    if (p->seq_len) {
        b = put_varnum(b, NDNLP_TLV_SEQUENCE);
        b = put_varnum(b, NDNLP_SEQ_LEN);
        b = put_be(b, p->seq, NDNLP_SEQ_LEN);
    }
    if (p->frag_count > 1) {
        b = put_nni_tlv(b, NDNLP_TLV_FRAG_INDEX, p->frag_index);
        b = put_nni_tlv(b, NDNLP_TLV_FRAG_COUNT, p->frag_count);
    }
    if (p->has_nack) {
        b = put_varnum(b, NDNLP_TLV_NACK);
        b = put_varnum(b, nack_value_len(p));
        if (p->nack_reason) {
            b = put_nni_tlv(b, NDNLP_TLV_NACK_REASON, p->nack_reason);
        }
    }
    if (p->frag_len) {
        b = put_varnum(b, NDNLP_TLV_FRAGMENT);
        b = put_varnum(b, p->frag_len);
    }
    return b;
}

int wren_ndnlp_emit(const struct ndnlp_pkt *p, uint8_t *buf, size_t len)
{
    size_t hdr = wren_ndnlp_hdr_len(p);
    size_t n = hdr + (p->frag ? p->frag_len : 0);
    if (n > len || n > INT_MAX) {
        return -NDNLP_ERR_NOBUFS;
    }
    uint8_t *b = put_varnum(buf, NDNLP_TLV_LP_PACKET);
    b = put_varnum(b, fields_len(p) + p->frag_len);
    b = emit_fields(p, b);
    if (p->frag && p->frag_len) {
        memcpy(b, p->frag, p->frag_len);
    }
    return (int)n;
}

/* NDN packet format 0.3: the TLV codec (wire/ndn_tlv.h). Section numbers
 * are those of the NDN packet specification 0.3 (named-data.net). */
#include "wire/ndn_tlv.h"

#include <errno.h>
#include <string.h>

#include "crypto/sha256.h"

/* ---- var-numbers and TLVs (1.1, 1.2) --------------------------------- */

int wren_ndn_varnum_parse(const uint8_t *buf, size_t len, uint64_t *v)
{
    if (len < 1) {
        return -EMSGSIZE;
    }
    size_t n = buf[0] < 253 ? 0 : buf[0] == 253 ? 2 : buf[0] == 254 ? 4 : 8;
    if (len < 1 + n) {
        return -EMSGSIZE;
    }
    uint64_t x = n ? 0 : buf[0];
    for (size_t i = 1; i <= n; i++) {
        x = x << 8 | buf[i];
    }
    *v = x;
    return (int)(1 + n);
}

size_t wren_ndn_varnum_len(uint64_t v)
{
    return v < 253 ? 1 : v <= 0xffff ? 3 : v <= 0xffffffffu ? 5 : 9;
}

size_t wren_ndn_varnum_emit(uint64_t v, uint8_t *out)
{
    size_t n = wren_ndn_varnum_len(v);
    if (n == 1) {
        out[0] = (uint8_t)v;
        return 1;
    }
    out[0] = n == 3 ? 253 : n == 5 ? 254 : 255;
    for (size_t i = 1; i < n; i++) {
        out[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
    }
    return n;
}

int wren_ndn_tlv_parse(const uint8_t *buf, size_t len, uint32_t *type, const uint8_t **val,
                       uint16_t *vlen)
{
    uint64_t t, l;
    int a = wren_ndn_varnum_parse(buf, len, &t);
    if (a < 0) {
        return a;
    }
    int b = wren_ndn_varnum_parse(buf + a, len - (size_t)a, &l);
    if (b < 0) {
        return b;
    }
    if (t == 0 || t > UINT32_MAX) {
        return -EBADMSG;
    }
    size_t hdr = (size_t)a + (size_t)b;
    if (l > UINT16_MAX || l > len - hdr) {
        return -EMSGSIZE;
    }
    *type = (uint32_t)t;
    *val = buf + hdr;
    *vlen = (uint16_t)l;
    return (int)(hdr + l);
}

/* NonNegativeInteger (1.2): 1, 2, 4 or 8 octets; wren keeps 32 bits */
static int nonneg_parse(const uint8_t *v, uint16_t len, uint32_t *out)
{
    if (len != 1 && len != 2 && len != 4 && len != 8) {
        return -EBADMSG;
    }
    uint64_t x = 0;
    for (uint16_t i = 0; i < len; i++) {
        x = x << 8 | v[i];
    }
    if (x > UINT32_MAX) {
        return -EBADMSG;
    }
    *out = (uint32_t)x;
    return 0;
}

static size_t nonneg_len(uint32_t x)
{
    return x <= 0xff ? 1 : x <= 0xffff ? 2 : 4;
}

/* ---- a bounded writer with a sticky error --------------------------- */

struct wr {
    uint8_t *p;
    size_t left;
    bool err;
};

static void wr_bytes(struct wr *w, const void *src, size_t n)
{
    if (w->err || n > w->left) {
        w->err = true;
        return;
    }
    if (n) {
        memcpy(w->p, src, n);
    }
    w->p += n;
    w->left -= n;
}

static void wr_hdr(struct wr *w, uint32_t type, size_t len)
{
    uint8_t b[2 * NDN_VARNUM_MAX_LEN];
    size_t n = wren_ndn_varnum_emit(type, b);
    n += wren_ndn_varnum_emit(len, b + n);
    wr_bytes(w, b, n);
}

static void wr_tlv(struct wr *w, uint32_t type, const void *v, size_t len)
{
    wr_hdr(w, type, len);
    wr_bytes(w, v, len);
}

static void wr_nonneg(struct wr *w, uint32_t type, uint32_t x)
{
    uint8_t b[4];
    size_t n = nonneg_len(x);
    for (size_t i = 0; i < n; i++) {
        b[i] = (uint8_t)(x >> (8 * (n - 1 - i)));
    }
    wr_tlv(w, type, b, n);
}

static size_t tlv_len(uint32_t type, size_t vlen)
{
    return wren_ndn_varnum_len(type) + wren_ndn_varnum_len(vlen) + vlen;
}

/* ---- Names (2) ------------------------------------------------------- */

int wren_ndn_name_parse(const uint8_t *v, size_t len, struct ndn_name *n)
{
    *n = (struct ndn_name){ .v = v, .len = (uint16_t)len, .params_idx = -1 };
    if (len > UINT16_MAX) {
        return -EMSGSIZE;
    }
    for (size_t off = 0; off < len;) {
        uint32_t t;
        const uint8_t *cv;
        uint16_t cl;
        int r = wren_ndn_tlv_parse(v + off, len - off, &t, &cv, &cl);
        if (r < 0) {
            return r;
        }
        bool digest = t == NDN_T_IMPLICIT_DIGEST || t == NDN_T_PARAMS_DIGEST;
        if (t > UINT16_MAX || (digest && cl != NDN_DIGEST_LEN) || n->ncomp == 255 ||
            (t == NDN_T_PARAMS_DIGEST && n->params_idx >= 0)) {
            return -EBADMSG;
        }
        if (t == NDN_T_PARAMS_DIGEST) {
            n->params_idx = n->ncomp;
        }
        n->ncomp++;
        off += (size_t)r;
    }
    return 0;
}

bool wren_ndn_name_is_prefix(const struct ndn_name *prefix, const struct ndn_name *name)
{
    /* both are whole component TLVs: equal leading octets end on a boundary */
    return prefix->len <= name->len && (prefix->len == 0 ||
                                        memcmp(prefix->v, name->v, prefix->len) == 0);
}

bool wren_ndn_name_eq(const struct ndn_name *a, const struct ndn_name *b)
{
    return a->len == b->len && (a->len == 0 || memcmp(a->v, b->v, a->len) == 0);
}

/* the last component's offset in @p n and its TLV */
static size_t last_comp(const struct ndn_name *n, uint32_t *type, const uint8_t **v, uint16_t *l)
{
    size_t last = 0;
    *type = 0;
    for (size_t off = 0; off < n->len;) {
        int r = wren_ndn_tlv_parse(n->v + off, n->len - off, type, v, l);
        if (r < 0) {
            *type = 0;
            return 0;
        }
        last = off;
        off += (size_t)r;
    }
    return last;
}

struct ndn_name wren_ndn_name_parent(const struct ndn_name *n)
{
    uint32_t t;
    const uint8_t *v;
    uint16_t l;
    struct ndn_name p = *n;
    p.len = (uint16_t)last_comp(n, &t, &v, &l);
    p.ncomp = n->ncomp ? (uint8_t)(n->ncomp - 1) : 0;
    p.params_idx = n->params_idx < p.ncomp ? n->params_idx : -1;
    return t ? p : *n;
}

bool wren_ndn_data_answers(const struct ndn_name *asked, bool can_be_prefix,
                           const struct ndn_data *d, const uint8_t *pkt, size_t len)
{
    if (can_be_prefix ? wren_ndn_name_is_prefix(asked, &d->name)
                      : wren_ndn_name_eq(asked, &d->name)) {
        return true;
    }
    uint32_t t;
    const uint8_t *v;
    uint16_t l;
    last_comp(asked, &t, &v, &l);
    struct ndn_name head = wren_ndn_name_parent(asked);
    if (t != NDN_T_IMPLICIT_DIGEST || !wren_ndn_name_eq(&head, &d->name)) {
        return false;
    }
    uint8_t h[NDN_DIGEST_LEN];
    wren_sha256(pkt, len, h);
    return memcmp(h, v, NDN_DIGEST_LEN) == 0;
}

/* ---- Interest (3) ---------------------------------------------------- */

/* the order of the Interest's elements; 0: not an element of it */
static int interest_rank(uint32_t t)
{
    static const uint8_t order[] = { NDN_T_NAME,     NDN_T_CAN_BE_PREFIX, NDN_T_MUST_BE_FRESH,
                                     NDN_T_FWD_HINT, NDN_T_NONCE,         NDN_T_LIFETIME,
                                     NDN_T_HOP_LIMIT, NDN_T_APP_PARAMS };
    for (int i = 0; i < (int)sizeof(order); i++) {
        if (order[i] == t) {
            return i + 1;
        }
    }
    return 0;
}

static int interest_elem(struct ndn_interest *in, uint32_t t, const uint8_t *v, uint16_t l)
{
    switch (t) {
    case NDN_T_NAME:
        return wren_ndn_name_parse(v, l, &in->name);
    case NDN_T_CAN_BE_PREFIX:
    case NDN_T_MUST_BE_FRESH:
        *(t == NDN_T_CAN_BE_PREFIX ? &in->can_be_prefix : &in->must_be_fresh) = true;
        return l == 0 ? 0 : -EBADMSG;
    case NDN_T_FWD_HINT:
        in->fwd_hint = v;
        in->fwd_hint_len = l;
        return 0;
    case NDN_T_NONCE:
        in->has_nonce = true;
        in->nonce = l == 4 ? (uint32_t)v[0] << 24 | (uint32_t)v[1] << 16 | (uint32_t)v[2] << 8 | v[3]
                           : 0;
        return l == 4 ? 0 : -EBADMSG;
    case NDN_T_LIFETIME:
        in->has_lifetime = true;
        return nonneg_parse(v, l, &in->lifetime_ms);
    case NDN_T_HOP_LIMIT:
        in->has_hop_limit = true;
        in->hop_limit = l == 1 ? v[0] : 0;
        in->hop_limit_at = v;
        return l == 1 ? 0 : -EBADMSG;
    default: /* NDN_T_APP_PARAMS */
        in->has_params = true;
        in->params = v;
        in->params_len = l;
        return 0;
    }
}

/* the elements after ApplicationParameters: its signature, or unknown
 * non-critical ones; all covered by the parameters digest */
static int params_tail_check(const uint8_t *p, size_t len)
{
    for (size_t off = 0; off < len;) {
        uint32_t t;
        const uint8_t *v;
        uint16_t l;
        int r = wren_ndn_tlv_parse(p + off, len - off, &t, &v, &l);
        if (r < 0) {
            return r;
        }
        if (t != NDN_T_ISIG_INFO && t != NDN_T_ISIG_VALUE && wren_ndn_type_critical(t)) {
            return -EPROTONOSUPPORT;
        }
        off += (size_t)r;
    }
    return 0;
}

/* SHA-256 of ApplicationParameters through the end of the Interest (3.2) */
static void params_digest(const struct ndn_interest *in, uint8_t out[NDN_DIGEST_LEN])
{
    uint8_t hdr[2 * NDN_VARNUM_MAX_LEN];
    size_t n = wren_ndn_varnum_emit(NDN_T_APP_PARAMS, hdr);
    n += wren_ndn_varnum_emit(in->params_len, hdr + n);
    struct wren_sha256 c;
    wren_sha256_init(&c);
    wren_sha256_update(&c, hdr, n);
    wren_sha256_update(&c, in->params, in->params_len);
    wren_sha256_update(&c, in->params_tail, in->params_tail_len);
    wren_sha256_final(&c, out);
}

/* the name's parameters digest component's value */
static const uint8_t *name_params_digest(const struct ndn_name *n)
{
    const uint8_t *p = n->v;
    for (int i = 0;; i++) {
        uint32_t t;
        const uint8_t *v;
        uint16_t l;
        int r = wren_ndn_tlv_parse(p, (size_t)(n->v + n->len - p), &t, &v, &l);
        if (i == n->params_idx || r < 0) {
            return r < 0 ? NULL : v;
        }
        p += r;
    }
}

static int interest_params_check(struct ndn_interest *in)
{
    if (in->has_params != (in->name.params_idx >= 0)) {
        return -EBADMSG;
    }
    if (!in->has_params) {
        return 0;
    }
    int r = params_tail_check(in->params_tail, in->params_tail_len);
    if (r < 0) {
        return r;
    }
    uint8_t d[NDN_DIGEST_LEN];
    params_digest(in, d);
    const uint8_t *want = name_params_digest(&in->name);
    return want && memcmp(want, d, NDN_DIGEST_LEN) == 0 ? 0 : -EILSEQ;
}

/* the outer TLV of type @p type filling @p len exactly: its value */
static int outer(const uint8_t *buf, size_t len, uint32_t type, const uint8_t **v, uint16_t *vl)
{
    uint32_t t;
    int r = wren_ndn_tlv_parse(buf, len, &t, v, vl);
    if (r < 0) {
        return r;
    }
    return t != type || (size_t)r != len ? -EBADMSG : 0;
}

int wren_ndn_interest_parse(const uint8_t *buf, size_t len, struct ndn_interest *in)
{
    const uint8_t *v;
    uint16_t vl;
    *in = (struct ndn_interest){ .name.params_idx = -1 };
    int r = outer(buf, len, NDN_T_INTEREST, &v, &vl);
    int last = 0;
    for (size_t off = 0; r >= 0 && off < vl;) {
        uint32_t t;
        const uint8_t *ev;
        uint16_t el;
        r = wren_ndn_tlv_parse(v + off, vl - off, &t, &ev, &el);
        if (r < 0) {
            break;
        }
        off += (size_t)r;
        int rank = interest_rank(t);
        if (rank == 0) {
            r = wren_ndn_type_critical(t) ? -EPROTONOSUPPORT : 0;
            continue;
        }
        if (rank <= last || (last == 0 && t != NDN_T_NAME)) {
            return -EBADMSG;
        }
        last = rank;
        r = interest_elem(in, t, ev, el);
        if (t == NDN_T_APP_PARAMS) {
            in->params_tail = v + off;
            in->params_tail_len = (uint16_t)(vl - off);
            break;
        }
    }
    if (r < 0) {
        return r;
    }
    if (last == 0) {
        return -EBADMSG; /* no Name */
    }
    if (!in->has_lifetime) {
        in->lifetime_ms = NDN_LIFETIME_DEFAULT_MS;
    }
    return interest_params_check(in);
}

/* the Name's value length as emitted: with a parameters digest appended */
static size_t interest_name_vlen(const struct ndn_interest *in)
{
    bool add = in->has_params && in->name.params_idx < 0;
    return in->name.len + (add ? tlv_len(NDN_T_PARAMS_DIGEST, NDN_DIGEST_LEN) : 0);
}

static size_t interest_vlen(const struct ndn_interest *in)
{
    size_t n = tlv_len(NDN_T_NAME, interest_name_vlen(in));
    n += in->can_be_prefix ? 2 : 0;
    n += in->must_be_fresh ? 2 : 0;
    n += in->fwd_hint ? tlv_len(NDN_T_FWD_HINT, in->fwd_hint_len) : 0;
    n += in->has_nonce ? 6 : 0;
    n += in->has_lifetime ? tlv_len(NDN_T_LIFETIME, nonneg_len(in->lifetime_ms)) : 0;
    n += in->has_hop_limit ? 3 : 0;
    if (in->has_params) {
        n += tlv_len(NDN_T_APP_PARAMS, in->params_len) + in->params_tail_len;
    }
    return n;
}

size_t wren_ndn_interest_len(const struct ndn_interest *in)
{
    return tlv_len(NDN_T_INTEREST, interest_vlen(in));
}

static void wr_interest_name(struct wr *w, const struct ndn_interest *in)
{
    wr_hdr(w, NDN_T_NAME, interest_name_vlen(in));
    wr_bytes(w, in->name.v, in->name.len);
    if (in->has_params && in->name.params_idx < 0) {
        uint8_t d[NDN_DIGEST_LEN];
        params_digest(in, d);
        wr_tlv(w, NDN_T_PARAMS_DIGEST, d, NDN_DIGEST_LEN);
    }
}

int wren_ndn_interest_emit(const struct ndn_interest *in, uint8_t *buf, size_t max)
{
    struct wr w = { .p = buf, .left = max };
    wr_hdr(&w, NDN_T_INTEREST, interest_vlen(in));
    wr_interest_name(&w, in);
    if (in->can_be_prefix) {
        wr_hdr(&w, NDN_T_CAN_BE_PREFIX, 0);
    }
    if (in->must_be_fresh) {
        wr_hdr(&w, NDN_T_MUST_BE_FRESH, 0);
    }
    if (in->fwd_hint) {
        wr_tlv(&w, NDN_T_FWD_HINT, in->fwd_hint, in->fwd_hint_len);
    }
    if (in->has_nonce) {
        uint8_t n[4] = { (uint8_t)(in->nonce >> 24), (uint8_t)(in->nonce >> 16),
                         (uint8_t)(in->nonce >> 8), (uint8_t)in->nonce };
        wr_tlv(&w, NDN_T_NONCE, n, 4);
    }
    if (in->has_lifetime) {
        wr_nonneg(&w, NDN_T_LIFETIME, in->lifetime_ms);
    }
    if (in->has_hop_limit) {
        wr_tlv(&w, NDN_T_HOP_LIMIT, &in->hop_limit, 1);
    }
    if (in->has_params) {
        wr_tlv(&w, NDN_T_APP_PARAMS, in->params, in->params_len);
        wr_bytes(&w, in->params_tail, in->params_tail_len);
    }
    return w.err ? -EMSGSIZE : (int)(w.p - buf);
}

/* ---- Data (4) -------------------------------------------------------- */

static int meta_info_parse(struct ndn_data *d, const uint8_t *v, uint16_t len)
{
    int last = 0;
    d->has_meta = true;
    for (size_t off = 0; off < len;) {
        uint32_t t;
        const uint8_t *ev;
        uint16_t el;
        int r = wren_ndn_tlv_parse(v + off, len - off, &t, &ev, &el);
        if (r < 0) {
            return r;
        }
        off += (size_t)r;
        int rank = t == NDN_T_CONTENT_TYPE ? 1 : t == NDN_T_FRESHNESS ? 2
                 : t == NDN_T_FINAL_BLOCK ? 3 : 0;
        if (rank == 0) {
            r = wren_ndn_type_critical(t) ? -EPROTONOSUPPORT : 0;
        } else if (rank <= last) {
            r = -EBADMSG;
        } else if (rank == 1) {
            d->has_content_type = true;
            r = nonneg_parse(ev, el, &d->content_type);
        } else if (rank == 2) {
            d->has_freshness = true;
            r = nonneg_parse(ev, el, &d->freshness_ms);
        } else {
            struct ndn_name one;
            d->final_block = ev;
            d->final_block_len = el;
            r = wren_ndn_name_parse(ev, el, &one) < 0 || one.ncomp != 1 ? -EBADMSG : 0;
        }
        last = rank ? rank : last;
        if (r < 0) {
            return r;
        }
    }
    return 0;
}

static int sig_info_parse(struct ndn_data *d, const uint8_t *v, uint16_t len)
{
    uint32_t t;
    const uint8_t *ev;
    uint16_t el;
    int r = wren_ndn_tlv_parse(v, len, &t, &ev, &el);
    if (r < 0 || t != NDN_T_SIG_TYPE || nonneg_parse(ev, el, &d->sig_type) < 0) {
        return r < 0 ? r : -EBADMSG;
    }
    d->sig_info_rest = v + r;
    d->sig_info_rest_len = (uint16_t)(len - r);
    /* KeyLocator (0x1c) and the validity period (0xfd) are known; any
     * other critical element is not */
    for (size_t off = (size_t)r; off < len;) {
        r = wren_ndn_tlv_parse(v + off, len - off, &t, &ev, &el);
        if (r < 0) {
            return r;
        }
        if (t != 0x1c && t != 0xfd && wren_ndn_type_critical(t)) {
            return -EPROTONOSUPPORT;
        }
        off += (size_t)r;
    }
    return 0;
}

static int data_rank(uint32_t t)
{
    return t == NDN_T_NAME ? 1 : t == NDN_T_META_INFO ? 2 : t == NDN_T_CONTENT ? 3
         : t == NDN_T_SIG_INFO ? 4 : t == NDN_T_SIG_VALUE ? 5 : 0;
}

static int data_elem(struct ndn_data *d, uint32_t t, const uint8_t *v, uint16_t l)
{
    switch (t) {
    case NDN_T_NAME:
        return wren_ndn_name_parse(v, l, &d->name);
    case NDN_T_META_INFO:
        return meta_info_parse(d, v, l);
    case NDN_T_CONTENT:
        d->has_content = true;
        d->content = v;
        d->content_len = l;
        return 0;
    case NDN_T_SIG_INFO:
        return sig_info_parse(d, v, l);
    default: /* NDN_T_SIG_VALUE */
        d->sig_value = v;
        d->sig_value_len = l;
        return 0;
    }
}

static int data_sig_check(const struct ndn_data *d, const uint8_t *from, const uint8_t *to)
{
    if (d->sig_type != NDN_SIG_DIGEST_SHA256) {
        return 0; /* other signatures are the application's to verify */
    }
    uint8_t h[NDN_DIGEST_LEN];
    wren_sha256(from, (size_t)(to - from), h);
    return d->sig_value_len == NDN_DIGEST_LEN && memcmp(h, d->sig_value, NDN_DIGEST_LEN) == 0
               ? 0
               : -EILSEQ;
}

int wren_ndn_data_parse(const uint8_t *buf, size_t len, struct ndn_data *d)
{
    const uint8_t *v, *signed_end = NULL;
    uint16_t vl;
    *d = (struct ndn_data){ .name.params_idx = -1 };
    int r = outer(buf, len, NDN_T_DATA, &v, &vl);
    int last = 0;
    for (size_t off = 0; r >= 0 && off < vl;) {
        uint32_t t;
        const uint8_t *ev;
        uint16_t el;
        r = wren_ndn_tlv_parse(v + off, vl - off, &t, &ev, &el);
        if (r < 0) {
            break;
        }
        off += (size_t)r;
        int rank = data_rank(t);
        if (rank == 0) {
            r = wren_ndn_type_critical(t) ? -EPROTONOSUPPORT : 0;
            continue;
        }
        if (rank <= last || (last == 0 && t != NDN_T_NAME)) {
            return -EBADMSG;
        }
        last = rank;
        signed_end = t == NDN_T_SIG_INFO ? v + off : signed_end;
        r = data_elem(d, t, ev, el);
    }
    if (r < 0) {
        return r;
    }
    if (last != 5 || signed_end == NULL) {
        return -EBADMSG; /* no Name, or no SignatureInfo and SignatureValue */
    }
    return data_sig_check(d, v, signed_end);
}

static size_t meta_vlen(const struct ndn_data *d)
{
    size_t n = d->has_content_type ? tlv_len(NDN_T_CONTENT_TYPE, nonneg_len(d->content_type)) : 0;
    n += d->has_freshness ? tlv_len(NDN_T_FRESHNESS, nonneg_len(d->freshness_ms)) : 0;
    n += d->final_block ? tlv_len(NDN_T_FINAL_BLOCK, d->final_block_len) : 0;
    return n;
}

static size_t sig_info_vlen(const struct ndn_data *d)
{
    return tlv_len(NDN_T_SIG_TYPE, nonneg_len(d->sig_type)) + d->sig_info_rest_len;
}

static size_t sig_value_len(const struct ndn_data *d)
{
    bool compute = d->sig_type == NDN_SIG_DIGEST_SHA256 && d->sig_value == NULL;
    return compute ? NDN_DIGEST_LEN : d->sig_value_len;
}

static size_t data_vlen(const struct ndn_data *d)
{
    size_t n = tlv_len(NDN_T_NAME, d->name.len);
    bool meta = d->has_meta || meta_vlen(d);
    n += meta ? tlv_len(NDN_T_META_INFO, meta_vlen(d)) : 0;
    n += d->has_content || d->content ? tlv_len(NDN_T_CONTENT, d->content_len) : 0;
    n += tlv_len(NDN_T_SIG_INFO, sig_info_vlen(d));
    return n + tlv_len(NDN_T_SIG_VALUE, sig_value_len(d));
}

size_t wren_ndn_data_len(const struct ndn_data *d)
{
    return tlv_len(NDN_T_DATA, data_vlen(d));
}

static void wr_meta(struct wr *w, const struct ndn_data *d)
{
    size_t n = meta_vlen(d);
    if (!d->has_meta && n == 0) {
        return;
    }
    wr_hdr(w, NDN_T_META_INFO, n);
    if (d->has_content_type) {
        wr_nonneg(w, NDN_T_CONTENT_TYPE, d->content_type);
    }
    if (d->has_freshness) {
        wr_nonneg(w, NDN_T_FRESHNESS, d->freshness_ms);
    }
    if (d->final_block) {
        wr_tlv(w, NDN_T_FINAL_BLOCK, d->final_block, d->final_block_len);
    }
}

int wren_ndn_data_emit(const struct ndn_data *d, uint8_t *buf, size_t max)
{
    struct wr w = { .p = buf, .left = max };
    wr_hdr(&w, NDN_T_DATA, data_vlen(d));
    uint8_t *signed_from = w.p;
    wr_tlv(&w, NDN_T_NAME, d->name.v, d->name.len);
    wr_meta(&w, d);
    if (d->has_content || d->content) {
        wr_tlv(&w, NDN_T_CONTENT, d->content, d->content_len);
    }
    wr_hdr(&w, NDN_T_SIG_INFO, sig_info_vlen(d));
    wr_nonneg(&w, NDN_T_SIG_TYPE, d->sig_type);
    wr_bytes(&w, d->sig_info_rest, d->sig_info_rest_len);
    if (w.err) {
        return -EMSGSIZE;
    }
    uint8_t h[NDN_DIGEST_LEN];
    const uint8_t *sv = d->sig_value;
    if (sv == NULL) { /* DigestSha256 over Name..SignatureInfo (4.2) */
        wren_sha256(signed_from, (size_t)(w.p - signed_from), h);
        sv = h;
    }
    wr_tlv(&w, NDN_T_SIG_VALUE, sv, sig_value_len(d));
    return w.err ? -EMSGSIZE : (int)(w.p - buf);
}

uint32_t wren_ndn_packet_type(const uint8_t *buf, size_t len)
{
    uint64_t t;
    return wren_ndn_varnum_parse(buf, len, &t) > 0 && t <= UINT32_MAX ? (uint32_t)t : 0;
}

#include "wire/coap.h"

#include <string.h>

#include "core/byteorder.h"

/* RFC 7252 3.1: one option header. Reads the delta and length nibbles and
 * their extensions from [*pp, end), checking each byte's presence before
 * reading it. @return 0, or -COAP_ERR_OPT_RESERVED / -COAP_ERR_OPT_TRUNC;
 * a first byte of 0xff is not an option (the caller checks for it). */
static int opt_hdr(const uint8_t **pp, const uint8_t *end, uint32_t *delta, uint32_t *len)
{
    const uint8_t *p = *pp;
    uint32_t v[2] = { (uint32_t)(*p >> 4), (uint32_t)(*p & 0x0f) };
    p++;
    for (int i = 0; i < 2; i++) {
        if (v[i] == 13) {
            if (end - p < 1) {
                return -COAP_ERR_OPT_TRUNC;
            }
            v[i] = 13u + *p++;
        } else if (v[i] == 14) {
            if (end - p < 2) {
                return -COAP_ERR_OPT_TRUNC;
            }
            v[i] = 269u + get_be16(p);
            p += 2;
        } else if (v[i] == 15) {
            return -COAP_ERR_OPT_RESERVED;
        }
    }
    if ((size_t)(end - p) < v[1]) {
        return -COAP_ERR_OPT_TRUNC;
    }
    *delta = v[0];
    *len = v[1];
    *pp = p;
    return 0;
}

int wren_coap_opt_next(struct coap_opt_iter *it, struct coap_opt *o)
{
    if (it->left == 0 || *it->p == COAP_PAYLOAD_MARKER) {
        return 0;
    }
    const uint8_t *p = it->p;
    const uint8_t *end = p + it->left;
    uint32_t delta, len;
    int rc = opt_hdr(&p, end, &delta, &len);
    if (rc < 0) {
        return rc;
    }
    if (it->num + delta > 0xffff) {
        return -COAP_ERR_OPT_NUM;
    }
    it->num += delta;
    o->num = (uint16_t)it->num;
    o->len = (uint16_t)len;
    o->val = p;
    p += len;
    it->left = (size_t)(end - p);
    it->p = p;
    return 1;
}

void wren_coap_opt_iter_init(struct coap_opt_iter *it, const struct coap_msg *m)
{
    it->p = m->opts;
    it->left = m->opts_len;
    it->num = 0;
}

/* Walk options from @p p until the end or a payload marker: the length of
 * the option bytes, or a negative error. */
static long opts_walk(const uint8_t *p, size_t len)
{
    struct coap_opt_iter it = { .p = p, .left = len, .num = 0 };
    struct coap_opt o;
    int rc;
    while ((rc = wren_coap_opt_next(&it, &o)) > 0) {
    }
    if (rc < 0) {
        return rc;
    }
    return (long)(len - it.left);
}

int wren_coap_opts_check(const uint8_t *p, size_t len)
{
    long n = opts_walk(p, len);
    if (n < 0) {
        return (int)n;
    }
    /* a marker inside a bare option list is a reserved nibble */
    return (size_t)n == len ? 0 : -COAP_ERR_OPT_RESERVED;
}

/* RFC 7252 3: header, token, options, then an optional marker + payload */
int wren_coap_parse(const uint8_t *buf, size_t len, struct coap_msg *m)
{
    memset(m, 0, sizeof(*m));
    if (len < COAP_HDR_LEN) {
        return -COAP_ERR_TRUNCATED;
    }
    if ((buf[0] >> 6) != COAP_VERSION) {
        return -COAP_ERR_VERSION;
    }
    m->type = (uint8_t)((buf[0] >> 4) & 3);
    m->code = buf[1];
    m->mid = get_be16(buf + 2);
    uint8_t tkl = buf[0] & 0x0f;
    if (tkl > COAP_TOKEN_MAX) {
        return -COAP_ERR_TKL; /* RFC 7252 3: 9-15 is a message format error */
    }
    if (m->code == COAP_CODE_EMPTY && (tkl != 0 || len != COAP_HDR_LEN)) {
        return -COAP_ERR_EMPTY; /* RFC 7252 4.1: nothing after the Message ID */
    }
    if (len - COAP_HDR_LEN < tkl) {
        return -COAP_ERR_OPT_TRUNC;
    }
    m->tkl = tkl;
    memcpy(m->token, buf + COAP_HDR_LEN, tkl);
    const uint8_t *p = buf + COAP_HDR_LEN + tkl;
    size_t left = len - COAP_HDR_LEN - tkl;
    long n = opts_walk(p, left);
    if (n < 0) {
        return (int)n;
    }
    m->opts = p;
    m->opts_len = (size_t)n;
    if ((size_t)n < left) {
        /* the marker: a payload of zero length after it is a format error */
        if (left - (size_t)n < 2) {
            return -COAP_ERR_NO_PAYLOAD;
        }
        m->payload = p + n + 1;
        m->payload_len = left - (size_t)n - 1;
    }
    return 0;
}

size_t wren_coap_len(const struct coap_msg *m)
{
    return COAP_HDR_LEN + m->tkl + m->opts_len + (m->payload_len ? 1 + m->payload_len : 0);
}

void wren_coap_emit_body(const struct coap_msg *m, uint8_t *p)
{
    memcpy(p, m->token, m->tkl);
    p += m->tkl;
    if (m->opts_len) {
        memcpy(p, m->opts, m->opts_len);
        p += m->opts_len;
    }
    if (m->payload_len) {
        *p++ = COAP_PAYLOAD_MARKER;
        memcpy(p, m->payload, m->payload_len);
    }
}

int wren_coap_emit(const struct coap_msg *m, uint8_t *buf, size_t len)
{
    size_t need = wren_coap_len(m);
    if (len < need || m->tkl > COAP_TOKEN_MAX) {
        return len < need ? -COAP_ERR_NOBUFS : -COAP_ERR_INVAL;
    }
    buf[0] = (uint8_t)((COAP_VERSION << 6) | ((m->type & 3) << 4) | m->tkl);
    buf[1] = m->code;
    put_be16(buf + 2, m->mid);
    wren_coap_emit_body(m, buf + COAP_HDR_LEN);
    return (int)need;
}

int wren_coap_opt_find(const struct coap_msg *m, uint16_t num, struct coap_opt *o)
{
    struct coap_opt_iter it;
    wren_coap_opt_iter_init(&it, m);
    while (wren_coap_opt_next(&it, o) > 0) {
        if (o->num == num) {
            return 1;
        }
        if (o->num > num) {
            break;
        }
    }
    return 0;
}

int wren_coap_opt_uint(const struct coap_opt *o, uint32_t *v)
{
    if (o->len > 4) {
        return -COAP_ERR_INVAL;
    }
    uint32_t x = 0;
    for (unsigned i = 0; i < o->len; i++) {
        x = (x << 8) | o->val[i];
    }
    *v = x;
    return 0;
}

/* RFC 7252 5.10 table 4, RFC 7641 2, RFC 7959 2.1 and 4: the known options
 * and their value length ranges; repeatable ones flagged (RFC 7252 5.4.5). */
struct opt_def {
    uint8_t num;
    uint8_t min;
    uint8_t max;  /**< 255 stands for Proxy-Uri's 1034 */
    uint8_t rep;
};

static const struct opt_def opt_defs[] = {
    { COAP_OPT_IF_MATCH, 0, 8, 1 },        { COAP_OPT_URI_HOST, 1, 254, 0 },
    { COAP_OPT_ETAG, 1, 8, 1 },            { COAP_OPT_IF_NONE_MATCH, 0, 0, 0 },
    { COAP_OPT_OBSERVE, 0, 3, 0 },         { COAP_OPT_URI_PORT, 0, 2, 0 },
    { COAP_OPT_LOCATION_PATH, 0, 254, 1 }, { COAP_OPT_URI_PATH, 0, 254, 1 },
    { COAP_OPT_CONTENT_FORMAT, 0, 2, 0 },  { COAP_OPT_MAX_AGE, 0, 4, 0 },
    { COAP_OPT_URI_QUERY, 0, 254, 1 },     { COAP_OPT_ACCEPT, 0, 2, 0 },
    { COAP_OPT_LOCATION_QUERY, 0, 254, 1 }, { COAP_OPT_BLOCK2, 0, 3, 0 },
    { COAP_OPT_BLOCK1, 0, 3, 0 },          { COAP_OPT_SIZE2, 0, 4, 0 },
    { COAP_OPT_PROXY_URI, 1, 255, 0 },     { COAP_OPT_PROXY_SCHEME, 1, 254, 0 },
    { COAP_OPT_SIZE1, 0, 4, 0 },
};

int wren_coap_opt_class(uint16_t num, size_t len)
{
    for (size_t i = 0; i < sizeof(opt_defs) / sizeof(opt_defs[0]); i++) {
        const struct opt_def *d = &opt_defs[i];
        if (d->num == num) {
            /* strings of 0-255 bytes: 254 stands for 255 (the table keeps 255 for 1034) */
            size_t max = d->max == 255 ? 1034 : d->max == 254 ? 255 : d->max;
            return len < d->min || len > max ? 0 : 1 + d->rep;
        }
    }
    return 0;
}

bool wren_coap_opt_known(uint16_t num, size_t len)
{
    return wren_coap_opt_class(num, len) != 0;
}

bool wren_coap_opt_repeatable(uint16_t num)
{
    /* a length every option's range has but If-None-Match's (0 only): that
     * one is not repeatable anyway */
    return wren_coap_opt_class(num, 1) == 2;
}

uint8_t wren_coap_uint_len(uint32_t v)
{
    uint8_t n = 0;
    while (v) {
        n++;
        v >>= 8;
    }
    return n;
}

/* ---- builder ---- */

static uint8_t *room(struct coap_builder *b, size_t n)
{
    if (b->err) {
        return NULL;
    }
    if (b->cap - b->len < n) {
        b->err = -COAP_ERR_NOBUFS;
        return NULL;
    }
    uint8_t *p = b->buf + b->len;
    b->len += n;
    return p;
}

void wren_coap_build_init(struct coap_builder *b, uint8_t *buf, size_t cap, uint8_t type,
                          uint8_t code, uint16_t mid, const uint8_t *token, uint8_t tkl)
{
    *b = (struct coap_builder){ .buf = buf, .cap = cap };
    if (tkl > COAP_TOKEN_MAX || type > COAP_RST) {
        b->err = -COAP_ERR_INVAL;
        return;
    }
    uint8_t *p = room(b, COAP_HDR_LEN + (size_t)tkl);
    if (!p) {
        return;
    }
    p[0] = (uint8_t)((COAP_VERSION << 6) | (type << 4) | tkl);
    p[1] = code;
    put_be16(p + 2, mid);
    if (tkl) {
        memcpy(p + COAP_HDR_LEN, token, tkl);
    }
}

void wren_coap_build_opt(struct coap_builder *b, uint16_t num, const void *val, size_t len)
{
    if (b->err) {
        return;
    }
    if (num < b->last || b->done_opts || len > 0xffffu + 269u) {
        b->err = -COAP_ERR_INVAL;
        return;
    }
    /* RFC 7252 3.1: the delta's and the length's nibbles, each with 0-2
     * extension bytes (13: one, value - 13; 14: two, value - 269) */
    uint32_t v[2] = { (uint32_t)(num - b->last), (uint32_t)len };
    uint8_t hdr[5] = { 0 };
    size_t n = 1;
    for (unsigned i = 0; i < 2; i++) {
        uint8_t nib = v[i] < 13 ? (uint8_t)v[i] : v[i] < 269 ? 13 : 14;
        hdr[0] = (uint8_t)(hdr[0] << 4 | nib);
        if (nib == 13) {
            hdr[n++] = (uint8_t)(v[i] - 13);
        } else if (nib == 14) {
            put_be16(hdr + n, (uint16_t)(v[i] - 269));
            n += 2;
        }
    }
    uint8_t *p = room(b, n + len);
    if (!p) {
        return;
    }
    memcpy(p, hdr, n);
    if (len) {
        memcpy(p + n, val, len);
    }
    b->last = num;
}

void wren_coap_build_opt_uint(struct coap_builder *b, uint16_t num, uint32_t v)
{
    uint8_t be[4];
    put_be32(be, v);
    uint8_t n = wren_coap_uint_len(v);
    wren_coap_build_opt(b, num, be + 4 - n, n);
}

/* Each @p sep-separated part of @p s as option @p num. */
static void build_opt_parts(struct coap_builder *b, uint16_t num, const char *s, char sep)
{
    while (*s) {
        const char *e = s;
        while (*e && *e != sep) {
            e++;
        }
        wren_coap_build_opt(b, num, s, (size_t)(e - s));
        s = *e ? e + 1 : e;
    }
}

void wren_coap_build_opt_path(struct coap_builder *b, uint16_t num, const char *path)
{
    build_opt_parts(b, num, path + (*path == '/'), '/');
}

void wren_coap_build_opt_query(struct coap_builder *b, uint16_t num, const char *query)
{
    build_opt_parts(b, num, query, '&');
}

uint8_t *wren_coap_build_payload_start(struct coap_builder *b, size_t *max)
{
    if (!b->err && b->done_opts) {
        b->err = -COAP_ERR_INVAL;
    }
    uint8_t *p = room(b, 1);
    if (!p) {
        *max = 0;
        return NULL;
    }
    *p = COAP_PAYLOAD_MARKER;
    b->done_opts = true;
    *max = b->cap - b->len;
    return p + 1;
}

void wren_coap_build_payload_done(struct coap_builder *b, size_t len)
{
    if (b->err) {
        return;
    }
    if (len == 0) {
        b->len--; /* no payload, no marker */
    } else if (len > b->cap - b->len) {
        b->err = -COAP_ERR_NOBUFS;
    } else {
        b->len += len;
    }
}

void wren_coap_build_payload(struct coap_builder *b, const void *data, size_t len)
{
    if (len == 0) {
        b->done_opts = true;
        return;
    }
    size_t max;
    uint8_t *p = wren_coap_build_payload_start(b, &max);
    if (!p) {
        return;
    }
    if (len > max) {
        b->err = -COAP_ERR_NOBUFS;
        return;
    }
    memcpy(p, data, len);
    wren_coap_build_payload_done(b, len);
}

int wren_coap_build_end(const struct coap_builder *b)
{
    return b->err ? b->err : (int)b->len;
}

/* ---- RFC 7959 2.2: NUM | M | SZX ---- */

int wren_coap_block_decode(uint32_t v, struct coap_block *blk)
{
    if (v > 0xffffffu || (v & 7) == 7) {
        return -COAP_ERR_INVAL;
    }
    blk->szx = (uint8_t)(v & 7);
    blk->more = (uint8_t)((v >> 3) & 1);
    blk->num = v >> 4;
    return 0;
}

int32_t wren_coap_block_encode(const struct coap_block *blk)
{
    if (blk->num > COAP_BLOCK_NUM_MAX || blk->szx > 6) {
        return -COAP_ERR_INVAL;
    }
    return (int32_t)((blk->num << 4) | (blk->more ? 8u : 0u) | blk->szx);
}

int wren_coap_block_szx_fit(size_t bytes)
{
    int szx = -1;
    while (szx < 6 && COAP_BLOCK_SIZE(szx + 1) <= bytes) {
        szx++;
    }
    return szx;
}

/* RFC 7641 3.4: serial order of 24-bit numbers, or 128 s gone by */
bool wren_coap_observe_fresher(uint32_t v1, uint64_t t1_ms, uint32_t v2, uint64_t t2_ms)
{
    v1 &= COAP_OBSERVE_MASK;
    v2 &= COAP_OBSERVE_MASK;
    const uint32_t half = 1u << 23;
    return (v1 < v2 && v2 - v1 < half) || (v1 > v2 && v1 - v2 > half) ||
           t2_ms > t1_ms + 128000u;
}

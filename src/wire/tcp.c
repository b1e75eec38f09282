#include "wire/tcp.h"

#include <string.h>

#include "core/byteorder.h"

/* A bounded reader: a read past the end sets err (sticky) and yields zeros. */
struct rd {
    const uint8_t *p;
    size_t left;
    bool err;
};

static const uint8_t *rd_take(struct rd *r, size_t n)
{
    static const uint8_t zeros[4];
    if (r->left < n) {
        r->err = true;
        r->left = 0;
        return zeros;
    }
    const uint8_t *p = r->p;
    r->p += n;
    r->left -= n;
    return p;
}

static uint8_t rd_u8(struct rd *r)
{
    return *rd_take(r, 1);
}

static uint32_t rd_be32(struct rd *r)
{
    return get_be32(rd_take(r, 4));
}

/* Length byte of the known kinds with a fixed length (RFC 9293 3.2 MSS,
 * RFC 7323 2.2 window scale and 3.2 timestamps, RFC 2018 2 SACK-permitted);
 * 0: any length. */
static const uint8_t opt_fixed_len[TCP_OPT_TS + 1] = {
    [TCP_OPT_MSS] = 4, [TCP_OPT_WSCALE] = 3, [TCP_OPT_SACK_OK] = 2, [TCP_OPT_TS] = 10,
};

/* RFC 9293 3.1, 3.2: kind; for all kinds but EOL and NOP a length that
 * counts kind and length bytes (MUST-68); unknown kinds skipped (MUST-6). */
int wren_tcp_opts_parse(const uint8_t *opts, size_t len, struct tcp_opts *o)
{
    struct rd r = { opts, len, false };
    memset(o, 0, sizeof(*o));
    while (r.left) {
        unsigned kind = rd_u8(&r);
        if (kind == TCP_OPT_EOL) {
            break; /* the rest is padding */
        }
        if (kind == TCP_OPT_NOP) {
            continue;
        }
        unsigned olen = rd_u8(&r);
        if (r.err) {
            return -TCP_ERR_OPT_TRUNCATED;
        }
        if (olen < 2) {
            return -TCP_ERR_OPT_LEN; /* MUST-7: an illegal length */
        }
        olen -= 2; /* the value */
        if (olen > r.left) {
            return -TCP_ERR_OPT_TRUNCATED;
        }
        if (kind < sizeof(opt_fixed_len) && opt_fixed_len[kind] &&
            olen + 2 != opt_fixed_len[kind]) {
            return -TCP_ERR_OPT_SIZE;
        }
        /* from here each case reads exactly olen bytes */
        switch (kind) {
        case TCP_OPT_MSS:
            o->has_mss = true;
            o->mss = get_be16(rd_take(&r, 2));
            break;
        case TCP_OPT_WSCALE:
            o->has_wscale = true;
            o->wscale = rd_u8(&r);
            break;
        case TCP_OPT_SACK_OK:
            o->sack_ok = true;
            break;
        case TCP_OPT_SACK: {
            /* RFC 2018 3: 2 + 8n bytes; at most 4 blocks fit in 40 */
            unsigned n = olen / 8;
            if (olen % 8 || n == 0 || n > TCP_SACK_MAX) {
                return -TCP_ERR_OPT_SACK;
            }
            o->n_sack = (uint8_t)n;
            for (unsigned i = 0; i < n; i++) {
                o->sack[i][0] = rd_be32(&r);
                o->sack[i][1] = rd_be32(&r);
            }
            break;
        }
        case TCP_OPT_TS:
            o->has_ts = true;
            o->ts_val = rd_be32(&r);
            o->ts_ecr = rd_be32(&r);
            break;
        default:
            rd_take(&r, olen);
            break;
        }
    }
    return 0;
}

/* RFC 9293 3.1 */
int wren_tcp_hdr_parse(const uint8_t *buf, size_t len, struct tcp_hdr *h, struct tcp_opts *o)
{
    if (len < TCP_HDR_LEN) {
        return -TCP_ERR_TRUNCATED;
    }
    size_t hl = (size_t)(buf[TCP_OFF_DOFF] >> 4) * 4;
    if (hl < TCP_HDR_LEN) {
        return -TCP_ERR_DOFF;
    }
    if (hl > len) {
        return -TCP_ERR_DOFF_LEN;
    }
    h->src_port = get_be16(buf);
    h->dst_port = get_be16(buf + 2);
    h->seq = get_be32(buf + TCP_OFF_SEQ);
    h->ack = get_be32(buf + TCP_OFF_ACK);
    h->rsvd = buf[TCP_OFF_DOFF] & 0x0fu;
    h->flags = buf[TCP_OFF_FLAGS];
    h->window = get_be16(buf + TCP_OFF_WINDOW);
    h->csum = get_be16(buf + TCP_OFF_CSUM);
    h->urg = get_be16(buf + TCP_OFF_URG);
    int rc = wren_tcp_opts_parse(buf + TCP_HDR_LEN, hl - TCP_HDR_LEN, o);
    return rc < 0 ? rc : (int)hl;
}

int wren_tcp_opts_len(const struct tcp_opts *o)
{
    if (!o) {
        return 0;
    }
    unsigned n = o->has_mss ? 4 : 0;
    n += o->has_ts ? 12 : o->sack_ok ? 4 : 0;
    n += o->has_wscale ? 4 : 0;
    n += o->n_sack ? 4u + 8u * o->n_sack : 0;
    return n > TCP_OPTS_MAX_LEN ? -TCP_ERR_INVAL : (int)n;
}

static uint8_t *put32(uint8_t *p, uint32_t v)
{
    put_be32(p, v);
    return p + 4;
}

/* Every option starts a 32-bit word (NOPs in front), as Linux's
 * tcp_options_write() lays them out; SACK-permitted takes the NOPs before
 * the timestamps. */
int wren_tcp_opts_emit(const struct tcp_opts *o, uint8_t *buf, size_t len)
{
    int n = wren_tcp_opts_len(o);
    if (n <= 0) {
        return n;
    }
    if (len < (size_t)n) {
        return -TCP_ERR_NOBUFS;
    }
    uint8_t *p = buf;
    if (o->has_mss) {
        p = put32(p, 0x02040000u | o->mss);
    }
    if (o->has_ts || o->sack_ok) {
        p = put32(p, !o->has_ts ? 0x01010402u : o->sack_ok ? 0x0402080au : 0x0101080au);
    }
    if (o->has_ts) {
        p = put32(p, o->ts_val);
        p = put32(p, o->ts_ecr);
    }
    if (o->has_wscale) {
        p = put32(p, 0x01030300u | o->wscale);
    }
    if (o->n_sack) {
        p = put32(p, 0x01010502u + 8u * o->n_sack);
        for (unsigned i = 0; i < o->n_sack; i++) {
            p = put32(p, o->sack[i][0]);
            p = put32(p, o->sack[i][1]);
        }
    }
    return n;
}

int wren_tcp_hdr_len(const struct tcp_opts *o)
{
    int n = wren_tcp_opts_len(o);
    return n < 0 ? n : TCP_HDR_LEN + n;
}

/* RFC 9293 3.1 */
int wren_tcp_hdr_emit(const struct tcp_hdr *h, const struct tcp_opts *o, uint8_t *buf, size_t len)
{
    int n = wren_tcp_hdr_len(o);
    if (n < 0) {
        return n;
    }
    if (len < (size_t)n) {
        return -TCP_ERR_NOBUFS;
    }
    put_be16(buf, h->src_port);
    put_be16(buf + 2, h->dst_port);
    put_be32(buf + TCP_OFF_SEQ, h->seq);
    put_be32(buf + TCP_OFF_ACK, h->ack);
    buf[TCP_OFF_DOFF] = (uint8_t)(n << 2 | (h->rsvd & 0x0fu)); /* data offset: n / 4 */
    buf[TCP_OFF_FLAGS] = h->flags;
    put_be16(buf + TCP_OFF_WINDOW, h->window);
    put_be16(buf + TCP_OFF_CSUM, h->csum);
    put_be16(buf + TCP_OFF_URG, h->urg);
    wren_tcp_opts_emit(o, buf + TCP_HDR_LEN, (size_t)n - TCP_HDR_LEN);
    return n;
}

/* RFC 9293 3.1: over the pseudo-header (RFC 8200 8.1) and the segment,
 * skipping @p gap bytes at the checksum field. */
static uint16_t csum(const uint8_t *src, const uint8_t *dst, const uint8_t *seg, size_t len,
                     size_t gap)
{
    struct inet_csum c;
    size_t a = len < TCP_OFF_CSUM ? len : TCP_OFF_CSUM;
    wren_tcp_csum_start(&c, src, dst, (uint32_t)len);
    wren_inet_csum_update(&c, seg, a);
    if (len > a + gap) {
        wren_inet_csum_update(&c, seg + a + gap, len - a - gap);
    }
    return wren_inet_csum_final(&c);
}

uint16_t wren_tcp_csum(const uint8_t *src, const uint8_t *dst, const uint8_t *seg, size_t len)
{
    return csum(src, dst, seg, len, 2);
}

int wren_tcp_csum_check(const uint8_t *src, const uint8_t *dst, const uint8_t *seg, size_t len)
{
    if (len < TCP_HDR_LEN) {
        return -TCP_ERR_TRUNCATED;
    }
    return csum(src, dst, seg, len, 0) ? -TCP_ERR_CSUM : 0;
}

#include "wire/rpl.h"

#include <string.h>

#include "core/byteorder.h"

/* Copy @p n bytes from @p src to @p dst, which is either @p src itself (an
 * emit in place over what was parsed from the same buffer) or apart from it
 * (no partial overlap: memcpy, without memmove's 252 bytes). */
static void put(uint8_t *dst, const void *src, size_t n)
{
    if (dst != src) {
        memcpy(dst, src, n);
    }
}

/* ---- control messages (RFC 6550 6.2 - 6.5) ---- */

/* Size of the base after the 4-byte ICMPv6 header; D flags add a DODAGID. */
static int base_len(uint8_t code, bool has_dodagid)
{
    switch (code) {
    case RPL_CODE_DIS:
        return 2;
    case RPL_CODE_DIO:
        return 24;
    case RPL_CODE_DAO:
    case RPL_CODE_DAO_ACK:
        return has_dodagid ? 20 : 4;
    default:
        return -RPL_ERR_CODE;
    }
}

int wren_rpl_msg_parse(const uint8_t *buf, size_t len, struct rpl_msg *m)
{
    memset(m, 0, sizeof(*m));
    if (len < 4) {
        return -RPL_ERR_TRUNCATED;
    }
    if (buf[0] != ICMPV6_RPL) {
        return -RPL_ERR_TYPE;
    }
    m->code = buf[1];
    m->csum = get_be16(buf + 2);
    const uint8_t *b = buf + 4;
    size_t left = len - 4;
    /* the D flag sits in byte 1 of both DAO and DAO-ACK, at different bits */
    bool d = false;
    if (left >= 2 && m->code == RPL_CODE_DAO) {
        d = (b[1] & RPL_DAO_D) != 0;
    } else if (left >= 2 && m->code == RPL_CODE_DAO_ACK) {
        d = (b[1] & RPL_DAO_ACK_D) != 0;
    }
    int need = base_len(m->code, d);
    if (need < 0) {
        return need;
    }
    if (left < (size_t)need) {
        return -RPL_ERR_TRUNCATED;
    }
    switch (m->code) {
    case RPL_CODE_DIS:
        m->dis.flags = b[0];
        break;
    case RPL_CODE_DIO:
        m->dio.instance = b[0];
        m->dio.version = b[1];
        m->dio.rank = get_be16(b + 2);
        m->dio.g_mop_prf = b[4];
        m->dio.dtsn = b[5];
        m->dio.flags = b[6];
        m->dio.dodagid = b + 8;
        break;
    case RPL_CODE_DAO:
        m->dao.instance = b[0];
        m->dao.flags = b[1];
        m->dao.seq = b[3];
        m->dao.dodagid = d ? b + 4 : NULL;
        break;
    default: /* DAO-ACK */
        m->dao_ack.instance = b[0];
        m->dao_ack.flags = b[1];
        m->dao_ack.seq = b[2];
        m->dao_ack.status = b[3];
        m->dao_ack.dodagid = d ? b + 4 : NULL;
        break;
    }
    m->opts = b + need;
    m->opts_len = left - (size_t)need;
    return 0;
}

static bool msg_has_dodagid(const struct rpl_msg *m)
{
    return (m->code == RPL_CODE_DAO && m->dao.dodagid) ||
           (m->code == RPL_CODE_DAO_ACK && m->dao_ack.dodagid);
}

int wren_rpl_msg_len(const struct rpl_msg *m)
{
    int n = base_len(m->code, msg_has_dodagid(m));
    return n < 0 ? n : 4 + n + (int)m->opts_len;
}

int wren_rpl_msg_emit(const struct rpl_msg *m, uint8_t *buf, size_t len)
{
    int n = wren_rpl_msg_len(m);
    if (n < 0) {
        return n;
    }
    if ((size_t)n > len) {
        return -RPL_ERR_NOBUFS;
    }
    size_t base = (size_t)n - m->opts_len;
    uint8_t *b = buf + 4;
    /* the pointers may point at their own place in buf (emit in place
     * over a parsed message): copy what they point at first, then write
     * the fixed bytes around it */
    if (m->opts_len) {
        put(buf + base, m->opts, m->opts_len);
    }
    const uint8_t *id = m->code == RPL_CODE_DIO ? m->dio.dodagid
                        : m->code == RPL_CODE_DAO ? m->dao.dodagid
                        : m->code == RPL_CODE_DAO_ACK ? m->dao_ack.dodagid
                                                      : NULL;
    if (id) {
        put(b + (m->code == RPL_CODE_DIO ? 8 : 4), id, 16);
    }
    buf[0] = ICMPV6_RPL;
    buf[1] = m->code;
    buf[2] = buf[3] = 0;
    switch (m->code) {
    case RPL_CODE_DIS:
        b[0] = m->dis.flags;
        b[1] = 0;
        break;
    case RPL_CODE_DIO:
        b[0] = m->dio.instance;
        b[1] = m->dio.version;
        put_be16(b + 2, m->dio.rank);
        b[4] = m->dio.g_mop_prf;
        b[5] = m->dio.dtsn;
        b[6] = m->dio.flags;
        b[7] = 0;
        break;
    case RPL_CODE_DAO:
        b[0] = m->dao.instance;
        b[1] = (uint8_t)((m->dao.flags & ~RPL_DAO_D) | (id ? RPL_DAO_D : 0));
        b[2] = 0;
        b[3] = m->dao.seq;
        break;
    default: /* DAO-ACK */
        b[0] = m->dao_ack.instance;
        b[1] = (uint8_t)((m->dao_ack.flags & ~RPL_DAO_ACK_D) | (id ? RPL_DAO_ACK_D : 0));
        b[2] = m->dao_ack.seq;
        b[3] = m->dao_ack.status;
        break;
    }
    return n;
}

/* ---- options (RFC 6550 6.7) ---- */

int wren_rpl_opt_next(struct rpl_opt_iter *it, struct rpl_opt *o)
{
    const uint8_t *p = it->p;
    size_t left = it->left;
    for (;;) {
        if (left == 0) {
            it->p = p;
            it->left = 0;
            return 0;
        }
        if (p[0] == RPL_OPT_PAD1) { /* 6.7.2: one byte, no length */
            p++;
            left--;
            continue;
        }
        if (left < 2 || (size_t)p[1] > left - 2) {
            it->p = p;
            it->left = left;
            return -RPL_ERR_OPT_TRUNCATED;
        }
        size_t step = 2u + p[1];
        if (p[0] == RPL_OPT_PADN) { /* 6.7.3 */
            p += step;
            left -= step;
            continue;
        }
        o->type = p[0];
        o->len = p[1];
        o->data = p + 2;
        it->p = p + step;
        it->left = left - step;
        return 1;
    }
}

/* Start an option of @p dlen data bytes: type and length; NULL if no room. */
static uint8_t *opt_start(uint8_t type, size_t dlen, uint8_t *buf, size_t len)
{
    if (2 + dlen > len) {
        return NULL;
    }
    buf[0] = type;
    buf[1] = (uint8_t)dlen;
    return buf + 2;
}

int wren_rpl_opt_pad_emit(size_t n, uint8_t *buf, size_t len)
{
    if (n < 1 || n > 7) {
        return -RPL_ERR_INVAL;
    }
    if (n > len) {
        return -RPL_ERR_NOBUFS;
    }
    memset(buf, 0, n);
    if (n > 1) {
        buf[0] = RPL_OPT_PADN;
        buf[1] = (uint8_t)(n - 2);
    }
    return (int)n;
}

int wren_rpl_opt_raw_emit(uint8_t type, const uint8_t *data, size_t data_len, uint8_t *buf,
                          size_t len)
{
    if (data_len > 255) {
        return -RPL_ERR_INVAL;
    }
    if (2 + data_len > len) {
        return -RPL_ERR_NOBUFS;
    }
    if (data_len) {
        put(buf + 2, data, data_len);
    }
    buf[0] = type;
    buf[1] = (uint8_t)data_len;
    return (int)(2 + data_len);
}

/* A prefix carried in @p bytes: at most 16 and enough for @p bits (<= 128). */
static int prefix_check(uint8_t bits, size_t bytes)
{
    if (bytes > 16) {
        return -RPL_ERR_OPT_SIZE;
    }
    if (bits > 128 || (bits + 7u) / 8 > bytes) {
        return -RPL_ERR_PREFIX_LEN;
    }
    return 0;
}

/* 6.7.5: prefix length, Resvd|Prf|Resvd, lifetime (4), prefix (0..16) */
int wren_rpl_opt_route_parse(const struct rpl_opt *o, struct rpl_opt_route *r)
{
    memset(r, 0, sizeof(*r));
    if (o->len < 6) {
        return -RPL_ERR_OPT_SIZE;
    }
    int rc = prefix_check(o->data[0], o->len - 6u);
    if (rc < 0) {
        return rc;
    }
    r->prefix_len = o->data[0];
    r->flags = o->data[1];
    r->lifetime = get_be32(o->data + 2);
    r->prefix = o->data + 6;
    r->prefix_bytes = (uint8_t)(o->len - 6);
    return 0;
}

int wren_rpl_opt_route_emit(const struct rpl_opt_route *r, uint8_t *buf, size_t len)
{
    if (prefix_check(r->prefix_len, r->prefix_bytes) < 0) {
        return -RPL_ERR_INVAL;
    }
    uint8_t *d = opt_start(RPL_OPT_ROUTE, 6u + r->prefix_bytes, buf, len);
    if (!d) {
        return -RPL_ERR_NOBUFS;
    }
    d[0] = r->prefix_len;
    d[1] = r->flags;
    put_be32(d + 2, r->lifetime);
    if (r->prefix_bytes) {
        put(d + 6, r->prefix, r->prefix_bytes);
    }
    return 8 + r->prefix_bytes;
}

/* 6.7.6 */
int wren_rpl_opt_config_parse(const struct rpl_opt *o, struct rpl_opt_config *c)
{
    memset(c, 0, sizeof(*c));
    if (o->len != 14) {
        return -RPL_ERR_OPT_SIZE;
    }
    const uint8_t *d = o->data;
    c->flags = d[0];
    c->dio_int_doublings = d[1];
    c->dio_int_min = d[2];
    c->dio_redundancy = d[3];
    c->max_rank_inc = get_be16(d + 4);
    c->min_hop_rank_inc = get_be16(d + 6);
    c->ocp = get_be16(d + 8);
    c->def_lifetime = d[11];
    c->lifetime_unit = get_be16(d + 12);
    return 0;
}

int wren_rpl_opt_config_emit(const struct rpl_opt_config *c, uint8_t *buf, size_t len)
{
    uint8_t *d = opt_start(RPL_OPT_CONFIG, 14, buf, len);
    if (!d) {
        return -RPL_ERR_NOBUFS;
    }
    d[0] = c->flags;
    d[1] = c->dio_int_doublings;
    d[2] = c->dio_int_min;
    d[3] = c->dio_redundancy;
    put_be16(d + 4, c->max_rank_inc);
    put_be16(d + 6, c->min_hop_rank_inc);
    put_be16(d + 8, c->ocp);
    d[10] = 0;
    d[11] = c->def_lifetime;
    put_be16(d + 12, c->lifetime_unit);
    return 16;
}

/* 6.7.7: flags, prefix length, prefix (0..16) */
int wren_rpl_opt_target_parse(const struct rpl_opt *o, struct rpl_opt_target *t)
{
    memset(t, 0, sizeof(*t));
    if (o->len < 2) {
        return -RPL_ERR_OPT_SIZE;
    }
    int rc = prefix_check(o->data[1], o->len - 2u);
    if (rc < 0) {
        return rc;
    }
    t->flags = o->data[0];
    t->prefix_len = o->data[1];
    t->prefix = o->data + 2;
    t->prefix_bytes = (uint8_t)(o->len - 2);
    return 0;
}

int wren_rpl_opt_target_emit(const struct rpl_opt_target *t, uint8_t *buf, size_t len)
{
    if (prefix_check(t->prefix_len, t->prefix_bytes) < 0) {
        return -RPL_ERR_INVAL;
    }
    uint8_t *d = opt_start(RPL_OPT_TARGET, 2u + t->prefix_bytes, buf, len);
    if (!d) {
        return -RPL_ERR_NOBUFS;
    }
    d[0] = t->flags;
    d[1] = t->prefix_len;
    if (t->prefix_bytes) {
        put(d + 2, t->prefix, t->prefix_bytes);
    }
    return 4 + t->prefix_bytes;
}

/* 6.7.8: E|flags, path control, path sequence, path lifetime, [parent] */
int wren_rpl_opt_transit_parse(const struct rpl_opt *o, struct rpl_opt_transit *t)
{
    memset(t, 0, sizeof(*t));
    if (o->len != 4 && o->len != 20) {
        return -RPL_ERR_OPT_SIZE;
    }
    t->flags = o->data[0];
    t->path_control = o->data[1];
    t->path_seq = o->data[2];
    t->path_lifetime = o->data[3];
    t->parent = o->len == 20 ? o->data + 4 : NULL;
    return 0;
}

int wren_rpl_opt_transit_emit(const struct rpl_opt_transit *t, uint8_t *buf, size_t len)
{
    size_t dlen = t->parent ? 20 : 4;
    uint8_t *d = opt_start(RPL_OPT_TRANSIT, dlen, buf, len);
    if (!d) {
        return -RPL_ERR_NOBUFS;
    }
    if (t->parent) {
        put(d + 4, t->parent, 16);
    }
    d[0] = t->flags;
    d[1] = t->path_control;
    d[2] = t->path_seq;
    d[3] = t->path_lifetime;
    return (int)(2 + dlen);
}

/* 6.7.9: instance, V|I|D|flags, DODAGID, version */
int wren_rpl_opt_solicited_parse(const struct rpl_opt *o, struct rpl_opt_solicited *s)
{
    memset(s, 0, sizeof(*s));
    if (o->len != 19) {
        return -RPL_ERR_OPT_SIZE;
    }
    s->instance = o->data[0];
    s->flags = o->data[1];
    s->dodagid = o->data + 2;
    s->version = o->data[18];
    return 0;
}

int wren_rpl_opt_solicited_emit(const struct rpl_opt_solicited *s, uint8_t *buf, size_t len)
{
    uint8_t *d = opt_start(RPL_OPT_SOLICITED, 19, buf, len);
    if (!d) {
        return -RPL_ERR_NOBUFS;
    }
    put(d + 2, s->dodagid, 16);
    d[0] = s->instance;
    d[1] = s->flags;
    d[18] = s->version;
    return 21;
}

/* 6.7.10: prefix length, L|A|R|rsv, valid, preferred, reserved (4), prefix */
int wren_rpl_opt_prefix_parse(const struct rpl_opt *o, struct rpl_opt_prefix *p)
{
    memset(p, 0, sizeof(*p));
    if (o->len != 30) {
        return -RPL_ERR_OPT_SIZE;
    }
    if (o->data[0] > 128) {
        return -RPL_ERR_PREFIX_LEN;
    }
    p->prefix_len = o->data[0];
    p->flags = o->data[1];
    p->valid = get_be32(o->data + 2);
    p->preferred = get_be32(o->data + 6);
    p->prefix = o->data + 14;
    return 0;
}

int wren_rpl_opt_prefix_emit(const struct rpl_opt_prefix *p, uint8_t *buf, size_t len)
{
    if (p->prefix_len > 128) {
        return -RPL_ERR_INVAL;
    }
    uint8_t *d = opt_start(RPL_OPT_PREFIX, 30, buf, len);
    if (!d) {
        return -RPL_ERR_NOBUFS;
    }
    put(d + 14, p->prefix, 16);
    d[0] = p->prefix_len;
    d[1] = p->flags;
    put_be32(d + 2, p->valid);
    put_be32(d + 6, p->preferred);
    put_be32(d + 10, 0);
    return 32;
}

/* ---- RPI (RFC 6553 3) ---- */

int wren_rpl_rpi_parse(const uint8_t *data, size_t len, struct rpl_rpi *r)
{
    memset(r, 0, sizeof(*r));
    if (len < RPL_RPI_LEN) {
        return -RPL_ERR_OPT_SIZE;
    }
    r->flags = data[0];
    r->instance = data[1];
    r->rank = get_be16(data + 2);
    return 0;
}

int wren_rpl_rpi_hbh_emit(uint8_t next, const struct rpl_rpi *r, uint8_t *buf, size_t len)
{
    if (len < 8) {
        return -RPL_ERR_NOBUFS;
    }
    buf[0] = next;
    buf[1] = 0; /* (0 + 1) * 8 bytes: 2 + the 6-byte option, no padding */
    buf[2] = RPL_RPI_TYPE;
    buf[3] = RPL_RPI_LEN;
    buf[4] = r->flags;
    buf[5] = r->instance;
    put_be16(buf + 6, r->rank);
    return 8;
}

/* ---- SRH (RFC 6554) ---- */

int wren_rpl_srh_parse(const uint8_t *buf, size_t len, struct rpl_srh *s)
{
    memset(s, 0, sizeof(*s));
    if (len < 8 || (buf[1] + 1u) * 8 > len) {
        return -RPL_ERR_TRUNCATED;
    }
    if (buf[2] != RPL_SRH_TYPE) {
        return -RPL_ERR_TYPE;
    }
    uint8_t ci = buf[4] >> 4, ce = buf[4] & 0x0f, pad = buf[5] >> 4;
    /* RFC 6554 3: n = ((HdrExtLen * 8 - Pad - (16 - CmprE)) / (16 - CmprI)) + 1,
     * and only a whole n describes the header */
    size_t room = buf[1] * 8u, last = 16u - ce, each = 16u - ci;
    if (room < pad + last || (room - pad - last) % each != 0) {
        return -RPL_ERR_SRH_LEN;
    }
    s->next = buf[0];
    s->segs_left = buf[3];
    s->cmpr_i = ci;
    s->cmpr_e = ce;
    s->pad = pad;
    s->n = (uint16_t)((room - pad - last) / each + 1);
    s->addrs = buf + 8;
    s->len = room + 8;
    return 0;
}

void wren_rpl_srh_addr(const struct rpl_srh *s, unsigned i, const uint8_t dst[16],
                       uint8_t out[16])
{
    size_t el = i == s->n ? s->cmpr_e : s->cmpr_i;
    memcpy(out, dst, el);
    memcpy(out + el, s->addrs + (size_t)(i - 1) * (16u - s->cmpr_i), 16 - el);
}

static size_t common_prefix(const uint8_t *a, const uint8_t *b)
{
    size_t k = 0;
    while (k < 15 && a[k] == b[k]) {
        k++;
    }
    return k;
}

/* CmprI: octets every hop but the last shares with @p dst; CmprE: octets the
 * last shares with dst and each hop before it, because each of them is the
 * destination at some hop (at most 15: 4-bit fields) */
static void srh_cmpr(const uint8_t (*hops)[16], size_t n, const uint8_t dst[16], size_t *ci,
                     size_t *ce)
{
    size_t i_min = 15, e_min = common_prefix(dst, hops[n - 1]);
    for (size_t k = 0; k + 1 < n; k++) {
        size_t c = common_prefix(dst, hops[k]);
        i_min = c < i_min ? c : i_min;
        c = common_prefix(hops[k], hops[n - 1]);
        e_min = c < e_min ? c : e_min;
    }
    *ci = i_min;
    *ce = e_min;
}

/* The SRH for @p hops: its compression (*@p ci, *@p ce) and body bytes
 * (*@p body); returns its total bytes (a multiple of 8), -RPL_ERR_INVAL. */
static int srh_plan(const uint8_t (*hops)[16], size_t n, const uint8_t dst[16], size_t *ci,
                    size_t *ce, size_t *body)
{
    if (n == 0 || n > 2040) {
        return -RPL_ERR_INVAL;
    }
    srh_cmpr(hops, n, dst, ci, ce);
    *body = (n - 1) * (16 - *ci) + (16 - *ce);
    size_t total = (8 + *body + 7) & ~(size_t)7;
    return total > RPL_SRH_MAX_LEN ? -RPL_ERR_INVAL : (int)total;
}

int wren_rpl_srh_len(const uint8_t (*hops)[16], size_t n, const uint8_t dst[16])
{
    size_t ci, ce, body;
    return srh_plan(hops, n, dst, &ci, &ce, &body);
}

int wren_rpl_srh_emit(uint8_t next, const uint8_t (*hops)[16], size_t n, const uint8_t dst[16],
                      uint8_t *buf, size_t len)
{
    size_t ci, ce, body;
    int total = srh_plan(hops, n, dst, &ci, &ce, &body);
    if (total < 0) {
        return total;
    }
    if ((size_t)total > len) {
        return -RPL_ERR_NOBUFS;
    }
    size_t pad = (size_t)total - 8 - body;
    buf[0] = next;
    buf[1] = (uint8_t)(total / 8 - 1);
    buf[2] = RPL_SRH_TYPE;
    buf[3] = (uint8_t)n;
    buf[4] = (uint8_t)(ci << 4 | ce);
    buf[5] = (uint8_t)(pad << 4);
    buf[6] = buf[7] = 0;
    uint8_t *p = buf + 8;
    for (size_t k = 0; k < n; k++) {
        size_t el = k + 1 == n ? ce : ci;
        memcpy(p, hops[k] + el, 16 - el);
        p += 16 - el;
    }
    memset(p, 0, pad);
    return total;
}

/* RFC 6554 4.2 */
int wren_rpl_srh_process(uint8_t *hdr, size_t len, uint8_t dst[16], wren_rpl_is_own_fn is_own,
                         void *ctx, uint16_t *err_off)
{
    struct rpl_srh s;
    *err_off = 1;
    int rc = wren_rpl_srh_parse(hdr, len, &s);
    if (rc < 0) {
        return rc;
    }
    if (s.segs_left == 0) {
        return 0;
    }
    if (s.segs_left > s.n) {
        *err_off = 3;
        return -RPL_ERR_SRH_SEGS;
    }
    unsigned i = s.n - (s.segs_left - 1u);
    uint8_t next[16], a[16];
    wren_rpl_srh_addr(&s, i, dst, next);
    if (next[0] == 0xff || dst[0] == 0xff) {
        return -RPL_ERR_SRH_MCAST;
    }
    /* 4.2: the next hop is ourselves: the datagram would go round (sent
     * to our own link address, or received and processed again) */
    if (is_own(ctx, next)) {
        *err_off = (uint16_t)(8 + (i - 1) * (16u - s.cmpr_i));
        return -RPL_ERR_SRH_LOOP;
    }
    /* a loop: two addresses of ours with one not ours between them */
    bool seen_own = false, gap = false;
    for (unsigned k = 1; k <= s.n; k++) {
        wren_rpl_srh_addr(&s, k, dst, a);
        if (is_own(ctx, a)) {
            if (seen_own && gap) {
                *err_off = (uint16_t)(8 + (k - 1) * (16u - s.cmpr_i));
                return -RPL_ERR_SRH_LOOP;
            }
            seen_own = true;
            gap = false;
        } else if (seen_own) {
            gap = true;
        }
    }
    /* swap: Address[i] takes the old destination with its elided octets
     * dropped (they equal the new destination's, RFC 6554 3) */
    size_t el = i == s.n ? s.cmpr_e : s.cmpr_i;
    uint8_t *slot = hdr + 8 + (size_t)(i - 1) * (16u - s.cmpr_i);
    memcpy(slot, dst + el, 16 - el);
    memcpy(dst, next, 16);
    hdr[3] = (uint8_t)(s.segs_left - 1);
    return 1;
}

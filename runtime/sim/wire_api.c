/* ctypes entry points into the 6LoWPAN codec (see wire_api.h). */
#include "sim/wire_api.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "wire/inet_csum.h"
#include "wire/ipv6.h"
#include "wire/ipv6_ext.h"
#include "wire/rpl.h"
#include "wire/sixlowpan.h"
#include "wire/udp.h"

/* Fill l2 and the context table from the ctypes arguments; returns the
 * table, or NULL if none was given. */
static const struct sixlowpan_ctx *wire_args(struct sixlowpan_l2 *l2, const uint8_t *src,
                                             size_t src_len, const uint8_t *dst, size_t dst_len,
                                             const uint8_t *prefixes, const uint8_t *lens,
                                             struct sixlowpan_ctx *ctx)
{
    l2->src = src;
    l2->src_len = (uint8_t)(src_len > 8 ? 0xff : src_len);
    l2->dst = dst;
    l2->dst_len = (uint8_t)(dst_len > 8 ? 0xff : dst_len);
    if (!prefixes || !lens)
        return NULL;
    for (int i = 0; i < SIXLOWPAN_CTX_COUNT; i++) {
        memcpy(ctx[i].prefix, prefixes + 16 * i, 16);
        ctx[i].prefix_len = lens[i];
        ctx[i].valid = lens[i] != 0;
        ctx[i].compress = ctx[i].valid;
    }
    return ctx;
}

int wren_wire_iphc_to_ipv6(const uint8_t *in, size_t in_len, const uint8_t *l2src, size_t l2src_len,
                           const uint8_t *l2dst, size_t l2dst_len, const uint8_t *ctx_prefixes,
                           const uint8_t *ctx_lens, uint8_t *out, size_t out_max)
{
    struct sixlowpan_ctx table[SIXLOWPAN_CTX_COUNT];
    struct sixlowpan_l2 l2;
    const struct sixlowpan_ctx *ctx =
        wire_args(&l2, l2src, l2src_len, l2dst, l2dst_len, ctx_prefixes, ctx_lens, table);
    struct sixlowpan_iphc h;
    int rc = wren_sixlowpan_iphc_parse(in, in_len, &l2, ctx, &h);
    if (rc < 0)
        return rc;

    const uint8_t *data = in + h.hdr_len;
    size_t data_len = in_len - h.hdr_len;
    size_t hl = IPV6_HDR_LEN + (h.udp ? UDP_HDR_LEN : 0);
    size_t plen = data_len + (h.udp ? UDP_HDR_LEN : 0);
    if (plen > 0xffff || out_max < hl + data_len)
        return -SIXLOWPAN_ERR_NOBUFS;

    h.ip.payload_len = (uint16_t)plen;
    wren_ipv6_hdr_emit(&h.ip, out);
    if (h.udp) {
        h.uh.len = (uint16_t)plen;
        if (h.udp_csum_elided) { /* RFC 6282 4.3.2: the decompressor computes it */
            struct inet_csum c;
            uint8_t uh[UDP_HDR_LEN];
            h.uh.csum = 0;
            wren_udp_hdr_emit(&h.uh, uh);
            wren_inet_csum_init(&c);
            wren_inet_csum_pseudo(&c, h.ip.src, h.ip.dst, (uint32_t)plen, IPV6_NH_UDP);
            wren_inet_csum_update(&c, uh, sizeof(uh));
            wren_inet_csum_update(&c, data, data_len);
            h.uh.csum = wren_inet_csum_final(&c);
            if (h.uh.csum == 0)
                h.uh.csum = 0xffff; /* RFC 768: a computed 0 is sent as all ones */
        }
        wren_udp_hdr_emit(&h.uh, out + IPV6_HDR_LEN);
    }
    if (data_len)
        memcpy(out + hl, data, data_len);
    return (int)(hl + data_len);
}

int wren_wire_ipv6_to_iphc(const uint8_t *in, size_t in_len, const uint8_t *l2src, size_t l2src_len,
                           const uint8_t *l2dst, size_t l2dst_len, const uint8_t *ctx_prefixes,
                           const uint8_t *ctx_lens, uint8_t *out, size_t out_max)
{
    struct sixlowpan_ctx table[SIXLOWPAN_CTX_COUNT];
    struct sixlowpan_l2 l2;
    const struct sixlowpan_ctx *ctx =
        wire_args(&l2, l2src, l2src_len, l2dst, l2dst_len, ctx_prefixes, ctx_lens, table);
    struct ipv6_hdr ip;
    struct udp_hdr uh;
    bool udp = false;

    if (wren_ipv6_hdr_parse(in, in_len, &ip) < 0 || ip.payload_len > in_len - IPV6_HDR_LEN)
        return -SIXLOWPAN_ERR_TRUNCATED;
    const uint8_t *data = in + IPV6_HDR_LEN;
    size_t data_len = ip.payload_len;
    if (ip.next == IPV6_NH_UDP && wren_udp_hdr_parse(data, data_len, &uh) == 0 && uh.len == data_len) {
        udp = true; /* the NHC elides the UDP length: only if it is implied */
        data += UDP_HDR_LEN;
        data_len -= UDP_HDR_LEN;
    }
    int n = wren_sixlowpan_iphc_emit(&ip, udp ? &uh : NULL, &l2, ctx, out, out_max);
    if (n < 0)
        return n;
    if (out_max - (size_t)n < data_len)
        return -SIXLOWPAN_ERR_NOBUFS;
    if (data_len)
        memcpy(out + n, data, data_len);
    return n + (int)data_len;
}

/* ---- RPL ---- */

struct desc {
    char *p;
    size_t left;
};

static void put(struct desc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct desc *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(d->p, d->left, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    size_t k = (size_t)n < d->left ? (size_t)n : (d->left ? d->left - 1 : 0);
    d->p += k;
    d->left -= k;
}

static void put_hex(struct desc *d, const char *key, const uint8_t *b, size_t n)
{
    put(d, " %s=", key);
    for (size_t i = 0; i < n; i++)
        put(d, "%02x", b[i]);
}

/* One option: parse with its typed parser, describe, emit again. */
static int rpl_opt_again(const struct rpl_opt *o, struct desc *d, uint8_t *out, size_t max)
{
    int rc;
    put(d, " | opt=%u", o->type);
    switch (o->type) {
    case RPL_OPT_ROUTE: {
        struct rpl_opt_route r;
        if ((rc = wren_rpl_opt_route_parse(o, &r)) < 0)
            return rc;
        put(d, " plen=%u prf=%u lifetime=%u", r.prefix_len, (r.flags >> 3) & 3, r.lifetime);
        put_hex(d, "prefix", r.prefix, r.prefix_bytes);
        return wren_rpl_opt_route_emit(&r, out, max);
    }
    case RPL_OPT_CONFIG: {
        struct rpl_opt_config c;
        if ((rc = wren_rpl_opt_config_parse(o, &c)) < 0)
            return rc;
        put(d, " a=%u pcs=%u doublings=%u imin=%u redundancy=%u max_rank_inc=%u "
               "min_hop_rank_inc=%u ocp=%u def_lifetime=%u lifetime_unit=%u",
            (c.flags & RPL_CONFIG_A) ? 1 : 0, RPL_CONFIG_PCS(c.flags), c.dio_int_doublings,
            c.dio_int_min, c.dio_redundancy, c.max_rank_inc, c.min_hop_rank_inc, c.ocp,
            c.def_lifetime, c.lifetime_unit);
        return wren_rpl_opt_config_emit(&c, out, max);
    }
    case RPL_OPT_TARGET: {
        struct rpl_opt_target t;
        if ((rc = wren_rpl_opt_target_parse(o, &t)) < 0)
            return rc;
        put(d, " flags=%u plen=%u", t.flags, t.prefix_len);
        put_hex(d, "prefix", t.prefix, t.prefix_bytes);
        return wren_rpl_opt_target_emit(&t, out, max);
    }
    case RPL_OPT_TRANSIT: {
        struct rpl_opt_transit t;
        if ((rc = wren_rpl_opt_transit_parse(o, &t)) < 0)
            return rc;
        put(d, " e=%u path_control=%u path_seq=%u path_lifetime=%u", t.flags >> 7,
            t.path_control, t.path_seq, t.path_lifetime);
        if (t.parent)
            put_hex(d, "parent", t.parent, 16);
        return wren_rpl_opt_transit_emit(&t, out, max);
    }
    case RPL_OPT_SOLICITED: {
        struct rpl_opt_solicited s;
        if ((rc = wren_rpl_opt_solicited_parse(o, &s)) < 0)
            return rc;
        put(d, " instance=%u v=%u i=%u d=%u version=%u", s.instance,
            (s.flags & RPL_SOL_V) ? 1 : 0, (s.flags & RPL_SOL_I) ? 1 : 0,
            (s.flags & RPL_SOL_D) ? 1 : 0, s.version);
        put_hex(d, "dodagid", s.dodagid, 16);
        return wren_rpl_opt_solicited_emit(&s, out, max);
    }
    case RPL_OPT_PREFIX: {
        struct rpl_opt_prefix p;
        if ((rc = wren_rpl_opt_prefix_parse(o, &p)) < 0)
            return rc;
        put(d, " plen=%u l=%u a=%u r=%u valid=%u preferred=%u", p.prefix_len,
            (p.flags & RPL_PIO_L) ? 1 : 0, (p.flags & RPL_PIO_A) ? 1 : 0,
            (p.flags & RPL_PIO_R) ? 1 : 0, p.valid, p.preferred);
        put_hex(d, "prefix", p.prefix, 16);
        return wren_rpl_opt_prefix_emit(&p, out, max);
    }
    default: /* the metric container and unknown options: as they are */
        put(d, " len=%u", o->len);
        return wren_rpl_opt_raw_emit(o->type, o->data, o->len, out, max);
    }
}

int wren_wire_rpl_reemit(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_max,
                         char *desc, size_t desc_max)
{
    struct desc d = {desc, desc_max};
    struct rpl_msg m;
    uint8_t opts[1280];
    size_t used = 0;
    if (desc_max)
        desc[0] = 0;
    int rc = wren_rpl_msg_parse(in, in_len, &m);
    if (rc < 0)
        return rc;
    put(&d, "code=%u", m.code);
    switch (m.code) {
    case RPL_CODE_DIS:
        put(&d, " flags=%u", m.dis.flags);
        break;
    case RPL_CODE_DIO:
        put(&d, " instance=%u version=%u rank=%u g=%u mop=%u prf=%u dtsn=%u flags=%u",
            m.dio.instance, m.dio.version, m.dio.rank, (m.dio.g_mop_prf & RPL_DIO_G) ? 1 : 0,
            RPL_DIO_MOP(m.dio.g_mop_prf), RPL_DIO_PRF(m.dio.g_mop_prf), m.dio.dtsn,
            m.dio.flags);
        put_hex(&d, "dodagid", m.dio.dodagid, 16);
        break;
    case RPL_CODE_DAO:
        put(&d, " instance=%u k=%u seq=%u", m.dao.instance, (m.dao.flags & RPL_DAO_K) ? 1 : 0,
            m.dao.seq);
        if (m.dao.dodagid)
            put_hex(&d, "dodagid", m.dao.dodagid, 16);
        break;
    default:
        put(&d, " instance=%u seq=%u status=%u", m.dao_ack.instance, m.dao_ack.seq,
            m.dao_ack.status);
        if (m.dao_ack.dodagid)
            put_hex(&d, "dodagid", m.dao_ack.dodagid, 16);
        break;
    }
    struct rpl_opt_iter it;
    struct rpl_opt o;
    wren_rpl_opt_iter_init(&it, m.opts, m.opts_len);
    while ((rc = wren_rpl_opt_next(&it, &o)) > 0) {
        int n = rpl_opt_again(&o, &d, opts + used, sizeof(opts) - used);
        if (n < 0)
            return n;
        used += (size_t)n;
    }
    if (rc < 0)
        return rc;
    m.opts = opts;
    m.opts_len = used;
    return wren_rpl_msg_emit(&m, out, out_max);
}

int wren_wire_rpl_rpi_find(const uint8_t *hbh, size_t len, char *desc, size_t desc_max)
{
    struct desc d = {desc, desc_max};
    if (desc_max)
        desc[0] = 0;
    if (len < 8 || (hbh[1] + 1u) * 8 > len)
        return -RPL_ERR_TRUNCATED;
    size_t hlen = (hbh[1] + 1u) * 8, pos = 2;
    struct ipv6_ext_opt o;
    int rc;
    while ((rc = wren_ipv6_ext_opt_next(hbh, hlen, &pos, &o)) > 0) {
        if (o.type != RPL_RPI_TYPE && o.type != RPL_RPI_TYPE_6553)
            continue;
        struct rpl_rpi r;
        rc = wren_rpl_rpi_parse(hbh + o.off + 2, o.len, &r);
        if (rc < 0)
            return rc;
        put(&d, "type=%u o=%u r=%u f=%u instance=%u rank=%u", o.type,
            (r.flags & RPL_RPI_O) ? 1 : 0, (r.flags & RPL_RPI_R) ? 1 : 0,
            (r.flags & RPL_RPI_F) ? 1 : 0, r.instance, r.rank);
        return 0;
    }
    return rc < 0 ? -RPL_ERR_TRUNCATED : -RPL_ERR_TYPE;
}

int wren_wire_rpl_rpi_emit(uint8_t next, uint8_t flags, uint8_t instance, uint16_t rank,
                           uint8_t *out, size_t out_max)
{
    struct rpl_rpi r = {.flags = flags, .instance = instance, .rank = rank};
    return wren_rpl_rpi_hbh_emit(next, &r, out, out_max);
}

int wren_wire_rpl_srh_emit(uint8_t next, const uint8_t *hops, size_t n, const uint8_t *dst,
                           uint8_t *out, size_t out_max)
{
    return wren_rpl_srh_emit(next, (const uint8_t(*)[16])hops, n, dst, out, out_max);
}

struct own_set {
    const uint8_t *a;
    size_t n;
};

static bool own_set_has(void *ctx, const uint8_t addr[16])
{
    const struct own_set *s = ctx;
    for (size_t i = 0; i < s->n; i++)
        if (memcmp(s->a + 16 * i, addr, 16) == 0)
            return true;
    return false;
}

int wren_wire_rpl_srh_process(uint8_t *hdr, size_t len, uint8_t *dst, const uint8_t *own,
                              size_t n_own, uint16_t *err_off)
{
    struct own_set s = {own, n_own};
    return wren_rpl_srh_process(hdr, len, dst, own_set_has, &s, err_off);
}

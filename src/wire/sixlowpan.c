#include "wire/sixlowpan.h"

#include <string.h>

#include "core/byteorder.h"

/* Bounded reader (STYLE.md): a short read sets the sticky flag and yields
 * zeros, so the parser checks once at the end and never reads past len. */
struct rd {
    const uint8_t *p;
    size_t left;
    bool err;
};

static const uint8_t rd_zeros[16];

static inline const uint8_t *rd_take(struct rd *r, size_t n)
{
    if (r->left < n) {
        r->err = true;
        r->left = 0;
        return rd_zeros;
    }
    const uint8_t *p = r->p;
    r->p += n;
    r->left -= n;
    return p;
}

static inline uint8_t rd_u8(struct rd *r)
{
    return *rd_take(r, 1);
}

static inline uint16_t rd_be16(struct rd *r)
{
    return get_be16(rd_take(r, 2));
}

/* A UDP port: 16 bits inline, or 0xF0 and 8 bits inline (RFC 6282 4.3.3). */
static uint16_t rd_port(struct rd *r, unsigned short_form)
{
    return short_form ? (uint16_t)(0xf000u | rd_u8(r)) : rd_be16(r);
}

/* ---- RFC 4944 5.3: fragment headers ------------------------------------ */

int wren_sixlowpan_frag_parse(const uint8_t *buf, size_t len, struct sixlowpan_frag *f)
{
    if (len == 0)
        return -SIXLOWPAN_ERR_TRUNCATED;
    unsigned d = buf[0] & 0xf8u;
    size_t hl = d == 0xc0 ? SIXLOWPAN_FRAG1_LEN : SIXLOWPAN_FRAGN_LEN;
    if (d != 0xc0 && d != 0xe0)
        return -SIXLOWPAN_ERR_DISPATCH;
    if (len < hl)
        return -SIXLOWPAN_ERR_TRUNCATED;
    f->first = d == 0xc0;
    f->size = get_be16(buf) & 0x7ffu;
    f->tag = get_be16(buf + 2);
    f->offset = f->first ? 0 : (uint16_t)(buf[4] << 3);
    if (f->size < IPV6_HDR_LEN)
        return -SIXLOWPAN_ERR_FRAG_SIZE;
    return (int)hl;
}

int wren_sixlowpan_frag_emit(const struct sixlowpan_frag *f, uint8_t *buf, size_t len)
{
    size_t hl = wren_sixlowpan_frag_len(f);
    if (f->size < IPV6_HDR_LEN || f->size > SIXLOWPAN_FRAG_MAX_SIZE)
        return -SIXLOWPAN_ERR_FRAG_SIZE;
    if ((f->offset & 7u) || f->offset > 255u * 8 || (f->first && f->offset))
        return -SIXLOWPAN_ERR_FRAG_OFFSET;
    if (len < hl)
        return -SIXLOWPAN_ERR_NOBUFS;
    put_be16(buf, (uint16_t)((f->first ? 0xc000u : 0xe000u) | f->size));
    put_be16(buf + 2, f->tag);
    if (!f->first)
        buf[4] = (uint8_t)(f->offset >> 3);
    return (int)hl;
}

/* ---- RFC 6282 3.1.1: address modes -------------------------------------
 *
 * An address mode is the 3 or 4 IPHC bits that describe one address, read
 * straight from the second IPHC byte: (SAC,SAM) for the source and
 * (M,DAC,DAM) for the destination, i.e. M<<3 | AC<<2 | AM. The source
 * never has M.
 *
 * Each mode carries its inline bytes in at most two runs of the address;
 * a run is pos<<4 | (len-1), 0 for none. The rest of the address comes
 * from a template: the link-local prefix, 0000:00ff:fe00:XXXX, the
 * link-layer address or a context prefix.
 */
#define AM_M 8u /* multicast destination */
#define AM_C 4u /* address context (SAC/DAC) */

static const uint8_t addr_runs[16][2] = {
    {0x0f, 0},    /* 0000  128 bits inline */
    {0x87, 0},    /* 0001  fe80::IID, 64 bits */
    {0xe1, 0},    /* 0010  fe80::ff:fe00:XXXX */
    {0, 0},       /* 0011  fe80::IID from L2 */
    {0, 0},       /* 0100  src ::, dst reserved */
    {0x87, 0},    /* 0101  ctx + 64 bits */
    {0xe1, 0},    /* 0110  ctx + ff:fe00:XXXX */
    {0, 0},       /* 0111  ctx + IID from L2 */
    {0x0f, 0},    /* 1000  multicast, 128 bits */
    {0x10, 0xb4}, /* 1001  ffXX::00XX:XXXX:XXXX */
    {0x10, 0xd2}, /* 1010  ffXX::00XX:XXXX */
    {0xf0, 0},    /* 1011  ff02::00XX */
    {0x11, 0xc3}, /* 1100  ffXX:XXLL:PPPP:PPPP:PPPP:PPPP:XXXX:XXXX (RFC 3306) */
                  /* 1101..1111 reserved: no runs */
};

/* Inline bytes per mode: the sum of its runs. */
static const uint8_t addr_len[16] = {16, 8, 2, 0, 0, 8, 2, 0, 16, 6, 4, 1, 6, 0, 0, 0};

/* Move a mode's inline bytes: from the wire (src) into the address (dst)
 * if to_addr, else from the address (src) to the wire (dst). */
static inline void runs_copy(unsigned mode, uint8_t *dst, const uint8_t *src, bool to_addr)
{
    for (unsigned i = 0; i < 2 && addr_runs[mode][i]; i++) {
        unsigned r = addr_runs[mode][i], n = (r & 15u) + 1;
        if (to_addr) {
            memcpy(dst + (r >> 4), src, n);
            src += n;
        } else {
            memcpy(dst, src + (r >> 4), n);
            dst += n;
        }
    }
}

static unsigned ctx_plen(const struct sixlowpan_ctx *c)
{
    return c->prefix_len > 128 ? 128u : c->prefix_len;
}

/* Overwrite the first bits bits of a with those of p. */
static void pfx_overlay(uint8_t *a, const uint8_t *p, unsigned bits)
{
    unsigned n = bits >> 3;
    memcpy(a, p, n);
    if (bits & 7u) {
        unsigned m = 0xff00u >> (bits & 7u);
        a[n] = (uint8_t)((a[n] & ~m) | (p[n] & m));
    }
}

/* The address a mode stands for, given its inline bytes (RFC 6282 3.1.1,
 * IIDs from link-layer addresses 3.2.2). Context bits are applied last:
 * they win over inline and derived bits. false: no usable L2 address. */
static bool addr_build(unsigned mode, const uint8_t *inl, const struct sixlowpan_ctx *c,
                       const uint8_t *l2, size_t l2len, uint8_t *a)
{
    unsigned am = mode & 3u;

    memset(a, 0, 16);
    if (mode & AM_M) {
        a[0] = 0xff;
        a[1] = mode == (AM_M | 3u) ? 0x02 : 0;
        if (mode & AM_C) {
            unsigned plen = ctx_plen(c);
            a[3] = (uint8_t)plen;
            pfx_overlay(a + 4, c->prefix, plen > 64 ? 64 : plen);
        }
        runs_copy(mode, a, inl, true);
        return true;
    }
    if (am == 0) { /* 128 bits inline, or :: */
        runs_copy(mode, a, inl, true);
        return true;
    }
    if (am == 3) {
        if (l2 && l2len == 8) {
            memcpy(a + 8, l2, 8);
            a[8] ^= 0x02; /* EUI-64 -> IID: invert the U/L bit */
        } else if (l2 && l2len == 2) {
            a[14] = l2[0];
            a[15] = l2[1];
        } else {
            return false;
        }
    }
    if (am >= 2 && (am == 2 || l2len == 2)) {
        a[11] = 0xff;
        a[12] = 0xfe;
    }
    runs_copy(mode, a, inl, true);
    if (mode & AM_C) {
        pfx_overlay(a, c->prefix, ctx_plen(c));
    } else {
        a[0] = 0xfe;
        a[1] = 0x80;
    }
    return true;
}

static const struct sixlowpan_ctx *ctx_get(const struct sixlowpan_ctx *ctx, unsigned i)
{
    return ctx && i < SIXLOWPAN_CTX_COUNT && ctx[i].valid ? &ctx[i] : NULL;
}

static const struct sixlowpan_l2 no_l2;

/* HLIM=01/10/11 (RFC 6282 3.1.1) */
static const uint8_t hlim[4] = {0, 1, 64, 255};

/* ---- RFC 6282 3.1, 4.3: decompression ----------------------------------- */

/* RFC 6282 3.1.1 SAM/DAM with SAC/DAC and the CID extension: the modes are
 * not reserved and their contexts exist. */
static int parse_contexts(unsigned smode, unsigned dmode, unsigned cid,
                          const struct sixlowpan_ctx *ctx, const struct sixlowpan_ctx **sc,
                          const struct sixlowpan_ctx **dc)
{
    if (dmode == AM_C || dmode > (AM_M | AM_C))
        return -SIXLOWPAN_ERR_RESERVED;
    if (smode > AM_C && !(*sc = ctx_get(ctx, cid >> 4)))
        return -SIXLOWPAN_ERR_CONTEXT;
    if ((dmode & AM_C) && !(*dc = ctx_get(ctx, cid & 15u)))
        return -SIXLOWPAN_ERR_CONTEXT;
    return 0;
}

/* TF (RFC 6282 3.1.1): ECN and DSCP swapped on the wire (ECN first).
 * 00: ECN DSCP | rsv(4) flow(20); 01: ECN rsv(2) flow(20); 10: ECN DSCP */
static void parse_tf(struct rd *r, unsigned tf, struct ipv6_hdr *ip)
{
    unsigned tcw = 0;
    uint32_t flow = 0;
    if (tf != 3) {
        static const uint8_t tf_len[3] = {4, 3, 1};
        const uint8_t *p = rd_take(r, tf_len[tf]);
        tcw = tf == 1 ? p[0] & 0xc0u : p[0];
        if (tf < 2) {
            unsigned k = tf == 0; /* the flow label starts after ECN+DSCP */
            flow = (uint32_t)(p[k] & 0x0fu) << 16 | get_be16(p + k + 1);
        }
    }
    ip->tc = (uint8_t)(tcw << 2 | tcw >> 6);
    ip->flow = flow;
}

/* RFC 6282 4.3.3: the UDP NHC (ports, checksum). */
static int parse_nhc_udp(struct rd *r, struct sixlowpan_iphc *out)
{
    unsigned nhc = rd_u8(r);
    if (r->err)
        return -SIXLOWPAN_ERR_TRUNCATED;
    if ((nhc & 0xf8u) != 0xf0)
        return -SIXLOWPAN_ERR_NHC;
    out->udp = true;
    if ((nhc & 3u) == 3) { /* 0xF0Bx ports, 4 bits each */
        unsigned x = rd_u8(r);
        out->uh.src_port = (uint16_t)(0xf0b0u | x >> 4);
        out->uh.dst_port = (uint16_t)(0xf0b0u | (x & 15u));
    } else { /* PP=10: src 0xF0xx; PP=01: dst 0xF0xx */
        out->uh.src_port = rd_port(r, nhc & 2u);
        out->uh.dst_port = rd_port(r, nhc & 1u);
    }
    if (nhc & 4u)
        out->udp_csum_elided = true;
    else
        out->uh.csum = rd_be16(r);
    return 0;
}

int wren_sixlowpan_iphc_parse(const uint8_t *buf, size_t len, const struct sixlowpan_l2 *l2,
                         const struct sixlowpan_ctx *ctx, struct sixlowpan_iphc *out)
{
    struct rd r = {buf, len, false};
    const struct sixlowpan_ctx *sc = NULL, *dc = NULL;
    const uint8_t *p;
    unsigned b0, b1, smode, dmode, cid = 0;
    int rc;
    bool ok;

    if (!l2)
        l2 = &no_l2;
    if (len < 1)
        return -SIXLOWPAN_ERR_TRUNCATED;
    if ((buf[0] & 0xe0u) != 0x60)
        return -SIXLOWPAN_ERR_DISPATCH;
    p = rd_take(&r, 2);
    b0 = p[0];
    b1 = p[1];
    if (b1 & 0x80u)
        cid = rd_u8(&r);
    if (r.err)
        return -SIXLOWPAN_ERR_TRUNCATED;

    smode = (b1 >> 4) & 7u;
    dmode = b1 & 15u;
    rc = parse_contexts(smode, dmode, cid, ctx, &sc, &dc);
    if (rc)
        return rc;

    parse_tf(&r, (b0 >> 3) & 3u, &out->ip);
    out->ip.payload_len = 0;
    out->ip.next = (b0 & 4u) ? IPV6_NH_UDP : rd_u8(&r);
    out->ip.hop_limit = (b0 & 3u) ? hlim[b0 & 3u] : rd_u8(&r);

    p = rd_take(&r, addr_len[smode]);
    ok = addr_build(smode, p, sc, l2->src, l2->src_len, out->ip.src);
    p = rd_take(&r, addr_len[dmode]);
    ok &= addr_build(dmode, p, dc, l2->dst, l2->dst_len, out->ip.dst);

    memset(&out->uh, 0, sizeof(out->uh));
    out->udp = false;
    out->udp_csum_elided = false;
    if (b0 & 4u) {
        rc = parse_nhc_udp(&r, out);
        if (rc)
            return rc;
    }
    if (r.err)
        return -SIXLOWPAN_ERR_TRUNCATED;
    if (!ok)
        return -SIXLOWPAN_ERR_L2ADDR;
    out->hdr_len = len - r.left;
    return 0;
}

/* ---- compression --------------------------------------------------------- */

/* Whether mode can carry a: take the inline bytes from a, rebuild the address
 * as the decompressor would, and compare. Round trips by construction. */
static bool addr_try(unsigned mode, const uint8_t *a, const struct sixlowpan_ctx *c,
                     const uint8_t *l2, size_t l2len, uint8_t *inl)
{
    uint8_t b[16];
    runs_copy(mode, inl, a, false);
    return addr_build(mode, inl, c, l2, l2len, b) && memcmp(a, b, 16) == 0;
}

static uint8_t *put_port(uint8_t *w, uint16_t port, unsigned short_form)
{
    if (short_form) {
        *w = (uint8_t)port;
        return w + 1;
    }
    put_be16(w, port);
    return w + 2;
}

/* RFC 6282 3.1.1, M=1: the shortest stateless multicast mode, then one
 * with a context (RFC 3306 prefix), else all 128 bits inline. */
static unsigned mcast_compress(const uint8_t *a, const struct sixlowpan_ctx *ctx,
                               const uint8_t *l2, size_t l2len, uint8_t *inl, unsigned *ci)
{
    for (unsigned am = 3; am >= 1; am--)
        if (addr_try(AM_M | am, a, NULL, l2, l2len, inl))
            return AM_M | am;
    for (unsigned i = 0; ctx && i < SIXLOWPAN_CTX_COUNT; i++) {
        if (ctx[i].valid && ctx[i].compress &&
            addr_try(AM_M | AM_C, a, &ctx[i], l2, l2len, inl)) {
            *ci = i;
            return AM_M | AM_C;
        }
    }
    runs_copy(AM_M, inl, a, false);
    return AM_M;
}

/* The compression context (one marked for compression) whose prefix of a
 * is the longest. */
static const struct sixlowpan_ctx *ctx_longest(const uint8_t *a, const struct sixlowpan_ctx *ctx)
{
    const struct sixlowpan_ctx *best = NULL;
    for (unsigned i = 0; ctx && i < SIXLOWPAN_CTX_COUNT; i++) {
        const struct sixlowpan_ctx *c = &ctx[i];
        if (c->valid && c->compress && (!best || ctx_plen(c) > ctx_plen(best)) &&
            wren_ipv6_prefix_equal(a, c->prefix, ctx_plen(c)))
            best = c;
    }
    return best;
}

/* The shortest mode for a; its inline bytes go to inl, a context to *ci. */
static unsigned addr_compress(const uint8_t *a, bool dst, const struct sixlowpan_ctx *ctx,
                              const uint8_t *l2, size_t l2len, uint8_t *inl, unsigned *ci)
{
    const struct sixlowpan_ctx *best = NULL;

    if (dst && a[0] == 0xff)
        return mcast_compress(a, ctx, l2, l2len, inl, ci);
    /* fe80::/64 always compresses statelessly (at worst to 64 bits): no
     * context needs to be looked at */
    bool ll = get_be32(a) == 0xfe800000u && get_be32(a + 4) == 0;
    if (!ll) {
        if (!dst && wren_ipv6_addr_is_unspecified(a))
            return AM_C; /* SAC=1 SAM=00 */
        best = ctx_longest(a, ctx);
    }
    for (unsigned am = 3; am >= 1; am--) {
        if (ll && addr_try(am, a, NULL, l2, l2len, inl))
            return am;
        if (best && addr_try(AM_C | am, a, best, l2, l2len, inl)) {
            *ci = (unsigned)(best - ctx);
            return AM_C | am;
        }
    }
    runs_copy(0, inl, a, false);
    return 0;
}

/* RFC 6282 3.1.1 TF: the traffic class (ECN first) and flow label, as
 * short as they allow; their TF bits go to *@p b0. */
static uint8_t *emit_tf(const struct ipv6_hdr *ip, uint8_t *w, unsigned *b0)
{
    uint32_t flow = ip->flow & 0xfffffu;
    unsigned tcw = (unsigned)(ip->tc << 6 | ip->tc >> 2) & 0xffu; /* ECN first */
    unsigned tf;

    if (flow == 0) {
        tf = tcw ? 2 : 3;
        if (tcw)
            *w++ = (uint8_t)tcw;
    } else {
        tf = (tcw & 0x3fu) ? 0 : 1; /* DSCP 0: ECN shares the flow label byte */
        if (tf == 0) {
            *w++ = (uint8_t)tcw;
            tcw = 0;
        }
        *w++ = (uint8_t)(tcw | flow >> 16);
        put_be16(w, (uint16_t)flow);
        w += 2;
    }
    *b0 |= tf << 3;
    return w;
}

/* RFC 6282 4.3.3: the UDP NHC; the checksum is always carried. */
static uint8_t *emit_nhc_udp(const struct udp_hdr *uh, uint8_t *w)
{
    uint16_t sp = uh->src_port, dp = uh->dst_port;
    if ((sp & 0xfff0u) == 0xf0b0 && (dp & 0xfff0u) == 0xf0b0) {
        *w++ = 0xf3;
        *w++ = (uint8_t)((sp & 15u) << 4 | (dp & 15u));
    } else {
        unsigned nhc = 0xf0;
        if ((dp & 0xff00u) == 0xf000)
            nhc |= 1u;
        else if ((sp & 0xff00u) == 0xf000)
            nhc |= 2u;
        *w++ = (uint8_t)nhc;
        w = put_port(w, sp, nhc & 2u);
        w = put_port(w, dp, nhc & 1u);
    }
    put_be16(w, uh->csum);
    return w + 2;
}

int wren_sixlowpan_iphc_emit(const struct ipv6_hdr *ip, const struct udp_hdr *uh,
                        const struct sixlowpan_l2 *l2, const struct sixlowpan_ctx *ctx,
                        uint8_t *buf, size_t len)
{
    uint8_t t[SIXLOWPAN_IPHC_MAX_LEN], sinl[16], dinl[16];
    uint8_t *w = t + 2;
    unsigned sci = 0, dci = 0, smode, dmode, b0 = 0x60, i;
    bool udp = uh && ip->next == IPV6_NH_UDP;

    if (!l2)
        l2 = &no_l2;

    smode = addr_compress(ip->src, false, ctx, l2->src, l2->src_len, sinl, &sci);
    dmode = addr_compress(ip->dst, true, ctx, l2->dst, l2->dst_len, dinl, &dci);
    if (sci | dci)
        *w++ = (uint8_t)(sci << 4 | dci);

    w = emit_tf(ip, w, &b0);
    if (udp)
        b0 |= 4u;
    else
        *w++ = ip->next;
    i = 3;
    while (i && hlim[i] != ip->hop_limit)
        i--;
    b0 |= i;
    if (!i)
        *w++ = ip->hop_limit;
    t[0] = (uint8_t)b0;
    t[1] = (uint8_t)((sci | dci ? 0x80u : 0) | smode << 4 | dmode);
    memcpy(w, sinl, addr_len[smode]);
    w += addr_len[smode];
    memcpy(w, dinl, addr_len[dmode]);
    w += addr_len[dmode];
    if (udp)
        w = emit_nhc_udp(uh, w);

    size_t n = (size_t)(w - t);
    if (buf) {
        if (len < n)
            return -SIXLOWPAN_ERR_NOBUFS;
        memcpy(buf, t, n);
    }
    return (int)n;
}

const char *wren_sixlowpan_strerror(int err)
{
    /* One string, names separated by NULs: no pointer table in ROM. */
    static const char names[] = "ok\0truncated\0dispatch\0fragment size\0fragment offset\0"
                                "unknown context\0reserved address mode\0link-layer address\0"
                                "unsupported NHC\0no space\0";
    unsigned e = err < 0 ? 0u - (unsigned)err : (unsigned)err;
    const char *s = names;

    if (e > SIXLOWPAN_ERR_NOBUFS)
        return "?";
    while (e--)
        s += strlen(s) + 1;
    return s;
}

/**
 * @file fuzz_ipv6_ext.c
 * @brief libFuzzer target for the IPv6 extension-header walker.
 *
 * Input: byte 0 is the Next Header of the fixed header, byte 1 picks how
 * many option types the caller claims to know (0..3 of a fixed list), the
 * rest is the data after the fixed header. Checks that everything reported
 * lies inside the data and agrees with the bytes, that the walk reads nothing
 * past where it stopped (walking exactly that prefix gives the same answer,
 * one byte less fails), that the option iterator stays in bounds, and that
 * the hop-by-hop-only walk (a forwarding router's) agrees with the whole
 * walk about the first header.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/byteorder.h"
#include "wire/ipv6.h"
#include "wire/ipv6_ext.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        if (!(cond))                                                                               \
            abort();                                                                               \
    } while (0)

static const uint8_t known_list[3] = { 0x63, 0xc2, 0x05 };

static int is_walked(uint8_t nh)
{
    return nh == IPV6_NH_HOPOPT || nh == IPV6_NH_DSTOPTS || nh == IPV6_NH_ROUTING ||
           nh == IPV6_NH_FRAGMENT;
}

static void same(const struct ipv6_ext *a, const struct ipv6_ext *b)
{
    REQUIRE(a->next == b->next && a->flags == b->flags && a->off == b->off);
    REQUIRE(a->last_off == b->last_off && a->rh_off == b->rh_off);
    REQUIRE(a->rh_type == b->rh_type && a->rh_segs_left == b->rh_segs_left);
    REQUIRE(a->frag_hdr_off == b->frag_hdr_off && a->frag_offset == b->frag_offset);
    REQUIRE(a->frag_more == b->frag_more && a->frag_id == b->frag_id);
    REQUIRE(a->opt_off == b->opt_off && a->err_off == b->err_off);
}

/* Walk an exact-size heap copy of the first @p n bytes (ASan bounds). */
static int walk_prefix(uint8_t next, const uint8_t *d, size_t n, size_t n_known,
                       struct ipv6_ext *e)
{
    uint8_t *c = malloc(n ? n : 1);
    REQUIRE(c);
    if (n)
        memcpy(c, d, n);
    int rc = wren_ipv6_ext_walk(next, c, n, known_list, n_known, e);
    free(c);
    return rc;
}

static void check_opts(const uint8_t *d, size_t len)
{
    /* the option iterator over the data taken as one options header */
    size_t hl = len < 2048 ? len : 2048;
    size_t pos = 2, last = 2;
    struct ipv6_ext_opt o;
    int rc;
    if (hl < 2)
        return;
    while ((rc = wren_ipv6_ext_opt_next(d, hl, &pos, &o)) > 0) {
        REQUIRE(o.off >= last && (size_t)o.off + 2 + o.len == pos && pos <= hl);
        REQUIRE(o.type == d[o.off] && o.len == d[o.off + 1]);
        REQUIRE(o.type != IPV6_OPT_PAD1 && o.type != IPV6_OPT_PADN);
        last = pos;
    }
    REQUIRE(rc == 0 || rc == -IPV6_EXT_ERR_OPT);
    REQUIRE(pos <= hl);
    if (rc == 0)
        REQUIRE(pos == hl);
    else
        REQUIRE(d[pos] != IPV6_OPT_PAD1);
}

/* The hop-by-hop header alone (what a router checks before forwarding)
 * agrees with the whole walk about the first header; @p rc, @p e: the
 * whole walk's answer */
static void check_hbh(uint8_t next, const uint8_t *d, size_t len, size_t n_known, int rc,
                      const struct ipv6_ext *e)
{
    struct ipv6_ext h;
    uint8_t *c = malloc(len ? len : 1);
    REQUIRE(c);
    if (len)
        memcpy(c, d, len);
    int rh = wren_ipv6_ext_walk_hbh(next, c, len, known_list, n_known, &h);
    free(c);
    if (next != IPV6_NH_HOPOPT) {
        REQUIRE(rh == 0 && h.off == 0 && h.next == next && h.flags == 0);
        return;
    }
    if (rh < 0) {
        /* the whole walk fails at the same byte */
        REQUIRE(rh == rc && h.err_off == e->err_off);
        return;
    }
    REQUIRE(h.flags == IPV6_EXT_F_HBH && h.off == (d[1] + 1u) * 8 && h.off <= len);
    REQUIRE(h.next == d[0] && h.last_off == 0);
    REQUIRE(h.opt_off == 0 || h.opt_off < h.off);
    if (rc == 0 || e->err_off >= h.off)
        REQUIRE(e->opt_off == h.opt_off || (h.opt_off == 0 && e->opt_off >= h.off));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ipv6_ext e, f;
    if (size < 2)
        return 0;
    uint8_t next = data[0];
    size_t n_known = data[1] & 3u;
    const uint8_t *d = data + 2;
    size_t len = size - 2;

    check_opts(d, len);

    int rc = walk_prefix(next, d, len, n_known, &e);
    REQUIRE(rc <= 0 && rc >= -IPV6_EXT_ERR_RH0);
    check_hbh(next, d, len, n_known, rc, &e);

    if (rc < 0) {
        REQUIRE(e.err_off <= len);
        switch (-rc) {
        case IPV6_EXT_ERR_RH0:
            REQUIRE(e.err_off >= 2 && d[e.err_off] == 0 && d[e.err_off + 1] != 0);
            break;
        case IPV6_EXT_ERR_HBH:
            REQUIRE(e.err_off < len && d[e.err_off] == IPV6_NH_HOPOPT);
            break;
        case IPV6_EXT_ERR_OPT:
            REQUIRE(e.err_off < len && d[e.err_off] != IPV6_OPT_PAD1);
            break;
        default:
            break;
        }
        /* more data after the end never fixes an error found before it */
        return 0;
    }

    /* success: stopped where the header named by next begins */
    REQUIRE(e.off <= len);
    if (e.off == 0) {
        REQUIRE(e.next == next && e.flags == 0 && e.opt_off == 0);
        REQUIRE(!is_walked(next));
    } else {
        REQUIRE(e.last_off < e.off && d[e.last_off] == e.next);
    }
    if (e.flags & IPV6_EXT_F_HBH)
        REQUIRE(next == IPV6_NH_HOPOPT);
    if (e.flags & IPV6_EXT_F_RH) {
        REQUIRE(e.rh_off + 8u <= e.off);
        REQUIRE(d[e.rh_off + 2] == e.rh_type && d[e.rh_off + 3] == e.rh_segs_left);
        REQUIRE(e.rh_type != 0 || e.rh_segs_left == 0);
    }
    if (e.flags & IPV6_EXT_F_FRAG) {
        REQUIRE(e.frag_hdr_off + 8u == e.off && e.frag_hdr_off == e.last_off);
        REQUIRE(e.frag_offset == (get_be16(d + e.frag_hdr_off + 2) & 0xfff8));
        REQUIRE(e.frag_more == (d[e.frag_hdr_off + 3] & 1));
        REQUIRE(e.frag_id == get_be32(d + e.frag_hdr_off + 4));
    }
    /* a walked header type is left only where the walk must stop */
    if (is_walked(e.next) && e.off != 0) {
        int at_frag = (e.flags & IPV6_EXT_F_FRAG) != 0;
        int at_rh = (e.flags & IPV6_EXT_F_RH) && e.rh_segs_left && e.rh_off == e.last_off;
        REQUIRE(at_frag || at_rh);
    }
    if (e.opt_off) {
        uint8_t t = d[e.opt_off];
        REQUIRE(e.opt_off + 2u <= e.off && (t >> 6) != IPV6_OPT_ACT_SKIP);
        for (size_t i = 0; i < n_known; i++)
            REQUIRE(t != known_list[i]);
    }

    /* nothing past e.off was read: the prefix walks the same, and one byte
     * less truncates the last header */
    REQUIRE(walk_prefix(next, d, e.off, n_known, &f) == 0);
    same(&e, &f);
    if (e.off > 0)
        REQUIRE(walk_prefix(next, d, e.off - 1u, n_known, &f) == -IPV6_EXT_ERR_TRUNCATED);
    return 0;
}

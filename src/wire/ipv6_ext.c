#include "wire/ipv6_ext.h"

#include <string.h>

#include "core/byteorder.h"
#include "wire/ipv6.h"

/* RFC 8200 4.2: options are TLVs; Pad1 is a lone zero byte, every other
 * option has a length byte and that many bytes of data. */
int wren_ipv6_ext_opt_next(const uint8_t *hdr, size_t hdr_len, size_t *pos, struct ipv6_ext_opt *o)
{
    size_t p = *pos;
    while (p < hdr_len) {
        uint8_t t = hdr[p];
        if (t == IPV6_OPT_PAD1) {
            p++;
            continue;
        }
        if (hdr_len - p < 2 || hdr_len - p - 2 < hdr[p + 1]) {
            *pos = p;
            return -IPV6_EXT_ERR_OPT;
        }
        size_t start = p;
        p += 2u + hdr[p + 1];
        if (t != IPV6_OPT_PADN) {
            o->type = t;
            o->len = hdr[start + 1];
            o->off = (uint16_t)start;
            *pos = p;
            return 1;
        }
    }
    *pos = p;
    return 0;
}

/* each header is at most 2048 bytes: every offset fits the 16-bit fields */
_Static_assert(CONFIG_IPV6_EXT_MAX_HDRS >= 1 && CONFIG_IPV6_EXT_MAX_HDRS * 2048 < 0xffff,
               "CONFIG_IPV6_EXT_MAX_HDRS out of range");

static bool is_known(uint8_t type, const uint8_t *known, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (known[i] == type) {
            return true;
        }
    }
    return false;
}

static int walk(uint8_t next, const uint8_t *data, size_t len, const uint8_t *known,
                size_t n_known, bool first_only, struct ipv6_ext *e);

int wren_ipv6_ext_walk(uint8_t next, const uint8_t *data, size_t len, const uint8_t *known,
                  size_t n_known, struct ipv6_ext *e)
{
    return walk(next, data, len, known, n_known, false, e);
}

/* RFC 8200 4, 4.3: a router on the path examines the hop-by-hop header
 * alone; what follows is the destination's */
int wren_ipv6_ext_walk_hbh(uint8_t next, const uint8_t *data, size_t len, const uint8_t *known,
                           size_t n_known, struct ipv6_ext *e)
{
    if (next != IPV6_NH_HOPOPT) {
        memset(e, 0, sizeof(*e));
        e->next = next;
        return 0;
    }
    return walk(next, data, len, known, n_known, true, e);
}

/* The headers this walk steps over; any other is the caller's. */
static bool walked(uint8_t next)
{
    return next == IPV6_NH_HOPOPT || next == IPV6_NH_DSTOPTS || next == IPV6_NH_ROUTING ||
           next == IPV6_NH_FRAGMENT;
}

/* The length of the header at @p off, after the chain's limits (RFC 8200
 * 4.1: hop-by-hop only right after the fixed header). Every header we walk
 * is at least 8 bytes; the fragment header is exactly 8, the others
 * (Hdr Ext Len + 1) * 8. @return the length, or -IPV6_EXT_ERR_* with
 * @p *err_off at the fault. */
static int hdr_len(uint8_t next, const uint8_t *data, size_t len, size_t off, unsigned n,
                   const struct ipv6_ext *e, size_t *err_off)
{
    *err_off = off;
    if (n == CONFIG_IPV6_EXT_MAX_HDRS) {
        return -IPV6_EXT_ERR_CHAIN;
    }
    if (next == IPV6_NH_HOPOPT && off != 0) {
        *err_off = e->last_off;
        return -IPV6_EXT_ERR_HBH;
    }
    if (len - off < 8) {
        return -IPV6_EXT_ERR_TRUNCATED;
    }
    size_t hl = next == IPV6_NH_FRAGMENT ? 8 : (size_t)(data[off + 1] + 1) * 8;
    if (len - off < hl) {
        *err_off = off + 1; /* Hdr Ext Len claims more than there is */
        return -IPV6_EXT_ERR_TRUNCATED;
    }
    return (int)hl;
}

/* RFC 8200 4.2: the top two bits of an unrecognised option's type say what
 * to do; report the first that is not "skip". */
static int parse_options(const uint8_t *h, size_t hl, size_t off, const uint8_t *known,
                         size_t n_known, struct ipv6_ext *e, size_t *err_off)
{
    struct ipv6_ext_opt o;
    size_t pos = 2;
    int rc;
    while ((rc = wren_ipv6_ext_opt_next(h, hl, &pos, &o)) > 0) {
        if (!e->opt_off && (o.type >> 6) != IPV6_OPT_ACT_SKIP &&
            !is_known(o.type, known, n_known)) {
            e->opt_off = (uint16_t)(off + o.off);
        }
    }
    if (rc < 0) {
        *err_off = off + pos;
        return -IPV6_EXT_ERR_OPT;
    }
    return 0;
}

/* RFC 8200 4.4: with segments left == 0 a routing header of any type is
 * ignored; otherwise this node must process it first (1: the walk stops). */
static int parse_routing(const uint8_t *h, size_t off, struct ipv6_ext *e, size_t *err_off)
{
    e->flags |= IPV6_EXT_F_RH;
    e->rh_off = (uint16_t)off;
    e->rh_type = h[2];
    e->rh_segs_left = h[3];
    if (h[3] == 0) {
        return 0;
    }
    /* RFC 5095 3: RH0 is an unrecognised routing type */
    if (h[2] == 0) {
        *err_off = off + 2;
        return -IPV6_EXT_ERR_RH0;
    }
    return 1;
}

/* RFC 8200 4.5: offset (13 bits), res, M; id. The walk stops here. */
static int parse_fragment(const uint8_t *h, size_t off, struct ipv6_ext *e)
{
    e->flags |= IPV6_EXT_F_FRAG;
    e->frag_hdr_off = (uint16_t)off;
    e->frag_offset = get_be16(h + 2) & 0xfff8;
    e->frag_more = h[3] & 1;
    e->frag_id = get_be32(h + 4);
    return 1;
}

static int walk(uint8_t next, const uint8_t *data, size_t len, const uint8_t *known,
                size_t n_known, bool first_only, struct ipv6_ext *e)
{
    size_t off = 0, err_off = 0;
    unsigned n = 0;
    int rc;

    memset(e, 0, sizeof(*e));
    while (walked(next)) {
        int hl = hdr_len(next, data, len, off, n, e, &err_off);
        if (hl < 0) {
            rc = hl;
            goto fail;
        }
        const uint8_t *h = data + off;
        switch (next) {
        case IPV6_NH_HOPOPT:
            e->flags |= IPV6_EXT_F_HBH;
            /* fall through */
        case IPV6_NH_DSTOPTS:
            rc = parse_options(h, (size_t)hl, off, known, n_known, e, &err_off);
            break;
        case IPV6_NH_ROUTING:
            rc = parse_routing(h, off, e, &err_off);
            break;
        default:
            rc = parse_fragment(h, off, e);
            break;
        }
        if (rc < 0) {
            goto fail;
        }
        e->last_off = (uint16_t)off;
        next = h[0];
        off += (size_t)hl;
        n++;
        if (rc > 0 || first_only) {
            break;
        }
    }
    e->next = next;
    e->off = (uint16_t)off;
    return 0;
fail:
    e->err_off = (uint16_t)err_off;
    return rc;
}

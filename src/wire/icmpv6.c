#include "wire/icmpv6.h"

#include <string.h>

#include "core/byteorder.h"
#include "wire/inet_csum.h"
#include "wire/ipv6.h"

/* Header plus fixed part of a type; -ICMPV6_ERR_CODE for a DAR/DAC code
 * suffix that names no ROVR size. */
static int fixed_len(uint8_t type, uint8_t code)
{
    /* RS, RA, NS, NA, redirect: RFC 4861 4.1-4.5 */
    static const uint8_t nd_len[] = { 8, 16, 24, 24, 40 };

    /* RFC 4443 3.1-3.4, 4.1-4.2: unused / MTU / pointer, or id and seq */
    if ((type >= ICMPV6_DEST_UNREACH && type <= ICMPV6_PARAM_PROBLEM) ||
        type == ICMPV6_ECHO_REQUEST || type == ICMPV6_ECHO_REPLY) {
        return 8;
    }
    if (type >= ICMPV6_ND_RS && type <= ICMPV6_ND_REDIRECT) {
        return nd_len[type - ICMPV6_ND_RS];
    }
    /* RFC 6775 4.4, RFC 8505 4.2: status, TID, lifetime, EUI-64 or ROVR
     * (size from the code suffix), registered address */
    if (type == ICMPV6_DAR || type == ICMPV6_DAC) {
        unsigned sfx = code & 0x0fu;
        if (sfx > 4) {
            return -ICMPV6_ERR_CODE;
        }
        return 24 + 8 * (int)(sfx ? sfx : 1);
    }
    return 4; /* RFC 4443 2.1: type, code, checksum, body */
}

int wren_icmpv6_parse(const uint8_t *buf, size_t len, struct icmpv6_msg *m)
{
    memset(m, 0, sizeof(*m));
    if (len < 4) {
        return -ICMPV6_ERR_TRUNCATED;
    }
    m->type = buf[0];
    m->code = buf[1];
    m->csum = get_be16(buf + 2);
    int fl = fixed_len(m->type, m->code);
    if (fl < 0) {
        return fl;
    }
    if (len < (size_t)fl) {
        return -ICMPV6_ERR_TRUNCATED;
    }
    const uint8_t *p = buf + 4;
    switch (m->type) {
    case ICMPV6_ECHO_REQUEST:
    case ICMPV6_ECHO_REPLY:
        m->echo.id = get_be16(p);
        m->echo.seq = get_be16(p + 2);
        break;
    case ICMPV6_DEST_UNREACH:
    case ICMPV6_PKT_TOO_BIG:
    case ICMPV6_TIME_EXCEEDED:
    case ICMPV6_PARAM_PROBLEM:
        m->param = get_be32(p);
        break;
    case ICMPV6_ND_RA:
        m->ra.cur_hop_limit = p[0];
        m->ra.flags = p[1];
        m->ra.router_lifetime = get_be16(p + 2);
        m->ra.reachable_time = get_be32(p + 4);
        m->ra.retrans_timer = get_be32(p + 8);
        break;
    case ICMPV6_ND_NS:
    case ICMPV6_ND_NA:
    case ICMPV6_ND_REDIRECT:
        m->nd.target = p + 4;
        if (m->type == ICMPV6_ND_NA) {
            m->nd.flags = p[0];
        }
        if (m->type == ICMPV6_ND_REDIRECT) {
            m->nd.dst = p + 20;
        }
        break;
    case ICMPV6_DAR:
    case ICMPV6_DAC:
        m->dar.status = p[0];
        m->dar.tid = p[1];
        m->dar.lifetime = get_be16(p + 2);
        m->dar.rovr = p + 4;
        m->dar.rovr_len = (uint8_t)(fl - 24);
        m->dar.addr = p + 4 + m->dar.rovr_len;
        break;
    default:
        break;
    }
    m->data = buf + fl;
    m->data_len = len - (size_t)fl;
    return 0;
}

int wren_icmpv6_len(const struct icmpv6_msg *m)
{
    int fl = fixed_len(m->type, m->code);
    return fl < 0 ? fl : fl + (int)m->data_len;
}

/* The type-specific fields after type, code and checksum (at @p p); the
 * addresses and ROVR go in with memmove: they may already sit in place.
 * @p dar: a DAR or DAC (RFC 6775 4.4). */
static void emit_fields(const struct icmpv6_msg *m, uint8_t *p, bool dar)
{
    switch (m->type) {
    case ICMPV6_ECHO_REQUEST:
    case ICMPV6_ECHO_REPLY:
        put_be16(p, m->echo.id);
        put_be16(p + 2, m->echo.seq);
        break;
    case ICMPV6_DEST_UNREACH:
    case ICMPV6_PKT_TOO_BIG:
    case ICMPV6_TIME_EXCEEDED:
    case ICMPV6_PARAM_PROBLEM:
        put_be32(p, m->param);
        break;
    case ICMPV6_ND_RS:
        put_be32(p, 0);
        break;
    case ICMPV6_ND_RA:
        p[0] = m->ra.cur_hop_limit;
        p[1] = m->ra.flags;
        put_be16(p + 2, m->ra.router_lifetime);
        put_be32(p + 4, m->ra.reachable_time);
        put_be32(p + 8, m->ra.retrans_timer);
        break;
    case ICMPV6_ND_NS:
    case ICMPV6_ND_NA:
    case ICMPV6_ND_REDIRECT:
        memmove(p + 4, m->nd.target, 16);
        if (m->type == ICMPV6_ND_REDIRECT) {
            memmove(p + 20, m->nd.dst, 16);
        }
        put_be32(p, (uint32_t)m->nd.flags << 24);
        break;
    default:
        if (dar) {
            size_t rl = m->dar.rovr_len;
            memmove(p + 4, m->dar.rovr, rl);
            memmove(p + 4 + rl, m->dar.addr, 16);
            p[0] = m->dar.status;
            p[1] = m->dar.tid;
            put_be16(p + 2, m->dar.lifetime);
        }
        break;
    }
}

int wren_icmpv6_emit(const struct icmpv6_msg *m, uint8_t *buf, size_t len)
{
    int fl = fixed_len(m->type, m->code);
    if (fl < 0) {
        return fl;
    }
    if (len < (size_t)fl) {
        return -ICMPV6_ERR_NOBUFS;
    }
    size_t n = m->data_len;
    if (n > len - (size_t)fl) {
        /* RFC 4443 2.4 (c): errors quote as much as fits the budget */
        if (m->type >= 128) {
            return -ICMPV6_ERR_NOBUFS;
        }
        n = len - (size_t)fl;
    }
    bool dar = m->type == ICMPV6_DAR || m->type == ICMPV6_DAC;
    if (dar && m->dar.rovr_len != fl - 24) {
        return -ICMPV6_ERR_INVAL;
    }
    if (n) {
        memmove(buf + fl, m->data, n); /* first: data may overlap the header */
    }
    buf[0] = m->type;
    buf[1] = m->code;
    put_be16(buf + 2, 0);
    emit_fields(m, buf + 4, dar);
    return fl + (int)n;
}

/* RFC 4443 2.3 over the pseudo-header of RFC 8200 8.1; @p gap bytes after
 * the first two (the checksum field) are left out */
static uint16_t csum(const uint8_t *src, const uint8_t *dst, const uint8_t *msg, size_t len,
                     size_t gap)
{
    struct inet_csum c;
    size_t a = len < 2 ? len : 2;
    wren_inet_csum_init(&c);
    wren_inet_csum_pseudo(&c, src, dst, (uint32_t)len, IPV6_NH_ICMPV6);
    wren_inet_csum_update(&c, msg, a);
    if (len > a + gap) {
        wren_inet_csum_update(&c, msg + a + gap, len - a - gap);
    }
    return wren_inet_csum_final(&c);
}

uint16_t wren_icmpv6_csum(const uint8_t *src, const uint8_t *dst, const uint8_t *msg, size_t len)
{
    return csum(src, dst, msg, len, 2);
}

int wren_icmpv6_csum_check(const uint8_t *src, const uint8_t *dst, const uint8_t *msg, size_t len)
{
    if (len < 4) {
        return -ICMPV6_ERR_TRUNCATED;
    }
    return csum(src, dst, msg, len, 0) == 0 ? 0 : -ICMPV6_ERR_CSUM;
}

/* ---- ND options ---- */

/* RFC 4861 4.6: type, length in units of 8 octets; length 0 is invalid
 * and, like an option past the end, invalidates the whole message */
int wren_icmpv6_opt_next(struct icmpv6_opt_iter *it, struct icmpv6_opt *o)
{
    if (it->left == 0) {
        return 0;
    }
    if (it->left < 2) {
        return -ICMPV6_ERR_OPT_TRUNCATED;
    }
    size_t n = (size_t)it->p[1] * 8;
    if (n == 0) {
        return -ICMPV6_ERR_OPT_LEN;
    }
    if (n > it->left) {
        return -ICMPV6_ERR_OPT_TRUNCATED;
    }
    o->type = it->p[0];
    o->len = it->p[1];
    o->p = it->p;
    it->p += n;
    it->left -= n;
    return 1;
}

static int opt_size(const struct icmpv6_opt *o, unsigned min, unsigned max)
{
    return o->len < min || o->len > max ? -ICMPV6_ERR_OPT_SIZE : 0;
}

/* RFC 4861 4.6.1; RFC 4944 8: 802.15.4 short (2 bytes) or EUI-64 (8 bytes)
 * addresses, padded with zeros to 8 or 16 octets. A one-unit option with
 * more than the short address in it (lwIP sends its 6-byte MAC so) is no
 * short address: refused, not misread. */
int wren_icmpv6_opt_lladdr_parse(const struct icmpv6_opt *o, uint8_t unit_len,
                            struct icmpv6_lladdr *ll)
{
    if (unit_len == 0 || unit_len > 6) {
        return -ICMPV6_ERR_INVAL;
    }
    int rc = opt_size(o, 1, 2);
    if (rc) {
        return rc;
    }
    if (o->len == 1) {
        for (unsigned i = 2u + unit_len; i < 8; i++) {
            if (o->p[i]) {
                return -ICMPV6_ERR_OPT_PADDING;
            }
        }
    }
    ll->addr = o->p + 2;
    ll->len = o->len == 1 ? unit_len : 8;
    return 0;
}

/* RFC 4861 4.6.2: prefix length, L|A|reserved, valid, preferred, reserved,
 * prefix */
int wren_icmpv6_opt_pio_parse(const struct icmpv6_opt *o, struct icmpv6_pio *pio)
{
    int rc = opt_size(o, 4, 4);
    if (rc) {
        return rc;
    }
    const uint8_t *p = o->p;
    if (p[2] > 128) {
        return -ICMPV6_ERR_PREFIX_LEN;
    }
    pio->prefix_len = p[2];
    pio->flags = p[3];
    pio->valid = get_be32(p + 4);
    pio->preferred = get_be32(p + 8);
    pio->prefix = p + 16;
    return 0;
}

/* RFC 4861 4.6.4: reserved (2), MTU (4) */
int wren_icmpv6_opt_mtu_parse(const struct icmpv6_opt *o, uint32_t *mtu)
{
    int rc = opt_size(o, 1, 1);
    if (rc == 0) {
        *mtu = get_be32(o->p + 4);
    }
    return rc;
}

/* RFC 6775 4.1 / RFC 8505 4.1: status, opaque, rsvd|I|R|T, TID, lifetime,
 * EUI-64 or ROVR of 64..256 bits */
int wren_icmpv6_opt_aro_parse(const struct icmpv6_opt *o, struct icmpv6_aro *aro)
{
    int rc = opt_size(o, 2, 5);
    if (rc == 0) {
        const uint8_t *p = o->p;
        aro->status = p[2];
        aro->opaque = p[3];
        aro->flags = p[4];
        aro->tid = p[5];
        aro->lifetime = get_be16(p + 6);
        aro->rovr = p + 8;
        aro->rovr_len = (uint8_t)((o->len - 1) * 8);
    }
    return rc;
}

/* RFC 6775 4.2: context length, res|C|CID, reserved, lifetime, prefix */
int wren_icmpv6_opt_6co_parse(const struct icmpv6_opt *o, struct icmpv6_6co *c)
{
    int rc = opt_size(o, 2, 3);
    if (rc) {
        return rc;
    }
    const uint8_t *p = o->p;
    if (p[2] > (o->len - 1) * 64) {
        return -ICMPV6_ERR_PREFIX_LEN;
    }
    c->ctx_len = p[2];
    c->flags = p[3];
    c->lifetime = get_be16(p + 6);
    c->prefix = p + 8;
    return 0;
}

/* RFC 6775 4.3: version low, version high, lifetime, 6LBR address */
int wren_icmpv6_opt_abro_parse(const struct icmpv6_opt *o, struct icmpv6_abro *a)
{
    int rc = opt_size(o, 3, 3);
    if (rc == 0) {
        const uint8_t *p = o->p;
        a->version = (uint32_t)get_be16(p + 4) << 16 | get_be16(p + 2);
        a->lifetime = get_be16(p + 6);
        a->addr = p + 8;
    }
    return rc;
}

/* Zero an option of @p units and write its type and length. */
static uint8_t *opt_begin(uint8_t type, unsigned units, uint8_t *buf, size_t len)
{
    if (len < units * 8u) {
        return NULL;
    }
    memset(buf, 0, units * 8u);
    buf[0] = type;
    buf[1] = (uint8_t)units;
    return buf;
}

int wren_icmpv6_opt_lladdr_emit(uint8_t type, const uint8_t *addr, size_t addr_len, uint8_t *buf,
                           size_t len)
{
    if (addr_len == 0 || addr_len > 14) {
        return -ICMPV6_ERR_INVAL;
    }
    unsigned units = (unsigned)(addr_len + 2 + 7) / 8;
    uint8_t *p = opt_begin(type, units, buf, len);
    if (!p) {
        return -ICMPV6_ERR_NOBUFS;
    }
    memcpy(p + 2, addr, addr_len);
    return (int)units * 8;
}

int wren_icmpv6_opt_pio_emit(const struct icmpv6_pio *pio, uint8_t *buf, size_t len)
{
    if (pio->prefix_len > 128) {
        return -ICMPV6_ERR_PREFIX_LEN;
    }
    uint8_t *p = opt_begin(ICMPV6_OPT_PIO, 4, buf, len);
    if (!p) {
        return -ICMPV6_ERR_NOBUFS;
    }
    p[2] = pio->prefix_len;
    p[3] = pio->flags;
    put_be32(p + 4, pio->valid);
    put_be32(p + 8, pio->preferred);
    memcpy(p + 16, pio->prefix, 16);
    return 32;
}

int wren_icmpv6_opt_mtu_emit(uint32_t mtu, uint8_t *buf, size_t len)
{
    uint8_t *p = opt_begin(ICMPV6_OPT_MTU, 1, buf, len);
    if (!p) {
        return -ICMPV6_ERR_NOBUFS;
    }
    put_be32(p + 4, mtu);
    return 8;
}

/* ARO, 6CO and ABRO share a shape (RFC 6775 4.1-4.3): four bytes of fields,
 * a 16-bit lifetime at offset 6, then @p n bytes of EUI-64/ROVR, prefix or
 * address at 8, zero-padded to @p units. */
static int opt_emit_rfc6775(uint8_t type, unsigned units, const uint8_t f[4], uint16_t lifetime,
                            const uint8_t *v, size_t n, uint8_t *buf, size_t len)
{
    uint8_t *p = opt_begin(type, units, buf, len);
    if (!p) {
        return -ICMPV6_ERR_NOBUFS;
    }
    memcpy(p + 2, f, 4);
    put_be16(p + 6, lifetime);
    if (n) {
        memcpy(p + 8, v, n);
    }
    return (int)units * 8;
}

int wren_icmpv6_opt_aro_emit(const struct icmpv6_aro *aro, uint8_t *buf, size_t len)
{
    unsigned rl = aro->rovr_len;
    if ((rl & 7) || rl < 8 || rl > 32) {
        return -ICMPV6_ERR_INVAL;
    }
    const uint8_t f[4] = { aro->status, aro->opaque, aro->flags, aro->tid };
    return opt_emit_rfc6775(ICMPV6_OPT_ARO, 1 + rl / 8, f, aro->lifetime, aro->rovr, rl, buf, len);
}

int wren_icmpv6_opt_6co_emit(const struct icmpv6_6co *c, uint8_t *buf, size_t len)
{
    if (c->ctx_len > 128) {
        return -ICMPV6_ERR_PREFIX_LEN;
    }
    const uint8_t f[4] = { c->ctx_len, c->flags, 0, 0 };
    return opt_emit_rfc6775(ICMPV6_OPT_6CO, c->ctx_len > 64 ? 3 : 2, f, c->lifetime, c->prefix,
                            (c->ctx_len + 7u) / 8, buf, len);
}

int wren_icmpv6_opt_abro_emit(const struct icmpv6_abro *a, uint8_t *buf, size_t len)
{
    /* version low, then version high */
    const uint8_t f[4] = { (uint8_t)(a->version >> 8), (uint8_t)a->version,
                           (uint8_t)(a->version >> 24), (uint8_t)(a->version >> 16) };
    return opt_emit_rfc6775(ICMPV6_OPT_ABRO, 3, f, a->lifetime, a->addr, 16, buf, len);
}

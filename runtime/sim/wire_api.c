/* ctypes entry points into the 6LoWPAN codec (see wire_api.h). */
#include "sim/wire_api.h"

#include <string.h>

#include "wire/inet_csum.h"
#include "wire/ipv6.h"
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

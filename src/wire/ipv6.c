#include "wire/ipv6.h"

#include <string.h>

#include "core/byteorder.h"

/* RFC 8200 section 3: version, traffic class, flow label, payload length,
 * next header, hop limit, source, destination */
int wren_ipv6_hdr_parse(const uint8_t *buf, size_t len, struct ipv6_hdr *h)
{
    if (len < IPV6_HDR_LEN) {
        return -IPV6_ERR_TRUNCATED;
    }
    uint32_t w = get_be32(buf);
    if ((w >> 28) != 6) {
        return -IPV6_ERR_VERSION;
    }
    h->tc = (uint8_t)(w >> 20);
    h->flow = w & 0xfffff;
    h->payload_len = get_be16(buf + 4);
    h->next = buf[6];
    h->hop_limit = buf[7];
    wren_ipv6_addr_copy(h->src, buf + 8);
    wren_ipv6_addr_copy(h->dst, buf + 24);
    return 0;
}

void wren_ipv6_hdr_emit(const struct ipv6_hdr *h, uint8_t *buf)
{
    put_be32(buf, 6u << 28 | (uint32_t)h->tc << 20 | (h->flow & 0xfffff));
    put_be16(buf + 4, h->payload_len);
    buf[6] = h->next;
    buf[7] = h->hop_limit;
    wren_ipv6_addr_copy(buf + 8, h->src);
    wren_ipv6_addr_copy(buf + 24, h->dst);
}

void wren_ipv6_addr_copy(uint8_t *dst, const uint8_t *src)
{
    memcpy(dst, src, 16);
}

/* word @p i of an address (any alignment), for whole-address tests */
static uint32_t word(const uint8_t *a, unsigned i)
{
    uint32_t w;
    memcpy(&w, a + 4 * i, 4);
    return w;
}

bool wren_ipv6_addr_is_unspecified(const uint8_t *a)
{
    return (word(a, 0) | word(a, 1) | word(a, 2) | word(a, 3)) == 0;
}

bool wren_ipv6_addr_is_loopback(const uint8_t *a)
{
    return (word(a, 0) | word(a, 1) | word(a, 2)) == 0 && get_be32(a + 12) == 1;
}

bool wren_ipv6_prefix_equal(const uint8_t *a, const uint8_t *b, unsigned bits)
{
    if (bits > 128) {
        bits = 128;
    }
    unsigned bytes = bits / 8;
    if (memcmp(a, b, bytes) != 0) {
        return false;
    }
    unsigned rest = bits % 8;
    if (rest == 0) {
        return true;
    }
    uint8_t mask = (uint8_t)(0xff << (8 - rest));
    return ((a[bytes] ^ b[bytes]) & mask) == 0;
}

unsigned wren_ipv6_prefix_common(const uint8_t *a, const uint8_t *b)
{
    unsigned n = 0;
    for (int i = 0; i < 16; i++) {
        uint8_t x = a[i] ^ b[i];
        if (x == 0) {
            n += 8;
            continue;
        }
        while (!(x & 0x80)) {
            x = (uint8_t)(x << 1);
            n++;
        }
        return n;
    }
    return n;
}

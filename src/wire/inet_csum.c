#include "wire/inet_csum.h"

#include <string.h>

/* RFC 1071 section 2: the ones' complement sum may be taken over wider
 * words and in either byte order; summing the data as native words into 64
 * bits and folding (then swapping, on a little-endian host) at the end gives
 * the same checksum in a fraction of the instructions. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_LE 1
#else
#define HOST_LE 0
#endif

/* a byte at an even (resp. odd) offset of the data, as a native 16-bit half */
#define EVEN_BYTE(b) (HOST_LE ? (uint64_t)(b) : (uint64_t)(b) << 8)
#define ODD_BYTE(b) (HOST_LE ? (uint64_t)(b) << 8 : (uint64_t)(b))

void inet_csum_init(struct inet_csum *c)
{
    c->sum = 0;
    c->odd = false;
}

/* add with end-around carry: a 64-bit ones' complement accumulator */
static inline uint64_t add1c(uint64_t sum, uint64_t v)
{
    sum += v;
    return sum + (sum < v);
}

void inet_csum_update(struct inet_csum *c, const uint8_t *buf, size_t len)
{
    uint64_t sum = c->sum;
    size_t i = 0;
    if (c->odd && len) {
        sum = add1c(sum, ODD_BYTE(buf[0])); /* completes the word begun by the last piece */
        i = 1;
        c->odd = false;
    }
    /* from here the data is at an even offset of the checksummed stream:
     * whole 64-bit words fold like groups of 16-bit ones */
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, buf + i, 8);
        sum = add1c(sum, w);
    }
    for (; i + 2 <= len; i += 2) {
        uint16_t w;
        memcpy(&w, buf + i, 2);
        sum = add1c(sum, w);
    }
    if (i < len) {
        sum = add1c(sum, EVEN_BYTE(buf[i]));
        c->odd = true;
    }
    c->sum = sum;
}

void inet_csum_pseudo(struct inet_csum *c, const uint8_t *src, const uint8_t *dst,
                      uint32_t upper_len, uint8_t next)
{
    uint8_t tail[8] = { (uint8_t)(upper_len >> 24), (uint8_t)(upper_len >> 16),
                        (uint8_t)(upper_len >> 8), (uint8_t)upper_len, 0, 0, 0, next };
    inet_csum_update(c, src, 16);
    inet_csum_update(c, dst, 16);
    inet_csum_update(c, tail, sizeof(tail));
}

uint16_t inet_csum_final(const struct inet_csum *c)
{
    uint64_t sum = c->sum;
    sum = (sum & 0xffffffffu) + (sum >> 32);
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    uint16_t s = (uint16_t)sum;
    if (HOST_LE) {
        s = (uint16_t)(s << 8 | s >> 8);
    }
    return (uint16_t)~s;
}

#include "wire/inet_csum.h"

#include <string.h>

/* RFC 1071 section 2: the ones' complement sum may be taken over wider
 * words and in either byte order; summing the data as native words (as wide
 * as a register: 32 or 64 bits) and folding (then swapping, on a
 * little-endian host) at the end gives the same checksum in a fraction of
 * the instructions. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_LE 1
#else
#define HOST_LE 0
#endif

typedef uintptr_t word;

/* A sum of big-endian 16-bit wire words as the native sum counts it. On a
 * little-endian host each word is byte-swapped, and a swap is, modulo 0xffff,
 * a multiplication by 256: so a shift serves for sums of words too. */
static word from_wire(word v)
{
    return HOST_LE ? v << 8 : v;
}

void wren_inet_csum_init(struct inet_csum *c)
{
    c->sum = 0;
    c->odd = false;
}

/* add with end-around carry: a ones' complement accumulator */
static inline word add1c(word sum, word v)
{
    sum += v;
    return sum + (sum < v);
}

void wren_inet_csum_update(struct inet_csum *c, const uint8_t *buf, size_t len)
{
    word sum = c->sum;
    size_t i = 0;
    if (c->odd && len) {
        /* completes the 16-bit word begun by the last piece: its low byte */
        sum = add1c(sum, from_wire(buf[0]));
        i = 1;
        c->odd = false;
    }
    /* from here the data is at an even offset of the checksummed stream:
     * whole native words fold like groups of 16-bit ones */
    for (; i + sizeof(word) <= len; i += sizeof(word)) {
        word w;
        memcpy(&w, buf + i, sizeof(w));
        sum = add1c(sum, w);
    }
    for (; i + 2 <= len; i += 2) {
        uint16_t w;
        memcpy(&w, buf + i, 2);
        sum = add1c(sum, w);
    }
    if (i < len) {
        /* an odd byte: the high byte of a 16-bit word */
        sum = add1c(sum, from_wire((word)buf[i] << 8));
        c->odd = true;
    }
    c->sum = sum;
}

void wren_inet_csum_pseudo(struct inet_csum *c, const uint8_t *src, const uint8_t *dst,
                      uint32_t upper_len, uint8_t next)
{
    /* at an even offset: the addresses are whole native words */
    word sum = c->sum;
    for (size_t i = 0; i < 16; i += sizeof(word)) {
        word s, d;
        memcpy(&s, src + i, sizeof(s));
        memcpy(&d, dst + i, sizeof(d));
        sum = add1c(add1c(sum, s), d);
    }
    /* the 32-bit length and the next header (after three zero bytes) as
     * 16-bit words */
    c->sum = add1c(sum, from_wire((upper_len >> 16) + (upper_len & 0xffff) + next));
}

uint16_t wren_inet_csum_final(const struct inet_csum *c)
{
    word sum = c->sum;
    sum = (sum & 0xffffffffu) + (sum >> 16 >> 16); /* a 64-bit sum to 33 bits */
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    uint16_t s = (uint16_t)sum;
    if (HOST_LE) {
        s = (uint16_t)(s << 8 | s >> 8);
    }
    return (uint16_t)~s;
}

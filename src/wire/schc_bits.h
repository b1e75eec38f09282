/* Bit cursors for SCHC messages (private to wire/schc.c and schc/): the
 * residue, fragments and ACKs are bit strings, MSB first (RFC 8724 5.1, 8.3). */
#ifndef WREN_WIRE_SCHC_BITS_H
#define WREN_WIRE_SCHC_BITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline unsigned bit_at(const uint8_t *p, size_t i)
{
    return (p[i >> 3] >> (7 - (i & 7))) & 1u;
}

static inline void bit_set(uint8_t *p, size_t i, unsigned b)
{
    uint8_t m = (uint8_t)(0x80u >> (i & 7));
    p[i >> 3] = (uint8_t)(b ? (p[i >> 3] | m) : (p[i >> 3] & ~m));
}

/* A bounded bit cursor with a sticky error flag (STYLE.md's reader, in bits). */
struct bits {
    uint8_t *w;        /* writing: the buffer; reading: NULL */
    const uint8_t *r;
    size_t pos, end;   /* in bits */
    bool err;
};

/* Append the low @p n bits of the big-endian @p nb-byte value @p v. */
static inline void put_bits(struct bits *b, const uint8_t *v, unsigned nb, unsigned n)
{
    if (b->end - b->pos < n) {
        b->err = true;
        return;
    }
    for (unsigned i = 0; i < n; i++) {
        bit_set(b->w, b->pos++, bit_at(v, nb * 8u - n + i));
    }
}

/* Read @p n bits into the low bits of the @p nb-byte value @p v (zeroed). */
static inline void get_bits(struct bits *b, uint8_t *v, unsigned nb, unsigned n)
{
    memset(v, 0, nb);
    if (b->end - b->pos < n) {
        b->err = true;
        return;
    }
    for (unsigned i = 0; i < n; i++) {
        bit_set(v, nb * 8u - n + i, bit_at(b->r, b->pos++));
    }
}

/* Append the low @p n (at most 32) bits of @p v. */
static inline void put_uint(struct bits *b, uint32_t v, unsigned n)
{
    uint8_t x[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };
    put_bits(b, x, 4, n);
}

/* Read @p n (at most 32) bits. */
static inline uint32_t get_uint(struct bits *b, unsigned n)
{
    uint8_t x[4];
    get_bits(b, x, 4, n);
    return (uint32_t)x[0] << 24 | (uint32_t)x[1] << 16 | (uint32_t)x[2] << 8 | x[3];
}

#endif

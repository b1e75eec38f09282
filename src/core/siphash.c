#include "core/siphash.h"

static uint64_t rotl(uint64_t x, unsigned b)
{
    return (x << b) | (x >> (64 - b));
}

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < 8; i++) {
        v |= (uint64_t)p[i] << (8 * i);
    }
    return v;
}

/* one SipRound over the four state words */
static void round4(uint64_t v[4])
{
    v[0] += v[1];
    v[1] = rotl(v[1], 13) ^ v[0];
    v[0] = rotl(v[0], 32);
    v[2] += v[3];
    v[3] = rotl(v[3], 16) ^ v[2];
    v[0] += v[3];
    v[3] = rotl(v[3], 21) ^ v[0];
    v[2] += v[1];
    v[1] = rotl(v[1], 17) ^ v[2];
    v[2] = rotl(v[2], 32);
}

static void compress(uint64_t v[4], uint64_t m, unsigned rounds)
{
    v[3] ^= m;
    for (unsigned r = 0; r < rounds; r++) {
        round4(v);
    }
    v[0] ^= m;
}

uint64_t wren_siphash24(const uint8_t key[16], const void *in, size_t len)
{
    const uint8_t *p = in;
    uint64_t k0 = le64(key), k1 = le64(key + 8);
    uint64_t v[4] = { k0 ^ 0x736f6d6570736575ULL, k1 ^ 0x646f72616e646f6dULL,
                      k0 ^ 0x6c7967656e657261ULL, k1 ^ 0x7465646279746573ULL };
    size_t whole = len & ~(size_t)7;
    for (size_t i = 0; i < whole; i += 8) {
        compress(v, le64(p + i), 2);
    }
    /* the last block: remaining bytes, length in the top byte */
    uint64_t last = (uint64_t)(len & 0xff) << 56;
    for (size_t i = 0; i < (len & 7); i++) {
        last |= (uint64_t)p[whole + i] << (8 * i);
    }
    compress(v, last, 2);
    v[2] ^= 0xff;
    for (unsigned r = 0; r < 4; r++) {
        round4(v);
    }
    return v[0] ^ v[1] ^ v[2] ^ v[3];
}

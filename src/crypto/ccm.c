/* CCM* (IEEE 802.15.4-2015 Annex B; RFC 3610 2 for CCM) with L = 2: the
 * MIC is a CBC-MAC over B0, the length of a, a, and m, each part padded
 * to whole blocks; m is encrypted in counter mode with A1, A2, ... and
 * the MIC with A0. One pass over m does both. */
#include "crypto/ccm.h"

#include <errno.h>
#include <stdbool.h>

/* The CBC-MAC, fed one byte at a time (x: the chaining block; n: bytes of
 * the block taken so far): compact, and one code path for all the
 * padding rules (a block is padded with zeros by encrypting it early). */
struct mac {
    const uint8_t *key;
    uint8_t x[16];
    unsigned n;
};

static void mac_flush(struct mac *c)
{
    if (c->n) {
        wren_aes128_encrypt(c->key, c->x, c->x);
        c->n = 0;
    }
}

static void mac_feed(struct mac *c, uint8_t b)
{
    c->x[c->n++] ^= b;
    if (c->n == 16)
        mac_flush(c);
}

/* Encrypt (or decrypt) m in place; then write the encrypted MIC of the
 * plaintext (seal) or compare it with the one received (open). One loop
 * over a and m: the CBC-MAC takes each byte of plaintext (after a, padded,
 * comes m), m's bytes are XORed with the key stream. With mic_len 0 the
 * CBC-MAC runs for nothing: that mode (level 4) is rare, and one code
 * path is smaller. */
int wren_ccm(const uint8_t key[16], const uint8_t nonce[13], uint8_t *buf, size_t a_len,
             size_t m_len, size_t mic_len, bool open)
{
    struct mac c = {.key = key};
    uint8_t a[16], s[16];
    uint8_t diff = 0;

    if (mic_len > 16 || !(0x10111u >> mic_len & 1)) /* 0, 4, 8, 16 */
        return -EBADMSG;
    /* A_i: flags L' = L - 1, the nonce, i; B0 the same with other flags
     * (Adata, M' = (M - 2) / 2, 0 for CCM*'s M = 0) and l(m) for i. */
    a[0] = 1;
    for (unsigned k = 0; k < 13; k++)
        a[k + 1] = c.x[k + 1] = nonce[k];
    c.x[0] = (uint8_t)((a_len ? 0x40 : 0) | (mic_len ? (mic_len - 2) / 2 << 3 : 0) | 1);
    c.x[14] = (uint8_t)(m_len >> 8);
    c.x[15] = (uint8_t)m_len;
    c.n = 16;
    mac_flush(&c);
    if (a_len) {
        /* l(a) in two bytes (a_len < 0xff00) before a */
        mac_feed(&c, (uint8_t)(a_len >> 8));
        mac_feed(&c, (uint8_t)a_len);
    }
    for (size_t j = 0;; j++) {
        size_t i = j - a_len;
        bool end = j == a_len + m_len;
        uint8_t ks = 0;
        if (j >= a_len && ((i & 15) == 0 || end)) {
            mac_flush(&c); /* pads a, or the last block of m */
            /* A_1, A_2, ... for m; A_0 for the MIC after it */
            size_t ctr = end ? 0 : i / 16 + 1;
            a[14] = (uint8_t)(ctr >> 8);
            a[15] = (uint8_t)ctr;
            wren_aes128_encrypt(key, a, s);
        }
        if (end)
            break;
        if (j >= a_len)
            ks = s[i & 15];
        mac_feed(&c, buf[j] ^ (open ? ks : 0));
        buf[j] ^= ks;
    }
    buf += a_len + m_len;
    for (size_t j = 0; j < mic_len; j++) {
        uint8_t t = c.x[j] ^ s[j];
        if (open)
            diff |= (uint8_t)(t ^ buf[j]); /* constant time */
        else
            buf[j] = t; /* (sealing never reads the MIC's bytes: not yet written) */
    }
    return open && diff ? -EBADMSG : 0;
}

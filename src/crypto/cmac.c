/* AES-CMAC, RFC 4493 section 2: subkeys K1 = L<<1 (^0x87), K2 = K1<<1
 * (^0x87) from L = AES(K, 0); CBC-MAC over the message with the last block
 * XORed with K1 (complete) or padded 10* and XORed with K2. */
#include "crypto/cmac.h"

#include <stdbool.h>
#include <string.h>

#include "crypto/ccm.h"

/* RFC 4493 2.3: one doubling in GF(2^128). */
static void dbl(uint8_t k[16])
{
    uint8_t carry = (uint8_t)(k[0] >> 7);
    for (unsigned i = 0; i < 15; i++) {
        k[i] = (uint8_t)((k[i] << 1) | (k[i + 1] >> 7));
    }
    k[15] = (uint8_t)((k[15] << 1) ^ (carry ? 0x87 : 0));
}

/* Byte @p i of a || b. */
static uint8_t at(const uint8_t *a, size_t a_len, const uint8_t *b, size_t i)
{
    return i < a_len ? a[i] : b[i - a_len];
}

void wren_aes_cmac(const uint8_t key[16], const uint8_t *a, size_t a_len, const uint8_t *b,
                   size_t b_len, uint8_t mac[16])
{
    uint8_t k[16] = { 0 }, x[16] = { 0 };
    size_t n = a_len + b_len;
    size_t blocks = n == 0 ? 1 : (n + 15) / 16;
    bool complete = n != 0 && n % 16 == 0;
    wren_aes128_encrypt(key, k, k); /* L */
    dbl(k);                         /* K1 */
    if (!complete) {
        dbl(k);                     /* K2 */
    }
    for (size_t blk = 0; blk < blocks; blk++) {
        bool last = blk + 1 == blocks;
        for (size_t j = 0; j < 16; j++) {
            size_t i = blk * 16 + j;
            uint8_t m = i < n ? at(a, a_len, b, i) : (i == n ? 0x80 : 0);
            x[j] ^= (uint8_t)(m ^ (last ? k[j] : 0));
        }
        wren_aes128_encrypt(key, x, x);
    }
    memcpy(mac, x, 16);
}

/**
 * @file cmac.h
 * @brief AES-CMAC (RFC 4493) with AES-128, over the concatenation of two
 *        buffers (LoRaWAN's MIC covers a B0 block and then the frame).
 *
 * Pure code, no state between calls; the cipher is wren_aes128_encrypt()
 * (ccm.h). Stack use is about 80 bytes.
 *
 * @code
 *   uint8_t mac[16];
 *   wren_aes_cmac(key, b0, 16, msg, msg_len, mac); // MIC: mac[0..3]
 * @endcode
 */
#ifndef WREN_CRYPTO_CMAC_H
#define WREN_CRYPTO_CMAC_H

#include <stddef.h>
#include <stdint.h>

/**
 * @brief The 16-byte AES-CMAC of @p a (@p a_len bytes) followed by @p b
 *        (@p b_len bytes) under @p key.
 * @param[out] mac 16 bytes.
 */
void wren_aes_cmac(const uint8_t key[16], const uint8_t *a, size_t a_len, const uint8_t *b,
                   size_t b_len, uint8_t mac[16]);

#endif

/**
 * @file ccm.h
 * @brief AES-128 (encryption only) and CCM* (IEEE 802.15.4-2015 Annex B,
 *        RFC 3610 with an optional empty MIC), in software.
 *
 * Made for 802.15.4 frames: a 13-byte nonce (L = 2, so messages below
 * 64 KiB), the authenticated-only bytes @c a and the encrypted bytes @c m
 * contiguous in one buffer, the MIC right after them:
 *
 * @verbatim
 *  buf: | a (a_len, authenticated) | m (m_len, encrypted in place) | MIC |
 * @endverbatim
 *
 * CCM only runs the forward cipher, so there is no decryption key
 * schedule. The AES round keys are computed on the fly for every block
 * from the 16-byte key: no stored schedule (176 bytes per key saved, at
 * the cost of ten key-expansion steps per block), no T-tables, one
 * 256-byte S-box in ROM. Stack use is below 100 bytes. Pure code: no state.
 *
 * Usage (an 802.15.4 ENC-MIC-32 frame: MHR open, payload encrypted):
 * @code
 *   wren_ccm_seal(key, nonce, mpdu, mhr_len, payload_len, 4);
 *   // receiver:
 *   if (wren_ccm_open(key, nonce, mpdu, mhr_len, payload_len, 4) < 0)
 *       goto drop; // bad MIC: the payload is left as garbage, drop it
 * @endcode
 */
#ifndef WREN_CRYPTO_CCM_H
#define WREN_CRYPTO_CCM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WREN_AES128_KEY_LEN 16
#define WREN_CCM_NONCE_LEN 13

/**
 * @brief One AES-128 block encryption (FIPS 197).
 * @param[in]  key 16 bytes.
 * @param[in]  in  16 bytes of plaintext.
 * @param[out] out 16 bytes of ciphertext; may be @p in.
 */
void wren_aes128_encrypt(const uint8_t key[16], const uint8_t in[16], uint8_t out[16]);

/**
 * @brief CCM* in place: seal (authenticate and encrypt) or open (decrypt
 *        and verify).
 *
 * Seal computes the MIC over @c a and the plaintext @c m, encrypts @c m
 * and writes the encrypted MIC after it. Open decrypts @c m in place (even
 * when the MIC then does not match: the caller drops the frame) and checks
 * the MIC in constant time. @p mic_len 0 is CCM*'s encryption-only mode
 * (802.15.4 security level 4).
 * @param[in]     key     16 bytes.
 * @param[in]     nonce   13 bytes.
 * @param[in,out] buf     a_len + m_len + mic_len bytes (see file comment).
 * @param[in]     a_len   bytes authenticated only (below 0xff00).
 * @param[in]     m_len   bytes encrypted (below 0x10000).
 * @param[in]     mic_len 0, 4, 8 or 16.
 * @param[in]     open    false: seal; true: open.
 * @return 0 on success (sealed, or the MIC matches).
 * @return -EBADMSG if the MIC does not match, or @p mic_len is not one of
 *         the four (nothing is touched then).
 */
int wren_ccm(const uint8_t key[16], const uint8_t nonce[13], uint8_t *buf, size_t a_len,
             size_t m_len, size_t mic_len, bool open);

/** @brief wren_ccm() sealing. @return 0, or -EBADMSG for a bad @p mic_len. */
static inline int wren_ccm_seal(const uint8_t key[16], const uint8_t nonce[13], uint8_t *buf,
                                size_t a_len, size_t m_len, size_t mic_len)
{
    return wren_ccm(key, nonce, buf, a_len, m_len, mic_len, false);
}

/** @brief wren_ccm() opening. @return 0, or -EBADMSG (bad MIC or @p mic_len). */
static inline int wren_ccm_open(const uint8_t key[16], const uint8_t nonce[13], uint8_t *buf,
                                size_t a_len, size_t m_len, size_t mic_len)
{
    return wren_ccm(key, nonce, buf, a_len, m_len, mic_len, true);
}

#endif

/**
 * @file sha256.h
 * @brief SHA-256 (FIPS 180-4), for NDN's DigestSha256 signature and its
 *        implicit and parameters digests. Pure code: no state outside the
 *        caller's context.
 *
 *     struct wren_sha256 c;
 *     uint8_t d[WREN_SHA256_LEN];
 *     wren_sha256_init(&c);
 *     wren_sha256_update(&c, part1, n1);
 *     wren_sha256_update(&c, part2, n2);
 *     wren_sha256_final(&c, d);
 */
#ifndef WREN_CRYPTO_SHA256_H
#define WREN_CRYPTO_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define WREN_SHA256_LEN 32

struct wren_sha256 {
    uint32_t h[8];
    uint64_t len;      /**< bytes hashed so far */
    uint8_t blk[64];   /**< the block being filled */
};

void wren_sha256_init(struct wren_sha256 *c);
void wren_sha256_update(struct wren_sha256 *c, const void *data, size_t len);
/** @brief Pad, finish and write the digest to @p out (32 bytes). */
void wren_sha256_final(struct wren_sha256 *c, uint8_t out[WREN_SHA256_LEN]);
/** @brief The digest of @p len bytes at @p data, in one call. */
void wren_sha256(const void *data, size_t len, uint8_t out[WREN_SHA256_LEN]);

#endif

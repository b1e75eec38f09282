/**
 * @file siphash.h
 * @brief SipHash-2-4 (Aumasson and Bernstein, 2012): a keyed 64-bit hash of
 *        short inputs, for values an attacker must not predict, such as TCP
 *        initial sequence numbers (RFC 6528). Pure; no state between calls.
 */
#ifndef WREN_CORE_SIPHASH_H
#define WREN_CORE_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

/** @brief SipHash-2-4 of @p len bytes at @p in under the 16-byte @p key. */
uint64_t wren_siphash24(const uint8_t key[16], const void *in, size_t len);

#endif

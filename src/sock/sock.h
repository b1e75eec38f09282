/**
 * @file sock.h
 * @brief What every sock API shares: timeout values and the ephemeral ports.
 */
#ifndef WREN_SOCK_SOCK_H
#define WREN_SOCK_SOCK_H

#include <stdint.h>

/** Timeout values: 0 = do not wait, WREN_SOCK_FOREVER = wait forever. */
#define WREN_SOCK_FOREVER UINT64_MAX
/** First ephemeral port (RFC 6335). */
#define WREN_SOCK_EPHEMERAL 49152

#endif

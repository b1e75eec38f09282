/* Compile-time size limits that only a 32-bit target can check: the
 * Cortex-M3 build compiles this file into the tcp image (it defines
 * nothing, so it adds no byte). The host tests cannot: on x86-64 pointers
 * and the timer are wider (tests/unit/tcp/test_tcp_loopback.c checks the
 * 64-bit bound; `./wren bench tcp_sizes` prints both). */
#include <assert.h>
#include <stdint.h>

#include "tcp/tcp.h"

static_assert(UINTPTR_MAX == 0xffffffffu, "this check is for 32-bit targets");

/* issue #6: a connection's protocol state in at most 256 bytes on a 32-bit MCU */
static_assert(sizeof(struct wren_tcp_conn) <= 256, "struct wren_tcp_conn over 256 bytes");

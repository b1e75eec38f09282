/**
 * @file fuzz_lorawan.c
 * @brief libFuzzer target for the LoRaWAN data frame parser (wire/lorawan.h).
 *
 * Parse; if it parses, emit again and require the same bytes; open it
 * (MIC check) with fixed keys, which must fail or decrypt in place without
 * touching more than the payload; seal the parsed frame and parse that.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire/lorawan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        if (!(cond))                                                                               \
            abort();                                                                               \
    } while (0)

static const uint8_t key[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct wren_lorawan_frame f, g;
    static uint8_t buf[512], copy[512];
    int rc = wren_lorawan_parse(data, size, &f);
    REQUIRE(rc <= 0 && rc >= -LORAWAN_ERR_FOPTS_PORT0);
    if (rc != 0 || size > sizeof(buf)) {
        return 0;
    }
    REQUIRE(wren_lorawan_len(&f) == size);
    REQUIRE(f.payload_len == 0 || (f.payload >= data && f.payload + f.payload_len <= data + size));
    REQUIRE(wren_lorawan_emit(&f, buf, size - 1) == -LORAWAN_ERR_NOBUFS);
    /* emit restores the bytes: the MHDR's RFU bits are not kept */
    REQUIRE(wren_lorawan_emit(&f, buf, sizeof(buf)) == (int)size);
    REQUIRE(memcmp(buf + 1, data + 1, size - 1) == 0 && (buf[0] & 0xe3) == (data[0] & 0xe3));
    memcpy(copy, data, size);
    if (wren_lorawan_open(&f, key, key, f.fcnt, copy, size) == 0) {
        size_t off = size - LORAWAN_MIC_LEN - f.payload_len;
        REQUIRE(memcmp(copy, data, off) == 0);
    }
    REQUIRE(wren_lorawan_parse(buf, size, &g) == 0);
    int n = wren_lorawan_seal(&g, key, key, g.fcnt, copy, sizeof(copy));
    REQUIRE(n == (int)size);
    REQUIRE(wren_lorawan_parse(copy, (size_t)n, &g) == 0);
    REQUIRE(wren_lorawan_open(&g, key, key, g.fcnt, copy, (size_t)n) == 0);
    return 0;
}

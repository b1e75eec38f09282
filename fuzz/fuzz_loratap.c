/**
 * @file fuzz_loratap.c
 * @brief libFuzzer target for the LoRaTap header parser (src/wire/loratap.h).
 *
 * Parse the input; if it parses, emit the header as version 0, parse that
 * again and require every field but version and length to round-trip, and
 * the emitted bytes to equal the input's where version 0 defines them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire/loratap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        if (!(cond))                                                                               \
            abort();                                                                               \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct loratap_hdr h, g;
    uint8_t buf[LORATAP_V0_LEN];
    int rc = wren_loratap_parse(data, size, &h);
    REQUIRE(rc < 0 ? rc >= -LORATAP_ERR_SF : (size_t)rc <= size && rc >= (int)LORATAP_V0_LEN);
    if (rc < 0) {
        return 0;
    }
    REQUIRE(wren_loratap_emit(&h, buf, sizeof(buf) - 1) == -LORATAP_ERR_NOBUFS);
    REQUIRE(wren_loratap_emit(&h, buf, sizeof(buf)) == (int)LORATAP_V0_LEN);
    REQUIRE(wren_loratap_parse(buf, sizeof(buf), &g) == (int)LORATAP_V0_LEN);
    REQUIRE(g.version == 0 && g.len == LORATAP_V0_LEN);
    REQUIRE(g.freq_hz == h.freq_hz && g.bw_steps == h.bw_steps && g.sf == h.sf &&
            g.packet_rssi == h.packet_rssi && g.max_rssi == h.max_rssi &&
            g.current_rssi == h.current_rssi && g.snr_qdb == h.snr_qdb &&
            g.sync_word == h.sync_word);
    REQUIRE(memcmp(buf + 4, data + 4, LORATAP_V0_LEN - 4) == 0);
    return 0;
}

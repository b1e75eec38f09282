/**
 * @file fuzz_zep.c
 * @brief libFuzzer target for the ZEP v2 parser (and the Ethernet header).
 *
 * Parse the input; if it parses, emit the header (and copy the PSDU behind
 * it), parse that again and require every field to round-trip. The same
 * input also goes through the Ethernet header parser and back.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire/ethernet.h"
#include "wire/zep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        if (!(cond))                                                                               \
            abort();                                                                               \
    } while (0)

static void fuzz_eth(const uint8_t *data, size_t size)
{
    struct eth_hdr h, g;
    uint8_t out[ETH_HDR_LEN];
    int rc = wren_eth_hdr_parse(data, size, &h);
    REQUIRE(rc == 0 || rc == -ETH_ERR_TRUNCATED || rc == -ETH_ERR_LENGTH);
    REQUIRE((rc == -ETH_ERR_TRUNCATED) == (size < ETH_HDR_LEN));
    if (rc != 0) {
        return;
    }
    wren_eth_hdr_emit(&h, out);
    REQUIRE(memcmp(out, data, ETH_HDR_LEN) == 0);
    REQUIRE(wren_eth_hdr_parse(out, sizeof(out), &g) == 0);
    REQUIRE(memcmp(&g, &h, sizeof(g)) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct zep_frame f, g;
    uint8_t buf[ZEP_V2_HDR_LEN + ZEP_MAX_PSDU];

    fuzz_eth(data, size);
    int rc = wren_zep_parse(data, size, &f);
    REQUIRE(rc <= 0 && rc >= -ZEP_ERR_NOBUFS && rc != -ZEP_ERR_NOBUFS);
    if (rc != 0) {
        return 0;
    }
    size_t hl = wren_zep_hdr_len(&f.hdr);
    REQUIRE(hl <= size);
    if (f.hdr.type == ZEP_TYPE_DATA) {
        REQUIRE(f.psdu == data + ZEP_V2_HDR_LEN && hl + f.hdr.len <= size);
    } else {
        REQUIRE(f.psdu == NULL);
    }
    REQUIRE(wren_zep_emit(&f.hdr, buf, hl - 1) == -ZEP_ERR_NOBUFS);
    REQUIRE(wren_zep_emit(&f.hdr, buf, sizeof(buf)) == (int)hl);
    size_t n = hl;
    if (f.psdu) {
        memcpy(buf + hl, f.psdu, f.hdr.len);
        n += f.hdr.len;
    }
    REQUIRE(wren_zep_parse(buf, n, &g) == 0);
    REQUIRE(memcmp(&g.hdr, &f.hdr, sizeof(g.hdr)) == 0);
    if (f.psdu) {
        REQUIRE(memcmp(g.psdu, f.psdu, f.hdr.len) == 0);
    }
    /* the emitted header equals the input's but for the reserved bytes */
    if (f.hdr.type == ZEP_TYPE_DATA) {
        REQUIRE(memcmp(buf, data, 21) == 0 && buf[31] == data[31]);
    } else {
        REQUIRE(memcmp(buf, data, ZEP_V2_ACK_LEN) == 0);
    }
    return 0;
}

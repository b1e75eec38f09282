/**
 * @file fuzz_sixlowpan_frag.c
 * @brief libFuzzer target for the 6LoWPAN dispatch and fragment headers.
 *
 * Classify the first byte; parse a FRAG1/FRAGN header; if it parses, emit
 * it (exact-size buffer; one byte less fails and writes nothing), require
 * the emitted bytes to equal the input's header bytes and to parse to the
 * same fields. A FRAG1 whose payload is IPHC has that decoded too, as the
 * adaptation layer would.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire/sixlowpan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        if (!(cond))                                                                               \
            abort();                                                                               \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint8_t l2s[8] = {0x00, 0x12, 0x4b, 0x00, 0x01, 0x02, 0x03, 0x04};
    static const uint8_t l2d[2] = {0xab, 0xcd};
    struct sixlowpan_l2 l2 = {l2s, 8, l2d, 2};
    struct sixlowpan_frag f, g;
    struct sixlowpan_iphc h;
    uint8_t b[SIXLOWPAN_FRAGN_LEN + 1];
    int rc, n;

    if (size == 0) {
        REQUIRE(wren_sixlowpan_frag_parse(data, size, &f) == -SIXLOWPAN_ERR_TRUNCATED);
        return 0;
    }
    enum wren_sixlowpan_dispatch d = wren_sixlowpan_dispatch(data[0]);
    rc = wren_sixlowpan_frag_parse(data, size, &f);
    REQUIRE(rc == 4 || rc == 5 || (rc < 0 && rc >= -SIXLOWPAN_ERR_NOBUFS));
    REQUIRE((rc == -SIXLOWPAN_ERR_DISPATCH) ==
            (d != SIXLOWPAN_DISPATCH_FRAG1 && d != SIXLOWPAN_DISPATCH_FRAGN));
    if (rc < 0)
        return 0;
    REQUIRE((size_t)rc == wren_sixlowpan_frag_len(&f) && (size_t)rc <= size);
    REQUIRE(f.first == (d == SIXLOWPAN_DISPATCH_FRAG1));
    REQUIRE(f.size >= 40 && f.size <= SIXLOWPAN_FRAG_MAX_SIZE);
    REQUIRE(f.offset % 8 == 0 && f.offset <= 2040 && (!f.first || f.offset == 0));

    memset(b, 0x5a, sizeof(b));
    REQUIRE(wren_sixlowpan_frag_emit(&f, b, (size_t)rc - 1) == -SIXLOWPAN_ERR_NOBUFS);
    REQUIRE(b[0] == 0x5a);
    n = wren_sixlowpan_frag_emit(&f, b, sizeof(b));
    REQUIRE(n == rc);
    REQUIRE(memcmp(b, data, (size_t)n) == 0);
    REQUIRE(wren_sixlowpan_frag_parse(b, (size_t)n, &g) == n);
    REQUIRE(g.first == f.first && g.size == f.size && g.tag == f.tag && g.offset == f.offset);

    if (f.first && size > (size_t)rc && wren_sixlowpan_dispatch(data[rc]) == SIXLOWPAN_DISPATCH_IPHC) {
        rc = wren_sixlowpan_iphc_parse(data + rc, size - (size_t)rc, &l2, NULL, &h);
        REQUIRE(rc <= 0 && rc >= -SIXLOWPAN_ERR_NOBUFS);
    }
    return 0;
}

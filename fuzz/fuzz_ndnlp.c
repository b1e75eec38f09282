/**
 * @file fuzz_ndnlp.c
 * @brief libFuzzer target for the NDNLPv2 LpPacket codec and fragmenter.
 *
 * Parse the input; if it parses, emit it (exactly wren_ndnlp_len bytes; one
 * less fails and writes nothing), parse that again and require the same
 * fields and Fragment. Then cut the input, as a network packet, into pieces
 * for an MTU taken from its first byte: every piece must fit, parse, carry
 * consecutive Sequences and its FragIndex/FragCount, and the pieces in
 * order must give the input back.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ndn/ndnlp_frag.h"
#include "wire/ndnlp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        if (!(cond))                                                                               \
            abort();                                                                               \
    } while (0)

static uint8_t out[70000];

static void roundtrip(const uint8_t *data, size_t size)
{
    struct ndnlp_pkt p, q;
    int rc = wren_ndnlp_parse(data, size, &p);
    REQUIRE(rc > 0 || (rc < 0 && rc >= -NDNLP_ERR_FRAG));
    if (rc < 0) {
        return;
    }
    REQUIRE((size_t)rc <= size);
    REQUIRE(p.frag_len == 0 || (p.frag >= data && p.frag + p.frag_len <= data + rc));
    REQUIRE(p.frag_index < p.frag_count && (p.frag_count == 1 || p.seq_len > 0));
    size_t n = wren_ndnlp_len(&p);
    if (n > sizeof(out)) {
        return;
    }
    memset(out, 0x5a, 4);
    REQUIRE(wren_ndnlp_emit(&p, out, n - 1) == -NDNLP_ERR_NOBUFS && out[0] == 0x5a);
    REQUIRE(wren_ndnlp_emit(&p, out, n) == (int)n);
    REQUIRE(wren_ndnlp_parse(out, n, &q) == (int)n);
    REQUIRE(q.seq == p.seq && q.seq_len == (p.seq_len ? NDNLP_SEQ_LEN : 0));
    REQUIRE(q.frag_index == p.frag_index && q.frag_count == p.frag_count);
    REQUIRE(q.has_nack == p.has_nack && q.nack_reason == p.nack_reason && q.ignored == 0);
    REQUIRE(q.frag_len == p.frag_len && (!p.frag_len || memcmp(q.frag, p.frag, p.frag_len) == 0));
}

static void cut(const uint8_t *data, size_t size)
{
    static struct wren_ndnlp_frag f;
    struct ndnlp_frag_plan plan;
    size_t mtu = size ? 16u + data[0] : 16u;
    wren_ndnlp_frag_init(&f, NULL, 0xfffffffffffffff0u); /* Sequence wraps */
    int rc = wren_ndnlp_frag_plan(&f, size, mtu, &plan);
    REQUIRE(rc == 0 || rc == -EMSGSIZE);
    if (rc < 0 || plan.count == 1) {
        REQUIRE(rc < 0 || size <= mtu);
        return;
    }
    size_t at = 0;
    for (unsigned i = 0; i < plan.count; i++) {
        uint8_t b[16 + 255];
        struct ndnlp_pkt p;
        int n = wren_ndnlp_frag_emit(&plan, data, i, b, mtu);
        REQUIRE(n > 0 && (size_t)n <= mtu);
        REQUIRE(wren_ndnlp_parse(b, (size_t)n, &p) == n);
        REQUIRE(p.seq == plan.seq + i && p.frag_index == i && p.frag_count == plan.count);
        REQUIRE(p.frag_len > 0 && at + p.frag_len <= size);
        REQUIRE(memcmp(p.frag, data + at, p.frag_len) == 0);
        at += p.frag_len;
    }
    REQUIRE(at == size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    roundtrip(data, size);
    cut(data, size);
    return 0;
}

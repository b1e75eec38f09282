/**
 * @file fuzz_ndn_tlv.c
 * @brief libFuzzer target for the NDN TLV codec (wire/ndn_tlv.h).
 *
 * The input is parsed as an Interest and as a Data. What parses is emitted
 * again (exactly wren_ndn_*_len() octets), and the emitted packet must
 * parse to the same fields; its Name must print and read back. The same
 * input is also read as a Name's value and as a URI.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire/ndn_tlv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        if (!(cond))                                                                               \
            abort();                                                                               \
    } while (0)

static uint8_t out[70000];

static void same_name(const struct ndn_name *a, const struct ndn_name *b)
{
    REQUIRE(wren_ndn_name_eq(a, b) && a->ncomp == b->ncomp && a->params_idx == b->params_idx);
}

static void fuzz_interest(const uint8_t *data, size_t size)
{
    struct ndn_interest a, b;
    if (wren_ndn_interest_parse(data, size, &a) < 0) {
        return;
    }
    size_t n = wren_ndn_interest_len(&a);
    REQUIRE(n <= size); /* skipped unknown elements are not emitted */
    REQUIRE(wren_ndn_interest_emit(&a, out, n) == (int)n);
    REQUIRE(wren_ndn_interest_parse(out, n, &b) == 0);
    same_name(&a.name, &b.name);
    REQUIRE(a.nonce == b.nonce && a.has_nonce == b.has_nonce && a.lifetime_ms == b.lifetime_ms);
    REQUIRE(a.hop_limit == b.hop_limit && a.params_len == b.params_len);
    REQUIRE(a.can_be_prefix == b.can_be_prefix && a.must_be_fresh == b.must_be_fresh);
}

static void fuzz_data(const uint8_t *data, size_t size)
{
    struct ndn_data a, b;
    if (wren_ndn_data_parse(data, size, &a) < 0) {
        return;
    }
    /* a Data answers its own name, and its parent's with CanBePrefix */
    struct ndn_name parent = wren_ndn_name_parent(&a.name);
    REQUIRE(wren_ndn_data_answers(&a.name, false, &a, data, size));
    REQUIRE(wren_ndn_data_answers(&parent, true, &a, data, size));
    if (a.sig_type == NDN_SIG_DIGEST_SHA256) {
        a.sig_value = NULL; /* the emitter signs again (what it emits differs if
                               unknown elements were skipped) */
    }
    size_t n = wren_ndn_data_len(&a);
    REQUIRE(wren_ndn_data_emit(&a, out, n) == (int)n);
    REQUIRE(wren_ndn_data_parse(out, n, &b) == 0);
    same_name(&a.name, &b.name);
    REQUIRE(a.content_len == b.content_len && a.freshness_ms == b.freshness_ms);
    REQUIRE(a.content_type == b.content_type && a.sig_type == b.sig_type);
}

static void fuzz_name(const uint8_t *data, size_t size)
{
    struct ndn_name a, b;
    char uri[4096];
    static uint8_t back[70000];
    if (wren_ndn_name_parse(data, size, &a) < 0) {
        return;
    }
    size_t n = wren_ndn_name_to_uri(&a, uri, sizeof(uri));
    int m = wren_ndn_name_from_uri(uri, back, sizeof(back));
    if (n + 1 < sizeof(uri) && m >= 0 && wren_ndn_name_parse(back, (size_t)m, &b) == 0) {
        /* components over 255 octets are not read back from a URI */
        REQUIRE(b.ncomp <= a.ncomp);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_interest(data, size);
    fuzz_data(data, size);
    fuzz_name(data, size);
    char uri[512];
    size_t n = size < sizeof(uri) - 1 ? size : sizeof(uri) - 1;
    memcpy(uri, data, n);
    uri[n] = 0;
    (void)wren_ndn_name_from_uri(uri, out, 512);
    return 0;
}

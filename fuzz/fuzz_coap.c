/**
 * @file fuzz_coap.c
 * @brief libFuzzer target for the CoAP message and option parser, the
 *        builder, block values and observe freshness.
 *
 * The input is one CoAP message, parsed from an exact-size copy (ASan
 * bounds). A message that parses is rebuilt option by option with the
 * builder and emitted whole: both give the input's bytes exactly (the
 * option encoding is unique). The error of one that does not is the one its
 * bytes call for (checked for the header; any option error otherwise), and
 * the header fields are filled whenever there were 4 bytes of version 1.
 * Block values and observe numbers are checked on words of the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/byteorder.h"
#include "wire/coap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        if (!(cond))                                                                               \
            abort();                                                                               \
    } while (0)

static void check_rebuild(const uint8_t *data, size_t size, const struct coap_msg *m)
{
    uint8_t *out = malloc(size);
    REQUIRE(out);
    /* one short fails, exactly enough succeeds */
    REQUIRE(wren_coap_len(m) == size);
    REQUIRE(wren_coap_emit(m, out, size - 1) == -COAP_ERR_NOBUFS);
    REQUIRE(wren_coap_emit(m, out, size) == (int)size);
    REQUIRE(memcmp(out, data, size) == 0);

    struct coap_builder b;
    memset(out, 0, size);
    wren_coap_build_init(&b, out, size, m->type, m->code, m->mid, m->token, m->tkl);
    struct coap_opt_iter it;
    struct coap_opt o;
    int rc;
    uint32_t last = 0;
    wren_coap_opt_iter_init(&it, m);
    while ((rc = wren_coap_opt_next(&it, &o)) > 0) {
        REQUIRE(o.num >= last);
        last = o.num;
        REQUIRE(o.val >= m->opts && o.val + o.len <= m->opts + m->opts_len);
        wren_coap_build_opt(&b, o.num, o.val, o.len);
        uint32_t v;
        if (wren_coap_opt_uint(&o, &v) == 0) {
            REQUIRE(o.len <= 4);
            struct coap_block blk;
            if (wren_coap_block_decode(v, &blk) == 0) {
                REQUIRE(blk.num <= COAP_BLOCK_NUM_MAX && blk.szx < 7);
                REQUIRE(wren_coap_block_encode(&blk) == (int32_t)v);
            }
        } else {
            REQUIRE(o.len > 4);
        }
        (void)wren_coap_opt_known(o.num, o.len);
        /* find answers the first of a number */
        struct coap_opt f;
        REQUIRE(wren_coap_opt_find(m, o.num, &f) == 1 && f.num == o.num && f.val <= o.val);
    }
    REQUIRE(rc == 0);
    REQUIRE(wren_coap_opts_check(m->opts, m->opts_len) == 0);
    wren_coap_build_payload(&b, m->payload, m->payload_len);
    REQUIRE(wren_coap_build_end(&b) == (int)size);
    REQUIRE(memcmp(out, data, size) == 0);
    /* and into one byte less, the builder says so */
    wren_coap_build_init(&b, out, size - 1, m->type, m->code, m->mid, m->token, m->tkl);
    wren_coap_opt_iter_init(&it, m);
    while (wren_coap_opt_next(&it, &o) > 0)
        wren_coap_build_opt(&b, o.num, o.val, o.len);
    wren_coap_build_payload(&b, m->payload, m->payload_len);
    REQUIRE(wren_coap_build_end(&b) == -COAP_ERR_NOBUFS);
    free(out);
}

static void check_words(const uint8_t *d, size_t size)
{
    if (size < 16)
        return;
    uint32_t a = get_be32(d), b = get_be32(d + 4);
    uint64_t ta = get_be32(d + 8), tb = get_be32(d + 12);
    struct coap_block blk;
    if (wren_coap_block_decode(a & 0xffffff, &blk) == 0)
        REQUIRE(wren_coap_block_encode(&blk) == (int32_t)(a & 0xffffff));
    else
        REQUIRE((a & 7) == 7);
    /* never both newer than the other at the same time */
    REQUIRE(!(wren_coap_observe_fresher(a, ta, b, ta) && wren_coap_observe_fresher(b, ta, a, ta)));
    if (tb > ta + 128000)
        REQUIRE(wren_coap_observe_fresher(a, ta, b, tb));
    (void)tb;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *c = malloc(size ? size : 1);
    REQUIRE(c);
    if (size)
        memcpy(c, data, size);
    struct coap_msg m;
    int rc = wren_coap_parse(c, size, &m);
    check_words(data, size);
    if (size < COAP_HDR_LEN) {
        REQUIRE(rc == -COAP_ERR_TRUNCATED);
        goto out;
    }
    if ((data[0] >> 6) != 1) {
        REQUIRE(rc == -COAP_ERR_VERSION);
        goto out;
    }
    REQUIRE(m.type == ((data[0] >> 4) & 3) && m.code == data[1] && m.mid == get_be16(data + 2));
    unsigned tkl = data[0] & 15;
    if (tkl > 8) {
        REQUIRE(rc == -COAP_ERR_TKL);
        goto out;
    }
    if (data[1] == 0 && (tkl || size > 4)) {
        REQUIRE(rc == -COAP_ERR_EMPTY);
        goto out;
    }
    if (size - 4 < tkl) {
        REQUIRE(rc == -COAP_ERR_OPT_TRUNC);
        goto out;
    }
    if (rc < 0) {
        REQUIRE(rc == -COAP_ERR_OPT_TRUNC || rc == -COAP_ERR_OPT_RESERVED ||
                rc == -COAP_ERR_OPT_NUM || rc == -COAP_ERR_NO_PAYLOAD);
        if (rc == -COAP_ERR_NO_PAYLOAD)
            REQUIRE(data[size - 1] == 0xff);
        goto out;
    }
    REQUIRE(m.tkl == tkl && memcmp(m.token, data + 4, tkl) == 0);
    REQUIRE(m.opts == c + 4 + tkl);
    if (m.payload) {
        REQUIRE(m.payload_len > 0 && m.payload[-1] == 0xff);
        REQUIRE(m.payload + m.payload_len == c + size);
    } else {
        REQUIRE(m.payload_len == 0 && 4 + tkl + m.opts_len == size);
    }
    check_rebuild(data, size, &m);
out:
    free(c);
    return 0;
}

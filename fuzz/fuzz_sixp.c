/**
 * @file fuzz_sixp.c
 * @brief libFuzzer target for 6P messages (wire/sixp.h).
 *
 * The input is parsed as a 6P message: on success emit writes back exactly
 * the input (reserved bits aside) into a buffer of exactly its length, and
 * refuses a buffer one byte short without writing; the cell lists lie inside
 * the input. A response or confirmation is then read as the answer to each
 * command: what parses emits to the same bytes. A parse error is one of the
 * documented codes, and where the header was read its fields are the input's.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire/sixp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        if (!(cond))                                                                               \
            abort();                                                                               \
    } while (0)

static void check_emit(const struct sixp_msg *m, const uint8_t *data, size_t size)
{
    int n = wren_sixp_len(m);
    REQUIRE(n == (int)size);
    uint8_t *out = malloc(size), *want = malloc(size);
    REQUIRE(out && want);
    memcpy(want, data, size);
    want[0] &= 0x3f; /* the reserved bits: emit writes 0 */
    if (m->type == SIXP_TYPE_REQUEST && m->code == SIXP_CMD_LIST)
        want[7] = 0; /* LIST's reserved byte */
    REQUIRE(wren_sixp_emit(m, out, size) == (int)size);
    REQUIRE(memcmp(out, want, size) == 0);
    memset(out, 0xa5, size);
    REQUIRE(wren_sixp_emit(m, out, size - 1) == -SIXP_ERR_NOBUFS);
    for (size_t i = 0; i < size - 1; i++)
        REQUIRE(out[i] == 0xa5);
    free(out);
    free(want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct sixp_msg m;
    int rc = wren_sixp_parse(data, size, &m);
    REQUIRE(rc <= 0 && rc >= -SIXP_ERR_LENGTH);
    if (size >= SIXP_HDR_LEN) {
        REQUIRE(m.version == (data[0] & 0x0f) && m.type == ((data[0] >> 4) & 3));
        REQUIRE(m.code == data[1] && m.sfid == data[2] && m.seqnum == data[3]);
    } else {
        REQUIRE(rc == -SIXP_ERR_TRUNCATED);
    }
    if (rc != 0)
        return 0;
    if (m.cells)
        REQUIRE(m.cells >= data + 4 && m.cells + (size_t)m.n_cells * 4 <= data + size);
    if (m.cand)
        REQUIRE(m.cand >= data + 4 && m.cand + (size_t)m.n_cand * 4 == data + size);
    check_emit(&m, data, size);
    if (m.type == SIXP_TYPE_REQUEST)
        return 0;
    for (uint8_t cmd = SIXP_CMD_ADD; cmd <= SIXP_CMD_CLEAR; cmd++) {
        struct sixp_msg r = m;
        rc = wren_sixp_body_parse(&r, cmd);
        REQUIRE(rc == 0 || rc == -SIXP_ERR_LENGTH);
        if (rc == 0) {
            if (r.cells)
                REQUIRE(r.cells + (size_t)r.n_cells * 4 == data + size);
            /* an error code's body is not read: emit writes none */
            if (r.code == SIXP_RC_SUCCESS || r.code == SIXP_RC_EOL)
                check_emit(&r, data, size);
            else
                REQUIRE(wren_sixp_len(&r) == SIXP_HDR_LEN);
        }
    }
    return 0;
}

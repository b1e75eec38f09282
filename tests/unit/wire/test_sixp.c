/**
 * @file test_sixp.c
 * @brief 6P messages (RFC 8480 3.2-3.3): every command's request, responses
 *        read by command, every truncation, bad versions/types/codes, emit
 *        round trips. The ADD request below is the one tests/py/test_sixtop.py
 *        has tshark dissect (wpan.6top_* fields).
 */
#include "test.h"
#include "wire/sixp.h"

/* ADD request, SFID 0 (MSF), SeqNum 7, metadata 0x0102, TX, 1 cell wanted,
 * candidates (5, 3) and (300, 15) */
static const uint8_t add_req[] = {0x00, 0x01, 0x00, 0x07, 0x02, 0x01, 0x01, 0x01,
                                  0x05, 0x00, 0x03, 0x00, 0x2c, 0x01, 0x0f, 0x00};

TEST(test_sixp_parse__add_request)
{
    struct sixp_msg m;
    CHECK_EQ(wren_sixp_parse(add_req, sizeof(add_req), &m), 0);
    CHECK_EQ(m.version, 0);
    CHECK_EQ(m.type, SIXP_TYPE_REQUEST);
    CHECK_EQ(m.code, SIXP_CMD_ADD);
    CHECK_EQ(m.sfid, 0);
    CHECK_EQ(m.seqnum, 7);
    CHECK_EQ(m.metadata, 0x0102);
    CHECK_EQ(m.cell_options, SIXP_CELL_TX);
    CHECK_EQ(m.num_cells, 1);
    CHECK_EQ(m.n_cells, 2);
    struct sixp_cell c = wren_sixp_cell_get(m.cells, 1);
    CHECK_EQ(c.slot_offset, 300);
    CHECK_EQ(c.channel_offset, 15);
    CHECK_EQ(wren_sixp_cell_get(m.cells, 0).slot_offset, 5);

    uint8_t out[sizeof(add_req)];
    CHECK_EQ(wren_sixp_len(&m), (int)sizeof(add_req));
    CHECK_EQ(wren_sixp_emit(&m, out, sizeof(out)), (int)sizeof(add_req));
    CHECK_MEM(out, add_req, sizeof(add_req));
    CHECK_EQ(wren_sixp_emit(&m, out, sizeof(out) - 1), -SIXP_ERR_NOBUFS);
}

TEST(test_sixp_parse__every_request)
{
    /* RELOCATE: NumCells 1, one relocation cell, two candidates */
    static const uint8_t reloc[] = {0x00, 0x03, 0x00, 0x01, 0x00, 0x00, 0x01, 0x01,
                                    0x0a, 0x00, 0x01, 0x00, 0x0b, 0x00, 0x02, 0x00,
                                    0x0c, 0x00, 0x03, 0x00};
    static const uint8_t count[] = {0x00, 0x04, 0x00, 0x02, 0x00, 0x00, 0x02};
    static const uint8_t list[] = {0x00, 0x05, 0x00, 0x03, 0x00, 0x00, 0x01, 0x00,
                                   0x05, 0x00, 0x10, 0x00};
    static const uint8_t signal[] = {0x00, 0x06, 0x00, 0x04, 0x00, 0x00, 'h', 'i'};
    static const uint8_t clear[] = {0x00, 0x07, 0x00, 0x00, 0x00, 0x00};
    struct sixp_msg m;
    uint8_t out[32];

    CHECK_EQ(wren_sixp_parse(reloc, sizeof(reloc), &m), 0);
    CHECK_EQ(m.n_cells, 1);
    CHECK_EQ(m.n_cand, 2);
    CHECK_EQ(wren_sixp_cell_get(m.cells, 0).slot_offset, 10);
    CHECK_EQ(wren_sixp_cell_get(m.cand, 1).slot_offset, 12);
    CHECK_EQ(wren_sixp_cell_get(m.cand, 1).channel_offset, 3);
    CHECK_EQ(wren_sixp_emit(&m, out, sizeof(out)), (int)sizeof(reloc));
    CHECK_MEM(out, reloc, sizeof(reloc));

    CHECK_EQ(wren_sixp_parse(count, sizeof(count), &m), 0);
    CHECK_EQ(m.cell_options, SIXP_CELL_RX);
    CHECK_EQ(wren_sixp_emit(&m, out, sizeof(out)), (int)sizeof(count));
    CHECK_MEM(out, count, sizeof(count));

    CHECK_EQ(wren_sixp_parse(list, sizeof(list), &m), 0);
    CHECK_EQ(m.offset, 5);
    CHECK_EQ(m.max_num_cells, 16);
    CHECK_EQ(wren_sixp_emit(&m, out, sizeof(out)), (int)sizeof(list));
    CHECK_MEM(out, list, sizeof(list));

    CHECK_EQ(wren_sixp_parse(signal, sizeof(signal), &m), 0);
    CHECK_EQ(m.body_len, 2); /* the payload after Metadata */
    CHECK_EQ(m.body[0], 'h');
    CHECK_EQ(wren_sixp_emit(&m, out, sizeof(out)), (int)sizeof(signal));
    CHECK_MEM(out, signal, sizeof(signal));

    CHECK_EQ(wren_sixp_parse(clear, sizeof(clear), &m), 0);
    CHECK_EQ(wren_sixp_emit(&m, out, sizeof(out)), (int)sizeof(clear));
    CHECK_MEM(out, clear, sizeof(clear));
}

TEST(test_sixp_body_parse__by_command)
{
    static const uint8_t add_resp[] = {0x10, 0x00, 0x00, 0x07, 0x05, 0x00, 0x03, 0x00};
    static const uint8_t count_resp[] = {0x10, 0x00, 0x00, 0x02, 0x2a, 0x01};
    static const uint8_t busy[] = {0x10, 0x08, 0x00, 0x09};
    static const uint8_t conf[] = {0x20, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x01, 0x00};
    struct sixp_msg m;
    uint8_t out[16];

    CHECK_EQ(wren_sixp_parse(add_resp, sizeof(add_resp), &m), 0);
    CHECK_EQ(m.type, SIXP_TYPE_RESPONSE);
    CHECK_EQ(m.code, SIXP_RC_SUCCESS);
    CHECK_EQ(m.body_len, 4);
    CHECK_EQ(wren_sixp_body_parse(&m, SIXP_CMD_ADD), 0);
    CHECK_EQ(m.n_cells, 1);
    CHECK_EQ(wren_sixp_cell_get(m.cells, 0).channel_offset, 3);
    CHECK_EQ(wren_sixp_emit(&m, out, sizeof(out)), (int)sizeof(add_resp));
    CHECK_MEM(out, add_resp, sizeof(add_resp));
    /* the same body is no COUNT answer (2 bytes) and no CLEAR answer (none) */
    CHECK_EQ(wren_sixp_body_parse(&m, SIXP_CMD_COUNT), -SIXP_ERR_LENGTH);
    CHECK_EQ(wren_sixp_body_parse(&m, SIXP_CMD_CLEAR), -SIXP_ERR_LENGTH);
    CHECK_EQ(wren_sixp_body_parse(&m, 0), -SIXP_ERR_CMD);
    CHECK_EQ(wren_sixp_body_parse(&m, 8), -SIXP_ERR_CMD);

    CHECK_EQ(wren_sixp_parse(count_resp, sizeof(count_resp), &m), 0);
    CHECK_EQ(wren_sixp_body_parse(&m, SIXP_CMD_COUNT), 0);
    CHECK_EQ(m.total, 0x012a);
    CHECK_EQ(wren_sixp_emit(&m, out, sizeof(out)), (int)sizeof(count_resp));
    CHECK_MEM(out, count_resp, sizeof(count_resp));
    /* a cell list of 2 bytes is broken */
    CHECK_EQ(wren_sixp_body_parse(&m, SIXP_CMD_LIST), -SIXP_ERR_LENGTH);

    CHECK_EQ(wren_sixp_parse(busy, sizeof(busy), &m), 0);
    CHECK_EQ(m.code, SIXP_RC_ERR_BUSY);
    CHECK_EQ(wren_sixp_body_parse(&m, SIXP_CMD_ADD), 0);
    CHECK_EQ(m.n_cells, 0);
    CHECK_EQ(wren_sixp_emit(&m, out, sizeof(out)), 4);
    CHECK_MEM(out, busy, sizeof(busy));

    CHECK_EQ(wren_sixp_parse(conf, sizeof(conf), &m), 0);
    CHECK_EQ(m.type, SIXP_TYPE_CONFIRMATION);
    CHECK_EQ(wren_sixp_body_parse(&m, SIXP_CMD_ADD), 0);
    CHECK_EQ(m.n_cells, 1);
}

TEST(test_sixp_parse__every_truncation)
{
    struct sixp_msg m;
    for (size_t n = 0; n < SIXP_HDR_LEN; n++) {
        CHECK_EQ(wren_sixp_parse(add_req, n, &m), -SIXP_ERR_TRUNCATED);
    }
    /* the header and part of the fixed body */
    for (size_t n = SIXP_HDR_LEN; n < 8; n++) {
        CHECK_EQ(wren_sixp_parse(add_req, n, &m), -SIXP_ERR_TRUNCATED);
        CHECK_EQ(m.seqnum, 7); /* the header is there to answer */
    }
    /* a cell list cut mid-cell */
    for (size_t n = 9; n < sizeof(add_req); n++) {
        CHECK_EQ(wren_sixp_parse(add_req, n, &m), n % 4 ? -SIXP_ERR_LENGTH : 0);
    }
}

TEST(test_sixp_parse__bad_fields)
{
    struct sixp_msg m;
    uint8_t b[sizeof(add_req)];

    memcpy(b, add_req, sizeof(b));
    b[0] = 0x01; /* version 1 */
    CHECK_EQ(wren_sixp_parse(b, sizeof(b), &m), -SIXP_ERR_VERSION);
    CHECK_EQ(m.version, 1);
    CHECK_EQ(m.code, SIXP_CMD_ADD);
    CHECK_EQ(m.seqnum, 7);

    b[0] = 0x30; /* type 3 */
    CHECK_EQ(wren_sixp_parse(b, sizeof(b), &m), -SIXP_ERR_TYPE);
    b[0] = 0xc0; /* the reserved bits are ignored */
    CHECK_EQ(wren_sixp_parse(b, sizeof(b), &m), 0);

    b[0] = 0x00;
    for (unsigned code = 0; code < 256; code++) {
        b[1] = (uint8_t)code;
        int rc = wren_sixp_parse(b, 4, &m);
        if (code >= SIXP_CMD_ADD && code <= SIXP_CMD_CLEAR) {
            CHECK_EQ(rc, -SIXP_ERR_TRUNCATED);
        } else {
            CHECK_EQ(rc, -SIXP_ERR_CMD);
            CHECK_EQ(m.code, code);
        }
    }
    b[0] = 0x10;
    for (unsigned code = 0; code < 256; code++) {
        b[1] = (uint8_t)code;
        CHECK_EQ(wren_sixp_parse(b, 4, &m), code < SIXP_RC_NUMOF ? 0 : -SIXP_ERR_RC);
    }

    /* fixed-size bodies with a byte too many; RELOCATE with fewer cells than NumCells */
    static const uint8_t count_long[] = {0x00, 0x04, 0x00, 0x02, 0x00, 0x00, 0x02, 0xff};
    static const uint8_t clear_long[] = {0x00, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00};
    static const uint8_t reloc_short[] = {0x00, 0x03, 0x00, 0x01, 0x00, 0x00, 0x01, 0x02,
                                          0x0a, 0x00, 0x01, 0x00};
    CHECK_EQ(wren_sixp_parse(count_long, sizeof(count_long), &m), -SIXP_ERR_LENGTH);
    CHECK_EQ(wren_sixp_parse(clear_long, sizeof(clear_long), &m), -SIXP_ERR_LENGTH);
    CHECK_EQ(wren_sixp_parse(reloc_short, sizeof(reloc_short), &m), -SIXP_ERR_LENGTH);
}

/* A response's body is its command's (RFC 8480 3.3): the request-only
 * members (NumCells, the candidates) are not read, whatever they hold */
TEST(test_sixp_emit__response_body_by_command)
{
    static const uint8_t cell[4] = {0x05, 0x00, 0x03, 0x00};
    static const uint8_t reloc_resp[] = {0x10, 0x00, 0x00, 0x04, 0x05, 0x00, 0x03, 0x00};
    static const uint8_t list_eol[] = {0x10, 0x01, 0x00, 0x04, 0x05, 0x00, 0x03, 0x00};
    static const uint8_t signal_resp[] = {0x10, 0x00, 0x00, 0x04, 0x05, 0x00};
    static const uint8_t reloc_err[] = {0x10, 0x07, 0x00, 0x04};
    uint8_t out[32], cand[12] = {0};
    struct sixp_msg m = {.type = SIXP_TYPE_RESPONSE, .code = SIXP_RC_SUCCESS, .seqnum = 4,
                         .resp_cmd = SIXP_CMD_RELOCATE, .num_cells = 2, .cells = cell,
                         .n_cells = 1, .cand = cand, .n_cand = 3};
    CHECK_EQ(wren_sixp_len(&m), (int)sizeof(reloc_resp));
    CHECK_EQ(wren_sixp_emit(&m, out, sizeof(out)), (int)sizeof(reloc_resp));
    CHECK_MEM(out, reloc_resp, sizeof(reloc_resp));
    m.code = SIXP_RC_ERR_CELLLIST;
    CHECK_EQ(wren_sixp_emit(&m, out, sizeof(out)), (int)sizeof(reloc_err));
    CHECK_MEM(out, reloc_err, sizeof(reloc_err));
    m.code = SIXP_RC_EOL;
    m.resp_cmd = SIXP_CMD_LIST;
    CHECK_EQ(wren_sixp_emit(&m, out, sizeof(out)), (int)sizeof(list_eol));
    CHECK_MEM(out, list_eol, sizeof(list_eol));
    m.code = SIXP_RC_SUCCESS;
    m.resp_cmd = SIXP_CMD_SIGNAL;
    m.body = cell;
    m.body_len = 2;
    CHECK_EQ(wren_sixp_emit(&m, out, sizeof(out)), (int)sizeof(signal_resp));
    CHECK_MEM(out, signal_resp, sizeof(signal_resp));
}

TEST(test_sixp_emit__refuses_bad_messages)
{
    uint8_t out[32], cells[8] = {0};
    struct sixp_msg m = {.type = 3, .code = SIXP_CMD_ADD};
    CHECK_EQ(wren_sixp_emit(&m, out, sizeof(out)), -SIXP_ERR_INVAL);
    m.type = SIXP_TYPE_REQUEST;
    m.code = 9;
    CHECK_EQ(wren_sixp_len(&m), -SIXP_ERR_INVAL);
    m.code = SIXP_CMD_RELOCATE;
    m.num_cells = 2;
    m.cells = cells;
    m.n_cells = 1;
    CHECK_EQ(wren_sixp_emit(&m, out, sizeof(out)), -SIXP_ERR_INVAL);
    m.n_cells = 2;
    CHECK_EQ(wren_sixp_emit(&m, out, sizeof(out)), 16);
    /* nothing written when the buffer is short */
    memset(out, 0xa5, sizeof(out));
    CHECK_EQ(wren_sixp_emit(&m, out, 15), -SIXP_ERR_NOBUFS);
    for (size_t i = 0; i < sizeof(out); i++) {
        CHECK_EQ(out[i], 0xa5);
    }
    CHECK(strcmp(wren_sixp_rc_name(SIXP_RC_ERR_SEQNUM), "ERR_SEQNUM") == 0);
    CHECK(wren_sixp_rc_name(SIXP_RC_NUMOF) == NULL);
    CHECK(strcmp(wren_sixp_cmd_name(SIXP_CMD_CLEAR), "CLEAR") == 0);
    CHECK(wren_sixp_cmd_name(0) == NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sixp_parse__add_request),
        cmocka_unit_test(test_sixp_parse__every_request),
        cmocka_unit_test(test_sixp_body_parse__by_command),
        cmocka_unit_test(test_sixp_parse__every_truncation),
        cmocka_unit_test(test_sixp_parse__bad_fields),
        cmocka_unit_test(test_sixp_emit__response_body_by_command),
        cmocka_unit_test(test_sixp_emit__refuses_bad_messages),
    };
    return cmocka_run_group_tests_name("sixp", tests, NULL, NULL);
}

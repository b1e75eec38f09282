/**
 * @file test_coap.c
 * @brief CoAP wire format: parse, option iteration, builder, emit, block
 *        options and observe freshness. Valid vectors were encoded by
 *        aiocoap 0.4.17 (the call is above each one); malformed ones are
 *        those vectors cut or changed by hand (RFC 7252 3, 3.1).
 */
#include <stdlib.h>

#include "test.h"
#include "wire/coap.h"

/* Message(mtype=CON, code=GET, mid=0x1234, token=b"\x01\x02\x03\x04",
 *         uri_path=("sensors","temp"), uri_query=("a=1",)).encode() */
static const uint8_t v_get[] = { 0x44, 0x01, 0x12, 0x34, 0x01, 0x02, 0x03, 0x04, 0xb7,
                                 0x73, 0x65, 0x6e, 0x73, 0x6f, 0x72, 0x73, 0x04, 0x74,
                                 0x65, 0x6d, 0x70, 0x43, 0x61, 0x3d, 0x31 };

/* Message(mtype=ACK, code=CONTENT, mid=0x1234, token=b"\x01\x02\x03\x04", payload=b"22.5")
 * with content_format=0, max_age=60, etag=b"\xaa\xbb" */
static const uint8_t v_content[] = { 0x64, 0x45, 0x12, 0x34, 0x01, 0x02, 0x03, 0x04, 0x42, 0xaa,
                                     0xbb, 0x80, 0x21, 0x3c, 0xff, 0x32, 0x32, 0x2e, 0x35 };

/* Message(mtype=NON, code=PUT, mid=0xfffe, token=b"", payload=b"x") with
 * block1=(1000, True, 6), size1=16384, uri_path=("a"*20,): extended length
 * (13 + 7), extended deltas 16 and 33 */
static const uint8_t v_put[] = { 0x50, 0x03, 0xff, 0xfe, 0xbd, 0x07, 0x61, 0x61, 0x61,
                                 0x61, 0x61, 0x61, 0x61, 0x61, 0x61, 0x61, 0x61, 0x61,
                                 0x61, 0x61, 0x61, 0x61, 0x61, 0x61, 0x61, 0x61, 0xd2,
                                 0x03, 0x3e, 0x8e, 0xd2, 0x14, 0x40, 0x00, 0xff, 0x78 };

/* Message(mtype=CON, code=GET, mid=7, token=b"\xff"*8) with observe=0,
 * uri_path=(".well-known","core"), block2=(0, False, 2) */
static const uint8_t v_obs[] = { 0x48, 0x01, 0x00, 0x07, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                 0xff, 0x60, 0x5b, 0x2e, 0x77, 0x65, 0x6c, 0x6c, 0x2d, 0x6b, 0x6e,
                                 0x6f, 0x77, 0x6e, 0x04, 0x63, 0x6f, 0x72, 0x65, 0xc1, 0x02 };

static int parse_copy(const uint8_t *d, size_t n, struct coap_msg *m, uint8_t **keep)
{
    uint8_t *c = malloc(n ? n : 1);
    memcpy(c, d, n);
    *keep = c;
    return wren_coap_parse(c, n, m);
}

static void check_opt(struct coap_opt_iter *it, uint16_t num, const char *val, size_t len)
{
    struct coap_opt o;
    CHECK_EQ(wren_coap_opt_next(it, &o), 1);
    CHECK_EQ(o.num, num);
    CHECK_EQ(o.len, len);
    CHECK(memcmp(o.val, val, len) == 0);
}

TEST(test_parse__get_with_path_and_query)
{
    struct coap_msg m;
    uint8_t *c;
    CHECK_EQ(parse_copy(v_get, sizeof(v_get), &m, &c), 0);
    CHECK_EQ(m.type, COAP_CON);
    CHECK_EQ(m.code, COAP_CODE_GET);
    CHECK_EQ(m.mid, 0x1234);
    CHECK_EQ(m.tkl, 4);
    CHECK(memcmp(m.token, "\x01\x02\x03\x04", 4) == 0);
    CHECK(m.payload == NULL);
    CHECK_EQ(m.payload_len, 0);
    struct coap_opt_iter it;
    wren_coap_opt_iter_init(&it, &m);
    check_opt(&it, COAP_OPT_URI_PATH, "sensors", 7);
    check_opt(&it, COAP_OPT_URI_PATH, "temp", 4);
    check_opt(&it, COAP_OPT_URI_QUERY, "a=1", 3);
    struct coap_opt o;
    CHECK_EQ(wren_coap_opt_next(&it, &o), 0);
    CHECK_EQ(wren_coap_opt_find(&m, COAP_OPT_URI_QUERY, &o), 1);
    CHECK_EQ(o.len, 3);
    CHECK_EQ(wren_coap_opt_find(&m, COAP_OPT_ACCEPT, &o), 0);
    free(c);
}

TEST(test_parse__content_with_payload)
{
    struct coap_msg m;
    uint8_t *c;
    CHECK_EQ(parse_copy(v_content, sizeof(v_content), &m, &c), 0);
    CHECK_EQ(m.type, COAP_ACK);
    CHECK_EQ(m.code, COAP_CODE_CONTENT);
    CHECK_EQ(m.payload_len, 4);
    CHECK(memcmp(m.payload, "22.5", 4) == 0);
    struct coap_opt o;
    uint32_t v = 99;
    CHECK_EQ(wren_coap_opt_find(&m, COAP_OPT_CONTENT_FORMAT, &o), 1);
    CHECK_EQ(wren_coap_opt_uint(&o, &v), 0);
    CHECK_EQ(v, 0); /* empty uint is 0 */
    CHECK_EQ(wren_coap_opt_find(&m, COAP_OPT_MAX_AGE, &o), 1);
    CHECK_EQ(wren_coap_opt_uint(&o, &v), 0);
    CHECK_EQ(v, 60);
    CHECK_EQ(wren_coap_opt_find(&m, COAP_OPT_ETAG, &o), 1);
    CHECK_EQ(o.len, 2);
    free(c);
}

TEST(test_parse__extended_delta_and_length)
{
    struct coap_msg m;
    uint8_t *c;
    CHECK_EQ(parse_copy(v_put, sizeof(v_put), &m, &c), 0);
    CHECK_EQ(m.type, COAP_NON);
    CHECK_EQ(m.tkl, 0);
    CHECK_EQ(m.mid, 0xfffe);
    struct coap_opt_iter it;
    wren_coap_opt_iter_init(&it, &m);
    check_opt(&it, COAP_OPT_URI_PATH, "aaaaaaaaaaaaaaaaaaaa", 20);
    struct coap_opt o;
    uint32_t v;
    struct coap_block blk;
    CHECK_EQ(wren_coap_opt_next(&it, &o), 1);
    CHECK_EQ(o.num, COAP_OPT_BLOCK1);
    CHECK_EQ(wren_coap_opt_uint(&o, &v), 0);
    CHECK_EQ(wren_coap_block_decode(v, &blk), 0);
    CHECK_EQ(blk.num, 1000);
    CHECK_EQ(blk.more, 1);
    CHECK_EQ(blk.szx, 6);
    CHECK_EQ(COAP_BLOCK_SIZE(blk.szx), 1024);
    CHECK_EQ(wren_coap_opt_next(&it, &o), 1);
    CHECK_EQ(o.num, COAP_OPT_SIZE1);
    CHECK_EQ(wren_coap_opt_uint(&o, &v), 0);
    CHECK_EQ(v, 16384);
    CHECK_EQ(wren_coap_opt_next(&it, &o), 0);
    CHECK_EQ(m.payload_len, 1);
    free(c);
}

TEST(test_parse__observe_token8_block2)
{
    struct coap_msg m;
    uint8_t *c;
    CHECK_EQ(parse_copy(v_obs, sizeof(v_obs), &m, &c), 0);
    CHECK_EQ(m.tkl, 8);
    struct coap_opt o;
    uint32_t v = 5;
    CHECK_EQ(wren_coap_opt_find(&m, COAP_OPT_OBSERVE, &o), 1);
    CHECK_EQ(wren_coap_opt_uint(&o, &v), 0);
    CHECK_EQ(v, COAP_OBSERVE_REGISTER);
    struct coap_block blk;
    CHECK_EQ(wren_coap_opt_find(&m, COAP_OPT_BLOCK2, &o), 1);
    CHECK_EQ(wren_coap_opt_uint(&o, &v), 0);
    CHECK_EQ(wren_coap_block_decode(v, &blk), 0);
    CHECK_EQ(blk.num, 0);
    CHECK_EQ(blk.more, 0);
    CHECK_EQ(blk.szx, 2);
    free(c);
}

TEST(test_parse__proxy_uri_two_byte_length)
{
    uint8_t buf[400];
    struct coap_builder b;
    char uri[310];
    memset(uri, 'y', sizeof(uri));
    wren_coap_build_init(&b, buf, sizeof(buf), COAP_CON, COAP_CODE_GET, 8, NULL, 0);
    wren_coap_build_opt(&b, COAP_OPT_PROXY_URI, uri, 309);
    int n = wren_coap_build_end(&b);
    CHECK_EQ(n, 4 + 4 + 309);
    /* aiocoap encodes a 309-byte Proxy-Uri as de 16 00 28 */
    CHECK_EQ(buf[4], 0xde);
    CHECK_EQ(buf[5], 0x16);
    CHECK_EQ(buf[6], 0x00);
    CHECK_EQ(buf[7], 0x28);
    struct coap_msg m;
    CHECK_EQ(wren_coap_parse(buf, (size_t)n, &m), 0);
    struct coap_opt o;
    CHECK_EQ(wren_coap_opt_find(&m, COAP_OPT_PROXY_URI, &o), 1);
    CHECK_EQ(o.len, 309);
    CHECK(wren_coap_opt_known(COAP_OPT_PROXY_URI, 309));
}

TEST(test_parse__empty_messages)
{
    static const uint8_t ping[] = { 0x40, 0x00, 0xab, 0xcd };
    static const uint8_t rst[] = { 0x70, 0x00, 0x00, 0x01 };
    struct coap_msg m;
    CHECK_EQ(wren_coap_parse(ping, sizeof(ping), &m), 0);
    CHECK_EQ(m.type, COAP_CON);
    CHECK_EQ(m.code, COAP_CODE_EMPTY);
    CHECK_EQ(m.mid, 0xabcd);
    CHECK_EQ(wren_coap_parse(rst, sizeof(rst), &m), 0);
    CHECK_EQ(m.type, COAP_RST);
    /* RFC 7252 4.1: an empty message with a token or any byte after the header */
    static const uint8_t tok[] = { 0x41, 0x00, 0x00, 0x01, 0x55 };
    static const uint8_t extra[] = { 0x40, 0x00, 0x00, 0x01, 0xff, 0x01 };
    CHECK_EQ(wren_coap_parse(tok, sizeof(tok), &m), -COAP_ERR_EMPTY);
    CHECK_EQ(wren_coap_parse(extra, sizeof(extra), &m), -COAP_ERR_EMPTY);
    CHECK_EQ(m.mid, 1); /* the header is there to answer with a RST */
}

TEST(test_parse__header_errors)
{
    struct coap_msg m;
    for (size_t n = 0; n < COAP_HDR_LEN; n++) {
        CHECK_EQ(wren_coap_parse(v_get, n, &m), -COAP_ERR_TRUNCATED);
    }
    uint8_t b[sizeof(v_get)];
    memcpy(b, v_get, sizeof(b));
    b[0] = 0x04; /* version 0 */
    CHECK_EQ(wren_coap_parse(b, sizeof(b), &m), -COAP_ERR_VERSION);
    b[0] = 0x84; /* version 2 */
    CHECK_EQ(wren_coap_parse(b, sizeof(b), &m), -COAP_ERR_VERSION);
    for (uint8_t tkl = 9; tkl <= 15; tkl++) {
        b[0] = (uint8_t)(0x40 | tkl);
        CHECK_EQ(wren_coap_parse(b, sizeof(b), &m), -COAP_ERR_TKL);
        CHECK_EQ(m.mid, 0x1234);
        CHECK_EQ(m.type, COAP_CON);
    }
    /* a token running past the end */
    static const uint8_t shorttok[] = { 0x48, 0x01, 0x00, 0x01, 1, 2, 3 };
    CHECK_EQ(wren_coap_parse(shorttok, sizeof(shorttok), &m), -COAP_ERR_OPT_TRUNC);
}

TEST(test_parse__option_errors)
{
    struct coap_msg m;
    /* every cut of a message with extended options fails cleanly, except at
     * option boundaries (where the shorter message is valid) */
    uint8_t *c;
    int ok = 0;
    for (size_t n = COAP_HDR_LEN; n < sizeof(v_put); n++) {
        int rc = parse_copy(v_put, n, &m, &c);
        CHECK(rc == 0 || rc == -COAP_ERR_OPT_TRUNC || rc == -COAP_ERR_NO_PAYLOAD);
        ok += rc == 0;
        free(c);
    }
    CHECK_EQ(ok, 4); /* after the header, Uri-Path, Block1 and Size1 */
    /* nibble 15 as delta (not the marker) or as length */
    static const uint8_t d15[] = { 0x40, 0x01, 0x00, 0x01, 0xf1, 0x00 };
    static const uint8_t l15[] = { 0x40, 0x01, 0x00, 0x01, 0xbf, 0x00 };
    CHECK_EQ(wren_coap_parse(d15, sizeof(d15), &m), -COAP_ERR_OPT_RESERVED);
    CHECK_EQ(wren_coap_parse(l15, sizeof(l15), &m), -COAP_ERR_OPT_RESERVED);
    /* 13/14 without their extension bytes */
    static const uint8_t d13[] = { 0x40, 0x01, 0x00, 0x01, 0xd0 };
    static const uint8_t d14[] = { 0x40, 0x01, 0x00, 0x01, 0xe0, 0x01 };
    static const uint8_t l14[] = { 0x40, 0x01, 0x00, 0x01, 0x1e, 0x01 };
    CHECK_EQ(wren_coap_parse(d13, sizeof(d13), &m), -COAP_ERR_OPT_TRUNC);
    CHECK_EQ(wren_coap_parse(d14, sizeof(d14), &m), -COAP_ERR_OPT_TRUNC);
    CHECK_EQ(wren_coap_parse(l14, sizeof(l14), &m), -COAP_ERR_OPT_TRUNC);
    /* a length of 13 + 255 with a handful of bytes */
    static const uint8_t longval[] = { 0x40, 0x01, 0x00, 0x01, 0xbd, 0xff, 'a', 'b' };
    CHECK_EQ(wren_coap_parse(longval, sizeof(longval), &m), -COAP_ERR_OPT_TRUNC);
    /* option numbers summing past 65535: 269 + 65000, then 269 + 1000 */
    static const uint8_t big[] = { 0x40, 0x01, 0x00, 0x01, 0xe0, 0xfd, 0xe8, 0xe0, 0x03, 0xe8 };
    CHECK_EQ(wren_coap_parse(big, sizeof(big), &m), -COAP_ERR_OPT_NUM);
    CHECK_EQ(wren_coap_parse(big, 7, &m), 0); /* 65269 alone is a number */
    /* marker with nothing after it */
    static const uint8_t nopl[] = { 0x40, 0x01, 0x00, 0x01, 0xb1, 'x', 0xff };
    CHECK_EQ(wren_coap_parse(nopl, sizeof(nopl), &m), -COAP_ERR_NO_PAYLOAD);
    static const uint8_t nopl0[] = { 0x40, 0x01, 0x00, 0x01, 0xff };
    CHECK_EQ(wren_coap_parse(nopl0, sizeof(nopl0), &m), -COAP_ERR_NO_PAYLOAD);
    /* a bare option list with a marker in it */
    CHECK_EQ(wren_coap_opts_check(nopl + 4, 3), -COAP_ERR_OPT_RESERVED);
    CHECK_EQ(wren_coap_opts_check(nopl + 4, 2), 0);
}

TEST(test_opt_uint__lengths)
{
    struct coap_opt o = { .num = COAP_OPT_MAX_AGE, .len = 4, .val = (const uint8_t *)"\0\0\1\2" };
    uint32_t v;
    CHECK_EQ(wren_coap_opt_uint(&o, &v), 0);
    CHECK_EQ(v, 0x102); /* leading zeros are allowed on receipt */
    o.len = 5;
    o.val = (const uint8_t *)"\1\2\3\4\5";
    CHECK_EQ(wren_coap_opt_uint(&o, &v), -COAP_ERR_INVAL);
    CHECK_EQ(wren_coap_uint_len(0), 0);
    CHECK_EQ(wren_coap_uint_len(255), 1);
    CHECK_EQ(wren_coap_uint_len(256), 2);
    CHECK_EQ(wren_coap_uint_len(0xffffffffu), 4);
}

TEST(test_opt_known__ranges)
{
    CHECK(wren_coap_opt_known(COAP_OPT_URI_PATH, 0));
    CHECK(wren_coap_opt_known(COAP_OPT_URI_PATH, 255));
    CHECK(!wren_coap_opt_known(COAP_OPT_URI_PATH, 256));
    CHECK(!wren_coap_opt_known(COAP_OPT_URI_HOST, 0));
    CHECK(wren_coap_opt_known(COAP_OPT_IF_NONE_MATCH, 0));
    CHECK(!wren_coap_opt_known(COAP_OPT_IF_NONE_MATCH, 1));
    CHECK(!wren_coap_opt_known(COAP_OPT_CONTENT_FORMAT, 3));
    CHECK(!wren_coap_opt_known(COAP_OPT_ETAG, 0));
    CHECK(!wren_coap_opt_known(COAP_OPT_ETAG, 9));
    CHECK(wren_coap_opt_known(COAP_OPT_PROXY_URI, 1034));
    CHECK(!wren_coap_opt_known(COAP_OPT_PROXY_URI, 1035));
    CHECK(!wren_coap_opt_known(9, 0));   /* unassigned, critical */
    CHECK(!wren_coap_opt_known(2048, 0));
    CHECK(COAP_OPT_CRITICAL(COAP_OPT_URI_PATH));
    CHECK(!COAP_OPT_CRITICAL(COAP_OPT_MAX_AGE));
    CHECK(COAP_OPT_UNSAFE(COAP_OPT_URI_HOST));
    CHECK(COAP_OPT_NO_CACHE_KEY(COAP_OPT_SIZE1));
    CHECK(wren_coap_opt_repeatable(COAP_OPT_URI_QUERY));
    CHECK(!wren_coap_opt_repeatable(COAP_OPT_ACCEPT));
    CHECK(wren_coap_opt_repeatable(COAP_OPT_IF_MATCH));
    CHECK(wren_coap_opt_repeatable(COAP_OPT_ETAG));
    CHECK(!wren_coap_opt_repeatable(COAP_OPT_IF_NONE_MATCH));
    CHECK(!wren_coap_opt_repeatable(9));
    /* both in one lookup: 0 unknown or out of range, 1 known, 2 repeatable */
    CHECK_EQ(wren_coap_opt_class(COAP_OPT_URI_PATH, 0), 2);
    CHECK_EQ(wren_coap_opt_class(COAP_OPT_URI_PATH, 256), 0);
    CHECK_EQ(wren_coap_opt_class(COAP_OPT_IF_NONE_MATCH, 0), 1);
    CHECK_EQ(wren_coap_opt_class(COAP_OPT_IF_NONE_MATCH, 1), 0);
    CHECK_EQ(wren_coap_opt_class(COAP_OPT_IF_MATCH, 0), 2);
    CHECK_EQ(wren_coap_opt_class(COAP_OPT_ETAG, 0), 0);
    CHECK_EQ(wren_coap_opt_class(COAP_OPT_BLOCK2, 3), 1);
    CHECK_EQ(wren_coap_opt_class(COAP_OPT_BLOCK2, 4), 0);
    CHECK_EQ(wren_coap_opt_class(2048, 0), 0);
}

TEST(test_build__reproduces_aiocoap)
{
    uint8_t buf[64];
    struct coap_builder b;
    wren_coap_build_init(&b, buf, sizeof(buf), COAP_CON, COAP_CODE_GET, 0x1234,
                         (const uint8_t *)"\x01\x02\x03\x04", 4);
    wren_coap_build_opt_path(&b, COAP_OPT_URI_PATH, "/sensors/temp");
    wren_coap_build_opt(&b, COAP_OPT_URI_QUERY, "a=1", 3);
    CHECK_EQ(wren_coap_build_end(&b), sizeof(v_get));
    CHECK(memcmp(buf, v_get, sizeof(v_get)) == 0);

    wren_coap_build_init(&b, buf, sizeof(buf), COAP_ACK, COAP_CODE_CONTENT, 0x1234,
                         (const uint8_t *)"\x01\x02\x03\x04", 4);
    wren_coap_build_opt(&b, COAP_OPT_ETAG, "\xaa\xbb", 2);
    wren_coap_build_opt_uint(&b, COAP_OPT_CONTENT_FORMAT, COAP_CF_TEXT);
    wren_coap_build_opt_uint(&b, COAP_OPT_MAX_AGE, 60);
    wren_coap_build_payload(&b, "22.5", 4);
    CHECK_EQ(wren_coap_build_end(&b), sizeof(v_content));
    CHECK(memcmp(buf, v_content, sizeof(v_content)) == 0);

    wren_coap_build_init(&b, buf, sizeof(buf), COAP_NON, COAP_CODE_PUT, 0xfffe, NULL, 0);
    wren_coap_build_opt(&b, COAP_OPT_URI_PATH, "aaaaaaaaaaaaaaaaaaaa", 20);
    struct coap_block blk = { .num = 1000, .more = 1, .szx = 6 };
    wren_coap_build_opt_uint(&b, COAP_OPT_BLOCK1, (uint32_t)wren_coap_block_encode(&blk));
    wren_coap_build_opt_uint(&b, COAP_OPT_SIZE1, 16384);
    size_t max;
    uint8_t *p = wren_coap_build_payload_start(&b, &max);
    CHECK(p != NULL);
    CHECK_EQ(max, sizeof(buf) - (sizeof(v_put) - 1));
    *p = 'x';
    wren_coap_build_payload_done(&b, 1);
    CHECK_EQ(wren_coap_build_end(&b), sizeof(v_put));
    CHECK(memcmp(buf, v_put, sizeof(v_put)) == 0);
}

TEST(test_build__errors)
{
    uint8_t buf[sizeof(v_get)];
    struct coap_builder b;
    /* options out of order */
    wren_coap_build_init(&b, buf, sizeof(buf), COAP_CON, COAP_CODE_GET, 1, NULL, 0);
    wren_coap_build_opt(&b, COAP_OPT_URI_QUERY, "a", 1);
    wren_coap_build_opt(&b, COAP_OPT_URI_PATH, "b", 1);
    CHECK_EQ(wren_coap_build_end(&b), -COAP_ERR_INVAL);
    /* a token of 9 */
    wren_coap_build_init(&b, buf, sizeof(buf), COAP_CON, COAP_CODE_GET, 1,
                         (const uint8_t *)"123456789", 9);
    CHECK_EQ(wren_coap_build_end(&b), -COAP_ERR_INVAL);
    /* one byte short, at every length */
    for (size_t cap = 0; cap < sizeof(v_get); cap++) {
        wren_coap_build_init(&b, buf, cap, COAP_CON, COAP_CODE_GET, 0x1234,
                             (const uint8_t *)"\x01\x02\x03\x04", 4);
        wren_coap_build_opt_path(&b, COAP_OPT_URI_PATH, "sensors/temp");
        wren_coap_build_opt(&b, COAP_OPT_URI_QUERY, "a=1", 3);
        CHECK_EQ(wren_coap_build_end(&b), -COAP_ERR_NOBUFS);
    }
    /* an option after the payload */
    wren_coap_build_init(&b, buf, sizeof(buf), COAP_CON, COAP_CODE_PUT, 1, NULL, 0);
    wren_coap_build_payload(&b, "x", 1);
    wren_coap_build_opt(&b, COAP_OPT_SIZE1, "", 0);
    CHECK_EQ(wren_coap_build_end(&b), -COAP_ERR_INVAL);
    /* an empty payload has no marker */
    wren_coap_build_init(&b, buf, sizeof(buf), COAP_CON, COAP_CODE_PUT, 1, NULL, 0);
    wren_coap_build_payload(&b, "", 0);
    CHECK_EQ(wren_coap_build_end(&b), COAP_HDR_LEN);
    wren_coap_build_init(&b, buf, sizeof(buf), COAP_CON, COAP_CODE_PUT, 1, NULL, 0);
    size_t max;
    CHECK(wren_coap_build_payload_start(&b, &max) != NULL);
    wren_coap_build_payload_done(&b, 0);
    CHECK_EQ(wren_coap_build_end(&b), COAP_HDR_LEN);
}

TEST(test_emit__round_trip)
{
    const uint8_t *v[] = { v_get, v_content, v_put, v_obs };
    size_t n[] = { sizeof(v_get), sizeof(v_content), sizeof(v_put), sizeof(v_obs) };
    for (int i = 0; i < 4; i++) {
        struct coap_msg m;
        uint8_t *c;
        CHECK_EQ(parse_copy(v[i], n[i], &m, &c), 0);
        CHECK_EQ(wren_coap_len(&m), n[i]);
        uint8_t out[64];
        CHECK_EQ(wren_coap_emit(&m, out, n[i] - 1), -COAP_ERR_NOBUFS);
        CHECK_EQ(wren_coap_emit(&m, out, n[i]), (int)n[i]);
        CHECK(memcmp(out, v[i], n[i]) == 0);
        free(c);
    }
}

TEST(test_block__encode_decode)
{
    struct coap_block blk;
    CHECK_EQ(wren_coap_block_decode(0x07, &blk), -COAP_ERR_INVAL); /* SZX 7 */
    CHECK_EQ(wren_coap_block_decode(0x1000000, &blk), -COAP_ERR_INVAL);
    CHECK_EQ(wren_coap_block_decode(0xfffffe, &blk), 0);
    CHECK_EQ(blk.num, COAP_BLOCK_NUM_MAX);
    CHECK_EQ(blk.more, 1);
    CHECK_EQ(blk.szx, 6);
    CHECK_EQ(wren_coap_block_encode(&blk), 0xfffffe);
    blk.num = COAP_BLOCK_NUM_MAX + 1;
    CHECK_EQ(wren_coap_block_encode(&blk), -COAP_ERR_INVAL);
    blk.num = 0;
    blk.szx = 7;
    CHECK_EQ(wren_coap_block_encode(&blk), -COAP_ERR_INVAL);
    blk = (struct coap_block){ .num = 0, .more = 0, .szx = 0 };
    CHECK_EQ(wren_coap_block_encode(&blk), 0); /* sent as an empty option */
    CHECK_EQ(wren_coap_block_szx_fit(15), -1);
    CHECK_EQ(wren_coap_block_szx_fit(16), 0);
    CHECK_EQ(wren_coap_block_szx_fit(1023), 5);
    CHECK_EQ(wren_coap_block_szx_fit(5000), 6);
}

TEST(test_observe__freshness)
{
    /* RFC 7641 3.4: serial order within half the space, or 128 s later */
    CHECK(wren_coap_observe_fresher(1, 0, 2, 0));
    CHECK(!wren_coap_observe_fresher(2, 0, 1, 0));
    CHECK(!wren_coap_observe_fresher(5, 0, 5, 0));
    CHECK(wren_coap_observe_fresher(0xfffffe, 0, 3, 0)); /* wrapped */
    CHECK(!wren_coap_observe_fresher(3, 0, 0xfffffe, 0));
    CHECK(!wren_coap_observe_fresher(0, 0, 1u << 23, 0)); /* exactly half: neither */
    CHECK(!wren_coap_observe_fresher(1u << 23, 0, 0, 0));
    CHECK(!wren_coap_observe_fresher(9, 1000, 2, 129000));
    CHECK(wren_coap_observe_fresher(9, 1000, 2, 129001));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse__get_with_path_and_query),
        cmocka_unit_test(test_parse__content_with_payload),
        cmocka_unit_test(test_parse__extended_delta_and_length),
        cmocka_unit_test(test_parse__observe_token8_block2),
        cmocka_unit_test(test_parse__proxy_uri_two_byte_length),
        cmocka_unit_test(test_parse__empty_messages),
        cmocka_unit_test(test_parse__header_errors),
        cmocka_unit_test(test_parse__option_errors),
        cmocka_unit_test(test_opt_uint__lengths),
        cmocka_unit_test(test_opt_known__ranges),
        cmocka_unit_test(test_build__reproduces_aiocoap),
        cmocka_unit_test(test_build__errors),
        cmocka_unit_test(test_emit__round_trip),
        cmocka_unit_test(test_block__encode_decode),
        cmocka_unit_test(test_observe__freshness),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/**
 * @file test_coap_server.c
 * @brief The CoAP server over the IPv6 loopback: a test socket sends
 *        requests to [::1]:5683 and reads what comes back, byte by byte.
 *        Message layer (CON/NON/ACK/RST, ping, rejects), duplicates and the
 *        bounded cache, option rules (4.02, 5.05, 4.04, 4.05, 4.06, 4.12),
 *        the default resources, Block2 and /.well-known/core.
 */
#include "coap_rq.h"

TEST(test_counter__get_post_put_delete)
{
    CHECK(RQ(.mid = 1, .path = "/counter") > 0);
    check_piggyback(1, COAP_CODE_CONTENT);
    CHECK(payload_is("0"));
    CHECK_EQ(opt_u(COAP_OPT_CONTENT_FORMAT), COAP_CF_TEXT);
    struct coap_opt o;
    CHECK_EQ(wren_coap_opt_find(&resp, COAP_OPT_ETAG, &o), 1);
    CHECK_EQ(o.len, 4);

    CHECK(RQ(.mid = 2, .code = COAP_CODE_POST, .path = "/counter") > 0);
    check_piggyback(2, COAP_CODE_CHANGED);
    CHECK(payload_is("1"));

    /* If-Match with another ETag: 4.12, nothing changed */
    static const uint8_t wrong[4] = { 0, 0, 0, 7 }, right[4] = { 0, 0, 0, 1 };
    CHECK(RQ(.mid = 3, .code = COAP_CODE_PUT, .path = "/counter", .payload = "42", .plen = 2,
             .if_match = wrong, .if_match_len = 4) > 0);
    check_piggyback(3, COAP_CODE_PRECONDITION_FAILED);
    CHECK(RQ(.mid = 4, .code = COAP_CODE_PUT, .path = "/counter", .payload = "42", .plen = 2,
             .if_none_match = true) > 0);
    check_piggyback(4, COAP_CODE_PRECONDITION_FAILED);
    CHECK(RQ(.mid = 5, .code = COAP_CODE_PUT, .path = "/counter", .payload = "42", .plen = 2,
             .if_match = right, .if_match_len = 4) > 0);
    check_piggyback(5, COAP_CODE_CHANGED);
    CHECK(payload_is("42"));
    CHECK(RQ(.mid = 6, .code = COAP_CODE_PUT, .path = "/counter", .payload = "4x", .plen = 2) > 0);
    check_piggyback(6, COAP_CODE_BAD_REQUEST);
    CHECK_EQ(srv->counter, 42);
    CHECK(RQ(.mid = 7, .code = COAP_CODE_DELETE, .path = "/counter") > 0);
    check_piggyback(7, COAP_CODE_DELETED);
    CHECK_EQ(srv->counter, 0);
    CHECK_EQ(srv->stats.req, 7);
    FX_CLEAN(1000000);
}

TEST(test_message__non_ping_and_rejects)
{
    /* NON request: NON response, its own message ID, same token */
    CHECK(RQ(.type = COAP_NON, .mid = 77, .path = "/counter") > 0);
    CHECK_EQ(resp.type, COAP_NON);
    CHECK(resp.mid != 77);
    CHECK_EQ(resp.code, COAP_CODE_CONTENT);
    CHECK(memcmp(resp.token, "tk", 2) == 0);
    uint16_t first = resp.mid;
    CHECK(RQ(.type = COAP_NON, .mid = 78, .path = "/counter") > 0);
    CHECK_EQ(resp.mid, (uint16_t)(first + 1));

    /* ping: an empty CON gets a RST with its message ID */
    static const uint8_t ping[] = { 0x40, 0x00, 0x12, 0x34 };
    CHECK_EQ(xchg(ping, sizeof(ping)), 4);
    CHECK_EQ(resp.type, COAP_RST);
    CHECK_EQ(resp.mid, 0x1234);
    CHECK_EQ(srv->stats.rx_ping, 1);
    /* an empty NON, an ACK and a RST: no answer */
    static const uint8_t enon[] = { 0x50, 0x00, 0, 1 }, eack[] = { 0x60, 0x00, 0, 2 },
                         erst[] = { 0x70, 0x00, 0, 3 };
    CHECK_EQ(xchg(enon, 4), 0);
    CHECK_EQ(xchg(eack, 4), 0);
    CHECK_EQ(xchg(erst, 4), 0);

    /* malformed CONs are rejected with a RST; malformed NONs are dropped */
    static const uint8_t tkl9[] = { 0x49, 0x01, 0x00, 0x05, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
    static const uint8_t nopl[] = { 0x40, 0x01, 0x00, 0x06, 0xb1, 'x', 0xff };
    static const uint8_t d15[] = { 0x40, 0x01, 0x00, 0x07, 0xf1, 0x00 };
    static const uint8_t nonbad[] = { 0x50, 0x01, 0x00, 0x08, 0xf1, 0x00 };
    static const uint8_t v2[] = { 0x80, 0x01, 0x00, 0x09 };
    static const uint8_t shrt[] = { 0x40, 0x01, 0x00 };
    CHECK_EQ(xchg(tkl9, sizeof(tkl9)), 4);
    CHECK_EQ(resp.type, COAP_RST);
    CHECK_EQ(resp.mid, 5);
    CHECK_EQ(xchg(nopl, sizeof(nopl)), 4);
    CHECK_EQ(resp.mid, 6);
    CHECK_EQ(xchg(d15, sizeof(d15)), 4);
    CHECK_EQ(resp.mid, 7);
    CHECK_EQ(xchg(nonbad, sizeof(nonbad)), 0);
    CHECK_EQ(xchg(v2, sizeof(v2)), 0);
    CHECK_EQ(xchg(shrt, sizeof(shrt)), 0);
    /* a response sent to the server (nobody waits for it): CON gets RST */
    static const uint8_t rsp[] = { 0x42, 0x45, 0x00, 0x0a, 'a', 'b' };
    CHECK_EQ(xchg(rsp, sizeof(rsp)), 4);
    CHECK_EQ(resp.type, COAP_RST);
    CHECK_EQ(resp.mid, 0x0a);
    /* reserved class 7 */
    static const uint8_t c7[] = { 0x40, 0xe0, 0x00, 0x0b };
    CHECK_EQ(xchg(c7, sizeof(c7)), 4);
    CHECK_EQ(resp.type, COAP_RST);
    FX_CHECK_COUNTERS(WREN_COAP_COUNTERS, &srv->stats,
                      (&(struct wren_coap_stats){ .rx = 14, .rx_drop_format = 6, .rx_ping = 1,
                                                  .rx_ack = 1, .rx_rst = 1, .req = 2,
                                                  .rx_drop_unexpected = 2, .rx_drop_unmatched = 3, .tx = 8 }));
    FX_CLEAN(1000000);
}

TEST(test_options__critical_proxy_accept_method)
{
    /* an unrecognized critical option (9, OSCORE, which wren does not do):
     * 4.02 for a CON, RST for a NON */
    CHECK(RQ(.mid = 1, .path = "/counter", .extra_opt = 9) > 0);
    check_piggyback(1, COAP_CODE_BAD_OPTION);
    CHECK(RQ(.type = COAP_NON, .mid = 2, .path = "/counter", .extra_opt = 9) > 0);
    CHECK_EQ(resp.type, COAP_RST);
    CHECK_EQ(resp.mid, 2);
    /* critical with a bad length (If-None-Match is empty; Uri-Host 0 bytes) */
    CHECK(RQ(.mid = 3, .path = "/counter", .extra_opt = COAP_OPT_URI_HOST) > 0);
    check_piggyback(3, COAP_CODE_BAD_OPTION);
    /* unrecognized elective options are ignored (10, 2048+ even) */
    CHECK(RQ(.mid = 4, .path = "/counter", .extra_opt = 10) > 0);
    check_piggyback(4, COAP_CODE_CONTENT);
    CHECK(RQ(.mid = 5, .path = "/counter", .extra_opt = 2048) > 0);
    check_piggyback(5, COAP_CODE_CONTENT);
    /* Proxy-Uri: 5.05 */
    CHECK(RQ(.mid = 6, .path = "/counter", .extra_opt = COAP_OPT_PROXY_URI) > 0);
    check_piggyback(6, COAP_CODE_PROXYING_NOT_SUPPORTED);
    /* unknown path, method not allowed, unknown method */
    CHECK(RQ(.mid = 7, .path = "/nothing/here") > 0);
    check_piggyback(7, COAP_CODE_NOT_FOUND);
    CHECK(RQ(.mid = 8, .path = "/counte") > 0);
    check_piggyback(8, COAP_CODE_NOT_FOUND);
    CHECK(RQ(.mid = 9, .path = "/counter/x") > 0);
    check_piggyback(9, COAP_CODE_NOT_FOUND);
    CHECK(RQ(.mid = 10, .code = COAP_CODE_DELETE, .path = "/stats") > 0);
    check_piggyback(10, COAP_CODE_METHOD_NOT_ALLOWED);
    CHECK(RQ(.mid = 11, .code = COAP_CODE(0, 7), .path = "/stats") > 0);
    check_piggyback(11, COAP_CODE_METHOD_NOT_ALLOWED);
    /* Accept */
    CHECK(RQ(.mid = 12, .path = "/counter", .accept = COAP_CF_JSON) > 0);
    check_piggyback(12, COAP_CODE_NOT_ACCEPTABLE);
    CHECK(RQ(.mid = 13, .path = "/counter", .accept = COAP_CF_TEXT) > 0);
    check_piggyback(13, COAP_CODE_CONTENT);
    CHECK_EQ(srv->stats.req_bad_option, 2);
    CHECK_EQ(srv->stats.req_rst, 1);
    CHECK_EQ(srv->stats.req_proxy, 1);
    CHECK_EQ(srv->stats.req_not_found, 3);
    CHECK_EQ(srv->stats.req_not_allowed, 2);
    CHECK_EQ(srv->stats.req_not_acceptable, 1);
    FX_CLEAN(1000000);
}

TEST(test_dedup__replay_and_full_cache)
{
    /* the same POST twice: executed once, the response replayed */
    CHECK(RQ(.mid = 100, .code = COAP_CODE_POST, .path = "/counter") > 0);
    CHECK(payload_is("1"));
    CHECK(RQ(.mid = 100, .code = COAP_CODE_POST, .path = "/counter") > 0);
    check_piggyback(100, COAP_CODE_CHANGED);
    CHECK(payload_is("1"));
    CHECK_EQ(srv->counter, 1);
    CHECK_EQ(srv->stats.rx_dup, 1);
    /* a NON with the CON's message ID is no copy of it: executed, answered NON */
    CHECK(RQ(.type = COAP_NON, .mid = 100, .code = COAP_CODE_POST, .path = "/counter") > 0);
    CHECK_EQ(resp.type, COAP_NON);
    CHECK(payload_is("2"));
    CHECK_EQ(srv->counter, 2);
    /* but a second NON with it is, and ignored (RFC 7252 4.5) */
    CHECK_EQ(RQ(.type = COAP_NON, .mid = 100, .code = COAP_CODE_POST, .path = "/counter"), 0);
    CHECK_EQ(srv->counter, 2);
    CHECK_EQ(srv->stats.rx_dup_non, 1);
    srv->counter = 1;
    /* another endpoint with the same message ID is another exchange */
    struct wren_sock_udp other;
    struct wren_sock_udp_ep l = { .port = 40001 }, to = { .port = COAP_PORT };
    memcpy(to.addr, lo, 16);
    CHECK_EQ(wren_sock_udp_create(node, &other, &l, NULL), 0);
    uint8_t b[32];
    struct coap_builder bld;
    wren_coap_build_init(&bld, b, sizeof(b), COAP_CON, COAP_CODE_POST, 100, NULL, 0);
    wren_coap_build_opt_path(&bld, COAP_OPT_URI_PATH, "counter");
    int n = wren_coap_build_end(&bld);
    CHECK_EQ(wren_sock_udp_send(&other, b, (size_t)n, &to), n);
    fx_run_us(10000);
    CHECK_EQ(srv->counter, 2);
    CHECK(wren_sock_udp_recv(&other, rbuf, sizeof(rbuf), 0, NULL) > 0);
    wren_sock_udp_close(&other);
    /* the same message from the others' port is a fresh exchange: b is reused below */

    /* a GET whose response is too large to keep is recomputed */
    CHECK(RQ(.mid = 101, .path = "/pattern", .block2 = 0x02) > 0);
    CHECK(RQ(.mid = 101, .path = "/pattern", .block2 = 0x02) > 0);
    CHECK_EQ(resp.payload_len, 64);
    CHECK_EQ(srv->stats.rx_dup_redo, 1);

    /* the cache holds 3 exchanges now (two endpoints); the same endpoint's
     * new requests take its own oldest slots, never refused */
    for (uint16_t mid = 200; mid < 220; mid++) {
        CHECK(RQ(.mid = mid, .code = COAP_CODE_POST, .path = "/counter") > 0);
        check_piggyback(mid, COAP_CODE_CHANGED);
    }
    CHECK_EQ(srv->counter, 22);
    /* its latest exchanges are still remembered */
    CHECK(RQ(.mid = 219, .code = COAP_CODE_POST, .path = "/counter") > 0);
    CHECK_EQ(srv->counter, 22);
    CHECK_EQ(srv->stats.rx_dup, 2);
    /* many endpoints at once: the client's older exchanges make room for
     * four (the client and `other` keep one each); then the cache is full
     * and the rest are refused with 5.03 and Max-Age, and not executed */
    struct wren_sock_udp s[CONFIG_WREN_COAP_DEDUP + 1];
    int ok = 0, busy = 0;
    fx_run_us(40 * 1000000ull);
    for (int i = 0; i <= CONFIG_WREN_COAP_DEDUP; i++) {
        struct wren_sock_udp_ep li = { .port = (uint16_t)(41000 + i) };
        CHECK_EQ(wren_sock_udp_create(node, &s[i], &li, NULL), 0);
        CHECK_EQ(wren_sock_udp_send(&s[i], b, (size_t)n, &to), n);
        fx_run_us(10000);
        struct coap_msg m;
        ssize_t k = wren_sock_udp_recv(&s[i], rbuf, sizeof(rbuf), 0, NULL);
        CHECK(k > 0);
        CHECK_EQ(wren_coap_parse(rbuf, (size_t)k, &m), 0);
        ok += m.code == COAP_CODE_CHANGED;
        busy += m.code == COAP_CODE_SERVICE_UNAVAILABLE;
        if (m.code == COAP_CODE_SERVICE_UNAVAILABLE) {
            resp = m;
            uint32_t wait = opt_u(COAP_OPT_MAX_AGE);
            /* the oldest POST's remaining EXCHANGE_LIFETIME */
            CHECK(wait > 45 && wait <= CONFIG_WREN_COAP_EXCHANGE_LIFETIME_MS / 1000u);
        }
    }
    CHECK_EQ(ok, CONFIG_WREN_COAP_DEDUP - 2);
    CHECK_EQ(busy, 3);
    CHECK_EQ(srv->stats.req_busy, 3);
    CHECK_EQ(srv->counter, 22 + CONFIG_WREN_COAP_DEDUP - 2);
    /* 45 s on, a POST's response is still kept (EXCHANGE_LIFETIME): the
     * served ones get theirs again, the refused ones are refused again;
     * once the oldest expire, the refused ones are served */
    for (int round = 0; round < 2; round++) {
        fx_run_us(round ? CONFIG_WREN_COAP_EXCHANGE_LIFETIME_MS * 1000ull : 45 * 1000000ull);
        for (int i = 0; i <= CONFIG_WREN_COAP_DEDUP; i++) {
            CHECK_EQ(wren_sock_udp_send(&s[i], b, (size_t)n, &to), n);
            fx_run_us(10000);
            struct coap_msg m;
            ssize_t k = wren_sock_udp_recv(&s[i], rbuf, sizeof(rbuf), 0, NULL);
            CHECK(k > 0);
            CHECK_EQ(wren_coap_parse(rbuf, (size_t)k, &m), 0);
            /* round 1: all expired, the cache full again with the first six */
            bool refused = i >= (round ? CONFIG_WREN_COAP_DEDUP : CONFIG_WREN_COAP_DEDUP - 2);
            CHECK_EQ(m.code, (refused ? COAP_CODE_SERVICE_UNAVAILABLE : COAP_CODE_CHANGED));
        }
        CHECK_EQ(srv->counter, 22 + CONFIG_WREN_COAP_DEDUP - 2 + (round ? CONFIG_WREN_COAP_DEDUP : 0));
    }
    for (int i = 0; i <= CONFIG_WREN_COAP_DEDUP; i++) {
        wren_sock_udp_close(&s[i]);
    }
    CHECK_EQ(srv->stats.rx_dup, 2 + CONFIG_WREN_COAP_DEDUP - 2);
    CHECK_EQ(srv->stats.req_busy, 3 + 3 + 1);
    /* after EXCHANGE_LIFETIME everything is forgotten */
    fx_run_us(CONFIG_WREN_COAP_EXCHANGE_LIFETIME_MS * 1000ull);
    uint32_t before = srv->counter;
    CHECK(RQ(.mid = 219, .code = COAP_CODE_POST, .path = "/counter") > 0);
    CHECK_EQ(srv->counter, before + 1);
    FX_CLEAN(1000000);
}

TEST(test_block2__pattern_every_size)
{
    /* no Block2 asked: the first 1,024-byte block, Size2, M */
    CHECK(RQ(.mid = 1, .path = "/pattern") > 0);
    check_piggyback(1, COAP_CODE_CONTENT);
    struct coap_block blk;
    CHECK_EQ(wren_coap_block_decode(opt_u(COAP_OPT_BLOCK2), &blk), 0);
    CHECK_EQ(blk.num, 0);
    CHECK_EQ(blk.more, 1);
    CHECK_EQ(blk.szx, 6);
    CHECK_EQ(opt_u(COAP_OPT_SIZE2), CONFIG_WREN_COAP_PATTERN_LEN);
    CHECK_EQ(opt_u(COAP_OPT_CONTENT_FORMAT), COAP_CF_OCTETS);
    CHECK_EQ(resp.payload_len, 1024);
    /* every block size: the whole pattern back */
    for (uint8_t szx = 0; szx <= 6; szx++) {
        size_t got = 0;
        uint16_t mid = (uint16_t)(1000 + szx * 1100);
        for (uint32_t num = 0;; num++) {
            struct coap_block want = { .num = num, .szx = szx };
            CHECK(RQ(.mid = mid++, .path = "/pattern",
                     .block2 = wren_coap_block_encode(&want)) > 0);
            check_piggyback((uint16_t)(mid - 1), COAP_CODE_CONTENT);
            CHECK_EQ(wren_coap_block_decode(opt_u(COAP_OPT_BLOCK2), &blk), 0);
            CHECK_EQ(blk.num, num);
            CHECK_EQ(blk.szx, szx);
            CHECK_EQ(got, (size_t)num * COAP_BLOCK_SIZE(szx));
            for (size_t i = 0; i < resp.payload_len; i++) {
                CHECK_EQ(resp.payload[i], (uint8_t)((got + i) % 251));
            }
            got += resp.payload_len;
            if (!blk.more) {
                break;
            }
            CHECK_EQ(resp.payload_len, COAP_BLOCK_SIZE(szx));
        }
        CHECK_EQ(got, CONFIG_WREN_COAP_PATTERN_LEN);
    }
    /* beyond the end: 4.02 */
    struct coap_block past = { .num = CONFIG_WREN_COAP_PATTERN_LEN / 16, .szx = 0 };
    CHECK(RQ(.mid = 2, .path = "/pattern", .block2 = wren_coap_block_encode(&past)) > 0);
    check_piggyback(2, COAP_CODE_BAD_OPTION);
    /* SZX 7 is reserved: 4.00 (RFC 7959 2.2) */
    CHECK(RQ(.mid = 3, .path = "/pattern", .block2 = 0x17) > 0);
    check_piggyback(3, COAP_CODE_BAD_REQUEST);
    /* a block of the largest number: far beyond, 4.02, no overflow */
    CHECK(RQ(.mid = 4, .path = "/pattern", .block2 = 0xfffff6) > 0);
    check_piggyback(4, COAP_CODE_BAD_OPTION);
    /* a small PUT of the pattern sets its size; a wrong byte is 4.00 */
    uint8_t p[100];
    for (int i = 0; i < 100; i++) {
        p[i] = (uint8_t)i;
    }
    CHECK(RQ(.mid = 5, .code = COAP_CODE_PUT, .path = "/pattern", .payload = p, .plen = 100) > 0);
    check_piggyback(5, COAP_CODE_CHANGED);
    CHECK(RQ(.mid = 6, .path = "/pattern") > 0);
    CHECK_EQ(resp.payload_len, 100);
    CHECK_EQ(wren_coap_opt_find(&resp, COAP_OPT_BLOCK2, &(struct coap_opt){ 0 }), 0);
    p[50] = 0;
    CHECK(RQ(.mid = 7, .code = COAP_CODE_PUT, .path = "/pattern", .payload = p, .plen = 100) > 0);
    check_piggyback(7, COAP_CODE_BAD_REQUEST);
    FX_CLEAN(1000000);
}

static int32_t b1v(uint32_t num, int more, uint8_t szx)
{
    struct coap_block b = { .num = num, .more = (uint8_t)more, .szx = szx };
    return wren_coap_block_encode(&b);
}

TEST(test_block1__atomic_upload_and_broken_sequences)
{
    static uint8_t body[1000];
    for (size_t i = 0; i < sizeof(body); i++) {
        body[i] = (uint8_t)(i % 251);
    }
    /* 1,000 bytes in 64-byte blocks: 2.31 Continue with Block1 (M) for each
     * but the last, 2.04 with Block1 (no M) for the last; the size changes
     * only then */
    uint16_t mid = 10;
    for (uint32_t num = 0; num * 64 < sizeof(body); num++) {
        size_t n = sizeof(body) - num * 64 < 64 ? sizeof(body) - num * 64 : 64;
        int more = (num + 1) * 64 < sizeof(body);
        CHECK(RQ(.mid = mid, .code = COAP_CODE_PUT, .path = "/pattern", .payload = body + num * 64,
                 .plen = n, .block1 = b1v(num, more, 2)) > 0);
        check_piggyback(mid, more ? COAP_CODE_CONTINUE : COAP_CODE_CHANGED);
        CHECK_EQ(opt_u(COAP_OPT_BLOCK1), (uint32_t)b1v(num, more, 2));
        CHECK_EQ(srv->pattern_len, more ? CONFIG_WREN_COAP_PATTERN_LEN : sizeof(body));
        if (num == 3) {
            /* a retransmitted block is answered again, not taken twice */
            CHECK(RQ(.mid = mid, .code = COAP_CODE_PUT, .path = "/pattern",
                     .payload = body + num * 64, .plen = n, .block1 = b1v(num, more, 2)) > 0);
            check_piggyback(mid, COAP_CODE_CONTINUE);
            CHECK_EQ(srv->stats.rx_dup, 1);
        }
        mid++;
    }
    /* broken sequences: 4.08, the upload forgotten */
    CHECK(RQ(.mid = mid++, .code = COAP_CODE_PUT, .path = "/pattern", .payload = body,
             .plen = 64, .block1 = b1v(1, 1, 2)) > 0);
    check_piggyback((uint16_t)(mid - 1), COAP_CODE_REQUEST_INCOMPLETE); /* no block 0 */
    CHECK(RQ(.mid = mid++, .code = COAP_CODE_PUT, .path = "/pattern", .payload = body,
             .plen = 64, .block1 = b1v(0, 1, 2)) > 0);
    check_piggyback((uint16_t)(mid - 1), COAP_CODE_CONTINUE);
    CHECK(RQ(.mid = mid++, .code = COAP_CODE_PUT, .path = "/pattern", .payload = body + 128,
             .plen = 64, .block1 = b1v(2, 1, 2)) > 0);
    check_piggyback((uint16_t)(mid - 1), COAP_CODE_REQUEST_INCOMPLETE); /* a gap */
    CHECK(RQ(.mid = mid++, .code = COAP_CODE_PUT, .path = "/pattern", .payload = body + 64,
             .plen = 64, .block1 = b1v(1, 1, 2)) > 0);
    check_piggyback((uint16_t)(mid - 1), COAP_CODE_REQUEST_INCOMPLETE); /* forgotten */
    CHECK(RQ(.mid = mid++, .code = COAP_CODE_PUT, .path = "/pattern", .payload = body,
             .plen = 64, .block1 = b1v(0, 1, 2)) > 0);
    CHECK(RQ(.mid = mid++, .code = COAP_CODE_PUT, .path = "/pattern", .payload = body + 64,
             .plen = 32, .block1 = b1v(1, 1, 1)) > 0);
    check_piggyback((uint16_t)(mid - 1), COAP_CODE_REQUEST_INCOMPLETE); /* another size */
    CHECK(RQ(.mid = mid++, .code = COAP_CODE_PUT, .path = "/pattern", .payload = body,
             .plen = 64, .block1 = b1v(0, 1, 2)) > 0);
    CHECK(RQ(.mid = mid++, .code = COAP_CODE_PUT, .path = "/pattern", .payload = body + 64,
             .plen = 10, .block1 = b1v(1, 1, 2)) > 0);
    check_piggyback((uint16_t)(mid - 1), COAP_CODE_REQUEST_INCOMPLETE); /* short, M set */
    CHECK_EQ(srv->stats.req_incomplete, 5);
    /* a wrong byte in a block: 4.00, the upload ends */
    body[70] ^= 1;
    CHECK(RQ(.mid = mid++, .code = COAP_CODE_PUT, .path = "/pattern", .payload = body,
             .plen = 64, .block1 = b1v(0, 1, 2)) > 0);
    CHECK(RQ(.mid = mid++, .code = COAP_CODE_PUT, .path = "/pattern", .payload = body + 64,
             .plen = 64, .block1 = b1v(1, 1, 2)) > 0);
    check_piggyback((uint16_t)(mid - 1), COAP_CODE_BAD_REQUEST);
    CHECK_EQ(srv->pattern_len, sizeof(body));
    /* a body of several blocks for a resource that takes none: 4.13; one block is fine */
    CHECK(RQ(.mid = mid++, .code = COAP_CODE_PUT, .path = "/counter", .payload = "12",
             .plen = 2, .block1 = b1v(0, 1, 0)) > 0);
    check_piggyback((uint16_t)(mid - 1), COAP_CODE_TOO_LARGE);
    CHECK(RQ(.mid = mid++, .code = COAP_CODE_PUT, .path = "/counter", .payload = "12",
             .plen = 2, .block1 = b1v(0, 0, 0)) > 0);
    check_piggyback((uint16_t)(mid - 1), COAP_CODE_CHANGED);
    CHECK_EQ(srv->counter, 12);
    /* more uploads at once than slots: 5.03 */
    struct wren_sock_udp s[CONFIG_WREN_COAP_BLOCK1 + 1];
    struct wren_sock_udp_ep to = { .port = COAP_PORT };
    memcpy(to.addr, lo, 16);
    int busy = 0;
    for (int i = 0; i <= CONFIG_WREN_COAP_BLOCK1; i++) {
        struct wren_sock_udp_ep li = { .port = (uint16_t)(42000 + i) };
        CHECK_EQ(wren_sock_udp_create(node, &s[i], &li, NULL), 0);
        uint8_t b[128];
        struct coap_builder bld;
        wren_coap_build_init(&bld, b, sizeof(b), COAP_CON, COAP_CODE_PUT, 5, NULL, 0);
        wren_coap_build_opt_path(&bld, COAP_OPT_URI_PATH, "pattern");
        wren_coap_build_opt_uint(&bld, COAP_OPT_BLOCK1, (uint32_t)b1v(0, 1, 2));
        wren_coap_build_payload(&bld, body, 64);
        int n = wren_coap_build_end(&bld);
        CHECK_EQ(wren_sock_udp_send(&s[i], b, (size_t)n, &to), n);
        fx_run_us(10000);
        struct coap_msg m;
        ssize_t k = wren_sock_udp_recv(&s[i], rbuf, sizeof(rbuf), 0, NULL);
        CHECK(k > 0);
        CHECK_EQ(wren_coap_parse(rbuf, (size_t)k, &m), 0);
        busy += m.code == COAP_CODE_SERVICE_UNAVAILABLE;
        wren_sock_udp_close(&s[i]);
    }
    CHECK_EQ(busy, 1);
    CHECK_EQ(srv->stats.req_block1_busy, 1);
    /* uploads left unfinished expire */
    fx_run_us(CONFIG_WREN_COAP_EXCHANGE_LIFETIME_MS * 1000ull);
    CHECK(RQ(.mid = mid++, .code = COAP_CODE_PUT, .path = "/pattern", .payload = body,
             .plen = 64, .block1 = b1v(0, 1, 2)) > 0);
    check_piggyback((uint16_t)(mid - 1), COAP_CODE_CONTINUE);
    FX_CLEAN(1000000);
}

/* A POST to /counter from another port (the observer is cli). */
static void bump(struct wren_sock_udp *o, uint16_t mid)
{
    struct wren_sock_udp_ep to = { .port = COAP_PORT };
    memcpy(to.addr, lo, 16);
    uint8_t b[32];
    struct coap_builder bld;
    wren_coap_build_init(&bld, b, sizeof(b), COAP_CON, COAP_CODE_POST, mid, NULL, 0);
    wren_coap_build_opt_path(&bld, COAP_OPT_URI_PATH, "counter");
    int n = wren_coap_build_end(&bld);
    CHECK_EQ(wren_sock_udp_send(o, b, (size_t)n, &to), n);
    fx_run_us(10000);
    CHECK(wren_sock_udp_recv(o, rbuf, sizeof(rbuf), 0, NULL) > 0); /* its 2.04 */
}

TEST(test_observe__register_notify_deregister)
{
    struct wren_sock_udp o;
    struct wren_sock_udp_ep l = { .port = 40100 };
    CHECK_EQ(wren_sock_udp_create(node, &o, &l, NULL), 0);
    /* registration: 2.05 with Observe */
    CHECK(RQ(.mid = 1, .path = "/counter", .observe = 0) > 0);
    check_piggyback(1, COAP_CODE_CONTENT);
    uint32_t seq = opt_u(COAP_OPT_OBSERVE);
    CHECK(seq != 0xdeadbeef);
    CHECK_EQ(srv->stats.obs_add, 1);
    /* a change: the first notification is CON, retransmitted until ACKed */
    bump(&o, 100);
    CHECK(notification() > 0);
    CHECK_EQ(resp.type, COAP_CON);
    CHECK_EQ(resp.code, COAP_CODE_CONTENT);
    CHECK(memcmp(resp.token, "tk", 2) == 0 && resp.tkl == 2);
    CHECK(payload_is("1"));
    CHECK(opt_u(COAP_OPT_OBSERVE) > seq);
    seq = opt_u(COAP_OPT_OBSERVE);
    uint16_t nmid = resp.mid;
    fx_run_us(3100000); /* beyond the largest first timeout */
    /* (RFC 7641 4.5.2: the current state again, as a message of its own) */
    CHECK(notification() > 0);
    CHECK_EQ(resp.type, COAP_CON);
    CHECK(resp.mid != nmid);
    CHECK(payload_is("1"));
    cli_send_empty(COAP_ACK, resp.mid);
    /* then NON for 24 hours */
    bump(&o, 101);
    CHECK(notification() > 0);
    CHECK_EQ(resp.type, COAP_NON);
    CHECK(payload_is("2"));
    CHECK(opt_u(COAP_OPT_OBSERVE) > seq);
    fx_run_us(10000000);
    CHECK_EQ(notification(), 0);
    /* a RST to a notification ends the observation */
    cli_send_empty(COAP_RST, resp.mid);
    CHECK_EQ(srv->stats.obs_rst, 1);
    bump(&o, 102);
    CHECK_EQ(notification(), 0);
    /* again; then a GET without Observe with the token ends it */
    CHECK(RQ(.mid = 2, .path = "/counter", .observe = 0) > 0);
    CHECK(RQ(.mid = 3, .path = "/counter") > 0);
    CHECK_EQ(wren_coap_opt_find(&resp, COAP_OPT_OBSERVE, &(struct coap_opt){ 0 }), 0);
    CHECK_EQ(srv->stats.obs_remove, 1);
    bump(&o, 103);
    CHECK_EQ(notification(), 0);
    /* and with Observe 1 */
    CHECK(RQ(.mid = 4, .path = "/counter", .observe = 0) > 0);
    CHECK(RQ(.mid = 5, .path = "/counter", .observe = 1) > 0);
    CHECK_EQ(srv->stats.obs_remove, 2);
    /* not observable: no Observe in the answer, nothing kept */
    CHECK(RQ(.mid = 6, .path = "/stats", .observe = 0, .block2 = 0x02) > 0);
    CHECK_EQ(wren_coap_opt_find(&resp, COAP_OPT_OBSERVE, &(struct coap_opt){ 0 }), 0);
    /* an observer that never ACKs a CON notification is given up */
    CHECK(RQ(.mid = 7, .path = "/counter", .observe = 0) > 0);
    bump(&o, 104);
    int copies = 0;
    for (int i = 0; i < 200; i++) {
        fx_run_us(1000000);
        while (notification() > 0) {
            copies++;
        }
    }
    CHECK_EQ(copies, 1 + CONFIG_WREN_COAP_MAX_RETRANSMIT);
    CHECK_EQ(srv->stats.obs_timeout, 1);
    /* bounded: registrations beyond the limit get an answer without Observe */
    wren_coap_set_obs_con_ms(srv, 0);
    struct wren_sock_udp s[CONFIG_WREN_COAP_OBSERVERS + 1];
    struct wren_sock_udp_ep to = { .port = COAP_PORT };
    memcpy(to.addr, lo, 16);
    int with = 0;
    for (int i = 0; i <= CONFIG_WREN_COAP_OBSERVERS; i++) {
        struct wren_sock_udp_ep li = { .port = (uint16_t)(43000 + i) };
        CHECK_EQ(wren_sock_udp_create(node, &s[i], &li, NULL), 0);
        uint8_t b[32];
        struct coap_builder bld;
        wren_coap_build_init(&bld, b, sizeof(b), COAP_CON, COAP_CODE_GET, 9, (const uint8_t *)"o", 1);
        wren_coap_build_opt_uint(&bld, COAP_OPT_OBSERVE, 0);
        wren_coap_build_opt_path(&bld, COAP_OPT_URI_PATH, "counter");
        int n = wren_coap_build_end(&bld);
        CHECK_EQ(wren_sock_udp_send(&s[i], b, (size_t)n, &to), n);
        fx_run_us(10000);
        struct coap_msg m;
        ssize_t k = wren_sock_udp_recv(&s[i], rbuf, sizeof(rbuf), 0, NULL);
        CHECK(k > 0);
        CHECK_EQ(wren_coap_parse(rbuf, (size_t)k, &m), 0);
        CHECK_EQ(m.code, COAP_CODE_CONTENT);
        with += wren_coap_opt_find(&m, COAP_OPT_OBSERVE, &(struct coap_opt){ 0 });
    }
    CHECK_EQ(with, CONFIG_WREN_COAP_OBSERVERS);
    CHECK_EQ(srv->stats.obs_full, 1);
    /* every notification CON now (interval 0); each observer ACKs */
    CHECK_EQ(wren_coap_notify(srv, wren_coap_of(node)->res[0]), CONFIG_WREN_COAP_OBSERVERS);
    fx_run_us(10000);
    for (int i = 0; i <= CONFIG_WREN_COAP_OBSERVERS; i++) {
        struct coap_msg m;
        ssize_t k = wren_sock_udp_recv(&s[i], rbuf, sizeof(rbuf), 0, NULL);
        CHECK_EQ(k > 0, i < CONFIG_WREN_COAP_OBSERVERS);
        if (k > 0) {
            CHECK_EQ(wren_coap_parse(rbuf, (size_t)k, &m), 0);
            CHECK_EQ(m.type, COAP_CON);
            uint8_t ack[4] = { 0x60, 0, (uint8_t)(m.mid >> 8), (uint8_t)m.mid };
            CHECK_EQ(wren_sock_udp_send(&s[i], ack, 4, &to), 4);
        }
    }
    fx_run_us(100000000);
    for (int i = 0; i <= CONFIG_WREN_COAP_OBSERVERS; i++) {
        CHECK_EQ(wren_sock_udp_recv(&s[i], rbuf, sizeof(rbuf), 0, NULL), -EAGAIN);
        wren_sock_udp_close(&s[i]);
    }
    CHECK_EQ(srv->stats.obs_timeout, 1);
    wren_sock_udp_close(&o);
    FX_CLEAN(1000000);
}

static void app_get(struct wren_coap *c, const struct wren_coap_req *req,
                    struct wren_coap_resp *resp_, void *arg)
{
    (void)c;
    (void)req;
    (void)arg;
    wren_coap_resp_write(resp_, "hi", 2);
    resp_->max_age = 30;
    resp_->has_max_age = 1;
}

TEST(test_wellknown__link_format_and_resources)
{
    static const struct wren_coap_resource temp = {
        .path = "/sensors/temp", .methods = WREN_COAP_GET, .cf = COAP_CF_TEXT,
        .observable = true, .attrs = ";rt=\"temperature\"", .handler = app_get,
    };
    static const struct wren_coap_resource dup = {
        .path = "/sensors/temp", .methods = WREN_COAP_GET, .cf = -1, .handler = app_get,
    };
    static const struct wren_coap_resource bad = { .path = "x", .handler = app_get };
    CHECK_EQ(wren_coap_resource_add(srv, &temp), 0);
    CHECK_EQ(wren_coap_resource_add(srv, &dup), -EEXIST);
    CHECK_EQ(wren_coap_resource_add(srv, &bad), -EINVAL);
    CHECK(wren_coap_of(node) == srv);

    CHECK(RQ(.mid = 1, .path = "/.well-known/core") > 0);
    check_piggyback(1, COAP_CODE_CONTENT);
    CHECK_EQ(opt_u(COAP_OPT_CONTENT_FORMAT), COAP_CF_LINK_FORMAT);
    CHECK(payload_is("</counter>;ct=0;obs,</stats>;ct=0,</pattern>;ct=42;obs,</slow>;ct=0,"
                     "</sensors/temp>;ct=0;obs;rt=\"temperature\""));
    CHECK(RQ(.mid = 2, .path = "/sensors/temp") > 0);
    CHECK(payload_is("hi"));
    CHECK_EQ(opt_u(COAP_OPT_MAX_AGE), 30);
    /* the table is bounded */
    static struct wren_coap_resource many[CONFIG_WREN_COAP_RESOURCES];
    static char paths[CONFIG_WREN_COAP_RESOURCES][8];
    int added = 0;
    for (int i = 0; i < CONFIG_WREN_COAP_RESOURCES; i++) {
        snprintf(paths[i], sizeof(paths[i]), "/r%d", i);
        many[i] = (struct wren_coap_resource){ .path = paths[i], .methods = WREN_COAP_GET,
                                               .cf = -1, .handler = app_get };
        int rc = wren_coap_resource_add(srv, &many[i]);
        CHECK(rc == 0 || rc == -ENOSPC);
        added += rc == 0;
    }
    CHECK_EQ(added, CONFIG_WREN_COAP_RESOURCES - 1);
    CHECK_EQ(wren_coap_resource_remove(srv, &temp), 0);
    CHECK_EQ(wren_coap_resource_remove(srv, &temp), -ENOENT);
    CHECK(RQ(.mid = 3, .path = "/sensors/temp") > 0);
    check_piggyback(3, COAP_CODE_NOT_FOUND);
    FX_CLEAN(1000000);
}

/* POST creates "/items/<n>": Location-Path and Location-Query (RFC 7252
 * 5.8.2, 5.10.7); a location beyond CONFIG_WREN_COAP_LOCATION_ROOM is 5.00 */
static void items_post(struct wren_coap *c, const struct wren_coap_req *req,
                       struct wren_coap_resp *resp_, void *arg)
{
    (void)c;
    (void)arg;
    resp_->code = COAP_CODE_CREATED;
    if (req->payload_len == 4 && memcmp(req->payload, "long", 4) == 0) {
        resp_->location_path = "/items/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                                "/bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
        return;
    }
    resp_->location_path = "/items/7";
    resp_->location_query = "v=1&new";
}

/* the values of every option @p num of resp, joined with '|' */
static const char *opt_strs(uint16_t num)
{
    static char out[128];
    size_t n = 0;
    struct coap_opt_iter it;
    struct coap_opt o;
    wren_coap_opt_iter_init(&it, &resp);
    while (wren_coap_opt_next(&it, &o) > 0) {
        if (o.num == num && n + o.len + 1 < sizeof(out)) {
            if (n) {
                out[n++] = '|';
            }
            memcpy(out + n, o.val, o.len);
            n += o.len;
        }
    }
    out[n] = '\0';
    return out;
}

/* The table's entries beyond the default resources' are made by the first
 * resource registered there (CONFIG_WREN_NODE_MEM): without memory that
 * resource is refused and counted (coap.no_mem). */
TEST(test_resources__table_made_by_the_first_beyond_the_defaults)
{
    static const struct wren_coap_resource r1 = {
        .path = "/a", .methods = WREN_COAP_GET, .cf = -1, .handler = app_get,
    };
    CHECK_EQ(srv->n_res, WREN_COAP_N_DEFAULT);
    if (!CONFIG_WREN_NODE_MEM) {
        return; /* built in: nothing to make */
    }
    const struct wren_rt_ops ops = fx.world_ops;
    fx.world_ops.mem = NULL; /* the runtime has no memory to give */
    CHECK_EQ(wren_coap_resource_add(srv, &r1), -ENOMEM);
    CHECK_EQ(srv->stats.no_mem, 1);
    CHECK_EQ(srv->n_res, WREN_COAP_N_DEFAULT);
    fx.world_ops = ops;
    CHECK(RQ(.mid = 1, .path = "/a") > 0);
    check_piggyback(1, COAP_CODE_NOT_FOUND);
    unsigned pieces = fx_mem_pieces();
    CHECK_EQ(wren_coap_resource_add(srv, &r1), 0);
    CHECK_EQ(fx_mem_pieces(), pieces + 1);
    CHECK(RQ(.mid = 2, .path = "/a") > 0);
    CHECK(payload_is("hi"));
    FX_CLEAN(1000000);
}

TEST(test_wellknown__query_filters_and_location)
{
    static const struct wren_coap_resource temp = {
        .path = "/sensors/temp", .methods = WREN_COAP_GET, .cf = COAP_CF_TEXT,
        .observable = true, .attrs = ";rt=\"temperature-c core.s\";if=sensor", .handler = app_get,
    };
    static const struct wren_coap_resource items = {
        .path = "/items", .methods = WREN_COAP_POST, .cf = -1, .attrs = ";rt=\"collection\"",
        .handler = items_post,
    };
    CHECK_EQ(wren_coap_resource_add(srv, &temp), 0);
    CHECK_EQ(wren_coap_resource_add(srv, &items), 0);
    static const struct {
        const char *query, *links;
    } cases[] = {
        /* RFC 6690 4.1: one word of a space-separated rt, a '*' prefix */
        { "rt=core.s", "</sensors/temp>;ct=0;obs;rt=\"temperature-c core.s\";if=sensor" },
        { "rt=temp*", "</sensors/temp>;ct=0;obs;rt=\"temperature-c core.s\";if=sensor" },
        { "rt=temperature", "" },
        { "rt=coll*", "</items>;rt=\"collection\"" },
        { "if=sensor", "</sensors/temp>;ct=0;obs;rt=\"temperature-c core.s\";if=sensor" },
        { "href=/items", "</items>;rt=\"collection\"" },
        { "href=/s*", "</stats>;ct=0,</slow>;ct=0,</sensors/temp>;ct=0;obs;"
                      "rt=\"temperature-c core.s\";"
                      "if=sensor" },
        { "ct=42", "</pattern>;ct=42;obs" },
        { "obs", "</counter>;ct=0;obs,</pattern>;ct=42;obs,</sensors/temp>;ct=0;obs;"
                 "rt=\"temperature-c core.s\";"
                 "if=sensor" },
        { "rt", "</sensors/temp>;ct=0;obs;rt=\"temperature-c core.s\";if=sensor,"
                "</items>;rt=\"collection\"" },
        /* every filter must pass */
        { "href=/s*&obs", "</sensors/temp>;ct=0;obs;rt=\"temperature-c core.s\";if=sensor" },
        { "sz=5", "" },
        { "r", "" },
    };
    for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        CHECK(RQ(.mid = (uint16_t)(10 + i), .path = "/.well-known/core",
                 .query = cases[i].query) > 0);
        check_piggyback((uint16_t)(10 + i), COAP_CODE_CONTENT);
        CHECK_EQ(opt_u(COAP_OPT_CONTENT_FORMAT), COAP_CF_LINK_FORMAT);
        if (!payload_is(cases[i].links)) {
            fail_msg("?%s: %.*s", cases[i].query, (int)resp.payload_len, resp.payload);
        }
    }
    CHECK(RQ(.mid = 40, .code = COAP_CODE_POST, .path = "/items", .payload = "x", .plen = 1) > 0);
    check_piggyback(40, COAP_CODE_CREATED);
    CHECK(strcmp(opt_strs(COAP_OPT_LOCATION_PATH), "items|7") == 0);
    CHECK(strcmp(opt_strs(COAP_OPT_LOCATION_QUERY), "v=1|new") == 0);
    CHECK(RQ(.mid = 41, .code = COAP_CODE_POST, .path = "/items", .payload = "long",
             .plen = 4) > 0);
    check_piggyback(41, COAP_CODE_INTERNAL_ERROR);
    CHECK_EQ(resp.opts_len, 0);
    CHECK_EQ(resp.payload_len, 0);
    FX_CLEAN(1000000);
}

/* RFC 7252 5.2.2 with the default resource /slow: a CON gets an empty ACK
 * (its duplicate too), the response follows as a CON retransmitted until
 * acknowledged; a NON gets its response as a NON; slots are bounded */
TEST(test_separate__empty_ack_then_con_response)
{
    CHECK(RQ(.mid = 1, .path = "/slow") > 0);
    CHECK_EQ(resp.type, COAP_ACK);
    CHECK_EQ(resp.code, COAP_CODE_EMPTY);
    CHECK_EQ(resp.mid, 1);
    CHECK_EQ(resp.tkl, 0);
    CHECK_EQ(resp.opts_len + resp.payload_len, 0);
    CHECK(RQ(.mid = 1, .path = "/slow") > 0); /* a duplicate: the empty ACK again */
    CHECK_EQ(resp.code, COAP_CODE_EMPTY);
    CHECK_EQ(srv->stats.rx_dup, 1);
    CHECK_EQ(srv->stats.req, 1);
    fx_run_us(CONFIG_WREN_COAP_SLOW_MS * 1000u);
    CHECK(notification() > 0);
    CHECK_EQ(resp.type, COAP_CON);
    CHECK_EQ(resp.code, COAP_CODE_CONTENT);
    CHECK(resp.tkl == 2 && memcmp(resp.token, "tk", 2) == 0);
    CHECK_EQ(opt_u(COAP_OPT_CONTENT_FORMAT), COAP_CF_TEXT);
    CHECK(payload_is("slow"));
    uint16_t rmid = resp.mid;
    CHECK(rmid != 1);
    /* not acknowledged: the same message again after the first timeout */
    fx_run_us(3100000);
    CHECK(notification() > 0);
    CHECK_EQ(resp.type, COAP_CON);
    CHECK_EQ(resp.mid, rmid);
    CHECK(payload_is("slow"));
    cli_send_empty(COAP_ACK, rmid);
    fx_run_us(120000000);
    CHECK_EQ(notification(), 0);
    CHECK_EQ(srv->stats.sep_retx, 1);
    CHECK_EQ(srv->stats.sep_sent, 1);

    /* NON: nothing now, a NON response later; its duplicate gets nothing */
    CHECK_EQ(RQ(.mid = 2, .type = COAP_NON, .path = "/slow"), 0);
    CHECK_EQ(RQ(.mid = 2, .type = COAP_NON, .path = "/slow"), 0);
    fx_run_us(CONFIG_WREN_COAP_SLOW_MS * 1000u);
    CHECK(notification() > 0);
    CHECK_EQ(resp.type, COAP_NON);
    CHECK(payload_is("slow") && resp.tkl == 2);
    CHECK_EQ(notification(), 0);

    /* every slot in use: 5.03 with Max-Age, answered now */
    for (unsigned i = 0; i < CONFIG_WREN_COAP_SEPARATE; i++) {
        CHECK(RQ(.mid = (uint16_t)(10 + i), .path = "/slow") > 0);
        CHECK_EQ(resp.code, COAP_CODE_EMPTY);
    }
    CHECK(RQ(.mid = 20, .path = "/slow") > 0);
    check_piggyback(20, COAP_CODE_SERVICE_UNAVAILABLE);
    CHECK(opt_u(COAP_OPT_MAX_AGE) >= 1);
    CHECK_EQ(srv->stats.sep_full, 1);
    fx_run_us(CONFIG_WREN_COAP_SLOW_MS * 1000u);
    /* one answered with RST, the others never acknowledged: given up */
    CHECK(notification() > 0);
    cli_send_empty(COAP_RST, resp.mid);
    CHECK_EQ(srv->stats.sep_rst, 1);
    int copies = 0;
    for (int i = 0; i < 200; i++) {
        fx_run_us(1000000);
        while (notification() > 0) {
            copies++;
        }
    }
    CHECK_EQ(srv->stats.sep_timeout, CONFIG_WREN_COAP_SEPARATE - 1);
    CHECK_EQ(copies, (int)(CONFIG_WREN_COAP_SEPARATE - 1) * (1 + CONFIG_WREN_COAP_MAX_RETRANSMIT));
    /* and the slots are free again */
    CHECK(RQ(.mid = 30, .path = "/slow") > 0);
    CHECK_EQ(resp.code, COAP_CODE_EMPTY);
    fx_run_us(CONFIG_WREN_COAP_SLOW_MS * 1000u);
    CHECK(notification() > 0);
    cli_send_empty(COAP_ACK, resp.mid);
    /* wren_coap_resp_defer outside a handler */
    CHECK_EQ(wren_coap_resp_defer(srv, NULL), -EINVAL);
    CHECK_EQ(wren_coap_resp_separate(srv, 0, COAP_CODE_CONTENT, -1, NULL, 0), -EINVAL);
    CHECK_EQ(wren_coap_resp_separate(srv, 99, COAP_CODE_CONTENT, -1, NULL, 0), -EINVAL);
    FX_CLEAN(1000000);
}

TEST(test_stats__streamed_counters)
{
    /* the stats resource is longer than a block: fetch it whole, block by block */
    char text[8192];
    size_t got = 0;
    for (uint32_t num = 0;; num++) {
        struct coap_block want = { .num = num, .szx = 4 };
        CHECK(RQ(.mid = (uint16_t)(50 + num), .path = "/stats",
                 .block2 = wren_coap_block_encode(&want)) > 0);
        check_piggyback((uint16_t)(50 + num), COAP_CODE_CONTENT);
        struct coap_block blk;
        CHECK_EQ(wren_coap_block_decode(opt_u(COAP_OPT_BLOCK2), &blk), 0);
        CHECK(got + resp.payload_len < sizeof(text));
        memcpy(text + got, resp.payload, resp.payload_len);
        got += resp.payload_len;
        if (!blk.more) {
            break;
        }
    }
    text[got] = '\0';
    CHECK(got > 256);
    CHECK(strstr(text, "\nudp.rx ") != NULL);
    CHECK(strstr(text, "\ncoap.req ") != NULL);
    CHECK(strstr(text, "pktbuf.") == text);
    FX_CLEAN(1000000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        CTEST(test_counter__get_post_put_delete),
        CTEST(test_message__non_ping_and_rejects),
        CTEST(test_options__critical_proxy_accept_method),
        CTEST(test_dedup__replay_and_full_cache),
        CTEST(test_block2__pattern_every_size),
        CTEST(test_block1__atomic_upload_and_broken_sequences),
        CTEST(test_observe__register_notify_deregister),
        CTEST(test_wellknown__link_format_and_resources),
        CTEST(test_resources__table_made_by_the_first_beyond_the_defaults),
        CTEST(test_wellknown__query_filters_and_location),
        CTEST(test_separate__empty_ack_then_con_response),
        CTEST(test_stats__streamed_counters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

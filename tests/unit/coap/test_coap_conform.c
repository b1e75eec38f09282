/**
 * @file test_coap_conform.c
 * @brief The CoAP server against the letter of RFC 7252, 7641 and 7959
 *        (issue [conform]): Accept for every method (4.06) and resources of
 *        several formats, Content-Formats a resource takes (4.15), ETag
 *        validation (2.03), reserved block sizes (4.00), requests too large
 *        (4.13 with Size1), duplicate NONs, observers by endpoint and token,
 *        and a duplicate cache that cannot deny service.
 */
#include "coap_rq.h"

static int calls; /* handler runs of the test resource */

static void multi_handler(struct wren_coap *c, const struct wren_coap_req *req,
                          struct wren_coap_resp *rsp, void *arg)
{
    (void)c;
    (void)arg;
    calls++;
    if (req->method == COAP_CODE_GET) {
        bool json = rsp->cf == COAP_CF_JSON;
        wren_coap_resp_write(rsp, json ? "{}" : "t", json ? 2 : 1);
        rsp->etag[0] = json ? 'j' : 't';
        rsp->etag_len = 1;
        rsp->max_age = 30;
        rsp->has_max_age = 1;
    }
}

static const int16_t multi_cfs[] = { COAP_CF_TEXT, COAP_CF_JSON, -1 };
static const int16_t text_only[] = { COAP_CF_TEXT, -1 };
static const struct wren_coap_resource multi = {
    .path = "/multi", .methods = WREN_COAP_GET | WREN_COAP_POST | WREN_COAP_PUT,
    .cf = COAP_CF_TEXT, .cfs = multi_cfs, .accepts = text_only, .handler = multi_handler,
};

TEST(test_accept__checked_for_every_method)
{
    calls = 0;
    /* RFC 7252 5.10.4: a POST or PUT asking for a format the resource
     * cannot produce is refused and not executed */
    CHECK(RQ(.mid = 1, .code = COAP_CODE_POST, .path = "/counter", .accept = COAP_CF_JSON) > 0);
    check_piggyback(1, COAP_CODE_NOT_ACCEPTABLE);
    CHECK(RQ(.mid = 2, .code = COAP_CODE_PUT, .path = "/counter", .accept = COAP_CF_JSON,
             .payload = "5", .plen = 1) > 0);
    check_piggyback(2, COAP_CODE_NOT_ACCEPTABLE);
    CHECK(RQ(.mid = 3, .code = COAP_CODE_DELETE, .path = "/counter", .accept = COAP_CF_CBOR) > 0);
    check_piggyback(3, COAP_CODE_NOT_ACCEPTABLE);
    CHECK_EQ(srv->counter, 0);
    CHECK(RQ(.mid = 4, .code = COAP_CODE_POST, .path = "/counter", .accept = COAP_CF_TEXT) > 0);
    check_piggyback(4, COAP_CODE_CHANGED);
    CHECK_EQ(srv->counter, 1);
    CHECK_EQ(srv->stats.req_not_acceptable, 3);

    /* a resource of several formats: the one asked for, else its default */
    CHECK_EQ(wren_coap_resource_add(srv, &multi), 0);
    CHECK(RQ(.mid = 5, .path = "/multi", .accept = COAP_CF_JSON) > 0);
    check_piggyback(5, COAP_CODE_CONTENT);
    CHECK_EQ(opt_u(COAP_OPT_CONTENT_FORMAT), COAP_CF_JSON);
    CHECK(payload_is("{}"));
    CHECK(RQ(.mid = 6, .path = "/multi") > 0);
    CHECK_EQ(opt_u(COAP_OPT_CONTENT_FORMAT), COAP_CF_TEXT);
    CHECK(payload_is("t"));
    CHECK(RQ(.mid = 7, .path = "/multi", .accept = COAP_CF_LINK_FORMAT) > 0);
    check_piggyback(7, COAP_CODE_NOT_ACCEPTABLE);
    CHECK(RQ(.mid = 8, .code = COAP_CODE_POST, .path = "/multi", .accept = COAP_CF_CBOR) > 0);
    check_piggyback(8, COAP_CODE_NOT_ACCEPTABLE);
    CHECK_EQ(calls, 2);
    CHECK_EQ(srv->stats.req_not_acceptable, 5);

    /* link format lists every format, and ct= filters on any of them */
    CHECK(RQ(.mid = 9, .path = "/.well-known/core", .query = "ct=50") > 0);
    CHECK(payload_is("</multi>;ct=\"0 50\""));
    CHECK(RQ(.mid = 10, .path = "/.well-known/core", .query = "href=/multi") > 0);
    CHECK(payload_is("</multi>;ct=\"0 50\""));
    FX_CLEAN(1000000);
}

TEST(test_content_format__refused_on_post_put)
{
    calls = 0;
    CHECK_EQ(wren_coap_resource_add(srv, &multi), 0);
    /* RFC 7252 5.9.2.10: a payload in a format the resource does not take */
    CHECK(RQ(.mid = 1, .code = COAP_CODE_PUT, .path = "/multi", .cf = COAP_CF_JSON,
             .payload = "{}", .plen = 2) > 0);
    check_piggyback(1, COAP_CODE_UNSUPPORTED_FORMAT);
    CHECK(RQ(.mid = 2, .code = COAP_CODE_POST, .path = "/multi", .cf = COAP_CF_OCTETS,
             .payload = "x", .plen = 1) > 0);
    check_piggyback(2, COAP_CODE_UNSUPPORTED_FORMAT);
    CHECK_EQ(calls, 0);
    CHECK_EQ(srv->stats.req_unsupported_cf, 2);
    /* the one it takes, and none named (the handler's to judge) */
    CHECK(RQ(.mid = 3, .code = COAP_CODE_PUT, .path = "/multi", .cf = COAP_CF_TEXT,
             .payload = "x", .plen = 1) > 0);
    check_piggyback(3, COAP_CODE_CHANGED);
    CHECK(RQ(.mid = 4, .code = COAP_CODE_PUT, .path = "/multi", .payload = "x", .plen = 1) > 0);
    check_piggyback(4, COAP_CODE_CHANGED);
    CHECK_EQ(calls, 2);
    CHECK_EQ(srv->stats.req_unsupported_cf, 2);
    FX_CLEAN(1000000);
}

TEST(test_etag__valid_for_a_current_one)
{
    calls = 0;
    static const uint8_t zero[4] = { 0 }, other[4] = { 9, 9, 9, 9 };
    struct coap_opt o;
    /* RFC 7252 5.10.6.2: the ETag the handler gives is one the GET listed:
     * 2.03 with that ETag, no payload, no Content-Format */
    CHECK(RQ(.mid = 1, .path = "/counter", .etag = zero, .etag_len = 4) > 0);
    check_piggyback(1, COAP_CODE_VALID);
    CHECK_EQ(resp.payload_len, 0);
    CHECK(wren_coap_opt_find(&resp, COAP_OPT_ETAG, &o) == 1 && o.len == 4 &&
          memcmp(o.val, zero, 4) == 0);
    CHECK_EQ(wren_coap_opt_find(&resp, COAP_OPT_CONTENT_FORMAT, &o), 0);
    /* any of several (plugtest CORE_21: the client keeps a few) */
    CHECK(RQ(.mid = 2, .path = "/counter", .etag = other, .etag2 = zero, .etag_len = 4) > 0);
    check_piggyback(2, COAP_CODE_VALID);
    /* once it changed: 2.05 with the new one */
    CHECK(RQ(.mid = 3, .code = COAP_CODE_POST, .path = "/counter") > 0);
    CHECK(RQ(.mid = 4, .path = "/counter", .etag = zero, .etag_len = 4) > 0);
    check_piggyback(4, COAP_CODE_CONTENT);
    CHECK(payload_is("1"));
    CHECK(wren_coap_opt_find(&resp, COAP_OPT_ETAG, &o) == 1 && o.len == 4 && o.val[3] == 1);
    /* with the handler's Max-Age, per format */
    CHECK_EQ(wren_coap_resource_add(srv, &multi), 0);
    CHECK(RQ(.mid = 5, .path = "/multi", .accept = COAP_CF_JSON, .etag = (const uint8_t *)"j",
             .etag_len = 1) > 0);
    check_piggyback(5, COAP_CODE_VALID);
    CHECK_EQ(opt_u(COAP_OPT_MAX_AGE), 30);
    CHECK_EQ(resp.payload_len, 0);
    CHECK(RQ(.mid = 6, .path = "/multi", .etag = (const uint8_t *)"j", .etag_len = 1) > 0);
    check_piggyback(6, COAP_CODE_CONTENT);
    CHECK(payload_is("t"));
    CHECK_EQ(srv->stats.req_valid, 3);
    FX_CLEAN(1000000);
}

TEST(test_block__szx7_bad_request)
{
    /* RFC 7959 2.2: SZX 7 is reserved: 4.00, nothing executed */
    CHECK(RQ(.mid = 1, .path = "/pattern", .block2 = 0x07) > 0);
    check_piggyback(1, COAP_CODE_BAD_REQUEST);
    CHECK(RQ(.mid = 2, .path = "/pattern", .block2 = 0x37) > 0);
    check_piggyback(2, COAP_CODE_BAD_REQUEST);
    CHECK(RQ(.mid = 3, .code = COAP_CODE_POST, .path = "/counter", .block1 = 0x07,
             .payload = "x", .plen = 1) > 0);
    check_piggyback(3, COAP_CODE_BAD_REQUEST);
    static uint8_t blk[32];
    CHECK(RQ(.mid = 4, .code = COAP_CODE_PUT, .path = "/pattern", .block1 = 0x0f, .payload = blk,
             .plen = sizeof(blk)) > 0);
    check_piggyback(4, COAP_CODE_BAD_REQUEST);
    CHECK_EQ(srv->counter, 0);
    CHECK_EQ(srv->pattern_len, CONFIG_WREN_COAP_PATTERN_LEN);
    CHECK_EQ(srv->stats.req_bad_szx, 4);
    CHECK_EQ(srv->stats.req, 0);
    /* SZX 6 is fine */
    CHECK(RQ(.mid = 5, .path = "/pattern", .block2 = 0x16) > 0);
    check_piggyback(5, COAP_CODE_CONTENT);
    CHECK_EQ(resp.payload_len, 1024);
    FX_CLEAN(1000000);
}

/* The Observe value of resp (-1: none). */
static int32_t observe_of(void)
{
    struct coap_opt o;
    uint32_t v;
    if (!wren_coap_opt_find(&resp, COAP_OPT_OBSERVE, &o) || wren_coap_opt_uint(&o, &v) < 0) {
        return -1;
    }
    return (int32_t)v;
}

TEST(test_observe__endpoint_and_token)
{
    const struct wren_coap_resource *counter = srv->res[0];
    CHECK(strcmp(counter->path, "/counter") == 0);
    /* RFC 7641 4.1: one endpoint, two tokens: two observers */
    CHECK(RQ(.mid = 1, .path = "/counter", .observe = 0) > 0);
    check_piggyback(1, COAP_CODE_CONTENT);
    CHECK(observe_of() >= 0);
    CHECK(RQ(.mid = 2, .path = "/counter", .observe = 0, .tok = "t2") > 0);
    CHECK(resp.code == COAP_CODE_CONTENT && resp.tkl == 2 && memcmp(resp.token, "t2", 2) == 0);
    CHECK(observe_of() >= 0);
    CHECK_EQ(srv->stats.obs_add, 2);
    /* a change: each hears of it, with the handler's ETag */
    srv->counter = 5;
    CHECK_EQ(wren_coap_notify(srv, counter), 2);
    fx_run_us(10000);
    unsigned seen = 0;
    uint32_t last = 0;
    while (notification() > 0) {
        seen |= memcmp(resp.token, "tk", 2) == 0 ? 1u : memcmp(resp.token, "t2", 2) == 0 ? 2u : 4u;
        CHECK(payload_is("5"));
        struct coap_opt e;
        CHECK(wren_coap_opt_find(&resp, COAP_OPT_ETAG, &e) == 1 && e.len == 4 && e.val[3] == 5);
        CHECK(observe_of() >= 0);
        last = (uint32_t)observe_of();
        cli_send_empty(COAP_ACK, resp.mid);
    }
    CHECK_EQ(seen, 3u);
    /* RFC 7641 4.4: a re-registration (same endpoint and token) is newer
     * than the last notification, and no new observer */
    CHECK(RQ(.mid = 3, .path = "/counter", .observe = 0) > 0);
    check_piggyback(3, COAP_CODE_CONTENT);
    CHECK(observe_of() >= 0);
    CHECK(wren_coap_observe_fresher(last, 0, (uint32_t)observe_of(), 0));
    CHECK_EQ(srv->stats.obs_add, 2);
    /* each token ends its own */
    CHECK(RQ(.mid = 4, .path = "/counter", .tok = "t2") > 0);
    CHECK_EQ(srv->stats.obs_remove, 1);
    CHECK_EQ(wren_coap_notify(srv, counter), 1);
    fx_run_us(10000);
    CHECK(notification() > 0 && memcmp(resp.token, "tk", 2) == 0);
    cli_send_empty(COAP_ACK, resp.mid);
    CHECK(RQ(.mid = 5, .path = "/counter") > 0);
    CHECK_EQ(wren_coap_notify(srv, counter), 0);
    FX_CLEAN(1000000);
}

TEST(test_dedup__duplicate_non_ignored)
{
    /* RFC 7252 4.5: a NON's duplicate is ignored, not answered again */
    CHECK(RQ(.type = COAP_NON, .mid = 7, .code = COAP_CODE_POST, .path = "/counter") > 0);
    CHECK(resp.type == COAP_NON && payload_is("1"));
    CHECK_EQ(RQ(.type = COAP_NON, .mid = 7, .code = COAP_CODE_POST, .path = "/counter"), 0);
    CHECK_EQ(RQ(.type = COAP_NON, .mid = 7, .path = "/counter"), 0);
    CHECK_EQ(srv->counter, 1);
    CHECK_EQ(srv->stats.rx_dup_non, 2);
    /* a CON's is answered from the cache, never executed twice */
    CHECK(RQ(.mid = 8, .code = COAP_CODE_POST, .path = "/counter") > 0);
    CHECK(RQ(.mid = 8, .code = COAP_CODE_POST, .path = "/counter") > 0);
    check_piggyback(8, COAP_CODE_CHANGED);
    CHECK(payload_is("2"));
    CHECK_EQ(srv->counter, 2);
    CHECK_EQ(srv->stats.rx_dup, 1);
    /* after NON_LIFETIME the NON's message ID is a new one */
    fx_run_us(CONFIG_WREN_COAP_NON_LIFETIME_MS * 1000ull);
    CHECK(RQ(.type = COAP_NON, .mid = 7, .code = COAP_CODE_POST, .path = "/counter") > 0);
    CHECK_EQ(srv->counter, 3);
    FX_CLEAN(1000000);
}

/* Send a CON @p code to @p path from @p s with message ID @p mid; the
 * answer's code (0: none), its Max-Age in *max_age (when given). */
static uint8_t from_ep(struct wren_sock_udp *s, uint8_t code, uint16_t mid, const char *path,
                       uint32_t *max_age)
{
    struct wren_sock_udp_ep to = { .port = COAP_PORT };
    memcpy(to.addr, lo, 16);
    uint8_t b[32];
    struct coap_builder bld;
    wren_coap_build_init(&bld, b, sizeof(b), COAP_CON, code, mid, NULL, 0);
    wren_coap_build_opt_path(&bld, COAP_OPT_URI_PATH, path);
    if (code == COAP_CODE_PUT) {
        wren_coap_build_payload(&bld, "9", 1);
    }
    int n = wren_coap_build_end(&bld);
    CHECK_EQ(wren_sock_udp_send(s, b, (size_t)n, &to), n);
    fx_run_us(10000);
    ssize_t k = wren_sock_udp_recv(s, rbuf, sizeof(rbuf), 0, NULL);
    if (k == -EAGAIN) {
        return 0;
    }
    CHECK(k > 0);
    CHECK_EQ(wren_coap_parse(rbuf, (size_t)k, &resp), 0);
    if (max_age) {
        *max_age = opt_u(COAP_OPT_MAX_AGE);
    }
    return resp.code;
}

TEST(test_dedup__full_cache_serves_idempotent)
{
    enum { N = CONFIG_WREN_COAP_DEDUP };
    struct wren_sock_udp s[N + 1];
    for (int i = 0; i <= N; i++) {
        struct wren_sock_udp_ep l = { .port = (uint16_t)(41000 + i) };
        CHECK_EQ(wren_sock_udp_create(node, &s[i], &l, NULL), 0);
    }
    /* a POST from each of N endpoints: every slot holds a response that
     * must be remembered for EXCHANGE_LIFETIME */
    for (int i = 0; i < N; i++) {
        CHECK_EQ(from_ep(&s[i], COAP_CODE_POST, 1, "counter", NULL), COAP_CODE_CHANGED);
    }
    CHECK_EQ(srv->counter, N);
    /* a new client's GET, PUT and DELETE are served all the same */
    fx_run_us(1000000);
    CHECK_EQ(from_ep(&s[N], COAP_CODE_GET, 1, "counter", NULL), COAP_CODE_CONTENT);
    CHECK_EQ(from_ep(&s[N], COAP_CODE_GET, 2, "stats", NULL), COAP_CODE_CONTENT);
    CHECK_EQ(from_ep(&s[N], COAP_CODE_PUT, 3, "counter", NULL), COAP_CODE_CHANGED);
    CHECK_EQ(from_ep(&s[N], COAP_CODE_DELETE, 4, "counter", NULL), COAP_CODE_DELETED);
    CHECK_EQ(srv->stats.dedup_unstored, 4);
    CHECK_EQ(srv->stats.req_busy, 0);
    /* its POST is refused, not executed, with the seconds until the oldest
     * slot expires */
    uint32_t wait = 0;
    CHECK_EQ(from_ep(&s[N], COAP_CODE_POST, 5, "counter", &wait), COAP_CODE_SERVICE_UNAVAILABLE);
    CHECK_EQ(srv->counter, 0);
    CHECK_EQ(srv->stats.req_busy, 1);
    CHECK(wait >= CONFIG_WREN_COAP_EXCHANGE_LIFETIME_MS / 1000u - 2 &&
          wait <= CONFIG_WREN_COAP_EXCHANGE_LIFETIME_MS / 1000u);
    /* the POSTs' duplicates still get their responses, not executed again */
    fx_run_us(100 * 1000000ull);
    for (int i = 0; i < N; i++) {
        CHECK_EQ(from_ep(&s[i], COAP_CODE_POST, 1, "counter", NULL), COAP_CODE_CHANGED);
    }
    CHECK_EQ(srv->counter, 0);
    CHECK_EQ(srv->stats.rx_dup, N);
    CHECK_EQ(from_ep(&s[N], COAP_CODE_POST, 6, "counter", &wait), COAP_CODE_SERVICE_UNAVAILABLE);
    CHECK(wait >= CONFIG_WREN_COAP_EXCHANGE_LIFETIME_MS / 1000u - 102 &&
          wait <= CONFIG_WREN_COAP_EXCHANGE_LIFETIME_MS / 1000u - 100);
    /* when it says: served */
    fx_run_us((uint64_t)wait * 1000000u);
    CHECK_EQ(from_ep(&s[N], COAP_CODE_POST, 7, "counter", NULL), COAP_CODE_CHANGED);
    CHECK_EQ(srv->counter, 1);
    CHECK_EQ(srv->stats.dedup_evicted, 0);
    /* a full cache of idempotent exchanges gives up the oldest for a POST */
    fx_run_us(CONFIG_WREN_COAP_EXCHANGE_LIFETIME_MS * 1000ull);
    for (int i = 0; i < N; i++) {
        CHECK_EQ(from_ep(&s[i], COAP_CODE_GET, 2, "counter", NULL), COAP_CODE_CONTENT);
    }
    CHECK_EQ(from_ep(&s[N], COAP_CODE_POST, 8, "counter", NULL), COAP_CODE_CHANGED);
    CHECK_EQ(srv->stats.dedup_evicted, 1);
    for (int i = 0; i <= N; i++) {
        wren_sock_udp_close(&s[i]);
    }
    FX_CLEAN(1000000);
}

/* Send @p n bytes of a message: @p type, @p code, token "tk", Uri-Path
 * @p path, a Uri-Query of @p qlen bytes when not 0, then a payload of
 * @p plen bytes. @return what came back (resp), 0: nothing. */
static ssize_t send_big(uint8_t type, uint8_t code, const char *path, size_t qlen, size_t plen)
{
    static uint8_t b[1500], fill[1400];
    memset(fill, 'a', sizeof(fill));
    struct coap_builder bld;
    wren_coap_build_init(&bld, b, sizeof(b), type, code, 0x4242, (const uint8_t *)"tk", 2);
    wren_coap_build_opt_path(&bld, COAP_OPT_URI_PATH, path);
    if (qlen) {
        wren_coap_build_opt(&bld, COAP_OPT_URI_QUERY, fill, qlen);
    }
    wren_coap_build_payload(&bld, fill, plen);
    int n = wren_coap_build_end(&bld);
    CHECK(n > CONFIG_WREN_COAP_MSG_MAX);
    return xchg(b, (size_t)n);
}

TEST(test_too_large__datagram_beyond_the_buffer)
{
    /* RFC 7252 5.9.2.9: 4.13 with Size1, the largest body that fits the
     * server's message with this request's header, token and options
     * (4 + 2 + 8 + the marker) */
    CHECK(send_big(COAP_CON, COAP_CODE_PUT, "counter", 0, 1300) > 0);
    check_piggyback(0x4242, COAP_CODE_TOO_LARGE);
    CHECK_EQ(opt_u(COAP_OPT_SIZE1), CONFIG_WREN_COAP_MSG_MAX - 15);
    CHECK_EQ(resp.payload_len, 0);
    CHECK(send_big(COAP_NON, COAP_CODE_POST, "counter", 0, 1300) > 0);
    CHECK(resp.type == COAP_NON && resp.code == COAP_CODE_TOO_LARGE);
    CHECK(resp.tkl == 2 && memcmp(resp.token, "tk", 2) == 0);
    /* options beyond the buffer: Size1 as for no options */
    CHECK(send_big(COAP_CON, COAP_CODE_GET, "counter", 1200, 0) > 0);
    check_piggyback(0x4242, COAP_CODE_TOO_LARGE);
    CHECK_EQ(opt_u(COAP_OPT_SIZE1), CONFIG_WREN_COAP_MSG_MAX - 7);
    /* not a request: dropped, counted */
    CHECK_EQ(send_big(COAP_CON, COAP_CODE_CONTENT, "counter", 0, 1300), 0);
    CHECK_EQ(srv->counter, 0);
    CHECK_EQ(srv->stats.req, 0);
    CHECK_EQ(srv->stats.rx_drop_big, 4);
    CHECK_EQ(srv->stats.req_too_large, 3);
    FX_CLEAN(1000000);
}

TEST(test_too_large__block1_without_support)
{
    /* RFC 7959 2.9.3, 4: a body in blocks for a resource that takes none:
     * 4.13 with Size1 (4 + 2 + Uri-Path 8 + Block1 3 + the marker) */
    static uint8_t blk[64];
    CHECK(RQ(.mid = 1, .code = COAP_CODE_PUT, .path = "/counter", .block1 = 0x0a, .payload = blk,
             .plen = sizeof(blk)) > 0);
    check_piggyback(1, COAP_CODE_TOO_LARGE);
    CHECK_EQ(opt_u(COAP_OPT_SIZE1), CONFIG_WREN_COAP_MSG_MAX - 18);
    CHECK_EQ(wren_coap_opt_find(&resp, COAP_OPT_BLOCK1, &(struct coap_opt){ 0 }), 0);
    CHECK_EQ(srv->stats.req_too_large, 1);
    CHECK_EQ(srv->counter, 0);
    FX_CLEAN(1000000);
}

static void small_handler(struct wren_coap *c, const struct wren_coap_req *req,
                          struct wren_coap_resp *rsp, void *arg)
{
    (void)c;
    (void)arg;
    calls++;
    if (req->payload_len > 8) {
        rsp->code = COAP_CODE_TOO_LARGE; /* its own body limit */
        rsp->size1 = 8;
    }
}

static const struct wren_coap_resource small = {
    .path = "/small", .methods = WREN_COAP_PUT, .cf = -1, .handler = small_handler,
};

TEST(test_too_large__handler_body_limit)
{
    /* a handler's 4.13 carries the Size1 it sets (RFC 7252 5.9.2.9) */
    calls = 0;
    CHECK_EQ(wren_coap_resource_add(srv, &small), 0);
    CHECK(RQ(.mid = 1, .code = COAP_CODE_PUT, .path = "/small", .payload = "123456789",
             .plen = 9) > 0);
    check_piggyback(1, COAP_CODE_TOO_LARGE);
    CHECK_EQ(opt_u(COAP_OPT_SIZE1), 8);
    CHECK(RQ(.mid = 2, .code = COAP_CODE_PUT, .path = "/small", .payload = "1234", .plen = 4) > 0);
    check_piggyback(2, COAP_CODE_CHANGED);
    CHECK_EQ(wren_coap_opt_find(&resp, COAP_OPT_SIZE1, &(struct coap_opt){ 0 }), 0);
    CHECK_EQ(calls, 2);
    FX_CLEAN(1000000);
}

/* ---- Block2 on a POST's answer (RFC 7959 2.6) ---------------------------------------- */

static unsigned executed, written_again;

/* 1,500 bytes of pattern, its POST counted; with req->again written again */
static void big_handler(struct wren_coap *c, const struct wren_coap_req *req,
                        struct wren_coap_resp *rsp, void *arg)
{
    (void)c;
    (void)arg;
    if (req->again) {
        written_again++;
    } else {
        executed++;
    }
    for (unsigned i = 0; i < 1500; i++) {
        uint8_t v = (uint8_t)(i * 7u + 3u);
        wren_coap_resp_write(rsp, &v, 1);
    }
}

static const struct wren_coap_resource big = {
    .path = "/big", .methods = WREN_COAP_POST | WREN_COAP_PUT, .cf = -1, .replays = true,
    .handler = big_handler,
};
static const struct wren_coap_resource big_once = {
    .path = "/big-once", .methods = WREN_COAP_POST, .cf = -1, .handler = big_handler,
};

/* resp's Block2 is @p num/@p more/@p size and its payload that part of 1,500 */
static void check_block(uint32_t num, bool more, unsigned size)
{
    struct coap_block b;
    CHECK_EQ(wren_coap_block_decode(opt_u(COAP_OPT_BLOCK2), &b), 0);
    CHECK_EQ(b.num, num);
    CHECK_EQ(b.more, more);
    CHECK_EQ(COAP_BLOCK_SIZE(b.szx), size);
    size_t off = (size_t)num * size, n = more ? size : 1500 - off;
    CHECK_EQ(resp.payload_len, n);
    for (size_t i = 0; i < n; i++) {
        CHECK_EQ(resp.payload[i], (uint8_t)((off + i) * 7u + 3u));
    }
}

TEST(test_block2__post_answer_in_blocks)
{
    executed = written_again = 0;
    CHECK_EQ(wren_coap_resource_add(srv, &big), 0);
    /* beyond a message: block 0 with Block2 M=1 and Size2, never cut */
    CHECK(RQ(.mid = 1, .code = COAP_CODE_POST, .path = "/big", .payload = "x", .plen = 1) > 0);
    check_piggyback(1, COAP_CODE_CHANGED);
    CHECK_EQ(opt_u(COAP_OPT_SIZE2), 1500);
    struct coap_block b0;
    CHECK_EQ(wren_coap_block_decode(opt_u(COAP_OPT_BLOCK2), &b0), 0);
    unsigned size = COAP_BLOCK_SIZE(b0.szx);
    check_block(0, true, size);
    /* the later blocks: the POST again with Block2 NUM > 0, not executed */
    uint32_t num = 1;
    for (; (size_t)(num + 1) * size < 1500; num++) {
        CHECK(RQ(.mid = (uint16_t)(1 + num), .code = COAP_CODE_POST, .path = "/big",
                 .block2 = (int32_t)(num << 4 | b0.szx)) > 0);
        check_piggyback((uint16_t)(1 + num), COAP_CODE_CHANGED);
        check_block(num, true, size);
    }
    CHECK(RQ(.mid = 20, .code = COAP_CODE_POST, .path = "/big",
             .block2 = (int32_t)(num << 4 | b0.szx)) > 0);
    check_piggyback(20, COAP_CODE_CHANGED);
    check_block(num, false, size);
    CHECK_EQ(executed, 1);
    CHECK_EQ(written_again, num);
    CHECK_EQ(srv->stats.req_block2_later, num);
    /* the block size a PUT asks for (Block2 control, SZX 2): 64-byte blocks */
    CHECK(RQ(.mid = 21, .code = COAP_CODE_PUT, .path = "/big", .block2 = 2, .payload = "y",
             .plen = 1) > 0);
    check_piggyback(21, COAP_CODE_CHANGED);
    check_block(0, true, 64);
    CHECK(RQ(.mid = 22, .code = COAP_CODE_PUT, .path = "/big", .block2 = 23 << 4 | 2) > 0);
    check_piggyback(22, COAP_CODE_CHANGED);
    check_block(23, false, 64);
    CHECK_EQ(executed, 2);
    FX_CLEAN(1000000);
}

TEST(test_block2__post_answer_not_written_again)
{
    /* a resource that cannot write its answer again: 5.00, counted, never a
     * cut answer; a later block asked for is 4.02 and not executed */
    executed = written_again = 0;
    CHECK_EQ(wren_coap_resource_add(srv, &big_once), 0);
    CHECK(RQ(.mid = 1, .code = COAP_CODE_POST, .path = "/big-once", .payload = "x",
             .plen = 1) > 0);
    check_piggyback(1, COAP_CODE_INTERNAL_ERROR);
    CHECK_EQ(resp.payload_len, 0);
    CHECK_EQ(srv->stats.resp_too_large, 1);
    CHECK(RQ(.mid = 2, .code = COAP_CODE_POST, .path = "/big-once", .block2 = 1 << 4 | 6) > 0);
    check_piggyback(2, COAP_CODE_BAD_OPTION);
    CHECK_EQ(executed, 1);
    CHECK_EQ(written_again, 0);
    FX_CLEAN(1000000);
}

/* ---- a separate response larger than its slot (RFC 7959 2.4) ------------------------- */

static int later_h = -1;

static void later_handler(struct wren_coap *c, const struct wren_coap_req *req,
                          struct wren_coap_resp *rsp, void *arg)
{
    (void)rsp;
    (void)arg;
    later_h = wren_coap_resp_defer(c, req);
}

static const struct wren_coap_resource later = {
    .path = "/later", .methods = WREN_COAP_GET, .cf = -1, .handler = later_handler,
};

/* a deferred GET of /later (@p mid, Block2 @p block2 or -1) answered with
 * 300 bytes: the CON response that comes, acknowledged */
static void later_exchange(uint16_t mid, int32_t block2, const uint8_t *rep)
{
    CHECK(RQ(.mid = mid, .path = "/later", .block2 = block2) > 0);
    CHECK_EQ(resp.code, COAP_CODE_EMPTY);
    CHECK(later_h >= 0);
    CHECK_EQ(wren_coap_resp_separate(srv, later_h, COAP_CODE_CONTENT, -1, rep, 300), 0);
    fx_run_us(10000);
    ssize_t n = notification();
    CHECK(n > 0 && n <= CONFIG_WREN_COAP_SEPARATE_BYTES);
    CHECK_EQ(resp.type, COAP_CON);
    CHECK_EQ(resp.code, COAP_CODE_CONTENT);
    cli_send_empty(COAP_ACK, resp.mid);
}

TEST(test_separate__beyond_the_slot_in_blocks)
{
    /* before: -EMSGSIZE, the handler had no way to send it */
    uint8_t rep[300], got[300];
    for (unsigned i = 0; i < sizeof(rep); i++) {
        rep[i] = (uint8_t)(i * 13u + 1u);
    }
    CHECK_EQ(wren_coap_resource_add(srv, &later), 0);
    later_exchange(1, -1, rep);
    struct coap_block b;
    CHECK_EQ(wren_coap_block_decode(opt_u(COAP_OPT_BLOCK2), &b), 0);
    CHECK(b.num == 0 && b.more);
    CHECK_EQ(opt_u(COAP_OPT_SIZE2), 300);
    unsigned size = COAP_BLOCK_SIZE(b.szx);
    CHECK(2 * size > CONFIG_WREN_COAP_SEPARATE_BYTES - 20); /* the largest that fits */
    CHECK_EQ(resp.payload_len, size);
    memcpy(got, resp.payload, size);
    /* the client asks for the next blocks: each deferred again, answered whole */
    size_t have = size;
    for (uint32_t num = 1; have < sizeof(rep); num++) {
        later_exchange((uint16_t)(1 + num), (int32_t)(num << 4 | b.szx), rep);
        struct coap_block bn;
        CHECK_EQ(wren_coap_block_decode(opt_u(COAP_OPT_BLOCK2), &bn), 0);
        CHECK_EQ(bn.num, num);
        CHECK(have + resp.payload_len <= sizeof(rep));
        memcpy(got + have, resp.payload, resp.payload_len);
        have += resp.payload_len;
        CHECK_EQ(bn.more, have < sizeof(rep));
    }
    CHECK(memcmp(got, rep, sizeof(rep)) == 0);
    FX_CLEAN(1000000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        CTEST(test_accept__checked_for_every_method),
        CTEST(test_content_format__refused_on_post_put),
        CTEST(test_etag__valid_for_a_current_one),
        CTEST(test_block__szx7_bad_request),
        CTEST(test_observe__endpoint_and_token),
        CTEST(test_dedup__duplicate_non_ignored),
        CTEST(test_dedup__full_cache_serves_idempotent),
        CTEST(test_too_large__datagram_beyond_the_buffer),
        CTEST(test_too_large__block1_without_support),
        CTEST(test_too_large__handler_body_limit),
        CTEST(test_block2__post_answer_in_blocks),
        CTEST(test_block2__post_answer_not_written_again),
        CTEST(test_separate__beyond_the_slot_in_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

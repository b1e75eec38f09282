/* The ETSI CoAP plugtest resources (src/coap/coap_plugtest.c) on the server
 * of a test node: what the Python TDs (tests/py/test_coap_plugtest.py) do not
 * see from outside: no timer while nothing is observed (a simulated node
 * that nobody asks is unchanged), /large-update's atomic update and its
 * limit, /create1's If-None-Match, /obs's DELETE and format change. */
#include "coap_rq.h"

#include "coap/coap_plugtest.h"

static struct wren_coap_plugtest *pt;
static struct wren_sock_udp cli2;

/* @p code on @p path from another client (port 40001): its response's code.
 * (cli, the observer, then gets the notification alone.) */
static uint8_t other(uint8_t code, const char *path, int32_t cf, const char *payload)
{
    uint8_t b[128];
    struct coap_builder bld;
    static uint16_t mid = 0x7000;
    wren_coap_build_init(&bld, b, sizeof(b), COAP_CON, code, mid++, (const uint8_t *)"o", 1);
    wren_coap_build_opt_path(&bld, COAP_OPT_URI_PATH, path);
    if (cf >= 0) {
        wren_coap_build_opt_uint(&bld, COAP_OPT_CONTENT_FORMAT, (uint32_t)cf);
    }
    wren_coap_build_payload(&bld, payload, strlen(payload));
    int n = wren_coap_build_end(&bld);
    struct wren_sock_udp_ep to = { .port = COAP_PORT };
    memcpy(to.addr, lo, 16);
    CHECK_EQ(wren_sock_udp_send(&cli2, b, (size_t)n, &to), n);
    fx_run_us(10000);
    struct coap_msg m;
    ssize_t got = wren_sock_udp_recv(&cli2, b, sizeof(b), 0, NULL);
    CHECK(got > 0);
    CHECK_EQ(wren_coap_parse(b, (size_t)got, &m), 0);
    return m.code;
}

static int pt_setup(void **state)
{
    setup(state);
    pt = calloc(1, sizeof(*pt));
    CHECK_EQ(wren_coap_plugtest_init(node, pt), 0);
    struct wren_sock_udp_ep l = { .port = 40001 };
    CHECK_EQ(wren_sock_udp_create(node, &cli2, &l, NULL), 0);
    return 0;
}

static int pt_teardown(void **state)
{
    wren_sock_udp_close(&cli2);
    wren_coap_plugtest_stop(pt);
    free(pt);
    return teardown(state);
}

#define PTEST(t) cmocka_unit_test_setup_teardown(t, pt_setup, pt_teardown)

TEST(test_plugtest__init_adds_resources_and_no_timer)
{
    CHECK_EQ(srv->n_res, WREN_COAP_N_DEFAULT + WREN_COAP_PLUGTEST_N_RES - 1);
    CHECK(!wren_timer_armed(&pt->obs_timer) && !wren_timer_armed(&pt->sep_timer));
    /* a second instance finds its paths taken */
    static struct wren_coap_plugtest twice;
    CHECK_EQ(wren_coap_plugtest_init(node, &twice), -EEXIST);
    CHECK(RQ(.mid = 1, .path = "/test") > 0);
    check_piggyback(1, COAP_CODE_CONTENT);
    CHECK(RQ(.mid = 2, .path = "/obs") > 0); /* a GET without Observe starts nothing */
    check_piggyback(2, COAP_CODE_CONTENT);
    CHECK(!wren_timer_armed(&pt->obs_timer));
    FX_CLEAN(1000000);
}

TEST(test_plugtest__obs_changes_only_while_observed)
{
    CHECK(RQ(.mid = 1, .path = "/obs", .observe = 0) > 0);
    check_piggyback(1, COAP_CODE_CONTENT);
    CHECK(payload_is("obs 0"));
    CHECK(wren_timer_armed(&pt->obs_timer));
    fx_run_us(5000000);
    CHECK(notification() > 0);
    CHECK_EQ(resp.type, COAP_CON); /* /obs: CON notifications */
    CHECK(payload_is("obs 1"));
    cli_send_empty(COAP_RST, resp.mid); /* the observer goes */
    fx_run_us(5000000);                 /* one change nobody hears: then rest */
    CHECK_EQ(notification(), 0);
    CHECK(!wren_timer_armed(&pt->obs_timer));
    CHECK_EQ(pt->stats.obs_ticks, 2);
    CHECK_EQ(pt->stats.obs_notified, 1);
    FX_CLEAN(1000000);
}

TEST(test_plugtest__obs_delete_and_format_change_end_observations)
{
    CHECK(RQ(.mid = 1, .path = "/obs", .observe = 0) > 0);
    check_piggyback(1, COAP_CODE_CONTENT);
    CHECK_EQ(other(COAP_CODE_DELETE, "/obs", -1, ""), COAP_CODE_DELETED);
    CHECK(notification() > 0);
    CHECK_EQ(resp.type, COAP_CON);
    CHECK_EQ(resp.code, COAP_CODE_NOT_FOUND);
    CHECK(!wren_coap_opt_find(&resp, COAP_OPT_OBSERVE, &(struct coap_opt){ 0 }));
    cli_send_empty(COAP_ACK, resp.mid);
    CHECK(RQ(.mid = 3, .path = "/obs") > 0);
    check_piggyback(3, COAP_CODE_NOT_FOUND);
    /* back (2.01), observed, then given another format: 4.06 to the observer */
    CHECK_EQ(other(COAP_CODE_PUT, "/obs", 0, ""), COAP_CODE_CREATED);
    CHECK(RQ(.mid = 5, .path = "/obs", .observe = 0) > 0);
    check_piggyback(5, COAP_CODE_CONTENT);
    CHECK_EQ(other(COAP_CODE_PUT, "/obs", 41, "<a/>"), COAP_CODE_CHANGED);
    CHECK(notification() > 0);
    CHECK_EQ(resp.code, COAP_CODE_NOT_ACCEPTABLE);
    CHECK(!wren_coap_opt_find(&resp, COAP_OPT_OBSERVE, &(struct coap_opt){ 0 }));
    cli_send_empty(COAP_ACK, resp.mid);
    CHECK(RQ(.mid = 7, .path = "/obs", .accept = 0) > 0);
    check_piggyback(7, COAP_CODE_NOT_ACCEPTABLE);
    CHECK(RQ(.mid = 8, .path = "/obs") > 0);
    CHECK_EQ(opt_u(COAP_OPT_CONTENT_FORMAT), 41);
    CHECK(payload_is("<a/>"));
    CHECK_EQ(pt->stats.obs_404, 1);
    CHECK_EQ(pt->stats.obs_406, 1);
    FX_CLEAN(1000000);
}

/* PUT /large-update in Block1 blocks of 64 bytes (SZX 2) */
static void put_block(uint16_t mid, uint32_t num, bool more, const uint8_t *body, size_t len)
{
    size_t off = num * 64u;
    size_t n = len - off < 64 ? len - off : 64;
    CHECK(RQ(.mid = mid, .code = COAP_CODE_PUT, .path = "/large-update", .cf = 0,
             .block1 = (int32_t)(num << 4 | (more ? 8u : 0u) | 2u), .payload = body + off,
             .plen = n) > 0);
}

TEST(test_plugtest__large_update_is_atomic_and_bounded)
{
    static uint8_t body[CONFIG_WREN_COAP_PLUGTEST_BODY + 64];
    for (size_t i = 0; i < sizeof(body); i++) {
        body[i] = (uint8_t)('a' + i % 26);
    }
    size_t len = 200; /* blocks 0..3, the last of 8 bytes */
    for (uint32_t k = 0; k < 3; k++) {
        put_block((uint16_t)(10 + k), k, true, body, len);
        CHECK_EQ(resp.code, COAP_CODE_CONTINUE);
    }
    /* mid-upload, a GET still reads the old representation */
    CHECK(RQ(.mid = 20, .path = "/large-update", .block2 = 0x02) > 0);
    CHECK(resp.payload_len == 64 && memcmp(resp.payload, "00 wren plugtest", 16) == 0);
    put_block(13, 3, false, body, len);
    CHECK_EQ(resp.code, COAP_CODE_CHANGED);
    CHECK(RQ(.mid = 21, .path = "/large-update") > 0);
    CHECK(resp.payload_len == len && memcmp(resp.payload, body, len) == 0);
    /* beyond what it keeps: 4.13 with Size1, the resource unchanged */
    len = sizeof(body);
    uint32_t k = 0;
    for (; k * 64u < CONFIG_WREN_COAP_PLUGTEST_BODY; k++) {
        put_block((uint16_t)(30 + k), k, true, body, len);
        CHECK_EQ(resp.code, COAP_CODE_CONTINUE);
    }
    put_block((uint16_t)(30 + k), k, true, body, len);
    CHECK_EQ(resp.code, COAP_CODE_TOO_LARGE);
    CHECK_EQ(opt_u(COAP_OPT_SIZE1), CONFIG_WREN_COAP_PLUGTEST_BODY);
    CHECK(RQ(.mid = 99, .path = "/large-update") > 0);
    CHECK(resp.payload_len == 200 && memcmp(resp.payload, body, 200) == 0);
    CHECK_EQ(pt->stats.too_large, 1);
    FX_CLEAN(1000000);
}

TEST(test_plugtest__create1_if_none_match)
{
    CHECK(RQ(.mid = 1, .path = "/create1") > 0);
    check_piggyback(1, COAP_CODE_NOT_FOUND);
    CHECK(RQ(.mid = 2, .code = COAP_CODE_PUT, .path = "/create1", .if_none_match = true,
             .cf = 0, .payload = "one", .plen = 3) > 0);
    check_piggyback(2, COAP_CODE_CREATED);
    CHECK(RQ(.mid = 3, .code = COAP_CODE_PUT, .path = "/create1", .if_none_match = true,
             .cf = 0, .payload = "two", .plen = 3) > 0);
    check_piggyback(3, COAP_CODE_PRECONDITION_FAILED);
    CHECK(RQ(.mid = 4, .code = COAP_CODE_PUT, .path = "/create1", .cf = 42, .payload = "x",
             .plen = 1) > 0);
    check_piggyback(4, COAP_CODE_UNSUPPORTED_FORMAT); /* `accepts`: text/plain */
    CHECK(RQ(.mid = 5, .path = "/create1") > 0);
    CHECK(payload_is("one"));
    CHECK(RQ(.mid = 6, .code = COAP_CODE_DELETE, .path = "/create1") > 0);
    check_piggyback(6, COAP_CODE_DELETED);
    CHECK(RQ(.mid = 7, .code = COAP_CODE_PUT, .path = "/create1", .if_none_match = true,
             .cf = 0, .payload = "three", .plen = 5) > 0);
    check_piggyback(7, COAP_CODE_CREATED);
    CHECK_EQ(pt->stats.precond_failed, 1);
    CHECK_EQ(pt->stats.created, 2);
    FX_CLEAN(1000000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        PTEST(test_plugtest__init_adds_resources_and_no_timer),
        PTEST(test_plugtest__obs_changes_only_while_observed),
        PTEST(test_plugtest__obs_delete_and_format_change_end_observations),
        PTEST(test_plugtest__large_update_is_atomic_and_bounded),
        PTEST(test_plugtest__create1_if_none_match),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

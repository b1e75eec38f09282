/**
 * @file coap_rq.h
 * @brief The CoAP server test harness shared by test_coap_server.c and
 *        test_coap_conform.c: a node with the server, a test socket on port
 *        40000 that sends requests to [::1]:5683 (RQ()) and reads what comes
 *        back (parsed into `resp`). Include once, in a test file.
 */
#ifndef WREN_TEST_COAP_RQ_H
#define WREN_TEST_COAP_RQ_H

#include <errno.h>
#include <stdlib.h>

#include "coap/coap.h"
#include "core/byteorder.h"
#include "fixture.h"
#include "sock/sock_udp.h"
#include "stack/stack.h"

/* RQ() gives defaults that a test may override */
#pragma GCC diagnostic ignored "-Woverride-init"

static const uint8_t lo[16] = { [15] = 1 };

static struct wren_node *node;
static struct wren_coap *srv;
static struct wren_sock_udp cli;
static uint8_t rbuf[CONFIG_WREN_COAP_MSG_MAX];
static struct coap_msg resp;

static int setup(void **state)
{
    fx_setup(state);
    struct fx_node *n = fx_node(FX_IP);
    node = &n->node;
    srv = calloc(1, sizeof(*srv));
    CHECK_EQ(wren_coap_init(node, srv), 0);
    struct wren_sock_udp_ep l = { .port = 40000 };
    CHECK_EQ(wren_sock_udp_create(node, &cli, &l, NULL), 0);
    return 0;
}

static int teardown(void **state)
{
    wren_sock_udp_close(&cli);
    wren_coap_stop(srv);
    free(srv);
    return fx_teardown(state);
}

#define CTEST(t) cmocka_unit_test_setup_teardown(t, setup, teardown)

/* Send @p len bytes to the server and return what came back (0: nothing),
 * parsed into resp when it parses. */
static ssize_t xchg(const uint8_t *req, size_t len)
{
    struct wren_sock_udp_ep to = { .port = COAP_PORT };
    memcpy(to.addr, lo, 16);
    CHECK_EQ(wren_sock_udp_send(&cli, req, len, &to), (ssize_t)len);
    fx_run_us(10000);
    struct wren_sock_udp_ep from;
    ssize_t n = wren_sock_udp_recv(&cli, rbuf, sizeof(rbuf), 0, &from);
    if (n == -EAGAIN) {
        return 0;
    }
    CHECK(n > 0);
    CHECK_EQ(from.port, COAP_PORT);
    CHECK_EQ(wren_coap_parse(rbuf, (size_t)n, &resp), 0);
    /* nothing else came */
    uint8_t more[8];
    CHECK_EQ(wren_sock_udp_recv(&cli, more, sizeof(more), 0, NULL), -EAGAIN);
    return n;
}

/* A request: @p type, @p code, @p mid, token "tk", path, then extra options
 * (already encoded, numbers above Uri-Path's 11 relative to 11), payload. */
struct rq {
    uint8_t type, code;
    uint16_t mid;
    const char *path;
    int32_t accept;       /* -1: none */
    int32_t block2;       /* -1: none */
    const void *payload;
    size_t plen;
    const uint8_t *if_match;
    size_t if_match_len;
    bool if_none_match;
    uint16_t extra_opt;   /* 0: none; else an empty option of that number (ordered) */
    int32_t block1;       /* -1: none */
    int32_t observe;      /* -1: none */
    const char *query;    /* "a=b&c" as Uri-Query options, or NULL */
    int32_t cf;           /* Content-Format, -1: none */
    const uint8_t *etag;  /* ETag options: etag_len bytes each of etag, etag2 (NULL: none) */
    const uint8_t *etag2;
    size_t etag_len;
    const char *tok;      /* the token, NULL: "tk" */
};

static ssize_t request(const struct rq *r)
{
    uint8_t b[1200];
    struct coap_builder bld;
    const char *tok = r->tok ? r->tok : "tk";
    wren_coap_build_init(&bld, b, sizeof(b), r->type, r->code, r->mid, (const uint8_t *)tok,
                         (uint8_t)strlen(tok));
    if (r->if_match) {
        wren_coap_build_opt(&bld, COAP_OPT_IF_MATCH, r->if_match, r->if_match_len);
    }
    for (unsigned k = 0; k < 2; k++) {
        const uint8_t *e = k ? r->etag2 : r->etag;
        if (e) {
            wren_coap_build_opt(&bld, COAP_OPT_ETAG, e, r->etag_len);
        }
    }
    if (r->extra_opt && r->extra_opt < COAP_OPT_IF_NONE_MATCH) {
        wren_coap_build_opt(&bld, r->extra_opt, "", 0);
    }
    if (r->if_none_match) {
        wren_coap_build_opt(&bld, COAP_OPT_IF_NONE_MATCH, NULL, 0);
    }
    if (r->observe >= 0) {
        wren_coap_build_opt_uint(&bld, COAP_OPT_OBSERVE, (uint32_t)r->observe);
    }
    if (r->extra_opt && r->extra_opt > COAP_OPT_IF_NONE_MATCH && r->extra_opt < COAP_OPT_URI_PATH) {
        wren_coap_build_opt(&bld, r->extra_opt, "", 0);
    }
    if (r->path) {
        wren_coap_build_opt_path(&bld, COAP_OPT_URI_PATH, r->path);
    }
    if (r->cf >= 0) {
        wren_coap_build_opt_uint(&bld, COAP_OPT_CONTENT_FORMAT, (uint32_t)r->cf);
    }
    if (r->query) {
        wren_coap_build_opt_query(&bld, COAP_OPT_URI_QUERY, r->query);
    }
    if (r->extra_opt > COAP_OPT_URI_PATH && r->extra_opt < COAP_OPT_ACCEPT) {
        wren_coap_build_opt(&bld, r->extra_opt, "x", 1);
    }
    if (r->accept >= 0) {
        wren_coap_build_opt_uint(&bld, COAP_OPT_ACCEPT, (uint32_t)r->accept);
    }
    if (r->block2 >= 0) {
        wren_coap_build_opt_uint(&bld, COAP_OPT_BLOCK2, (uint32_t)r->block2);
    }
    if (r->extra_opt > COAP_OPT_BLOCK2 && r->extra_opt < COAP_OPT_BLOCK1) {
        wren_coap_build_opt(&bld, r->extra_opt, "x", 1);
    }
    if (r->block1 >= 0) {
        wren_coap_build_opt_uint(&bld, COAP_OPT_BLOCK1, (uint32_t)r->block1);
    }
    if (r->extra_opt > COAP_OPT_BLOCK1) {
        wren_coap_build_opt(&bld, r->extra_opt, "x", 1);
    }
    wren_coap_build_payload(&bld, r->payload, r->plen);
    int n = wren_coap_build_end(&bld);
    CHECK(n > 0);
    return xchg(b, (size_t)n);
}

#define RQ(...) request(&(struct rq){ .type = COAP_CON, .code = COAP_CODE_GET, .accept = -1,     \
                                      .block2 = -1, .block1 = -1, .observe = -1, .cf = -1,      \
                                      __VA_ARGS__ })

static uint32_t opt_u(uint16_t num)
{
    struct coap_opt o;
    uint32_t v = 0xdeadbeef;
    if (wren_coap_opt_find(&resp, num, &o)) {
        CHECK_EQ(wren_coap_opt_uint(&o, &v), 0);
    }
    return v;
}

static void check_piggyback(uint16_t mid, uint8_t code)
{
    CHECK_EQ(resp.type, COAP_ACK);
    CHECK_EQ(resp.mid, mid);
    CHECK_EQ(resp.code, code);
    CHECK_EQ(resp.tkl, 2);
    CHECK(memcmp(resp.token, "tk", 2) == 0);
}

static bool payload_is(const char *s)
{
    return resp.payload_len == strlen(s) &&
           (resp.payload_len == 0 || memcmp(resp.payload, s, resp.payload_len) == 0);
}

/* The notification cli got (parsed into resp), or 0. */
static ssize_t notification(void)
{
    ssize_t n = wren_sock_udp_recv(&cli, rbuf, sizeof(rbuf), 0, NULL);
    if (n == -EAGAIN) {
        return 0;
    }
    CHECK(n > 0);
    CHECK_EQ(wren_coap_parse(rbuf, (size_t)n, &resp), 0);
    return n;
}

static void cli_send_empty(uint8_t type, uint16_t mid)
{
    struct wren_sock_udp_ep to = { .port = COAP_PORT };
    memcpy(to.addr, lo, 16);
    uint8_t b[4] = { (uint8_t)(0x40 | (type << 4)), 0, (uint8_t)(mid >> 8), (uint8_t)mid };
    CHECK_EQ(wren_sock_udp_send(&cli, b, 4, &to), 4);
    fx_run_us(10000);
}

#endif

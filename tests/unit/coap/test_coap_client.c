/**
 * @file test_coap_client.c
 * @brief The CoAP client over the IPv6 loopback: against the node's own
 *        server (callbacks, Block2 followed to the end, a blocking call on an
 *        application thread), and against a scripted peer socket that stays
 *        silent (retransmission times, exact in virtual time), answers with
 *        an empty ACK and a separate CON response, with a RST, or to NON.
 */
#include <errno.h>
#include <stdlib.h>

#include "coap/coap.h"
#include "core/thread.h"
#include "fixture.h"
#include "sock/sock_udp.h"


static struct wren_node *node;
static struct wren_coap *c;
static struct wren_sock_udp peer;   /* the scripted server, port 6000 */
static const struct wren_sock_udp_ep self_ep = { .addr = { [15] = 1 }, .port = COAP_PORT };
static const struct wren_sock_udp_ep peer_ep = { .addr = { [15] = 1 }, .port = 6000 };

static int setup(void **state)
{
    fx_setup(state);
    struct fx_node *n = fx_node(FX_IP);
    node = &n->node;
    c = calloc(1, sizeof(*c));
    CHECK_EQ(wren_coap_init(node, c), 0);
    struct wren_sock_udp_ep l = { .port = 6000 };
    CHECK_EQ(wren_sock_udp_create(node, &peer, &l, NULL), 0);
    return 0;
}

static int teardown(void **state)
{
    wren_sock_udp_close(&peer);
    wren_coap_stop(c);
    free(c);
    return fx_teardown(state);
}

#define CTEST(t) cmocka_unit_test_setup_teardown(t, setup, teardown)

/* what the callbacks saw */
static struct {
    int calls, blocks, status;
    uint8_t code;
    size_t len;
    uint8_t data[20000];
    uint64_t at;
} got;

static void cb(struct wren_coap *cc, int status, const struct coap_msg *m, void *arg)
{
    (void)cc;
    (void)arg;
    got.calls++;
    got.at = fx_now();
    if (status == 1) {
        got.blocks++;
    }
    if (m) {
        got.code = m->code;
        CHECK(got.len + m->payload_len <= sizeof(got.data));
        if (m->payload_len) {
            memcpy(got.data + got.len, m->payload, m->payload_len);
        }
        got.len += m->payload_len;
    }
    got.status = status;
}

static const struct wren_coap_client_req get_counter = {
    .method = COAP_CODE_GET, .path = "/counter", .cf = -1, .accept = -1,
};

TEST(test_client__own_server_get_and_post)
{
    memset(&got, 0, sizeof(got));
    CHECK(wren_coap_request(c, &self_ep, &get_counter, cb, NULL) >= 0);
    fx_run_us(100000);
    CHECK_EQ(got.calls, 1);
    CHECK_EQ(got.status, 0);
    CHECK_EQ(got.code, COAP_CODE_CONTENT);
    CHECK(got.len == 1 && got.data[0] == '0');
    struct wren_coap_client_req post = get_counter;
    post.method = COAP_CODE_PUT;
    post.payload = "1234";
    post.len = 4;
    post.cf = COAP_CF_TEXT;
    memset(&got, 0, sizeof(got));
    CHECK(wren_coap_request(c, &self_ep, &post, cb, NULL) >= 0);
    fx_run_us(100000);
    CHECK_EQ(got.code, COAP_CODE_CHANGED);
    CHECK_EQ(c->counter, 1234);
    CHECK_EQ(c->stats.cl_req, 2);
    CHECK_EQ(c->stats.cl_resp, 2);
    CHECK_EQ(c->stats.cl_retx, 0);
    FX_CLEAN(1000000);
}

TEST(test_client__block2_followed_to_the_end)
{
    for (int szx = -1; szx <= 6; szx += 3) {
        memset(&got, 0, sizeof(got));
        struct wren_coap_client_req rq = get_counter;
        rq.path = "/pattern";
        rq.block2_size = szx < 0 ? 0 : (uint16_t)COAP_BLOCK_SIZE(szx);
        CHECK(wren_coap_request(c, &self_ep, &rq, cb, NULL) >= 0);
        fx_run_us(2000000);
        CHECK_EQ(got.status, 0);
        CHECK_EQ(got.len, CONFIG_WREN_COAP_PATTERN_LEN);
        size_t bs = szx < 0 ? 1024 : COAP_BLOCK_SIZE(szx);
        CHECK_EQ(got.blocks, (int)(CONFIG_WREN_COAP_PATTERN_LEN / bs - 1));
        for (size_t i = 0; i < got.len; i++) {
            CHECK_EQ(got.data[i], (uint8_t)(i % 251));
        }
    }
    CHECK_EQ(c->stats.cl_retx, 0);
    FX_CLEAN(1000000);
}

static size_t pattern_source(void *arg, size_t off, uint8_t *buf, size_t max)
{
    int *flip = arg;
    for (size_t i = 0; i < max; i++) {
        buf[i] = (uint8_t)((off + i) % 251);
        if (*flip >= 0 && off + i == (size_t)*flip) {
            buf[i] ^= 1;
        }
    }
    return max;
}

TEST(test_client__block1_upload_from_a_source)
{
    /* 16 KiB PUT to the node's own /pattern, generated block by block */
    int flip = -1;
    for (int k = 0; k < 2; k++) {
        struct wren_coap_client_req rq = get_counter;
        rq.method = COAP_CODE_PUT;
        rq.path = "/pattern";
        rq.len = 10000 + (size_t)k * 6384;
        rq.source = pattern_source;
        rq.source_arg = &flip;
        rq.block1_size = k ? 64 : 0;
        memset(&got, 0, sizeof(got));
        uint32_t before = c->stats.cl_req;
        CHECK(wren_coap_request(c, &self_ep, &rq, cb, NULL) >= 0);
        fx_run_us(5000000);
        CHECK_EQ(got.calls, 1);
        CHECK_EQ(got.status, 0);
        CHECK_EQ(got.code, COAP_CODE_CHANGED);
        CHECK_EQ(c->pattern_len, rq.len);
        /* blocks of 128 bytes (the largest that fits 256) or the 64 asked for */
        size_t bs = k ? 64 : 128;
        CHECK_EQ(c->stats.cl_req - before, (rq.len + bs - 1) / bs);
    }
    /* one wrong byte: 4.00, the resource unchanged */
    flip = 5000;
    struct wren_coap_client_req rq = get_counter;
    rq.method = COAP_CODE_PUT;
    rq.path = "/pattern";
    rq.len = 8000;
    rq.source = pattern_source;
    rq.source_arg = &flip;
    memset(&got, 0, sizeof(got));
    CHECK(wren_coap_request(c, &self_ep, &rq, cb, NULL) >= 0);
    fx_run_us(5000000);
    CHECK_EQ(got.code, COAP_CODE_BAD_REQUEST);
    CHECK_EQ(c->pattern_len, 16384);
    /* and back: the GET follows Block2 */
    memset(&got, 0, sizeof(got));
    rq = get_counter;
    rq.path = "/pattern";
    CHECK(wren_coap_request(c, &self_ep, &rq, cb, NULL) >= 0);
    fx_run_us(5000000);
    CHECK_EQ(got.len, 16384);
    CHECK_EQ(c->stats.cl_retx, 0);
    FX_CLEAN(1000000);
}

/* The next request the peer got (parsed into *m, bytes in buf), or 0. */
static uint8_t pbuf[1500];
static ssize_t peer_recv(struct coap_msg *m, uint64_t *at)
{
    ssize_t n = wren_sock_udp_recv(&peer, pbuf, sizeof(pbuf), 0, NULL);
    if (n == -EAGAIN) {
        return 0;
    }
    CHECK(n > 0);
    CHECK_EQ(wren_coap_parse(pbuf, (size_t)n, m), 0);
    if (at) {
        *at = fx_now();
    }
    return n;
}

static void peer_send(uint8_t type, uint8_t code, uint16_t mid, const struct coap_msg *req,
                      const char *payload)
{
    uint8_t b[64];
    struct coap_builder bld;
    wren_coap_build_init(&bld, b, sizeof(b), type, code, mid, req ? req->token : NULL,
                         req ? req->tkl : 0);
    if (payload) {
        wren_coap_build_payload(&bld, payload, strlen(payload));
    }
    int n = wren_coap_build_end(&bld);
    CHECK(n > 0);
    CHECK_EQ(wren_sock_udp_send(&peer, b, (size_t)n, &self_ep), n);
}

TEST(test_client__retransmission_doubles_then_gives_up)
{
    /* no randomness: 1 s, then 2, 4, 8, 16 s; given up 32 s after the last */
    CHECK_EQ(wren_coap_set_tx_params(c, 1000, 1000, 4), 0);
    CHECK_EQ(wren_coap_set_tx_params(c, 0, 1000, 4), -EINVAL);
    CHECK_EQ(wren_coap_set_tx_params(c, 1000, 999, 4), -EINVAL);
    memset(&got, 0, sizeof(got));
    uint64_t t0 = fx_now();
    CHECK(wren_coap_request(c, &peer_ep, &get_counter, cb, NULL) >= 0);
    uint64_t at[8];
    uint16_t mid = 0;
    int n = 0;
    for (int step = 0; step < 200 && got.calls == 0; step++) {
        fx_run_us(500000);
        struct coap_msg m;
        uint64_t t;
        while (peer_recv(&m, &t) > 0) {
            CHECK(n < 8);
            if (n == 0) {
                mid = m.mid;
            }
            CHECK_EQ(m.mid, mid); /* the same message each time */
            CHECK_EQ(m.type, COAP_CON);
            at[n++] = t;
        }
    }
    CHECK_EQ(n, 5);
    CHECK_EQ(got.status, -ETIMEDOUT);
    /* (arrival times are rounded up to the 0.5 s steps) */
    uint64_t want = 0;
    for (int i = 0; i < 5; i++) {
        CHECK(at[i] - t0 >= want && at[i] - t0 <= want + 500000);
        want += 1000000ull << i;
    }
    CHECK(got.at - t0 == want);
    CHECK_EQ(c->stats.cl_retx, 4);
    CHECK_EQ(c->stats.cl_timeout, 1);

    /* with the default factor 1.5 the first timeout lies in [2, 3] s */
    CHECK_EQ(wren_coap_set_tx_params(c, 2000, 1500, 1), 0);
    for (int k = 0; k < 5; k++) {
        memset(&got, 0, sizeof(got));
        t0 = fx_now();
        CHECK(wren_coap_request(c, &peer_ep, &get_counter, cb, NULL) >= 0);
        uint64_t first = 0, second = 0;
        struct coap_msg m;
        for (int step = 0; step < 1000 && got.calls == 0; step++) {
            fx_run_us(10000);
            uint64_t t;
            while (peer_recv(&m, &t) > 0) {
                if (first == 0) {
                    first = t;
                } else {
                    second = t;
                }
            }
        }
        CHECK(second - first >= 1990000 && second - first <= 3010000);
        CHECK_EQ(got.status, -ETIMEDOUT);
        CHECK(got.at - second >= 2 * (second - first) - 30000 &&
              got.at - second <= 2 * (second - first) + 30000);
    }
    FX_CLEAN(1000000);
}

TEST(test_client__separate_response_rst_non)
{
    /* empty ACK, then the response as a CON of the server's: the client ACKs it */
    memset(&got, 0, sizeof(got));
    CHECK(wren_coap_request(c, &peer_ep, &get_counter, cb, NULL) >= 0);
    fx_run_us(10000);
    struct coap_msg m;
    CHECK(peer_recv(&m, NULL) > 0);
    peer_send(COAP_ACK, COAP_CODE_EMPTY, m.mid, NULL, NULL);
    fx_run_us(10000);
    CHECK_EQ(c->stats.cl_separate, 1);
    /* no retransmission after the empty ACK */
    fx_run_us(30000000);
    CHECK_EQ(peer_recv(&(struct coap_msg){ 0 }, NULL), 0);
    CHECK_EQ(got.calls, 0);
    peer_send(COAP_CON, COAP_CODE_CONTENT, 0x7777, &m, "late");
    fx_run_us(10000);
    CHECK_EQ(got.status, 0);
    CHECK(got.len == 4 && memcmp(got.data, "late", 4) == 0);
    struct coap_msg ack;
    CHECK(peer_recv(&ack, NULL) > 0);
    CHECK_EQ(ack.type, COAP_ACK);
    CHECK_EQ(ack.code, COAP_CODE_EMPTY);
    CHECK_EQ(ack.mid, 0x7777);
    /* the same response again matches nothing: RST */
    peer_send(COAP_CON, COAP_CODE_CONTENT, 0x7778, &m, "late");
    fx_run_us(10000);
    CHECK(peer_recv(&ack, NULL) > 0);
    CHECK_EQ(ack.type, COAP_RST);
    CHECK_EQ(c->stats.rx_drop_unmatched, 1);

    /* a RST ends the request */
    memset(&got, 0, sizeof(got));
    CHECK(wren_coap_request(c, &peer_ep, &get_counter, cb, NULL) >= 0);
    fx_run_us(10000);
    CHECK(peer_recv(&m, NULL) > 0);
    peer_send(COAP_RST, COAP_CODE_EMPTY, m.mid, NULL, NULL);
    fx_run_us(10000);
    CHECK_EQ(got.status, -ECONNREFUSED);

    /* NON: never retransmitted, a NON response is taken; an ACK with a
     * wrong token is not */
    struct wren_coap_client_req non = get_counter;
    non.non = true;
    memset(&got, 0, sizeof(got));
    CHECK(wren_coap_request(c, &peer_ep, &non, cb, NULL) >= 0);
    fx_run_us(60000000);
    CHECK(peer_recv(&m, NULL) > 0);
    CHECK_EQ(m.type, COAP_NON);
    CHECK_EQ(peer_recv(&(struct coap_msg){ 0 }, NULL), 0);
    peer_send(COAP_NON, COAP_CODE_CONTENT, 0x1111, &m, "n");
    fx_run_us(10000);
    CHECK_EQ(got.status, 0);
    CHECK_EQ(got.code, COAP_CODE_CONTENT);

    /* every exchange in use */
    int a = wren_coap_request(c, &peer_ep, &get_counter, cb, NULL);
    int b = wren_coap_request(c, &peer_ep, &get_counter, cb, NULL);
    CHECK(a >= 0 && b >= 0 && a != b);
    CHECK_EQ(wren_coap_request(c, &peer_ep, &get_counter, cb, NULL), -EBUSY);
    wren_coap_cancel(c, a);
    wren_coap_cancel(c, b);
    fx_run_us(10000);
    CHECK(peer_recv(&m, NULL) > 0);
    while (peer_recv(&m, NULL) > 0) {
    }
    FX_CLEAN(1000000);
}

TEST(test_client__observe_own_server_and_freshness)
{
    memset(&got, 0, sizeof(got));
    struct wren_coap_client_req rq = get_counter;
    rq.observe = true;
    int x = wren_coap_request(c, &self_ep, &rq, cb, NULL);
    CHECK(x >= 0);
    fx_run_us(100000);
    CHECK_EQ(got.calls, 1);
    CHECK_EQ(got.status, 1); /* registered: more to come */
    CHECK_EQ(c->stats.obs_add, 1);
    /* three changes, three notifications (the first CON, ACKed by the client) */
    for (int i = 1; i <= 3; i++) {
        struct wren_coap_client_req post = get_counter;
        post.method = COAP_CODE_POST;
        CHECK(wren_coap_request(c, &self_ep, &post, NULL, NULL) >= 0);
        fx_run_us(100000);
    }
    CHECK_EQ(got.calls, 4);
    CHECK_EQ(got.status, 1);
    CHECK(got.len == 4 && memcmp(got.data, "0123", 4) == 0);
    CHECK_EQ(c->stats.obs_notify, 3);
    CHECK_EQ(c->stats.obs_timeout, 0);
    /* cancelled: the next notification (CON every time now) is answered RST */
    wren_coap_set_obs_con_ms(c, 0);
    wren_coap_cancel(c, x);
    struct wren_coap_client_req post = get_counter;
    post.method = COAP_CODE_POST;
    CHECK(wren_coap_request(c, &self_ep, &post, NULL, NULL) >= 0);
    fx_run_us(100000);
    CHECK_EQ(c->stats.obs_rst, 1);
    CHECK_EQ(got.calls, 4);

    /* freshness against a scripted server: 5, then 3 (older), then 6 */
    memset(&got, 0, sizeof(got));
    x = wren_coap_request(c, &peer_ep, &rq, cb, NULL);
    fx_run_us(10000);
    struct coap_msg m;
    CHECK(peer_recv(&m, NULL) > 0);
    struct coap_opt o;
    CHECK_EQ(wren_coap_opt_find(&m, COAP_OPT_OBSERVE, &o), 1);
    static const uint32_t seqs[] = { 5, 3, 6 };
    for (int i = 0; i < 3; i++) {
        uint8_t b[32];
        struct coap_builder bld;
        wren_coap_build_init(&bld, b, sizeof(b), i ? COAP_NON : COAP_ACK, COAP_CODE_CONTENT,
                             i ? (uint16_t)(900 + i) : m.mid, m.token, m.tkl);
        wren_coap_build_opt_uint(&bld, COAP_OPT_OBSERVE, seqs[i]);
        wren_coap_build_payload(&bld, &"abc"[i], 1);
        int n = wren_coap_build_end(&bld);
        CHECK_EQ(wren_sock_udp_send(&peer, b, (size_t)n, &self_ep), n);
        fx_run_us(10000);
    }
    CHECK_EQ(got.calls, 2);
    CHECK(got.len == 2 && memcmp(got.data, "ac", 2) == 0);
    CHECK_EQ(c->stats.cl_obs_stale, 1);
    /* 128 s later an older number is taken (RFC 7641 3.4) */
    fx_run_us(129000000);
    uint8_t b[32];
    struct coap_builder bld;
    wren_coap_build_init(&bld, b, sizeof(b), COAP_NON, COAP_CODE_CONTENT, 999, m.token, m.tkl);
    wren_coap_build_opt_uint(&bld, COAP_OPT_OBSERVE, 2);
    wren_coap_build_payload(&bld, "z", 1);
    int n = wren_coap_build_end(&bld);
    CHECK_EQ(wren_sock_udp_send(&peer, b, (size_t)n, &self_ep), n);
    fx_run_us(10000);
    CHECK_EQ(got.calls, 3);
    /* a notification without Observe ends the observation */
    wren_coap_build_init(&bld, b, sizeof(b), COAP_NON, COAP_CODE_NOT_FOUND, 1000, m.token, m.tkl);
    n = wren_coap_build_end(&bld);
    CHECK_EQ(wren_sock_udp_send(&peer, b, (size_t)n, &self_ep), n);
    fx_run_us(10000);
    CHECK_EQ(got.calls, 4);
    CHECK_EQ(got.status, 0);
    CHECK_EQ(got.code, COAP_CODE_NOT_FOUND);
    FX_CLEAN(1000000);
}

/* RFC 7641 + RFC 7959 3.4: an observed resource larger than a message. The
 * registration's response and every notification carry the first block; the
 * client asks for the rest (GETs without Observe, the observation's token)
 * and stays registered */
TEST(test_client__observe_block2_notifications_followed)
{
    memset(&got, 0, sizeof(got));
    struct wren_coap_client_req rq = get_counter;
    rq.path = "/pattern";
    rq.observe = true;
    int x = wren_coap_request(c, &self_ep, &rq, cb, NULL);
    CHECK(x >= 0);
    fx_run_us(2000000);
    CHECK_EQ(got.status, 1);
    CHECK_EQ(got.len, CONFIG_WREN_COAP_PATTERN_LEN);
    CHECK_EQ(got.calls, (int)(CONFIG_WREN_COAP_PATTERN_LEN / 1024));
    for (size_t i = 0; i < got.len; i++) {
        CHECK_EQ(got.data[i], (uint8_t)(i % 251));
    }
    CHECK_EQ(c->stats.obs_add, 1);
    CHECK_EQ(c->stats.obs_remove, 0);
    /* a PUT of 3,000 bytes changes it: a notification of three blocks */
    for (int k = 0; k < 2; k++) {
        memset(&got, 0, sizeof(got));
        int flip = -1;
        struct wren_coap_client_req put = get_counter;
        put.method = COAP_CODE_PUT;
        put.path = "/pattern";
        put.len = k ? 1500 : 3000;
        put.source = pattern_source;
        put.source_arg = &flip;
        CHECK(wren_coap_request(c, &self_ep, &put, NULL, NULL) >= 0);
        fx_run_us(5000000);
        CHECK_EQ(c->pattern_len, put.len);
        CHECK_EQ(got.status, 1);
        CHECK_EQ(got.len, put.len);
        CHECK_EQ(got.calls, k ? 2 : 3);
        for (size_t i = 0; i < got.len; i++) {
            CHECK_EQ(got.data[i], (uint8_t)(i % 251));
        }
    }
    CHECK_EQ(c->stats.obs_notify, 2);
    CHECK_EQ(c->stats.obs_remove, 0);
    CHECK_EQ(c->stats.cl_timeout, 0);
    CHECK_EQ(c->stats.cl_retx, 0);
    /* still observing: cancelled, the next notification gets a RST */
    wren_coap_cancel(c, x);
    wren_coap_set_obs_con_ms(c, 0);
    CHECK_EQ(wren_coap_notify(c, c->res[2]), 1);
    fx_run_us(100000);
    CHECK_EQ(c->stats.obs_rst, 1);
    FX_CLEAN(1000000);
}

static struct {
    int rc;
    struct wren_coap_result res;
    uint8_t buf[CONFIG_WREN_COAP_PATTERN_LEN];
    int rc_timeout;
} th;

static void call_thread(void *arg)
{
    (void)arg;
    struct wren_coap_client_req rq = get_counter;
    rq.path = "/pattern";
    th.rc = wren_coap_call(c, &self_ep, &rq, th.buf, sizeof(th.buf), &th.res, 10000000);
    /* a peer that never answers: the call's own time runs out first */
    th.rc_timeout = wren_coap_call(c, &peer_ep, &get_counter, th.buf, 16, &(struct wren_coap_result){ 0 },
                                   1000000);
}

TEST(test_client__blocking_call_on_a_thread)
{
    static uint8_t stack[64 * 1024];
    static struct wren_thread t;
    CHECK_EQ(wren_coap_call(c, &self_ep, &get_counter, th.buf, 16, &th.res, 0), -EDEADLK);
    wren_thread_start(node, &t, stack, sizeof(stack), call_thread, NULL, "coap");
    fx_run_us(5000000);
    CHECK_EQ(th.rc, 0);
    CHECK_EQ(th.res.code, COAP_CODE_CONTENT);
    CHECK_EQ(th.res.cf, COAP_CF_OCTETS);
    CHECK_EQ(th.res.len, CONFIG_WREN_COAP_PATTERN_LEN);
    CHECK(!th.res.truncated);
    for (size_t i = 0; i < th.res.len; i++) {
        CHECK_EQ(th.buf[i], (uint8_t)(i % 251));
    }
    CHECK_EQ(th.rc_timeout, -ETIMEDOUT);
    /* the abandoned exchange is gone: nothing more is sent */
    struct coap_msg m;
    while (peer_recv(&m, NULL) > 0) {
    }
    fx_run_us(60000000);
    CHECK_EQ(peer_recv(&m, NULL), 0);
    FX_CLEAN(1000000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        CTEST(test_client__own_server_get_and_post),
        CTEST(test_client__block2_followed_to_the_end),
        CTEST(test_client__block1_upload_from_a_source),
        CTEST(test_client__retransmission_doubles_then_gives_up),
        CTEST(test_client__separate_response_rst_non),
        CTEST(test_client__observe_own_server_and_freshness),
        CTEST(test_client__observe_block2_notifications_followed),
        CTEST(test_client__blocking_call_on_a_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

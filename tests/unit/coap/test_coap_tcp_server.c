/**
 * @file test_coap_tcp_server.c
 * @brief CoAP over TCP (RFC 8323) on one node's IPv6 loopback: the client
 *        (wren_coap_request with tcp) against the node's own server over
 *        TCP port 5683 (GET/PUT/POST/DELETE, 16 KiB Block2 and Block1,
 *        observe with a notification caused over UDP, deregistration, ping
 *        and release), and a raw socket sending what a hostile or broken
 *        peer sends: a request before the CSM, a frame beyond
 *        Max-Message-Size, a cut extended length, token length 15, a CSM
 *        with an unknown critical option, a malformed option, and more
 *        connections than the listener has sockets. Each: an Abort (or a
 *        counted refusal), the connection closed, the packet buffer empty.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "coap/coap.h"
#include "coap/coap_tcp.h"
#include "fixture.h"
#include "sock/sock_tcp.h"
#include "tcp/tcp.h"
#include "wire/coap_tcp.h"

static struct wren_node *node;
static struct fx_node *fxn;
static struct wren_coap *c;
static struct wren_coap_tcp *t;
static const struct wren_sock_udp_ep srv = { .addr = { [15] = 1 }, .port = COAP_PORT };
static const struct wren_sock_tcp_ep srv_tcp = { .addr = { [15] = 1 }, .port = COAP_PORT };
static struct wren_sock_tcp raw[3];

static int setup(void **state)
{
    fx_setup(state);
    fxn = fx_node_ex(FX_IP | FX_TCP, 65536, 1, 1);
    node = &fxn->node;
    c = calloc(1, sizeof(*c));
    t = calloc(1, sizeof(*t));
    memset(raw, 0, sizeof(raw));
    CHECK_EQ(wren_coap_init(node, c), 0);
    CHECK_EQ(wren_coap_tcp_init(node, t), 0);
    return 0;
}

static int teardown(void **state)
{
    wren_coap_tcp_stop(t);
    wren_coap_stop(c);
    for (unsigned i = 0; i < 3; i++) {
        wren_sock_tcp_disconnect(&raw[i]);
    }
    fx_run_us(120000000); /* lingering sockets finish closing */
    free(t);
    free(c);
    return fx_teardown(state);
}

#define CTEST(x) cmocka_unit_test_setup_teardown(x, setup, teardown)

static struct {
    int calls, blocks, status;
    uint8_t code;
    size_t len;
    uint8_t data[20000];
} got;

static void cb(struct wren_coap *cc, int status, const struct coap_msg *m, void *arg)
{
    (void)cc;
    (void)arg;
    got.calls++;
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

static void request(uint8_t method, const char *path, const char *payload)
{
    memset(&got, 0, sizeof(got));
    struct wren_coap_client_req rq = { .method = method, .path = path, .cf = -1, .accept = -1,
                                       .tcp = true };
    if (payload) {
        rq.payload = payload;
        rq.len = strlen(payload);
        rq.cf = COAP_CF_TEXT;
    }
    CHECK(wren_coap_request(c, &srv, &rq, cb, NULL) >= 0);
    fx_run_us(2000000);
}

static size_t pattern_source(void *arg, size_t off, uint8_t *buf, size_t max)
{
    (void)arg;
    for (size_t i = 0; i < max; i++) {
        buf[i] = (uint8_t)((off + i) % 251u);
    }
    return max;
}

TEST(test_coap_tcp__methods_blockwise_observe)
{
    request(COAP_CODE_GET, "/counter", NULL);
    CHECK(got.status == 0 && got.code == COAP_CODE_CONTENT && got.len == 1 && got.data[0] == '0');
    CHECK_EQ(t->stats.conn_open, 1);
    CHECK_EQ(t->stats.conn_accept, 1);
    CHECK_EQ(t->stats.rx_csm, 2); /* each side got the other's */
    request(COAP_CODE_POST, "/counter", NULL);
    CHECK(got.code == COAP_CODE_CHANGED && got.len == 1 && got.data[0] == '1');
    request(COAP_CODE_PUT, "/counter", "41");
    CHECK(got.code == COAP_CODE_CHANGED && c->counter == 41);
    request(COAP_CODE_DELETE, "/counter", NULL);
    CHECK(got.code == COAP_CODE_DELETED && c->counter == 0);
    request(COAP_CODE_GET, "/nothing", NULL);
    CHECK_EQ(got.code, COAP_CODE_NOT_FOUND);
    /* 16 KiB Block2: 16 blocks of 1024 */
    request(COAP_CODE_GET, "/pattern", NULL);
    CHECK(got.status == 0 && got.len == CONFIG_WREN_COAP_PATTERN_LEN && got.blocks == 15);
    for (size_t i = 0; i < got.len; i++) {
        CHECK_EQ(got.data[i], (uint8_t)(i % 251));
    }
    /* and back in Block1 blocks: /pattern checks every byte */
    memset(&got, 0, sizeof(got));
    struct wren_coap_client_req put = { .method = COAP_CODE_PUT, .path = "/pattern", .cf = 42,
                                        .accept = -1, .tcp = true, .len = 5000,
                                        .source = pattern_source };
    CHECK(wren_coap_request(c, &srv, &put, cb, NULL) >= 0);
    fx_run_us(5000000);
    CHECK(got.status == 0 && got.code == COAP_CODE_CHANGED);
    CHECK_EQ(c->pattern_len, 5000);
    CHECK_EQ(c->stats.req_incomplete, 0);
    /* observe /counter; a POST over UDP notifies over TCP */
    memset(&got, 0, sizeof(got));
    struct wren_coap_client_req obs = { .method = COAP_CODE_GET, .path = "/counter", .cf = -1,
                                        .accept = -1, .tcp = true, .observe = true };
    int x = wren_coap_request(c, &srv, &obs, cb, NULL);
    CHECK(x >= 0);
    fx_run_us(1000000);
    CHECK_EQ(t->stats.obs_add, 1);
    CHECK(got.calls == 1 && got.status == 1 && got.data[0] == '0');
    struct wren_coap_client_req post = { .method = COAP_CODE_POST, .path = "/counter", .cf = -1,
                                         .accept = -1 };
    for (int i = 0; i < 3; i++) {
        CHECK(wren_coap_request(c, &srv, &post, NULL, NULL) >= 0); /* over UDP */
        fx_run_us(1000000);
    }
    CHECK_EQ(t->stats.obs_notify, 3);
    CHECK(got.calls == 4 && got.len == 4 && memcmp(got.data, "0123", 4) == 0);
    /* cancel over TCP sends the GET again with Observe 1 (RFC 7641 3.6):
     * the server forgets the observer, the answer ends the exchange quietly */
    wren_coap_cancel(c, x);
    fx_run_us(1000000);
    CHECK_EQ(t->stats.obs_remove, 1);
    CHECK_EQ(got.calls, 4);
    CHECK(!WREN_COAP_CL(c)->xchg[x].used); /* made by the first request */
    CHECK_EQ(t->stats.rx_drop_unmatched, 0);
    CHECK_EQ(wren_coap_tcp_ping(t, &srv, true), 0);
    fx_run_us(1000000);
    CHECK_EQ(t->stats.rx_ping, 1);
    CHECK_EQ(t->stats.rx_pong, 1);
    CHECK_EQ(wren_coap_tcp_close(t, &srv), 0);
    fx_run_us(1000000);
    CHECK_EQ(t->stats.rx_release, 1);
    CHECK_EQ(t->stats.obs_remove, 1);
    CHECK_EQ(t->stats.conn_close, 2);
    CHECK_EQ(t->stats.rx_drop_format + t->stats.rx_no_csm + t->stats.tx_abort + t->stats.tx_drop,
             0);
    /* a new request opens a new connection */
    request(COAP_CODE_GET, "/counter", NULL);
    CHECK(got.status == 0 && got.data[0] == '3');
    CHECK_EQ(t->stats.conn_open, 2);
    CHECK_EQ(wren_coap_tcp_close(t, &srv), 0);
    FX_CLEAN(120000000);
}

/* ---- a raw peer -------------------------------------------------------------- */

static void raw_open(unsigned i)
{
    CHECK_EQ(wren_sock_tcp_connect(node, &raw[i], &srv_tcp, 0, 0), -EINPROGRESS);
    fx_run_us(100000);
    CHECK_EQ(raw[i].conn.state, WREN_TCP_ESTABLISHED);
}

static void raw_send(unsigned i, const void *b, size_t n)
{
    CHECK_EQ(wren_sock_tcp_write(&raw[i], b, n, 0), (ssize_t)n);
    fx_run_us(200000);
}

/* The messages the server sent on raw[i] so far: their codes in order. */
static unsigned raw_codes(unsigned i, uint8_t *codes, unsigned max, struct coap_msg *last,
                          uint8_t *buf, size_t cap)
{
    ssize_t n = wren_sock_tcp_read(&raw[i], buf, cap, 0);
    unsigned k = 0;
    size_t off = 0;
    while (n > 0 && off < (size_t)n && k < max) {
        uint64_t total;
        CHECK_EQ(wren_coap_tcp_frame_len(buf + off, (size_t)n - off, &total), 0);
        CHECK(off + total <= (size_t)n);
        CHECK_EQ(wren_coap_tcp_parse(buf + off, (size_t)total, last), 0);
        codes[k++] = last->code;
        off += (size_t)total;
    }
    return k;
}

static const uint8_t csm[] = { 0x30, 0xe1, 0x22, 0x04, 0x80 };

/* send @p bytes (after a CSM when @p with_csm) and expect CSM + Abort and
 * the connection closed by the server */
static void expect_abort(const uint8_t *bytes, size_t n, bool with_csm, uint16_t bad_csm)
{
    memset(raw, 0, sizeof(raw));
    raw_open(0);
    if (with_csm) {
        raw_send(0, csm, sizeof(csm));
    }
    raw_send(0, bytes, n);
    uint8_t codes[4], buf[256];
    struct coap_msg m;
    unsigned k = raw_codes(0, codes, 4, &m, buf, sizeof(buf));
    CHECK_EQ(k, 2);
    CHECK_EQ(codes[0], COAP_CODE_CSM);
    CHECK_EQ(codes[1], COAP_CODE_ABORT);
    struct coap_tcp_signal s;
    CHECK_EQ(wren_coap_tcp_signal_parse(&m, &s), 0);
    CHECK(m.payload_len > 0); /* a diagnostic */
    CHECK_EQ(s.has_bad_csm_option, bad_csm != 0);
    if (bad_csm) {
        CHECK_EQ(s.bad_csm_option, bad_csm);
    }
    /* the server closed: the end of the stream */
    CHECK_EQ(wren_sock_tcp_read(&raw[0], buf, sizeof(buf), 0), 0);
    wren_sock_tcp_disconnect(&raw[0]);
    fx_run_us(1000000);
}

TEST(test_coap_tcp__adversarial)
{
    /* a request before the CSM */
    static const uint8_t get[] = { 0x00, 0x01 };
    expect_abort(get, sizeof(get), false, 0);
    CHECK_EQ(t->stats.rx_no_csm, 1);
    /* a frame of 4 GiB: beyond Max-Message-Size */
    static const uint8_t huge[] = { 0xf0, 0xff, 0xff, 0xff, 0xff, 0x01 };
    expect_abort(huge, sizeof(huge), true, 0);
    CHECK_EQ(t->stats.rx_drop_big, 1);
    /* just beyond: 1,153 bytes in all */
    static uint8_t big[CONFIG_WREN_COAP_MSG_MAX + 1];
    size_t body = sizeof(big) - 4;
    big[0] = 0xe0;
    big[1] = (uint8_t)((body - 269) >> 8);
    big[2] = (uint8_t)(body - 269);
    big[3] = 0x02;
    big[4] = 0xff;
    expect_abort(big, sizeof(big), true, 0);
    CHECK_EQ(t->stats.rx_drop_big, 2);
    /* token length 15 */
    static const uint8_t tkl[] = { 0x0f, 0x01, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
    expect_abort(tkl, sizeof(tkl), true, 0);
    /* an option with nibble 15 */
    static const uint8_t opt15[] = { 0x10, 0x01, 0xf0 };
    expect_abort(opt15, sizeof(opt15), true, 0);
    CHECK_EQ(t->stats.rx_drop_format, 2);
    /* a CSM with critical option 9 */
    static const uint8_t crit[] = { 0x10, 0xe1, 0x90 };
    expect_abort(crit, sizeof(crit), false, 9);
    CHECK_EQ(t->stats.rx_sig_critical, 1);
    CHECK_EQ(t->stats.tx_abort, 6);

    /* a cut extended length, then the peer's FIN: closed, nothing else */
    memset(raw, 0, sizeof(raw));
    raw_open(0);
    raw_send(0, csm, sizeof(csm));
    static const uint8_t cut[] = { 0xe0, 0x01 };
    raw_send(0, cut, sizeof(cut));
    uint32_t closed = t->stats.conn_close;
    wren_sock_tcp_disconnect(&raw[0]);
    fx_run_us(1000000);
    CHECK_EQ(t->stats.conn_close, closed + 1);

    /* Ping with Custody: Pong with the token and Custody; an empty message
     * and an unknown signal are ignored; Release: closed */
    memset(raw, 0, sizeof(raw));
    raw_open(0);
    raw_send(0, csm, sizeof(csm));
    static const uint8_t ping[] = { 0x12, 0xe2, 0xab, 0xcd, 0x20, 0x00, 0x00, 0x00, 0xe9 };
    raw_send(0, ping, sizeof(ping));
    uint8_t codes[4], buf[256];
    struct coap_msg m;
    CHECK_EQ(raw_codes(0, codes, 4, &m, buf, sizeof(buf)), 2);
    CHECK_EQ(codes[1], COAP_CODE_PONG);
    CHECK(m.tkl == 2 && m.token[0] == 0xab && m.token[1] == 0xcd);
    struct coap_tcp_signal s;
    CHECK(wren_coap_tcp_signal_parse(&m, &s) == 0 && s.custody);
    CHECK_EQ(t->stats.rx_drop_unexpected, 1);
    static const uint8_t rel[] = { 0x20, 0xe4, 0x41, 0x05 };
    raw_send(0, rel, sizeof(rel));
    CHECK_EQ(wren_sock_tcp_read(&raw[0], buf, sizeof(buf), 0), 0);
    CHECK_EQ(t->stats.rx_release, 1);
    wren_sock_tcp_disconnect(&raw[0]);
    fx_run_us(1000000);

    /* more connections than sockets: the third is refused, counted */
    memset(raw, 0, sizeof(raw));
    raw_open(0);
    raw_open(1);
    CHECK_EQ(wren_sock_tcp_connect(node, &raw[2], &srv_tcp, 0, 0), -EINPROGRESS);
    fx_run_us(100000);
    CHECK(raw[2].conn.state != WREN_TCP_ESTABLISHED);
    CHECK(fxn->tcp->stats.syn_drop_pool >= 1);
    CHECK_EQ(t->stats.conn_accept, 8 + 2);
    for (unsigned i = 0; i < 3; i++) {
        wren_sock_tcp_disconnect(&raw[i]);
    }
    FX_CLEAN(120000000);
}

/* a peer whose CSM says 300 bytes gets GET responses in blocks that fit
 * (the same bytes: a Block2 offset kept), small responses as they are */
TEST(test_coap_tcp__peer_max_message_size)
{
    raw_open(0);
    static const uint8_t csm300[] = { 0x30, 0xe1, 0x22, 0x01, 0x2c };
    raw_send(0, csm300, sizeof(csm300));
    /* GET /pattern (token 05), then GET /pattern with Block2 2/0/1024 (token 06) */
    static const uint8_t get[] = { 0x81, 0x01, 0x05, 0xb7, 'p', 'a', 't', 't', 'e', 'r', 'n' };
    static const uint8_t get2[] = { 0xa1, 0x01, 0x06, 0xb7, 'p', 'a', 't', 't', 'e', 'r', 'n',
                                    0xc1, 0x26 };
    static const uint8_t getc[] = { 0x81, 0x01, 0x07, 0xb7, 'c', 'o', 'u', 'n', 't', 'e', 'r' };
    raw_send(0, get, sizeof(get));
    raw_send(0, get2, sizeof(get2));
    raw_send(0, getc, sizeof(getc));
    uint8_t buf[2048];
    ssize_t n = wren_sock_tcp_read(&raw[0], buf, sizeof(buf), 0);
    CHECK(n > 0);
    size_t off = 0;
    unsigned k = 0;
    while (off < (size_t)n) {
        uint64_t total;
        struct coap_msg m;
        CHECK_EQ(wren_coap_tcp_frame_len(buf + off, (size_t)n - off, &total), 0);
        CHECK(total <= 300);
        CHECK_EQ(wren_coap_tcp_parse(buf + off, (size_t)total, &m), 0);
        struct coap_opt o;
        uint32_t v = 0;
        struct coap_block blk = { 0 };
        bool b2 = wren_coap_opt_find(&m, COAP_OPT_BLOCK2, &o) && wren_coap_opt_uint(&o, &v) == 0 &&
                  wren_coap_block_decode(v, &blk) == 0;
        if (k == 0) {
            CHECK_EQ(m.code, COAP_CODE_CSM);
        } else if (k == 1 || k == 2) {
            CHECK(m.code == COAP_CODE_CONTENT && b2 && blk.szx == 4 && blk.more);
            CHECK_EQ(m.payload_len, 256);
            size_t at = (size_t)blk.num * 256;
            CHECK_EQ(at, k == 1 ? 0u : 2048u); /* block 2 of 1,024 is block 8 of 256 */
            for (size_t i = 0; i < m.payload_len; i++) {
                CHECK_EQ(m.payload[i], (uint8_t)((at + i) % 251));
            }
        } else if (k == 3) {
            CHECK(m.code == COAP_CODE_CONTENT && !b2 && m.payload_len == 1);
        }
        off += (size_t)total;
        k++;
    }
    CHECK_EQ(k, 4); /* CSM and the three responses */
    CHECK_EQ(t->stats.tx_reblock, 2);
    CHECK_EQ(t->stats.tx_too_big, 0);
    /* a message of exactly CONFIG_WREN_COAP_MSG_MAX bytes is taken (a GET
     * /counter carrying a payload it ignores), in segments of the MSS */
    static uint8_t whole[CONFIG_WREN_COAP_MSG_MAX];
    size_t body = sizeof(whole) - 5;
    whole[0] = 0xe1;
    whole[1] = (uint8_t)((body - 269) >> 8);
    whole[2] = (uint8_t)(body - 269);
    whole[3] = COAP_CODE_GET;
    whole[4] = 0x08;
    memcpy(whole + 5, "\xb7" "counter" "\xff", 9);
    raw_send(0, whole, sizeof(whole));
    struct coap_msg m;
    uint8_t codes[2];
    CHECK_EQ(raw_codes(0, codes, 2, &m, buf, sizeof(buf)), 1);
    CHECK(m.code == COAP_CODE_CONTENT && m.tkl == 1 && m.token[0] == 0x08);
    CHECK_EQ(t->stats.rx_drop_big, 0);
    wren_sock_tcp_disconnect(&raw[0]);
    FX_CLEAN(120000000);
}

/* RFC 7959 2.2, RFC 8323 6: the server offers no BERT in its CSM, so a
 * request's SZX 7 is the reserved one: 4.00, the connection stays */
TEST(test_coap_tcp__szx7_without_bert)
{
    raw_open(0);
    raw_send(0, csm, sizeof(csm));
    /* GET /pattern with Block2 0/0/7 (token 09), then GET /counter (0a) */
    static const uint8_t get[] = { 0xa1, 0x01, 0x09, 0xb7, 'p', 'a', 't', 't', 'e', 'r', 'n',
                                   0xc1, 0x07 };
    static const uint8_t getc[] = { 0x81, 0x01, 0x0a, 0xb7, 'c', 'o', 'u', 'n', 't', 'e', 'r' };
    raw_send(0, get, sizeof(get));
    raw_send(0, getc, sizeof(getc));
    uint8_t codes[4], buf[256];
    struct coap_msg m;
    CHECK_EQ(raw_codes(0, codes, 4, &m, buf, sizeof(buf)), 3);
    CHECK_EQ(codes[0], COAP_CODE_CSM);
    CHECK_EQ(codes[1], COAP_CODE_BAD_REQUEST);
    CHECK_EQ(codes[2], COAP_CODE_CONTENT);
    CHECK_EQ(c->stats.req_bad_szx, 1);
    CHECK_EQ(t->stats.tx_abort, 0);
    wren_sock_tcp_disconnect(&raw[0]);
    FX_CLEAN(120000000);
}

/* RFC 7641 4.1, 4.4 over TCP: one connection, two tokens, two observers;
 * a re-registration is newer than the last notification */
TEST(test_coap_tcp__observers_by_token)
{
    raw_open(0);
    raw_send(0, csm, sizeof(csm));
    /* GET /counter with Observe 0, tokens 01 and 02 */
    uint8_t reg[] = { 0x91, 0x01, 0x01, 0x60, 0x57, 'c', 'o', 'u', 'n', 't', 'e', 'r' };
    uint8_t codes[4], buf[512];
    struct coap_msg m;
    struct coap_opt o;
    uint32_t v = 0, last = 0;
    raw_send(0, reg, sizeof(reg));
    CHECK_EQ(raw_codes(0, codes, 4, &m, buf, sizeof(buf)), 2); /* CSM, 2.05 */
    CHECK_EQ(wren_coap_opt_find(&m, COAP_OPT_OBSERVE, &o), 1);
    reg[2] = 0x02;
    raw_send(0, reg, sizeof(reg));
    CHECK_EQ(raw_codes(0, codes, 4, &m, buf, sizeof(buf)), 1);
    CHECK(m.code == COAP_CODE_CONTENT && m.token[0] == 0x02);
    CHECK_EQ(wren_coap_opt_find(&m, COAP_OPT_OBSERVE, &o), 1);
    CHECK_EQ(t->stats.obs_add, 2);
    CHECK_EQ(wren_coap_notify(c, c->res[0]), 2);
    fx_run_us(200000);
    CHECK_EQ(raw_codes(0, codes, 4, &m, buf, sizeof(buf)), 2);
    CHECK(m.token[0] == 0x01 || m.token[0] == 0x02);
    /* the last notification's token registers again */
    CHECK(wren_coap_opt_find(&m, COAP_OPT_OBSERVE, &o) == 1 && wren_coap_opt_uint(&o, &last) == 0);
    reg[2] = m.token[0];
    raw_send(0, reg, sizeof(reg));
    CHECK_EQ(raw_codes(0, codes, 4, &m, buf, sizeof(buf)), 1);
    CHECK(wren_coap_opt_find(&m, COAP_OPT_OBSERVE, &o) == 1 && wren_coap_opt_uint(&o, &v) == 0);
    CHECK(wren_coap_observe_fresher(last, 0, v, 0));
    CHECK_EQ(t->stats.obs_add, 2);
    wren_sock_tcp_disconnect(&raw[0]);
    FX_CLEAN(120000000);
}

/* a peer that never sends its CSM is aborted; one that goes quiet after it
 * is released; one that keeps talking is not */
TEST(test_coap_tcp__silent_and_idle_peers)
{
    uint8_t codes[4], buf[256];
    struct coap_msg m;
    raw_open(0);
    fx_run_us((uint64_t)CONFIG_WREN_COAP_TCP_CSM_TIMEOUT_MS * 1000u - 500000u);
    CHECK_EQ(t->stats.conn_csm_timeout, 0);
    fx_run_us(1000000);
    CHECK_EQ(t->stats.conn_csm_timeout, 1);
    CHECK_EQ(raw_codes(0, codes, 4, &m, buf, sizeof(buf)), 2);
    CHECK(codes[0] == COAP_CODE_CSM && codes[1] == COAP_CODE_ABORT);
    CHECK_EQ(wren_sock_tcp_read(&raw[0], buf, sizeof(buf), 0), 0);
    wren_sock_tcp_disconnect(&raw[0]);
    fx_run_us(1000000);

    memset(raw, 0, sizeof(raw));
    raw_open(0);
    raw_open(1);
    raw_send(0, csm, sizeof(csm));
    raw_send(1, csm, sizeof(csm));
    /* raw[1] pings every minute: never idle */
    static const uint8_t ping[] = { 0x01, 0xe2, 0x01 };
    for (int i = 0; i < 6; i++) {
        fx_run_us(60000000);
        raw_send(1, ping, sizeof(ping));
    }
    CHECK_EQ(t->stats.conn_idle, 1);
    CHECK_EQ(raw_codes(0, codes, 4, &m, buf, sizeof(buf)), 2);
    CHECK(codes[0] == COAP_CODE_CSM && codes[1] == COAP_CODE_RELEASE);
    CHECK_EQ(wren_sock_tcp_read(&raw[0], buf, sizeof(buf), 0), 0);
    CHECK_EQ(raw[1].conn.state, WREN_TCP_ESTABLISHED);
    CHECK_EQ(t->stats.rx_ping, 6);
    for (unsigned i = 0; i < 2; i++) {
        wren_sock_tcp_disconnect(&raw[i]);
    }
    FX_CLEAN(120000000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        CTEST(test_coap_tcp__methods_blockwise_observe),
        CTEST(test_coap_tcp__adversarial),
        CTEST(test_coap_tcp__silent_and_idle_peers),
        CTEST(test_coap_tcp__peer_max_message_size),
        CTEST(test_coap_tcp__szx7_without_bert),
        CTEST(test_coap_tcp__observers_by_token),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/**
 * @file test_coap_multicast.c
 * @brief CoAP requests to All CoAP Nodes (RFC 7252 8, 12.8) between three
 *        simulated 6LoWPAN nodes: a plain socket on one sends to ff02::fd,
 *        the servers on the other two answer after a random leisure, never
 *        with an error, an empty result or a RST, and a CON to the group is
 *        ignored; unicast requests are unchanged; wren's client sends a
 *        NON to the group and gets both answers, then its wait's end.
 */
#include <errno.h>
#include <stdlib.h>

#include "coap/coap.h"
#include "fixture.h"
#include "sock/sock_udp.h"
#include "wire/ipv6.h"

static const uint8_t all_coap[16] = { 0xff, 0x02, [15] = 0xfd };

struct got {
    unsigned n;
    uint64_t at[4];
    uint8_t from_last[16];
    uint8_t code[4];
    uint16_t payload_len[4];
};

/* run up to @p us in 50 ms steps collecting what @p s receives after @p t0 */
static void collect(struct wren_sock_udp *s, uint64_t us, struct got *g, uint64_t t0)
{
    for (uint64_t t = 0; t < us; t += 50000) {
        fx_run_us(50000);
        uint8_t b[1200];
        struct wren_sock_udp_ep from;
        ssize_t n;
        while ((n = wren_sock_udp_recv(s, b, sizeof(b), 0, &from)) > 0) {
            struct coap_msg m;
            CHECK_EQ(wren_coap_parse(b, (size_t)n, &m), 0);
            CHECK(g->n < 4);
            CHECK_EQ(m.type, COAP_NON);
            CHECK(m.tkl == 2 && memcmp(m.token, "mc", 2) == 0);
            g->at[g->n] = fx_now() - t0;
            g->code[g->n] = m.code;
            g->payload_len[g->n] = (uint16_t)m.payload_len;
            memcpy(g->from_last, from.addr, 16);
            g->n++;
        }
    }
}

static void send_req(struct wren_sock_udp *s, const struct fx_node *a, const uint8_t *to,
                     uint8_t type, uint16_t mid, const char *path, const char *query,
                     uint16_t crit)
{
    uint8_t b[64];
    struct coap_builder bld;
    wren_coap_build_init(&bld, b, sizeof(b), type, COAP_CODE_GET, mid, (const uint8_t *)"mc", 2);
    wren_coap_build_opt_path(&bld, COAP_OPT_URI_PATH, path);
    if (query) {
        wren_coap_build_opt_query(&bld, COAP_OPT_URI_QUERY, query);
    }
    if (crit) {
        wren_coap_build_opt(&bld, crit, "", 0);
    }
    int n = wren_coap_build_end(&bld);
    CHECK(n > 0);
    struct wren_sock_udp_ep ep = { .port = COAP_PORT, .netif = a->if_id };
    memcpy(ep.addr, to, 16);
    CHECK_EQ(wren_sock_udp_send(s, b, (size_t)n, &ep), n);
}

TEST(test_multicast__leisure_and_quiet_errors)
{
    struct fx_node *a = fx_node(FX_LOWPAN_NODE);
    struct fx_node *b = fx_node(FX_LOWPAN_NODE);
    struct fx_node *c = fx_node(FX_LOWPAN_NODE);
    fx_link2(a, b);
    fx_link2(a, c);
    struct wren_coap *sb = calloc(1, sizeof(*sb)), *sc = calloc(1, sizeof(*sc));
    CHECK_EQ(wren_coap_init(&b->node, sb), 0);
    CHECK_EQ(wren_coap_init(&c->node, sc), 0);
    struct wren_sock_udp s;
    struct wren_sock_udp_ep l = { .port = 40000 };
    CHECK_EQ(wren_sock_udp_create(&a->node, &s, &l, NULL), 0);
    fx_run_us(1000000);

    /* discovery: both answer, each within DEFAULT_LEISURE, not at once */
    struct got g = { 0 };
    uint64_t t0 = fx_now();
    send_req(&s, a, all_coap, COAP_NON, 1, "/.well-known/core", NULL, 0);
    collect(&s, CONFIG_WREN_COAP_LEISURE_MS * 1000u + 500000u, &g, t0);
    CHECK_EQ(g.n, 2);
    for (unsigned i = 0; i < 2; i++) {
        CHECK_EQ(g.code[i], COAP_CODE_CONTENT);
        CHECK(g.payload_len[i] > 0);
        CHECK(g.at[i] <= CONFIG_WREN_COAP_LEISURE_MS * 1000u + 100000u);
    }
    CHECK(g.at[1] > 100000u); /* the later one waited */
    CHECK_EQ(sb->stats.mc_req, 1);
    CHECK_EQ(sc->stats.mc_req, 1);
    uint8_t peer[16]; /* one server's unicast address: where its answer came from */
    memcpy(peer, g.from_last, 16);
    CHECK(!wren_ipv6_addr_is_multicast(peer));
    /* a filter: only what matches answers (/pattern has ct=42) */
    memset(&g, 0, sizeof(g));
    send_req(&s, a, all_coap, COAP_NON, 2, "/.well-known/core", "ct=42", 0);
    collect(&s, CONFIG_WREN_COAP_LEISURE_MS * 1000u + 500000u, &g, fx_now());
    CHECK_EQ(g.n, 2);
    CHECK_EQ(g.payload_len[0], strlen("</pattern>;ct=42;obs"));
    /* nothing useful to say: no answer at all (an empty filter result, 4.04,
     * an unknown critical option, which a unicast NON gets a RST for) */
    memset(&g, 0, sizeof(g));
    send_req(&s, a, all_coap, COAP_NON, 3, "/.well-known/core", "rt=none", 0);
    send_req(&s, a, all_coap, COAP_NON, 4, "/nothing", NULL, 0);
    send_req(&s, a, all_coap, COAP_NON, 5, "/counter", NULL, 65001);
    /* a CON to a group is not a valid request: ignored (RFC 7252 8.1) */
    send_req(&s, a, all_coap, COAP_CON, 6, "/counter", NULL, 0);
    collect(&s, CONFIG_WREN_COAP_LEISURE_MS * 1000u + 500000u, &g, fx_now());
    CHECK_EQ(g.n, 0);
    CHECK_EQ(sb->stats.mc_quiet, 2);
    CHECK_EQ(sb->stats.mc_drop, 2);
    CHECK_EQ(sb->stats.tx, 2);
    CHECK_EQ(sc->stats.tx, 2);
    /* unicast as before: answered at once, errors too */
    memset(&g, 0, sizeof(g));
    send_req(&s, a, peer, COAP_NON, 7, "/nothing", NULL, 0);
    collect(&s, 300000, &g, fx_now());
    CHECK_EQ(g.n, 1);
    CHECK_EQ(g.code[0], COAP_CODE_NOT_FOUND);
    wren_sock_udp_close(&s);
    wren_coap_stop(sb);
    wren_coap_stop(sc);
    free(sb);
    free(sc);
    FX_CLEAN(1000000);
}

static void nop_handler(struct wren_coap *c, const struct wren_coap_req *req,
                        struct wren_coap_resp *rsp, void *arg)
{
    (void)c;
    (void)req;
    (void)rsp;
    (void)arg;
}

/* resources whose link format, with the defaults, is beyond a separate slot */
static const struct wren_coap_resource long_res[] = {
    { .path = "/sensors/temperature/outdoor", .methods = WREN_COAP_GET, .cf = 0,
      .attrs = ";rt=\"temperature-c\";if=\"sensor\"", .handler = nop_handler },
    { .path = "/sensors/temperature/indoor", .methods = WREN_COAP_GET, .cf = 0,
      .attrs = ";rt=\"temperature-c\";if=\"sensor\"", .handler = nop_handler },
    { .path = "/actuators/valve/main", .methods = WREN_COAP_GET, .cf = 0,
      .attrs = ";rt=\"valve\";if=\"actuator\"", .handler = nop_handler },
};

/* a datagram for @p s within @p us: its bytes in @p b, parsed into @p m */
static ssize_t recv_one(struct wren_sock_udp *s, uint64_t us, uint8_t *b, size_t cap,
                        struct coap_msg *m, struct wren_sock_udp_ep *from)
{
    ssize_t n = -EAGAIN;
    for (uint64_t t = 0; t < us && n == -EAGAIN; t += 50000) {
        fx_run_us(50000);
        n = wren_sock_udp_recv(s, b, cap, 0, from);
    }
    CHECK(n > 0);
    CHECK_EQ(wren_coap_parse(b, (size_t)n, m), 0);
    return n;
}

static uint32_t opt_uint(const struct coap_msg *m, uint16_t num)
{
    struct coap_opt o;
    uint32_t v = 0;
    CHECK_EQ(wren_coap_opt_find(m, num, &o), 1);
    CHECK_EQ(wren_coap_opt_uint(&o, &v), 0);
    return v;
}

/* RFC 7959 2.8: a discovery answer beyond its slot (CONFIG_WREN_COAP_SEPARATE_BYTES)
 * goes as Block2 block 0 of the largest size that fits it, with Size2; the
 * client asks for the rest unicast (before: not answered, mc_busy) */
TEST(test_multicast__large_answer_block0)
{
    struct fx_node *a = fx_node(FX_LOWPAN_NODE);
    struct fx_node *b = fx_node(FX_LOWPAN_NODE);
    fx_link2(a, b);
    struct wren_coap *sb = calloc(1, sizeof(*sb));
    CHECK_EQ(wren_coap_init(&b->node, sb), 0);
    for (unsigned i = 0; i < sizeof(long_res) / sizeof(long_res[0]); i++) {
        CHECK_EQ(wren_coap_resource_add(sb, &long_res[i]), 0);
    }
    struct wren_sock_udp s;
    struct wren_sock_udp_ep l = { .port = 40000 };
    CHECK_EQ(wren_sock_udp_create(&a->node, &s, &l, NULL), 0);
    fx_run_us(1000000);

    send_req(&s, a, all_coap, COAP_NON, 1, "/.well-known/core", NULL, 0);
    uint8_t buf[1200], all[1200];
    struct coap_msg m;
    struct wren_sock_udp_ep from;
    ssize_t n = recv_one(&s, CONFIG_WREN_COAP_LEISURE_MS * 1000u + 500000u, buf, sizeof(buf), &m,
                         &from);
    CHECK(n <= CONFIG_WREN_COAP_SEPARATE_BYTES);
    CHECK_EQ(m.code, COAP_CODE_CONTENT);
    struct coap_block blk;
    CHECK_EQ(wren_coap_block_decode(opt_uint(&m, COAP_OPT_BLOCK2), &blk), 0);
    CHECK(blk.num == 0 && blk.more);
    unsigned size = COAP_BLOCK_SIZE(blk.szx);
    CHECK(size * 2 + 20 > CONFIG_WREN_COAP_SEPARATE_BYTES); /* the largest that fits */
    uint32_t total = opt_uint(&m, COAP_OPT_SIZE2);
    CHECK(total > CONFIG_WREN_COAP_SEPARATE_BYTES && total < sizeof(all));
    CHECK_EQ(m.payload_len, size);
    memcpy(all, m.payload, size);
    CHECK_EQ(sb->stats.mc_busy, 0);
    /* the rest, unicast to the answer's source */
    uint8_t peer[16];
    memcpy(peer, from.addr, 16);
    size_t got = size;
    for (uint16_t num = 1; got < total; num++) {
        uint8_t q[64];
        struct coap_builder bld;
        wren_coap_build_init(&bld, q, sizeof(q), COAP_CON, COAP_CODE_GET, (uint16_t)(10 + num),
                             (const uint8_t *)"mc", 2);
        wren_coap_build_opt_path(&bld, COAP_OPT_URI_PATH, "/.well-known/core");
        wren_coap_build_opt_uint(&bld, COAP_OPT_BLOCK2, (uint32_t)(num << 4 | blk.szx));
        int qn = wren_coap_build_end(&bld);
        struct wren_sock_udp_ep ep = { .port = COAP_PORT, .netif = a->if_id };
        memcpy(ep.addr, peer, 16);
        CHECK_EQ(wren_sock_udp_send(&s, q, (size_t)qn, &ep), qn);
        recv_one(&s, 1000000, buf, sizeof(buf), &m, NULL);
        CHECK_EQ(m.code, COAP_CODE_CONTENT);
        struct coap_block bn;
        CHECK_EQ(wren_coap_block_decode(opt_uint(&m, COAP_OPT_BLOCK2), &bn), 0);
        CHECK_EQ(bn.num, num);
        CHECK(got + m.payload_len <= total);
        memcpy(all + got, m.payload, m.payload_len);
        got += m.payload_len;
        CHECK_EQ(bn.more, got < total);
    }
    all[got] = 0;
    CHECK(strstr((char *)all, "</actuators/valve/main>;ct=0;rt=\"valve\";if=\"actuator\"") != NULL);
    wren_sock_udp_close(&s);
    wren_coap_stop(sb);
    free(sb);
    FX_CLEAN(1000000);
}

struct mc_got {
    unsigned n, done, after_done;
    uint8_t from[4][16];
    uint8_t code[4];
    uint16_t payload_len[4];
    uint64_t done_at;
};

static void mc_cb(struct wren_coap *c, int status, const struct coap_msg *m, void *arg)
{
    struct mc_got *g = arg;
    g->after_done += g->done;
    if (status == 0 && m == NULL) {
        g->done++;
        g->done_at = fx_now();
        return;
    }
    CHECK_EQ(status, 1);
    CHECK(m != NULL && g->n < 4);
    const struct wren_sock_udp_ep *from = wren_coap_resp_from(c);
    CHECK(from != NULL);
    memcpy(g->from[g->n], from->addr, 16);
    g->code[g->n] = m->code;
    g->payload_len[g->n] = (uint16_t)m->payload_len;
    g->n++;
}

/* wren's own client to the group: a NON, each server's answer delivered
 * with its unicast source, then "done" when the wait ends; a CON refused */
TEST(test_multicast__client_discovery)
{
    struct fx_node *a = fx_node(FX_LOWPAN_NODE);
    struct fx_node *b = fx_node(FX_LOWPAN_NODE);
    struct fx_node *c = fx_node(FX_LOWPAN_NODE);
    fx_link2(a, b);
    fx_link2(a, c);
    struct wren_coap *ca = calloc(1, sizeof(*ca)), *sb = calloc(1, sizeof(*sb)),
                     *sc = calloc(1, sizeof(*sc));
    CHECK_EQ(wren_coap_init(&a->node, ca), 0);
    CHECK_EQ(wren_coap_init(&b->node, sb), 0);
    CHECK_EQ(wren_coap_init(&c->node, sc), 0);
    fx_run_us(1000000);

    struct wren_sock_udp_ep to = { .port = COAP_PORT, .netif = a->if_id };
    memcpy(to.addr, all_coap, 16);
    struct wren_coap_client_req rq = { .method = COAP_CODE_GET, .path = "/.well-known/core",
                                       .cf = -1, .accept = -1 };
    struct mc_got g = { 0 };
    /* RFC 7252 8.1: only NON to a group */
    CHECK_EQ(wren_coap_request(ca, &to, &rq, mc_cb, &g), -EINVAL);
    rq.non = true;
    rq.observe = true;
    CHECK_EQ(wren_coap_request(ca, &to, &rq, mc_cb, &g), -EINVAL);
    rq.observe = false;
    uint64_t t0 = fx_now();
    CHECK(wren_coap_request(ca, &to, &rq, mc_cb, &g) >= 0);
    CHECK_EQ(sb->stats.mc_req + sc->stats.mc_req, 0);
    fx_run_us(CONFIG_WREN_COAP_MCAST_WAIT_MS * 1000u - 100000u);
    /* both answered within the leisure; the exchange is still open */
    CHECK_EQ(g.n, 2);
    CHECK_EQ(g.done, 0);
    CHECK_EQ(sb->stats.mc_req, 1);
    CHECK_EQ(sc->stats.mc_req, 1);
    for (unsigned i = 0; i < 2; i++) {
        CHECK_EQ(g.code[i], COAP_CODE_CONTENT);
        CHECK(g.payload_len[i] > 0);
        CHECK(!wren_ipv6_addr_is_multicast(g.from[i]));
    }
    CHECK(memcmp(g.from[0], g.from[1], 16) != 0);
    fx_run_us(200000);
    CHECK_EQ(g.done, 1);
    CHECK_EQ(g.done_at - t0, CONFIG_WREN_COAP_MCAST_WAIT_MS * 1000u);
    CHECK_EQ(ca->stats.cl_resp, 2);
    CHECK_EQ(ca->stats.cl_retx, 0);
    CHECK_EQ(ca->stats.tx, 1); /* the one request, never again */
    /* a shorter wait of the request's own: the answers that come later find nothing */
    memset(&g, 0, sizeof(g));
    rq.mc_wait_ms = 1;
    CHECK(wren_coap_request(ca, &to, &rq, mc_cb, &g) >= 0);
    fx_run_us(CONFIG_WREN_COAP_MCAST_WAIT_MS * 1000u);
    CHECK_EQ(g.done, 1);
    CHECK_EQ(g.n, 0);
    CHECK_EQ(g.after_done, 0);
    CHECK_EQ(ca->stats.cl_resp, 2);
    wren_coap_stop(ca);
    wren_coap_stop(sb);
    wren_coap_stop(sc);
    free(ca);
    free(sb);
    free(sc);
    FX_CLEAN(1000000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST(test_multicast__leisure_and_quiet_errors),
        FX_TEST(test_multicast__client_discovery),
        FX_TEST(test_multicast__large_answer_block0),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

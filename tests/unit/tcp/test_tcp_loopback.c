/* TCP between two endpoints of one node over the IPv6 loopback: handshake,
 * bulk transfer both ways, orderly close through TIME-WAIT, resets, the
 * listener's pool, and the packet buffer empty after each. */
#include <errno.h>
#include <string.h>

#include "core/node.h"
#include "icmpv6/icmpv6.h"
#include "ipv6/ipv6.h"
#include "sim/world.h"
#include "core/byteorder.h"
#include "net/netapi.h"
#include "net/nettype.h"
#include "tcp/tcp.h"
#include "tcp/tcp_priv.h"
#include "fixture.h"
#include "wire/ipv6.h"
#include "wire/tcp.h"

static struct wren_node *node;
static struct wren_ipv6 *ip;
static struct wren_icmpv6 *icmp;
static struct wren_tcp *tcp;
static const uint8_t lo[16] = { [15] = 1 };

struct ep {
    struct wren_tcp_conn c;
    uint8_t snd[2048], rcv[2048], bm[256];
    uint32_t to_send, sent, received, bad;
    int events[8];
    int closed;
    int shutdown_after;
};

/* every test: a node with IPv6, ICMPv6 and TCP (8 KiB packet buffer) */
static int setup(void **state)
{
    fx_setup(state);
    struct fx_node *n = fx_node_ex(FX_IPV6 | FX_ICMPV6 | FX_TCP, 8192, 1, 1);
    node = &n->node;
    ip = n->ip;
    icmp = n->icmp;
    tcp = n->tcp;
    return 0;
}

#define TEARDOWN() FX_CLEAN(1000000)

static uint8_t pattern(uint32_t i)
{
    return (uint8_t)(i * 131 + (i >> 8) * 7);
}

static void pump(struct ep *e)
{
    uint8_t buf[700];
    while (e->sent < e->to_send) {
        uint32_t n = e->to_send - e->sent < sizeof(buf) ? e->to_send - e->sent : sizeof(buf);
        for (uint32_t k = 0; k < n; k++) {
            buf[k] = pattern(e->sent + k);
        }
        ssize_t r = wren_tcp_send(&e->c, buf, n);
        if (r <= 0) {
            break;
        }
        e->sent += (uint32_t)r;
    }
    if (e->sent == e->to_send && e->shutdown_after) {
        e->shutdown_after = 0;
        wren_tcp_shutdown(&e->c);
    }
}

static void drain(struct ep *e)
{
    uint8_t buf[333];
    ssize_t r;
    while ((r = wren_tcp_recv(&e->c, buf, sizeof(buf))) > 0) {
        for (ssize_t k = 0; k < r; k++) {
            e->bad += buf[k] != pattern(e->received + (uint32_t)k);
        }
        e->received += (uint32_t)r;
    }
}

static void ep_cb(struct wren_tcp_conn *c, unsigned ev, void *arg)
{
    struct ep *e = arg;
    (void)c;
    for (unsigned i = 0; i < 8; i++) {
        e->events[i] += (ev >> i) & 1;
    }
    if (ev & WREN_TCP_EV_CLOSED) {
        e->closed++;
        return;
    }
    if (ev & (WREN_TCP_EV_CONNECTED | WREN_TCP_EV_SEND)) {
        pump(e);
    }
    if (ev & WREN_TCP_EV_RECV) {
        drain(e);
    }
}

static struct ep cli, srv;
static struct wren_tcp_listener lis;
static struct wren_tcp_conn *pool[1];

static void accept_cb(struct wren_tcp_listener *l, void *arg)
{
    (void)arg;
    struct wren_tcp_conn *c = wren_tcp_accept(l);
    if (c) {
        wren_tcp_set_cb(c, ep_cb, &srv);
        pump(&srv);
        drain(&srv);
    }
}

static void pair_init(void)
{
    memset(&cli, 0, sizeof(cli));
    memset(&srv, 0, sizeof(srv));
    wren_tcp_conn_init(&cli.c, cli.snd, sizeof(cli.snd), cli.rcv, cli.bm, sizeof(cli.rcv));
    wren_tcp_conn_init(&srv.c, srv.snd, sizeof(srv.snd), srv.rcv, srv.bm, sizeof(srv.rcv));
    wren_tcp_set_cb(&cli.c, ep_cb, &cli);
    pool[0] = &srv.c;
}

TEST(test_tcp__loopback_bulk_both_ways_and_close)
{
    pair_init();
    CHECK_EQ(wren_tcp_listen(tcp, &lis, NULL, 80, pool, 1), 0);
    wren_tcp_listen_set_cb(&lis, accept_cb, NULL);
    cli.to_send = 100000;
    cli.shutdown_after = 1;
    srv.to_send = 50000;
    srv.shutdown_after = 1;
    CHECK_EQ(wren_tcp_connect(tcp, &cli.c, lo, 80, 0, 0), 0);
    CHECK_EQ(cli.c.state, WREN_TCP_SYN_SENT);
    wren_world_run_until(&fx.world, fx.world.now + 10000000);
    CHECK_EQ(cli.events[0], 1);
    CHECK_EQ(srv.received, 100000);
    CHECK_EQ(cli.received, 50000);
    CHECK_EQ(srv.bad + cli.bad, 0);
    CHECK_EQ(wren_tcp_recv(&cli.c, NULL, 0), 0);
    CHECK_EQ(tcp->stats.rx_drop_csum, 0);
    CHECK_EQ(tcp->stats.tx_rexmt, 0);
    CHECK_EQ(cli.closed + srv.closed, 2);
    CHECK_EQ(cli.c.state, WREN_TCP_CLOSED);
    CHECK_EQ(srv.c.state, WREN_TCP_CLOSED);
    /* one side went through TIME-WAIT, and it expires */
    int tw = 0;
    for (unsigned i = 0; i < CONFIG_WREN_TCP_TIMEWAIT_SLOTS; i++) {
        tw += tcp->tw->e[i].lport != 0;
    }
    CHECK_EQ(tw, 1);
    fx_run_us(CONFIG_WREN_TCP_TIME_WAIT_MS * 1000ull + 1000000);
    CHECK_EQ(tcp->tw->e[0].lport + tcp->tw->e[1].lport + tcp->tw->e[2].lport + tcp->tw->e[3].lport, 0);
    wren_tcp_release(&srv.c);
    wren_tcp_unlisten(&lis);
    TEARDOWN();
}

TEST(test_tcp__connect_to_closed_port_is_refused)
{
    pair_init();
    CHECK_EQ(wren_tcp_connect(tcp, &cli.c, lo, 81, 0, 0), 0);
    wren_world_run_until(&fx.world, fx.world.now + 1000000);
    CHECK_EQ(cli.closed, 1);
    CHECK_EQ(cli.c.err, -ECONNREFUSED);
    CHECK_EQ(tcp->stats.tx_rst, 1);
    TEARDOWN();
}

TEST(test_tcp__abort_resets_the_peer)
{
    pair_init();
    wren_tcp_listen(tcp, &lis, NULL, 80, pool, 1);
    wren_tcp_listen_set_cb(&lis, accept_cb, NULL);
    wren_tcp_connect(tcp, &cli.c, lo, 80, 0, 0);
    wren_world_run_until(&fx.world, fx.world.now + 100000);
    CHECK_EQ(srv.c.state, WREN_TCP_ESTABLISHED);
    wren_tcp_abort(&cli.c);
    wren_world_run_until(&fx.world, fx.world.now + 100000);
    CHECK_EQ(srv.closed, 1);
    CHECK_EQ(srv.c.err, -ECONNRESET);
    wren_tcp_release(&srv.c);
    wren_tcp_unlisten(&lis);
    TEARDOWN();
}

TEST(test_tcp__keepalive_probes_an_idle_peer_and_notices_it_gone)
{
    pair_init();
    wren_tcp_listen(tcp, &lis, NULL, 80, pool, 1);
    wren_tcp_listen_set_cb(&lis, accept_cb, NULL);
    wren_tcp_set_opts(&cli.c, WREN_TCP_OPT_SACK | WREN_TCP_OPT_TS | WREN_TCP_OPT_KEEPALIVE);
    wren_tcp_connect(tcp, &cli.c, lo, 80, 0, 0);
    wren_world_run_until(&fx.world, fx.world.now + 1000000);
    CHECK_EQ(cli.c.state, WREN_TCP_ESTABLISHED);
    /* five idle hours: a probe every two hours, each answered */
    wren_world_run_until(&fx.world, fx.world.now + 5ull * 3600 * 1000000);
    CHECK_EQ(tcp->stats.keepalive_probes, 2);
    CHECK_EQ(cli.c.state, WREN_TCP_ESTABLISHED);
    CHECK_EQ(cli.closed, 0);
    /* the peer forgets the connection without a word: the next probe gets a RST */
    wren_tcp_release(&srv.c);
    wren_world_run_until(&fx.world, fx.world.now + 3ull * 3600 * 1000000);
    CHECK_EQ(cli.closed, 1);
    CHECK_EQ(cli.c.err, -ECONNRESET);
    wren_tcp_unlisten(&lis);
    TEARDOWN();
}

TEST(test_tcp__simultaneous_open)
{
    pair_init();
    /* both sides connect to each other's port at the same instant */
    CHECK_EQ(wren_tcp_connect(tcp, &cli.c, lo, 2000, 1000, 0), 0);
    wren_tcp_set_cb(&srv.c, ep_cb, &srv);
    CHECK_EQ(wren_tcp_connect(tcp, &srv.c, lo, 1000, 2000, 0), 0);
    cli.to_send = 5000;
    srv.to_send = 7000;
    wren_world_run_until(&fx.world, fx.world.now + 5000000);
    CHECK_EQ(cli.c.state, WREN_TCP_ESTABLISHED);
    CHECK_EQ(srv.c.state, WREN_TCP_ESTABLISHED);
    CHECK_EQ(cli.events[0], 1);
    CHECK_EQ(srv.events[0], 1);
    CHECK_EQ(cli.received, 7000);
    CHECK_EQ(srv.received, 5000);
    CHECK_EQ(cli.bad + srv.bad, 0);
    /* simultaneous close: both FIN-WAIT-1 -> CLOSING -> TIME-WAIT */
    wren_tcp_shutdown(&cli.c);
    wren_tcp_shutdown(&srv.c);
    wren_world_run_until(&fx.world, fx.world.now + 1000000);
    CHECK_EQ(cli.closed, 1);
    CHECK_EQ(srv.closed, 1);
    int tw = 0;
    for (unsigned i = 0; i < CONFIG_WREN_TCP_TIMEWAIT_SLOTS; i++) {
        tw += tcp->tw->e[i].lport != 0;
    }
    CHECK_EQ(tw, 2);
    TEARDOWN();
}

static void no_read_cb(struct wren_tcp_conn *c, unsigned ev, void *arg)
{
    (void)c;
    struct ep *e = arg;
    if (ev & WREN_TCP_EV_CLOSED) {
        e->closed++;
    }
}

static void accept_no_read(struct wren_tcp_listener *l, void *arg)
{
    (void)arg;
    struct wren_tcp_conn *c = wren_tcp_accept(l);
    if (c) {
        wren_tcp_set_cb(c, no_read_cb, &srv);
    }
}

TEST(test_tcp__user_timeout_ends_a_zero_window_held_forever)
{
    pair_init();
    wren_tcp_listen(tcp, &lis, NULL, 80, pool, 1);
    wren_tcp_listen_set_cb(&lis, accept_no_read, NULL);
    cli.to_send = 10000; /* more than the receiver's buffer and our own */
    wren_tcp_connect(tcp, &cli.c, lo, 80, 0, 0);
    /* the receiver never reads: zero window, probed; 19 minutes is not enough */
    wren_world_run_until(&fx.world, fx.world.now + 19ull * 60 * 1000000);
    CHECK_EQ(cli.c.state, WREN_TCP_ESTABLISHED);
    CHECK(tcp->stats.persist_probes > 10);
    CHECK_EQ(tcp->stats.user_timeouts, 0);
    wren_world_run_until(&fx.world, fx.world.now + 3ull * 60 * 1000000);
    CHECK_EQ(tcp->stats.user_timeouts, 1);
    CHECK_EQ(cli.closed, 1);
    CHECK_EQ(cli.c.err, -ETIMEDOUT);
    CHECK_EQ(srv.closed, 1);          /* the RST reached the peer */
    CHECK_EQ(srv.c.err, -ECONNRESET);
    wren_tcp_release(&srv.c);
    wren_tcp_unlisten(&lis);
    TEARDOWN();
}

TEST(test_tcp_set_user_timeout__shorter_timeout_set_at_run_time)
{
    pair_init();
    wren_tcp_set_user_timeout(tcp, 30000); /* 30 s instead of 20 min */
    wren_tcp_listen(tcp, &lis, NULL, 80, pool, 1);
    wren_tcp_listen_set_cb(&lis, accept_no_read, NULL);
    cli.to_send = 10000;
    wren_tcp_connect(tcp, &cli.c, lo, 80, 0, 0);
    wren_world_run_until(&fx.world, fx.world.now + 20ull * 1000000);
    CHECK_EQ(cli.c.state, WREN_TCP_ESTABLISHED);
    CHECK_EQ(tcp->stats.user_timeouts, 0);
    wren_world_run_until(&fx.world, fx.world.now + 60ull * 1000000);
    CHECK_EQ(tcp->stats.user_timeouts, 1);
    CHECK_EQ(cli.c.err, -ETIMEDOUT);
    CHECK_EQ(srv.closed, 1);
    wren_tcp_release(&srv.c);
    wren_tcp_unlisten(&lis);
    TEARDOWN();
}

/* deliver a segment from [::1]:sport to [::1]:dport straight to the TCP
 * layer, as the IPv6 layer would (RX order: segment, then IPv6 header),
 * with the IP ECN field @p ecn */
static void inject(const struct tcp_hdr *h, const struct tcp_opts *o, const uint8_t *data,
                   size_t len, uint8_t ecn)
{
    uint8_t seg[TCP_HDR_MAX_LEN + 64];
    int hl = wren_tcp_hdr_emit(h, o, seg, sizeof(seg));
    memcpy(seg + hl, data, len);
    put_be16(seg + TCP_OFF_CSUM, wren_tcp_csum(lo, lo, seg, (size_t)hl + len));
    struct wren_snip *iph = wren_pktbuf_add(&node->pktbuf, NULL, NULL, IPV6_HDR_LEN,
                                           WREN_NETTYPE_IPV6);
    wren_ipv6_hdr_init(iph->data, lo, lo, IPV6_NH_TCP);
    iph->data[1] = (uint8_t)(iph->data[1] | (ecn << 4));
    struct wren_snip *pkt = wren_pktbuf_add(&node->pktbuf, iph, seg, (size_t)hl + len,
                                            WREN_NETTYPE_TCP);
    wren_netapi_receive(node, &tcp->module, pkt);
}

TEST(test_tcp__ecn_negotiated_echoed_and_answered_once)
{
    pair_init();
    uint8_t ecn = WREN_TCP_OPT_SACK | WREN_TCP_OPT_TS | WREN_TCP_OPT_ECN;
    wren_tcp_set_opts(&srv.c, ecn);
    wren_tcp_set_opts(&cli.c, ecn);
    wren_tcp_listen(tcp, &lis, NULL, 80, pool, 1);
    wren_tcp_listen_set_cb(&lis, accept_cb, NULL);
    cli.to_send = 5000;
    wren_tcp_connect(tcp, &cli.c, lo, 80, 0, 0);
    wren_world_run_until(&fx.world, fx.world.now + 2000000);
    CHECK(cli.c.flags & TF_ECN);
    CHECK(srv.c.flags & TF_ECN);
    CHECK_EQ(srv.received, 5000);
    /* a router on the way marked a segment CE: here ten bytes the client
     * will send later anyway (stream bytes 6000..6009), out of order */
    uint8_t data[10];
    for (unsigned k = 0; k < 10; k++) {
        data[k] = pattern(6000 + k);
    }
    struct tcp_hdr h = { .src_port = cli.c.lport, .dst_port = 80, .seq = srv.c.rcv_nxt + 1000,
                         .ack = srv.c.snd_nxt, .flags = TCP_ACK, .window = 2048 };
    struct tcp_opts o = { .has_ts = true, .ts_val = srv.c.ts_recent, .ts_ecr = 0 };
    inject(&h, &o, data, sizeof(data), 3);
    wren_world_run_until(&fx.world, fx.world.now + 500000);
    CHECK_EQ(tcp->stats.ecn_ce_rx, 1);
    CHECK(srv.c.flags & TF_ECE);       /* echoing until CWR */
    uint32_t cwnd = cli.c.cwnd;
    cli.to_send += 3000;
    pump(&cli);
    wren_world_run_until(&fx.world, fx.world.now + 2000000);
    CHECK_EQ(tcp->stats.ecn_reductions, 1);  /* once, though several ACKs carried ECE */
    CHECK(cli.c.ssthresh < 65535);
    CHECK(!(srv.c.flags & TF_ECE));    /* CWR arrived */
    CHECK_EQ(srv.received, 8000);
    CHECK_EQ(srv.bad, 0);
    (void)cwnd;
    wren_tcp_abort(&cli.c);
    wren_world_run_until(&fx.world, fx.world.now + 100000);
    wren_tcp_release(&srv.c);
    wren_tcp_unlisten(&lis);
    TEARDOWN();
}

TEST(test_tcp__conn_state_fits_256_bytes_on_32_bit)
{
    /* the limit is for a 32-bit MCU, where the Cortex-M3 build checks
     * it at compile time (runtime/cortexm/check_sizes.c); on a 64-bit host
     * pointers and the timer are wider (./wren bench tcp_sizes prints both) */
    if (sizeof(void *) == 4) {
        CHECK(sizeof(struct wren_tcp_conn) <= 256);
    } else {
        CHECK(sizeof(struct wren_tcp_conn) <= 320);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST_SETUP(test_tcp__loopback_bulk_both_ways_and_close, setup),
        FX_TEST_SETUP(test_tcp__connect_to_closed_port_is_refused, setup),
        FX_TEST_SETUP(test_tcp__abort_resets_the_peer, setup),
        FX_TEST_SETUP(test_tcp__keepalive_probes_an_idle_peer_and_notices_it_gone, setup),
        FX_TEST_SETUP(test_tcp__simultaneous_open, setup),
        FX_TEST_SETUP(test_tcp__ecn_negotiated_echoed_and_answered_once, setup),
        FX_TEST_SETUP(test_tcp__user_timeout_ends_a_zero_window_held_forever, setup),
        FX_TEST_SETUP(test_tcp_set_user_timeout__shorter_timeout_set_at_run_time, setup),
        FX_TEST_SETUP(test_tcp__conn_state_fits_256_bytes_on_32_bit, setup),
    };
    return cmocka_run_group_tests_name("tcp_loopback", tests, NULL, NULL);
}

/* sock_tcp over the IPv6 loopback of one node, from application threads and
 * from callbacks alone: echo of 20 KiB, timeouts of read / accept / connect,
 * refusal, a writer blocked until the peer reads, every wakeup (data, end
 * of stream, reset, disconnect, stop_listen), closing in the background,
 * and the packet buffer empty after each test. The world's time is
 * virtual, so waits cost nothing. */
#include <errno.h>
#include <string.h>

#include "core/byteorder.h"
#include "core/node.h"
#include "core/thread.h"
#include "icmpv6/icmpv6.h"
#include "ipv6/ipv6.h"
#include "sim/world.h"
#include "sock/sock_tcp.h"
#include "net/netapi.h"
#include "net/netreg.h"
#include "tcp/tcp.h"
#include "fixture.h"
#include "wire/ipv6.h"
#include "wire/tcp.h"

static struct wren_node *node;
static struct wren_tcp *tcp;
static const struct wren_sock_tcp_ep srv_ep = { .addr = { [15] = 1 }, .port = 7 };

/* everything a test uses: zeroed by setup() */
static struct {
    struct wren_sock_tcp_queue q;
    struct wren_sock_tcp pool[2];
    struct wren_sock_tcp cli;
    struct wren_sock_tcp cli2;
} s;

static _Alignas(16) uint8_t stacks[3][64 * 1024];
static struct wren_thread threads[3];

/* every test: a node with IPv6, ICMPv6 and TCP (16 KiB packet buffer) */
static int setup(void **state)
{
    memset(&s, 0, sizeof(s));
    fx_setup(state);
    struct fx_node *n = fx_node_ex(FX_IPV6 | FX_ICMPV6 | FX_TCP, 16384, 1, 1);
    node = &n->node;
    tcp = n->tcp;
    return 0;
}

/* a node with TCP alone: the test plays the IPv6 layer */
static int setup_tcp_only(void **state)
{
    memset(&s, 0, sizeof(s));
    fx_setup(state);
    struct fx_node *n = fx_node_ex(FX_TCP, 16384, 1, 1);
    node = &n->node;
    tcp = n->tcp;
    return 0;
}

static void start(int i, void (*fn)(void *), void *arg)
{
    wren_thread_start(node, &threads[i], stacks[i], sizeof(stacks[i]), fn, arg, "t");
}

static void run_ms(uint64_t ms)
{
    wren_world_run_until(&fx.world, fx.world.now + ms * 1000);
}

static int threads_done(int n)
{
    for (int i = 0; i < n; i++) {
        if (threads[i].state != WREN_THREAD_DONE) {
            return 0;
        }
    }
    return 1;
}

/* no connection left in the layer, the buffer empty and consistent */
#define TEARDOWN()                                                   \
    do {                                                             \
        run_ms(1000);                                                \
        CHECK(tcp->conns == NULL);                                    \
        CHECK(tcp->listeners == NULL);                                \
        FX_CLEAN(0);                                                 \
    } while (0)

static uint8_t pattern(uint32_t i)
{
    return (uint8_t)(i * 131 + (i >> 8) * 7 + 1);
}

/* ---- echo ------------------------------------------------------------------ */

#define ECHO_BYTES (20 * 1024)

struct echo {
    int rounds;            /* clients the server serves, one after another */
    int served;
    int server_err;
    uint32_t echoed;
    struct wren_sock_tcp *accepted[2];
    struct wren_sock_tcp_ep peer;
    /* the client of the current round */
    int connect_res;
    uint32_t written, received, bad;
    int reader_res;
    int reader_done;
    struct wren_sock_tcp_ep cli_local, cli_remote;
};

static void echo_server(void *arg)
{
    struct echo *e = arg;
    for (int round = 0; round < e->rounds; round++) {
        struct wren_sock_tcp *c;
        int r = wren_sock_tcp_accept(&s.q, &c, WREN_SOCK_FOREVER);
        if (r < 0) {
            e->server_err = r;
            return;
        }
        e->accepted[round] = c;
        wren_sock_tcp_get_remote(c, &e->peer);
        uint8_t buf[300];
        ssize_t n;
        while ((n = wren_sock_tcp_read(c, buf, sizeof(buf), 2000000)) > 0) {
            ssize_t w = wren_sock_tcp_write(c, buf, (size_t)n, WREN_SOCK_FOREVER);
            if (w != n) {
                e->server_err = (int)w;
                return;
            }
            e->echoed += (uint32_t)n;
        }
        if (n < 0) {
            e->server_err = (int)n;
            return;
        }
        wren_sock_tcp_disconnect(c); /* the peer's FIN is in: LAST-ACK */
        e->served++;
    }
}

static void echo_reader(void *arg)
{
    struct echo *e = arg;
    uint8_t buf[517];
    while (e->received < ECHO_BYTES) {
        ssize_t n = wren_sock_tcp_read(&s.cli, buf, sizeof(buf), 2000000);
        if (n <= 0) {
            e->reader_res = (int)n;
            break;
        }
        for (ssize_t k = 0; k < n; k++) {
            e->bad += buf[k] != pattern(e->received + (uint32_t)k);
        }
        e->received += (uint32_t)n;
    }
    e->reader_done = 1;
}

static void echo_client(void *arg)
{
    struct echo *e = arg;
    e->connect_res = wren_sock_tcp_connect(node, &s.cli, &srv_ep, 0, 1000000);
    if (e->connect_res != 0) {
        return;
    }
    wren_sock_tcp_get_local(&s.cli, &e->cli_local);
    wren_sock_tcp_get_remote(&s.cli, &e->cli_remote);
    /* a second thread reads while this one writes (either alone would fill
     * the four buffers on the way and wait forever) */
    start(2, echo_reader, e);
    static const size_t sizes[] = { 1, 3, 7, 13, 97, 333, 1001, 1777, 2049, 4097, 5 };
    uint8_t buf[4097];
    for (unsigned i = 0; e->written < ECHO_BYTES; i++) {
        size_t n = sizes[i % (sizeof(sizes) / sizeof(sizes[0]))];
        if (n > ECHO_BYTES - e->written) {
            n = ECHO_BYTES - e->written;
        }
        for (size_t k = 0; k < n; k++) {
            buf[k] = pattern(e->written + (uint32_t)k);
        }
        ssize_t w = wren_sock_tcp_write(&s.cli, buf, n, 1000000);
        if (w != (ssize_t)n) {
            return;
        }
        e->written += (uint32_t)n;
    }
    while (!e->reader_done) {
        wren_thread_sleep(node, 1000);
    }
    wren_sock_tcp_disconnect(&s.cli);
}

TEST(test_sock_tcp__echo_20k_in_odd_writes_twice)
{
    static struct echo e;
    memset(&e, 0, sizeof(e));
    e.rounds = 2;
    struct wren_sock_tcp_ep local = { .port = 7 };
    CHECK_EQ(wren_sock_tcp_listen(node, &s.q, &local, s.pool, 2), 0);
    struct wren_sock_tcp_ep ql;
    CHECK_EQ(wren_sock_tcp_queue_get_local(&s.q, &ql), 0);
    CHECK_EQ(ql.port, 7);
    start(0, echo_server, &e);
    for (int round = 0; round < 2; round++) {
        uint32_t echoed = e.echoed;
        e.written = e.received = e.bad = 0;
        e.reader_done = 0;
        start(1, echo_client, &e);
        run_ms(30000);
        CHECK_EQ(e.connect_res, 0);
        CHECK_EQ(e.server_err, 0);
        CHECK_EQ(e.reader_res, 0);
        CHECK_EQ(e.written, ECHO_BYTES);
        CHECK_EQ(e.received, ECHO_BYTES);
        CHECK_EQ(e.bad, 0);
        CHECK_EQ(e.echoed - echoed, ECHO_BYTES);
        CHECK_EQ(e.served, round + 1);
        CHECK(threads[1].state == WREN_THREAD_DONE && threads[2].state == WREN_THREAD_DONE);
        /* the endpoints agree */
        CHECK_EQ(e.cli_remote.port, 7);
        CHECK_EQ(e.cli_remote.addr[15], 1);
        CHECK(e.cli_local.port >= WREN_SOCK_EPHEMERAL);
        CHECK_EQ(e.peer.port, e.cli_local.port);
        /* both closed and released; the server's socket is the pool's again */
        CHECK_EQ(s.cli.flags, 0);
        CHECK_EQ(s.cli.conn.state, WREN_TCP_CLOSED);
        CHECK_EQ(e.accepted[round]->flags, 0);
        CHECK_EQ(e.accepted[round]->conn.state, WREN_TCP_CLOSED);
        uint8_t b[1];
        CHECK_EQ(wren_sock_tcp_read(&s.cli, b, 1, 0), -ENOTCONN);
    }
    CHECK_EQ(threads[0].state, WREN_THREAD_DONE);
    CHECK_EQ(tcp->stats.rx_drop_csum, 0);
    CHECK_EQ(tcp->stats.tx_rst, 0);
    wren_sock_tcp_stop_listen(&s.q);
    CHECK_EQ(wren_sock_tcp_queue_get_local(&s.q, &ql), -EBADF);
    TEARDOWN();
}

/* ---- timeouts, refusal -------------------------------------------------------- */

struct timeouts {
    int accept_nowait, accept_timeout, accept_stopped, accepted;
    uint64_t accept_waited;
    int refused, refused_again;
    int connect_res, connect2_res, connect2_nowait;
    uint64_t connect2_waited, connect3_waited;
    int connect3_res;
    ssize_t read_nowait, read_timeout;
    uint64_t read_waited;
    int done;
};

static void timeouts_client(void *arg)
{
    struct timeouts *t = arg;
    struct wren_sock_tcp *c;
    /* accept: nothing there */
    t->accept_nowait = wren_sock_tcp_accept(&s.q, &c, 0);
    uint64_t t0 = wren_node_now(node);
    t->accept_timeout = wren_sock_tcp_accept(&s.q, &c, 100000);
    t->accept_waited = wren_node_now(node) - t0;
    /* nobody on port 81: a RST */
    struct wren_sock_tcp_ep closed = srv_ep;
    closed.port = 81;
    t->refused = wren_sock_tcp_connect(node, &s.cli, &closed, 0, 1000000);
    t->refused_again = wren_sock_tcp_connect(node, &s.cli, &closed, 0, 1000000);
    /* a connection; reading it with nothing to read */
    t->connect_res = wren_sock_tcp_connect(node, &s.cli, &srv_ep, 0, 1000000);
    uint8_t b[8];
    t->read_nowait = wren_sock_tcp_read(&s.cli, b, sizeof(b), 0);
    t0 = wren_node_now(node);
    t->read_timeout = wren_sock_tcp_read(&s.cli, b, sizeof(b), 50000);
    t->read_waited = wren_node_now(node) - t0;
    /* the pool's one socket is taken (not yet accepted, even): a second
     * client's SYNs are dropped and its connect times out */
    t->connect2_nowait = wren_sock_tcp_connect(node, &s.cli2, &srv_ep, 0, 0);
    wren_sock_tcp_disconnect(&s.cli2);
    t0 = wren_node_now(node);
    t->connect2_res = wren_sock_tcp_connect(node, &s.cli2, &srv_ep, 0, 300000);
    t->connect2_waited = wren_node_now(node) - t0;
    /* waiting forever: the TCP layer gives up after its SYN retries */
    t0 = wren_node_now(node);
    t->connect3_res = wren_sock_tcp_connect(node, &s.cli2, &srv_ep, 0, WREN_SOCK_FOREVER);
    t->connect3_waited = wren_node_now(node) - t0;
    /* take the pending one; both ends close at once (simultaneous close) */
    t->accepted = wren_sock_tcp_accept(&s.q, &c, 0);
    if (t->accepted == 0) {
        wren_sock_tcp_disconnect(c);
    }
    wren_sock_tcp_disconnect(&s.cli);
    /* blocked in accept until stop_listen */
    t->accept_stopped = wren_sock_tcp_accept(&s.q, &c, WREN_SOCK_FOREVER);
    t->done = 1;
}

TEST(test_sock_tcp__timeouts_and_refusal)
{
    static struct timeouts t;
    memset(&t, 0, sizeof(t));
    struct wren_sock_tcp_ep local = { .port = 7 };
    CHECK_EQ(wren_sock_tcp_listen(node, &s.q, &local, s.pool, 1), 0);
    start(0, timeouts_client, &t);
    run_ms(100000);
    CHECK_EQ(t.accept_nowait, -EAGAIN);
    CHECK_EQ(t.accept_timeout, -ETIMEDOUT);
    CHECK_EQ(t.accept_waited, 100000);
    CHECK_EQ(t.refused, -ECONNREFUSED);
    CHECK_EQ(t.refused_again, -ECONNREFUSED); /* a failed socket is free again */
    CHECK_EQ(t.connect_res, 0);
    CHECK_EQ(t.read_nowait, -EAGAIN);
    CHECK_EQ(t.read_timeout, -ETIMEDOUT);
    CHECK_EQ(t.read_waited, 50000);
    CHECK_EQ(t.connect2_nowait, -EINPROGRESS);
    CHECK_EQ(t.connect2_res, -ETIMEDOUT);
    CHECK_EQ(t.connect2_waited, 300000);
    CHECK_EQ(t.connect3_res, -ETIMEDOUT);
    CHECK(t.connect3_waited >= 60000000); /* 1 + 2 + ... + 32 s of backoff */
    CHECK_EQ(tcp->stats.conn_timeouts, 1);
    CHECK(tcp->stats.syn_drop_pool >= 2 + CONFIG_WREN_TCP_SYN_RETRIES);
    CHECK_EQ(s.cli2.flags, 0);
    CHECK_EQ(t.accepted, 0);
    CHECK_EQ(t.done, 0); /* still in accept */
    wren_sock_tcp_stop_listen(&s.q);
    run_ms(10);
    CHECK_EQ(t.done, 1);
    CHECK_EQ(t.accept_stopped, -EBADF);
    CHECK_EQ(s.cli.flags, 0);
    CHECK_EQ(s.pool[0].flags, 0);
    CHECK_EQ(s.pool[0].conn.state, WREN_TCP_CLOSED);
    CHECK_EQ(tcp->stats.tx_rst, 2); /* one for each SYN to port 81 */
    TEARDOWN();
}

/* ---- a full send buffer ---------------------------------------------------------- */

#define BIG 6000

struct flow {
    ssize_t w1, w2, w3;
    uint64_t w3_done_at;
    uint64_t reader_start_at;
    uint32_t received, bad;
    int eof;
};

static void flow_writer(void *arg)
{
    struct flow *f = arg;
    static uint8_t buf[BIG];
    for (uint32_t k = 0; k < BIG; k++) {
        buf[k] = pattern(k);
    }
    if (wren_sock_tcp_connect(node, &s.cli, &srv_ep, 0, 1000000) != 0) {
        return;
    }
    /* the peer reads nothing: its window and our buffer fill, then we wait */
    f->w1 = wren_sock_tcp_write(&s.cli, buf, BIG, 100000);
    size_t done = f->w1 > 0 ? (size_t)f->w1 : 0;
    f->w2 = wren_sock_tcp_write(&s.cli, buf + done, BIG - done, 0);
    f->w3 = wren_sock_tcp_write(&s.cli, buf + done, BIG - done, WREN_SOCK_FOREVER);
    f->w3_done_at = wren_node_now(node);
    wren_sock_tcp_disconnect(&s.cli);
}

static void flow_reader(void *arg)
{
    struct flow *f = arg;
    struct wren_sock_tcp *c;
    if (wren_sock_tcp_accept(&s.q, &c, 1000000) != 0) {
        return;
    }
    wren_thread_sleep(node, 500000);
    f->reader_start_at = wren_node_now(node);
    uint8_t buf[100];
    ssize_t n;
    while ((n = wren_sock_tcp_read(c, buf, sizeof(buf), 1000000)) > 0) {
        for (ssize_t k = 0; k < n; k++) {
            f->bad += buf[k] != pattern(f->received + (uint32_t)k);
        }
        f->received += (uint32_t)n;
    }
    f->eof = n == 0;
    wren_sock_tcp_disconnect(c);
}

TEST(test_sock_tcp__write_blocks_until_the_peer_reads)
{
    static struct flow f;
    memset(&f, 0, sizeof(f));
    struct wren_sock_tcp_ep local = { .port = 7 };
    CHECK_EQ(wren_sock_tcp_listen(node, &s.q, &local, s.pool, 1), 0);
    start(0, flow_reader, &f);
    start(1, flow_writer, &f);
    run_ms(10000);
    /* a send buffer and a receive window's worth went, then the time ran out */
    CHECK_EQ(f.w1, CONFIG_WREN_SOCK_TCP_SNDBUF + CONFIG_WREN_SOCK_TCP_RCVBUF);
    CHECK_EQ(f.w2, -EAGAIN);
    CHECK_EQ(f.w3, BIG - f.w1);
    CHECK(f.w3_done_at >= f.reader_start_at);
    CHECK(f.reader_start_at >= 500000);
    CHECK_EQ(f.received, BIG);
    CHECK_EQ(f.bad, 0);
    CHECK_EQ(f.eof, 1);
    CHECK(threads_done(2));
    CHECK(tcp->stats.persist_probes >= 1);
    CHECK_EQ(s.cli.flags, 0);
    CHECK_EQ(s.pool[0].flags, 0);
    wren_sock_tcp_stop_listen(&s.q);
    TEARDOWN();
}

/* ---- wakeups: reset, disconnect, end of stream ------------------------------------ */

struct wakeups {
    ssize_t read_reset, write_reset, read_after;
    ssize_t read_disconnected, write_disconnected;
    int phase;
};

static void reset_reader(void *arg)
{
    struct wakeups *w = arg;
    uint8_t b[16];
    w->read_reset = wren_sock_tcp_read(&s.cli, b, sizeof(b), WREN_SOCK_FOREVER);
    w->read_after = wren_sock_tcp_read(&s.cli, b, sizeof(b), WREN_SOCK_FOREVER);
    w->write_reset = wren_sock_tcp_write(&s.cli, b, sizeof(b), WREN_SOCK_FOREVER);
}

static void disc_reader(void *arg)
{
    struct wakeups *w = arg;
    uint8_t b[16];
    w->read_disconnected = wren_sock_tcp_read(&s.cli, b, sizeof(b), WREN_SOCK_FOREVER);
}

static void disc_writer(void *arg)
{
    struct wakeups *w = arg;
    static uint8_t b[8000];
    w->write_disconnected = wren_sock_tcp_write(&s.cli, b, sizeof(b), WREN_SOCK_FOREVER);
}

static struct wren_sock_tcp *connect_pair(void)
{
    /* from the node's context: connect without waiting, accept when done */
    if (wren_sock_tcp_connect(node, &s.cli, &srv_ep, 0, 0) != -EINPROGRESS) {
        return NULL;
    }
    run_ms(10);
    struct wren_sock_tcp *c = NULL;
    if (wren_sock_tcp_accept(&s.q, &c, 0) != 0 || s.cli.conn.state != WREN_TCP_ESTABLISHED) {
        return NULL;
    }
    return c;
}

TEST(test_sock_tcp__reset_and_disconnect_wake_blocked_threads)
{
    static struct wakeups w;
    memset(&w, 0, sizeof(w));
    struct wren_sock_tcp_ep local = { .port = 7 };
    CHECK_EQ(wren_sock_tcp_listen(node, &s.q, &local, s.pool, 1), 0);
    /* a reset wakes a blocked reader, after the data before it */
    struct wren_sock_tcp *c = connect_pair();
    CHECK(c != NULL);
    start(0, reset_reader, &w);
    run_ms(100);
    CHECK_EQ(w.read_reset, 0); /* still waiting */
    CHECK_EQ(wren_sock_tcp_write(c, "abc", 3, 0), 3);
    run_ms(1);
    wren_tcp_abort(&c->conn);
    run_ms(100);
    CHECK_EQ(w.read_reset, 3);
    CHECK_EQ(w.read_after, -ECONNRESET);
    CHECK_EQ(w.write_reset, -ECONNRESET);
    CHECK_EQ(s.cli.conn.err, -ECONNRESET);
    wren_sock_tcp_disconnect(c);
    wren_sock_tcp_disconnect(&s.cli);
    CHECK_EQ(s.cli.flags, 0);
    CHECK_EQ(c->flags, 0);
    /* disconnect wakes a blocked reader and a blocked writer of one socket */
    c = connect_pair();
    CHECK(c != NULL);
    start(0, disc_reader, &w);
    start(1, disc_writer, &w);
    run_ms(100);
    CHECK_EQ(w.read_disconnected, 0);
    CHECK_EQ(w.write_disconnected, 0);
    wren_sock_tcp_disconnect(&s.cli);
    run_ms(1);
    CHECK_EQ(w.read_disconnected, -EBADF);
    CHECK_EQ(w.write_disconnected, 4096); /* what it had queued */
    CHECK(threads_done(2));
    CHECK_EQ(wren_sock_tcp_write(&s.cli, "x", 1, 0), -EBADF);
    /* the peer's data after the disconnect is answered by a RST */
    uint8_t junk[2048];
    ssize_t n;
    uint32_t got = 0;
    for (int i = 0; i < 10; i++) {
        while ((n = wren_sock_tcp_read(c, junk, sizeof(junk), 0)) > 0) {
            got += (uint32_t)n;
        }
        run_ms(100);
    }
    CHECK_EQ(got, 4096); /* its data and FIN went out after the disconnect */
    CHECK_EQ(n, 0);
    uint32_t rst = tcp->stats.tx_rst;
    CHECK_EQ(s.cli.flags, 0x02); /* lingering in FIN-WAIT-2 */
    CHECK_EQ(s.cli.conn.state, WREN_TCP_FIN_WAIT_2);
    CHECK_EQ(wren_sock_tcp_write(c, "late", 4, 0), 4);
    run_ms(100);
    CHECK_EQ(tcp->stats.tx_rst, rst + 1);
    CHECK_EQ(s.cli.flags, 0);
    CHECK_EQ(c->conn.state, WREN_TCP_CLOSED);
    CHECK_EQ(c->conn.err, -ECONNRESET);
    wren_sock_tcp_disconnect(c);
    wren_sock_tcp_stop_listen(&s.q);
    TEARDOWN();
}

TEST(test_sock_tcp__lingering_socket_is_reset_when_the_peer_never_closes)
{
    struct wren_sock_tcp_ep local = { .port = 7 };
    CHECK_EQ(wren_sock_tcp_listen(node, &s.q, &local, s.pool, 1), 0);
    struct wren_sock_tcp *c = connect_pair();
    CHECK(c != NULL);
    CHECK_EQ(wren_sock_tcp_write(&s.cli, "bye", 3, 0), 3);
    wren_sock_tcp_disconnect(&s.cli);
    CHECK_EQ(wren_sock_tcp_connect(node, &s.cli, &srv_ep, 0, 0), -EBUSY);
    run_ms(1000);
    CHECK_EQ(s.cli.conn.state, WREN_TCP_FIN_WAIT_2);
    uint8_t b[8];
    CHECK_EQ(wren_sock_tcp_read(c, b, sizeof(b), 0), 3);
    CHECK_EQ(wren_sock_tcp_read(c, b, sizeof(b), 0), 0);
    /* the server never closes: the client gives up after the linger time */
    run_ms(CONFIG_WREN_SOCK_TCP_LINGER_MS - 2000);
    CHECK_EQ(s.cli.conn.state, WREN_TCP_FIN_WAIT_2);
    run_ms(2000);
    CHECK_EQ(s.cli.flags, 0);
    CHECK_EQ(c->conn.state, WREN_TCP_CLOSED);
    CHECK_EQ(wren_sock_tcp_read(c, b, sizeof(b), 0), 0); /* the end of the stream stays */
    wren_sock_tcp_disconnect(c);
    CHECK_EQ(s.pool[0].flags, 0);
    wren_sock_tcp_stop_listen(&s.q);
    TEARDOWN();
}

struct waiters {
    int connect_res;
    ssize_t read1, read2;
};

static void blocked_connect(void *arg)
{
    struct waiters *w = arg;
    w->connect_res = wren_sock_tcp_connect(node, &s.cli2, &srv_ep, 0, WREN_SOCK_FOREVER);
}

static void reader1(void *arg)
{
    struct waiters *w = arg;
    uint8_t b[4];
    w->read1 = wren_sock_tcp_read(&s.cli, b, sizeof(b), WREN_SOCK_FOREVER);
}

static void reader2(void *arg)
{
    struct waiters *w = arg;
    uint8_t b[4];
    w->read2 = wren_sock_tcp_read(&s.cli, b, sizeof(b), WREN_SOCK_FOREVER);
}

TEST(test_sock_tcp__disconnect_wakes_connect_and_a_second_reader_is_ebusy)
{
    static struct waiters w;
    memset(&w, 0, sizeof(w));
    w.connect_res = 1;
    struct wren_sock_tcp_ep local = { .port = 7 };
    CHECK_EQ(wren_sock_tcp_listen(node, &s.q, &local, s.pool, 1), 0);
    struct wren_sock_tcp *c = connect_pair();
    CHECK(c != NULL);
    /* the pool is full: the SYNs of a second client find no room */
    start(0, blocked_connect, &w);
    start(1, reader1, &w);
    start(2, reader2, &w);
    run_ms(3000);
    CHECK_EQ(w.connect_res, 1);
    CHECK_EQ(s.cli2.conn.state, WREN_TCP_SYN_SENT);
    CHECK_EQ(w.read1, 0);
    CHECK_EQ(w.read2, -EBUSY);
    wren_sock_tcp_disconnect(&s.cli2);
    CHECK_EQ(wren_sock_tcp_write(c, "hi", 2, 0), 2);
    run_ms(100);
    CHECK_EQ(w.connect_res, -EBADF);
    CHECK_EQ(s.cli2.flags, 0);
    CHECK_EQ(w.read1, 2);
    CHECK(threads_done(3));
    wren_sock_tcp_disconnect(&s.cli);
    run_ms(100);
    uint8_t b[4];
    CHECK_EQ(wren_sock_tcp_read(c, b, sizeof(b), 0), 0);
    wren_sock_tcp_disconnect(c);
    wren_sock_tcp_stop_listen(&s.q);
    TEARDOWN();
}

/* ---- callbacks only, no thread ------------------------------------------------------- */

struct cbs {
    int cli_ev[5], srv_ev[5], q_ev;
    struct wren_sock_tcp *srv;
    uint32_t to_send, sent, received, echoed, bad;
    int srv_eof;
    int refused_err;
};

static struct cbs cb;

static void count(int *ev, unsigned events)
{
    for (unsigned i = 0; i < 5; i++) {
        ev[i] += (events >> i) & 1;
    }
}

static void cli_pump(void)
{
    uint8_t buf[700];
    while (cb.sent < cb.to_send) {
        uint32_t n = cb.to_send - cb.sent < 311 ? cb.to_send - cb.sent : 311;
        for (uint32_t k = 0; k < n; k++) {
            buf[k] = pattern(cb.sent + k);
        }
        ssize_t w = wren_sock_tcp_write(&s.cli, buf, n, 0);
        if (w <= 0) {
            return;
        }
        cb.sent += (uint32_t)w;
    }
}

static void cli_cb(struct wren_sock_tcp *sock, unsigned events, void *arg)
{
    (void)arg;
    count(cb.cli_ev, events);
    if (events & (WREN_SOCK_TCP_EV_CONNECTED | WREN_SOCK_TCP_EV_SEND)) {
        cli_pump();
    }
    if (events & WREN_SOCK_TCP_EV_RECV) {
        uint8_t buf[200];
        ssize_t n;
        while ((n = wren_sock_tcp_read(sock, buf, sizeof(buf), 0)) > 0) {
            for (ssize_t k = 0; k < n; k++) {
                cb.bad += buf[k] != pattern(cb.received + (uint32_t)k);
            }
            cb.received += (uint32_t)n;
        }
        if (cb.received == cb.to_send) {
            wren_sock_tcp_disconnect(sock);
        }
    }
}

static void srv_cb(struct wren_sock_tcp *sock, unsigned events, void *arg)
{
    (void)arg;
    count(cb.srv_ev, events);
    if (events & (WREN_SOCK_TCP_EV_RECV | WREN_SOCK_TCP_EV_SEND)) {
        /* echo what fits; the rest waits in the receive buffer */
        uint8_t buf[128];
        for (;;) {
            size_t room = wren_tcp_writable(&sock->conn);
            if (room == 0) {
                break;
            }
            ssize_t n = wren_sock_tcp_read(sock, buf, room < sizeof(buf) ? room : sizeof(buf), 0);
            if (n == 0) {
                cb.srv_eof = 1;
                wren_sock_tcp_disconnect(sock);
                return;
            }
            if (n < 0) {
                break;
            }
            cb.echoed += (uint32_t)wren_sock_tcp_write(sock, buf, (size_t)n, 0);
        }
    }
}

static void q_cb(struct wren_sock_tcp_queue *q, unsigned events, void *arg)
{
    (void)arg;
    cb.q_ev += events == WREN_SOCK_TCP_EV_ACCEPT;
    struct wren_sock_tcp *c;
    if (wren_sock_tcp_accept(q, &c, 0) == 0) {
        cb.srv = c;
        wren_sock_tcp_set_cb(c, srv_cb, NULL);
    }
}

static void refused_cb(struct wren_sock_tcp *sock, unsigned events, void *arg)
{
    (void)arg;
    if (events & WREN_SOCK_TCP_EV_CLOSED) {
        cb.refused_err = sock->conn.err;
    }
}

TEST(test_sock_tcp__callbacks_only)
{
    memset(&cb, 0, sizeof(cb));
    cb.to_send = 10000;
    struct wren_sock_tcp_ep local = { .port = 7 };
    wren_sock_tcp_queue_set_cb(&s.q, q_cb, NULL); /* before listening */
    CHECK_EQ(wren_sock_tcp_listen(node, &s.q, &local, s.pool, 2), 0);
    wren_sock_tcp_set_cb(&s.cli, cli_cb, NULL);
    CHECK_EQ(wren_sock_tcp_connect(node, &s.cli, &srv_ep, 0, 0), -EINPROGRESS);
    CHECK_EQ(wren_sock_tcp_connect(node, &s.cli, &srv_ep, 0, 0), -EALREADY);
    run_ms(10000);
    CHECK_EQ(cb.q_ev, 1);
    CHECK(cb.srv != NULL);
    CHECK_EQ(cb.cli_ev[0], 1);   /* CONNECTED */
    CHECK_EQ(cb.srv_ev[0], 0);   /* accepted ones are connected already */
    CHECK(cb.cli_ev[2] >= 1);    /* SEND */
    CHECK_EQ(cb.sent, cb.to_send);
    CHECK_EQ(cb.echoed, cb.to_send);
    CHECK_EQ(cb.received, cb.to_send);
    CHECK_EQ(cb.bad, 0);
    CHECK_EQ(cb.srv_eof, 1);
    CHECK_EQ(cb.cli_ev[3] + cb.srv_ev[3], 0); /* disconnected: no CLOSED events */
    CHECK_EQ(s.cli.flags, 0);
    CHECK_EQ(cb.srv->flags, 0);
    /* refused, reported by the callback */
    wren_sock_tcp_set_cb(&s.cli2, refused_cb, NULL);
    struct wren_sock_tcp_ep closed = srv_ep;
    closed.port = 81;
    CHECK_EQ(wren_sock_tcp_connect(node, &s.cli2, &closed, 0, 0), -EINPROGRESS);
    run_ms(100);
    CHECK_EQ(cb.refused_err, -ECONNREFUSED);
    CHECK_EQ(wren_sock_tcp_read(&s.cli2, cb.cli_ev, 1, 0), -ECONNREFUSED);
    wren_sock_tcp_disconnect(&s.cli2);
    wren_sock_tcp_stop_listen(&s.q);
    TEARDOWN();
}

/* ---- sockets made on demand --------------------------------------------------------- */

/* A lazy queue makes a socket only when a SYN finds every one made so far in
 * use, from the node's memory, and reuses it after; a listener nobody
 * connects to costs none. */
TEST(test_sock_tcp__lazy_listen_makes_sockets_on_demand)
{
    struct wren_sock_tcp_ep local = { .port = 7 };
    CHECK_EQ(wren_sock_tcp_listen_lazy(node, &s.q, &local, 2, &wren_tcp_module), 0);
    run_ms(100);
    CHECK_EQ(fx_mem_pieces(), 0);
    struct wren_sock_tcp *c1 = connect_pair();
    CHECK(c1 != NULL);
    CHECK_EQ(fx_mem_pieces(), 1);
    CHECK_EQ(wren_sock_tcp_connect(node, &s.cli2, &srv_ep, 0, 0), -EINPROGRESS);
    run_ms(10);
    struct wren_sock_tcp *c2 = NULL;
    CHECK_EQ(wren_sock_tcp_accept(&s.q, &c2, 0), 0);
    CHECK(c2 != c1);
    CHECK_EQ(fx_mem_pieces(), 2);
    /* c1 closed and released: the next connection takes it again; the
     * first close made the layer's TIME-WAIT table, once */
    CHECK(tcp->tw == NULL);
    wren_sock_tcp_disconnect(&s.cli);
    wren_sock_tcp_disconnect(c1);
    run_ms(CONFIG_WREN_TCP_TIME_WAIT_MS + 1000);
    CHECK_EQ(s.cli.flags, 0);
    CHECK(tcp->tw != NULL);
    CHECK_EQ(fx_mem_pieces(), 3);
    struct wren_sock_tcp *c3 = connect_pair();
    CHECK(c3 == c1);
    CHECK_EQ(fx_mem_pieces(), 3);
    CHECK_EQ(tcp->stats.syn_drop_pool, 0);
    wren_sock_tcp_disconnect(&s.cli);
    wren_sock_tcp_disconnect(&s.cli2);
    wren_sock_tcp_disconnect(c2);
    wren_sock_tcp_disconnect(c3);
    run_ms(100);
    wren_sock_tcp_stop_listen(&s.q);
    TEARDOWN();
}

/* ---- misuse ------------------------------------------------------------------------- */

TEST(test_sock_tcp__blocking_outside_a_thread_is_edeadlk)
{
    struct wren_sock_tcp_ep local = { .port = 7 };
    CHECK_EQ(wren_sock_tcp_listen(node, &s.q, &local, s.pool, 1), 0);
    CHECK_EQ(wren_sock_tcp_listen(node, &s.q, &local, s.pool, 1), -EBUSY);
    struct wren_sock_tcp_queue q2;
    memset(&q2, 0, sizeof(q2));
    CHECK_EQ(wren_sock_tcp_listen(node, &q2, &local, &s.cli2, 1), -EADDRINUSE);
    CHECK_EQ(s.cli2.queue, NULL);
    CHECK_EQ(wren_sock_tcp_listen(node, &q2, &local, &s.cli2, 0), -EINVAL);
    struct wren_sock_tcp *c;
    CHECK_EQ(wren_sock_tcp_accept(&s.q, &c, 1000), -EDEADLK);
    CHECK_EQ(wren_sock_tcp_connect(node, &s.cli, &srv_ep, 0, 1000), -EDEADLK);
    CHECK_EQ(s.cli.conn.state, WREN_TCP_CLOSED); /* nothing sent */
    CHECK_EQ(wren_sock_tcp_connect(node, &s.pool[0], &srv_ep, 0, 0), -EINVAL);
    uint8_t b[4];
    CHECK_EQ(wren_sock_tcp_read(&s.cli, b, sizeof(b), 0), -ENOTCONN);
    c = connect_pair();
    CHECK(c != NULL);
    CHECK_EQ(wren_sock_tcp_connect(node, &s.cli, &srv_ep, 0, 0), -EISCONN);
    CHECK_EQ(wren_sock_tcp_read(&s.cli, b, sizeof(b), 1000), -EDEADLK);
    CHECK_EQ(wren_sock_tcp_read(&s.cli, b, 0, 1000), 0);
    static uint8_t big[5000];
    CHECK_EQ(wren_sock_tcp_write(&s.cli, big, sizeof(big), 1000),
             CONFIG_WREN_SOCK_TCP_SNDBUF); /* what fitted; then it could not wait */
    CHECK_EQ(wren_sock_tcp_write(&s.cli, big, sizeof(big), 1000), -EDEADLK);
    wren_sock_tcp_disconnect(&s.cli);
    wren_sock_tcp_disconnect(&s.cli); /* twice: harmless */
    run_ms(100);
    while (wren_sock_tcp_read(c, big, sizeof(big), 0) > 0) {
    }
    wren_sock_tcp_disconnect(c);
    run_ms(100);
    CHECK_EQ(s.cli.flags, 0);
    wren_sock_tcp_stop_listen(&s.q);
    wren_sock_tcp_stop_listen(&s.q);
    CHECK_EQ(wren_sock_tcp_accept(&s.q, &c, 0), -EBADF);
    TEARDOWN();
}

/* ---- a simultaneous open closed before it completes --------------------------------- */

/* In place of the IPv6 layer: keeps the flags, seq and ack of what TCP sends. */
static struct capture {
    struct wren_module module;
    struct wren_netreg_entry reg;
    int n;
    uint8_t flags;
    uint32_t seq, ack;
} cap;

static void cap_handle(struct wren_node *n, struct wren_module *self, const struct wren_msg *msg)
{
    (void)self;
    struct wren_snip *pkt = msg->ptr;
    struct wren_snip *ts = wren_pkt_search(pkt, WREN_NETTYPE_TCP);
    struct tcp_hdr h;
    struct tcp_opts o;
    if (msg->type == WREN_MSG_SND && ts && wren_tcp_hdr_parse(ts->data, ts->size, &h, &o) > 0) {
        cap.n++;
        cap.flags = h.flags;
        cap.seq = h.seq;
        cap.ack = h.ack;
    }
    wren_pktbuf_release(&n->pktbuf, pkt);
}

static const struct wren_module_ops cap_ops = { .name = "capture", .handle = cap_handle };

/* a segment from [::1]:6000 to [::1]:5000, as the IPv6 layer hands it up */
static void inject(uint8_t flags, uint32_t seq, uint32_t ack)
{
    static const uint8_t lo[16] = { [15] = 1 };
    struct tcp_hdr h = { .src_port = 6000, .dst_port = 5000, .seq = seq, .ack = ack,
                         .flags = flags, .window = 2048 };
    struct tcp_opts o;
    memset(&o, 0, sizeof(o));
    uint8_t seg[TCP_HDR_LEN];
    int hl = wren_tcp_hdr_emit(&h, &o, seg, sizeof(seg));
    put_be16(seg + TCP_OFF_CSUM, wren_tcp_csum(lo, lo, seg, (size_t)hl));
    uint8_t iph[IPV6_HDR_LEN];
    wren_ipv6_hdr_init(iph, lo, lo, IPV6_NH_TCP);
    struct wren_snip *ips =
        wren_pktbuf_add(&node->pktbuf, NULL, iph, sizeof(iph), WREN_NETTYPE_IPV6);
    struct wren_snip *ts = wren_pktbuf_add(&node->pktbuf, ips, seg, (size_t)hl, WREN_NETTYPE_TCP);
    wren_netapi_receive(node, &tcp->module, ts);
    run_ms(1);
}

TEST(test_sock_tcp__disconnect_in_a_simultaneous_open_sends_the_fin_once_established)
{
    memset(&cap, 0, sizeof(cap));
    cap.module.ops = &cap_ops;
    cap.module.prio = WREN_PRIO_NET;
    wren_netreg_register(node, WREN_NETTYPE_IPV6, WREN_NETREG_DEMUX_ALL, &cap.module, &cap.reg);
    struct wren_sock_tcp_ep to = srv_ep;
    to.port = 6000;
    CHECK_EQ(wren_sock_tcp_connect(node, &s.cli, &to, 5000, 0), -EINPROGRESS);
    run_ms(1);
    CHECK_EQ(cap.flags, TCP_SYN);
    uint32_t iss = cap.seq;
    /* the peer's SYN crosses ours (RFC 9293 figure 7) */
    inject(TCP_SYN, 1000, 0);
    CHECK_EQ(s.cli.conn.state, WREN_TCP_SYN_RECEIVED);
    CHECK_EQ(cap.flags, TCP_SYN | TCP_ACK);
    CHECK_EQ(cap.ack, 1001);
    /* closed now: the FIN waits for the handshake */
    wren_sock_tcp_disconnect(&s.cli);
    run_ms(1);
    CHECK_EQ(s.cli.conn.state, WREN_TCP_SYN_RECEIVED);
    inject(TCP_ACK, 1001, iss + 1);
    CHECK_EQ(s.cli.conn.state, WREN_TCP_FIN_WAIT_1);
    CHECK(cap.flags & TCP_FIN);
    CHECK_EQ(cap.seq, iss + 1);
    inject(TCP_ACK, 1001, iss + 2);
    CHECK_EQ(s.cli.conn.state, WREN_TCP_FIN_WAIT_2);
    inject(TCP_ACK | TCP_FIN, 1001, iss + 2);
    CHECK_EQ(cap.flags, TCP_ACK);
    CHECK_EQ(cap.ack, 1002);
    CHECK_EQ(s.cli.flags, 0); /* through TIME-WAIT: released */
    TEARDOWN();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST_SETUP(test_sock_tcp__echo_20k_in_odd_writes_twice, setup),
        FX_TEST_SETUP(test_sock_tcp__timeouts_and_refusal, setup),
        FX_TEST_SETUP(test_sock_tcp__write_blocks_until_the_peer_reads, setup),
        FX_TEST_SETUP(test_sock_tcp__reset_and_disconnect_wake_blocked_threads, setup),
        FX_TEST_SETUP(test_sock_tcp__lingering_socket_is_reset_when_the_peer_never_closes, setup),
        FX_TEST_SETUP(test_sock_tcp__disconnect_wakes_connect_and_a_second_reader_is_ebusy, setup),
        FX_TEST_SETUP(test_sock_tcp__callbacks_only, setup),
        FX_TEST_SETUP(test_sock_tcp__lazy_listen_makes_sockets_on_demand, setup),
        FX_TEST_SETUP(test_sock_tcp__blocking_outside_a_thread_is_edeadlk, setup),
        FX_TEST_SETUP(
            test_sock_tcp__disconnect_in_a_simultaneous_open_sends_the_fin_once_established,
            setup_tcp_only),
    };
    return cmocka_run_group_tests_name("sock_tcp", tests, NULL, NULL);
}

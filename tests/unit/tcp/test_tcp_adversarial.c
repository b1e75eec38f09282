/* TCP against crafted segments (ADVERSARIAL.md, TCP): SYN floods, RFC 5961
 * challenges, malformed options, segments outside the window, ACKs of
 * unsent data, a zero window held for minutes, bad checksums, multicast,
 * segments for no connection, and a desynchronised pair that must not ACK
 * each other for ever.
 *
 * The IPv6 layer is replaced by a stub registered as (IPV6, ALL): what TCP
 * sends to ::1 comes back as a received datagram ([TCP] -> [IPv6 header],
 * as the IPv6 layer delivers it), so wren endpoints in the node talk to each
 * other; what it sends elsewhere is parsed, recorded and released. Crafted
 * segments are handed to the TCP module as RCV messages of the same shape,
 * with correct checksums unless a test wants otherwise. Virtual time only;
 * every test ends with the packet buffer empty and sane. */
#include <errno.h>
#include <string.h>

#include "core/byteorder.h"
#include "core/node.h"
#include "ipv6/ipv6.h"
#include "net/netapi.h"
#include "net/netreg.h"
#include "net/nettype.h"
#include "sim/world.h"
#include "tcp/tcp.h"
#include "fixture.h"
#include "wire/ipv6.h"
#include "wire/tcp.h"

/* ---- the node, with a stub for IPv6 -------------------------------------- */

struct sent {
    uint8_t dst[16];
    struct tcp_hdr h;
    struct tcp_opts o;
    uint32_t plen;
    uint64_t when;
};

#define SENT_MAX 64

static struct wren_node *node;
static struct wren_tcp *tcp;
static struct stub {
    struct wren_module module;
    struct wren_netreg_entry reg;
    struct sent sent[SENT_MAX]; /* what went elsewhere than ::1 (the last SENT_MAX) */
    unsigned n_sent;
    uint32_t looped;
    uint32_t probes;         /* looped segments of one byte: zero-window probes */
    uint64_t probe_at[64];
} stub;

static const uint8_t lo[16] = { [15] = 1 };
static const uint8_t me[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t peer[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

static void stub_handle(struct wren_node *n, struct wren_module *self, const struct wren_msg *msg)
{
    (void)self;
    struct wren_pktbuf *pb = &n->pktbuf;
    struct wren_snip *pkt = msg->ptr;
    if (msg->type != WREN_MSG_SND || pkt == NULL || pkt->size != IPV6_HDR_LEN) {
        wren_pktbuf_release(pb, pkt);
        return;
    }
    uint8_t ip[IPV6_HDR_LEN];
    memcpy(ip, pkt->data, sizeof(ip));
    uint8_t seg[1500];
    size_t len = wren_pkt_copy_from(pkt->next, 0, seg, sizeof(seg));
    wren_pktbuf_release(pb, pkt);
    struct tcp_hdr h;
    struct tcp_opts o;
    int hl = wren_tcp_hdr_parse(seg, len, &h, &o);
    if (hl < 0) {
        return;
    }
    if (!memcmp(ip + IPV6_OFF_DST, lo, 16)) {
        stub.looped++;
        if (len - (size_t)hl == 1 && stub.probes < 64) {
            stub.probe_at[stub.probes++] = wren_node_now(n);
        }
        struct wren_snip *ips = wren_pktbuf_add(pb, NULL, ip, IPV6_HDR_LEN, WREN_NETTYPE_IPV6);
        struct wren_snip *s = ips ? wren_pktbuf_add(pb, ips, seg, len, WREN_NETTYPE_TCP) : NULL;
        if (s == NULL) {
            wren_pktbuf_release(pb, ips);
            return;
        }
        wren_netapi_receive(n, &tcp->module, s);
        return;
    }
    struct sent *e = &stub.sent[stub.n_sent++ % SENT_MAX];
    memcpy(e->dst, ip + IPV6_OFF_DST, 16);
    e->h = h;
    e->o = o;
    e->plen = (uint32_t)(len - (size_t)hl);
    e->when = wren_node_now(n);
}

/* source selection: the node's address is 2001:db8::1 */
static int stub_get(struct wren_node *n, struct wren_module *self, uint16_t opt, uint16_t ctx,
                    void *val, size_t max)
{
    (void)n;
    (void)self;
    (void)ctx;
    if (opt != WREN_NETOPT_IPV6_SRC_SELECT || max < 16) {
        return -ENOTSUP;
    }
    memcpy(val, me, 16);
    return 16;
}

static const struct wren_module_ops stub_ops = {
    .name = "ipv6-stub",
    .handle = stub_handle,
    .get = stub_get,
};

/* every test: a node with TCP (16 KiB packet buffer) over the stub IPv6 layer */
static int setup(void **state)
{
    memset(&stub, 0, sizeof(stub));
    fx_setup(state);
    struct fx_node *n = fx_node_ex(FX_TCP, 16384, 1, 1);
    node = &n->node;
    tcp = n->tcp;
    stub.module.ops = &stub_ops;
    stub.module.prio = WREN_PRIO_NET;
    CHECK_EQ(wren_netreg_register(node, WREN_NETTYPE_IPV6, WREN_NETREG_DEMUX_ALL, &stub.module,
                                  &stub.reg), 0);
    return 0;
}

#define TEARDOWN()                                                                 \
    do {                                                                           \
        wren_world_run_until(&fx.world, fx.world.now + 600000000ull);                    \
        CHECK(tcp->conns == NULL);                                                  \
        FX_CLEAN(0);                                                               \
    } while (0)

static void run_ms(uint32_t ms)
{
    wren_world_run_until(&fx.world, fx.world.now + (uint64_t)ms * 1000);
}

static const struct sent *last_sent(void)
{
    return stub.n_sent ? &stub.sent[(stub.n_sent - 1) % SENT_MAX] : NULL;
}

/* ---- crafted segments ----------------------------------------------------- */

struct seg {
    const uint8_t *src, *dst;
    uint16_t sport, dport;
    uint32_t seq, ack;
    uint8_t flags;
    uint16_t window;
    const uint8_t *opts; /* raw, padded with EOL to a multiple of 4 */
    size_t optlen;
    int doff;            /* data offset to write instead of the right one (0: right) */
    const uint8_t *data;
    size_t len;
    int bad_csum;
};

/* hand @p s to the TCP module as the IPv6 layer would, and let it run */
static void inject(const struct seg *s)
{
    uint8_t b[TCP_HDR_MAX_LEN + 2200];
    struct tcp_hdr h = { .src_port = s->sport, .dst_port = s->dport, .seq = s->seq,
                         .ack = s->ack, .flags = s->flags, .window = s->window };
    size_t hl = TCP_HDR_LEN + (s->optlen + 3) / 4 * 4;
    memset(b, 0, hl);
    wren_tcp_hdr_emit(&h, NULL, b, TCP_HDR_LEN);
    b[TCP_OFF_DOFF] = (uint8_t)((s->doff ? (size_t)s->doff : hl / 4) << 4);
    if (s->optlen) {
        memcpy(b + TCP_HDR_LEN, s->opts, s->optlen);
    }
    if (s->len) {
        memcpy(b + hl, s->data, s->len);
    }
    size_t len = hl + s->len;
    const uint8_t *src = s->src ? s->src : peer, *dst = s->dst ? s->dst : me;
    uint16_t cs = wren_tcp_csum(src, dst, b, len);
    put_be16(b + TCP_OFF_CSUM, s->bad_csum ? (uint16_t)~cs : cs);
    struct wren_pktbuf *pb = &node->pktbuf;
    struct wren_snip *ips = wren_pktbuf_add(pb, NULL, NULL, IPV6_HDR_LEN, WREN_NETTYPE_IPV6);
    wren_ipv6_hdr_init(ips->data, src, dst, IPV6_NH_TCP);
    put_be16(ips->data + IPV6_OFF_PAYLOAD_LEN, (uint16_t)len);
    ips->data[IPV6_OFF_HOP_LIMIT] = 64;
    struct wren_snip *p = wren_pktbuf_add(pb, ips, b, len, WREN_NETTYPE_TCP);
    wren_netapi_receive(node, &tcp->module, p);
    wren_world_run_until(&fx.world, fx.world.now);
}

static uint8_t pattern(uint32_t i)
{
    return (uint8_t)(i * 131 + (i >> 8) * 7);
}

/* ---- endpoints ------------------------------------------------------------ */

struct ep {
    struct wren_tcp_conn c;
    uint8_t snd[2048], rcv[2048], bm[256];
    uint32_t to_send, sent, received, bad;
    int reading, closed, connected;
};

static void pump(struct ep *e)
{
    uint8_t buf[512];
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
}

static void drain(struct ep *e)
{
    uint8_t buf[300];
    ssize_t r;
    while (e->reading && (r = wren_tcp_recv(&e->c, buf, sizeof(buf))) > 0) {
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
    if (ev & WREN_TCP_EV_CLOSED) {
        e->closed++;
        return;
    }
    e->connected += (ev & WREN_TCP_EV_CONNECTED) != 0;
    if (ev & (WREN_TCP_EV_CONNECTED | WREN_TCP_EV_SEND)) {
        pump(e);
    }
    if (ev & WREN_TCP_EV_RECV) {
        drain(e);
    }
}

static struct ep cli, srv[2];
static struct wren_tcp_listener lis;
static struct wren_tcp_conn *pool[2];
static int accepted;
static int accept_off;

static void accept_cb(struct wren_tcp_listener *l, void *arg)
{
    (void)arg;
    struct wren_tcp_conn *c;
    while (!accept_off && (c = wren_tcp_accept(l)) != NULL) {
        struct ep *e = c == &srv[0].c ? &srv[0] : &srv[1];
        wren_tcp_set_cb(c, ep_cb, e);
        accepted++;
        pump(e);
        drain(e);
    }
}

static void eps_init(uint8_t opts)
{
    memset(&cli, 0, sizeof(cli));
    memset(srv, 0, sizeof(srv));
    accepted = 0;
    accept_off = 0;
    struct ep *all[3] = { &cli, &srv[0], &srv[1] };
    for (unsigned i = 0; i < 3; i++) {
        struct ep *e = all[i];
        wren_tcp_conn_init(&e->c, e->snd, sizeof(e->snd), e->rcv, e->bm, sizeof(e->rcv));
        wren_tcp_set_cb(&e->c, ep_cb, e);
        wren_tcp_set_opts(&e->c, opts);
        e->reading = 1;
    }
    pool[0] = &srv[0].c;
    pool[1] = &srv[1].c;
    wren_tcp_listen(tcp, &lis, NULL, 80, pool, 2);
    wren_tcp_listen_set_cb(&lis, accept_cb, NULL);
}

static void eps_release(void)
{
    wren_tcp_release(&cli.c);
    wren_tcp_release(&srv[0].c);
    wren_tcp_release(&srv[1].c);
    wren_tcp_unlisten(&lis);
}

/* The peer (2001:db8::2, port 5000) opens a connection to the listener
 * without options: the server's connection is returned, ESTABLISHED. */
#define PEER_ISS 1000u
static struct wren_tcp_conn *peer_connect(uint16_t window)
{
    struct seg s = { .sport = 5000, .dport = 80, .seq = PEER_ISS, .flags = TCP_SYN,
                     .window = window };
    inject(&s);
    const struct sent *sa = last_sent();
    if (sa == NULL || sa->h.flags != (TCP_SYN | TCP_ACK) || sa->h.ack != PEER_ISS + 1) {
        return NULL;
    }
    struct seg a = { .sport = 5000, .dport = 80, .seq = PEER_ISS + 1, .ack = sa->h.seq + 1,
                     .flags = TCP_ACK, .window = window };
    inject(&a);
    struct wren_tcp_conn *c = srv[0].c.rport == 5000 ? &srv[0].c : &srv[1].c;
    return c->state == WREN_TCP_ESTABLISHED ? c : NULL;
}

/* a segment from the peer to @p c, in sequence */
static struct seg from_peer(const struct wren_tcp_conn *c, uint8_t flags)
{
    struct seg s = { .sport = c->rport, .dport = c->lport, .seq = c->rcv_nxt,
                     .ack = c->snd_una, .flags = flags, .window = 4096 };
    return s;
}

/* ---- tests ------------------------------------------------------------------ */

TEST(test_tcp_syn_flood__pool_bounded_and_legitimate_client_served)
{
    eps_init(WREN_TCP_OPT_SACK | WREN_TCP_OPT_TS);
    uint8_t src[16];
    memcpy(src, peer, 16);
    for (uint32_t i = 0; i < 1000; i++) {
        put_be32(src + 12, 0x1000 + i);
        struct seg s = { .src = src, .sport = (uint16_t)(1024 + i), .dport = 80,
                         .seq = i * 7919u, .flags = TCP_SYN, .window = 1000 };
        inject(&s);
        /* state bounded: the pool's entries, nothing else */
        unsigned n = 0;
        for (struct wren_tcp_conn *c = tcp->conns; c; c = c->next) {
            n++;
            CHECK(c == &srv[0].c || c == &srv[1].c || c == &cli.c);
        }
        CHECK(n <= 3);
        if (i == 500) {
            /* a legitimate client in the middle of the flood: it connects,
             * is accepted, and its 20,000 bytes arrive while SYNs go on */
            cli.to_send = 20000;
            CHECK_EQ(wren_tcp_connect(tcp, &cli.c, lo, 80, 0, 0), 0);
            wren_world_run_until(&fx.world, fx.world.now);
            CHECK_EQ(cli.c.state, WREN_TCP_ESTABLISHED);
            CHECK_EQ(accepted, 1);
        }
        if (i > 500 && i % 10 == 0) {
            run_ms(1);
        }
        CHECK(wren_pktbuf_is_sane(&node->pktbuf));
    }
    CHECK(tcp->stats.syn_evicted >= 997);
    CHECK_EQ(tcp->stats.syn_drop_pool, 0);
    run_ms(5000);
    struct ep *s = srv[0].c.rport == cli.c.lport ? &srv[0] : &srv[1];
    CHECK_EQ(s->received, 20000);
    CHECK_EQ(s->bad, 0);
    CHECK_EQ(cli.c.state, WREN_TCP_ESTABLISHED);
    /* the half-open entry times out after its SYN-ACK retries */
    run_ms(120000);
    CHECK(tcp->stats.conn_timeouts >= 1);
    CHECK(tcp->conns == &cli.c || tcp->conns == &s->c);

    /* a second legitimate client is served after the flood too */
    wren_tcp_release(&cli.c);
    wren_tcp_release(&s->c);
    run_ms(1);
    srv[0].received = srv[1].received = srv[0].bad = srv[1].bad = 0;
    cli.sent = 0;
    cli.to_send = 5000;
    CHECK_EQ(wren_tcp_connect(tcp, &cli.c, lo, 80, 0, 0), 0);
    run_ms(2000);
    struct ep *s2 = srv[0].c.rport == cli.c.lport ? &srv[0] : &srv[1];
    CHECK_EQ(s2->received, 5000);
    CHECK_EQ(s2->bad, 0);
    eps_release();
    TEARDOWN();
}

TEST(test_tcp_syn_flood__established_unaccepted_entries_refuse_syns)
{
    eps_init(0);
    accept_off = 1; /* the application does not accept */
    CHECK(peer_connect(1000) != NULL);
    struct seg s = { .sport = 5001, .dport = 80, .seq = 1, .flags = TCP_SYN, .window = 1000 };
    inject(&s);
    struct seg a = { .sport = 5001, .dport = 80, .seq = 2, .ack = last_sent()->h.seq + 1,
                     .flags = TCP_ACK, .window = 1000 };
    inject(&a);
    CHECK_EQ(srv[0].c.state, WREN_TCP_ESTABLISHED);
    CHECK_EQ(srv[1].c.state, WREN_TCP_ESTABLISHED);
    unsigned n_sent = stub.n_sent;
    for (uint16_t i = 0; i < 100; i++) {
        struct seg f = { .sport = (uint16_t)(6000 + i), .dport = 80, .seq = i, .flags = TCP_SYN,
                         .window = 1000 };
        inject(&f);
    }
    CHECK_EQ(tcp->stats.syn_drop_pool, 100);
    CHECK_EQ(tcp->stats.syn_evicted, 0);
    CHECK_EQ(stub.n_sent, n_sent); /* no answer */
    /* bare ACKs to the listener create no state: answered by RST */
    struct seg b = { .sport = 7000, .dport = 80, .seq = 5, .ack = 77, .flags = TCP_ACK };
    uint32_t rst = tcp->stats.tx_rst;
    inject(&b);
    CHECK_EQ(tcp->stats.tx_rst, rst + 1);
    CHECK_EQ(last_sent()->h.flags, TCP_RST);
    CHECK_EQ(last_sent()->h.seq, 77);
    eps_release();
    TEARDOWN();
}

TEST(test_tcp_rfc5961__rst_and_syn_in_window_get_challenge_acks)
{
    eps_init(0);
    struct wren_tcp_conn *c = peer_connect(1000);
    CHECK(c != NULL);
    /* RST in the window but not at RCV.NXT: challenge ACK, no reset */
    struct seg r = from_peer(c, TCP_RST);
    r.seq += 5;
    unsigned n_sent = stub.n_sent;
    inject(&r);
    CHECK_EQ(tcp->stats.challenge_acks, 1);
    CHECK_EQ(tcp->stats.rx_rst, 0);
    CHECK_EQ(c->state, WREN_TCP_ESTABLISHED);
    CHECK_EQ(stub.n_sent, n_sent + 1);
    CHECK_EQ(last_sent()->h.flags, TCP_ACK);
    CHECK_EQ(last_sent()->h.ack, c->rcv_nxt);
    CHECK_EQ(last_sent()->h.seq, c->snd_nxt);
    /* SYN in the window: challenge ACK, no reset */
    struct seg y = from_peer(c, TCP_SYN);
    y.seq += 3;
    inject(&y);
    CHECK_EQ(tcp->stats.challenge_acks, 2);
    CHECK_EQ(c->state, WREN_TCP_ESTABLISHED);
    CHECK_EQ(last_sent()->h.flags, TCP_ACK);
    /* SYN+ACK as well */
    y.flags = TCP_SYN | TCP_ACK;
    inject(&y);
    CHECK_EQ(tcp->stats.challenge_acks, 3);
    CHECK_EQ(c->state, WREN_TCP_ESTABLISHED);
    /* a burst: at most CONFIG_WREN_TCP_CHALLENGE_PER_S per second, the rest counted */
    for (int i = 0; i < 20; i++) {
        inject(&r);
    }
    CHECK_EQ(tcp->stats.challenge_acks, CONFIG_WREN_TCP_CHALLENGE_PER_S);
    CHECK_EQ(tcp->stats.challenge_limited, 23 - CONFIG_WREN_TCP_CHALLENGE_PER_S);
    CHECK_EQ(c->state, WREN_TCP_ESTABLISHED);
    run_ms(1000);
    inject(&r);
    CHECK_EQ(tcp->stats.challenge_acks, CONFIG_WREN_TCP_CHALLENGE_PER_S + 1);
    /* a RST outside the window: dropped, no answer */
    n_sent = stub.n_sent;
    struct seg far = from_peer(c, TCP_RST);
    far.seq += 100000;
    inject(&far);
    CHECK_EQ(stub.n_sent, n_sent);
    CHECK_EQ(c->state, WREN_TCP_ESTABLISHED);
    /* the exact RST resets */
    struct seg x = from_peer(c, TCP_RST);
    inject(&x);
    CHECK_EQ(tcp->stats.rx_rst, 1);
    CHECK_EQ(c->state, WREN_TCP_CLOSED);
    CHECK_EQ(c->err, -ECONNRESET);
    CHECK_EQ(stub.n_sent, n_sent);
    eps_release();
    TEARDOWN();
}

TEST(test_tcp_options__length_0_1_and_overlong_are_dropped)
{
    eps_init(0);
    srv[0].reading = srv[1].reading = 0;
    struct wren_tcp_conn *c = peer_connect(1000);
    CHECK(c != NULL);
    uint8_t data[10] = "0123456789";
    static const uint8_t len0[4] = { TCP_OPT_MSS, 0, 0, 0 };
    static const uint8_t len1[4] = { TCP_OPT_TS, 1, 0, 0 };
    static const uint8_t past[4] = { TCP_OPT_NOP, TCP_OPT_NOP, TCP_OPT_TS, 10 };
    static const uint8_t past_len[4] = { TCP_OPT_NOP, TCP_OPT_NOP, TCP_OPT_NOP, TCP_OPT_MSS };
    static const uint8_t sack_odd[8] = { TCP_OPT_NOP, TCP_OPT_NOP, TCP_OPT_SACK, 6 };
    const uint8_t *bad[] = { len0, len1, past, past_len, sack_odd };
    const size_t bad_len[] = { 4, 4, 4, 4, 8 };
    unsigned n_sent = stub.n_sent;
    uint32_t rcv_nxt = c->rcv_nxt;
    for (unsigned i = 0; i < 5; i++) {
        struct seg s = from_peer(c, TCP_ACK | TCP_PSH);
        s.opts = bad[i];
        s.optlen = bad_len[i];
        s.data = data;
        s.len = sizeof(data);
        inject(&s);
        CHECK_EQ(tcp->stats.rx_drop_hdr, i + 1);
    }
    /* data offset below 5, and beyond the segment */
    struct seg d = from_peer(c, TCP_ACK);
    d.doff = 4;
    inject(&d);
    d.doff = 15;
    inject(&d);
    CHECK_EQ(tcp->stats.rx_drop_hdr, 7);
    /* nothing delivered, nothing answered, the connection as it was */
    CHECK_EQ(c->rcv_nxt, rcv_nxt);
    CHECK_EQ(wren_tcp_readable(c), 0);
    CHECK_EQ(stub.n_sent, n_sent);
    CHECK_EQ(c->state, WREN_TCP_ESTABLISHED);
    /* a good segment still goes through */
    struct seg g = from_peer(c, TCP_ACK | TCP_PSH);
    g.data = data;
    g.len = sizeof(data);
    inject(&g);
    CHECK_EQ(wren_tcp_readable(c), 10);
    eps_release();
    TEARDOWN();
}

TEST(test_tcp_window__beyond_dropped_partly_beyond_trimmed)
{
    eps_init(0);
    srv[0].reading = srv[1].reading = 0;
    struct wren_tcp_conn *c = peer_connect(1000);
    CHECK(c != NULL);
    uint32_t base = c->rcv_nxt, wnd = c->rcv_adv - c->rcv_nxt;
    CHECK_EQ(wnd, sizeof(srv[0].rcv));
    uint8_t data[2200];
    for (uint32_t i = 0; i < sizeof(data); i++) {
        data[i] = pattern(i);
    }
    /* entirely beyond the window: dropped, answered by an ACK */
    struct seg s = from_peer(c, TCP_ACK);
    s.seq = base + wnd;
    s.data = data + wnd;
    s.len = 100;
    unsigned n_sent = stub.n_sent;
    inject(&s);
    CHECK_EQ(tcp->stats.rx_drop_seq, 1);
    CHECK_EQ(stub.n_sent, n_sent + 1);
    CHECK_EQ(last_sent()->h.ack, base);
    CHECK_EQ(last_sent()->plen, 0);
    CHECK_EQ(wren_tcp_readable(c), 0);
    CHECK_EQ(c->rcv_nxt, base);
    /* partly beyond: what fits is kept (out of order), the rest trimmed */
    s.seq = base + wnd - 48;
    s.data = data + wnd - 48;
    inject(&s);
    CHECK_EQ(tcp->stats.rx_drop_seq, 1);
    CHECK_EQ(tcp->stats.rx_ooo_segs, 1);
    CHECK_EQ(c->rcv_nxt, base);
    /* the hole filled: exactly the window is readable, byte-exact */
    for (uint32_t off = 0; off < wnd - 48; off += 400) {
        struct seg f = from_peer(c, TCP_ACK);
        f.data = data + off;
        f.len = wnd - 48 - off < 400 ? wnd - 48 - off : 400;
        inject(&f);
    }
    CHECK_EQ(c->rcv_nxt, base + wnd);
    CHECK_EQ(wren_tcp_readable(c), wnd);
    uint8_t got[2048];
    CHECK_EQ(wren_tcp_recv(c, got, sizeof(got)), (ssize_t)wnd);
    CHECK_MEM(got, data, wnd);
    eps_release();
    TEARDOWN();
}

TEST(test_tcp_ack__unsent_data_dropped_too_old_challenged)
{
    eps_init(0);
    srv[0].reading = srv[1].reading = 0;
    struct wren_tcp_conn *c = peer_connect(1000);
    CHECK(c != NULL);
    /* an ACK of data never sent, with data: dropped, ACK sent, data not taken */
    uint8_t data[20] = { 1, 2, 3 };
    struct seg s = from_peer(c, TCP_ACK);
    s.ack = c->snd_max + 100;
    s.data = data;
    s.len = sizeof(data);
    unsigned n_sent = stub.n_sent;
    uint32_t una = c->snd_una;
    inject(&s);
    CHECK_EQ(tcp->stats.rx_drop_ack, 1);
    CHECK_EQ(stub.n_sent, n_sent + 1);
    CHECK_EQ(last_sent()->h.flags, TCP_ACK);
    CHECK_EQ(last_sent()->h.seq, c->snd_max);
    CHECK_EQ(wren_tcp_readable(c), 0);
    CHECK_EQ(c->snd_una, una);
    /* a bare one too */
    s.len = 0;
    inject(&s);
    CHECK_EQ(tcp->stats.rx_drop_ack, 2);
    CHECK_EQ(stub.n_sent, n_sent + 2);
    /* very old (below SND.UNA - MAX.SND.WND): a challenge ACK */
    struct seg o = from_peer(c, TCP_ACK);
    o.ack = c->snd_una - c->max_snd_wnd - 10;
    inject(&o);
    CHECK_EQ(tcp->stats.rx_drop_ack, 3);
    CHECK_EQ(tcp->stats.challenge_acks, 1);
    CHECK_EQ(c->state, WREN_TCP_ESTABLISHED);
    CHECK_EQ(c->snd_una, una);
    /* old but within the window: a harmless duplicate */
    o.ack = c->snd_una - 10;
    inject(&o);
    CHECK_EQ(tcp->stats.rx_drop_ack, 3);
    CHECK_EQ(c->state, WREN_TCP_ESTABLISHED);
    eps_release();
    TEARDOWN();
}

TEST(test_tcp_zero_window__ten_minutes_of_probes_then_completes)
{
    eps_init(WREN_TCP_OPT_SACK | WREN_TCP_OPT_TS);
    srv[0].reading = srv[1].reading = 0; /* the receiver never reads */
    cli.to_send = 6000;
    CHECK_EQ(wren_tcp_connect(tcp, &cli.c, lo, 80, 0, 0), 0);
    run_ms(1000);
    struct ep *s = srv[0].c.rport == cli.c.lport ? &srv[0] : &srv[1];
    CHECK_EQ(s->c.state, WREN_TCP_ESTABLISHED);
    CHECK_EQ(wren_tcp_readable(&s->c), sizeof(s->rcv));
    CHECK_EQ(cli.c.snd_wnd, 0);
    uint32_t in_use_max = 0;
    for (int sec = 0; sec < 600; sec++) {
        run_ms(1000);
        in_use_max = node->pktbuf.stats.in_use > in_use_max ? node->pktbuf.stats.in_use
                                                           : in_use_max;
    }
    /* still connected, probing with backoff up to the RTO's maximum */
    CHECK_EQ(cli.c.state, WREN_TCP_ESTABLISHED);
    CHECK_EQ(s->c.state, WREN_TCP_ESTABLISHED);
    CHECK_EQ(tcp->stats.conn_timeouts, 0);
    uint32_t probes = tcp->stats.persist_probes;
    CHECK(probes >= 10 && probes <= 30);
    CHECK_EQ(stub.probes, probes);
    for (uint32_t i = 1; i < stub.probes; i++) {
        uint64_t gap = stub.probe_at[i] - stub.probe_at[i - 1];
        CHECK(gap >= stub.probe_at[1] - stub.probe_at[0]);
        CHECK(gap <= CONFIG_WREN_TCP_RTO_MAX_MS * 1000ull);
    }
    CHECK_EQ(stub.probe_at[stub.probes - 1] - stub.probe_at[stub.probes - 2],
             CONFIG_WREN_TCP_RTO_MAX_MS * 1000ull);
    CHECK(in_use_max < 1024); /* nothing piles up while the window is shut */
    CHECK_EQ(s->received, 0);
    /* the receiver reads at last: the rest follows, byte-exact */
    s->reading = 1;
    drain(s);
    run_ms(5000);
    CHECK_EQ(s->received, 6000);
    CHECK_EQ(s->bad, 0);
    CHECK_EQ(cli.sent, 6000);
    eps_release();
    TEARDOWN();
}

TEST(test_tcp_zero_window__shrunk_with_data_in_flight_is_probed_not_given_up)
{
    /* the peer takes nothing of 1,000 bytes in flight and shuts its window
     * (a shrink): retransmissions cannot go out, so they become probes, which
     * the peer answers; the connection lives on until the window opens */
    eps_init(WREN_TCP_OPT_NODELAY);
    struct wren_tcp_conn *c = peer_connect(2000);
    CHECK(c != NULL);
    uint8_t data[1000];
    for (unsigned i = 0; i < sizeof(data); i++) {
        data[i] = pattern(i);
    }
    CHECK_EQ(wren_tcp_send(c, data, sizeof(data)), 1000);
    CHECK_EQ(c->snd_max - c->snd_una, 1000);
    uint32_t una = c->snd_una;
    struct seg z = { .sport = c->rport, .dport = c->lport, .seq = c->rcv_nxt, .ack = una,
                     .flags = TCP_ACK, .window = 0 };
    inject(&z);
    CHECK_EQ(c->snd_wnd, 0);
    unsigned answered = stub.n_sent;
    for (int sec = 0; sec < 600; sec++) {
        run_ms(1000);
        if (stub.n_sent != answered) {
            answered = stub.n_sent;
            CHECK(last_sent()->plen <= 1); /* probes, no more */
            CHECK_EQ(last_sent()->h.seq, una);
            inject(&z);
        }
    }
    CHECK_EQ(c->state, WREN_TCP_ESTABLISHED);
    CHECK_EQ(tcp->stats.conn_timeouts, 0);
    CHECK(tcp->stats.persist_probes >= 8);
    /* the window opens: everything is sent again */
    z.window = 2000;
    inject(&z);
    run_ms(10);
    CHECK_EQ(c->snd_max - c->snd_una, 1000);
    CHECK(last_sent()->plen > 1);
    z.ack = una + 1000;
    inject(&z);
    CHECK_EQ(c->snd_una, una + 1000);
    eps_release();
    TEARDOWN();
}

TEST(test_tcp_simultaneous_open__shutdown_in_syn_received_sends_fin)
{
    /* simultaneous open (RFC 9293 figure 7), and the application closes
     * before the handshake ends: the FIN follows once the SYN is
     * acknowledged, and FIN-WAIT-2 comes only when the FIN is */
    eps_init(0);
    CHECK_EQ(wren_tcp_connect(tcp, &cli.c, peer, 5000, 6000, 0), 0);
    wren_world_run_until(&fx.world, fx.world.now);
    const struct sent *syn = last_sent();
    CHECK(syn != NULL && syn->h.flags == TCP_SYN);
    uint32_t iss = syn->h.seq;
    struct seg y = { .sport = 5000, .dport = 6000, .seq = 7000, .flags = TCP_SYN,
                     .window = 2000 };
    inject(&y);
    CHECK_EQ(cli.c.state, WREN_TCP_SYN_RECEIVED);
    CHECK_EQ(last_sent()->h.flags, TCP_SYN | TCP_ACK);
    CHECK_EQ(wren_tcp_shutdown(&cli.c), 0);
    wren_world_run_until(&fx.world, fx.world.now);
    /* the peer's SYN-ACK acknowledges our SYN */
    struct seg a = { .sport = 5000, .dport = 6000, .seq = 7000, .ack = iss + 1,
                     .flags = TCP_SYN | TCP_ACK, .window = 2000 };
    inject(&a);
    struct seg b = { .sport = 5000, .dport = 6000, .seq = 7001, .ack = iss + 1,
                     .flags = TCP_ACK, .window = 2000 };
    inject(&b);
    CHECK_EQ(cli.c.state, WREN_TCP_FIN_WAIT_1);
    CHECK_EQ(cli.connected, 1);
    CHECK(last_sent()->h.flags & TCP_FIN);
    CHECK_EQ(last_sent()->h.seq, iss + 1);
    /* the FIN acknowledged: FIN-WAIT-2; the peer's FIN: TIME-WAIT */
    b.ack = iss + 2;
    inject(&b);
    CHECK_EQ(cli.c.state, WREN_TCP_FIN_WAIT_2);
    b.flags = TCP_ACK | TCP_FIN;
    inject(&b);
    CHECK_EQ(cli.c.state, WREN_TCP_CLOSED);
    CHECK_EQ(tcp->tw->e[0].lport, 6000);
    eps_release();
    TEARDOWN();
}

TEST(test_tcp_input__bad_csum_multicast_and_no_connection)
{
    eps_init(0);
    srv[0].reading = srv[1].reading = 0;
    struct wren_tcp_conn *c = peer_connect(1000);
    CHECK(c != NULL);
    uint8_t data[8] = { 9, 9, 9 };
    unsigned n_sent = stub.n_sent;
    /* bad checksum: counted, nothing else */
    struct seg b = from_peer(c, TCP_ACK);
    b.data = data;
    b.len = sizeof(data);
    b.bad_csum = 1;
    inject(&b);
    CHECK_EQ(tcp->stats.rx_drop_csum, 1);
    CHECK_EQ(wren_tcp_readable(c), 0);
    CHECK_EQ(stub.n_sent, n_sent);
    /* to a multicast destination (or from one): ignored, no RST */
    static const uint8_t mc[16] = { 0xff, 0x02, [15] = 1 };
    struct seg m = { .dst = mc, .sport = 5555, .dport = 80, .seq = 1, .flags = TCP_SYN };
    inject(&m);
    m.dport = 81;
    m.flags = TCP_ACK;
    inject(&m);
    struct seg m2 = { .src = mc, .sport = 5555, .dport = 81, .seq = 1, .flags = TCP_ACK };
    inject(&m2);
    CHECK_EQ(tcp->stats.rx_drop_hdr, 3);
    CHECK_EQ(stub.n_sent, n_sent);
    CHECK_EQ(tcp->stats.tx_rst, 0);
    /* no connection: RST (seq from the ACK, or ACK of the segment) */
    struct seg n = { .sport = 5555, .dport = 81, .seq = 300, .ack = 4000, .flags = TCP_ACK,
                     .data = data, .len = sizeof(data) };
    inject(&n);
    CHECK_EQ(tcp->stats.rx_drop_no_conn, 1);
    CHECK_EQ(stub.n_sent, n_sent + 1);
    CHECK_EQ(last_sent()->h.flags, TCP_RST);
    CHECK_EQ(last_sent()->h.seq, 4000);
    CHECK_MEM(last_sent()->dst, peer, 16);
    n.flags = TCP_SYN | TCP_FIN;
    inject(&n);
    CHECK_EQ(last_sent()->h.flags, TCP_RST | TCP_ACK);
    CHECK_EQ(last_sent()->h.seq, 0);
    CHECK_EQ(last_sent()->h.ack, 300 + sizeof(data) + 2);
    CHECK_EQ(tcp->stats.tx_rst, 2);
    /* ... but no RST for a RST */
    n.flags = TCP_RST;
    inject(&n);
    n.flags = TCP_RST | TCP_ACK;
    inject(&n);
    CHECK_EQ(tcp->stats.rx_drop_no_conn, 4);
    CHECK_EQ(tcp->stats.tx_rst, 2);
    CHECK_EQ(stub.n_sent, n_sent + 2);
    /* port 0 either side: dropped */
    struct seg z = { .sport = 0, .dport = 80, .seq = 1, .flags = TCP_SYN };
    inject(&z);
    CHECK_EQ(tcp->stats.rx_drop_hdr, 4);
    CHECK_EQ(c->state, WREN_TCP_ESTABLISHED);
    eps_release();
    TEARDOWN();
}

TEST(test_tcp_desync__spoofed_data_does_not_start_an_ack_loop)
{
    /* A spoofed in-window segment moves the server's RCV.NXT past what the
     * client sent: the server's ACKs acknowledge unsent data, the client's
     * answers are below the server's window, and each would answer the
     * other for ever, without time passing. The limit stops it. */
    eps_init(WREN_TCP_OPT_SACK | WREN_TCP_OPT_TS);
    CHECK_EQ(wren_tcp_connect(tcp, &cli.c, lo, 80, 0, 0), 0);
    run_ms(10);
    struct ep *s = srv[0].c.rport == cli.c.lport ? &srv[0] : &srv[1];
    CHECK_EQ(s->c.state, WREN_TCP_ESTABLISHED);
    uint8_t junk[20] = { 0 };
    struct seg x = { .src = lo, .dst = lo, .sport = cli.c.lport, .dport = 80,
                     .seq = s->c.rcv_nxt, .ack = s->c.snd_una, .flags = TCP_ACK | TCP_PSH,
                     .window = 2048, .data = junk, .len = sizeof(junk) };
    uint32_t looped = stub.looped;
    inject(&x);
    run_ms(CONFIG_WREN_TCP_DELACK_MS + 1); /* the server's ACK, then the loop: it returns */
    CHECK(tcp->stats.ack_limited >= 1);
    CHECK(stub.looped - looped <= 2u * CONFIG_WREN_TCP_CHALLENGE_PER_S + 4);
    /* and it stays quiet */
    looped = stub.looped;
    run_ms(10000);
    CHECK(stub.looped - looped < 40);
    eps_release();
    TEARDOWN();
}

TEST(test_tcp_timewait__bare_acks_do_not_loop)
{
    /* TIME-WAIT answers every segment with an ACK. A SYN from the client's
     * port opens a new server connection (SYN-RECEIVED) whose SYN-ACK reaches
     * the TIME-WAIT entry; its ACK is outside the new connection's window,
     * which answers with an ACK, which TIME-WAIT answers, for ever, without
     * time passing. The limit on ACKs that answer bare ACKs stops it. */
    eps_init(WREN_TCP_OPT_SACK | WREN_TCP_OPT_TS);
    CHECK_EQ(wren_tcp_connect(tcp, &cli.c, lo, 80, 0, 0), 0);
    run_ms(10);
    struct ep *s = srv[0].c.rport == cli.c.lport ? &srv[0] : &srv[1];
    wren_tcp_shutdown(&cli.c);
    run_ms(10);
    wren_tcp_shutdown(&s->c);
    run_ms(10);
    CHECK_EQ(cli.c.state, WREN_TCP_CLOSED);
    CHECK(tcp->tw->e[0].lport == cli.c.lport);
    wren_tcp_release(&s->c);
    struct seg syn = { .src = lo, .dst = lo, .sport = cli.c.lport, .dport = 80,
                       .seq = tcp->tw->e[0].rcv_nxt + 100000, .flags = TCP_SYN, .window = 2048 };
    static const uint8_t ts[12] = { TCP_OPT_NOP, TCP_OPT_NOP, TCP_OPT_TS, 10, 0x7f, 0xff, 0xff };
    syn.opts = ts;
    syn.optlen = sizeof(ts);
    uint32_t looped = stub.looped;
    inject(&syn); /* returns: the loop is broken */
    CHECK(tcp->stats.ack_limited >= 1);
    run_ms(10);
    CHECK(stub.looped - looped < 100);
    eps_release();
    TEARDOWN();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST_SETUP(test_tcp_syn_flood__pool_bounded_and_legitimate_client_served, setup),
        FX_TEST_SETUP(test_tcp_syn_flood__established_unaccepted_entries_refuse_syns, setup),
        FX_TEST_SETUP(test_tcp_rfc5961__rst_and_syn_in_window_get_challenge_acks, setup),
        FX_TEST_SETUP(test_tcp_options__length_0_1_and_overlong_are_dropped, setup),
        FX_TEST_SETUP(test_tcp_window__beyond_dropped_partly_beyond_trimmed, setup),
        FX_TEST_SETUP(test_tcp_ack__unsent_data_dropped_too_old_challenged, setup),
        FX_TEST_SETUP(test_tcp_zero_window__ten_minutes_of_probes_then_completes, setup),
        FX_TEST_SETUP(test_tcp_zero_window__shrunk_with_data_in_flight_is_probed_not_given_up,
                      setup),
        FX_TEST_SETUP(test_tcp_simultaneous_open__shutdown_in_syn_received_sends_fin, setup),
        FX_TEST_SETUP(test_tcp_input__bad_csum_multicast_and_no_connection, setup),
        FX_TEST_SETUP(test_tcp_desync__spoofed_data_does_not_start_an_ack_loop, setup),
        FX_TEST_SETUP(test_tcp_timewait__bare_acks_do_not_loop, setup),
    };
    return cmocka_run_group_tests_name("tcp_adversarial", tests, NULL, NULL);
}

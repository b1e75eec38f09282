/* TCP against a scripted peer: a module registered as the IPv6 layer takes
 * every segment the layer sends, the test injects the peer's segments. The
 * cases are what Linux does that a wren peer does not (found by
 * tests/py/test_tcp_linux.py): tail loss probes and zero-window probes whose
 * sequence numbers are old but whose ACK is new, an ACK at the right edge
 * of our window after a lost segment filled it, a window-scale offer, a
 * delayed ACK for one segment, and a window that shrinks as the right edge
 * stays (a slow reader). */
#include <string.h>

#include "core/byteorder.h"
#include "core/node.h"
#include "ipv6/ipv6.h"
#include "net/netapi.h"
#include "net/netreg.h"
#include "net/nettype.h"
#include "pktbuf/pktbuf.h"
#include "sim/world.h"
#include "tcp/tcp.h"
#include "tcp/tcp_priv.h"
#include "fixture.h"
#include "wire/ipv6.h"
#include "wire/tcp.h"

static struct wren_node *node;
static struct wren_tcp *tcp;
static const uint8_t lo[16] = { [15] = 1 };

/* the peer: what the layer sent, parsed */
#define PEER_MAX 16
static struct peer {
    struct wren_module module;
    struct wren_netreg_entry reg;
    unsigned n;
    struct tcp_hdr h[PEER_MAX];
    struct tcp_opts o[PEER_MAX];
    uint32_t len[PEER_MAX];
} peer;

static void peer_handle(struct wren_node *n, struct wren_module *self, const struct wren_msg *msg)
{
    (void)self;
    struct wren_snip *pkt = msg->ptr;
    uint8_t seg[1400];
    size_t len = 0;
    /* TX order: [IPv6 header] -> TCP header -> payload */
    for (struct wren_snip *s = pkt->next; s; s = s->next) {
        if (len + s->size <= sizeof(seg)) {
            memcpy(seg + len, s->data, s->size);
        }
        len += s->size;
    }
    if (msg->type == WREN_MSG_SND && peer.n < PEER_MAX && len <= sizeof(seg)) {
        int hl = wren_tcp_hdr_parse(seg, len, &peer.h[peer.n], &peer.o[peer.n]);
        CHECK(hl >= 20);
        peer.len[peer.n] = (uint32_t)(len - (size_t)hl);
        peer.n++;
    }
    wren_pktbuf_release(&n->pktbuf, pkt);
}

static const struct wren_module_ops peer_ops = { .name = "peer", .handle = peer_handle };

/* a segment from [::1]:5000 to [::1]:80, as the IPv6 layer delivers it */
static void inject(const struct tcp_hdr *h, const struct tcp_opts *o, uint32_t len)
{
    uint8_t seg[TCP_HDR_MAX_LEN + 1300];
    int hl = wren_tcp_hdr_emit(h, o, seg, sizeof(seg));
    memset(seg + hl, 0x5a, len);
    put_be16(seg + TCP_OFF_CSUM, wren_tcp_csum(lo, lo, seg, (size_t)hl + len));
    struct wren_snip *iph = wren_pktbuf_add(&node->pktbuf, NULL, NULL, IPV6_HDR_LEN,
                                           WREN_NETTYPE_IPV6);
    wren_ipv6_hdr_init(iph->data, lo, lo, IPV6_NH_TCP);
    struct wren_snip *pkt = wren_pktbuf_add(&node->pktbuf, iph, seg, (size_t)hl + len,
                                            WREN_NETTYPE_TCP);
    wren_netapi_receive(node, &tcp->module, pkt);
    wren_world_run_until(&fx.world, fx.world.now + 1000);
}

static struct wren_tcp_conn conn, *pool[1] = { &conn };
static uint8_t snd[2048], rcv[2048], bm[256];
static struct wren_tcp_listener lis;
static uint32_t peer_seq, peer_ts = 1000;

static struct tcp_opts ts_opt(void)
{
    return (struct tcp_opts){ .has_ts = true, .ts_val = ++peer_ts };
}

/* Linux's SYN (MSS 1440, SACK, timestamps, window scale 10), our SYN-ACK,
 * the ACK: established, accepted */
static void open_conn(void)
{
    struct fx_node *n = fx_node_ex(FX_TCP, 8192, 1, 1);
    node = &n->node;
    tcp = n->tcp;
    memset(&peer, 0, sizeof(peer));
    peer.module.ops = &peer_ops;
    peer.module.prio = WREN_PRIO_NET;
    wren_netreg_register(node, WREN_NETTYPE_IPV6, WREN_NETREG_DEMUX_ALL, &peer.module, &peer.reg);
    wren_tcp_conn_init(&conn, snd, sizeof(snd), rcv, bm, sizeof(rcv));
    wren_tcp_set_mss(&conn, 1220);
    CHECK_EQ(wren_tcp_listen(tcp, &lis, NULL, 80, pool, 1), 0);
    peer_seq = 7000;
    struct tcp_hdr h = { .src_port = 5000, .dst_port = 80, .seq = peer_seq, .flags = TCP_SYN,
                         .window = 64800 };
    struct tcp_opts o = { .has_mss = true, .mss = 1440, .sack_ok = true, .has_ts = true,
                          .ts_val = ++peer_ts, .has_wscale = true, .wscale = 10 };
    inject(&h, &o, 0);
    CHECK_EQ(peer.n, 1);
    CHECK_EQ(peer.h[0].flags, TCP_SYN | TCP_ACK);
    CHECK(peer.o[0].has_mss && peer.o[0].mss == 1220);
    CHECK(peer.o[0].sack_ok && peer.o[0].has_ts);
    CHECK(!peer.o[0].has_wscale); /* declined: Linux will not scale either */
    peer_seq++;
    h = (struct tcp_hdr){ .src_port = 5000, .dst_port = 80, .seq = peer_seq,
                          .ack = peer.h[0].seq + 1, .flags = TCP_ACK, .window = 64800 };
    o = ts_opt();
    inject(&h, &o, 0);
    CHECK_EQ(conn.state, WREN_TCP_ESTABLISHED);
    CHECK(wren_tcp_accept(&lis) == &conn);
    CHECK_EQ(conn.mss, 1220);
    peer.n = 0;
}

static void close_conn(void)
{
    wren_tcp_abort(&conn);
    wren_tcp_release(&conn);
    wren_tcp_unlisten(&lis);
    FX_CLEAN(1000000);
}

static void send_bytes(uint32_t n)
{
    static uint8_t buf[2048];
    CHECK_EQ(wren_tcp_send(&conn, buf, n), (ssize_t)n);
    wren_world_run_until(&fx.world, fx.world.now + 1000);
}

TEST(test_tcp_peer__nagle_sends_the_rest_of_a_full_buffer)
{
    open_conn();
    /* 2,048 bytes fill the buffer: 1,208 (MSS less timestamps) and 840 go
     * at once; holding the 840 would wait for the peer's delayed ACK */
    send_bytes(2048);
    CHECK_EQ(peer.n, 2);
    CHECK_EQ(peer.len[0], 1208);
    CHECK_EQ(peer.len[1], 840);
    /* with room left in the buffer, a small segment still waits (Nagle) */
    struct tcp_hdr h = { .src_port = 5000, .dst_port = 80, .seq = peer_seq,
                         .ack = conn.snd_max, .flags = TCP_ACK, .window = 64800 };
    struct tcp_opts o = ts_opt();
    inject(&h, &o, 0);
    peer.n = 0;
    send_bytes(1500);
    CHECK_EQ(peer.n, 1);
    CHECK_EQ(peer.len[0], 1208);
    close_conn();
}

TEST(test_tcp_peer__old_duplicate_with_a_new_ack_is_taken)
{
    open_conn();
    send_bytes(1000);
    CHECK_EQ(peer.n, 1);
    uint32_t una = conn.snd_una;
    /* the peer's data, acknowledging nothing new; we ACK it */
    struct tcp_hdr h = { .src_port = 5000, .dst_port = 80, .seq = peer_seq, .ack = una,
                         .flags = TCP_ACK, .window = 64800 };
    struct tcp_opts o = ts_opt();
    inject(&h, &o, 500);
    CHECK_EQ(conn.rcv_nxt, peer_seq + 500);
    CHECK_EQ(conn.snd_una, una);
    /* a tail loss probe: the same data again, now acknowledging ours */
    h.ack = conn.snd_max;
    o = ts_opt();
    inject(&h, &o, 500);
    CHECK_EQ(conn.snd_una, conn.snd_max);
    CHECK_EQ(tcp->stats.rx_drop_seq, 0);
    CHECK_EQ(tcp->stats.rx_dup_bytes, 500);
    CHECK_EQ(wren_tcp_readable(&conn), 500);
    close_conn();
}

TEST(test_tcp_peer__zero_window_probe_ack_is_taken)
{
    open_conn();
    send_bytes(1000);
    /* Linux probes a zero window with the sequence number before RCV.NXT */
    struct tcp_hdr h = { .src_port = 5000, .dst_port = 80, .seq = peer_seq - 1,
                         .ack = conn.snd_una, .flags = TCP_ACK, .window = 64800 };
    struct tcp_opts o = ts_opt();
    peer.n = 0;
    inject(&h, &o, 0);
    CHECK_EQ(peer.n, 1);                    /* answered with an ACK */
    CHECK_EQ(tcp->stats.rx_dup_acks, 0);     /* and not a duplicate ACK */
    CHECK_EQ(tcp->stats.rx_drop_seq, 1);     /* (nothing new in it) */
    h.ack = conn.snd_max;
    o = ts_opt();
    inject(&h, &o, 0);
    CHECK_EQ(conn.snd_una, conn.snd_max);   /* its new ACK counts */
    CHECK_EQ(tcp->stats.rx_drop_seq, 1);
    close_conn();
}

TEST(test_tcp_peer__ack_at_the_right_edge_is_taken)
{
    open_conn();
    send_bytes(1000);
    /* the peer filled our window with a segment that was lost; its next
     * ACK carries the sequence number of the window's right edge */
    uint32_t edge = conn.rcv_adv;
    CHECK(edge != conn.rcv_nxt);
    struct tcp_hdr h = { .src_port = 5000, .dst_port = 80, .seq = edge, .ack = conn.snd_max,
                         .flags = TCP_ACK, .window = 64800 };
    struct tcp_opts o = ts_opt();
    inject(&h, &o, 0);
    CHECK_EQ(conn.snd_una, conn.snd_max);
    CHECK_EQ(tcp->stats.rx_drop_seq, 0);
    /* one beyond it is still refused */
    send_bytes(100);
    h.seq = edge + 1;
    h.ack = conn.snd_max;
    o = ts_opt();
    inject(&h, &o, 0);
    CHECK(conn.snd_una != conn.snd_max);
    CHECK_EQ(tcp->stats.rx_drop_seq, 1);
    close_conn();
}

/* the application writes whatever fits whenever there is room */
static void writer_cb(struct wren_tcp_conn *c, unsigned ev, void *arg)
{
    (void)arg;
    static uint8_t buf[2048];
    if (ev & WREN_TCP_EV_SEND) {
        wren_tcp_send(c, buf, wren_tcp_writable(c));
    }
}

TEST(test_tcp_peer__writer_woken_by_an_ack_sends_only_into_its_window)
{
    open_conn();
    wren_tcp_set_cb(&conn, writer_cb, NULL);
    /* the peer's reader is slow: its window is 2,048 from here */
    uint32_t una = conn.snd_una, edge = una + 2048;
    struct tcp_hdr h = { .src_port = 5000, .dst_port = 80, .seq = peer_seq, .ack = una,
                         .flags = TCP_ACK, .window = 2048 };
    struct tcp_opts o = ts_opt();
    inject(&h, &o, 0);
    send_bytes(2048);
    CHECK_EQ(conn.snd_max, edge);
    /* it acknowledges the first segment and keeps its right edge: the
     * writer fills the buffer again, but nothing fits yet */
    peer.n = 0;
    h.ack = una + 1208;
    h.window = 840;
    o = ts_opt();
    inject(&h, &o, 0);
    for (unsigned i = 0; i < peer.n; i++) {
        CHECK(wren_tcp_seq_le(peer.h[i].seq + peer.len[i], edge));
    }
    CHECK_EQ(conn.snd_max, edge);
    CHECK_EQ(wren_tcp_writable(&conn), 0);
    close_conn();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST(test_tcp_peer__nagle_sends_the_rest_of_a_full_buffer),
        FX_TEST(test_tcp_peer__old_duplicate_with_a_new_ack_is_taken),
        FX_TEST(test_tcp_peer__zero_window_probe_ack_is_taken),
        FX_TEST(test_tcp_peer__ack_at_the_right_edge_is_taken),
        FX_TEST(test_tcp_peer__writer_woken_by_an_ack_sends_only_into_its_window),
    };
    return cmocka_run_group_tests_name("tcp_peer", tests, NULL, NULL);
}

/**
 * @file fuzz_tcp_conn.c
 * @brief libFuzzer target for the input path of TCP connections.
 *
 * One node (world, IPv6, ICMPv6, TCP) with a listener on port 80 (a pool of
 * two) and a client connected to it over ::1, the handshake done for real.
 * The input is then a sequence of operations:
 *
 *  - a segment, delivered straight to the TCP module as the IPv6 layer
 *    delivers one ([TCP segment] -> [IPv6 header], a RCV message): to the
 *    server's connection (from the client's address and port), to the
 *    client's, to the listener from one of four spoofed peers, or to ports
 *    of the input's choosing; flags, window, urgent pointer and the options
 *    (raw, any length up to 40, or with a raw data offset) from the input;
 *    sequence and acknowledgment numbers absolute or relative to the
 *    receiving connection's RCV.NXT / SND.UNA / SND.NXT / SND.MAX, so the
 *    fuzzer follows the connection deep; the checksum correct unless a bit
 *    says otherwise; IP ECN bits; a multicast destination now and then;
 *  - an application call on one of the three connections: send, recv,
 *    shutdown, abort, release, options, reading and sending from the
 *    callbacks, a new connect (to itself: a simultaneous open);
 *  - time passing (1 ms to minutes: retransmissions, persist, TIME-WAIT).
 *
 * The real peer answers what the injected segments provoke, so the two
 * endpoints also talk to each other. After every operation each connection
 * must satisfy the layer's invariants (rings within their size, SND.UNA <=
 * SND.NXT <= SND.MAX, a scoreboard within its blocks, no out-of-order bit
 * inside the readable bytes) and the packet buffer must be sane; after the
 * input, once every connection is released and the node has run until it
 * is quiet, the packet buffer must be empty.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/byteorder.h"
#include "core/node.h"
#include "icmpv6/icmpv6.h"
#include "ipv6/ipv6.h"
#include "net/netapi.h"
#include "net/nettype.h"
#include "sim/world.h"
#include "tcp/tcp.h"
#include "stack/stack.h"
#include "wire/ipv6.h"
#include "wire/tcp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        if (!(cond))                                                                               \
            abort();                                                                               \
    } while (0)

#define BUF 1024 /* small rings: windows fill and wrap quickly */

struct ep {
    struct wren_tcp_conn c;
    uint8_t snd[BUF], rcv[BUF], bm[BUF / 8];
    uint8_t auto_read, auto_send;
    uint32_t sent, to_send;
};

struct fz {
    struct wren_world world;
    struct wren_node node;
    _Alignas(8) uint8_t arena[16384];
    struct wren_ipv6 ip;
    struct wren_icmpv6 icmp;
    struct wren_tcp tcp;
    struct wren_tcp_listener lis;
    struct wren_tcp_conn *pool[2];
    struct ep ep[3]; /* client, pool 0, pool 1 */
    struct wren_rt_ops rt_ops;     /* the world's, with `mem` */
    _Alignas(16) uint8_t mem[512]; /* what the stack makes on first use (TIME-WAIT) */
    size_t mem_used;
};

/* the rt op `mem` (core/node.h): from the input's own arena, freed with it */
static void *fz_mem(void *rt, struct wren_node *node, const struct wren_module_ops *owner,
                    size_t size)
{
    (void)rt, (void)owner;
    struct fz *f = (struct fz *)(void *)((uint8_t *)node - offsetof(struct fz, node));
    size = (size + 15) & ~(size_t)15;
    if (size > sizeof(f->mem) - f->mem_used) {
        return NULL;
    }
    void *p = f->mem + f->mem_used;
    f->mem_used += size;
    return p; /* zeroed: f is calloc'd */
}

static const uint8_t lo[16] = { [15] = 1 };
static const uint8_t peer[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };
static const uint8_t mcast[16] = { 0xff, 0x02, [15] = 1 };

static void pump(struct ep *e)
{
    uint8_t buf[256];
    while (e->auto_send && e->sent < e->to_send) {
        uint32_t n = e->to_send - e->sent < sizeof(buf) ? e->to_send - e->sent : sizeof(buf);
        for (uint32_t k = 0; k < n; k++) {
            buf[k] = (uint8_t)(e->sent + k);
        }
        ssize_t r = wren_tcp_send(&e->c, buf, n);
        if (r <= 0) {
            break;
        }
        e->sent += (uint32_t)r;
    }
}

static void ep_cb(struct wren_tcp_conn *c, unsigned ev, void *arg)
{
    struct ep *e = arg;
    uint8_t buf[300];
    if (ev & (WREN_TCP_EV_CONNECTED | WREN_TCP_EV_SEND)) {
        pump(e);
    }
    if ((ev & WREN_TCP_EV_RECV) && e->auto_read) {
        while (wren_tcp_recv(c, buf, sizeof(buf)) > 0) {
        }
    }
}

static void accept_cb(struct wren_tcp_listener *l, void *arg)
{
    struct fz *f = arg;
    struct wren_tcp_conn *c;
    while ((c = wren_tcp_accept(l)) != NULL) {
        struct ep *e = c == &f->ep[1].c ? &f->ep[1] : &f->ep[2];
        wren_tcp_set_cb(c, ep_cb, e);
        pump(e);
    }
}

/* the byte reader: past the end, zeros */
struct rd {
    const uint8_t *p;
    size_t left;
};

static uint8_t u8(struct rd *r)
{
    if (r->left == 0) {
        return 0;
    }
    r->left--;
    return *r->p++;
}

static uint16_t u16(struct rd *r)
{
    uint16_t v = (uint16_t)(u8(r) << 8);
    return (uint16_t)(v | u8(r));
}

static uint32_t u32(struct rd *r)
{
    uint32_t v = (uint32_t)u16(r) << 16;
    return v | u16(r);
}

static struct wren_tcp_conn *find_conn(struct fz *f, const uint8_t *src, uint16_t sport,
                                       const uint8_t *dst, uint16_t dport)
{
    for (struct wren_tcp_conn *c = f->tcp.conns; c; c = c->next) {
        if (c->lport == dport && c->rport == sport && !memcmp(c->raddr, src, 16) &&
            !memcmp(c->laddr, dst, 16)) {
            return c;
        }
    }
    return NULL;
}

/* one segment from the input, delivered as the IPv6 layer would */
static void segment(struct fz *f, struct rd *r)
{
    uint8_t how = u8(r);
    uint8_t flow = how & 3, seq_mode = (how >> 2) & 3, ack_mode = (how >> 4) & 3;
    bool bad_csum = (how & 0x40) != 0, odd = (how & 0x80) != 0;
    const uint8_t *src = lo, *dst = lo;
    uint16_t sport, dport;
    switch (flow) {
    case 0: /* to the server's connection */
        sport = f->ep[0].c.lport;
        dport = 80;
        break;
    case 1: /* to the client's */
        sport = 80;
        dport = f->ep[0].c.lport;
        break;
    case 2: /* a spoofed peer to the listener */
        src = peer;
        sport = (uint16_t)(40000 + (u8(r) & 3));
        dport = 80;
        break;
    default:
        src = (u8(r) & 1) ? peer : lo;
        sport = u16(r);
        dport = u16(r);
        break;
    }
    if (odd && flow == 3) {
        dst = mcast;
    }
    struct wren_tcp_conn *c = find_conn(f, src, sport, dst, dport);
    struct tcp_hdr h = { .src_port = sport, .dst_port = dport };
    if (seq_mode == 0 || c == NULL) {
        h.seq = u32(r);
    } else {
        int16_t d = (int16_t)u16(r);
        uint32_t base = seq_mode == 1 ? c->rcv_nxt : seq_mode == 2 ? c->rcv_adv : c->iss;
        h.seq = base + (uint32_t)(int32_t)d;
    }
    if (ack_mode == 0 || c == NULL) {
        h.ack = u32(r);
    } else {
        int16_t d = (int16_t)u16(r);
        uint32_t base = ack_mode == 1 ? c->snd_una : ack_mode == 2 ? c->snd_nxt : c->snd_max;
        h.ack = base + (uint32_t)(int32_t)d;
    }
    h.flags = u8(r);
    h.window = u16(r);
    uint8_t ob = u8(r);
    h.urg = (h.flags & TCP_URG) ? u16(r) : 0;
    uint8_t ecn = u8(r);

    /* options: raw bytes, padded with EOL to a multiple of 4 */
    uint8_t seg[TCP_HDR_MAX_LEN + 2100];
    size_t olen = ob % 41;
    size_t hl = TCP_HDR_LEN + (olen + 3) / 4 * 4;
    memset(seg, 0, sizeof(seg));
    for (size_t i = 0; i < olen; i++) {
        seg[TCP_HDR_LEN + i] = u8(r);
    }
    uint8_t pl = u8(r);
    size_t plen = (ecn & 0x80) ? (size_t)pl * 8 : pl;
    wren_tcp_hdr_emit(&h, NULL, seg, TCP_HDR_LEN);
    seg[TCP_OFF_DOFF] = (uint8_t)((hl / 4) << 4);
    if (ob >= 41 * 5) {
        seg[TCP_OFF_DOFF] = (uint8_t)((ob & 0x0f) << 4); /* any data offset */
    }
    for (size_t i = 0; i < plen; i++) {
        seg[hl + i] = (uint8_t)(pl + i);
    }
    size_t len = hl + plen;
    uint16_t cs = wren_tcp_csum(src, dst, seg, len);
    put_be16(seg + TCP_OFF_CSUM, bad_csum ? (uint16_t)(cs ^ 0x0101) : cs);

    struct wren_pktbuf *pb = &f->node.pktbuf;
    struct wren_snip *ips = wren_pktbuf_add(pb, NULL, NULL, IPV6_HDR_LEN, WREN_NETTYPE_IPV6);
    if (ips == NULL) {
        return;
    }
    wren_ipv6_hdr_init(ips->data, src, dst, IPV6_NH_TCP);
    ips->data[1] = (uint8_t)((ecn & 3) << 4);
    put_be16(ips->data + IPV6_OFF_PAYLOAD_LEN, (uint16_t)len);
    ips->data[IPV6_OFF_HOP_LIMIT] = 64;
    /* the segment in one snip, or split in two as a marked frame can be */
    struct wren_snip *pkt = ips;
    size_t cut = (ecn & 0x40) && len > 8 ? len / 2 : 0;
    if (cut) {
        pkt = wren_pktbuf_add(pb, pkt, seg + cut, len - cut, WREN_NETTYPE_UNDEF);
        if (pkt == NULL) {
            wren_pktbuf_release(pb, ips);
            return;
        }
    }
    struct wren_snip *s = wren_pktbuf_add(pb, pkt, seg, cut ? cut : len, WREN_NETTYPE_TCP);
    if (s == NULL) {
        wren_pktbuf_release(pb, pkt);
        return;
    }
    if (wren_netapi_receive(&f->node, &f->tcp.module, s) < 0) {
        /* the queue refused it and released it */
    }
}

static void app(struct fz *f, struct rd *r)
{
    uint8_t b = u8(r), n = u8(r);
    struct ep *e = &f->ep[(b & 3) % 3];
    struct wren_tcp_conn *c = &e->c;
    uint8_t buf[2048];
    switch ((b >> 2) & 7) {
    case 0:
        for (unsigned i = 0; i < (unsigned)n * 8; i++) {
            buf[i] = (uint8_t)i;
        }
        wren_tcp_send(c, buf, (size_t)n * 8);
        break;
    case 1:
        wren_tcp_recv(c, buf, (size_t)n * 8);
        break;
    case 2:
        wren_tcp_shutdown(c);
        break;
    case 3:
        wren_tcp_abort(c);
        break;
    case 4:
        wren_tcp_release(c);
        break;
    case 5:
        wren_tcp_set_opts(c, n);
        break;
    case 6:
        e->auto_read = n & 1;
        e->auto_send = (n >> 1) & 1;
        e->to_send += (uint32_t)(n >> 2) * 64;
        pump(e);
        break;
    default:
        if (e == &f->ep[0] && c->state == WREN_TCP_CLOSED) {
            /* again to the listener, to a peer (no source address), or to
             * itself (a simultaneous open) */
            wren_tcp_release(c);
            if (n & 2) {
                wren_tcp_connect(&f->tcp, c, lo, 7777, 7777, 0);
            } else {
                wren_tcp_connect(&f->tcp, c, (n & 1) ? lo : peer, 80, 0, 0);
            }
        }
        break;
    }
}

static bool seq_le(uint32_t a, uint32_t b)
{
    return wren_tcp_seq_le(a, b);
}

static void check_conn(const struct wren_tcp_conn *c)
{
    REQUIRE(c->snd.len <= c->snd.size && c->rcv.len <= c->rcv.size);
    REQUIRE(c->snd.head < c->snd.size && c->rcv.head < c->rcv.size);
    REQUIRE(c->n_sack <= CONFIG_WREN_TCP_SACK_BLOCKS);
    REQUIRE(c->state <= WREN_TCP_TIME_WAIT);
    /* no out-of-order mark among the readable bytes */
    for (uint32_t i = 0; i < c->rcv.len; i++) {
        uint32_t p = (c->rcv.head + i) % c->rcv.size;
        REQUIRE(!(c->rcv_bitmap[p >> 3] & (1u << (p & 7))));
    }
    if (c->state == WREN_TCP_CLOSED) {
        return;
    }
    REQUIRE(seq_le(c->snd_una, c->snd_nxt) && seq_le(c->snd_nxt, c->snd_max));
    /* what is in flight is the buffer's bytes, and a SYN and a FIN at most */
    REQUIRE(c->snd_max - c->snd_una <= (uint32_t)c->snd.len + 2);
    for (unsigned i = 0; i < c->n_sack; i++) {
        REQUIRE(wren_tcp_seq_lt(c->sack[i][0], c->sack[i][1]));
        REQUIRE(seq_le(c->snd_una, c->sack[i][0]) && seq_le(c->sack[i][1], c->snd_max));
    }
    if (c->state >= WREN_TCP_ESTABLISHED) {
        REQUIRE(c->cwnd > 0 && c->mss > 0); /* the congestion state was set up */
        /* the receive window never runs past the buffer's room */
        REQUIRE(c->rcv_adv - c->rcv_nxt <= c->rcv.size || !wren_tcp_seq_gt(c->rcv_adv, c->rcv_nxt));
    }
}

static void check(struct fz *f)
{
    unsigned n = 0;
    for (struct wren_tcp_conn *c = f->tcp.conns; c; c = c->next) {
        REQUIRE(c == &f->ep[0].c || c == &f->ep[1].c || c == &f->ep[2].c);
        REQUIRE(++n <= 3);
        REQUIRE(c->state != WREN_TCP_CLOSED);
    }
    for (unsigned i = 0; i < 3; i++) {
        check_conn(&f->ep[i].c);
    }
    REQUIRE(wren_pktbuf_is_sane(&f->node.pktbuf));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fz *f = calloc(1, sizeof(*f));
    REQUIRE(f);
    struct rd r = { data, size };
    uint8_t cfg = u8(&r);

    wren_world_init(&f->world, 1);
    f->rt_ops = wren_world_rt_ops;
    f->rt_ops.mem = fz_mem;
    wren_node_init(&f->node, &f->rt_ops, &f->world, f->arena, sizeof(f->arena), 1, 1);
    static const struct wren_module_ops *const mods[] = {
        &wren_ipv6_module, &wren_icmpv6_module, &wren_tcp_module,
    };
    void *const states[] = { &f->ip, &f->icmp, &f->tcp };
    const struct wren_stack_desc d = { .mods = mods, .states = states, .n_mods = 3 };
    if (wren_stack_build(&f->node, &d, NULL, 0, NULL) < 0) {
        abort();
    }
    for (unsigned i = 0; i < 3; i++) {
        struct ep *e = &f->ep[i];
        wren_tcp_conn_init(&e->c, e->snd, sizeof(e->snd), e->rcv, e->bm, sizeof(e->rcv));
        wren_tcp_set_cb(&e->c, ep_cb, e);
        /* SACK and timestamps on or off, ECN, no delayed ACK, small MSS */
        uint8_t o = (uint8_t)(((cfg >> (2 * i)) & 3) ^ 3);
        if (cfg & 0x40) {
            o |= WREN_TCP_OPT_ECN;
        }
        wren_tcp_set_opts(&e->c, o);
        if (cfg & 0x80) {
            wren_tcp_set_mss(&e->c, 100);
        }
        e->auto_read = 1;
    }
    f->pool[0] = &f->ep[1].c;
    f->pool[1] = &f->ep[2].c;
    REQUIRE(wren_tcp_listen(&f->tcp, &f->lis, NULL, 80, f->pool, 2) == 0);
    wren_tcp_listen_set_cb(&f->lis, accept_cb, f);
    REQUIRE(wren_tcp_connect(&f->tcp, &f->ep[0].c, lo, 80, 0, 0) == 0);
    wren_world_run_until(&f->world, f->world.now + 10000);
    REQUIRE(f->ep[0].c.state == WREN_TCP_ESTABLISHED);
    REQUIRE(f->ep[1].c.state == WREN_TCP_ESTABLISHED);

    while (r.left) {
        uint8_t op = u8(&r);
        switch (op & 3) {
        case 0:
        case 1:
            segment(f, &r);
            break;
        case 2:
            app(f, &r);
            break;
        default: {
            static const uint32_t scale[4] = { 1, 20, 500, 10000 };
            uint32_t ms = ((op >> 2) % 16 + 1) * scale[op >> 6];
            wren_world_run_until(&f->world, f->world.now + (uint64_t)ms * 1000);
            break;
        }
        }
        wren_world_run_until(&f->world, f->world.now);
        check(f);
    }

    /* let the node finish what is under way, then give everything back */
    wren_world_run_until(&f->world, f->world.now + 1000000);
    check(f);
    for (unsigned i = 0; i < 3; i++) {
        wren_tcp_release(&f->ep[i].c);
    }
    wren_tcp_unlisten(&f->lis);
    wren_world_run_until(&f->world, f->world.now + 2ull * CONFIG_WREN_TCP_TIME_WAIT_MS * 1000);
    REQUIRE(f->tcp.conns == NULL);
    REQUIRE(wren_pktbuf_is_empty(&f->node.pktbuf));
    REQUIRE(wren_pktbuf_is_sane(&f->node.pktbuf));
    wren_world_destroy(&f->world);
    free(f);
    return 0;
}

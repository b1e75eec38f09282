/* The IP layers of one node over the IPv6 loopback: UDP through sock_udp
 * from an application thread, ICMPv6 echo to ::1 and to our own address,
 * port unreachable, bad checksums and lengths dropped and counted. */
#include <errno.h>
#include <string.h>

#include "core/node.h"
#include "core/thread.h"
#include "icmpv6/icmpv6.h"
#include "ipv6/ipv6.h"
#include "net/netapi.h"
#include "sim/world.h"
#include "sock/sock_ip.h"
#include "sock/sock_udp.h"
#include "fixture.h"
#include "udp/udp.h"
#include "wire/icmpv6_types.h"
#include "wire/inet_csum.h"
#include "wire/ipv6.h"

static struct wren_node *node;
static struct wren_ipv6 *ip;
static struct wren_icmpv6 *icmp;
static struct wren_udp *udp;
static const uint8_t lo[16] = { [15] = 1 };

/* every test: a node with IPv6, ICMPv6 and UDP and no interface */
static int setup(void **state)
{
    fx_setup(state);
    struct fx_node *n = fx_node(FX_IP);
    node = &n->node;
    ip = n->ip;
    icmp = n->icmp;
    udp = n->udp;
    return 0;
}

#define TEARDOWN() FX_CLEAN(1000000)

struct echo_ctx {
    struct wren_sock_udp srv, cli;
    int rounds;
    int ok;
    ssize_t last;
};

static void echo_thread(void *arg)
{
    struct echo_ctx *c = arg;
    uint8_t buf[1300], out[1300];
    for (int i = 0; i < c->rounds; i++) {
        size_t n = (size_t)(i * 37) % 1233;
        for (size_t k = 0; k < n; k++) {
            out[k] = (uint8_t)(k * 7 + (size_t)i);
        }
        struct wren_sock_udp_ep to = { .port = 7 };
        memcpy(to.addr, lo, 16);
        if (wren_sock_udp_send(&c->cli, out, n, &to) != (ssize_t)n) {
            return;
        }
        struct wren_sock_udp_ep from;
        ssize_t r = wren_sock_udp_recv(&c->srv, buf, sizeof(buf), 100000, &from);
        c->last = r;
        if (r != (ssize_t)n || memcmp(buf, out, n) != 0 || from.port != c->cli.local.port ||
            memcmp(from.addr, lo, 16) != 0) {
            return;
        }
        c->ok++;
    }
    /* nothing more comes: a timeout */
    c->last = wren_sock_udp_recv(&c->srv, buf, sizeof(buf), 50000, NULL);
}

TEST(test_udp__loopback_all_sizes_through_sock)
{
    static struct echo_ctx c;
    memset(&c, 0, sizeof(c));
    c.rounds = 60;
    struct wren_sock_udp_ep l = { .port = 7 };
    CHECK_EQ(wren_sock_udp_create(node, &c.srv, &l, NULL), 0);
    CHECK_EQ(wren_sock_udp_create(node, &c.cli, NULL, NULL), 0);
    CHECK(c.cli.local.port >= WREN_SOCK_EPHEMERAL);
    CHECK_EQ(wren_sock_udp_create(node, &c.cli, &l, NULL), -EADDRINUSE);
    wren_sock_udp_create(node, &c.cli, NULL, NULL);
    static uint8_t stack[64 * 1024];
    static struct wren_thread t;
    wren_thread_start(node, &t, stack, sizeof(stack), echo_thread, &c, "echo");
    wren_world_run_until(&fx.world, 10000000);
    CHECK_EQ(c.ok, c.rounds);
    CHECK_EQ(c.last, -ETIMEDOUT);
    CHECK_EQ(udp->stats.rx_drop_csum, 0);
    CHECK_EQ(ip->stats.tx_loopback, (uint32_t)c.rounds);
    wren_sock_udp_close(&c.srv);
    wren_sock_udp_close(&c.cli);
    TEARDOWN();
}

/* a raw receiver of ICMPv6 (what ping uses) */
struct raw {
    struct wren_module module;
    struct wren_netreg_entry reg;
    int replies;
    int errors;
    uint8_t last_type, last_code;
};

static void raw_handle(struct wren_node *n, struct wren_module *self, const struct wren_msg *msg)
{
    struct raw *r = (struct raw *)self;
    struct wren_snip *pkt = msg->ptr;
    if (msg->type == WREN_MSG_RCV && pkt->size >= 4) {
        r->last_type = pkt->data[0];
        r->last_code = pkt->data[1];
        r->replies += pkt->data[0] == ICMPV6_ECHO_REPLY;
        r->errors += pkt->data[0] < 128;
    }
    wren_pktbuf_release(&n->pktbuf, pkt);
}

static const struct wren_module_ops raw_ops = { .name = "raw", .handle = raw_handle };

TEST(test_icmpv6__echo_to_loopback_and_port_unreachable)
{
    static struct raw r;
    memset(&r, 0, sizeof(r));
    r.module.ops = &raw_ops;
    r.module.prio = WREN_PRIO_APP;
    wren_netreg_register(node, WREN_NETTYPE_IPV6, IPV6_NH_ICMPV6, &r.module, &r.reg);
    uint8_t echo[8 + 100] = { ICMPV6_ECHO_REQUEST, 0, 0, 0, 0x12, 0x34, 0, 1 };
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(wren_icmpv6_send(node, NULL, lo, 0, 0, echo, sizeof(echo)), 0);
        wren_world_run_until(&fx.world, fx.world.now + 1000);
    }
    CHECK_EQ(icmp->stats.rx_echo_req, 3);
    CHECK_EQ(r.replies, 3);
    /* a UDP datagram to a closed port: port unreachable comes back */
    struct wren_sock_udp s;
    wren_sock_udp_create(node, &s, NULL, NULL);
    struct wren_sock_udp_ep to = { .port = 9999 };
    memcpy(to.addr, lo, 16);
    CHECK_EQ(wren_sock_udp_send(&s, "hello", 5, &to), 5);
    wren_world_run_until(&fx.world, fx.world.now + 1000);
    CHECK_EQ(udp->stats.rx_drop_no_port, 1);
    CHECK_EQ(r.errors, 1);
    CHECK_EQ(r.last_type, ICMPV6_DEST_UNREACH);
    CHECK_EQ(r.last_code, ICMPV6_UNREACH_PORT);
    CHECK_EQ(icmp->stats.tx_errors, 1);
    wren_sock_udp_close(&s);
    TEARDOWN();
}

struct rawping {
    struct wren_sock_ip s;
    int replies;
    ssize_t last;
};

static void rawping_thread(void *arg)
{
    struct rawping *c = arg;
    struct wren_sock_ip_ep to = { .addr = { [15] = 1 } };
    for (int i = 0; i < 3; i++) {
        uint8_t req[16] = { ICMPV6_ECHO_REQUEST, 0, 0, 0, 0, 7, 0, (uint8_t)i, 'w', 'r', 'e', 'n' };
        if (wren_sock_ip_send(&c->s, req, sizeof(req), &to) != (ssize_t)sizeof(req)) {
            return;
        }
        /* the socket sees its own request too (it is raw ICMPv6), then the reply */
        for (int k = 0; k < 2; k++) {
            uint8_t buf[64];
            struct wren_sock_ip_ep from;
            ssize_t n = wren_sock_ip_recv(&c->s, buf, sizeof(buf), 100000, &from);
            if (n == (ssize_t)sizeof(req) && buf[0] == ICMPV6_ECHO_REPLY && buf[7] == i &&
                memcmp(buf + 8, "wren", 4) == 0 && from.addr[15] == 1) {
                c->replies++;
            }
        }
    }
    uint8_t buf[64];
    c->last = wren_sock_ip_recv(&c->s, buf, sizeof(buf), 50000, NULL);
}

TEST(test_sock_ip__raw_icmpv6_echo_from_a_thread)
{
    static struct rawping c;
    memset(&c, 0, sizeof(c));
    CHECK_EQ(wren_sock_ip_create(node, &c.s, NULL, IPV6_NH_ICMPV6), 0);
    static uint8_t stack[32 * 1024];
    static struct wren_thread t;
    wren_thread_start(node, &t, stack, sizeof(stack), rawping_thread, &c, "rawping");
    wren_world_run_until(&fx.world, 2000000);
    CHECK_EQ(c.replies, 3);
    CHECK_EQ(c.last, -ETIMEDOUT);
    CHECK_EQ(icmp->stats.tx_echo_reply, 3);
    wren_sock_ip_close(&c.s);
    TEARDOWN();
}

/* a raw socket in callback mode: told of each datagram, reads it at once */
struct rawcb {
    int calls;
    int replies;
};

static void rawcb_cb(struct wren_sock_ip *sock, void *arg)
{
    struct rawcb *c = arg;
    uint8_t buf[64];
    c->calls++;
    if (wren_sock_ip_recv(sock, buf, sizeof(buf), 0, NULL) > 0 && buf[0] == ICMPV6_ECHO_REPLY) {
        c->replies++;
    }
}

TEST(test_sock_ip_set_cb__callback_per_datagram_without_a_thread)
{
    static struct wren_sock_ip s;
    static struct rawcb c;
    memset(&c, 0, sizeof(c));
    CHECK_EQ(wren_sock_ip_create(node, &s, NULL, IPV6_NH_ICMPV6), 0);
    wren_sock_ip_set_cb(&s, rawcb_cb, &c);
    struct wren_sock_ip_ep to = { .addr = { [15] = 1 } };
    uint8_t req[12] = { ICMPV6_ECHO_REQUEST, 0, 0, 0, 0, 9, 0, 1, 'w', 'r', 'e', 'n' };
    CHECK_EQ(wren_sock_ip_send(&s, req, sizeof(req), &to), (ssize_t)sizeof(req));
    wren_world_run_until(&fx.world, fx.world.now + 100000);
    CHECK_EQ(c.calls, 2);   /* its own request (raw ICMPv6), then the reply */
    CHECK_EQ(c.replies, 1);
    wren_sock_ip_close(&s);
    TEARDOWN();
}

/* Hand the IPv6 layer a received datagram built by hand. */
static void inject(const uint8_t *dg, size_t len)
{
    struct wren_snip *p = wren_pktbuf_add(&node->pktbuf, NULL, dg, len, WREN_NETTYPE_IPV6);
    wren_netapi_receive(node, &ip->module, p);
    wren_world_run_until(&fx.world, fx.world.now + 10);
}

static size_t udp_dg(uint8_t *b, size_t plen, uint16_t port)
{
    struct ipv6_hdr h = { .payload_len = (uint16_t)(8 + plen), .next = IPV6_NH_UDP, .hop_limit = 64 };
    memcpy(h.src, lo, 16);
    memcpy(h.dst, lo, 16);
    wren_ipv6_hdr_emit(&h, b);
    uint8_t *u = b + 40;
    u[0] = 0x12; u[1] = 0x34; u[2] = (uint8_t)(port >> 8); u[3] = (uint8_t)port;
    u[4] = 0; u[5] = (uint8_t)(8 + plen); u[6] = u[7] = 0;
    memset(u + 8, 0xab, plen);
    struct inet_csum c;
    wren_inet_csum_init(&c);
    wren_inet_csum_pseudo(&c, h.src, h.dst, 8 + (uint32_t)plen, IPV6_NH_UDP);
    wren_inet_csum_update(&c, u, 8 + plen);
    uint16_t cs = wren_inet_csum_final(&c);
    u[6] = (uint8_t)(cs >> 8);
    u[7] = (uint8_t)cs;
    return 40 + 8 + plen;
}

TEST(test_ipv6__malformed_datagrams_dropped_by_reason)
{
    struct wren_sock_udp s;
    struct wren_sock_udp_ep l = { .port = 5000 };
    wren_sock_udp_create(node, &s, &l, NULL);
    uint8_t b[200];
    size_t n = udp_dg(b, 20, 5000);
    inject(b, n);
    CHECK_EQ(s.rx.len, 1); /* the good one arrived */
    inject(b, 39);                      /* truncated fixed header */
    CHECK_EQ(ip->stats.rx_drop_hdr, 1);
    b[0] = 0x40;                        /* version 4 */
    inject(b, n);
    CHECK_EQ(ip->stats.rx_drop_hdr, 2);
    n = udp_dg(b, 20, 5000);
    inject(b, n - 1);                   /* payload length beyond the bytes */
    CHECK_EQ(ip->stats.rx_drop_len, 1);
    b[47] ^= 1;                         /* bad UDP checksum */
    inject(b, n);
    CHECK_EQ(udp->stats.rx_drop_csum, 1);
    n = udp_dg(b, 20, 5000);
    b[46] = b[47] = 0;                  /* zero checksum: invalid over IPv6 */
    inject(b, n);
    CHECK_EQ(udp->stats.rx_drop_csum, 2);
    n = udp_dg(b, 20, 5000);
    b[45] = 7;                          /* UDP length below 8 */
    inject(b, n);
    CHECK_EQ(udp->stats.rx_drop_hdr, 1);
    n = udp_dg(b, 20, 5000);
    b[8] = 0xff;                        /* multicast source */
    inject(b, n);
    CHECK_EQ(ip->stats.rx_drop_src, 1);
    n = udp_dg(b, 20, 5000);
    b[39] = 2;                          /* not our address, no forwarding */
    inject(b, n);
    CHECK_EQ(ip->stats.rx_drop_not_for_us, 1);
    n = udp_dg(b, 20, 5000);
    b[6] = 99;                          /* unknown next header */
    inject(b, n);
    CHECK_EQ(ip->stats.rx_drop_no_receiver, 1);
    n = udp_dg(b, 20, 5000);
    inject(b, n);
    CHECK_EQ(s.rx.len, 2);               /* and the node still works */
    wren_sock_udp_close(&s);
    TEARDOWN();
}

/* A looped-back datagram's checksum is verified like any other (as GNRC
 * does; the stack once trusted its own sums here): one sent raw through
 * sock_ip, and one a transport hands the IPv6 layer with a SND whose arg
 * once meant "checksummed" (0x0001). */
TEST(test_udp__loopback_checksum_always_verified)
{
    struct wren_sock_udp s;
    struct wren_sock_udp_ep l = { .port = 5000 };
    CHECK_EQ(wren_sock_udp_create(node, &s, &l, NULL), 0);
    struct wren_sock_ip raw;
    CHECK_EQ(wren_sock_ip_create(node, &raw, NULL, IPV6_NH_UDP), 0);
    uint8_t b[200];
    size_t n = udp_dg(b, 12, 5000); /* ::1 -> ::1, a valid checksum */
    struct wren_sock_ip_ep to = { .addr = { [15] = 1 } };
    CHECK_EQ(wren_sock_ip_send(&raw, b + 40, n - 40, &to), (ssize_t)(n - 40));
    wren_world_run_until(&fx.world, fx.world.now + 10);
    CHECK_EQ(s.rx.len, 1);
    CHECK_EQ(udp->stats.rx_drop_csum, 0);
    b[47] ^= 0x10;                      /* a wrong checksum */
    CHECK_EQ(wren_sock_ip_send(&raw, b + 40, n - 40, &to), (ssize_t)(n - 40));
    wren_world_run_until(&fx.world, fx.world.now + 10);
    CHECK_EQ(s.rx.len, 1);
    CHECK_EQ(udp->stats.rx_drop_csum, 1);
    /* the same wrong datagram as a transport's SND, [IPv6] -> [UDP + data] */
    struct wren_snip *d = wren_pktbuf_add(&node->pktbuf, NULL, b + 40, n - 40,
                                          WREN_NETTYPE_UDP);
    struct wren_snip *h = wren_pktbuf_add(&node->pktbuf, d, b, 40, WREN_NETTYPE_IPV6);
    CHECK(h != NULL);
    struct wren_msg m = { .type = WREN_MSG_SND, .arg = 0x0001, .ptr = h };
    CHECK_EQ(wren_netapi_try_dispatch(node, WREN_NETTYPE_IPV6, WREN_NETREG_DEMUX_ALL, &m), 1);
    wren_world_run_until(&fx.world, fx.world.now + 10);
    CHECK_EQ(ip->stats.tx_loopback, 3);
    CHECK_EQ(s.rx.len, 1);
    CHECK_EQ(udp->stats.rx_drop_csum, 2);
    /* sock_udp's own datagram: checksummed by UDP, verified, delivered */
    struct wren_sock_udp_ep dst = { .addr = { [15] = 1 }, .port = 5000 };
    CHECK_EQ(wren_sock_udp_send(&s, "x", 1, &dst), 1);
    wren_world_run_until(&fx.world, fx.world.now + 10);
    CHECK_EQ(s.rx.len, 2);
    CHECK_EQ(udp->stats.rx_drop_csum, 2);
    wren_sock_ip_close(&raw);
    wren_sock_udp_close(&s);
    TEARDOWN();
}

/* A datagram ::1 -> ::1 with extension headers @p ext (ending with next
 * header UDP in their chain) before a UDP datagram to port 5000. */
static size_t ext_dg(uint8_t *b, uint8_t first, const uint8_t *ext, size_t elen)
{
    size_t n = udp_dg(b, 10, 5000);
    uint8_t udp_part[64];
    memcpy(udp_part, b + 40, n - 40);
    memcpy(b + 40, ext, elen);
    memcpy(b + 40 + elen, udp_part, n - 40);
    b[6] = first;
    b[4] = 0;
    b[5] = (uint8_t)(n - 40 + elen);
    return n + elen;
}

TEST(test_ipv6__extension_headers)
{
    static struct raw r;
    memset(&r, 0, sizeof(r));
    r.module.ops = &raw_ops;
    r.module.prio = WREN_PRIO_APP;
    wren_netreg_register(node, WREN_NETTYPE_IPV6, IPV6_NH_ICMPV6, &r.module, &r.reg);
    struct wren_sock_udp s;
    struct wren_sock_udp_ep l = { .port = 5000 };
    wren_sock_udp_create(node, &s, &l, NULL);
    uint8_t b[200];
    /* hop-by-hop with PadN, then UDP: delivered */
    const uint8_t hbh[8] = { IPV6_NH_UDP, 0, 1, 4, 0, 0, 0, 0 };
    inject(b, ext_dg(b, IPV6_NH_HOPOPT, hbh, 8));
    CHECK_EQ(s.rx.len, 1);
    /* destination options with an unknown option "discard + ICMP" (10xxxxxx) */
    const uint8_t dst_opt[8] = { IPV6_NH_UDP, 0, 0x85, 4, 0, 0, 0, 0 };
    inject(b, ext_dg(b, IPV6_NH_DSTOPTS, dst_opt, 8));
    wren_world_run_until(&fx.world, fx.world.now + 10);
    CHECK_EQ(s.rx.len, 1);
    CHECK_EQ(r.errors, 1);
    CHECK_EQ(r.last_type, ICMPV6_PARAM_PROBLEM);
    CHECK_EQ(r.last_code, ICMPV6_PARAM_OPTION);
    /* an unknown option "skip" (00xxxxxx): delivered */
    const uint8_t skip_opt[8] = { IPV6_NH_UDP, 0, 0x05, 4, 0, 0, 0, 0 };
    inject(b, ext_dg(b, IPV6_NH_DSTOPTS, skip_opt, 8));
    CHECK_EQ(s.rx.len, 2);
    wren_sock_udp_close(&s);
    wren_sock_udp_create(node, &s, &l, NULL);
    /* routing header type 0 with segments left: parameter problem (RFC 5095) */
    uint8_t rh0[24] = { IPV6_NH_UDP, 2, 0, 1 };
    inject(b, ext_dg(b, IPV6_NH_ROUTING, rh0, 24));
    wren_world_run_until(&fx.world, fx.world.now + 10);
    CHECK_EQ(r.errors, 2);
    CHECK_EQ(r.last_code, ICMPV6_PARAM_HDR);
    /* hop-by-hop after another header: parameter problem code 1 */
    const uint8_t two[16] = { IPV6_NH_HOPOPT, 0, 1, 4, 0, 0, 0, 0, IPV6_NH_UDP, 0, 1, 4, 0, 0, 0, 0 };
    inject(b, ext_dg(b, IPV6_NH_DSTOPTS, two, 16));
    wren_world_run_until(&fx.world, fx.world.now + 10);
    CHECK_EQ(r.errors, 3);
    CHECK_EQ(r.last_code, ICMPV6_PARAM_NEXT_HDR);
    /* a header running past the datagram */
    const uint8_t longh[8] = { IPV6_NH_UDP, 9, 1, 4, 0, 0, 0, 0 };
    inject(b, ext_dg(b, IPV6_NH_DSTOPTS, longh, 8));
    wren_world_run_until(&fx.world, fx.world.now + 10);
    CHECK_EQ(r.errors, 4);
    /* a real fragment (M=1): dropped, counted; an atomic fragment: delivered */
    uint32_t before = ip->stats.rx_drop_ext;
    const uint8_t frag[8] = { IPV6_NH_UDP, 0, 0, 1, 0, 0, 0, 7 };
    inject(b, ext_dg(b, IPV6_NH_FRAGMENT, frag, 8));
    CHECK_EQ(ip->stats.rx_drop_ext, before + 1);
    const uint8_t atomic[8] = { IPV6_NH_UDP, 0, 0, 0, 0, 0, 0, 7 };
    inject(b, ext_dg(b, IPV6_NH_FRAGMENT, atomic, 8));
    CHECK_EQ(s.rx.len, 1);
    wren_sock_udp_close(&s);
    TEARDOWN();
}

TEST(test_ipv6__addresses_source_selection_routes)
{
    /* no interface: loopback works, anything else has no route */
    uint8_t g[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 5 };
    uint8_t src[16];
    CHECK_EQ(wren_ipv6_select_src(ip, 0, g, src), -EADDRNOTAVAIL);
    struct wren_fib_entry r = { .prefix_len = 0, .if_id = 3 };
    CHECK_EQ(wren_netapi_set(node, &ip->module, WREN_NETOPT_IPV6_ROUTE_ADD, 0, &r, sizeof(r)),
             -ENODEV);
    struct wren_fib fib;
    wren_fib_init(&fib);
    struct wren_fib_entry a = { .prefix = { 0x20, 0x01 }, .prefix_len = 16, .if_id = 1 };
    struct wren_fib_entry b = { .prefix = { 0x20, 0x01, 0x0d, 0xb8 }, .prefix_len = 32, .if_id = 2 };
    struct wren_fib_entry d = { .prefix_len = 0, .if_id = 1 };
    CHECK_EQ(wren_fib_add(&fib, &a), 0);
    CHECK_EQ(wren_fib_add(&fib, &b), 0);
    CHECK_EQ(wren_fib_add(&fib, &d), 0);
    CHECK_EQ(wren_fib_lookup(&fib, g)->if_id, 2);
    g[2] = 0;
    CHECK_EQ(wren_fib_lookup(&fib, g)->prefix_len, 16);
    g[0] = 0x30;
    CHECK_EQ(wren_fib_lookup(&fib, g)->prefix_len, 0);
    CHECK_EQ(wren_fib_del(&fib, d.prefix, 0), 0);
    CHECK(wren_fib_lookup(&fib, g) == NULL);
    uint8_t iid[8], l2[8];
    const uint8_t s2[2] = { 0x12, 0x34 };
    wren_ipv6_iid_from_l2(iid, s2, 2);
    CHECK_EQ(wren_ipv6_l2_from_iid(iid, l2), 2);
    CHECK_MEM(l2, s2, 2);
    const uint8_t e8[8] = { 0x02, 0, 0, 0, 0, 0, 0, 9 };
    wren_ipv6_iid_from_l2(iid, e8, 8);
    CHECK_EQ(iid[0], 0x00);
    CHECK_EQ(wren_ipv6_l2_from_iid(iid, l2), 8);
    CHECK_MEM(l2, e8, 8);
    TEARDOWN();
}

/* The interface slots after the first are made by the second interface
 * added (CONFIG_WREN_NODE_MEM): without memory it is refused and counted in
 * ipv6.no_mem; with memory it gets its slot and its MTU answers. */
TEST(test_ipv6__slots_after_the_first_made_by_the_second_interface)
{
#if WREN_IPV6_IFS_LAZY
    struct wren_ieee802154_netif *i1 = fx_if154_add(fx.nodes[0]);
    struct wren_ieee802154_netif *i2 = fx_if154_add(fx.nodes[0]);
    CHECK_EQ(wren_ipv6_netif_add(ip, i1->netif.id), 0);
    const struct wren_rt_ops ops = fx.world_ops;
    fx.world_ops.mem = NULL; /* the runtime has no memory to give */
    CHECK_EQ(wren_ipv6_netif_add(ip, i2->netif.id), -ENOMEM);
    CHECK_EQ(ip->stats.no_mem, 1);
    uint16_t mtu = 0;
    CHECK(wren_netapi_get(node, &ip->module, WREN_NETOPT_IPV6_MTU, i2->netif.id, &mtu, 2) < 0);
    fx.world_ops = ops;
    unsigned pieces = fx_mem_pieces();
    CHECK_EQ(wren_ipv6_netif_add(ip, i2->netif.id), 0);
    CHECK_EQ(fx_mem_pieces(), pieces + 1);
    CHECK_EQ(wren_netapi_get(node, &ip->module, WREN_NETOPT_IPV6_MTU, i2->netif.id, &mtu, 2), 2);
    CHECK_EQ(mtu, 1280);
    CHECK_EQ(wren_netapi_get(node, &ip->module, WREN_NETOPT_IPV6_MTU, i1->netif.id, &mtu, 2), 2);
#endif
    TEARDOWN();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST_SETUP(test_udp__loopback_all_sizes_through_sock, setup),
        FX_TEST_SETUP(test_icmpv6__echo_to_loopback_and_port_unreachable, setup),
        FX_TEST_SETUP(test_sock_ip__raw_icmpv6_echo_from_a_thread, setup),
        FX_TEST_SETUP(test_sock_ip_set_cb__callback_per_datagram_without_a_thread, setup),
        FX_TEST_SETUP(test_ipv6__malformed_datagrams_dropped_by_reason, setup),
        FX_TEST_SETUP(test_udp__loopback_checksum_always_verified, setup),
        FX_TEST_SETUP(test_ipv6__extension_headers, setup),
        FX_TEST_SETUP(test_ipv6__addresses_source_selection_routes, setup),
        FX_TEST_SETUP(test_ipv6__slots_after_the_first_made_by_the_second_interface, setup),
    };
    return cmocka_run_group_tests_name("ip_loopback", tests, NULL, NULL);
}

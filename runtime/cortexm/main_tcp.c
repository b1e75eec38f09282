/* Cortex-M3 image: TCP over the IPv6 loopback, a client sending 16 KiB to
 * a listener through 2 KiB buffers and closing; the linker map gives the
 * TCP module's size (rom_tcp_bytes) and the connection's RAM. */
#include <stdio.h>
#include <string.h>

#include "instance.h"
#include "tcp/tcp.h"

#define TOTAL 16384

struct wren_tcp wren_inst_tcp;
/* the connections alone, so that the symbol's size is the state's (the
 * size report reads it) */
struct wren_tcp_conn wren_inst_tcp_conn[2];
struct wren_inst_tcp_ep {
    struct wren_tcp_conn *cp;
    uint8_t snd[2048], rcv[2048], bm[256];
    uint32_t sent, received, bad;
} wren_inst_tcp_cli = { .cp = &wren_inst_tcp_conn[0] }, wren_inst_tcp_srv = { .cp = &wren_inst_tcp_conn[1] };
struct wren_tcp_listener wren_inst_tcp_lis;

static void pump(struct wren_inst_tcp_ep *e)
{
    uint8_t buf[128];
    while (e->sent < TOTAL) {
        uint32_t n = TOTAL - e->sent < sizeof(buf) ? TOTAL - e->sent : sizeof(buf);
        for (uint32_t k = 0; k < n; k++) {
            buf[k] = (uint8_t)((e->sent + k) % 251);
        }
        ssize_t r = wren_tcp_send(e->cp, buf, n);
        if (r <= 0) {
            return;
        }
        e->sent += (uint32_t)r;
    }
    wren_tcp_shutdown(e->cp);
}

static void drain(struct wren_inst_tcp_ep *e)
{
    uint8_t buf[128];
    ssize_t r;
    while ((r = wren_tcp_recv(e->cp, buf, sizeof(buf))) > 0) {
        for (ssize_t k = 0; k < r; k++) {
            e->bad += buf[k] != (uint8_t)((e->received + (uint32_t)k) % 251);
        }
        e->received += (uint32_t)r;
    }
    if (r == 0 && e->cp->state == WREN_TCP_CLOSE_WAIT) {
        wren_tcp_shutdown(e->cp);
    }
}

static void cb(struct wren_tcp_conn *c, unsigned ev, void *arg)
{
    (void)c;
    struct wren_inst_tcp_ep *e = arg;
    if (ev & WREN_TCP_EV_RECV) {
        drain(e);
    }
    if (e == &wren_inst_tcp_cli && (ev & (WREN_TCP_EV_CONNECTED | WREN_TCP_EV_SEND))) {
        pump(e);
    }
}

static void accept_cb(struct wren_tcp_listener *l, void *arg)
{
    (void)arg;
    struct wren_tcp_conn *c = wren_tcp_accept(l);
    if (c) {
        wren_tcp_set_cb(c, cb, &wren_inst_tcp_srv);
        drain(&wren_inst_tcp_srv);
    }
}

int main(void)
{
    static const struct wren_module_ops *const mods[] = {
        &wren_ipv6_module, &wren_icmpv6_module, &wren_tcp_module,
    };
    static void *const states[] = { &wren_inst_ipv6, &wren_inst_icmpv6, &wren_inst_tcp };
    static const struct wren_stack_desc d = { .mods = mods, .states = states, .n_mods = 3 };
    struct wren_node *node = &wren_inst_node;
    if (wren_inst_init(&d) < 0) {
        return 2;
    }
    struct wren_inst_tcp_ep *cli = &wren_inst_tcp_cli, *srv = &wren_inst_tcp_srv;
    wren_tcp_conn_init(cli->cp, cli->snd, sizeof(cli->snd), cli->rcv, cli->bm, sizeof(cli->rcv));
    wren_tcp_conn_init(srv->cp, srv->snd, sizeof(srv->snd), srv->rcv, srv->bm, sizeof(srv->rcv));
    wren_tcp_set_cb(cli->cp, cb, cli);
    static struct wren_tcp_conn *const pool[1] = { &wren_inst_tcp_conn[1] };
    static const uint8_t lo[16] = { [15] = 1 };
    if (wren_tcp_listen(&wren_inst_tcp, &wren_inst_tcp_lis, NULL, 80, pool, 1) < 0) {
        return 2;
    }
    wren_tcp_listen_set_cb(&wren_inst_tcp_lis, accept_cb, NULL);
    if (wren_tcp_connect(&wren_inst_tcp, cli->cp, lo, 80, 0, 0) < 0) {
        return 3;
    }
    /* virtual time: 10 s is plenty (delayed ACKs, no losses) */
    wren_rt_cortexm_run_until(&wren_inst_rt, 10u * 1000000u);
    int clean = wren_pktbuf_is_empty(&node->pktbuf) && wren_pktbuf_is_sane(&node->pktbuf);
    printf("wren cortex-m3 tcp loopback: %lu of %d bytes, %lu bad, states %u/%u (0: closed), "
           "conn state %u bytes, pktbuf %s\n",
           (unsigned long)srv->received, TOTAL, (unsigned long)srv->bad,
           cli->cp->state, srv->cp->state,
           (unsigned)sizeof(struct wren_tcp_conn), clean ? "empty" : "NOT EMPTY");
    return srv->received == TOTAL && srv->bad == 0 && clean ? 0 : 1;
}

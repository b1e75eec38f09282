/* Cortex-M3 image: UDP through sock_udp over the IPv6 loopback, the
 * benchmark of the RIOT paper's figure 4 on the class of hardware it used.
 * bench_mark() brackets the measured datagrams, so that an instruction
 * trace (qemu -d exec) can be cut to exactly them. */
#include <stdio.h>
#include <string.h>

#include "instance.h"

#define WARMUP 4
#define MEASURED 10
#define PAYLOAD 20

struct wren_sock_udp wren_inst_sock_srv;
struct wren_sock_udp wren_inst_sock_cli;

__attribute__((noinline)) void bench_mark(int phase);
__attribute__((noinline)) void bench_mark(int phase)
{
    __asm volatile("" : : "r"(phase) : "memory");
}

static int one(const uint8_t *data, const struct wren_sock_udp_ep *to)
{
    uint8_t buf[64];
    wren_sock_udp_send(&wren_inst_sock_cli, data, PAYLOAD, to);
    wren_rt_cortexm_poll(&wren_inst_rt);
    return wren_sock_udp_recv(&wren_inst_sock_srv, buf, sizeof(buf), 0, NULL) == PAYLOAD;
}

int main(void)
{
    static const struct wren_module_ops *const mods[] = {
        &wren_ipv6_module, &wren_icmpv6_module, &wren_udp_module,
    };
    static void *const states[] = { &wren_inst_ipv6, &wren_inst_icmpv6, &wren_inst_udp };
    static const struct wren_stack_desc d = { .mods = mods, .states = states, .n_mods = 3 };
    struct wren_node *node = &wren_inst_node;
    struct wren_sock_udp_ep l = { .port = 7000 };
    if (wren_inst_init(&d) < 0 ||
        wren_sock_udp_create(node, &wren_inst_sock_srv, &l, NULL) < 0 ||
        wren_sock_udp_create(node, &wren_inst_sock_cli, NULL, NULL) < 0) {
        return 2;
    }
    uint8_t data[PAYLOAD];
    memset(data, 0x5a, sizeof(data));
    struct wren_sock_udp_ep to = { .addr = { [15] = 1 }, .port = 7000 };
    int ok = 0;
    for (int i = 0; i < WARMUP; i++) {
        ok += one(data, &to);
    }
    bench_mark(1);
    for (int i = 0; i < MEASURED; i++) {
        ok += one(data, &to);
    }
    bench_mark(2);
    int clean = wren_pktbuf_is_empty(&node->pktbuf) && wren_pktbuf_is_sane(&node->pktbuf);
    printf("wren cortex-m3 udp loopback: %d/%d datagrams of %d bytes, pktbuf %s\n", ok,
           WARMUP + MEASURED, PAYLOAD, clean ? "empty" : "NOT EMPTY");
    return ok == WARMUP + MEASURED && clean ? 0 : 1;
}

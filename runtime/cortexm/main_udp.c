/* Cortex-M3 image: UDP through sock_udp over the IPv6 loopback, the
 * benchmark of the RIOT paper's figure 4 on the class of hardware it used,
 * at every payload size of udp_sizes.h. Per size: WARMUP datagrams, then
 * MEASURED datagrams between two bench_mark() calls, so that an instruction
 * trace (qemu -d exec) can be cut to exactly them (phase k = the k-th size,
 * python/wren/qemu_bench.py). */
#include <stdio.h>
#include <string.h>

#include "instance.h"
#include "udp_sizes.h"

#define WARMUP 1
#define MEASURED 2

struct wren_sock_udp wren_inst_sock_srv;
struct wren_sock_udp wren_inst_sock_cli;

__attribute__((noinline)) void bench_mark(int phase);
__attribute__((noinline)) void bench_mark(int phase)
{
    __asm volatile("" : : "r"(phase) : "memory");
}

static uint8_t data[WREN_UDP_SIZE_MAX];
static uint8_t buf[WREN_UDP_SIZE_MAX];

/* one datagram sent and received; @check: compare its bytes too (in the
 * warm-up only: the comparison is the benchmark's work, not the stack's) */
static int one(size_t len, const struct wren_sock_udp_ep *to, int check)
{
    wren_sock_udp_send(&wren_inst_sock_cli, data, len, to);
    wren_rt_cortexm_poll(&wren_inst_rt);
    return wren_sock_udp_recv(&wren_inst_sock_srv, buf, sizeof(buf), 0, NULL) == (ssize_t)len &&
           (!check || memcmp(buf, data, len) == 0);
}

int main(void)
{
    static const struct wren_module_ops *const mods[] = {
        &wren_ipv6_module, &wren_icmpv6_module, &wren_udp_module,
    };
    static void *const states[] = { &wren_inst_ipv6, &wren_inst_icmpv6, &wren_inst_udp };
    static const struct wren_stack_desc d = { .mods = mods, .states = states, .n_mods = 3 };
    static const unsigned sizes[] = { WREN_UDP_SIZES };
    const unsigned n_sizes = sizeof(sizes) / sizeof(sizes[0]);
    struct wren_node *node = &wren_inst_node;
    struct wren_sock_udp_ep l = { .port = 7000 };
    if (wren_inst_init(&d) < 0 ||
        wren_sock_udp_create(node, &wren_inst_sock_srv, &l, NULL) < 0 ||
        wren_sock_udp_create(node, &wren_inst_sock_cli, NULL, NULL) < 0) {
        return 2;
    }
    memset(data, 0x5a, sizeof(data));
    struct wren_sock_udp_ep to = { .addr = { [15] = 1 }, .port = 7000 };
    unsigned ok = 0;
    for (unsigned k = 0; k < n_sizes; k++) {
        for (int i = 0; i < WARMUP; i++) {
            ok += (unsigned)one(sizes[k], &to, 1);
        }
        bench_mark((int)k + 1);
        for (int i = 0; i < MEASURED; i++) {
            ok += (unsigned)one(sizes[k], &to, 0);
        }
        bench_mark((int)k + 1);
    }
    int clean = wren_pktbuf_is_empty(&node->pktbuf) && wren_pktbuf_is_sane(&node->pktbuf);
    wren_udp_sizes_print(sizes, n_sizes);
    printf("measured: %d datagrams per size\n", MEASURED);
    printf("wren cortex-m3 udp loopback: %u/%u datagrams, pktbuf %s\n", ok,
           n_sizes * (WARMUP + MEASURED), clean ? "empty" : "NOT EMPTY");
    return ok == n_sizes * (WARMUP + MEASURED) && clean ? 0 : 1;
}

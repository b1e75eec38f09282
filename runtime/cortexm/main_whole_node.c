/* Cortex-M3 image: the RIOT paper's Table 3 application as a whole node,
 * for the whole-image ROM/RAM the size report sets beside the paper's
 * (./wren size: whole_node_reflector, whole_node_loopback).
 *
 * The paper's application is "a simple UDP communicator using the network
 * stack (including its universal packet buffer)" speaking down to layer 3
 * (IP loopback) or down to 6LoWPAN on an L2 reflector (RIOT paper section
 * 5.1, Memory, Table 3). Built twice:
 *   WREN_WHOLE_L2=1  whole_node_reflector: sock_udp -> UDP -> IPv6 ->
 *                    6LoWPAN (IPHC, fragmentation) -> 802.15.4 -> the L2
 *                    reflector, and back up to the socket; 6LoWPAN-ND host
 *                    and ICMPv6 as in the 6ln_host image
 *   WREN_WHOLE_L2=0  whole_node_loopback: sock_udp -> UDP -> IPv6 -> the
 *                    IPv6 loopback (::1), and back
 * Each sends one datagram of every size of SIZES (up to 1,232 bytes, a
 * full IPv6 packet: 11 fragments on the reflector) from a client socket to
 * a server socket and checks that every one came back intact.
 *
 * Nothing of the image is left out of its size: everything linked
 * (runtime, port, C library, application) is ROM, .data + .bss + .heap +
 * .stack is RAM, including the packet buffer (CONFIG_WREN_PKTBUF_SIZE,
 * 6,144 bytes as GNRC's default GNRC_PKTBUF_SIZE), the C library's heap
 * (.heap, WREN_WHOLE_HEAP bytes: _sbrk below serves it and nothing more;
 * the image fails if a request was refused) and the one stack the image
 * runs on (.stack, WREN_WHOLE_STACK bytes), both allocated by
 * link_whole.ld. The image paints that stack, measures the deepest it
 * reached (startup, the stack's handlers, printf: everything) and fails
 * unless the allocation keeps a margin of at least a quarter of the
 * deepest (MARGIN_DIV).
 *
 * The application's own buffer (app_buf) is reported apart: the paper's
 * figures are "w/o application buffers". */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "instance.h"

#ifndef WREN_WHOLE_L2
#define WREN_WHOLE_L2 1
#endif
#define PORT 7000
#define MAX_PAYLOAD 1232 /* IPv6 MTU less the IPv6 and UDP headers */
#define PAINT 0xdeadbeefu
#define MARGIN_DIV 4     /* allocation >= deepest + deepest / MARGIN_DIV */

static const uint16_t sizes[] = { 8, 20, 64, 100, 200, 500, 1000, MAX_PAYLOAD };
#define N_SIZES (sizeof(sizes) / sizeof(sizes[0]))

struct wren_sock_udp wren_inst_sock_srv;
struct wren_sock_udp wren_inst_sock_cli;
/* the application's buffer: one datagram (reported apart, as the paper) */
uint8_t app_buf[MAX_PAYLOAD];

extern uint32_t _sstack, _estack;
/* The C library's heap (newlib-nano's stdio takes its FILEs and buffer
 * from it): the .heap section link_whole.ld allocates, and no byte more. */
extern char _sheap, _eheap;
static char *heap_brk = &_sheap;
static unsigned heap_refused;
void *_sbrk(ptrdiff_t incr);
void *_sbrk(ptrdiff_t incr)
{
    if (incr > &_eheap - heap_brk || incr < &_sheap - heap_brk) {
        heap_refused++;
        return (void *)-1;
    }
    char *prev = heap_brk;
    heap_brk += incr;
    return prev;
}

static uint8_t pattern(unsigned i, unsigned len)
{
    return (uint8_t)(i * 7u + len);
}

/* paint the stack below the caller (keeping a few words of headroom) */
static void paint(void)
{
    uint32_t *sp;
    __asm volatile("mov %0, sp" : "=r"(sp));
    for (uint32_t *p = &_sstack; p < sp - 16; p++) {
        *p = PAINT;
    }
}

static uint32_t deepest(void)
{
    const uint32_t *p = &_sstack;
    while (p < &_estack && *p == PAINT) {
        p++;
    }
    return (uint32_t)((const uint8_t *)&_estack - (const uint8_t *)p);
}

/* one datagram of @p len bytes out and back: 1 if it returned intact */
static int one(unsigned len, const struct wren_sock_udp_ep *to)
{
    for (unsigned i = 0; i < len; i++) {
        app_buf[i] = pattern(i, len);
    }
    ssize_t sent = wren_sock_udp_send(&wren_inst_sock_cli, app_buf, len, to);
    if (sent != (ssize_t)len) {
        return 0;
    }
    memset(app_buf, 0, sizeof(app_buf));
    wren_rt_cortexm_run_until(&wren_inst_rt, wren_inst_rt.now + 100000);
    ssize_t got = wren_sock_udp_recv(&wren_inst_sock_srv, app_buf, sizeof(app_buf), 0, NULL);
    if (got != (ssize_t)len) {
        return 0;
    }
    for (unsigned i = 0; i < len; i++) {
        if (app_buf[i] != pattern(i, len)) {
            return 0;
        }
    }
    return 1;
}

#if WREN_WHOLE_L2
#define NAME "reflector"
static int assemble(void)
{
    static const struct wren_module_ops *const mods[] = {
        &wren_sixlowpan_module, &wren_ipv6_module, &wren_icmpv6_module, &wren_nib_module,
        &wren_udp_module,
    };
    static void *const states[] = { &wren_inst_sixlowpan, &wren_inst_ipv6, &wren_inst_icmpv6,
                                    &wren_inst_nib, &wren_inst_udp };
    static const struct wren_stack_iface ifs[] = { WREN_INST_IFACE };
    static const struct wren_stack_desc d = { .ifaces = ifs, .n_ifaces = 1, .mods = mods,
                                              .states = states,
                                              .n_mods = WREN_STACK_ARRAY_LEN(mods) };
    wren_reflector_setup(&wren_inst_dev);
    return wren_inst_init(&d);
}
/* the reflector's "peer": short address 0x0002, its link-local address */
static const struct wren_sock_udp_ep dst = {
    .addr = { 0xfe, 0x80, [11] = 0xff, [12] = 0xfe, [15] = 0x02 }, .port = PORT };
#else
#define NAME "loopback"
static int assemble(void)
{
    static const struct wren_module_ops *const mods[] = {
        &wren_ipv6_module, &wren_icmpv6_module, &wren_udp_module,
    };
    static void *const states[] = { &wren_inst_ipv6, &wren_inst_icmpv6, &wren_inst_udp };
    static const struct wren_stack_desc d = { .mods = mods, .states = states, .n_mods = 3 };
    return wren_inst_init(&d);
}
static const struct wren_sock_udp_ep dst = { .addr = { [15] = 1 }, .port = PORT };
#endif

int main(void)
{
    paint();
    struct wren_node *node = &wren_inst_node;
    struct wren_sock_udp_ep l = { .port = PORT };
    if (assemble() < 0 || wren_sock_udp_create(node, &wren_inst_sock_srv, &l, NULL) < 0 ||
        wren_sock_udp_create(node, &wren_inst_sock_cli, NULL, NULL) < 0) {
        printf("wren cortex-m3 whole_node_%s: FAILED: assembly\n", NAME);
        return 2;
    }
    wren_rt_cortexm_run_until(&wren_inst_rt, 100000);
    unsigned ok = 0;
    for (unsigned i = 0; i < N_SIZES; i++) {
        ok += (unsigned)one(sizes[i], &dst);
    }
    int clean = wren_pktbuf_is_empty(&node->pktbuf) && wren_pktbuf_is_sane(&node->pktbuf);
    unsigned long heap_alloc = (unsigned long)(&_eheap - &_sheap);
    unsigned long alloc = (unsigned long)((uint8_t *)&_estack - (uint8_t *)&_sstack);
    printf("wren cortex-m3 whole_node_%s: %u/%u datagrams (8 to %d bytes) returned intact, "
           "pktbuf %s, high water %lu bytes\n", NAME, ok, (unsigned)N_SIZES, MAX_PAYLOAD,
           clean ? "empty" : "NOT EMPTY", (unsigned long)node->pktbuf.stats.high_water);
    /* measured after printf, which is part of the application */
    unsigned long deep = deepest();
    printf("wren cortex-m3 whole_node_%s: deepest stack %lu of %lu bytes allocated, "
           "heap %lu of %lu bytes allocated\n", NAME, deep, alloc,
           (unsigned long)(heap_brk - &_sheap), heap_alloc);
    return ok == N_SIZES && clean && heap_refused == 0 && deep + deep / MARGIN_DIV <= alloc ? 0 : 1;
}

#include "sim/flow.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "apps/udp_app.h"
#include "core/node.h"
#include "ipv6/addr_str.h"
#include "mac/tsch/tsch.h"
#include "net/netapi.h"
#include "net/netopt.h"
#include "net/netreg.h"
#include "sim/sim.h"
#include "wire/rpl.h"

#define MAX_SIZE 1232
#define SEQ_LEN 4
#define JOIN_POLL_US 1000000u /* `start joined`: looked at once a second */

static struct wren_sim_node *sim_node(struct wren_flow *f)
{
    return (struct wren_sim_node *)(void *)f->node; /* the node is its first member */
}

/* the radio's time in each state so far: off, listen, rx, tx */
static void radio_time(struct wren_flow *f, uint64_t t[4])
{
    struct wren_sim_node *sn = sim_node(f);
    struct wren_radio_time rt;
    memset(t, 0, 4 * sizeof(t[0]));
    if (wren_netapi_get(f->node, &sn->netif.netif.module, WREN_NETOPT_RADIO_TIME, 0, &rt,
                        sizeof(rt)) == (int)sizeof(rt)) {
        t[0] = rt.off;
        t[1] = rt.listen;
        t[2] = rt.rx;
        t[3] = rt.tx;
    }
}

static void win_cb(struct wren_timer *t, void *arg)
{
    (void)t;
    struct wren_flow *f = arg;
    radio_time(f, f->win1);
    f->win_state = 2;
}

/* the flow begins: its start time and, with a window, the radio's time */
static void begin(struct wren_flow *f)
{
    f->start_us = sim_node(f)->clock.world->now;
    if (f->window_ms) {
        radio_time(f, f->win0);
        f->win_state = 1;
        wren_timer_set(f->node, &f->win_timer, (uint64_t)f->window_ms * 1000u);
    }
}

/* a TX cell to @p nbr that is not shared: a dedicated (negotiated) cell */
static bool dedicated_tx(struct wren_flow *f, struct wren_module *nif, const uint8_t nbr[8])
{
    struct wren_tsch_cell c[CONFIG_WREN_TSCH_CELLS];
    int n = wren_netapi_get(f->node, nif, WREN_NETOPT_TSCH_CELLS, 0, c, sizeof(c));
    for (int i = 0; n > 0 && i < n / (int)sizeof(c[0]); i++) {
        if ((c[i].options & WREN_TSCH_CELL_TX) && !(c[i].options & WREN_TSCH_CELL_SHARED) &&
            c[i].nbr_len == 8 && memcmp(c[i].nbr, nbr, 8) == 0) {
            return true;
        }
    }
    return false;
}

/* joined (see flow.h): a preferred parent; with TSCH synchronised and a
 * dedicated TX cell to it */
static bool joined(struct wren_flow *f)
{
    struct wren_netreg_entry *e = wren_netreg_lookup(f->node, WREN_NETTYPE_ICMPV6, ICMPV6_RPL,
                                                     NULL);
    uint8_t pa[24]; /* link-local address, EUI-64 */
    if (e == NULL || wren_netapi_get(f->node, e->module, WREN_NETOPT_RPL_PARENT, 0, pa,
                                     sizeof(pa)) != (int)sizeof(pa)) {
        return false;
    }
    struct wren_module *nif = &sim_node(f)->netif.netif.module;
    struct wren_tsch_sync_info si;
    if (wren_netapi_get(f->node, nif, WREN_NETOPT_TSCH_SYNC, 0, &si, sizeof(si)) !=
        (int)sizeof(si)) {
        return true; /* no TSCH here: the parent is all */
    }
    return si.synced && dedicated_tx(f, nif, pa + 16);
}

static void schedule(struct wren_flow *f)
{
    /* a gap uniform in [mean/2, 3 mean/2]: the mean is the mean */
    uint32_t half = f->mean_us / 2;
    wren_timer_set(f->node, &f->timer, (uint64_t)half + wren_node_random_below(f->node,
                                                                                 f->mean_us + 1));
}

static void send_cb(struct wren_timer *t, void *arg)
{
    (void)t;
    struct wren_flow *f = arg;
    if (f->wait_join) {
        if (!joined(f)) {
            wren_timer_set(f->node, &f->timer, JOIN_POLL_US);
            return;
        }
        f->wait_join = false;
        begin(f);
        schedule(f);
        return;
    }
    uint8_t buf[MAX_SIZE];
    uint32_t seq = f->generated;
    wren_udp_pattern(buf, f->size);
    buf[0] = (uint8_t)(seq >> 24);
    buf[1] = (uint8_t)(seq >> 16);
    buf[2] = (uint8_t)(seq >> 8);
    buf[3] = (uint8_t)seq;
    f->generated++;
    if (wren_sock_udp_send(&f->sock, buf, f->size, &f->dst) < 0) {
        f->failed++;
    }
    if (f->left && --f->left == 0) {
        f->sending = false;
        return;
    }
    schedule(f);
}

static struct wren_flow_src *source(struct wren_flow *f, const uint8_t *addr)
{
    for (uint16_t i = 0; i < f->n_src; i++) {
        if (memcmp(f->src[i].addr, addr, 16) == 0) {
            return &f->src[i];
        }
    }
    if (f->n_src == WREN_FLOW_MAX_SRC) {
        return NULL;
    }
    struct wren_flow_src *s = &f->src[f->n_src++];
    memcpy(s->addr, addr, 16);
    return s;
}

static void rx_cb(struct wren_sock_udp *sock, unsigned events, void *arg)
{
    (void)events;
    struct wren_flow *f = arg;
    uint8_t buf[MAX_SIZE], want[MAX_SIZE];
    struct wren_sock_udp_ep from;
    ssize_t n;
    while ((n = wren_sock_udp_recv(sock, buf, sizeof(buf), 0, &from)) > 0 || n == -ENOBUFS) {
        if (!f->sink) {
            continue; /* a sender's socket: nothing is expected */
        }
        if (n < SEQ_LEN) {
            f->bad++;
            continue;
        }
        wren_udp_pattern(want, (size_t)n);
        if (memcmp(buf + SEQ_LEN, want + SEQ_LEN, (size_t)n - SEQ_LEN) != 0) {
            f->bad++;
            continue;
        }
        struct wren_flow_src *s = source(f, from.addr);
        if (s == NULL) {
            f->overflow++;
            continue;
        }
        uint32_t seq = (uint32_t)buf[0] << 24 | (uint32_t)buf[1] << 16 | (uint32_t)buf[2] << 8 |
                       buf[3];
        if (seq < WREN_FLOW_SEQ_MAX) {
            uint8_t bit = (uint8_t)(1u << (seq % 8));
            if (s->seen[seq / 8] & bit) {
                s->dup++;
                continue;
            }
            s->seen[seq / 8] |= bit;
        } else {
            s->unchecked++;
        }
        s->received++;
    }
}

void wren_flow_init(struct wren_flow *f, struct wren_node *node)
{
    f->node = node;
    f->size = 20;
    f->mean_us = 60000000u;
    wren_timer_init(&f->timer, send_cb, f);
    wren_timer_init(&f->win_timer, win_cb, f);
}

void wren_flow_free(struct wren_flow *f)
{
    free(f->src);
    f->src = NULL;
}

static int open_sock(struct wren_flow *f, uint16_t port)
{
    if (f->open) {
        return 0;
    }
    struct wren_sock_udp_ep local = { .port = port };
    int res = wren_sock_udp_create(f->node, &f->sock, &local, NULL);
    if (res < 0) {
        return res;
    }
    wren_sock_udp_set_cb(&f->sock, rx_cb, f);
    f->open = true;
    return 0;
}

static struct wren_flow *flow_of(struct wren_shell *sh)
{
    struct wren_sim_node *sn = sh->out_ctx; /* the shell writes to its node (sim.c) */
    return sn->flow;
}

/* the sequence numbers below the highest seen that never came (the first
 * MISSING_MAX): when in its flow a source lost datagrams */
#define MISSING_MAX 32
static void missing(struct wren_shell *sh, const struct wren_flow_src *s, const char *a)
{
    int top = WREN_FLOW_SEQ_MAX - 1;
    while (top >= 0 && !(s->seen[top / 8] & (1u << (top % 8)))) {
        top--;
    }
    unsigned k = 0;
    for (int q = 0; q < top && k < MISSING_MAX; q++) {
        if (!(s->seen[q / 8] & (1u << (q % 8)))) {
            if (k++ == 0) {
                wren_shell_printf(sh, "flow src %s missing", a);
            }
            wren_shell_printf(sh, " %d", q);
        }
    }
    if (k) {
        wren_shell_printf(sh, "\n");
    }
}

static void stats(struct wren_shell *sh, const struct wren_flow *f)
{
    if (f->generated || f->sending) {
        wren_shell_printf(sh, "flow: generated %lu failed %lu\n", (unsigned long)f->generated,
                          (unsigned long)f->failed);
    }
    if ((f->sending || f->generated) && !f->wait_join) {
        wren_shell_printf(sh, "flow started %llu us\n", (unsigned long long)f->start_us);
    } else if (f->sending && f->wait_join) {
        wren_shell_printf(sh, "flow waiting to join\n");
    }
    if (f->win_state == 2) {
        /* off listen rx tx, us, over the window */
        wren_shell_printf(sh, "flow window %lu ms radio %llu %llu %llu %llu\n",
                          (unsigned long)f->window_ms,
                          (unsigned long long)(f->win1[0] - f->win0[0]),
                          (unsigned long long)(f->win1[1] - f->win0[1]),
                          (unsigned long long)(f->win1[2] - f->win0[2]),
                          (unsigned long long)(f->win1[3] - f->win0[3]));
    }
    if (f->sink) {
        wren_shell_printf(sh, "flow sink: sources %u bad %lu overflow %lu\n", f->n_src,
                          (unsigned long)f->bad, (unsigned long)f->overflow);
        for (uint16_t i = 0; i < f->n_src; i++) {
            char a[WREN_IPV6_ADDR_STRLEN];
            const struct wren_flow_src *s = &f->src[i];
            wren_shell_printf(sh, "flow src %s received %lu dup %lu unchecked %lu\n",
                              wren_ipv6_addr_to_str(a, s->addr), (unsigned long)s->received,
                              (unsigned long)s->dup, (unsigned long)s->unchecked);
            missing(sh, s, a);
        }
    }
}

/* the KEY VALUE options after `flow sink` / `flow send ADDR` into @p f;
 * @return nonzero for a bad one */
static int options(struct wren_flow *f, bool send, int argc, char **argv, int first, long *port,
                   long *start_ms)
{
    int bad = (argc - first) % 2;
    for (int i = first; !bad && i + 1 < argc; i += 2) {
        const char *k = argv[i], *v = argv[i + 1];
        if (strcmp(k, "port") == 0) {
            *port = wren_shell_num(v, 1, 65535, &bad);
        } else if (strcmp(k, "window") == 0) {
            f->window_ms = (uint32_t)wren_shell_num(v, 1, 100000000, &bad);
        } else if (!send) {
            bad = 1;
        } else if (strcmp(k, "size") == 0) {
            f->size = (uint16_t)wren_shell_num(v, SEQ_LEN, MAX_SIZE, &bad);
        } else if (strcmp(k, "mean") == 0) {
            f->mean_us = (uint32_t)wren_shell_num(v, 1, 3600000, &bad) * 1000u;
        } else if (strcmp(k, "count") == 0) {
            f->left = (uint32_t)wren_shell_num(v, 0, 100000000, &bad);
        } else if (strcmp(k, "start") == 0 && strcmp(v, "joined") == 0) {
            f->wait_join = true;
        } else if (strcmp(k, "start") == 0) {
            *start_ms = wren_shell_num(v, 0, 3600000, &bad);
        } else {
            bad = 1;
        }
    }
    return bad;
}

static int start_sink(struct wren_shell *sh, struct wren_flow *f, long port)
{
    f->src = calloc(WREN_FLOW_MAX_SRC, sizeof(*f->src));
    if (f->src == NULL) {
        return wren_shell_error(sh, -ENOMEM, "flow");
    }
    int res = open_sock(f, (uint16_t)port);
    if (res < 0) {
        free(f->src);
        f->src = NULL;
        return wren_shell_error(sh, res, "flow");
    }
    f->sink = true;
    begin(f);
    return 0;
}

int wren_flow_cmd(struct wren_shell *sh, struct wren_module *m, int argc, char **argv)
{
    (void)m;
    struct wren_flow *f = flow_of(sh);
    int bad = argc < 2 || f == NULL;
    if (!bad && strcmp(argv[1], "stats") == 0 && argc == 2) {
        stats(sh, f);
        return 0;
    }
    bool sink = !bad && strcmp(argv[1], "sink") == 0;
    bool send = !bad && strcmp(argv[1], "send") == 0;
    bad |= !sink && !send;
    bad |= send && (argc < 3 || f->sending || wren_ipv6_addr_from_str(f->dst.addr, argv[2]) < 0);
    bad |= sink && f->sink;
    long port = WREN_FLOW_PORT, start_ms = -1;
    bad = bad || options(f, send, argc, argv, sink ? 2 : 3, &port, &start_ms);
    if (bad) {
        wren_shell_printf(sh, "usage: flow sink [port P] [window MS] | flow send ADDR [port P] "
                              "[size B] [mean MS] [count N] [start MS|joined] [window MS] | "
                              "flow stats\n");
        return -EINVAL;
    }
    if (sink) {
        return start_sink(sh, f, port);
    }
    int res = open_sock(f, 0);
    if (res < 0) {
        return wren_shell_error(sh, res, "flow");
    }
    f->dst.port = (uint16_t)port;
    f->sending = true;
    if (f->wait_join) {
        wren_timer_set(f->node, &f->timer, 0);
        return 0;
    }
    begin(f);
    if (start_ms >= 0) {
        wren_timer_set(f->node, &f->timer, (uint64_t)start_ms * 1000u);
    } else {
        schedule(f);
    }
    return 0;
}

#include "sim/flow.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "apps/udp_app.h"
#include "core/node.h"
#include "ipv6/addr_str.h"
#include "sim/sim.h"

#define MAX_SIZE 1232
#define SEQ_LEN 4

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
    struct wren_sim_node *sn = (struct wren_sim_node *)((char *)sh -
                                                         offsetof(struct wren_sim_node, shell));
    return sn->flow;
}

static void stats(struct wren_shell *sh, const struct wren_flow *f)
{
    if (f->generated || f->sending) {
        wren_shell_printf(sh, "flow: generated %lu failed %lu\n", (unsigned long)f->generated,
                          (unsigned long)f->failed);
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
        }
    }
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
    int first = sink ? 2 : 3;
    long port = WREN_FLOW_PORT, start_ms = -1;
    for (int i = first; !bad && i + 1 < argc; i += 2) {
        const char *k = argv[i], *v = argv[i + 1];
        if (strcmp(k, "port") == 0) {
            port = wren_shell_num(v, 1, 65535, &bad);
        } else if (strcmp(k, "size") == 0 && send) {
            f->size = (uint16_t)wren_shell_num(v, SEQ_LEN, MAX_SIZE, &bad);
        } else if (strcmp(k, "mean") == 0 && send) {
            f->mean_us = (uint32_t)wren_shell_num(v, 1, 3600000, &bad) * 1000u;
        } else if (strcmp(k, "count") == 0 && send) {
            f->left = (uint32_t)wren_shell_num(v, 0, 100000000, &bad);
        } else if (strcmp(k, "start") == 0 && send) {
            start_ms = wren_shell_num(v, 0, 3600000, &bad);
        } else {
            bad = 1;
        }
    }
    if (bad || (argc - first) % 2) {
        wren_shell_printf(sh, "usage: flow sink [port P] | flow send ADDR [port P] [size B] "
                              "[mean MS] [count N] [start MS] | flow stats\n");
        return -EINVAL;
    }
    if (sink) {
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
        return 0;
    }
    int res = open_sock(f, 0);
    if (res < 0) {
        return wren_shell_error(sh, res, "flow");
    }
    f->dst.port = (uint16_t)port;
    f->sending = true;
    if (start_ms >= 0) {
        wren_timer_set(f->node, &f->timer, (uint64_t)start_ms * 1000u);
    } else {
        schedule(f);
    }
    return 0;
}

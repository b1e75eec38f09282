#include "apps/udp_app.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/node.h"
#include "pktbuf/pktbuf.h"

#define UDP_APP_MAX 1232

void wren_udp_pattern(uint8_t *buf, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        buf[i] = (uint8_t)(i * 31 + len);
    }
}

static bool pattern_ok(const uint8_t *buf, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (buf[i] != (uint8_t)(i * 31 + len)) {
            return false;
        }
    }
    return true;
}

static void server_cb(struct wren_sock_udp *sock, unsigned events, void *arg)
{
    (void)events;
    struct wren_udp_server *s = arg;
    uint8_t buf[UDP_APP_MAX];
    struct wren_sock_udp_ep from;
    ssize_t n;
    while ((n = wren_sock_udp_recv(sock, buf, sizeof(buf), 0, &from)) != -EAGAIN) {
        if (n < 0) {
            s->bad++;
            continue;
        }
        s->bytes += (uint64_t)n;
        if (s->mode == WREN_UDP_ECHO) {
            if (wren_sock_udp_send(sock, buf, (size_t)n, &from) == n) {
                s->echoed++;
            }
            s->received++;
        } else if (pattern_ok(buf, (size_t)n)) {
            s->received++;
            s->size_sum += (uint64_t)n;
        } else {
            s->bad++;
        }
    }
}

int wren_udp_server_start(struct wren_node *node, struct wren_udp_server *s, uint16_t port,
                          uint8_t mode)
{
    if (s->mode) {
        return -EBUSY;
    }
    memset(s, 0, sizeof(*s));
    struct wren_sock_udp_ep local = { .port = port };
    int res = wren_sock_udp_create(node, &s->sock, &local, NULL);
    if (res < 0) {
        return res;
    }
    s->node = node;
    s->mode = mode;
    wren_sock_udp_set_cb(&s->sock, server_cb, s);
    return 0;
}

void wren_udp_server_stop(struct wren_udp_server *s)
{
    if (s->mode) {
        wren_sock_udp_close(&s->sock);
        s->mode = 0;
    }
}

static void sender_timer(struct wren_timer *t, void *arg)
{
    struct wren_udp_sender *s = arg;
    uint8_t buf[UDP_APP_MAX];
    wren_udp_pattern(buf, s->size);
    if (wren_sock_udp_send(&s->sock, buf, s->size, &s->dst) == (ssize_t)s->size) {
        s->sent++;
    } else {
        s->failed++;
    }
    s->size = s->size >= s->size_max ? s->size_min : (uint16_t)(s->size + 1);
    if (--s->left) {
        wren_timer_set(s->node, t, s->interval_us);
        return;
    }
    s->running = false;
    wren_sock_udp_close(&s->sock);
    if (s->out) {
        char line[80];
        snprintf(line, sizeof(line), "udp: sent %lu datagrams, %lu failed\n",
                 (unsigned long)s->sent, (unsigned long)s->failed);
        s->out(s->out_ctx, line);
    }
}

int wren_udp_sender_start(struct wren_node *node, struct wren_udp_sender *s,
                          const struct wren_sock_udp_ep *dst, uint16_t size_min,
                          uint16_t size_max, uint32_t count, uint32_t interval_us,
                          wren_out_fn out, void *out_ctx)
{
    if (s->running) {
        return -EBUSY;
    }
    if (size_max > UDP_APP_MAX || size_min > size_max || count == 0) {
        return -EINVAL;
    }
    memset(s, 0, sizeof(*s));
    int res = wren_sock_udp_create(node, &s->sock, NULL, NULL);
    if (res < 0) {
        return res;
    }
    s->node = node;
    s->dst = *dst;
    s->size = s->size_min = size_min;
    s->size_max = size_max;
    s->left = count;
    s->interval_us = interval_us;
    s->out = out;
    s->out_ctx = out_ctx;
    s->running = true;
    wren_timer_init(&s->timer, sender_timer, s);
    wren_timer_set(node, &s->timer, 0);
    return 0;
}

#include "apps/tcp_app.h"

#include <errno.h>
#include <string.h>

#include "core/node.h"

static void pump(struct wren_tcp_app_conn *ac)
{
    /* larger than a segment: the first write of a transfer is not sent
     * alone as a small segment (nothing is outstanding yet, so Nagle lets it go) */
    uint8_t buf[1024];
    while (ac->sent < ac->to_send) {
        uint64_t left = ac->to_send - ac->sent;
        uint32_t n = left < sizeof(buf) ? (uint32_t)left : (uint32_t)sizeof(buf);
        for (uint32_t k = 0; k < n; k++) {
            buf[k] = wren_tcp_app_pattern(ac->sent + k);
        }
        ssize_t r = wren_tcp_send_more(&ac->c, buf, n);
        if (r <= 0) {
            if (r < 0) {
                ac->last_err = (int)r;
            }
            break;
        }
        ac->sent += (uint64_t)r;
    }
    wren_tcp_send(&ac->c, NULL, 0); /* now send what was queued */
    if (ac->sent == ac->to_send && ac->close_when_sent) {
        ac->close_when_sent = false;
        wren_tcp_shutdown(&ac->c);
    }
}

static void drain(struct wren_tcp_app_conn *ac)
{
    /* what a segment brings, at once: one window update for all of it */
    uint8_t buf[1024];
    uint64_t now = wren_node_now(ac->app->node);
    for (;;) {
        size_t max = sizeof(buf);
        if (ac->mode == WREN_TCP_APP_ECHO) {
            /* read only what can be sent back: the rest waits in the window */
            size_t room = wren_tcp_writable(&ac->c);
            max = room < max ? room : max;
            if (max == 0) {
                break;
            }
        }
        ssize_t r = wren_tcp_recv(&ac->c, buf, max);
        if (r == 0 && ac->sent == ac->to_send &&
            (ac->c.state == WREN_TCP_CLOSE_WAIT || ac->c.state == WREN_TCP_SYN_RECEIVED)) {
            wren_tcp_shutdown(&ac->c); /* the peer is done and so are we */
        }
        if (r <= 0) {
            break;
        }
        if (ac->received == 0) {
            ac->t_first_us = now;
        }
        ac->t_last_us = now;
        if (ac->mode == WREN_TCP_APP_ECHO) {
            wren_tcp_send(&ac->c, buf, (size_t)r);
        } else {
            for (ssize_t k = 0; k < r; k++) {
                ac->bad += buf[k] != wren_tcp_app_pattern(ac->received + (uint64_t)k);
            }
        }
        ac->received += (uint64_t)r;
    }
}

static void out(struct wren_tcp_app *app, const char *s)
{
    if (app->out) {
        app->out(app->out_ctx, s);
    }
}

static void conn_cb(struct wren_tcp_conn *c, unsigned ev, void *arg)
{
    (void)c;
    struct wren_tcp_app_conn *ac = arg;
    if (ev & WREN_TCP_EV_CLOSED) {
        ac->last_err = c->err;
        drain(ac);
        out(ac->app, c->err ? "tcp: connection closed with an error\n" : "tcp: connection closed\n");
        if (ac == &ac->app->srv) {
            wren_tcp_release(c); /* back to the listener for the next client */
        }
        return;
    }
    if (ev & WREN_TCP_EV_CONNECTED) {
        ac->t_open_us = wren_node_now(ac->app->node);
        out(ac->app, "tcp: connected\n");
    }
    if (ev & WREN_TCP_EV_RECV) {
        drain(ac);
    }
    if (ev & (WREN_TCP_EV_CONNECTED | WREN_TCP_EV_SEND)) {
        pump(ac);
        if (ac->mode == WREN_TCP_APP_ECHO) {
            drain(ac);
        }
    }
}

static void conn_prepare(struct wren_tcp_app *app, struct wren_tcp_app_conn *ac, uint8_t mode)
{
    wren_tcp_conn_init(&ac->c, ac->snd, app->wnd, ac->rcv, ac->bm, app->wnd);
    ac->app = app;
    ac->mode = mode;
    ac->close_when_sent = false;
    ac->to_send = ac->sent = ac->received = ac->bad = 0;
    ac->t_open_us = ac->t_first_us = ac->t_last_us = 0;
    ac->last_err = 0;
    wren_tcp_set_opts(&ac->c, app->opts);
    wren_tcp_set_mss(&ac->c, app->mss);
    wren_tcp_set_cb(&ac->c, conn_cb, ac);
}

int wren_tcp_app_init(struct wren_tcp_app *app, struct wren_node *node, wren_out_fn outf,
                      void *out_ctx)
{
    memset(app, 0, sizeof(*app));
    app->node = node;
    app->tcp = wren_tcp_of(node);
    app->out = outf;
    app->out_ctx = out_ctx;
    app->opts = WREN_TCP_OPT_SACK | WREN_TCP_OPT_TS;
    app->mss = CONFIG_WREN_TCP_MSS;
    app->wnd = CONFIG_WREN_TCP_APP_WND;
    return app->tcp ? 0 : -ENODEV;
}

static void accept_cb(struct wren_tcp_listener *l, void *arg)
{
    struct wren_tcp_app *app = arg;
    struct wren_tcp_conn *c = wren_tcp_accept(l);
    if (c == NULL) {
        return;
    }
    struct wren_tcp_app_conn *ac = &app->srv;
    ac->in_use = true;
    ac->t_open_us = wren_node_now(app->node);
    ac->to_send = ac->sent = ac->received = ac->bad = 0;
    ac->t_first_us = ac->t_last_us = 0;
    ac->last_err = 0;
    ac->mode = app->lis_mode;
    wren_tcp_set_cb(c, conn_cb, ac);
    out(app, "tcp: accepted\n");
    drain(ac);
}

int wren_tcp_app_listen(struct wren_tcp_app *app, uint16_t port, uint8_t mode)
{
    if (app->tcp == NULL) {
        return -ENODEV;
    }
    if (app->listening) {
        return -EBUSY;
    }
    if (app->srv.in_use) {
        wren_tcp_release(&app->srv.c);
        app->srv.in_use = false;
    }
    conn_prepare(app, &app->srv, mode);
    app->pool[0] = &app->srv.c;
    app->lis_mode = mode;
    int res = wren_tcp_listen(app->tcp, &app->lis, NULL, port, app->pool, 1);
    if (res < 0) {
        return res;
    }
    wren_tcp_listen_set_cb(&app->lis, accept_cb, app);
    app->listening = true;
    return 0;
}

void wren_tcp_app_unlisten(struct wren_tcp_app *app)
{
    if (app->listening) {
        wren_tcp_unlisten(&app->lis);
        app->listening = false;
    }
}

int wren_tcp_app_connect(struct wren_tcp_app *app, const uint8_t *addr, uint16_t port)
{
    if (app->tcp == NULL) {
        return -ENODEV;
    }
    struct wren_tcp_app_conn *ac = &app->cli;
    if (ac->in_use && ac->c.state != WREN_TCP_CLOSED) {
        return -EISCONN;
    }
    if (ac->in_use) {
        wren_tcp_release(&ac->c);
    }
    conn_prepare(app, ac, WREN_TCP_APP_SINK);
    ac->in_use = true;
    return wren_tcp_connect(app->tcp, &ac->c, addr, port, 0, 0);
}

int wren_tcp_app_send(struct wren_tcp_app *app, bool srv, uint64_t n, bool close)
{
    struct wren_tcp_app_conn *ac = srv ? &app->srv : &app->cli;
    if (!ac->in_use) {
        return -ENOTCONN;
    }
    ac->to_send += n;
    ac->close_when_sent = close;
    if (ac->c.state == WREN_TCP_ESTABLISHED || ac->c.state == WREN_TCP_CLOSE_WAIT) {
        pump(ac);
    }
    return 0;
}

int wren_tcp_app_close(struct wren_tcp_app *app, bool srv)
{
    struct wren_tcp_app_conn *ac = srv ? &app->srv : &app->cli;
    if (!ac->in_use) {
        return -ENOTCONN;
    }
    if (ac->sent < ac->to_send) {
        ac->close_when_sent = true;
        return 0;
    }
    return wren_tcp_shutdown(&ac->c);
}

double wren_tcp_app_goodput(const struct wren_tcp_app_conn *ac)
{
    if (ac->received == 0 || ac->t_last_us <= ac->t_open_us) {
        return 0;
    }
    return (double)ac->received * 8e6 / (double)(ac->t_last_us - ac->t_open_us);
}

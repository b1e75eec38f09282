/* NDN application endpoints (ndn/ndn_app.h): an application face of the
 * forwarder, reached only through netreg and netapi. */
#include "ndn/ndn_app.h"

#include <errno.h>
#include <string.h>

#include "core/node.h"
#include "ndn/ndn.h"
#include "net/netapi.h"
#include "net/netopt.h"
#include "net/nettype.h"

static void app_handle(struct wren_node *node, struct wren_module *self, const struct wren_msg *msg)
{
    struct wren_ndn_app *app = (struct wren_ndn_app *)self;
    if (msg->type != WREN_MSG_RCV || msg->ptr == NULL) {
        if (msg->ptr && msg->type != WREN_MSG_SIGNAL) {
            wren_pktbuf_release(&node->pktbuf, msg->ptr);
        }
        return;
    }
    if (wren_sock_q_put(node, &app->rx, msg->ptr) == 0 && app->cb) {
        app->cb(app, app->cb_arg);
    }
}

static const struct wren_module_ops app_ops = {
    .name = "ndn_app",
    .handle = app_handle,
};

int wren_ndn_app_open(struct wren_node *node, struct wren_ndn_app *app)
{
    memset(app, 0, sizeof(*app));
    struct wren_netreg_entry *e =
        wren_netreg_lookup(node, WREN_NETTYPE_NDN, WREN_NETREG_DEMUX_ALL, NULL);
    if (e == NULL) {
        return -ENOENT;
    }
    struct wren_ndn_face_cfg c = { .kind = WREN_NDN_FACE_APP };
    int face = wren_netapi_set(node, e->module, WREN_NETOPT_NDN_FACE, 0, &c, sizeof(c));
    if (face <= 0) {
        return face < 0 ? face : -ENOSPC;
    }
    app->module.ops = &app_ops;
    app->module.prio = WREN_PRIO_APP;
    app->node = node;
    app->fwd = e->module;
    app->face = (uint8_t)face;
    return wren_netreg_register(node, WREN_NETTYPE_NDN, app->face, &app->module, &app->reg);
}

void wren_ndn_app_close(struct wren_ndn_app *app)
{
    if (app->fwd == NULL) {
        return;
    }
    wren_netapi_set(app->node, app->fwd, WREN_NETOPT_NDN_FACE_DEL, 0, &app->face, 1);
    wren_netreg_unregister(app->node, WREN_NETTYPE_NDN, &app->reg);
    wren_sock_q_close(app->node, &app->rx);
    app->fwd = NULL;
}

static int route(struct wren_ndn_app *app, const char *prefix, uint8_t cost)
{
    struct wren_ndn_route r = { .face = app->face, .cost = cost };
    int n = wren_ndn_name_from_uri(prefix, r.name, sizeof(r.name));
    if (n < 0) {
        return -EINVAL;
    }
    r.len = (uint8_t)n;
    return wren_netapi_set(app->node, app->fwd, WREN_NETOPT_NDN_ROUTE, 0, &r, sizeof(r));
}

int wren_ndn_app_register(struct wren_ndn_app *app, const char *prefix, uint8_t cost)
{
    return route(app, prefix, cost < WREN_NDN_ROUTE_DEL ? cost : WREN_NDN_ROUTE_DEL - 1);
}

int wren_ndn_app_unregister(struct wren_ndn_app *app, const char *prefix)
{
    return route(app, prefix, WREN_NDN_ROUTE_DEL);
}

/* the packet (one snip, owned) to the forwarder, as SND from this face */
static int send_snip(struct wren_ndn_app *app, struct wren_snip *s)
{
    struct wren_msg m = { .type = WREN_MSG_SND, .arg = app->face, .ptr = s };
    if (wren_netapi_try_dispatch(app->node, WREN_NETTYPE_NDN, WREN_NETREG_DEMUX_ALL, &m) == 0) {
        wren_pktbuf_release(&app->node->pktbuf, s);
        return -ENOENT;
    }
    return 0;
}

int wren_ndn_app_send(struct wren_ndn_app *app, const uint8_t *pkt, size_t len)
{
    struct wren_snip *s = len <= UINT16_MAX ? wren_pktbuf_add(&app->node->pktbuf, NULL, pkt, len,
                                                              WREN_NETTYPE_NDN)
                                            : NULL;
    return s ? send_snip(app, s) : -ENOBUFS;
}

int wren_ndn_app_express(struct wren_ndn_app *app, const struct ndn_interest *in)
{
    struct ndn_interest q = *in;
    if (!q.has_nonce) {
        q.has_nonce = true;
        q.nonce = wren_node_random(app->node);
    }
    size_t n = wren_ndn_interest_len(&q);
    struct wren_snip *s = n <= UINT16_MAX ? wren_pktbuf_add(&app->node->pktbuf, NULL, NULL, n,
                                                            WREN_NETTYPE_NDN)
                                          : NULL;
    if (s == NULL) {
        return n <= UINT16_MAX ? -ENOBUFS : -EMSGSIZE;
    }
    wren_ndn_interest_emit(&q, s->data, n);
    return send_snip(app, s);
}

int wren_ndn_app_put_data(struct wren_ndn_app *app, const struct ndn_data *d)
{
    size_t n = wren_ndn_data_len(d);
    struct wren_snip *s = n <= UINT16_MAX ? wren_pktbuf_add(&app->node->pktbuf, NULL, NULL, n,
                                                            WREN_NETTYPE_NDN)
                                          : NULL;
    if (s == NULL) {
        return n <= UINT16_MAX ? -ENOBUFS : -EMSGSIZE;
    }
    wren_ndn_data_emit(d, s->data, n);
    return send_snip(app, s);
}

ssize_t wren_ndn_app_recv(struct wren_ndn_app *app, void *buf, size_t max, uint64_t timeout_us)
{
    int err = 0;
    struct wren_snip *s = wren_sock_q_get(app->node, &app->rx, timeout_us, &err);
    if (s == NULL) {
        return err;
    }
    size_t n = wren_pkt_len(s);
    ssize_t r = n <= max ? (ssize_t)n : -ENOBUFS;
    wren_pkt_copy_from(s, 0, buf, n <= max ? n : max);
    wren_pktbuf_release(&app->node->pktbuf, s);
    return r;
}

ssize_t wren_ndn_app_fetch(struct wren_ndn_app *app, const char *uri, unsigned flags, uint8_t *buf,
                           size_t max, uint64_t timeout_us, struct ndn_data *d)
{
    uint8_t name[CONFIG_WREN_NDN_FIB_NAME * 4];
    int nl = wren_ndn_name_from_uri(uri, name, sizeof(name));
    struct ndn_interest in = { .can_be_prefix = flags & WREN_NDN_CAN_BE_PREFIX,
                               .must_be_fresh = (flags & WREN_NDN_MUST_BE_FRESH) != 0,
                               .has_lifetime = true };
    if (nl < 0 || wren_ndn_name_parse(name, (size_t)nl, &in.name) < 0) {
        return -EINVAL;
    }
    uint64_t ms = timeout_us / 1000u;
    in.lifetime_ms = (uint32_t)(ms > 65000 ? 65000 : ms ? ms : 1);
    int r = wren_ndn_app_express(app, &in);
    uint64_t deadline = wren_node_now(app->node) + timeout_us;
    while (r >= 0) {
        uint64_t now = wren_node_now(app->node);
        ssize_t n = wren_ndn_app_recv(app, buf, max, now < deadline ? deadline - now : 0);
        if (n < 0) {
            return n == -EAGAIN && timeout_us ? -ETIMEDOUT : n;
        }
        if (wren_ndn_data_parse(buf, (size_t)n, d) == 0 &&
            wren_ndn_data_answers(&in.name, in.can_be_prefix, d, buf, (size_t)n)) {
            return n;
        }
    }
    return r;
}

void wren_ndn_app_set_cb(struct wren_ndn_app *app, wren_ndn_app_cb cb, void *arg)
{
    app->cb = cb;
    app->cb_arg = arg;
}

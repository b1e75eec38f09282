/**
 * @file ndn_app.h
 * @brief NDN for applications, in the style of sock: an endpoint in the
 *        application's static memory, blocking calls with a timeout (from
 *        an application thread) or a callback.
 *
 * A consumer:
 *
 *     struct wren_ndn_app app;
 *     wren_ndn_app_open(node, &app);
 *     uint8_t buf[128];
 *     struct ndn_data d;
 *     ssize_t n = wren_ndn_app_fetch(&app, "/wren/temp", 0, buf, sizeof(buf),
 *                                    2000000, &d);          // d.content: the reading
 *
 * A producer:
 *
 *     wren_ndn_app_open(node, &app);
 *     wren_ndn_app_register(&app, "/wren/temp", 0);
 *     ssize_t n = wren_ndn_app_recv(&app, buf, sizeof(buf), WREN_SOCK_FOREVER);
 *     struct ndn_interest in;
 *     wren_ndn_interest_parse(buf, (size_t)n, &in);
 *     struct ndn_data d = { .name = in.name, .content = v, .content_len = 2,
 *                           .has_content = true };    // DigestSha256-signed
 *     wren_ndn_app_put_data(&app, &d);
 *
 * An endpoint is an application face of the node's forwarder (the "ndn"
 * module, found through netreg), a module registered as (WREN_NETTYPE_NDN,
 * its face id). It queues up to CONFIG_WREN_SOCK_QUEUE packets unread; more
 * are dropped (rx.drops).
 */
#ifndef WREN_NDN_NDN_APP_H
#define WREN_NDN_NDN_APP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/module.h"
#include "net/netreg.h"
#include "sock/sock.h"
#include "sock/sock_q.h"
#include "wire/ndn_tlv.h"

struct wren_ndn_app;
typedef void (*wren_ndn_app_cb)(struct wren_ndn_app *app, void *arg);

/** wren_ndn_app_fetch() flags */
enum {
    WREN_NDN_CAN_BE_PREFIX = 1,
    WREN_NDN_MUST_BE_FRESH = 2,
};

struct wren_ndn_app {
    struct wren_module module;   /**< first */
    struct wren_netreg_entry reg;
    struct wren_node *node;
    struct wren_module *fwd;     /**< the forwarder */
    uint8_t face;
    struct wren_sock_q rx;
    wren_ndn_app_cb cb;
    void *cb_arg;
};

/** @brief Open @p app as a face of @p node's forwarder.
 *  @return 0, -ENOENT (no "ndn" module), -ENOSPC (no face free). */
int wren_ndn_app_open(struct wren_node *node, struct wren_ndn_app *app);
/** @brief Close @p app: its face, routes and queued packets go. */
void wren_ndn_app_close(struct wren_ndn_app *app);
/** @brief Route Interests under @p prefix (a URI) to @p app, at @p cost.
 *  @return 0, -EINVAL (a bad URI), -ENOSPC (the FIB is full). */
int wren_ndn_app_register(struct wren_ndn_app *app, const char *prefix, uint8_t cost);
/** @brief Stop routing @p prefix to @p app. @return 0, -ENOENT, -EINVAL. */
int wren_ndn_app_unregister(struct wren_ndn_app *app, const char *prefix);
/**
 * @brief Express @p in (a Nonce is drawn if it has none).
 * @return 0, -ENOBUFS (packet buffer or queue full), -EMSGSIZE.
 */
int wren_ndn_app_express(struct wren_ndn_app *app, const struct ndn_interest *in);
/** @brief Send Data @p d (answering an Interest). @return as wren_ndn_app_express(). */
int wren_ndn_app_put_data(struct wren_ndn_app *app, const struct ndn_data *d);
/** @brief Send an encoded packet (Interest or Data) as it is. */
int wren_ndn_app_send(struct wren_ndn_app *app, const uint8_t *pkt, size_t len);
/**
 * @brief The next packet for @p app (a Data, or an Interest for a
 *        registered prefix) into @p buf, waiting up to @p timeout_us
 *        (waiting needs an application thread).
 * @return its length, -EAGAIN, -ETIMEDOUT, -ENOBUFS (@p buf too small: it
 *         is dropped), -EDEADLK (asked to wait outside a thread).
 */
ssize_t wren_ndn_app_recv(struct wren_ndn_app *app, void *buf, size_t max, uint64_t timeout_us);
/**
 * @brief Express an Interest for @p uri (@p flags: WREN_NDN_CAN_BE_PREFIX,
 *        WREN_NDN_MUST_BE_FRESH; lifetime the timeout, at most 65 s) and
 *        wait for its Data, parsed into @p d (pointing into @p buf).
 *        Interests arriving meanwhile are dropped.
 * @return the Data's length, or as wren_ndn_app_recv(), -EINVAL (a bad URI).
 */
ssize_t wren_ndn_app_fetch(struct wren_ndn_app *app, const char *uri, unsigned flags, uint8_t *buf,
                           size_t max, uint64_t timeout_us, struct ndn_data *d);
/** @brief Call @p cb (in the node's context) when a packet arrives. */
void wren_ndn_app_set_cb(struct wren_ndn_app *app, wren_ndn_app_cb cb, void *arg);

#endif

/* TCP sockets on the TCP layer's API: blocking with timeouts through
 * wren_thread_block / wren_thread_wakeup, the layer's events turned into
 * wakeups and the socket's own callback. */
#include "sock/sock_tcp.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "core/node.h"
#include "core/thread.h"
#include "wire/ipv6.h"

/* sock->flags */
enum {
    SOCK_TCP_OPEN = 0x01,   /* the application's: connecting, connected or accepted */
    SOCK_TCP_LINGER = 0x02, /* disconnected: finishing its close in the background */
};

_Static_assert(offsetof(struct wren_sock_tcp, conn) == 0, "the connection comes first");

static struct wren_sock_tcp *sock_of(struct wren_tcp_conn *c)
{
    return (struct wren_sock_tcp *)(void *)c;
}

static bool connecting(const struct wren_sock_tcp *s)
{
    return s->conn.state == WREN_TCP_SYN_SENT || s->conn.state == WREN_TCP_SYN_RECEIVED;
}

static uint64_t deadline_of(struct wren_node *node, uint64_t timeout_us)
{
    uint64_t now = wren_node_now(node);
    if (timeout_us == WREN_SOCK_FOREVER || timeout_us > UINT64_MAX - 1 - now) {
        return UINT64_MAX;
    }
    return now + timeout_us;
}

/* Block the calling thread as *@p slot until woken or @p deadline.
 * @return 0 (look again), -ETIMEDOUT, -EDEADLK, -EBUSY (another thread
 * waits there), or the waker's error (-EBADF). */
static int sock_wait(struct wren_node *node, struct wren_thread **slot, uint64_t deadline)
{
    struct wren_thread *self = wren_thread_self(node);
    if (self == NULL) {
        return -EDEADLK;
    }
    if (*slot) {
        return -EBUSY;
    }
    uint64_t now = wren_node_now(node);
    if (now >= deadline) {
        return -ETIMEDOUT;
    }
    *slot = self;
    int res =
        wren_thread_block(node, deadline == UINT64_MAX ? WREN_THREAD_FOREVER : deadline - now);
    if (*slot == self) {
        *slot = NULL; /* timed out: nobody cleared it */
    }
    return res == -ETIMEDOUT ? 0 : res;
}

/* Wake the thread waiting in *@p slot, if any; the waker clears the slot so
 * that another thread may wait there before this one runs again. */
static void wake(struct wren_thread **slot, int status)
{
    struct wren_thread *t = *slot;
    if (t) {
        *slot = NULL;
        wren_thread_wakeup(t, status);
    }
}

/* Give @p s up for good: its connection is forgotten (a queue's goes back
 * to the listener's pool). */
static void sock_release(struct wren_sock_tcp *s)
{
    wren_timer_cancel(s->node, &s->linger);
    s->flags = 0;
    wren_tcp_release(&s->conn);
}

static void linger_expired(struct wren_timer *t, void *arg)
{
    (void)t;
    struct wren_sock_tcp *s = arg;
    wren_tcp_abort(&s->conn); /* the peer learns by a RST */
    sock_release(s);
}

/* The connection's events (node context). */
static void conn_cb(struct wren_tcp_conn *c, unsigned ev, void *arg)
{
    struct wren_sock_tcp *s = arg;
    if (s->flags & SOCK_TCP_LINGER) {
        if (ev & WREN_TCP_EV_CLOSED) {
            sock_release(s);
        } else if ((ev & WREN_TCP_EV_RECV) && wren_tcp_readable(c)) {
            /* data after the disconnect: nobody will read it */
            wren_tcp_abort(c);
            sock_release(s);
        }
        return;
    }
    if (ev & (WREN_TCP_EV_RECV | WREN_TCP_EV_CLOSED)) {
        wake(&s->reader, 0);
    }
    if (ev & (WREN_TCP_EV_SEND | WREN_TCP_EV_CONNECTED | WREN_TCP_EV_CLOSED)) {
        wake(&s->writer, 0);
    }
    if (s->queue) {
        ev &= ~(unsigned)WREN_TCP_EV_CONNECTED; /* accepted: connected already */
    }
    if (ev && s->cb) {
        s->cb(s, ev, s->cb_arg);
    }
}

/* The listener's event: a connection is ready to accept (node context). */
static void listen_cb(struct wren_tcp_listener *l, void *arg)
{
    (void)l;
    struct wren_sock_tcp_queue *q = arg;
    wake(&q->waiter, 0);
    if (q->cb) {
        q->cb(q, WREN_SOCK_TCP_EV_ACCEPT, q->cb_arg);
    }
}

/* A fresh connection object in @p s, with its buffers. */
static void sock_init(struct wren_node *node, struct wren_sock_tcp *s)
{
    wren_tcp_conn_init(&s->conn, s->snd, sizeof(s->snd), s->rcv, s->rcv_bitmap, sizeof(s->rcv));
    wren_tcp_set_cb(&s->conn, conn_cb, s);
    wren_timer_init(&s->linger, linger_expired, s);
    s->node = node;
    s->reader = s->writer = NULL;
    s->flags = 0;
}

int wren_sock_tcp_connect(struct wren_node *node, struct wren_sock_tcp *sock,
                          const struct wren_sock_tcp_ep *remote, uint16_t local_port,
                          uint64_t timeout_us)
{
    struct wren_tcp *tcp = wren_tcp_of(node);
    if (tcp == NULL) {
        return -ENOTSUP;
    }
    if (remote == NULL || sock->queue) {
        return -EINVAL;
    }
    if (sock->flags & SOCK_TCP_LINGER) {
        return -EBUSY;
    }
    if ((sock->flags & SOCK_TCP_OPEN) && sock->conn.state != WREN_TCP_CLOSED) {
        return connecting(sock) ? -EALREADY : -EISCONN;
    }
    if (timeout_us && wren_thread_self(node) == NULL) {
        return -EDEADLK;
    }
    sock_init(node, sock);
    sock->flags = SOCK_TCP_OPEN;
    int res =
        wren_tcp_connect(tcp, &sock->conn, remote->addr, remote->port, local_port, remote->netif);
    if (res < 0) {
        sock_release(sock);
        return res;
    }
    if (timeout_us == 0) {
        return -EINPROGRESS;
    }
    uint64_t deadline = deadline_of(node, timeout_us);
    while (connecting(sock)) {
        res = sock_wait(node, &sock->writer, deadline);
        if (res == -ETIMEDOUT) {
            wren_tcp_abort(&sock->conn); /* give the attempt up */
            sock_release(sock);
            return res;
        }
        if (res < 0) {
            return res; /* disconnected meanwhile */
        }
    }
    if (sock->conn.state == WREN_TCP_CLOSED) {
        res = sock->conn.err ? sock->conn.err : -ECONNABORTED;
        sock_release(sock);
        return res;
    }
    return 0;
}

/* @p queue listening on @p local with its pool conns[0..n) as set (entries
 * may be NULL: made by queue_make) */
static int queue_listen(struct wren_node *node, struct wren_tcp *tcp,
                        struct wren_sock_tcp_queue *queue, const struct wren_sock_tcp_ep *local,
                        unsigned n)
{
    int res = wren_tcp_listen(tcp, &queue->listener,
                              wren_ipv6_addr_is_unspecified(local->addr) ? NULL : local->addr,
                              local->port, queue->conns, n);
    if (res < 0) {
        return res;
    }
    for (unsigned i = 0; i < n; i++) {
        if (!CONFIG_WREN_NODE_MEM || queue->conns[i]) {
            sock_of(queue->conns[i])->queue = queue;
        }
    }
    queue->listener.if_id = local->netif;
    wren_tcp_listen_set_cb(&queue->listener, listen_cb, queue);
    queue->node = node;
    queue->n = (uint8_t)n;
    queue->listening = 1;
    return 0;
}

/* clear @p queue for listening, keeping the callback set before */
static void queue_clear(struct wren_sock_tcp_queue *queue)
{
    wren_sock_tcp_queue_cb cb = queue->cb; /* may be set before listening */
    void *cb_arg = queue->cb_arg;
    memset(queue, 0, sizeof(*queue));
    queue->cb = cb;
    queue->cb_arg = cb_arg;
}

static int listen_check(struct wren_tcp *tcp, const struct wren_sock_tcp_queue *queue,
                        const struct wren_sock_tcp_ep *local, unsigned n)
{
    if (tcp == NULL) {
        return -ENOTSUP;
    }
    if (local == NULL || local->port == 0 || n == 0 || n > CONFIG_WREN_SOCK_TCP_QUEUE_MAX) {
        return -EINVAL;
    }
    return queue->listening ? -EBUSY : 0;
}

int wren_sock_tcp_listen(struct wren_node *node, struct wren_sock_tcp_queue *queue,
                         const struct wren_sock_tcp_ep *local, struct wren_sock_tcp *socks,
                         unsigned n)
{
    struct wren_tcp *tcp = wren_tcp_of(node);
    int res = listen_check(tcp, queue, local, socks ? n : 0);
    if (res < 0) {
        return res;
    }
    for (unsigned i = 0; i < n; i++) {
        if ((socks[i].flags & (SOCK_TCP_OPEN | SOCK_TCP_LINGER)) ||
            socks[i].conn.state != WREN_TCP_CLOSED ||
            (socks[i].queue && socks[i].queue->listening)) {
            return -EBUSY;
        }
    }
    queue_clear(queue);
    for (unsigned i = 0; i < n; i++) {
        sock_init(node, &socks[i]);
        socks[i].cb = NULL;
        socks[i].cb_arg = NULL;
        queue->conns[i] = &socks[i].conn;
    }
    res = queue_listen(node, tcp, queue, local, n);
    if (res < 0) {
        for (unsigned i = 0; i < n; i++) {
            wren_tcp_release(&socks[i].conn);
        }
    }
    return res;
}

#if CONFIG_WREN_NODE_MEM
/* the listener's make hook: socket @p i of a lazy queue, from the node's memory */
static struct wren_tcp_conn *queue_make(struct wren_tcp_listener *l, unsigned i)
{
    struct wren_sock_tcp_queue *q = (struct wren_sock_tcp_queue *)l; /* listener first */
    struct wren_sock_tcp *s = wren_node_mem(q->node, q->owner, sizeof(*s));
    if (s == NULL) {
        return NULL;
    }
    sock_init(q->node, s);
    s->queue = q;
    q->conns[i] = &s->conn;
    return &s->conn;
}

int wren_sock_tcp_listen_lazy(struct wren_node *node, struct wren_sock_tcp_queue *queue,
                              const struct wren_sock_tcp_ep *local, unsigned n,
                              const struct wren_module_ops *owner)
{
    struct wren_tcp *tcp = wren_tcp_of(node);
    int res = listen_check(tcp, queue, local, n);
    if (res < 0) {
        return res;
    }
    queue_clear(queue);
    queue->owner = owner;
    res = queue_listen(node, tcp, queue, local, n);
    if (res == 0) {
        wren_tcp_listen_set_make(&queue->listener, queue_make);
    }
    return res;
}
#endif

void wren_sock_tcp_stop_listen(struct wren_sock_tcp_queue *queue)
{
    if (!queue->listening) {
        return;
    }
    queue->listening = 0;
    wren_tcp_unlisten(&queue->listener);
    wake(&queue->waiter, -EBADF);
}

int wren_sock_tcp_accept(struct wren_sock_tcp_queue *queue, struct wren_sock_tcp **sock,
                         uint64_t timeout_us)
{
    uint64_t deadline = 0;
    for (;;) {
        if (!queue->listening) {
            return -EBADF;
        }
        struct wren_tcp_conn *c = wren_tcp_accept(&queue->listener);
        if (c) {
            struct wren_sock_tcp *s = sock_of(c);
            s->flags = SOCK_TCP_OPEN;
            s->cb = NULL;
            s->cb_arg = NULL;
            s->reader = s->writer = NULL;
            wren_tcp_set_cb(c, conn_cb, s); /* the layer clears it at each SYN */
            *sock = s;
            return 0;
        }
        if (timeout_us == 0) {
            return -EAGAIN;
        }
        if (deadline == 0) {
            deadline = deadline_of(queue->node, timeout_us);
        }
        int res = sock_wait(queue->node, &queue->waiter, deadline);
        if (res < 0) {
            return res;
        }
    }
}

ssize_t wren_sock_tcp_read(struct wren_sock_tcp *sock, void *buf, size_t max, uint64_t timeout_us)
{
    if (sock->flags & SOCK_TCP_LINGER) {
        return -EBADF;
    }
    if (!(sock->flags & SOCK_TCP_OPEN)) {
        return -ENOTCONN;
    }
    if (max == 0) {
        return 0;
    }
    uint64_t deadline = deadline_of(sock->node, timeout_us);
    for (;;) {
        ssize_t r = wren_tcp_recv(&sock->conn, buf, max);
        if (r != -EAGAIN && !(r == -ENOTCONN && connecting(sock))) {
            return r;
        }
        if (timeout_us == 0) {
            return -EAGAIN;
        }
        int res = sock_wait(sock->node, &sock->reader, deadline);
        if (res < 0) {
            return res;
        }
    }
}

ssize_t wren_sock_tcp_write(struct wren_sock_tcp *sock, const void *data, size_t len,
                            uint64_t timeout_us)
{
    if (sock->flags & SOCK_TCP_LINGER) {
        return -EBADF;
    }
    if (!(sock->flags & SOCK_TCP_OPEN)) {
        return -ENOTCONN;
    }
    const uint8_t *p = data;
    size_t done = 0;
    uint64_t deadline = deadline_of(sock->node, timeout_us);
    while (done < len) {
        ssize_t r = wren_tcp_send(&sock->conn, p + done, len - done);
        if (r > 0) {
            done += (size_t)r;
            continue;
        }
        if (r < 0 && !(r == -ENOTCONN && connecting(sock))) {
            return done ? (ssize_t)done : r;
        }
        /* the send buffer is full, or the handshake is not over */
        if (timeout_us == 0) {
            return done ? (ssize_t)done : -EAGAIN;
        }
        int res = sock_wait(sock->node, &sock->writer, deadline);
        if (res < 0) {
            return done ? (ssize_t)done : res;
        }
    }
    return (ssize_t)done;
}

void wren_sock_tcp_disconnect(struct wren_sock_tcp *sock)
{
    if (!(sock->flags & SOCK_TCP_OPEN)) {
        return;
    }
    struct wren_tcp_conn *c = &sock->conn;
    sock->cb = NULL;
    sock->cb_arg = NULL;
    wake(&sock->reader, -EBADF);
    wake(&sock->writer, -EBADF);
    if (c->state == WREN_TCP_CLOSED || c->state == WREN_TCP_SYN_SENT) {
        wren_tcp_abort(c); /* sends nothing in SYN-SENT */
        sock_release(sock);
        return;
    }
    /* unread data is dropped: its arrival in the background must mean data
     * sent after the disconnect (answered by a RST) */
    uint8_t junk[32];
    while (wren_tcp_recv(c, junk, sizeof(junk)) > 0) {
    }
    sock->flags = SOCK_TCP_LINGER;
    wren_timer_set(sock->node, &sock->linger, (uint64_t)CONFIG_WREN_SOCK_TCP_LINGER_MS * 1000);
    wren_tcp_shutdown(c);
}

void wren_sock_tcp_set_cb(struct wren_sock_tcp *sock, wren_sock_tcp_cb cb, void *arg)
{
    sock->cb = cb;
    sock->cb_arg = arg;
}

void wren_sock_tcp_queue_set_cb(struct wren_sock_tcp_queue *queue, wren_sock_tcp_queue_cb cb,
                                void *arg)
{
    queue->cb = cb;
    queue->cb_arg = arg;
}

int wren_sock_tcp_get_local(const struct wren_sock_tcp *sock, struct wren_sock_tcp_ep *ep)
{
    if (!(sock->flags & SOCK_TCP_OPEN)) {
        return -ENOTCONN;
    }
    memcpy(ep->addr, sock->conn.laddr, 16);
    ep->port = sock->conn.lport;
    ep->netif = sock->conn.if_id;
    return 0;
}

int wren_sock_tcp_get_remote(const struct wren_sock_tcp *sock, struct wren_sock_tcp_ep *ep)
{
    if (!(sock->flags & SOCK_TCP_OPEN)) {
        return -ENOTCONN;
    }
    memcpy(ep->addr, sock->conn.raddr, 16);
    ep->port = sock->conn.rport;
    ep->netif = sock->conn.if_id;
    return 0;
}

int wren_sock_tcp_queue_get_local(const struct wren_sock_tcp_queue *queue,
                                  struct wren_sock_tcp_ep *ep)
{
    if (!queue->listening) {
        return -EBADF;
    }
    memcpy(ep->addr, queue->listener.laddr, 16);
    ep->port = queue->listener.lport;
    ep->netif = queue->listener.if_id;
    return 0;
}

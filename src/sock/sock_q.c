#include "sock/sock_q.h"

#include <errno.h>

#include "core/node.h"
#include "core/thread.h"
#include "sock/sock_udp.h"

int wren_sock_q_put(struct wren_node *node, struct wren_sock_q *q, struct wren_snip *pkt)
{
    if (q->len == CONFIG_WREN_SOCK_QUEUE) {
        q->drops++;
        wren_pktbuf_release(&node->pktbuf, pkt);
        return -ENOBUFS;
    }
    q->q[(q->head + q->len) % CONFIG_WREN_SOCK_QUEUE] = pkt;
    q->len++;
    if (q->waiter) {
        wren_thread_wakeup(q->waiter, 0);
    }
    return 0;
}

struct wren_snip *wren_sock_q_get(struct wren_node *node, struct wren_sock_q *q,
                                  uint64_t timeout_us, int *err)
{
    uint64_t deadline = timeout_us == WREN_SOCK_FOREVER ? UINT64_MAX
                                                        : wren_node_now(node) + timeout_us;
    while (q->len == 0) {
        struct wren_thread *self = wren_thread_self(node);
        uint64_t now = wren_node_now(node);
        if (timeout_us == 0) {
            *err = -EAGAIN;
        } else if (self == NULL) {
            *err = -EDEADLK;
        } else if (now >= deadline) {
            *err = -ETIMEDOUT;
        } else {
            q->waiter = self;
            int res = wren_thread_block(node, deadline == UINT64_MAX ? WREN_THREAD_FOREVER
                                                                     : deadline - now);
            q->waiter = NULL;
            if (res >= 0 || res == -ETIMEDOUT) {
                continue;
            }
            *err = res;
        }
        return NULL;
    }
    struct wren_snip *pkt = q->q[q->head];
    q->head = (uint8_t)((q->head + 1) % CONFIG_WREN_SOCK_QUEUE);
    q->len--;
    return pkt;
}

void wren_sock_q_close(struct wren_node *node, struct wren_sock_q *q)
{
    while (q->len) {
        wren_pktbuf_release(&node->pktbuf, q->q[q->head]);
        q->head = (uint8_t)((q->head + 1) % CONFIG_WREN_SOCK_QUEUE);
        q->len--;
    }
    if (q->waiter) {
        wren_thread_wakeup(q->waiter, -EBADF);
    }
}

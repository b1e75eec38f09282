/* Inside sock: the received-packet queue and blocking wait that sock_udp and
 * sock_ip share. */
#ifndef WREN_SOCK_Q_H
#define WREN_SOCK_Q_H

#include <stdint.h>

#include "pktbuf/pktbuf.h"

#ifndef CONFIG_WREN_SOCK_QUEUE
#define CONFIG_WREN_SOCK_QUEUE 2    /**< datagrams a socket holds unread */
#endif

struct wren_node;
struct wren_thread;

struct wren_sock_q {
    struct wren_snip *q[CONFIG_WREN_SOCK_QUEUE];
    uint8_t head;
    uint8_t len;
    struct wren_thread *waiter;
    uint32_t drops;               /**< packets dropped: queue full */
};

/* Queue @p pkt (owned) and wake a waiting reader; 0, or -ENOBUFS (dropped). */
int wren_sock_q_put(struct wren_node *node, struct wren_sock_q *q, struct wren_snip *pkt);
/* Wait up to @p timeout_us for a packet; the packet (owned) or NULL with *err. */
struct wren_snip *wren_sock_q_get(struct wren_node *node, struct wren_sock_q *q,
                                  uint64_t timeout_us, int *err);
/* Drop everything queued and release a waiter with -EBADF. */
void wren_sock_q_close(struct wren_node *node, struct wren_sock_q *q);

#endif

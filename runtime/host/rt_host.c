/* The host runtime: wall-clock time, a timer heap and a poll loop (Linux). */
#define _GNU_SOURCE

#include "host/rt_host.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

uint64_t wren_host_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static uint64_t host_now(void *rt)
{
    (void)rt;
    return wren_host_now();
}

static void host_arm(void *rt, struct wren_timer *t)
{
    struct wren_host *h = rt;
    if (t->slot) {
        wren_timerq_remove(&h->timers, t);
    }
    if (wren_timerq_push(&h->timers, t, t->deadline) < 0) {
        h->stats.timer_overflow++;
    }
}

static void host_disarm(void *rt, struct wren_timer *t)
{
    wren_timerq_remove(&((struct wren_host *)rt)->timers, t);
}

static void host_node_pending(void *rt, struct wren_node *node)
{
    (void)node;
    ((struct wren_host *)rt)->pending = true;
}

/* state a module makes on first use: a piece of its own each, zeroed; kept
 * on a list (16 bytes before it) until wren_host_fini */
static void *host_mem(void *rt, struct wren_node *node, const struct wren_module_ops *owner,
                      size_t size)
{
    (void)node;
    (void)owner;
    struct wren_host *h = rt;
    void **p = calloc(1, 16 + size);
    if (p == NULL) {
        return NULL;
    }
    p[0] = h->mem;
    h->mem = p;
    return (uint8_t *)p + 16;
}

const struct wren_rt_ops wren_host_rt_ops = {
    .now = host_now,
    .timer_arm = host_arm,
    .timer_disarm = host_disarm,
    .node_pending = host_node_pending,
    .mem = host_mem,
};

void wren_host_timer_at(struct wren_host *h, struct wren_timer *t, uint64_t when)
{
    t->deadline = when;
    t->period = 0;
    host_arm(h, t);
}

void wren_host_timer_cancel(struct wren_host *h, struct wren_timer *t)
{
    if (t->slot) {
        host_disarm(h, t);
    }
}

int wren_host_init(struct wren_host *h)
{
    memset(h, 0, sizeof(*h));
    wren_timerq_init(&h->timers, h->storage, CONFIG_WREN_HOST_TIMERS);
    /* ppoll()'s timeout is the loop's timer: let it end when asked (best
     * effort: without it timers are only later) */
    (void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    /* signals arrive as readable data in the loop, not in a handler */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    if (sigprocmask(SIG_BLOCK, &set, NULL) < 0) {
        return -errno;
    }
    h->sig_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    if (h->sig_fd < 0) {
        int e = errno;
        sigprocmask(SIG_UNBLOCK, &set, NULL);
        return -e;
    }
    return 0;
}

void wren_host_set_node(struct wren_host *h, struct wren_node *node)
{
    h->node = node;
    h->pending = true; /* whatever setting it up queued */
}

void wren_host_fini(struct wren_host *h)
{
    for (size_t i = 0; i < h->timers.len; i++) {
        h->timers.v[i].timer->slot = 0;
    }
    h->timers.len = 0;
    for (void **p = h->mem, **next; p; p = next) {
        next = p[0];
        free(p);
    }
    h->mem = NULL;
    if (h->sig_fd >= 0) {
        close(h->sig_fd);
        h->sig_fd = -1;
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGINT);
        sigaddset(&set, SIGTERM);
        sigprocmask(SIG_UNBLOCK, &set, NULL);
    }
}

int wren_host_fd_add(struct wren_host *h, struct wren_host_fd *hfd)
{
    for (unsigned i = 0; i < h->n_fds; i++) {
        if (h->fds[i] == hfd) {
            return 0;
        }
    }
    if (h->n_fds >= CONFIG_WREN_HOST_FDS) {
        return -ENOSPC;
    }
    h->fds[h->n_fds++] = hfd;
    return 0;
}

void wren_host_fd_remove(struct wren_host *h, struct wren_host_fd *hfd)
{
    for (unsigned i = 0; i < h->n_fds; i++) {
        if (h->fds[i] == hfd) {
            h->fds[i] = h->fds[--h->n_fds];
            return;
        }
    }
}

void wren_host_stop(struct wren_host *h)
{
    h->stop = true;
}

static void run_node(struct wren_host *h)
{
    while (h->pending && h->node) {
        h->pending = false;
        h->stats.node_runs++;
        wren_node_run(h->node);
    }
}

/* Run the node and every timer due now; return the next deadline. */
static uint64_t run_due(struct wren_host *h)
{
    for (;;) {
        run_node(h);
        struct wren_timer *t = wren_timerq_pop_due(&h->timers, wren_host_now());
        if (t == NULL) {
            return wren_timerq_next(&h->timers);
        }
        h->stats.timers_fired++;
        wren_timer_expire(h, &wren_host_rt_ops, t);
    }
}

static void take_signals(struct wren_host *h)
{
    struct signalfd_siginfo si;
    while (read(h->sig_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
        if (si.ssi_signo == SIGINT || si.ssi_signo == SIGTERM) {
            h->stop = true;
            h->stop_signal = (int)si.ssi_signo;
        }
    }
}

/* One round: due work, then wait for descriptors until the next deadline
 * or @p limit, whichever is first. */
static void round_once(struct wren_host *h, uint64_t limit)
{
    uint64_t next = run_due(h);
    if (h->stop) {
        return;
    }
    struct pollfd p[CONFIG_WREN_HOST_FDS + 1];
    struct wren_host_fd *who[CONFIG_WREN_HOST_FDS];
    nfds_t n = 0;
    if (h->sig_fd >= 0) {
        p[n++] = (struct pollfd){.fd = h->sig_fd, .events = POLLIN};
    }
    unsigned nw = 0;
    for (unsigned i = 0; i < h->n_fds; i++) {
        if (h->fds[i]->events && h->fds[i]->fd >= 0) {
            who[nw++] = h->fds[i];
            p[n++] = (struct pollfd){.fd = h->fds[i]->fd, .events = h->fds[i]->events};
        }
    }
    if (limit < next) {
        next = limit;
    }
    struct timespec ts, *tp = NULL;
    if (next != UINT64_MAX) {
        uint64_t now = wren_host_now();
        uint64_t wait = next > now ? next - now : 0;
        ts.tv_sec = (time_t)(wait / 1000000u);
        ts.tv_nsec = (long)(wait % 1000000u) * 1000;
        tp = &ts;
    }
    h->stats.loops++;
    int res = ppoll(p, n, tp, NULL);
    if (res < 0) {
        if (errno != EINTR) {
            h->stats.poll_errors++;
        }
        return;
    }
    unsigned base = h->sig_fd >= 0 ? 1 : 0;
    if (base && p[0].revents) {
        take_signals(h);
    }
    for (unsigned i = 0; i < nw && res > 0; i++) {
        short rev = p[base + i].revents;
        if (rev) {
            who[i]->cb(who[i], rev);
            run_node(h);
        }
    }
}

int wren_host_run_for(struct wren_host *h, uint64_t us)
{
    uint64_t limit = us == UINT64_MAX ? UINT64_MAX : wren_host_now() + us;
    while (!h->stop && wren_host_now() < limit) {
        round_once(h, limit);
    }
    if (!h->stop) {
        run_due(h);
    }
    return h->stop_signal;
}

int wren_host_run(struct wren_host *h)
{
    return wren_host_run_for(h, UINT64_MAX);
}

/**
 * @file rt_host.h
 * @brief The host runtime (Linux): one node on wall-clock time, its timers,
 *        and an event loop over file descriptors.
 *
 * The clock is CLOCK_MONOTONIC in microseconds. Armed timers wait in a
 * fixed-size wren_timerq (CONFIG_WREN_HOST_TIMERS entries; overflow is
 * counted). Drivers (TAP, ZEP) and the program's console register file
 * descriptors with a callback; the loop
 *
 *     for (;;) {
 *         run the node while it has work (wren_node_run);
 *         fire each due timer (running the node after each);
 *         ppoll() the descriptors until the next deadline;
 *         call the callback of each ready descriptor;
 *     }
 *
 * ends when wren_host_stop() is called or SIGINT/SIGTERM arrives. Signals
 * are taken through a signalfd in the same poll, so no handler runs and no
 * process-wide state is touched outside the loop.
 *
 *     static struct wren_host host;
 *     static struct wren_node node;
 *     wren_host_init(&host);
 *     wren_node_init(&node, &wren_host_rt_ops, &host, arena, sizeof(arena), 1, seed);
 *     wren_host_set_node(&host, &node);
 *     ... add interfaces, modules ...
 *     int sig = wren_host_run(&host);   // SIGINT, SIGTERM or 0 after wren_host_stop()
 *     wren_host_fini(&host);
 *
 * Only built on Linux (signalfd, ppoll).
 */
#ifndef WREN_HOST_RT_HOST_H
#define WREN_HOST_RT_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include "core/node.h"
#include "core/timer.h"
#include "core/timerq.h"

/** Timers the runtime can hold armed at once. */
#ifndef CONFIG_WREN_HOST_TIMERS
#define CONFIG_WREN_HOST_TIMERS 64
#endif
/** File descriptors the loop can watch (the signalfd not counted). */
#ifndef CONFIG_WREN_HOST_FDS
#define CONFIG_WREN_HOST_FDS 8
#endif

struct wren_host_fd;

/** Called from the loop when @p h->fd is ready; @p revents as poll(2) gives them. */
typedef void (*wren_host_fd_cb)(struct wren_host_fd *h, short revents);

/** A watched descriptor, owned by the driver that registers it. */
struct wren_host_fd {
    int fd;
    short events; /**< POLLIN, POLLOUT; 0: not watched for now */
    wren_host_fd_cb cb;
    void *arg;
};

struct wren_host_stats {
    uint64_t loops; /**< poll rounds */
    uint64_t node_runs;
    uint64_t timers_fired;
    uint32_t timer_overflow; /**< arms refused: raise CONFIG_WREN_HOST_TIMERS */
    uint32_t poll_errors;
};

struct wren_host {
    struct wren_timerq timers;
    struct wren_timerq_entry storage[CONFIG_WREN_HOST_TIMERS];
    struct wren_node *node;
    struct wren_host_fd *fds[CONFIG_WREN_HOST_FDS];
    unsigned n_fds;
    int sig_fd;   /**< signalfd for SIGINT and SIGTERM, or -1 */
    bool pending; /**< the node has work */
    bool stop;
    int stop_signal; /**< the signal that stopped the loop, or 0 */
    struct wren_host_stats stats;
    void *mem;    /**< what the node's modules made on first use, freed by wren_host_fini */
};

/** The runtime operations a node on the host runtime is given. */
extern const struct wren_rt_ops wren_host_rt_ops;

/**
 * @brief Prepare @p h: an empty timer queue, no descriptors, SIGINT /
 *        SIGTERM blocked and routed to a signalfd, and the calling thread's
 *        timer slack at 1 ns (Linux's default 50 us would make every
 *        sub-millisecond wait of a paced driver late by that much).
 * @return 0, or -errno if the signalfd cannot be made.
 */
int wren_host_init(struct wren_host *h);

/** @brief The node @p h runs (one per runtime). */
void wren_host_set_node(struct wren_host *h, struct wren_node *node);

/** @brief Close the signalfd and unblock the signals again. */
void wren_host_fini(struct wren_host *h);

/** @brief The runtime's clock: CLOCK_MONOTONIC in microseconds. */
uint64_t wren_host_now(void);

/**
 * @brief Arm @p t (wren_timer_init()ed; no node needed) to fire at @p when
 *        (wren_host_now() time, us), for drivers that pace themselves (ZEP).
 *        Timers never fire early; the thread's timer slack is 1 ns (set by
 *        wren_host_init()), so they fire within the loop's own latency.
 */
void wren_host_timer_at(struct wren_host *h, struct wren_timer *t, uint64_t when);

/** @brief Disarm a timer armed by wren_host_timer_at(); safe if not armed. */
void wren_host_timer_cancel(struct wren_host *h, struct wren_timer *t);

/**
 * @brief Watch @p fd (set fd, events, cb and arg in @p hfd first; it stays
 *        the caller's and must outlive the registration).
 * @return 0, or -ENOSPC when CONFIG_WREN_HOST_FDS are watched.
 */
int wren_host_fd_add(struct wren_host *h, struct wren_host_fd *hfd);

/** @brief Stop watching @p hfd (no-op if it is not watched). */
void wren_host_fd_remove(struct wren_host *h, struct wren_host_fd *hfd);

/**
 * @brief Run the loop until wren_host_stop() or a signal.
 * @return the signal number that ended it (SIGINT, SIGTERM), or 0.
 */
int wren_host_run(struct wren_host *h);

/**
 * @brief Run the loop for at most @p us microseconds of wall-clock time, or
 *        until stopped (for programs that interleave their own work).
 * @return as wren_host_run(); 0 also when the time is up.
 */
int wren_host_run_for(struct wren_host *h, uint64_t us);

/** @brief Make the loop return after the current round; later runs return
 *         at once. */
void wren_host_stop(struct wren_host *h);

#endif

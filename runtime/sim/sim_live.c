/* The simulator's live side (Linux): the ZEP bridge to real processes and
 * runs paced by the wall clock. The only part of the simulator that reads a
 * clock or a socket; runs without it stay deterministic. */
#define _GNU_SOURCE /* clock_gettime, ppoll */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <time.h>

#include "sim/sim.h"
#include "sim/zep_bridge.h"
#include "stack/stack.h"

int wren_sim_zep_bridge(struct wren_sim *s, double x, double y, double z, uint16_t local_port,
                        const char *remote_host, uint16_t remote_port)
{
    if (s->zep) {
        return -EEXIST;
    }
    struct wren_sim_zep *zb = calloc(1, sizeof(*zb));
    if (zb == NULL) {
        return -ENOMEM;
    }
    int res = wren_sim_zep_open(zb, &s->medium, x, y, z, local_port, remote_host, remote_port,
                                0xfffe);
    if (res < 0) {
        free(zb);
        return res;
    }
    s->zep = zb;
    return res;
}

static uint64_t wall_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

int wren_sim_run_realtime(struct wren_sim *s, uint64_t duration_us)
{
    uint64_t wall0 = wall_us(), virt0 = s->world.now, end = virt0 + duration_us;
    for (;;) {
        uint64_t target = virt0 + (wall_us() - wall0);
        if (target > end) {
            target = end;
        }
        wren_world_run_until(&s->world, target);
        if (s->zep && wren_sim_zep_poll(s->zep) > 0) {
            continue; /* frames went on the air: run again */
        }
        /* frames out to ZEP at the pace they had on the air */
        uint64_t out_at = s->zep ? wren_sim_zep_flush(s->zep, wall_us()) : 0;
        if (target >= end) {
            return 0;
        }
        uint64_t next = wren_world_next_event(&s->world);
        uint64_t wait = (next < end ? next : end) - target;
        if (out_at) {
            uint64_t w = wall_us();
            uint64_t out_wait = out_at > w ? out_at - w : 0;
            wait = out_wait < wait ? out_wait : wait;
        }
        if (wait > 50000) {
            wait = 50000; /* stay responsive even when idle */
        }
        struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)(wait * 1000u) };
        struct pollfd pfd = { .fd = s->zep ? s->zep->fd : -1, .events = POLLIN };
        ppoll(&pfd, 1, &ts, NULL);
    }
}

static const struct wren_counter_set zep_set =
    WREN_COUNTER_SET("zep_bridge", WREN_SIM_ZEP_COUNTERS, 0, uint64_t);

int wren_sim_zep_counters(struct wren_sim *s, const char **names, uint64_t *values, int max)
{
    const struct wren_counter_set *set = &zep_set;
    if (s->zep == NULL) {
        return -ENODEV;
    }
    for (int i = 0; i < set->n && i < max; i++) {
        names[i] = set->names[i];
        values[i] = wren_counter_value(set, &s->zep->stats, (unsigned)i);
    }
    return set->n;
}

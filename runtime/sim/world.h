/**
 * @file world.h
 * @brief The sim runtime: many nodes, one virtual clock, one event queue.
 *
 * Time only moves when the next timer is due; nothing waits on the wall
 * clock. Timers with the same deadline fire in the order they were armed,
 * and nodes made ready at one instant run in the order they became ready,
 * so a scenario and a seed always give the same run.
 */
#ifndef WREN_SIM_WORLD_H
#define WREN_SIM_WORLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/node.h"
#include "core/rt.h"
#include "core/timer.h"
#include "core/timerq.h"

struct wren_world {
    uint64_t now;               /**< virtual time, us */
    struct wren_timerq timers;  /**< every armed timer of every node */
    struct wren_node *ready_head;
    struct wren_node *ready_tail;
    uint64_t fired;             /**< timers fired so far */
    uint64_t node_runs;         /**< node activations so far */
    uint64_t rng;               /**< the world's own PRNG (channel draws) */
};

extern const struct wren_rt_ops wren_world_rt_ops;

/** @brief Start an empty world at time 0 with @p seed. */
void wren_world_init(struct wren_world *w, uint64_t seed);
/** @brief Free the event queue (nodes belong to the caller). */
void wren_world_destroy(struct wren_world *w);

/** @brief Arm a timer that belongs to the world rather than a node. */
void wren_world_timer_set(struct wren_world *w, struct wren_timer *t, uint64_t when_us);
/** @brief Disarm a world timer. */
void wren_world_timer_cancel(struct wren_world *w, struct wren_timer *t);

/** @brief Run every event due up to @p until_us, then set the clock there. */
void wren_world_run_until(struct wren_world *w, uint64_t until_us);

/** @brief Time of the next event, or UINT64_MAX if none. */
uint64_t wren_world_next_event(const struct wren_world *w);

/** @brief Uniform 64 random bits from the world's PRNG. */
uint64_t wren_world_random(struct wren_world *w);

/** @brief Uniform double in [0, 1) from the world's PRNG. */
double wren_world_random_unit(struct wren_world *w);

#endif

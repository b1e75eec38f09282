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

/**
 * A node's own clock: its crystal runs fast or slow by a fixed frequency
 * offset, so its local time drifts from the world's true time. A node whose
 * rt is a clock (wren_clock_rt_ops) reads wren_node_now() in local time and
 * arms its timers in local time; the world queues each timer at the first
 * true microsecond at which the local clock has reached the deadline, so a
 * timer never fires early in local time and at most 1 us late.
 *
 *     local(T) = l0 + (T - t0) + floor((T - t0) * k / 2^40)
 *
 * with k = ppm * 1e-6 * 2^40 (integer arithmetic: the same on every host).
 * Both clocks read 0 at true time 0 until the offset changes; a change
 * re-anchors (t0, l0) at the present, so local time stays continuous.
 */
struct wren_world_clock {
    struct wren_world *world;
    uint64_t t0;    /**< true time of the anchor, us */
    uint64_t l0;    /**< local time at the anchor, us */
    int64_t k;      /**< frequency offset, 2^-40 units */
    int64_t kinv;   /**< -k / (1 + k), 2^-40 units: first guess of the inverse */
    double ppm;     /**< the offset as set */
};

/** Largest frequency offset a clock accepts, ppm (crystals are within 100). */
#define WREN_WORLD_CLOCK_MAX_PPM 1000.0

extern const struct wren_rt_ops wren_clock_rt_ops;

/** @brief A clock in @p w that reads the true time and runs @p ppm fast
 *         (negative: slow). @return 0 or -EINVAL if |ppm| is too large. */
int wren_world_clock_init(struct wren_world_clock *c, struct wren_world *w, double ppm);

/**
 * @brief Change the offset of @p c from now on (local time stays
 *        continuous), and re-queue the armed timers of @p node (which runs
 *        on @p c) at their new true times.
 * @return 0 or -EINVAL if |ppm| is too large (nothing changes).
 */
int wren_world_clock_set_ppm(struct wren_world_clock *c, struct wren_node *node, double ppm);

/** @brief Local time of @p c at true time @p true_us (also before the
 *         anchor: a radio's timestamp of a frame received before the offset
 *         changed). */
static inline uint64_t wren_world_clock_local(const struct wren_world_clock *c,
                                              uint64_t true_us)
{
    int64_t dt = (int64_t)(true_us - c->t0);
    if (c->k == 0) {
        return c->l0 + (uint64_t)dt;
    }
    __int128 p = (__int128)dt * c->k;
    /* floor division by 2^40 (an arithmetic shift rounds towards -inf) */
    return c->l0 + (uint64_t)dt + (uint64_t)(int64_t)(p >> 40);
}

/** @brief The first true time at which @p c reads at least @p local_us
 *         (c->t0 if it already did at the anchor). */
uint64_t wren_world_clock_true(const struct wren_world_clock *c, uint64_t local_us);

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

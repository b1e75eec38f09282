/**
 * @file timer.h
 * @brief One-shot and periodic timers on the runtime's 64-bit microsecond clock.
 *
 * Timers are intrusive: the owner embeds a struct wren_timer in its state
 * (static memory), so arming never allocates. Callbacks run to completion in
 * the node's context, never inside another handler.
 *
 *     wren_timer_init(&mod->retry, retry_cb, mod);
 *     wren_timer_set(node, &mod->retry, 500 * 1000);    // in 500 ms
 */
#ifndef WREN_CORE_TIMER_H
#define WREN_CORE_TIMER_H

#include <stdbool.h>
#include <stdint.h>

#include "core/rt.h"

typedef void (*wren_timer_cb)(struct wren_timer *t, void *arg);

struct wren_timer {
    uint64_t deadline;      /**< absolute time, us */
    uint32_t period;        /**< 0 for one-shot, else re-armed every period us */
    uint32_t slot;          /**< runtime's bookkeeping; 0 when not armed */
    wren_timer_cb cb;
    void *arg;
    struct wren_node *node; /**< node whose context runs the callback (may be NULL) */
};

/** @brief Prepare @p t; it starts disarmed. */
void wren_timer_init(struct wren_timer *t, wren_timer_cb cb, void *arg);
/** @brief Fire @p t once, @p delay_us from now. */
void wren_timer_set(struct wren_node *node, struct wren_timer *t, uint64_t delay_us);
/** @brief Fire @p t at absolute time @p when_us (now if in the past). */
void wren_timer_set_abs(struct wren_node *node, struct wren_timer *t, uint64_t when_us);
/** @brief Fire @p t every @p period_us, first after one period. */
void wren_timer_set_periodic(struct wren_node *node, struct wren_timer *t,
                             uint32_t period_us);
/** @brief Disarm @p t; safe if it is not armed. */
void wren_timer_cancel(struct wren_node *node, struct wren_timer *t);
/** @brief Whether @p t is armed. */
static inline bool wren_timer_armed(const struct wren_timer *t)
{
    return t->slot != 0;
}
/**
 * @brief Called by a runtime when @p t expires (already removed from its
 *        queue): re-arms a periodic timer, then runs the callback.
 */
void wren_timer_expire(void *rt, const struct wren_rt_ops *ops, struct wren_timer *t);

#endif

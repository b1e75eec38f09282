/**
 * @file timerq.h
 * @brief A timer queue for runtimes: a binary heap ordered by deadline, ties
 *        broken by arm order, over storage the runtime provides.
 *
 * The sim runtime grows the storage when it is full; a device runtime gives
 * it a fixed array. Each armed timer records its heap position in
 * timer->slot, so cancelling is O(log n).
 */
#ifndef WREN_CORE_TIMERQ_H
#define WREN_CORE_TIMERQ_H

#include <stddef.h>
#include <stdint.h>

#include "core/timer.h"

struct wren_timerq_entry {
    uint64_t deadline;
    uint32_t seq;
    struct wren_timer *timer;
};

struct wren_timerq {
    struct wren_timerq_entry *v;
    size_t len;
    size_t cap;
    uint32_t seq;
};

/** @brief An empty queue over @p storage of @p cap entries. */
void wren_timerq_init(struct wren_timerq *q, struct wren_timerq_entry *storage, size_t cap);

/** @brief Arm @p t at @p deadline (re-arming moves it behind equal deadlines).
 *  @return 0, or -ENOMEM if the storage is full (t is then not armed). */
int wren_timerq_push(struct wren_timerq *q, struct wren_timer *t, uint64_t deadline);

/** @brief Disarm @p t (no-op if it is not armed). */
void wren_timerq_remove(struct wren_timerq *q, struct wren_timer *t);

/** @brief The earliest timer, removed, if it is due at @p now; else NULL. */
struct wren_timer *wren_timerq_pop_due(struct wren_timerq *q, uint64_t now);

/** @brief Deadline of the earliest timer, or UINT64_MAX. */
static inline uint64_t wren_timerq_next(const struct wren_timerq *q)
{
    return q->len ? q->v[0].deadline : UINT64_MAX;
}

#endif

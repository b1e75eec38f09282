/**
 * @file trickle.h
 * @brief The Trickle algorithm (RFC 6206): a timer that sends often while
 *        neighbours disagree and exponentially less as they agree. Any
 *        protocol that gossips state (RPL's DIOs, MPL) owns one per stream.
 *
 * Parameters (RFC 6206 4.1): Imin (ms), Imax as a number of doublings of
 * Imin, and the redundancy constant k (0: no suppression, RFC 6550 8.3.1's
 * "infinity"). State: the interval I, the time t in it, the counter c.
 * Rules (RFC 6206 4.2): an interval starts with c = 0 and t drawn from
 * [I/2, I); at t the owner's callback runs if c < k (or k = 0); when the
 * interval ends I doubles, up to Imax; a consistent transmission heard counts
 * c up; an inconsistency with I > Imin resets I to Imin and starts a new
 * interval (with I = Imin nothing happens).
 *
 * @code
 *   wren_trickle_init(&rpl->trickle, send_dio, rpl);
 *   wren_trickle_start(node, &rpl->trickle, 8, 20, 10);   // RPL defaults
 *   ... on a consistent DIO: wren_trickle_consistent(&rpl->trickle);
 *   ... on an inconsistency: wren_trickle_inconsistent(node, &rpl->trickle);
 * @endcode
 */
#ifndef WREN_CORE_TRICKLE_H
#define WREN_CORE_TRICKLE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/timer.h"

struct wren_trickle;

/** Called at t of an interval when the counter allows a transmission. */
typedef void (*wren_trickle_cb)(struct wren_trickle *tr, void *arg);

/** A Trickle timer; embed it in the owner's state. */
struct wren_trickle {
    struct wren_timer timer;
    wren_trickle_cb cb;
    void *arg;
    uint32_t imin;   /**< ms */
    uint32_t imax;   /**< ms: imin << doublings, capped */
    uint32_t i;      /**< the current interval, ms */
    uint32_t t;      /**< transmission time in the interval, ms */
    uint16_t c;      /**< consistent transmissions heard in the interval */
    uint8_t k;       /**< redundancy constant; 0 = never suppress */
    bool past_t;     /**< the timer now waits for the interval's end */
    uint32_t sent;       /**< callbacks run */
    uint32_t suppressed; /**< transmissions suppressed (c >= k at t) */
};

/** Longest interval, ms (2^31: a uint32 of ms and doubling without overflow). */
#define WREN_TRICKLE_IMAX_CAP 0x80000000u

/** @brief Prepare @p tr (stopped) with its callback. */
void wren_trickle_init(struct wren_trickle *tr, wren_trickle_cb cb, void *arg);

/**
 * @brief Start (or restart) with I = Imin.
 * @param[in] imin_ms    Imin, ms (>= 1; clamped).
 * @param[in] doublings  Imax = Imin * 2^doublings (capped at 2^31 ms).
 * @param[in] k          Redundancy constant, 0 for no suppression.
 */
void wren_trickle_start(struct wren_node *node, struct wren_trickle *tr, uint32_t imin_ms,
                        uint8_t doublings, uint8_t k);

/** @brief Stop; safe when stopped. */
void wren_trickle_stop(struct wren_node *node, struct wren_trickle *tr);

/** @brief Whether it runs. */
static inline bool wren_trickle_running(const struct wren_trickle *tr)
{
    return wren_timer_armed(&tr->timer);
}

/** @brief A consistent transmission was heard (RFC 6206 4.2 rule 3). */
void wren_trickle_consistent(struct wren_trickle *tr);

/**
 * @brief An inconsistency, or an external event that must reset the timer
 *        (rule 6): with I > Imin, I = Imin and a new interval starts; with
 *        I = Imin nothing changes. Nothing happens when stopped.
 */
void wren_trickle_inconsistent(struct wren_node *node, struct wren_trickle *tr);

#endif

/**
 * @file rt_cortexm.h
 * @brief The bare-metal runtime: one node, a fixed timer queue, and a clock
 *        that is either the board's (a function returning microseconds) or
 *        virtual (jumping to the next deadline when idle, for benchmarks
 *        and tests under emulation).
 */
#ifndef WREN_PORT_RT_CORTEXM_H
#define WREN_PORT_RT_CORTEXM_H

#include <stdbool.h>
#include <stdint.h>

#include "core/node.h"
#include "core/timerq.h"

/** Timers the runtime can hold armed at once. */
#ifndef CONFIG_WREN_RT_TIMERS
#define CONFIG_WREN_RT_TIMERS 8
#endif

struct wren_rt_cortexm {
    struct wren_timerq timers;
    struct wren_timerq_entry storage[CONFIG_WREN_RT_TIMERS];
    uint64_t now;                  /**< virtual clock (when clock is NULL) */
    uint64_t (*clock)(void);       /**< board clock in us, or NULL */
    struct wren_node *node;
    bool pending;
    uint32_t timer_overflow;       /**< arms refused: raise CONFIG_WREN_RT_TIMERS */
};

extern const struct wren_rt_ops wren_rt_cortexm_ops;

/** @brief Prepare @p rt; @p clock may be NULL for virtual time. */
void wren_rt_cortexm_init(struct wren_rt_cortexm *rt, uint64_t (*clock)(void));

/** @brief Run the node and every due timer until nothing is due now. */
void wren_rt_cortexm_poll(struct wren_rt_cortexm *rt);

/** @brief Virtual time only: run until no timer is left or @p until_us. */
void wren_rt_cortexm_run_until(struct wren_rt_cortexm *rt, uint64_t until_us);

#endif

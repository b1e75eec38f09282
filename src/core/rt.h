/**
 * @file rt.h
 * @brief The contract between a node and the runtime that drives it.
 *
 * A runtime (sim, host, cortex-m) owns the clock and the timer queue and
 * decides when a node runs. A node never reads wall-clock time or sleeps: it
 * asks its runtime through these operations. The sim runtime implements
 * them on a virtual clock shared by thousands of nodes.
 */
#ifndef WREN_CORE_RT_H
#define WREN_CORE_RT_H

#include <stddef.h>
#include <stdint.h>

#include "core/config.h"

struct wren_node;
struct wren_timer;
struct wren_module_ops;

struct wren_rt_ops {
    /** @brief Current time in microseconds, monotonic, 64 bit. */
    uint64_t (*now)(void *rt);
    /** @brief Arm @p t at t->deadline (re-arms if already armed). */
    void (*timer_arm)(void *rt, struct wren_timer *t);
    /** @brief Disarm @p t; a no-op if it is not armed. */
    void (*timer_disarm)(void *rt, struct wren_timer *t);
    /** @brief @p node has queued messages or ready threads: run it soon. */
    void (*node_pending)(void *rt, struct wren_node *node);
#if CONFIG_WREN_NODE_MEM
    /**
     * @brief Optional: @p size zeroed bytes, 8-byte aligned, for state that
     *        module @p owner of @p node makes on first use
     *        (wren_node_mem(), core/node.h), living as long as the node; or
     *        NULL (none left). NULL op: the runtime makes no memory after
     *        the build. Only with CONFIG_WREN_NODE_MEM (core/config.h).
     */
    void *(*mem)(void *rt, struct wren_node *node, const struct wren_module_ops *owner,
                 size_t size);
#endif
};

#endif

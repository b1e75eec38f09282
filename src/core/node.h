/**
 * @file node.h
 * @brief A node: everything one device's stack owns, in one object.
 *
 * There are no mutable globals in wren. A device has one statically
 * allocated node; the simulator has thousands in one process. The node owns
 * its packet buffer, scheduler queue, protocol registry, interfaces and
 * application threads, and reaches time only through its runtime.
 */
#ifndef WREN_CORE_NODE_H
#define WREN_CORE_NODE_H

#include <stddef.h>
#include <stdint.h>

#include "core/rt.h"
#include "core/sched.h"
#include "net/netreg.h"
#include "pktbuf/pktbuf.h"

struct wren_netif;
struct wren_thread;

struct wren_node {
    struct wren_pktbuf pktbuf;       /**< first: &node->pktbuf is node, no arithmetic */
    const struct wren_rt_ops *rt_ops;
    void *rt;
    struct wren_sched sched;
    struct wren_netreg netreg;
    struct wren_netif *netifs;       /**< interfaces, in order of addition */
    struct wren_thread *run_head;    /**< ready application threads */
    struct wren_thread *run_tail;
    struct wren_thread *current;     /**< thread now running, or NULL */
    uint64_t rng;                    /**< per-node PRNG state */
    uint32_t id;                     /**< runtime-assigned identifier */
    uint8_t next_netif_id;
    uint8_t rt_flags;                /**< runtime's bookkeeping */
    void *rt_link;                   /**< runtime's bookkeeping */
};

/**
 * @brief Set up @p node with an empty stack.
 * @param[in] arena       packet buffer memory, owned by the caller, 8-byte aligned
 * @param[in] arena_size  its size in bytes
 * @param[in] seed        seed of the node's PRNG (the sim derives it from the scenario seed)
 */
void wren_node_init(struct wren_node *node, const struct wren_rt_ops *ops, void *rt,
                    void *arena, size_t arena_size, uint32_t id, uint64_t seed);

/**
 * @brief Run the node until it has nothing to do: deliver every queued
 *        message, then let each ready thread run until it blocks, repeating
 *        while either produced more work. Called by the runtime.
 */
void wren_node_run(struct wren_node *node);

/** @brief The node's clock, microseconds. */
static inline uint64_t wren_node_now(const struct wren_node *node)
{
    return node->rt_ops->now(node->rt);
}

/** @brief (uint32_t)(@p us / 1000000), with 32-bit divisions only (a 64-bit
 *         one links libgcc's __aeabi_uldivmod, 0.76 KB on a Cortex-M3). */
uint32_t wren_us_to_s(uint64_t us);

/** @brief The node's clock, whole seconds (modulo 2^32). */
static inline uint32_t wren_node_now_s(const struct wren_node *node)
{
    return wren_us_to_s(wren_node_now(node));
}

/**
 * @brief Memory for state module @p owner makes on first use (a TCP socket
 *        when a connection comes, a table when a role is taken): @p size
 *        zeroed bytes, 8-byte aligned, from the node's runtime (its rt_ops
 *        `mem`), kept for the node's life. Never freed: a module keeps what
 *        it made and reuses it, so a node pays at most what it once used at
 *        a time. Not for packets (they live in the packet buffer).
 * @return the memory, or NULL: the runtime has none (or no `mem` op); the
 *         module then refuses what needed it and counts the refusal.
 */
void *wren_node_mem(struct wren_node *node, const struct wren_module_ops *owner, size_t size);

/**
 * State a module makes on first use, declared in its struct as
 * `WREN_LAZY(struct x, name);` and reached as `WREN_LAZY_GET(node, self,
 * name)`, which returns it (made by the first call, from wren_node_mem()
 * charged to self->module.ops) or NULL when there is no memory: handle NULL
 * where the state is first needed (drop and count), and reach it elsewhere
 * only on paths that come after that point. With CONFIG_WREN_NODE_MEM 0 (the
 * Cortex-M images) it is part of the struct, as one element, and GET never
 * fails: RAM and code stay what they were without it.
 */
#if CONFIG_WREN_NODE_MEM
#define WREN_LAZY(type, name) type *name
#define WREN_LAZY_GET(node, self, name)                                                     \
    ((self)->name ? (self)->name                                                            \
                  : ((self)->name = wren_node_mem((node), (self)->module.ops,               \
                                                  sizeof(*(self)->name))))
#else
#define WREN_LAZY(type, name) type name[1]
#define WREN_LAZY_GET(node, self, name) ((void)(node), (self)->name)
#endif

/** @brief Next 32 bits of the node's PRNG (xorshift64*, deterministic per seed). */
uint32_t wren_node_random(struct wren_node *node);

/** @brief Uniform random number in [0, n) (n > 0). */
uint32_t wren_node_random_below(struct wren_node *node, uint32_t n);

#endif

/**
 * @file thread.h
 * @brief Cooperative application threads, so that application code can block.
 *
 * The stack itself never runs in a thread: its modules are message handlers
 * on the runtime's stack. Applications that want to write straight-line code
 * ("send, wait for the reply or a timeout") run in a thread with its own
 * stack. A thread runs only when the node has no queued messages, and only
 * until it blocks; nothing preempts it. Blocking calls in sock are built on
 * wren_thread_block() / wren_thread_wakeup().
 *
 *     static void app(void *arg) {
 *         struct wren_node *node = arg;
 *         for (;;) { do_work(); wren_thread_sleep(node, 1000000); }
 *     }
 *     wren_thread_start(node, &t, stack, sizeof(stack), app, node, "app");
 */
#ifndef WREN_CORE_THREAD_H
#define WREN_CORE_THREAD_H

#include <stdint.h>

#include "core/ctx.h"
#include "core/node.h"
#include "core/timer.h"

/** Application threads. 0 for images whose applications are all message
 *  handlers: wren_thread_start() then fails with -ENOTSUP and the node never
 *  looks for ready threads. */
#ifndef CONFIG_WREN_THREADS
#define CONFIG_WREN_THREADS 1
#endif

/** Timeout value meaning "wait forever". */
#define WREN_THREAD_FOREVER UINT64_MAX

enum wren_thread_state {
    WREN_THREAD_READY = 1,
    WREN_THREAD_BLOCKED,
    WREN_THREAD_DONE,
};

struct wren_thread {
    struct wren_ctx ctx;
    struct wren_ctx *ret;       /**< where the thread goes when it blocks */
    struct wren_node *node;
    struct wren_thread *next;   /**< ready-queue link */
    struct wren_timer timeout;
    void (*fn)(void *arg);
    void *arg;
    const char *name;
    uint8_t state;              /**< enum wren_thread_state */
    int wake_status;            /**< what wren_thread_block() returns */
};

/**
 * @brief Start @p fn(arg) in thread @p t on @p stack; it first runs after
 *        the node's queued messages.
 * @return 0, -EINVAL if the stack is too small, -ENOTSUP without
 *         CONFIG_WREN_THREADS.
 */
int wren_thread_start(struct wren_node *node, struct wren_thread *t, void *stack,
                      size_t stack_size, void (*fn)(void *), void *arg,
                      const char *name);

/**
 * @brief Block the calling thread until wren_thread_wakeup() or @p timeout_us.
 * @return the status given to wren_thread_wakeup(), or -ETIMEDOUT.
 *         -EDEADLK if called outside a thread.
 */
int wren_thread_block(struct wren_node *node, uint64_t timeout_us);

/** @brief Make @p t ready; its wren_thread_block() returns @p status. No-op
 *         unless @p t is blocked. */
void wren_thread_wakeup(struct wren_thread *t, int status);

/** @brief Sleep the calling thread for @p us microseconds. */
void wren_thread_sleep(struct wren_node *node, uint64_t us);

/** @brief Let the node's messages and other ready threads run first. */
void wren_thread_yield(struct wren_node *node);

/** @brief The calling thread, or NULL outside a thread. */
static inline struct wren_thread *wren_thread_self(struct wren_node *node)
{
    return node->current;
}

/** @brief Run the first ready thread until it blocks (used by the node). */
void wren_thread_run_ready(struct wren_node *node);

#endif

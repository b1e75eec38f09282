/**
 * @file ctx.h
 * @brief Execution contexts for cooperative threads (implemented per port).
 *
 * The hosted port (sim, host) uses ucontext; the Cortex-M port saves
 * r4-r11 and lr on the thread's own stack. Switching is always explicit:
 * there is no preemption anywhere in wren.
 */
#ifndef WREN_CORE_CTX_H
#define WREN_CORE_CTX_H

#include <stddef.h>

#if defined(__arm__) && !defined(__linux__)
struct wren_ctx {
    void *sp;
};
#else
#include <ucontext.h>
struct wren_ctx {
    ucontext_t uc;
    struct wren_ctx *peer;     /**< context that last switched to this one */
    const void *stack;         /**< stack bounds, for sanitizer fiber hints */
    size_t stack_size;
    void *fake_stack;
    void (*entry)(void *);
    void *arg;
};
#endif

/**
 * @brief Prepare @p c to run entry(arg) on @p stack when first switched to.
 *        entry must never return; it ends by switching away for good with
 *        wren_ctx_exit().
 */
void wren_ctx_init(struct wren_ctx *c, void *stack, size_t size,
                   void (*entry)(void *), void *arg);

/** @brief Save the running context in @p from and resume @p to. */
void wren_ctx_switch(struct wren_ctx *from, struct wren_ctx *to);

/** @brief Leave the running context forever and resume @p to. */
void wren_ctx_exit(struct wren_ctx *from, struct wren_ctx *to);

#endif

/* Cooperative contexts on ucontext, for the sim and host runtimes.
 * Under AddressSanitizer every switch is announced as a fiber switch so that
 * ASan tracks which stack is live. */
#include "core/ctx.h"

#include <stdint.h>
#include <stdlib.h>

#if defined(__SANITIZE_ADDRESS__)
#define WREN_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WREN_ASAN 1
#endif
#endif

#ifdef WREN_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

static void ctx_trampoline(unsigned hi, unsigned lo)
{
    struct wren_ctx *c = (struct wren_ctx *)(((uintptr_t)hi << 32) | (uintptr_t)lo);
#ifdef WREN_ASAN
    __sanitizer_finish_switch_fiber(NULL, &c->peer->stack, &c->peer->stack_size);
#endif
    c->entry(c->arg);
    abort(); /* entry must leave with wren_ctx_exit() */
}

void wren_ctx_init(struct wren_ctx *c, void *stack, size_t size,
                   void (*entry)(void *), void *arg)
{
    getcontext(&c->uc);
    c->uc.uc_stack.ss_sp = stack;
    c->uc.uc_stack.ss_size = size;
    c->uc.uc_link = NULL;
    c->stack = stack;
    c->stack_size = size;
    c->fake_stack = NULL;
    c->peer = NULL;
    c->entry = entry;
    c->arg = arg;
    uintptr_t p = (uintptr_t)c;
    makecontext(&c->uc, (void (*)(void))ctx_trampoline, 2, (unsigned)(p >> 32),
                (unsigned)(p & 0xffffffffu));
}

void wren_ctx_switch(struct wren_ctx *from, struct wren_ctx *to)
{
    to->peer = from;
#ifdef WREN_ASAN
    __sanitizer_start_switch_fiber(&from->fake_stack, to->stack, to->stack_size);
#endif
    swapcontext(&from->uc, &to->uc);
#ifdef WREN_ASAN
    __sanitizer_finish_switch_fiber(from->fake_stack, &from->peer->stack,
                                    &from->peer->stack_size);
#endif
}

void wren_ctx_exit(struct wren_ctx *from, struct wren_ctx *to)
{
    to->peer = from;
#ifdef WREN_ASAN
    __sanitizer_start_switch_fiber(NULL, to->stack, to->stack_size);
#endif
    setcontext(&to->uc);
    abort();
}

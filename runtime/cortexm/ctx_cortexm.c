/* Cooperative context switch for ARMv7-M: the callee-saved registers and
 * the return address go on the running stack, the stack pointer into the
 * context. No FPU state (Cortex-M3 has none). */
#include "core/ctx.h"

#include <stdint.h>

/* First code a new context runs: entry (r4) with its argument (r5). */
__attribute__((naked)) static void ctx_trampoline(void)
{
    __asm volatile("mov r0, r5\n"
                   "blx r4\n"
                   "b .\n");
}

void wren_ctx_init(struct wren_ctx *c, void *stack, size_t size, void (*entry)(void *),
                   void *arg)
{
    uint32_t *sp = (uint32_t *)(((uintptr_t)stack + size) & ~(uintptr_t)7);
    /* the frame wren_ctx_switch pops: r4..r11, then pc */
    *--sp = (uint32_t)(uintptr_t)ctx_trampoline;
    for (int i = 0; i < 6; i++) {
        *--sp = 0; /* r11..r6 */
    }
    *--sp = (uint32_t)(uintptr_t)arg;   /* r5 */
    *--sp = (uint32_t)(uintptr_t)entry; /* r4 */
    c->sp = sp;
}

__attribute__((naked)) void wren_ctx_switch(struct wren_ctx *from, struct wren_ctx *to)
{
    (void)from;
    (void)to;
    __asm volatile("push {r4-r11, lr}\n"
                   "mov r2, sp\n"
                   "str r2, [r0]\n"
                   "ldr r2, [r1]\n"
                   "mov sp, r2\n"
                   "pop {r4-r11, pc}\n");
}

__attribute__((naked)) void wren_ctx_exit(struct wren_ctx *from, struct wren_ctx *to)
{
    (void)from;
    (void)to;
    __asm volatile("ldr r2, [r1]\n"
                   "mov sp, r2\n"
                   "pop {r4-r11, pc}\n");
}

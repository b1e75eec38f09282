#include "core/thread.h"

#include <errno.h>

#include "core/node.h"

#define THREAD_MIN_STACK 256

static void thread_enqueue(struct wren_node *node, struct wren_thread *t)
{
    t->next = NULL;
    if (node->run_tail) {
        node->run_tail->next = t;
    } else {
        node->run_head = t;
    }
    node->run_tail = t;
}

static void thread_entry(void *arg)
{
    struct wren_thread *t = arg;
    t->fn(t->arg);
    t->state = WREN_THREAD_DONE;
    wren_ctx_exit(&t->ctx, t->ret);
}

static void thread_timeout(struct wren_timer *timer, void *arg)
{
    (void)timer;
    wren_thread_wakeup(arg, -ETIMEDOUT);
}

int wren_thread_start(struct wren_node *node, struct wren_thread *t, void *stack,
                      size_t stack_size, void (*fn)(void *), void *arg,
                      const char *name)
{
    if (!CONFIG_WREN_THREADS) {
        return -ENOTSUP;
    }
    if (stack_size < THREAD_MIN_STACK) {
        return -EINVAL;
    }
    t->node = node;
    t->fn = fn;
    t->arg = arg;
    t->name = name;
    t->ret = NULL;
    t->wake_status = 0;
    wren_timer_init(&t->timeout, thread_timeout, t);
    wren_ctx_init(&t->ctx, stack, stack_size, thread_entry, t);
    t->state = WREN_THREAD_READY;
    bool idle = node->run_head == NULL && node->current == NULL;
    thread_enqueue(node, t);
    if (idle) {
        node->rt_ops->node_pending(node->rt, node);
    }
    return 0;
}

void wren_thread_run_ready(struct wren_node *node)
{
    struct wren_thread *t = node->run_head;
    if (t == NULL) {
        return;
    }
    node->run_head = t->next;
    if (node->run_head == NULL) {
        node->run_tail = NULL;
    }
    struct wren_ctx here;
    t->ret = &here;
    node->current = t;
    wren_ctx_switch(&here, &t->ctx);
    node->current = NULL;
}

int wren_thread_block(struct wren_node *node, uint64_t timeout_us)
{
    struct wren_thread *t = node->current;
    if (t == NULL) {
        return -EDEADLK;
    }
    t->state = WREN_THREAD_BLOCKED;
    t->wake_status = 0;
    if (timeout_us != WREN_THREAD_FOREVER) {
        wren_timer_set(node, &t->timeout, timeout_us);
    }
    wren_ctx_switch(&t->ctx, t->ret);
    return t->wake_status;
}

void wren_thread_wakeup(struct wren_thread *t, int status)
{
    if (t->state != WREN_THREAD_BLOCKED) {
        return;
    }
    struct wren_node *node = t->node;
    wren_timer_cancel(node, &t->timeout);
    t->state = WREN_THREAD_READY;
    t->wake_status = status;
    bool idle = node->run_head == NULL && node->current == NULL;
    thread_enqueue(node, t);
    if (idle) {
        node->rt_ops->node_pending(node->rt, node);
    }
}

void wren_thread_sleep(struct wren_node *node, uint64_t us)
{
    uint64_t until = wren_node_now(node) + us;
    uint64_t now;
    while ((now = wren_node_now(node)) < until) {
        if (wren_thread_block(node, until - now) == -EDEADLK) {
            return;
        }
    }
}

void wren_thread_yield(struct wren_node *node)
{
    struct wren_thread *t = node->current;
    if (t == NULL) {
        return;
    }
    t->state = WREN_THREAD_READY;
    thread_enqueue(node, t);
    wren_ctx_switch(&t->ctx, t->ret);
}

#include "sim/world.h"

#include <stdlib.h>
#include <string.h>

#define NODE_QUEUED 0x01

static void world_arm(void *rt, struct wren_timer *t)
{
    struct wren_world *w = rt;
    uint64_t when = t->deadline < w->now ? w->now : t->deadline;
    if (wren_timerq_push(&w->timers, t, when) == 0) {
        return;
    }
    /* full: grow the storage (the simulator may allocate; nodes may not) */
    size_t cap = w->timers.cap ? w->timers.cap * 2 : 256;
    struct wren_timerq_entry *v = realloc(w->timers.v, cap * sizeof(*v));
    if (v == NULL) {
        abort(); /* the simulator itself is out of memory */
    }
    w->timers.v = v;
    w->timers.cap = cap;
    wren_timerq_push(&w->timers, t, when);
}

static void world_disarm(void *rt, struct wren_timer *t)
{
    wren_timerq_remove(&((struct wren_world *)rt)->timers, t);
}

static uint64_t world_now(void *rt)
{
    return ((struct wren_world *)rt)->now;
}

static void world_node_pending(void *rt, struct wren_node *node)
{
    struct wren_world *w = rt;
    if (node->rt_flags & NODE_QUEUED) {
        return;
    }
    node->rt_flags |= NODE_QUEUED;
    node->rt_link = NULL;
    if (w->ready_tail) {
        w->ready_tail->rt_link = node;
    } else {
        w->ready_head = node;
    }
    w->ready_tail = node;
}

const struct wren_rt_ops wren_world_rt_ops = {
    .now = world_now,
    .timer_arm = world_arm,
    .timer_disarm = world_disarm,
    .node_pending = world_node_pending,
};

void wren_world_init(struct wren_world *w, uint64_t seed)
{
    memset(w, 0, sizeof(*w));
    wren_timerq_init(&w->timers, NULL, 0);
    w->rng = seed ^ 0x6a09e667f3bcc909ull;
    if (w->rng == 0) {
        w->rng = 1;
    }
}

void wren_world_destroy(struct wren_world *w)
{
    for (size_t i = 0; i < w->timers.len; i++) {
        w->timers.v[i].timer->slot = 0;
    }
    free(w->timers.v);
    wren_timerq_init(&w->timers, NULL, 0);
}

void wren_world_timer_set(struct wren_world *w, struct wren_timer *t, uint64_t when_us)
{
    t->deadline = when_us;
    t->node = NULL;
    world_arm(w, t);
}

void wren_world_timer_cancel(struct wren_world *w, struct wren_timer *t)
{
    world_disarm(w, t);
}

static void run_ready(struct wren_world *w)
{
    while (w->ready_head) {
        struct wren_node *n = w->ready_head;
        w->ready_head = n->rt_link;
        if (w->ready_head == NULL) {
            w->ready_tail = NULL;
        }
        n->rt_flags &= (uint8_t)~NODE_QUEUED;
        w->node_runs++;
        wren_node_run(n);
    }
}

void wren_world_run_until(struct wren_world *w, uint64_t until_us)
{
    for (;;) {
        run_ready(w);
        uint64_t next = wren_timerq_next(&w->timers);
        if (next > until_us) {
            break;
        }
        w->now = next;
        struct wren_timer *t = wren_timerq_pop_due(&w->timers, next);
        w->fired++;
        wren_timer_expire(w, &wren_world_rt_ops, t);
    }
    if (until_us > w->now) {
        w->now = until_us;
    }
}

uint64_t wren_world_next_event(const struct wren_world *w)
{
    return wren_timerq_next(&w->timers);
}

uint64_t wren_world_random(struct wren_world *w)
{
    /* xorshift64* */
    uint64_t x = w->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    w->rng = x;
    return x * 0x2545f4914f6cdd1dull;
}

double wren_world_random_unit(struct wren_world *w)
{
    return (double)(wren_world_random(w) >> 11) * (1.0 / 9007199254740992.0);
}

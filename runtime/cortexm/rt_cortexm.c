#include "rt_cortexm.h"

static uint64_t rt_now(void *ctx)
{
    struct wren_rt_cortexm *rt = ctx;
    return rt->clock ? rt->clock() : rt->now;
}

static void rt_arm(void *ctx, struct wren_timer *t)
{
    struct wren_rt_cortexm *rt = ctx;
    if (wren_timerq_push(&rt->timers, t, t->deadline) < 0) {
        rt->timer_overflow++;
    }
}

static void rt_disarm(void *ctx, struct wren_timer *t)
{
    struct wren_rt_cortexm *rt = ctx;
    wren_timerq_remove(&rt->timers, t);
}

static void rt_pending(void *ctx, struct wren_node *node)
{
    struct wren_rt_cortexm *rt = ctx;
    rt->node = node;
    rt->pending = true;
}

const struct wren_rt_ops wren_rt_cortexm_ops = {
    .now = rt_now,
    .timer_arm = rt_arm,
    .timer_disarm = rt_disarm,
    .node_pending = rt_pending,
};

void wren_rt_cortexm_init(struct wren_rt_cortexm *rt, uint64_t (*clock)(void))
{
    wren_timerq_init(&rt->timers, rt->storage, CONFIG_WREN_RT_TIMERS);
    rt->now = 0;
    rt->clock = clock;
    rt->node = 0;
    rt->pending = false;
    rt->timer_overflow = 0;
}

void wren_rt_cortexm_poll(struct wren_rt_cortexm *rt)
{
    for (;;) {
        if (rt->pending) {
            rt->pending = false;
            wren_node_run(rt->node);
            continue;
        }
        struct wren_timer *t = wren_timerq_pop_due(&rt->timers, rt_now(rt));
        if (t == 0) {
            return;
        }
        wren_timer_expire(rt, &wren_rt_cortexm_ops, t);
    }
}

void wren_rt_cortexm_run_until(struct wren_rt_cortexm *rt, uint64_t until_us)
{
    for (;;) {
        wren_rt_cortexm_poll(rt);
        uint64_t next = wren_timerq_next(&rt->timers);
        if (next > until_us) {
            break;
        }
        if (next > rt->now) {
            rt->now = next;
        }
    }
}

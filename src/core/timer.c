#include "core/timer.h"

#include "core/node.h"

void wren_timer_init(struct wren_timer *t, wren_timer_cb cb, void *arg)
{
    t->deadline = 0;
    t->period = 0;
    t->slot = 0;
    t->cb = cb;
    t->arg = arg;
    t->node = NULL;
}

void wren_timer_set_abs(struct wren_node *node, struct wren_timer *t, uint64_t when_us)
{
    t->node = node;
    t->deadline = when_us;
    t->period = 0;
    node->rt_ops->timer_arm(node->rt, t);
}

void wren_timer_set(struct wren_node *node, struct wren_timer *t, uint64_t delay_us)
{
    wren_timer_set_abs(node, t, wren_node_now(node) + delay_us);
}

void wren_timer_set_periodic(struct wren_node *node, struct wren_timer *t,
                             uint32_t period_us)
{
    t->node = node;
    t->deadline = wren_node_now(node) + period_us;
    t->period = period_us ? period_us : 1;
    node->rt_ops->timer_arm(node->rt, t);
}

void wren_timer_cancel(struct wren_node *node, struct wren_timer *t)
{
    if (t->slot) {
        node->rt_ops->timer_disarm(node->rt, t);
    }
    t->period = 0;
}

void wren_timer_expire(void *rt, const struct wren_rt_ops *ops, struct wren_timer *t)
{
    if (t->period) {
        t->deadline += t->period;
        ops->timer_arm(rt, t);
    }
    t->cb(t, t->arg);
}

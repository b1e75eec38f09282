#include "core/trickle.h"

#include "core/node.h"

#define US_PER_MS 1000u

/* RFC 6206 4.2 rule 2: a new interval of length I, c = 0, t in [I/2, I) */
static void interval_start(struct wren_node *node, struct wren_trickle *tr)
{
    uint32_t half = tr->i / 2;
    tr->c = 0;
    tr->t = half + (tr->i - half > 0 ? wren_node_random_below(node, tr->i - half) : 0);
    tr->past_t = false;
    wren_timer_set(node, &tr->timer, (uint64_t)tr->t * US_PER_MS);
}

static void trickle_timer(struct wren_timer *t, void *arg)
{
    struct wren_trickle *tr = arg;
    struct wren_node *node = t->node;
    if (!tr->past_t) {
        /* rule 4: at t, transmit unless k consistent ones were heard */
        tr->past_t = true;
        wren_timer_set(node, &tr->timer, (uint64_t)(tr->i - tr->t) * US_PER_MS);
        if (tr->k == 0 || tr->c < tr->k) {
            tr->sent++;
            tr->cb(tr, tr->arg);
        } else {
            tr->suppressed++;
        }
        return;
    }
    /* rule 5: the interval ends, the next one is twice as long (<= Imax) */
    tr->i = tr->i > tr->imax / 2 ? tr->imax : tr->i * 2;
    interval_start(node, tr);
}

void wren_trickle_init(struct wren_trickle *tr, wren_trickle_cb cb, void *arg)
{
    *tr = (struct wren_trickle){ .cb = cb, .arg = arg };
    wren_timer_init(&tr->timer, trickle_timer, tr);
}

void wren_trickle_start(struct wren_node *node, struct wren_trickle *tr, uint32_t imin_ms,
                        uint8_t doublings, uint8_t k)
{
    if (imin_ms < 1) {
        imin_ms = 1;
    }
    if (imin_ms > WREN_TRICKLE_IMAX_CAP) {
        imin_ms = WREN_TRICKLE_IMAX_CAP;
    }
    uint32_t imax = imin_ms;
    for (uint8_t d = 0; d < doublings && imax <= WREN_TRICKLE_IMAX_CAP / 2; d++) {
        imax *= 2;
    }
    tr->imin = imin_ms;
    tr->imax = imax;
    tr->k = k;
    tr->i = imin_ms; /* rule 1: I in [Imin, Imax]; Imin joins fastest */
    interval_start(node, tr);
}

void wren_trickle_stop(struct wren_node *node, struct wren_trickle *tr)
{
    wren_timer_cancel(node, &tr->timer);
}

void wren_trickle_consistent(struct wren_trickle *tr)
{
    if (tr->c < UINT16_MAX) {
        tr->c++;
    }
}

void wren_trickle_inconsistent(struct wren_node *node, struct wren_trickle *tr)
{
    if (!wren_trickle_running(tr) || tr->i <= tr->imin) {
        return;
    }
    tr->i = tr->imin;
    interval_start(node, tr);
}

#include "sim/world.h"

#include <stdlib.h>
#include <string.h>

#define NODE_QUEUED 0x01

static bool ev_before(const struct wren_world_event *a, const struct wren_world_event *b)
{
    return a->deadline < b->deadline || (a->deadline == b->deadline && a->seq < b->seq);
}

static void heap_place(struct wren_world *w, size_t i, struct wren_world_event ev)
{
    w->heap[i] = ev;
    ev.timer->slot = (uint32_t)(i + 1);
}

static void heap_up(struct wren_world *w, size_t i)
{
    struct wren_world_event ev = w->heap[i];
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!ev_before(&ev, &w->heap[parent])) {
            break;
        }
        heap_place(w, i, w->heap[parent]);
        i = parent;
    }
    heap_place(w, i, ev);
}

static void heap_down(struct wren_world *w, size_t i)
{
    struct wren_world_event ev = w->heap[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= w->heap_len) {
            break;
        }
        if (c + 1 < w->heap_len && ev_before(&w->heap[c + 1], &w->heap[c])) {
            c++;
        }
        if (!ev_before(&w->heap[c], &ev)) {
            break;
        }
        heap_place(w, i, w->heap[c]);
        i = c;
    }
    heap_place(w, i, ev);
}

static void heap_remove(struct wren_world *w, size_t i)
{
    w->heap[i].timer->slot = 0;
    w->heap_len--;
    if (i == w->heap_len) {
        return;
    }
    w->heap[i] = w->heap[w->heap_len];
    w->heap[i].timer->slot = (uint32_t)(i + 1);
    if (i > 0 && ev_before(&w->heap[i], &w->heap[(i - 1) / 2])) {
        heap_up(w, i);
    } else {
        heap_down(w, i);
    }
}

static void world_arm(void *rt, struct wren_timer *t)
{
    struct wren_world *w = rt;
    if (t->slot) {
        heap_remove(w, t->slot - 1);
    }
    if (w->heap_len == w->heap_cap) {
        size_t cap = w->heap_cap ? w->heap_cap * 2 : 256;
        struct wren_world_event *h = realloc(w->heap, cap * sizeof(*h));
        if (h == NULL) {
            abort(); /* the simulator itself is out of memory */
        }
        w->heap = h;
        w->heap_cap = cap;
    }
    struct wren_world_event ev = { t->deadline < w->now ? w->now : t->deadline, w->seq++, t };
    w->heap[w->heap_len++] = ev;
    heap_up(w, w->heap_len - 1);
}

static void world_disarm(void *rt, struct wren_timer *t)
{
    if (t->slot) {
        heap_remove(rt, t->slot - 1);
    }
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
    w->rng = seed ^ 0x6a09e667f3bcc909ull;
    if (w->rng == 0) {
        w->rng = 1;
    }
}

void wren_world_destroy(struct wren_world *w)
{
    for (size_t i = 0; i < w->heap_len; i++) {
        w->heap[i].timer->slot = 0;
    }
    free(w->heap);
    w->heap = NULL;
    w->heap_len = w->heap_cap = 0;
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
        if (w->heap_len == 0 || w->heap[0].deadline > until_us) {
            break;
        }
        struct wren_timer *t = w->heap[0].timer;
        w->now = w->heap[0].deadline;
        heap_remove(w, 0);
        w->fired++;
        wren_timer_expire(w, &wren_world_rt_ops, t);
    }
    if (until_us > w->now) {
        w->now = until_us;
    }
}

uint64_t wren_world_next_event(const struct wren_world *w)
{
    return w->heap_len ? w->heap[0].deadline : UINT64_MAX;
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

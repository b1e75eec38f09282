#include "sim/world.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NODE_QUEUED 0x01

/* queue @p t at true time @p when (the present if that has passed) */
static void queue_at(struct wren_world *w, struct wren_timer *t, uint64_t when)
{
    if (when < w->now) {
        when = w->now;
    }
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

static void world_arm(void *rt, struct wren_timer *t)
{
    queue_at(rt, t, t->deadline);
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

/* ---- node clocks ------------------------------------------------------ */

static void clock_arm(void *rt, struct wren_timer *t)
{
    struct wren_world_clock *c = rt;
    queue_at(c->world, t, wren_world_clock_true(c, t->deadline));
}

static void clock_disarm(void *rt, struct wren_timer *t)
{
    wren_timerq_remove(&((struct wren_world_clock *)rt)->world->timers, t);
}

static uint64_t clock_now(void *rt)
{
    const struct wren_world_clock *c = rt;
    return wren_world_clock_local(c, c->world->now);
}

static void clock_node_pending(void *rt, struct wren_node *node)
{
    world_node_pending(((struct wren_world_clock *)rt)->world, node);
}

const struct wren_rt_ops wren_clock_rt_ops = {
    .now = clock_now,
    .timer_arm = clock_arm,
    .timer_disarm = clock_disarm,
    .node_pending = clock_node_pending,
};

#define CLOCK_ONE ((int64_t)1 << 40)

static int clock_rate(struct wren_world_clock *c, double ppm)
{
    if (!(fabs(ppm) <= WREN_WORLD_CLOCK_MAX_PPM)) {
        return -EINVAL; /* NaN too */
    }
    c->ppm = ppm;
    c->k = llround(ppm * 1e-6 * (double)CLOCK_ONE);
    c->kinv = (int64_t)(-(__int128)c->k * CLOCK_ONE / (CLOCK_ONE + c->k));
    return 0;
}

int wren_world_clock_init(struct wren_world_clock *c, struct wren_world *w, double ppm)
{
    memset(c, 0, sizeof(*c));
    c->world = w;
    return clock_rate(c, ppm);
}

uint64_t wren_world_clock_true(const struct wren_world_clock *c, uint64_t local_us)
{
    if (local_us <= c->l0) {
        return c->t0;
    }
    uint64_t dl = local_us - c->l0;
    if (c->k == 0) {
        return c->t0 + dl;
    }
    /* a guess within a microsecond or two, then the exact first instant:
     * local() is monotonic, so step until local(t - 1) < local_us <= local(t) */
    uint64_t dt = dl + (uint64_t)(int64_t)(((__int128)dl * c->kinv) >> 40);
    while (wren_world_clock_local(c, c->t0 + dt) < local_us) {
        dt++;
    }
    while (dt > 0 && wren_world_clock_local(c, c->t0 + dt - 1) >= local_us) {
        dt--;
    }
    return c->t0 + dt;
}

int wren_world_clock_set_ppm(struct wren_world_clock *c, struct wren_node *node, double ppm)
{
    if (!(fabs(ppm) <= WREN_WORLD_CLOCK_MAX_PPM)) {
        return -EINVAL;
    }
    struct wren_world *w = c->world;
    c->l0 = wren_world_clock_local(c, w->now);
    c->t0 = w->now;
    clock_rate(c, ppm);
    if (node == NULL) {
        return 0;
    }
    /* the node's armed timers move to their new true times: collect them
     * first (re-queueing reorders the heap), in heap order (deterministic) */
    size_t n = 0;
    for (size_t i = 0; i < w->timers.len; i++) {
        n += w->timers.v[i].timer->node == node;
    }
    if (n == 0) {
        return 0;
    }
    struct wren_timer **v = malloc(n * sizeof(*v));
    if (v == NULL) {
        abort(); /* the simulator itself is out of memory */
    }
    n = 0;
    for (size_t i = 0; i < w->timers.len; i++) {
        if (w->timers.v[i].timer->node == node) {
            v[n++] = w->timers.v[i].timer;
        }
    }
    for (size_t i = 0; i < n; i++) {
        clock_arm(c, v[i]);
    }
    free(v);
    return 0;
}

/* ---- the world --------------------------------------------------------- */

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

/* Nodes made ready together (a frame's receivers) lie all over memory:
 * while @p n runs, the next one's state comes into the cache, and @p n's
 * first free packet-buffer block (its struct came in the last time round) */
static void prefetch_node(const struct wren_node *n, const struct wren_node *next)
{
    __builtin_prefetch(n->pktbuf.arena + n->pktbuf.free_head, 1);
    if (next) {
        __builtin_prefetch(next, 1);
        __builtin_prefetch(&next->sched, 1);
        __builtin_prefetch(&next->netreg, 0);
    }
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
        prefetch_node(n, w->ready_head);
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
        if (t->node) {
            /* a periodic timer re-arms on its node's clock */
            wren_timer_expire(t->node->rt, t->node->rt_ops, t);
        } else {
            wren_timer_expire(w, &wren_world_rt_ops, t);
        }
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

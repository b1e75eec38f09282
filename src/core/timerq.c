#include "core/timerq.h"

#include <errno.h>
#include <stdbool.h>

static bool before(const struct wren_timerq_entry *a, const struct wren_timerq_entry *b)
{
    /* sequence numbers compare modulo 2^32, so wrapping keeps the order */
    return a->deadline < b->deadline ||
           (a->deadline == b->deadline && (int32_t)(a->seq - b->seq) < 0);
}

static void place(struct wren_timerq *q, size_t i, struct wren_timerq_entry e)
{
    q->v[i] = e;
    e.timer->slot = (uint32_t)(i + 1);
}

static void sift_up(struct wren_timerq *q, size_t i)
{
    struct wren_timerq_entry e = q->v[i];
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!before(&e, &q->v[parent])) {
            break;
        }
        place(q, i, q->v[parent]);
        i = parent;
    }
    place(q, i, e);
}

static void sift_down(struct wren_timerq *q, size_t i)
{
    struct wren_timerq_entry e = q->v[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= q->len) {
            break;
        }
        if (c + 1 < q->len && before(&q->v[c + 1], &q->v[c])) {
            c++;
        }
        if (!before(&q->v[c], &e)) {
            break;
        }
        place(q, i, q->v[c]);
        i = c;
    }
    place(q, i, e);
}

void wren_timerq_init(struct wren_timerq *q, struct wren_timerq_entry *storage, size_t cap)
{
    q->v = storage;
    q->len = 0;
    q->cap = cap;
    q->seq = 0;
}

void wren_timerq_remove(struct wren_timerq *q, struct wren_timer *t)
{
    if (t->slot == 0) {
        return;
    }
    size_t i = t->slot - 1;
    t->slot = 0;
    q->len--;
    if (i == q->len) {
        return;
    }
    q->v[i] = q->v[q->len];
    q->v[i].timer->slot = (uint32_t)(i + 1);
    if (i > 0 && before(&q->v[i], &q->v[(i - 1) / 2])) {
        sift_up(q, i);
    } else {
        sift_down(q, i);
    }
}

int wren_timerq_push(struct wren_timerq *q, struct wren_timer *t, uint64_t deadline)
{
    wren_timerq_remove(q, t);
    if (q->len == q->cap) {
        return -ENOMEM;
    }
    struct wren_timerq_entry e = { deadline, q->seq++, t };
    q->v[q->len++] = e;
    sift_up(q, q->len - 1);
    return 0;
}

struct wren_timer *wren_timerq_pop_due(struct wren_timerq *q, uint64_t now)
{
    if (q->len == 0 || q->v[0].deadline > now) {
        return NULL;
    }
    struct wren_timer *t = q->v[0].timer;
    wren_timerq_remove(q, t);
    return t;
}

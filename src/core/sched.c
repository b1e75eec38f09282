#include "core/sched.h"

#include <errno.h>
#include <stdbool.h>

#include "core/module.h"
#include "core/node.h"

#define SLOT_NONE 0xffu

void wren_sched_init(struct wren_sched *s)
{
    for (unsigned i = 0; i < CONFIG_WREN_SCHED_QUEUE_LEN; i++) {
        s->next[i] = (uint8_t)(i + 1 < CONFIG_WREN_SCHED_QUEUE_LEN ? i + 1 : SLOT_NONE);
    }
    for (unsigned p = 0; p < CONFIG_WREN_SCHED_PRIOS; p++) {
        s->head[p] = SLOT_NONE;
        s->tail[p] = SLOT_NONE;
    }
    s->free = 0;
    s->used = 0;
    s->sig_head = s->sig_tail = NULL;
    s->high_water = 0;
    s->running = 0;
    s->full_drops = 0;
}

int wren_sched_post(struct wren_node *node, struct wren_module *dst,
                    const struct wren_msg *msg)
{
    struct wren_sched *s = &node->sched;
    uint8_t i = s->free;
    if (i == SLOT_NONE) {
        s->full_drops++;
        return -ENOBUFS;
    }
    struct wren_sched_slot *slot = &s->slot[i];
    s->free = s->next[i];
    slot->msg = *msg;
    slot->dst = dst;
    s->next[i] = SLOT_NONE;

    unsigned p = dst->prio < CONFIG_WREN_SCHED_PRIOS ? dst->prio : CONFIG_WREN_SCHED_PRIOS - 1;
    if (s->tail[p] == SLOT_NONE) {
        s->head[p] = i;
    } else {
        s->next[s->tail[p]] = i;
    }
    s->tail[p] = i;
    if (++s->used > s->high_water) {
        s->high_water = s->used;
    }
    /* the first message of an idle node wakes the runtime; a post from a
     * handler or a thread happens while the node runs anyway */
    if (s->used == 1 && !s->running && s->sig_head == NULL && node->current == NULL) {
        node->rt_ops->node_pending(node->rt, node);
    }
    return 0;
}

void wren_sched_signal(struct wren_node *node, struct wren_module *dst)
{
    struct wren_sched *s = &node->sched;
    if (dst->signalled) {
        return;
    }
    dst->signalled = 1;
    dst->sig_next = NULL;
    bool was_idle = s->used == 0 && s->sig_head == NULL;
    if (s->sig_tail) {
        s->sig_tail->sig_next = dst;
    } else {
        s->sig_head = dst;
    }
    s->sig_tail = dst;
    if (was_idle && node->current == NULL) {
        node->rt_ops->node_pending(node->rt, node);
    }
}

unsigned wren_sched_run(struct wren_node *node)
{
    struct wren_sched *s = &node->sched;
    unsigned n = 0;
    s->running = 1;
    while (s->used || s->sig_head) {
        if (s->sig_head) {
            /* signals first: they are interrupts */
            struct wren_module *m = s->sig_head;
            s->sig_head = m->sig_next;
            if (s->sig_head == NULL) {
                s->sig_tail = NULL;
            }
            m->signalled = 0;
            struct wren_msg sig = { .type = WREN_MSG_SIGNAL };
            m->ops->handle(node, m, &sig);
            n++;
            continue;
        }
        unsigned p = 0;
        while (s->head[p] == SLOT_NONE) {
            p++;
        }
        uint8_t i = s->head[p];
        struct wren_sched_slot *slot = &s->slot[i];
        s->head[p] = s->next[i];
        if (s->head[p] == SLOT_NONE) {
            s->tail[p] = SLOT_NONE;
        }
        /* copy out before freeing the slot: the handler may post again */
        struct wren_msg msg = slot->msg;
        struct wren_module *dst = slot->dst;
        s->next[i] = s->free;
        s->free = i;
        s->used--;
        dst->ops->handle(node, dst, &msg);
        n++;
    }
    s->running = 0;
    return n;
}

#include "stack/stack.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/node.h"
#include "net/netapi.h"
#include "net/netdev.h"
#include "net/netif.h"
#include "net/netopt.h"

#define POOL_ALIGN 8u

static size_t round_up(size_t n)
{
    return (n + POOL_ALIGN - 1) & ~(size_t)(POOL_ALIGN - 1);
}

/* interfaces of link type @p link (0: any) on @p node and still to come in @p d */
static unsigned count_ifs(const struct wren_node *node, const struct wren_stack_desc *d,
                          uint8_t link)
{
    unsigned k = 0;
    for (const struct wren_netif *n = node ? node->netifs : NULL; n; n = n->next) {
        k += link == 0 || n->link->type == link;
    }
    for (unsigned i = 0; i < d->n_ifaces; i++) {
        k += link == 0 || d->ifaces[i].link->type == link;
    }
    return k;
}

size_t wren_stack_pool_size(const struct wren_node *node, const struct wren_stack_desc *d)
{
    size_t n = 0;
    for (unsigned i = 0; i < d->n_ifaces; i++) {
        n += d->ifaces[i].state ? 0 : round_up(d->ifaces[i].link->size);
    }
    for (unsigned i = 0; i < d->n_mods; i++) {
        const struct wren_module_ops *m = d->mods[i];
        unsigned k = count_ifs(node, d, m->link);
        unsigned given = d->states && d->states[i];
        if (m->per_if) {
            n += (k - (k && given)) * round_up(m->size); /* a given state: the first */
        } else if ((m->link == 0 || k) && !given) {
            n += round_up(m->size);
        }
    }
    return n;
}

struct pool {
    uint8_t *p;
    size_t left;
};

/* @p given, else the next @p size bytes of the pool (NULL when it runs out) */
static void *piece(struct pool *pl, void *given, size_t size)
{
    if (given) {
        return given;
    }
    size = round_up(size);
    if (size > pl->left) {
        return NULL;
    }
    void *p = pl->p;
    pl->p += size;
    pl->left -= size;
    return p;
}

static int start(struct wren_node *node, const struct wren_module_ops *m, void *state,
                 uint8_t if_id, struct wren_stack *out)
{
    if (state == NULL) {
        return -ENOMEM;
    }
    int res = m->init(node, state, if_id);
    if (res < 0 && out) {
        out->failed = m;
    }
    if (res < 0 || out == NULL) {
        return res;
    }
    if (out->n == CONFIG_WREN_STACK_MODULES) {
        return -ENOSPC;
    }
    out->made[out->n].m = state;
    out->made[out->n++].if_id = if_id;
    return 0;
}

int wren_stack_build(struct wren_node *node, const struct wren_stack_desc *d, void *pool,
                     size_t len, struct wren_stack *out)
{
    struct pool pl = { pool, len };
    int res;
    for (unsigned i = 0; i < d->n_ifaces; i++) {
        const struct wren_stack_iface *f = &d->ifaces[i];
        void *st = piece(&pl, f->state, f->link->size);
        if (st == NULL) {
            return -ENOMEM;
        }
        if ((res = f->link->add(node, st, f->dev)) < 0) {
            return res;
        }
    }
    for (unsigned i = 0; i < d->n_mods; i++) {
        const struct wren_module_ops *m = d->mods[i];
        void *given = d->states ? d->states[i] : NULL;
        bool serves = m->link == 0;
        /* the node's interfaces, also those added by an earlier build */
        for (struct wren_netif *n = node->netifs; n; n = n->next) {
            if (m->link && n->link->type != m->link) {
                continue;
            }
            serves = true;
            if (m->per_if) {
                if ((res = start(node, m, piece(&pl, given, m->size), n->id, out)) < 0) {
                    return res;
                }
                given = NULL;
            }
        }
        if (!m->per_if && serves &&
            (res = start(node, m, piece(&pl, given, m->size), 0, out)) < 0) {
            return res;
        }
    }
    return 0;
}

struct wren_module *wren_stack_module(const struct wren_stack *st,
                                      const struct wren_module_ops *def, uint8_t if_id)
{
    for (unsigned i = 0; i < st->n; i++) {
        if (st->made[i].m->ops == def && (if_id == 0 || st->made[i].if_id == if_id)) {
            return st->made[i].m;
        }
    }
    return NULL;
}

/* ---- walking a node's modules ---------------------------------------------- */

#define MAX_SEEN 32

void wren_stack_foreach_module(struct wren_node *node,
                               void (*fn)(void *ctx, struct wren_module *m), void *ctx)
{
    struct wren_module *seen[MAX_SEEN];
    unsigned n = 0;
    for (unsigned t = 0; t < WREN_NETTYPE_NUMOF; t++) {
        for (struct wren_netreg_entry *e = node->netreg.head[t]; e; e = e->next) {
            struct wren_module *m = e->module;
            if (m->ops->counters == NULL && m->ops->cmds == NULL) {
                continue; /* sockets, applications */
            }
            unsigned k = 0;
            while (k < n && seen[k] != m) {
                k++;
            }
            if (k < n || n == MAX_SEEN) {
                continue;
            }
            seen[n++] = m;
            fn(ctx, m);
        }
    }
}

/* ---- counters ------------------------------------------------------------------ */

#define WREN_SCHED_COUNTERS(C) \
    C(high_water) /* most message slots in use at once */ \
    C(full_drops) /* posts refused: the queue was full */
struct wren_sched_counters {
    WREN_SCHED_COUNTERS(WREN_COUNTER_U32)
};
static const struct wren_counter_set pktbuf_set =
    WREN_COUNTER_SET("pktbuf", WREN_PKTBUF_COUNTERS, 0, uint32_t);
static const struct wren_counter_set sched_set =
    WREN_COUNTER_SET("sched", WREN_SCHED_COUNTERS, 0, uint32_t);

uint64_t wren_counter_value(const struct wren_counter_set *set, const void *values, unsigned i)
{
    if (set->width == 8) {
        uint64_t v;
        memcpy(&v, (const uint8_t *)values + 8 * i, 8);
        return v;
    }
    uint32_t v;
    memcpy(&v, (const uint8_t *)values + 4 * i, 4);
    return v;
}

/* read @p set through GET on @p m and report it */
static void visit_set(struct wren_node *node, struct wren_module *m,
                      const struct wren_counter_set *set, uint8_t if_id, uint8_t first_if,
                      wren_counter_fn fn, void *ctx)
{
    uint64_t buf[64];
    size_t want = (size_t)set->n * set->width;
    if (want > sizeof(buf) ||
        wren_netapi_get(node, m, set->opt, if_id, buf, sizeof(buf)) != (int)want) {
        return;
    }
    char suffix[4] = "";
    if (if_id && if_id != first_if) {
        snprintf(suffix, sizeof(suffix), "%u", if_id);
    }
    fn(ctx, set, suffix, buf);
}

struct mod_visit {
    wren_counter_fn fn;
    void *ctx;
    struct wren_node *node;
    uint8_t first_if;
};

static void visit_module(void *ctx, struct wren_module *m)
{
    struct mod_visit *v = ctx;
    if (m->ops->counters == NULL) {
        return;
    }
    /* per-interface modules answer GET WREN_NETOPT_IF_ID with their interface */
    uint8_t if_id = 0;
    if (m->ops->per_if) {
        wren_netapi_get(v->node, m, WREN_NETOPT_IF_ID, 0, &if_id, 1);
    }
    visit_set(v->node, m, m->ops->counters, if_id, v->first_if, v->fn, v->ctx);
}

void wren_stack_counters(struct wren_node *node, wren_counter_fn fn, void *ctx)
{
    struct wren_sched_counters sc = { .high_water = node->sched.high_water,
                                      .full_drops = node->sched.full_drops };
    fn(ctx, &pktbuf_set, "", &node->pktbuf.stats);
    fn(ctx, &sched_set, "", &sc);
    uint8_t first = node->netifs ? node->netifs->id : 0;
    for (struct wren_netif *n = node->netifs; n; n = n->next) {
        const struct wren_counter_set *sets[] = {
            n->module.ops->counters, n->link->counters, n->dev->driver->counters,
#if CONFIG_WREN_IEEE802154_SEC
            n->link->counters2,
#endif
        };
        for (unsigned i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
            if (sets[i]) {
                visit_set(node, &n->module, sets[i], n->id, first, fn, ctx);
            }
        }
    }
    struct mod_visit v = { fn, ctx, node, first };
    wren_stack_foreach_module(node, visit_module, &v);
}

struct lookup {
    const char *name;
    uint64_t *value;
    int found;
};

static void lookup_fn(void *ctx, const struct wren_counter_set *set, const char *suffix,
                      const void *values)
{
    struct lookup *l = ctx;
    size_t sl = strlen(set->name), xl = strlen(suffix);
    if (l->found || set->names == NULL || strncmp(l->name, set->name, sl) != 0 ||
        strncmp(l->name + sl, suffix, xl) != 0 || l->name[sl + xl] != '.') {
        return;
    }
    const char *c = l->name + sl + xl + 1;
    for (unsigned i = 0; i < set->n; i++) {
        if (strcmp(set->names[i], c) == 0) {
            *l->value = wren_counter_value(set, values, i);
            l->found = 1;
            return;
        }
    }
}

int wren_stack_counter(struct wren_node *node, const char *name, uint64_t *value)
{
    struct lookup l = { name, value, 0 };
    wren_stack_counters(node, lookup_fn, &l);
    return l.found ? 0 : -ENOENT;
}

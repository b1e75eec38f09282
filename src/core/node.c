#include "core/node.h"

#include <string.h>

#include "core/thread.h"

void wren_node_init(struct wren_node *node, const struct wren_rt_ops *ops, void *rt,
                    void *arena, size_t arena_size, uint32_t id, uint64_t seed)
{
    memset(node, 0, sizeof(*node));
    node->rt_ops = ops;
    node->rt = rt;
    node->id = id;
    /* splitmix64 step, so that nearby seeds give unrelated streams and the
     * state is never zero */
    uint64_t z = seed + 0x9e3779b97f4a7c15ull * (id + 1u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    node->rng = z ? z : 1;
    node->next_netif_id = 1;
    wren_sched_init(&node->sched);
    wren_pktbuf_init(&node->pktbuf, arena, arena_size);
    wren_netreg_init(&node->netreg);
}

void wren_node_run(struct wren_node *node)
{
    for (;;) {
        wren_sched_run(node);
        if (!CONFIG_WREN_THREADS || node->run_head == NULL) {
            break;
        }
        wren_thread_run_ready(node);
    }
}

void *wren_node_mem(struct wren_node *node, const struct wren_module_ops *owner, size_t size)
{
#if CONFIG_WREN_NODE_MEM
    return node->rt_ops->mem ? node->rt_ops->mem(node->rt, node, owner, size) : NULL;
#else
    (void)node, (void)owner, (void)size;
    return NULL; /* every module's state is whole in its struct */
#endif
}

uint32_t wren_node_random(struct wren_node *node)
{
    uint64_t x = node->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    node->rng = x;
    return (uint32_t)((x * 0x2545f4914f6cdd1dull) >> 32);
}

uint32_t wren_us_to_s(uint64_t us)
{
    /* 10^6 = 2^6 * 15625: shift, then long division 16 bits at a time (the
     * remainder stays below 15625, so each step fits 32 bits); the quotient
     * is kept modulo 2^32, as the cast of a 64-bit quotient would */
    uint64_t t = us >> 6;
    uint32_t q = 0, r = 0;
    for (int s = 48; s >= 0; s -= 16) {
        r = (r << 16) | (uint32_t)((t >> s) & 0xffffu);
        q = (q << 16) | (r / 15625u);
        r %= 15625u;
    }
    return q;
}

uint32_t wren_node_random_below(struct wren_node *node, uint32_t n)
{
    /* Lemire's multiply-shift; the bias is below 2^-32 * n, fine here */
    return (uint32_t)(((uint64_t)wren_node_random(node) * n) >> 32);
}

/**
 * @file stack.h
 * @brief Assembling a node from a description: its interfaces (a device
 *        and the link layer that frames for it) and the modules it runs.
 *
 * Every runtime builds nodes this way — the simulator, wren-node, the
 * Cortex-M images, the tests and the benchmarks — so a module's wiring
 * (init order, which interfaces it serves, one instance per interface)
 * lives in its declaration (struct wren_module_ops), not in each program.
 *
 *     static const struct wren_stack_iface ifs[] = {
 *         { .link = &wren_link_ieee802154, .dev = &radio.netdev },
 *     };
 *     static const struct wren_module_ops *const mods[] = {
 *         &wren_sixlowpan_module, &wren_ipv6_module, &wren_icmpv6_module,
 *         &wren_udp_module,
 *     };
 *     static const struct wren_stack_desc desc = WREN_STACK_DESC(ifs, mods);
 *     static _Alignas(8) uint8_t pool[4096];   // wren_stack_pool_size(NULL, &desc)
 *     res = wren_stack_build(&node, &desc, pool, sizeof(pool), NULL);
 *
 * Interfaces are added first, in order (ids 1, 2, ...); then each module in
 * order: once per node, or once per interface of its link type (the 6LoWPAN
 * NIB on each 802.15.4 interface, Ethernet ND on each Ethernet one); a
 * module whose link type no interface has is left out (a TAP-only node runs
 * no 6LoWPAN). Modules see every interface the node has, also those an
 * earlier build added: a node can be built in steps (interfaces, then
 * options such as an address set on them, then the modules). State comes from @p pool (zeroed, 8-byte aligned pieces)
 * unless the description gives it (Cortex-M images give one global per
 * module, so the linker map charges RAM by module).
 *
 * Afterwards, options are set the netapi way (SET on the module found with
 * wren_stack_module()), and what every module counts is read with
 * wren_stack_counters().
 */
#ifndef WREN_STACK_STACK_H
#define WREN_STACK_STACK_H

#include <stddef.h>
#include <stdint.h>

#include "core/counters.h"
#include "core/module.h"

struct wren_node;
struct wren_netdev;

/** A link layer, as the assembly adds it (its .c file defines one). */
struct wren_link_def {
    const char *name;
    uint16_t size;  /**< bytes of its interface state */
    uint8_t type;   /**< enum wren_netdev_type it frames for */
    /** Add interface @p state over @p dev. @return its id (> 0) or -errno. */
    int (*add)(struct wren_node *node, void *state, struct wren_netdev *dev);
};

/** One interface of a node. */
struct wren_stack_iface {
    const struct wren_link_def *link;
    struct wren_netdev *dev;
    void *state;    /**< the link layer's state, or NULL: from the pool */
};

/** A node's description. */
struct wren_stack_desc {
    const struct wren_stack_iface *ifaces;
    const struct wren_module_ops *const *mods;
    void *const *states; /**< per module: its state (a per-interface module's on its first
                              interface), or NULL: from the pool; may be NULL */
    uint8_t n_ifaces;
    uint8_t n_mods;
};

#define WREN_STACK_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
/** A description of the interfaces array @p ifs and the modules array @p mods. */
#define WREN_STACK_DESC(if_array, mod_array)                                            \
    {                                                                                   \
        .ifaces = (if_array), .mods = (mod_array),                                      \
        .n_ifaces = WREN_STACK_ARRAY_LEN(if_array),                                     \
        .n_mods = WREN_STACK_ARRAY_LEN(mod_array),                                      \
    }

/** Modules made, when the caller wants to find them again. */
#ifndef CONFIG_WREN_STACK_MODULES
#define CONFIG_WREN_STACK_MODULES 16
#endif
struct wren_stack {
    struct {
        struct wren_module *m;
        uint8_t if_id;
    } made[CONFIG_WREN_STACK_MODULES];
    uint8_t n;
    const struct wren_module_ops *failed; /**< the module whose init refused, or NULL */
};

/** @brief Bytes of pool @p d needs on @p node (its interfaces so far, or
 *         NULL for none), every piece rounded up to 8 bytes. */
size_t wren_stack_pool_size(const struct wren_node *node, const struct wren_stack_desc *d);

/**
 * @brief Build @p d on @p node (initialised, without interfaces).
 * @param[in]  pool  zeroed memory for the state the description does not
 *                   give, 8-byte aligned, owned by the caller for the
 *                   node's life; may be NULL when @p len is 0
 * @param[out] out   where to record the modules made, or NULL
 * @return 0; -ENOMEM if @p pool is too small, -ENOSPC if @p out is full;
 *         or the first -errno of an interface or module (what was made
 *         before it stays made).
 */
int wren_stack_build(struct wren_node *node, const struct wren_stack_desc *d, void *pool,
                     size_t len, struct wren_stack *out);

/** @brief The module made from @p def (on interface @p if_id, 0: any) in
 *         @p st, or NULL. */
struct wren_module *wren_stack_module(const struct wren_stack *st,
                                      const struct wren_module_ops *def, uint8_t if_id);

/**
 * @brief Call @p fn for every module of @p node that counts something or
 *        has shell commands (each once, in registration order), found
 *        through netreg: modules made by the assembly and any others.
 */
void wren_stack_foreach_module(struct wren_node *node,
                               void (*fn)(void *ctx, struct wren_module *m), void *ctx);

/**
 * @brief Visit every counter set of @p node: the packet buffer and the
 *        scheduler, each interface (its netif, link-layer and device sets),
 *        then each module. @p values holds the set's counters (uint32_t or
 *        uint64_t per set->width) as read by GET set->opt; @p if_id is the
 *        interface of a per-interface set, else 0; @p suffix is "" for the
 *        node's first instance of a set and "<id>" for further interfaces'
 *        ("netif2", "nib2"), so names stay unique.
 */
typedef void (*wren_counter_fn)(void *ctx, const struct wren_counter_set *set,
                                const char *suffix, const void *values);
void wren_stack_counters(struct wren_node *node, wren_counter_fn fn, void *ctx);

/** @brief Counter @p i of @p set in @p values, widened. */
uint64_t wren_counter_value(const struct wren_counter_set *set, const void *values, unsigned i);

/**
 * @brief Look one counter up by its full name ("6lowpan.frag_drop_hdr",
 *        "netif2.rx_frames"); for tests and tools.
 * @return 0 and *@p value, or -ENOENT.
 */
int wren_stack_counter(struct wren_node *node, const char *name, uint64_t *value);

#endif

/**
 * @file module.h
 * @brief A module: one protocol layer or application inside a node.
 *
 * A module is what netapi messages are addressed to. It has an event handler
 * (SND, RCV, ISR and its own message types) and synchronous GET/SET on
 * netopt keys, whose return value is the ACK: a length or a negative errno.
 * Modules never call each other's functions or read each other's state.
 */
#ifndef WREN_CORE_MODULE_H
#define WREN_CORE_MODULE_H

#include <stddef.h>
#include <stdint.h>

struct wren_node;
struct wren_module;
struct wren_msg;

struct wren_module_ops {
    const char *name;
    /** Handle a queued message; owns any packet it carries. */
    void (*handle)(struct wren_node *node, struct wren_module *self,
                   const struct wren_msg *msg);
    /** Read option @p opt into @p val; return its length or -errno. */
    int (*get)(struct wren_node *node, struct wren_module *self, uint16_t opt,
               uint16_t ctx, void *val, size_t max);
    /** Write option @p opt from @p val; return 0/length or -errno. */
    int (*set)(struct wren_node *node, struct wren_module *self, uint16_t opt,
               uint16_t ctx, const void *val, size_t len);
};

struct wren_module {
    const struct wren_module_ops *ops;
    struct wren_module *sig_next; /**< the scheduler's list of signalled modules */
    uint8_t prio;                 /**< enum wren_prio */
    uint8_t signalled;            /**< a WREN_MSG_SIGNAL is pending */
};

#endif

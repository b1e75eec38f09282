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
struct wren_counter_set;
struct wren_shell_cmd;

/**
 * A module declares itself once, in one of these (designated initializers,
 * in its own .c file): its message handler and netopt GET/SET, and how the
 * stack assembly (src/stack/stack.h) makes it — the size of its state, its
 * init, which interfaces it needs — with what it counts and its shell
 * commands. Modules made at run time (sockets, applications) fill only the
 * first four members.
 */
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

    /** Start the module in zeroed state @p self (its struct, whose first
     *  member is the struct wren_module), on interface @p if_id if it runs
     *  per interface (else 0). @return 0 or -errno. */
    int (*init)(struct wren_node *node, struct wren_module *self, uint8_t if_id);
    uint16_t size;       /**< bytes of its state */
    uint8_t link;        /**< 0, or the enum wren_netdev_type its interface(s) must have
                              (without one the assembly leaves the module out) */
    uint8_t per_if;      /**< one instance per such interface */
    /** What it counts (src/core/counters.h), or NULL. */
    const struct wren_counter_set *counters;
    /** Its shell commands (src/shell/shell.h), ended by a NULL name, or NULL. */
    const struct wren_shell_cmd *cmds;
};

struct wren_module {
    const struct wren_module_ops *ops;
    struct wren_module *sig_next; /**< the scheduler's list of signalled modules */
    uint8_t prio;                 /**< enum wren_prio */
    uint8_t signalled;            /**< a WREN_MSG_SIGNAL is pending */
};

#endif

/**
 * @file sched.h
 * @brief A node's message queue: netapi messages to module handlers, run to
 *        completion, most urgent priority first, FIFO within a priority.
 *
 * All stack layers of a node share one stack (the runtime's); a layer costs
 * a handler and a queue slot per in-flight message, not a thread. The queue
 * is a fixed pool of CONFIG_WREN_SCHED_QUEUE_LEN slots: when it is full a
 * post fails with -ENOBUFS and the caller drops (and counts) the packet.
 */
#ifndef WREN_CORE_SCHED_H
#define WREN_CORE_SCHED_H

#include <stdint.h>

#include "core/config.h"

struct wren_node;
struct wren_module;

/** Message types. Values below WREN_MSG_USER belong to netapi. */
enum wren_msg_type {
    WREN_MSG_SND = 1, /**< packet going down the stack (ptr: packet) */
    WREN_MSG_RCV,     /**< packet going up the stack (ptr: packet) */
    WREN_MSG_SIGNAL,  /**< the module was signalled (wren_sched_signal) */
    WREN_MSG_USER = 0x100, /**< first type free for modules */
};

struct wren_msg {
    uint16_t type;
    uint16_t arg;       /**< small argument, meaning set by the type */
    void *ptr;          /**< packet, device or module-specific pointer */
};

/** Priority levels a module may use. */
enum wren_prio {
    WREN_PRIO_LINK = 0,  /**< driver events and link layers */
    WREN_PRIO_NET = 1,   /**< network and transport layers */
    WREN_PRIO_APP = 2,   /**< applications */
};
_Static_assert(WREN_PRIO_APP < CONFIG_WREN_SCHED_PRIOS, "need three priorities");

struct wren_sched_slot {
    struct wren_msg msg;
    struct wren_module *dst;
};

struct wren_sched {
    /* the small fields first: short offsets make short instructions */
    struct wren_module *sig_head; /**< signalled modules, in order */
    struct wren_module *sig_tail;
    uint32_t full_drops;   /**< posts refused because the queue was full */
    uint8_t free;          /**< free list head */
    uint8_t used;          /**< slots in use */
    uint8_t high_water;    /**< most slots ever in use */
    uint8_t running;       /**< wren_sched_run() is delivering: posts need not
                                tell the runtime, the run goes on until empty */
    uint8_t head[CONFIG_WREN_SCHED_PRIOS];
    uint8_t tail[CONFIG_WREN_SCHED_PRIOS];
    /** index of the slot after each slot (0xff: none); apart from the slots
     *  so that a slot has no padding (12 bytes on 32-bit targets) */
    uint8_t next[CONFIG_WREN_SCHED_QUEUE_LEN];
    struct wren_sched_slot slot[CONFIG_WREN_SCHED_QUEUE_LEN];
};

/** @brief Empty the queue. */
void wren_sched_init(struct wren_sched *s);

/**
 * @brief Queue @p msg for @p dst at dst's priority and tell the runtime.
 * @return 0, or -ENOBUFS if the queue is full (the message is not queued;
 *         the caller still owns whatever msg->ptr refers to).
 */
int wren_sched_post(struct wren_node *node, struct wren_module *dst,
                    const struct wren_msg *msg);

/**
 * @brief Signal @p dst: it gets one WREN_MSG_SIGNAL before any queued
 *        message, however many times it is signalled until then. Never
 *        fails, so an interrupt can never be lost to a full queue.
 */
void wren_sched_signal(struct wren_node *node, struct wren_module *dst);

/**
 * @brief Deliver queued messages, most urgent first, until the queue is empty.
 * @return number of messages delivered.
 */
unsigned wren_sched_run(struct wren_node *node);

#endif

/**
 * @file counters.h
 * @brief Counters listed once: each module names its counters in one
 *        X-macro list, and everything else is generated from it.
 *
 *     #define WREN_UDP_COUNTERS(C)             \
 *         C(rx)                                \
 *         C(rx_drop_csum) // checksum wrong    (comments: use block comments)
 *     struct wren_udp_stats { WREN_UDP_COUNTERS(WREN_COUNTER_U32) };
 *     static const struct wren_counter_set udp_counters =
 *         WREN_COUNTER_SET("udp", WREN_UDP_COUNTERS, WREN_NETOPT_STATS, uint32_t);
 *
 * The struct (the module's storage and the value of its netopt GET), the
 * names that the shell's `stats`, the simulator's JSON result and the C
 * test helpers print or look up (src/stack/stack.h: wren_stack_counters)
 * all come from that one list, so a counter cannot exist without being
 * shown. With CONFIG_WREN_COUNTER_NAMES 0 (a device without a shell) the
 * names are not linked; the counters still count and GET still reads them.
 */
#ifndef WREN_CORE_COUNTERS_H
#define WREN_CORE_COUNTERS_H

#include <stdint.h>

/** Keep counter names in the image (for the shell, JSON results, tests). */
#ifndef CONFIG_WREN_COUNTER_NAMES
#define CONFIG_WREN_COUNTER_NAMES 1
#endif

/** One counter set: what one module (or link layer, or device) counts. */
struct wren_counter_set {
    const char *name;         /**< prefix of its names: "udp", "6lowpan", "mac", ... */
    const char *const *names; /**< counter names in struct order; NULL without names */
    uint16_t opt;             /**< the netopt key whose GET answers the struct */
    uint8_t n;                /**< number of counters */
    uint8_t width;            /**< bytes per counter: 4 or 8 */
};

/** List expanders: struct members, names, count. */
#define WREN_COUNTER_U32(name) uint32_t name;
#define WREN_COUNTER_U64(name) uint64_t name;
#define WREN_COUNTER_STR(name) #name,
#define WREN_COUNTER_ONE(name) +1

#if CONFIG_WREN_COUNTER_NAMES
#define WREN_COUNTER_NAMES_OF(list) ((const char *const[]){ list(WREN_COUNTER_STR) })
#else
#define WREN_COUNTER_NAMES_OF(list) NULL
#endif

/** @p x where counter names exist, else NULL (a module's .counters). */
#if CONFIG_WREN_COUNTER_NAMES
#define WREN_IF_NAMES(x) (x)
#else
#define WREN_IF_NAMES(x) (sizeof(x) ? NULL : NULL) /* "uses" x: no unused warning */
#endif

/** Number of counters in @p list (an integer constant expression). */
#define WREN_COUNTER_COUNT(list) (0 list(WREN_COUNTER_ONE))

/** Initializer of a struct wren_counter_set for @p list, read with GET @p key,
 *  each counter of type @p type (uint32_t or uint64_t). */
#define WREN_COUNTER_SET(set_name, list, key, type)                                    \
    {                                                                                  \
        .name = set_name, .names = WREN_COUNTER_NAMES_OF(list), .opt = (key),          \
        .n = WREN_COUNTER_COUNT(list), .width = sizeof(type),                          \
    }

#endif

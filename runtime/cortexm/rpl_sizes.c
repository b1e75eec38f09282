/* The Cortex-M3 sizes of RPL's state, for ./wren size (ram_rpl_bytes): the
 * module's state with the default configuration, one candidate parent, one
 * route. Each array is as long as the struct it names, so the object's
 * symbol table (arm-none-eabi-nm -S) gives the sizes. Compiled into an
 * object library of its own, never linked into an image. */
#include <stdint.h>

#include "rpl/rpl.h"

const uint8_t wren_size_rpl_state[sizeof(struct wren_rpl)] = { 0 };
const uint8_t wren_size_rpl_parent[sizeof(struct wren_rpl_parent)] = { 0 };
const uint8_t wren_size_rpl_route[sizeof(struct wren_rpl_route)] = { 0 };
const uint8_t wren_size_rpl_parents[CONFIG_WREN_RPL_PARENTS] = { 0 };
const uint8_t wren_size_rpl_routes[CONFIG_WREN_RPL_ROUTES ? CONFIG_WREN_RPL_ROUTES : 1] = { 0 };

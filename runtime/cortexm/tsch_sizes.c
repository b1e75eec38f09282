/* The Cortex-M3 sizes of TSCH's state, for ./wren size (ram_tsch_bytes):
 * the MAC's state of one interface with the default configuration (cells,
 * slotframes, neighbour queues). Each array is as long as the struct it
 * names, so the object's symbol table (arm-none-eabi-nm -S) gives the
 * sizes. Compiled into an object library of its own, never linked. */
#include <stdint.h>

#include "mac/tsch/tsch.h"

const uint8_t wren_size_tsch_state[sizeof(struct wren_tsch)] = { 0 };
const uint8_t wren_size_tsch_cells[CONFIG_WREN_TSCH_CELLS] = { 0 };
const uint8_t wren_size_tsch_nbrs[CONFIG_WREN_TSCH_NBRS] = { 0 };
const uint8_t wren_size_tsch_queue_len[CONFIG_WREN_TSCH_QUEUE_LEN] = { 0 };

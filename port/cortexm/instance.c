/* The one node of a Cortex-M3 image and everything it owns: this object's
 * .bss is the per-node RAM of the stack, reported apart from the code. */
#include "instance.h"

struct wren_instance wren_instance;
_Alignas(8) uint8_t wren_instance_arena[CONFIG_WREN_PKTBUF_SIZE];

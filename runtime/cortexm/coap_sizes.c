/* The Cortex-M3 sizes of CoAP's per-observer and per-exchange state, for
 * ./wren size (ram_coap_bytes_per_*): each array is as long as the struct it
 * names, so the object's symbol table (arm-none-eabi-nm -S) gives the sizes.
 * Compiled into an object library of its own, never linked into an image. */
#include <stdint.h>

#include "coap/coap.h"

const uint8_t wren_size_coap_observer[sizeof(struct wren_coap_observer)] = { 0 };
const uint8_t wren_size_coap_xchg[sizeof(struct wren_coap_xchg)] = { 0 };
const uint8_t wren_size_coap_dedup[sizeof(struct wren_coap_dedup)] = { 0 };
const uint8_t wren_size_coap_block1[sizeof(struct wren_coap_block1)] = { 0 };

/* The UDP payload sizes the Cortex-M3 UDP images measure, one phase each:
 * every size the reproduce figures use (python/wren/reproduce/core.py
 * _sizes: 20, 48..1232 step 48, 1000, 1232; quick: 100, 200, 500 too), so
 * that one qemu run of an image measures all of them. Ascending. */
#ifndef WREN_PORT_UDP_SIZES_H
#define WREN_PORT_UDP_SIZES_H

#include <stdio.h>

#define WREN_UDP_SIZES                                                                        \
    20, 48, 96, 100, 144, 192, 200, 240, 288, 336, 384, 432, 480, 500, 528, 576, 624, 672, 720, \
        768, 816, 864, 912, 960, 1000, 1008, 1056, 1104, 1152, 1200, 1232
#define WREN_UDP_SIZE_MAX 1232

/* The sizes, in the order of the image's measured phases (the line
 * python/wren/qemu_bench.py reads). */
static inline void wren_udp_sizes_print(const unsigned *sizes, unsigned n)
{
    printf("sizes:");
    for (unsigned i = 0; i < n; i++) {
        printf(" %u", sizes[i]);
    }
    printf("\n");
}

#endif

/* For the fuzz targets that run a simulated node: every module of the
 * stack's list, the opt-in ones (the CoAP plugtest) too, so the fuzzer
 * reaches their code (a simulated node runs only the default ones). */
#ifndef WREN_FUZZ_MODULES_H
#define WREN_FUZZ_MODULES_H

#include <stdio.h>
#include <stdlib.h>

#include "sim/sim.h"

static inline void fuzz_every_module(struct wren_sim *s)
{
    char names[512];
    size_t n = 0;
    names[0] = 0;
    for (uint32_t i = 0; wren_sim_module_name(i) != NULL; i++) {
        int w = snprintf(names + n, sizeof(names) - n, "%s ", wren_sim_module_name(i));
        if (w < 0 || (size_t)w >= sizeof(names) - n) {
            abort();
        }
        n += (size_t)w;
    }
    if (wren_sim_set_modules(s, names) != 0) {
        abort();
    }
}

#endif

/* The module list by name (src/stack/modules.h), for runtimes that take a
 * node's modules from a user: the simulator's scenarios, tools. Firmware
 * that names its modules in C does not link this. */
#include "stack/modules.h"

#include <string.h>

#define MODULE_PTR(name) &wren_##name##_module,
static const struct wren_module_ops *const all[] = { WREN_STACK_MODULES(MODULE_PTR) };
#define MODULE_NAME(name) #name,
static const char *const names[] = { WREN_STACK_MODULES(MODULE_NAME) };

const struct wren_module_ops *wren_stack_module_named(const char *name)
{
    for (unsigned i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
        if (strcmp(names[i], name) == 0) {
            return all[i];
        }
    }
    return NULL;
}

const char *wren_stack_module_name(unsigned i)
{
    return i < sizeof(names) / sizeof(names[0]) ? names[i] : NULL;
}

/* The module list by name (src/stack/modules.h), for runtimes that take a
 * node's modules from a user: the simulator's scenarios, tools. Firmware
 * that names its modules in C does not link this. */
#include "stack/modules.h"

#include <errno.h>
#include <stdio.h>
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

int wren_stack_modules_named(const char *list, const struct wren_module_ops **mods,
                             unsigned max, char *bad, size_t bad_len)
{
    unsigned n = 0;
    for (const char *p = list ? list : ""; *p;) {
        size_t len = strcspn(p, " ,\t");
        if (len) {
            char name[32];
            snprintf(name, sizeof(name), "%.*s", (int)len, p);
            const struct wren_module_ops *m = len < sizeof(name) ? wren_stack_module_named(name)
                                                                  : NULL;
            if (m == NULL || n == max) {
                if (bad_len) {
                    snprintf(bad, bad_len, "%.*s", (int)len, p);
                }
                return m == NULL ? -ENOENT : -E2BIG;
            }
            mods[n++] = m;
        }
        p += len + (p[len] != 0);
    }
    return (int)n;
}

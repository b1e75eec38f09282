#include "ipv6/fib.h"

#include <errno.h>
#include <string.h>

#include "wire/ipv6.h"

void wren_fib_init(struct wren_fib *fib)
{
    memset(fib, 0, sizeof(*fib));
}

static struct wren_fib_entry *find(struct wren_fib *fib, const uint8_t *prefix, uint8_t len)
{
    for (unsigned i = 0; i < CONFIG_WREN_FIB_ENTRIES; i++) {
        struct wren_fib_entry *e = &fib->e[i];
        if (e->if_id && e->prefix_len == len && wren_ipv6_prefix_equal(e->prefix, prefix, len)) {
            return e;
        }
    }
    return NULL;
}

int wren_fib_add(struct wren_fib *fib, const struct wren_fib_entry *r)
{
    if (r->prefix_len > 128 || r->if_id == 0) {
        return -EINVAL;
    }
    struct wren_fib_entry *e = find(fib, r->prefix, r->prefix_len);
    for (unsigned i = 0; e == NULL && i < CONFIG_WREN_FIB_ENTRIES; i++) {
        if (fib->e[i].if_id == 0) {
            e = &fib->e[i];
        }
    }
    if (e == NULL) {
        return -ENOSPC;
    }
    *e = *r;
    return 0;
}

int wren_fib_del(struct wren_fib *fib, const uint8_t *prefix, uint8_t len)
{
    struct wren_fib_entry *e = find(fib, prefix, len);
    if (e == NULL) {
        return -ENOENT;
    }
    memset(e, 0, sizeof(*e));
    return 0;
}

const struct wren_fib_entry *wren_fib_lookup(const struct wren_fib *fib, const uint8_t *dst)
{
    const struct wren_fib_entry *best = NULL;
    for (unsigned i = 0; i < CONFIG_WREN_FIB_ENTRIES; i++) {
        const struct wren_fib_entry *e = &fib->e[i];
        if (e->if_id && (best == NULL || e->prefix_len > best->prefix_len) &&
            wren_ipv6_prefix_equal(e->prefix, dst, e->prefix_len)) {
            best = e;
        }
    }
    return best;
}

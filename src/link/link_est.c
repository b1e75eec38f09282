#include "link/link_est.h"

#include <errno.h>
#include <string.h>

static struct wren_link_est_entry *find(struct wren_link_est *est, const uint8_t *addr,
                                        uint8_t len)
{
    for (unsigned i = 0; i < CONFIG_WREN_LINK_EST_NEIGHBORS; i++) {
        struct wren_link_est_entry *e = &est->e[i];
        if (e->len == len && memcmp(e->addr, addr, len) == 0) {
            return e;
        }
    }
    return NULL;
}

void wren_link_est_tx(struct wren_link_est *est, const uint8_t *addr, uint8_t len,
                      uint8_t attempts, bool acked)
{
    if (len == 0 || len > 8) {
        return;
    }
    uint32_t sample = acked ? (uint32_t)attempts * WREN_LINK_ETX_ONE : WREN_LINK_ETX_NOACK;
    struct wren_link_est_entry *e = find(est, addr, len);
    est->clock++;
    if (e == NULL) {
        /* a free entry, else the one updated longest ago */
        e = &est->e[0];
        for (unsigned i = 0; i < CONFIG_WREN_LINK_EST_NEIGHBORS; i++) {
            struct wren_link_est_entry *c = &est->e[i];
            if (c->len == 0) {
                e = c;
                break;
            }
            if ((uint16_t)(est->clock - c->used) > (uint16_t)(est->clock - e->used)) {
                e = c;
            }
        }
        memset(e, 0, sizeof(*e));
        memcpy(e->addr, addr, len);
        e->len = len;
        e->etx = WREN_LINK_ETX_INIT;
    }
    e->etx = (uint16_t)((7u * e->etx + sample) / 8u);
    if (e->samples < 255) {
        e->samples++;
    }
    e->used = est->clock;
}

int wren_link_est_get(const struct wren_link_est *est, struct wren_link_etx *q)
{
    if (q->len == 0 || q->len > 8) {
        return -ENOENT;
    }
    const struct wren_link_est_entry *e = find((struct wren_link_est *)est, q->addr, q->len);
    if (e == NULL) {
        return -ENOENT;
    }
    q->samples = e->samples;
    memcpy(q->etx, &e->etx, 2);
    return 0;
}

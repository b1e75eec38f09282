#include "sim/grid.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void wren_sim_grid_init(struct wren_sim_grid *g)
{
    memset(g, 0, sizeof(*g));
}

void wren_sim_grid_destroy(struct wren_sim_grid *g)
{
    free(g->head);
    free(g->next);
    free(g->cellxyz);
    free(g->found);
    wren_sim_grid_init(g);
}

/* the cell of one coordinate; far-out (and NaN) coordinates share the edge
 * cells, which only makes queries there return more */
static int32_t cell_of(double v, double cell)
{
    double c = floor(v / cell);
    if (!(c >= -1e9)) {
        return -1000000000;
    }
    return c > 1e9 ? 1000000000 : (int32_t)c;
}

static uint32_t bucket_of(const struct wren_sim_grid *g, const int32_t c[3])
{
    uint32_t h = (uint32_t)c[0] * 73856093u ^ (uint32_t)c[1] * 19349663u ^
                 (uint32_t)c[2] * 83492791u;
    h ^= h >> 15;
    return h & (g->n_buckets - 1);
}

static void link_in(struct wren_sim_grid *g, uint32_t i)
{
    uint32_t b = bucket_of(g, g->cellxyz[i]);
    g->next[i] = g->head[b];
    g->head[b] = i + 1;
}

/* about a bucket per radio: chains stay short */
static int rehash(struct wren_sim_grid *g, uint32_t want)
{
    uint32_t nb = 64;
    while (nb < want && nb < (1u << 30)) {
        nb *= 2;
    }
    uint32_t *h = calloc(nb, sizeof(*h));
    if (h == NULL) {
        return -ENOMEM;
    }
    free(g->head);
    g->head = h;
    g->n_buckets = nb;
    for (uint32_t i = 0; i < g->n; i++) {
        link_in(g, i);
    }
    return 0;
}

static int grow(struct wren_sim_grid *g)
{
    uint32_t cap = g->cap ? g->cap * 2 : 64;
    uint32_t *nx = realloc(g->next, cap * sizeof(*nx));
    if (nx == NULL) {
        return -ENOMEM;
    }
    g->next = nx;
    int32_t(*c)[3] = realloc(g->cellxyz, cap * sizeof(*c));
    if (c == NULL) {
        return -ENOMEM;
    }
    g->cellxyz = c;
    g->cap = cap;
    return 0;
}

int wren_sim_grid_add(struct wren_sim_grid *g, const double xyz[3])
{
    if (g->n == g->cap && grow(g) < 0) {
        return -ENOMEM;
    }
    uint32_t i = g->n++;
    for (int k = 0; k < 3; k++) {
        g->cellxyz[i][k] = g->cell > 0 ? cell_of(xyz[k], g->cell) : 0;
    }
    if (g->n > g->n_buckets) {
        /* a bigger table; rehash files the new radio too */
        if (rehash(g, g->n * 2) < 0) {
            g->n--;
            return -ENOMEM;
        }
        return 0;
    }
    link_in(g, i);
    return 0;
}

int wren_sim_grid_set_reach(struct wren_sim_grid *g, double reach,
                            void (*pos)(void *ctx, uint32_t i, double xyz[3]), void *ctx)
{
    if (reach == g->reach && g->cell > 0) {
        return 0;
    }
    g->reach = reach;
    g->cell = reach * 1.001;
    uint32_t n = g->n;
    for (uint32_t i = 0; i < n; i++) {
        double xyz[3];
        pos(ctx, i, xyz);
        for (int k = 0; k < 3; k++) {
            g->cellxyz[i][k] = cell_of(xyz[k], g->cell);
        }
    }
    return rehash(g, n * 2);
}

static int put_found(struct wren_sim_grid *g, uint32_t i)
{
    if (g->n_found == g->cap_found) {
        uint32_t cap = g->cap_found ? g->cap_found * 2 : 64;
        uint32_t *f = realloc(g->found, cap * sizeof(*f));
        if (f == NULL) {
            return -ENOMEM;
        }
        g->found = f;
        g->cap_found = cap;
    }
    g->found[g->n_found++] = i;
    return 0;
}

/* the radios in cell @p c */
static int gather(struct wren_sim_grid *g, const int32_t c[3])
{
    for (uint32_t i = g->head[bucket_of(g, c)]; i; i = g->next[i - 1]) {
        const int32_t *o = g->cellxyz[i - 1];
        if (o[0] == c[0] && o[1] == c[1] && o[2] == c[2] && put_found(g, i - 1) < 0) {
            return -ENOMEM;
        }
    }
    return 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

int wren_sim_grid_near(struct wren_sim_grid *g, const double xyz[3])
{
    g->n_found = 0;
    if (g->n == 0) {
        return 0;
    }
    int32_t c0[3];
    for (int k = 0; k < 3; k++) {
        c0[k] = cell_of(xyz[k], g->cell);
    }
    for (int dx = -1; dx <= 1; dx++) {
        for (int dy = -1; dy <= 1; dy++) {
            for (int dz = -1; dz <= 1; dz++) {
                int32_t c[3] = { c0[0] + dx, c0[1] + dy, c0[2] + dz };
                if (gather(g, c) < 0) {
                    return -ENOMEM;
                }
            }
        }
    }
    if (g->n_found > 1) {
        qsort(g->found, g->n_found, sizeof(*g->found), cmp_u32);
    }
    return 0;
}

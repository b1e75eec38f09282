/**
 * @file grid.h
 * @brief A uniform grid of cubic cells over the radios' positions: which
 *        radios may lie within a distance of a point, without looking at
 *        every radio.
 *
 * Radios are numbered 0..n-1 in the order they were added (a medium's
 * indices). Each sits in the cell floor(x / cell), floor(y / cell),
 * floor(z / cell); cells live in a hash table (the field's extent is not
 * known in advance) and each bucket chains its radios. The cell edge is the
 * reach asked for plus 0.1 %, so two points within the reach are at most one
 * cell apart on every axis even after rounding (x / cell of two points a
 * reach apart cannot then differ by 2): the 27 cells around a point hold
 * every radio within the reach. A query returns a superset of the radios
 * within the reach, in ascending index order; the caller measures the
 * distance itself.
 *
 * Memory: 16 bytes per radio plus 4 per bucket (a bucket per radio at most).
 */
#ifndef WREN_SIM_GRID_H
#define WREN_SIM_GRID_H

#include <stdbool.h>
#include <stdint.h>

struct wren_sim_grid {
    double cell;       /**< cell edge, metres (0: empty grid) */
    double reach;      /**< the reach it was built for */
    uint32_t *head;    /**< per bucket: first radio + 1, 0: empty */
    uint32_t n_buckets; /**< a power of two */
    uint32_t *next;    /**< per radio: next radio in its bucket + 1 */
    int32_t (*cellxyz)[3]; /**< per radio: its cell */
    uint32_t n;        /**< radios in the grid */
    uint32_t cap;
    uint32_t *found;   /**< a query's answer */
    uint32_t n_found;
    uint32_t cap_found;
};

/** @brief An empty grid (no memory held). */
void wren_sim_grid_init(struct wren_sim_grid *g);
/** @brief Free the grid's memory; it is empty again. */
void wren_sim_grid_destroy(struct wren_sim_grid *g);

/**
 * @brief Set the reach (metres, > 0) of later queries. A different reach
 *        re-files every radio into cells of the new size, reading radio i's
 *        coordinates through @p pos(@p ctx, i, xyz).
 * @return 0 or -ENOMEM (the grid is then empty).
 */
int wren_sim_grid_set_reach(struct wren_sim_grid *g, double reach,
                            void (*pos)(void *ctx, uint32_t i, double xyz[3]), void *ctx);

/** @brief File radio number g->n (the next index) at @p xyz.
 *  @return 0 or -ENOMEM. */
int wren_sim_grid_add(struct wren_sim_grid *g, const double xyz[3]);

/**
 * @brief Every radio filed so far that may lie within the reach of @p xyz,
 *        in ascending index order, into g->found[0..g->n_found).
 * @return 0 or -ENOMEM.
 */
int wren_sim_grid_near(struct wren_sim_grid *g, const double xyz[3]);

#endif

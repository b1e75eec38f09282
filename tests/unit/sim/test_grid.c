/* The medium's spatial index (runtime/sim/grid.h): the links it makes are
 * exactly those a scan of every pair makes, in the same order, on random
 * fields, at cell edges, across a change of range and with path loss. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "sim/grid.h"
#include "sim/medium.h"

struct field {
    struct wren_world w;
    struct wren_medium m;
    struct wren_sim_radio *r;
    double (*xyz)[3];
    uint32_t n;
};

static uint64_t rng_state;

static double uniform(double lo, double hi)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * (double)(rng_state >> 11) / 9007199254740992.0;
}

static void field_init(struct field *f, uint32_t n)
{
    wren_world_init(&f->w, 1);
    wren_medium_init(&f->m, &f->w);
    f->r = calloc(n, sizeof(*f->r));
    f->xyz = calloc(n, sizeof(*f->xyz));
    CHECK(f->r != NULL && f->xyz != NULL);
    f->n = 0;
}

static void field_add(struct field *f, double x, double y, double z)
{
    f->xyz[f->n][0] = x;
    f->xyz[f->n][1] = y;
    f->xyz[f->n][2] = z;
    CHECK_EQ(wren_medium_add_radio(&f->m, &f->r[f->n], x, y, z), (int)f->n);
    f->n++;
}

static void field_done(struct field *f)
{
    wren_medium_destroy(&f->m);
    wren_world_destroy(&f->w);
    free(f->r);
    free(f->xyz);
}

static double dist(const struct field *f, uint32_t a, uint32_t b)
{
    double dx = f->xyz[a][0] - f->xyz[b][0], dy = f->xyz[a][1] - f->xyz[b][1],
           dz = f->xyz[a][2] - f->xyz[b][2];
    return sqrt(dx * dx + dy * dy + dz * dz);
}

/* the scan of every pair: radio a's links are to the radios b, in
 * ascending order, for which linked(a, b) */
static void check_links(const struct field *f, bool (*linked)(const struct field *, uint32_t,
                                                               uint32_t))
{
    uint64_t total = 0;
    for (uint32_t a = 0; a < f->n; a++) {
        const struct wren_sim_radio *r = &f->r[a];
        uint32_t k = 0;
        for (uint32_t b = 0; b < f->n; b++) {
            if (b == a || !linked(f, a, b)) {
                continue;
            }
            if (k >= r->n_links || r->links[k].to != b) {
                print_error("radio %u: link %u should be to %u\n", a, k, b);
            }
            CHECK(k < r->n_links);
            CHECK_EQ(r->links[k].to, b);
            k++;
        }
        CHECK_EQ(r->n_links, k);
        total += k;
    }
    CHECK(total > 0);
}

static double range_now;

static bool within_range(const struct field *f, uint32_t a, uint32_t b)
{
    return dist(f, a, b) <= range_now;
}

TEST(test_grid__random_field_links_as_a_scan_of_every_pair)
{
    for (uint64_t seed = 1; seed <= 4; seed++) {
        struct field f;
        rng_state = seed;
        field_init(&f, 1500);
        range_now = 15.0;
        wren_medium_set_range(&f.m, range_now, 1.0);
        /* ~10 neighbours each; some below 0, some off the plane */
        double side = sqrt(1500 * 3.14159 * 15.0 * 15.0 / 10.0);
        for (uint32_t i = 0; i < 1500; i++) {
            field_add(&f, uniform(-side / 2, side / 2), uniform(-side / 2, side / 2),
                      seed & 1 ? uniform(0, 20) : 0);
        }
        check_links(&f, within_range);
        field_done(&f);
    }
}

/* radios exactly one range apart across the edges of cells: on multiples of
 * the range and of the cell (range * 1.001), just below and above them */
TEST(test_grid__neighbours_across_cell_edges_are_found)
{
    struct field f;
    field_init(&f, 4000);
    range_now = 10.0;
    wren_medium_set_range(&f.m, range_now, 1.0);
    double cell = 10.0 * 1.001;
    double eps[] = { 0, 1e-9, -1e-9, 1e-6, -1e-6 };
    for (int k = -6; k <= 6; k++) {
        for (unsigned e = 0; e < sizeof(eps) / sizeof(eps[0]); e++) {
            double bases[2] = { k * cell + eps[e], k * range_now + eps[e] };
            for (int b = 0; b < 2; b++) {
                double x = bases[b];
                /* along x, along y, in z and on the diagonal */
                field_add(&f, x, 1000.0 + 40.0 * k, 0);
                field_add(&f, x + range_now, 1000.0 + 40.0 * k, 0);
                field_add(&f, 2000.0 + 40.0 * k, x, 0);
                field_add(&f, 2000.0 + 40.0 * k, x + range_now, 0);
                field_add(&f, 3000.0 + 40.0 * k, 0, x);
                field_add(&f, 3000.0 + 40.0 * k, 0, x + range_now);
                field_add(&f, x + 5000.0, x, 0);
                field_add(&f, x + 5000.0 + range_now / sqrt(2.0), x + range_now / sqrt(2.0),
                          0);
            }
        }
    }
    check_links(&f, within_range);
    /* and the pairs made one range apart are linked */
    CHECK(wren_medium_link(&f.m, 0, 1) != NULL);
    CHECK(wren_medium_link(&f.m, 2, 3) != NULL);
    CHECK(wren_medium_link(&f.m, 4, 5) != NULL);
    field_done(&f);
}

/* the first half linked within 8 m, the second within 30 m: the grid is
 * re-filed in larger cells and still finds the first half's radios */
static bool two_ranges(const struct field *f, uint32_t a, uint32_t b)
{
    uint32_t later = a > b ? a : b;
    return dist(f, a, b) <= (later < f->n / 2 ? 8.0 : 30.0);
}

TEST(test_grid__range_changed_between_radios)
{
    struct field f;
    rng_state = 9;
    field_init(&f, 1200);
    wren_medium_set_range(&f.m, 8.0, 1.0);
    for (uint32_t i = 0; i < 1200; i++) {
        if (i == 600) {
            wren_medium_set_range(&f.m, 30.0, 1.0);
        }
        field_add(&f, uniform(0, 400), uniform(0, 400), 0);
    }
    check_links(&f, two_ranges);
    field_done(&f);
}

static bool pathloss_linked(const struct field *f, uint32_t a, uint32_t b)
{
    double rssi = wren_pathloss_rssi(&f->m.pathloss, dist(f, a, b), f->m.pathloss_seed, a, b);
    return rssi - f->m.pathloss.noise_dbm >= WREN_PATHLOSS_MIN_SNR_DB;
}

/* strong shadowing (sigma 8 dB) links a few pairs far beyond the median
 * range; the grid's cells are sized for the strongest draw */
TEST(test_grid__pathloss_links_as_a_scan_of_every_pair)
{
    struct field f;
    rng_state = 3;
    field_init(&f, 800);
    struct wren_pathloss p = WREN_PATHLOSS_DEFAULTS;
    p.exponent = 4.0;
    p.sigma_db = 8.0;
    CHECK_EQ(wren_medium_set_pathloss(&f.m, &p, 77), 0);
    for (uint32_t i = 0; i < 800; i++) {
        field_add(&f, uniform(0, 6000), uniform(0, 6000), uniform(0, 30));
    }
    check_links(&f, pathloss_linked);
    field_done(&f);
}

static void pos_of(void *ctx, uint32_t i, double xyz[3])
{
    memcpy(xyz, ((const double(*)[3])ctx)[i], sizeof(double[3]));
}

/* the index alone: a query returns every radio within reach, ascending */
TEST(test_grid__query_is_a_sorted_superset)
{
    struct wren_sim_grid g;
    wren_sim_grid_init(&g);
    static double pts[3000][3];
    rng_state = 5;
    for (uint32_t i = 0; i < 3000; i++) {
        for (int k = 0; k < 3; k++) {
            pts[i][k] = k == 2 ? uniform(-5, 5) : uniform(-300, 300);
        }
        CHECK_EQ(wren_sim_grid_add(&g, pts[i]), 0);
    }
    CHECK_EQ(wren_sim_grid_set_reach(&g, 12.5, pos_of, pts), 0);
    for (uint32_t q = 0; q < 3000; q += 7) {
        CHECK_EQ(wren_sim_grid_near(&g, pts[q]), 0);
        uint32_t k = 0;
        for (uint32_t i = 0; i < 3000; i++) {
            double dx = pts[i][0] - pts[q][0], dy = pts[i][1] - pts[q][1],
                   dz = pts[i][2] - pts[q][2];
            bool in = sqrt(dx * dx + dy * dy + dz * dz) <= 12.5;
            while (k < g.n_found && g.found[k] < i) {
                k++;
            }
            if (in) {
                CHECK(k < g.n_found);
                CHECK_EQ(g.found[k], i);
            }
        }
        for (uint32_t j = 1; j < g.n_found; j++) {
            CHECK(g.found[j - 1] < g.found[j]);
        }
    }
    wren_sim_grid_destroy(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST(test_grid__random_field_links_as_a_scan_of_every_pair),
        FX_TEST(test_grid__neighbours_across_cell_edges_are_found),
        FX_TEST(test_grid__range_changed_between_radios),
        FX_TEST(test_grid__pathloss_links_as_a_scan_of_every_pair),
        FX_TEST(test_grid__query_is_a_sorted_superset),
    };
    return cmocka_run_group_tests_name("grid", tests, NULL, NULL);
}

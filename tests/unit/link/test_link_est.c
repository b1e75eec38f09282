/* The link estimator (link/link_est.h): ETX from unicast outcomes. */
#include <errno.h>

#include "link/link_est.h"
#include "test.h"

static const uint8_t a[2] = {0x00, 0x01}, b[8] = {2, 0, 0, 0, 0, 0, 0, 2};

static uint16_t etx_of(const struct wren_link_est *est, const uint8_t *addr, uint8_t len)
{
    struct wren_link_etx q = {.len = len};
    memcpy(q.addr, addr, len);
    CHECK_EQ(wren_link_est_get(est, &q), 0);
    uint16_t v;
    memcpy(&v, q.etx, 2);
    return v;
}

TEST(test_link_est_tx__ewma_from_etx_2)
{
    struct wren_link_est est = {0};
    wren_link_est_tx(&est, a, 2, 1, true);
    CHECK_EQ(etx_of(&est, a, 2), (7 * 256 + 128) / 8); /* from ETX 2 toward 1 */
    for (int i = 0; i < 60; i++) {
        wren_link_est_tx(&est, a, 2, 1, true);
    }
    CHECK(etx_of(&est, a, 2) <= 128 + 7); /* integer smoothing stops within 7/128 */
    /* five frames nobody acknowledged take a good link past ETX 4, four do not */
    for (int i = 0; i < 4; i++) {
        wren_link_est_tx(&est, a, 2, 4, false);
    }
    CHECK(etx_of(&est, a, 2) <= 4 * 128);
    wren_link_est_tx(&est, a, 2, 4, false);
    CHECK(etx_of(&est, a, 2) > 4 * 128);
    /* three attempts each: ETX 3 */
    for (int i = 0; i < 80; i++) {
        wren_link_est_tx(&est, a, 2, 3, true);
    }
    CHECK(etx_of(&est, a, 2) >= 3 * 128 && etx_of(&est, a, 2) <= 3 * 128 + 7);
}

TEST(test_link_est_get__unknown_and_lengths)
{
    struct wren_link_est est = {0};
    struct wren_link_etx q = {.len = 2};
    memcpy(q.addr, a, 2);
    CHECK_EQ(wren_link_est_get(&est, &q), -ENOENT);
    wren_link_est_tx(&est, b, 8, 1, true);
    /* the same first bytes with another length are another neighbour */
    q.len = 8;
    memcpy(q.addr, b, 8);
    CHECK_EQ(wren_link_est_get(&est, &q), 0);
    CHECK_EQ(q.samples, 1);
    q.len = 2;
    CHECK_EQ(wren_link_est_get(&est, &q), -ENOENT);
    q.len = 9;
    CHECK_EQ(wren_link_est_get(&est, &q), -ENOENT);
    wren_link_est_tx(&est, b, 0, 1, true); /* broadcast: no estimate */
    wren_link_est_tx(&est, b, 9, 1, true);
    unsigned used = 0;
    for (unsigned i = 0; i < CONFIG_WREN_LINK_EST_NEIGHBORS; i++) {
        used += est.e[i].len != 0;
    }
    CHECK_EQ(used, 1);
}

TEST(test_link_est_tx__full_table_replaces_least_recent)
{
    struct wren_link_est est = {0};
    uint8_t addr[2] = {0, 0};
    for (unsigned i = 0; i < CONFIG_WREN_LINK_EST_NEIGHBORS; i++) {
        addr[1] = (uint8_t)i;
        wren_link_est_tx(&est, addr, 2, 1, true);
    }
    /* neighbour 0 is used again: 1 is now the least recent */
    addr[1] = 0;
    wren_link_est_tx(&est, addr, 2, 1, true);
    addr[1] = 200;
    wren_link_est_tx(&est, addr, 2, 2, true);
    struct wren_link_etx q = {.len = 2};
    q.addr[1] = 1;
    CHECK_EQ(wren_link_est_get(&est, &q), -ENOENT);
    q.addr[1] = 0;
    CHECK_EQ(wren_link_est_get(&est, &q), 0);
    q.addr[1] = 200;
    CHECK_EQ(wren_link_est_get(&est, &q), 0);
    CHECK_EQ(q.samples, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_link_est_tx__ewma_from_etx_2),
        cmocka_unit_test(test_link_est_get__unknown_and_lengths),
        cmocka_unit_test(test_link_est_tx__full_table_replaces_least_recent),
    };
    return cmocka_run_group_tests_name("link_est", tests, NULL, NULL);
}

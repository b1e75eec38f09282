/**
 * @file test.h
 * @brief A minimal unit-test harness: no dependencies, one binary per module.
 *
 * Usage:
 *   TEST(test_parse__short_frame) { CHECK_EQ(parse(...), -EINVAL); }
 *   int main(void) { RUN(test_parse__short_frame); return test_summary(); }
 *
 * A failed CHECK prints file:line and the values, marks the test failed and
 * returns from the test function.
 */
#ifndef WREN_TEST_H
#define WREN_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int test_failed_count;
static int test_run_count;
static int test_current_failed;

#define TEST(name) static void name(void)

#define RUN(name)                                                        \
    do {                                                                 \
        test_current_failed = 0;                                         \
        test_run_count++;                                                \
        name();                                                          \
        if (test_current_failed) {                                       \
            test_failed_count++;                                         \
            printf("FAIL %s\n", #name);                                  \
        } else {                                                         \
            printf("ok   %s\n", #name);                                  \
        }                                                                \
    } while (0)

#define CHECK(cond)                                                      \
    do {                                                                 \
        if (!(cond)) {                                                   \
            printf("  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__,    \
                   #cond);                                               \
            test_current_failed = 1;                                     \
            return;                                                      \
        }                                                                \
    } while (0)

#define CHECK_EQ(a, b)                                                   \
    do {                                                                 \
        long long _a = (long long)(a), _b = (long long)(b);              \
        if (_a != _b) {                                                  \
            printf("  %s:%d: %s == %s failed: %lld != %lld\n", __FILE__, \
                   __LINE__, #a, #b, _a, _b);                            \
            test_current_failed = 1;                                     \
            return;                                                      \
        }                                                                \
    } while (0)

#define CHECK_MEM(a, b, n)                                               \
    do {                                                                 \
        if (memcmp((a), (b), (n)) != 0) {                                \
            printf("  %s:%d: memory %s != %s (%zu bytes)\n", __FILE__,   \
                   __LINE__, #a, #b, (size_t)(n));                       \
            test_current_failed = 1;                                     \
            return;                                                      \
        }                                                                \
    } while (0)

static inline int test_summary(void)
{
    printf("%d tests, %d failed\n", test_run_count, test_failed_count);
    return test_failed_count ? 1 : 0;
}

#endif

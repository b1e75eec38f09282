/**
 * @file test.h
 * @brief wren's unit-test spelling on cmocka: one binary per test file, one
 *        cmocka group per binary.
 *
 * Usage:
 *   TEST(test_parse__short_frame) { CHECK_EQ(parse(...), -EINVAL); }
 *   int main(void)
 *   {
 *       const struct CMUnitTest tests[] = { cmocka_unit_test(test_parse__short_frame) };
 *       return cmocka_run_group_tests(tests, NULL, NULL);
 *   }
 *
 * Tests with a node use the fixture (fixture.h): FX_TEST(name) runs the test
 * between fx_setup and fx_teardown, and the teardown checks every packet
 * buffer the test built.
 *
 * A failed CHECK prints file:line, the expression and (CHECK_EQ) both values,
 * and fails the test: cmocka longjmps out of it, so the rest of the test does
 * not run, but its teardown does. Use CHECKs only in the test's own context
 * (the test function, helpers it calls, module handlers and timer callbacks
 * that run inside wren_world_run_until), never in an application thread: a
 * longjmp must not leave a thread's stack.
 */
#ifndef WREN_TEST_H
#define WREN_TEST_H

/* cmocka.h needs these first */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/** Fail the running test (cmocka longjmps back to the test runner: never returns). */
static inline _Noreturn void wren_test_fail(const char *file, int line)
{
    _fail(file, line);
    __builtin_unreachable();
}

/** What a failed CHECK prints after its expression, when set (say, which of
 *  many combinations a loop was at). */
static const char *wren_test_context __attribute__((unused));

static inline void wren_test_print_context(void)
{
    if (wren_test_context) {
        print_error("  at: %s\n", wren_test_context);
    }
}

/** A test: cmocka's signature; the state is the fixture's (fixture.h) or unused. */
#define TEST(name) static void name(void **state __attribute__((unused)))

#define CHECK(cond)                                                                       \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            print_error("%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);          \
            wren_test_print_context();                                                    \
            wren_test_fail(__FILE__, __LINE__);                                           \
        }                                                                                 \
    } while (0)

#define CHECK_EQ(a, b)                                                                    \
    do {                                                                                  \
        long long _a = (long long)(a), _b = (long long)(b);                               \
        if (_a != _b) {                                                                   \
            print_error("%s:%d: %s == %s failed: %lld != %lld\n", __FILE__, __LINE__, #a, \
                        #b, _a, _b);                                                      \
            wren_test_print_context();                                                    \
            wren_test_fail(__FILE__, __LINE__);                                           \
        }                                                                                 \
    } while (0)

#define CHECK_MEM(a, b, n)                                                                \
    do {                                                                                  \
        if (memcmp((a), (b), (n)) != 0) {                                                 \
            print_error("%s:%d: memory %s != %s (%zu bytes)\n", __FILE__, __LINE__, #a,   \
                        #b, (size_t)(n));                                                 \
            wren_test_print_context();                                                    \
            wren_test_fail(__FILE__, __LINE__);                                           \
        }                                                                                 \
    } while (0)

#endif

#include "fixture.h"

TEST(test_placeholder__nothing)
{
    FX_CLEAN(0);
}

int main(void)
{
    const struct CMUnitTest tests[] = { FX_TEST(test_placeholder__nothing) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

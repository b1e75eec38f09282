/* IPv6 text forms: parse RFC 4291 forms, print RFC 5952 canonical text. */
#include <errno.h>
#include <string.h>

#include "ipv6/addr_str.h"
#include "test.h"

static const char *const forms[][2] = {
    { "::", "::" },
    { "::1", "::1" },
    { "FE80:0:0:0:0:ff:fe00:1", "fe80::ff:fe00:1" },
    { "2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1" },
    { "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8" },
    { "1:0:0:0:0:0:0:0", "1::" },
    { "0:0:1:0:0:0:0:0", "0:0:1::" },
    { "2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1" },
    { "ff02::1:ff00:1", "ff02::1:ff00:1" },
    { "2001:0db8::0001", "2001:db8::1" },
};

static const char *const bad[] = {
    ":::", "1:::2", "1::2::3", "12345::", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", ":1::",
    "1:", "g::", "", "1:2:3:4:5:6:7:8::", "::1:2:3:4:5:6:7:8",
};

TEST(test_addr_from_str__forms_and_canonical_output)
{
    for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
        uint8_t a[16];
        char b[WREN_IPV6_ADDR_STRLEN];
        CHECK_EQ(wren_ipv6_addr_from_str(a, forms[i][0]), 0);
        CHECK(strcmp(wren_ipv6_addr_to_str(b, a), forms[i][1]) == 0);
    }
    uint8_t a[16], want[16] = { 0xfe, 0x80, [11] = 0xff, [12] = 0xfe, [15] = 1 };
    CHECK_EQ(wren_ipv6_addr_from_str(a, "fe80::ff:fe00:1"), 0);
    CHECK_MEM(a, want, 16);
}

TEST(test_addr_from_str__malformed_refused)
{
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        uint8_t a[16];
        if (wren_ipv6_addr_from_str(a, bad[i]) != -EINVAL) {
            printf("  accepted %s\n", bad[i]);
            CHECK(0);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_addr_from_str__forms_and_canonical_output),
        cmocka_unit_test(test_addr_from_str__malformed_refused),
    };
    return cmocka_run_group_tests_name("addr_str", tests, NULL, NULL);
}

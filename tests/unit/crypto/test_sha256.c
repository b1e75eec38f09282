/* SHA-256 (crypto/sha256.h) against the FIPS 180-4 examples published by
 * NIST (csrc.nist.gov, "Examples with intermediate values", SHA256.pdf:
 * "abc" and the 448-bit two-block message) and the long message of one
 * million 'a' (FIPS 180-2 Appendix B.3), fed in uneven pieces. */
#include "crypto/sha256.h"
#include "test.h"

static void hex(const char *s, uint8_t *out)
{
    for (size_t i = 0; s[2 * i]; i++) {
        unsigned v;
        sscanf(s + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
}

static void check(const void *msg, size_t len, const char *want_hex)
{
    uint8_t want[32], got[32];
    hex(want_hex, want);
    wren_sha256(msg, len, got);
    CHECK(memcmp(got, want, 32) == 0);
}

TEST(test_sha256__nist_abc)
{
    check("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(test_sha256__nist_two_blocks)
{
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    check(m, strlen(m), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(test_sha256__empty)
{
    check("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(test_sha256__million_a_in_pieces)
{
    uint8_t chunk[1024], want[32], got[32];
    memset(chunk, 'a', sizeof(chunk));
    struct wren_sha256 c;
    wren_sha256_init(&c);
    size_t left = 1000000;
    for (size_t n = 1; left; n = n % 997 + 7) {
        size_t k = n < left ? n : left;
        wren_sha256_update(&c, chunk, k);
        left -= k;
    }
    wren_sha256_final(&c, got);
    hex("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0", want);
    CHECK(memcmp(got, want, 32) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sha256__nist_abc),
        cmocka_unit_test(test_sha256__nist_two_blocks),
        cmocka_unit_test(test_sha256__empty),
        cmocka_unit_test(test_sha256__million_a_in_pieces),
    };
    return cmocka_run_group_tests_name("sha256", tests, NULL, NULL);
}

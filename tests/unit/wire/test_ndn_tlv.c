/* The NDN TLV codec (wire/ndn_tlv.h). The canonical packets were encoded by
 * python-ndn 0.5.2 (PyPI), which tests/py/test_ndn_interop.py also runs:
 *   make_interest('/a/b', InterestParam(can_be_prefix=True, must_be_fresh=True,
 *                 nonce=0x01020304, lifetime=4000, hop_limit=5), app_param=b'xy')
 *   make_data('/a/b', MetaInfo(freshness_period=1000), b'hello',
 *             signer=DigestSha256Signer()) */
#include <errno.h>

#include "crypto/sha256.h"
#include "test.h"
#include "wire/ndn_tlv.h"

static size_t unhex(const char *s, uint8_t *out)
{
    size_t n = 0;
    for (; s[2 * n]; n++) {
        unsigned v;
        sscanf(s + 2 * n, "%2x", &v);
        out[n] = (uint8_t)v;
    }
    return n;
}

static const char interest_hex[] =
    "053f072808016108016202200a17f8d0a46b2ef94ca4bceb5c7a099ae696cecb6e3848e1c3dcf08a46f2f28221"
    "0012000a04010203040c020fa022010524027879";
static const char data_hex[] =
    "063f07060801610801621407180100190203e8150568656c6c6f16031b0100172011332dcc724b6d5cd078131b"
    "c2d4ecda772cbd1dfef69ad6e2552ce92f1256e0";

TEST(test_ndn_varnum__all_widths)
{
    static const uint64_t vals[] = { 0, 252, 253, 65535, 65536, 0xffffffffull, 0x100000000ull };
    static const size_t lens[] = { 1, 1, 3, 3, 5, 5, 9 };
    for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
        uint8_t b[9];
        uint64_t v;
        CHECK_EQ(wren_ndn_varnum_emit(vals[i], b), lens[i]);
        CHECK_EQ(wren_ndn_varnum_parse(b, lens[i], &v), (int)lens[i]);
        CHECK(v == vals[i]);
        CHECK_EQ(wren_ndn_varnum_parse(b, lens[i] - 1, &v), -EMSGSIZE);
    }
}

TEST(test_ndn_interest_parse__python_ndn_every_field)
{
    uint8_t b[128], out[128];
    size_t n = unhex(interest_hex, b);
    struct ndn_interest in;
    CHECK_EQ(wren_ndn_interest_parse(b, n, &in), 0);
    CHECK_EQ(in.name.ncomp, 3);
    CHECK_EQ(in.name.params_idx, 2);
    CHECK(in.can_be_prefix && in.must_be_fresh && in.has_nonce && in.has_hop_limit);
    CHECK_EQ(in.nonce, 0x01020304);
    CHECK_EQ(in.lifetime_ms, 4000);
    CHECK_EQ(in.hop_limit, 5);
    CHECK(in.has_params && in.params_len == 2 && memcmp(in.params, "xy", 2) == 0);
    CHECK_EQ(wren_ndn_interest_len(&in), n);
    CHECK_EQ(wren_ndn_interest_emit(&in, out, sizeof(out)), (int)n);
    CHECK(memcmp(out, b, n) == 0);
    CHECK_EQ(wren_ndn_interest_emit(&in, out, n - 1), -EMSGSIZE);
}

/* the parameters digest appended by emit is python-ndn's */
TEST(test_ndn_interest_emit__computes_params_digest)
{
    uint8_t want[128], name[16], out[128];
    size_t n = unhex(interest_hex, want);
    int nl = wren_ndn_name_from_uri("/a/b", name, sizeof(name));
    CHECK_EQ(nl, 6);
    struct ndn_interest in = { .can_be_prefix = true, .must_be_fresh = true, .has_nonce = true,
                               .nonce = 0x01020304, .has_lifetime = true, .lifetime_ms = 4000,
                               .has_hop_limit = true, .hop_limit = 5, .has_params = true,
                               .params = (const uint8_t *)"xy", .params_len = 2 };
    CHECK_EQ(wren_ndn_name_parse(name, (size_t)nl, &in.name), 0);
    CHECK_EQ(wren_ndn_interest_emit(&in, out, sizeof(out)), (int)n);
    CHECK(memcmp(out, want, n) == 0);
}

TEST(test_ndn_interest_parse__bad_params_digest)
{
    uint8_t b[128];
    size_t n = unhex(interest_hex, b);
    b[n - 1] ^= 1; /* a parameter octet: the digest in the name no longer matches */
    struct ndn_interest in;
    CHECK_EQ(wren_ndn_interest_parse(b, n, &in), -EILSEQ);
}

TEST(test_ndn_interest_parse__unknown_elements)
{
    /* Name /a, Nonce, then an unknown even type 0x30 (skipped) */
    uint8_t ok[] = { 0x05, 0x0d, 0x07, 0x03, 0x08, 0x01, 'a', 0x0a, 0x04, 1, 2, 3, 4, 0x30, 0x00 };
    struct ndn_interest in;
    CHECK_EQ(wren_ndn_interest_parse(ok, sizeof(ok), &in), 0);
    CHECK_EQ(in.lifetime_ms, NDN_LIFETIME_DEFAULT_MS);
    ok[13] = 0x31; /* odd: critical */
    CHECK_EQ(wren_ndn_interest_parse(ok, sizeof(ok), &in), -EPROTONOSUPPORT);
    ok[13] = 0x1f; /* below 32: critical */
    CHECK_EQ(wren_ndn_interest_parse(ok, sizeof(ok), &in), -EPROTONOSUPPORT);
}

TEST(test_ndn_interest_parse__malformed)
{
    /* Nonce before Name */
    uint8_t a[] = { 0x05, 0x0b, 0x0a, 0x04, 1, 2, 3, 4, 0x07, 0x03, 0x08, 0x01, 'a' };
    /* a 3-octet Nonce */
    uint8_t b[] = { 0x05, 0x0a, 0x07, 0x03, 0x08, 0x01, 'a', 0x0a, 0x03, 1, 2, 3 };
    /* a parameters digest component without ApplicationParameters */
    uint8_t c[38] = { 0x05, 36, 0x07, 34, 0x02, 32 };
    struct ndn_interest in;
    CHECK_EQ(wren_ndn_interest_parse(a, sizeof(a), &in), -EBADMSG);
    CHECK_EQ(wren_ndn_interest_parse(b, sizeof(b), &in), -EBADMSG);
    CHECK_EQ(wren_ndn_interest_parse(c, sizeof(c), &in), -EBADMSG);
    uint8_t full[128];
    size_t n = unhex(interest_hex, full);
    for (size_t i = 0; i < n; i++) {
        CHECK(wren_ndn_interest_parse(full, i, &in) < 0);
    }
}

TEST(test_ndn_data_parse__python_ndn_digest_sha256)
{
    uint8_t b[128], out[128];
    size_t n = unhex(data_hex, b);
    struct ndn_data d;
    CHECK_EQ(wren_ndn_data_parse(b, n, &d), 0);
    CHECK_EQ(d.name.ncomp, 2);
    CHECK(d.has_content_type && d.content_type == 0);
    CHECK(d.has_freshness && d.freshness_ms == 1000);
    CHECK(d.content_len == 5 && memcmp(d.content, "hello", 5) == 0);
    CHECK_EQ(d.sig_type, NDN_SIG_DIGEST_SHA256);
    CHECK_EQ(wren_ndn_data_emit(&d, out, sizeof(out)), (int)n);
    CHECK(memcmp(out, b, n) == 0);
    /* emitted from fields, the digest computed: the same octets */
    d.sig_value = NULL;
    CHECK_EQ(wren_ndn_data_len(&d), n);
    CHECK_EQ(wren_ndn_data_emit(&d, out, sizeof(out)), (int)n);
    CHECK(memcmp(out, b, n) == 0);
    b[25] ^= 0x20; /* a content octet */
    CHECK_EQ(wren_ndn_data_parse(b, n, &d), -EILSEQ);
}

TEST(test_ndn_data_parse__needs_signature)
{
    uint8_t b[] = { 0x06, 0x05, 0x07, 0x03, 0x08, 0x01, 'a' };
    struct ndn_data d;
    CHECK_EQ(wren_ndn_data_parse(b, sizeof(b), &d), -EBADMSG);
    /* a SignatureValue without SignatureInfo (found by fuzz_ndn_tlv: read
     * the digest from a NULL end) */
    uint8_t c[] = { 0x06, 0x07, 0x07, 0x03, 0x08, 0x01, 'a', 0x17, 0x00 };
    CHECK_EQ(wren_ndn_data_parse(c, sizeof(c), &d), -EBADMSG);
}

TEST(test_ndn_name__uri_and_prefix)
{
    uint8_t a[64], b[64];
    char s[64];
    int na = wren_ndn_name_from_uri("/wren/sensor", a, sizeof(a));
    int nb = wren_ndn_name_from_uri("ndn:/wren/sensor/t%2Fx/50=%01", b, sizeof(b));
    CHECK(na > 0 && nb > na);
    struct ndn_name pa, pb, pc;
    CHECK_EQ(wren_ndn_name_parse(a, (size_t)na, &pa), 0);
    CHECK_EQ(wren_ndn_name_parse(b, (size_t)nb, &pb), 0);
    CHECK_EQ(pb.ncomp, 4);
    CHECK(wren_ndn_name_is_prefix(&pa, &pb));
    CHECK(!wren_ndn_name_is_prefix(&pb, &pa));
    CHECK(!wren_ndn_name_eq(&pa, &pb));
    wren_ndn_name_to_uri(&pb, s, sizeof(s));
    CHECK(strcmp(s, "/wren/sensor/t%2Fx/50=%01") == 0);
    /* /wren/sens is not a prefix of /wren/sensor (components are whole) */
    int nc = wren_ndn_name_from_uri("/wren/sens", b, sizeof(b));
    CHECK_EQ(wren_ndn_name_parse(b, (size_t)nc, &pc), 0);
    CHECK(!wren_ndn_name_is_prefix(&pc, &pa));
    CHECK_EQ(wren_ndn_name_from_uri("/a/%zz", b, sizeof(b)), -EINVAL);
    CHECK_EQ(wren_ndn_name_from_uri("/abcdef", b, 4), -EMSGSIZE);
}

TEST(test_ndn_data_answers__names_prefixes_and_implicit_digest)
{
    uint8_t b[128], asked[64];
    size_t n = unhex(data_hex, b);
    struct ndn_data d;
    struct ndn_name a;
    CHECK_EQ(wren_ndn_data_parse(b, n, &d), 0);
    uint8_t h[WREN_SHA256_LEN];
    wren_sha256(b, n, h);
    char uri[128] = "/a/b/sha256digest=";
    for (int i = 0; i < WREN_SHA256_LEN; i++) {
        snprintf(uri + strlen(uri), 3, "%02x", h[i]);
    }
    int al = wren_ndn_name_from_uri(uri, asked, sizeof(asked));
    CHECK_EQ(wren_ndn_name_parse(asked, (size_t)al, &a), 0);
    CHECK(wren_ndn_data_answers(&a, false, &d, b, n));
    struct ndn_name parent = wren_ndn_name_parent(&a);
    CHECK(wren_ndn_name_eq(&parent, &d.name) && parent.ncomp == 2);
    asked[al - 1] ^= 1; /* another packet's digest */
    CHECK(!wren_ndn_data_answers(&a, false, &d, b, n));
    al = wren_ndn_name_from_uri("/a", asked, sizeof(asked));
    CHECK_EQ(wren_ndn_name_parse(asked, (size_t)al, &a), 0);
    CHECK(wren_ndn_data_answers(&a, true, &d, b, n));
    CHECK(!wren_ndn_data_answers(&a, false, &d, b, n));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ndn_varnum__all_widths),
        cmocka_unit_test(test_ndn_interest_parse__python_ndn_every_field),
        cmocka_unit_test(test_ndn_interest_emit__computes_params_digest),
        cmocka_unit_test(test_ndn_interest_parse__bad_params_digest),
        cmocka_unit_test(test_ndn_interest_parse__unknown_elements),
        cmocka_unit_test(test_ndn_interest_parse__malformed),
        cmocka_unit_test(test_ndn_data_parse__python_ndn_digest_sha256),
        cmocka_unit_test(test_ndn_data_parse__needs_signature),
        cmocka_unit_test(test_ndn_name__uri_and_prefix),
        cmocka_unit_test(test_ndn_data_answers__names_prefixes_and_implicit_digest),
    };
    return cmocka_run_group_tests_name("ndn_tlv", tests, NULL, NULL);
}

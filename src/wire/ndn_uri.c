/* NDN names as URIs (the NDN URI scheme of the packet spec 0.3, 2.1):
 * "/a/b%2Fc" generic components, "N=value" a component of type N,
 * "sha256digest=HEX" and "params-sha256=HEX" the two digest components. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "wire/ndn_tlv.h"

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* "%XX"-unescape [s, e) into out; the length, or -EINVAL */
static int unescape(const char *s, const char *e, uint8_t *out, size_t max)
{
    size_t n = 0;
    while (s < e) {
        int v = (unsigned char)*s;
        if (*s == '%') {
            int hi = e - s > 2 ? hexval(s[1]) : -1, lo = e - s > 2 ? hexval(s[2]) : -1;
            if (hi < 0 || lo < 0) {
                return -EINVAL;
            }
            v = hi << 4 | lo;
            s += 2;
        }
        if (n == max) {
            return -EMSGSIZE;
        }
        out[n++] = (uint8_t)v;
        s++;
    }
    return (int)n;
}

/* the hex digest after "sha256digest=" / "params-sha256=" */
static int unhex(const char *s, const char *e, uint8_t *out)
{
    if (e - s != 2 * NDN_DIGEST_LEN) {
        return -EINVAL;
    }
    for (int i = 0; i < NDN_DIGEST_LEN; i++) {
        int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            return -EINVAL;
        }
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return NDN_DIGEST_LEN;
}

/* the type of component [s, e) and where its value starts */
static long comp_type(const char **s, const char *e)
{
    static const struct { const char *pfx; long type; } named[] = {
        { "sha256digest=", NDN_T_IMPLICIT_DIGEST }, { "params-sha256=", NDN_T_PARAMS_DIGEST },
    };
    for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
        size_t n = strlen(named[i].pfx);
        if ((size_t)(e - *s) >= n && memcmp(*s, named[i].pfx, n) == 0) {
            *s += n;
            return named[i].type;
        }
    }
    const char *p = *s;
    long t = 0;
    while (p < e && *p >= '0' && *p <= '9' && t <= 65535) {
        t = t * 10 + (*p++ - '0');
    }
    if (p > *s && p < e && *p == '=') {
        *s = p + 1;
        return t >= 1 && t <= 65535 ? t : -EINVAL;
    }
    return NDN_T_GENERIC;
}

static int comp_from_uri(const char *s, const char *e, uint8_t *out, size_t max)
{
    uint8_t v[255];
    long t = comp_type(&s, e);
    int n = t < 0 ? -EINVAL
          : t == NDN_T_IMPLICIT_DIGEST || t == NDN_T_PARAMS_DIGEST ? unhex(s, e, v)
                                                                   : unescape(s, e, v, sizeof(v));
    if (n < 0 || (n == 0 && t == NDN_T_GENERIC)) {
        return n < 0 ? n : -EINVAL;
    }
    size_t h = wren_ndn_varnum_len((uint64_t)t) + wren_ndn_varnum_len((uint64_t)n);
    if (h + (size_t)n > max) {
        return -EMSGSIZE;
    }
    h = wren_ndn_varnum_emit((uint64_t)t, out);
    h += wren_ndn_varnum_emit((uint64_t)n, out + h);
    memcpy(out + h, v, (size_t)n);
    return (int)h + n;
}

int wren_ndn_name_from_uri(const char *uri, uint8_t *out, size_t max)
{
    const char *p = uri;
    if (strncmp(p, "ndn:", 4) == 0) {
        p += 4;
    }
    size_t n = 0;
    while (*p) {
        p += *p == '/';
        const char *e = p + strcspn(p, "/");
        if (e == p) {
            continue; /* "//" or a trailing "/" */
        }
        int r = comp_from_uri(p, e, out + n, max - n);
        if (r < 0) {
            return r;
        }
        n += (size_t)r;
        p = e;
    }
    return n > UINT16_MAX ? -EMSGSIZE : (int)n;
}

static size_t put(char *out, size_t max, size_t at, const char *s)
{
    size_t n = strlen(s);
    if (at < max) {
        snprintf(out + at, max - at, "%s", s);
    }
    return at + n;
}

static size_t comp_to_uri(uint32_t t, const uint8_t *v, uint16_t l, char *out, size_t max,
                          size_t at)
{
    char b[16];
    bool digest = t == NDN_T_IMPLICIT_DIGEST || t == NDN_T_PARAMS_DIGEST;
    if (t != NDN_T_GENERIC) {
        snprintf(b, sizeof(b), "%u=", (unsigned)t);
        at = put(out, max, at, t == 1 ? "sha256digest=" : t == 2 ? "params-sha256=" : b);
    }
    for (uint16_t i = 0; i < l; i++) {
        bool plain = !digest && ((v[i] >= 'a' && v[i] <= 'z') || (v[i] >= 'A' && v[i] <= 'Z') ||
                                 (v[i] >= '0' && v[i] <= '9') || strchr("-._~", v[i]));
        snprintf(b, sizeof(b), plain ? "%c" : digest ? "%02x" : "%%%02X", v[i]);
        at = put(out, max, at, b);
    }
    return at;
}

size_t wren_ndn_name_to_uri(const struct ndn_name *n, char *out, size_t max)
{
    size_t at = 0;
    if (max) {
        out[0] = 0;
    }
    for (size_t off = 0; off < n->len;) {
        uint32_t t;
        const uint8_t *v;
        uint16_t l;
        int r = wren_ndn_tlv_parse(n->v + off, n->len - off, &t, &v, &l);
        if (r < 0) {
            break;
        }
        at = put(out, max, at, "/");
        at = comp_to_uri(t, v, l, out, max, at);
        off += (size_t)r;
    }
    if (n->len == 0) {
        at = put(out, max, at, "/");
    }
    return at < max ? at : (max ? max - 1 : 0);
}

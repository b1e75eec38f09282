#include "ipv6/addr_str.h"

#include <errno.h>
#include <string.h>

static int hexval(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

int wren_ipv6_addr_from_str(uint8_t *addr, const char *s)
{
    uint16_t w[8];
    int n = 0, gap = -1;
    if (s[0] == ':') {
        if (s[1] != ':') {
            return -EINVAL;
        }
        s++; /* a leading "::" is handled as a gap at the first group */
    }
    while (*s) {
        if (*s == ':') {
            if (gap >= 0) {
                return -EINVAL; /* two "::" */
            }
            gap = n;
            s++;
            if (*s == 0) {
                break;
            }
            if (*s == ':') {
                return -EINVAL;
            }
            continue;
        }
        unsigned v = 0;
        int digits = 0;
        int h;
        while ((h = hexval(*s)) >= 0) {
            v = v << 4 | (unsigned)h;
            s++;
            if (++digits > 4) {
                return -EINVAL;
            }
        }
        if (digits == 0 || n == 8) {
            return -EINVAL;
        }
        w[n++] = (uint16_t)v;
        if (*s == ':') {
            s++;
            if (*s == ':') {
                continue; /* the gap, seen on the next round */
            }
            if (*s == 0) {
                return -EINVAL; /* trailing single colon */
            }
        } else if (*s) {
            return -EINVAL;
        }
    }
    if ((gap < 0 && n != 8) || (gap >= 0 && n > 7)) {
        return -EINVAL;
    }
    int zeros = 8 - n;
    int k = 0;
    for (int i = 0; i < 8; i++) {
        uint16_t v;
        if (gap >= 0 && i >= gap && i < gap + zeros) {
            v = 0;
        } else {
            v = w[k++];
        }
        addr[2 * i] = (uint8_t)(v >> 8);
        addr[2 * i + 1] = (uint8_t)v;
    }
    return 0;
}

char *wren_ipv6_addr_to_str(char *buf, const uint8_t *addr)
{
    static const char hex[] = "0123456789abcdef";
    uint16_t w[8];
    for (int i = 0; i < 8; i++) {
        w[i] = (uint16_t)(addr[2 * i] << 8 | addr[2 * i + 1]);
    }
    /* RFC 5952 4.2: the longest run of two or more zero groups, first if tied */
    int best = -1, best_len = 1;
    for (int i = 0; i < 8;) {
        int j = i;
        while (j < 8 && w[j] == 0) {
            j++;
        }
        if (j - i > best_len) {
            best = i;
            best_len = j - i;
        }
        i = j > i ? j : i + 1;
    }
    char *p = buf;
    for (int i = 0; i < 8; i++) {
        if (i == best) {
            *p++ = ':';
            if (i == 0) {
                *p++ = ':';
            }
            i += best_len - 1;
            continue;
        }
        int started = 0;
        for (int sh = 12; sh >= 0; sh -= 4) {
            unsigned d = (w[i] >> sh) & 0xf;
            if (d || started || sh == 0) {
                *p++ = hex[d];
                started = 1;
            }
        }
        if (i < 7) {
            *p++ = ':';
        }
    }
    *p = 0;
    return buf;
}

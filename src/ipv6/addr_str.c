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

/* One group of 1 to 4 hex digits at *@p s into *@p v, *@p s moved past it.
 * @return 0 or -EINVAL. */
static int parse_group(const char **s, uint16_t *v)
{
    unsigned x = 0;
    int digits = 0;
    int h;
    while ((h = hexval(**s)) >= 0) {
        x = x << 4 | (unsigned)h;
        (*s)++;
        if (++digits > 4) {
            return -EINVAL;
        }
    }
    if (digits == 0) {
        return -EINVAL;
    }
    *v = (uint16_t)x;
    return 0;
}

/* RFC 4291 2.2: the groups of @p s into @p w, the index of the group its
 * "::" stands before into *@p gap (-1: none). @return the number of groups,
 * or -EINVAL. */
static int parse_groups(const char *s, uint16_t w[8], int *gap)
{
    int n = 0;
    *gap = -1;
    if (s[0] == ':') {
        if (s[1] != ':') {
            return -EINVAL;
        }
        s++; /* a leading "::" is handled as a gap at the first group */
    }
    while (*s) {
        if (*s == ':') {
            if (*gap >= 0) {
                return -EINVAL; /* two "::" */
            }
            *gap = n;
            s++;
            if (*s == 0) {
                break;
            }
            if (*s == ':') {
                return -EINVAL;
            }
            continue;
        }
        if (n == 8 || parse_group(&s, &w[n]) < 0) {
            return -EINVAL;
        }
        n++;
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
    return n;
}

int wren_ipv6_addr_from_str(uint8_t *addr, const char *s)
{
    uint16_t w[8];
    int gap;
    int n = parse_groups(s, w, &gap);
    if (n < 0 || (gap < 0 && n != 8) || (gap >= 0 && n > 7)) {
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

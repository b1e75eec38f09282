/* The text form of a SCHC rule set (schc.h: wren_schc_rules_parse): one
 * statement a line, each mistake one line naming the line and the word. */
#include "wire/schc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const fid_names[WREN_SCHC_FID_COUNT] = {
    "ipv6.ver", "ipv6.tc", "ipv6.fl", "ipv6.len", "ipv6.nxt", "ipv6.hop", "ipv6.devpre",
    "ipv6.deviid", "ipv6.apppre", "ipv6.appiid", "udp.devport", "udp.appport", "udp.len",
    "udp.cksum",
};
static const char *const dir_names[] = { "bi", "up", "down" };
static const char *const mo_names[] = { "equal", "ignore", "msb", "match-mapping" };
static const char *const cda_names[] = { "not-sent", "value-sent", "mapping-sent", "lsb",
                                         "compute" };
static const char *const kind_names[] = { "compress", "nocomp", "frag-up", "frag-down" };

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The next word of *@p s between @p delims (cut in place), or NULL; no
 * hidden state, unlike strtok. */
static char *next_word(char **s, const char *delims)
{
    char *p = *s + strspn(*s, delims);
    if (*p == 0) {
        return NULL;
    }
    size_t n = strcspn(p, delims);
    *s = p + n + (p[n] != 0);
    p[n] = 0;
    return p;
}
#define MAX_WORDS 6

struct ctx {
    struct wren_schc_rules *rs;
    struct wren_schc_rule *rule; /* the rule being read */
    unsigned line;
    char *err;
    size_t err_len;
};

static int fail(struct ctx *c, int rc, const char *what, const char *word)
{
    if (c->err_len) {
        snprintf(c->err, c->err_len, "schc rules line %u: %s '%s'", c->line, what, word);
    }
    return rc;
}

static int lookup(const char *const *names, unsigned n, const char *w)
{
    for (unsigned i = 0; i < n; i++) {
        if (strcmp(names[i], w) == 0) {
            return (int)i;
        }
    }
    return -1;
}

/* One number of @p fid's width into @p v (big-endian, right-aligned). */
static bool parse_value(const char *s, unsigned fid, uint8_t *v)
{
    unsigned bits = wren_schc_field_bits(fid), nb = (bits + 7) / 8;
    memset(v, 0, nb);
    if (strncmp(s, "0x", 2) == 0) {
        size_t n = strlen(s + 2);
        if (n == 0 || n > nb * 2u || strspn(s + 2, "0123456789abcdefABCDEF") != n) {
            return false;
        }
        for (size_t i = 0; i < n; i++) {
            char ch[2] = { s[2 + n - 1 - i], 0 };
            unsigned d = (unsigned)strtoul(ch, NULL, 16);
            v[nb - 1 - i / 2] |= (uint8_t)(d << (4 * (i & 1)));
        }
    } else {
        char *end;
        unsigned long long x = strtoull(s, &end, 10);
        if (*s < '0' || *s > '9' || *end || (bits < 64 && x >> bits)) {
            return false;
        }
        for (unsigned i = 0; i < nb; i++, x >>= 8) {
            v[nb - 1 - i] = (uint8_t)x;
        }
    }
    return bits % 8 == 0 || (v[0] >> (bits % 8)) == 0; /* fits the field */
}

/* Target values "a,b,c" of field @p f into the set's pool. */
static int parse_tvs(struct ctx *c, struct wren_schc_field *f, char *list)
{
    unsigned nb = (wren_schc_field_bits(f->fid) + 7) / 8;
    f->tv = c->rs->tv_used;
    for (char *s = next_word(&list, ","); s; s = next_word(&list, ",")) {
        if (f->tv_n == WREN_SCHC_MAP_MAX || c->rs->tv_used + nb > CONFIG_WREN_SCHC_TV_BYTES) {
            return fail(c, -ENOSPC, "too many target values at", s);
        }
        if (!parse_value(s, f->fid, c->rs->tv + c->rs->tv_used)) {
            return fail(c, -EINVAL, "bad target value (a decimal or 0x number that fits the field)",
                        s);
        }
        c->rs->tv_used = (uint16_t)(c->rs->tv_used + nb);
        f->tv_n++;
    }
    return 0;
}

/* MO and CDA agree with each other and with the target values (RFC 8724
 * 7.4, 7.5). */
static const char *field_mistake(const struct wren_schc_field *f)
{
    unsigned bits = wren_schc_field_bits(f->fid);
    bool len = f->fid == WREN_SCHC_IPV6_LEN || f->fid == WREN_SCHC_UDP_LEN ||
               f->fid == WREN_SCHC_UDP_CKSUM;
    if ((f->cda == WREN_SCHC_CDA_MAPPING_SENT) != (f->mo == WREN_SCHC_MO_MATCH_MAPPING)) {
        return "mapping-sent goes with match-mapping, and only with it:";
    }
    if ((f->cda == WREN_SCHC_CDA_LSB) != (f->mo == WREN_SCHC_MO_MSB)) {
        return "lsb goes with msb(x), and only with it:";
    }
    if (f->mo == WREN_SCHC_MO_MATCH_MAPPING && f->tv_n < 2) {
        return "match-mapping needs two target values or more:";
    }
    if (f->mo == WREN_SCHC_MO_MSB && (f->msb == 0 || f->msb >= bits || f->tv_n != 1)) {
        return "msb(x) needs 0 < x < the field's bits and one target value:";
    }
    if ((f->mo == WREN_SCHC_MO_EQUAL || f->cda == WREN_SCHC_CDA_NOT_SENT) && f->tv_n != 1) {
        return "equal and not-sent need one target value:";
    }
    if (f->cda == WREN_SCHC_CDA_COMPUTE && (!len || f->mo != WREN_SCHC_MO_IGNORE)) {
        return "compute is for ipv6.len, udp.len, udp.cksum with ignore:";
    }
    return NULL;
}

static int parse_mo(struct ctx *c, struct wren_schc_field *f, const char *w)
{
    unsigned x = 0;
    char tail = 0;
    if (sscanf(w, "msb(%u%c", &x, &tail) == 2 && tail == ')' && strlen(strchr(w, ')')) == 1) {
        f->mo = WREN_SCHC_MO_MSB;
        f->msb = (uint8_t)(x > 255 ? 255 : x);
        return 0;
    }
    int mo = lookup(mo_names, N(mo_names), w);
    if (mo < 0 || mo == WREN_SCHC_MO_MSB) {
        return fail(c, -EINVAL, "unknown matching operator (equal ignore msb(X) match-mapping)",
                    w);
    }
    f->mo = (uint8_t)mo;
    return 0;
}

static int parse_field(struct ctx *c, char **w, unsigned n)
{
    if (c->rule == NULL || c->rule->kind != WREN_SCHC_RULE_COMPRESS) {
        return fail(c, -EINVAL, "field outside a compression rule:", w[0]);
    }
    if (c->rs->n_fields == CONFIG_WREN_SCHC_FIELDS) {
        return fail(c, -ENOSPC, "too many fields at", w[0]);
    }
    struct wren_schc_field *f = &c->rs->fields[c->rs->n_fields];
    memset(f, 0, sizeof(*f));
    int fid = lookup(fid_names, N(fid_names), w[0]);
    int dir = n > 1 ? lookup(dir_names, N(dir_names), w[1]) : -1;
    int cda = n > 3 ? lookup(cda_names, N(cda_names), w[3]) : -1;
    if (fid < 0) {
        return fail(c, -EINVAL, "unknown field", w[0]);
    }
    if (n < 4 || n > 5) {
        return fail(c, -EINVAL, "a field is FIELD DIR MO CDA [TV,...]:", w[0]);
    }
    if (dir < 0) {
        return fail(c, -EINVAL, "unknown direction (bi up down)", w[1]);
    }
    f->fid = (uint8_t)fid;
    f->dir = (uint8_t)dir;
    int rc = parse_mo(c, f, w[2]);
    if (rc < 0) {
        return rc;
    }
    if (cda < 0) {
        return fail(c, -EINVAL, "unknown action (not-sent value-sent mapping-sent lsb compute)",
                    w[3]);
    }
    f->cda = (uint8_t)cda;
    rc = n == 5 ? parse_tvs(c, f, w[4]) : 0;
    const char *m = rc == 0 ? field_mistake(f) : NULL;
    if (m) {
        return fail(c, -EINVAL, m, w[0]);
    }
    c->rs->n_fields += rc == 0;
    c->rule->count += rc == 0;
    return rc;
}

/* A compression rule has each IPv6 field once per direction, and all UDP
 * fields once or none (RFC 8724 7.3: a rule describes the whole header). */
static int check_rule(struct ctx *c)
{
    const struct wren_schc_rule *r = c->rule;
    if (r == NULL || r->kind != WREN_SCHC_RULE_COMPRESS) {
        return 0;
    }
    for (unsigned dir = WREN_SCHC_UP; dir <= WREN_SCHC_DOWN; dir++) {
        unsigned seen[WREN_SCHC_FID_COUNT] = { 0 }, udp = 0;
        for (unsigned i = 0; i < r->count; i++) {
            const struct wren_schc_field *f = &c->rs->fields[r->first + i];
            seen[f->fid] += f->dir == WREN_SCHC_BI || f->dir == dir;
        }
        for (unsigned fid = 0; fid < WREN_SCHC_FID_COUNT; fid++) {
            udp += fid >= WREN_SCHC_UDP_DEV_PORT && seen[fid];
            bool need = fid < WREN_SCHC_UDP_DEV_PORT || udp;
            if (seen[fid] > 1 || (need && seen[fid] == 0) || (udp && !seen[fid])) {
                char id[8];
                snprintf(id, sizeof(id), "%u", r->id);
                return fail(c, -EINVAL, seen[fid] > 1 ? "a field twice in rule" :
                            "a field missing (every IPv6 field; all UDP or none) in rule", id);
            }
        }
    }
    return 0;
}

static int parse_rule(struct ctx *c, char **w, unsigned n)
{
    char *end;
    unsigned long id = n > 1 ? strtoul(w[1], &end, 10) : 256;
    int kind = n > 2 ? lookup(kind_names, N(kind_names), w[2]) : WREN_SCHC_RULE_COMPRESS;
    if (n < 2 || n > 3 || id > 255 || *end || w[1][0] < '0' || w[1][0] > '9') {
        return fail(c, -EINVAL, "a rule is 'rule ID [KIND]', ID 0..255:", n > 1 ? w[1] : w[0]);
    }
    if (kind < 0) {
        return fail(c, -EINVAL, "unknown rule kind (compress nocomp frag-up frag-down)", w[2]);
    }
    if (wren_schc_rule_find(c->rs, (uint8_t)id)) {
        return fail(c, -EINVAL, "rule ID used twice:", w[1]);
    }
    int rc = check_rule(c);
    if (rc < 0) {
        return rc;
    }
    if (c->rs->n_rules == CONFIG_WREN_SCHC_RULES) {
        return fail(c, -ENOSPC, "too many rules at", w[1]);
    }
    c->rule = &c->rs->rules[c->rs->n_rules++];
    *c->rule = (struct wren_schc_rule){ .id = (uint8_t)id, .kind = (uint8_t)kind,
                                        .first = c->rs->n_fields };
    return 0;
}

static int parse_line(struct ctx *c, char *line)
{
    char *hash = strchr(line, '#');
    if (hash) {
        *hash = 0;
    }
    char *w[MAX_WORDS];
    unsigned n = 0;
    for (char *s = next_word(&line, " \t\r"); s; s = next_word(&line, " \t\r")) {
        if (n == MAX_WORDS) {
            return fail(c, -EINVAL, "too many words at", s);
        }
        w[n++] = s;
    }
    if (n == 0) {
        return 0;
    }
    return strcmp(w[0], "rule") == 0 ? parse_rule(c, w, n) : parse_field(c, w, n);
}

int wren_schc_rules_parse(struct wren_schc_rules *rs, const char *text, size_t text_len,
                          char *err, size_t err_len)
{
    struct ctx c = { .rs = rs, .err = err, .err_len = err_len };
    memset(rs, 0, sizeof(*rs));
    if (err_len) {
        err[0] = 0;
    }
    const char *end = text ? text + text_len : NULL;
    for (const char *p = text; p && p < end && *p;) {
        size_t len = 0;
        while (p + len < end && p[len] && p[len] != '\n') {
            len++;
        }
        char line[160];
        c.line++;
        if (len >= sizeof(line)) {
            return fail(&c, -EINVAL, "line longer than 159 characters", "");
        }
        memcpy(line, p, len);
        line[len] = 0;
        int rc = parse_line(&c, line);
        if (rc < 0) {
            memset(rs, 0, sizeof(*rs));
            return rc;
        }
        p += len + (p + len < end && p[len] == '\n');
    }
    int rc = check_rule(&c);
    if (rc < 0) {
        memset(rs, 0, sizeof(*rs));
    }
    return rc;
}

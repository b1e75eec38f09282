/* The CoAP server: message layer (RFC 7252 4), request handling (RFC 7252
 * 5), link format (RFC 6690) and Block2 (RFC 7959). */
#include "coap/coap.h"

#include <errno.h>
#include <string.h>

#include "core/node.h"
#include "coap/coap_priv.h"
#include "net/netapi.h"
#include "net/netif.h"
#include "net/netreg.h"
#include "pktbuf/pktbuf.h"
#include "net/netopt.h"
#include "shell/shell.h"
#include "wire/ipv6.h"

/* ---- responses: the window of a representation ---------------------------- */

void wren_coap_resp_write(struct wren_coap_resp *resp, const void *data, size_t len)
{
    const uint8_t *d = data;
    if (len == 0) {
        return;
    }
    size_t pos = resp->pos;
    resp->pos += len;
    size_t end = resp->off + resp->max;
    if (pos >= end || pos + len <= resp->off) {
        return;
    }
    size_t skip = pos < resp->off ? resp->off - pos : 0;
    size_t at = pos + skip - resp->off;
    size_t n = len - skip;
    if (n > resp->max - at) {
        n = resp->max - at;
    }
    memcpy(resp->buf + at, d + skip, n);
}

static size_t utoa(char *out, uint64_t v)
{
    char tmp[20];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++) {
        out[i] = tmp[n - 1 - i];
    }
    return n;
}

void wren_coap_resp_write_uint(struct wren_coap_resp *resp, uint64_t v)
{
    char s[20];
    wren_coap_resp_write(resp, s, utoa(s, v));
}

/* RFC 7252 5.10.8.1, 5.10.8.2 */
bool wren_coap_req_precond_ok(const struct wren_coap_req *req, const uint8_t *etag, size_t len,
                              bool exists)
{
    struct coap_opt_iter it;
    struct coap_opt o;
    bool has_match = false, matched = false;
    wren_coap_opt_iter_init(&it, req->msg);
    while (wren_coap_opt_next(&it, &o) > 0) {
        if (o.num == COAP_OPT_IF_MATCH) {
            has_match = true;
            /* an empty If-Match matches any current representation */
            if (exists && (o.len == 0 || (o.len == len && memcmp(o.val, etag, len) == 0))) {
                matched = true;
            }
        } else if (o.num == COAP_OPT_IF_NONE_MATCH && exists) {
            return false;
        }
    }
    return !has_match || matched;
}

/* ---- resources ------------------------------------------------------------------- */

/* Whether @p v is in @p l (ended by -1). */
static bool cf_in(const int16_t *l, int32_t v)
{
    for (; *l >= 0; l++) {
        if (*l == v) {
            return true;
        }
    }
    return false;
}

/* The @p k-th format @p r produces, -1 after the last. */
static int32_t res_cf(const struct wren_coap_resource *r, unsigned k)
{
    return r->cfs ? r->cfs[k] : k ? -1 : r->cf;
}

/* RFC 7252 5.10.4: whether @p r can answer in @p accept (-1: none asked). */
static bool res_produces(const struct wren_coap_resource *r, int32_t accept)
{
    if (accept < 0) {
        return true;
    }
    return r->cfs ? cf_in(r->cfs, accept) : r->cf < 0 || r->cf == accept;
}

int wren_coap_resource_add(struct wren_coap *c, const struct wren_coap_resource *r)
{
    if (r->handler == NULL || r->path == NULL || r->path[0] != '/') {
        return -EINVAL;
    }
    for (unsigned i = 0; i < c->n_res; i++) {
        if (strcmp(c->res[i]->path, r->path) == 0) {
            return -EEXIST;
        }
    }
    if (c->n_res >= CONFIG_WREN_COAP_RESOURCES + WREN_COAP_N_DEFAULT) {
        return -ENOSPC;
    }
    c->res[c->n_res++] = r;
    return 0;
}

int wren_coap_resource_remove(struct wren_coap *c, const struct wren_coap_resource *r)
{
    for (unsigned i = 0; i < c->n_res; i++) {
        if (c->res[i] == r) {
            c->res[i] = c->res[--c->n_res];
            return 0;
        }
    }
    return -ENOENT;
}

/* Whether the request's Uri-Path options spell @p path ("/a/b"; "/" is the
 * root: no Uri-Path, or one empty one, RFC 7252 6.5 step 8). */
static bool path_match(const struct coap_msg *m, const char *path)
{
    struct coap_opt_iter it;
    struct coap_opt o;
    const char *p = path + 1;
    wren_coap_opt_iter_init(&it, m);
    while (wren_coap_opt_next(&it, &o) > 0) {
        if (o.num < COAP_OPT_URI_PATH) {
            continue;
        }
        if (o.num > COAP_OPT_URI_PATH) {
            break;
        }
        const char *e = strchr(p, '/');
        size_t seg = e ? (size_t)(e - p) : strlen(p);
        if (seg != o.len || memcmp(p, o.val, seg) != 0) {
            return false;
        }
        p = e ? e + 1 : p + seg;
        if (!e && *p == '\0' && o.len == 0 && seg == 0) {
            continue; /* "/" and one empty segment */
        }
    }
    return *p == '\0';
}

/* ---- RFC 6690: /.well-known/core ------------------------------------------------ */

/* RFC 6690 4.1: @p v (@p n bytes) matches the query value @p pat (@p pn
 * bytes; a last '*' matches any rest). */
static bool lf_value_match(const char *v, size_t n, const uint8_t *pat, size_t pn)
{
    if (pn && pat[pn - 1] == '*') {
        pn--;
        return n >= pn && memcmp(v, pat, pn) == 0;
    }
    return n == pn && memcmp(v, pat, pn) == 0;
}

/* RFC 6690 4.1: whether @p r passes the filter @p q (one Uri-Query,
 * "name=value" or "name": the attribute is present). href matches the
 * path, ct the format, obs observability; other names are looked up in
 * r->attrs, whose quoted values are lists of space-separated words (rt, if:
 * RFC 6690 3.1, 3.2), each matched on its own. */
static bool lf_match(const struct wren_coap_resource *r, const uint8_t *q, size_t qn)
{
    const uint8_t *eq = memchr(q, '=', qn);
    size_t nn = eq ? (size_t)(eq - q) : qn;
    const uint8_t *pat = eq ? eq + 1 : q;
    size_t pn = eq ? qn - nn - 1 : 0;
    if (nn == 4 && memcmp(q, "href", 4) == 0) {
        return !eq || lf_value_match(r->path, strlen(r->path), pat, pn);
    }
    if (nn == 2 && memcmp(q, "ct", 2) == 0) {
        int32_t f;
        for (unsigned k = 0; (f = res_cf(r, k)) >= 0; k++) {
            char num[20];
            if (!eq || lf_value_match(num, utoa(num, (uint64_t)f), pat, pn)) {
                return true;
            }
        }
        return false;
    }
    if (nn == 3 && memcmp(q, "obs", 3) == 0) {
        return r->observable;
    }
    for (const char *a = r->attrs; a && (a = strchr(a, ';')) != NULL;) {
        a++;
        size_t k = 0;
        while (k < nn && a[k] != '\0' && a[k] == (char)q[k]) {
            k++;
        }
        if (k != nn || (a[k] != '=' && a[k] != ';' && a[k] != '\0')) {
            continue;
        }
        if (!eq) {
            return true;
        }
        if (a[k] != '=') {
            return false;
        }
        const char *v = a + k + 1;
        bool quoted = *v == '"';
        v += quoted;
        for (;;) {
            const char *e = v;
            while (*e && *e != (quoted ? '"' : ';') && !(quoted && *e == ' ')) {
                e++;
            }
            if (lf_value_match(v, (size_t)(e - v), pat, pn)) {
                return true;
            }
            if (*e != ' ') {
                return false;
            }
            v = e + 1;
        }
    }
    return false;
}

/* The links of every resource that passes each of @p m's Uri-Query filters. */
static void link_format(struct wren_coap *c, const struct coap_msg *m,
                        struct wren_coap_resp *resp)
{
    bool first = true;
    for (unsigned i = 0; i < c->n_res; i++) {
        const struct wren_coap_resource *r = c->res[i];
        struct coap_opt_iter it;
        struct coap_opt o;
        bool pass = true;
        wren_coap_opt_iter_init(&it, m);
        while (pass && wren_coap_opt_next(&it, &o) > 0) {
            if (o.num == COAP_OPT_URI_QUERY) {
                pass = lf_match(r, o.val, o.len);
            }
        }
        if (!pass) {
            continue;
        }
        if (!first) {
            wren_coap_resp_write(resp, ",", 1);
        }
        first = false;
        wren_coap_resp_write(resp, "<", 1);
        wren_coap_resp_write(resp, r->path, strlen(r->path));
        wren_coap_resp_write(resp, ">", 1);
        /* RFC 7252 7.2.1: several formats as one quoted list */
        bool several = res_cf(r, 1) >= 0;
        int32_t f;
        for (unsigned k = 0; (f = res_cf(r, k)) >= 0; k++) {
            wren_coap_resp_write(resp, k ? " " : ";ct=\"", k ? 1 : 4 + several);
            wren_coap_resp_write_uint(resp, (uint64_t)f);
        }
        wren_coap_resp_write(resp, "\"", several);
        if (r->observable) {
            wren_coap_resp_write(resp, ";obs", 4);
        }
        if (r->attrs) {
            wren_coap_resp_write(resp, r->attrs, strlen(r->attrs));
        }
    }
}

static void wellknown_get(struct wren_coap *c, const struct wren_coap_req *req,
                          struct wren_coap_resp *resp, void *arg)
{
    (void)arg;
    link_format(c, req->msg, resp);
}

static const struct wren_coap_resource wellknown = {
    .path = "/.well-known/core",
    .methods = WREN_COAP_GET,
    .cf = COAP_CF_LINK_FORMAT,
    .handler = wellknown_get,
};

/* ---- the duplicate cache (RFC 7252 4.5) ------------------------------------------ */

static uint32_t now_ms(struct wren_coap *c)
{
    return (uint32_t)(wren_node_now(c->node) / 1000u);
}

static bool dedup_live(const struct wren_coap_dedup *d, uint32_t now)
{
    return d->used && now - d->t_ms < (d->non ? CONFIG_WREN_COAP_NON_LIFETIME_MS
                                              : CONFIG_WREN_COAP_EXCHANGE_LIFETIME_MS);
}

/* The exchange a message of @p type with @p mid from @p ep repeats (a CON
 * and a NON with one ID are not copies of each other). */
static struct wren_coap_dedup *dedup_find(struct wren_coap *c, const struct wren_sock_udp_ep *ep,
                                          uint8_t type, uint16_t mid)
{
    uint32_t now = now_ms(c);
    for (unsigned i = 0; i < CONFIG_WREN_COAP_DEDUP; i++) {
        struct wren_coap_dedup *d = &c->dedup[i];
        if (dedup_live(d, now) && d->mid == mid && d->non == (type == COAP_NON) &&
            d->port == ep->port &&
            memcmp(d->addr, ep->addr, 16) == 0) {
            return d;
        }
    }
    return NULL;
}

static bool same_ep(const struct wren_coap_dedup *d, const uint8_t *addr, uint16_t port)
{
    return d->port == port && memcmp(d->addr, addr, 16) == 0;
}

/* RFC 7252 4.5: whether executing a duplicate again is harmless (all but
 * POST and PATCH, RFC 8132 2; an unknown method is only answered 4.05). */
static bool method_idempotent(uint8_t code)
{
    return code != COAP_CODE_POST && code != COAP_CODE(0, 6);
}

/* A slot for a new exchange from @p ep: a free or expired one, else a live
 * one given up (counted), in order: the oldest of @p ep's own (a client has
 * one request outstanding at a time, NSTART = 1, RFC 7252 4.7: its new
 * request ends its older exchanges); the oldest whose endpoint has a newer
 * one (ended the same way; a block-wise transfer of many requests holds one
 * slot); the oldest of an idempotent CON or a NON (a duplicate executed
 * again does no harm). A CON of POST or PATCH is never given up within
 * EXCHANGE_LIFETIME: when every slot holds one, NULL, and *wait_s says in
 * how many seconds the oldest expires. */
static struct wren_coap_dedup *dedup_slot(struct wren_coap *c, const struct wren_sock_udp_ep *ep,
                                          uint32_t *wait_s)
{
    uint32_t now = now_ms(c);
    struct wren_coap_dedup *best = NULL;
    unsigned best_rank = 4;
    for (unsigned i = 0; i < CONFIG_WREN_COAP_DEDUP; i++) {
        struct wren_coap_dedup *d = &c->dedup[i];
        if (!dedup_live(d, now)) {
            return d;
        }
        /* 0: @p ep's own, 1: its endpoint has a newer one, 2: idempotent or
         * NON, 3: a non-idempotent CON's response */
        unsigned rank = same_ep(d, ep->addr, ep->port) ? 0 : d->idempotent || d->non ? 2 : 3;
        for (unsigned k = 0; k < CONFIG_WREN_COAP_DEDUP && rank > 1; k++) {
            const struct wren_coap_dedup *e = &c->dedup[k];
            if (same_ep(e, d->addr, d->port) && (int32_t)(e->seq - d->seq) > 0) {
                rank = 1;
            }
        }
        /* the oldest of the best rank (storing order is time order) */
        if (rank < best_rank || (rank == best_rank && (int32_t)(best->seq - d->seq) > 0)) {
            best = d;
            best_rank = rank;
        }
    }
    if (best_rank < 3) {
        c->stats.dedup_evicted++;
        return best;
    }
    *wait_s = (CONFIG_WREN_COAP_EXCHANGE_LIFETIME_MS - (now - best->t_ms) + 999u) / 1000u;
    return NULL;
}

/* ---- sending ------------------------------------------------------------------------ */

int wren_coap_send(struct wren_coap *c, const uint8_t *msg, size_t len,
                   const struct wren_sock_udp_ep *to)
{
    if (wren_sock_udp_send(&c->sock, msg, len, to) < 0) {
        c->stats.tx_drop++;
        return -ENOBUFS;
    }
    c->stats.tx++;
    return 0;
}

uint32_t wren_coap_ack_timeout(struct wren_coap *c)
{
    uint32_t spread = c->ack_timeout_ms * (c->ack_random_permille - 1000u) / 1000u;
    return c->ack_timeout_ms + (spread ? wren_node_random_below(c->node, spread + 1) : 0);
}

/* Answer request @p m with @p code and one uint option @p opt = @p v, made
 * without running it (ACK for a CON, else NON). */
static void answer_opt(struct wren_coap *c, const struct coap_msg *m,
                       const struct wren_sock_udp_ep *to, uint8_t code, uint16_t opt, uint32_t v)
{
    uint8_t b[COAP_HDR_LEN + COAP_TOKEN_MAX + 6];
    struct coap_builder bld;
    bool con = m->type == COAP_CON;
    wren_coap_build_init(&bld, b, sizeof(b), con ? COAP_ACK : COAP_NON, code,
                         con ? m->mid : c->next_mid++, m->token, m->tkl);
    wren_coap_build_opt_uint(&bld, opt, v);
    int n = wren_coap_build_end(&bld);
    if (n > 0) {
        wren_coap_send(c, b, (size_t)n, to);
    }
}

static void send_empty(struct wren_coap *c, uint8_t type, uint16_t mid,
                       const struct wren_sock_udp_ep *to)
{
    uint8_t b[COAP_HDR_LEN];
    struct coap_builder bld;
    wren_coap_build_init(&bld, b, sizeof(b), type, COAP_CODE_EMPTY, mid, NULL, 0);
    wren_coap_send(c, b, COAP_HDR_LEN, to);
}

/* ---- requests ------------------------------------------------------------------------ */

/* What the option walk found (RFC 7252 5.4): the value of each option of
 * ro_nums (uint, 0 when absent) and which were present. */
enum { RO_ACCEPT, RO_CF, RO_BLOCK2, RO_BLOCK1, RO_SIZE1, RO_OBSERVE, RO_PROXY_URI,
       RO_PROXY_SCHEME, RO_N };
static const uint8_t ro_nums[RO_N] = {
    COAP_OPT_ACCEPT, COAP_OPT_CONTENT_FORMAT, COAP_OPT_BLOCK2, COAP_OPT_BLOCK1,
    COAP_OPT_SIZE1,  COAP_OPT_OBSERVE,        COAP_OPT_PROXY_URI, COAP_OPT_PROXY_SCHEME,
};

struct req_opts {
    uint32_t v[RO_N];
    uint16_t has;    /* bit k: ro_nums[k] present */
    uint8_t bad;     /* an unrecognized critical option */
};

#define RO_HAS(ro, k) (((ro)->has >> (k)) & 1u)

/* Option @p k's value, -1 when absent (Accept, Content-Format). */
static int32_t ro_int(const struct req_opts *ro, unsigned k)
{
    return RO_HAS(ro, k) ? (int32_t)ro->v[k] : -1;
}

static void req_scan(const struct coap_msg *m, struct req_opts *ro)
{
    struct coap_opt_iter it;
    struct coap_opt o;
    uint32_t prev = 0x10000;
    memset(ro, 0, sizeof(*ro));
    wren_coap_opt_iter_init(&it, m);
    while (wren_coap_opt_next(&it, &o) > 0) {
        /* 5.4.3: a bad length is an unrecognized option; 5.4.5: so is a
         * repeated non-repeatable one */
        bool known = wren_coap_opt_known(o.num, o.len) &&
                     (o.num != prev || wren_coap_opt_repeatable(o.num));
        prev = o.num;
        if (!known) {
            ro->bad |= COAP_OPT_CRITICAL(o.num);
            continue;
        }
        for (unsigned k = 0; k < RO_N; k++) {
            if (o.num == ro_nums[k]) {
                (void)wren_coap_opt_uint(&o, &ro->v[k]);
                ro->has |= (uint16_t)(1u << k);
            }
        }
    }
}

/* RFC 7252 5.9.2.9: the largest body a request with a token of @p tkl
 * bytes and @p opts bytes of options can carry in a message the server
 * takes (Size1 of a 4.13). */
static uint32_t body_max(uint8_t tkl, size_t opts)
{
    size_t over = COAP_HDR_LEN + tkl + opts + 1;
    return over < CONFIG_WREN_COAP_MSG_MAX ? (uint32_t)(CONFIG_WREN_COAP_MSG_MAX - over) : 0;
}

/* Whether one of @p m's ETag options is @p etag (@p len bytes, 0: none). */
static bool etag_listed(const struct coap_msg *m, const uint8_t *etag, size_t len)
{
    struct coap_opt_iter it;
    struct coap_opt o;
    wren_coap_opt_iter_init(&it, m);
    while (len && wren_coap_opt_next(&it, &o) > 0 && o.num <= COAP_OPT_ETAG) {
        if (o.num == COAP_OPT_ETAG && o.len == len && memcmp(o.val, etag, len) == 0) {
            return true;
        }
    }
    return false;
}

static const struct wren_coap_resource *find_resource(struct wren_coap *c,
                                                      const struct coap_msg *m)
{
    if (path_match(m, wellknown.path)) {
        return &wellknown;
    }
    for (unsigned i = 0; i < c->n_res; i++) {
        if (path_match(m, c->res[i]->path)) {
            return c->res[i];
        }
    }
    return NULL;
}

static uint8_t default_code(uint8_t method)
{
    switch (method) {
    case COAP_CODE_GET:
        return COAP_CODE_CONTENT;
    case COAP_CODE_DELETE:
        return COAP_CODE_DELETED;
    default:
        return COAP_CODE_CHANGED;
    }
}

/* ---- Block1 uploads (RFC 7959 2.5) ------------------------------------------------ */

static bool block1_live(const struct wren_coap_block1 *u, uint32_t now)
{
    return u->used && now - u->t_ms < CONFIG_WREN_COAP_EXCHANGE_LIFETIME_MS;
}

/* The upload of @p ep to @p r, or (@p start) a slot for a new one: its own,
 * a free or expired one; NULL when none. */
static struct wren_coap_block1 *block1_slot(struct wren_coap *c,
                                            const struct wren_sock_udp_ep *ep,
                                            const struct wren_coap_resource *r, bool start)
{
    uint32_t now = now_ms(c);
    struct wren_coap_block1 *free_slot = NULL;
    for (unsigned i = 0; i < sizeof(c->block1) / sizeof(c->block1[0]); i++) {
        struct wren_coap_block1 *u = &c->block1[i];
        if (!block1_live(u, now)) {
            if (!free_slot) {
                free_slot = u;
            }
            continue;
        }
        if (u->res == r && u->port == ep->port && memcmp(u->addr, ep->addr, 16) == 0) {
            return u;
        }
    }
    if (!start || !free_slot) {
        return NULL;
    }
    *free_slot = (struct wren_coap_block1){ .res = r, .port = ep->port, .used = 1, .t_ms = now };
    memcpy(free_slot->addr, ep->addr, 16);
    return free_slot;
}

/* Check Block1 value @p v of a request to @p r (which takes blocks) against
 * its upload; fill @p req's block fields. @return 0, or the error code to
 * answer (the upload is then forgotten). */
static uint8_t block1_check(struct wren_coap *c, const struct wren_coap_resource *r,
                            const struct wren_sock_udp_ep *from, const struct coap_msg *m,
                            uint32_t v, struct coap_block *b1, struct wren_coap_req *req,
                            struct wren_coap_block1 **up)
{
    (void)wren_coap_block_decode(v, b1); /* as Block2's: it decodes */
    if (!CONFIG_WREN_COAP_BLOCK1 || !r->block1) {
        if (b1->num == 0 && !b1->more) {
            return 0; /* the whole body in one block */
        }
        c->stats.req_too_large++;
        return COAP_CODE_TOO_LARGE;
    }
    struct wren_coap_block1 *u = block1_slot(c, from, r, b1->num == 0);
    if (u == NULL && b1->num == 0) {
        c->stats.req_block1_busy++;
        return COAP_CODE_SERVICE_UNAVAILABLE;
    }
    if (b1->num == 0) {
        u->next = 0;
        u->szx = b1->szx;
    }
    /* RFC 7959 2.5: blocks in order, one size; all but the last full */
    if (u == NULL || u->next != b1->num || u->szx != b1->szx ||
        (b1->more && m->payload_len != COAP_BLOCK_SIZE(b1->szx))) {
        if (u) {
            u->used = 0;
        }
        c->stats.req_incomplete++;
        return COAP_CODE_REQUEST_INCOMPLETE;
    }
    req->block_off = (size_t)b1->num << (b1->szx + 4);
    req->block_more = b1->more;
    *up = u;
    return 0;
}

/* ---- observers (RFC 7641) ---------------------------------------------------------- */

static bool obs_match(const struct wren_coap_observer *o, const struct wren_sock_udp_ep *ep,
                      const uint8_t *token, uint8_t tkl)
{
    return o->used && o->ep.port == ep->port && memcmp(o->ep.addr, ep->addr, 16) == 0 &&
           o->tkl == tkl && memcmp(o->token, token, tkl) == 0;
}

static void obs_free(struct wren_coap_observer *o)
{
    wren_timer_cancel(o->c->node, &o->timer);
    o->used = 0;
}

/* Remove the observation of @p ep with @p token (RFC 7641 3.6). */
static void obs_remove(struct wren_coap *c, const struct wren_sock_udp_ep *ep,
                       const uint8_t *token, uint8_t tkl)
{
    for (unsigned i = 0; i < CONFIG_WREN_COAP_OBSERVERS; i++) {
        if (obs_match(&c->obs[i], ep, token, tkl)) {
            c->stats.obs_remove++;
            obs_free(&c->obs[i]);
        }
    }
}

static void obs_timer(struct wren_timer *t, void *arg);

/* RFC 7641 4.1: an entry per endpoint and token; a registration with the
 * same replaces it (for whatever resource it names now), another token is
 * another observer. @p accept is the registration's Accept (-1: none), kept
 * for the notifications. NULL when every slot is in use: the request is
 * answered without Observe, and the observers stay as they were. */
static struct wren_coap_observer *obs_register(struct wren_coap *c,
                                               const struct wren_coap_resource *r,
                                               const struct wren_sock_udp_ep *ep,
                                               const struct coap_msg *m, int32_t accept)
{
    struct wren_coap_observer *o = NULL;
    for (unsigned i = 0; i < CONFIG_WREN_COAP_OBSERVERS; i++) {
        struct wren_coap_observer *e = &c->obs[i];
        if (obs_match(e, ep, m->token, m->tkl)) {
            o = e;
            break;
        }
        if (!e->used && !o) {
            o = e;
        }
    }
    if (o == NULL) {
        c->stats.obs_full++;
        return NULL;
    }
    if (!o->used) {
        c->stats.obs_add++;
        *o = (struct wren_coap_observer){ .c = c, .used = 1, .ep = *ep, .tkl = m->tkl };
        memcpy(o->token, m->token, m->tkl);
        wren_timer_init(&o->timer, obs_timer, o);
    }
    o->res = r;
    o->accept = (int16_t)accept;
    return o;
}


/* What is refused before any handler runs (RFC 7252 5.4, 5.7.2, 5.8,
 * 5.10.3, 5.10.4; RFC 7959 2.2): the code to answer, counted, with *rp NULL;
 * or 0 with *rp the resource to run. */
static uint8_t req_refusal(struct wren_coap *c, const struct coap_msg *m,
                           const struct req_opts *ro, const struct wren_coap_resource **rp)
{
    const struct wren_coap_resource *r = NULL;
    *rp = NULL;
    if (ro->bad) {
        c->stats.req_bad_option++;
        return COAP_CODE_BAD_OPTION; /* an unrecognized critical option */
    }
    if ((RO_HAS(ro, RO_BLOCK1) && (ro->v[RO_BLOCK1] & 7u) == 7u) ||
        (RO_HAS(ro, RO_BLOCK2) && (ro->v[RO_BLOCK2] & 7u) == 7u)) {
        /* RFC 7959 2.2: SZX 7 is reserved (BERT over TCP, RFC 8323 6, which
         * this server never offers in its CSM) */
        c->stats.req_bad_szx++;
        return COAP_CODE_BAD_REQUEST;
    }
    if (ro->has & ((1u << RO_PROXY_URI) | (1u << RO_PROXY_SCHEME))) {
        c->stats.req_proxy++;
        return COAP_CODE_PROXYING_NOT_SUPPORTED;
    }
    if ((r = find_resource(c, m)) == NULL) {
        c->stats.req_not_found++;
        return COAP_CODE_NOT_FOUND;
    }
    if (m->code > COAP_CODE_DELETE || !(r->methods & (1u << m->code))) {
        c->stats.req_not_allowed++;
        return COAP_CODE_METHOD_NOT_ALLOWED; /* also unknown methods */
    }
    if (!res_produces(r, ro_int(ro, RO_ACCEPT))) {
        c->stats.req_not_acceptable++;
        return COAP_CODE_NOT_ACCEPTABLE; /* whatever the method */
    }
    if ((m->code == COAP_CODE_POST || m->code == COAP_CODE_PUT) && r->accepts &&
        RO_HAS(ro, RO_CF) && !cf_in(r->accepts, ro_int(ro, RO_CF))) {
        c->stats.req_unsupported_cf++;
        return COAP_CODE_UNSUPPORTED_FORMAT;
    }
    *rp = r;
    return 0;
}

/* The header and options of @p resp (its payload written at c->tx +
 * WREN_COAP_RESP_HDR_ROOM) into a scratch buffer, then placed right before
 * the payload. @return its offset in c->tx, and *len. */
int wren_coap_place_response(struct wren_coap *c, struct wren_coap_resp *resp,
                             struct wren_coap_resp_meta *mt, size_t *len)
{
    uint8_t *pl = c->tx + WREN_COAP_RESP_HDR_ROOM;
    uint8_t hdr[WREN_COAP_RESP_HDR_ROOM];
    struct coap_builder b;
    wren_coap_build_init(&b, hdr, sizeof(hdr), mt->type, resp->code, mt->mid, mt->token,
                         mt->tkl);
    if (resp->etag_len) {
        wren_coap_build_opt(&b, COAP_OPT_ETAG, resp->etag, resp->etag_len);
    }
    if (mt->observe >= 0 && COAP_CODE_CLASS(resp->code) == 2) {
        wren_coap_build_opt_uint(&b, COAP_OPT_OBSERVE, (uint32_t)mt->observe & COAP_OBSERVE_MASK);
    }
    bool ok = COAP_CODE_CLASS(resp->code) == 2;
    if (ok && resp->location_path) {
        wren_coap_build_opt_path(&b, COAP_OPT_LOCATION_PATH, resp->location_path);
    }
    size_t plen = 0;
    if (ok && resp->pos > resp->off) {
        plen = resp->pos - resp->off;
        if (plen > resp->max) {
            plen = resp->max;
        }
    }
    if (resp->cf >= 0 && ok && (plen || mt->get)) {
        wren_coap_build_opt_uint(&b, COAP_OPT_CONTENT_FORMAT, (uint32_t)resp->cf);
    }
    if (resp->has_max_age) {
        wren_coap_build_opt_uint(&b, COAP_OPT_MAX_AGE, resp->max_age);
    }
    if (ok && resp->location_query) {
        wren_coap_build_opt_query(&b, COAP_OPT_LOCATION_QUERY, resp->location_query);
    }
    if (mt->block) {
        mt->blk.more = resp->pos > resp->off + plen;
        wren_coap_build_opt_uint(&b, COAP_OPT_BLOCK2, (uint32_t)wren_coap_block_encode(&mt->blk));
    }
    if (CONFIG_WREN_COAP_BLOCK1 && mt->has_b1 && ok) {
        /* RFC 7959 2.5: the block acknowledged (M: the server waits for more) */
        mt->b1.more = resp->code == COAP_CODE_CONTINUE;
        wren_coap_build_opt_uint(&b, COAP_OPT_BLOCK1, (uint32_t)wren_coap_block_encode(&mt->b1));
    }
    if (mt->block && mt->blk.num == 0) {
        wren_coap_build_opt_uint(&b, COAP_OPT_SIZE2, (uint32_t)resp->pos);
    }
    if (resp->size1 && resp->code == COAP_CODE_TOO_LARGE) {
        wren_coap_build_opt_uint(&b, COAP_OPT_SIZE1, resp->size1);
    }
    int hl = wren_coap_build_end(&b);
    if (hl < 0) {
        /* only Location options beyond CONFIG_WREN_COAP_LOCATION_ROOM: the
         * handler's mistake, answered 5.00 without options */
        wren_coap_build_init(&b, hdr, sizeof(hdr), mt->type, COAP_CODE_INTERNAL_ERROR, mt->mid,
                             mt->token, mt->tkl);
        hl = wren_coap_build_end(&b);
        plen = 0;
    }
    uint8_t *start = pl - (plen ? 1 : 0) - hl;
    memcpy(start, hdr, (size_t)hl);
    if (plen) {
        pl[-1] = COAP_PAYLOAD_MARKER;
    }
    *len = (size_t)hl + (plen ? 1 + plen : 0);
    return (int)(start - c->tx);
}

/* After the handler: whether @p resp goes in Block2 block @p blk (RFC 7959
 * 2.4, 2.6: a representation larger than a message, or than the block the
 * request asked for, whatever the method); an answer no block can carry
 * becomes 4.02 (a block beyond the end) or 5.00 (a POST/PUT answer its
 * resource cannot write again for the later blocks), never cut. */
static bool resp_blockwise(struct wren_coap *c, const struct wren_coap_resource *r,
                           const struct coap_msg *m, struct wren_coap_resp *resp,
                           struct coap_block *blk, bool block)
{
    size_t room = CONFIG_WREN_COAP_MSG_MAX - WREN_COAP_RESP_HDR_ROOM;
    bool get = m->code == COAP_CODE_GET;
    if (COAP_CODE_CLASS(resp->code) != 2 || resp->code == COAP_CODE_VALID) {
        resp->off = 0;
        return false;
    }
    if (!block && resp->pos > room) {
        /* larger than a message: the first block (RFC 7959 2.4) */
        *blk = (struct coap_block){ .num = 0, .szx = (uint8_t)wren_coap_block_szx_fit(room) };
        resp->max = COAP_BLOCK_SIZE(blk->szx);
        block = true;
    } else if (block && !get && blk->num == 0 && resp->pos <= resp->max) {
        return false; /* a POST/PUT answer within the block asked for */
    }
    if (block && !get && !r->replays) {
        c->stats.resp_too_large++;
        *resp = (struct wren_coap_resp){ .code = COAP_CODE_INTERNAL_ERROR, .cf = -1 };
        return false;
    }
    if (block && resp->off > 0 && resp->off >= resp->pos) {
        c->stats.req_bad_option++;
        *resp = (struct wren_coap_resp){ .code = COAP_CODE_BAD_OPTION, .cf = -1 };
        return false;
    }
    return block;
}

/* wren_coap_place_response(), and beyond @p limit bytes (a multicast
 * answer's slot; 0: none) a GET's 2.xx as block 0 of the largest size that
 * fits, the rest fetched unicast (RFC 7959 2.4, 2.8). */
static int place_within(struct wren_coap *c, struct wren_coap_resp *resp,
                        struct wren_coap_resp_meta *mt, size_t *len, size_t limit)
{
    int at = wren_coap_place_response(c, resp, mt, len);
    uint8_t szx = (uint8_t)wren_coap_block_szx_fit(CONFIG_WREN_COAP_MSG_MAX -
                                                   WREN_COAP_RESP_HDR_ROOM);
    while (limit && *len > limit && mt->get && COAP_CODE_CLASS(resp->code) == 2 &&
           resp->off == 0 && (mt->block ? mt->blk.szx : szx) > 0) {
        szx = (uint8_t)((mt->block ? mt->blk.szx : szx) - 1);
        mt->block = true;
        mt->blk = (struct coap_block){ .num = 0, .szx = szx };
        resp->max = COAP_BLOCK_SIZE(szx);
        at = wren_coap_place_response(c, resp, mt, len);
    }
    return at;
}

/* handle_request(): no response now (a NON whose handler deferred it) */
#define WREN_COAP_NO_RESPONSE (-2)

/* Run the request and build the response into c->tx. @return its offset in
 * c->tx and *len, -1 for a RST (NON with an unrecognized critical option), or
 * WREN_COAP_NO_RESPONSE (a NON whose handler deferred its response).
 * With @p obs, observations are that transport's (CoAP over TCP), which has
 * no separate responses: its handlers cannot defer. */
int wren_coap_handle_request(struct wren_coap *c, const struct coap_msg *m,
                             const struct wren_sock_udp_ep *from, size_t *len,
                             size_t limit, wren_coap_obs_fn obs, void *obs_arg)
{
    struct req_opts ro;
    req_scan(m, &ro);
    const struct wren_coap_resource *r = NULL;
    struct coap_block blk = { 0 }, b1 = { 0 };
    bool block = false, has_b1 = false;
    struct wren_coap_block1 *up = NULL;
    int32_t observe = -1;
    uint8_t *pl = c->tx + WREN_COAP_RESP_HDR_ROOM;
    size_t room = CONFIG_WREN_COAP_MSG_MAX - WREN_COAP_RESP_HDR_ROOM;
    struct wren_coap_resp resp = { .cf = -1, .buf = pl, .max = room };

    if (ro.bad && m->type == COAP_NON) {
        c->stats.req_rst++;
        return -1; /* RFC 7252 5.4.1: a NON is rejected */
    }
    resp.code = req_refusal(c, m, &ro, &r);

    if (r) {
        /* RFC 7959 2.4: the block asked for, no larger than what fits */
        int fit = wren_coap_block_szx_fit(room);
        if (RO_HAS(&ro, RO_BLOCK2)) {
            /* (it decodes: at most 3 bytes, req_scan; not SZX 7, checked) */
            (void)wren_coap_block_decode(ro.v[RO_BLOCK2], &blk);
            if (blk.szx > fit) {
                blk.num <<= blk.szx - fit; /* same offset, smaller blocks */
                blk.szx = (uint8_t)fit;
            }
            block = true;
        }
        struct wren_coap_req req = {
            .msg = m, .remote = *from, .method = m->code, .cf = ro_int(&ro, RO_CF),
            .accept = ro_int(&ro, RO_ACCEPT), .payload = m->payload,
            .payload_len = m->payload_len, .size1 = ro.v[RO_SIZE1],
            .again = block && blk.num > 0 && m->code != COAP_CODE_GET,
            .block2 = RO_HAS(&ro, RO_BLOCK2) ? ro.v[RO_BLOCK2] + 1 : 0,
        };
        if (req.again && (!r->replays || m->code > COAP_CODE_PUT)) {
            /* a later block of an answer the resource cannot write again:
             * not executed a second time (RFC 7959 2.6) */
            c->stats.req_bad_option++;
            resp.code = COAP_CODE_BAD_OPTION;
            block = false;
            r = NULL;
        } else if (req.again) {
            c->stats.req_block2_later++;
            req.payload_len = 0; /* the body was the first request's */
        } else if (r && RO_HAS(&ro, RO_BLOCK1) &&
            (m->code == COAP_CODE_PUT || m->code == COAP_CODE_POST)) {
            uint8_t err = block1_check(c, r, from, m, ro.v[RO_BLOCK1], &b1, &req, &up);
            if (err) {
                resp.code = err;
                resp.size1 = body_max(m->tkl, m->opts_len); /* sent with a 4.13 only */
                r = NULL;
            } else {
                has_b1 = CONFIG_WREN_COAP_BLOCK1 && r->block1;
            }
        }
        if (r) {
            if (block) {
                resp.off = (size_t)blk.num << (blk.szx + 4);
                resp.max = COAP_BLOCK_SIZE(blk.szx);
            }
            resp.code = req.block_more ? COAP_CODE_CONTINUE : default_code(m->code);
            resp.cf = r->cfs && req.accept >= 0 ? req.accept : r->cf;
            c->stats.req++;
            c->in_handler = 1;
            c->cur_req = obs ? NULL : &req;
            r->handler(c, &req, &resp, r->arg);
            c->cur_req = NULL;
            c->in_handler = 0;
            if (c->deferred) {
                /* RFC 7252 5.2.2: a CON is acknowledged now (an empty ACK), a
                 * NON answered later only */
                c->deferred = 0;
                if (CONFIG_WREN_COAP_BLOCK1 && up) {
                    up->used = 0;
                }
                if (m->type == COAP_NON) {
                    return WREN_COAP_NO_RESPONSE;
                }
                struct wren_coap_resp ack = { .code = COAP_CODE_EMPTY, .cf = -1 };
                struct wren_coap_resp_meta am = { .type = COAP_ACK, .mid = m->mid, .observe = -1 };
                return wren_coap_place_response(c, &ack, &am, len);
            }
            if (m->code == COAP_CODE_GET) {
                bool ok = COAP_CODE_CLASS(resp.code) == 2;
                if (obs) {
                    observe = obs(obs_arg, r, m,
                                  RO_HAS(&ro, RO_OBSERVE) && ro.v[RO_OBSERVE] == COAP_OBSERVE_REGISTER && ok &&
                                      r->observable,
                                  !block || blk.num == 0);
                } else if (RO_HAS(&ro, RO_OBSERVE) && ro.v[RO_OBSERVE] == COAP_OBSERVE_REGISTER && ok &&
                           r->observable) {
                    if (obs_register(c, r, from, m, req.accept)) {
                        /* RFC 7641 4.4: newer than any notification sent */
                        c->obs_seq = (c->obs_seq + 1) & COAP_OBSERVE_MASK;
                        observe = (int32_t)c->obs_seq;
                    }
                } else if (!block || blk.num == 0) {
                    /* RFC 7641 3.6: a GET without Observe (not for a later
                     * block) or with 1 ends the token's observation */
                    obs_remove(c, from, m->token, m->tkl);
                }
            }
            if (CONFIG_WREN_COAP_BLOCK1 && up) {
                /* the upload goes on after a 2.31, ends after anything else */
                if (req.block_more && resp.code == COAP_CODE_CONTINUE) {
                    up->next++;
                    up->t_ms = now_ms(c);
                } else {
                    up->used = 0;
                }
            }
            if (m->code == COAP_CODE_GET && resp.code == COAP_CODE_CONTENT &&
                etag_listed(m, resp.etag, resp.etag_len)) {
                /* RFC 7252 5.10.6.2: the client's copy is current */
                c->stats.req_valid++;
                resp.code = COAP_CODE_VALID;
                resp.cf = -1;
                resp.pos = 0;
            }
            block = resp_blockwise(c, r, m, &resp, &blk, block);
        }
    }

    struct wren_coap_resp_meta meta = {
        .type = m->type == COAP_CON ? COAP_ACK : COAP_NON,
        .mid = m->type == COAP_CON ? m->mid : c->next_mid++,
        .token = m->token, .tkl = m->tkl, .block = block, .blk = blk, .has_b1 = has_b1,
        .b1 = b1, .observe = observe, .get = m->code == COAP_CODE_GET,
    };
    return place_within(c, &resp, &meta, len, limit);
}

/* ---- notifications (RFC 7641 4.2, 4.5) ------------------------------------------------ */

/* Send @p o a notification of its resource's current state (a new message ID,
 * the next sequence number; CON when due). */
static void obs_send(struct wren_coap_observer *o)
{
    struct wren_coap *c = o->c;
    const struct wren_coap_resource *r = o->res;
    size_t room = CONFIG_WREN_COAP_MSG_MAX - WREN_COAP_RESP_HDR_ROOM;
    /* the format the registration asked for (it was one r produces) */
    struct wren_coap_resp resp = { .code = COAP_CODE_CONTENT,
                                   .cf = r->cfs && o->accept >= 0 ? o->accept : r->cf,
                                   .buf = c->tx + WREN_COAP_RESP_HDR_ROOM, .max = room };
    struct coap_msg empty = { .code = COAP_CODE_GET, .tkl = o->tkl };
    memcpy(empty.token, o->token, o->tkl);
    struct wren_coap_req req = { .msg = &empty, .remote = o->ep, .method = COAP_CODE_GET,
                                 .cf = -1, .accept = o->accept, .notify = true };
    c->in_handler = 1;
    r->handler(c, &req, &resp, r->arg);
    c->in_handler = 0;
    if (COAP_CODE_CLASS(resp.code) != 2) {
        /* RFC 7641 3.2: a non-2.xx notification ends the observation */
        resp.pos = 0;
    }
    uint32_t now = (uint32_t)(wren_node_now(c->node) / 1000u);
    bool con = !o->had_con || now - o->last_con_ms >= c->obs_con_ms;
    c->obs_seq = (c->obs_seq + 1) & COAP_OBSERVE_MASK;
    o->mid = c->next_mid++;
    struct wren_coap_resp_meta mt = { .type = con ? COAP_CON : COAP_NON, .mid = o->mid, .token = o->token,
                            .tkl = o->tkl, .get = true, .observe = (int32_t)c->obs_seq };
    if (resp.pos > room) {
        /* RFC 7959 3.4: the first block; the client asks for the rest */
        mt.block = true;
        mt.blk = (struct coap_block){ .num = 0, .szx = (uint8_t)wren_coap_block_szx_fit(room) };
        resp.max = COAP_BLOCK_SIZE(mt.blk.szx);
    }
    size_t len;
    int at = wren_coap_place_response(c, &resp, &mt, &len);
    c->stats.obs_notify++;
    o->dirty = 0;
    if (wren_sock_udp_send(&c->sock, c->tx + at, len, &o->ep) < 0) {
        c->stats.tx_drop++;
    } else {
        c->stats.tx++;
    }
    if (COAP_CODE_CLASS(resp.code) != 2) {
        obs_free(o);
        return;
    }
    if (con) {
        c->stats.obs_con++;
        o->con_pending = 1;
        o->retx = 0;
        o->timeout_ms = wren_coap_ack_timeout(c);
        wren_timer_set(c->node, &o->timer, (uint64_t)o->timeout_ms * 1000u);
    }
}

/* A CON notification's ACK did not come: send the current state again
 * (RFC 7641 4.5.2), or give the observer up after MAX_RETRANSMIT. */
static void obs_timer(struct wren_timer *t, void *arg)
{
    (void)t;
    struct wren_coap_observer *o = arg;
    struct wren_coap *c = o->c;
    if (o->retx >= c->max_retransmit) {
        c->stats.obs_timeout++;
        obs_free(o);
        return;
    }
    uint8_t retx = (uint8_t)(o->retx + 1);
    uint32_t timeout = o->timeout_ms * 2;
    o->had_con = 0; /* makes it CON again */
    obs_send(o);
    if (o->used) {
        o->retx = retx;
        o->timeout_ms = timeout;
        wren_timer_set(c->node, &o->timer, (uint64_t)timeout * 1000u);
    }
}

int wren_coap_notify(struct wren_coap *c, const struct wren_coap_resource *r)
{
    int n = 0;
    for (unsigned i = 0; i < CONFIG_WREN_COAP_OBSERVERS; i++) {
        struct wren_coap_observer *o = &c->obs[i];
        if (!o->used || o->res != r) {
            continue;
        }
        n++;
        if (o->con_pending || c->in_handler) {
            /* sent when the pending one is acknowledged, or after the response */
            o->dirty = 1;
            c->notify_deferred |= c->in_handler;
            continue;
        }
        obs_send(o);
    }
    if (c->tcp_notify) {
        n += c->tcp_notify(c->tcp_arg, r); /* CoAP over TCP's observers */
    }
    return n;
}

/* Notifications a handler asked for, now that its response is out. */
void wren_coap_obs_flush(struct wren_coap *c)
{
    c->notify_deferred = 0;
    if (c->tcp_notify) {
        (void)c->tcp_notify(c->tcp_arg, NULL);
    }
    for (unsigned i = 0; i < CONFIG_WREN_COAP_OBSERVERS; i++) {
        struct wren_coap_observer *o = &c->obs[i];
        if (o->used && o->dirty && !o->con_pending) {
            obs_send(o);
        }
    }
}

int wren_coap_set_tx_params(struct wren_coap *c, uint32_t ack_timeout_ms,
                            uint16_t ack_random_permille, uint8_t max_retransmit)
{
    if (ack_timeout_ms == 0 || ack_random_permille < 1000) {
        return -EINVAL;
    }
    c->ack_timeout_ms = ack_timeout_ms;
    c->ack_random_permille = ack_random_permille;
    c->max_retransmit = max_retransmit;
    return 0;
}

void wren_coap_set_obs_con_ms(struct wren_coap *c, uint32_t ms)
{
    c->obs_con_ms = ms;
}

/* An ACK or RST from @p from: a notification's? */
static bool obs_input(struct wren_coap *c, const struct coap_msg *m,
                      const struct wren_sock_udp_ep *from)
{
    for (unsigned i = 0; i < CONFIG_WREN_COAP_OBSERVERS; i++) {
        struct wren_coap_observer *o = &c->obs[i];
        if (!o->used || o->mid != m->mid || o->ep.port != from->port ||
            memcmp(o->ep.addr, from->addr, 16) != 0) {
            continue;
        }
        if (m->type == COAP_RST) {
            c->stats.obs_rst++; /* RFC 7641 3.6: the client has forgotten it */
            obs_free(o);
            return true;
        }
        if (o->con_pending) {
            wren_timer_cancel(c->node, &o->timer);
            o->con_pending = 0;
            o->had_con = 1;
            o->last_con_ms = (uint32_t)(wren_node_now(c->node) / 1000u);
            if (o->dirty) {
                obs_send(o);
            }
        }
        return true;
    }
    return false;
}

/* ---- the message layer ---------------------------------------------------------------- */

static void dedup_store(struct wren_coap *c, struct wren_coap_dedup *d,
                        const struct wren_sock_udp_ep *from, const struct coap_msg *m,
                        const uint8_t *resp, size_t len)
{
    memcpy(d->addr, from->addr, 16);
    d->port = from->port;
    d->mid = m->mid;
    d->t_ms = now_ms(c);
    d->seq = c->dedup_seq++;
    d->used = 1;
    d->non = m->type == COAP_NON;
    d->idempotent = method_idempotent(m->code);
    d->stored = !d->non && len <= CONFIG_WREN_COAP_DEDUP_BYTES; /* a NON's is never replayed */
    d->len = (uint16_t)(d->stored ? len : 0);
    if (d->stored && len) {
        memcpy(d->resp, resp, len);
    }
}

/* RFC 7252 8.2: the response @p resp (@p len bytes) to a multicast request
 * goes after a random leisure, and not at all when it says nothing useful
 * (an error, or an empty payload such as a discovery filter that matched
 * nothing). */
static void mcast_answer(struct wren_coap *c, const uint8_t *resp, size_t len,
                         const struct wren_sock_udp_ep *to)
{
    struct coap_msg r;
    if (wren_coap_parse(resp, len, &r) < 0 || COAP_CODE_CLASS(r.code) != 2 ||
        r.payload_len == 0) {
        c->stats.mc_quiet++;
    } else if (wren_coap_sep_leisure(c, resp, len, to) < 0) {
        c->stats.mc_busy++;
    }
}

static void serve(struct wren_coap *c, const struct coap_msg *m,
                  const struct wren_sock_udp_ep *from, bool mcast)
{
    struct wren_coap_dedup *d = dedup_find(c, from, m->type, m->mid);
    if (d && d->non) {
        c->stats.rx_dup_non++; /* RFC 7252 4.5: a NON's duplicate is ignored */
        return;
    }
    if (d) {
        if (d->stored) {
            c->stats.rx_dup++;
            if (d->len && !mcast) {
                wren_coap_send(c, d->resp, d->len, from);
            }
            return;
        }
        if (!d->idempotent) {
            c->stats.rx_dup_drop++;
            return;
        }
        c->stats.rx_dup_redo++; /* RFC 7252 4.5: allowed for idempotent requests */
    } else {
        uint32_t wait_s = 0;
        d = dedup_slot(c, from, &wait_s);
        if (d == NULL && (m->type == COAP_NON || method_idempotent(m->code))) {
            /* its duplicates may be executed again: served, not remembered */
            c->stats.dedup_unstored++;
        } else if (d == NULL) {
            /* a POST must not be executed twice and cannot be remembered
             * (RFC 7252 5.9.3.4: 5.03 with Max-Age saying when to retry) */
            c->stats.req_busy++;
            answer_opt(c, m, from, COAP_CODE_SERVICE_UNAVAILABLE, COAP_OPT_MAX_AGE, wait_s);
            return;
        }
    }
    size_t len;
    int at = wren_coap_handle_request(c, m, from, &len,
                                      mcast ? CONFIG_WREN_COAP_SEPARATE_BYTES : 0, NULL, NULL);
    if (at == -1) {
        if (mcast) {
            c->stats.mc_drop++; /* RFC 7252 8.2: no RST to a multicast request */
        } else {
            send_empty(c, COAP_RST, m->mid, from);
        }
        if (d) {
            d->used = 0;
        }
        return;
    }
    bool answer = at >= 0;  /* else a NON whose handler deferred its response */
    if (d) {
        /* a multicast request's duplicates get nothing (its answer waits) */
        dedup_store(c, d, from, m, answer ? c->tx + at : NULL, answer && !mcast ? len : 0);
    }
    if (answer && mcast) {
        mcast_answer(c, c->tx + at, len, from);
    } else if (answer) {
        wren_coap_send(c, c->tx + at, len, from);
    }
    if (c->notify_deferred) {
        wren_coap_obs_flush(c);
    }
}

/* Handle one datagram of @p n bytes in c->rx from @p from (@p mcast: sent
 * to a multicast group, RFC 7252 8: never answered with RST). */
void wren_coap_input(struct wren_coap *c, size_t n, const struct wren_sock_udp_ep *from,
                     bool mcast)
{
    struct coap_msg m;
    int rc = wren_coap_parse(c->rx, n, &m);
    if (mcast) {
        c->stats.mc_req += rc == 0 && m.code != COAP_CODE_EMPTY && COAP_CODE_CLASS(m.code) == 0;
        if (rc < 0 || m.type != COAP_NON || COAP_CODE_CLASS(m.code) != 0 ||
            m.code == COAP_CODE_EMPTY) {
            /* RFC 7252 8.1: multicast requests are NON; the rest would get a RST */
            c->stats.mc_drop++;
            return;
        }
    }
    if (rc < 0) {
        c->stats.rx_drop_format++;
        /* RFC 7252 4.2, 4.3: a malformed CON is rejected with a RST (when
         * there is a header to answer); anything else is ignored */
        if (rc != -COAP_ERR_TRUNCATED && rc != -COAP_ERR_VERSION && m.type == COAP_CON) {
            send_empty(c, COAP_RST, m.mid, from);
        }
        return;
    }
    if (m.type == COAP_ACK || m.type == COAP_RST) {
        if (m.type == COAP_ACK) {
            c->stats.rx_ack++;
        } else {
            c->stats.rx_rst++;
        }
        if (!obs_input(c, &m, from) && !wren_coap_sep_input(c, &m, from) &&
            !(CONFIG_WREN_COAP_CLIENT && wren_coap_client_input(c, &m, from))) {
            c->stats.rx_drop_unmatched++;
        }
        return;
    }
    if (m.code == COAP_CODE_EMPTY) {
        if (m.type == COAP_CON) {
            c->stats.rx_ping++; /* RFC 7252 4.3: CoAP ping */
            send_empty(c, COAP_RST, m.mid, from);
        } else {
            c->stats.rx_drop_unexpected++;
        }
        return;
    }
    uint8_t cls = COAP_CODE_CLASS(m.code);
    if (CONFIG_WREN_COAP_CLIENT && cls >= 2 && cls <= 5 && wren_coap_client_input(c, &m, from)) {
        return;
    }
    if (cls != 0) {
        /* a response nobody waits for, or a reserved class (1, 6, 7):
         * rejected (RFC 7252 4.2, 4.3) */
        if (cls >= 2 && cls <= 5) {
            c->stats.rx_drop_unmatched++;
        } else {
            c->stats.rx_drop_unexpected++;
        }
        /* RFC 7641 3.6: a notification nobody wants is rejected, NON too */
        if (m.type == COAP_CON ||
            (cls >= 2 && cls <= 5 && wren_coap_opt_find(&m, COAP_OPT_OBSERVE, &(struct coap_opt){ 0 }))) {
            send_empty(c, COAP_RST, m.mid, from);
        }
        return;
    }
    if (wren_ipv6_addr_is_multicast(from->addr)) {
        c->stats.rx_drop_format++; /* a source address is never multicast */
        return;
    }
    serve(c, &m, from, mcast);
}

/* A datagram beyond c->rx, whose first bytes c->rx holds: a unicast request
 * whose header parses gets 4.13 with Size1 (RFC 7252 5.9.2.9), not the
 * silence that would make its client retransmit it for 45 s. Size1 counts
 * its options when they are whole in c->rx, else none. */
static void too_large(struct wren_coap *c, const struct wren_sock_udp_ep *from, bool mcast)
{
    struct coap_msg m;
    int rc = wren_coap_parse(c->rx, sizeof(c->rx), &m);
    c->stats.rx_drop_big++;
    if (mcast || rc == -COAP_ERR_TRUNCATED || rc == -COAP_ERR_VERSION || rc == -COAP_ERR_TKL ||
        m.type > COAP_NON || COAP_CODE_CLASS(m.code) != 0 || m.code == COAP_CODE_EMPTY ||
        wren_ipv6_addr_is_multicast(from->addr)) {
        return;
    }
    c->stats.req_too_large++;
    answer_opt(c, &m, from, COAP_CODE_TOO_LARGE, COAP_OPT_SIZE1,
               body_max(m.tkl, rc == 0 ? m.opts_len : 0));
}

static void sock_cb(struct wren_sock_udp *sock, unsigned events, void *arg)
{
    struct wren_coap *c = arg;
    (void)events;
    for (;;) {
        struct wren_sock_udp_ep from;
        uint8_t to[16] = { 0 };
        (void)wren_sock_udp_next_dst(sock, to);
        ssize_t n = wren_sock_udp_recv(sock, c->rx, sizeof(c->rx), 0, &from);
        if (n == -ENOBUFS) {
            c->stats.rx++;
            too_large(c, &from, wren_ipv6_addr_is_multicast(to));
            continue;
        }
        if (n < 0) {
            return;
        }
        c->stats.rx++;
        wren_coap_input(c, (size_t)n, &from, wren_ipv6_addr_is_multicast(to));
    }
}

/* ---- the module ------------------------------------------------------------------------ */

static int coap_get(struct wren_node *node, struct wren_module *self, uint16_t opt,
                    uint16_t ctx, void *val, size_t max)
{
    (void)node;
    (void)ctx;
    struct wren_coap *c = (struct wren_coap *)self;
    if (opt == WREN_NETOPT_STATS) {
        return wren_netopt_put(val, max, &c->stats, sizeof(c->stats));
    }
    return -ENOTSUP;
}

static void coap_handle(struct wren_node *node, struct wren_module *self,
                        const struct wren_msg *msg)
{
    (void)self;
    if (msg->ptr) {
        wren_pktbuf_release(&node->pktbuf, msg->ptr); /* nothing is dispatched to it */
    }
}

static int coap_stack_init(struct wren_node *node, struct wren_module *self, uint8_t if_id)
{
    (void)if_id;
    return wren_coap_init(node, (struct wren_coap *)self);
}

static const struct wren_counter_set coap_counters =
    WREN_COUNTER_SET("coap", WREN_COAP_COUNTERS, WREN_NETOPT_STATS, uint32_t);

const struct wren_module_ops wren_coap_module = {
    .name = "coap",
    .handle = coap_handle,
    .get = coap_get,
    .init = coap_stack_init,
    .size = sizeof(struct wren_coap),
    .counters = WREN_IF_NAMES(&coap_counters),
    .cmds = WREN_IF_SHELL(wren_coap_shell_cmds),
};

/* RFC 7252 12.8: All CoAP Nodes, link-local and site-local, on every
 * interface (where IPv6 has room for them; counted there otherwise). */
static void join_all_coap_nodes(struct wren_coap *c, uint16_t opt)
{
    static const uint8_t groups[2][16] = {
        { 0xff, 0x02, [15] = 0xfd },
        { 0xff, 0x05, [15] = 0xfd },
    };
    struct wren_netreg_entry *e =
        wren_netreg_lookup(c->node, WREN_NETTYPE_IPV6, WREN_NETREG_DEMUX_ALL, NULL);
    if (e == NULL) {
        return;
    }
    for (struct wren_netif *n = c->node->netifs; n; n = n->next) {
        for (unsigned g = 0; g < 2; g++) {
            (void)wren_netapi_set(c->node, e->module, opt, n->id, groups[g], 16);
        }
    }
}

int wren_coap_init(struct wren_node *node, struct wren_coap *c)
{
    memset(c, 0, sizeof(*c));
    c->module.ops = &wren_coap_module;
    c->module.prio = WREN_PRIO_APP;
    c->node = node;
    c->next_mid = (uint16_t)wren_node_random(node);
    struct wren_sock_udp_ep local = { .port = COAP_PORT };
    int rc = wren_sock_udp_create(node, &c->sock, &local, NULL);
    if (rc < 0) {
        return rc;
    }
    rc = wren_netreg_register(node, WREN_NETTYPE_UDP, WREN_COAP_NETREG_CTX, &c->module, &c->reg);
    if (rc < 0) {
        wren_sock_udp_close(&c->sock);
        return rc;
    }
    wren_sock_udp_set_cb(&c->sock, sock_cb, c);
    join_all_coap_nodes(c, WREN_NETOPT_IPV6_GROUP_JOIN);
    c->ack_timeout_ms = CONFIG_WREN_COAP_ACK_TIMEOUT_MS;
    c->ack_random_permille = CONFIG_WREN_COAP_ACK_RANDOM_FACTOR_PERMILLE;
    c->max_retransmit = CONFIG_WREN_COAP_MAX_RETRANSMIT;
    c->obs_con_ms = CONFIG_WREN_COAP_OBS_CON_MS;
    if (CONFIG_WREN_COAP_DEFAULT_RESOURCES) {
        wren_coap_default_resources(c);
    }
    return 0;
}

void wren_coap_stop(struct wren_coap *c)
{
    if (CONFIG_WREN_COAP_CLIENT) {
        wren_coap_client_stop(c);
    }
    for (unsigned i = 0; i < CONFIG_WREN_COAP_OBSERVERS; i++) {
        if (c->obs[i].used) {
            obs_free(&c->obs[i]);
        }
    }
    wren_coap_sep_stop(c);
    wren_timer_cancel(c->node, &c->slow_timer);
    join_all_coap_nodes(c, WREN_NETOPT_IPV6_GROUP_LEAVE);
    wren_sock_udp_close(&c->sock);
    wren_netreg_unregister(c->node, WREN_NETTYPE_UDP, &c->reg);
    c->n_res = 0;
}

struct wren_coap *wren_coap_of(struct wren_node *node)
{
    struct wren_netreg_entry *e =
        wren_netreg_lookup(node, WREN_NETTYPE_UDP, WREN_COAP_NETREG_CTX, NULL);
    return e && e->module->ops == &wren_coap_module ? (struct wren_coap *)e->module : NULL;
}

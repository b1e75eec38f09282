/* The CoAP server: responses' windows, resources, link format (RFC 6690),
 * the duplicate cache and message layer (RFC 7252 4, 8) and the module.
 * Request handling is coap_req.c's, observers coap_obs.c's, separate
 * responses coap_sep.c's. */
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

/* The @p k-th format @p r produces, -1 after the last. */
static int32_t res_cf(const struct wren_coap_resource *r, unsigned k)
{
    return r->cfs ? r->cfs[k] : k ? -1 : r->cf;
}

int wren_coap_resource_add(struct wren_coap *c, const struct wren_coap_resource *r)
{
    if (r->handler == NULL || r->path == NULL || r->path[0] != '/') {
        return -EINVAL;
    }
    for (unsigned i = 0; i < c->n_res; i++) {
        if (strcmp(WREN_COAP_RES(c, i)->path, r->path) == 0) {
            return -EEXIST;
        }
    }
    if (c->n_res >= CONFIG_WREN_COAP_RESOURCES + WREN_COAP_N_DEFAULT) {
        return -ENOSPC;
    }
#if CONFIG_WREN_NODE_MEM
    if (c->n_res >= WREN_COAP_N_INLINE && WREN_LAZY_GET(c->node, c, more) == NULL) {
        c->stats.no_mem++;
        return -ENOMEM; /* the rest of the table: made by the first resource beyond */
    }
#endif
    unsigned i = c->n_res++;
    WREN_COAP_RES(c, i) = r;
    return 0;
}

int wren_coap_resource_remove(struct wren_coap *c, const struct wren_coap_resource *r)
{
    for (unsigned i = 0; i < c->n_res; i++) {
        if (WREN_COAP_RES(c, i) == r) {
            unsigned last = --c->n_res;
            WREN_COAP_RES(c, i) = WREN_COAP_RES(c, last);
            return 0;
        }
    }
    return -ENOENT;
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

/* RFC 6690 3.1, 3.2: whether a word of the attribute value @p v (quoted:
 * a list of space-separated words up to '"', else one up to ';') matches
 * the query value @p pat (@p pn bytes). */
static bool lf_words_match(const char *v, const uint8_t *pat, size_t pn)
{
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

/* The filter name @p q (@p nn bytes) looked up in @p attrs (";a=v;b"): 1
 * matched, 0 not, -1 not there. @p pat NULL: the attribute's presence. */
static int lf_attr_match(const char *attrs, const uint8_t *q, size_t nn, const uint8_t *pat,
                         size_t pn)
{
    for (const char *a = attrs; a && (a = strchr(a, ';')) != NULL;) {
        a++;
        size_t k = 0;
        while (k < nn && a[k] != '\0' && a[k] == (char)q[k]) {
            k++;
        }
        if (k != nn || (a[k] != '=' && a[k] != ';' && a[k] != '\0')) {
            continue;
        }
        if (!pat) {
            return 1;
        }
        return a[k] == '=' && lf_words_match(a + k + 1, pat, pn);
    }
    return -1;
}

/* Whether a format of @p r (ct=) matches @p pat (NULL: it has one). */
static bool lf_ct_match(const struct wren_coap_resource *r, const uint8_t *pat, size_t pn)
{
    int32_t f;
    for (unsigned k = 0; (f = res_cf(r, k)) >= 0; k++) {
        char num[20];
        if (!pat || lf_value_match(num, utoa(num, (uint64_t)f), pat, pn)) {
            return true;
        }
    }
    return false;
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
    const uint8_t *pat = eq ? eq + 1 : NULL;
    size_t pn = eq ? qn - nn - 1 : 0;
    if (nn == 4 && memcmp(q, "href", 4) == 0) {
        return !eq || lf_value_match(r->path, strlen(r->path), pat, pn);
    }
    if (nn == 2 && memcmp(q, "ct", 2) == 0) {
        return lf_ct_match(r, pat, pn);
    }
    if (nn == 3 && memcmp(q, "obs", 3) == 0) {
        return r->observable;
    }
    return lf_attr_match(r->attrs, q, nn, pat, pn) > 0;
}

/* Whether @p r passes each of @p m's Uri-Query filters. */
static bool lf_pass(const struct wren_coap_resource *r, const struct coap_msg *m)
{
    struct coap_opt_iter it;
    struct coap_opt o;
    wren_coap_opt_iter_init(&it, m);
    while (wren_coap_opt_next(&it, &o) > 0) {
        if (o.num == COAP_OPT_URI_QUERY && !lf_match(r, o.val, o.len)) {
            return false;
        }
    }
    return true;
}

/* The links of every resource that passes each of @p m's Uri-Query filters
 * (every resource without CONFIG_WREN_COAP_LF_FILTERS). */
static void link_format(struct wren_coap *c, const struct coap_msg *m,
                        struct wren_coap_resp *resp)
{
    size_t sep = 0; /* none before the first link, then "," */
    for (unsigned i = 0; i < c->n_res; i++) {
        const struct wren_coap_resource *r = WREN_COAP_RES(c, i);
        if (CONFIG_WREN_COAP_LF_FILTERS && !lf_pass(r, m)) {
            continue;
        }
        wren_coap_resp_write(resp, &",<"[1 - sep], 1 + sep); /* "<" or ",<" */
        sep = 1;
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
        wren_coap_resp_write(resp, ";obs", r->observable ? 4 : 0);
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

const struct wren_coap_resource wren_coap_wellknown = {
    .path = "/.well-known/core",
    .methods = WREN_COAP_GET,
    .cf = COAP_CF_LINK_FORMAT,
    .handler = wellknown_get,
};


/* ---- sending ------------------------------------------------------------------------ */

uint32_t wren_coap_now_ms(const struct wren_coap *c)
{
    return (uint32_t)(wren_node_now(c->node) / 1000u);
}

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

/* ---- the duplicate cache (RFC 7252 4.5) ------------------------------------------ */

#if CONFIG_WREN_COAP_DEDUP

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
    uint32_t now = wren_coap_now_ms(c);
    for (unsigned i = 0; i < CONFIG_WREN_COAP_DEDUP; i++) {
        struct wren_coap_dedup *d = &WREN_COAP_SRV(c)->dedup[i];
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
    uint32_t now = wren_coap_now_ms(c);
    struct wren_coap_dedup *best = NULL;
    unsigned best_rank = 4;
    for (unsigned i = 0; i < CONFIG_WREN_COAP_DEDUP; i++) {
        struct wren_coap_dedup *d = &WREN_COAP_SRV(c)->dedup[i];
        if (!dedup_live(d, now)) {
            return d;
        }
        /* 0: @p ep's own, 1: its endpoint has a newer one, 2: idempotent or
         * NON, 3: a non-idempotent CON's response */
        unsigned rank = same_ep(d, ep->addr, ep->port) ? 0 : d->idempotent || d->non ? 2 : 3;
        for (unsigned k = 0; k < CONFIG_WREN_COAP_DEDUP && rank > 1; k++) {
            const struct wren_coap_dedup *e = &WREN_COAP_SRV(c)->dedup[k];
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

static void dedup_store(struct wren_coap *c, struct wren_coap_dedup *d,
                        const struct wren_sock_udp_ep *from, const struct coap_msg *m,
                        const uint8_t *resp, size_t len)
{
    memcpy(d->addr, from->addr, 16);
    d->port = from->port;
    d->mid = m->mid;
    d->t_ms = wren_coap_now_ms(c);
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

/* RFC 7252 4.5: whether request @p m starts an exchange to run (*dp: its
 * slot, NULL when served without one) or repeats one, answered here: a
 * NON's duplicate is ignored, a CON's gets the stored response (a multicast
 * request's nothing: its answer waits), or runs again when idempotent;
 * and a POST that cannot be remembered gets 5.03 (RFC 7252 5.9.3.4: with a
 * Max-Age saying when to retry). */
static bool dedup_step(struct wren_coap *c, const struct coap_msg *m,
                       const struct wren_sock_udp_ep *from, bool mcast,
                       struct wren_coap_dedup **dp)
{
    struct wren_coap_dedup *d = dedup_find(c, from, m->type, m->mid);
    uint32_t wait_s = 0;
    *dp = d;
    if (d && d->non) {
        c->stats.rx_dup_non++;
        return false;
    }
    if (d && d->stored) {
        c->stats.rx_dup++;
        if (d->len && !mcast) {
            wren_coap_send(c, d->resp, d->len, from);
        }
        return false;
    }
    if (d && !d->idempotent) {
        c->stats.rx_dup_drop++;
        return false;
    }
    if (d) {
        c->stats.rx_dup_redo++; /* allowed for idempotent requests */
        return true;
    }
    *dp = d = dedup_slot(c, from, &wait_s);
    if (d == NULL && (m->type == COAP_NON || method_idempotent(m->code))) {
        /* its duplicates may be executed again: served, not remembered */
        c->stats.dedup_unstored++;
    } else if (d == NULL) {
        /* a POST must not be executed twice and cannot be remembered */
        c->stats.req_busy++;
        answer_opt(c, m, from, COAP_CODE_SERVICE_UNAVAILABLE, COAP_OPT_MAX_AGE, wait_s);
        return false;
    }
    return true;
}

#else /* no duplicate cache: every request runs (handlers must be idempotent) */

static bool dedup_step(struct wren_coap *c, const struct coap_msg *m,
                       const struct wren_sock_udp_ep *from, bool mcast,
                       struct wren_coap_dedup **dp)
{
    (void)c;
    (void)m;
    (void)from;
    (void)mcast;
    *dp = NULL;
    return true;
}

static void dedup_store(struct wren_coap *c, struct wren_coap_dedup *d,
                        const struct wren_sock_udp_ep *from, const struct coap_msg *m,
                        const uint8_t *resp, size_t len)
{
    (void)c;
    (void)d;
    (void)from;
    (void)m;
    (void)resp;
    (void)len;
}

#endif

/* ---- the message layer ---------------------------------------------------------------- */

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

/* Run request @p m and answer it (RFC 7252 4.2, 4.3, 8.2), remembering
 * the exchange in its duplicate-cache slot. */
static void serve(struct wren_coap *c, const struct coap_msg *m,
                  const struct wren_sock_udp_ep *from, bool mcast)
{
    struct wren_coap_dedup *d;
    mcast = CONFIG_WREN_COAP_MULTICAST && mcast;
    if (!dedup_step(c, m, from, mcast, &d)) {
        return;
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
        dedup_store(c, d, from, m, answer ? WREN_COAP_SRV(c)->tx + at : NULL, answer && !mcast ? len : 0);
    }
    if (answer && mcast) {
        mcast_answer(c, WREN_COAP_SRV(c)->tx + at, len, from);
    } else if (answer) {
        wren_coap_send(c, WREN_COAP_SRV(c)->tx + at, len, from);
    }
    if (c->notify_deferred) {
        wren_coap_obs_flush(c);
    }
}

/* RFC 7252 8.1: whether a datagram to a multicast group is a request to
 * take (NON; anything else would get a RST: dropped, and everything
 * without CONFIG_WREN_COAP_MULTICAST). */
static bool mcast_take(struct wren_coap *c, int rc, const struct coap_msg *m)
{
    bool req = rc == 0 && m->code != COAP_CODE_EMPTY && COAP_CODE_CLASS(m->code) == 0;
    c->stats.mc_req += req;
    if (!CONFIG_WREN_COAP_MULTICAST || !req || m->type != COAP_NON) {
        c->stats.mc_drop++;
        return false;
    }
    return true;
}

/* An ACK or RST: a notification's, a separate response's or the client's. */
static void ack_input(struct wren_coap *c, const struct coap_msg *m,
                      const struct wren_sock_udp_ep *from)
{
    if (m->type == COAP_ACK) {
        c->stats.rx_ack++;
    } else {
        c->stats.rx_rst++;
    }
    if (!wren_coap_obs_input(c, m, from) &&
        !(CONFIG_WREN_COAP_SEPARATE && wren_coap_sep_input(c, m, from)) &&
        !(CONFIG_WREN_COAP_CLIENT && wren_coap_client_input(c, m, from))) {
        c->stats.rx_drop_unmatched++;
    }
}

/* A CON or NON that is no request: a response for the client, else one
 * nobody waits for, or a reserved class (1, 6, 7), rejected (RFC 7252 4.2,
 * 4.3); RFC 7641 3.6: a notification nobody wants is rejected, NON too. */
static void reply_input(struct wren_coap *c, const struct coap_msg *m,
                        const struct wren_sock_udp_ep *from)
{
    uint8_t cls = COAP_CODE_CLASS(m->code);
    bool resp = cls >= 2 && cls <= 5;
    if (CONFIG_WREN_COAP_CLIENT && resp && wren_coap_client_input(c, m, from)) {
        return;
    }
    if (resp) {
        c->stats.rx_drop_unmatched++;
    } else {
        c->stats.rx_drop_unexpected++;
    }
    if (m->type == COAP_CON ||
        (resp && wren_coap_opt_find(m, COAP_OPT_OBSERVE, &(struct coap_opt){ 0 }))) {
        send_empty(c, COAP_RST, m->mid, from);
    }
}

/* Handle one datagram of @p n bytes in WREN_COAP_SRV(c)->rx from @p from (@p mcast: sent
 * to a multicast group, RFC 7252 8: never answered with RST). */
void wren_coap_input(struct wren_coap *c, size_t n, const struct wren_sock_udp_ep *from,
                     bool mcast)
{
    struct coap_msg m;
    int rc = wren_coap_parse(WREN_COAP_SRV(c)->rx, n, &m);
    if (mcast && !mcast_take(c, rc, &m)) {
        return;
    }
    if (rc < 0) {
        c->stats.rx_drop_format++;
        /* RFC 7252 4.2, 4.3: a malformed CON is rejected with a RST (when
         * there is a header to answer); anything else is ignored */
        if (rc != -COAP_ERR_TRUNCATED && rc != -COAP_ERR_VERSION && m.type == COAP_CON) {
            send_empty(c, COAP_RST, m.mid, from);
        }
    } else if (m.type == COAP_ACK || m.type == COAP_RST) {
        ack_input(c, &m, from);
    } else if (m.code == COAP_CODE_EMPTY && m.type == COAP_CON) {
        c->stats.rx_ping++; /* RFC 7252 4.3: CoAP ping */
        send_empty(c, COAP_RST, m.mid, from);
    } else if (m.code == COAP_CODE_EMPTY) {
        c->stats.rx_drop_unexpected++;
    } else if (COAP_CODE_CLASS(m.code) != 0) {
        reply_input(c, &m, from);
    } else if (wren_ipv6_addr_is_multicast(from->addr)) {
        c->stats.rx_drop_format++; /* a source address is never multicast */
    } else {
        serve(c, &m, from, mcast);
    }
}

/* A datagram beyond WREN_COAP_SRV(c)->rx, whose first bytes WREN_COAP_SRV(c)->rx holds: a unicast request
 * whose header parses gets 4.13 with Size1 (RFC 7252 5.9.2.9), not the
 * silence that would make its client retransmit it for 45 s. Size1 counts
 * its options when they are whole in WREN_COAP_SRV(c)->rx, else none. */
static void too_large(struct wren_coap *c, const struct wren_sock_udp_ep *from, bool mcast)
{
    struct coap_msg m;
    int rc = wren_coap_parse(WREN_COAP_SRV(c)->rx, sizeof(WREN_COAP_SRV(c)->rx), &m);
    c->stats.rx_drop_big++;
    if (mcast || rc == -COAP_ERR_TRUNCATED || rc == -COAP_ERR_VERSION || rc == -COAP_ERR_TKL ||
        m.type > COAP_NON || COAP_CODE_CLASS(m.code) != 0 || m.code == COAP_CODE_EMPTY ||
        wren_ipv6_addr_is_multicast(from->addr)) {
        return;
    }
    c->stats.req_too_large++;
    answer_opt(c, &m, from, COAP_CODE_TOO_LARGE, COAP_OPT_SIZE1,
               wren_coap_body_max(m.tkl, rc == 0 ? m.opts_len : 0));
}

#if CONFIG_WREN_NODE_MEM
/* Drop what @p sock holds: no memory for the buffers (wren_node_mem). */
static void drop_all(struct wren_coap *c, struct wren_sock_udp *sock)
{
    uint8_t b[1];
    for (ssize_t n = 0; n >= 0 || n == -ENOBUFS;) {
        n = wren_sock_udp_recv(sock, b, 0, 0, NULL);
        c->stats.no_mem += n >= 0 || n == -ENOBUFS;
    }
}
#endif

static void sock_cb(struct wren_sock_udp *sock, unsigned events, void *arg)
{
    struct wren_coap *c = arg;
    (void)events;
#if CONFIG_WREN_NODE_MEM
    if (WREN_LAZY_GET(c->node, c, srv) == NULL) {
        drop_all(c, sock); /* the first message makes the buffers */
        return;
    }
#endif
    for (;;) {
        struct wren_sock_udp_ep from;
        uint8_t to[16] = { 0 };
        (void)wren_sock_udp_next_dst(sock, to);
        ssize_t n = wren_sock_udp_recv(sock, WREN_COAP_SRV(c)->rx, sizeof(WREN_COAP_SRV(c)->rx), 0, &from);
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
    if (CONFIG_WREN_COAP_MULTICAST) {
        join_all_coap_nodes(c, WREN_NETOPT_IPV6_GROUP_JOIN);
    }
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
    wren_coap_obs_stop(c);
    if (CONFIG_WREN_COAP_SEPARATE) {
        wren_coap_sep_stop(c);
    }
    wren_timer_cancel(c->node, &c->slow_timer);
    if (CONFIG_WREN_COAP_MULTICAST) {
        join_all_coap_nodes(c, WREN_NETOPT_IPV6_GROUP_LEAVE);
    }
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

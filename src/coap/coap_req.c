/* Request handling (RFC 7252 5): the option walk, what is refused before
 * a handler runs, Block1 uploads (RFC 7959 2.5), the handler, Block2
 * windows (RFC 7959 2.4) and the response's header placed before its
 * payload. The message layer (coap.c) and CoAP over TCP (coap_tcp.c) run
 * requests through wren_coap_handle_request(). */
#include <string.h>

#include "coap/coap_priv.h"

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

/* RFC 7252 5.10.4: whether @p r can answer in @p accept (-1: none asked). */
static bool res_produces(const struct wren_coap_resource *r, int32_t accept)
{
    if (accept < 0) {
        return true;
    }
    return r->cfs ? cf_in(r->cfs, accept) : r->cf < 0 || r->cf == accept;
}

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
        int cls = wren_coap_opt_class(o.num, o.len);
        bool known = cls == 2 || (cls == 1 && o.num != prev);
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
    if (!CONFIG_WREN_COAP_BLOCK2) {
        ro->bad |= RO_HAS(ro, RO_BLOCK2); /* a critical option not served here */
    }
}

/* RFC 7252 5.9.2.9: the largest body a request with a token of @p tkl
 * bytes and @p opts bytes of options can carry in a message the server
 * takes (Size1 of a 4.13). */
uint32_t wren_coap_body_max(uint8_t tkl, size_t opts)
{
    size_t over = COAP_HDR_LEN + tkl + opts + 1;
    return over < CONFIG_WREN_COAP_MSG_MAX ? (uint32_t)(CONFIG_WREN_COAP_MSG_MAX - over) : 0;
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

/* The resource @p m's Uri-Path names, or NULL. */
static const struct wren_coap_resource *find_resource(struct wren_coap *c,
                                                      const struct coap_msg *m)
{
    if (path_match(m, wren_coap_wellknown.path)) {
        return &wren_coap_wellknown;
    }
    for (unsigned i = 0; i < c->n_res; i++) {
        if (path_match(m, WREN_COAP_RES(c, i)->path)) {
            return WREN_COAP_RES(c, i);
        }
    }
    return NULL;
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

static uint8_t default_code(uint8_t method)
{
    return method == COAP_CODE_GET      ? COAP_CODE_CONTENT
           : method == COAP_CODE_DELETE ? COAP_CODE_DELETED
                                        : COAP_CODE_CHANGED;
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
    uint32_t now = wren_coap_now_ms(c);
    struct wren_coap_block1 *free_slot = NULL;
    for (unsigned i = 0; i < sizeof(WREN_COAP_SRV(c)->block1) / sizeof(WREN_COAP_SRV(c)->block1[0]); i++) {
        struct wren_coap_block1 *u = &WREN_COAP_SRV(c)->block1[i];
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

/* ---- the response's header ------------------------------------------------------ */

/* The options before Block2 (RFC 7252 5.10): ETag, Observe, Location-Path,
 * Content-Format, Max-Age, Location-Query; in number order. */
static void put_head_options(struct coap_builder *b, const struct wren_coap_resp *resp,
                             const struct wren_coap_resp_meta *mt, size_t plen)
{
    bool ok = COAP_CODE_CLASS(resp->code) == 2;
    if (resp->etag_len) {
        wren_coap_build_opt(b, COAP_OPT_ETAG, resp->etag, resp->etag_len);
    }
    if (mt->observe >= 0 && ok) {
        wren_coap_build_opt_uint(b, COAP_OPT_OBSERVE, (uint32_t)mt->observe & COAP_OBSERVE_MASK);
    }
    if (ok && resp->location_path) {
        wren_coap_build_opt_path(b, COAP_OPT_LOCATION_PATH, resp->location_path);
    }
    if (resp->cf >= 0 && ok && (plen || mt->get)) {
        wren_coap_build_opt_uint(b, COAP_OPT_CONTENT_FORMAT, (uint32_t)resp->cf);
    }
    if (resp->has_max_age) {
        wren_coap_build_opt_uint(b, COAP_OPT_MAX_AGE, resp->max_age);
    }
    if (ok && resp->location_query) {
        wren_coap_build_opt_query(b, COAP_OPT_LOCATION_QUERY, resp->location_query);
    }
}

/* Block2, Block1, Size2 and Size1 (RFC 7959 2.2, 2.5, 4; RFC 7252 5.10.9). */
static void put_block_options(struct coap_builder *b, const struct wren_coap_resp *resp,
                              struct wren_coap_resp_meta *mt, size_t plen)
{
    bool block = CONFIG_WREN_COAP_BLOCK2 && mt->block;
    if (block) {
        mt->blk.more = resp->pos > resp->off + plen;
        wren_coap_build_opt_uint(b, COAP_OPT_BLOCK2, (uint32_t)wren_coap_block_encode(&mt->blk));
    }
    if (CONFIG_WREN_COAP_BLOCK1 && mt->has_b1 && COAP_CODE_CLASS(resp->code) == 2) {
        /* RFC 7959 2.5: the block acknowledged (M: the server waits for more) */
        mt->b1.more = resp->code == COAP_CODE_CONTINUE;
        wren_coap_build_opt_uint(b, COAP_OPT_BLOCK1, (uint32_t)wren_coap_block_encode(&mt->b1));
    }
    if (block && mt->blk.num == 0) {
        wren_coap_build_opt_uint(b, COAP_OPT_SIZE2, (uint32_t)resp->pos);
    }
    if (resp->size1 && resp->code == COAP_CODE_TOO_LARGE) {
        wren_coap_build_opt_uint(b, COAP_OPT_SIZE1, resp->size1);
    }
}

/* The header and options of @p resp (its payload written at WREN_COAP_SRV(c)->tx +
 * WREN_COAP_RESP_HDR_ROOM) into a scratch buffer, then placed right before
 * the payload. @return its offset in WREN_COAP_SRV(c)->tx, and *len. */
int wren_coap_place_response(struct wren_coap *c, struct wren_coap_resp *resp,
                             struct wren_coap_resp_meta *mt, size_t *len)
{
    uint8_t *pl = WREN_COAP_SRV(c)->tx + WREN_COAP_RESP_HDR_ROOM;
    uint8_t hdr[WREN_COAP_RESP_HDR_ROOM];
    struct coap_builder b;
    size_t plen = 0;
    if (COAP_CODE_CLASS(resp->code) == 2 && resp->pos > resp->off) {
        plen = resp->pos - resp->off;
        if (plen > resp->max) {
            plen = resp->max;
        }
    }
    wren_coap_build_init(&b, hdr, sizeof(hdr), mt->type, resp->code, mt->mid, mt->token,
                         mt->tkl);
    put_head_options(&b, resp, mt, plen);
    put_block_options(&b, resp, mt, plen);
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
    return (int)(start - WREN_COAP_SRV(c)->tx);
}

/* ---- Block2 (RFC 7959 2.4) --------------------------------------------------------- */

#define ROOM (CONFIG_WREN_COAP_MSG_MAX - WREN_COAP_RESP_HDR_ROOM)

/* After the handler: whether @p resp goes in Block2 block @p blk (RFC 7959
 * 2.4, 2.6: a representation larger than a message, or than the block the
 * request asked for, whatever the method); an answer no block can carry
 * becomes 4.02 (a block beyond the end) or 5.00 (a POST/PUT answer its
 * resource cannot write again for the later blocks, or any answer beyond a
 * message without CONFIG_WREN_COAP_BLOCK2), never cut. */
static bool resp_blockwise(struct wren_coap *c, const struct wren_coap_resource *r,
                           const struct coap_msg *m, struct wren_coap_resp *resp,
                           struct coap_block *blk, bool block)
{
    bool get = m->code == COAP_CODE_GET;
    if (COAP_CODE_CLASS(resp->code) != 2 || resp->code == COAP_CODE_VALID) {
        resp->off = 0;
        return false;
    }
    if (!block && resp->pos > ROOM) {
        /* larger than a message: the first block (RFC 7959 2.4) */
        *blk = (struct coap_block){ .num = 0, .szx = (uint8_t)wren_coap_block_szx_fit(ROOM) };
        resp->max = COAP_BLOCK_SIZE(blk->szx);
        block = true;
    } else if (block && !get && blk->num == 0 && resp->pos <= resp->max) {
        return false; /* a POST/PUT answer within the block asked for */
    }
    if (block && ((!get && !r->replays) || !CONFIG_WREN_COAP_BLOCK2)) {
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
    uint8_t szx = (uint8_t)wren_coap_block_szx_fit(ROOM);
    while (CONFIG_WREN_COAP_BLOCK2 && limit && *len > limit && mt->get &&
           COAP_CODE_CLASS(resp->code) == 2 && resp->off == 0 &&
           (mt->block ? mt->blk.szx : szx) > 0) {
        szx = (uint8_t)((mt->block ? mt->blk.szx : szx) - 1);
        mt->block = true;
        mt->blk = (struct coap_block){ .num = 0, .szx = szx };
        resp->max = COAP_BLOCK_SIZE(szx);
        at = wren_coap_place_response(c, resp, mt, len);
    }
    return at;
}

/* ---- the steps of a request ------------------------------------------------------------ */

/* A request on its way through wren_coap_handle_request()'s steps; mt
 * carries the Block2 window, the Block1 acknowledgement and Observe. */
struct req_ctx {
    const struct coap_msg *m;
    const struct wren_sock_udp_ep *from;
    const struct wren_coap_resource *r;   /* NULL: refused, resp.code says why */
    struct wren_coap_block1 *up;          /* the Block1 upload this block belongs to */
    struct req_opts ro;
    struct wren_coap_req req;
    struct wren_coap_resp resp;
    struct wren_coap_resp_meta mt;
};

/* RFC 7959 2.4: the block the request asks for, no larger than what fits. */
static void take_block2(struct req_ctx *x)
{
    int fit = wren_coap_block_szx_fit(ROOM);
    if (!CONFIG_WREN_COAP_BLOCK2 || !RO_HAS(&x->ro, RO_BLOCK2)) {
        return;
    }
    /* (it decodes: at most 3 bytes, req_scan; not SZX 7, checked) */
    (void)wren_coap_block_decode(x->ro.v[RO_BLOCK2], &x->mt.blk);
    if (x->mt.blk.szx > fit) {
        x->mt.blk.num <<= x->mt.blk.szx - fit; /* same offset, smaller blocks */
        x->mt.blk.szx = (uint8_t)fit;
    }
    x->mt.block = true;
}

/* A later Block2 block of a POST/PUT answer (written again, or 4.02 when
 * it cannot be, RFC 7959 2.6), or a Block1 block checked against its
 * upload (RFC 7959 2.5). */
static void check_blocks(struct wren_coap *c, struct req_ctx *x)
{
    const struct coap_msg *m = x->m;
    if (x->req.again && (!x->r->replays || m->code > COAP_CODE_PUT)) {
        /* not executed a second time */
        c->stats.req_bad_option++;
        x->resp.code = COAP_CODE_BAD_OPTION;
        x->mt.block = false;
        x->r = NULL;
    } else if (x->req.again) {
        c->stats.req_block2_later++;
        x->req.payload_len = 0; /* the body was the first request's */
    } else if (RO_HAS(&x->ro, RO_BLOCK1) &&
               (m->code == COAP_CODE_PUT || m->code == COAP_CODE_POST)) {
        uint8_t err = block1_check(c, x->r, x->from, m, x->ro.v[RO_BLOCK1], &x->mt.b1, &x->req,
                                   &x->up);
        if (err) {
            x->resp.code = err;
            x->resp.size1 = wren_coap_body_max(m->tkl, m->opts_len); /* sent with a 4.13 only */
            x->r = NULL;
        } else {
            x->mt.has_b1 = CONFIG_WREN_COAP_BLOCK1 && x->r->block1;
        }
    }
}

/* Run the resource's handler on the request's window of its representation. */
static void run_handler(struct wren_coap *c, struct req_ctx *x, bool own_obs)
{
    const struct wren_coap_resource *r = x->r;
    if (x->mt.block) {
        x->resp.off = (size_t)x->mt.blk.num << (x->mt.blk.szx + 4);
        x->resp.max = COAP_BLOCK_SIZE(x->mt.blk.szx);
    }
    x->resp.code = x->req.block_more ? COAP_CODE_CONTINUE : default_code(x->m->code);
    x->resp.cf = r->cfs && x->req.accept >= 0 ? x->req.accept : r->cf;
    c->stats.req++;
    c->in_handler = 1;
    c->cur_req = own_obs ? &x->req : NULL;
    r->handler(c, &x->req, &x->resp, r->arg);
    c->cur_req = NULL;
    c->in_handler = 0;
}

/* RFC 7641 3.1, 3.6: a GET with Observe 0 registers (with @p obs, that
 * transport's table; else UDP's), one without (not for a later block) or
 * with 1 ends the token's observation. */
static void observe_step(struct wren_coap *c, struct req_ctx *x, wren_coap_obs_fn obs,
                         void *obs_arg)
{
    const struct coap_msg *m = x->m;
    bool reg = RO_HAS(&x->ro, RO_OBSERVE) && x->ro.v[RO_OBSERVE] == COAP_OBSERVE_REGISTER &&
               COAP_CODE_CLASS(x->resp.code) == 2 && x->r->observable;
    bool first = !x->mt.block || x->mt.blk.num == 0;
    if (obs) {
        x->mt.observe = obs(obs_arg, x->r, m, reg, first);
    } else if (reg) {
        if (wren_coap_obs_register(c, x->r, x->from, m, x->req.accept)) {
            /* RFC 7641 4.4: newer than any notification sent */
            c->obs_seq = (c->obs_seq + 1) & COAP_OBSERVE_MASK;
            x->mt.observe = (int32_t)c->obs_seq;
        }
    } else if (first) {
        wren_coap_obs_remove(c, x->from, m->token, m->tkl);
    }
}

/* After the handler: the Block1 upload goes on after a 2.31 and ends after
 * anything else; a GET's ETag the request listed makes 2.03 (RFC 7252
 * 5.10.6.2); the answer's Block2 window. */
static void finish_response(struct wren_coap *c, struct req_ctx *x)
{
    const struct coap_msg *m = x->m;
    if (CONFIG_WREN_COAP_BLOCK1 && x->up) {
        if (x->req.block_more && x->resp.code == COAP_CODE_CONTINUE) {
            x->up->next++;
            x->up->t_ms = wren_coap_now_ms(c);
        } else {
            x->up->used = 0;
        }
    }
    if (m->code == COAP_CODE_GET && x->resp.code == COAP_CODE_CONTENT &&
        etag_listed(m, x->resp.etag, x->resp.etag_len)) {
        /* the client's copy is current */
        c->stats.req_valid++;
        x->resp.code = COAP_CODE_VALID;
        x->resp.cf = -1;
        x->resp.pos = 0;
    }
    x->mt.block = resp_blockwise(c, x->r, m, &x->resp, &x->mt.blk, x->mt.block);
}

/* RFC 7252 5.2.2: the handler deferred its response: a CON is acknowledged
 * now (an empty ACK), a NON answered later only. */
static int deferred(struct wren_coap *c, struct req_ctx *x, size_t *len)
{
    c->deferred = 0;
    if (CONFIG_WREN_COAP_BLOCK1 && x->up) {
        x->up->used = 0;
    }
    if (x->m->type == COAP_NON) {
        return WREN_COAP_NO_RESPONSE;
    }
    struct wren_coap_resp ack = { .code = COAP_CODE_EMPTY, .cf = -1 };
    struct wren_coap_resp_meta am = { .type = COAP_ACK, .mid = x->m->mid, .observe = -1 };
    return wren_coap_place_response(c, &ack, &am, len);
}

/* Run the request and build the response into WREN_COAP_SRV(c)->tx. @return its offset in
 * WREN_COAP_SRV(c)->tx and *len, -1 for a RST (NON with an unrecognized critical option), or
 * WREN_COAP_NO_RESPONSE (a NON whose handler deferred its response).
 * With @p obs, observations are that transport's (CoAP over TCP), which has
 * no separate responses: its handlers cannot defer. */
int wren_coap_handle_request(struct wren_coap *c, const struct coap_msg *m,
                             const struct wren_sock_udp_ep *from, size_t *len,
                             size_t limit, wren_coap_obs_fn obs, void *obs_arg)
{
    struct req_ctx x = {
        .m = m, .from = from,
        .resp = { .cf = -1, .buf = WREN_COAP_SRV(c)->tx + WREN_COAP_RESP_HDR_ROOM, .max = ROOM },
        .mt = { .token = m->token, .tkl = m->tkl, .observe = -1, .get = m->code == COAP_CODE_GET },
    };
    req_scan(m, &x.ro);
    if (x.ro.bad && m->type == COAP_NON) {
        c->stats.req_rst++;
        return -1; /* RFC 7252 5.4.1: a NON is rejected */
    }
    x.resp.code = req_refusal(c, m, &x.ro, &x.r);
    if (x.r) {
        take_block2(&x);
        x.req = (struct wren_coap_req){
            .msg = m, .remote = *from, .method = m->code, .cf = ro_int(&x.ro, RO_CF),
            .accept = ro_int(&x.ro, RO_ACCEPT), .payload = m->payload,
            .payload_len = m->payload_len, .size1 = x.ro.v[RO_SIZE1],
            .again = x.mt.block && x.mt.blk.num > 0 && m->code != COAP_CODE_GET,
            .block2 = RO_HAS(&x.ro, RO_BLOCK2) ? x.ro.v[RO_BLOCK2] + 1 : 0,
        };
        check_blocks(c, &x);
    }
    if (x.r) {
        run_handler(c, &x, obs == NULL);
        if (CONFIG_WREN_COAP_SEPARATE && c->deferred) {
            return deferred(c, &x, len);
        }
        if (m->code == COAP_CODE_GET) {
            observe_step(c, &x, obs, obs_arg);
        }
        finish_response(c, &x);
    }
    x.mt.type = m->type == COAP_CON ? COAP_ACK : COAP_NON;
    x.mt.mid = m->type == COAP_CON ? m->mid : c->next_mid++;
    return place_within(c, &x.resp, &x.mt, len, limit);
}

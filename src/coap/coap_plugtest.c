/* The ETSI CoAP plugtest resources (coap/coap_plugtest.h): what the test
 * descriptions of CoAP#1-#4 expect of a server, on the node's CoAP server. */
#include "coap/coap_plugtest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coap/coap_priv.h"
#include "core/byteorder.h"
#include "core/node.h"
#include "net/netapi.h"
#include "net/netopt.h"
#include "pktbuf/pktbuf.h"
#include "shell/shell.h"

#define CF_XML 41 /* application/xml (RFC 7252 12.3) */

static struct wren_coap_plugtest *pt_of(struct wren_coap *c)
{
    struct wren_netreg_entry *e =
        wren_netreg_lookup(c->node, WREN_NETTYPE_UDP, WREN_COAP_PLUGTEST_NETREG_CTX, NULL);
    return e && e->module->ops == &wren_coap_plugtest_module ? (struct wren_coap_plugtest *)e->module
                                                             : NULL;
}

static void write_str(struct wren_coap_resp *resp, const char *s)
{
    wren_coap_resp_write(resp, s, strlen(s));
}

static uint32_t fnv1a(uint32_t h, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h = (h ^ p[i]) * 16777619u;
    }
    return h;
}

/* A value a PUT sets: at most WREN_COAP_PLUGTEST_VALUE bytes (its format,
 * text/plain or none, the server checked: `accepts`). @return 0 or the
 * error code to answer. */
static uint8_t take_value(struct wren_coap_plugtest *p, const struct wren_coap_req *req,
                          struct wren_coap_resp *resp, char *dst, uint8_t *len)
{
    if (req->payload_len > WREN_COAP_PLUGTEST_VALUE) {
        p->stats.too_large++;
        resp->size1 = WREN_COAP_PLUGTEST_VALUE; /* RFC 7252 5.9.2.9 */
        return COAP_CODE_TOO_LARGE;
    }
    if (req->payload_len) {
        memcpy(dst, req->payload, req->payload_len); /* (no payload: NULL) */
    }
    *len = (uint8_t)req->payload_len;
    return 0;
}

/* ---- /test, /seg1/seg2/seg3, /query ---------------------------------------- */

static const char *const type_names[4] = { "CON", "NON", "ACK", "RST" };

static void test_handler(struct wren_coap *c, const struct wren_coap_req *req,
                         struct wren_coap_resp *resp, void *arg)
{
    (void)arg;
    struct wren_coap_plugtest *p = pt_of(c);
    p->stats.req++;
    switch (req->method) {
    case COAP_CODE_POST:
        /* TD_COAP_CORE_18: the new resource's location */
        resp->code = COAP_CODE_CREATED;
        resp->location_path = "/location1/location2/location3";
        p->stats.created++;
        return;
    case COAP_CODE_PUT:
    case COAP_CODE_DELETE:
        return; /* 2.04, 2.02: nothing kept */
    default:
        break;
    }
    /* GET: the request as received (over TCP, RFC 8323 3.2: no type, no MID;
     * the server serves a UDP request with c->cur_req set, a TCP one without) */
    char line[64];
    int n = c->cur_req == req
                ? snprintf(line, sizeof(line), "Type: %s\nCode: GET\nMID: %u\nToken: %u bytes",
                           type_names[req->msg->type & 3], req->msg->mid, req->msg->tkl)
                : snprintf(line, sizeof(line), "Code: GET\nToken: %u bytes (CoAP over TCP)",
                           req->msg->tkl);
    wren_coap_resp_write(resp, line, (size_t)n);
}

static void seg_handler(struct wren_coap *c, const struct wren_coap_req *req,
                        struct wren_coap_resp *resp, void *arg)
{
    (void)req;
    (void)arg;
    pt_of(c)->stats.req++;
    write_str(resp, "/seg1/seg2/seg3");
}

static void query_handler(struct wren_coap *c, const struct wren_coap_req *req,
                          struct wren_coap_resp *resp, void *arg)
{
    (void)arg;
    pt_of(c)->stats.req++;
    struct coap_opt_iter it;
    struct coap_opt o;
    bool first = true;
    write_str(resp, "Query: ");
    wren_coap_opt_iter_init(&it, req->msg);
    while (wren_coap_opt_next(&it, &o) > 0) {
        if (o.num == COAP_OPT_URI_QUERY) {
            if (!first) {
                wren_coap_resp_write(resp, "&", 1);
            }
            first = false;
            wren_coap_resp_write(resp, o.val, o.len);
        }
    }
}

/* ---- /separate ------------------------------------------------------------ */

static void sep_answer(struct wren_timer *t, void *arg)
{
    (void)t;
    struct wren_coap_plugtest *p = arg;
    for (unsigned i = 0; i < 8; i++) {
        if (p->sep_pending & (1u << i)) {
            (void)wren_coap_resp_separate(p->coap, (int)i, COAP_CODE_CONTENT, COAP_CF_TEXT,
                                          "separate", 8);
        }
    }
    p->sep_pending = 0;
}

static void separate_handler(struct wren_coap *c, const struct wren_coap_req *req,
                             struct wren_coap_resp *resp, void *arg)
{
    (void)arg;
    struct wren_coap_plugtest *p = pt_of(c);
    p->stats.req++;
    int h = wren_coap_resp_defer(c, req);
    if (h == -EINVAL) {
        p->stats.sep_now++; /* a transport without separate responses (RFC 8323 2.2) */
        write_str(resp, "separate");
        return;
    }
    if (h < 0) {
        p->stats.sep_busy++;
        resp->code = COAP_CODE_SERVICE_UNAVAILABLE; /* RFC 7252 5.9.3.4 */
        resp->max_age = CONFIG_WREN_COAP_PLUGTEST_SEP_MS / 1000u + 1u;
        resp->has_max_age = 1;
        return;
    }
    p->stats.sep_deferred++;
    if (p->sep_pending == 0) {
        wren_timer_set(p->node, &p->sep_timer, (uint64_t)CONFIG_WREN_COAP_PLUGTEST_SEP_MS * 1000u);
    }
    p->sep_pending |= (uint8_t)(1u << h);
}

/* ---- /large, /large-update, /large-create, /large-post ---------------------- */

/* WREN_COAP_PLUGTEST_LARGE bytes: 64 lines of 32 characters, numbered */
static void write_large(struct wren_coap_resp *resp, uint32_t value)
{
    for (unsigned i = 0; i < WREN_COAP_PLUGTEST_LARGE / 32u; i++) {
        char line[40];
        int n = snprintf(line, sizeof(line), "%02u wren plugtest %010lu ...\n", i % 100u,
                         (unsigned long)value);
        wren_coap_resp_write(resp, line, (size_t)n);
    }
}

static void large_handler(struct wren_coap *c, const struct wren_coap_req *req,
                          struct wren_coap_resp *resp, void *arg)
{
    (void)req;
    (void)arg;
    pt_of(c)->stats.req++;
    write_large(resp, 0);
}

/* A Block1 body's piece (RFC 7959 2.5) for a resource that keeps at most
 * CONFIG_WREN_COAP_PLUGTEST_BODY bytes. @return 0 or the error code. */
static uint8_t body_check(struct wren_coap_plugtest *p, const struct wren_coap_req *req,
                          struct wren_coap_resp *resp)
{
    size_t end = req->block_off + req->payload_len;
    if (end > CONFIG_WREN_COAP_PLUGTEST_BODY || req->size1 > CONFIG_WREN_COAP_PLUGTEST_BODY) {
        p->stats.too_large++;
        resp->size1 = CONFIG_WREN_COAP_PLUGTEST_BODY; /* RFC 7959 2.9.3, 4 */
        return COAP_CODE_TOO_LARGE;
    }
    if (req->block_off == 0) {
        p->body_fnv = 2166136261u;
    }
    p->body_fnv = fnv1a(p->body_fnv, req->payload, req->payload_len);
    return 0;
}

static void large_update_handler(struct wren_coap *c, const struct wren_coap_req *req,
                                 struct wren_coap_resp *resp, void *arg)
{
    (void)arg;
    struct wren_coap_plugtest *p = pt_of(c);
    p->stats.req++;
    if (req->method == COAP_CODE_GET) {
        if (p->update_len == 0) {
            write_large(resp, 0);
        } else {
            wren_coap_resp_write(resp, p->update, p->update_len);
        }
        return;
    }
    uint8_t err = body_check(p, req, resp);
    if (!err && req->block_off == 0) {
        memcpy(p->stage_addr, req->remote.addr, 16);
        p->stage_port = req->remote.port;
        p->stage_len = 0;
    } else if (!err && (p->stage_port != req->remote.port ||
                        memcmp(p->stage_addr, req->remote.addr, 16) != 0 ||
                        p->stage_len != req->block_off)) {
        err = COAP_CODE_REQUEST_INCOMPLETE; /* another upload took the stage */
    }
    if (err) {
        resp->code = err;
        return;
    }
    /* the blocks go to the stage; the resource changes with the last (atomic) */
    if (req->payload_len) {
        memcpy(p->stage + req->block_off, req->payload, req->payload_len);
    }
    p->stage_len = (uint16_t)(req->block_off + req->payload_len);
    if (!req->block_more) {
        memcpy(p->update, p->stage, p->stage_len);
        p->update_len = p->stage_len;
        p->stage_len = 0;
        p->stage_port = 0;
    }
}

static void created_handler(struct wren_coap *c, const struct wren_coap_req *req,
                            struct wren_coap_resp *resp, void *arg)
{
    (void)arg;
    struct wren_coap_plugtest *p = pt_of(c);
    p->stats.req++;
    if (req->method == COAP_CODE_DELETE) {
        (void)wren_coap_resource_remove(c, &p->created);
        return;
    }
    char line[48];
    int n = snprintf(line, sizeof(line), "%lu bytes, fnv1a 0x%08lx",
                     (unsigned long)p->created_len, (unsigned long)p->created_fnv);
    wren_coap_resp_write(resp, line, (size_t)n);
}

static void large_create_handler(struct wren_coap *c, const struct wren_coap_req *req,
                                 struct wren_coap_resp *resp, void *arg)
{
    (void)arg;
    struct wren_coap_plugtest *p = pt_of(c);
    p->stats.req++;
    uint8_t err = body_check(p, req, resp);
    if (err) {
        resp->code = err;
        return;
    }
    if (req->block_more) {
        return; /* 2.31 Continue */
    }
    /* RFC 7252 5.8.2: created; the Location-Path names it */
    p->created_n++;
    p->created_len = (uint32_t)(req->block_off + req->payload_len);
    p->created_fnv = p->body_fnv;
    snprintf(p->created_path, sizeof(p->created_path), "/large-create/%lu",
             (unsigned long)(p->created_n % 100000u));
    (void)wren_coap_resource_remove(c, &p->created);
    if (wren_coap_resource_add(c, &p->created) < 0) {
        resp->code = COAP_CODE_INTERNAL_ERROR;
        return;
    }
    p->stats.created++;
    resp->code = COAP_CODE_CREATED;
    resp->location_path = p->created_path;
}

/* /large-post's answer to the body of @p len bytes hashed @p fnv: its size
 * and hash, then /large's lines (TD_COAP_BLOCK_05: larger than a block); the
 * ETag tells the later blocks' requester when another POST replaced it. */
static void large_post_answer(struct wren_coap_resp *resp, uint32_t len, uint32_t fnv)
{
    char line[48];
    int n = snprintf(line, sizeof(line), "%lu bytes, fnv1a 0x%08lx\n", (unsigned long)len,
                     (unsigned long)fnv);
    uint32_t tag = fnv1a(fnv, (const uint8_t *)&len, sizeof(len));
    memcpy(resp->etag, &tag, sizeof(tag));
    resp->etag_len = sizeof(tag);
    wren_coap_resp_write(resp, line, (size_t)n);
    write_large(resp, len);
}

static void large_post_handler(struct wren_coap *c, const struct wren_coap_req *req,
                               struct wren_coap_resp *resp, void *arg)
{
    (void)arg;
    struct wren_coap_plugtest *p = pt_of(c);
    p->stats.req++;
    if (req->again) {
        /* a later Block2 block (RFC 7959 2.6): the last answer, nothing run */
        if (p->post_len == 0) {
            resp->code = COAP_CODE_REQUEST_INCOMPLETE; /* no body came yet */
        } else {
            large_post_answer(resp, p->post_len, p->post_fnv);
        }
        return;
    }
    uint8_t err = body_check(p, req, resp);
    if (err) {
        resp->code = err;
        return;
    }
    if (!req->block_more) {
        p->post_len = (uint32_t)(req->block_off + req->payload_len);
        p->post_fnv = p->body_fnv;
        large_post_answer(resp, p->post_len, p->post_fnv);
    }
}

/* ---- /obs, /obs-non, /obs-large --------------------------------------------- */

static const struct wren_coap_resource pt_res[];
enum { R_OBS = 8, R_OBS_NON, R_OBS_LARGE };

static bool observe_asked(const struct wren_coap_req *req)
{
    struct coap_opt o;
    uint32_t v;
    return req->method == COAP_CODE_GET && wren_coap_opt_find(req->msg, COAP_OPT_OBSERVE, &o) &&
           wren_coap_opt_uint(&o, &v) == 0 && v == COAP_OBSERVE_REGISTER;
}

/* Tell the observers of pt_res[@p k]; /obs's notifications are CON: the
 * server's interval for a CON one is 0 while they go. */
static void notify(struct wren_coap_plugtest *p, unsigned k)
{
    struct wren_coap *c = p->coap;
    uint32_t con_ms = c->obs_con_ms;
    if (k == R_OBS) {
        wren_coap_set_obs_con_ms(c, 0);
    }
    int n = wren_coap_notify(c, &pt_res[k]);
    wren_coap_set_obs_con_ms(c, con_ms);
    p->stats.obs_notified += (uint32_t)(n > 0 ? n : 0);
}

/* /obs changed by a request: its observers hear of it once the response is
 * out, CON (the server would send what a handler asks for with its own
 * interval) */
static void obs_changed(struct wren_timer *t, void *arg)
{
    (void)t;
    struct wren_coap_plugtest *p = arg;
    uint32_t before = p->stats.obs_notified;
    notify(p, R_OBS);
    uint32_t n = p->stats.obs_notified - before;
    if (p->obs_deleted) {
        p->stats.obs_404 += n;
    } else if (p->obs_cf != COAP_CF_TEXT) {
        p->stats.obs_406 += n;
    } else if (n && !p->obs_ticking) {
        p->obs_ticking = 1; /* observed and counting again */
        wren_timer_set(p->node, &p->obs_timer, (uint64_t)p->obs_ms * 1000u);
    }
}

static void obs_tick(struct wren_timer *t, void *arg)
{
    (void)t;
    struct wren_coap_plugtest *p = arg;
    p->obs_value++;
    p->stats.obs_ticks++;
    int before = (int)p->stats.obs_notified;
    if (!p->obs_deleted && p->obs_cf == COAP_CF_TEXT && p->obs_put_len == 0) {
        notify(p, R_OBS);
    }
    notify(p, R_OBS_NON);
    notify(p, R_OBS_LARGE);
    /* observed still: the next change; else the resources rest */
    p->obs_ticking = p->stats.obs_notified != (uint32_t)before;
    if (p->obs_ticking) {
        wren_timer_set(p->node, &p->obs_timer, (uint64_t)p->obs_ms * 1000u);
    }
}

static void obs_start(struct wren_coap_plugtest *p, const struct wren_coap_req *req)
{
    if (!p->obs_ticking && observe_asked(req)) {
        p->obs_ticking = 1;
        wren_timer_set(p->node, &p->obs_timer, (uint64_t)p->obs_ms * 1000u);
    }
}

static void obs_write(struct wren_coap_plugtest *p, struct wren_coap_resp *resp)
{
    if (p->obs_put_len) {
        wren_coap_resp_write(resp, p->obs_put, p->obs_put_len);
    } else {
        write_str(resp, "obs ");
        wren_coap_resp_write_uint(resp, p->obs_value);
    }
}

/* RFC 7641 4.2: a change the observers cannot follow (the resource gone,
 * another format) is their last notification: 4.04 or 4.06 */
static void obs_handler(struct wren_coap *c, const struct wren_coap_req *req,
                        struct wren_coap_resp *resp, void *arg)
{
    (void)arg;
    struct wren_coap_plugtest *p = pt_of(c);
    p->stats.req++;
    switch (req->method) {
    case COAP_CODE_DELETE:
        if (!p->obs_deleted) {
            p->obs_deleted = 1;
            wren_timer_set(p->node, &p->obs_now, 0);
        }
        return;
    case COAP_CODE_PUT:
        /* a value (an empty text/plain body: the count again), in any format */
        if (req->payload_len > sizeof(p->obs_put)) {
            p->stats.too_large++;
            resp->code = COAP_CODE_TOO_LARGE;
            resp->size1 = sizeof(p->obs_put);
            return;
        }
        resp->code = p->obs_deleted ? COAP_CODE_CREATED : COAP_CODE_CHANGED;
        p->stats.created += p->obs_deleted;
        p->obs_cf = (int16_t)(req->cf >= 0 ? req->cf : COAP_CF_TEXT);
        if (req->payload_len) {
            memcpy(p->obs_put, req->payload, req->payload_len);
        }
        p->obs_put_len = (uint8_t)req->payload_len;
        if (p->obs_put_len == 0 && p->obs_cf != COAP_CF_TEXT) {
            p->obs_put[0] = ' ';
            p->obs_put_len = 1;
        }
        p->obs_deleted = 0;
        wren_timer_set(p->node, &p->obs_now, 0);
        return;
    default:
        break;
    }
    if (p->obs_deleted) {
        resp->code = COAP_CODE_NOT_FOUND;
        return;
    }
    /* a notification of a representation in another format than the one
     * observed */
    if (p->obs_cf != COAP_CF_TEXT && req->notify) {
        resp->code = COAP_CODE_NOT_ACCEPTABLE;
        return;
    }
    if (req->accept >= 0 && req->accept != p->obs_cf) {
        p->stats.not_acceptable++;
        resp->code = COAP_CODE_NOT_ACCEPTABLE;
        return;
    }
    resp->cf = p->obs_cf;
    obs_start(p, req);
    obs_write(p, resp);
}

static void obs_non_handler(struct wren_coap *c, const struct wren_coap_req *req,
                            struct wren_coap_resp *resp, void *arg)
{
    (void)arg;
    struct wren_coap_plugtest *p = pt_of(c);
    p->stats.req++;
    obs_start(p, req);
    write_str(resp, "obs-non ");
    wren_coap_resp_write_uint(resp, p->obs_value);
}

static void obs_large_handler(struct wren_coap *c, const struct wren_coap_req *req,
                              struct wren_coap_resp *resp, void *arg)
{
    (void)arg;
    struct wren_coap_plugtest *p = pt_of(c);
    p->stats.req++;
    obs_start(p, req);
    write_large(resp, p->obs_value);
}

/* ---- /multi-format, /validate, /location-query, /create1 -------------------- */

static void multi_handler(struct wren_coap *c, const struct wren_coap_req *req,
                          struct wren_coap_resp *resp, void *arg)
{
    (void)arg;
    struct wren_coap_plugtest *p = pt_of(c);
    p->stats.req++;
    /* the server answered another Accept 4.06 (RFC 7252 5.10.4: `cfs`) */
    if (req->accept == CF_XML) {
        resp->cf = CF_XML;
        write_str(resp, "<multi-format>wren plugtest</multi-format>");
    } else {
        resp->cf = COAP_CF_TEXT;
        write_str(resp, "multi-format: wren plugtest");
    }
}

static void validate_handler(struct wren_coap *c, const struct wren_coap_req *req,
                             struct wren_coap_resp *resp, void *arg)
{
    (void)arg;
    struct wren_coap_plugtest *p = pt_of(c);
    p->stats.req++;
    uint8_t etag[2];
    put_be16(etag, p->validate_etag);
    if (req->method == COAP_CODE_PUT) {
        /* RFC 7252 5.10.8.1: If-Match with the current ETag, or none */
        if (!wren_coap_req_precond_ok(req, etag, sizeof(etag), true)) {
            p->stats.precond_failed++;
            resp->code = COAP_CODE_PRECONDITION_FAILED;
            return;
        }
        uint8_t err = take_value(p, req, resp, p->validate, &p->validate_len);
        if (err) {
            resp->code = err;
            return;
        }
        p->validate_etag++;
        put_be16(resp->etag, p->validate_etag);
        resp->etag_len = 2;
        return;
    }
    /* with the ETag: a GET listing it gets 2.03 from the server (RFC 7252 5.10.6.2) */
    memcpy(resp->etag, etag, sizeof(etag));
    resp->etag_len = sizeof(etag);
    if (p->validate_len) {
        wren_coap_resp_write(resp, p->validate, p->validate_len);
    } else {
        write_str(resp, "validate: initial");
    }
}

static void location_query_handler(struct wren_coap *c, const struct wren_coap_req *req,
                                   struct wren_coap_resp *resp, void *arg)
{
    (void)req;
    (void)arg;
    struct wren_coap_plugtest *p = pt_of(c);
    p->stats.req++;
    p->stats.created++;
    resp->code = COAP_CODE_CREATED;
    resp->location_query = "first=1&second=2"; /* TD_COAP_CORE_19 */
}

static void create1_handler(struct wren_coap *c, const struct wren_coap_req *req,
                            struct wren_coap_resp *resp, void *arg)
{
    (void)arg;
    struct wren_coap_plugtest *p = pt_of(c);
    p->stats.req++;
    switch (req->method) {
    case COAP_CODE_PUT: {
        /* RFC 7252 5.10.8.2: If-None-Match fails when it exists */
        if (!wren_coap_req_precond_ok(req, NULL, 0, p->create1_exists)) {
            p->stats.precond_failed++;
            resp->code = COAP_CODE_PRECONDITION_FAILED;
            return;
        }
        uint8_t err = take_value(p, req, resp, p->create1, &p->create1_len);
        if (err) {
            resp->code = err;
            return;
        }
        if (!p->create1_exists) {
            p->stats.created++;
            resp->code = COAP_CODE_CREATED;
        }
        p->create1_exists = 1;
        return;
    }
    case COAP_CODE_DELETE:
        p->create1_exists = 0;
        return;
    default:
        break;
    }
    if (!p->create1_exists) {
        resp->code = COAP_CODE_NOT_FOUND;
        return;
    }
    wren_coap_resp_write(resp, p->create1, p->create1_len);
}

/* ---- /link1../link3, /path and its sub-resources ---------------------------- */

static void link_handler(struct wren_coap *c, const struct wren_coap_req *req,
                         struct wren_coap_resp *resp, void *arg)
{
    (void)req;
    pt_of(c)->stats.req++;
    write_str(resp, (const char *)arg);
}

static void path_handler(struct wren_coap *c, const struct wren_coap_req *req,
                         struct wren_coap_resp *resp, void *arg)
{
    (void)req;
    (void)arg;
    pt_of(c)->stats.req++;
    /* RFC 6690 5: the links of the resources below it */
    write_str(resp, "</path/sub1>;ct=0,</path/sub2>;ct=0,</path/sub3>;ct=0");
}

static const int16_t multi_cfs[] = { COAP_CF_TEXT, CF_XML, -1 };
static const int16_t text_only[] = { COAP_CF_TEXT, -1 };

#define ALL (WREN_COAP_GET | WREN_COAP_POST | WREN_COAP_PUT | WREN_COAP_DELETE)

static const struct wren_coap_resource pt_res[] = {
    { .path = "/test", .methods = ALL, .cf = COAP_CF_TEXT, .attrs = ";rt=\"test\"",
      .handler = test_handler },
    { .path = "/seg1/seg2/seg3", .methods = WREN_COAP_GET, .cf = COAP_CF_TEXT,
      .handler = seg_handler },
    { .path = "/query", .methods = WREN_COAP_GET, .cf = COAP_CF_TEXT, .handler = query_handler },
    { .path = "/separate", .methods = WREN_COAP_GET, .cf = COAP_CF_TEXT,
      .handler = separate_handler },
    { .path = "/large", .methods = WREN_COAP_GET, .cf = COAP_CF_TEXT,
      .attrs = ";rt=\"block\";sz=2048", .handler = large_handler },
    { .path = "/large-update", .methods = WREN_COAP_GET | WREN_COAP_PUT, .cf = COAP_CF_TEXT,
      .block1 = true, .attrs = ";rt=\"block\";sz=2048", .handler = large_update_handler },
    { .path = "/large-create", .methods = WREN_COAP_POST, .cf = -1, .block1 = true,
      .attrs = ";rt=\"block\"", .handler = large_create_handler },
    { .path = "/large-post", .methods = WREN_COAP_POST, .cf = COAP_CF_TEXT, .block1 = true,
      .replays = true, .attrs = ";rt=\"block\"", .handler = large_post_handler },
    [R_OBS] = { .path = "/obs", .methods = WREN_COAP_GET | WREN_COAP_PUT | WREN_COAP_DELETE,
                .cf = -1, .observable = true, .attrs = ";ct=0;rt=\"observe\"",
                .handler = obs_handler },
    [R_OBS_NON] = { .path = "/obs-non", .methods = WREN_COAP_GET, .cf = COAP_CF_TEXT,
                    .observable = true, .attrs = ";rt=\"observe\"", .handler = obs_non_handler },
    [R_OBS_LARGE] = { .path = "/obs-large", .methods = WREN_COAP_GET, .cf = COAP_CF_TEXT,
                      .observable = true, .attrs = ";rt=\"observe\";sz=2048",
                      .handler = obs_large_handler },
    { .path = "/multi-format", .methods = WREN_COAP_GET, .cf = COAP_CF_TEXT, .cfs = multi_cfs,
      .handler = multi_handler },
    { .path = "/validate", .methods = WREN_COAP_GET | WREN_COAP_PUT, .cf = COAP_CF_TEXT,
      .accepts = text_only, .handler = validate_handler },
    { .path = "/location-query", .methods = WREN_COAP_POST, .cf = -1,
      .handler = location_query_handler },
    { .path = "/create1", .methods = WREN_COAP_GET | WREN_COAP_PUT | WREN_COAP_DELETE,
      .cf = COAP_CF_TEXT, .accepts = text_only, .handler = create1_handler },
    { .path = "/link1", .methods = WREN_COAP_GET, .cf = COAP_CF_TEXT,
      .attrs = ";rt=\"Type1 Type2\";if=\"If1\"", .handler = link_handler, .arg = "link1" },
    { .path = "/link2", .methods = WREN_COAP_GET, .cf = COAP_CF_TEXT,
      .attrs = ";rt=\"Type2 Type3\";if=\"If2\"", .handler = link_handler, .arg = "link2" },
    { .path = "/link3", .methods = WREN_COAP_GET, .cf = COAP_CF_TEXT,
      .attrs = ";rt=\"Type1 Type3\";if=\"foo\"", .handler = link_handler, .arg = "link3" },
    { .path = "/path", .methods = WREN_COAP_GET, .cf = COAP_CF_LINK_FORMAT,
      .handler = path_handler },
    { .path = "/path/sub1", .methods = WREN_COAP_GET, .cf = COAP_CF_TEXT,
      .handler = link_handler, .arg = "/path/sub1" },
    { .path = "/path/sub2", .methods = WREN_COAP_GET, .cf = COAP_CF_TEXT,
      .handler = link_handler, .arg = "/path/sub2" },
    { .path = "/path/sub3", .methods = WREN_COAP_GET, .cf = COAP_CF_TEXT, .attrs = ";rt=\"\"",
      .handler = link_handler, .arg = "/path/sub3" },
};

_Static_assert(sizeof(pt_res) / sizeof(pt_res[0]) + 1 == WREN_COAP_PLUGTEST_N_RES,
               "WREN_COAP_PLUGTEST_N_RES");

/* ---- the shell ---------------------------------------------------------------- */

/* `plugtest obs MS` / `plugtest ack MS`: @return 0 or -EINVAL */
static int set_pace(struct wren_coap_plugtest *p, const char *what, const char *arg)
{
    char *end;
    unsigned long ms = strtoul(arg, &end, 10);
    if (*end || ms == 0 || ms > 3600000ul) {
        return -EINVAL;
    }
    if (strcmp(what, "obs") == 0) {
        p->obs_ms = (uint32_t)ms;
        return 0;
    }
    if (strcmp(what, "ack") == 0) {
        return wren_coap_set_tx_params(p->coap, (uint32_t)ms, p->coap->ack_random_permille,
                                       p->coap->max_retransmit);
    }
    return -EINVAL;
}

static int cmd_plugtest(struct wren_shell *sh, struct wren_module *m, int argc, char **argv)
{
    struct wren_coap_plugtest *p = (struct wren_coap_plugtest *)m;
    if (argc == 3 && set_pace(p, argv[1], argv[2]) == 0) {
        argc = 1;
    } else if (argc != 1) {
        wren_shell_printf(sh, "plugtest: want 'plugtest', 'plugtest obs MS' or "
                              "'plugtest ack MS' (MS 1..3600000)\n");
        return -EINVAL;
    }
    wren_shell_printf(sh, "plugtest: %u resources; /obs %svalue %lu%s, changes every %lu ms "
                          "while observed (%s); separate pending %u; ack timeout %lu ms\n",
                      (unsigned)(sizeof(pt_res) / sizeof(pt_res[0])),
                      p->obs_deleted ? "deleted, " : "", (unsigned long)p->obs_value,
                      p->obs_cf != COAP_CF_TEXT ? " (format changed)" : "",
                      (unsigned long)p->obs_ms, p->obs_ticking ? "observed" : "resting",
                      (unsigned)__builtin_popcount(p->sep_pending),
                      (unsigned long)p->coap->ack_timeout_ms);
    wren_shell_printf(sh, "  /validate etag 0x%04x; /create1 %s; /large-update %u bytes; "
                          "%s %lu bytes fnv1a 0x%08lx\n",
                      p->validate_etag, p->create1_exists ? "exists" : "absent",
                      p->update_len ? p->update_len : WREN_COAP_PLUGTEST_LARGE,
                      p->created_n ? p->created_path : "/large-create/-",
                      (unsigned long)p->created_len, (unsigned long)p->created_fnv);
    return 0;
}

const struct wren_shell_cmd wren_coap_plugtest_shell_cmds[] = {
    { "plugtest",
      "plugtest [obs MS | ack MS]: the ETSI CoAP plugtest resources' state; obs: they change "
      "every MS while observed; ack: the server's ACK_TIMEOUT (its CON notifications and "
      "separate responses)",
      cmd_plugtest },
    { NULL, NULL, NULL },
};

/* ---- the module ----------------------------------------------------------------- */

static int pt_get(struct wren_node *node, struct wren_module *self, uint16_t opt, uint16_t ctx,
                  void *val, size_t max)
{
    (void)node;
    (void)ctx;
    struct wren_coap_plugtest *p = (struct wren_coap_plugtest *)self;
    if (opt == WREN_NETOPT_STATS) {
        return wren_netopt_put(val, max, &p->stats, sizeof(p->stats));
    }
    return -ENOTSUP;
}

static void pt_handle(struct wren_node *node, struct wren_module *self, const struct wren_msg *msg)
{
    (void)self;
    if (msg->ptr) {
        wren_pktbuf_release(&node->pktbuf, msg->ptr); /* nothing is dispatched to it */
    }
}

static int pt_stack_init(struct wren_node *node, struct wren_module *self, uint8_t if_id)
{
    (void)if_id;
    return wren_coap_plugtest_init(node, (struct wren_coap_plugtest *)self);
}

static const struct wren_counter_set pt_counters =
    WREN_COUNTER_SET("coap_plugtest", WREN_COAP_PLUGTEST_COUNTERS, WREN_NETOPT_STATS, uint32_t);

const struct wren_module_ops wren_coap_plugtest_module = {
    .name = "coap_plugtest",
    .handle = pt_handle,
    .get = pt_get,
    .init = pt_stack_init,
    .size = sizeof(struct wren_coap_plugtest),
    .counters = WREN_IF_NAMES(&pt_counters),
    .cmds = WREN_IF_SHELL(wren_coap_plugtest_shell_cmds),
};

int wren_coap_plugtest_init(struct wren_node *node, struct wren_coap_plugtest *p)
{
    memset(p, 0, sizeof(*p));
    p->module.ops = &wren_coap_plugtest_module;
    p->module.prio = WREN_PRIO_APP;
    p->node = node;
    p->coap = wren_coap_of(node);
    if (p->coap == NULL) {
        return -ENOENT;
    }
    p->obs_cf = COAP_CF_TEXT;
    p->obs_ms = CONFIG_WREN_COAP_PLUGTEST_OBS_MS;
    p->created = (struct wren_coap_resource){ .path = p->created_path,
                                              .methods = WREN_COAP_GET | WREN_COAP_DELETE,
                                              .cf = COAP_CF_TEXT, .handler = created_handler };
    wren_timer_init(&p->sep_timer, sep_answer, p);
    wren_timer_init(&p->obs_timer, obs_tick, p);
    wren_timer_init(&p->obs_now, obs_changed, p);
    int rc = wren_netreg_register(node, WREN_NETTYPE_UDP, WREN_COAP_PLUGTEST_NETREG_CTX,
                                  &p->module, &p->reg);
    if (rc < 0) {
        return rc;
    }
    for (unsigned i = 0; i < sizeof(pt_res) / sizeof(pt_res[0]); i++) {
        if ((rc = wren_coap_resource_add(p->coap, &pt_res[i])) < 0) {
            while (i--) {
                (void)wren_coap_resource_remove(p->coap, &pt_res[i]); /* only its own */
            }
            wren_netreg_unregister(node, WREN_NETTYPE_UDP, &p->reg);
            return rc;
        }
    }
    return 0;
}

void wren_coap_plugtest_stop(struct wren_coap_plugtest *p)
{
    for (unsigned i = 0; i < sizeof(pt_res) / sizeof(pt_res[0]); i++) {
        (void)wren_coap_resource_remove(p->coap, &pt_res[i]);
    }
    (void)wren_coap_resource_remove(p->coap, &p->created);
    wren_timer_cancel(p->node, &p->sep_timer);
    wren_timer_cancel(p->node, &p->obs_timer);
    wren_timer_cancel(p->node, &p->obs_now);
    wren_netreg_unregister(p->node, WREN_NETTYPE_UDP, &p->reg);
}

/* The resources every node serves: /counter, /stats, /pattern and /slow. */
#include <errno.h>
#include <string.h>

#include "coap/coap_priv.h"
#include "core/byteorder.h"
#include "stack/stack.h"

/* ---- /counter: GET reads, POST adds one, PUT sets, DELETE resets ---------- */

static bool parse_uint32(const uint8_t *p, size_t n, uint32_t *v)
{
    uint64_t x = 0;
    if (n == 0 || n > 10) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9') {
            return false;
        }
        x = x * 10 + (uint64_t)(p[i] - '0');
    }
    if (x > UINT32_MAX) {
        return false;
    }
    *v = (uint32_t)x;
    return true;
}

static void counter_etag(const struct wren_coap *c, uint8_t etag[4])
{
    put_be32(etag, c->counter);
}

static void counter_handler(struct wren_coap *c, const struct wren_coap_req *req,
                            struct wren_coap_resp *resp, void *arg)
{
    (void)arg;
    uint8_t etag[4];
    counter_etag(c, etag);
    switch (req->method) {
    case COAP_CODE_PUT: {
        uint32_t v;
        if (!wren_coap_req_precond_ok(req, etag, sizeof(etag), true)) {
            resp->code = COAP_CODE_PRECONDITION_FAILED;
            return;
        }
        if (!parse_uint32(req->payload, req->payload_len, &v)) {
            resp->code = COAP_CODE_BAD_REQUEST;
            return;
        }
        c->counter = v;
        break;
    }
    case COAP_CODE_POST:
        c->counter++;
        break;
    case COAP_CODE_DELETE:
        c->counter = 0;
        (void)wren_coap_notify(c, arg);
        return;
    default:
        break;
    }
    if (req->method != COAP_CODE_GET) {
        (void)wren_coap_notify(c, arg); /* observers hear of the change */
    }
    counter_etag(c, resp->etag);
    resp->etag_len = 4;
    wren_coap_resp_write_uint(resp, c->counter);
}

/* ---- /stats: every counter of the node, one "name value" line each -------- */

struct stats_ctx {
    struct wren_coap_resp *resp;
};

static void stats_set(void *ctx, const struct wren_counter_set *set, const char *suffix,
                      const void *values)
{
    struct wren_coap_resp *resp = ((struct stats_ctx *)ctx)->resp;
    for (unsigned i = 0; i < set->n; i++) {
        wren_coap_resp_write(resp, set->name, strlen(set->name));
        wren_coap_resp_write(resp, suffix, strlen(suffix));
        wren_coap_resp_write(resp, ".", 1);
        if (set->names) {
            wren_coap_resp_write(resp, set->names[i], strlen(set->names[i]));
        } else {
            wren_coap_resp_write_uint(resp, i);
        }
        wren_coap_resp_write(resp, " ", 1);
        wren_coap_resp_write_uint(resp, wren_counter_value(set, values, i));
        wren_coap_resp_write(resp, "\n", 1);
    }
}

static void stats_handler(struct wren_coap *c, const struct wren_coap_req *req,
                          struct wren_coap_resp *resp, void *arg)
{
    (void)req;
    (void)arg;
    struct stats_ctx ctx = { resp };
    wren_stack_counters(c->node, stats_set, &ctx);
}

/* ---- /pattern: byte i is i mod 251; a PUT must carry that pattern ---------- */

static void pattern_handler(struct wren_coap *c, const struct wren_coap_req *req,
                            struct wren_coap_resp *resp, void *arg)
{
    (void)arg;
    if (req->method == COAP_CODE_PUT) {
        /* in Block1 blocks or whole; the size changes only with the last */
        for (size_t i = 0; i < req->payload_len; i++) {
            if (req->payload[i] != (uint8_t)((req->block_off + i) % 251u)) {
                resp->code = COAP_CODE_BAD_REQUEST;
                return;
            }
        }
        if (!req->block_more) {
            c->pattern_len = (uint32_t)(req->block_off + req->payload_len);
            (void)wren_coap_notify(c, arg); /* its observers get it block-wise */
        }
        return;
    }
    /* only the window is made: the representation is pattern_len bytes */
    size_t end = resp->off + resp->max;
    if (end > c->pattern_len) {
        end = c->pattern_len;
    }
    for (size_t i = resp->off; i < end; i++) {
        resp->buf[i - resp->off] = (uint8_t)(i % 251u);
    }
    resp->pos = c->pattern_len;
}

/* ---- /slow: GET answered CONFIG_WREN_COAP_SLOW_MS later (separate) ------- */

static void slow_answer(struct wren_timer *t, void *arg)
{
    (void)t;
    struct wren_coap *c = arg;
    for (unsigned i = 0; c->slow_pending >> i; i++) {
        if (c->slow_pending & (1u << i)) {
            (void)wren_coap_resp_separate(c, (int)i, COAP_CODE_CONTENT, COAP_CF_TEXT, "slow", 4);
        }
    }
    c->slow_pending = 0;
}

static void slow_handler(struct wren_coap *c, const struct wren_coap_req *req,
                         struct wren_coap_resp *resp, void *arg)
{
    (void)arg;
    int h = wren_coap_resp_defer(c, req);
    if (h == -EINVAL) {
        wren_coap_resp_write(resp, "slow", 4); /* a transport without separate responses (TCP) */
        return;
    }
    if (h < 0) {
        resp->code = COAP_CODE_SERVICE_UNAVAILABLE; /* RFC 7252 5.9.3.4 */
        resp->max_age = CONFIG_WREN_COAP_SLOW_MS / 1000u + 1u;
        resp->has_max_age = 1;
        return;
    }
    if (c->slow_pending == 0) {
        wren_timer_set(c->node, &c->slow_timer, (uint64_t)CONFIG_WREN_COAP_SLOW_MS * 1000u);
    }
    c->slow_pending |= (uint8_t)(1u << h);
}

static const int16_t text_only[] = { COAP_CF_TEXT, -1 };

static const struct wren_coap_resource defaults[] = {
    { .path = "/counter",
      .methods = WREN_COAP_GET | WREN_COAP_POST | WREN_COAP_PUT | WREN_COAP_DELETE,
      .cf = COAP_CF_TEXT, .accepts = text_only, .observable = true, .handler = counter_handler,
      .arg = (void *)&defaults[0] },
    { .path = "/stats", .methods = WREN_COAP_GET, .cf = COAP_CF_TEXT, .handler = stats_handler },
    { .path = "/pattern", .methods = WREN_COAP_GET | WREN_COAP_PUT, .cf = COAP_CF_OCTETS,
      .observable = true, .block1 = true, .handler = pattern_handler,
      .arg = (void *)&defaults[2] },
    { .path = "/slow", .methods = WREN_COAP_GET, .cf = COAP_CF_TEXT, .handler = slow_handler },
};

_Static_assert(sizeof(defaults) / sizeof(defaults[0]) == 4, "WREN_COAP_N_DEFAULT");

void wren_coap_default_resources(struct wren_coap *c)
{
    c->pattern_len = CONFIG_WREN_COAP_PATTERN_LEN;
    wren_timer_init(&c->slow_timer, slow_answer, c);
    for (unsigned i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
        (void)wren_coap_resource_add(c, &defaults[i]);
    }
}

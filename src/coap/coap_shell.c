/* The CoAP module's shell command: `coap` lists the resources served;
 * `coap get|post|put|delete ADDR PATH [PAYLOAD] [non] [port N]` sends a
 * request and prints the response when it comes; a URI instead of ADDR
 * PATH (`coap://[ADDR]:PORT/PATH?QUERY`, or `coap+tcp://...` for CoAP over
 * TCP, RFC 8323 8.1) names the transport, the port and the query too. */
#include <errno.h>
#include <string.h>

#include "coap/coap_priv.h"
#include "ipv6/addr_str.h"
#include "shell/shell.h"
#include "wire/ipv6.h"

/* Count @p m's payload into @p r: length, FNV-1a, its first bytes. */
static void take_payload(struct wren_coap_shell_req *r, const struct coap_msg *m)
{
    r->code = m->code;
    for (size_t i = 0; i < m->payload_len; i++) {
        uint8_t b = m->payload[i];
        r->fnv = (r->fnv ^ b) * 16777619u;
        r->printable &= (b >= 0x20 && b < 0x7f) || b == '\n';
        if (r->text_len < sizeof(r->text) - 1) {
            r->text[r->text_len++] = b == '\n' ? ' ' : (char)b;
        }
    }
    r->len += m->payload_len;
}

/* Whether @p m has a Block2 option whose M says more blocks follow. */
static bool block2_says_more(const struct coap_msg *m)
{
    struct coap_opt o;
    uint32_t v;
    struct coap_block blk;
    return m && wren_coap_opt_find(m, COAP_OPT_BLOCK2, &o) && wren_coap_opt_uint(&o, &v) == 0 &&
           wren_coap_block_decode(v, &blk) == 0 && blk.more;
}

/* The response's line (a notification's, or a multicast answer's with its
 * source), then the counts start afresh for the next one. */
static void print_response(struct wren_shell *sh, struct wren_coap *c,
                           struct wren_coap_shell_req *r, int status)
{
    char src[48] = "";
    const struct wren_sock_udp_ep *from = wren_coap_resp_from(c);
    if (r->mcast && from) {
        size_t n = strlen(wren_ipv6_addr_to_str(src + 5, from->addr)) + 5;
        memcpy(src, "from ", 5);
        src[n] = ' ';
        src[n + 1] = '\0';
    }
    r->text[r->text_len] = '\0';
    wren_shell_printf(sh, "coap: %s%s%u.%02u, %zu bytes, fnv1a 0x%08x%s%s\n",
                      src, status > 0 && r->observe ? "notification " : "", (unsigned)COAP_CODE_CLASS(r->code),
                      (unsigned)COAP_CODE_DETAIL(r->code), r->len, (unsigned)r->fnv,
                      r->printable && r->len ? ": " : "", r->printable && r->len ? r->text : "");
    r->len = 0;
    r->fnv = 2166136261u;
    r->text_len = 0;
    r->printable = 1;
}

static void resp_cb(struct wren_coap *c, int status, const struct coap_msg *m, void *arg)
{
    struct wren_coap_shell_req *r = arg;
    struct wren_shell *sh = c->shell;
    if (m) {
        take_payload(r, m);
    }
    if (status > 0 && !r->mcast && (!r->observe || block2_says_more(m))) {
        return; /* more blocks follow (of a notification too, RFC 7959 3.4) */
    }
    if (status <= 0) {
        r->active = 0;
    }
    if (sh == NULL) {
        return;
    }
    if (status < 0) {
        wren_shell_printf(sh, "coap: error %s\n",
                          status == -ETIMEDOUT ? "timeout" : status == -ECONNREFUSED ? "reset"
                                                                                     : "send");
    } else if (r->mcast && status == 0) {
        wren_shell_printf(sh, "coap: multicast wait over\n");
    } else {
        print_response(sh, c, r, status);
    }
}

/* the body of `coap put ... pattern:N`: byte i is i mod 251 */
static size_t pattern_source(void *arg, size_t off, uint8_t *buf, size_t max)
{
    (void)arg;
    for (size_t i = 0; i < max; i++) {
        buf[i] = (uint8_t)((off + i) % 251u);
    }
    return max;
}

/* RFC 7252 6.1, RFC 8323 8.1: "coap[+tcp]://[ADDR][:PORT][/PATH][?QUERY]",
 * cut in place into @p rq and @p to. @return 0, or -EINVAL. */
static int parse_uri(char *uri, struct wren_coap_client_req *rq, struct wren_sock_udp_ep *to)
{
    char *p;
    if (strncmp(uri, "coap://[", 8) == 0) {
        p = uri + 8;
    } else if (strncmp(uri, "coap+tcp://[", 12) == 0) {
        p = uri + 12;
        rq->tcp = true;
    } else {
        return -EINVAL;
    }
    char *end = strchr(p, ']');
    if (end == NULL) {
        return -EINVAL;
    }
    *end = '\0';
    if (wren_ipv6_addr_from_str(to->addr, p) < 0) {
        return -EINVAL;
    }
    p = end + 1;
    if (*p == ':') {
        unsigned long port = 0;
        for (p++; *p >= '0' && *p <= '9'; p++) {
            port = port * 10 + (unsigned long)(*p - '0');
            if (port > 65535) {
                return -EINVAL;
            }
        }
        if (port == 0) {
            return -EINVAL;
        }
        to->port = (uint16_t)port;
    }
    if (*p != '\0' && *p != '/' && *p != '?') {
        return -EINVAL;
    }
    char *q = strchr(p, '?');
    if (q) {
        *q = '\0';
        rq->query = q + 1;
    }
    /* the path keeps its leading '/' */
    rq->path = *p ? p : NULL;
    return 0;
}

/* `coap` alone: the resources and how full the tables are. */
static int print_resources(struct wren_shell *sh, struct wren_coap *c)
{
    wren_shell_printf(sh, "CoAP server on port %u: %u resources\n", COAP_PORT, c->n_res + 1u);
    wren_shell_printf(sh, "  /.well-known/core\n");
    for (unsigned i = 0; i < c->n_res; i++) {
        wren_shell_printf(sh, "  %s\n", WREN_COAP_RES(c, i)->path);
    }
    unsigned used = 0, busy = 0;
#if CONFIG_WREN_COAP_DEDUP
    for (unsigned i = 0; i < CONFIG_WREN_COAP_DEDUP && wren_coap_srv_made(c); i++) {
        used += WREN_COAP_SRV(c)->dedup[i].used;
    }
#endif
    for (unsigned i = 0; i < CONFIG_WREN_COAP_CLIENT_XCHG && wren_coap_cl_made(c); i++) {
        busy += WREN_COAP_CL(c)->xchg[i].used;
    }
    wren_shell_printf(sh, "exchanges remembered: %u of %u; client requests: %u of %u\n",
                      used, CONFIG_WREN_COAP_DEDUP, busy, CONFIG_WREN_COAP_CLIENT_XCHG);
    return 0;
}

/* The method word into @p rq (0: none of them). */
static void parse_method(const char *w, struct wren_coap_client_req *rq)
{
    static const char *const methods[] = { "get", "post", "put", "delete" };
    for (unsigned i = 0; i < 4; i++) {
        if (strcmp(w, methods[i]) == 0) {
            rq->method = (uint8_t)(COAP_CODE_GET + i);
        }
    }
    if (strcmp(w, "observe") == 0) {
        rq->method = COAP_CODE_GET;
        rq->observe = true;
    }
}

/* ADDR PATH or URI, then [PAYLOAD|pattern:N] [non] [port N], into @p rq
 * and @p to. @return whether any is bad. */
static int parse_request(int argc, char **argv, struct wren_coap_client_req *rq,
                         struct wren_sock_udp_ep *to)
{
    int first = 4, bad;
    if (argc >= 3 && strncmp(argv[2], "coap", 4) == 0) {
        bad = rq->method == 0 || parse_uri(argv[2], rq, to) < 0;
        first = 3;
    } else {
        bad = rq->method == 0 || argc < 4 || wren_ipv6_addr_from_str(to->addr, argv[2]) < 0;
        rq->path = argc >= 4 ? argv[3] : NULL;
    }
    for (int i = first; !bad && i < argc; i++) {
        bool body = rq->payload == NULL && rq->source == NULL;
        if (strcmp(argv[i], "non") == 0) {
            rq->non = true;
        } else if (strcmp(argv[i], "port") == 0 && i + 1 < argc) {
            to->port = (uint16_t)wren_shell_num(argv[++i], 1, 65535, &bad);
        } else if (body && strncmp(argv[i], "pattern:", 8) == 0) {
            rq->len = (size_t)wren_shell_num(argv[i] + 8, 1, 1 << 24, &bad);
            rq->source = pattern_source;
            rq->cf = COAP_CF_OCTETS;
        } else if (body) {
            rq->payload = argv[i];
            rq->len = strlen(argv[i]);
            rq->cf = COAP_CF_TEXT;
        } else {
            bad = 1;
        }
    }
    return bad;
}

static int cmd_coap(struct wren_shell *sh, struct wren_module *m, int argc, char **argv)
{
    struct wren_coap *c = (struct wren_coap *)m;
    if (argc == 1) {
        return print_resources(sh, c);
    }
    if (strcmp(argv[1], "cancel") == 0 && argc == 2) {
        if (c->shell_req.active) {
            wren_coap_cancel(c, c->shell_req.x);
            c->shell_req.active = 0;
        }
        return 0;
    }
    struct wren_coap_client_req rq = { .cf = -1, .accept = -1 };
    struct wren_sock_udp_ep to = { .port = COAP_PORT };
    parse_method(argv[1], &rq);
    if (parse_request(argc, argv, &rq, &to)) {
        wren_shell_printf(sh, "usage: coap [get|post|put|delete|observe ADDR PATH|URI "
                              "[PAYLOAD|pattern:N] [non] [port N] | cancel] "
                              "(URI: coap[+tcp]://[ADDR][:PORT][/PATH][?QUERY])\n");
        return -EINVAL;
    }
    /* one request of the shell's at a time: its state is the module's */
    struct wren_coap_shell_req *r = &c->shell_req;
    if (r->active) {
        return wren_shell_error(sh, -EBUSY, "coap request");
    }
    /* RFC 7252 8.1: a request to a group goes NON */
    bool mcast = !rq.tcp && wren_ipv6_addr_is_multicast(to.addr);
    rq.non = rq.non || mcast;
    *r = (struct wren_coap_shell_req){ .fnv = 2166136261u, .printable = 1, .active = 1,
                                       .observe = rq.observe, .mcast = mcast };
    c->shell = sh;
    int x = wren_coap_request(c, &to, &rq, resp_cb, r);
    if (x < 0) {
        r->active = 0;
        return wren_shell_error(sh, x, "coap request");
    }
    r->x = (int8_t)x;
    return 0;
}

const struct wren_shell_cmd wren_coap_shell_cmds[] = {
    { "coap",
      "coap [get|post|put|delete|observe ADDR PATH|URI [PAYLOAD|pattern:N] [non] [port N] | "
      "cancel]: CoAP resources, or a request (URI: coap://[ADDR]:PORT/PATH?QUERY, or "
      "coap+tcp://... for CoAP over TCP; pattern:N: N bytes of i mod 251, in Block1 "
      "blocks; observe: a line per notification until cancel)",
      cmd_coap },
    { NULL, NULL, NULL },
};

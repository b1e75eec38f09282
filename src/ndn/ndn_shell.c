/* The `ndn` shell command: faces, routes, PIT, CS, counters, and a console
 * consumer (`ndn interest`) and producer (`ndn serve`). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/node.h"
#include "ipv6/addr_str.h"
#include "ndn/ndn_priv.h"
#include "net/netopt.h"
#include "shell/shell.h"

#if CONFIG_WREN_SHELL

static const char usage[] =
    "usage: ndn [counters] | faces | routes | pit | cs | route add PREFIX FACE [cost N] | "
    "route del PREFIX [face N] | interest NAME [prefix] [fresh] [lifetime MS] | "
    "serve PREFIX TEXT [fresh MS]   (FACE: face N | if IF [L2ADDR] | udp ADDR [PORT])\n";

static void print_name(struct wren_shell *sh, const uint8_t *v, size_t len)
{
    char uri[160];
    struct ndn_name n = { .v = v, .len = (uint16_t)len };
    wren_ndn_name_to_uri(&n, uri, sizeof(uri));
    wren_shell_printf(sh, "%s", uri);
}

/* ---- show ---- */

static void show_faces(struct wren_shell *sh, struct wren_ndn *ndn)
{
    static const char *const kinds[] = { "-", "link", "udp", "app" };
    for (uint8_t i = 1; i <= CONFIG_WREN_NDN_FACES; i++) {
        const struct wren_ndn_face *f = wren_ndn_face(ndn, i);
        if (f == NULL) {
            continue;
        }
        wren_shell_printf(sh, "face %u %s", i, kinds[f->kind]);
        if (f->kind == WREN_NDN_FACE_LINK) {
            wren_shell_printf(sh, " if %u", f->if_id);
            for (int k = 0; k < f->addr_len; k++) {
                wren_shell_printf(sh, "%s%02x", k ? ":" : " ", f->addr[k]);
            }
            wren_shell_printf(sh, "%s", f->addr_len ? "" : " broadcast");
        } else if (f->kind == WREN_NDN_FACE_UDP) {
            char a[48];
            wren_shell_printf(sh, " [%s]:%u", wren_ipv6_addr_to_str(a, f->addr), f->port);
        }
        wren_shell_printf(sh, " mtu %u\n", f->mtu);
    }
}

static void show_routes(struct wren_shell *sh, struct wren_ndn *ndn)
{
    for (int i = 0; i < CONFIG_WREN_NDN_FIB; i++) {
        const struct wren_ndn_fib_entry *e = &ndn->fib[i];
        bool any = false;
        for (int k = 0; k < CONFIG_WREN_NDN_NEXTHOPS; k++) {
            if (e->hops[k].face) {
                if (!any) {
                    print_name(sh, e->name, e->len);
                }
                wren_shell_printf(sh, " face %u cost %u", e->hops[k].face, e->hops[k].cost);
                any = true;
            }
        }
        wren_shell_printf(sh, "%s", any ? "\n" : "");
    }
}

static void show_pit(struct wren_shell *sh, struct wren_ndn *ndn)
{
    uint64_t now = wren_node_now(ndn->node);
    for (int i = 0; i < CONFIG_WREN_NDN_PIT; i++) {
        const struct wren_ndn_pit_entry *e = &ndn->pit[i];
        if (e->interest) {
            print_name(sh, e->interest->data + e->name_off, e->name_len);
            wren_shell_printf(sh, " in 0x%x out 0x%x nonces %u expires %lu ms\n", e->in_faces,
                              e->out_faces, e->n_nonces,
                              (unsigned long)((e->expires > now ? e->expires - now : 0) / 1000));
        }
    }
}

static void show_cs(struct wren_shell *sh, struct wren_ndn *ndn)
{
    uint64_t now = wren_node_now(ndn->node);
    for (int i = 0; i < CONFIG_WREN_NDN_CS; i++) {
        const struct wren_ndn_cs_entry *c = &ndn->cs[i];
        if (c->len) {
            print_name(sh, ndn->cs_store + c->off + c->name_off, c->name_len);
            wren_shell_printf(sh, " %u bytes %s\n", c->len, now < c->stale_at ? "fresh" : "stale");
        }
    }
}

static void show_counters(struct wren_shell *sh, struct wren_ndn *ndn)
{
#if CONFIG_WREN_COUNTER_NAMES
    static const char *const names[] = { WREN_NDN_COUNTERS(WREN_COUNTER_STR) };
    const uint32_t *v = (const uint32_t *)(const void *)&ndn->stats;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        wren_shell_printf(sh, "%s %lu\n", names[i], (unsigned long)v[i]);
    }
#else
    (void)sh, (void)ndn;
#endif
}

/* ---- routes ---- */

static int parse_l2(const char *s, uint8_t *addr)
{
    int n = 0;
    while (*s && n < 8) {
        char *end;
        unsigned long b = strtoul(s, &end, 16);
        if (end == s || b > 255 || (*end && *end != ':')) {
            return -EINVAL;
        }
        addr[n++] = (uint8_t)b;
        s = *end ? end + 1 : end;
    }
    return *s || (n != 2 && n != 6 && n != 8) ? -EINVAL : n;
}

/* FACE words at argv: the face id, made if need be; *used: words taken */
static int face_spec(struct wren_shell *sh, struct wren_ndn *ndn, int argc, char **argv, int *used)
{
    int bad = 0;
    struct wren_ndn_face_cfg c = { 0 };
    if (argc >= 2 && strcmp(argv[0], "face") == 0) {
        *used = 2;
        long id = wren_shell_num(argv[1], 1, CONFIG_WREN_NDN_FACES, &bad);
        return bad || !wren_ndn_face(ndn, (uint8_t)id) ? -ENOENT : (int)id;
    }
    if (argc >= 2 && strcmp(argv[0], "if") == 0) {
        c.kind = WREN_NDN_FACE_LINK;
        c.if_id = (uint8_t)wren_shell_num(argv[1], 1, 255, &bad);
        int n = argc >= 3 && strcmp(argv[2], "cost") != 0 ? parse_l2(argv[2], c.addr) : 0;
        *used = n ? 3 : 2;
        c.addr_len = (uint8_t)(n > 0 ? n : 0);
        bad |= n < 0;
    } else if (argc >= 2 && strcmp(argv[0], "udp") == 0) {
        c.kind = WREN_NDN_FACE_UDP;
        c.addr_len = 16;
        bad |= wren_ipv6_addr_from_str(c.addr, argv[1]) < 0;
        bool port = argc >= 3 && strcmp(argv[2], "cost") != 0;
        c.port = port ? (uint16_t)wren_shell_num(argv[2], 1, 65535, &bad) : WREN_NDN_UDP_PORT;
        *used = port ? 3 : 2;
    } else {
        return -EINVAL;
    }
    (void)sh;
    return bad ? -EINVAL : wren_ndn_face_add(ndn, &c);
}

static int cmd_route(struct wren_shell *sh, struct wren_ndn *ndn, int argc, char **argv)
{
    struct wren_ndn_route r = { 0 };
    bool add = argc >= 5 && strcmp(argv[2], "add") == 0;
    if (!add && !(argc >= 4 && strcmp(argv[2], "del") == 0)) {
        wren_shell_printf(sh, "%s", usage);
        return -EINVAL;
    }
    int n = wren_ndn_name_from_uri(argv[3], r.name, sizeof(r.name));
    if (n < 0) {
        return wren_shell_error(sh, n, "ndn route: bad or too long prefix");
    }
    r.len = (uint8_t)n;
    int used = 0, bad = 0;
    int face = argc > 4 ? face_spec(sh, ndn, argc - 4, argv + 4, &used) : 0;
    if (face < 0) {
        return wren_shell_error(sh, face, "ndn route: bad face (face N | if IF [L2ADDR] | udp ADDR [PORT])");
    }
    r.face = (uint8_t)face;
    r.cost = add ? 0 : WREN_NDN_ROUTE_DEL;
    if (add && argc == 4 + used + 2 && strcmp(argv[4 + used], "cost") == 0) {
        r.cost = (uint8_t)wren_shell_num(argv[5 + used], 0, 254, &bad);
    } else if (argc != 4 + used) {
        bad = 1;
    }
    int rc = bad ? -EINVAL : wren_ndn_fib_set(ndn, &r);
    if (rc < 0) {
        return wren_shell_error(sh, rc, add ? "ndn route add" : "ndn route del");
    }
    if (add) {
        wren_shell_printf(sh, "route %s face %d\n", argv[3], face);
    }
    return 0;
}

/* ---- console consumer and producer ---- */

static void con_timeout(struct wren_timer *t, void *arg)
{
    (void)t;
    struct wren_ndn_console *c = arg;
    if (c->waiting) {
        c->waiting = false;
        wren_shell_printf(c->sh, "ndn: timeout ");
        print_name(c->sh, c->name, c->name_len);
        wren_shell_printf(c->sh, "\n");
    }
}

static void print_content(struct wren_shell *sh, const struct ndn_data *d)
{
    wren_shell_printf(sh, " content %u bytes \"", d->content_len);
    for (uint16_t i = 0; i < d->content_len && i < 40; i++) {
        char ch = (char)d->content[i];
        wren_shell_printf(sh, "%c", ch >= 32 && ch < 127 ? ch : '.');
    }
    wren_shell_printf(sh, "\"\n");
}

static void con_data(struct wren_ndn_app *app, void *arg)
{
    struct wren_ndn_console *c = arg;
    uint8_t buf[CONFIG_WREN_NDN_MAX_PACKET];
    ssize_t n;
    while ((n = wren_ndn_app_recv(app, buf, sizeof(buf), 0)) >= 0) {
        struct ndn_data d;
        struct ndn_name asked = { .v = c->name, .len = c->name_len };
        if (wren_ndn_data_parse(buf, (size_t)n, &d) < 0 || !c->waiting ||
            !wren_ndn_data_answers(&asked, c->cbp, &d, buf, (size_t)n)) {
            continue;
        }
        c->waiting = false;
        wren_timer_cancel(app->node, &c->timer);
        wren_shell_printf(c->sh, "ndn: data ");
        print_name(c->sh, d.name.v, d.name.len);
        wren_shell_printf(c->sh, " after %lu us", (unsigned long)(wren_node_now(app->node) - c->sent_at));
        print_content(c->sh, &d);
    }
}

static int con_open(struct wren_ndn *ndn, struct wren_ndn_app *app, wren_ndn_app_cb cb)
{
    if (app->fwd) {
        return 0;
    }
    int rc = wren_ndn_app_open(ndn->node, app);
    if (rc == 0) {
        wren_ndn_app_set_cb(app, cb, &ndn->con);
        if (app == &ndn->con.consumer) {
            wren_timer_init(&ndn->con.timer, con_timeout, &ndn->con);
        }
    }
    return rc;
}

static int cmd_interest(struct wren_shell *sh, struct wren_ndn *ndn, int argc, char **argv)
{
    struct wren_ndn_console *c = &ndn->con;
    struct ndn_interest in = { .has_lifetime = true, .lifetime_ms = NDN_LIFETIME_DEFAULT_MS };
    int bad = argc < 3, n = bad ? -EINVAL : wren_ndn_name_from_uri(argv[2], c->name, sizeof(c->name));
    for (int i = 3; i < argc && !bad; i++) {
        if (strcmp(argv[i], "prefix") == 0 || strcmp(argv[i], "fresh") == 0) {
            *(argv[i][0] == 'p' ? &in.can_be_prefix : &in.must_be_fresh) = true;
        } else if (strcmp(argv[i], "lifetime") == 0 && i + 1 < argc) {
            in.lifetime_ms = (uint32_t)wren_shell_num(argv[++i], 1, 3600000, &bad);
        } else {
            bad = 1;
        }
    }
    if (bad || n < 0 || wren_ndn_name_parse(c->name, (size_t)n, &in.name) < 0) {
        return wren_shell_error(sh, -EINVAL, "ndn interest NAME [prefix] [fresh] [lifetime MS]");
    }
    int rc = con_open(ndn, &c->consumer, con_data);
    rc = rc < 0 ? rc : wren_ndn_app_express(&c->consumer, &in);
    if (rc < 0) {
        return wren_shell_error(sh, rc, "ndn interest");
    }
    c->sh = sh;
    c->sent_at = wren_node_now(ndn->node);
    c->name_len = (uint8_t)n;
    c->waiting = true;
    c->cbp = in.can_be_prefix;
    wren_timer_set(ndn->node, &c->timer, (uint64_t)in.lifetime_ms * 1000u);
    return 0;
}

static void con_serve(struct wren_ndn_app *app, void *arg)
{
    struct wren_ndn_console *c = arg;
    uint8_t buf[CONFIG_WREN_NDN_MAX_PACKET];
    ssize_t n;
    while ((n = wren_ndn_app_recv(app, buf, sizeof(buf), 0)) >= 0) {
        struct ndn_interest in;
        if (wren_ndn_interest_parse(buf, (size_t)n, &in) < 0) {
            continue;
        }
        /* a name ending in an implicit digest asks for the Data of the name
         * before it (whose digest the consumer knows) */
        struct ndn_data d = { .name = in.name, .has_meta = true, .has_content_type = true,
                              .has_freshness = c->fresh_ms > 0, .freshness_ms = c->fresh_ms,
                              .has_content = true, .content = (const uint8_t *)c->text,
                              .content_len = c->text_len };
        struct ndn_name parent = wren_ndn_name_parent(&in.name);
        if (parent.len != in.name.len &&
            wren_ndn_packet_type(in.name.v + parent.len, in.name.len - parent.len) ==
                NDN_T_IMPLICIT_DIGEST) {
            d.name = parent;
        }
        wren_ndn_app_put_data(app, &d);
    }
}

static int cmd_serve(struct wren_shell *sh, struct wren_ndn *ndn, int argc, char **argv)
{
    struct wren_ndn_console *c = &ndn->con;
    int bad = !(argc == 4 || (argc == 6 && strcmp(argv[4], "fresh") == 0));
    uint32_t fresh = argc == 6 ? (uint32_t)wren_shell_num(argv[5], 0, 3600000, &bad) : 0;
    if (bad || strlen(argv[3]) > sizeof(c->text)) {
        return wren_shell_error(sh, -EINVAL, "ndn serve PREFIX TEXT (up to 32 characters) [fresh MS]");
    }
    int rc = con_open(ndn, &c->producer, con_serve);
    rc = rc < 0 ? rc : wren_ndn_app_register(&c->producer, argv[2], 0);
    if (rc < 0) {
        return wren_shell_error(sh, rc, "ndn serve");
    }
    c->sh = sh;
    c->fresh_ms = fresh;
    c->text_len = (uint8_t)strlen(argv[3]);
    memcpy(c->text, argv[3], c->text_len);
    wren_shell_printf(sh, "serving %s\n", argv[2]);
    return 0;
}

static int cmd_ndn(struct wren_shell *sh, struct wren_module *m, int argc, char **argv)
{
    struct wren_ndn *ndn = (struct wren_ndn *)m;
    const char *w = argc > 1 ? argv[1] : "counters";
    if (strcmp(w, "route") == 0) {
        return cmd_route(sh, ndn, argc, argv);
    } else if (strcmp(w, "interest") == 0) {
        return cmd_interest(sh, ndn, argc, argv);
    } else if (strcmp(w, "serve") == 0) {
        return cmd_serve(sh, ndn, argc, argv);
    } else if (argc > 2) {
        w = "?";
    }
    static const struct {
        const char *name;
        void (*fn)(struct wren_shell *, struct wren_ndn *);
    } shows[] = { { "counters", show_counters }, { "faces", show_faces }, { "routes", show_routes },
                  { "pit", show_pit },           { "cs", show_cs } };
    for (size_t i = 0; i < sizeof(shows) / sizeof(shows[0]); i++) {
        if (strcmp(w, shows[i].name) == 0) {
            shows[i].fn(sh, ndn);
            return 0;
        }
    }
    wren_shell_printf(sh, "%s", usage);
    return -EINVAL;
}

const struct wren_shell_cmd wren_ndn_shell_cmds[] = {
    { "ndn", "NDN forwarder: faces, routes (route add/del), pit, cs, counters; interest NAME; "
             "serve PREFIX TEXT",
      cmd_ndn },
    { NULL, NULL, NULL },
};

#endif

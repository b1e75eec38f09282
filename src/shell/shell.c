/* The shell: a line split and dispatched (the runtime's commands, the
 * shell's, the modules'), the output in pieces with its printf walker, and
 * the shell's own commands but `ifconfig`, which is in shell_if.c. */
#include "shell/shell.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/byteorder.h"
#include "core/node.h"
#include "icmpv6/icmpv6.h"
#include "ipv6/addr_str.h"
#include "ipv6/ipv6.h"
#include "net/netapi.h"
#include "net/netif.h"
#include "net/netopt.h"
#include "link/ieee802154_link.h"
#include "nib/nib.h"
#include "sixlowpan/sixlowpan.h"
#include "apps/tcp_app.h"
#include "tcp/tcp.h"
#include "udp/udp.h"
#include "shell/shell_priv.h"
#include "stack/stack.h"

#define MAX_ARGS 12

/* ---- output ---------------------------------------------------------------
 * A line goes to the runtime's callback whole when it fits a piece; a longer
 * one (the `help` line of `coap` is over 300 characters) is streamed in pieces
 * of up to SHELL_PIECE - 1 characters, never cut: its text and %s arguments
 * straight from where they are, each other conversion formatted alone. The
 * callbacks (simulator, wren-node, Cortex-M console) append what they get. */
#define SHELL_PIECE 128
#define SHELL_NUM_WIDTH 64 /* wider numbers are padded here, not by vsnprintf */

struct piece {
    struct wren_shell *sh;
    size_t len;
    char buf[SHELL_PIECE];
};

static void piece_flush(struct piece *p)
{
    if (p->len && p->sh->out) {
        p->buf[p->len] = 0;
        p->sh->out(p->sh->out_ctx, p->buf);
    }
    p->len = 0;
}

static void piece_put(struct piece *p, const char *s, size_t n)
{
    while (n) {
        size_t k = sizeof(p->buf) - 1 - p->len;
        k = k < n ? k : n;
        memcpy(p->buf + p->len, s, k);
        p->len += k, s += k, n -= k;
        if (p->len == sizeof(p->buf) - 1) {
            piece_flush(p);
        }
    }
}

static void piece_pad(struct piece *p, size_t n)
{
    static const char spaces[] = "                ";
    while (n) {
        size_t k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;
        piece_put(p, spaces, k);
        n -= k;
    }
}

/* one conversion of printf's: %[flags][width][.prec][length]conv */
struct conv {
    char flags[6];
    char len[3];
    char c;
    int width; /* -1: none */
    int prec;  /* -1: none */
};

/* a string (%s, %c) padded to the width */
static void put_str(struct piece *p, const struct conv *v, const char *s, size_t n)
{
    size_t pad = v->width > 0 && (size_t)v->width > n ? (size_t)v->width - n : 0;
    bool left = strchr(v->flags, '-') != NULL;
    if (!left) {
        piece_pad(p, pad);
    }
    piece_put(p, s, n);
    if (left) {
        piece_pad(p, pad);
    }
}

/* the conversion @p v as a printf format of its own, width @p w, conversion @p c */
static void spec_of(char spec[32], const struct conv *v, int w, char c)
{
    int n = snprintf(spec, 32, "%%%s", v->flags);
    if (w >= 0) {
        n += snprintf(spec + n, 32 - (size_t)n, "%d", w);
    }
    if (v->prec >= 0) {
        n += snprintf(spec + n, 32 - (size_t)n, ".%d", v->prec);
    }
    snprintf(spec + n, 32 - (size_t)n, "%s%c", v->len, c);
}

/* a floating conversion into @p tmp; one too long for it (%f of 1e300) is
 * formatted again in the e-style of the same precision rather than cut */
static int fmt_float(char *tmp, size_t room, char spec[32], const struct conv *v, int w,
                     va_list *ap)
{
    long double x = v->len[0] == 'L' ? va_arg(*ap, long double) : va_arg(*ap, double);
    int n = -1;
    for (int k = 0; k < 2; k++) {
        n = v->len[0] == 'L' ? snprintf(tmp, room, spec, x) : snprintf(tmp, room, spec, (double)x);
        if (n >= 0 && (size_t)n < room) {
            break;
        }
        spec_of(spec, v, w, 'e');
    }
    return n;
}

/* an integer conversion (or %p) into @p tmp, its argument read at the
 * type its length modifier names */
static int fmt_int(char *tmp, size_t room, const char *spec, const struct conv *v, va_list *ap)
{
    bool sgn = v->c == 'd' || v->c == 'i';
    if (v->c == 'p') {
        return snprintf(tmp, room, spec, va_arg(*ap, void *));
    }
    if (strcmp(v->len, "ll") == 0 || v->len[0] == 'j') {
        return sgn ? snprintf(tmp, room, spec, va_arg(*ap, long long))
                   : snprintf(tmp, room, spec, va_arg(*ap, unsigned long long));
    }
    if (v->len[0] == 'l') {
        return sgn ? snprintf(tmp, room, spec, va_arg(*ap, long))
                   : snprintf(tmp, room, spec, va_arg(*ap, unsigned long));
    }
    if (v->len[0] == 'z' || v->len[0] == 't') {
        return snprintf(tmp, room, spec, va_arg(*ap, size_t));
    }
    return sgn ? snprintf(tmp, room, spec, va_arg(*ap, int))
               : snprintf(tmp, room, spec, va_arg(*ap, unsigned int));
}

/* @p tmp (@p len characters) with zeros up to the conversion's width after
 * its sign and 0x, as printf pads */
static void put_zero_padded(struct piece *p, const struct conv *v, const char *tmp, size_t len)
{
    size_t pre = len && strchr("+- ", tmp[0]) ? 1 : 0;
    pre += len > pre + 1 && tmp[pre] == '0' && (tmp[pre + 1] | 0x20) == 'x' ? 2 : 0;
    piece_put(p, tmp, pre);
    for (size_t z = len; z < (size_t)v->width; z++) {
        piece_put(p, "0", 1);
    }
    piece_put(p, tmp + pre, len - pre);
}

/* a number, formatted by snprintf alone (a width over SHELL_NUM_WIDTH is
 * padded by put_str or put_zero_padded) */
static void put_num(struct piece *p, const struct conv *v, va_list *ap)
{
    char spec[32], tmp[SHELL_NUM_WIDTH + 32];
    int w = v->width > SHELL_NUM_WIDTH ? -1 : v->width;
    bool flt = strchr("fFeEgGaA", v->c) != NULL;
    spec_of(spec, v, w, v->c);
    int n = flt ? fmt_float(tmp, sizeof(tmp), spec, v, w, ap)
                : fmt_int(tmp, sizeof(tmp), spec, v, ap);
    size_t len = n < 0 ? 0 : strlen(tmp);
    bool int_prec = v->prec >= 0 && !flt;
    /* (a width snprintf was not given: none at all, w -1 too, pads nothing) */
    if (v->width > SHELL_NUM_WIDTH && strchr(v->flags, '0') && !strchr(v->flags, '-') &&
        !int_prec && (size_t)v->width > len) {
        put_zero_padded(p, v, tmp, len);
        return;
    }
    put_str(p, v, tmp, len);
}

/* a flag, once (a later repeat is dropped, as is one past the room) */
static void add_flag(struct conv *v, unsigned *k, char f)
{
    if (*k < sizeof(v->flags) - 1 && !strchr(v->flags, f)) {
        v->flags[(*k)++] = f;
    }
}

/* [width]: digits, or '*' (an argument; a negative one is the '-' flag) */
static const char *parse_width(const char *f, struct conv *v, unsigned *k, va_list *ap)
{
    if (*f == '*') {
        v->width = va_arg(*ap, int), f++;
        if (v->width < 0) {
            v->width = -v->width;
            add_flag(v, k, '-');
        }
    }
    for (; *f >= '0' && *f <= '9'; f++) {
        v->width = (v->width < 0 ? 0 : v->width % 100000) * 10 + (*f - '0');
    }
    return f;
}

/* [.prec]: digits, or '*' (an argument; a negative one is none) */
static const char *parse_prec(const char *f, struct conv *v, va_list *ap)
{
    if (*f != '.') {
        return f;
    }
    v->prec = 0, f++;
    if (*f == '*') {
        v->prec = va_arg(*ap, int), f++;
        v->prec = v->prec < 0 ? -1 : v->prec;
    }
    for (; *f >= '0' && *f <= '9'; f++) {
        v->prec = v->prec % 100000 * 10 + (*f - '0');
    }
    return f;
}

/* reads one conversion after its '%': %[flags][width][.prec][length]conv;
 * returns where the format goes on */
static const char *conv_parse(const char *f, struct conv *v, va_list *ap)
{
    unsigned k = 0;
    memset(v, 0, sizeof(*v));
    v->width = v->prec = -1;
    for (; *f && strchr("-+ #0", *f); f++) {
        add_flag(v, &k, *f);
    }
    f = parse_width(f, v, &k, ap);
    f = parse_prec(f, v, ap);
    for (k = 0; *f && strchr("hlzjtL", *f) && k < sizeof(v->len) - 1; f++) {
        v->len[k++] = *f;
    }
    v->c = *f;
    return *f ? f + 1 : f;
}

/* the format streamed in pieces (see SHELL_PIECE) */
static void stream(struct piece *p, const char *f, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    while (*f) {
        const char *pct = strchr(f, '%');
        size_t lit = pct ? (size_t)(pct - f) : strlen(f);
        piece_put(p, f, lit);
        if (!pct) {
            break;
        }
        struct conv v;
        f = conv_parse(pct + 1, &v, &aq);
        if (v.c == 's') {
            const char *s = va_arg(aq, const char *);
            s = s ? s : "(null)";
            size_t n = strlen(s);
            put_str(p, &v, s, v.prec >= 0 && (size_t)v.prec < n ? (size_t)v.prec : n);
        } else if (v.c == 'c') {
            char ch = (char)va_arg(aq, int);
            put_str(p, &v, &ch, 1);
        } else if (v.c == '%') {
            piece_put(p, "%", 1);
        } else if (v.c && strchr("diouxXpfFeEgGaA", v.c)) {
            put_num(p, &v, &aq);
        } else {
            break; /* %n or not a conversion: nothing more is safe to read */
        }
    }
    va_end(aq);
}

void wren_shell_printf(struct wren_shell *sh, const char *fmt, ...)
{
    struct piece p = { .sh = sh, .len = 0 };
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(p.buf, sizeof(p.buf), fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof(p.buf)) {
        p.len = (size_t)n; /* the usual case: it fits one piece */
    } else {
        va_start(ap, fmt);
        stream(&p, fmt, ap);
        va_end(ap);
    }
    piece_flush(&p);
}

struct wren_module *wren_shell_layer(struct wren_shell *sh, uint8_t type)
{
    struct wren_netreg_entry *e = wren_netreg_lookup(sh->node, type, WREN_NETREG_DEMUX_ALL, NULL);
    return e ? e->module : NULL;
}

int wren_shell_error(struct wren_shell *sh, int e, const char *what)
{
    wren_shell_printf(sh, "error: %s (%s)\n", what, strerror(-e));
    return e;
}

int wren_shell_prefix(const char *s, uint8_t *addr, uint8_t *len)
{
    char tmp[64];
    snprintf(tmp, sizeof(tmp), "%s", s);
    char *slash = strchr(tmp, '/');
    *len = 128;
    if (slash) {
        *slash = 0;
        char *end;
        long l = strtol(slash + 1, &end, 10);
        if (*end || l < 0 || l > 128) {
            return -EINVAL;
        }
        *len = (uint8_t)l;
    }
    return wren_ipv6_addr_from_str(addr, tmp);
}

long wren_shell_num(const char *s, long lo, long hi, int *bad)
{
    char *end;
    long v = strtol(s, &end, 0);
    if (*s == 0 || *end || v < lo || v > hi) {
        *bad = 1;
    }
    return v;
}

/* ---- ping, udp ------------------------------------------------------------ */

#define PING_USAGE "usage: ping ADDR [-c COUNT] [-s SIZE] [-i INTERVAL_MS] [-I IF]\n"

static int cmd_ping(struct wren_shell *sh, struct wren_module *m, int argc, char **argv)
{
    (void)m;
    uint8_t dst[16];
    long count = 3, size = 56, interval = 1000, if_id = 0;
    int bad = 0, have_dst = 0;
    for (int i = 1; !bad && i < argc; i++) {
        const char *o = argv[i];
        if (o[0] != '-') {
            bad = have_dst || wren_ipv6_addr_from_str(dst, o) < 0;
            have_dst = 1;
            continue;
        }
        if (i + 1 >= argc) {
            bad = 1;
        } else if (strcmp(o, "-c") == 0) {
            count = wren_shell_num(argv[++i], 1, 65535, &bad);
        } else if (strcmp(o, "-s") == 0) {
            size = wren_shell_num(argv[++i], 0, 1232, &bad);
        } else if (strcmp(o, "-i") == 0) {
            interval = wren_shell_num(argv[++i], 1, 3600000, &bad);
        } else if (strcmp(o, "-I") == 0) {
            /* the interface a link-local destination is on (as ifconfig
             * numbers them) */
            const char *name = argv[++i];
            int nbad = 0;
            if_id = wren_shell_num(name, 1, 255, &nbad);
            if (nbad || wren_netif_get(sh->node, (uint8_t)if_id) == NULL) {
                wren_shell_printf(sh, "error: ping -I: no interface '%s' (ifconfig lists them)\n",
                                  name);
                return -ENODEV;
            }
        } else {
            bad = 1;
        }
    }
    if (bad || !have_dst) {
        wren_shell_printf(sh, PING_USAGE);
        return -EINVAL;
    }
    char a[WREN_IPV6_ADDR_STRLEN];
    int res = wren_ping_start(sh->node, &sh->ping, dst, (uint16_t)count, (uint16_t)size,
                              (uint32_t)interval * 1000u, (uint8_t)if_id, sh->out, sh->out_ctx);
    if (res < 0) {
        return wren_shell_error(sh, res, "ping");
    }
    wren_shell_printf(sh, "PING %s %ld data bytes\n", wren_ipv6_addr_to_str(a, dst), size);
    return 0;
}

static int udp_usage(struct wren_shell *sh)
{
    wren_shell_printf(sh, "usage: udp server start PORT [echo|sink] [csum-elided] | udp server stop|stats |\n"
                  "       udp send ADDR PORT SIZE[-MAXSIZE] [COUNT] [INTERVAL_MS]\n");
    return -EINVAL;
}

/* udp server start PORT [echo|sink] [csum-elided] */
static int udp_server_start(struct wren_shell *sh, int argc, char **argv)
{
    int bad = 0;
    uint8_t mode = WREN_UDP_ECHO;
    bool elided = false; /* takes datagrams whose checksum was elided */
    for (int i = 4; i < argc; i++) {
        if (strcmp(argv[i], "sink") == 0) {
            mode = WREN_UDP_SINK;
        } else if (strcmp(argv[i], "csum-elided") == 0) {
            elided = true;
        } else if (strcmp(argv[i], "echo") != 0) {
            bad = 1;
        }
    }
    uint16_t port = (uint16_t)wren_shell_num(argv[3], 1, 65535, &bad);
    if (bad) {
        return udp_usage(sh);
    }
    int res = wren_udp_server_start(sh->node, &sh->server, port, mode);
    if (res < 0) {
        return wren_shell_error(sh, res, "udp server");
    }
    wren_sock_udp_accept_csum_elided(&sh->server.sock, elided);
    wren_shell_printf(sh, "udp server on port %u (%s%s)\n", port,
              mode == WREN_UDP_SINK ? "sink" : "echo",
              elided ? ", elided checksums taken" : "");
    return 0;
}

/* udp server start ...|stop|stats */
static int udp_server(struct wren_shell *sh, int argc, char **argv)
{
    if (strcmp(argv[2], "start") == 0 && argc >= 4) {
        return udp_server_start(sh, argc, argv);
    }
    if (strcmp(argv[2], "stop") == 0) {
        wren_udp_server_stop(&sh->server);
        return 0;
    }
    if (strcmp(argv[2], "stats") == 0) {
        const struct wren_udp_server *s = &sh->server;
        wren_shell_printf(sh, "udp server: received %lu bad %lu echoed %lu bytes %lu size_sum %lu "
                      "queue_drops %lu\n",
                  (unsigned long)s->received, (unsigned long)s->bad, (unsigned long)s->echoed,
                  (unsigned long)s->bytes, (unsigned long)s->size_sum,
                  (unsigned long)s->sock.rx.drops);
        return 0;
    }
    return udp_usage(sh);
}

/* udp send ADDR PORT SIZE[-MAXSIZE] [COUNT] [INTERVAL_MS] */
static int udp_send(struct wren_shell *sh, int argc, char **argv)
{
    struct wren_sock_udp_ep dst = { 0 };
    int bad = wren_ipv6_addr_from_str(dst.addr, argv[2]) < 0;
    dst.port = (uint16_t)wren_shell_num(argv[3], 1, 65535, &bad);
    char *dash = strchr(argv[4], '-');
    if (dash) {
        *dash = 0;
    }
    long lo = wren_shell_num(argv[4], 0, 1232, &bad);
    long hi = dash ? wren_shell_num(dash + 1, lo, 1232, &bad) : lo;
    long count = argc >= 6 ? wren_shell_num(argv[5], 1, 1000000, &bad) : 1;
    long interval = argc >= 7 ? wren_shell_num(argv[6], 0, 3600000, &bad) : 1000;
    if (bad) {
        return udp_usage(sh);
    }
    int res = wren_udp_sender_start(sh->node, &sh->sender, &dst, (uint16_t)lo, (uint16_t)hi,
                                    (uint32_t)count, (uint32_t)interval * 1000u, sh->out,
                                    sh->out_ctx);
    return res < 0 ? wren_shell_error(sh, res, "udp send") : 0;
}

static int cmd_udp(struct wren_shell *sh, struct wren_module *m, int argc, char **argv)
{
    (void)m;
    if (argc >= 3 && strcmp(argv[1], "server") == 0) {
        return udp_server(sh, argc, argv);
    }
    if (argc >= 5 && strcmp(argv[1], "send") == 0) {
        return udp_send(sh, argc, argv);
    }
    return udp_usage(sh);
}


/* ---- tcp ------------------------------------------------------------------- */

static void tcp_conn_line(struct wren_shell *sh, const char *name, const struct wren_tcp_app_conn *ac)
{
    const struct wren_tcp_conn *c = &ac->c;
    char a[WREN_IPV6_ADDR_STRLEN];
    wren_shell_printf(sh, "%s: %s [%s]:%u -> %u; sent %llu/%llu received %llu bad %llu goodput %.1f kbit/s\n",
              name, wren_tcp_state_name(c->state), wren_ipv6_addr_to_str(a, c->raddr), c->rport,
              c->lport, (unsigned long long)ac->sent, (unsigned long long)ac->to_send,
              (unsigned long long)ac->received, (unsigned long long)ac->bad,
              wren_tcp_app_goodput(ac) / 1000.0);
    wren_shell_printf(sh, "  mss %u cwnd %lu ssthresh %lu srtt %lu ms rto %lu ms wnd %u err %d\n", c->mss,
              (unsigned long)c->cwnd, (unsigned long)c->ssthresh,
              (unsigned long)(c->srtt_us / 1000), (unsigned long)c->rto_ms, c->snd_wnd,
              ac->last_err ? ac->last_err : c->err);
}

/* connection options: [mss N] [wnd BYTES] [nosack] [nots] [ecn] [nodelay] [nodelack] [keepalive] */
static int tcp_opts(struct wren_shell *sh, int argc, char **argv, int from)
{
    int bad = 0;
    uint8_t o = WREN_TCP_OPT_SACK | WREN_TCP_OPT_TS;
    for (int i = from; i < argc; i++) {
        if (strcmp(argv[i], "mss") == 0 && i + 1 < argc) {
            sh->tcp->mss = (uint16_t)wren_shell_num(argv[++i], 1, 1220, &bad);
        } else if (strcmp(argv[i], "wnd") == 0 && i + 1 < argc) {
            sh->tcp->wnd = (uint16_t)wren_shell_num(argv[++i], 64, CONFIG_WREN_TCP_APP_BUF, &bad);
        } else if (strcmp(argv[i], "nosack") == 0) {
            o &= (uint8_t)~WREN_TCP_OPT_SACK;
        } else if (strcmp(argv[i], "nots") == 0) {
            o &= (uint8_t)~WREN_TCP_OPT_TS;
        } else if (strcmp(argv[i], "ecn") == 0) {
            o |= WREN_TCP_OPT_ECN;
        } else if (strcmp(argv[i], "nodelay") == 0) {
            o |= WREN_TCP_OPT_NODELAY;
        } else if (strcmp(argv[i], "nodelack") == 0) {
            o |= WREN_TCP_OPT_NO_DELACK;
        } else if (strcmp(argv[i], "keepalive") == 0) {
            o |= WREN_TCP_OPT_KEEPALIVE;
        } else {
            bad = 1;
        }
    }
    sh->tcp->opts = o;
    return bad ? -EINVAL : 0;
}

static int tcp_usage(struct wren_shell *sh)
{
    wren_shell_printf(sh, "usage: tcp listen PORT [sink|echo] [OPTS] | tcp connect ADDR PORT [OPTS] |\n"
                  "       tcp send N [close] [srv] | tcp close [srv] | tcp unlisten | tcp stats\n"
                  "       OPTS: mss N, wnd BYTES (send/receive buffer), nosack, nots, ecn,\n"
                  "             nodelay, nodelack, keepalive\n");
    return -EINVAL;
}

/* "... srv": the accepted connection, not the client */
static bool tcp_srv(int argc, char **argv)
{
    return argc >= 3 && strcmp(argv[argc - 1], "srv") == 0;
}

/* tcp listen PORT [sink|echo] [OPTS] */
static int tcp_listen(struct wren_shell *sh, int argc, char **argv)
{
    int bad = 0;
    uint16_t port = (uint16_t)wren_shell_num(argv[2], 1, 65535, &bad);
    int from = 3;
    uint8_t mode = WREN_TCP_APP_SINK;
    if (argc >= 4 && (strcmp(argv[3], "echo") == 0 || strcmp(argv[3], "sink") == 0)) {
        mode = strcmp(argv[3], "echo") == 0 ? WREN_TCP_APP_ECHO : WREN_TCP_APP_SINK;
        from = 4;
    }
    if (bad || tcp_opts(sh, argc, argv, from) != 0) {
        return tcp_usage(sh);
    }
    int res = wren_tcp_app_listen(sh->tcp, port, mode);
    if (res < 0) {
        return wren_shell_error(sh, res, "tcp listen");
    }
    wren_shell_printf(sh, "tcp: listening on port %u (%s)\n", port,
              mode == WREN_TCP_APP_ECHO ? "echo" : "sink");
    return 0;
}

static int tcp_unlisten(struct wren_shell *sh, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    wren_tcp_app_unlisten(sh->tcp);
    return 0;
}

/* tcp connect ADDR PORT [OPTS] */
static int tcp_connect(struct wren_shell *sh, int argc, char **argv)
{
    uint8_t addr[16];
    int bad = wren_ipv6_addr_from_str(addr, argv[2]) < 0;
    uint16_t port = (uint16_t)wren_shell_num(argv[3], 1, 65535, &bad);
    if (bad || tcp_opts(sh, argc, argv, 4) != 0) {
        return tcp_usage(sh);
    }
    int res = wren_tcp_app_connect(sh->tcp, addr, port);
    return res < 0 ? wren_shell_error(sh, res, "tcp connect") : 0;
}

/* tcp send N [close] [srv] */
static int tcp_send(struct wren_shell *sh, int argc, char **argv)
{
    int bad = 0;
    long n = wren_shell_num(argv[2], 0, 2000000000L, &bad);
    bool close = argc >= 4 && strcmp(argv[3], "close") == 0;
    if (bad) {
        return tcp_usage(sh);
    }
    int res = wren_tcp_app_send(sh->tcp, tcp_srv(argc, argv), (uint64_t)n, close);
    return res < 0 ? wren_shell_error(sh, res, "tcp send") : 0;
}

/* tcp close [srv] */
static int tcp_close(struct wren_shell *sh, int argc, char **argv)
{
    int res = wren_tcp_app_close(sh->tcp, tcp_srv(argc, argv));
    return res < 0 ? wren_shell_error(sh, res, "tcp close") : 0;
}

/* tcp stats: the TCP layer's counters, then each connection */
static int tcp_stats(struct wren_shell *sh, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    const struct wren_tcp_app *app = sh->tcp;
    const struct wren_tcp_stats *t = &app->tcp->stats;
    wren_shell_printf(sh, "tcp: rx %lu; drops: csum %lu hdr %lu no-conn %lu seq %lu ack %lu paws %lu; "
                  "ooo %lu dup-bytes %lu dup-acks %lu rst %lu\n",
              (unsigned long)t->rx_segs, (unsigned long)t->rx_drop_csum,
              (unsigned long)t->rx_drop_hdr, (unsigned long)t->rx_drop_no_conn,
              (unsigned long)t->rx_drop_seq, (unsigned long)t->rx_drop_ack,
              (unsigned long)t->rx_drop_paws, (unsigned long)t->rx_ooo_segs,
              (unsigned long)t->rx_dup_bytes, (unsigned long)t->rx_dup_acks,
              (unsigned long)t->rx_rst);
    /* (sh_printf's lines are at most 255 characters) */
    wren_shell_printf(sh, "tcp: tx %lu rexmt %lu rst %lu nobufs %lu; rto %lu fast-rexmt %lu "
                  "sack-rexmt %lu persist %lu challenge-acks %lu (limited %lu) "
                  "acks-limited %lu\n",
              (unsigned long)t->tx_segs, (unsigned long)t->tx_rexmt,
              (unsigned long)t->tx_rst, (unsigned long)t->tx_drop_nobufs,
              (unsigned long)t->rto_expired, (unsigned long)t->fast_rexmt,
              (unsigned long)t->sack_rexmt, (unsigned long)t->persist_probes,
              (unsigned long)t->challenge_acks, (unsigned long)t->challenge_limited,
              (unsigned long)t->ack_limited);
    wren_shell_printf(sh, "tcp: syn pool-full %lu evicted %lu; ecn ce %lu cut %lu; timeouts %lu "
                  "user-timeouts %lu\n",
              (unsigned long)t->syn_drop_pool, (unsigned long)t->syn_evicted,
              (unsigned long)t->ecn_ce_rx, (unsigned long)t->ecn_reductions,
              (unsigned long)t->conn_timeouts, (unsigned long)t->user_timeouts);
    if (app->cli.in_use) {
        tcp_conn_line(sh, "client", &app->cli);
    }
    if (app->srv.in_use) {
        tcp_conn_line(sh, "server", &app->srv);
    }
    return 0;
}

/* a subcommand and the fewest words it takes ("tcp" included); one given
 * fewer is not it */
static const struct {
    const char *name;
    int argc_min;
    int (*fn)(struct wren_shell *sh, int argc, char **argv);
} tcp_subs[] = {
    { "listen", 3, tcp_listen }, { "unlisten", 0, tcp_unlisten }, { "connect", 4, tcp_connect },
    { "send", 3, tcp_send },     { "close", 0, tcp_close },       { "stats", 0, tcp_stats },
};

static int cmd_tcp(struct wren_shell *sh, struct wren_module *m, int argc, char **argv)
{
    (void)m;
    if (sh->tcp == NULL) {
        return wren_shell_error(sh, -ENOTSUP, "tcp: no TCP application on this node");
    }
    const char *sub = argc >= 2 ? argv[1] : "";
    for (size_t i = 0; i < sizeof(tcp_subs) / sizeof(tcp_subs[0]); i++) {
        if (strcmp(sub, tcp_subs[i].name) == 0 && argc >= tcp_subs[i].argc_min) {
            return tcp_subs[i].fn(sh, argc, argv);
        }
    }
    return tcp_usage(sh);
}

/* ---- pktbuf, stats --------------------------------------------------------- */

static int cmd_pktbuf(struct wren_shell *sh, struct wren_module *m, int argc, char **argv)
{
    (void)m;
    (void)argc;
    (void)argv;
    const struct wren_pktbuf_stats *s = &sh->node->pktbuf.stats;
    wren_shell_printf(sh, "packet buffer: %lu bytes, %lu in use (%lu snips), high water %lu, "
                  "allocation failures %lu\n",
              (unsigned long)s->size, (unsigned long)s->in_use, (unsigned long)s->snips,
              (unsigned long)s->high_water, (unsigned long)s->alloc_fail);
    return 0;
}

/* one line per counter set, wrapped after 100 characters: "udp: rx 3
 * rx_drop_hdr 0 ...", each counter printed as it comes (no line buffer to
 * outgrow) */
static void stats_set(void *ctx, const struct wren_counter_set *set, const char *suffix,
                      const void *values)
{
    struct wren_shell *sh = ctx;
    size_t n = strlen(set->name) + strlen(suffix) + 1;
    wren_shell_printf(sh, "%s%s:", set->name, suffix);
    for (unsigned i = 0; set->names && i < set->n; i++) {
        char num[24];
        int k = snprintf(num, sizeof(num), "%llu",
                         (unsigned long long)wren_counter_value(set, values, i));
        size_t item = 2 + strlen(set->names[i]) + (size_t)k;
        if (n + item > 100) {
            wren_shell_printf(sh, "\n   ");
            n = 3;
        }
        wren_shell_printf(sh, " %s %s", set->names[i], num);
        n += item;
    }
    wren_shell_printf(sh, "\n");
}

static int cmd_stats(struct wren_shell *sh, struct wren_module *m, int argc, char **argv)
{
    (void)m;
    (void)argc;
    (void)argv;
    wren_stack_counters(sh->node, stats_set, sh);
    return 0;
}

static int cmd_help(struct wren_shell *sh, struct wren_module *m, int argc, char **argv);

/* the shell's own commands; modules bring theirs (wren_module_ops.cmds) */
static const struct wren_shell_cmd commands[] = {
    { "help", "list commands", cmd_help },
    { "ifconfig",
      "interfaces, addresses, counters; IF add|del ADDR[/LEN]; IF faults LOSS% REORDER% [MS]; "
      "IF dgloss LOSS% [SEED] (6LoWPAN drops whole datagrams); IF ack on|off; IF l2src short|long",
      wren_shell_ifconfig },
    { "ping", "ping ADDR [-c COUNT] [-s SIZE] [-i INTERVAL_MS] [-I IF]", cmd_ping },
    { "udp", "udp server start PORT [echo|sink] [csum-elided]|stop|stats; udp send ADDR PORT SIZE[-MAX] [COUNT] [MS]",
      cmd_udp },
    { "tcp", "tcp listen|connect|send|close|unlisten|stats (tcp help)", cmd_tcp },
    { "pktbuf", "packet buffer usage", cmd_pktbuf },
#if CONFIG_WREN_TSCH
    { "tsch", "TSCH MAC: state, cells, queues; coordinator|node|off; cell add|del SF SLOT CHOFF "
              "TRSK [EUI64]; set KEY VALUE; prio N; ts EUI64", wren_tsch_shell },
#endif
    { "stats", "counters of every layer", cmd_stats },
    { NULL, NULL, NULL },
};

static void help_list(struct wren_shell *sh, const struct wren_shell_cmd *c)
{
    for (; c && c->name; c++) {
        wren_shell_printf(sh, "%-9s %s\n", c->name, c->help);
    }
}

struct find {
    const char *name;
    struct wren_shell *sh;
    const struct wren_shell_cmd *cmd;
    struct wren_module *m;
};

/* the modules' commands: listed (name NULL) or looked up */
static void module_cmds(void *ctx, struct wren_module *m)
{
    struct find *f = ctx;
    const struct wren_shell_cmd *c = m->ops->cmds;
    if (f->name == NULL) {
        /* per-interface modules: list their commands once */
        if (f->m == NULL || f->m->ops != m->ops) {
            help_list(f->sh, c);
        }
        f->m = m;
        return;
    }
    for (; c && c->name && f->cmd == NULL; c++) {
        if (strcmp(c->name, f->name) == 0) {
            f->cmd = c;
            f->m = m;
        }
    }
}

static int cmd_help(struct wren_shell *sh, struct wren_module *m, int argc, char **argv)
{
    (void)m;
    (void)argc;
    (void)argv;
    help_list(sh, commands);
    struct find f = { NULL, sh, NULL, NULL };
    wren_stack_foreach_module(sh->node, module_cmds, &f);
    help_list(sh, sh->extra);
    return 0;
}

void wren_shell_init(struct wren_shell *sh, struct wren_node *node, wren_out_fn out, void *ctx)
{
    memset(sh, 0, sizeof(*sh));
    sh->node = node;
    sh->out = out;
    sh->out_ctx = ctx;
}

void wren_shell_set_tcp(struct wren_shell *sh, struct wren_tcp_app *app)
{
    sh->tcp = app;
}

void wren_shell_set_extra(struct wren_shell *sh, const struct wren_shell_cmd *cmds)
{
    sh->extra = cmds;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* @p buf split on blanks in place into @p argv (strtok keeps hidden global
 * state); words past MAX_ARGS are left out. @return the number of words. */
static int split_words(char *buf, char *argv[MAX_ARGS])
{
    int argc = 0;
    for (char *p = buf; *p && argc < MAX_ARGS;) {
        while (is_blank(*p)) {
            *p++ = 0;
        }
        if (*p) {
            argv[argc++] = p;
        }
        while (*p && !is_blank(*p)) {
            p++;
        }
    }
    return argc;
}

/* the command @p name among @p cmds (ended by a NULL name; may be NULL) */
static const struct wren_shell_cmd *cmd_find(const struct wren_shell_cmd *cmds, const char *name)
{
    for (const struct wren_shell_cmd *c = cmds; c && c->name; c++) {
        if (strcmp(name, c->name) == 0) {
            return c;
        }
    }
    return NULL;
}

int wren_shell_exec(struct wren_shell *sh, const char *line)
{
    char buf[160];
    char *argv[MAX_ARGS];
    if (strlen(line) >= sizeof(buf)) {
        /* never run what is left of a line cut short */
        wren_shell_printf(sh, "error: line longer than %u characters\n",
                          (unsigned)sizeof(buf) - 1);
        return -E2BIG;
    }
    snprintf(buf, sizeof(buf), "%s", line);
    int argc = split_words(buf, argv);
    if (argc == 0) {
        return 0;
    }
    /* the runtime's commands first (they may stand in for a module's) */
    const struct wren_shell_cmd *c = cmd_find(sh->extra, argv[0]);
    if (c == NULL) {
        c = cmd_find(commands, argv[0]);
    }
    if (c) {
        return c->fn(sh, NULL, argc, argv);
    }
    struct find f = { argv[0], sh, NULL, NULL };
    wren_stack_foreach_module(sh->node, module_cmds, &f);
    if (f.cmd) {
        return f.cmd->fn(sh, f.m, argc, argv);
    }
    wren_shell_printf(sh, "%s: command not found (try help)\n", argv[0]);
    return -ENOENT;
}

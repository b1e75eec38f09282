/* The shell's output (src/shell/shell.c): no line is ever cut. A line that
 * does not fit the shell's piece buffer goes to the output callback in
 * pieces; what arrives, put together, is what printf would have printed
 * whole. The `help` line of `coap` (over 300 characters) was cut at 255
 * before (issue 24). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "apps/tcp_app.h"
#include "shell/shell.h"
#include "stack/modules.h"
#include "stack/stack.h"

static const struct wren_module_ops *const all_mods[] = WREN_STACK_ALL_MODULES;
static struct wren_loopback lo;
static _Alignas(8) uint8_t pool[40 * 1024]; /* every module: NDN and its NDNLPv2 passed 32 KiB */

/* shell output, collected; pieces counted */
static char out[16384];
static size_t out_len;
static unsigned pieces;

static void collect(void *ctx, const char *s)
{
    (void)ctx;
    size_t k = strlen(s);
    CHECK(out_len + k < sizeof(out));
    memcpy(out + out_len, s, k + 1);
    out_len += k;
    pieces++;
}

static void reset(void)
{
    out_len = 0;
    out[0] = 0;
    pieces = 0;
}

static struct wren_shell *shell_of(struct fx_node *n)
{
    static struct wren_shell sh;
    wren_loopback_setup(&lo, WREN_NETDEV_TYPE_IEEE802154, 125);
    struct wren_stack_iface ifs[1] = {
        { .link = &wren_link_ieee802154, .dev = &lo.netdev },
    };
    struct wren_stack_desc d = { .ifaces = ifs, .n_ifaces = 1, .mods = all_mods,
                                 .n_mods = WREN_STACK_ARRAY_LEN(all_mods) };
    memset(pool, 0, sizeof(pool));
    CHECK_EQ(wren_stack_build(&n->node, &d, pool, sizeof(pool), NULL), 0);
    wren_shell_init(&sh, &n->node, collect, NULL);
    reset();
    return &sh;
}

/* what printf makes of it, whole */
static const char *expect(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *expect(const char *fmt, ...)
{
    static char want[8192];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(want, sizeof(want), fmt, ap);
    va_end(ap);
    CHECK(n >= 0 && (size_t)n < sizeof(want));
    return want;
}

TEST(test_wren_shell_help__the_coap_line_whole)
{
    struct fx_node *n = fx_node(0);
    struct wren_shell *sh = shell_of(n);
    CHECK_EQ(wren_shell_exec(sh, "help"), 0);
    const char *line = strstr(out, "\ncoap ");
    CHECK(line != NULL);
    line++;
    const char *end = strchr(line, '\n');
    CHECK(end != NULL);
    /* the help text as coap_shell.c has it, to its last words */
    CHECK(end - line > 300);
    CHECK(strncmp(line, "coap      coap [get|post|put|delete|observe ADDR PATH|URI", 57) == 0);
    const char *tail = "observe: a line per notification until cancel)\n";
    CHECK(strncmp(end + 1 - strlen(tail), tail, strlen(tail)) == 0);
    CHECK(pieces > 1);
    FX_CLEAN(1000);
}

TEST(test_wren_shell_printf__long_lines_in_pieces_equal_printf)
{
    struct fx_node *n = fx_node(0);
    struct wren_shell *sh = shell_of(n);
    char big[1000];
    for (size_t i = 0; i < sizeof(big) - 1; i++) {
        big[i] = (char)('a' + i % 26);
    }
    big[sizeof(big) - 1] = 0;
    /* a long %s between numbers of every length and flags */
    wren_shell_printf(sh, "[%-9s|%5d|%-12lu|%03lu|%02x|%llu|%zu|%.*s|%%|%c|%s]\n", "ab", -42,
                      123456ul, 7ul, 0xabu, 18446744073709551615ull, (size_t)99, 4, "truncate",
                      'z', big);
    CHECK_EQ(strcmp(out, expect("[%-9s|%5d|%-12lu|%03lu|%02x|%llu|%zu|%.*s|%%|%c|%s]\n", "ab",
                                -42, 123456ul, 7ul, 0xabu, 18446744073709551615ull, (size_t)99,
                                4, "truncate", 'z', big)),
             0);
    CHECK(pieces >= 8);
    /* long literal text, a wide string and wide numbers */
    reset();
    wren_shell_printf(sh, "%s %300s|%-300s|%200d|%-100u|%080x|%0+90d|%#0100x %.1f\n", big + 700, "right",
                      "left", 5, 6u, 0xbeefu, 77, 0xcafeu, 2.25);
    CHECK_EQ(strcmp(out, expect("%s %300s|%-300s|%200d|%-100u|%080x|%0+90d|%#0100x %.1f\n", big + 700, "right",
                                "left", 5, 6u, 0xbeefu, 77, 0xcafeu, 2.25)),
             0);
    /* a short line is one piece, as before */
    reset();
    wren_shell_printf(sh, "ok %u\n", 1u);
    CHECK_EQ(strcmp(out, "ok 1\n"), 0);
    CHECK_EQ(pieces, 1);
    FX_CLEAN(1000);
}

/* repeated flags and '0' with '-' or a precision are meant (printf's rules
 * for them are what the pieces must follow) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
TEST(test_wren_shell_printf__every_conversion_in_pieces_equals_printf)
{
    struct fx_node *n = fx_node(0);
    struct wren_shell *sh = shell_of(n);
    char big[200];
    memset(big, 'q', sizeof(big) - 1);
    big[sizeof(big) - 1] = 0;
    /* widths and precisions from arguments (a negative width is '-'),
     * every length modifier, repeated flags, zero padding after a sign or
     * 0x, a precision on an integer (no zero padding then) */
    wren_shell_printf(sh, "%s|%*d|%*d|%.*d|%.*d|%-+--5d|%070.3d|%0#80x|%0+75d|%0 72d|%hhd|%hu|%ld|"
                      "%lld|%jd|%zd|%td|%lx|%llx|%#o|%5.2s|%-6c|%i|%X|%+.3e|%20.10Lf|%G|%a|%%|%099.4f|"
                      "%0-70d|%0*d|%.*f\n",
                      big, 90, -3, -88, 4, 6, 17, -1, 23, 42, -7, 0xbeefu, 9, -12, -300, 65535u,
                      -123456789l, -1234567890123ll, (intmax_t)-77, (size_t)55, (ptrdiff_t)-9,
                      0xfeedul, 0xdeadbeefcafell, 8u, "abcdef", 'k', -5, 0xabcu, 12345.678,
                      (long double)3.25, 0.000012, 1.5, -2.5, 11, 66, -4, 2, 3.14159);
    CHECK_EQ(strcmp(out, expect("%s|%*d|%*d|%.*d|%.*d|%-+--5d|%070.3d|%0#80x|%0+75d|%0 72d|%hhd|%hu|%ld|"
                                "%lld|%jd|%zd|%td|%lx|%llx|%#o|%5.2s|%-6c|%i|%X|%+.3e|%20.10Lf|%G|%a|%%|"
                                "%099.4f|%0-70d|%0*d|%.*f\n",
                                big, 90, -3, -88, 4, 6, 17, -1, 23, 42, -7, 0xbeefu, 9, -12, -300,
                                65535u, -123456789l, -1234567890123ll, (intmax_t)-77, (size_t)55,
                                (ptrdiff_t)-9, 0xfeedul, 0xdeadbeefcafell, 8u, "abcdef", 'k', -5,
                                0xabcu, 12345.678, (long double)3.25, 0.000012, 1.5, -2.5, 11, 66,
                                -4, 2, 3.14159)),
             0);
    CHECK(pieces > 1);
    /* the '0' flag without a width pads nothing (it padded without end) */
    reset();
    wren_shell_printf(sh, "%s|%0d|%0x|%-0d|\n", big, 5, 6u, 7);
    CHECK_EQ(strcmp(out, expect("%s|%0d|%0x|%-0d|\n", big, 5, 6u, 7)), 0);
    /* a pointer and a null string */
    reset();
    int x;
    wren_shell_printf(sh, "%s %p %s %120s\n", big, (void *)&x, (const char *)NULL, "r");
    CHECK_EQ(strcmp(out, expect("%s %p %s %120s\n", big, (void *)&x, "(null)", "r")), 0);
    /* a floating value too long for the number buffer: e-style of the
     * same precision rather than cut; %n ends the line there */
    reset();
    wren_shell_printf(sh, "%s %.2f|%-12.1f|", big, 1e300, -1e200);
    CHECK_EQ(strcmp(out, expect("%s %.2e|%-12.1e|", big, 1e300, -1e200)), 0);
    reset();
    int seen = -1; /* (the first, whole-line vsnprintf may write it) */
    wren_shell_printf(sh, "%s %d %n %d\n", big, 1, &seen, 2);
    CHECK_EQ(strcmp(out, expect("%s 1 ", big)), 0);
    FX_CLEAN(1000);
}
#pragma GCC diagnostic pop

TEST(test_wren_shell_exec__a_line_too_long_is_refused_not_cut)
{
    struct fx_node *n = fx_node(0);
    struct wren_shell *sh = shell_of(n);
    char line[300];
    memset(line, ' ', sizeof(line));
    memcpy(line, "ping", 4);
    line[sizeof(line) - 1] = 0;
    CHECK_EQ(wren_shell_exec(sh, line), -E2BIG);
    CHECK(strstr(out, "error: line longer than 159 characters\n") == out);
    FX_CLEAN(1000);
}

/* ---- the commands' answers, pinned (issue 28 reshapes their functions) ----
 * Each line below goes to the shell in turn; what it prints and returns is
 * compared with the transcript the commands gave before they were split
 * (tests/unit/shell/transcript.inc): every usage line, error and result. */
static const char *const script[] = {
    "", "   ", "nosuch arg", "tcp",
    /* ifconfig: each option, its argument counts and mistakes */
    "ifconfig 1", "ifconfig x add fe80::1", "ifconfig 0 add fe80::1", "ifconfig 1 add",
    "ifconfig 1 add 2001:db8::1", "ifconfig 1 add 2001:db8::2/48", "ifconfig 1 add 2001:db8::3/129",
    "ifconfig 1 del 2001:db8::2", "ifconfig 1 add zz", "ifconfig 1 foo 2001:db8::3",
    "ifconfig 1 faults 5", "ifconfig 1 faults 5 2.5", "ifconfig 1 faults 5 2.5 100",
    "ifconfig 1 faults 5 x", "ifconfig 1 faults 5 1 0", "ifconfig 9 faults 1 1",
    "ifconfig 1 faults 101 1", "ifconfig 1 faults 0.255 1", "ifconfig 1 faults 1 1 1 1",
    "ifconfig 1 dgloss 5", "ifconfig 1 dgloss 5 42", "ifconfig 1 dgloss 5 4x",
    "ifconfig 9 dgloss 5", "ifconfig 1 dgloss 5 99999999999999999999", "ifconfig 1 dgloss 0",
    "ifconfig 1 ack off", "ifconfig 1 ack maybe", "ifconfig 9 ack on", "ifconfig 1 ack on x",
    "ifconfig 1 ack on", "ifconfig 1 l2src short", "ifconfig 1 l2src medium", "ifconfig 1 l2src",
    "ifconfig 1 key 1", "ifconfig 1 key 1 00112233445566778899aabbccddeeff",
    "ifconfig 1 key 0 00112233445566778899aabbccddeeff", "ifconfig 1 key 2 0011",
    "ifconfig 1 key 2 00112233445566778899aabbccddeeff0", "ifconfig 1 key 2 0011223344556677889gaabbccddeeff",
    "ifconfig 1 key 1 del", "ifconfig 1 key 7 del", "ifconfig 9 key 1 del",
    "ifconfig 1 key 1 00112233445566778899AABBCCDDEEFF", "ifconfig 1 sec mic32", "ifconfig 1 sec",
    "ifconfig 1 sec eb mic64", "ifconfig 1 sec cmd 3 1", "ifconfig 1 sec ack enc 0",
    "ifconfig 1 sec bogus", "ifconfig 1 sec data mic32 1 2", "ifconfig 1 sec off",
    "ifconfig 1 sec beacon off", "ifconfig 1 sec cmd off", "ifconfig 1 l2src long",
    "ifconfig 1 faults 0 0", "ifconfig",
    /* udp */
    "udp", "udp server", "udp server start", "udp server start 0", "udp server start 7 bogus",
    "udp server start 7 sink csum-elided", "udp server stats", "udp server stop",
    "udp server start 7 echo", "udp server stop", "udp server other", "udp send zz 7 10",
    "udp send ::1 7 20-10", "udp send ::1 0 10", "udp send ::1 7 10 0", "udp send ::1 7 10 1 x",
    "udp send ::1 7",
    /* fib */
    "fib", "fib add", "fib add zz", "fib add 2001::/16 via", "fib add 2001::/16 bogus x",
    "fib mod 2001::/16", "fib add 2001::/16 via zz", "fib add 2001::/16 dev 0",
    "fib add 2001:db8::/32 via fe80::1 dev 1", "fib add default via fe80::2",
    "fib add 2001:db9::/129", "fib del 2001:db8::/32", "fib",
    /* tcp, with an application from here on */
    "!tcp", "tcp", "tcp bogus", "tcp listen", "tcp listen 0", "tcp listen 80 bogus",
    "tcp listen 80 echo mss", "tcp listen 80 echo mss 2000", "tcp listen 80 wnd 10",
    "tcp listen 80 echo nosack nots ecn nodelay nodelack keepalive mss 500 wnd 1000",
    "tcp listen 80 echo nosack ecn nodelay keepalive mss 500 wnd 64", "tcp unlisten",
    "tcp listen 81", "tcp unlisten", "tcp listen 82 sink", "tcp connect ::1", "tcp connect zz 80",
    "tcp connect ::1 0", "tcp connect ::1 80 bogus", "tcp connect fe80::ff:fe00:1 82 nots", "tcp send", "tcp send x", "tcp send 10",
    "tcp send 10 close srv", "tcp close", "tcp close srv", "tcp stats", "tcp unlisten",
};

static void run_script(struct wren_shell *sh, char *t, size_t room)
{
    size_t n = 0;
    static struct wren_tcp_app app;
    for (size_t i = 0; i < sizeof(script) / sizeof(script[0]); i++) {
        if (strcmp(script[i], "!tcp") == 0) {
            CHECK_EQ(wren_tcp_app_init(&app, sh->node, collect, NULL), 0);
            wren_shell_set_tcp(sh, &app);
            continue;
        }
        reset();
        int rc = wren_shell_exec(sh, script[i]);
        int k = snprintf(t + n, room - n, "> %s\n%s= %d\n", script[i], out, rc);
        CHECK(k > 0 && (size_t)k < room - n);
        n += (size_t)k;
    }
}

static const char transcript[] =
#include "transcript.inc"
    ;

TEST(test_wren_shell_exec__every_answer_as_before)
{
    struct fx_node *n = fx_node(0);
    struct wren_shell *sh = shell_of(n);
    static char t[65536];
    run_script(sh, t, sizeof(t));
    if (getenv("WREN_SHELL_TRANSCRIPT")) { /* how transcript.inc was made */
        FILE *f = fopen(getenv("WREN_SHELL_TRANSCRIPT"), "w");
        CHECK(f != NULL);
        fputs(t, f);
        fclose(f);
    }
    for (const char *a = t, *b = transcript; *a || *b; a++, b++) {
        if (*a != *b) { /* the first line that differs */
            const char *l = a;
            while (l > t && l[-1] != '\n') {
                l--;
            }
            fprintf(stderr, "transcript differs at offset %zu, line: %.120s\n", (size_t)(a - t), l);
            CHECK(0);
        }
    }
    FX_CLEAN(10000000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST(test_wren_shell_help__the_coap_line_whole),
        FX_TEST(test_wren_shell_printf__long_lines_in_pieces_equal_printf),
        FX_TEST(test_wren_shell_printf__every_conversion_in_pieces_equals_printf),
        FX_TEST(test_wren_shell_exec__a_line_too_long_is_refused_not_cut),
        FX_TEST(test_wren_shell_exec__every_answer_as_before),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The shell's output (src/shell/shell.c): no line is ever cut. A line that
 * does not fit the shell's piece buffer goes to the output callback in
 * pieces; what arrives, put together, is what printf would have printed
 * whole. The `help` line of `coap` (over 300 characters) was cut at 255
 * before (issue 24). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fixture.h"
#include "shell/shell.h"
#include "stack/modules.h"
#include "stack/stack.h"

static const struct wren_module_ops *const all_mods[] = WREN_STACK_ALL_MODULES;
static struct wren_loopback lo;
static _Alignas(8) uint8_t pool[32 * 1024];

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST(test_wren_shell_help__the_coap_line_whole),
        FX_TEST(test_wren_shell_printf__long_lines_in_pieces_equal_printf),
        FX_TEST(test_wren_shell_exec__a_line_too_long_is_refused_not_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

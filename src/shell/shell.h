/**
 * @file shell.h
 * @brief A node's command shell: interfaces and addresses, routes, ping,
 *        UDP traffic, packet-buffer usage, per-layer counters.
 *
 * Runtime-independent: lines come in as strings, output goes to a callback
 * (the simulator collects it per node; a device prints it). Commands reach
 * the stack only through netapi GET/SET and the applications' APIs.
 * `help` lists the commands.
 */
#ifndef WREN_SHELL_SHELL_H
#define WREN_SHELL_SHELL_H

#include "apps/ping.h"
#include "apps/udp_app.h"

#include <stdint.h>

struct wren_node;
struct wren_module;
struct wren_shell;
struct wren_tcp_app;

/**
 * A shell command. Modules declare theirs in wren_module_ops.cmds (their
 * code lives in the module's folder, e.g. src/ipv6/ipv6_shell.c); @p m is
 * then the module (the first instance of a per-interface module), else NULL.
 */
struct wren_shell_cmd {
    const char *name;
    const char *help;
    int (*fn)(struct wren_shell *sh, struct wren_module *m, int argc, char **argv);
};

struct wren_shell {
    struct wren_node *node;
    wren_out_fn out;
    void *out_ctx;
    struct wren_ping ping;
    struct wren_udp_server server;
    struct wren_udp_sender sender;
    struct wren_tcp_app *tcp;    /**< the `tcp` command's application, if given */
    const struct wren_shell_cmd *extra; /**< the runtime's own commands, or NULL */
};

/** @brief Prepare a shell for @p node writing to @p out. */
void wren_shell_init(struct wren_shell *sh, struct wren_node *node, wren_out_fn out, void *ctx);

/** @brief Give the shell a TCP application for its `tcp` command (the
 *         runtime owns its memory; a simulator allocates it on first use). */
void wren_shell_set_tcp(struct wren_shell *sh, struct wren_tcp_app *app);

/** @brief Add the runtime's own commands @p cmds (ended by a NULL name);
 *         they are looked up first, so one may stand in for a module's. */
void wren_shell_set_extra(struct wren_shell *sh, const struct wren_shell_cmd *cmds);

/* ---- for commands ---------------------------------------------------------- */

/** @brief Print to the shell's output; never cut: a line longer than the
 *         shell's 127-character piece goes to the callback in pieces. */
void wren_shell_printf(struct wren_shell *sh, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/** @brief Print "error: WHAT (strerror)". @return @p e. */
int wren_shell_error(struct wren_shell *sh, int e, const char *what);
/** @brief Parse a number in [lo, hi] (C syntax); sets *@p bad otherwise. */
long wren_shell_num(const char *s, long lo, long hi, int *bad);
/** @brief Parse ADDR[/LEN] (LEN 128 when absent). @return 0 or -EINVAL. */
int wren_shell_prefix(const char *s, uint8_t *addr, uint8_t *len);
/** @brief The module registered for all packets of @p type, or NULL. */
struct wren_module *wren_shell_layer(struct wren_shell *sh, uint8_t type);

/** @brief Run one command line. @return 0, or -errno (the error is also printed). */
int wren_shell_exec(struct wren_shell *sh, const char *line);

#endif

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

struct wren_node;
struct wren_tcp_app;

struct wren_shell {
    struct wren_node *node;
    wren_out_fn out;
    void *out_ctx;
    struct wren_ping ping;
    struct wren_udp_server server;
    struct wren_udp_sender sender;
    struct wren_tcp_app *tcp;    /**< the `tcp` command's application, if given */
};

/** @brief Prepare a shell for @p node writing to @p out. */
void wren_shell_init(struct wren_shell *sh, struct wren_node *node, wren_out_fn out, void *ctx);

/** @brief Give the shell a TCP application for its `tcp` command (the
 *         runtime owns its memory; a simulator allocates it on first use). */
void wren_shell_set_tcp(struct wren_shell *sh, struct wren_tcp_app *app);

/** @brief Run one command line. @return 0, or -errno (the error is also printed). */
int wren_shell_exec(struct wren_shell *sh, const char *line);

#endif

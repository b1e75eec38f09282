/* Inside the shell module only: the commands that live in files of their
 * own besides shell.c (the command table's entries). */
#ifndef WREN_SHELL_SHELL_PRIV_H
#define WREN_SHELL_SHELL_PRIV_H

struct wren_shell;
struct wren_module;

/** `ifconfig`: interfaces shown, or one option of one set (shell_if.c). */
int wren_shell_ifconfig(struct wren_shell *sh, struct wren_module *m, int argc, char **argv);

#endif

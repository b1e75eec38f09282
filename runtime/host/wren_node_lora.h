/**
 * @file wren_node_lora.h
 * @brief wren-node's LoRa interface (--lora): opening the LoRa-over-UDP
 *        device (runtime/host/lora_udp.h) and the `lora` shell command.
 */
#ifndef WREN_HOST_WREN_NODE_LORA_H
#define WREN_HOST_WREN_NODE_LORA_H

#include "core/node.h"
#include "host/lora_udp.h"
#include "link/lora_link.h"
#include "link/lorawan_link.h"

/** @brief Open @p lu from --lora's LPORT:[RHOST:]RPORT (RHOST 127.0.0.1 if
 *         left out). @return 0, 1 (could not open) or 2 (a bad SPEC): one
 *         line on stderr names the cause. */
int wren_node_lora_open(struct wren_lora_udp *lu, struct wren_host *h, const char *spec);

/**
 * @brief The `lora` command: no argument: settings and counters;
 *        `lora send TEXT`: TEXT as one frame on the interface;
 *        `lora set sf|bw|cr|ch|sync|power|dc V`: a setting (dc: 1/100 %, 0
 *        off, or `regional`). Output through @p out.
 * @return 0 or -errno (a bad setting: -EINVAL, after one line naming it).
 */
int wren_node_lora_cmd(struct wren_node *node, struct wren_lora_udp *lu,
                       struct wren_lora_netif *nif, int argc, char **argv,
                       void (*out)(void *ctx, const char *s));

/**
 * @brief --lorawan DEVADDR:NWKSKEY:APPSKEY[:network] into @p s: the LoRa
 *        interface runs LoRaWAN (src/link/lorawan_link.h) with SCHC above,
 *        in this ABP session (DEVADDR 8 hex digits, each key 32; ":network"
 *        for a router's side, else a device).
 * @return 0 or 2 (one line on stderr names the mistake).
 */
int wren_node_lorawan_parse(const char *spec, struct wren_lorawan_session *s);

/**
 * @brief --schc-rules FILE: the rule text (src/wire/schc.h) SET on the SCHC
 *        module @p schc.
 * @return 0, 1 (cannot read it) or 2 (a rule the parser refuses: its one
 *         line on stderr, with the file's name).
 */
int wren_node_schc_rules(struct wren_node *node, struct wren_module *schc, const char *path);

#endif

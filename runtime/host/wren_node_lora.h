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

#endif

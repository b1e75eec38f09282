/**
 * @file flow.h
 * @brief Per-source UDP flows for simulated experiments (the 6TiSCH paper's
 *        30-node run): a sender makes a datagram every @c mean on average
 *        (each gap drawn uniformly in [mean/2, 3 mean/2] from the node's
 *        random stream) and a sink counts, per source address, the distinct
 *        datagrams that arrive, so the end-to-end delivery ratio of every
 *        node can be told apart. The shell's `flow` command drives it (sim
 *        only; allocated on a node's first `flow` command).
 *
 * A datagram carries its sequence number (4 bytes, big-endian, from 0)
 * then the udp_app pattern up to its size. The sink keeps a bitmap of the
 * first WREN_FLOW_SEQ_MAX sequence numbers per source: a number seen
 * before is a duplicate (counted apart, not delivered twice); numbers
 * beyond the bitmap are counted without the check. A datagram shorter than
 * 4 bytes, or whose pattern does not check, is counted bad.
 *
 * `start joined`: the sender starts only once its node has joined the
 * network, looked at once a second: an RPL preferred parent and, on a TSCH
 * interface, synchronised with a dedicated TX cell to that parent (a TX cell
 * for that neighbour that is not shared: MSF's negotiated cell), as
 * OpenWSN's uinject asks before each datagram (openapps/uinject/uinject.c:
 * ieee154e_isSynch, icmpv6rpl_getPreferredParentEui64,
 * schedule_hasNegotiatedCellToNeighbor). Once started it sends whatever
 * happens to the parent or the cell later (those datagrams count).
 * `window MS`: the radio's time in each state over MS from the flow's start
 * (a sink's: its command), for the duty cycle of that window.
 */
#ifndef WREN_SIM_FLOW_H
#define WREN_SIM_FLOW_H

#include <stdbool.h>
#include <stdint.h>

#include "core/timer.h"
#include "shell/shell.h"
#include "sock/sock_udp.h"

#define WREN_FLOW_MAX_SRC 128   /**< sources a sink tells apart */
#define WREN_FLOW_SEQ_MAX 4096  /**< sequence numbers checked for duplicates */
#define WREN_FLOW_PORT 6100

struct wren_flow_src {
    uint8_t addr[16];
    uint32_t received;          /**< distinct datagrams */
    uint32_t dup;               /**< a sequence number seen before */
    uint32_t unchecked;         /**< beyond WREN_FLOW_SEQ_MAX (in received) */
    uint8_t seen[WREN_FLOW_SEQ_MAX / 8];
};

struct wren_flow {
    struct wren_node *node;
    struct wren_sock_udp sock;
    bool open;
    /* sender */
    bool sending;
    struct wren_timer timer;
    struct wren_sock_udp_ep dst;
    uint16_t size;
    uint32_t mean_us;
    uint32_t left;              /**< datagrams still to make (0: no limit) */
    uint32_t generated;         /**< datagrams the application made */
    uint32_t failed;            /**< ... the socket refused (no route, no buffer) */
    bool wait_join;             /**< `start joined`: not started until the node has joined */
    uint64_t start_us;          /**< simulated (true) time the flow started */
    /* window: the radio's time (off, listen, rx, tx) at its start and end */
    struct wren_timer win_timer;
    uint32_t window_ms;         /**< 0: none */
    uint8_t win_state;          /**< 0 none, 1 open, 2 closed */
    uint64_t win0[4];
    uint64_t win1[4];
    /* sink */
    bool sink;
    struct wren_flow_src *src;  /**< WREN_FLOW_MAX_SRC, allocated by `flow sink` */
    uint16_t n_src;
    uint32_t bad;               /**< too short or a pattern that does not check */
    uint32_t overflow;          /**< from a source beyond WREN_FLOW_MAX_SRC */
};

void wren_flow_init(struct wren_flow *f, struct wren_node *node);
void wren_flow_free(struct wren_flow *f);

/** The `flow` shell command (its node's flow is found from the shell). */
int wren_flow_cmd(struct wren_shell *sh, struct wren_module *m, int argc, char **argv);

#endif

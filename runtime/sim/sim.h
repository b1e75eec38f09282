/**
 * @file sim.h
 * @brief The simulator as a library: build a network of full wren nodes on
 *        one simulated 802.15.4 medium, run it, read every counter.
 *
 * This is the C API the Python front end drives through ctypes, and what C
 * tests and benchmarks use. Each simulated node is a complete node
 * (struct wren_node) with its own packet buffer, an 802.15.4 interface over
 * a sim radio running every module of the module list (src/stack/modules.h)
 * as the stack assembly builds it, a shell, and a raw traffic
 * generator/sink.
 *
 *     struct wren_sim *s = wren_sim_new(42);
 *     wren_sim_set_range(s, 15.0, 1.0);
 *     for (i = 0; i < 25; i++) wren_sim_add_node(s, 10.0 * (i % 5), 10.0 * (i / 5), 0, 0);
 *     wren_sim_rawgen(s, 0, -1, 40, 100000, WREN_RAWGEN_JITTER, 0, 0);
 *     wren_sim_run(s, 10 * 1000000);
 *     wren_sim_free(s);
 */
#ifndef WREN_SIM_SIM_H
#define WREN_SIM_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "apps/rawgen.h"
#include "core/node.h"
#include "link/ieee802154_link.h"
#include "shell/shell.h"
#include "sim/medium.h"
#include "sim/world.h"

struct wren_sim_piece;

struct wren_sim_node {
    struct wren_node node;          /**< first (sim.c's memory hook finds the node by it) */
    struct wren_world_clock clock;  /**< the node's crystal: its rt (world.h) */
    struct wren_ieee802154_netif netif;
    struct wren_sim_radio radio;
    uint8_t *modules;       /**< the modules' state (src/stack/modules.h: all of them) */
    struct wren_sim_piece *pieces; /**< state its modules made on first use (wren_node_mem) */
    struct wren_shell *shell;     /**< allocated by the first shell command */
    struct wren_rawgen *app;      /**< allocated by the first wren_sim_rawgen */
    struct wren_tcp_app *tcp_app; /**< allocated by the first `tcp` shell command */
    void *rpl_routes;       /**< RPL's route table, when given one (wren_sim_rpl_routes) */
    uint32_t rpl_routes_n;  /**< ... of this many entries */
    uint32_t mod_mask;      /**< the modules it was built with: bit i, the list's module i */
    struct wren_tsch *tsch; /**< the interface's TSCH MAC (wren_sim_set_mac "tsch"), or NULL */
    struct wren_sensor *sensor;   /**< allocated by the first `sensor` shell command */
    struct wren_flow *flow;       /**< allocated by the first `flow` shell command */
    struct wren_sim_lora *lora;   /**< its LoRa interface (sim_lora.h), or NULL */
    struct wren_sim_eth *eth;     /**< its Ethernet port (sim_eth.h), or NULL */
    uint8_t app_on;
    uint8_t *arena;
    size_t arena_size;
    char *out;              /**< shell output not yet collected */
    size_t out_len;
    size_t out_cap;
};

struct wren_sim_zep;
struct wren_sensor;
struct wren_flow;
struct wren_sim_lora;
struct wren_lora_medium;
struct wren_sim_eth;
struct wren_sim_eth_bus;

struct wren_sim {
    struct wren_world world;
    struct wren_medium medium;
    struct wren_sim_node **nodes;
    uint32_t n_nodes;
    uint32_t cap_nodes;
    uint64_t seed;
    struct wren_sim_zep *zep; /**< the bridge to live processes, or NULL */
    const struct wren_module_ops *mods[16]; /**< what nodes added from now on run */
    uint8_t n_mods;         /**< 0: every module of the list */
    struct wren_sim_names *names; /**< counter names made so far (wren_sim_counters) */
    size_t n_names;
    double drift_max_ppm;   /**< nodes added later draw their offset in +-this */
    double drift_ppm;       /**< ... or all get this one, if drift_fixed */
    bool drift_fixed;
    struct wren_sim_node *failed; /**< a node whose stack failed to build (freed last) */
    const char *failed_module;    /**< the module that refused to start there, or NULL */
    uint8_t mac_tsch;       /**< nodes added from now on run TSCH (wren_sim_set_mac) */
    struct wren_rt_ops node_rt_ops; /**< the nodes' rt: their clock's, with `mem` */
    uint8_t lora_on;        /**< nodes added from now on get a LoRa interface (sim_lora.h) */
    struct wren_lora_medium *lora; /**< the LoRa medium, made by wren_sim_set_lora */
    uint8_t lora_link;      /**< nodes added from now on: 0 raw LoRa link, 1 LoRaWAN */
    uint8_t eth_on;         /**< nodes added from now on get an Ethernet port (sim_eth.h) */
    struct wren_sim_eth_bus *eth; /**< the Ethernet bus, made by wren_sim_set_eth */
};

/** @brief A new, empty simulation. @return NULL if out of memory. */
struct wren_sim *wren_sim_new(uint64_t seed);
/** @brief Free the simulation and every node. */
void wren_sim_free(struct wren_sim *s);

/**
 * @brief The modules nodes added from now on run: names of the module list
 *        (src/stack/modules.h) separated by blanks or commas, in the order
 *        they start ("" or NULL: every module of the list, the default).
 * @return 0, -ENOENT for a name not in the list (nothing changes), or
 *         -E2BIG for more than 16.
 */
int wren_sim_set_modules(struct wren_sim *s, const char *names);

/** @brief Name @p i of the module list, or NULL past its end (for front ends). */
const char *wren_sim_module_name(uint32_t i);

/** @brief Links between all nodes within @p range metres, with reception
 *         ratio @p prr; call before adding nodes. 0 disables the model. */
void wren_sim_set_range(struct wren_sim *s, double range, double prr);

/**
 * @brief Links from the path-loss model (runtime/sim/pathloss.h) between
 *        nodes added from now on, instead of the range model: log-distance
 *        path loss with exponent @p exponent and @p ref_loss_db at 1 m,
 *        log-normal shadowing of @p sigma_db per pair (drawn from the seed),
 *        @p tx_power_dbm, noise floor @p noise_dbm; each frame gets through
 *        with the O-QPSK PRR of its length at the link's SNR. @p exponent 0
 *        turns the model off.
 * @return 0 or -EINVAL for impossible values (nothing changes).
 */
int wren_sim_set_pathloss(struct wren_sim *s, double exponent, double ref_loss_db,
                          double sigma_db, double tx_power_dbm, double noise_dbm);

/**
 * @brief The link @p from -> @p to: its reception ratio for a PSDU of
 *        @p psdu_len octets (FCS included) into @p prr and its RSSI (dBm)
 *        into @p rssi (either may be NULL).
 * @return 0, -EINVAL (no such node, psdu_len not 1..127), -ENOENT (no link).
 */
int wren_sim_link_info(const struct wren_sim *s, uint32_t from, uint32_t to, uint32_t psdu_len,
                       double *prr, int32_t *rssi);

/**
 * @brief Per-frame processing delay of node @p id's radio (runtime/sim/medium.h):
 *        before each frame it sends (each CSMA attempt and retransmission
 *        again; not its ACKs) the radio spends @p us * PSDU / 127, a full
 *        127-octet PSDU exactly @p us, busy but listening. @p id -1: every
 *        node so far and every node added later. 0 (the default) turns it
 *        off. The TCP paper's hardware took 8.2 ms per full frame; the
 *        simulated CCA, turnarounds, airtime and Imm-Ack take 5.12 ms of
 *        that, so @p us = 3080 (the counter radio.proc_us sums the delays).
 * @return 0 or -EINVAL for an unknown node.
 */
int wren_sim_set_proc_delay(struct wren_sim *s, int32_t id, uint32_t us);

/**
 * @brief Receive-side upload of node @p id's radio (runtime/sim/medium.h):
 *        each frame it receives reaches the node @p us * PSDU / 127 after
 *        its end (the MCU reading it out over the bus); the radio ACKs it
 *        itself meanwhile and takes no other frame. @p id -1: every node so
 *        far and every node added later. 0 (the default) turns it off.
 * @return 0 or -EINVAL for an unknown node.
 */
int wren_sim_set_rx_proc_delay(struct wren_sim *s, int32_t id, uint32_t us);

/** @brief Capture (runtime/sim/medium.h): a frame being received survives an
 *         overlapping transmission with probability @p p (0..1; 0, the
 *         default, is no capture). */
void wren_sim_set_capture(struct wren_sim *s, double p);

/** Default bound of the nodes' crystal offsets, ppm (a common 2.4 GHz
 *  radio crystal's tolerance; 802.15.4 allows 40). */
#define WREN_SIM_DRIFT_DEFAULT_PPM 30.0

/**
 * @brief Drifting clocks: node @p id's crystal runs @p ppm parts per
 *        million fast (negative: slow) from now on (runtime/sim/world.h):
 *        its wren_node_now() and its timers run on that clock, its radio
 *        reports times in it. @p id -1: every node so far, and nodes added
 *        later get @p ppm too instead of a drawn offset. Without a call,
 *        each node's offset is drawn uniformly within
 *        +-WREN_SIM_DRIFT_DEFAULT_PPM from the seed and its id (the same
 *        for the same seed, whatever else the simulation does).
 * @return 0, or -EINVAL (no such node, |ppm| > WREN_WORLD_CLOCK_MAX_PPM).
 */
int wren_sim_set_drift(struct wren_sim *s, int32_t id, double ppm);

/**
 * @brief Nodes added from now on draw their crystal offset uniformly within
 *        +-@p max_ppm (from the seed and their id; 0: exact clocks), and
 *        forget a fixed offset given with wren_sim_set_drift(s, -1, ...).
 * @return 0 or -EINVAL (negative, or above WREN_WORLD_CLOCK_MAX_PPM).
 */
int wren_sim_set_drift_range(struct wren_sim *s, double max_ppm);

/** @brief Node @p id's crystal offset, ppm, into @p ppm. @return 0 or -EINVAL. */
int wren_sim_get_drift(const struct wren_sim *s, uint32_t id, double *ppm);

/** @brief Node @p id's local time (its wren_node_now()), us, or UINT64_MAX
 *         for an unknown node. */
uint64_t wren_sim_node_now(const struct wren_sim *s, uint32_t id);

/**
 * @brief Add a node at (x, y, z) with a @p pktbuf_size byte packet buffer
 *        (0: the default, 6 KiB). The radio listens on channel 26.
 * @return the node id (0, 1, ...), or -errno. If the node's stack fails to
 *         build (a module whose init refuses, such as coap_tcp without tcp),
 *         the error is returned and every later add_node returns -ECANCELED:
 *         the simulation keeps running the nodes it has.
 */
int wren_sim_add_node(struct wren_sim *s, double x, double y, double z, uint32_t pktbuf_size);

/**
 * @brief The MAC of the 802.15.4 interface of nodes added from now on:
 *        "csma" (the default: unslotted CSMA-CA, src/mac/csma/ieee802154_mac.c)
 *        or "tsch" (src/mac/tsch/tsch.h: the node starts scanning for EBs; make
 *        one the coordinator with the shell's `tsch coordinator` or SET
 *        WREN_NETOPT_TSCH_ROLE).
 * @return 0, or -ENOENT for another name (nothing changes).
 */
int wren_sim_set_mac(struct wren_sim *s, const char *kind);

/** @brief The name of the module whose init refused when a node's stack
 *         failed to build (wren_sim_add_node), or NULL. */
const char *wren_sim_failed_module(const struct wren_sim *s);

/** @brief Set the directed link @p from -> @p to (prr 0: interferes only). */
int wren_sim_set_link(struct wren_sim *s, uint32_t from, uint32_t to, double prr);
/** @brief Remove the directed link @p from -> @p to. */
int wren_sim_remove_link(struct wren_sim *s, uint32_t from, uint32_t to);

/** @brief SET @p opt on node @p id's interface (through netapi). */
int wren_sim_netopt_set(struct wren_sim *s, uint32_t id, uint16_t opt, const void *val,
                        size_t len);
/** @brief GET @p opt from node @p id's interface (through netapi). */
int wren_sim_netopt_get(struct wren_sim *s, uint32_t id, uint16_t opt, void *val,
                        size_t max);

/** @brief Capture every frame on the air to @p path (pcap, LINKTYPE 195),
 *         stamped with the true time its first symbol began. */
int wren_sim_open_pcap(struct wren_sim *s, const char *path);

/**
 * @brief Capture as wren_sim_open_pcap() does, in link type @p linktype:
 *        195 (LINKTYPE_IEEE802_15_4_WITHFCS, the default) or 283
 *        (LINKTYPE_IEEE802_15_4_TAP: each frame with the channel it went
 *        out on, runtime/sim/pcap.h).
 * @return 0, -EINVAL for another link type, or -errno.
 */
int wren_sim_open_pcap_as(struct wren_sim *s, const char *path, uint32_t linktype);

/**
 * @brief Start raw traffic from node @p id to node @p dst (-1: broadcast).
 * @return 0 or -errno.
 */
int wren_sim_rawgen(struct wren_sim *s, uint32_t id, int32_t dst, uint16_t payload_len,
                    uint32_t interval_us, uint8_t timing, uint32_t count, uint64_t start_us);

/** @brief Make node @p id's radio receive @p psdu (with FCS) now; see
 *         wren_medium_inject(). */
int wren_sim_inject(struct wren_sim *s, uint32_t id, const uint8_t *psdu, size_t len);

/**
 * @brief Run shell command @p line on node @p id (see wren_shell_exec);
 *        its output, and later output of what it started (ping replies),
 *        collects in the node's output buffer.
 * @return the command's result (0 or -errno).
 */
int wren_sim_shell(struct wren_sim *s, uint32_t id, const char *line);

/**
 * @brief Take node @p id's collected shell output: copies at most @p max - 1
 *        bytes and a NUL into @p buf and removes them from the buffer.
 * @return bytes copied, or -EINVAL.
 */
int wren_sim_shell_output(struct wren_sim *s, uint32_t id, char *buf, size_t max);

/** @brief Run until virtual time @p until_us. */
void wren_sim_run(struct wren_sim *s, uint64_t until_us);
/** @brief Virtual time, us. */
uint64_t wren_sim_now(const struct wren_sim *s);
/** @brief Number of nodes. */
uint32_t wren_sim_node_count(const struct wren_sim *s);
/** @brief Timers fired so far (a measure of work done). */
uint64_t wren_sim_events(const struct wren_sim *s);

/**
 * @brief Counters of node @p id as (name, value) pairs.
 * @param[out] names   "set.counter" strings, valid until wren_sim_free(); not
 *                     written (nor made) when @p max is 0
 * @return the number of counters (may exceed @p max; only @p max are written).
 */
int wren_sim_counters(struct wren_sim *s, uint32_t id, const char **names, uint64_t *values,
                      int max);

/** @brief Bytes allocated per node (node state, arena, link tables, what
 *         its modules made on first use), the mean of wren_sim_memory()'s
 *         totals. */
size_t wren_sim_bytes_per_node(const struct wren_sim *s);

/**
 * @brief The memory of node @p id (id -1: of every node, summed) by part,
 *        as (name, bytes) pairs: "node" (struct wren_node, its clock and the
 *        simulator's bookkeeping), "pktbuf" (its arena), "netif" (the
 *        802.15.4 interface: netif, link layer, MAC, TSCH), "radio" (the sim
 *        device and its link table), "shell", "apps" (rawgen, tcp, sensor,
 *        flow, where used), then each module the node runs by name (its
 *        state from the build plus what it made on first use through
 *        wren_node_mem, an RPL route table given with wren_sim_rpl_routes
 *        included), and last "total", their sum. Names are static strings.
 * @return the number of pairs (only @p max are written), or -EINVAL.
 */
int wren_sim_memory(const struct wren_sim *s, int32_t id, const char **names, uint64_t *values,
                    int max);

/** @brief The node object of @p id (for C tests), or NULL. */
struct wren_node *wren_sim_node(struct wren_sim *s, uint32_t id);

/**
 * @brief Bridge the medium to live processes over ZEP (runtime/sim/zep_bridge.h):
 *        a radio at (x, y, z) that sends what it hears to @p remote_host :
 *        @p remote_port as ZEP and puts on the air what arrives on UDP
 *        @p local_port. Add it after the nodes: it takes the next radio index
 *        (returned; use it with wren_sim_set_link), and nodes cannot be added
 *        after it (-EBUSY). Run the simulation with wren_sim_run_realtime().
 * @return the bridge's radio index, or -errno (-EEXIST: one bridge already).
 */
int wren_sim_zep_bridge(struct wren_sim *s, double x, double y, double z, uint16_t local_port,
                        const char *remote_host, uint16_t remote_port);

/**
 * @brief Run for @p duration_us of wall-clock time with virtual time kept
 *        at wall-clock pace, taking frames from the ZEP bridge (if any) as
 *        they arrive. The only sim entry point that reads a clock: runs are
 *        not reproducible. @return 0.
 */
int wren_sim_run_realtime(struct wren_sim *s, uint64_t duration_us);

/**
 * @brief The bridge's counters as (name, value) pairs, from its counter list
 *        (WREN_SIM_ZEP_COUNTERS, runtime/sim/zep_bridge.h), as
 *        wren_sim_counters() gives a node's.
 * @return the number of counters (only @p max are written), or -ENODEV
 *         without a bridge.
 */
int wren_sim_zep_counters(struct wren_sim *s, const char **names, uint64_t *values, int max);

/**
 * @brief Give node @p id's RPL module (its first 802.15.4 interface's) a
 *        route table of @p n entries, allocated here once (before the node
 *        takes a role, not on the data path) and freed with the simulation:
 *        a non-storing root needs one per node of its DODAG, a storing
 *        router one per node below it; the built-in table
 *        (CONFIG_WREN_RPL_ROUTES) is for routers of small subtrees.
 *        Counted in wren_sim_bytes_per_node().
 * @return 0; -EINVAL (no such node, n not 1..65535), -ENODEV (no RPL),
 *         -EBUSY (RPL has a role), -ENOMEM.
 */
int wren_sim_rpl_routes(struct wren_sim *s, uint32_t id, uint32_t n);

/** @brief Whether every node's packet buffer is empty and consistent. */
int wren_sim_pktbufs_clean(const struct wren_sim *s);

#endif

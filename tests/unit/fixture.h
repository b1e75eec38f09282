/**
 * @file fixture.h
 * @brief The one place unit tests build nodes, and tear them down with the
 *        packet-buffer check.
 *
 * A test runs between fx_setup() and fx_teardown() (FX_TEST in the cmocka
 * group). fx_setup() starts a fresh sim world at time 0; everything the test
 * then builds through the fixture — nodes (fx_node, fx_wire), simulations
 * (fx_sim), bare packet buffers (fx_pktbuf), recording sinks (fx_sink), a
 * host runtime (fx_host) — is the fixture's. fx_teardown() checks that every
 * packet buffer among them is empty and consistent, then frees it all, also
 * after a failed CHECK: cmocka longjmps out of the test and still runs the
 * teardown. The teardown does not run the world (objects on the failed
 * test's stack may be gone): a test lets its traffic drain and checks the
 * buffers itself at its end with FX_CLEAN(us), and the teardown's check then
 * only confirms it; after a failure it reports what the test left behind.
 *
 *     TEST(test_udp__echo) {
 *         struct fx_node *n = fx_node(FX_IP);
 *         ...
 *         FX_CLEAN(1000000);
 *     }
 *     int main(void) {
 *         const struct CMUnitTest tests[] = { FX_TEST(test_udp__echo) };
 *         return cmocka_run_group_tests(tests, NULL, NULL);
 *     }
 *
 * Nodes are built here and nowhere else in the tests, through the stack
 * assembly (src/stack/stack.h) as every node is: the interface first, then
 * (after an Ethernet MAC is set) the modules the test asks for, their state
 * in the node's store. Tests reach a node's modules through the pointers of
 * struct fx_node.
 */
#ifndef WREN_TEST_FIXTURE_H
#define WREN_TEST_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "test.h"

#include "core/node.h"
#include "drivers/loopback.h"
#include "host/rt_host.h"
#include "icmpv6/icmpv6.h"
#include "ipv6/ipv6.h"
#include "link/ethernet_link.h"
#include "link/ieee802154_link.h"
#include "link/lorawan_link.h"
#include "net/netreg.h"
#include "nib/nd_eth.h"
#include "nib/nib.h"
#include "rpl/rpl.h"
#include "schc/schc.h"
#include "sim/medium.h"
#include "sim/sim.h"
#include "sim/world.h"
#include "sixlowpan/sixlowpan.h"
#include "tcp/tcp.h"
#include "udp/udp.h"

/** What a test node has, or-ed together: at most one interface, and modules. */
enum fx_parts {
    FX_LOOPBACK = 1u << 0,  /**< 802.15.4 interface over a loopback device (125-byte frames) */
    FX_REFLECTOR = 1u << 1, /**< 802.15.4 interface over the L2 reflector */
    FX_RADIO = 1u << 2,     /**< 802.15.4 interface over a sim radio on fx.medium */
    FX_ETHERNET = 1u << 3,  /**< Ethernet interface over a loopback device,
                                 MAC 02:57:52:00:00:<id> */
    FX_LORA = 1u << 4,      /**< LoRaWAN interface over a loopback device (255-byte frames) */
    FX_SIXLOWPAN = 1u << 8,
    FX_IPV6 = 1u << 9,      /**< IPv6, running on the interface if there is one */
    FX_ICMPV6 = 1u << 10,
    FX_UDP = 1u << 11,
    FX_TCP = 1u << 12,
    FX_NIB = 1u << 13,      /**< 6LoWPAN neighbor discovery on the interface */
    FX_ND_ETH = 1u << 14,   /**< Ethernet neighbor discovery on the interface */
    FX_RPL = 1u << 15,      /**< RPL on the (802.15.4) interface, role off */
    FX_SCHC = 1u << 16,     /**< SCHC on the (LoRa) interface */
};
#define FX_IP (FX_IPV6 | FX_ICMPV6 | FX_UDP)
/** A 6LoWPAN node on the sim medium: radio, 6LoWPAN, IPv6, ICMPv6, UDP, NIB. */
#define FX_LOWPAN_NODE (FX_RADIO | FX_SIXLOWPAN | FX_IP | FX_NIB)

struct fx_store;

/** A test node. Pointers are NULL for the parts it does not have. */
struct fx_node {
    struct wren_node node;
    uint8_t if_id;                        /**< its interface's id, 0: none */
    struct wren_netif *netif;             /**< its interface */
    struct wren_ieee802154_netif *nif;    /**< ... when 802.15.4 */
    struct wren_ethernet_netif *eth;      /**< ... when Ethernet */
    struct wren_loopback *lo;             /**< its loopback / reflector device */
    struct wren_sim_radio *radio;         /**< its sim radio (index = radio->index) */
    struct wren_sixlowpan *lp;
    struct wren_ipv6 *ip;
    struct wren_icmpv6 *icmp;
    struct wren_udp *udp;
    struct wren_tcp *tcp;
    struct wren_nib *nib;
    struct wren_nd_eth *nd;
    struct wren_rpl *rpl;
    struct wren_lorawan_netif *lora;      /**< its interface when LoRaWAN */
    struct wren_schc *schc;
    uint8_t *arena;                       /**< its packet buffer's memory (apart: ASan
                                               poisons a packet buffer's free space) */
    size_t arena_size;
    struct fx_store *store;               /**< the parts' state */
};

/** A module that records what it receives (fx_sink). */
struct fx_sink {
    struct wren_module module;            /**< first */
    struct wren_netreg_entry reg;
    struct fx_node *n;
    uint8_t type;
    unsigned got;                         /**< packets received */
    size_t len;                           /**< of the last one: its first snip's size */
    uint8_t data[1500];                   /**< ... and bytes (at most 1,500) */
    uint64_t at;                          /**< ... and when, us */
    uint8_t src[8];                       /**< its link source (netif header), if any */
    uint8_t src_len;
};

#define FX_MAX_NODES 32
#define FX_MAX_SIMS 4
#define FX_MAX_PKTBUFS 4
#define FX_MAX_SINKS 16
#define FX_MAX_RADIOS 4
#define FX_MAX_EXTRA 4

struct fx {
    bool up;                              /**< between fx_setup and fx_teardown */
    struct wren_world world;              /**< every fx_node's runtime */
    struct wren_medium medium;            /**< FX_RADIO nodes' channel */
    bool medium_up;
    uint64_t seed;                        /**< node seed for fx_node() (1) */
    struct fx_node *nodes[FX_MAX_NODES];
    unsigned n_nodes;
    struct wren_sim *sims[FX_MAX_SIMS];
    unsigned n_sims;
    struct wren_pktbuf *pbs[FX_MAX_PKTBUFS];
    void *pb_arenas[FX_MAX_PKTBUFS];
    unsigned n_pbs;
    struct fx_sink *sinks[FX_MAX_SINKS];
    unsigned n_sinks;
    struct wren_sim_radio *radios[FX_MAX_RADIOS]; /**< fx_radio's */
    unsigned n_radios;
    void *extra[FX_MAX_EXTRA];            /**< fx_if154_add's */
    unsigned n_extra;
    struct wren_host host;
    bool host_up;
    struct wren_rt_ops world_ops;         /**< fx.world's rt ops, with `mem` (fx_node's) */
    void *mem;                            /**< what their modules made on first use */
};

/** The running test's fixture. */
extern struct fx fx;

/** @brief Pieces fx_node's modules made on first use so far (wren_node_mem). */
unsigned fx_mem_pieces(void);

/** cmocka setup: a fresh world (seed 1) at time 0; *state = &fx. */
int fx_setup(void **state);
/** cmocka teardown: check every packet buffer the test built (empty and
 *  consistent), report any that is not, free everything. @return 0 or -1. */
int fx_teardown(void **state);

/** A test in a cmocka group, between fx_setup and fx_teardown. */
#define FX_TEST(t) cmocka_unit_test_setup_teardown(t, fx_setup, fx_teardown)
/** A test whose setup @p setup calls fx_setup first (and builds its nodes). */
#define FX_TEST_SETUP(t, setup) cmocka_unit_test_setup_teardown(t, setup, fx_teardown)

/**
 * @brief A node on fx.world with @p parts (enum fx_parts), a 6,144-byte
 *        packet buffer, id = number of nodes so far + 1 (FX_RADIO: the radio
 *        index, which is also its short address), seed fx.seed.
 *        Fails the test if it cannot be built.
 */
struct fx_node *fx_node(unsigned parts);
/** @brief fx_node with a packet buffer of @p arena bytes (0: 6,144), @p id, @p seed. */
struct fx_node *fx_node_ex(unsigned parts, size_t arena, uint32_t id, uint64_t seed);
/**
 * @brief Two nodes whose loopback devices are joined into a wire
 *        (wren_loopback_pair): @p parts must have FX_LOOPBACK or FX_ETHERNET.
 *        Ids 1 and 2 (their link addresses end in 1 and 2), seed @p seed.
 */
void fx_wire(unsigned parts, size_t arena, uint64_t seed, struct fx_node **a,
             struct fx_node **b);
/** @brief A bare node (no interface, no modules) on @p host's runtime. */
struct fx_node *fx_host_node(struct wren_host *host, size_t arena);
/**
 * @brief Add a further 802.15.4 interface to @p n, over a loopback device of
 *        its own (125-byte frames). @return the interface; its id is
 *        netif.id.
 */
struct wren_ieee802154_netif *fx_if154_add(struct fx_node *n);
/** @brief The fixture's host runtime (wren_host_init'ed; finished at teardown). */
struct wren_host *fx_host(void);

/** @brief A simulation (wren_sim_new), freed at teardown after its check. */
struct wren_sim *fx_sim(uint64_t seed);
/** @brief Check @p s's packet buffers (CHECK) and free it now. */
void fx_sim_done(struct wren_sim *s);

/** @brief A bare packet buffer of @p size bytes, checked at teardown. */
struct wren_pktbuf *fx_pktbuf(size_t size);

/** @brief Register a recording sink for (@p type, @p demux) on @p n. */
struct fx_sink *fx_sink(struct fx_node *n, uint8_t type, uint32_t demux);

/** @brief fx.world's clock, us. */
static inline uint64_t fx_now(void)
{
    return fx.world.now;
}
/** @brief Run fx.world for @p us. */
void fx_run_us(uint64_t us);
/** @brief Run fx.world until @p t (absolute, us). */
void fx_run_until(uint64_t t);

/**
 * @brief A sim radio on fx.medium without a node (a jammer, a sniffer): on,
 *        listening, no event callback until the test sets
 *        radio->netdev.event_cb. Links to it by index (wren_medium_set_link).
 */
struct wren_sim_radio *fx_radio(void);

/** @brief Directed link @p from -> @p to on fx.medium (prr 0: energy only). */
void fx_link(const struct fx_node *from, const struct fx_node *to, double prr);
/** @brief Perfect links both ways between @p a and @p b. */
void fx_link2(const struct fx_node *a, const struct fx_node *b);

/** An 802.15.4-2006 data frame (fx_frame_emit): short addresses, PAN ID
 *  compression, PAN 0x0023 unless @p pan is set. */
struct fx_frame {
    uint16_t src, dst;            /**< short addresses (dst 0xffff: broadcast) */
    const uint8_t *src_eui;       /**< instead of src: this EUI-64 */
    const uint8_t *dst_eui;       /**< instead of dst: this EUI-64 */
    uint16_t pan;                 /**< 0: 0x0023 */
    uint8_t seq;
    bool ack_req;
    bool frame_pending;
};
/** @brief Emit frame @p f with @p payload into @p buf (room for 127), FCS
 *         included. @return the PSDU length. Fails the test if it does not fit. */
size_t fx_frame_emit(const struct fx_frame *f, const void *payload, size_t len, uint8_t *buf);
/** @brief Hand node @p n's radio @p psdu (FCS included) as received, and run
 *         the world for 1 us. CHECKs that the radio took it. */
void fx_inject(struct fx_node *n, const uint8_t *psdu, size_t len);

/**
 * @brief CHECK a whole counter struct against the expected one: every
 *        counter of X-macro list @p list (WREN_SIXLOWPAN_COUNTERS, ...), so
 *        the counters a test does not name must stay 0. Prints each that
 *        differs by name.
 *
 *     FX_CHECK_COUNTERS(WREN_SIXLOWPAN_COUNTERS, &n->lp->stats,
 *                       (&(struct wren_sixlowpan_stats){ .frag_rx = 3, .frag_reassembled = 1 }));
 */
#define FX_CHECK_COUNTERS(list, got, want)                                                \
    do {                                                                                  \
        const __typeof__(*(got)) *fx_got_ = (got), *fx_want_ = (want);                    \
        int fx_bad_ = 0;                                                                  \
        list(FX_COUNTER_CMP_)                                                             \
        if (fx_bad_) {                                                                    \
            print_error("%s:%d: counters of %s differ\n", __FILE__, __LINE__, #got);       \
            wren_test_fail(__FILE__, __LINE__);                                           \
        }                                                                                 \
    } while (0)
#define FX_COUNTER_CMP_(name)                                                             \
    if (fx_got_->name != fx_want_->name) {                                                \
        print_error("  %s: %llu, expected %llu\n", #name,                                 \
                    (unsigned long long)fx_got_->name, (unsigned long long)fx_want_->name); \
        fx_bad_++;                                                                        \
    }

/** @brief Whether @p n's packet buffer is empty and consistent. */
bool fx_node_clean(const struct fx_node *n);

/**
 * @brief End of a test: run fx.world and every simulation @p us more, then
 *        CHECK that every node's, simulation's and bare packet buffer is
 *        empty and consistent.
 */
#define FX_CLEAN(us) fx_clean_at(__FILE__, __LINE__, (us))
void fx_clean_at(const char *file, int line, uint64_t us);

#endif

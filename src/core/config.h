/**
 * @file config.h
 * @brief Compile-time sizes of the node core. Each default works; override
 *        with -D on the compiler command line.
 */
#ifndef WREN_CORE_CONFIG_H
#define WREN_CORE_CONFIG_H

/** Message slots in a node's scheduler queue, shared by all priorities. */
#ifndef CONFIG_WREN_SCHED_QUEUE_LEN
#define CONFIG_WREN_SCHED_QUEUE_LEN 16
#endif

/** Scheduler priority levels; 0 is the most urgent. */
#ifndef CONFIG_WREN_SCHED_PRIOS
#define CONFIG_WREN_SCHED_PRIOS 3
#endif

/** Default packet buffer arena in bytes (a node may be given another size). */
#ifndef CONFIG_WREN_PKTBUF_SIZE
#define CONFIG_WREN_PKTBUF_SIZE 6144
#endif

/** Packets an interface queues while its device is busy (a 1,280-byte
 *  datagram is 14 fragments on 802.15.4 between EUI-64 addresses; TCP's
 *  default window of 2,048 bytes is four to five 6-frame segments). The queue
 *  is linked through the packets' netif headers, so its length costs no RAM,
 *  but its frames take the packet buffer: 28 full frames leave room in the
 *  default 6 KiB one to receive ACKs (at 32 they did not). */
#ifndef CONFIG_WREN_NETIF_TXQ_LEN
#define CONFIG_WREN_NETIF_TXQ_LEN 28
#endif

/** State made on first use (core/node.h wren_node_mem and WREN_LAZY): 1, a
 *  module's tables and sockets it has not used yet cost nothing until it
 *  needs them, from memory its runtime's rt `mem` op gives (the Linux builds
 *  set it, CMakeLists.txt: the simulator, the host runtime, the tests); 0,
 *  the default, every module's state is whole in its struct, as a firmware
 *  image with one global per module wants (the Cortex-M images: RAM charged
 *  by module in the linker map), and the code that makes state on first use
 *  compiles out. A runtime without a `mem` op needs 0. */
#ifndef CONFIG_WREN_NODE_MEM
#define CONFIG_WREN_NODE_MEM 0
#endif

/** Most snips a transmitted packet may have before the link layer merges it. */
#ifndef CONFIG_WREN_NETIF_MAX_SNIPS
#define CONFIG_WREN_NETIF_MAX_SNIPS 8
#endif

/** NDNLPv2 reassembly (src/ndn/ndnlp_frag.h), per link: packets in pieces
 *  held at once, and the largest packet and most pieces taken. The slots
 *  and the size are 6LoWPAN's (CONFIG_WREN_SIXLOWPAN_REASS_SLOTS and
 *  _MAX_DGRAM: 2 and 1,280 bytes, the IPv6 minimum MTU, RFC 8200 5), so the
 *  NDN and IP stacks reassemble the same. Pieces wait in the packet buffer:
 *  an idle slot costs its bookkeeping only. 32 pieces carry 1,280 bytes in
 *  pieces of 40, less than an 802.15.4 frame carries with the longest MAC
 *  header and security. The timeout runs from the last piece received and
 *  is NFD's LpReassembler default (reassemblyTimeout, 500 ms: NFD
 *  daemon/face/lp-reassembler.hpp). */
#ifndef CONFIG_WREN_NDNLP_REASS_SLOTS
#define CONFIG_WREN_NDNLP_REASS_SLOTS 2
#endif
#ifndef CONFIG_WREN_NDNLP_MAX_PKT
#define CONFIG_WREN_NDNLP_MAX_PKT 1280
#endif
#ifndef CONFIG_WREN_NDNLP_MAX_FRAGS
#define CONFIG_WREN_NDNLP_MAX_FRAGS 32
#endif
#ifndef CONFIG_WREN_NDNLP_REASS_TIMEOUT_MS
#define CONFIG_WREN_NDNLP_REASS_TIMEOUT_MS 500
#endif
_Static_assert(CONFIG_WREN_NDNLP_REASS_SLOTS > 0 && CONFIG_WREN_NDNLP_MAX_FRAGS > 1 &&
                   CONFIG_WREN_NDNLP_MAX_FRAGS <= 0xffff && CONFIG_WREN_NDNLP_MAX_PKT <= 0xffff,
               "NDNLPv2 reassembly: 1+ slots, 2..65535 pieces, packets of 16-bit length");

_Static_assert(CONFIG_WREN_SCHED_QUEUE_LEN > 0 && CONFIG_WREN_SCHED_QUEUE_LEN < 255,
               "scheduler queue indices are 8 bits");
_Static_assert(CONFIG_WREN_SCHED_PRIOS > 0 && CONFIG_WREN_SCHED_PRIOS <= 8,
               "1..8 priority levels");

/** 802.15.4 security in the link layer (link/ieee802154_sec.h): AES-128
 *  CCM*, keys, frame counters. 0 drops it (about 2 KB of ROM on Cortex-M3
 *  and the per-interface tables): secured frames are then dropped as
 *  unsupported. Read by the link layer and by 6LoWPAN (which leaves room
 *  in each frame for the auxiliary security header and the MIC). */
#ifndef CONFIG_WREN_IEEE802154_SEC
#define CONFIG_WREN_IEEE802154_SEC 1
#endif

/** RPL's modes of operation (src/rpl; RFC 6550 9: storing, MOP 2; non-storing,
 *  MOP 1, with the source routing header, RFC 6554, in IPv6). A build may
 *  leave one out: a root is then refused the other mode, a router or leaf
 *  never joins a DODAG of it (rx_drop_unsupported), and its code (storing:
 *  the downward route table, DAO forwarding, no-path DAOs, forwarding
 *  errors; non-storing: source routes at the root, deferred DAO-ACKs, IPv6's
 *  SRH insertion and processing) is dropped. One at least. */
#ifndef CONFIG_WREN_RPL_STORING
#define CONFIG_WREN_RPL_STORING 1
#endif
#ifndef CONFIG_WREN_RPL_NONSTORING
#define CONFIG_WREN_RPL_NONSTORING 1
#endif
_Static_assert(CONFIG_WREN_RPL_STORING || CONFIG_WREN_RPL_NONSTORING, "one RPL mode at least");

/** RPL-unaware leaves (RFC 9010, RFC 9008): a 6LR announces the hosts
 *  registered with it by ND to the root and routes to them, the root
 *  tunnels their datagrams to that 6LR. 0 drops it: registrations are
 *  refused (-ENOTSUP), external targets (the TIO's E flag) not taken. */
#ifndef CONFIG_WREN_RPL_RUL
#define CONFIG_WREN_RPL_RUL 1
#endif

/** Link the shell's commands of each module (0 on devices without a shell:
 *  the modules' command code is then dropped by the linker). */
#ifndef CONFIG_WREN_SHELL
#define CONFIG_WREN_SHELL 1
#endif
#if CONFIG_WREN_SHELL
#define WREN_IF_SHELL(x) (x)
#else
#define WREN_IF_SHELL(x) NULL
#endif

#endif

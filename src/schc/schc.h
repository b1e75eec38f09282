/**
 * @file schc.h
 * @brief The SCHC adaptation layer (RFC 8724, RFC 9011) between IPv6 and a
 *        LoRa interface: the module beside 6LoWPAN for LoRa links.
 *
 * One instance per interface of link type WREN_LINK_LORA, registered as
 * (WREN_NETTYPE_SCHC, interface id).
 * - SND (from IPv6): [netif] -> [IPv6 ...]. Compresses the datagram with
 *   the interface's rules (wire/schc.h; a device compresses uplink, the
 *   network side downlink, by the LoRaWAN session's role) and sends the
 *   SCHC packet as one message, or, when it does not fit the interface's
 *   MTU, fragments it (schc_frag.h: uplink ACK-on-Error, downlink
 *   ACK-Always, RFC 9011 5.6). One packet is in fragmentation at a time; a
 *   packet that needs it while one is under way is dropped (tx_drop_busy).
 * - RCV (from the link): [SCHC message, rule ID first] -> ... -> [netif].
 *   A fragment goes to the reassembly (its ACKs back out), an ACK to the
 *   sender, anything else is decompressed; whole datagrams go to
 *   (WREN_NETTYPE_IPV6, ALL).
 *
 * Options: SET WREN_NETOPT_SCHC_RULES with the rule text replaces the rule
 * set (a mistake keeps the old one; GET WREN_NETOPT_SCHC_ERROR has the one
 * line naming it); GET gives struct wren_schc_rules. Rules of kind
 * frag-up / frag-down rename the fragmentation rule IDs (20 and 21 by
 * default, RFC 9011's FPortUp and FPortDown). GET WREN_NETOPT_STATS: the
 * counters below. The default rule set (WREN_SCHC_DEFAULT_RULES) compresses
 * UDP between link-local addresses to 6 bytes of residue, UDP between
 * other addresses to 38, and has a no-compression rule (22).
 */
#ifndef WREN_SCHC_SCHC_H
#define WREN_SCHC_SCHC_H

#include <stdint.h>

#include "core/counters.h"
#include "core/module.h"
#include "core/timer.h"
#include "net/netreg.h"
#include "schc/schc_frag.h"
#include "wire/schc.h"

#define WREN_SCHC_COUNTERS(C)                                                           \
    C(tx_pkts)                                                                          \
    C(tx_compressed)        /* by a compression rule */                                 \
    C(tx_nocomp)            /* by the no-compression rule */                            \
    C(tx_fragmented)        /* packets sent in fragments */                             \
    C(tx_frags)             /* fragments, ACK REQs and aborts sent */                   \
    C(tx_frag_done)         /* fragmented packets acknowledged whole */                 \
    C(tx_frag_gave_up)      /* MAX_ACK_REQUESTS spent: Sender-Abort */                  \
    C(tx_frag_aborted)      /* the receiver aborted */                                  \
    C(tx_drop_no_rule)      /* no rule and no no-compression rule */                    \
    C(tx_drop_busy)         /* a fragmented packet is under way */                      \
    C(tx_drop_too_big)                                                                  \
    C(tx_drop_nobuf)                                                                    \
    C(rx_msgs)                                                                          \
    C(rx_pkts)              /* datagrams delivered */                                   \
    C(rx_drop_no_receiver)  /* no IPv6 module took them */                              \
    C(rx_drop_no_rule)                                                                  \
    C(rx_drop_residue)      /* truncated residue, bad mapping index, length */          \
    C(rx_drop_nobuf)                                                                    \
    C(rx_frag_done)         /* packets reassembled */                                   \
    C(rx_frag_acks)         /* ACKs and aborts sent */                                  \
    C(rx_frag_drop_bad)     /* truncated, a window or tiles that do not fit */          \
    C(rx_frag_drop_rcs)     /* reassembled but the RCS failed: aborted */               \
    C(rx_frag_drop_aborted) /* the sender aborted */                                    \
    C(rx_frag_drop_state)   /* a fragment out of any session */                         \
    C(rx_frag_drop_inactive) /* the Inactivity Timer: aborted */                        \
    C(rx_ack_drop)          /* ACKs the sender refused */

struct wren_schc_stats {
    WREN_SCHC_COUNTERS(WREN_COUNTER_U32)
};

/** The default rule set's text (see the file comment). */
extern const char wren_schc_default_rules[];

struct wren_schc {
    struct wren_module module; /**< first */
    struct wren_node *node;
    struct wren_netreg_entry reg;
    struct wren_timer timer;   /**< retransmission and inactivity */
    uint8_t if_id;
    char err[96];              /**< the last SET's mistake */
    struct wren_schc_frag_profile up, down;
    struct wren_schc_rules rules;
    struct wren_schc_stats stats;
    struct wren_schc_frag_tx tx;
    struct wren_schc_frag_rx rx;
};

extern const struct wren_module_ops wren_schc_module;

/** @brief Start @p schc on interface @p if_id with the default rules.
 *  @return 0 or -errno. */
int wren_schc_init(struct wren_node *node, struct wren_schc *schc, uint8_t if_id);

#endif

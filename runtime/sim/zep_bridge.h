/**
 * @file zep_bridge.h
 * @brief A bridge between the simulated medium and live processes: a "live"
 *        radio on the medium whose frames travel as ZEP v2 over UDP.
 *
 * The bridge is a sim radio without a node: it sits at a position on the
 * medium like any radio (links from the range model or wren_sim_set_link by
 * its index), and
 * - every frame the simulated network delivers to it (a frame on the air
 *   near it that it received intact) goes out as one ZEP data packet (CRC
 *   mode, its channel) to the remote address: a wren-zep-hub or a
 *   wren-node's ZEP port. A datagram marks the END of its frame (RX-done,
 *   runtime/host/zep.h, as RIOT's socket_zep and Contiki-NG read it), so a
 *   frame goes out when it ends on the simulated air. When the bridge is
 *   late (wren_sim_run_realtime() got to it late), the datagrams still keep
 *   the distance their ends had in virtual time, so that turnarounds and
 *   interframe spaces hold on the wire; silence longer than LIFS shrinks to
 *   LIFS, so that the bridge catches up. Frames wait in a queue for their
 *   turn (WREN_SIM_ZEP_QUEUE; a full queue drops, counted);
 * - every ZEP data packet it receives on its channel with a good FCS is a
 *   frame that has just ended. The simulation cannot send in the past, so
 *   the bridge puts it on the air from its position at the datagram's
 *   arrival, for its airtime (queued while it is sending; a full queue
 *   drops, counted): simulated radios receive it one airtime after the
 *   live radios did. The other choice, running the simulation an airtime
 *   behind the wall clock so that the frame could be on the simulated air
 *   at its real time, would only move that delay to the frames the other
 *   way; this way the frames from the simulation, ACKs of live frames
 *   included, are exact;
 * - it acknowledges on the air for the live side, as the live radio's own
 *   hardware would: a simulated frame asking for an ACK whose destination
 *   (PAN and address) is one a live process sent from gets an Imm-Ack
 *   aTurnaroundTime after it ends. The live process's own ACK datagram
 *   leaves 192 + 352 us after the frame's (RX-done) plus a UDP trip, and
 *   would then take its airtime again on the simulated air: beyond
 *   macAckWaitDuration (864 us) of the simulated sender, so ACK frames
 *   from ZEP are not put on the air (counted). The addresses are learnt
 *   from the frames live processes send (WREN_SIM_ZEP_LIVE of them, oldest
 *   replaced); one that has sent nothing yet is not acknowledged. A live
 *   frame's ACK from a simulated node ends 544 us after the frame ends on
 *   the simulated air, so its datagram reaches the live side an airtime
 *   plus 544 us after the live frame's: within wren-node's ACK wait (its
 *   WREN_NETOPT_LINK_DELAY), not within a bare 864 us.
 *
 * Live processes run on wall-clock time, so a simulation with a bridge must
 * be run with wren_sim_run_realtime(), which keeps virtual time at wall-clock
 * pace and polls the socket. Nothing of this touches a simulation without a
 * bridge: wren_sim_run() never reads the clock or a socket (a bridged sim
 * run that way simply hears nothing from outside).
 *
 *     int idx = wren_sim_zep_bridge(s, 0, 0, 0, 17760, "127.0.0.1", 17754);
 *     wren_sim_run_realtime(s, 10 * 1000000);   // 10 s of wall-clock time
 *
 * Linux only (UDP sockets, poll).
 */
#ifndef WREN_SIM_ZEP_BRIDGE_H
#define WREN_SIM_ZEP_BRIDGE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/counters.h"
#include "sim/medium.h"

#define WREN_SIM_ZEP_QUEUE 16 /**< frames from outside waiting for the air */
#define WREN_SIM_ZEP_LIVE 4   /**< live sources the bridge acknowledges for */

#define WREN_SIM_ZEP_COUNTERS(C)                                          \
    C(to_zep)        /* frames from the medium sent as ZEP */              \
    C(to_zep_errors) /* sendto() failed */                                 \
    C(to_zep_drops)  /* the queue to ZEP was full */                       \
    C(to_zep_paced)  /* frames held back to keep the distance of their ends */ \
    C(from_zep)      /* frames from ZEP put on the air */                  \
    C(rx_malformed)  /* not ZEP v2 data, or too short */                   \
    C(rx_other)      /* acknowledgements, other channels */                \
    C(rx_bad_fcs)                                                          \
    C(queue_drops)   /* queue full */                                      \
    C(tx_busy)       /* CCA failures: the frame is lost */                 \
    C(acks_for_live) /* ACKs the bridge sent on the air for a live node */ \
    C(ack_busy)      /* an ACK for a live node not sent: radio busy */     \
    C(from_zep_acks) /* ACK frames from ZEP, not put on the air */

struct wren_sim_zep_stats {
    WREN_SIM_ZEP_COUNTERS(WREN_COUNTER_U64)
};

struct wren_sim_zep {
    struct wren_sim_radio radio; /**< on the medium */
    int fd;
    uint8_t remote[128];         /**< struct sockaddr_storage */
    uint32_t remote_len;
    uint32_t seq;
    uint16_t device_id;
    uint8_t q_len[WREN_SIM_ZEP_QUEUE];
    uint8_t q[WREN_SIM_ZEP_QUEUE][WREN_PHY_MAX_PSDU];
    unsigned q_head, q_count;
    /* frames on their way out to ZEP, with their end on the air (virtual us) */
    uint8_t out_len[WREN_SIM_ZEP_QUEUE];
    uint8_t out[WREN_SIM_ZEP_QUEUE][WREN_PHY_MAX_PSDU];
    uint64_t out_end[WREN_SIM_ZEP_QUEUE];
    unsigned out_head, out_count;
    uint64_t last_end;    /**< virtual end of the last frame sent out */
    uint64_t last_wall;   /**< wall-clock time (CLOCK_MONOTONIC us) it went */
    bool sent_any;
    bool out_held;        /**< the next frame waited for its turn */
    /* live sources (PAN, address mode, address) the bridge ACKs for */
    struct {
        uint16_t pan;
        uint8_t mode; /**< IEEE802154_ADDR_SHORT or _EXT; 0: free */
        uint8_t addr[8];
    } live[WREN_SIM_ZEP_LIVE];
    unsigned live_next;   /**< the slot the next new source takes */
    struct wren_sim_zep_stats stats;
};

/**
 * @brief Put a bridge radio on @p m at (x, y, z), bound to UDP @p local_port,
 *        sending to @p remote_host : @p remote_port, ZEP device id @p dev_id.
 *        It takes the next radio index.
 * @return the radio index, or -errno (-EADDRINUSE: port taken).
 */
int wren_sim_zep_open(struct wren_sim_zep *z, struct wren_medium *m, double x, double y,
                      double z_, uint16_t local_port, const char *remote_host,
                      uint16_t remote_port, uint16_t dev_id);

/** @brief Read every datagram waiting on the socket and put the frames on
 *         the air at the current virtual time. @return frames taken. */
int wren_sim_zep_poll(struct wren_sim_zep *z);

/**
 * @brief Send the frames whose turn has come (at @p wall_us, CLOCK_MONOTONIC
 *        microseconds).
 * @return 0 when nothing waits, else the wall-clock time the next one may go.
 */
uint64_t wren_sim_zep_flush(struct wren_sim_zep *z, uint64_t wall_us);

/** @brief Close the socket (the radio stays on the medium, silent). */
void wren_sim_zep_close(struct wren_sim_zep *z);

#endif

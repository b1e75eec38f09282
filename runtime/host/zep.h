/**
 * @file zep.h
 * @brief An 802.15.4 radio netdev that carries frames in ZEP v2 over UDP
 *        (src/wire/zep.h), so several host processes share one channel
 *        and Wireshark dissects the traffic. Host runtime only (Linux).
 *
 * Like a transceiver, the device appends the FCS on TX and checks and
 * strips it on RX; it sends in CRC mode (the LQI/CRC byte 1), on its
 * channel, with its device id (the node id) and a per-device sequence
 * number, to one remote address: a dispatcher (wren-zep-hub, which forwards
 * each packet to every other process it has heard from) or a peer. It
 * receives on a bound local port and drops, with a counter each, packets
 * that do not parse, ZEP acknowledgements, other channels and bad FCSs.
 *
 * It behaves at wall-clock pace as a 250 kbit/s O-QPSK radio
 * (802.15.4-2015, 2.4 GHz), so the MAC above it runs unslotted CSMA-CA,
 * acknowledgements, retries and the interframe space exactly as on the
 * simulator's radio (the MAC does those; the device supplies the timing).
 *
 * A datagram marks the END of its frame (RX-done), as in RIOT's socket_zep
 * and Contiki-NG's ZEP radio: the sender emits it when the frame's airtime
 * has passed, and the receiver takes it as a completely received frame at
 * its arrival, as a transceiver's RX-done interrupt. A frame whose datagram
 * arrived at t was on the air during [t - airtime, t]:
 *
 *     send(frame)   [CCA 8 symbols, if asked] -> turnaround 12 symbols ->
 *                   on the air (6 + PSDU) * 32 us -> the datagram goes out
 *                   -> TX_COMPLETE (or TX_MEDIUM_BUSY after a busy CCA)
 *     send(ACK)     on the air aTurnaroundTime (192 us) after the arrival
 *                   of the frame it answers (the radio's RX-done), for 352
 *                   us -> the datagram goes out -> TX_COMPLETE
 *     received      handed to the stack at its arrival (the kernel's
 *                   receive timestamp)
 *
 * So a peer's ACK datagram comes 192 + 352 = 544 us after our frame's, and
 * ours within that of the peer's frame, inside macAckWaitDuration (864 us
 * from the end of the frame). The CCA is busy when a frame heard was on the
 * air during it. A frame still on the air is known only at its end, but
 * ours is known to nobody before its datagram leaves either: a frame that
 * arrives while we turn around or send and was on the air during our CCA
 * makes that CCA busy after all (the frame is not sent, TX_MEDIUM_BUSY,
 * and the frame heard is received), as a radio's CCA would have found it.
 * Half-duplex: any other frame whose time on the air overlaps our
 * turnaround or transmission is lost (rx_while_tx: both began within a CCA
 * of each other, a real collision), except an ACK arriving after our frame
 * ended: it answers our frame. A
 * frame that overlaps the one heard before it (two peers that did not hear
 * each other, or a peer that sends like a wire, such as lwIP's zepif) would
 * collide on a real channel; a datagram is a whole frame, so it is received
 * all the same and counted (rx_overlap).
 *
 * Over UDP a frame reaches the other radios later than on the air (the hub
 * and the processes' scheduling): the device reports that allowance as
 * WREN_NETOPT_LINK_DELAY (CONFIG_WREN_ZEP_LINK_DELAY_US), which the MAC adds
 * to macAckWaitDuration.
 *
 * Channel: 11..26, or 0 (sent by lwIP's zepif and some tools); frames on
 * other channels are dropped (rx_other_channel) unless any_channel is set.
 *
 * At open it sends the remote one ZEP acknowledgement packet (8 bytes) so
 * that a dispatcher learns the new member before it has anything to say.
 *
 *     static struct wren_zep zep;
 *     char why[160];
 *     if (wren_zep_open(&zep, &host, 17755, "127.0.0.1", 17754, id, why, sizeof(why)) < 0)
 *         errx(1, "%s", why);
 *     // an interface of the node (src/stack/stack.h):
 *     // { .link = &wren_link_ieee802154, .dev = &zep.netdev } in its description
 */
#ifndef WREN_DRIVERS_ZEP_H
#define WREN_DRIVERS_ZEP_H

#include "core/counters.h"
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "core/timer.h"
#include "host/rt_host.h"
#include "net/netdev.h"
#include "wire/zep.h"

/** Frames heard and not yet handed to the stack (each up to 127 bytes). */
#ifndef CONFIG_WREN_ZEP_RX_QUEUE
#define CONFIG_WREN_ZEP_RX_QUEUE 8
#endif
/** How much later than on the air a frame may reach the other radios over
 *  UDP, us: the MAC waits this much longer for an ACK. */
#ifndef CONFIG_WREN_ZEP_LINK_DELAY_US
#define CONFIG_WREN_ZEP_LINK_DELAY_US 20000u
#endif

/* 802.15.4-2015 O-QPSK 2.4 GHz (12.3.3, 8.1.3): 62.5 ksymbol/s, 2 symbols per octet */
#define WREN_ZEP_SYMBOL_US 16u
#define WREN_ZEP_OCTET_US 32u
#define WREN_ZEP_SHR_PHR_OCTETS 6u                      /**< preamble, SFD, PHR */
#define WREN_ZEP_CCA_US (8u * WREN_ZEP_SYMBOL_US)        /**< CCA detection time */
#define WREN_ZEP_TURNAROUND_US (12u * WREN_ZEP_SYMBOL_US) /**< aTurnaroundTime */

/** @brief Time on the air of a PSDU of @p psdu_len octets (FCS included), us. */
static inline uint32_t wren_zep_airtime_us(unsigned psdu_len)
{
    return (WREN_ZEP_SHR_PHR_OCTETS + psdu_len) * WREN_ZEP_OCTET_US;
}

/**
 * What a radio has heard on its channel, for its CCA and its half-duplex
 * bookkeeping: the last busy spells as [start, end] intervals (us), frames
 * whose times on the air overlapped making one spell. Pure: times come from
 * the caller.
 */
#define WREN_ZEP_AIR_HIST 4
struct wren_zep_air {
    uint64_t start[WREN_ZEP_AIR_HIST], end[WREN_ZEP_AIR_HIST];
    unsigned next;
    uint64_t until; /**< end of the last frame heard */
};

/**
 * @brief The datagram of a frame of @p psdu_len octets (FCS included)
 *        arrived at @p arrival: the frame ended then, and was on the air
 *        from its airtime before. *@p overlap is set when it began before
 *        the frame heard before it had ended (on a real channel, they
 *        would have collided).
 * @return the time the frame began.
 */
uint64_t wren_zep_air_heard(struct wren_zep_air *air, uint64_t arrival, unsigned psdu_len,
                            bool *overlap);

/** @brief Whether anything heard was on the air at any time in [@p from, @p to]. */
bool wren_zep_air_busy(const struct wren_zep_air *air, uint64_t from, uint64_t to);

#define WREN_ZEP_COUNTERS(C)                                                           \
    C(rx_packets)          /* datagrams read */                                        \
    C(rx_frames)           /* frames handed to the stack */                            \
    C(rx_malformed)        /* not a ZEP v2 packet, or a PSDU too short for an FCS */   \
    C(rx_acks)             /* ZEP acknowledgements (ignored) */                        \
    C(rx_other_channel)                                                                \
    C(rx_bad_fcs)                                                                      \
    C(rx_overrun)          /* reading paused: the queue of frames heard was full */    \
    C(rx_overlap)          /* on the air with the frame before it: received all the same */ \
    C(rx_while_tx)         /* on the air while we turned around or sent: lost */       \
    C(cca_busy)            /* CCAs that found the channel busy */                      \
    C(tx_frames)           /* frames sent (ACKs included) */                           \
    C(tx_acks)             /* of which acknowledgements */                             \
    C(tx_errors)           /* sendto() failed: the frame is lost */

struct wren_zep_stats {
    WREN_ZEP_COUNTERS(WREN_COUNTER_U32)
};

enum wren_zep_tx_phase {
    WREN_ZEP_TX_IDLE = 0,
    WREN_ZEP_TX_CCA,
    WREN_ZEP_TX_SENDING, /**< turning around, then on the air until the datagram leaves */
};

/** A frame heard, ended at @p end (its datagram's arrival). */
struct wren_zep_rx {
    uint64_t end;
    uint8_t len; /**< PSDU without the FCS */
    uint8_t lqi;
    uint8_t psdu[ZEP_MAX_PSDU];
};

struct wren_zep {
    struct wren_netdev netdev; /**< first */
    struct wren_host_fd hfd;
    struct wren_host *host;
    struct sockaddr_storage remote; /**< where frames go */
    socklen_t remote_len;
    uint16_t channel;  /**< 11..26, or 0 */
    bool any_channel;  /**< take frames of every channel */
    uint16_t device_id;
    uint8_t short_addr[2]; /**< network order */
    uint8_t long_addr[8];  /**< EUI-64, network order */
    uint32_t seq;
    /* the channel as this radio hears it */
    struct wren_zep_air air;
    /* transmitter */
    uint8_t tx_phase;          /**< enum wren_zep_tx_phase */
    bool cca;                  /**< WREN_NETOPT_CCA_BEFORE_TX */
    bool tx_ack;               /**< the frame in the transmitter is an ACK */
    bool ack_done;             /**< an ACK ended: TX_COMPLETE to report */
    uint8_t tx_result;         /**< a frame's outcome to report (0: none) */
    uint64_t cca_start, cca_end; /**< the CCA of the frame in the transmitter (0, 0: none) */
    uint64_t tx_from, tx_until; /**< the last transmission, turnaround included */
    uint64_t tx_on_air;        /**< when the frame in the transmitter goes on the air */
    struct wren_timer tx_timer;
    uint8_t tx_len;            /**< PSDU with FCS */
    uint8_t tx_buf[ZEP_V2_HDR_LEN + ZEP_MAX_PSDU];
    /* receiver: frames heard, in order, each handed over at its arrival */
    struct wren_zep_rx rxq[CONFIG_WREN_ZEP_RX_QUEUE];
    unsigned rx_head, rx_count;
    uint32_t rx_taken;         /**< frames the stack has taken */
    uint64_t rx_last_end;      /**< end of the frame the stack took last: an ACK answers it */
    struct wren_zep_stats stats;
};

/**
 * @brief Open a ZEP radio: bind UDP @p local_port, send to @p remote_host :
 *        @p remote_port. Node @p id gives the device id, the short address
 *        (id) and the EUI-64 (02:00:00:00 and id, 32 bits), as in the sim.
 * @param[out] why  on failure, one line naming the cause
 * @return 0 or -errno (-EADDRINUSE: the port is taken; -EINVAL: bad remote).
 */
int wren_zep_open(struct wren_zep *zep, struct wren_host *host, uint16_t local_port,
                  const char *remote_host, uint16_t remote_port, uint16_t id, char *why,
                  size_t why_len);

/** @brief Stop watching and close the socket. */
void wren_zep_close(struct wren_zep *zep);

#endif

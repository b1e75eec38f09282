/**
 * @file medium.h
 * @brief The simulated 802.15.4 radio channel and the sim radio driver.
 *
 * PHY model (O-QPSK, 2.4 GHz): 250 kbit/s, 32 us per octet, 6 octets of
 * SHR+PHR before a PSDU of at most 127 octets. Radios are half-duplex.
 * Every directed link carries a packet reception ratio (PRR); a link with
 * PRR 0 still carries energy (it interferes and makes CCA busy) but never
 * delivers. A receiver locks onto a frame only if it is listening and hears
 * nothing else when the frame starts; any overlap with another audible
 * transmission destroys the frame (no capture effect, unless set below), so
 * hidden terminals arise from the topology alone. Capture: with
 * wren_medium_set_capture(p), a frame being received survives an
 * overlapping transmission with probability p (drawn from the world's PRNG
 * at the overlap; the later frame is lost), as real receivers often keep
 * the frame they locked onto; 0 (the default) draws nothing. A delivered frame survives the link with
 * probability PRR, drawn from the world's PRNG at the end of the frame.
 *
 * TX timing: an optional per-frame processing delay (below), then an
 * optional CCA (8 symbols, busy if anything audible was on the air during
 * it), then the RX-to-TX turnaround (12 symbols), then the frame. Only
 * radios on the transmitter's channel are affected.
 *
 * Processing delay: real platforms spend time moving a frame over the bus
 * to the radio before it can go out (the TCP paper measured 8.2 ms per full
 * frame instead of 4.1 ms on air). A radio with proc_delay_us > 0 spends
 * proc_delay_us * PSDU / 127 (PSDU with FCS; a full frame costs exactly
 * proc_delay_us) after each send() of a frame before its CCA or turnaround.
 * It applies per send(), so per attempt: every CSMA attempt and every
 * retransmission uploads the frame again, as the MAC hands the radio the
 * frame again each time. During the delay the radio keeps listening (the
 * time counts as listen or rx: it is on) and refuses other frames (-EBUSY),
 * but acknowledgement frames are the hardware's own: they take no delay and
 * may go out during another frame's upload, without a TX event (the MAC is
 * waiting for its frame's outcome, not the ACK's); the uploaded frame then
 * starts when the ACK has ended. Default 0: no delay.
 *
 * Receive-side upload: a radio with rx_proc_delay_us > 0 hands a frame it
 * received to its node only after rx_proc_delay_us * PSDU / 127 (the MCU
 * reading the frame out of the radio over the bus). Meanwhile the frame
 * stays in the radio's buffer, which takes no other frame (they count as
 * rx_overrun: the AT86RF2xx's RX safe mode), and the radio acknowledges the
 * frame itself at its end if it asks for an ACK and is addressed to the
 * radio's short or long address and PAN (the hardware's auto-ACK, as the
 * AT86RF2xx's RX_AACK mode does): the MAC's own ACK for it, which comes
 * after the upload, is then not sent again. The bus is one: a frame's
 * upload for sending waits for a reception's to end and the other way
 * round. Default 0: frames are handed over when they end, as before.
 *
 * Time: the medium runs on the world's true time; a radio with a clock (its
 * node's drifting crystal, runtime/sim/world.h) reports times to its node in
 * that local time: GET WREN_NETOPT_RX_TIMESTAMP is the local time at which
 * the last delivered frame's first symbol (SHR) began, GET
 * WREN_NETOPT_TX_DELAY the time from send() (CCA off) to the first symbol:
 * the turnaround plus the processing delay of a full frame (a shorter frame
 * goes out earlier by its smaller upload, see below).
 *
 * Listening and channels: a radio receives only frames whose first symbol
 * it heard on its channel while on; switched on, or retuned, during a frame
 * it hears the frame's energy (CCA busy, collisions) but does not lock onto
 * it. Switching off or retuning during a reception abandons it
 * (rx_aborted). Radio-state time (off, listen, rx, tx) is true time.
 *
 * The sim radio is a netdev like any hardware radio: the stack above it
 * cannot tell the difference.
 */
#ifndef WREN_SIM_MEDIUM_H
#define WREN_SIM_MEDIUM_H

#include "core/counters.h"
#include <stdbool.h>
#include <stdint.h>

#include "core/timer.h"
#include "net/netdev.h"
#include "net/netopt.h"
#include "sim/pathloss.h"
#include "sim/grid.h"
#include "sim/pcap.h"
#include "sim/world.h"

#define WREN_PHY_OCTET_US 32u
#define WREN_PHY_SYMBOL_US 16u
#define WREN_PHY_SHR_PHR_OCTETS 6u
#define WREN_PHY_MAX_PSDU 127u
#define WREN_PHY_CCA_US (8u * WREN_PHY_SYMBOL_US)
#define WREN_PHY_TURNAROUND_US (12u * WREN_PHY_SYMBOL_US)

/** @brief Time on air of a PSDU of @p psdu_len octets (with SHR and PHR), us. */
static inline uint32_t wren_phy_airtime_us(unsigned psdu_len)
{
    return (WREN_PHY_SHR_PHR_OCTETS + psdu_len) * WREN_PHY_OCTET_US;
}

struct wren_sim_link {
    uint32_t to;     /**< index of the receiving radio */
    uint16_t prr;    /**< reception ratio, 0..65535 for 0..1 (path-loss links:
                          of a 127-octet PSDU) */
    int16_t rssi;    /**< dBm at the receiver */
    float ln_prr_octet; /**< path-loss links: ln of the PRR per PSDU octet
                             (<= 0), the PRR of a frame of L octets being
                             exp(L * this); WREN_SIM_LINK_FIXED: prr for all */
};

/** ln_prr_octet of a link whose PRR does not depend on the frame's length */
#define WREN_SIM_LINK_FIXED 1.0f

#define WREN_SIM_RADIO_COUNTERS(C)                                               \
    C(tx_frames)          /* frames put on the air */                            \
    C(tx_bytes)           /* PSDU octets put on the air */                       \
    C(rx_frames)          /* frames delivered to the driver */                   \
    C(rx_collisions)      /* frames destroyed by an overlapping transmission */  \
    C(rx_link_loss)       /* frames lost to the link's PRR draw */               \
    C(rx_while_tx)        /* frames missed because the radio was sending */      \
    C(rx_while_off)       /* frames missed because the radio was off */          \
    C(rx_overrun)         /* frames lost because the last was not read yet */    \
    C(cca_busy)           /* CCAs that found the channel busy */                 \
    C(rx_bad_fcs)         /* injected frames whose FCS did not check */          \
    C(proc_us)            /* time spent in the per-frame processing delay */     \
    C(ack_during_proc)    /* ACKs sent while a frame was being uploaded */  \
    C(rx_aborted)         /* receptions abandoned: radio switched off or retuned */

struct wren_sim_radio_stats {
    WREN_SIM_RADIO_COUNTERS(WREN_COUNTER_U64)
};

/** What GET WREN_NETOPT_DEV_STATS answers: the counters and the time in
 *  each radio state (us), the radio's counter set "radio". */
#define WREN_SIM_RADIO_DEV_COUNTERS(C) \
    WREN_SIM_RADIO_COUNTERS(C)         \
    C(time_off_us)                     \
    C(time_listen_us)                  \
    C(time_rx_us)                      \
    C(time_tx_us)
struct wren_sim_radio_dev_stats {
    WREN_SIM_RADIO_DEV_COUNTERS(WREN_COUNTER_U64)
};

enum wren_sim_tx_phase {
    SIM_TX_IDLE = 0,
    SIM_TX_CCA,
    SIM_TX_TURNAROUND,
    SIM_TX_ON_AIR,
};

/** The processing delay before a frame, beside tx_phase (an ACK may be on
 *  the air meanwhile). */
enum wren_sim_proc_phase {
    SIM_PROC_IDLE = 0,
    SIM_PROC_BUSY,   /**< the frame is being uploaded */
    SIM_PROC_WAIT,   /**< uploaded; waits for the radio's ACK to end */
};

struct wren_medium;

struct wren_sim_radio {
    struct wren_netdev netdev;           /**< first: the radio is a netdev */
    struct wren_medium *medium;
    const struct wren_world_clock *clock; /**< its node's clock; NULL: true time */
    uint32_t index;
    double x, y, z;
    uint16_t channel;
    uint16_t pan;
    uint8_t short_addr[2];
    uint8_t long_addr[8];
    int16_t tx_power;
    bool cca_before_tx;
    bool tx_cca;                         /**< CCA for the frame in tx_buf */
    bool air_ack;                        /**< ack_buf, not tx_buf, is on the air */
    bool ack_silent;                     /**< no TX event for that ACK */
    uint8_t proc_phase;                  /**< enum wren_sim_proc_phase */
    uint8_t state;                       /**< enum wren_netopt_state */
    uint8_t tx_phase;                    /**< enum wren_sim_tx_phase */
    uint8_t tx_len;                      /**< PSDU length, FCS included */
    uint8_t rx_len;
    bool rx_ready;                       /**< a frame waits for recv() */
    bool rx_corrupt;                     /**< the locked frame was hit */
    uint8_t pending;                     /**< events for isr() */
    uint8_t tx_result;                   /**< event to report for the last TX */
    int16_t rx_rssi;
    uint8_t rx_lqi;
    uint16_t audible;                    /**< transmissions heard right now */
    struct wren_sim_radio *rx_from;      /**< transmitter locked onto */
    uint64_t cca_start;
    uint64_t rx_start;                   /**< true time the locked frame began */
    uint64_t rx_stamp;                   /**< true time the last delivered one began */
    uint64_t quiet_since;                /**< when audible last fell to 0 */
    uint64_t state_since;
    uint64_t time_in[4];                 /**< per enum wren_netopt_state, us */
    uint32_t proc_delay_us;              /**< per full 127-octet frame; 0: none */
    uint32_t rx_proc_delay_us;           /**< receive side, per full frame; 0: none */
    uint64_t bus_until;                  /**< the bus (uploads) is busy until then */
    bool rx_uploading;                   /**< rx_buf is being read out */
    bool auto_acked;                     /**< the radio ACKed auto_ack_seq itself */
    uint8_t auto_ack_seq;
    struct wren_timer tx_timer;
    struct wren_timer rx_timer;
    struct wren_timer proc_timer;
    struct wren_sim_link *links;         /**< radios that hear this one */
    uint32_t n_links;
    uint32_t cap_links;
    struct wren_sim_radio_stats stats;
    uint8_t tx_buf[WREN_PHY_MAX_PSDU];
    uint8_t rx_buf[WREN_PHY_MAX_PSDU];
    uint8_t ack_buf[5];                  /**< Imm-Ack, sent without delay */
};

struct wren_medium {
    struct wren_world *world;
    struct wren_sim_radio **radios;
    uint32_t n_radios;
    uint32_t cap_radios;
    double range;           /**< distance model: links within range (0: explicit only) */
    uint16_t range_prr;     /**< PRR of distance-model links */
    uint32_t proc_delay_us; /**< processing delay of radios added later */
    uint32_t rx_proc_delay_us; /**< receive-side upload of radios added later */
    double capture;            /**< P(a locked frame survives an overlap) */
    bool pathloss_on;       /**< links of radios added later from the path-loss model */
    struct wren_pathloss pathloss;
    uint64_t pathloss_seed; /**< the shadowing draws */
    struct wren_pcap pcap;
    struct wren_sim_grid grid; /**< where the radios are (runtime/sim/grid.h) */
    double max_reach;       /**< the longest reach a model has linked over */
    bool links_far;         /**< links the grid may not cover (set_link, a
                                 model's reach shrank): scan every radio */
};

/** @brief Start an empty medium in @p world. */
void wren_medium_init(struct wren_medium *m, struct wren_world *w);
/** @brief Free link tables, close the capture. Radios belong to the caller. */
void wren_medium_destroy(struct wren_medium *m);

/** @brief Use the distance model: every pair within @p range metres gets
 *         links with reception ratio @p prr (applies to radios added later).
 *         A new radio finds those pairs through the medium's grid
 *         (runtime/sim/grid.h), not by measuring every other radio. */
void wren_medium_set_range(struct wren_medium *m, double range, double prr);

/**
 * @brief Use the path-loss model (runtime/sim/pathloss.h) for radios added
 *        later, instead of the range model: every pair whose SNR is at
 *        least WREN_PATHLOSS_MIN_SNR_DB gets links both ways with that RSSI,
 *        delivering each frame with the PRR of its length at that SNR (an
 *        ACK gets through more often than a long frame); the shadowing is
 *        drawn from @p seed and the pair. @p p NULL: off again.
 * @return 0 or -EINVAL (wren_pathloss_valid).
 */
int wren_medium_set_pathloss(struct wren_medium *m, const struct wren_pathloss *p,
                             uint64_t seed);

/** @brief Reception ratio of a PSDU of @p psdu_len octets over link @p l. */
double wren_sim_link_prr(const struct wren_sim_link *l, unsigned psdu_len);

/** @brief The directed link @p from -> @p to, or NULL. */
const struct wren_sim_link *wren_medium_link(const struct wren_medium *m, uint32_t from,
                                             uint32_t to);

/** @brief Per-frame processing delay (see above) of radios added later:
 *         @p us per 127-octet PSDU, proportionally less for shorter frames;
 *         0 turns it off. A radio's own is its proc_delay_us field. */
void wren_medium_set_proc_delay(struct wren_medium *m, uint32_t us);

/** @brief Receive-side upload (see above) of radios added later: @p us per
 *         127-octet PSDU, pro rata below; 0 turns it off. A radio's own is
 *         its rx_proc_delay_us field. */
void wren_medium_set_rx_proc_delay(struct wren_medium *m, uint32_t us);

/** @brief The capture probability (see above), clamped to 0..1. */
void wren_medium_set_capture(struct wren_medium *m, double p);

/**
 * @brief Put @p r on the medium at (x, y, z), with addresses derived from
 *        its index: short address = index, EUI-64 02:00:00:00:<index BE>.
 * @return the radio's index, or -ENOMEM.
 */
int wren_medium_add_radio(struct wren_medium *m, struct wren_sim_radio *r, double x,
                          double y, double z);

/** @brief Set (or add) the directed link @p from -> @p to. prr 0 = interferes only.
 *  @return 0, -EINVAL for unknown radios, -ENOMEM. */
int wren_medium_set_link(struct wren_medium *m, uint32_t from, uint32_t to, double prr);

/** @brief Remove the directed link @p from -> @p to, if any. */
void wren_medium_remove_link(struct wren_medium *m, uint32_t from, uint32_t to);

/** @brief Write every frame put on the air to @p path, as @p linktype
 *         (WREN_PCAP_LINKTYPE_IEEE802154_FCS, or ..._TAP with each frame's
 *         channel), stamped with the true time its first symbol began.
 *  @return 0 or -errno (-EINVAL: another link type). */
int wren_medium_open_pcap(struct wren_medium *m, const char *path, uint32_t linktype);

/**
 * @brief Hand radio @p index a frame as if it had just been received
 *        (@p psdu includes the FCS). For adversarial tests: the radio checks
 *        the FCS like hardware does and the stack sees whatever is left.
 * @return 0, -EINVAL, -EMSGSIZE, -EBUSY if a frame is still unread.
 */
int wren_medium_inject(struct wren_medium *m, uint32_t index, const uint8_t *psdu, size_t len);

/** @brief Bring radio-state time accounting up to now (before reading it). */
void wren_sim_radio_sync_time(struct wren_sim_radio *r);

#endif

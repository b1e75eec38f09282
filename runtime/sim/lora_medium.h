/**
 * @file lora_medium.h
 * @brief The simulated LoRa channel and the sim LoRa radio (a netdev), the
 *        third technology beside the 802.15.4 medium (medium.h) and
 *        Ethernet.
 *
 * Frames: the LoRa modem's explicit-header frames, time on air by the
 * Semtech formula (src/drivers/lora_phy.h) for the transmitter's spreading
 * factor, bandwidth, coding rate and preamble; payloads up to the region's
 * limit for the setting (255 at most; EU868's per data rate). A radio starts
 * sending at once (no CCA: LoRaWAN devices send ALOHA-style) and is half
 * duplex: while sending it hears nothing, and starting to send abandons a
 * reception.
 *
 * Power: every frame arrives at each other radio with
 *     P_rx = P_tx - PL(d),  PL(d) = PL(d0) + 10 gamma log10(d / d0) + X_sigma
 * (log-distance with optional log-normal shadowing per pair, drawn from the
 * seed: runtime/sim/pathloss.h). The default parameters are Bor et al.'s
 * fit of their LoRa measurements ("Do LoRa low-power wide-area networks
 * scale?", MSWiM 2016, section 3; the same values drive their simulator
 * LoRaSim): d0 = 40 m, PL(d0) = 127.41 dB, gamma = 2.08, no shadowing
 * (LoRaSim's default; set sigma to use it). With 14 dBm that reaches
 * 115 m at SF7/125 kHz and 489 m at SF12: a built-up area. Open country
 * goes further: set a smaller gamma or PL(d0).
 *
 * Reception (as Bor et al. model it, section 4 and LoRaSim):
 * - A receiver hears only frames on its own frequency, spreading factor and
 *   bandwidth; frames of another spreading factor or bandwidth neither reach
 *   it nor disturb it (spreading factors taken as perfectly orthogonal, as
 *   Bor et al. and LoRaSim take them; Croce et al.'s finite inter-SF
 *   rejection is not modelled), frames on other frequencies neither
 *   (channels 200 kHz apart, a 125 kHz signal each).
 * - It locks onto a frame at least as strong as its sensitivity (SX1276
 *   datasheet Table 10, lora_phy.h) whose sync word is its own.
 * - Same-SF frames that overlap at a receiver collide unless one is at
 *   least capture_db (6 dB, Bor et al.'s capture threshold) stronger than
 *   the other: then the stronger survives (power capture) and the weaker is
 *   lost, whichever came first — a stronger later frame takes the receiver
 *   over; within 6 dB both are lost.
 * - A frame already on the air when another starts spoils only the part
 *   after the later frame's first (preamble - 5) symbols: a receiver needs
 *   the last 5 preamble symbols to lock (Bor et al.'s timing rule, LoRaSim's
 *   "critical section"). So a receiver that comes free (its reception or
 *   its own frame ended, it was switched on) while a frame's preamble still
 *   has 5 symbols to go locks onto that frame.
 * - No bit errors above the sensitivity: a frame that locks and is not hit
 *   is delivered whole (LoRa's sensitivity is where its PER is small).
 *
 * Duty cycle (ETSI EN 300 220-2; lora_phy.h): with a limit set, each frame
 * closes its sub-band for airtime * (1/limit - 1) after it ends; a send()
 * while its sub-band is closed is refused with -EAGAIN and counted
 * (dc_drop): the frame is dropped, not delayed. SET
 * WREN_NETOPT_LORA_DUTY_CYCLE 0 turns the limit off (a lab run).
 *
 * Capture: with a pcap opened (wren_lora_medium_open_pcap), every frame put
 * on the air is written when its first symbol leaves, as LINKTYPE_LORATAP
 * (270): a LoRaTap v0 header (frequency, bandwidth, SF, sync word; the RSSI
 * fields 255, "not available", as the capture is the sender's) and the
 * payload.
 */
#ifndef WREN_SIM_LORA_MEDIUM_H
#define WREN_SIM_LORA_MEDIUM_H

#include <stdbool.h>
#include <stdint.h>

#include "core/counters.h"
#include "core/timer.h"
#include "drivers/lora_modem.h"
#include "drivers/lora_phy.h"
#include "net/netdev.h"
#include "net/netopt.h"
#include "sim/pathloss.h"
#include "sim/pcap.h"
#include "sim/world.h"

/** Bor et al.'s capture threshold, dB (MSWiM 2016, section 4). */
#define WREN_LORA_CAPTURE_DB 6.0
/** Preamble symbols a receiver needs to lock (Bor et al.; LoRaSim's Npream - 5). */
#define WREN_LORA_LOCK_SYMBOLS 5u

#define WREN_LORA_RADIO_COUNTERS(C)                                                        \
    C(tx_frames)          /* frames put on the air */                                      \
    C(tx_bytes)           /* payload bytes put on the air */                               \
    C(tx_airtime_us)      /* time on air of those frames */                                \
    C(dc_drop)            /* frames refused: their sub-band closed by the duty cycle */    \
    C(tx_too_long)        /* frames refused: longer than the setting and region allow */   \
    C(rx_frames)          /* frames delivered to the driver */                             \
    C(rx_collisions)      /* locked frames lost to a same-SF overlap */                    \
    C(rx_captured)        /* frames delivered although overlapped (6 dB capture) */        \
    C(rx_busy)            /* audible frames missed: locked onto another */                 \
    C(rx_below_sens)      /* same-SF frames below the sensitivity */                       \
    C(rx_other_sf)        /* audible frames of another SF or bandwidth (ignored) */        \
    C(rx_other_sync)      /* audible frames with another sync word */                      \
    C(rx_while_tx)        /* audible frames missed while sending */                        \
    C(rx_while_off)       /* audible frames missed while off */                            \
    C(rx_overrun)         /* frames lost: the last one not read yet */                     \
    C(rx_aborted)         /* receptions abandoned: sending, off, retuned */

struct wren_lora_radio_stats {
    WREN_LORA_RADIO_COUNTERS(WREN_COUNTER_U64)
};

/** GET WREN_NETOPT_DEV_STATS: the counters and the time per radio state. */
#define WREN_LORA_RADIO_DEV_COUNTERS(C) \
    WREN_LORA_RADIO_COUNTERS(C)         \
    C(time_off_us)                      \
    C(time_listen_us)                   \
    C(time_rx_us)                       \
    C(time_tx_us)
struct wren_lora_radio_dev_stats {
    WREN_LORA_RADIO_DEV_COUNTERS(WREN_COUNTER_U64)
};

struct wren_lora_medium;

struct wren_lora_radio {
    struct wren_netdev netdev;           /**< first: the radio is a netdev */
    struct wren_lora_medium *medium;
    const struct wren_world_clock *clock; /**< its node's clock; NULL: true time */
    uint32_t index;
    double x, y, z;
    struct wren_lora_modem modem;        /**< settings, duty-cycle bookkeeping */
    uint8_t state;                       /**< enum wren_netopt_state */
    uint8_t pending;                     /**< events for isr() */
    bool on_air;
    bool rx_ready;                       /**< a frame waits for recv() */
    bool rx_corrupt;                     /**< the locked frame was hit */
    bool rx_overlapped;                  /**< ... and survived an overlap so far */
    uint8_t tx_len;
    uint8_t rx_len;
    int16_t rx_rssi;                     /**< dBm of the last delivered frame */
    int8_t rx_snr_qdb;                   /**< its SNR, quarter dB */
    struct wren_lora_radio *rx_from;     /**< transmitter locked onto */
    double rx_dbm;                       /**< its power here */
    uint64_t rx_start;                   /**< true time the locked frame began */
    uint64_t rx_stamp;                   /**< true time the last delivered one began */
    uint64_t tx_begin;                   /**< true time the frame on the air began */
    uint64_t tx_end;                     /**< ... and ends */
    uint64_t state_since;
    uint64_t time_in[4];                 /**< per enum wren_netopt_state, us */
    struct wren_timer tx_timer;
    struct wren_lora_radio_stats stats;
    uint8_t tx_buf[WREN_LORA_MAX_PAYLOAD];
    uint8_t rx_buf[WREN_LORA_MAX_PAYLOAD];
};

struct wren_lora_medium {
    struct wren_world *world;
    struct wren_lora_radio **radios;
    uint32_t n_radios;
    uint32_t cap_radios;
    struct wren_pathloss pl;  /**< PL at 1 m and exponent (from d0, PL(d0), gamma);
                                   tx_power_dbm 0: each radio adds its own */
    uint64_t seed;            /**< the shadowing draws */
    double capture_db;
    struct wren_pcap pcap;
};

/** @brief Start an empty LoRa medium in @p w, Bor et al.'s path loss, no
 *         shadowing, 6 dB capture. */
void wren_lora_medium_init(struct wren_lora_medium *m, struct wren_world *w, uint64_t seed);
/** @brief Free the radio list, close the capture. Radios belong to the caller. */
void wren_lora_medium_destroy(struct wren_lora_medium *m);

/**
 * @brief Path loss PL(d) = @p pl_d0_db + 10 @p gamma log10(d / @p d0_m),
 *        plus log-normal shadowing of @p sigma_db per pair (0: none).
 *        Applies to frames from now on.
 * @return 0 or -EINVAL (d0 not positive, gamma not positive, sigma negative,
 *         a value not finite).
 */
int wren_lora_medium_set_pathloss(struct wren_lora_medium *m, double d0_m, double pl_d0_db,
                                  double gamma, double sigma_db);

/** @brief The capture threshold, dB (>= 0; a huge one turns capture off). */
void wren_lora_medium_set_capture(struct wren_lora_medium *m, double db);

/**
 * @brief Put @p r on the medium at (x, y, z), with the modem's defaults
 *        (src/drivers/lora_modem.h); off until its init().
 * @return its index, or -ENOMEM.
 */
int wren_lora_medium_add_radio(struct wren_lora_medium *m, struct wren_lora_radio *r, double x,
                               double y, double z);

/** @brief Power (dBm) at radio @p to of a frame radio @p from sends now
 *         (NaN for unknown radios). */
double wren_lora_medium_rx_dbm(const struct wren_lora_medium *m, uint32_t from, uint32_t to);

/** @brief Write every frame put on the air to @p path as LINKTYPE_LORATAP.
 *  @return 0 or -errno. */
int wren_lora_medium_open_pcap(struct wren_lora_medium *m, const char *path);

/** @brief Bring radio-state time accounting up to now. */
void wren_lora_radio_sync_time(struct wren_lora_radio *r);

#endif

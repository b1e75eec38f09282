/**
 * @file pathloss.h
 * @brief A distance model for lossy links: log-distance path loss with
 *        log-normal shadowing, and the packet reception ratio of the
 *        2.4 GHz O-QPSK PHY at the resulting signal-to-noise ratio.
 *
 * Received power over distance d (metres), for the pair of radios a, b:
 *
 *     RSSI(d) = P_tx - PL(d0) - 10 n log10(d / d0) - X_ab      [dBm]
 *
 * with d0 = 1 m (d below it counts as d0), n the path-loss exponent and
 * X_ab ~ N(0, sigma^2) the shadowing of that pair: drawn once from the
 * simulation's seed and the pair (the same both ways, and the same whatever
 * else the simulation draws). SNR = RSSI - noise floor.
 *
 * Bit error rate of the O-QPSK DSSS PHY at a linear SNR s (IEEE 802.15.4,
 * the 2450 MHz O-QPSK BER of the annex on coexistence, E.4.1.8 in -2006):
 *
 *     BER(s) = 8/15 * 1/16 * sum_{k=2..16} (-1)^k C(16,k) exp(20 s (1/k - 1))
 *
 * and a PSDU of L octets survives with PRR = (1 - BER)^(8 L): long frames
 * need a few dB more than ACKs. The waterfall lies between SNR -3 dB (an ACK
 * gets through half the time) and +2 dB (a 127-octet frame 99.9 % of the
 * time; 85 % at 0 dB, 31 % at -1 dB).
 *
 * The defaults (WREN_PATHLOSS_DEFAULTS) are a 0 dBm transmitter, 40 dB loss
 * at 1 m (free space at 2.45 GHz: 20 log10(4 pi / lambda) = 40.2 dB),
 * exponent 3 (indoor and cluttered outdoor sites measure 2.5 to 4), sigma
 * 4 dB and a noise floor of -100 dBm (thermal noise in 2 MHz, -111 dBm, plus
 * an 11 dB receiver noise figure). Without shadowing a 127-octet frame then
 * gets through 99.9 % of the time up to 86 m, 31 % at 108 m, ACKs half the
 * time at 126 m, and radios beyond 158 m do not hear each other.
 */
#ifndef WREN_SIM_PATHLOSS_H
#define WREN_SIM_PATHLOSS_H

#include <stdbool.h>
#include <stdint.h>

struct wren_pathloss {
    double exponent;      /**< n, > 0 */
    double ref_loss_db;   /**< PL(d0) at d0 = 1 m, dB */
    double sigma_db;      /**< shadowing standard deviation, dB (0: none) */
    double tx_power_dbm;  /**< every radio's transmit power */
    double noise_dbm;     /**< noise floor */
};

#define WREN_PATHLOSS_DEFAULTS \
    { .exponent = 3.0, .ref_loss_db = 40.0, .sigma_db = 4.0, .tx_power_dbm = 0.0, \
      .noise_dbm = -100.0 }

/** Below this SNR no frame gets through (an ACK's PRR is under 1 %): two
 *  radios further apart neither hear nor disturb each other. */
#define WREN_PATHLOSS_MIN_SNR_DB (-6.0)

/** @brief Whether @p p is usable (exponent > 0, sigma >= 0, all finite). */
bool wren_pathloss_valid(const struct wren_pathloss *p);

/** @brief Bit error rate of the 2.4 GHz O-QPSK PHY at @p snr_db. */
double wren_pathloss_ber(double snr_db);

/** @brief Reception ratio of a PSDU of @p psdu_len octets at @p snr_db. */
double wren_pathloss_prr(double snr_db, unsigned psdu_len);

/**
 * @brief RSSI (dBm) at distance @p d metres of the pair of radios @p a,
 *        @p b (order does not matter), with the pair's shadowing drawn from
 *        @p seed.
 */
double wren_pathloss_rssi(const struct wren_pathloss *p, double d, uint64_t seed, uint32_t a,
                          uint32_t b);

#endif

/**
 * @file link_est.h
 * @brief Link estimator: the expected transmission count (ETX) of each
 *        neighbour, from the outcomes of the unicast frames sent to it (the
 *        MAC reports how many attempts each took, or that none was ACKed).
 *
 * One estimator per 802.15.4 interface with a software MAC; routing
 * protocols read it with GET WREN_NETOPT_LINK_ETX on the interface (RPL's
 * objective functions; 6P could too). ETX is in units of 1/128 (128 = one
 * attempt per frame), smoothed as ETX = (7 ETX + sample) / 8: a frame ACKed
 * after n attempts is a sample of n, a frame never ACKed one of
 * WREN_LINK_ETX_NOACK; a new neighbour starts at WREN_LINK_ETX_INIT (ETX 2).
 * A good link needs five frames in a row lost to pass ETX 4: collisions on a
 * lossy mesh do not make it look dead, a parent that is gone does within
 * seconds of traffic. The table keeps CONFIG_WREN_LINK_EST_NEIGHBORS
 * neighbours; a new one replaces the least recently updated.
 */
#ifndef WREN_LINK_LINK_EST_H
#define WREN_LINK_LINK_EST_H

#include <stdbool.h>
#include <stdint.h>

#ifndef CONFIG_WREN_LINK_EST_NEIGHBORS
#define CONFIG_WREN_LINK_EST_NEIGHBORS 8 /**< neighbours with an estimate */
#endif
_Static_assert(CONFIG_WREN_LINK_EST_NEIGHBORS >= 1 && CONFIG_WREN_LINK_EST_NEIGHBORS <= 255,
               "1..255 neighbours");

#define WREN_LINK_ETX_ONE 128          /**< ETX 1.0 */
#define WREN_LINK_ETX_NOACK (8 * 128)  /**< the sample of a frame nobody ACKed */
#define WREN_LINK_ETX_INIT (2 * 128)   /**< a new neighbour's estimate before its first sample */

struct wren_link_est_entry {
    uint8_t addr[8];
    uint8_t len;      /**< 0: free */
    uint8_t samples;  /**< frames counted, saturating at 255 */
    uint16_t etx;     /**< x 128 */
    uint16_t used;    /**< the estimator's clock at the last update */
};

struct wren_link_est {
    struct wren_link_est_entry e[CONFIG_WREN_LINK_EST_NEIGHBORS];
    uint16_t clock;
};

/** Value of GET WREN_NETOPT_LINK_ETX: in: addr and len; out: all fields. */
struct wren_link_etx {
    uint8_t addr[8];  /**< network order, len bytes (2 or 8) */
    uint8_t len;
    uint8_t samples;
    uint8_t etx[2];   /**< x 128, host order (bytes: any alignment) */
};

/** @brief A unicast frame to @p addr took @p attempts (acked) or failed. */
void wren_link_est_tx(struct wren_link_est *est, const uint8_t *addr, uint8_t len,
                      uint8_t attempts, bool acked);

/** @brief The estimate of @p q->addr into @p q. @return 0 or -ENOENT. */
int wren_link_est_get(const struct wren_link_est *est, struct wren_link_etx *q);

#endif

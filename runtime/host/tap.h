/**
 * @file tap.h
 * @brief A netdev over a Linux TAP interface (/dev/net/tun, IFF_TAP |
 *        IFF_NO_PI): whole Ethernet frames without FCS, to and from the
 *        kernel's side of the interface. Host runtime only (Linux).
 *
 * The device reports WREN_NETDEV_TYPE_ETHERNET and its MAC address as
 * WREN_NETOPT_ADDRESS (6 bytes); the Ethernet link layer frames above it.
 * A received frame waits in the device's buffer until the stack reads it;
 * meanwhile the descriptor is not polled, so the kernel queues the next
 * ones. Sends are written at once and complete through the ISR path.
 *
 * Fault injection (off by default; for tests, as this kernel has no netem):
 * each frame read from the TAP and each frame sent to it is, independently,
 * dropped with probability `loss`, else held back with probability
 * `reorder` and delivered right after the next frame in the same direction
 * (reordered), or alone after `hold_ms` if no next frame comes. One frame
 * per direction can be held; a frame arriving while one is held passes
 * first and takes the held one with it. Draws come from two PRNGs of the
 * device's own (one per direction) seeded from `seed`: the same seed and
 * the same frames in the same order give the same faults. Set with
 * wren_tap_set_faults() or SET WREN_NETOPT_FAULTS; counters through GET
 * WREN_NETOPT_FAULT_STATS (the shell's ifconfig shows them). Held-frame
 * timeouts need the host's node (wren_host_set_node) to be set.
 *
 *     static struct wren_tap tap;
 *     char why[160];
 *     if (wren_tap_open(&tap, &host, "tap0", mac, why, sizeof(why)) < 0) {
 *         fprintf(stderr, "%s\n", why);   // e.g. "... run as root or give CAP_NET_ADMIN"
 *         exit(1);
 *     }
 *     // an interface of the node (src/stack/stack.h):
 *     // { .link = &wren_link_ethernet, .dev = &tap.netdev } in its description
 */
#ifndef WREN_DRIVERS_TAP_H
#define WREN_DRIVERS_TAP_H

#include "core/counters.h"
#include <stdbool.h>
#include <stdint.h>

#include "core/timer.h"
#include "host/rt_host.h"
#include "net/netdev.h"
#include "net/netopt.h"

/** Largest frame: a 1500-byte payload and the 14-byte header (no VLAN tags). */
#define WREN_TAP_FRAME_MAX 1514

#define WREN_TAP_COUNTERS(C)                                      \
    C(rx_frames)    /* frames read (before fault injection) */    \
    C(rx_errors)    /* read() failed */                           \
    C(tx_frames)    /* frames written (after fault injection) */  \
    C(tx_errors)    /* write() failed or was short: the frame is lost */

struct wren_tap_stats {
    WREN_TAP_COUNTERS(WREN_COUNTER_U32)
};

/** GET WREN_NETOPT_DEV_STATS: the device's counters and its fault
 *  injector's (struct wren_netopt_fault_stats), the counter set "tap". */
#define WREN_TAP_DEV_COUNTERS(C) WREN_TAP_COUNTERS(C) WREN_NETOPT_FAULT_COUNTERS(C)
struct wren_tap_dev_stats {
    WREN_TAP_DEV_COUNTERS(WREN_COUNTER_U32)
};

/** One direction of the fault injector. */
struct wren_tap_fault_dir {
    uint64_t prng;
    bool held;      /**< a frame waits in buf */
    bool release;   /**< rx: deliver it once the current frame is taken */
    uint16_t len;
    struct wren_timer timer; /**< hold_ms after the frame was held */
    uint8_t buf[WREN_TAP_FRAME_MAX];
};

struct wren_tap {
    struct wren_netdev netdev; /**< first */
    struct wren_host_fd hfd;
    struct wren_host *host;
    char name[16]; /**< the interface's name (IFNAMSIZ) */
    uint8_t mac[6];
    bool rx_pending; /**< a frame waits in rx_buf */
    bool tx_done;    /**< a frame went out: report TX_COMPLETE */
    uint16_t rx_len;
    struct wren_tap_stats stats;
    struct wren_netopt_faults faults;
    struct wren_netopt_fault_stats fault_stats;
    struct wren_tap_fault_dir frx, ftx; /**< from and to the TAP */
    uint8_t rx_buf[WREN_TAP_FRAME_MAX];
};

/**
 * @brief Attach to (or create) TAP interface @p name and watch it in @p host.
 * @param[in]  mac   the MAC address wren uses on it (not the kernel's)
 * @param[out] why   on failure, one line naming the cause and the fix
 * @return 0, or -errno: -EPERM ("run as root or give CAP_NET_ADMIN"),
 *         -ENOENT (/dev/net/tun missing), -EBUSY ("interface X is in use
 *         by another process"), -EINVAL (exists but is not a TAP), ...
 */
int wren_tap_open(struct wren_tap *tap, struct wren_host *host, const char *name,
                  const uint8_t *mac, char *why, size_t why_len);

/**
 * @brief Use an open descriptor @p fd instead of a TAP device (for tests:
 *        anything that keeps frame boundaries, e.g. a SOCK_SEQPACKET
 *        socketpair); the device owns and closes it.
 * @return 0, or -ENOSPC when the host watches too many descriptors.
 */
int wren_tap_attach(struct wren_tap *tap, struct wren_host *host, int fd, const char *name,
                    const uint8_t *mac);

/**
 * @brief Set the fault injector (see above; all zero: off).
 * @return 0, or -EINVAL for a probability above 10000 (100 %).
 */
int wren_tap_set_faults(struct wren_tap *tap, const struct wren_netopt_faults *f);

/** @brief Stop watching and close the interface. */
void wren_tap_close(struct wren_tap *tap);

#endif

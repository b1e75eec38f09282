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
 *     static struct wren_tap tap;
 *     char why[160];
 *     if (wren_tap_open(&tap, &host, "tap0", mac, why, sizeof(why)) < 0) {
 *         fprintf(stderr, "%s\n", why);   // e.g. "... run as root or give CAP_NET_ADMIN"
 *         exit(1);
 *     }
 *     wren_ethernet_netif_add(node, &eth, &tap.netdev);
 */
#ifndef WREN_DRIVERS_TAP_H
#define WREN_DRIVERS_TAP_H

#include <stdbool.h>
#include <stdint.h>

#include "host/rt_host.h"
#include "net/netdev.h"

/** Largest frame: a 1500-byte payload and the 14-byte header (no VLAN tags). */
#define WREN_TAP_FRAME_MAX 1514

struct wren_tap_stats {
    uint32_t rx_frames;
    uint32_t rx_errors; /**< read() failed */
    uint32_t tx_frames;
    uint32_t tx_errors; /**< write() failed or was short: the frame is lost */
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

/** @brief Stop watching and close the interface. */
void wren_tap_close(struct wren_tap *tap);

#endif

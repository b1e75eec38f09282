/* TAP netdev (Linux only: /dev/net/tun). */
#if defined(__linux__)
#define _GNU_SOURCE

#include "drivers/tap.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "net/netopt.h"

static struct wren_tap *tap_of(struct wren_netdev *dev)
{
    return (struct wren_tap *)dev;
}

static int tap_init(struct wren_netdev *dev)
{
    return tap_of(dev)->hfd.fd >= 0 ? 0 : -ENODEV;
}

static int tap_send(struct wren_netdev *dev, const struct wren_iolist *iol)
{
    struct wren_tap *tap = tap_of(dev);
    struct iovec iov[CONFIG_WREN_NETIF_MAX_SNIPS + 2];
    int n = 0;
    size_t len = 0;
    for (; iol; iol = iol->next) {
        if (n == (int)(sizeof(iov) / sizeof(iov[0]))) {
            return -EMSGSIZE;
        }
        iov[n].iov_base = (void *)(uintptr_t)iol->base;
        iov[n++].iov_len = iol->len;
        len += iol->len;
    }
    if (len > WREN_TAP_FRAME_MAX) {
        return -EMSGSIZE;
    }
    /* a wire, not a queue: a frame the kernel does not take is lost */
    ssize_t w = writev(tap->hfd.fd, iov, n);
    if (w != (ssize_t)len) {
        tap->stats.tx_errors++;
    } else {
        tap->stats.tx_frames++;
    }
    tap->tx_done = true;
    dev->event_cb(dev, WREN_NETDEV_EV_ISR);
    return (int)len;
}

static void rx_resume(struct wren_tap *tap)
{
    tap->rx_pending = false;
    tap->hfd.events = POLLIN;
}

static int tap_recv(struct wren_netdev *dev, void *buf, size_t len,
                    struct wren_netdev_rx_info *info)
{
    struct wren_tap *tap = tap_of(dev);
    if (!tap->rx_pending) {
        return 0;
    }
    bool taken;
    int res = wren_netdev_recv_held(tap->rx_buf, tap->rx_len, 0, 255,
                                    buf, len, info, &taken);
    if (taken) {
        rx_resume(tap);
    }
    return res;
}

static void tap_isr(struct wren_netdev *dev)
{
    struct wren_tap *tap = tap_of(dev);
    if (tap->rx_pending) {
        dev->event_cb(dev, WREN_NETDEV_EV_RX_COMPLETE);
        if (tap->rx_pending) {
            rx_resume(tap); /* the stack did not take it */
        }
    }
    if (tap->tx_done) {
        tap->tx_done = false;
        dev->event_cb(dev, WREN_NETDEV_EV_TX_COMPLETE);
    }
}

static int tap_get(struct wren_netdev *dev, uint16_t opt, void *val, size_t max)
{
    struct wren_tap *tap = tap_of(dev);
    uint16_t v16;
    uint8_t b;
    switch (opt) {
    case WREN_NETOPT_DEVICE_TYPE:
        v16 = WREN_NETDEV_TYPE_ETHERNET;
        return wren_netopt_put(val, max, &v16, 2);
    case WREN_NETOPT_ADDRESS:
        return wren_netopt_put(val, max, tap->mac, 6);
    case WREN_NETOPT_ADDR_LEN:
        v16 = 6;
        return wren_netopt_put(val, max, &v16, 2);
    case WREN_NETOPT_MAX_PDU_SIZE:
        /* the device carries whole frames; the link layer takes its header off */
        v16 = WREN_TAP_FRAME_MAX;
        return wren_netopt_put(val, max, &v16, 2);
    case WREN_NETOPT_IS_WIRED:
        b = 1;
        return wren_netopt_put(val, max, &b, 1);
    default:
        return -ENOTSUP;
    }
}

static int tap_set(struct wren_netdev *dev, uint16_t opt, const void *val, size_t len)
{
    struct wren_tap *tap = tap_of(dev);
    if (opt == WREN_NETOPT_ADDRESS) {
        if (len != 6) {
            return -EINVAL;
        }
        memcpy(tap->mac, val, 6);
        return 0;
    }
    return -ENOTSUP;
}

static const struct wren_netdev_driver tap_driver = {
    .init = tap_init,
    .send = tap_send,
    .recv = tap_recv,
    .isr = tap_isr,
    .get = tap_get,
    .set = tap_set,
};

/* The descriptor is readable: take one frame and tell the stack. */
static void tap_readable(struct wren_host_fd *hfd, short revents)
{
    struct wren_tap *tap = hfd->arg;
    (void)revents;
    if (tap->rx_pending) {
        hfd->events = 0;
        return;
    }
    ssize_t n = read(hfd->fd, tap->rx_buf, sizeof(tap->rx_buf));
    if (n <= 0) {
        if (n < 0 && errno != EAGAIN && errno != EINTR) {
            tap->stats.rx_errors++;
        }
        return;
    }
    tap->stats.rx_frames++;
    tap->rx_len = (uint16_t)n;
    tap->rx_pending = true;
    hfd->events = 0; /* until the stack has read this one */
    tap->netdev.event_cb(&tap->netdev, WREN_NETDEV_EV_ISR);
}

/* One line: what went wrong and how to fix it. */
static int fail(char *why, size_t why_len, int err, const char *name)
{
    switch (err) {
    case EPERM:
    case EACCES:
        snprintf(why, why_len,
                 "cannot attach to TAP interface %s: permission denied (run as root or give "
                 "CAP_NET_ADMIN, e.g. setcap cap_net_admin+ep wren-node)",
                 name);
        break;
    case ENOENT:
    case ENXIO:
    case ENODEV:
        snprintf(why, why_len,
                 "cannot attach to TAP interface %s: /dev/net/tun is missing (modprobe tun; or "
                 "mkdir -p /dev/net && mknod /dev/net/tun c 10 200)",
                 name);
        break;
    case EBUSY:
        snprintf(why, why_len,
                 "interface %s is in use by another process (stop it, or pick "
                 "another name)",
                 name);
        break;
    case EINVAL:
        snprintf(why, why_len,
                 "interface %s exists and is not a TAP interface (pick another "
                 "name)",
                 name);
        break;
    default:
        snprintf(why, why_len, "cannot attach to TAP interface %s: %s", name, strerror(err));
        break;
    }
    return -err;
}

int wren_tap_open(struct wren_tap *tap, struct wren_host *host, const char *name,
                  const uint8_t *mac, char *why, size_t why_len)
{
    memset(tap, 0, sizeof(*tap));
    tap->hfd.fd = -1;
    tap->netdev.driver = &tap_driver;
    tap->host = host;
    if (strlen(name) >= IFNAMSIZ || strlen(name) == 0) {
        snprintf(why, why_len, "bad interface name '%s' (1 to %d characters)", name, IFNAMSIZ - 1);
        return -EINVAL;
    }
    snprintf(tap->name, sizeof(tap->name), "%s", name);
    memcpy(tap->mac, mac, 6);
    int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        return fail(why, why_len, errno, name);
    }
    struct ifreq ifr;
    memset(&ifr, 0, sizeof(ifr));
    ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
    memcpy(ifr.ifr_name, name, strlen(name));
    if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
        int e = errno;
        close(fd);
        return fail(why, why_len, e, name);
    }
    tap->hfd = (struct wren_host_fd){.fd = fd, .events = POLLIN, .cb = tap_readable, .arg = tap};
    int res = wren_host_fd_add(host, &tap->hfd);
    if (res < 0) {
        close(fd);
        tap->hfd.fd = -1;
        snprintf(why, why_len, "too many interfaces (CONFIG_WREN_HOST_FDS)");
        return res;
    }
    return 0;
}

void wren_tap_close(struct wren_tap *tap)
{
    if (tap->hfd.fd >= 0) {
        wren_host_fd_remove(tap->host, &tap->hfd);
        close(tap->hfd.fd);
        tap->hfd.fd = -1;
    }
}

#endif /* __linux__ */

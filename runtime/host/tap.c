/* TAP netdev (Linux only: /dev/net/tun). */
#define _GNU_SOURCE

#include "host/tap.h"

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

#define HOLD_DEFAULT_MS 5u

static struct wren_tap *tap_of(struct wren_netdev *dev)
{
    return (struct wren_tap *)dev;
}

/* ---- fault injection ------------------------------------------------------ */

/* splitmix64, reduced to 0..9999 (1/100 %) */
static uint32_t fault_draw(struct wren_tap_fault_dir *d)
{
    uint64_t z = (d->prng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (uint32_t)((z >> 32) % 10000u);
}

enum fate { FATE_PASS, FATE_DROP, FATE_HOLD };

static enum fate fault_fate(struct wren_tap *tap, struct wren_tap_fault_dir *d)
{
    const struct wren_netopt_faults *f = &tap->faults;
    if (f->loss && fault_draw(d) < f->loss) {
        return FATE_DROP;
    }
    /* one frame held per direction; holding needs the node's timers */
    if (f->reorder && !d->held && tap->host->node && fault_draw(d) < f->reorder) {
        return FATE_HOLD;
    }
    return FATE_PASS;
}

static void hold(struct wren_tap *tap, struct wren_tap_fault_dir *d)
{
    unsigned ms = tap->faults.hold_ms ? tap->faults.hold_ms : HOLD_DEFAULT_MS;
    d->held = true;
    wren_timer_set(tap->host->node, &d->timer, (uint64_t)ms * 1000u);
}

static void tx_write(struct wren_tap *tap, const struct iovec *iov, int n, size_t len)
{
    /* a wire, not a queue: a frame the kernel does not take is lost */
    ssize_t w = writev(tap->hfd.fd, iov, n);
    if (w != (ssize_t)len) {
        tap->stats.tx_errors++;
    } else {
        tap->stats.tx_frames++;
    }
}

static void tx_write_held(struct wren_tap *tap)
{
    struct iovec iov = { .iov_base = tap->ftx.buf, .iov_len = tap->ftx.len };
    tap->ftx.held = false;
    tx_write(tap, &iov, 1, tap->ftx.len);
}

static void tx_hold_expired(struct wren_timer *t, void *arg)
{
    (void)t;
    struct wren_tap *tap = arg;
    if (tap->ftx.held) {
        tap->fault_stats.tx_held_timeout++;
        tx_write_held(tap);
    }
}

static void rx_hold_expired(struct wren_timer *t, void *arg)
{
    (void)t;
    struct wren_tap *tap = arg;
    if (!tap->frx.held || tap->frx.release) {
        return;
    }
    tap->fault_stats.rx_held_timeout++;
    tap->frx.release = true;
    tap->hfd.events = 0;
    if (!tap->rx_pending) {
        /* the ISR path hands it over (else rx_resume, after the current one) */
        tap->netdev.event_cb(&tap->netdev, WREN_NETDEV_EV_ISR);
    }
}

int wren_tap_set_faults(struct wren_tap *tap, const struct wren_netopt_faults *f)
{
    if (f->loss > 10000 || f->reorder > 10000) {
        return -EINVAL;
    }
    uint64_t seed = f->seed ? f->seed : tap->faults.seed;
    if (f->seed) {
        tap->frx.prng = f->seed ^ 0x7278u; /* "rx" */
        tap->ftx.prng = f->seed ^ 0x7478u; /* "tx" */
    }
    tap->faults = *f;
    tap->faults.seed = seed;
    tap->faults.reserved = 0;
    return 0;
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
    struct wren_tap_fault_dir *d = &tap->ftx;
    switch (fault_fate(tap, d)) {
    case FATE_DROP:
        tap->fault_stats.tx_dropped++;
        break;
    case FATE_HOLD: {
        size_t off = 0;
        for (int i = 0; i < n; i++) {
            if (iov[i].iov_len) {
                memcpy(d->buf + off, iov[i].iov_base, iov[i].iov_len);
            }
            off += iov[i].iov_len;
        }
        d->len = (uint16_t)len;
        hold(tap, d);
        break;
    }
    default:
        tx_write(tap, iov, n, len);
        if (d->held) {
            /* this one overtook the held frame, which follows it now */
            wren_timer_cancel(tap->host->node, &d->timer);
            tap->fault_stats.tx_reordered++;
            tx_write_held(tap);
        }
        break;
    }
    tap->tx_done = true;
    dev->event_cb(dev, WREN_NETDEV_EV_ISR);
    return (int)len;
}

static void rx_resume(struct wren_tap *tap)
{
    tap->rx_pending = false;
    if (tap->frx.release) {
        /* a held frame is due: the ISR path hands it over before we read on */
        tap->hfd.events = 0;
        tap->netdev.event_cb(&tap->netdev, WREN_NETDEV_EV_ISR);
    } else {
        tap->hfd.events = POLLIN;
    }
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
    if (!tap->rx_pending && tap->frx.release) {
        struct wren_tap_fault_dir *d = &tap->frx;
        memcpy(tap->rx_buf, d->buf, d->len);
        tap->rx_len = d->len;
        tap->rx_pending = true;
        d->held = d->release = false;
    }
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
    case WREN_NETOPT_DEV_STATS: {
        struct wren_tap_dev_stats d;
        memcpy(&d, &tap->stats, sizeof(tap->stats));
        memcpy((uint8_t *)&d + sizeof(tap->stats), &tap->fault_stats, sizeof(tap->fault_stats));
        return wren_netopt_put(val, max, &d, sizeof(d));
    }
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
    case WREN_NETOPT_FAULTS:
        return wren_netopt_put(val, max, &tap->faults, sizeof(tap->faults));
    case WREN_NETOPT_FAULT_STATS:
        return wren_netopt_put(val, max, &tap->fault_stats, sizeof(tap->fault_stats));
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
    if (opt == WREN_NETOPT_FAULTS) {
        struct wren_netopt_faults f;
        if (len != sizeof(f)) {
            return -EINVAL;
        }
        memcpy(&f, val, sizeof(f));
        return wren_tap_set_faults(tap, &f);
    }
    return -ENOTSUP;
}

static const struct wren_counter_set tap_counters =
    WREN_COUNTER_SET("tap", WREN_TAP_DEV_COUNTERS, WREN_NETOPT_DEV_STATS, uint32_t);

static const struct wren_netdev_driver tap_driver = {
    .counters = &tap_counters,
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
    if (tap->rx_pending || tap->frx.release) {
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
    struct wren_tap_fault_dir *d = &tap->frx;
    switch (fault_fate(tap, d)) {
    case FATE_DROP:
        tap->fault_stats.rx_dropped++;
        return; /* and read on */
    case FATE_HOLD:
        memcpy(d->buf, tap->rx_buf, (size_t)n);
        d->len = (uint16_t)n;
        hold(tap, d);
        return;
    default:
        break;
    }
    if (d->held) {
        /* this one overtakes the held frame, which follows it */
        wren_timer_cancel(tap->host->node, &d->timer);
        d->release = true;
        tap->fault_stats.rx_reordered++;
    }
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
    int res = wren_tap_attach(tap, host, fd, name, mac);
    if (res < 0) {
        snprintf(why, why_len, "too many interfaces (CONFIG_WREN_HOST_FDS)");
    }
    return res;
}

int wren_tap_attach(struct wren_tap *tap, struct wren_host *host, int fd, const char *name,
                    const uint8_t *mac)
{
    memset(tap, 0, sizeof(*tap));
    tap->netdev.driver = &tap_driver;
    tap->host = host;
    snprintf(tap->name, sizeof(tap->name), "%s", name);
    memcpy(tap->mac, mac, 6);
    wren_timer_init(&tap->frx.timer, rx_hold_expired, tap);
    wren_timer_init(&tap->ftx.timer, tx_hold_expired, tap);
    tap->hfd = (struct wren_host_fd){.fd = fd, .events = POLLIN, .cb = tap_readable, .arg = tap};
    int res = wren_host_fd_add(host, &tap->hfd);
    if (res < 0) {
        close(fd);
        tap->hfd.fd = -1;
    }
    return res;
}

void wren_tap_close(struct wren_tap *tap)
{
    if (tap->host && tap->host->node) {
        wren_timer_cancel(tap->host->node, &tap->frx.timer);
        wren_timer_cancel(tap->host->node, &tap->ftx.timer);
    }
    if (tap->hfd.fd >= 0) {
        wren_host_fd_remove(tap->host, &tap->hfd);
        close(tap->hfd.fd);
        tap->hfd.fd = -1;
    }
}

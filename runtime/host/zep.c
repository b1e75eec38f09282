/* ZEP radio netdev (Linux only: UDP sockets). */
#define _GNU_SOURCE

#include "host/zep.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/byteorder.h"
#include "net/netopt.h"
#include "wire/ieee802154.h"

/* seconds from 1900 (NTP) to 1970 (Unix) */
#define NTP_UNIX_OFFSET 2208988800u

static struct wren_zep *zep_of(struct wren_netdev *dev)
{
    return (struct wren_zep *)dev;
}

static int zep_init(struct wren_netdev *dev)
{
    return zep_of(dev)->hfd.fd >= 0 ? 0 : -ENODEV;
}

static int zep_xmit(struct wren_zep *zep, const uint8_t *buf, size_t len)
{
    ssize_t n =
        sendto(zep->hfd.fd, buf, len, 0, (const struct sockaddr *)&zep->remote, zep->remote_len);
    return n == (ssize_t)len ? 0 : -1;
}

static int zep_send(struct wren_netdev *dev, const struct wren_iolist *iol)
{
    struct wren_zep *zep = zep_of(dev);
    uint8_t buf[ZEP_V2_HDR_LEN + ZEP_MAX_PSDU];
    size_t len = wren_iolist_size(iol);
    if (len + IEEE802154_FCS_LEN > ZEP_MAX_PSDU) {
        return -EMSGSIZE;
    }
    uint8_t *psdu = buf + ZEP_V2_HDR_LEN;
    size_t off = 0;
    for (; iol; iol = iol->next) {
        if (iol->len) {
            memcpy(psdu + off, iol->base, iol->len);
        }
        off += iol->len;
    }
    /* the radio appends the FCS, as real transceivers do */
    put_le16(psdu + len, wren_ieee802154_fcs(psdu, len));
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct zep_hdr h = {
        .type = ZEP_TYPE_DATA,
        .channel = (uint8_t)zep->channel,
        .device_id = zep->device_id,
        .crc_mode = 1,
        .lqi = 255,
        .ts_sec = (uint32_t)((uint64_t)ts.tv_sec + NTP_UNIX_OFFSET),
        .ts_frac = (uint32_t)(((uint64_t)ts.tv_nsec << 32) / 1000000000u),
        .seq = zep->seq++,
        .len = (uint8_t)(len + IEEE802154_FCS_LEN),
    };
    wren_zep_emit(&h, buf, ZEP_V2_HDR_LEN);
    if (zep_xmit(zep, buf, ZEP_V2_HDR_LEN + h.len) < 0) {
        zep->stats.tx_errors++; /* lost, as on the air */
    } else {
        zep->stats.tx_frames++;
    }
    zep->tx_done = true;
    dev->event_cb(dev, WREN_NETDEV_EV_ISR);
    return (int)len;
}

static void rx_resume(struct wren_zep *zep)
{
    zep->rx_pending = false;
    zep->hfd.events = POLLIN;
}

static int zep_recv(struct wren_netdev *dev, void *buf, size_t len,
                    struct wren_netdev_rx_info *info)
{
    struct wren_zep *zep = zep_of(dev);
    if (!zep->rx_pending) {
        return 0;
    }
    bool taken;
    int res = wren_netdev_recv_held(zep->rx_buf, zep->rx_len, 0, zep->rx_lqi,
                                    buf, len, info, &taken);
    if (taken) {
        rx_resume(zep);
    }
    return res;
}

static void zep_isr(struct wren_netdev *dev)
{
    struct wren_zep *zep = zep_of(dev);
    if (zep->rx_pending) {
        dev->event_cb(dev, WREN_NETDEV_EV_RX_COMPLETE);
        if (zep->rx_pending) {
            rx_resume(zep);
        }
    }
    if (zep->tx_done) {
        zep->tx_done = false;
        dev->event_cb(dev, WREN_NETDEV_EV_TX_COMPLETE);
    }
}

static int zep_get(struct wren_netdev *dev, uint16_t opt, void *val, size_t max)
{
    struct wren_zep *zep = zep_of(dev);
    uint16_t v16;
    uint8_t b;
    switch (opt) {
    case WREN_NETOPT_DEV_STATS:
        return wren_netopt_put(val, max, &zep->stats, sizeof(zep->stats));
    case WREN_NETOPT_DEVICE_TYPE:
        v16 = WREN_NETDEV_TYPE_IEEE802154;
        return wren_netopt_put(val, max, &v16, 2);
    case WREN_NETOPT_CHANNEL:
        return wren_netopt_put(val, max, &zep->channel, 2);
    case WREN_NETOPT_ADDRESS:
        return wren_netopt_put(val, max, zep->short_addr, 2);
    case WREN_NETOPT_ADDRESS_LONG:
        return wren_netopt_put(val, max, zep->long_addr, 8);
    case WREN_NETOPT_MAX_PDU_SIZE:
        v16 = ZEP_MAX_PSDU - IEEE802154_FCS_LEN;
        return wren_netopt_put(val, max, &v16, 2);
    case WREN_NETOPT_IS_WIRED:
        /* UDP delivers or loses whole frames at once: no CSMA, no ACKs */
        b = 1;
        return wren_netopt_put(val, max, &b, 1);
    default:
        return -ENOTSUP;
    }
}

static int zep_set(struct wren_netdev *dev, uint16_t opt, const void *val, size_t len)
{
    struct wren_zep *zep = zep_of(dev);
    switch (opt) {
    case WREN_NETOPT_CHANNEL: {
        uint16_t ch;
        if (len != 2 || (memcpy(&ch, val, 2), ch < 11 || ch > 26)) {
            return -EINVAL;
        }
        zep->channel = ch;
        return 0;
    }
    case WREN_NETOPT_ADDRESS:
        if (len != 2) {
            return -EINVAL;
        }
        memcpy(zep->short_addr, val, 2);
        return 0;
    case WREN_NETOPT_ADDRESS_LONG:
        if (len != 8) {
            return -EINVAL;
        }
        memcpy(zep->long_addr, val, 8);
        return 0;
    default:
        return -ENOTSUP;
    }
}

static const struct wren_counter_set zep_counters =
    WREN_COUNTER_SET("zep", WREN_ZEP_COUNTERS, WREN_NETOPT_DEV_STATS, uint32_t);

static const struct wren_netdev_driver zep_driver = {
    .counters = &zep_counters,
    .init = zep_init,
    .send = zep_send,
    .recv = zep_recv,
    .isr = zep_isr,
    .get = zep_get,
    .set = zep_set,
};

/* One datagram: check it as a radio would, keep the frame for the stack. */
static void zep_readable(struct wren_host_fd *hfd, short revents)
{
    struct wren_zep *zep = hfd->arg;
    uint8_t buf[ZEP_V2_HDR_LEN + ZEP_MAX_PSDU + 16];
    (void)revents;
    if (zep->rx_pending) {
        zep->stats.rx_overrun++;
        hfd->events = 0;
        return;
    }
    ssize_t n = recv(hfd->fd, buf, sizeof(buf), 0);
    if (n < 0) {
        return;
    }
    zep->stats.rx_packets++;
    struct zep_frame f;
    if (wren_zep_parse(buf, (size_t)n, &f) < 0) {
        zep->stats.rx_malformed++;
        return;
    }
    if (f.hdr.type != ZEP_TYPE_DATA) {
        zep->stats.rx_acks++;
        return;
    }
    if (f.hdr.channel != zep->channel) {
        zep->stats.rx_other_channel++;
        return;
    }
    if (f.hdr.len < IEEE802154_FCS_LEN + 3) {
        zep->stats.rx_malformed++; /* not even a frame control field and a sequence */
        return;
    }
    /* CRC mode: the FCS is there to check; LQI mode: LQI and RSSI instead */
    if (f.hdr.crc_mode && wren_ieee802154_fcs_check(f.psdu, f.hdr.len) < 0) {
        zep->stats.rx_bad_fcs++;
        return;
    }
    zep->rx_len = (uint8_t)(f.hdr.len - IEEE802154_FCS_LEN);
    zep->rx_lqi = f.hdr.crc_mode ? f.hdr.lqi : f.psdu[f.hdr.len - 2];
    memcpy(zep->rx_buf, f.psdu, zep->rx_len);
    zep->stats.rx_frames++;
    zep->rx_pending = true;
    hfd->events = 0;
    zep->netdev.event_cb(&zep->netdev, WREN_NETDEV_EV_ISR);
}

int wren_zep_open(struct wren_zep *zep, struct wren_host *host, uint16_t local_port,
                  const char *remote_host, uint16_t remote_port, uint16_t id, char *why,
                  size_t why_len)
{
    memset(zep, 0, sizeof(*zep));
    zep->hfd.fd = -1;
    zep->netdev.driver = &zep_driver;
    zep->host = host;
    zep->channel = 26;
    zep->device_id = id;
    put_be16(zep->short_addr, id);
    zep->long_addr[0] = 0x02;
    put_be32(zep->long_addr + 4, id);
    struct addrinfo hints = {.ai_socktype = SOCK_DGRAM, .ai_flags = AI_NUMERICSERV};
    struct addrinfo *ai = NULL;
    char port[8];
    snprintf(port, sizeof(port), "%u", remote_port);
    int gai = getaddrinfo(remote_host, port, &hints, &ai);
    if (gai != 0 || ai == NULL || ai->ai_addrlen > sizeof(zep->remote)) {
        snprintf(why, why_len, "ZEP remote %s:%u: %s", remote_host, remote_port,
                 gai ? gai_strerror(gai) : "unusable address");
        if (ai) {
            freeaddrinfo(ai);
        }
        return -EINVAL;
    }
    memcpy(&zep->remote, ai->ai_addr, ai->ai_addrlen);
    zep->remote_len = ai->ai_addrlen;
    int family = ai->ai_family;
    freeaddrinfo(ai);
    int fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        int e = errno;
        snprintf(why, why_len, "ZEP: cannot make a UDP socket: %s", strerror(e));
        return -e;
    }
    int res;
    if (family == AF_INET6) {
        struct sockaddr_in6 a = {
            .sin6_family = AF_INET6, .sin6_port = htons(local_port), .sin6_addr = IN6ADDR_ANY_INIT};
        res = bind(fd, (struct sockaddr *)&a, sizeof(a));
    } else {
        struct sockaddr_in a = {.sin_family = AF_INET,
                                .sin_port = htons(local_port),
                                .sin_addr.s_addr = htonl(INADDR_ANY)};
        res = bind(fd, (struct sockaddr *)&a, sizeof(a));
    }
    if (res < 0) {
        int e = errno;
        close(fd);
        if (e == EADDRINUSE) {
            snprintf(why, why_len,
                     "ZEP: UDP port %u is in use by another process (pick "
                     "another local port)",
                     local_port);
        } else {
            snprintf(why, why_len, "ZEP: cannot bind UDP port %u: %s", local_port, strerror(e));
        }
        return -e;
    }
    zep->hfd = (struct wren_host_fd){.fd = fd, .events = POLLIN, .cb = zep_readable, .arg = zep};
    if ((res = wren_host_fd_add(host, &zep->hfd)) < 0) {
        close(fd);
        zep->hfd.fd = -1;
        snprintf(why, why_len, "too many interfaces (CONFIG_WREN_HOST_FDS)");
        return res;
    }
    /* introduce ourselves to a dispatcher */
    struct zep_hdr hello = {.type = ZEP_TYPE_ACK, .seq = 0};
    uint8_t b[ZEP_V2_ACK_LEN];
    wren_zep_emit(&hello, b, sizeof(b));
    zep_xmit(zep, b, sizeof(b));
    return 0;
}

void wren_zep_close(struct wren_zep *zep)
{
    if (zep->hfd.fd >= 0) {
        wren_host_fd_remove(zep->host, &zep->hfd);
        close(zep->hfd.fd);
        zep->hfd.fd = -1;
    }
}

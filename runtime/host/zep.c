/* ZEP radio netdev (Linux only: UDP sockets), paced as an 802.15.4 radio;
 * a datagram marks its frame's end (RX-done). */
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

/* ---- the air as one radio hears it (pure) ------------------------------- */

uint64_t wren_zep_air_heard(struct wren_zep_air *air, uint64_t arrival, unsigned psdu_len,
                            bool *overlap)
{
    /* RX-done: the datagram marks the frame's end */
    uint64_t a = wren_zep_airtime_us(psdu_len);
    uint64_t start = arrival > a ? arrival - a : 0;
    *overlap = air->next && air->until > start;
    if (*overlap) {
        /* on the air together with the spell before it: one busy spell */
        unsigned last = (air->next - 1) % WREN_ZEP_AIR_HIST;
        if (start < air->start[last]) {
            air->start[last] = start;
        }
        if (arrival > air->end[last]) {
            air->end[last] = arrival;
        }
        air->until = air->end[last];
        return start;
    }
    unsigned i = air->next++ % WREN_ZEP_AIR_HIST;
    air->start[i] = start;
    air->end[i] = arrival;
    air->until = arrival;
    return start;
}

bool wren_zep_air_busy(const struct wren_zep_air *air, uint64_t from, uint64_t to)
{
    unsigned n = air->next < WREN_ZEP_AIR_HIST ? air->next : WREN_ZEP_AIR_HIST;
    for (unsigned i = 0; i < n; i++) {
        if (air->start[i] <= to && air->end[i] >= from) {
            return true;
        }
    }
    return false;
}

/* ---- the device ----------------------------------------------------------- */

static struct wren_zep *zep_of(struct wren_netdev *dev)
{
    return (struct wren_zep *)dev;
}

static void raise_isr(struct wren_zep *zep)
{
    zep->netdev.event_cb(&zep->netdev, WREN_NETDEV_EV_ISR);
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

static void read_datagrams(struct wren_zep *zep);

/* Turn around (RX to TX) and go on the air at @p on_air, for the frame's
 * airtime; the radio is deaf from now until its datagram has left. */
static void turn_around(struct wren_zep *zep, uint64_t now, uint64_t on_air)
{
    zep->tx_phase = WREN_ZEP_TX_SENDING;
    zep->tx_from = now;
    zep->tx_on_air = on_air;
    zep->tx_until = on_air + wren_zep_airtime_us(zep->tx_len); /* until it has left */
    /* one wake-up, at the frame's end: nothing happens in between */
    wren_host_timer_at(zep->host, &zep->tx_timer, zep->tx_until);
}

/* The frame's last octet has left the antenna: its datagram goes out now
 * (RX-done: a datagram marks its frame's end), and TX_COMPLETE follows. */
static void frame_ends(struct wren_zep *zep)
{
    /* what arrived up to now counts: a frame that was on the air during
     * our CCA stops this one yet (take_datagram) */
    read_datagrams(zep);
    if (zep->tx_phase != WREN_ZEP_TX_SENDING) {
        return; /* it stopped ours */
    }
    /* the clock read before the datagram leaves: a receiver timestamps it
     * no sooner, so a peer's answer timed from there starts after our end */
    zep->tx_until = wren_host_now();
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
        .len = zep->tx_len,
    };
    wren_zep_emit(&h, zep->tx_buf, ZEP_V2_HDR_LEN);
    if (zep_xmit(zep, zep->tx_buf, ZEP_V2_HDR_LEN + h.len) < 0) {
        zep->stats.tx_errors++; /* lost, as on the air; the time has passed all the same */
    } else {
        zep->stats.tx_frames++;
        zep->stats.tx_acks += zep->tx_ack;
    }
    zep->tx_phase = WREN_ZEP_TX_IDLE;
    if (zep->tx_ack) {
        zep->ack_done = true;
    } else {
        zep->tx_result = WREN_NETDEV_EV_TX_COMPLETE;
    }
    raise_isr(zep);
}

static void tx_timer_cb(struct wren_timer *t, void *arg)
{
    (void)t;
    struct wren_zep *zep = arg;
    uint64_t now = wren_host_now();
    switch (zep->tx_phase) {
    case WREN_ZEP_TX_CCA:
        /* what arrived up to now counts: read it first */
        read_datagrams(zep);
        if (wren_zep_air_busy(&zep->air, zep->cca_start, now)) {
            zep->stats.cca_busy++;
            zep->tx_phase = WREN_ZEP_TX_IDLE;
            zep->tx_result = WREN_NETDEV_EV_TX_MEDIUM_BUSY;
            raise_isr(zep);
            return;
        }
        zep->cca_end = now;
        turn_around(zep, now, now + WREN_ZEP_TURNAROUND_US);
        return;
    case WREN_ZEP_TX_SENDING:
        frame_ends(zep);
        return;
    default:
        return;
    }
}

static int zep_send(struct wren_netdev *dev, const struct wren_iolist *iol)
{
    struct wren_zep *zep = zep_of(dev);
    size_t len = wren_iolist_size(iol);
    if (len + IEEE802154_FCS_LEN > ZEP_MAX_PSDU) {
        return -EMSGSIZE;
    }
    /* an Imm-Ack: the MAC sends it without CCA when a frame has ended */
    bool ack = len == 3 && iol->len && (((const uint8_t *)iol->base)[0] & 0x07) == IEEE802154_TYPE_ACK;
    uint64_t now = wren_host_now();
    if (ack && zep->tx_phase == WREN_ZEP_TX_CCA) {
        /* the frame to acknowledge ended during our CCA: the channel was
         * busy, and the ACK has precedence */
        wren_host_timer_cancel(zep->host, &zep->tx_timer);
        zep->stats.cca_busy++;
        zep->tx_phase = WREN_ZEP_TX_IDLE;
        zep->tx_result = WREN_NETDEV_EV_TX_MEDIUM_BUSY;
        raise_isr(zep);
    }
    if (zep->tx_phase != WREN_ZEP_TX_IDLE || (!ack && (zep->tx_result || zep->ack_done))) {
        return -EBUSY;
    }
    uint8_t *psdu = zep->tx_buf + ZEP_V2_HDR_LEN;
    size_t off = 0;
    for (; iol; iol = iol->next) {
        if (iol->len) {
            memcpy(psdu + off, iol->base, iol->len);
        }
        off += iol->len;
    }
    /* the radio appends the FCS, as real transceivers do */
    put_le16(psdu + len, wren_ieee802154_fcs(psdu, len));
    zep->tx_len = (uint8_t)(len + IEEE802154_FCS_LEN);
    zep->tx_ack = ack;
    zep->cca_start = zep->cca_end = 0;
    if (zep->cca && !ack) {
        zep->tx_phase = WREN_ZEP_TX_CCA;
        zep->cca_start = now;
        wren_host_timer_at(zep->host, &zep->tx_timer, now + WREN_ZEP_CCA_US);
    } else if (ack) {
        /* 6.7.4.2: aTurnaroundTime after the frame it answers ended (the
         * radio's RX-done, the datagram's arrival), not after the stack
         * got to it; never sooner */
        uint64_t on_air = zep->rx_last_end + WREN_ZEP_TURNAROUND_US;
        turn_around(zep, now, on_air > now ? on_air : now);
    } else {
        turn_around(zep, now, now + WREN_ZEP_TURNAROUND_US);
    }
    return (int)len;
}

/* The head of the queue (if any) is there for the stack to read. */
static void rx_pop(struct wren_zep *zep)
{
    zep->rx_head = (zep->rx_head + 1) % CONFIG_WREN_ZEP_RX_QUEUE;
    zep->rx_count--;
    zep->hfd.events = POLLIN; /* room again */
}

static int zep_recv(struct wren_netdev *dev, void *buf, size_t len,
                    struct wren_netdev_rx_info *info)
{
    struct wren_zep *zep = zep_of(dev);
    if (!zep->rx_count) {
        return 0;
    }
    const struct wren_zep_rx *r = &zep->rxq[zep->rx_head];
    bool taken;
    int res = wren_netdev_recv_held(r->psdu, r->len, 0, r->lqi, buf, len, info, &taken);
    if (taken) {
        zep->rx_last_end = r->end;
        zep->rx_taken++;
        rx_pop(zep);
    }
    return res;
}

static void zep_isr(struct wren_netdev *dev)
{
    struct wren_zep *zep = zep_of(dev);
    if (zep->tx_result) {
        enum wren_netdev_event ev = (enum wren_netdev_event)zep->tx_result;
        zep->tx_result = 0;
        dev->event_cb(dev, ev);
    }
    if (zep->ack_done) {
        zep->ack_done = false;
        dev->event_cb(dev, WREN_NETDEV_EV_TX_COMPLETE);
    }
    if (zep->rx_count) {
        /* one frame per interrupt, so that TX outcomes interleave */
        uint32_t taken = zep->rx_taken;
        zep->stats.rx_frames++;
        dev->event_cb(dev, WREN_NETDEV_EV_RX_COMPLETE);
        if (zep->rx_taken == taken && zep->rx_count) {
            rx_pop(zep); /* the stack did not take it */
        }
        if (zep->rx_count) {
            raise_isr(zep);
        }
    }
}

static int zep_get(struct wren_netdev *dev, uint16_t opt, void *val, size_t max)
{
    struct wren_zep *zep = zep_of(dev);
    uint16_t v16;
    uint32_t v32;
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
    case WREN_NETOPT_CCA_BEFORE_TX:
        b = zep->cca;
        return wren_netopt_put(val, max, &b, 1);
    case WREN_NETOPT_IS_WIRED:
        b = 0; /* a radio: CSMA-CA, ACKs and the interframe space above it */
        return wren_netopt_put(val, max, &b, 1);
    case WREN_NETOPT_LINK_DELAY:
        v32 = CONFIG_WREN_ZEP_LINK_DELAY_US;
        return wren_netopt_put(val, max, &v32, 4);
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
        if (len != 2 || (memcpy(&ch, val, 2), ch != 0 && (ch < 11 || ch > 26))) {
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
    case WREN_NETOPT_CCA_BEFORE_TX:
        if (len != 1) {
            return -EINVAL;
        }
        zep->cca = *(const uint8_t *)val != 0;
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

/* When the datagram arrived (the kernel's receive timestamp), on the
 * runtime's clock; now if the kernel gave none. */
static uint64_t arrival_us(const struct msghdr *mh)
{
    /* the wall clock read before the runtime's: a preemption between the
     * two makes the arrival later, never sooner (every wait counted from
     * it stays a lower bound) */
    struct timespec real;
    clock_gettime(CLOCK_REALTIME, &real);
    uint64_t now = wren_host_now();
    for (struct cmsghdr *c = CMSG_FIRSTHDR((struct msghdr *)mh); c;
         c = CMSG_NXTHDR((struct msghdr *)mh, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
            struct timespec rx;
            memcpy(&rx, CMSG_DATA(c), sizeof(rx));
            int64_t ago_ns = ((int64_t)real.tv_sec - rx.tv_sec) * 1000000000 +
                             (real.tv_nsec - rx.tv_nsec);
            uint64_t ago = ago_ns > 0 ? (uint64_t)ago_ns / 1000u : 0;
            return ago < now ? now - ago : now;
        }
    }
    return now;
}

/* A frame heard on the air during [start, end] while we turn around or
 * send, after our CCA: if it was on the air during that CCA, the CCA was
 * busy after all (we learn it only now, RX-done; nobody has heard of our
 * frame yet either): the frame is not sent and the radio kept listening. */
static bool cca_was_busy(struct wren_zep *zep, uint64_t start, uint64_t end)
{
    if (zep->tx_phase != WREN_ZEP_TX_SENDING ||
        zep->tx_ack || !zep->cca_end || start > zep->cca_end || end < zep->cca_start) {
        return false;
    }
    wren_host_timer_cancel(zep->host, &zep->tx_timer);
    zep->stats.cca_busy++;
    zep->tx_phase = WREN_ZEP_TX_IDLE;
    zep->tx_until = zep->tx_from; /* nothing went on the air */
    zep->tx_result = WREN_NETDEV_EV_TX_MEDIUM_BUSY;
    raise_isr(zep);
    return true;
}

/* Whether a frame on the air during [start, end] was lost to our own
 * transmission (half-duplex): the radio turned around or sent meanwhile.
 * An ACK that arrives after our frame has ended answers it: never lost. */
static bool lost_to_tx(const struct wren_zep *zep, uint64_t start, uint64_t end, bool ack)
{
    if (zep->tx_phase == WREN_ZEP_TX_IDLE || zep->tx_phase == WREN_ZEP_TX_CCA) {
        if (ack && end >= zep->tx_until) {
            return false;
        }
    } else if (end >= zep->tx_from) {
        return true; /* ends while we turn around or send */
    }
    return start < zep->tx_until && end >= zep->tx_from;
}

/* One datagram: check it as a radio would; a frame on our channel has just
 * ended (RX-done) and joins the queue, handed to the stack at once. */
static void take_datagram(struct wren_zep *zep, const uint8_t *buf, size_t n, uint64_t at)
{
    zep->stats.rx_packets++;
    struct zep_frame f;
    if (wren_zep_parse(buf, n, &f) < 0) {
        zep->stats.rx_malformed++;
        return;
    }
    if (f.hdr.type != ZEP_TYPE_DATA) {
        zep->stats.rx_acks++;
        return;
    }
    if (f.hdr.channel != zep->channel && !zep->any_channel) {
        zep->stats.rx_other_channel++; /* not on our air at all */
        return;
    }
    bool overlap;
    uint64_t start = wren_zep_air_heard(&zep->air, at, f.hdr.len, &overlap);
    zep->stats.rx_overlap += overlap;
    bool ack = f.hdr.len == 5 && (f.psdu[0] & 0x07) == IEEE802154_TYPE_ACK;
    if (!cca_was_busy(zep, start, at) && lost_to_tx(zep, start, at, ack)) {
        zep->stats.rx_while_tx++; /* half-duplex: we were not listening */
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
    unsigned tail = (zep->rx_head + zep->rx_count) % CONFIG_WREN_ZEP_RX_QUEUE;
    struct wren_zep_rx *r = &zep->rxq[tail];
    r->end = at;
    r->len = (uint8_t)(f.hdr.len - IEEE802154_FCS_LEN);
    r->lqi = f.hdr.crc_mode ? f.hdr.lqi : f.psdu[f.hdr.len - 2];
    memcpy(r->psdu, f.psdu, r->len);
    if (zep->rx_count++ == 0) {
        raise_isr(zep); /* RX-done */
    }
}

/* Read what has arrived, while the queue has room (else leave it to the
 * kernel, whose timestamps keep the arrival times, until it has). */
static void read_datagrams(struct wren_zep *zep)
{
    for (;;) {
        if (zep->rx_count == CONFIG_WREN_ZEP_RX_QUEUE) {
            if (zep->hfd.events) {
                zep->stats.rx_overrun++;
                zep->hfd.events = 0;
            }
            return;
        }
        uint8_t buf[ZEP_V2_HDR_LEN + ZEP_MAX_PSDU + 16];
        union {
            char b[CMSG_SPACE(sizeof(struct timespec))];
            struct cmsghdr align;
        } ctl;
        struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
        struct msghdr mh = {
            .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.b, .msg_controllen = sizeof(ctl.b)};
        ssize_t n = recvmsg(zep->hfd.fd, &mh, MSG_DONTWAIT);
        if (n < 0) {
            return;
        }
        take_datagram(zep, buf, (size_t)n, arrival_us(&mh));
    }
}

static void zep_readable(struct wren_host_fd *hfd, short revents)
{
    (void)revents;
    read_datagrams(hfd->arg);
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
    zep->tx_from = zep->tx_until = 0;
    wren_timer_init(&zep->tx_timer, tx_timer_cb, zep);
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
    /* arrival times from the kernel, not from whenever we get to read */
    int on = 1;
    (void)setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on));
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
    wren_host_timer_cancel(zep->host, &zep->tx_timer);
    if (zep->hfd.fd >= 0) {
        wren_host_fd_remove(zep->host, &zep->hfd);
        close(zep->hfd.fd);
        zep->hfd.fd = -1;
    }
}

/* Bridge between the simulated medium and ZEP (Linux only: UDP sockets). */
#define _GNU_SOURCE

#include "sim/zep_bridge.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/byteorder.h"
#include "wire/ieee802154.h"
#include "wire/zep.h"

#define NTP_UNIX_OFFSET 2208988800u
#define BRIDGE_MAX_GAP_US (40u * WREN_PHY_SYMBOL_US) /* macLifsPeriod */

static struct wren_sim_zep *bridge_of(struct wren_netdev *dev)
{
    return (struct wren_sim_zep *)dev; /* the radio, and its netdev, come first */
}

/* the next queued frame on the air, if the radio is free */
static void tx_next(struct wren_sim_zep *z)
{
    struct wren_netdev *dev = &z->radio.netdev;
    while (z->q_count && z->radio.tx_phase == SIM_TX_IDLE) {
        struct wren_iolist iol = { .next = NULL, .base = z->q[z->q_head],
                                   .len = z->q_len[z->q_head] };
        int res = dev->driver->send(dev, &iol);
        if (res == -EBUSY) {
            return; /* a TX event is still pending: it calls us again */
        }
        z->q_head = (z->q_head + 1) % WREN_SIM_ZEP_QUEUE;
        z->q_count--;
        if (res >= 0) {
            z->stats.from_zep++;
            return;
        }
    }
}

static uint64_t wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* One frame out as a ZEP data packet. */
static void send_zep(struct wren_sim_zep *z, const uint8_t *psdu, uint8_t n)
{
    uint8_t buf[ZEP_V2_HDR_LEN + WREN_PHY_MAX_PSDU];
    memcpy(buf + ZEP_V2_HDR_LEN, psdu, n);
    put_le16(buf + ZEP_V2_HDR_LEN + n, wren_ieee802154_fcs(psdu, n));
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct zep_hdr h = {
        .type = ZEP_TYPE_DATA,
        .channel = (uint8_t)z->radio.channel,
        .device_id = z->device_id,
        .crc_mode = 1,
        .lqi = 255,
        .ts_sec = (uint32_t)((uint64_t)ts.tv_sec + NTP_UNIX_OFFSET),
        .ts_frac = (uint32_t)(((uint64_t)ts.tv_nsec << 32) / 1000000000u),
        .seq = z->seq++,
        .len = (uint8_t)(n + IEEE802154_FCS_LEN),
    };
    wren_zep_emit(&h, buf, ZEP_V2_HDR_LEN);
    ssize_t s = sendto(z->fd, buf, ZEP_V2_HDR_LEN + h.len, 0,
                       (const struct sockaddr *)z->remote, z->remote_len);
    if (s == (ssize_t)(ZEP_V2_HDR_LEN + h.len)) {
        z->stats.to_zep++;
    } else {
        z->stats.to_zep_errors++;
    }
}

uint64_t wren_sim_zep_flush(struct wren_sim_zep *z, uint64_t wall_us)
{
    while (z->out_count) {
        uint64_t end = z->out_end[z->out_head];
        if (z->sent_any) {
            /* RX-done: each datagram marks its frame's end, so the ends
             * keep, on the wall clock, at least the distance they had on
             * the air (then every start, derived as the end less the
             * airtime, keeps its turnaround and interframe space after the
             * end before it); silence beyond LIFS shrinks to LIFS, so that
             * the bridge catches up after a delay */
            uint64_t apart = end > z->last_end ? end - z->last_end : 0;
            uint64_t air = wren_phy_airtime_us((unsigned)z->out_len[z->out_head] +
                                               IEEE802154_FCS_LEN);
            if (apart > air + BRIDGE_MAX_GAP_US) {
                apart = air + BRIDGE_MAX_GAP_US;
            }
            if (wall_us < z->last_wall + apart) {
                z->out_held = true;
                return z->last_wall + apart;
            }
        }
        if (z->out_held) {
            z->stats.to_zep_paced++;
            z->out_held = false;
        }
        send_zep(z, z->out[z->out_head], z->out_len[z->out_head]);
        z->sent_any = true;
        z->last_end = end;
        /* read after the datagram left: the hub stamped it no later */
        z->last_wall = wall_now();
        wall_us = z->last_wall;
        z->out_head = (z->out_head + 1) % WREN_SIM_ZEP_QUEUE;
        z->out_count--;
    }
    return 0;
}

/* A source a live process sends from: remembered, so that frames to it get
 * their ACK on the air (see zep_bridge.h). @p mpdu without FCS. */
static void learn_live(struct wren_sim_zep *z, const uint8_t *mpdu, size_t len)
{
    struct ieee802154_frame f;
    if (wren_ieee802154_parse(mpdu, len, &f) < 0 || f.hdr.type == IEEE802154_TYPE_ACK ||
        (f.hdr.src_mode != IEEE802154_ADDR_SHORT && f.hdr.src_mode != IEEE802154_ADDR_EXT)) {
        return;
    }
    uint16_t pan = wren_ieee802154_has_src_pan(&f.hdr) ? f.hdr.src_pan : f.hdr.dst_pan;
    size_t alen = wren_ieee802154_addr_len(f.hdr.src_mode);
    for (unsigned i = 0; i < WREN_SIM_ZEP_LIVE; i++) {
        if (z->live[i].mode == f.hdr.src_mode && z->live[i].pan == pan &&
            memcmp(z->live[i].addr, f.hdr.src_addr, alen) == 0) {
            return;
        }
    }
    unsigned i = z->live_next;
    z->live_next = (i + 1) % WREN_SIM_ZEP_LIVE;
    z->live[i].mode = f.hdr.src_mode;
    z->live[i].pan = pan;
    memset(z->live[i].addr, 0, sizeof(z->live[i].addr));
    memcpy(z->live[i].addr, f.hdr.src_addr, alen);
}

/* A simulated frame that has just ended at the bridge: if it asks for an
 * ACK and is for a live source, the Imm-Ack goes out now, after the
 * radio's turnaround, as the live radio's hardware would send it. */
static void ack_for_live(struct wren_sim_zep *z, const uint8_t *mpdu, size_t len)
{
    struct ieee802154_frame f;
    if (wren_ieee802154_parse(mpdu, len, &f) < 0 || !f.hdr.ack_req || f.hdr.seq_suppressed ||
        (f.hdr.type != IEEE802154_TYPE_DATA && f.hdr.type != IEEE802154_TYPE_CMD)) {
        return;
    }
    size_t alen = wren_ieee802154_addr_len(f.hdr.dst_mode);
    unsigned i = 0;
    for (; i < WREN_SIM_ZEP_LIVE; i++) {
        if (alen && z->live[i].mode == f.hdr.dst_mode && z->live[i].pan == f.hdr.dst_pan &&
            memcmp(z->live[i].addr, f.hdr.dst_addr, alen) == 0) {
            break;
        }
    }
    if (i == WREN_SIM_ZEP_LIVE) {
        return;
    }
    struct wren_netdev *dev = &z->radio.netdev;
    uint8_t ack[3] = { IEEE802154_TYPE_ACK, 0, f.hdr.seq };
    struct wren_iolist iol = { .next = NULL, .base = ack, .len = sizeof(ack) };
    bool cca = z->radio.cca_before_tx;
    z->radio.cca_before_tx = false; /* an ACK goes without CCA */
    if (dev->driver->send(dev, &iol) < 0) {
        z->stats.ack_busy++;
    } else {
        z->stats.acks_for_live++;
    }
    z->radio.cca_before_tx = cca;
}

/* a frame the medium delivered to the bridge: it has just ended, so its
 * datagram goes out now (RX-done), or when its turn comes if the frames
 * before it are late */
static void to_zep(struct wren_sim_zep *z)
{
    struct wren_netdev *dev = &z->radio.netdev;
    uint8_t psdu[WREN_PHY_MAX_PSDU];
    int n = dev->driver->recv(dev, psdu, WREN_PHY_MAX_PSDU - IEEE802154_FCS_LEN, NULL);
    if (n <= 0) {
        return;
    }
    ack_for_live(z, psdu, (size_t)n);
    if (z->out_count == WREN_SIM_ZEP_QUEUE) {
        z->stats.to_zep_drops++;
        return;
    }
    unsigned tail = (z->out_head + z->out_count) % WREN_SIM_ZEP_QUEUE;
    z->out_len[tail] = (uint8_t)n;
    memcpy(z->out[tail], psdu, (size_t)n);
    z->out_end[tail] = z->radio.medium->world->now;
    z->out_count++;
    wren_sim_zep_flush(z, wall_now());
}

/* The radio's events, handled at once (the bridge has no node to defer to). */
static void bridge_event(struct wren_netdev *dev, enum wren_netdev_event ev)
{
    struct wren_sim_zep *z = bridge_of(dev);
    switch (ev) {
    case WREN_NETDEV_EV_ISR:
        dev->driver->isr(dev);
        break;
    case WREN_NETDEV_EV_RX_COMPLETE:
        to_zep(z);
        break;
    case WREN_NETDEV_EV_TX_MEDIUM_BUSY:
        z->stats.tx_busy++;
        tx_next(z);
        break;
    case WREN_NETDEV_EV_TX_COMPLETE:
    case WREN_NETDEV_EV_TX_NOACK:
        tx_next(z);
        break;
    default:
        break;
    }
}

int wren_sim_zep_poll(struct wren_sim_zep *z)
{
    int taken = 0;
    if (z->fd < 0) {
        return 0;
    }
    for (;;) {
        uint8_t buf[ZEP_V2_HDR_LEN + ZEP_MAX_PSDU + 16];
        ssize_t n = recv(z->fd, buf, sizeof(buf), MSG_DONTWAIT);
        if (n < 0) {
            break;
        }
        struct zep_frame f;
        if (wren_zep_parse(buf, (size_t)n, &f) < 0) {
            z->stats.rx_malformed++;
            continue;
        }
        if (f.hdr.type != ZEP_TYPE_DATA || f.hdr.channel != z->radio.channel) {
            z->stats.rx_other++;
            continue;
        }
        if (f.hdr.len < IEEE802154_FCS_LEN + 3) {
            z->stats.rx_malformed++;
            continue;
        }
        if (f.hdr.crc_mode && wren_ieee802154_fcs_check(f.psdu, f.hdr.len) < 0) {
            z->stats.rx_bad_fcs++;
            continue;
        }
        size_t mpdu_len = f.hdr.len - IEEE802154_FCS_LEN;
        if ((f.psdu[0] & 0x07) == IEEE802154_TYPE_ACK) {
            z->stats.from_zep_acks++; /* the bridge ACKs for the live side */
            continue;
        }
        learn_live(z, f.psdu, mpdu_len);
        /* RX-done: the frame ended at the datagram's arrival; its time on
         * the air has passed and the simulation cannot send in the past,
         * so it goes on the simulated air now, for its airtime (one
         * airtime late: see zep_bridge.h) */
        if (z->q_count == WREN_SIM_ZEP_QUEUE) {
            z->stats.queue_drops++;
            continue;
        }
        unsigned tail = (z->q_head + z->q_count) % WREN_SIM_ZEP_QUEUE;
        z->q_len[tail] = (uint8_t)(f.hdr.len - IEEE802154_FCS_LEN); /* the radio adds it */
        memcpy(z->q[tail], f.psdu, z->q_len[tail]);
        z->q_count++;
        taken++;
    }
    tx_next(z);
    return taken;
}

int wren_sim_zep_open(struct wren_sim_zep *z, struct wren_medium *m, double x, double y,
                      double z_, uint16_t local_port, const char *remote_host,
                      uint16_t remote_port, uint16_t dev_id)
{
    memset(z, 0, sizeof(*z));
    z->fd = -1;
    z->device_id = dev_id;
    struct addrinfo hints = { .ai_socktype = SOCK_DGRAM, .ai_flags = AI_NUMERICSERV };
    struct addrinfo *ai = NULL;
    char port[8];
    snprintf(port, sizeof(port), "%u", remote_port);
    if (getaddrinfo(remote_host, port, &hints, &ai) != 0 || ai == NULL ||
        ai->ai_addrlen > sizeof(z->remote)) {
        if (ai) {
            freeaddrinfo(ai);
        }
        return -EINVAL;
    }
    memcpy(z->remote, ai->ai_addr, ai->ai_addrlen);
    z->remote_len = (uint32_t)ai->ai_addrlen;
    int family = ai->ai_family;
    freeaddrinfo(ai);
    int fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return -errno;
    }
    int res;
    if (family == AF_INET6) {
        struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_port = htons(local_port),
                                  .sin6_addr = IN6ADDR_ANY_INIT };
        res = bind(fd, (struct sockaddr *)&a, sizeof(a));
    } else {
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(local_port),
                                 .sin_addr.s_addr = htonl(INADDR_ANY) };
        res = bind(fd, (struct sockaddr *)&a, sizeof(a));
    }
    if (res < 0) {
        res = -errno;
        close(fd);
        return res;
    }
    int idx = wren_medium_add_radio(m, &z->radio, x, y, z_);
    if (idx < 0) {
        close(fd);
        return idx;
    }
    z->fd = fd;
    z->radio.proc_delay_us = 0; /* live processes had their own delays */
    z->radio.netdev.event_cb = bridge_event;
    z->radio.netdev.driver->init(&z->radio.netdev); /* listening */
    /* introduce ourselves to a dispatcher, as wren-node does */
    struct zep_hdr hello = { .type = ZEP_TYPE_ACK };
    uint8_t b[ZEP_V2_ACK_LEN];
    wren_zep_emit(&hello, b, sizeof(b));
    sendto(fd, b, sizeof(b), 0, (const struct sockaddr *)z->remote, z->remote_len);
    return idx;
}

void wren_sim_zep_close(struct wren_sim_zep *z)
{
    if (z->fd >= 0) {
        close(z->fd);
        z->fd = -1;
    }
}

#define _GNU_SOURCE
#include "host/lora_udp.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "net/netopt.h"

static struct wren_lora_udp *lu_of(struct wren_netdev *dev)
{
    return (struct wren_lora_udp *)dev;
}

static void raise_isr(struct wren_lora_udp *lu)
{
    if (lu->netdev.event_cb) {
        lu->netdev.event_cb(&lu->netdev, WREN_NETDEV_EV_ISR);
    }
}

static int lu_init(struct wren_netdev *dev)
{
    lu_of(dev)->state = WREN_NETOPT_STATE_IDLE;
    return 0;
}

/* the frame's airtime has passed: its datagram goes to the hub */
static void tx_timer_cb(struct wren_timer *t, void *arg)
{
    (void)t;
    struct wren_lora_udp *lu = arg;
    if (sendto(lu->hfd.fd, lu->tx_buf, lu->tx_len, 0, (struct sockaddr *)&lu->remote,
               lu->remote_len) < 0) {
        lu->stats.tx_errors++;
    }
    lu->on_air = false;
    lu->tx_done = true;
    raise_isr(lu);
}

static int lu_send(struct wren_netdev *dev, const struct wren_iolist *iol)
{
    struct wren_lora_udp *lu = lu_of(dev);
    uint64_t now = wren_host_now();
    if (lu->state == WREN_NETOPT_STATE_OFF) {
        return -ENETDOWN;
    }
    if (lu->on_air || lu->tx_done) {
        return -EBUSY;
    }
    size_t len = wren_iolist_size(iol);
    if (len > wren_lora_modem_max_payload(&lu->modem)) {
        lu->stats.tx_too_long++;
        return -EMSGSIZE;
    }
    if (wren_lora_modem_dc_wait(&lu->modem, now) > 0) {
        lu->stats.dc_drop++;
        return -EAGAIN;
    }
    const struct wren_lora_modem *m = &lu->modem;
    struct loratap_hdr h = {
        .freq_hz = m->freq_hz, .bw_steps = (uint8_t)(m->phy.bw_khz / 125u), .sf = m->phy.sf,
        .packet_rssi = LORATAP_RSSI_NA, .max_rssi = LORATAP_RSSI_NA,
        .current_rssi = LORATAP_RSSI_NA, .sync_word = m->syncword};
    wren_loratap_emit(&h, lu->tx_buf, LORATAP_V0_LEN);
    size_t off = LORATAP_V0_LEN;
    for (; iol; iol = iol->next) {
        if (iol->len) {
            memcpy(lu->tx_buf + off, iol->base, iol->len);
        }
        off += iol->len;
    }
    lu->tx_len = (uint16_t)off;
    uint32_t airtime = wren_lora_airtime_us(&m->phy, (unsigned)len);
    lu->on_air = true;
    lu->tx_begin = now;
    lu->tx_end = now + airtime;
    wren_lora_modem_sent(&lu->modem, lu->tx_end, airtime);
    lu->stats.tx_frames++;
    lu->stats.tx_airtime_us += airtime;
    wren_host_timer_at(lu->host, &lu->tx_timer, lu->tx_end);
    return (int)len;
}

static int lu_recv(struct wren_netdev *dev, void *buf, size_t len,
                   struct wren_netdev_rx_info *info)
{
    struct wren_lora_udp *lu = lu_of(dev);
    if (lu->rx_count == 0) {
        return 0;
    }
    struct wren_lora_udp_rx *f = &lu->rxq[lu->rx_head];
    bool taken;
    int res = wren_netdev_recv_held(f->buf, f->len, 0, 255, buf, len, info, &taken);
    if (taken) {
        lu->rx_head = (lu->rx_head + 1) % CONFIG_WREN_LORA_UDP_RX_QUEUE;
        lu->rx_count--;
    }
    return res;
}

static void lu_isr(struct wren_netdev *dev)
{
    struct wren_lora_udp *lu = lu_of(dev);
    if (lu->tx_done) {
        lu->tx_done = false;
        dev->event_cb(dev, WREN_NETDEV_EV_TX_COMPLETE);
    }
    unsigned n = lu->rx_count;
    for (unsigned i = 0; i < n && lu->rx_count; i++) {
        unsigned before = lu->rx_count;
        dev->event_cb(dev, WREN_NETDEV_EV_RX_COMPLETE);
        if (lu->rx_count == before) {
            lu_recv(dev, NULL, 1, NULL); /* not taken: drop it */
        }
    }
}

static int lu_get(struct wren_netdev *dev, uint16_t opt, void *val, size_t max)
{
    struct wren_lora_udp *lu = lu_of(dev);
    switch (opt) {
    case WREN_NETOPT_STATE: {
        uint8_t s = lu->on_air ? WREN_NETOPT_STATE_TX : lu->state;
        return wren_netopt_put(val, max, &s, 1);
    }
    case WREN_NETOPT_DEV_STATS:
        return wren_netopt_put(val, max, &lu->stats, sizeof(lu->stats));
    default:
        return wren_lora_modem_get(&lu->modem, opt, val, max, wren_host_now());
    }
}

static int lu_set(struct wren_netdev *dev, uint16_t opt, const void *val, size_t len)
{
    struct wren_lora_udp *lu = lu_of(dev);
    if (opt == WREN_NETOPT_STATE) {
        uint8_t s;
        if (len != 1 || (memcpy(&s, val, 1), s > WREN_NETOPT_STATE_IDLE)) {
            return -EINVAL;
        }
        lu->state = s;
        return 0;
    }
    if (wren_lora_modem_opt_retunes(opt) && lu->on_air) {
        return -EBUSY;
    }
    int res = wren_lora_modem_set(&lu->modem, opt, val, len);
    return res < 0 ? res : 0;
}

static const struct wren_counter_set lora_udp_counters =
    WREN_COUNTER_SET("lora_udp", WREN_LORA_UDP_COUNTERS, WREN_NETOPT_DEV_STATS, uint64_t);

static const struct wren_netdev_driver lora_udp_driver = {
    .counters = &lora_udp_counters,
    .init = lu_init,
    .send = lu_send,
    .recv = lu_recv,
    .isr = lu_isr,
    .get = lu_get,
    .set = lu_set,
};

/* a datagram: a frame that ended now, if it is for this modem */
static void take_datagram(struct wren_lora_udp *lu, const uint8_t *buf, size_t n, uint64_t now)
{
    struct loratap_hdr h;
    const struct wren_lora_modem *m = &lu->modem;
    int hl = wren_loratap_parse(buf, n, &h);
    if (hl < 0 || n - (size_t)hl > WREN_LORA_MAX_PAYLOAD) {
        lu->stats.rx_malformed++;
        return;
    }
    if (h.freq_hz != m->freq_hz || h.sf != m->phy.sf || h.bw_steps * 125u != m->phy.bw_khz) {
        lu->stats.rx_other_channel++;
        return;
    }
    if (h.sync_word != m->syncword) {
        lu->stats.rx_other_sync++;
        return;
    }
    size_t len = n - (size_t)hl;
    uint64_t begin = now - wren_lora_airtime_us(&m->phy, (unsigned)len);
    if (lu->state == WREN_NETOPT_STATE_OFF) {
        return;
    }
    if (lu->tx_end > begin) {
        lu->stats.rx_while_tx++; /* on the air while ours was: half duplex */
        return;
    }
    if (lu->rx_count == CONFIG_WREN_LORA_UDP_RX_QUEUE) {
        lu->stats.rx_overrun++;
        return;
    }
    struct wren_lora_udp_rx *f =
        &lu->rxq[(lu->rx_head + lu->rx_count) % CONFIG_WREN_LORA_UDP_RX_QUEUE];
    f->len = (uint8_t)len;
    memcpy(f->buf, buf + hl, len);
    lu->rx_count++;
    lu->stats.rx_frames++;
    raise_isr(lu);
}

static void lu_readable(struct wren_host_fd *hfd, short revents)
{
    (void)revents;
    struct wren_lora_udp *lu = hfd->arg;
    uint8_t buf[LORATAP_V0_LEN + WREN_LORA_MAX_PAYLOAD + 64];
    for (;;) {
        ssize_t n = recv(hfd->fd, buf, sizeof(buf), 0);
        if (n < 0) {
            return; /* EAGAIN: all read */
        }
        lu->stats.rx_packets++;
        take_datagram(lu, buf, (size_t)n, wren_host_now());
    }
}

/* the hub's address into lu->remote; @return the family or -EINVAL */
static int resolve(struct wren_lora_udp *lu, const char *host, uint16_t port, char *why,
                   size_t why_len)
{
    struct addrinfo hints = {.ai_socktype = SOCK_DGRAM, .ai_flags = AI_NUMERICSERV};
    struct addrinfo *ai = NULL;
    char p[8];
    snprintf(p, sizeof(p), "%u", port);
    int gai = getaddrinfo(host, p, &hints, &ai);
    if (gai != 0 || ai == NULL || ai->ai_addrlen > sizeof(lu->remote)) {
        snprintf(why, why_len, "LoRa hub %s:%u: %s", host, port,
                 gai ? gai_strerror(gai) : "unusable address");
        if (ai) {
            freeaddrinfo(ai);
        }
        return -EINVAL;
    }
    memcpy(&lu->remote, ai->ai_addr, ai->ai_addrlen);
    lu->remote_len = ai->ai_addrlen;
    int family = ai->ai_family;
    freeaddrinfo(ai);
    return family;
}

static int bind_local(int fd, int family, uint16_t port)
{
    if (family == AF_INET6) {
        struct sockaddr_in6 a = {
            .sin6_family = AF_INET6, .sin6_port = htons(port), .sin6_addr = IN6ADDR_ANY_INIT};
        return bind(fd, (struct sockaddr *)&a, sizeof(a));
    }
    struct sockaddr_in a = {
        .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_ANY)};
    return bind(fd, (struct sockaddr *)&a, sizeof(a));
}

int wren_lora_udp_open(struct wren_lora_udp *lu, struct wren_host *host, uint16_t local_port,
                       const char *remote_host, uint16_t remote_port, char *why, size_t why_len)
{
    memset(lu, 0, sizeof(*lu));
    lu->hfd.fd = -1;
    lu->netdev.driver = &lora_udp_driver;
    lu->host = host;
    wren_lora_modem_init(&lu->modem);
    wren_timer_init(&lu->tx_timer, tx_timer_cb, lu);
    int family = resolve(lu, remote_host, remote_port, why, why_len);
    if (family < 0) {
        return family;
    }
    int fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind_local(fd, family, local_port) < 0) {
        int e = errno;
        if (fd >= 0) {
            close(fd);
        }
        snprintf(why, why_len, "LoRa: cannot bind UDP port %u: %s", local_port,
                 e == EADDRINUSE ? "in use by another process" : strerror(e));
        return -e;
    }
    lu->hfd = (struct wren_host_fd){.fd = fd, .events = POLLIN, .cb = lu_readable, .arg = lu};
    int res = wren_host_fd_add(host, &lu->hfd);
    if (res < 0) {
        close(fd);
        lu->hfd.fd = -1;
        snprintf(why, why_len, "too many interfaces (CONFIG_WREN_HOST_FDS)");
        return res;
    }
    /* introduce ourselves to the hub */
    (void)sendto(fd, "", 0, 0, (struct sockaddr *)&lu->remote, lu->remote_len);
    return 0;
}

void wren_lora_udp_close(struct wren_lora_udp *lu)
{
    wren_host_timer_cancel(lu->host, &lu->tx_timer);
    if (lu->hfd.fd >= 0) {
        wren_host_fd_remove(lu->host, &lu->hfd);
        close(lu->hfd.fd);
        lu->hfd.fd = -1;
    }
}

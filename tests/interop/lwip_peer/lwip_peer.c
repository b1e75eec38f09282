/*
 * lwip-peer: an lwIP 2.1.3 node (Debian's liblwip and its unix port) on
 * 6LoWPAN over ZEP, so that the tests can run wren-node against a 6LoWPAN
 * stack nobody here wrote (tests/py/test_lwip.py). Test code, not wren's.
 *
 *   lwip-peer --tap IF --ip4 A.B.C.D --zep HOST:PORT [--zep-port P]
 *             (--short XXXX | --mac XX:XX:XX:XX:XX:XX) [--pan ID] [--slaac]
 *
 * The network pieces are lwIP's own: its unix port's tapif carries IPv4 on
 * the TAP IF (already up; address A.B.C.D/24, HOST its gateway), and its
 * zepif sends the 6LoWPAN netif's frames in ZEP v2 over lwIP's own UDP to
 * HOST:PORT (wren-node on the kernel's side of the TAP) and takes ZEP on UDP
 * port P (default 17754). PAN ID default 0x0023 (wren's).
 *
 * Commands, one a line on stdin; every answer ends with a line "ok" or
 * "error: WHY":
 *   ifconfig                    link-layer address, IPv6 addresses and their state
 *   nd                          neighbour cache, default routers, on-link prefixes
 *   context N PREFIX            set 6LoWPAN context N (a /64)
 *   udp bind PORT [echo|sink]   the UDP socket (counters reset)
 *   udp send ADDR PORT SIZE [COUNT]   datagrams of wren's pattern from it
 *   udp stats                   received, bad, echoed and the sizes received
 *   udp close
 *   ping ADDR [COUNT [SIZE]]    ICMPv6 echo, 200 ms apart, up to 3 s for the replies
 *   stats                       what the radio glue counted
 *   exit
 *
 * Datagrams carry wren's pattern (src/apps/udp_app.h): byte i of an n-byte
 * datagram is (i * 31 + n) & 0xff, so both ends check every byte.
 *
 * What lwIP 2.1.3 gets wrong on 802.15.4, and what the peer does about it
 * (nothing of it is worked around in wren):
 *  1. It drops every frame sent from a 16-bit address:
 *     lowpan6_parse_iee802154_header (src/netif/lowpan6.c) compares the
 *     source addressing mode with IEEE_802154_FC_DST_ADDR_MODE_SHORT (0x0800)
 *     instead of the source field's value (0x8000). Its own frames from a
 *     short address are well formed. The glue hands lwIP such a frame with
 *     the source 02:00:00:ff:fe:00:XX:XX in place of XXXX: lwIP uses the
 *     frame's source only to rebuild an elided IPv6 source (RFC 6282 3.2.2)
 *     and to tell senders apart in reassembly, and that EUI-64 gives the same
 *     IID as XXXX (0000:00ff:fe00:XXXX, RFC 4944 6).
 *  2. It cannot send to an EUI-64. Debian builds it with
 *     NETIF_MAX_HWADDR_LEN 6, so a netif holds at most a 6-byte address, and
 *     lowpan6_output takes the netif's hwaddr_len as the length of every
 *     destination it resolved through ND: with zepif's 6-byte MAC that is 6,
 *     and lowpan6_write_iee802154_header's assertion (2 or 8) aborts the
 *     process on the first unicast frame. So the peer runs (--short) with
 *     the 2-byte short address as its hwaddr: it then sends from that
 *     address when the IPv6 source's IID is the short address's
 *     (LWIP_6LOWPAN_INFER_SHORT_ADDRESS), to a short address it derives from
 *     the destination's IID when that is of the same form and prefix, and
 *     otherwise to the first two bytes of the neighbour's link-layer address
 *     option: a peer with an EUI-64 is reachable only at an address whose
 *     IID is that of a short address it accepts frames for.
 *     It cannot send from the unspecified address (its DAD probes are lost:
 *     lowpan6_hwaddr_to_addr refuses a 2-byte hwaddr).
 *  3. With zepif's 6-byte MAC (--mac, what zepif does unless told) it sends
 *     from MAC[0..2] ff ff MAC[3..5] but forms its IID the Ethernet way
 *     (MAC[0] ^ 2, ff fe; RFC 4291 appendix A), which is not the IID of the
 *     address it sends from (RFC 4944 6); its RS and NS carry the 6-byte MAC
 *     in a length-1 SLLAO, whose room after 2 bytes RFC 4944 8 reserves as
 *     zero padding. (And point 2: it can send multicast only.)
 *  4. Its SLLAO padding is whatever pbuf_alloc's memory held (nd6.c copies
 *     hwaddr_len bytes into an option of 8).
 *  5. It does no 6LoWPAN-ND (RFC 6775): no address registration, no 6CO
 *     (so the test sets the contexts a router advertises), no ABRO.
 *  6. zepif is a wire, not a radio: lwIP has no MAC. The glue does what a
 *     transceiver and MAC would (802.15.4-2015): it drops frames not for us
 *     (6.7.2), ACKs a unicast frame that asks for it aTurnaroundTime after
 *     its end (6.7.4.2), drops a retransmitted duplicate (6.7.5.4), and
 *     sends one frame at a time, waiting for each one's ACK and sending it
 *     again up to macMaxFrameRetries times (6.7.4.3), with its airtime and
 *     the interframe space between frames (6.2.4).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lwip/init.h"
#include "lwip/ip6_addr.h"
#include "lwip/nd6.h"
#include "lwip/netif.h"
#include "lwip/pbuf.h"
#include "lwip/priv/nd6_priv.h"
#include "lwip/prot/icmp6.h"
#include "lwip/prot/ip6.h"
#include "lwip/raw.h"
#include "lwip/sys.h"
#include "lwip/tcpip.h"
#include "lwip/udp.h"
#include "netif/lowpan6.h"
#include "netif/tapif.h"
#include "netif/zepif.h"

#if LWIP_VERSION_MAJOR != 2 || LWIP_VERSION_MINOR != 1
#error "written against lwIP 2.1"
#endif

#define MAX_SIZES 64

struct peer {
    struct netif tap;
    struct netif zep;
    struct zepif_init zep_init;
    ip_addr_t zep_dst;
    netif_input_fn lowpan_input;      /* lwIP's: the radio glue passes frames on to it */
    netif_linkoutput_fn zep_linkoutput; /* zepif's: the radio glue paces frames into it */
    /* radio glue */
    struct timespec air_free; /* when the last frame we sent (and its ACK) is off the air */
    pthread_mutex_t ack_lock;
    pthread_cond_t ack_cond;
    int ack_seq;              /* sequence number of the last ACK heard, -1: none */
    u16_t zep_port;
    u8_t last_src[8];
    u8_t last_src_len;
    int last_seq;
    unsigned long rx_frames, rx_acks_sent, rx_dups, rx_acks, rx_not_ours, rx_short_src;
    unsigned long tx_frames, tx_errors, tx_retries, tx_no_ack;
    /* udp */
    struct udp_pcb *udp;
    bool echo;
    unsigned long received, bad, echoed;
    unsigned sizes[MAX_SIZES];
    unsigned n_sizes;
    /* ping */
    struct raw_pcb *icmp;
    u16_t ping_id;
    unsigned long ping_rx, ping_bad;
};

static struct peer peer;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static void say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pthread_mutex_lock(&out_lock);
    vprintf(fmt, ap);
    fflush(stdout);
    pthread_mutex_unlock(&out_lock);
    va_end(ap);
}

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "lwip-peer: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

static void pattern(u8_t *buf, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        buf[i] = (u8_t)((i * 31 + len) & 0xff);
    }
}

static bool pattern_ok(const struct pbuf *p, size_t skip)
{
    size_t len = p->tot_len - skip;
    for (size_t i = 0; i < len; i++) {
        if (pbuf_get_at(p, (u16_t)(skip + i)) != (u8_t)((i * 31 + len) & 0xff)) {
            return false;
        }
    }
    return true;
}

/* ---- radio glue: what a transceiver does and lwIP does not ---------------- */

/* 802.15.4 frame control (2006 layout) */
#define FC_TYPE(fc) ((fc) & 7)
#define FC_AR 0x0020
#define FC_PANC 0x0040
#define FC_DST_MODE(fc) (((fc) >> 10) & 3)
#define FC_SRC_MODE(fc) (((fc) >> 14) & 3)

/* 802.15.4-2015 O-QPSK 2.4 GHz: 16 us symbols, 2 per octet; a PPDU is the
 * PSDU plus 6 octets of SHR and PHR */
#define OCTET_NS 32000L
#define TURNAROUND_NS 192000L /* aTurnaroundTime, 12 symbols */
#define SIFS_NS 192000L       /* macSifsPeriod, after an MPDU of up to 18 octets */
#define LIFS_NS 640000L       /* macLifsPeriod, after a longer one */
#define ACK_NS ((5 + 6) * OCTET_NS)

static void ts_add(struct timespec *t, long ns)
{
    t->tv_nsec += ns;
    while (t->tv_nsec >= 1000000000L) {
        t->tv_nsec -= 1000000000L;
        t->tv_sec++;
    }
}

static bool ts_before(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

static void sleep_until(const struct timespec *t)
{
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, t, NULL) == EINTR) {
    }
}

static u16_t crc16_kermit(const u8_t *p, size_t n)
{
    u16_t crc = 0;
    while (n--) {
        crc ^= *p++;
        for (int b = 0; b < 8; b++) {
            crc = (crc & 1) ? (u16_t)((crc >> 1) ^ 0x8408) : (u16_t)(crc >> 1);
        }
    }
    return crc;
}

/* Our link-layer address in frame byte order (little-endian) compares with
 * the frame's destination field. */
static bool to_us(const u8_t *dst, unsigned len)
{
    const struct netif *n = &peer.zep;
    u8_t mine[8];
    if (len == 2 && n->hwaddr_len == 2) {
        mine[0] = n->hwaddr[1];
        mine[1] = n->hwaddr[0];
        return memcmp(mine, dst, 2) == 0;
    }
    if (len == 8 && n->hwaddr_len == 6) {
        /* lowpan6's EUI-64 of a 6-byte hwaddr: MAC[0..2] ff ff MAC[3..5] */
        const u8_t eui[8] = { n->hwaddr[0], n->hwaddr[1], n->hwaddr[2], 0xff, 0xff,
                              n->hwaddr[3], n->hwaddr[4], n->hwaddr[5] };
        for (int i = 0; i < 8; i++) {
            mine[i] = eui[7 - i];
        }
        return memcmp(mine, dst, 8) == 0;
    }
    return false;
}

/* lowpan6_parse_iee802154_header (lwIP 2.1.3 src/netif/lowpan6.c) tests the
 * source addressing mode against IEEE_802154_FC_DST_ADDR_MODE_SHORT (0x0800)
 * instead of the source field's 0x8000, so it drops every frame sent from a
 * 16-bit address. lwIP uses a frame's source address only to rebuild an
 * elided IPv6 source (RFC 6282 3.2.2) and to tell senders apart in
 * reassembly; the extended address 02:00:00:ff:fe:00:XX:XX gives the same
 * IID as short address XXXX (0000:00ff:fe00:XXXX, RFC 4944 6), so the glue
 * hands lwIP the frame with that address in place of the short one. */
static err_t short_source_input(struct pbuf *p, struct netif *netif, u16_t fc, unsigned soff)
{
    struct pbuf *q = pbuf_alloc(PBUF_RAW, (u16_t)(p->tot_len + 6), PBUF_RAM);
    if (!q) {
        pbuf_free(p);
        return ERR_OK;
    }
    u8_t *b = q->payload;
    pbuf_copy_partial(p, b, (u16_t)soff, 0);
    fc = (u16_t)((fc & ~0xc000u) | 0xc000u); /* source: extended */
    b[0] = (u8_t)fc;
    b[1] = (u8_t)(fc >> 8);
    u8_t lo = pbuf_get_at(p, (u16_t)soff), hi = pbuf_get_at(p, (u16_t)(soff + 1));
    const u8_t ext[8] = { lo, hi, 0x00, 0xfe, 0xff, 0x00, 0x00, 0x02 }; /* little-endian */
    memcpy(b + soff, ext, 8);
    pbuf_copy_partial(p, b + soff + 8, (u16_t)(p->tot_len - soff - 2), (u16_t)(soff + 2));
    pbuf_free(p);
    peer.rx_short_src++;
    return peer.lowpan_input(q, netif);
}

/* zepif hands us the PSDU without ZEP header and FCS. Runs in lwIP's
 * thread (zepif's UDP receive callback). */
static err_t radio_input(struct pbuf *p, struct netif *netif)
{
    u8_t h[23];
    u16_t n = pbuf_copy_partial(p, h, sizeof(h), 0);
    peer.rx_frames++;
    if (n < 3) {
        return peer.lowpan_input(p, netif);
    }
    u16_t fc = (u16_t)(h[0] | h[1] << 8);
    u8_t seq = h[2];
    if (FC_TYPE(fc) == 2) { /* an ACK: lwIP does not wait for any */
        peer.rx_acks++;
        pbuf_free(p);
        return ERR_OK;
    }
    unsigned dlen = FC_DST_MODE(fc) == 2 ? 2 : FC_DST_MODE(fc) == 3 ? 8 : 0;
    unsigned slen = FC_SRC_MODE(fc) == 2 ? 2 : FC_SRC_MODE(fc) == 3 ? 8 : 0;
    unsigned off = 3 + (dlen ? 2 : 0);
    unsigned soff = off + dlen + ((fc & FC_PANC) || !slen ? 0 : 2);
    if (FC_TYPE(fc) != 1 || !dlen || soff + slen > n) {
        return peer.lowpan_input(p, netif);
    }
    bool bcast = dlen == 2 && h[off] == 0xff && h[off + 1] == 0xff;
    if (!bcast && !to_us(&h[off], dlen)) {
        /* a radio's address filter (802.15.4-2015 6.7.2) */
        peer.rx_not_ours++;
        pbuf_free(p);
        return ERR_OK;
    }
    if (!bcast && (fc & FC_AR)) {
        /* an Imm-Ack, aTurnaroundTime after the frame (802.15.4-2015 6.7.4.2) */
        u8_t ack[5] = { 0x02, 0x00, seq };
        u16_t crc = crc16_kermit(ack, 3);
        ack[3] = (u8_t)crc;
        ack[4] = (u8_t)(crc >> 8);
        struct pbuf *a = pbuf_alloc(PBUF_RAW, sizeof(ack), PBUF_RAM);
        if (a) {
            /* ZEP radios (RIOT's socket_zep, Contiki-NG's, wren's) take a
             * datagram as its frame's end (RX-done): the ACK goes on the
             * air aTurnaroundTime after it, and its own datagram marks its
             * end, the ACK's airtime later */
            struct timespec t;
            clock_gettime(CLOCK_MONOTONIC, &t);
            ts_add(&t, TURNAROUND_NS + ACK_NS);
            sleep_until(&t);
            pbuf_take(a, ack, sizeof(ack));
            if (peer.zep_linkoutput(netif, a) == ERR_OK) {
                peer.rx_acks_sent++;
            }
            pbuf_free(a);
            ts_add(&t, SIFS_NS);
            if (ts_before(&peer.air_free, &t)) {
                peer.air_free = t;
            }
        }
    }
    if (slen && slen == peer.last_src_len && seq == peer.last_seq &&
        memcmp(peer.last_src, &h[soff], slen) == 0) {
        peer.rx_dups++;
        pbuf_free(p);
        return ERR_OK;
    }
    memcpy(peer.last_src, &h[soff], slen);
    peer.last_src_len = (u8_t)slen;
    peer.last_seq = seq;
    if (slen == 2) {
        return short_source_input(p, netif, fc, soff);
    }
    return peer.lowpan_input(p, netif);
}

/* The tap thread sees every datagram before lwIP's thread does: it notes
 * the ACKs addressed to us here, so that radio_output (in lwIP's thread)
 * can wait for one. */
static err_t tap_input(struct pbuf *p, struct netif *inp)
{
    u8_t b[14 + 60 + 8 + 32 + 5];
    u16_t n = pbuf_copy_partial(p, b, sizeof(b), 0);
    if (n >= 14 + 20 && b[12] == 0x08 && b[13] == 0x00 && b[14 + 9] == 17) {
        unsigned ihl = (b[14] & 15u) * 4, u = 14 + ihl, z = u + 8;
        if (z + 32 + 5 <= n && (unsigned)(b[u + 2] << 8 | b[u + 3]) == peer.zep_port &&
            b[z] == 'E' && b[z + 1] == 'X' && b[z + 2] == 2 && b[z + 3] == 1 &&
            b[z + 31] == 5 && (b[z + 32] & 7) == 2) {
            pthread_mutex_lock(&peer.ack_lock);
            peer.ack_seq = b[z + 34];
            pthread_cond_broadcast(&peer.ack_cond);
            pthread_mutex_unlock(&peer.ack_lock);
        }
    }
    return tcpip_input(p, inp);
}

static bool wait_ack(u8_t seq, long wait_ns)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    ts_add(&until, wait_ns);
    pthread_mutex_lock(&peer.ack_lock);
    while (peer.ack_seq != seq) {
        if (pthread_cond_timedwait(&peer.ack_cond, &peer.ack_lock, &until) == ETIMEDOUT) {
            break;
        }
    }
    bool got = peer.ack_seq == seq;
    pthread_mutex_unlock(&peer.ack_lock);
    return got;
}

/* lowpan6 hands zepif each fragment at once, as on a wire; a radio sends
 * one frame at a time (802.15.4-2015 6.2.4, 6.7.4): each takes its airtime,
 * one that asks for an ACK waits for it (macAckWaitDuration, plus the time
 * a datagram takes through the kernel and the peer's process, as wren's ZEP
 * allows) and is sent again (macMaxFrameRetries 3) after a random backoff,
 * and the interframe space follows. A datagram marks the end of its frame
 * (RX-done, as RIOT's socket_zep, Contiki-NG's and wren's ZEP radios read
 * it): it leaves when the frame's airtime has passed. */
#define ACK_WAIT_NS (864000L + 20000000L)
#define MAX_FRAME_RETRIES 3
#define BACKOFF_NS 320000L /* aUnitBackoffPeriod, 20 symbols */

static err_t radio_output(struct netif *netif, struct pbuf *p)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (ts_before(&now, &peer.air_free)) {
        sleep_until(&peer.air_free);
    }
    u8_t fc0 = pbuf_get_at(p, 0), seq = pbuf_get_at(p, 2);
    long air = (long)(p->tot_len + 6) * OCTET_NS;
    long ifs = p->tot_len > 18 ? LIFS_NS : SIFS_NS; /* the MPDU, FCS included */
    err_t e = ERR_OK;
    for (int attempt = 0; attempt <= MAX_FRAME_RETRIES; attempt++) {
        if (attempt) {
            peer.tx_retries++;
            struct timespec t;
            clock_gettime(CLOCK_MONOTONIC, &t);
            ts_add(&t, (long)(rand() % 8) * BACKOFF_NS); /* BE 3 */
            sleep_until(&t);
        }
        pthread_mutex_lock(&peer.ack_lock);
        peer.ack_seq = -1;
        pthread_mutex_unlock(&peer.ack_lock);
        struct timespec end;
        clock_gettime(CLOCK_MONOTONIC, &end);
        ts_add(&end, air); /* on the air; its datagram marks its end */
        sleep_until(&end);
        e = peer.zep_linkoutput(netif, p);
        if (e != ERR_OK) {
            peer.tx_errors++;
            break;
        }
        peer.tx_frames++;
        if (!(fc0 & FC_AR) || wait_ack(seq, TURNAROUND_NS + ACK_NS + ACK_WAIT_NS)) {
            break;
        }
        if (attempt == MAX_FRAME_RETRIES) {
            peer.tx_no_ack++;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &now); /* the frame (and its ACK) has ended */
    ts_add(&now, ifs);
    peer.air_free = now;
    return e;
}

/* ---- UDP ---------------------------------------------------------------- */

static void udp_rx(void *arg, struct udp_pcb *pcb, struct pbuf *p, const ip_addr_t *addr,
                   u16_t port)
{
    (void)arg;
    if (!pattern_ok(p, 0)) {
        peer.bad++;
    } else {
        peer.received++;
        if (peer.n_sizes < MAX_SIZES) {
            peer.sizes[peer.n_sizes++] = p->tot_len;
        }
        if (peer.echo && udp_sendto(pcb, p, addr, port) == ERR_OK) {
            peer.echoed++;
        }
    }
    pbuf_free(p);
}

static void cmd_udp(char **argv, int argc)
{
    if (argc >= 3 && strcmp(argv[1], "bind") == 0) {
        if (peer.udp) {
            udp_remove(peer.udp);
        }
        peer.udp = udp_new_ip_type(IPADDR_TYPE_V6);
        if (!peer.udp || udp_bind(peer.udp, IP6_ADDR_ANY, (u16_t)atoi(argv[2])) != ERR_OK) {
            say("error: cannot bind UDP port %s\n", argv[2]);
            return;
        }
        peer.echo = argc < 4 || strcmp(argv[3], "sink") != 0;
        peer.received = peer.bad = peer.echoed = 0;
        peer.n_sizes = 0;
        udp_recv(peer.udp, udp_rx, NULL);
        say("udp: bound %s (%s)\nok\n", argv[2], peer.echo ? "echo" : "sink");
    } else if (argc >= 5 && strcmp(argv[1], "send") == 0) {
        ip_addr_t dst;
        if (!peer.udp) {
            say("error: udp bind first\n");
            return;
        }
        if (!ipaddr_aton(argv[2], &dst) || !IP_IS_V6(&dst)) {
            say("error: bad address %s\n", argv[2]);
            return;
        }
        ip6_addr_assign_zone(ip_2_ip6(&dst), IP6_UNICAST, &peer.zep);
        int size = atoi(argv[4]), count = argc >= 6 ? atoi(argv[5]) : 1, sent = 0, failed = 0;
        for (int i = 0; i < count; i++) {
            struct pbuf *p = pbuf_alloc(PBUF_TRANSPORT, (u16_t)size, PBUF_RAM);
            if (!p) {
                failed++;
                continue;
            }
            pattern(p->payload, (size_t)size);
            err_t e = udp_sendto_if(peer.udp, p, &dst, (u16_t)atoi(argv[3]), &peer.zep);
            pbuf_free(p);
            if (e == ERR_OK) {
                sent++;
            } else {
                failed++;
            }
        }
        say("udp: sent %d failed %d\nok\n", sent, failed);
    } else if (argc >= 2 && strcmp(argv[1], "close") == 0) {
        if (peer.udp) {
            udp_remove(peer.udp);
            peer.udp = NULL;
        }
        say("ok\n");
    } else if (argc >= 2 && strcmp(argv[1], "stats") == 0) {
        say("udp: received %lu bad %lu echoed %lu sizes", peer.received, peer.bad, peer.echoed);
        for (unsigned i = 0; i < peer.n_sizes; i++) {
            say("%c%u", i ? ',' : ' ', peer.sizes[i]);
        }
        say("\nok\n");
    } else {
        say("error: usage: udp bind PORT [echo|sink] | udp send ADDR PORT SIZE [COUNT] | "
            "udp stats | udp close\n");
    }
}

/* ---- ping --------------------------------------------------------------- */

static u8_t ping_rx(void *arg, struct raw_pcb *pcb, struct pbuf *p, const ip_addr_t *addr)
{
    (void)arg;
    (void)pcb;
    (void)addr;
    /* p->payload: the IPv6 header */
    if (p->tot_len < IP6_HLEN + 8 || pbuf_get_at(p, 6) != IP6_NEXTH_ICMP6 ||
        pbuf_get_at(p, IP6_HLEN) != ICMP6_TYPE_EREP) {
        return 0;
    }
    u16_t id = (u16_t)(pbuf_get_at(p, IP6_HLEN + 4) << 8 | pbuf_get_at(p, IP6_HLEN + 5));
    if (id != peer.ping_id) {
        return 0;
    }
    if (pattern_ok(p, IP6_HLEN + 8)) {
        peer.ping_rx++;
    } else {
        peer.ping_bad++;
    }
    pbuf_free(p);
    return 1;
}

static void cmd_ping(char **argv, int argc)
{
    ip_addr_t dst;
    if (argc < 2 || !ipaddr_aton(argv[1], &dst) || !IP_IS_V6(&dst)) {
        say("error: usage: ping ADDR [COUNT [SIZE]]\n");
        return;
    }
    ip6_addr_assign_zone(ip_2_ip6(&dst), IP6_UNICAST, &peer.zep);
    int count = argc >= 3 ? atoi(argv[2]) : 3, size = argc >= 4 ? atoi(argv[3]) : 56;
    peer.ping_id++;
    peer.ping_rx = peer.ping_bad = 0;
    int sent = 0;
    for (int i = 0; i < count; i++) {
        struct pbuf *p = pbuf_alloc(PBUF_IP, (u16_t)(8 + size), PBUF_RAM);
        if (p) {
            u8_t *b = p->payload;
            b[0] = ICMP6_TYPE_EREQ;
            b[1] = 0;
            b[2] = b[3] = 0; /* checksum: raw_sendto fills it in (chksum_reqd) */
            b[4] = (u8_t)(peer.ping_id >> 8);
            b[5] = (u8_t)peer.ping_id;
            b[6] = (u8_t)(i >> 8);
            b[7] = (u8_t)i;
            pattern(b + 8, (size_t)size);
            if (raw_sendto(peer.icmp, p, &dst) == ERR_OK) {
                sent++;
            }
            pbuf_free(p);
        }
        UNLOCK_TCPIP_CORE();
        usleep(200 * 1000);
        LOCK_TCPIP_CORE();
    }
    for (int w = 0; w < 30 && peer.ping_rx + peer.ping_bad < (unsigned long)sent; w++) {
        UNLOCK_TCPIP_CORE();
        usleep(100 * 1000);
        LOCK_TCPIP_CORE();
    }
    say("ping: %d transmitted, %lu received, %lu bad\nok\n", sent, peer.ping_rx, peer.ping_bad);
}

/* ---- state -------------------------------------------------------------- */

static const char *addr_state(u8_t s)
{
    if (ip6_addr_isinvalid(s)) {
        return "invalid";
    }
    if (ip6_addr_istentative(s)) {
        return "tentative";
    }
    if (ip6_addr_isduplicated(s)) {
        return "duplicated";
    }
    if (ip6_addr_ispreferred(s)) {
        return "preferred";
    }
    return "deprecated";
}

static void cmd_ifconfig(void)
{
    const struct netif *n = &peer.zep;
    say("lwip: hwaddr");
    for (int i = 0; i < n->hwaddr_len; i++) {
        say("%c%02x", i ? ':' : ' ', n->hwaddr[i]);
    }
    say(" mtu %u\n", n->mtu);
    for (int i = 0; i < LWIP_IPV6_NUM_ADDRESSES; i++) {
        u8_t st = netif_ip6_addr_state(n, i);
        if (!ip6_addr_isinvalid(st)) {
            say("inet6 %s %s\n", ip6addr_ntoa(netif_ip6_addr(n, i)), addr_state(st));
        }
    }
    say("ok\n");
}

static void cmd_nd(void)
{
    static const char *const states[] = { "none", "incomplete", "reachable", "stale", "delay",
                                          "probe" };
    for (int i = 0; i < LWIP_ND6_NUM_NEIGHBORS; i++) {
        const struct nd6_neighbor_cache_entry *e = &neighbor_cache[i];
        if (e->state == ND6_NO_ENTRY) {
            continue;
        }
        say("neighbor %s lladdr", ip6addr_ntoa(&e->next_hop_address));
        for (int k = 0; k < peer.zep.hwaddr_len; k++) {
            say("%c%02x", k ? ':' : ' ', e->lladdr[k]);
        }
        say(" %s%s\n", e->state < 6 ? states[e->state] : "?", e->isrouter ? " router" : "");
    }
    for (int i = 0; i < LWIP_ND6_NUM_ROUTERS; i++) {
        const struct nd6_router_list_entry *r = &default_router_list[i];
        if (r->neighbor_entry) {
            say("router %s lifetime %lu\n", ip6addr_ntoa(&r->neighbor_entry->next_hop_address),
                (unsigned long)r->invalidation_timer);
        }
    }
    for (int i = 0; i < LWIP_ND6_NUM_PREFIXES; i++) {
        const struct nd6_prefix_list_entry *x = &prefix_list[i];
        if (x->netif) {
            say("prefix %s/64 on-link\n", ip6addr_ntoa(&x->prefix));
        }
    }
    say("ok\n");
}

static void cmd_context(char **argv, int argc)
{
    ip6_addr_t a;
    if (argc != 3 || !ip6addr_aton(argv[2], &a) || lowpan6_set_context((u8_t)atoi(argv[1]), &a)) {
        say("error: usage: context N PREFIX\n");
        return;
    }
    say("ok\n");
}

static void command(char *line)
{
    char *argv[8];
    int argc = 0;
    for (char *t = strtok(line, " \t\r\n"); t && argc < 8; t = strtok(NULL, " \t\r\n")) {
        argv[argc++] = t;
    }
    if (argc == 0) {
        return;
    }
    LOCK_TCPIP_CORE();
    if (strcmp(argv[0], "ifconfig") == 0) {
        cmd_ifconfig();
    } else if (strcmp(argv[0], "nd") == 0) {
        cmd_nd();
    } else if (strcmp(argv[0], "context") == 0) {
        cmd_context(argv, argc);
    } else if (strcmp(argv[0], "udp") == 0) {
        cmd_udp(argv, argc);
    } else if (strcmp(argv[0], "ping") == 0) {
        cmd_ping(argv, argc);
    } else if (strcmp(argv[0], "stats") == 0) {
        say("radio: rx frames %lu acks %lu dups %lu not-ours %lu short-src %lu; "
            "tx frames %lu retries %lu no-ack %lu acks %lu errors %lu\nok\n",
            peer.rx_frames, peer.rx_acks, peer.rx_dups, peer.rx_not_ours, peer.rx_short_src,
            peer.tx_frames, peer.tx_retries, peer.tx_no_ack, peer.rx_acks_sent, peer.tx_errors);
    } else {
        say("error: unknown command %s\n", argv[0]);
    }
    UNLOCK_TCPIP_CORE();
}

/* ---- start -------------------------------------------------------------- */

static sys_sem_t started;

static void tcpip_started(void *arg)
{
    (void)arg;
    sys_sem_signal(&started);
}

static int hex_bytes(const char *s, u8_t *out, int n)
{
    for (int i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(s, "%2x", &v) != 1) {
            return -1;
        }
        out[i] = (u8_t)v;
        s += 2;
        if (i < n - 1 && *s == ':') {
            s++;
        }
    }
    return *s ? -1 : 0;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        { "tap", required_argument, NULL, 't' },   { "ip4", required_argument, NULL, '4' },
        { "zep", required_argument, NULL, 'z' },   { "zep-port", required_argument, NULL, 'p' },
        { "mac", required_argument, NULL, 'm' },   { "short", required_argument, NULL, 's' },
        { "pan", required_argument, NULL, 'P' },   { "slaac", no_argument, NULL, 'S' },
        { NULL, 0, NULL, 0 },
    };
    const char *tap = NULL, *ip4 = NULL, *zep = NULL;
    unsigned long zport = ZEPIF_DEFAULT_UDP_PORT, pan = 0x0023;
    u8_t mac[6] = { 0 }, shrt[2] = { 0 };
    bool have_mac = false, have_short = false, slaac = false;
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 't': tap = optarg; break;
        case '4': ip4 = optarg; break;
        case 'z': zep = optarg; break;
        case 'p': zport = strtoul(optarg, NULL, 0); break;
        case 'P': pan = strtoul(optarg, NULL, 0); break;
        case 'S': slaac = true; break;
        case 'm':
            if (hex_bytes(optarg, mac, 6) < 0) {
                die("--mac wants 6 bytes, e.g. 02:00:00:00:00:05");
            }
            have_mac = true;
            break;
        case 's':
            if (strlen(optarg) != 4 || hex_bytes(optarg, shrt, 2) < 0) {
                die("--short wants 4 hex digits, e.g. 0005");
            }
            have_short = true;
            break;
        default:
            die("usage: lwip-peer --tap IF --ip4 ADDR --zep HOST:PORT [--zep-port P] "
                "(--mac MAC | --short XXXX) [--pan ID] [--slaac] [--radio]");
        }
    }
    if (!tap || !ip4 || !zep || have_mac == have_short) {
        die("give --tap, --ip4, --zep and one of --mac or --short");
    }
    char host[64];
    const char *colon = strrchr(zep, ':');
    if (!colon || (size_t)(colon - zep) >= sizeof(host)) {
        die("--zep wants HOST:PORT");
    }
    memcpy(host, zep, (size_t)(colon - zep));
    host[colon - zep] = 0;
    ip4_addr_t me, mask, gw;
    if (!ip4addr_aton(ip4, &me) || !ip4addr_aton(host, &gw)) {
        die("bad IPv4 address");
    }
    IP4_ADDR(&mask, 255, 255, 255, 0);
    /* tapif: the TAP is up and addressed already (no ifconfig) */
    setenv("PRECONFIGURED_TAPIF", tap, 1);
    setvbuf(stdout, NULL, _IOLBF, 0);

    if (sys_sem_new(&started, 0) != ERR_OK) {
        die("no semaphore");
    }
    tcpip_init(tcpip_started, NULL);
    sys_sem_wait(&started);

    LOCK_TCPIP_CORE();
    pthread_mutex_init(&peer.ack_lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&peer.ack_cond, &ca);
    peer.ack_seq = -1;
    peer.zep_port = (u16_t)zport;
    netif_add(&peer.tap, &me, &mask, &gw, NULL, tapif_init, tap_input);
    netif_set_default(&peer.tap);
    netif_set_up(&peer.tap);

    ip_addr_copy_from_ip4(peer.zep_dst, gw);
    peer.zep_init.zep_src_udp_port = (u16_t)zport;
    peer.zep_init.zep_dst_udp_port = (u16_t)strtoul(colon + 1, NULL, 10);
    peer.zep_init.zep_dst_ip_addr = &peer.zep_dst;
    peer.zep_init.zep_netif = &peer.tap;
    memcpy(peer.zep_init.addr, mac, 6);
    peer.last_seq = -1;
    /* the input function zepif calls with each frame: lwIP's, through the
     * radio glue */
    peer.lowpan_input = tcpip_6lowpan_input;
    if (!netif_add_noaddr(&peer.zep, &peer.zep_init, zepif_init, radio_input)) {
        die("zepif_init failed");
    }
    peer.lowpan_input = lowpan6_input; /* we are in lwIP's thread there */
    lowpan6_set_pan_id((u16_t)pan);
    if (have_short) {
        /* see the header: the netif speaks from its short address */
        peer.zep.hwaddr_len = 2;
        memcpy(peer.zep.hwaddr, shrt, 2);
        lowpan6_set_short_addr(shrt[0], shrt[1]);
        ip6_addr_t ll;
        IP6_ADDR(&ll, PP_HTONL(0xfe800000UL), 0, PP_HTONL(0x000000ffUL),
                 lwip_htonl(0xfe000000UL | (u32_t)shrt[0] << 8 | shrt[1]));
        netif_ip6_addr_set(&peer.zep, 0, &ll);
        netif_ip6_addr_set_state(&peer.zep, 0, IP6_ADDR_TENTATIVE);
    } else {
        netif_create_ip6_linklocal_address(&peer.zep, 1);
    }
    peer.zep_linkoutput = peer.zep.linkoutput;
    peer.zep.linkoutput = radio_output;
    netif_set_ip6_autoconfig_enabled(&peer.zep, slaac ? 1 : 0);
    netif_set_up(&peer.zep);
    netif_set_link_up(&peer.zep);

    peer.icmp = raw_new_ip_type(IPADDR_TYPE_V6, IP6_NEXTH_ICMP6);
    if (!peer.icmp) {
        die("no raw pcb");
    }
    peer.icmp->chksum_reqd = 1;
    peer.icmp->chksum_offset = 2;
    raw_recv(peer.icmp, ping_rx, NULL);
    peer.ping_id = (u16_t)(getpid() & 0xffff);
    UNLOCK_TCPIP_CORE();

    say("lwip-peer: lwIP %s up\n", LWIP_VERSION_STRING);
    char line[256];
    while (fgets(line, sizeof(line), stdin)) {
        if (strncmp(line, "exit", 4) == 0) {
            break;
        }
        command(line);
    }
    return 0;
}

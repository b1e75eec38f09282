/*
 * wren-zep-hub: a ZEP dispatcher, so that several wren-node processes (or
 * RIOT native instances) share one 802.15.4 channel over UDP.
 *
 *   wren-zep-hub [--port PORT] [--pcap FILE] [--quiet]
 *
 * It listens on UDP PORT (default 17754, on IPv6 and IPv4) and forwards
 * every ZEP data packet to every other sender it has heard from; a ZEP
 * acknowledgement packet only registers its sender (wren-node sends one at
 * start). Nothing is parsed beyond the type byte: channels, FCSs and the
 * rest are the receivers' business. SIGINT/SIGTERM end it.
 *
 * --pcap FILE writes every ZEP data packet's 802.15.4 frame (with its FCS,
 * LINKTYPE 195) as the hub received it, stamped with the kernel's receive
 * time in nanoseconds. A ZEP datagram marks the END of its frame (RX-done,
 * as wren's ZEP radio, RIOT's socket_zep and Contiki-NG send it), so each
 * record's time is when its frame ended on the air as seen from the hub;
 * the frame began its airtime ((6 + length) * 32 us) before. That is the
 * channel for measuring interframe spaces (end to next start) and ACK
 * turnarounds (frame's end to ACK's end) on the wire. Each record is
 * flushed as it is written.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_PEERS 64

struct peer {
    struct sockaddr_in6 addr;
    unsigned long last; /* packet count when last heard, for replacement */
};

/* pcap with nanosecond timestamps, 802.15.4 with FCS */
static FILE *pcap_open(const char *path)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        return NULL;
    }
    const uint32_t hdr[6] = {0xa1b23c4d, 2 | (4u << 16), 0, 0, 65535, 195};
    if (fwrite(hdr, sizeof(hdr), 1, f) != 1 || fflush(f) != 0) {
        fclose(f);
        return NULL;
    }
    return f;
}

/* The frame of a ZEP v2 data packet (header 32 bytes, length at 31), if it is one. */
static void pcap_frame(FILE *f, const unsigned char *buf, size_t n, const struct timespec *ts)
{
    if (n < 32 || buf[0] != 'E' || buf[1] != 'X' || buf[2] != 2 || buf[3] != 1 ||
        (size_t)buf[31] + 32 > n) {
        return;
    }
    uint32_t rec[4] = {(uint32_t)ts->tv_sec, (uint32_t)ts->tv_nsec, buf[31], buf[31]};
    fwrite(rec, sizeof(rec), 1, f);
    fwrite(buf + 32, buf[31], 1, f);
    fflush(f);
}

/* The kernel's receive time of the datagram, else now. */
static struct timespec rx_time(struct msghdr *mh)
{
    struct timespec ts;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
            memcpy(&ts, CMSG_DATA(c), sizeof(ts));
            return ts;
        }
    }
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts;
}

static int same(const struct sockaddr_in6 *a, const struct sockaddr_in6 *b)
{
    return a->sin6_port == b->sin6_port &&
           memcmp(&a->sin6_addr, &b->sin6_addr, sizeof(a->sin6_addr)) == 0;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"port", required_argument, NULL, 'p'},
        {"quiet", no_argument, NULL, 'q'},
        {"pcap", required_argument, NULL, 'w'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    unsigned long port = 17754;
    int quiet = 0, c;
    char *e;
    const char *pcap_path = NULL;
    while ((c = getopt_long(argc, argv, "p:qhw:", opts, NULL)) != -1) {
        switch (c) {
        case 'p':
            port = strtoul(optarg, &e, 10);
            if (*e || port == 0 || port > 65535) {
                fprintf(stderr, "wren-zep-hub: --port wants 1..65535\n");
                return 2;
            }
            break;
        case 'q':
            quiet = 1;
            break;
        case 'w':
            pcap_path = optarg;
            break;
        default:
            fprintf(c == 'h' ? stdout : stderr,
                    "usage: wren-zep-hub [--port PORT] [--pcap FILE] [--quiet]\n"
                    "  --port PORT  UDP port to listen on (default 17754)\n"
                    "  --pcap FILE  write the 802.15.4 frames received, each stamped (ns) when\n"
                    "               it arrived: the end of the frame's airtime\n"
                    "  --quiet      no messages about members\n");
            return c == 'h' ? 0 : 2;
        }
    }
    int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    int off = 0;
    if (fd < 0 || setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off)) < 0) {
        fprintf(stderr, "wren-zep-hub: cannot make a UDP socket: %s\n", strerror(errno));
        return 1;
    }
    struct sockaddr_in6 me = {
        .sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port), .sin6_addr = IN6ADDR_ANY_INIT};
    if (bind(fd, (struct sockaddr *)&me, sizeof(me)) < 0) {
        fprintf(stderr, "wren-zep-hub: cannot bind UDP port %lu: %s\n", port,
                errno == EADDRINUSE ? "in use by another process" : strerror(errno));
        return 1;
    }
    FILE *pcap = NULL;
    if (pcap_path) {
        int on = 1;
        if ((pcap = pcap_open(pcap_path)) == NULL ||
            setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on)) < 0) {
            fprintf(stderr, "wren-zep-hub: cannot write %s: %s\n", pcap_path, strerror(errno));
            return 1;
        }
    }
    if (!quiet) {
        printf("wren-zep-hub: listening on UDP port %lu\n", port);
        fflush(stdout);
    }
    static struct peer peers[MAX_PEERS];
    unsigned n_peers = 0;
    unsigned long count = 0;
    for (;;) {
        unsigned char buf[2048];
        struct sockaddr_in6 from;
        union {
            char b[CMSG_SPACE(sizeof(struct timespec))];
            struct cmsghdr align;
        } ctl;
        struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
        struct msghdr mh = {.msg_name = &from,
                            .msg_namelen = sizeof(from),
                            .msg_iov = &iov,
                            .msg_iovlen = 1,
                            .msg_control = ctl.b,
                            .msg_controllen = sizeof(ctl.b)};
        ssize_t n = recvmsg(fd, &mh, 0);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            fprintf(stderr, "wren-zep-hub: %s\n", strerror(errno));
            return 1;
        }
        count++;
        unsigned i;
        for (i = 0; i < n_peers && !same(&peers[i].addr, &from); i++) {
        }
        if (i == n_peers) {
            if (n_peers < MAX_PEERS) {
                n_peers++;
            } else {
                /* full: the member heard from longest ago makes room */
                i = 0;
                for (unsigned k = 1; k < n_peers; k++) {
                    i = peers[k].last < peers[i].last ? k : i;
                }
            }
            peers[i].addr = from;
            if (!quiet) {
                printf("wren-zep-hub: member %u joined\n", i);
                fflush(stdout);
            }
        }
        peers[i].last = count;
        /* EX, version, type: acknowledgements stay here */
        if (n >= 4 && buf[0] == 'E' && buf[1] == 'X' && buf[3] == 2) {
            continue;
        }
        for (unsigned k = 0; k < n_peers; k++) {
            if (k != i) {
                sendto(fd, buf, (size_t)n, 0, (struct sockaddr *)&peers[k].addr,
                       sizeof(peers[k].addr));
            }
        }
        /* recorded after forwarding, so that the file's writes delay no
         * frame (its time is the kernel's receive time all the same) */
        if (pcap) {
            struct timespec ts = rx_time(&mh);
            pcap_frame(pcap, buf, (size_t)n, &ts);
        }
    }
}

#define _GNU_SOURCE
#include "host/udp_hub.h"

#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
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

/* a pcap with nanosecond timestamps of the hub's LINKTYPE */
static FILE *pcap_open(const char *path, uint32_t linktype)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        return NULL;
    }
    const uint32_t hdr[6] = {0xa1b23c4d, 2 | (4u << 16), 0, 0, 65535, linktype};
    if (fwrite(hdr, sizeof(hdr), 1, f) != 1 || fflush(f) != 0) {
        fclose(f);
        return NULL;
    }
    return f;
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

/* the datagram's frame as a record, flushed as it is written */
static void pcap_frame(const struct wren_udp_hub *hub, FILE *f, const unsigned char *buf,
                       size_t n, struct msghdr *mh)
{
    size_t off, len;
    if (!hub->frame(buf, n, &off, &len)) {
        return;
    }
    struct timespec ts = rx_time(mh);
    uint32_t rec[4] = {(uint32_t)ts.tv_sec, (uint32_t)ts.tv_nsec, (uint32_t)len, (uint32_t)len};
    fwrite(rec, sizeof(rec), 1, f);
    fwrite(buf + off, len, 1, f);
    fflush(f);
}

static int same(const struct sockaddr_in6 *a, const struct sockaddr_in6 *b)
{
    return a->sin6_port == b->sin6_port &&
           memcmp(&a->sin6_addr, &b->sin6_addr, sizeof(a->sin6_addr)) == 0;
}

/* the member @p from is, joining it if new; @return its index */
static unsigned member(const struct wren_udp_hub *hub, struct peer *peers, unsigned *n_peers,
                       const struct sockaddr_in6 *from, int quiet)
{
    unsigned i;
    for (i = 0; i < *n_peers && !same(&peers[i].addr, from); i++) {
    }
    if (i < *n_peers) {
        return i;
    }
    if (*n_peers < MAX_PEERS) {
        (*n_peers)++;
    } else {
        /* full: the member heard from longest ago makes room */
        i = 0;
        for (unsigned k = 1; k < *n_peers; k++) {
            i = peers[k].last < peers[i].last ? k : i;
        }
    }
    peers[i].addr = *from;
    if (!quiet) {
        printf("%s: member %u joined\n", hub->name, i);
        fflush(stdout);
    }
    return i;
}

static int open_socket(const struct wren_udp_hub *hub, unsigned long port)
{
    int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    int off = 0;
    if (fd < 0 || setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off)) < 0) {
        fprintf(stderr, "%s: cannot make a UDP socket: %s\n", hub->name, strerror(errno));
        return -1;
    }
    struct sockaddr_in6 me = {
        .sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port), .sin6_addr = IN6ADDR_ANY_INIT};
    if (bind(fd, (struct sockaddr *)&me, sizeof(me)) < 0) {
        fprintf(stderr, "%s: cannot bind UDP port %lu: %s\n", hub->name, port,
                errno == EADDRINUSE ? "in use by another process" : strerror(errno));
        return -1;
    }
    return fd;
}

static int relay(const struct wren_udp_hub *hub, int fd, FILE *pcap, int quiet)
{
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
        struct msghdr mh = {.msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = &iov,
                            .msg_iovlen = 1, .msg_control = ctl.b,
                            .msg_controllen = sizeof(ctl.b)};
        ssize_t n = recvmsg(fd, &mh, 0);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            fprintf(stderr, "%s: %s\n", hub->name, strerror(errno));
            return 1;
        }
        unsigned i = member(hub, peers, &n_peers, &from, quiet);
        peers[i].last = ++count;
        if (!hub->relayed(buf, (size_t)n)) {
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
            pcap_frame(hub, pcap, buf, (size_t)n, &mh);
        }
    }
}

static int usage(const struct wren_udp_hub *hub, int c)
{
    fprintf(c == 'h' ? stdout : stderr,
            "usage: %s [--port PORT] [--pcap FILE] [--quiet]\n"
            "  --port PORT  UDP port to listen on (default %lu)\n"
            "%s"
            "  --quiet      no messages about members\n",
            hub->name, hub->default_port, hub->pcap_help);
    return c == 'h' ? 0 : 2;
}

int wren_udp_hub_main(const struct wren_udp_hub *hub, int argc, char **argv)
{
    static const struct option opts[] = {
        {"port", required_argument, NULL, 'p'}, {"quiet", no_argument, NULL, 'q'},
        {"pcap", required_argument, NULL, 'w'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    unsigned long port = hub->default_port;
    int quiet = 0, c;
    char *e;
    const char *pcap_path = NULL;
    while ((c = getopt_long(argc, argv, "p:qhw:", opts, NULL)) != -1) {
        if (c == 'p') {
            port = strtoul(optarg, &e, 10);
            if (*e || port == 0 || port > 65535) {
                fprintf(stderr, "%s: --port wants 1..65535\n", hub->name);
                return 2;
            }
        } else if (c == 'q') {
            quiet = 1;
        } else if (c == 'w') {
            pcap_path = optarg;
        } else {
            return usage(hub, c);
        }
    }
    int fd = open_socket(hub, port);
    if (fd < 0) {
        return 1;
    }
    FILE *pcap = NULL;
    int on = 1;
    if (pcap_path && ((pcap = pcap_open(pcap_path, hub->linktype)) == NULL ||
                      setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on)) < 0)) {
        fprintf(stderr, "%s: cannot write %s: %s\n", hub->name, pcap_path, strerror(errno));
        return 1;
    }
    if (!quiet) {
        printf("%s: listening on UDP port %lu\n", hub->name, port);
        fflush(stdout);
    }
    return relay(hub, fd, pcap, quiet);
}

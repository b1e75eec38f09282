/*
 * wren-zep-hub: a ZEP dispatcher, so that several wren-node processes (or
 * RIOT native instances) share one 802.15.4 channel over UDP.
 *
 *   wren-zep-hub [--port PORT] [--quiet]
 *
 * It listens on UDP PORT (default 17754, on IPv6 and IPv4) and forwards
 * every ZEP data packet to every other sender it has heard from; a ZEP
 * acknowledgement packet only registers its sender (wren-node sends one at
 * start). Nothing is parsed beyond the type byte: channels, FCSs and the
 * rest are the receivers' business. SIGINT/SIGTERM end it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_PEERS 64

struct peer {
    struct sockaddr_in6 addr;
    unsigned long last; /* packet count when last heard, for replacement */
};

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
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    unsigned long port = 17754;
    int quiet = 0, c;
    char *e;
    while ((c = getopt_long(argc, argv, "p:qh", opts, NULL)) != -1) {
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
        default:
            fprintf(c == 'h' ? stdout : stderr, "usage: wren-zep-hub [--port PORT] [--quiet]\n");
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
        socklen_t flen = sizeof(from);
        ssize_t n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &flen);
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
    }
}

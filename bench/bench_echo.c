/* UDP echo round trips over real Linux sockets, for ./wren bench
 * udp_echo_tap_vs_veth (python/wren/bench.py makes the namespaces, the TAP,
 * the veth pair and the peers, and removes them).
 *
 *   bench_echo server PORT
 *       echo every datagram to [::]:PORT back to its sender, until killed
 *   bench_echo client ADDR PORT SIZE SECONDS
 *       send SIZE-byte datagrams to ADDR (numeric, "fe80::1%tap0" allowed)
 *       port PORT, one at a time, each after the echo of the one before;
 *       first until an echo comes back (the peer may still be starting:
 *       at most 20 s), then for SECONDS of wall-clock time. A datagram
 *       whose echo is not back within 200 ms counts as lost and the next
 *       one goes. Prints "<round trips> <seconds> <lost>".
 *
 * Each datagram carries a sequence number in its first 4 bytes (SIZE >= 4),
 * so a late echo of a lost one is never counted for its successor; the
 * rest of the echo must equal what was sent. Exit 1 if no echo came in
 * the warm-up or an echo differs. */
#define _POSIX_C_SOURCE 200809L

#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_SIZE 1232
#define WAIT_MS 200

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int server(const char *port)
{
    int s = socket(AF_INET6, SOCK_DGRAM, 0);
    struct sockaddr_in6 sa = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT,
                               .sin6_port = htons((uint16_t)atoi(port)) };
    if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        perror("bench_echo server");
        return 2;
    }
    static uint8_t buf[65536];
    for (;;) {
        struct sockaddr_storage from;
        socklen_t fl = sizeof(from);
        ssize_t n = recvfrom(s, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
        if (n >= 0) {
            sendto(s, buf, (size_t)n, 0, (struct sockaddr *)&from, fl);
        }
    }
}

/* One datagram out and its echo back: 1 on an echo, 0 on a timeout, -1 if
 * the echo differs from what was sent. */
static int round_trip(int s, const uint8_t *out, size_t size, uint32_t seq)
{
    static uint8_t in[65536];
    if (send(s, out, size, 0) < 0) {
        /* (ICMPv6 unreachable from a peer still starting: as a loss) */
        struct pollfd p = { .fd = s, .events = POLLIN };
        poll(&p, 1, WAIT_MS);
        return 0;
    }
    double deadline = now_s() + WAIT_MS / 1000.0;
    for (;;) {
        int left = (int)((deadline - now_s()) * 1000.0);
        struct pollfd p = { .fd = s, .events = POLLIN };
        if (left <= 0 || poll(&p, 1, left) <= 0) {
            return 0;
        }
        ssize_t n = recv(s, in, sizeof(in), 0);
        if (n < 4) {
            continue; /* an error queued by an earlier send, or too short */
        }
        uint32_t got = (uint32_t)in[0] << 24 | (uint32_t)in[1] << 16 | (uint32_t)in[2] << 8 | in[3];
        if (got != seq) {
            continue; /* the late echo of a datagram counted lost */
        }
        return (size_t)n == size && memcmp(in, out, size) == 0 ? 1 : -1;
    }
}

static int client(const char *addr, const char *port, size_t size, double seconds)
{
    struct addrinfo hints = { .ai_family = AF_INET6, .ai_socktype = SOCK_DGRAM,
                              .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV };
    struct addrinfo *ai;
    int err = getaddrinfo(addr, port, &hints, &ai);
    if (err != 0) {
        fprintf(stderr, "bench_echo: %s: %s\n", addr, gai_strerror(err));
        return 2;
    }
    int s = socket(AF_INET6, SOCK_DGRAM, 0);
    if (s < 0 || connect(s, ai->ai_addr, ai->ai_addrlen) < 0) {
        perror("bench_echo client");
        return 2;
    }
    freeaddrinfo(ai);
    static uint8_t out[MAX_SIZE];
    for (size_t i = 4; i < size; i++) {
        out[i] = (uint8_t)(i * 31 + 7);
    }
    uint32_t seq = 0;
    int r = 0;
    double warm_end = now_s() + 20.0;
    while (r == 0 && now_s() < warm_end) {
        seq++;
        out[0] = (uint8_t)(seq >> 24), out[1] = (uint8_t)(seq >> 16);
        out[2] = (uint8_t)(seq >> 8), out[3] = (uint8_t)seq;
        r = round_trip(s, out, size, seq);
    }
    if (r != 1) {
        fprintf(stderr, "bench_echo: %s\n", r ? "an echo differs" : "no echo within 20 s");
        return 1;
    }
    unsigned long trips = 0, lost = 0;
    double t0 = now_s(), t = t0;
    while (t - t0 < seconds) {
        seq++;
        out[0] = (uint8_t)(seq >> 24), out[1] = (uint8_t)(seq >> 16);
        out[2] = (uint8_t)(seq >> 8), out[3] = (uint8_t)seq;
        r = round_trip(s, out, size, seq);
        if (r < 0) {
            fprintf(stderr, "bench_echo: echo %lu differs\n", trips);
            return 1;
        }
        trips += (unsigned long)r;
        lost += (unsigned long)!r;
        t = now_s();
    }
    printf("%lu %.6f %lu\n", trips, t - t0, lost);
    close(s);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "server") == 0) {
        return server(argv[2]);
    }
    if (argc == 6 && strcmp(argv[1], "client") == 0) {
        size_t size = strtoul(argv[4], NULL, 10);
        double seconds = strtod(argv[5], NULL);
        if (size >= 4 && size <= MAX_SIZE && seconds > 0) {
            return client(argv[2], argv[3], size, seconds);
        }
    }
    fprintf(stderr, "usage: bench_echo server PORT | client ADDR PORT SIZE(4..%d) SECONDS\n",
            MAX_SIZE);
    return 2;
}

#include "sock/sock_udp.h"

#include <errno.h>
#include <string.h>

#include "core/byteorder.h"
#include "core/node.h"
#include "core/thread.h"
#include "ipv6/ipv6.h"
#include "net/netapi.h"
#include "net/netif.h"
#include "udp/udp.h"
#include "wire/udp.h"
#include "wire/ipv6.h"

/* Whether @p pkt may be queued on @p s: if connected, only what comes from
 * its remote (address :: = any). */
static bool from_remote(const struct wren_sock_udp *s, struct wren_snip *pkt)
{
    if (!s->has_remote) {
        return true;
    }
    struct wren_snip *ips = wren_pkt_search(pkt, WREN_NETTYPE_IPV6);
    struct wren_snip *us = wren_pkt_search(pkt, WREN_NETTYPE_UDP);
    return ips == NULL || us == NULL ||
           ((wren_ipv6_addr_is_unspecified(s->remote.addr) ||
             memcmp(ips->data + IPV6_OFF_SRC, s->remote.addr, 16) == 0) &&
            get_be16(us->data) == s->remote.port);
}

static void sock_handle(struct wren_node *node, struct wren_module *self,
                        const struct wren_msg *msg)
{
    struct wren_sock_udp *s = (struct wren_sock_udp *)self;
    struct wren_snip *pkt = msg->ptr;
    if (msg->type != WREN_MSG_RCV) {
        wren_pktbuf_release(&node->pktbuf, pkt);
        return;
    }
    if (!from_remote(s, pkt)) {
        s->rx_drop_filter++;
        wren_pktbuf_release(&node->pktbuf, pkt);
        return;
    }
    if (wren_sock_q_put(node, &s->rx, pkt) == 0 && s->cb) {
        s->cb(s, WREN_SOCK_EV_RECV, s->cb_arg);
    }
}

static int sock_get(struct wren_node *node, struct wren_module *self, uint16_t opt,
                    uint16_t ctx, void *val, size_t max)
{
    (void)node;
    (void)ctx;
    struct wren_sock_udp *s = (struct wren_sock_udp *)self;
    if (opt == WREN_NETOPT_UDP_CSUM_ELIDED_OK) {
        return wren_netopt_put(val, max, &s->csum_elided_ok, 1);
    }
    return -ENOTSUP;
}

static int sock_set(struct wren_node *node, struct wren_module *self, uint16_t opt,
                    uint16_t ctx, const void *val, size_t len)
{
    (void)node;
    (void)ctx;
    struct wren_sock_udp *s = (struct wren_sock_udp *)self;
    if (opt == WREN_NETOPT_UDP_CSUM_ELIDED_OK) {
        if (len != 1) {
            return -EINVAL;
        }
        s->csum_elided_ok = *(const uint8_t *)val ? 1 : 0;
        return 0;
    }
    return -ENOTSUP;
}

static const struct wren_module_ops sock_ops = {
    .name = "sock_udp", .handle = sock_handle, .get = sock_get, .set = sock_set
};

void wren_sock_udp_accept_csum_elided(struct wren_sock_udp *sock, bool on)
{
    sock->csum_elided_ok = on ? 1 : 0;
}

int wren_sock_udp_create(struct wren_node *node, struct wren_sock_udp *sock,
                         const struct wren_sock_udp_ep *local,
                         const struct wren_sock_udp_ep *remote)
{
    memset(sock, 0, sizeof(*sock));
    sock->module.ops = &sock_ops;
    sock->module.prio = WREN_PRIO_APP;
    sock->node = node;
    if (local) {
        sock->local = *local;
    }
    if (remote) {
        if (remote->port == 0) {
            return -EINVAL;
        }
        sock->remote = *remote;
        sock->has_remote = 1;
    }
    if (sock->local.port == 0) {
        /* an ephemeral port nobody uses, from the node's PRNG */
        for (int tries = 0; tries < 64 && sock->local.port == 0; tries++) {
            uint16_t p = (uint16_t)(WREN_SOCK_EPHEMERAL + wren_node_random_below(node, 16384));
            if (wren_netreg_count(node, WREN_NETTYPE_UDP, p) == 0) {
                sock->local.port = p;
            }
        }
        if (sock->local.port == 0) {
            return -EADDRINUSE;
        }
    } else if (wren_netreg_count(node, WREN_NETTYPE_UDP, sock->local.port)) {
        return -EADDRINUSE;
    }
    return wren_netreg_register(node, WREN_NETTYPE_UDP, sock->local.port, &sock->module,
                                &sock->reg);
}

void wren_sock_udp_close(struct wren_sock_udp *sock)
{
    wren_netreg_unregister(sock->node, WREN_NETTYPE_UDP, &sock->reg);
    wren_sock_q_close(sock->node, &sock->rx);
}

void wren_sock_udp_set_cb(struct wren_sock_udp *sock, wren_sock_udp_cb cb, void *arg)
{
    sock->cb = cb;
    sock->cb_arg = arg;
}

ssize_t wren_sock_udp_send(struct wren_sock_udp *sock, const void *data, size_t len,
                           const struct wren_sock_udp_ep *remote)
{
    struct wren_node *node = sock->node;
    struct wren_pktbuf *pb = &node->pktbuf;
    if (remote == NULL) {
        if (!sock->has_remote) {
            return -ENOTCONN;
        }
        remote = &sock->remote;
    }
    if (remote->port == 0 || wren_ipv6_addr_is_unspecified(remote->addr) ||
        len > UINT16_MAX - 8u) {
        return -EINVAL;
    }
    /* IPv6 header, UDP header and payload in one allocation, end to end */
    static const uint8_t types[3] = { WREN_NETTYPE_IPV6, WREN_NETTYPE_UDP, WREN_NETTYPE_UNDEF };
    const uint16_t sizes[3] = { IPV6_HDR_LEN, UDP_HDR_LEN, (uint16_t)len };
    struct wren_snip *ip = wren_pktbuf_add_chain(pb, len ? 3 : 2, sizes, types, NULL);
    if (ip == NULL) {
        return -ENOBUFS;
    }
    /* an unspecified local address leaves the source to the layers below */
    wren_ipv6_hdr_init(ip->data, sock->local.addr, remote->addr, IPV6_NH_UDP);
    uint8_t *u = ip->next->data;
    put_be16(u, sock->local.port);
    put_be16(u + 2, remote->port);
    memset(u + 4, 0, 4); /* length and checksum: the UDP layer's */
    if (len) {
        memcpy(ip->next->next->data, data, len);
    }
    uint8_t netif = remote->netif ? remote->netif : sock->local.netif;
    if (netif) {
        struct wren_snip *nh = wren_netif_hdr_add(pb, ip, NULL, 0, NULL, 0);
        if (nh == NULL) {
            wren_pktbuf_release(pb, ip);
            return -ENOBUFS;
        }
        wren_netif_hdr(nh)->if_id = netif;
        ip = nh;
    }
    if (wren_netapi_dispatch(node, WREN_NETTYPE_UDP, WREN_NETREG_DEMUX_ALL, WREN_MSG_SND, ip) == 0) {
        return -ENOBUFS;
    }
    return (ssize_t)len;
}

int wren_sock_udp_next_dst(const struct wren_sock_udp *sock, uint8_t local[16])
{
    if (sock->rx.len == 0) {
        return -EAGAIN;
    }
    struct wren_snip *ips = wren_pkt_search(sock->rx.q[sock->rx.head], WREN_NETTYPE_IPV6);
    memset(local, 0, 16);
    if (ips) {
        wren_ipv6_addr_copy(local, ips->data + IPV6_OFF_DST);
    }
    return 0;
}

ssize_t wren_sock_udp_recv(struct wren_sock_udp *sock, void *buf, size_t max,
                           uint64_t timeout_us, struct wren_sock_udp_ep *remote)
{
    struct wren_node *node = sock->node;
    int err = 0;
    struct wren_snip *pkt = wren_sock_q_get(node, &sock->rx, timeout_us, &err);
    if (pkt == NULL) {
        return err;
    }
    /* too large: its first @p max bytes, so that the caller can answer it */
    ssize_t res = pkt->size > max ? -ENOBUFS : (ssize_t)pkt->size;
    size_t n = pkt->size > max ? max : pkt->size;
    if (n) {
        memcpy(buf, pkt->data, n);
    }
    if (remote) {
        struct wren_snip *ips = wren_pkt_search(pkt, WREN_NETTYPE_IPV6);
        struct wren_snip *us = wren_pkt_search(pkt, WREN_NETTYPE_UDP);
        struct wren_snip *nh = wren_pkt_search(pkt, WREN_NETTYPE_NETIF);
        memset(remote, 0, sizeof(*remote));
        if (ips) {
            wren_ipv6_addr_copy(remote->addr, ips->data + IPV6_OFF_SRC);
        }
        remote->port = us ? get_be16(us->data) : 0;
        remote->netif = nh ? wren_netif_hdr_if(nh) : 0;
    }
    wren_pktbuf_release(&node->pktbuf, pkt);
    return res;
}

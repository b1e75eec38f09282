#include "sock/sock_ip.h"

#include <errno.h>
#include <string.h>

#include "core/node.h"
#include "icmpv6/icmpv6.h"
#include "ipv6/ipv6.h"
#include "net/netapi.h"
#include "net/netif.h"
#include "wire/ipv6.h"

static void sock_ip_handle(struct wren_node *node, struct wren_module *self,
                           const struct wren_msg *msg)
{
    struct wren_sock_ip *s = (struct wren_sock_ip *)self;
    if (msg->type != WREN_MSG_RCV) {
        wren_pktbuf_release(&node->pktbuf, msg->ptr);
        return;
    }
    if (wren_sock_q_put(node, &s->rx, msg->ptr) == 0 && s->cb) {
        s->cb(s, s->cb_arg);
    }
}

static const struct wren_module_ops sock_ip_ops = { .name = "sock_ip", .handle = sock_ip_handle };

int wren_sock_ip_create(struct wren_node *node, struct wren_sock_ip *sock,
                        const struct wren_sock_ip_ep *local, uint8_t proto)
{
    memset(sock, 0, sizeof(*sock));
    sock->module.ops = &sock_ip_ops;
    sock->module.prio = WREN_PRIO_APP;
    sock->node = node;
    sock->proto = proto;
    if (local) {
        sock->local = *local;
    }
    return wren_netreg_register(node, WREN_NETTYPE_IPV6, proto, &sock->module, &sock->reg);
}

void wren_sock_ip_close(struct wren_sock_ip *sock)
{
    wren_netreg_unregister(sock->node, WREN_NETTYPE_IPV6, &sock->reg);
    wren_sock_q_close(sock->node, &sock->rx);
}

void wren_sock_ip_set_cb(struct wren_sock_ip *sock, wren_sock_ip_cb cb, void *arg)
{
    sock->cb = cb;
    sock->cb_arg = arg;
}

ssize_t wren_sock_ip_send(struct wren_sock_ip *sock, const void *data, size_t len,
                          const struct wren_sock_ip_ep *remote)
{
    struct wren_node *node = sock->node;
    if (remote == NULL || wren_ipv6_addr_is_unspecified(remote->addr) || len > UINT16_MAX) {
        return -EINVAL;
    }
    uint8_t netif = remote->netif ? remote->netif : sock->local.netif;
    /* an unspecified local address leaves the source to the layers below */
    const uint8_t *src = sock->local.addr;
    if (sock->proto == IPV6_NH_ICMPV6) {
        /* ICMPv6 carries a checksum over the pseudo-header: the ICMPv6 layer
         * fills it in (and picks the source) */
        int res = wren_icmpv6_send(node, src, remote->addr, 0, netif, data, len);
        return res < 0 ? res : (ssize_t)len;
    }
    struct wren_pktbuf *pb = &node->pktbuf;
    struct wren_snip *pl = len ? wren_pktbuf_add(pb, NULL, data, len, WREN_NETTYPE_UNDEF) : NULL;
    if (len && pl == NULL) {
        return -ENOBUFS;
    }
    struct wren_snip *ip = wren_ipv6_hdr_add(pb, pl, src, remote->addr, sock->proto, netif);
    if (ip == NULL) {
        wren_pktbuf_release(pb, pl);
        return -ENOBUFS;
    }
    return wren_netapi_dispatch(node, WREN_NETTYPE_IPV6, WREN_NETREG_DEMUX_ALL, WREN_MSG_SND, ip)
               ? (ssize_t)len
               : -ENOBUFS;
}

ssize_t wren_sock_ip_recv(struct wren_sock_ip *sock, void *buf, size_t max, uint64_t timeout_us,
                          struct wren_sock_ip_ep *remote)
{
    int err = 0;
    struct wren_snip *pkt = wren_sock_q_get(sock->node, &sock->rx, timeout_us, &err);
    if (pkt == NULL) {
        return err;
    }
    /* the payload: every snip before the IPv6 header (RX order) */
    struct wren_snip *ips = wren_pkt_search(pkt, WREN_NETTYPE_IPV6);
    size_t len = 0;
    for (struct wren_snip *s = pkt; s && s != ips && s->type != WREN_NETTYPE_IPV6_EXT; s = s->next) {
        len += s->size;
    }
    ssize_t res = (ssize_t)len;
    if (len > max) {
        res = -ENOBUFS;
    } else {
        size_t off = 0;
        for (struct wren_snip *s = pkt; off < len; s = s->next) {
            if (s->size) {
                memcpy((uint8_t *)buf + off, s->data, s->size);
                off += s->size;
            }
        }
        if (remote) {
            struct wren_snip *nh = wren_pkt_search(pkt, WREN_NETTYPE_NETIF);
            memset(remote, 0, sizeof(*remote));
            if (ips) {
                wren_ipv6_addr_copy(remote->addr, ips->data + IPV6_OFF_SRC);
            }
            remote->netif = nh ? wren_netif_hdr_if(nh) : 0;
        }
    }
    wren_pktbuf_release(&sock->node->pktbuf, pkt);
    return res;
}

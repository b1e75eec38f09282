/* Tests of netapi, netreg and netif with the loopback and L2-reflector
 * devices: dispatch to several receivers, GET/SET, send queue limits,
 * packets without a netif header, message-queue exhaustion. */
#include <errno.h>
#include <string.h>

#include "core/byteorder.h"
#include "core/node.h"
#include "drivers/loopback.h"
#include "link/ieee802154_link.h"
#include "net/netapi.h"
#include "net/netif.h"
#include "sim/world.h"
#include "fixture.h"

static struct fx_node *fxn;
static struct wren_node *node;
static struct wren_ieee802154_netif *nif;
static struct wren_loopback *dev;

struct sink {
    struct wren_module module;
    struct wren_netreg_entry reg;
    unsigned got;
    size_t last_len;
    uint8_t last_src[8];
    uint8_t last_src_len;
};

static void sink_handle(struct wren_node *n, struct wren_module *self,
                        const struct wren_msg *msg)
{
    struct sink *s = (struct sink *)self;
    struct wren_snip *pkt = msg->ptr;
    if (msg->type == WREN_MSG_RCV) {
        s->got++;
        s->last_len = pkt->size;
        struct wren_snip *nh = wren_pkt_search(pkt, WREN_NETTYPE_NETIF);
        if (nh) {
            memcpy(s->last_src, wren_netif_hdr(nh)->src, 8);
            s->last_src_len = wren_netif_hdr(nh)->src_len;
        }
    }
    wren_pktbuf_release(&n->pktbuf, pkt);
}

static const struct wren_module_ops sink_ops = { .name = "sink", .handle = sink_handle };

/* a node with an 802.15.4 interface over the L2 reflector or a loopback */
static void setup(int reflect)
{
    fxn = fx_node(reflect ? FX_REFLECTOR : FX_LOOPBACK);
    node = &fxn->node;
    nif = fxn->nif;
    dev = fxn->lo;
}

static struct wren_snip *raw_packet(size_t len, const uint8_t *dst, uint8_t dst_len)
{
    struct wren_snip *pl = wren_pktbuf_add(&node->pktbuf, NULL, NULL, len, WREN_NETTYPE_UNDEF);
    if (pl == NULL) {
        return NULL;
    }
    memset(pl->data, 0x3f, len);
    struct wren_snip *p = wren_netif_hdr_add(&node->pktbuf, pl, NULL, 0, dst, dst_len);
    if (p == NULL) {
        wren_pktbuf_release(&node->pktbuf, pl);
    }
    return p;
}

#define CHECK_CLEAN() FX_CLEAN(1000)

TEST(test_reflector__frame_comes_back_to_every_receiver)
{
    setup(1);
    struct sink a = { { .ops = &sink_ops, .prio = WREN_PRIO_APP } }, b = { { .ops = &sink_ops, .prio = WREN_PRIO_APP } };
    CHECK_EQ(wren_netreg_register(node, WREN_NETTYPE_UNDEF, WREN_NETREG_DEMUX_ALL, &a.module,
                                  &a.reg), 0);
    CHECK_EQ(wren_netreg_register(node, WREN_NETTYPE_UNDEF, WREN_NETREG_DEMUX_ALL, &b.module,
                                  &b.reg), 0);
    CHECK_EQ(wren_netreg_register(node, WREN_NETTYPE_UNDEF, 5, &b.module, &b.reg), -EALREADY);
    const uint8_t peer[2] = { 0x12, 0x34 };
    for (int i = 0; i < 5; i++) {
        struct wren_snip *p = raw_packet(40 + (size_t)i, peer, 2);
        CHECK(p);
        CHECK_EQ(wren_netapi_send(node, &nif->netif.module, p), 0);
        wren_world_run_until(&fx.world, fx.world.now);
    }
    CHECK_EQ(a.got, 5);
    CHECK_EQ(b.got, 5);
    CHECK_EQ(a.last_len, 44);
    CHECK_EQ(a.last_src_len, 2);
    CHECK_MEM(a.last_src, peer, 2);
    CHECK_EQ(nif->netif.stats.tx_ok, 5);
    CHECK_EQ(nif->netif.stats.rx_frames, 5);
    /* after unregistering one, only the other gets packets */
    wren_netreg_unregister(node, WREN_NETTYPE_UNDEF, &b.reg);
    CHECK_EQ(wren_netreg_count(node, WREN_NETTYPE_UNDEF, WREN_NETREG_DEMUX_ALL), 1);
    CHECK_EQ(wren_netreg_count(node, WREN_NETTYPE_UNDEF, 7), 0); /* exact match */
    wren_netapi_send(node, &nif->netif.module, raw_packet(10, peer, 2));
    wren_world_run_until(&fx.world, fx.world.now);
    CHECK_EQ(a.got, 6);
    CHECK_EQ(b.got, 5);
    CHECK_CLEAN();
}

TEST(test_loopback__broadcast_returns_unicast_to_other_is_filtered)
{
    setup(0);
    struct sink a = { { .ops = &sink_ops, .prio = WREN_PRIO_APP } };
    wren_netreg_register(node, WREN_NETTYPE_UNDEF, WREN_NETREG_DEMUX_ALL, &a.module, &a.reg);
    wren_netapi_send(node, &nif->netif.module, raw_packet(20, NULL, 0));
    const uint8_t other[2] = { 0x00, 0x09 };
    wren_netapi_send(node, &nif->netif.module, raw_packet(20, other, 2));
    wren_world_run_until(&fx.world, 0);
    CHECK_EQ(a.got, 1);
    CHECK_EQ(nif->netif.stats.rx_drop_not_for_us, 1);
    /* with nobody registered, frames are counted as such */
    wren_netreg_unregister(node, WREN_NETTYPE_UNDEF, &a.reg);
    wren_netapi_send(node, &nif->netif.module, raw_packet(20, NULL, 0));
    wren_world_run_until(&fx.world, 0);
    CHECK_EQ(nif->netif.stats.rx_drop_no_receiver, 1);
    CHECK_CLEAN();
}

TEST(test_netif__send_queue_bounded_and_counted)
{
    setup(1);
    struct sink a = { { .ops = &sink_ops, .prio = WREN_PRIO_APP } };
    wren_netreg_register(node, WREN_NETTYPE_UNDEF, WREN_NETREG_DEMUX_ALL, &a.module, &a.reg);
    const uint8_t peer[2] = { 0x00, 0x02 };
    /* handed over all at once (straight to the handler, as queued SND
     * messages would be): the first goes to the device, the queue takes
     * CONFIG_WREN_NETIF_TXQ_LEN, the rest are dropped */
    int n = CONFIG_WREN_NETIF_TXQ_LEN + 4;
    for (int i = 0; i < n; i++) {
        struct wren_msg msg = { .type = WREN_MSG_SND, .ptr = raw_packet(30, peer, 2) };
        nif->netif.module.ops->handle(node, &nif->netif.module, &msg);
    }
    uint16_t qlen;
    CHECK_EQ(wren_netapi_get(node, &nif->netif.module, WREN_NETOPT_TX_QUEUE_LEN, 0, &qlen, 2), 2);
    CHECK_EQ(qlen, CONFIG_WREN_NETIF_TXQ_LEN);
    wren_world_run_until(&fx.world, 0);
    CHECK_EQ(nif->netif.stats.tx_drop_queue, n - 1 - CONFIG_WREN_NETIF_TXQ_LEN);
    /* the reflector returns the burst at link priority, faster than the
     * application-priority sink drains: what the message queue could not
     * take is counted there */
    CHECK_EQ(a.got + node->sched.full_drops, 1 + CONFIG_WREN_NETIF_TXQ_LEN);
    CHECK_CLEAN();
}

TEST(test_netif__bad_packets_dropped_by_reason)
{
    setup(1);
    /* no netif header */
    struct wren_snip *p = wren_pktbuf_add(&node->pktbuf, NULL, "x", 1, WREN_NETTYPE_UNDEF);
    wren_netapi_send(node, &nif->netif.module, p);
    /* a destination length 802.15.4 does not have */
    const uint8_t odd[3] = { 1, 2, 3 };
    wren_netapi_send(node, &nif->netif.module, raw_packet(10, odd, 3));
    /* too long for a frame */
    const uint8_t peer[2] = { 0, 2 };
    wren_netapi_send(node, &nif->netif.module, raw_packet(120, peer, 2));
    wren_world_run_until(&fx.world, 0);
    CHECK_EQ(nif->netif.stats.tx_drop_bad, 3);
    CHECK_EQ(dev->frames, 0);
    CHECK_CLEAN();
}

TEST(test_netapi__get_set_answer_length_or_errno)
{
    setup(1);
    struct wren_module *m = &nif->netif.module;
    uint8_t addr[8];
    CHECK_EQ(wren_netapi_get(node, m, WREN_NETOPT_ADDRESS, 0, addr, sizeof(addr)), 2);
    CHECK_EQ(get_be16(addr), 0x0001);
    CHECK_EQ(wren_netapi_get(node, m, WREN_NETOPT_ADDRESS, 0, addr, 1), -EOVERFLOW);
    const uint8_t na[2] = { 0xbe, 0xef };
    CHECK_EQ(wren_netapi_set(node, m, WREN_NETOPT_ADDRESS, 0, na, 2), 0);
    CHECK_EQ(wren_netapi_get(node, m, WREN_NETOPT_ADDRESS, 0, addr, 2), 2);
    CHECK_MEM(addr, na, 2);
    CHECK_EQ(wren_netapi_set(node, m, WREN_NETOPT_ADDRESS, 0, na, 3), -EINVAL);
    uint16_t v;
    CHECK_EQ(wren_netapi_get(node, m, WREN_NETOPT_DEVICE_TYPE, 0, &v, 2), 2);
    CHECK_EQ(v, WREN_NETDEV_TYPE_IEEE802154);
    CHECK_EQ(wren_netapi_get(node, m, WREN_NETOPT_CHANNEL, 0, &v, 2), -ENOTSUP);
    struct wren_netif_stats st;
    CHECK_EQ(wren_netapi_get(node, m, WREN_NETOPT_STATS, 0, &st, sizeof(st)), sizeof(st));
    uint16_t len = 8;
    CHECK_EQ(wren_netapi_set(node, m, WREN_NETOPT_ADDR_LEN, 0, &len, 2), 0);
    len = 3;
    CHECK_EQ(wren_netapi_set(node, m, WREN_NETOPT_ADDR_LEN, 0, &len, 2), -EINVAL);
    CHECK(wren_netif_get(node, nif->netif.id) == &nif->netif);
    CHECK(wren_netif_get(node, 99) == NULL);
    CHECK_CLEAN();
}

TEST(test_netapi__full_message_queue_releases_packets)
{
    setup(1);
    const uint8_t peer[2] = { 0, 2 };
    int refused = 0;
    for (int i = 0; i < CONFIG_WREN_SCHED_QUEUE_LEN + 5; i++) {
        struct wren_snip *p = raw_packet(10, peer, 2);
        CHECK(p);
        refused += wren_netapi_send(node, &nif->netif.module, p) == -ENOBUFS;
    }
    CHECK_EQ(refused, 5);
    CHECK_EQ(node->sched.full_drops, 5);
    CHECK_CLEAN();
}

TEST(test_netif__two_interfaces_have_distinct_ids)
{
    setup(1);
    struct wren_ieee802154_netif *nif2 = fx_if154_add(fxn);
    int id2 = nif2->netif.id;
    CHECK(id2 > 0 && id2 != nif->netif.id);
    CHECK(node->netifs == &nif->netif && nif->netif.next == &nif2->netif);
    CHECK_CLEAN();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST(test_reflector__frame_comes_back_to_every_receiver),
        FX_TEST(test_loopback__broadcast_returns_unicast_to_other_is_filtered),
        FX_TEST(test_netif__send_queue_bounded_and_counted),
        FX_TEST(test_netif__bad_packets_dropped_by_reason),
        FX_TEST(test_netapi__get_set_answer_length_or_errno),
        FX_TEST(test_netapi__full_message_queue_releases_packets),
        FX_TEST(test_netif__two_interfaces_have_distinct_ids),
    };
    return cmocka_run_group_tests_name("netif", tests, NULL, NULL);
}

/* The unit tests' fixture: building test nodes by hand, and the packet-buffer
 * check at the end of every test (fixture.h). */
#include "fixture.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/byteorder.h"
#include "net/netapi.h"
#include "net/netif.h"
#include "stack/stack.h"
#include "wire/ieee802154.h"

struct fx fx;

/* the state of a node's parts */
struct fx_store {
    struct wren_loopback lo;
    struct wren_sim_radio radio;
    struct wren_ieee802154_netif nif;
    struct wren_ethernet_netif eth;
    struct wren_sixlowpan lp;
    struct wren_ipv6 ip;
    struct wren_icmpv6 icmp;
    struct wren_udp udp;
    struct wren_tcp tcp;
    struct wren_nib nib;
    struct wren_nd_eth nd;
    struct wren_rpl rpl;
    struct wren_lorawan_netif lora;
    struct wren_schc schc;
};

#define FX_DEFAULT_ARENA 6144u
#define FX_DEVICES (FX_LOOPBACK | FX_REFLECTOR | FX_RADIO | FX_ETHERNET | FX_LORA)

static void release(void);

/* the nodes' rt `mem` op: a piece of its own for each request, freed by release() */
static void *fx_mem(void *rt, struct wren_node *node, const struct wren_module_ops *owner,
                    size_t size)
{
    (void)rt;
    (void)node;
    (void)owner;
    void **p = calloc(1, 16 + size); /* [next, pad] then the memory, 16-aligned */
    if (p == NULL) {
        return NULL;
    }
    p[0] = fx.mem;
    fx.mem = p;
    return (uint8_t *)p + 16;
}

unsigned fx_mem_pieces(void)
{
    unsigned n = 0;
    for (void **p = fx.mem; p; p = p[0]) {
        n++;
    }
    return n;
}

int fx_setup(void **state)
{
    if (fx.up) {
        release(); /* the last test's setup failed: cmocka ran no teardown */
    }
    memset(&fx, 0, sizeof(fx));
    fx.up = true;
    fx.seed = 1;
    wren_world_init(&fx.world, 1);
    fx.world_ops = wren_world_rt_ops;
    fx.world_ops.mem = fx_mem;
    if (state) {
        *state = &fx;
    }
    return 0;
}

bool fx_node_clean(const struct fx_node *n)
{
    return wren_pktbuf_is_empty(&n->node.pktbuf) && wren_pktbuf_is_sane(&n->node.pktbuf);
}

int fx_teardown(void **state)
{
    (void)state;
    int bad = 0;
    /* the check first, while everything exists; the world is not run */
    for (unsigned i = 0; i < fx.n_nodes; i++) {
        const struct wren_pktbuf *pb = &fx.nodes[i]->node.pktbuf;
        bool empty = wren_pktbuf_is_empty(pb), sane = wren_pktbuf_is_sane(pb);
        if (!empty || !sane) {
            print_error("teardown: node %u (id %u): packet buffer %s%s%s\n", i,
                        (unsigned)fx.nodes[i]->node.id, empty ? "" : "not empty",
                        !empty && !sane ? ", " : "", sane ? "" : "inconsistent");
            bad++;
        }
    }
    for (unsigned i = 0; i < fx.n_sims; i++) {
        if (!wren_sim_pktbufs_clean(fx.sims[i])) {
            print_error("teardown: simulation %u: a packet buffer is not empty or not "
                        "consistent\n", i);
            bad++;
        }
    }
    for (unsigned i = 0; i < fx.n_pbs; i++) {
        bool empty = wren_pktbuf_is_empty(fx.pbs[i]), sane = wren_pktbuf_is_sane(fx.pbs[i]);
        if (!empty || !sane) {
            print_error("teardown: packet buffer %u %s%s%s\n", i, empty ? "" : "not empty",
                        !empty && !sane ? ", " : "", sane ? "" : "inconsistent");
            bad++;
        }
    }
    release();
    return bad ? -1 : 0;
}

/* Stop and free everything: the world and the medium still point into the
 * nodes (armed timers, radios), so they go first. */
static void release(void)
{
    wren_world_destroy(&fx.world);
    if (fx.medium_up) {
        wren_medium_destroy(&fx.medium);
    }
    if (fx.host_up) {
        wren_host_fini(&fx.host);
    }
    for (unsigned i = 0; i < fx.n_sinks; i++) {
        free(fx.sinks[i]);
    }
    for (unsigned i = 0; i < fx.n_radios; i++) {
        free(fx.radios[i]);
    }
    for (unsigned i = 0; i < fx.n_extra; i++) {
        free(fx.extra[i]);
    }
    for (unsigned i = 0; i < fx.n_nodes; i++) {
        free(fx.nodes[i]->arena);
        free(fx.nodes[i]->store);
        free(fx.nodes[i]);
    }
    for (unsigned i = 0; i < fx.n_sims; i++) {
        wren_sim_free(fx.sims[i]);
    }
    for (unsigned i = 0; i < fx.n_pbs; i++) {
        free(fx.pb_arenas[i]);
        free(fx.pbs[i]);
    }
    for (void **p = fx.mem, **next; p; p = next) {
        next = p[0];
        free(p);
    }
    memset(&fx, 0, sizeof(fx));
}

static struct fx_node *node_alloc(size_t arena, uint32_t id, uint64_t seed,
                                  const struct wren_rt_ops *ops, void *rt)
{
    CHECK(fx.n_nodes < FX_MAX_NODES);
    if (arena == 0) {
        arena = FX_DEFAULT_ARENA;
    }
    struct fx_node *n = calloc(1, sizeof(*n));
    CHECK(n != NULL);
    n->arena_size = arena;
    n->arena = aligned_alloc(8, (arena + 7) & ~(size_t)7);
    n->store = calloc(1, sizeof(*n->store));
    if (n->arena == NULL || n->store == NULL) {
        free(n->arena);
        free(n->store);
        free(n);
        CHECK(!"out of memory");
    }
    fx.nodes[fx.n_nodes++] = n; /* the teardown's from here on */
    wren_node_init(&n->node, ops, rt, n->arena, arena, id, seed);
    return n;
}

/* the interface over the device set up in n->lo / n->radio, then the modules:
 * assembled as every node is (src/stack/stack.h), the state in n->store; an
 * Ethernet interface gets its MAC between the two steps */
static void node_build(struct fx_node *n, unsigned parts)
{
    struct wren_node *node = &n->node;
    struct fx_store *st = n->store;
    struct wren_stack_iface ifs[1];
    struct wren_stack_desc d = { .ifaces = ifs };
    if (parts & (FX_LOOPBACK | FX_REFLECTOR | FX_RADIO)) {
        n->nif = &st->nif;
        ifs[0] = (struct wren_stack_iface){ .link = &wren_link_ieee802154, .state = n->nif,
                                            .dev = parts & FX_RADIO ? &st->radio.netdev
                                                                    : &st->lo.netdev };
        d.n_ifaces = 1;
    } else if (parts & FX_ETHERNET) {
        n->eth = &st->eth;
        ifs[0] = (struct wren_stack_iface){ .link = &wren_link_ethernet, .state = n->eth,
                                            .dev = &st->lo.netdev };
        d.n_ifaces = 1;
    } else if (parts & FX_LORA) {
        n->lora = &st->lora;
        ifs[0] = (struct wren_stack_iface){ .link = &wren_link_lorawan, .state = n->lora,
                                            .dev = &st->lo.netdev };
        d.n_ifaces = 1;
    }
    CHECK_EQ(wren_stack_build(node, &d, NULL, 0, NULL), 0);
    n->netif = node->netifs;
    n->if_id = node->netifs ? node->netifs->id : 0;
    if (parts & FX_ETHERNET) {
        const uint8_t mac[6] = { 0x02, 0x57, 0x52, 0, 0, (uint8_t)node->id };
        CHECK_EQ(wren_netapi_set(node, &n->netif->module, WREN_NETOPT_ADDRESS, 0, mac, 6), 0);
    }
    const struct {
        unsigned part;
        const struct wren_module_ops *def;
        void *state;
        void **field;
    } all[] = {
        { FX_SIXLOWPAN, &wren_sixlowpan_module, &st->lp, (void **)&n->lp },
        { FX_IPV6, &wren_ipv6_module, &st->ip, (void **)&n->ip },
        { FX_ICMPV6, &wren_icmpv6_module, &st->icmp, (void **)&n->icmp },
        { FX_UDP, &wren_udp_module, &st->udp, (void **)&n->udp },
        { FX_TCP, &wren_tcp_module, &st->tcp, (void **)&n->tcp },
        { FX_NIB, &wren_nib_module, &st->nib, (void **)&n->nib },
        { FX_ND_ETH, &wren_nd_eth_module, &st->nd, (void **)&n->nd },
        { FX_RPL, &wren_rpl_module, &st->rpl, (void **)&n->rpl },
        { FX_SCHC, &wren_schc_module, &st->schc, (void **)&n->schc },
    };
    enum { N_ALL = sizeof(all) / sizeof(all[0]) };
    const struct wren_module_ops *mods[N_ALL];
    void *states[N_ALL];
    struct wren_stack_desc m = { .mods = mods, .states = states };
    for (unsigned i = 0; i < N_ALL; i++) {
        if (parts & all[i].part) {
            CHECK(all[i].def->link == 0 || n->if_id); /* NIB, ND: need their interface */
            mods[m.n_mods] = all[i].def;
            states[m.n_mods++] = all[i].state;
            *all[i].field = all[i].state;
        }
    }
    CHECK_EQ(wren_stack_build(node, &m, NULL, 0, NULL), 0);
}

/* fx.medium, started on first use */
static struct wren_medium *medium(void)
{
    if (!fx.medium_up) {
        wren_medium_init(&fx.medium, &fx.world);
        fx.medium_up = true;
    }
    return &fx.medium;
}

/* the device of a node with @p parts, before its interface exists */
static void device_setup(struct fx_node *n, unsigned parts)
{
    struct fx_store *st = n->store;
    CHECK(__builtin_popcount(parts & FX_DEVICES) <= 1);
    if (parts & FX_LOOPBACK) {
        wren_loopback_setup(&st->lo, WREN_NETDEV_TYPE_IEEE802154, 125);
        n->lo = &st->lo;
    } else if (parts & FX_REFLECTOR) {
        wren_reflector_setup(&st->lo);
        n->lo = &st->lo;
    } else if (parts & FX_ETHERNET) {
        wren_loopback_setup(&st->lo, WREN_NETDEV_TYPE_ETHERNET, CONFIG_WREN_LOOPBACK_MTU);
        n->lo = &st->lo;
    } else if (parts & FX_LORA) {
        wren_loopback_setup(&st->lo, WREN_NETDEV_TYPE_LORA, 255);
        n->lo = &st->lo;
    } else if (parts & FX_RADIO) {
        CHECK(wren_medium_add_radio(medium(), &st->radio, 10.0 * fx.medium.n_radios, 0, 0) >= 0);
        n->radio = &st->radio;
    }
}

struct wren_sim_radio *fx_radio(void)
{
    CHECK(fx.n_radios < FX_MAX_RADIOS);
    struct wren_sim_radio *r = calloc(1, sizeof(*r));
    CHECK(r != NULL);
    fx.radios[fx.n_radios++] = r;
    CHECK(wren_medium_add_radio(medium(), r, 10.0 * fx.medium.n_radios, 0, 0) >= 0);
    CHECK_EQ(r->netdev.driver->init(&r->netdev), 0);
    return r;
}

struct fx_node *fx_node_ex(unsigned parts, size_t arena, uint32_t id, uint64_t seed)
{
    struct fx_node *n = node_alloc(arena, id, seed, &fx.world_ops, &fx.world);
    device_setup(n, parts);
    node_build(n, parts);
    return n;
}

struct fx_node *fx_node(unsigned parts)
{
    /* a radio node's id is its radio index (and short address), as in the sim */
    uint32_t id = parts & FX_RADIO ? (fx.medium_up ? fx.medium.n_radios : 0) : fx.n_nodes + 1;
    return fx_node_ex(parts, 0, id, fx.seed);
}

void fx_wire(unsigned parts, size_t arena, uint64_t seed, struct fx_node **a, struct fx_node **b)
{
    CHECK(parts & (FX_LOOPBACK | FX_ETHERNET | FX_LORA));
    struct fx_node *x = node_alloc(arena, 1, seed, &fx.world_ops, &fx.world);
    struct fx_node *y = node_alloc(arena, 2, seed, &fx.world_ops, &fx.world);
    device_setup(x, parts);
    device_setup(y, parts);
    wren_loopback_pair(x->lo, y->lo);
    node_build(x, parts);
    node_build(y, parts);
    *a = x;
    *b = y;
}

struct wren_ieee802154_netif *fx_if154_add(struct fx_node *n)
{
    struct extra_if {
        struct wren_loopback lo;
        struct wren_ieee802154_netif nif;
    } *x;
    CHECK(fx.n_extra < FX_MAX_EXTRA);
    x = calloc(1, sizeof(*x));
    CHECK(x != NULL);
    fx.extra[fx.n_extra++] = x;
    wren_loopback_setup(&x->lo, WREN_NETDEV_TYPE_IEEE802154, 125);
    const struct wren_stack_iface ifs[] = {
        { .link = &wren_link_ieee802154, .dev = &x->lo.netdev, .state = &x->nif },
    };
    const struct wren_stack_desc d = { .ifaces = ifs, .n_ifaces = 1 };
    CHECK_EQ(wren_stack_build(&n->node, &d, NULL, 0, NULL), 0);
    return &x->nif;
}

struct wren_host *fx_host(void)
{
    if (!fx.host_up) {
        CHECK_EQ(wren_host_init(&fx.host), 0);
        fx.host_up = true;
    }
    return &fx.host;
}

struct fx_node *fx_host_node(struct wren_host *host, size_t arena)
{
    struct fx_node *n = node_alloc(arena, 1, 1, &wren_host_rt_ops, host);
    wren_host_set_node(host, &n->node);
    return n;
}

struct wren_sim *fx_sim(uint64_t seed)
{
    CHECK(fx.n_sims < FX_MAX_SIMS);
    struct wren_sim *s = wren_sim_new(seed);
    CHECK(s != NULL);
    fx.sims[fx.n_sims++] = s;
    return s;
}

void fx_sim_done(struct wren_sim *s)
{
    for (unsigned i = 0; i < fx.n_sims; i++) {
        if (fx.sims[i] == s) {
            fx.sims[i] = fx.sims[--fx.n_sims];
            bool clean = wren_sim_pktbufs_clean(s);
            wren_sim_free(s);
            CHECK(clean);
            return;
        }
    }
    CHECK(!"not a fixture simulation");
}

struct wren_pktbuf *fx_pktbuf(size_t size)
{
    CHECK(fx.n_pbs < FX_MAX_PKTBUFS);
    struct wren_pktbuf *pb = calloc(1, sizeof(*pb));
    void *arena = aligned_alloc(8, (size + 7) & ~(size_t)7);
    if (pb == NULL || arena == NULL) {
        free(pb);
        free(arena);
        CHECK(!"out of memory");
    }
    fx.pbs[fx.n_pbs] = pb;
    fx.pb_arenas[fx.n_pbs++] = arena;
    wren_pktbuf_init(pb, arena, size);
    return pb;
}

static void sink_handle(struct wren_node *node, struct wren_module *self,
                        const struct wren_msg *msg)
{
    struct fx_sink *s = (struct fx_sink *)self;
    struct wren_snip *pkt = msg->ptr;
    if (msg->type == WREN_MSG_RCV && pkt) {
        s->got++;
        s->len = pkt->size;
        if (pkt->size) {
            memcpy(s->data, pkt->data, pkt->size < sizeof(s->data) ? pkt->size : sizeof(s->data));
        }
        s->at = wren_node_now(node);
        struct wren_snip *nh = wren_pkt_search(pkt, WREN_NETTYPE_NETIF);
        s->src_len = 0;
        if (nh) {
            memcpy(s->src, wren_netif_hdr(nh)->src, 8);
            s->src_len = wren_netif_hdr(nh)->src_len;
        }
    }
    if (pkt) {
        wren_pktbuf_release(&node->pktbuf, pkt);
    }
}

static const struct wren_module_ops sink_ops = { .name = "fx_sink", .handle = sink_handle };

struct fx_sink *fx_sink(struct fx_node *n, uint8_t type, uint32_t demux)
{
    CHECK(fx.n_sinks < FX_MAX_SINKS);
    struct fx_sink *s = calloc(1, sizeof(*s));
    CHECK(s != NULL);
    fx.sinks[fx.n_sinks++] = s;
    s->module.ops = &sink_ops;
    s->module.prio = WREN_PRIO_APP;
    s->n = n;
    s->type = type;
    CHECK_EQ(wren_netreg_register(&n->node, type, demux, &s->module, &s->reg), 0);
    return s;
}

void fx_run_us(uint64_t us)
{
    wren_world_run_until(&fx.world, fx.world.now + us);
}

void fx_run_until(uint64_t t)
{
    wren_world_run_until(&fx.world, t);
}

void fx_link(const struct fx_node *from, const struct fx_node *to, double prr)
{
    CHECK(from->radio && to->radio);
    CHECK_EQ(wren_medium_set_link(&fx.medium, from->radio->index, to->radio->index, prr), 0);
}

void fx_link2(const struct fx_node *a, const struct fx_node *b)
{
    fx_link(a, b, 1.0);
    fx_link(b, a, 1.0);
}

size_t fx_frame_emit(const struct fx_frame *f, const void *payload, size_t len, uint8_t *buf)
{
    struct ieee802154_frame fr;
    memset(&fr, 0, sizeof(fr));
    fr.hdr.type = IEEE802154_TYPE_DATA;
    fr.hdr.version = IEEE802154_VERSION_2006;
    fr.hdr.dst_mode = IEEE802154_ADDR_SHORT;
    fr.hdr.panid_comp = true;
    fr.hdr.dst_pan = f->pan ? f->pan : WREN_IEEE802154_DEFAULT_PAN;
    fr.hdr.src_pan = fr.hdr.dst_pan;
    fr.hdr.seq = f->seq;
    fr.hdr.ack_req = f->ack_req;
    fr.hdr.frame_pending = f->frame_pending;
    if (f->dst_eui) {
        fr.hdr.dst_mode = IEEE802154_ADDR_EXT;
        memcpy(fr.hdr.dst_addr, f->dst_eui, 8);
    } else {
        put_be16(fr.hdr.dst_addr, f->dst);
    }
    if (f->src_eui) {
        fr.hdr.src_mode = IEEE802154_ADDR_EXT;
        memcpy(fr.hdr.src_addr, f->src_eui, 8);
    } else {
        fr.hdr.src_mode = IEEE802154_ADDR_SHORT;
        put_be16(fr.hdr.src_addr, f->src);
    }
    fr.payload = payload;
    fr.payload_len = len;
    int n = wren_ieee802154_emit(&fr, buf, WREN_PHY_MAX_PSDU - IEEE802154_FCS_LEN);
    CHECK(n > 0);
    put_le16(buf + n, wren_ieee802154_fcs(buf, (size_t)n));
    return (size_t)n + IEEE802154_FCS_LEN;
}

void fx_inject(struct fx_node *n, const uint8_t *psdu, size_t len)
{
    if (n->radio) {
        CHECK_EQ(wren_medium_inject(&fx.medium, n->radio->index, psdu, len), 0);
    } else {
        CHECK(n->lo != NULL && len >= IEEE802154_FCS_LEN);
        CHECK_EQ(wren_loopback_inject(n->lo, psdu, len - IEEE802154_FCS_LEN), 0);
    }
    fx_run_us(1);
}

void fx_clean_at(const char *file, int line, uint64_t us)
{
    fx_run_us(us);
    for (unsigned i = 0; i < fx.n_sims; i++) {
        wren_sim_run(fx.sims[i], wren_sim_now(fx.sims[i]) + us);
    }
    int bad = 0;
    for (unsigned i = 0; i < fx.n_nodes; i++) {
        const struct wren_pktbuf *pb = &fx.nodes[i]->node.pktbuf;
        if (!wren_pktbuf_is_empty(pb) || !wren_pktbuf_is_sane(pb)) {
            print_error("%s:%d: node %u (id %u): packet buffer %s\n", file, line, i,
                        (unsigned)fx.nodes[i]->node.id,
                        wren_pktbuf_is_sane(pb) ? "not empty" : "inconsistent");
            bad++;
        }
    }
    for (unsigned i = 0; i < fx.n_sims; i++) {
        if (!wren_sim_pktbufs_clean(fx.sims[i])) {
            print_error("%s:%d: simulation %u: a packet buffer is not clean\n", file, line, i);
            bad++;
        }
    }
    for (unsigned i = 0; i < fx.n_pbs; i++) {
        if (!wren_pktbuf_is_empty(fx.pbs[i]) || !wren_pktbuf_is_sane(fx.pbs[i])) {
            print_error("%s:%d: packet buffer %u is not clean\n", file, line, i);
            bad++;
        }
    }
    if (bad) {
        wren_test_fail(file, line);
    }
}

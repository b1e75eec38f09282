/* Cortex-M3 image: the NDN stack as a whole node on 802.15.4, beside the IP
 * whole-node image (main_whole_node.c) for the RIOT paper's Figures 14 and
 * 15 (./wren size: whole_node_ndn; ./wren reproduce riot_fig14 riot_fig15).
 *
 * The node: the "ndn" module (forwarder, faces, NDNLPv2) on the 802.15.4
 * link layer over the stand-in device, as the IP image's node has 6LoWPAN,
 * IPv6 and UDP there: the same runtime, device, packet buffer (6,144
 * bytes), stack and heap allocations (link_whole.ld). A consumer
 * application expresses Interests under /c, routed to the link; a producer
 * application answers Interests under /p. The node's neighbour is played by
 * the image (peer_*): it reads the frames the node sends (the device is
 * paired with a second loopback device, the peer's), answers each Interest
 * with a Data, and sends Interests for the producer. The peer stands in for
 * another node: its device and buffers are reported apart, as the paper's
 * application buffers are.
 *
 * At each name length of NAME_LENS (the Name's TLV-VALUE, up to what a
 * frame carries), after a warm-up round, two measured phases between
 * bench_mark() pairs (python/wren/qemu_bench.py traces them):
 *   sender:   from the consumer expressing an Interest to the device having
 *             the whole frame (the paper's Fig. 15 sender interval);
 *   receiver: from the peer's Interest frame handed to the device to the
 *             device having the Data frame: the forwarder's PIT entry with
 *             the producer's face, the producer finding its prepared Data
 *             (the paper's "matching a content chunk"), the Data back to the
 *             link (the paper's receiver interval).
 * Every Interest gets its Data (the consumer's checked by name), the packet
 * buffer ends empty, the stack and heap keep their margins; else exit 1. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "instance.h"
#include "ndn/ndn.h"
#include "ndn/ndn_app.h"
#include "ndn/ndnlp_frag.h"
#include "net/netapi.h"
#include "net/netopt.h"
#include "wire/ieee802154.h"
#include "wire/ndn_tlv.h"

#define PAINT 0xdeadbeefu
#define MARGIN_DIV 4
#define CONTENT_LEN 8
/* Name TLV-VALUE lengths: /c or /p and one component of (len - 5) octets;
 * the sender's Interest fits a frame up to 92, the receiver's Data (with
 * its DigestSha256 signature) up to 56 */
static const uint8_t name_lens[] = { 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 92 };
#define N_LENS (sizeof(name_lens) / sizeof(name_lens[0]))
#define RX_MAX_LEN 56

struct wren_ndn ndn_state;
struct wren_ndn_app app_cons, app_prod;
/* the application's buffer: one packet (reported apart, as the paper) */
uint8_t app_buf[192];
/* the peer: its device and its frames (reported apart: another node's) */
struct wren_loopback peer_dev;
uint8_t peer_rx[128], peer_tx[128];
/* the peer's scratch: names and packets it makes (static: off the node's stack) */
uint8_t peer_name[96], peer_pkt_buf[192], peer_piece[128];
struct wren_ndnlp_frag peer_lp; /* the peer's NDNLPv2 Sequence numbers */
uint8_t peer_seq;               /* its 802.15.4 sequence numbers */
static size_t peer_rx_len;
static unsigned peer_frames;
static int measuring;
/* the producer's prepared Data (the "content chunk" it matches: an
 * application buffer, reported apart with app_buf) */
uint8_t app_chunk[128];
static size_t chunk_len;
static unsigned answered;

__attribute__((noinline)) void bench_mark(int phase);
__attribute__((noinline)) void bench_mark(int phase)
{
    __asm volatile("" : : "r"(phase) : "memory");
}

extern uint32_t _sstack, _estack;
extern char _sheap, _eheap;
static char *heap_brk = &_sheap;
static unsigned heap_refused;
void *_sbrk(ptrdiff_t incr);
void *_sbrk(ptrdiff_t incr)
{
    if (incr > &_eheap - heap_brk || incr < &_sheap - heap_brk) {
        heap_refused++;
        return (void *)-1;
    }
    char *prev = heap_brk;
    heap_brk += incr;
    return prev;
}

static void paint(void)
{
    uint32_t *sp;
    __asm volatile("mov %0, sp" : "=r"(sp));
    for (uint32_t *p = &_sstack; p < sp - 16; p++) {
        *p = PAINT;
    }
}

static uint32_t deepest(void)
{
    const uint32_t *p = &_sstack;
    while (p < &_estack && *p == PAINT) {
        p++;
    }
    return (uint32_t)((const uint8_t *)&_estack - (const uint8_t *)p);
}

static void run(void)
{
    wren_rt_cortexm_run_until(&wren_inst_rt, wren_inst_rt.now + 20000);
}

/* ---- the peer ------------------------------------------------------------ */

/* the node's frame has arrived at the peer's device: take it (a phase ends) */
static void peer_event(struct wren_netdev *dev, enum wren_netdev_event ev)
{
    if (ev == WREN_NETDEV_EV_ISR) {
        dev->driver->isr(dev);
    } else if (ev == WREN_NETDEV_EV_RX_COMPLETE) {
        struct wren_netdev_rx_info info;
        int n = dev->driver->recv(dev, peer_rx, sizeof(peer_rx), &info);
        peer_rx_len = n > 0 ? (size_t)n : 0;
        peer_frames++;
        if (measuring) {
            measuring = 0;
            bench_mark(0);
        }
    }
}

/* a frame from the peer to the node carrying the NDN packet @p pkt: the
 * header of the node's last frame with the addresses swapped */
static size_t peer_frame(const uint8_t *pkt, size_t len)
{
    struct ieee802154_frame f;
    if (wren_ieee802154_parse(peer_rx, peer_rx_len, &f) < 0) {
        return 0;
    }
    struct ieee802154_hdr h = f.hdr;
    h.dst_mode = f.hdr.src_mode;
    h.src_mode = f.hdr.dst_mode;
    memcpy(h.dst_addr, f.hdr.src_addr, 8);
    memcpy(h.src_addr, f.hdr.dst_addr, 8);
    h.dst_pan = f.hdr.src_pan;
    h.src_pan = f.hdr.dst_pan;
    h.seq = ++peer_seq;
    int hl = wren_ieee802154_hdr_emit(&h, peer_tx, sizeof(peer_tx));
    if (hl < 0 || (size_t)hl + 1 + len > peer_dev.mtu) {
        return 0;
    }
    peer_tx[hl] = NDN_IEEE802154_DISPATCH;
    memcpy(peer_tx + hl + 1, pkt, len);
    return (size_t)hl + 1 + len;
}

/* an NDN packet from the peer to the node; one too big for a frame goes in
 * NDNLPv2 pieces (the node puts them back together) */
static int peer_send(const uint8_t *pkt, size_t len)
{
    struct ndnlp_frag_plan plan;
    if (wren_ndnlp_frag_plan(&peer_lp, len, peer_dev.mtu - 16u, &plan) < 0) {
        return -1;
    }
    for (unsigned i = 0; i < plan.count; i++) {
        int n = plan.count == 1 ? (int)len : wren_ndnlp_frag_emit(&plan, pkt, i, peer_piece,
                                                                  sizeof(peer_piece));
        size_t fl = n > 0 ? peer_frame(plan.count == 1 ? pkt : peer_piece, (size_t)n) : 0;
        if (fl == 0 || wren_loopback_inject(&wren_inst_dev, peer_tx, fl) < 0) {
            return -1;
        }
        run();
    }
    return 0;
}

/* the NDN packet in the node's last frame */
static const uint8_t *peer_pkt(size_t *len)
{
    struct ieee802154_frame f;
    if (wren_ieee802154_parse(peer_rx, peer_rx_len, &f) < 0 || f.payload_len < 2 ||
        f.payload[0] != NDN_IEEE802154_DISPATCH) {
        return NULL;
    }
    *len = f.payload_len - 1;
    return f.payload + 1;
}

/* ---- names and packets -------------------------------------------------- */

/* a Name's TLV-VALUE of @p len octets: /<c>/<len - 5 octets>, made unique
 * by @p k; @return its length */
static size_t make_name(uint8_t *v, char c, unsigned len, unsigned k)
{
    v[0] = NDN_T_GENERIC;
    v[1] = 1;
    v[2] = (uint8_t)c;
    v[3] = NDN_T_GENERIC;
    v[4] = (uint8_t)(len - 5);
    for (unsigned i = 5; i < len; i++) {
        v[i] = (uint8_t)('a' + (i + k) % 26);
    }
    v[len - 1] = (uint8_t)('0' + k % 10);
    return len;
}

static int data_for(const uint8_t *name, size_t nlen, uint8_t *out, size_t max)
{
    static const uint8_t content[CONTENT_LEN] = "ndn-m3!";
    struct ndn_data d = { .name = { .v = name, .len = (uint16_t)nlen, .params_idx = -1 },
                          .content = content, .content_len = CONTENT_LEN,
                          .has_content = true };
    return wren_ndn_data_emit(&d, out, max);
}

/* the producer: an Interest under /p, answered with the prepared Data */
static void producer_cb(struct wren_ndn_app *app, void *arg)
{
    (void)arg;
    ssize_t n = wren_ndn_app_recv(app, app_buf, sizeof(app_buf), 0);
    if (n > 0 && chunk_len && wren_ndn_app_send(app, app_chunk, chunk_len) == 0) {
        answered++;
    }
}

/* ---- the two paths ------------------------------------------------------ */

/* the consumer's Interest out (measured when @p phase), the peer's Data back */
static int consume(unsigned len, unsigned k, int phase)
{
    uint8_t *name = peer_name;
    size_t nlen = make_name(name, 'c', len, k);
    struct ndn_interest in = { .name = { .v = name, .len = (uint16_t)nlen, .params_idx = -1 } };
    unsigned before = peer_frames;
    if (phase) {
        measuring = 1;
        bench_mark(phase);
    }
    if (wren_ndn_app_express(&app_cons, &in) < 0) {
        return 0;
    }
    run();
    size_t plen;
    const uint8_t *pkt = peer_frames == before + 1 ? peer_pkt(&plen) : NULL;
    struct ndn_interest got;
    uint8_t *data = peer_pkt_buf;
    if (pkt == NULL || wren_ndn_interest_parse(pkt, plen, &got) < 0) {
        return 0;
    }
    int dl = data_for(got.name.v, got.name.len, data, sizeof(peer_pkt_buf));
    if (dl < 0 || peer_send(data, (size_t)dl) < 0) {
        return 0;
    }
    struct ndn_data d;
    ssize_t n = wren_ndn_app_recv(&app_cons, app_buf, sizeof(app_buf), 0);
    return n > 0 && wren_ndn_data_parse(app_buf, (size_t)n, &d) == 0 && d.name.len == nlen &&
           memcmp(d.name.v, name, nlen) == 0;
}

/* the peer's Interest in, the producer's Data out (measured when @p phase) */
static int produce(unsigned len, unsigned k, int phase)
{
    uint8_t *name = peer_name, *pkt = peer_pkt_buf;
    size_t nlen = make_name(name, 'p', len, k);
    int dl = data_for(name, nlen, app_chunk, sizeof(app_chunk));
    struct ndn_interest in = { .name = { .v = name, .len = (uint16_t)nlen, .params_idx = -1 },
                               .has_nonce = true, .nonce = 0x5eed0000u + k };
    int il = wren_ndn_interest_emit(&in, pkt, sizeof(peer_pkt_buf));
    size_t fl = dl < 0 || il < 0 ? 0 : peer_frame(pkt, (size_t)il);
    if (fl == 0) {
        return 0;
    }
    chunk_len = (size_t)dl;
    unsigned before = peer_frames, was = answered;
    if (phase) {
        measuring = 1;
        bench_mark(phase);
    }
    if (wren_loopback_inject(&wren_inst_dev, peer_tx, fl) < 0) {
        return 0;
    }
    run();
    size_t plen;
    const uint8_t *got = peer_frames == before + 1 ? peer_pkt(&plen) : NULL;
    return got && answered == was + 1 && plen == (size_t)dl && memcmp(got, app_chunk, plen) == 0;
}

/* ---- set-up ------------------------------------------------------------- */

static int assemble(void)
{
    static const struct wren_module_ops *const mods[] = { &wren_ndn_module };
    static void *const states[] = { &ndn_state };
    static const struct wren_stack_iface ifs[] = { WREN_INST_IFACE };
    static const struct wren_stack_desc d = { .ifaces = ifs, .n_ifaces = 1, .mods = mods,
                                              .states = states, .n_mods = 1 };
    wren_loopback_setup(&wren_inst_dev, WREN_NETDEV_TYPE_IEEE802154, 125);
    wren_loopback_setup(&peer_dev, WREN_NETDEV_TYPE_IEEE802154, 125);
    wren_loopback_pair(&wren_inst_dev, &peer_dev);
    peer_dev.netdev.event_cb = peer_event;
    if (wren_inst_init(&d) < 0 || wren_ndn_app_open(&wren_inst_node, &app_cons) < 0 ||
        wren_ndn_app_open(&wren_inst_node, &app_prod) < 0 ||
        wren_ndn_app_register(&app_prod, "/p", 0) < 0) {
        return -1;
    }
    wren_ndn_app_set_cb(&app_prod, producer_cb, NULL);
    /* /c goes to the peer, short address 0x0002 */
    struct wren_ndn_face_cfg fc = { .kind = WREN_NDN_FACE_LINK, .if_id = wren_inst_netif.netif.id,
                                    .addr_len = 2, .addr = { 0x00, 0x02 } };
    int face = wren_netapi_set(&wren_inst_node, &ndn_state.module, WREN_NETOPT_NDN_FACE, 0, &fc,
                               sizeof(fc));
    struct wren_ndn_route r = { .face = (uint8_t)face, .len = 3,
                                .name = { NDN_T_GENERIC, 1, 'c' } };
    return face > 0 && wren_netapi_set(&wren_inst_node, &ndn_state.module,
                                       WREN_NETOPT_NDN_ROUTE, 0, &r, sizeof(r)) >= 0 ? 0 : -1;
}

int main(void)
{
    paint();
    if (assemble() < 0) {
        printf("wren cortex-m3 whole_node_ndn: FAILED: assembly\n");
        return 2;
    }
    wren_rt_cortexm_run_until(&wren_inst_rt, 100000);
    unsigned ok = 0, want = 0, k = 0;
    printf("name lengths:");
    for (unsigned i = 0; i < N_LENS; i++) {
        printf(" %u", name_lens[i]);
    }
    printf("\nreceiver up to: %u\n", RX_MAX_LEN);
    /* per length: a warm-up and a measured consumer round (phases 1, 3, ...),
     * then for lengths up to RX_MAX_LEN a warm-up and a measured producer
     * round; phases alternate sender, receiver while both run */
    for (unsigned i = 0; i < N_LENS; i++) {
        unsigned c = (unsigned)consume(name_lens[i], k++, 0);
        c += (unsigned)consume(name_lens[i], k++, 1);
        unsigned p = 0;
        want += 2;
        if (name_lens[i] <= RX_MAX_LEN) {
            p = (unsigned)produce(name_lens[i], k++, 0);
            p += (unsigned)produce(name_lens[i], k++, 2);
            want += 2;
        }
        if (c + p < 2u + 2u * (name_lens[i] <= RX_MAX_LEN)) {
            printf("name length %u: consumer %u/2, producer %u\n", name_lens[i], c, p);
        }
        ok += c + p;
    }
    wren_ndn_flush(&ndn_state);
    int clean = wren_pktbuf_is_empty(&wren_inst_node.pktbuf) &&
                wren_pktbuf_is_sane(&wren_inst_node.pktbuf);
    unsigned long alloc = (unsigned long)((uint8_t *)&_estack - (uint8_t *)&_sstack);
    printf("wren cortex-m3 whole_node_ndn: %u/%u Interests answered with their Data, pktbuf %s, "
           "high water %lu bytes\n", ok, want, clean ? "empty" : "NOT EMPTY",
           (unsigned long)wren_inst_node.pktbuf.stats.high_water);
    unsigned long deep = deepest();
    printf("wren cortex-m3 whole_node_ndn: deepest stack %lu of %lu bytes allocated, "
           "heap %lu of %lu bytes allocated\n", deep, alloc, (unsigned long)(heap_brk - &_sheap),
           (unsigned long)(&_eheap - &_sheap));
    return ok == want && clean && heap_refused == 0 && deep + deep / MARGIN_DIV <= alloc ? 0 : 1;
}

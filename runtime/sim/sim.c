#include "sim/sim.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "apps/tcp_app.h"
#include "core/byteorder.h"
#include "net/netapi.h"

#include "sim/zep_bridge.h"

struct wren_sim *wren_sim_new(uint64_t seed)
{
    struct wren_sim *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        return NULL;
    }
    s->seed = seed;
    wren_world_init(&s->world, seed);
    wren_medium_init(&s->medium, &s->world);
    return s;
}

void wren_sim_free(struct wren_sim *s)
{
    if (s == NULL) {
        return;
    }
    if (s->zep) {
        wren_sim_zep_close(s->zep);
    }
    /* the medium still lists the bridge's radio: free the bridge after it */
    wren_medium_destroy(&s->medium);
    wren_world_destroy(&s->world);
    free(s->zep);
    for (uint32_t i = 0; i < s->n_nodes; i++) {
        free(s->nodes[i]->arena);
        free(s->nodes[i]->out);
        free(s->nodes[i]->tcp_app);
        free(s->nodes[i]);
    }
    free(s->nodes);
    free(s);
}

void wren_sim_set_range(struct wren_sim *s, double range, double prr)
{
    wren_medium_set_range(&s->medium, range, prr);
}

/* Collect shell output (in the simulator, memory may grow). */
static void out_cb(void *ctx, const char *str)
{
    struct wren_sim_node *sn = ctx;
    size_t n = strlen(str);
    if (sn->out_len + n + 1 > sn->out_cap) {
        size_t cap = (sn->out_len + n + 1) * 2;
        char *o = realloc(sn->out, cap);
        if (o == NULL) {
            return;
        }
        sn->out = o;
        sn->out_cap = cap;
    }
    memcpy(sn->out + sn->out_len, str, n + 1);
    sn->out_len += n;
}

/* The IP half: 6LoWPAN, IPv6 on the 802.15.4 interface, ICMPv6, UDP, shell. */
static int stack_init(struct wren_sim_node *sn)
{
    struct wren_node *node = &sn->node;
    int res;
    if ((res = wren_sixlowpan_init(node, &sn->sixlowpan)) < 0 ||
        (res = wren_ipv6_init(node, &sn->ipv6)) < 0 ||
        (res = wren_icmpv6_init(node, &sn->icmpv6)) < 0 ||
        (res = wren_udp_init(node, &sn->udp)) < 0 ||
        (res = wren_tcp_init(node, &sn->tcp)) < 0 ||
        (res = wren_ipv6_netif_add(&sn->ipv6, sn->netif.netif.id)) < 0 ||
        (res = wren_nib_init(node, &sn->nib, sn->netif.netif.id)) < 0) {
        return res;
    }
    wren_shell_init(&sn->shell, node, out_cb, sn);
    return 0;
}

int wren_sim_add_node(struct wren_sim *s, double x, double y, double z, uint32_t pktbuf_size)
{
    if (s->zep) {
        return -EBUSY; /* node ids are radio indexes: the bridge took the next one */
    }
    if (s->n_nodes == s->cap_nodes) {
        uint32_t cap = s->cap_nodes ? s->cap_nodes * 2 : 64;
        struct wren_sim_node **n = realloc(s->nodes, cap * sizeof(*n));
        if (n == NULL) {
            return -ENOMEM;
        }
        s->nodes = n;
        s->cap_nodes = cap;
    }
    size_t arena_size = pktbuf_size ? pktbuf_size : CONFIG_WREN_PKTBUF_SIZE;
    struct wren_sim_node *sn = calloc(1, sizeof(*sn));
    uint8_t *arena = aligned_alloc(PKTBUF_ALIGN, (arena_size + PKTBUF_ALIGN - 1) &
                                                     ~(size_t)(PKTBUF_ALIGN - 1));
    if (sn == NULL || arena == NULL) {
        free(sn);
        free(arena);
        return -ENOMEM;
    }
    sn->arena = arena;
    sn->arena_size = arena_size;
    uint32_t id = s->n_nodes;
    wren_node_init(&sn->node, &wren_world_rt_ops, &s->world, arena, arena_size, id, s->seed);
    int res = wren_medium_add_radio(&s->medium, &sn->radio, x, y, z);
    if (res < 0) {
        free(arena);
        free(sn);
        return res;
    }
    res = wren_ieee802154_netif_add(&sn->node, &sn->netif, &sn->radio.netdev);
    if (res >= 0) {
        res = stack_init(sn);
    }
    if (res < 0) {
        free(arena);
        free(sn);
        return res;
    }
    s->nodes[s->n_nodes++] = sn;
    s->bytes += sizeof(*sn) + arena_size;
    return (int)id;
}

static struct wren_sim_node *get(struct wren_sim *s, uint32_t id)
{
    return id < s->n_nodes ? s->nodes[id] : NULL;
}

int wren_sim_set_proc_delay(struct wren_sim *s, int32_t id, uint32_t us)
{
    if (id < 0) {
        wren_medium_set_proc_delay(&s->medium, us);
        for (uint32_t i = 0; i < s->n_nodes; i++) {
            s->nodes[i]->radio.proc_delay_us = us;
        }
        return 0;
    }
    struct wren_sim_node *sn = get(s, (uint32_t)id);
    if (sn == NULL) {
        return -EINVAL;
    }
    sn->radio.proc_delay_us = us;
    return 0;
}

int wren_sim_set_link(struct wren_sim *s, uint32_t from, uint32_t to, double prr)
{
    return wren_medium_set_link(&s->medium, from, to, prr);
}

int wren_sim_remove_link(struct wren_sim *s, uint32_t from, uint32_t to)
{
    if (from >= s->n_nodes || to >= s->n_nodes) {
        return -EINVAL;
    }
    wren_medium_remove_link(&s->medium, from, to);
    return 0;
}

int wren_sim_netopt_set(struct wren_sim *s, uint32_t id, uint16_t opt, const void *val,
                        size_t len)
{
    struct wren_sim_node *sn = get(s, id);
    if (sn == NULL) {
        return -EINVAL;
    }
    return wren_netapi_set(&sn->node, &sn->netif.netif.module, opt, 0, val, len);
}

int wren_sim_netopt_get(struct wren_sim *s, uint32_t id, uint16_t opt, void *val, size_t max)
{
    struct wren_sim_node *sn = get(s, id);
    if (sn == NULL) {
        return -EINVAL;
    }
    return wren_netapi_get(&sn->node, &sn->netif.netif.module, opt, 0, val, max);
}

int wren_sim_open_pcap(struct wren_sim *s, const char *path)
{
    return wren_medium_open_pcap(&s->medium, path);
}

int wren_sim_rawgen(struct wren_sim *s, uint32_t id, int32_t dst, uint16_t payload_len,
                    uint32_t interval_us, uint8_t timing, uint32_t count, uint64_t start_us)
{
    struct wren_sim_node *sn = get(s, id);
    if (sn == NULL || sn->app_on || (dst >= 0 && get(s, (uint32_t)dst) == NULL)) {
        return -EINVAL;
    }
    uint8_t addr[2];
    uint8_t alen = 0;
    if (dst >= 0) {
        /* the destination's short address, asked of its interface */
        struct wren_sim_node *d = get(s, (uint32_t)dst);
        if (wren_netapi_get(&d->node, &d->netif.netif.module, WREN_NETOPT_ADDRESS, 0, addr,
                            sizeof(addr)) != 2) {
            return -EINVAL;
        }
        alen = 2;
    }
    int res = wren_rawgen_start(&sn->node, &sn->app, sn->netif.netif.id, addr, alen,
                                payload_len, interval_us, timing, count, start_us);
    if (res == 0) {
        sn->app_on = 1;
    }
    return res;
}

int wren_sim_inject(struct wren_sim *s, uint32_t id, const uint8_t *psdu, size_t len)
{
    return wren_medium_inject(&s->medium, id, psdu, len);
}

int wren_sim_shell(struct wren_sim *s, uint32_t id, const char *line)
{
    struct wren_sim_node *sn = get(s, id);
    if (sn == NULL) {
        return -EINVAL;
    }
    if (sn->tcp_app == NULL && strncmp(line, "tcp", 3) == 0) {
        /* the TCP application's buffers only for nodes that use it */
        sn->tcp_app = calloc(1, sizeof(*sn->tcp_app));
        if (sn->tcp_app == NULL) {
            return -ENOMEM;
        }
        wren_tcp_app_init(sn->tcp_app, &sn->node, out_cb, sn);
        wren_shell_set_tcp(&sn->shell, sn->tcp_app);
        s->bytes += sizeof(*sn->tcp_app);
    }
    int res = wren_shell_exec(&sn->shell, line);
    /* what the command queued runs now, at the same virtual instant */
    wren_world_run_until(&s->world, s->world.now);
    return res;
}

int wren_sim_shell_output(struct wren_sim *s, uint32_t id, char *buf, size_t max)
{
    struct wren_sim_node *sn = get(s, id);
    if (sn == NULL || max == 0) {
        return -EINVAL;
    }
    size_t n = sn->out_len < max - 1 ? sn->out_len : max - 1;
    if (n) {
        memcpy(buf, sn->out, n);
        memmove(sn->out, sn->out + n, sn->out_len - n + 1);
        sn->out_len -= n;
    }
    buf[n] = 0;
    return (int)n;
}

void wren_sim_run(struct wren_sim *s, uint64_t until_us)
{
    wren_world_run_until(&s->world, until_us);
}


uint64_t wren_sim_now(const struct wren_sim *s)
{
    return s->world.now;
}

uint32_t wren_sim_node_count(const struct wren_sim *s)
{
    return s->n_nodes;
}

uint64_t wren_sim_events(const struct wren_sim *s)
{
    return s->world.fired;
}

int wren_sim_counters(struct wren_sim *s, uint32_t id, const char **names, uint64_t *values,
                      int max)
{
    struct wren_sim_node *sn = get(s, id);
    if (sn == NULL) {
        return -EINVAL;
    }
    struct wren_sim_radio *r = &sn->radio;
    wren_sim_radio_sync_time(r);
    const struct wren_netif_stats *ns = &sn->netif.netif.stats;
    const struct wren_rawgen_stats *as = &sn->app.stats;
    const struct wren_pktbuf_stats *ps = &sn->node.pktbuf.stats;
    const struct wren_sixlowpan_stats *ls = &sn->sixlowpan.stats;
    const struct wren_ipv6_stats *is = &sn->ipv6.stats;
    const struct wren_icmpv6_stats *cs = &sn->icmpv6.stats;
    const struct wren_udp_stats *us = &sn->udp.stats;
    const struct wren_mac_stats *ms = &sn->netif.mac.stats;
#define C(name, val) { name, (uint64_t)(val) }
    const struct {
        const char *name;
        uint64_t val;
    } c[] = {
        C("radio.tx_frames", r->stats.tx_frames),
        C("radio.tx_bytes", r->stats.tx_bytes),
        C("radio.rx_frames", r->stats.rx_frames),
        C("radio.rx_collisions", r->stats.rx_collisions),
        C("radio.rx_link_loss", r->stats.rx_link_loss),
        C("radio.rx_while_tx", r->stats.rx_while_tx),
        C("radio.rx_while_off", r->stats.rx_while_off),
        C("radio.rx_overrun", r->stats.rx_overrun),
        C("radio.cca_busy", r->stats.cca_busy),
        C("radio.rx_bad_fcs", r->stats.rx_bad_fcs),
        C("radio.time_off_us", r->time_in[WREN_NETOPT_STATE_OFF]),
        C("radio.time_listen_us", r->time_in[WREN_NETOPT_STATE_IDLE]),
        C("radio.time_rx_us", r->time_in[WREN_NETOPT_STATE_RX]),
        C("radio.time_tx_us", r->time_in[WREN_NETOPT_STATE_TX]),
        C("radio.proc_us", r->stats.proc_us),
        C("radio.ack_during_proc", r->stats.ack_during_proc),
        C("mac.tx_attempts", ms->tx_attempts),
        C("mac.tx_retries", ms->tx_retries),
        C("mac.tx_ok", ms->tx_ok),
        C("mac.tx_noack", ms->tx_noack),
        C("mac.tx_caf", ms->tx_caf),
        C("mac.cca_busy", ms->cca_busy),
        C("mac.ack_rx", ms->ack_rx),
        C("mac.ack_tx", ms->ack_tx),
        C("mac.ack_tx_busy", ms->ack_tx_busy),
        C("mac.rx_dup", ms->rx_dup),
        C("mac.rx_ack_stray", ms->rx_ack_stray),
        C("mac.polls", ms->polls),
        C("mac.polls_rx", ms->polls_rx),
        C("mac.indirect_queued", ms->indirect_queued),
        C("mac.indirect_sent", ms->indirect_sent),
        C("mac.indirect_drop", ms->indirect_drop),
        C("netif.tx_frames", ns->tx_frames),
        C("netif.tx_bytes", ns->tx_bytes),
        C("netif.tx_ok", ns->tx_ok),
        C("netif.tx_noack", ns->tx_noack),
        C("netif.tx_busy", ns->tx_busy),
        C("netif.tx_drop_queue", ns->tx_drop_queue),
        C("netif.tx_drop_bad", ns->tx_drop_bad),
        C("netif.tx_drop_dev", ns->tx_drop_dev),
        C("netif.tx_drop_frag", ns->tx_drop_frag),
        C("netif.rx_frames", ns->rx_frames),
        C("netif.rx_bytes", ns->rx_bytes),
        C("netif.rx_drop_nobuf", ns->rx_drop_nobuf),
        C("netif.rx_drop_malformed", ns->rx_drop_malformed),
        C("netif.rx_drop_unsupported", ns->rx_drop_unsupported),
        C("netif.rx_drop_not_for_us", ns->rx_drop_not_for_us),
        C("netif.rx_drop_no_receiver", ns->rx_drop_no_receiver),
        C("netif.rx_drop_queue", ns->rx_drop_queue),
        C("6lowpan.rx_frames", ls->rx_frames),
        C("6lowpan.rx_iphc", ls->rx_iphc),
        C("6lowpan.rx_drop_dispatch", ls->rx_drop_dispatch),
        C("6lowpan.rx_drop_iphc", ls->rx_drop_iphc),
        C("6lowpan.rx_drop_nobuf", ls->rx_drop_nobuf),
        C("6lowpan.frag_rx", ls->frag_rx),
        C("6lowpan.frag_reassembled", ls->frag_reassembled),
        C("6lowpan.frag_drop_overlap", ls->frag_drop_overlap),
        C("6lowpan.frag_drop_dup", ls->frag_drop_dup),
        C("6lowpan.frag_drop_range", ls->frag_drop_range),
        C("6lowpan.frag_drop_size", ls->frag_drop_size),
        C("6lowpan.frag_drop_full", ls->frag_drop_full),
        C("6lowpan.frag_drop_hdr", ls->frag_drop_hdr),
        C("6lowpan.frag_timeout", ls->frag_timeout),
        C("6lowpan.frag_superseded", ls->frag_superseded),
        C("6lowpan.tx_datagrams", ls->tx_datagrams),
        C("6lowpan.tx_frags", ls->tx_frags),
        C("6lowpan.tx_drop_bad", ls->tx_drop_bad),
        C("6lowpan.tx_drop_nobuf", ls->tx_drop_nobuf),
        C("ipv6.rx_pkts", is->rx_pkts),
        C("ipv6.rx_delivered", is->rx_delivered),
        C("ipv6.rx_forwarded", is->rx_forwarded),
        C("ipv6.rx_drop_hdr", is->rx_drop_hdr),
        C("ipv6.rx_drop_len", is->rx_drop_len),
        C("ipv6.rx_drop_src", is->rx_drop_src),
        C("ipv6.rx_drop_not_for_us", is->rx_drop_not_for_us),
        C("ipv6.rx_drop_hop_limit", is->rx_drop_hop_limit),
        C("ipv6.rx_drop_no_route", is->rx_drop_no_route),
        C("ipv6.rx_drop_ext", is->rx_drop_ext),
        C("ipv6.rx_drop_no_receiver", is->rx_drop_no_receiver),
        C("ipv6.rx_drop_nobuf", is->rx_drop_nobuf),
        C("ipv6.tx_pkts", is->tx_pkts),
        C("ipv6.tx_loopback", is->tx_loopback),
        C("ipv6.tx_drop_bad", is->tx_drop_bad),
        C("ipv6.tx_drop_no_route", is->tx_drop_no_route),
        C("ipv6.tx_drop_no_src", is->tx_drop_no_src),
        C("ipv6.tx_drop_too_big", is->tx_drop_too_big),
        C("ipv6.tx_drop_nobuf", is->tx_drop_nobuf),
        C("icmpv6.rx", cs->rx),
        C("icmpv6.rx_drop_short", cs->rx_drop_short),
        C("icmpv6.rx_drop_csum", cs->rx_drop_csum),
        C("icmpv6.rx_echo_req", cs->rx_echo_req),
        C("icmpv6.rx_errors", cs->rx_errors),
        C("icmpv6.tx_echo_reply", cs->tx_echo_reply),
        C("icmpv6.tx_errors", cs->tx_errors),
        C("icmpv6.err_rate_limited", cs->err_rate_limited),
        C("udp.rx", us->rx),
        C("udp.rx_drop_hdr", us->rx_drop_hdr),
        C("udp.rx_drop_csum", us->rx_drop_csum),
        C("udp.rx_drop_no_port", us->rx_drop_no_port),
        C("udp.tx", us->tx),
        C("app.sent", as->sent),
        C("app.send_nobuf", as->send_nobuf),
        C("app.send_queue", as->send_queue),
        C("app.received", as->received),
        C("app.rx_bytes", as->rx_bytes),
        C("app.rx_bad", as->rx_bad),
        C("app.rx_foreign", as->rx_foreign),
        C("pktbuf.in_use", ps->in_use),
        C("pktbuf.high_water", ps->high_water),
        C("pktbuf.alloc_fail", ps->alloc_fail),
        C("sched.high_water", sn->node.sched.high_water),
        C("sched.full_drops", sn->node.sched.full_drops),
    };
#undef C
    int n = (int)(sizeof(c) / sizeof(c[0]));
    for (int i = 0; i < n && i < max; i++) {
        names[i] = c[i].name;
        values[i] = c[i].val;
    }
    return n;
}

size_t wren_sim_bytes_per_node(const struct wren_sim *s)
{
    if (s->n_nodes == 0) {
        return 0;
    }
    size_t links = 0;
    for (uint32_t i = 0; i < s->n_nodes; i++) {
        links += s->nodes[i]->radio.cap_links * sizeof(struct wren_sim_link);
    }
    return (s->bytes + links) / s->n_nodes + sizeof(void *) * 2;
}

struct wren_node *wren_sim_node(struct wren_sim *s, uint32_t id)
{
    struct wren_sim_node *sn = get(s, id);
    return sn ? &sn->node : NULL;
}

int wren_sim_pktbufs_clean(const struct wren_sim *s)
{
    for (uint32_t i = 0; i < s->n_nodes; i++) {
        const struct wren_pktbuf *pb = &s->nodes[i]->node.pktbuf;
        if (!wren_pktbuf_is_empty(pb) || !wren_pktbuf_is_sane(pb)) {
            return 0;
        }
    }
    return 1;
}

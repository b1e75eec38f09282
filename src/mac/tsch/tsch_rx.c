/* The TSCH MAC's reception (IEEE 802.15.4-2015 6.2.6, RFC 8180): joining
 * from an EB heard while scanning, synchronisation to the time source (EBs,
 * data frames, the time correction of Enh-ACKs), Enh-ACKs both ways, frame
 * security on receipt, duplicates, and the hand-over of data and 6P
 * messages to the link layer. Queues and the frames we send are in tsch.c,
 * the slot engine in tsch_slot.c. */
#include <errno.h>
#include <string.h>

#include "core/byteorder.h"
#include "core/node.h"
#include "mac/tsch/tsch_priv.h"
#include "net/netopt.h"
#include "net/nettype.h"
#include "wire/ieee802154_ie.h"

#if CONFIG_WREN_TSCH

/* With security on, time (a join's ASN, slot timing) comes only from frames
 * that passed authenticated: an unsecured frame the policy lets through (an
 * EB where beacons have no level) could be anyone's. Counts what it refuses
 * (sync_unauth). */
static bool time_ok(struct wren_tsch *t, const struct ieee802154_frame *f)
{
    if (!f->hdr.security && wren_tsch_sec_on(t)) {
        t->stats.sync_unauth++;
        return false;
    }
    return true;
}

/* A neighbour's frame in one of our cells (an EB in our ASN, a data frame for
 * anyone, an Enh-ACK to our frame), from any neighbour: our slots are the
 * network's, the join is confirmed; with security on only if the frame was
 * authenticated (it then opened under our slot's ASN). */
static void confirm_by(struct wren_tsch *t, const struct ieee802154_frame *f)
{
    /* (without link security every join is confirmed from the start) */
    if (CONFIG_WREN_IEEE802154_SEC && (f->hdr.security || !wren_tsch_sec_on(t))) {
        t->confirmed = 1;
    }
}

/* the EB's timeslot template (RFC 8180 4.3: the default one by its id 0,
 * another whole) into @p cfg; false: a template we do not know */
static bool eb_timeslot(const struct ieee802154_mlme_ies *m, struct wren_tsch_config *cfg)
{
    if (!(m->present & IEEE802154_MLME_TIMESLOT)) {
        return true;
    }
    if (!m->timeslot.full) {
        return m->timeslot.id == 0;
    }
    cfg->slot_us = m->timeslot.length;
    cfg->tx_offset_us = m->timeslot.tx_offset;
    cfg->rx_wait_us = m->timeslot.rx_wait;
    cfg->ack_delay_us = m->timeslot.tx_ack_delay;
    cfg->ack_wait_us = m->timeslot.ack_wait;
    return true;
}

/* the EB's hopping sequence (7.4.4.31: the default by its id 0, another
 * whole; none: the default) into @p cfg; false: one we cannot follow */
static bool eb_hopping(const struct ieee802154_mlme_ies *m, struct wren_tsch_config *cfg)
{
    if ((m->present & IEEE802154_MLME_HOPPING) && m->hopping.full) {
        if (m->hopping.seq_len == 0 || m->hopping.seq_len > WREN_TSCH_HOP_MAX) {
            return false;
        }
        cfg->hop_len = (uint8_t)m->hopping.seq_len;
        for (unsigned i = 0; i < cfg->hop_len; i++) {
            uint16_t ch = wren_ieee802154_hopping_channel(&m->hopping, i);
            cfg->hop[i] = (uint8_t)(ch < 11 || ch > 26 ? 0 : ch);
        }
        return true;
    }
    if ((m->present & IEEE802154_MLME_HOPPING) && m->hopping.id != 0) {
        return false;
    }
    wren_tsch_hop_default(cfg);
    return true;
}

/* The network's configuration from an EB's IEs: timeslot template, hopping
 * sequence, the minimal slotframe's length from the Slotframe and Link IE;
 * false if the EB describes one we cannot run */
static bool eb_config(const struct ieee802154_mlme_ies *m, struct wren_tsch_config *cfg)
{
    if (!eb_timeslot(m, cfg) || !eb_hopping(m, cfg)) {
        return false;
    }
    if (m->present & IEEE802154_MLME_SLOTFRAMES) {
        size_t pos = 0;
        struct ieee802154_tsch_slotframe sf;
        while (wren_ieee802154_tsch_slotframe_next(m, &pos, &sf) == 1) {
            if (sf.handle == TSCH_SLOTFRAME_MINIMAL) {
                cfg->sf_len = sf.size;
            }
        }
    }
    return wren_tsch_config_check(cfg) == 0;
}

/* synchronised to the EB's sender, whose frame began at @p rx_start: it is
 * our time source, the minimal schedule ours, the EB's ASN that of its slot */
static void adopt(struct wren_tsch *t, const struct ieee802154_frame *f,
                  const struct ieee802154_mlme_ies *m, uint64_t rx_start)
{
    if (!wren_tsch_is_ts(t, f->hdr.src_addr)) {
        t->drift_q30 = 0; /* another clock than the one we knew */
    }
    memcpy(t->ts, f->hdr.src_addr, 8);
    t->ts_len = 8;
    t->ts_set = 0;
    if (!t->join_prio_set) {
        t->join_prio = m->sync.join_metric == 0xfe ? 0xfe : (uint8_t)(m->sync.join_metric + 1);
    }
    wren_tsch_minimal_schedule(t);
    /* the EB went out tx_offset into slot asn */
    t->asn = m->sync.asn;
    t->ref_asn = t->asn;
    t->slot_start = rx_start - t->cfg.tx_offset_us;
    t->ref_time = t->slot_start;
    t->last_sync = wren_node_now(tsch_node(t));
    t->synced = 1;
    /* with security on, the join waits for authenticated frames in our
     * cells to confirm our ASN (tsch_slot.c confirm_us): an EB authenticated
     * with K1, which every pledge has, may be forged, or replayed a slot
     * late. Without security a forger needs no such trick, and in a dense
     * network a sound join often hears nothing for 10-30 s (see
     * docs/architecture.md): no check */
    t->confirmed = !wren_tsch_sec_on(t);
    t->eb_ivl_ms = wren_tsch_eb_min_ms(t);
    t->eb_count = 0;
    t->eb_next = t->last_sync + (uint64_t)t->cfg.eb_min_ms * 1000u;
    t->stats.sync_joins++;
    wren_timer_cancel(tsch_node(t), &t->timer);
    wren_tsch_end_slot(t);
}

/* join from an EB heard while scanning (RFC 8180 6.1, 802.15.4-2015 6.3.6) */
static void join(struct wren_tsch *t, const struct ieee802154_frame *f,
                 const struct ieee802154_payload_ies *pie, uint64_t rx_start)
{
    const struct ieee802154_mlme_ies *m = &pie->mlme;
    struct wren_tsch_config cfg = t->cfg;
    if (!(m->present & IEEE802154_MLME_SYNC) || (m->sync.asn >> 40) != 0) {
        t->stats.drop_bad_ie++;
        return;
    }
    if (m->sync.join_metric == 0xff ||
        (m->sync.join_metric >= t->scan_prio &&
         wren_node_now(tsch_node(t)) < t->scan_strict_until)) {
        /* after a desync, first only from nodes closer to the root than we
         * were: nodes still in the old network (which may be what lost the
         * root) must not pull us back into it */
        t->stats.drop_eb_prio++;
        return;
    }
    if (!eb_config(m, &cfg)) {
        t->stats.drop_bad_ie++;
        return;
    }
    t->cfg = cfg;
    adopt(t, f, m, rx_start);
}

/* an Enh-ACK for us: the frame in progress is done */
static void on_ack(struct wren_tsch *t, const struct ieee802154_frame *f)
{
    struct ieee802154_hdr_ies hie;
    const struct wren_tsch_queue *q = t->q <= CONFIG_WREN_TSCH_NBRS ? &t->queues[t->q] : NULL;
    if (q == NULL || f->hdr.version != IEEE802154_VERSION_2015 || f->hdr.seq_suppressed ||
        f->hdr.seq != t->tx_seq ||
        (f->hdr.dst_mode == IEEE802154_ADDR_EXT &&
         memcmp(f->hdr.dst_addr, t->nif->long_addr, 8) != 0)) {
        t->stats.ack_bad++;
        return; /* not ours: the window stays open */
    }
    if (wren_ieee802154_hdr_ies_parse(f->hdr_ie, f->hdr_ie_len, &hie) < 0) {
        t->stats.drop_bad_ie++;
        return;
    }
    t->stats.ack_rx++;
    confirm_by(t, f); /* an authenticated Enh-ACK opened under our slot's ASN */
    wren_timer_cancel(tsch_node(t), &t->timer);
    if (hie.has_time_corr && wren_tsch_is_ts(t, q->nbr) && t->role == WREN_TSCH_NODE &&
        time_ok(t, f)) {
        /* 6.5.4.3: the time source measured our frame this far off */
        wren_tsch_sync(t, hie.time_corr.us);
    }
    wren_tsch_tx_result(t, !hie.has_time_corr || !hie.time_corr.nack);
    wren_tsch_end_slot(t);
}

/* answer a frame with an Enh-ACK carrying how far off it came */
static void send_ack(struct wren_tsch *t, const struct ieee802154_frame *f, int32_t late)
{
    struct ieee802154_frame ack;
    uint8_t ie_buf[IEEE802154_IE_TIME_CORR_LEN];
    /* 7.4.2.7: the correction the sender should apply: expected - actual */
    int32_t us = -late;
    struct ieee802154_time_corr tc = { .us = (int16_t)(us > 2047 ? 2047 : us < -2048 ? -2048 : us),
                                       .nack = false };
    int n = -1;
    if (wren_ieee802154_enhack_frame(&ack, &f->hdr, &tc, ie_buf, sizeof(ie_buf)) == 0 &&
        wren_tsch_sec_prepare(t, &ack.hdr) >= 0) {
        n = wren_ieee802154_emit(&ack, t->buf, TSCH_MAX_PSDU - TSCH_FCS_LEN);
        if (n >= 0 && wren_tsch_sec_seal(t, &ack.hdr, (size_t)n) < 0) {
            n = -1;
        }
    }
    if (n < 0) {
        wren_tsch_end_slot(t);
        return;
    }
    t->psdu_len = (uint8_t)n;
    t->stats.ack_tx++;
    uint64_t at = t->tx_end + t->cfg.ack_delay_us;
    t->phase = TSCH_PH_ACK_SEND;
    wren_timer_set_abs(tsch_node(t), &t->timer, at > t->tx_delay_us ? at - t->tx_delay_us : at);
}

#if CONFIG_WREN_IEEE802154_SEC
/* 9.2.4 on a received frame, in place: the nonce's ASN is this slot's, or,
 * scanning, the one the EB announces (an EB is authenticated only, its
 * IEs readable); an Enh-Ack has no source address: it comes from the
 * neighbour our frame went to. A secured frame's payload IEs are then
 * split from its payload. Returns 0 or a negative reason (counted). */
static int rx_unsecure(struct wren_tsch *t, struct ieee802154_frame *f, struct wren_snip *pkt,
                       uint8_t phase, bool ack_window)
{
    uint64_t asn = t->asn;
    const uint8_t *src = NULL;
    size_t ie_len, rest;
    if (f->hdr.type == IEEE802154_TYPE_ACK && f->hdr.src_mode == IEEE802154_ADDR_NONE) {
        if (!ack_window || t->q > CONFIG_WREN_TSCH_NBRS || t->q == 0) {
            return f->hdr.security ? -EINVAL : 0; /* not ours either way */
        }
        src = t->queues[t->q].nbr;
    }
    if (phase == TSCH_PH_SCAN && f->hdr.security && f->hdr.type == IEEE802154_TYPE_BEACON &&
        !(f->hdr.sec_level & 4)) {
        struct ieee802154_payload_ies pie;
        if (wren_ieee802154_payload_ie_split(f->payload_ie, f->payload_ie_len, &ie_len, &rest) < 0 ||
            wren_ieee802154_payload_ies_parse(f->payload_ie, ie_len, &pie) < 0 ||
            !(pie.mlme.present & IEEE802154_MLME_SYNC)) {
            t->stats.drop_bad_ie++;
            return -EINVAL;
        }
        asn = pie.mlme.sync.asn;
    }
    int r = wren_ieee802154_sec_unsecure(t->nif, f, pkt->data, pkt->size, src, &asn);
    if (r != 0) {
        return r < 0 ? r : -EALREADY;
    }
    if (f->hdr.security && f->payload_ie_len) {
        /* the plaintext after HT1: payload IEs, then (after PT) the payload */
        if (wren_ieee802154_payload_ie_split(f->payload_ie, f->payload_ie_len, &ie_len, &rest) <
            0) {
            t->stats.drop_bad_ie++;
            return -EINVAL;
        }
        f->payload = f->payload_ie + rest;
        f->payload_len = f->payload_ie_len - rest;
        f->payload_ie_len = ie_len;
    }
    return 0;
}
#endif

/* An EB in one of our cells while synchronised. Returns false if we left
 * (a timing loop). */
static bool eb_in_cell(struct wren_tsch *t, const struct ieee802154_frame *f,
                       const struct ieee802154_payload_ies *pie, bool from_ts, int32_t late)
{
    const uint8_t *a = f->hdr.src_addr;
    t->stats.rx_eb++;
    /* who else sends EBs here: one bit per neighbour (a hash of its EUI-64),
     * counted and cleared at each EB of ours */
    t->eb_heard |= 1u << ((a[7] ^ a[6] ^ a[5]) & 31u);
    if (!(pie->mlme.present & IEEE802154_MLME_SYNC)) {
        t->stats.drop_bad_ie++;
        return true;
    }
    if (pie->mlme.sync.asn != t->asn) {
        /* an EB that contradicts our ASN: never followed (a neighbour that
         * restarted, or a forgery); the time source going silent ends in a
         * desync by the rules */
        t->stats.drop_eb_asn++;
        return true;
    }
    confirm_by(t, f);
    if (!from_ts || !time_ok(t, f)) {
        return true; /* (nor an unauthenticated one's join metric: it could make us leave) */
    }
    if (!t->join_prio_set && pie->mlme.sync.join_metric >= t->join_prio) {
        /* our time source is as far from the root as we are, or further: it
         * keeps time with us (directly or round a loop), and nothing ties the
         * loop to the network's coordinator any more (with the join priority
         * from RPL's rank, RPL keeps the time sources loop-free instead) */
        t->stats.sync_ts_loop++;
        wren_tsch_desync(t);
        return false;
    }
    wren_tsch_sync(t, late);
    if (!t->join_prio_set) {
        t->join_prio = (uint8_t)(pie->mlme.sync.join_metric + 1);
    }
    return true;
}

/* 7.2: the frame parsed and, with security, unsecured in place. Returns
 * false if it is dropped (counted by reason). */
static bool rx_open(struct wren_tsch *t, struct wren_snip *pkt, struct ieee802154_frame *f,
                    uint8_t phase, bool ack_window)
{
    struct wren_netif *netif = &t->nif->netif;
    if (wren_ieee802154_parse(pkt->data, pkt->size, f) < 0) {
        netif->stats.rx_drop_malformed++;
        return false;
    }
#if CONFIG_WREN_IEEE802154_SEC
    (void)netif;
    return rx_unsecure(t, f, pkt, phase, ack_window) >= 0; /* counted in sec.* */
#else
    (void)phase, (void)ack_window;
    if (f->hdr.security) {
        netif->stats.rx_drop_unsupported++;
        return false;
    }
    return true;
#endif
}

/* scanning: an EB is one to join from; nothing else is ours yet */
static void rx_scanning(struct wren_tsch *t, const struct ieee802154_frame *f,
                        const struct ieee802154_payload_ies *pie, bool eb, uint64_t rx_start)
{
    if (!eb) {
        t->stats.drop_not_synced++;
        return;
    }
    t->stats.rx_eb++;
    if (time_ok(t, f)) {
        join(t, f, pie, rx_start);
    }
}

/* how late a frame that began at @p rx_start is against our slot (positive:
 * the sender's clock is behind ours), within +-100 ms */
static int32_t slot_late(const struct wren_tsch *t, uint64_t rx_start)
{
    int64_t late64 = (int64_t)(rx_start - (t->slot_start + t->cfg.tx_offset_us));
    return late64 > 100000 ? 100000 : late64 < -100000 ? -100000 : (int32_t)late64;
}

/* neighbours heard lately, a bit per hash of the EUI-64, over two windows
 * of 64 slotframe-0 cycles */
static void note_heard(struct wren_tsch *t, const uint8_t *src)
{
    uint64_t cycle = t->cfg.slot_us * (uint64_t)t->cfg.sf_len * 64u;
    uint64_t now = wren_node_now(tsch_node(t));
    if (now - t->nbr_window > cycle) {
        t->nbr_heard[1] = now - t->nbr_window > 2u * cycle ? 0 : t->nbr_heard[0];
        t->nbr_heard[0] = 0;
        t->nbr_window = now;
    }
    t->nbr_heard[0] |= 1u << ((src[7] ^ src[6] ^ src[5]) & 31u);
}

/* a data frame for us up to the link layer: a 6P message (RFC 8480 3.1: in
 * the 6top IE) to the 6P module, a payload to the upper layers; a
 * keep-alive (no payload) ends here. Returns whether @p pkt went up. */
static bool rx_deliver(struct wren_tsch *t, struct wren_snip *pkt,
                       const struct ieee802154_frame *f, const struct ieee802154_payload_ies *pie,
                       const struct wren_netdev_rx_info *info)
{
    struct ieee802154_frame g = *f;
    uint8_t type = WREN_NETTYPE_UNDEF;
    if (pie->has_sixtop) {
        g.payload = pie->sixtop;
        g.payload_len = pie->sixtop_len;
        type = WREN_NETTYPE_SIXTOP;
        t->stats.rx_sixtop++;
    } else if (f->payload_len == 0) {
        return false;
    }
    wren_link_deliver(t->nif, pkt, &g, info, type);
    return true;
}

/* A data frame in one of our cells: ours (addressed to us, in our PAN),
 * the time source's correction, our Enh-ACK, duplicates. Returns whether
 * @p pkt went up. */
static bool rx_data(struct wren_tsch *t, struct wren_snip *pkt, const struct ieee802154_frame *f,
                    const struct ieee802154_payload_ies *pie,
                    const struct wren_netdev_rx_info *info, bool from_ts, int32_t late)
{
    struct wren_ieee802154_netif *nif = t->nif;
    bool bcast = f->hdr.dst_mode == IEEE802154_ADDR_SHORT &&
                 get_be16(f->hdr.dst_addr) == IEEE802154_BROADCAST;
    bool mine = f->hdr.dst_mode == IEEE802154_ADDR_EXT &&
                memcmp(f->hdr.dst_addr, nif->long_addr, 8) == 0;
    bool pan_ok = !wren_ieee802154_has_dst_pan(&f->hdr) || f->hdr.dst_pan == nif->pan ||
                  f->hdr.dst_pan == IEEE802154_BROADCAST;
    if (pan_ok) {
        /* for us or not, an authenticated frame opened under our slot's ASN */
        confirm_by(t, f);
    }
    if (!pan_ok || (!bcast && !mine)) {
        nif->netif.stats.rx_drop_not_for_us++;
        wren_tsch_end_slot(t);
        return false;
    }
    t->cells[t->cell].rx++;
    t->stats.rx_data++;
    if (from_ts && time_ok(t, f)) {
        wren_tsch_sync(t, late);
        late = 0; /* we moved to it */
    }
    if (mine && f->hdr.ack_req) {
        send_ack(t, f, late);
    } else {
        wren_tsch_end_slot(t);
    }
    if (mine && wren_link_dup_seen(&t->seen, f->hdr.src_addr, 8, f->hdr.seq)) {
        t->stats.rx_dup++;
        return false;
    }
    return rx_deliver(t, pkt, f, pie, info);
}

/* A frame in one of our listening slots (the timer's wait for it ends):
 * an EB (synchronisation) or a data frame. Returns whether @p pkt went up. */
static bool rx_in_slot(struct wren_tsch *t, struct wren_snip *pkt, const struct ieee802154_frame *f,
                       const struct ieee802154_payload_ies *pie,
                       const struct wren_netdev_rx_info *info, uint64_t rx_start, bool eb)
{
    wren_timer_cancel(tsch_node(t), &t->timer);
    int32_t late = slot_late(t, rx_start);
    bool ext = f->hdr.src_mode == IEEE802154_ADDR_EXT;
    bool from_ts = ext && wren_tsch_is_ts(t, f->hdr.src_addr) && t->role == WREN_TSCH_NODE;
    if (ext) {
        note_heard(t, f->hdr.src_addr);
    }
    if (eb) {
        if (eb_in_cell(t, f, pie, from_ts, late)) {
            wren_tsch_end_slot(t);
        }
        return false;
    }
    if (f->hdr.type != IEEE802154_TYPE_DATA || !ext) {
        t->nif->netif.stats.rx_drop_unsupported++;
        wren_tsch_end_slot(t);
        return false;
    }
    return rx_data(t, pkt, f, pie, info, from_ts, late);
}

void wren_tsch_rx_frame(struct wren_tsch *t, struct wren_snip *pkt,
                        const struct wren_netdev_rx_info *info, uint64_t rx_start)
{
    struct wren_netif *netif = &t->nif->netif;
    struct wren_pktbuf *pb = &netif->node->pktbuf;
    struct ieee802154_frame f;
    struct ieee802154_payload_ies pie;
    uint8_t phase = t->phase;
    bool listening = phase == TSCH_PH_RX_MID || phase == TSCH_PH_RX_WAIT ||
                     phase == TSCH_PH_RX_BUSY;
    bool ack_window = phase == TSCH_PH_ACK_WAIT || phase == TSCH_PH_ACK_RX;
    if (!rx_open(t, pkt, &f, phase, ack_window)) {
        goto done;
    }
    if (f.hdr.type == IEEE802154_TYPE_ACK) {
        if (ack_window) {
            on_ack(t, &f);
        } else {
            netif->stats.rx_drop_not_for_us++;
        }
        wren_pktbuf_release(pb, pkt);
        return;
    }
    memset(&pie, 0, sizeof(pie));
    if (f.hdr.ie_present &&
        wren_ieee802154_payload_ies_parse(f.payload_ie, f.payload_ie_len, &pie) < 0) {
        t->stats.drop_bad_ie++;
        goto done;
    }
    bool eb = f.hdr.type == IEEE802154_TYPE_BEACON && f.hdr.version == IEEE802154_VERSION_2015 &&
              f.hdr.src_mode == IEEE802154_ADDR_EXT;
    if (phase == TSCH_PH_SCAN) {
        rx_scanning(t, &f, &pie, eb, rx_start);
        wren_pktbuf_release(pb, pkt);
        return;
    }
    if (!listening) {
        /* the radio is only on in our slots: a frame outside them is stray */
        netif->stats.rx_drop_not_for_us++;
        wren_pktbuf_release(pb, pkt);
        return;
    }
    if (rx_in_slot(t, pkt, &f, &pie, info, rx_start, eb)) {
        return;
    }
done:
    if (listening && t->phase == phase) {
        wren_tsch_end_slot(t); /* nothing more to do in this slot */
    }
    wren_pktbuf_release(pb, pkt);
}

#endif /* CONFIG_WREN_TSCH */

#include "drivers/lora_modem.h"

#include <errno.h>
#include <string.h>

#include "net/netdev.h"
#include "net/netopt.h"

void wren_lora_modem_init(struct wren_lora_modem *m)
{
    memset(m, 0, sizeof(*m));
    m->phy = (struct wren_lora_phy){
        .sf = 7, .bw_khz = 125, .cr = 5, .preamble = WREN_LORA_PREAMBLE_DEFAULT, .crc = true};
    m->freq_hz = WREN_LORA_EU868_CH0_HZ;
    m->tx_power = 14;
    m->syncword = WREN_LORA_SYNCWORD_LORAWAN;
    m->region = WREN_LORA_REGION_EU868;
    m->dc = WREN_LORA_DC_REGIONAL;
}

uint16_t wren_lora_modem_dc(const struct wren_lora_modem *m, unsigned *slot)
{
    uint8_t sb;
    uint16_t regional = wren_lora_etsi_duty_cycle(m->freq_hz, &sb);
    *slot = sb < WREN_LORA_SUB_BANDS ? sb : WREN_LORA_SUB_BANDS;
    return m->dc == WREN_LORA_DC_REGIONAL ? regional : m->dc;
}

uint64_t wren_lora_modem_dc_wait(const struct wren_lora_modem *m, uint64_t now)
{
    unsigned slot;
    if (wren_lora_modem_dc(m, &slot) == 0 || m->band_free[slot] <= now) {
        return 0;
    }
    return m->band_free[slot] - now;
}

void wren_lora_modem_sent(struct wren_lora_modem *m, uint64_t end, uint32_t airtime_us)
{
    unsigned slot;
    uint16_t dc = wren_lora_modem_dc(m, &slot);
    if (dc) {
        m->band_free[slot] = end + wren_lora_dc_off_us(airtime_us, dc);
    }
}

unsigned wren_lora_modem_max_payload(const struct wren_lora_modem *m)
{
    return wren_lora_max_payload((enum wren_lora_region)m->region, m->phy.sf, m->phy.bw_khz);
}

static int get_channel(const struct wren_lora_modem *m, void *val, size_t max)
{
    uint32_t off = m->freq_hz - WREN_LORA_EU868_CH0_HZ;
    if (m->freq_hz < WREN_LORA_EU868_CH0_HZ || off % WREN_LORA_CHANNEL_STEP_HZ ||
        off / WREN_LORA_CHANNEL_STEP_HZ >= WREN_LORA_CHANNELS) {
        return -ENOENT; /* a frequency off the default channels */
    }
    uint16_t ch = (uint16_t)(off / WREN_LORA_CHANNEL_STEP_HZ);
    return wren_netopt_put(val, max, &ch, 2);
}

static int get_airtime(const struct wren_lora_modem *m, void *val, size_t max)
{
    uint16_t len;
    if (max < 4) {
        return -EOVERFLOW;
    }
    memcpy(&len, val, 2);
    uint32_t t = len <= WREN_LORA_MAX_PAYLOAD ? wren_lora_airtime_us(&m->phy, len) : 0;
    return t ? wren_netopt_put(val, max, &t, 4) : -EINVAL;
}

/* the options that are not the modem's LoRa keys */
static int get_common(const struct wren_lora_modem *m, uint16_t opt, void *val, size_t max)
{
    uint16_t v16;
    switch (opt) {
    case WREN_NETOPT_CHANNEL:
        return get_channel(m, val, max);
    case WREN_NETOPT_TX_POWER:
        return wren_netopt_put(val, max, &m->tx_power, 2);
    case WREN_NETOPT_MAX_PDU_SIZE:
        v16 = (uint16_t)wren_lora_modem_max_payload(m);
        return wren_netopt_put(val, max, &v16, 2);
    case WREN_NETOPT_DEVICE_TYPE:
        v16 = WREN_NETDEV_TYPE_LORA;
        return wren_netopt_put(val, max, &v16, 2);
    default:
        return -ENOTSUP;
    }
}

int wren_lora_modem_get(const struct wren_lora_modem *m, uint16_t opt, void *val, size_t max,
                        uint64_t now)
{
    unsigned slot;
    uint16_t v16;
    uint32_t v32;
    switch (opt) {
    case WREN_NETOPT_LORA_SF:
        return wren_netopt_put(val, max, &m->phy.sf, 1);
    case WREN_NETOPT_LORA_BW:
        return wren_netopt_put(val, max, &m->phy.bw_khz, 2);
    case WREN_NETOPT_LORA_CR:
        return wren_netopt_put(val, max, &m->phy.cr, 1);
    case WREN_NETOPT_LORA_FREQ:
        return wren_netopt_put(val, max, &m->freq_hz, 4);
    case WREN_NETOPT_LORA_SYNCWORD:
        return wren_netopt_put(val, max, &m->syncword, 1);
    case WREN_NETOPT_LORA_PREAMBLE:
        return wren_netopt_put(val, max, &m->phy.preamble, 2);
    case WREN_NETOPT_LORA_DUTY_CYCLE:
        v16 = wren_lora_modem_dc(m, &slot);
        return wren_netopt_put(val, max, &v16, 2);
    case WREN_NETOPT_LORA_REGION:
        return wren_netopt_put(val, max, &m->region, 1);
    case WREN_NETOPT_LORA_AIRTIME:
        return get_airtime(m, val, max);
    case WREN_NETOPT_LORA_DC_WAIT: {
        uint64_t w = wren_lora_modem_dc_wait(m, now);
        v32 = w > UINT32_MAX ? UINT32_MAX : (uint32_t)w;
        return wren_netopt_put(val, max, &v32, 4);
    }
    default:
        return get_common(m, opt, val, max);
    }
}

int wren_lora_modem_opt_retunes(uint16_t opt)
{
    switch (opt) {
    case WREN_NETOPT_LORA_SF:
    case WREN_NETOPT_LORA_CR:
    case WREN_NETOPT_LORA_BW:
    case WREN_NETOPT_LORA_PREAMBLE:
    case WREN_NETOPT_LORA_FREQ:
    case WREN_NETOPT_LORA_SYNCWORD:
    case WREN_NETOPT_CHANNEL:
        return 1;
    default:
        return 0;
    }
}

/* @p val as an unsigned of @p len bytes (1, 2 or 4), or -1 */
static int64_t uval(const void *val, size_t len)
{
    uint8_t v8;
    uint16_t v16;
    uint32_t v32;
    switch (len) {
    case 1:
        return (memcpy(&v8, val, 1), v8);
    case 2:
        return (memcpy(&v16, val, 2), v16);
    case 4:
        return (memcpy(&v32, val, 4), v32);
    default:
        return -1;
    }
}

/* the modem keys: a new setting @p p on @p freq with @p sync, checked whole */
static int retune(struct wren_lora_modem *m, uint16_t opt, int64_t v, size_t len)
{
    struct wren_lora_phy p = m->phy;
    uint32_t freq = m->freq_hz;
    uint8_t sync = m->syncword;
    bool ok = true;
    switch (opt) {
    case WREN_NETOPT_LORA_SF:
        ok = len == 1 && (p.sf = (uint8_t)v, true);
        break;
    case WREN_NETOPT_LORA_CR:
        ok = len == 1 && (p.cr = (uint8_t)v, true);
        break;
    case WREN_NETOPT_LORA_BW:
        ok = len == 2 && (p.bw_khz = (uint16_t)v, true);
        break;
    case WREN_NETOPT_LORA_PREAMBLE:
        ok = len == 2 && (p.preamble = (uint16_t)v, true);
        break;
    case WREN_NETOPT_LORA_FREQ:
        ok = len == 4 && v > 0 && (freq = (uint32_t)v, true);
        break;
    case WREN_NETOPT_LORA_SYNCWORD:
        ok = len == 1 && (sync = (uint8_t)v, true);
        break;
    default: /* WREN_NETOPT_CHANNEL */
        ok = len == 2 && v < WREN_LORA_CHANNELS &&
             (freq = WREN_LORA_EU868_CH0_HZ + (uint32_t)v * WREN_LORA_CHANNEL_STEP_HZ, true);
        break;
    }
    if (!ok || !wren_lora_phy_valid(&p)) {
        return -EINVAL;
    }
    int changed = memcmp(&p, &m->phy, sizeof(p)) != 0 || freq != m->freq_hz ||
                  sync != m->syncword;
    m->phy = p;
    m->freq_hz = freq;
    m->syncword = sync;
    return changed;
}

int wren_lora_modem_set(struct wren_lora_modem *m, uint16_t opt, const void *val, size_t len)
{
    int64_t v = uval(val, len);
    int16_t p;
    if (wren_lora_modem_opt_retunes(opt)) {
        return v < 0 ? -EINVAL : retune(m, opt, v, len);
    }
    switch (opt) {
    case WREN_NETOPT_TX_POWER:
        /* SX1276: RFO up to +14 dBm, PA_BOOST +2..+20 dBm (datasheet 5.4) */
        if (len != 2 || (memcpy(&p, val, 2), p < -4 || p > 20)) {
            return -EINVAL;
        }
        m->tx_power = p;
        return 0;
    case WREN_NETOPT_LORA_DUTY_CYCLE:
        if (len != 2 || (v > 10000 && v != WREN_LORA_DC_REGIONAL)) {
            return -EINVAL;
        }
        m->dc = (uint16_t)v;
        return 0;
    case WREN_NETOPT_LORA_REGION:
        if (len != 1 || v > WREN_LORA_REGION_EU868) {
            return -EINVAL;
        }
        m->region = (uint8_t)v;
        return 0;
    default:
        return -ENOTSUP;
    }
}

#include "sim/pathloss.h"

#include <math.h>

bool wren_pathloss_valid(const struct wren_pathloss *p)
{
    return isfinite(p->exponent) && p->exponent > 0 && isfinite(p->ref_loss_db) &&
           isfinite(p->sigma_db) && p->sigma_db >= 0 && isfinite(p->tx_power_dbm) &&
           isfinite(p->noise_dbm);
}

double wren_pathloss_ber(double snr_db)
{
    /* the alternating sum (pathloss.h); binomials C(16, k) */
    static const double c16[17] = { 1,     16,    120,   560,  1820, 4368, 8008, 11440, 12870,
                                    11440, 8008,  4368,  1820, 560,  120,  16,   1 };
    double s = pow(10.0, snr_db / 10.0);
    double sum = 0;
    for (int k = 2; k <= 16; k++) {
        double term = c16[k] * exp(20.0 * s * (1.0 / k - 1.0));
        sum += (k & 1) ? -term : term;
    }
    double ber = 8.0 / 15.0 / 16.0 * sum;
    /* the sum cancels to rounding noise at high SNR; at very low SNR it
     * tends to 1/2 */
    return ber < 0 ? 0 : ber > 0.5 ? 0.5 : ber;
}

double wren_pathloss_prr(double snr_db, unsigned psdu_len)
{
    double ber = wren_pathloss_ber(snr_db);
    return exp(8.0 * psdu_len * log1p(-ber));
}

/* splitmix64: a well-mixed 64-bit value from @p x */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static double unit(uint64_t x)
{
    return ((double)(x >> 11) + 0.5) * (1.0 / 9007199254740992.0); /* (0, 1) */
}

double wren_pathloss_rssi(const struct wren_pathloss *p, double d, uint64_t seed, uint32_t a,
                          uint32_t b)
{
    double rssi = p->tx_power_dbm - p->ref_loss_db - 10.0 * p->exponent * log10(d < 1.0 ? 1.0 : d);
    if (p->sigma_db > 0) {
        uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
        uint64_t h = mix(seed ^ mix(((uint64_t)lo << 32 | hi) ^ 0x5ad0c0ffee5eedull));
        /* Box-Muller: one standard normal from two uniforms */
        double u1 = unit(h), u2 = unit(mix(h));
        double z = sqrt(-2.0 * log(u1)) * cos(2.0 * 3.14159265358979323846 * u2);
        rssi -= p->sigma_db * z;
    }
    return rssi;
}

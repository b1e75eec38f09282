/**
 * @file test_rpl.c
 * @brief RPL wire formats (RFC 6550 messages and options, RFC 6553 RPI,
 *        RFC 6554 SRH): canonical byte arrays, round trips, every truncation,
 *        and the SRH processing rules of RFC 6554 4.2.
 */
#include "core/byteorder.h"
#include "test.h"
#include "wire/rpl.h"

static const uint8_t dodagid[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1};

/* a DIO: instance 30, version 240, rank 256, G, MOP 2, Prf 0, DTSN 7, with a
 * DODAG configuration option, a Pad1 and a prefix information option */
static const uint8_t dio[] = {
    155, 0x01, 0x00, 0x00,                          /* ICMPv6 header */
    30, 240, 0x01, 0x00, 0x90, 7, 0, 0,             /* base */
    0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
    0x04, 14, 0x00, 8, 12, 10, 0x07, 0x00, 0x01, 0x00, 0x00, 0x01, 0, 30, 0x00, 60,
    0x00,                                           /* Pad1 */
    0x08, 30, 64, 0x40, 0, 0, 0x0e, 0x10, 0, 0, 0x07, 0x08, 0, 0, 0, 0,
    0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

TEST(test_rpl_msg_parse__dio)
{
    struct rpl_msg m;
    CHECK_EQ(wren_rpl_msg_parse(dio, sizeof(dio), &m), 0);
    CHECK_EQ(m.code, RPL_CODE_DIO);
    CHECK_EQ(m.dio.instance, 30);
    CHECK_EQ(m.dio.version, 240);
    CHECK_EQ(m.dio.rank, 256);
    CHECK(m.dio.g_mop_prf & RPL_DIO_G);
    CHECK_EQ(RPL_DIO_MOP(m.dio.g_mop_prf), RPL_MOP_STORING);
    CHECK_EQ(m.dio.dtsn, 7);
    CHECK_MEM(m.dio.dodagid, dodagid, 16);
    CHECK_EQ(m.opts_len, sizeof(dio) - 28);

    struct rpl_opt_iter it;
    struct rpl_opt o;
    wren_rpl_opt_iter_init(&it, m.opts, m.opts_len);
    CHECK_EQ(wren_rpl_opt_next(&it, &o), 1);
    CHECK_EQ(o.type, RPL_OPT_CONFIG);
    struct rpl_opt_config c;
    CHECK_EQ(wren_rpl_opt_config_parse(&o, &c), 0);
    CHECK_EQ(c.dio_int_doublings, 8);
    CHECK_EQ(c.dio_int_min, 12);
    CHECK_EQ(c.dio_redundancy, 10);
    CHECK_EQ(c.max_rank_inc, 0x0700);
    CHECK_EQ(c.min_hop_rank_inc, 256);
    CHECK_EQ(c.ocp, 1);
    CHECK_EQ(c.def_lifetime, 30);
    CHECK_EQ(c.lifetime_unit, 60);
    CHECK_EQ(wren_rpl_opt_next(&it, &o), 1); /* the Pad1 is skipped */
    CHECK_EQ(o.type, RPL_OPT_PREFIX);
    struct rpl_opt_prefix p;
    CHECK_EQ(wren_rpl_opt_prefix_parse(&o, &p), 0);
    CHECK_EQ(p.prefix_len, 64);
    CHECK_EQ(p.flags, RPL_PIO_A);
    CHECK_EQ(p.valid, 3600);
    CHECK_EQ(p.preferred, 1800);
    CHECK_MEM(p.prefix, dodagid, 8);
    CHECK_EQ(wren_rpl_opt_next(&it, &o), 0);
}

TEST(test_rpl_msg_emit__dio_round_trip)
{
    struct rpl_msg m;
    uint8_t out[sizeof(dio)];
    CHECK_EQ(wren_rpl_msg_parse(dio, sizeof(dio), &m), 0);
    CHECK_EQ(wren_rpl_msg_len(&m), (int)sizeof(dio));
    CHECK_EQ(wren_rpl_msg_emit(&m, out, sizeof(out)), (int)sizeof(dio));
    CHECK_MEM(out, dio, sizeof(dio));
    CHECK_EQ(wren_rpl_msg_emit(&m, out, sizeof(out) - 1), -RPL_ERR_NOBUFS);
    /* the options themselves, built again */
    uint8_t opts[64];
    struct rpl_opt_config c = {.dio_int_doublings = 8, .dio_int_min = 12, .dio_redundancy = 10,
                               .max_rank_inc = 0x700, .min_hop_rank_inc = 256, .ocp = 1,
                               .def_lifetime = 30, .lifetime_unit = 60};
    int n = wren_rpl_opt_config_emit(&c, opts, sizeof(opts));
    CHECK_EQ(n, 16);
    n += wren_rpl_opt_pad_emit(1, opts + n, sizeof(opts) - (size_t)n);
    static const uint8_t pfx[16] = {0x20, 1, 0xd, 0xb8};
    struct rpl_opt_prefix p = {.prefix_len = 64, .flags = RPL_PIO_A, .valid = 3600,
                               .preferred = 1800, .prefix = pfx};
    n += wren_rpl_opt_prefix_emit(&p, opts + n, sizeof(opts) - (size_t)n);
    CHECK_EQ(n, (int)sizeof(dio) - 28);
    CHECK_MEM(opts, dio + 28, (size_t)n);
}

TEST(test_rpl_msg_parse__every_truncation)
{
    struct rpl_msg m;
    for (size_t n = 0; n < 28; n++) {
        CHECK_EQ(wren_rpl_msg_parse(dio, n, &m), -RPL_ERR_TRUNCATED);
    }
    /* DAO with D needs 20 bytes of base, without 4 */
    uint8_t dao[24] = {155, RPL_CODE_DAO, 0, 0, 1, RPL_DAO_D, 0, 9};
    CHECK_EQ(wren_rpl_msg_parse(dao, 23, &m), -RPL_ERR_TRUNCATED);
    CHECK_EQ(wren_rpl_msg_parse(dao, 24, &m), 0);
    CHECK(m.dao.dodagid == dao + 8);
    dao[5] = 0;
    CHECK_EQ(wren_rpl_msg_parse(dao, 8, &m), 0);
    CHECK(m.dao.dodagid == NULL);
    CHECK_EQ(m.dao.seq, 9);
    CHECK_EQ(wren_rpl_msg_parse(dao, 7, &m), -RPL_ERR_TRUNCATED);
    uint8_t dis[6] = {155, RPL_CODE_DIS};
    CHECK_EQ(wren_rpl_msg_parse(dis, 5, &m), -RPL_ERR_TRUNCATED);
    CHECK_EQ(wren_rpl_msg_parse(dis, 6, &m), 0);
}

TEST(test_rpl_msg_parse__bad_type_and_code)
{
    struct rpl_msg m;
    uint8_t b[sizeof(dio)];
    memcpy(b, dio, sizeof(b));
    b[0] = 154;
    CHECK_EQ(wren_rpl_msg_parse(b, sizeof(b), &m), -RPL_ERR_TYPE);
    b[0] = 155;
    b[1] = 0x80; /* secure DIS: not supported */
    CHECK_EQ(wren_rpl_msg_parse(b, sizeof(b), &m), -RPL_ERR_CODE);
    b[1] = 0x8a; /* consistency check */
    CHECK_EQ(wren_rpl_msg_parse(b, sizeof(b), &m), -RPL_ERR_CODE);
}

TEST(test_rpl_msg_emit__dao_and_ack)
{
    uint8_t opts[64], out[128];
    static const uint8_t target[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 7};
    static const uint8_t parent[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 3};
    struct rpl_opt_target t = {.prefix_len = 128, .prefix = target, .prefix_bytes = 16};
    struct rpl_opt_transit tr = {.path_seq = 5, .path_lifetime = 30, .parent = parent};
    int n = wren_rpl_opt_target_emit(&t, opts, sizeof(opts));
    CHECK_EQ(n, 20);
    n += wren_rpl_opt_transit_emit(&tr, opts + n, sizeof(opts) - (size_t)n);
    CHECK_EQ(n, 42);
    struct rpl_msg m = {.code = RPL_CODE_DAO,
                        .dao = {.instance = 30, .flags = RPL_DAO_K, .seq = 200, .dodagid = dodagid},
                        .opts = opts, .opts_len = (size_t)n};
    int len = wren_rpl_msg_emit(&m, out, sizeof(out));
    CHECK_EQ(len, 4 + 20 + 42);
    CHECK_EQ(out[5], RPL_DAO_K | RPL_DAO_D);
    struct rpl_msg r;
    CHECK_EQ(wren_rpl_msg_parse(out, (size_t)len, &r), 0);
    CHECK_EQ(r.dao.seq, 200);
    CHECK_MEM(r.dao.dodagid, dodagid, 16);
    struct rpl_opt_iter it;
    struct rpl_opt o;
    wren_rpl_opt_iter_init(&it, r.opts, r.opts_len);
    CHECK_EQ(wren_rpl_opt_next(&it, &o), 1);
    struct rpl_opt_target t2;
    CHECK_EQ(wren_rpl_opt_target_parse(&o, &t2), 0);
    CHECK_EQ(t2.prefix_len, 128);
    CHECK_MEM(t2.prefix, target, 16);
    CHECK_EQ(wren_rpl_opt_next(&it, &o), 1);
    struct rpl_opt_transit tr2;
    CHECK_EQ(wren_rpl_opt_transit_parse(&o, &tr2), 0);
    CHECK_EQ(tr2.path_seq, 5);
    CHECK_EQ(tr2.path_lifetime, 30);
    CHECK_MEM(tr2.parent, parent, 16);
    CHECK_EQ(wren_rpl_opt_next(&it, &o), 0);

    struct rpl_msg a = {.code = RPL_CODE_DAO_ACK,
                        .dao_ack = {.instance = 30, .seq = 200,
                                    .status = RPL_DAO_ACK_UNABLE_TO_ACCEPT}};
    len = wren_rpl_msg_emit(&a, out, sizeof(out));
    CHECK_EQ(len, 8);
    CHECK_EQ(wren_rpl_msg_parse(out, 8, &r), 0);
    CHECK_EQ(r.dao_ack.status, RPL_DAO_ACK_UNABLE_TO_ACCEPT);
    CHECK(r.dao_ack.dodagid == NULL);
}

TEST(test_rpl_opt_next__bad_lengths)
{
    struct rpl_opt_iter it;
    struct rpl_opt o;
    /* PadN claiming more than there is */
    static const uint8_t padn_long[] = {0x01, 4, 0, 0};
    wren_rpl_opt_iter_init(&it, padn_long, sizeof(padn_long));
    CHECK_EQ(wren_rpl_opt_next(&it, &o), -RPL_ERR_OPT_TRUNCATED);
    CHECK_EQ(wren_rpl_opt_next(&it, &o), -RPL_ERR_OPT_TRUNCATED); /* sticky */
    /* an option whose length byte is missing */
    static const uint8_t lone[] = {0x00, 0x05};
    wren_rpl_opt_iter_init(&it, lone, sizeof(lone));
    CHECK_EQ(wren_rpl_opt_next(&it, &o), -RPL_ERR_OPT_TRUNCATED);
    /* length 0 is legal in RPL (PadN of 2, a target of nothing is not) */
    static const uint8_t empty[] = {0x01, 0, 0x02, 0};
    wren_rpl_opt_iter_init(&it, empty, sizeof(empty));
    CHECK_EQ(wren_rpl_opt_next(&it, &o), 1);
    CHECK_EQ(o.type, RPL_OPT_METRIC);
    CHECK_EQ(o.len, 0);
    CHECK_EQ(wren_rpl_opt_next(&it, &o), 0);
}

TEST(test_rpl_opt_parse__bad_sizes_and_prefixes)
{
    uint8_t d[32] = {0};
    struct rpl_opt o = {.data = d};
    struct rpl_opt_route r;
    struct rpl_opt_target t;
    struct rpl_opt_prefix p;
    struct rpl_opt_config c;
    struct rpl_opt_transit tr;
    struct rpl_opt_solicited s;

    o.type = RPL_OPT_ROUTE;
    o.len = 5;
    CHECK_EQ(wren_rpl_opt_route_parse(&o, &r), -RPL_ERR_OPT_SIZE);
    o.len = 6 + 17;
    CHECK_EQ(wren_rpl_opt_route_parse(&o, &r), -RPL_ERR_OPT_SIZE);
    o.len = 6 + 8;
    d[0] = 65; /* /65 needs 9 bytes */
    CHECK_EQ(wren_rpl_opt_route_parse(&o, &r), -RPL_ERR_PREFIX_LEN);
    d[0] = 64;
    CHECK_EQ(wren_rpl_opt_route_parse(&o, &r), 0);
    CHECK_EQ(r.prefix_bytes, 8);
    o.len = 22;
    d[0] = 129;
    CHECK_EQ(wren_rpl_opt_route_parse(&o, &r), -RPL_ERR_PREFIX_LEN);

    o.len = 1;
    CHECK_EQ(wren_rpl_opt_target_parse(&o, &t), -RPL_ERR_OPT_SIZE);
    o.len = 2 + 16;
    d[1] = 129;
    CHECK_EQ(wren_rpl_opt_target_parse(&o, &t), -RPL_ERR_PREFIX_LEN);
    d[1] = 128;
    o.len = 2 + 15;
    CHECK_EQ(wren_rpl_opt_target_parse(&o, &t), -RPL_ERR_PREFIX_LEN);

    o.len = 29;
    CHECK_EQ(wren_rpl_opt_prefix_parse(&o, &p), -RPL_ERR_OPT_SIZE);
    o.len = 30;
    d[0] = 129;
    CHECK_EQ(wren_rpl_opt_prefix_parse(&o, &p), -RPL_ERR_PREFIX_LEN);

    o.len = 13;
    CHECK_EQ(wren_rpl_opt_config_parse(&o, &c), -RPL_ERR_OPT_SIZE);
    o.len = 5;
    CHECK_EQ(wren_rpl_opt_transit_parse(&o, &tr), -RPL_ERR_OPT_SIZE);
    o.len = 4;
    CHECK_EQ(wren_rpl_opt_transit_parse(&o, &tr), 0);
    CHECK(tr.parent == NULL);
    o.len = 18;
    CHECK_EQ(wren_rpl_opt_solicited_parse(&o, &s), -RPL_ERR_OPT_SIZE);
}

TEST(test_rpl_rpi__parse_and_emit)
{
    struct rpl_rpi r = {.flags = RPL_RPI_O, .instance = 30, .rank = 0x1234}, r2;
    uint8_t b[8];
    CHECK_EQ(wren_rpl_rpi_hbh_emit(58, &r, b, 7), -RPL_ERR_NOBUFS);
    CHECK_EQ(wren_rpl_rpi_hbh_emit(58, &r, b, 8), 8);
    static const uint8_t want[8] = {58, 0, RPL_RPI_TYPE, 4, 0x80, 30, 0x12, 0x34};
    CHECK_MEM(b, want, 8);
    CHECK_EQ(wren_rpl_rpi_parse(b + 4, 4, &r2), 0);
    CHECK_EQ(r2.flags, RPL_RPI_O);
    CHECK_EQ(r2.instance, 30);
    CHECK_EQ(r2.rank, 0x1234);
    CHECK_EQ(wren_rpl_rpi_parse(b + 4, 3, &r2), -RPL_ERR_OPT_SIZE);
}

/* ---- SRH ---- */

static void addr(uint8_t a[16], uint8_t last)
{
    static const uint8_t pfx[8] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0};
    memset(a, 0, 16);
    memcpy(a, pfx, 8);
    a[15] = last;
}

TEST(test_rpl_srh_emit__compressed)
{
    /* dst 2001:db8::2, then ::3, ::4, ::5: all share 15 octets */
    uint8_t hops[3][16], dst[16], b[64];
    addr(dst, 2);
    addr(hops[0], 3);
    addr(hops[1], 4);
    addr(hops[2], 5);
    int n = wren_rpl_srh_emit(17, (const uint8_t(*)[16])hops, 3, dst, b, sizeof(b));
    CHECK_EQ(n, 16); /* 8 + 3 one-byte addresses + 5 pad */
    static const uint8_t want[16] = {17, 1, 3, 3, 0xff, 0x50, 0, 0, 3, 4, 5, 0, 0, 0, 0, 0};
    CHECK_MEM(b, want, 16);
    struct rpl_srh s;
    CHECK_EQ(wren_rpl_srh_parse(b, 16, &s), 0);
    CHECK_EQ(s.n, 3);
    CHECK_EQ(s.segs_left, 3);
    uint8_t a[16];
    for (unsigned i = 1; i <= 3; i++) {
        wren_rpl_srh_addr(&s, i, dst, a);
        CHECK_MEM(a, hops[i - 1], 16);
    }
    CHECK_EQ(wren_rpl_srh_emit(17, (const uint8_t(*)[16])hops, 3, dst, b, 15), -RPL_ERR_NOBUFS);
    CHECK_EQ(wren_rpl_srh_emit(17, (const uint8_t(*)[16])hops, 0, dst, b, 64), -RPL_ERR_INVAL);
}

TEST(test_rpl_srh_emit__last_differs)
{
    /* the final destination in another /64: CmprE smaller than CmprI */
    uint8_t hops[2][16], dst[16], b[64], a[16];
    addr(dst, 2);
    addr(hops[0], 3);
    memset(hops[1], 0, 16);
    memcpy(hops[1], (const uint8_t[]){0x20, 0x01, 0x0d, 0xb8, 0, 1}, 6);
    hops[1][15] = 9;
    int n = wren_rpl_srh_emit(58, (const uint8_t(*)[16])hops, 2, dst, b, sizeof(b));
    CHECK_EQ(b[4], 0xf5); /* CmprI 15, CmprE 5 */
    CHECK_EQ(n, 24);      /* 8 + 1 + 11 + 4 pad */
    struct rpl_srh s;
    CHECK_EQ(wren_rpl_srh_parse(b, (size_t)n, &s), 0);
    CHECK_EQ(s.n, 2);
    wren_rpl_srh_addr(&s, 2, dst, a);
    CHECK_MEM(a, hops[1], 16);
}

TEST(test_rpl_srh_parse__inconsistent)
{
    struct rpl_srh s;
    uint8_t b[24] = {17, 1, 3, 1, 0x00, 0x00};
    /* 8 bytes of room cannot hold a 16-byte address */
    CHECK_EQ(wren_rpl_srh_parse(b, 16, &s), -RPL_ERR_SRH_LEN);
    /* CmprI 0, CmprE 8: room 8 holds the last address exactly */
    b[4] = 0x08;
    CHECK_EQ(wren_rpl_srh_parse(b, 16, &s), 0);
    CHECK_EQ(s.n, 1);
    /* pad 1 leaves 7 bytes: not a whole address */
    b[5] = 0x10;
    CHECK_EQ(wren_rpl_srh_parse(b, 16, &s), -RPL_ERR_SRH_LEN);
    /* the header claims 16 bytes, only 15 are there */
    b[5] = 0;
    CHECK_EQ(wren_rpl_srh_parse(b, 15, &s), -RPL_ERR_TRUNCATED);
    b[2] = 0;
    CHECK_EQ(wren_rpl_srh_parse(b, 16, &s), -RPL_ERR_TYPE);
}

struct owned {
    uint8_t last[4];
    int n;
};

static bool is_own(void *ctx, const uint8_t a[16])
{
    const struct owned *o = ctx;
    uint8_t pfx[16];
    addr(pfx, 0);
    if (memcmp(a, pfx, 15) != 0) {
        return false;
    }
    for (int k = 0; k < o->n; k++) {
        if (a[15] == o->last[k]) {
            return true;
        }
    }
    return false;
}

TEST(test_rpl_srh_process__walks_the_route)
{
    uint8_t hops[3][16], dst[16], src_dst[16], b[64];
    addr(dst, 2);
    memcpy(src_dst, dst, 16);
    addr(hops[0], 3);
    addr(hops[1], 4);
    addr(hops[2], 5);
    int n = wren_rpl_srh_emit(17, (const uint8_t(*)[16])hops, 3, dst, b, sizeof(b));
    uint16_t off;
    for (uint8_t me = 2; me <= 4; me++) {
        struct owned o = {{me}, 1};
        CHECK_EQ(dst[15], me);
        CHECK_EQ(wren_rpl_srh_process(b, (size_t)n, dst, is_own, &o, &off), 1);
        CHECK_EQ(dst[15], me + 1);
        CHECK_EQ(b[3], 3 - (me - 1));
    }
    struct owned o = {{5}, 1};
    CHECK_EQ(wren_rpl_srh_process(b, (size_t)n, dst, is_own, &o, &off), 0);
    /* the visited addresses are recorded in the header */
    struct rpl_srh s;
    CHECK_EQ(wren_rpl_srh_parse(b, (size_t)n, &s), 0);
    uint8_t a[16];
    for (unsigned i = 1; i <= 3; i++) {
        wren_rpl_srh_addr(&s, i, dst, a);
        CHECK_EQ(a[15], i + 1);
    }
}

TEST(test_rpl_srh_process__segs_left_beyond_n)
{
    uint8_t b[16] = {17, 1, 3, 4, 0xff, 0x50, 0, 0, 3, 4, 5};
    uint8_t dst[16], before[16];
    addr(dst, 2);
    memcpy(before, b, 16);
    struct owned o = {{2}, 1};
    uint16_t off;
    CHECK_EQ(wren_rpl_srh_process(b, 16, dst, is_own, &o, &off), -RPL_ERR_SRH_SEGS);
    CHECK_EQ(off, 3);
    CHECK_MEM(b, before, 16);
    CHECK_EQ(dst[15], 2);
}

TEST(test_rpl_srh_process__multicast)
{
    /* uncompressed, Address[1] = ff02::1 */
    uint8_t b[24] = {17, 2, 3, 1, 0x00, 0x00, 0, 0, 0xff, 0x02, [23] = 1};
    uint8_t dst[16];
    addr(dst, 2);
    struct owned o = {{2}, 1};
    uint16_t off;
    CHECK_EQ(wren_rpl_srh_process(b, 24, dst, is_own, &o, &off), -RPL_ERR_SRH_MCAST);
    /* a multicast destination */
    memset(b + 8, 0, 16);
    addr(b + 8, 3);
    dst[0] = 0xff;
    CHECK_EQ(wren_rpl_srh_process(b, 24, dst, is_own, &o, &off), -RPL_ERR_SRH_MCAST);
}

TEST(test_rpl_srh_process__loop)
{
    /* ::3 ::2 ::4 ::2 ::5 with us ::2: ours twice with ::4 between */
    uint8_t b[16] = {17, 1, 3, 5, 0xff, 0x30, 0, 0, 3, 2, 4, 2, 5};
    uint8_t dst[16], before[16];
    addr(dst, 2);
    memcpy(before, b, 16);
    struct owned o = {{2}, 1};
    uint16_t off;
    CHECK_EQ(wren_rpl_srh_process(b, 16, dst, is_own, &o, &off), -RPL_ERR_SRH_LOOP);
    CHECK_EQ(off, 8 + 3);
    CHECK_MEM(b, before, 16);
    /* adjacent addresses of ours are no loop */
    b[10] = 2;
    CHECK_EQ(wren_rpl_srh_process(b, 16, dst, is_own, &o, &off), 1);
    /* two different addresses of ours count alike */
    uint8_t c[16] = {17, 1, 3, 3, 0xff, 0x50, 0, 0, 7, 4, 8};
    struct owned two = {{7, 8}, 2};
    addr(dst, 7);
    CHECK_EQ(wren_rpl_srh_process(c, 16, dst, is_own, &two, &off), -RPL_ERR_SRH_LOOP);
}

/* RFC 6554 4.2 (issue 24): the next address is ours: a loop, whatever
 * lies between (before, the datagram was sent to our own link address) */
TEST(test_rpl_srh_process__next_hop_ours)
{
    /* ::3 ::4 with us ::2 (the destination) and ::3 */
    uint8_t b[16] = {17, 1, 3, 2, 0xff, 0x60, 0, 0, 3, 4};
    uint8_t dst[16], before[16];
    addr(dst, 2);
    memcpy(before, b, 16);
    struct owned o = {{2, 3}, 2};
    uint16_t off = 0;
    CHECK_EQ(wren_rpl_srh_process(b, 16, dst, is_own, &o, &off), -RPL_ERR_SRH_LOOP);
    CHECK_EQ(off, 8); /* Address[1] */
    CHECK_MEM(b, before, 16);
    CHECK_EQ(dst[15], 2);
    /* the next is not ours: on to it */
    struct owned me = {{2}, 1};
    CHECK_EQ(wren_rpl_srh_process(b, 16, dst, is_own, &me, &off), 1);
    CHECK_EQ(dst[15], 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rpl_srh_process__next_hop_ours),
        cmocka_unit_test(test_rpl_msg_parse__dio),
        cmocka_unit_test(test_rpl_msg_emit__dio_round_trip),
        cmocka_unit_test(test_rpl_msg_parse__every_truncation),
        cmocka_unit_test(test_rpl_msg_parse__bad_type_and_code),
        cmocka_unit_test(test_rpl_msg_emit__dao_and_ack),
        cmocka_unit_test(test_rpl_opt_next__bad_lengths),
        cmocka_unit_test(test_rpl_opt_parse__bad_sizes_and_prefixes),
        cmocka_unit_test(test_rpl_rpi__parse_and_emit),
        cmocka_unit_test(test_rpl_srh_emit__compressed),
        cmocka_unit_test(test_rpl_srh_emit__last_differs),
        cmocka_unit_test(test_rpl_srh_parse__inconsistent),
        cmocka_unit_test(test_rpl_srh_process__walks_the_route),
        cmocka_unit_test(test_rpl_srh_process__segs_left_beyond_n),
        cmocka_unit_test(test_rpl_srh_process__multicast),
        cmocka_unit_test(test_rpl_srh_process__loop),
    };
    return cmocka_run_group_tests_name("rpl_wire", tests, NULL, NULL);
}

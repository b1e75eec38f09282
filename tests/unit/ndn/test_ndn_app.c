/* The NDN application API (ndn/ndn_app.h) between two simulated radios:
 * a consumer blocking in an application thread (wren_ndn_app_fetch), a
 * producer answering from its callback, and a fetch nobody answers timing
 * out; the Data's content arrives intact and nothing stays in the packet
 * buffers (the PIT entries expire, the Content Store keeps its own copy). */
#include <errno.h>

#include "core/thread.h"
#include "fixture.h"
#include "ndn/ndn.h"
#include "ndn/ndn_app.h"
#include "net/netapi.h"
#include "net/netopt.h"

static struct fx_node *a, *b;
static struct wren_ndn fwd_a, fwd_b;
static struct wren_ndn_app cons, prod;

struct fetch {
    ssize_t got[2];
    uint8_t content[16];
    uint16_t content_len;
};

static void consumer(void *arg)
{
    struct fetch *f = arg;
    uint8_t buf[128];
    struct ndn_data d;
    f->got[0] = wren_ndn_app_fetch(&cons, "/b/temp", 0, buf, sizeof(buf), 500000, &d);
    if (f->got[0] > 0 && d.content_len <= sizeof(f->content)) {
        memcpy(f->content, d.content, d.content_len);
        f->content_len = d.content_len;
    }
    f->got[1] = wren_ndn_app_fetch(&cons, "/nobody/here", 0, buf, sizeof(buf), 300000, &d);
}

/* answers every Interest with "21C", DigestSha256-signed */
static void producer(struct wren_ndn_app *app, void *arg)
{
    unsigned *answered = arg;
    uint8_t buf[128];
    ssize_t n;
    while ((n = wren_ndn_app_recv(app, buf, sizeof(buf), 0)) > 0) {
        struct ndn_interest in;
        CHECK_EQ(wren_ndn_interest_parse(buf, (size_t)n, &in), 0);
        struct ndn_data d = { .name = in.name, .has_content = true,
                              .content = (const uint8_t *)"21C", .content_len = 3 };
        CHECK_EQ(wren_ndn_app_put_data(app, &d), 0);
        (*answered)++;
    }
}

static void route(struct fx_node *from, struct wren_ndn *fwd, const struct fx_node *to,
                  const char *prefix)
{
    struct wren_ndn_face_cfg c = { .kind = WREN_NDN_FACE_LINK, .if_id = from->if_id,
                                   .addr_len = 8 };
    memcpy(c.addr, to->nif->long_addr, 8);
    int face = wren_netapi_set(&from->node, &fwd->module, WREN_NETOPT_NDN_FACE, 0, &c, sizeof(c));
    CHECK(face > 0);
    struct wren_ndn_route r = { .face = (uint8_t)face };
    int n = wren_ndn_name_from_uri(prefix, r.name, sizeof(r.name));
    CHECK(n > 0);
    r.len = (uint8_t)n;
    CHECK_EQ(wren_netapi_set(&from->node, &fwd->module, WREN_NETOPT_NDN_ROUTE, 0, &r, sizeof(r)), 0);
}

TEST(test_ndn_app_fetch__blocking_consumer_and_callback_producer)
{
    a = fx_node(FX_RADIO);
    b = fx_node(FX_RADIO);
    fx_link2(a, b);
    CHECK_EQ(wren_ndn_init(&a->node, &fwd_a), 0);
    CHECK_EQ(wren_ndn_init(&b->node, &fwd_b), 0);
    route(a, &fwd_a, b, "/b");
    route(a, &fwd_a, b, "/nobody");
    CHECK_EQ(wren_ndn_app_open(&a->node, &cons), 0);
    CHECK_EQ(wren_ndn_app_open(&b->node, &prod), 0);
    static unsigned answered;
    answered = 0;
    wren_ndn_app_set_cb(&prod, producer, &answered);
    CHECK_EQ(wren_ndn_app_register(&prod, "/b", 0), 0);
    CHECK_EQ(wren_ndn_app_register(&prod, "/b/%zz", 0), -EINVAL);

    static struct fetch f;
    memset(&f, 0, sizeof(f));
    static uint8_t stack[64 * 1024];
    static struct wren_thread t;
    CHECK_EQ(wren_thread_start(&a->node, &t, stack, sizeof(stack), consumer, &f, "ndn"), 0);
    fx_run_us(2000000);
    CHECK(f.got[0] > 0);
    CHECK_EQ(f.content_len, 3);
    CHECK(memcmp(f.content, "21C", 3) == 0);
    CHECK_EQ(f.got[1], -ETIMEDOUT);
    CHECK_EQ(answered, 1);
    /* /nobody/here went to b, which has no route for it */
    CHECK_EQ(fwd_a.stats.tx_interests, 2);
    CHECK_EQ(fwd_b.stats.rx_interests, 2);
    CHECK_EQ(fwd_b.stats.drop_no_route, 1);
    wren_ndn_app_close(&cons);
    wren_ndn_app_close(&prod);
    FX_CLEAN(1000000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST(test_ndn_app_fetch__blocking_consumer_and_callback_producer),
    };
    return cmocka_run_group_tests_name("ndn_app", tests, NULL, NULL);
}

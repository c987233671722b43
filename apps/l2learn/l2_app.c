/*
 * l2_app: the L2 learning switch (of_l2learn.c) behind the worker's app
 * hooks (of_app.h): a MAC table per switch from switch up to switch down,
 * the take-over messages at switch up, the answers to each PACKET_IN.
 */
#include "of_l2learn.h"

#include <inttypes.h>

#include "ofcd_log.h"

static void send_all(struct l2_out *out, struct of_app_out *to)
{
    for (unsigned i = 0; i < out->n; i++)
        of_app_send(to, &out->msg[i]);
}

static void l2_switch_up(void *arg, struct of_app_switch *sw, uint64_t now_us,
                         struct of_app_out *to)
{
    const struct l2_cfg *cfg = arg;
    struct l2_out out;

    (void)now_us;
    sw->state = l2_table_create(cfg->table_size);
    if (!sw->state)
        LOG_ERR("l2", "switch %016" PRIx64 ": out of memory for its MAC table: not learning",
                sw->dpid);
    l2_on_established(cfg, &out);
    send_all(&out, to);
}

static void l2_packet_in(void *arg, struct of_app_switch *sw, const struct ofp_packet_in *pi,
                         uint64_t now_us, struct of_app_out *to)
{
    struct l2_out out;

    if (sw->state && l2_on_packet_in(sw->state, arg, pi, now_us, &out) == 0)
        send_all(&out, to);
}

static void l2_switch_down(void *arg, struct of_app_switch *sw)
{
    (void)arg;
    l2_table_destroy(sw->state);
    sw->state = NULL;
}

void l2_app_init(struct of_app *app, const struct l2_cfg *cfg)
{
    *app = (struct of_app){
        .name = "l2_learning",
        .cookies = {L2_COOKIE, L2_COOKIE},
        .arg = (void *)cfg,
        .on_switch_up = l2_switch_up,
        .on_packet_in = l2_packet_in,
        .on_switch_down = l2_switch_down,
    };
}

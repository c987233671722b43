/* capture: see capture.h. */
#include "capture.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "app.h"
#include "dpid.h"
#include "ofcd_clock.h"
#include "ofcd_inet.h"
#include "ofcd_pcapng.h"
#include "of_flight.h"

int capture_ask(struct app_ctx *app, uint64_t dpid, char *why)
{
    char d[24];
    conn_handle_t h = 0;
    bool known = false;

    dpid_format(dpid, d);
    pthread_mutex_lock(&app->ctl_lock);
    const struct ctl_switch *sw = app->ctl ? sw_view_find(app->ctl, dpid) : NULL;
    if (sw) {
        h = sw->conn;
        known = true;
    }
    pthread_mutex_unlock(&app->ctl_lock);
    if (!known) {
        snprintf(why, CAPTURE_WHY_MAX, "no switch %s is known", d);
        return -ENOENT;
    }
    struct of_io *io = NULL;
    for (unsigned id = 0; id < RTE_MAX_LCORE && !io; id++)
        if (app->lcores[id].lc && app->lcores[id].io &&
            app->lcores[id].queue == conn_handle_io(h))
            io = app->lcores[id].ofio;
    if (!io || !app->cfg.of_recorder_kb) {
        snprintf(why, CAPTURE_WHY_MAX, "the flight recorder is off (openflow.recorder_kb = 0)");
        return -ENOTSUP;
    }
    pthread_mutex_lock(&app->capture.lock);
    int rc = app->capture.busy ? -EBUSY : of_io_flight_ask(io, h);
    if (rc == 0) {
        app->capture.busy = true;
        app->capture.dpid = dpid;
        app->capture.io = io;
    }
    pthread_mutex_unlock(&app->capture.lock);
    if (rc == -EBUSY)
        snprintf(why, CAPTURE_WHY_MAX, "busy: another capture is being copied; try again");
    else if (rc < 0)
        snprintf(why, CAPTURE_WHY_MAX, "the capture could not be asked for: %s",
                 strerror(-rc));
    return rc;
}

void capture_drop(struct app_ctx *app)
{
    pthread_mutex_lock(&app->capture.lock);
    app->capture.busy = false;
    pthread_mutex_unlock(&app->capture.lock);
}

int capture_take(struct app_ctx *app, struct ofcd_pcapng *w, char *why)
{
    struct of_io_flight_ends e;
    struct of_flight_stats st = {0};
    const void *blob;
    size_t len;
    int rc;
    char d[24], peer[OFCD_PEER_STRLEN];

    memset(w, 0, sizeof(*w));
    if (!of_io_flight_answer(app->capture.io, &rc, &blob, &len, &e))
        return 1;
    dpid_format(app->capture.dpid, d);
    if (rc == -ENOENT) {
        snprintf(why, CAPTURE_WHY_MAX, "switch %s: the record of its last connection is gone "
                 "(its slot was taken by another connection)", d);
    } else if (rc < 0) {
        snprintf(why, CAPTURE_WHY_MAX, "switch %s: the record could not be copied: %s", d,
                 strerror(-rc));
    } else {
        of_flight_blob_each(blob, len, NULL, NULL, &st);
        snprintf(why, CAPTURE_WHY_MAX, "ofcd flight record: switch %s from %s, connection %s; "
                 "%llu messages recorded, %llu pushed out by newer ones, %llu shortened", d,
                 ofcd_peer_format(e.peer_ip, e.peer_port, peer), e.closed ? "over" : "open",
                 (unsigned long long)st.recorded, (unsigned long long)st.evicted,
                 (unsigned long long)st.truncated);
        struct ofcd_pcapng_ends ends = {e.peer_ip, app->cfg.ip, e.peer_port, e.local_port};
        /* The records carry the io lcore's clock; the capture the wall's. */
        int64_t shift = (int64_t)ofcd_clock_wall_ns() - (int64_t)(lcore_clock_us() * 1000u);
        rc = of_flight_pcapng(blob, len, &ends, shift, why, w);
        if (rc < 0) {
            ofcd_pcapng_free(w);
            snprintf(why, CAPTURE_WHY_MAX, "switch %s: the capture could not be made: %s", d,
                     strerror(-rc));
        }
    }
    /* The blob is read: the next ask may go. */
    capture_drop(app);
    return rc;
}

int capture_wait(struct app_ctx *app, uint64_t dpid, struct ofcd_pcapng *w, char *why)
{
    int rc = capture_ask(app, dpid, why);

    memset(w, 0, sizeof(*w));
    if (rc < 0)
        return rc;
    uint64_t end = ofcd_clock_mono_ms() + CAPTURE_WAIT_MS;
    while ((rc = capture_take(app, w, why)) == 1) {
        if (ofcd_clock_mono_ms() >= end) {
            capture_drop(app);
            snprintf(why, CAPTURE_WHY_MAX, "no answer from the switch's io lcore within %u ms "
                     "(is its loop stuck?)", CAPTURE_WAIT_MS);
            return -ETIMEDOUT;
        }
        nanosleep(&(struct timespec){0, 200000}, NULL);
    }
    return rc;
}

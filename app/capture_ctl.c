/* capture_ctl: see capture_ctl.h. */
#include "capture_ctl.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "capture.h"
#include "dpid.h"
#include "ofcd_ctl.h"
#include "ofcd_hex.h"
#include "ofcd_pcapng.h"

#define CTL_CAPTURE_LINE 64u            /* bytes of the capture per line of hex */

/* A "# " line saying what the capture holds, then the pcapng file as lines
 * of hex (the command socket carries text; ofcdctl's capture/save writes
 * the bytes back into a file). */
static int emit(struct ofcd_ctl_out *out, const char *what, const uint8_t *p, size_t len)
{
    char hex[2 * CTL_CAPTURE_LINE + 1];

    /* Hex doubles it, a newline every CTL_CAPTURE_LINE bytes: past the
     * command socket's bound it would be cut, so it is not sent at all. */
    size_t text = 2 * len + len / CTL_CAPTURE_LINE + strlen(what) + 8;
    if (text > OFCD_CTL_REPLY_MAX) {
        ofcd_ctl_printf(out, "the capture (%zu bytes) is larger than the command socket "
                        "carries: download it from GET /api/v1/switches/{dpid}/capture\n", len);
        return -EFBIG;
    }
    ofcd_ctl_printf(out, "# %s\n", what);
    for (size_t at = 0; at < len; at += CTL_CAPTURE_LINE) {
        size_t n = len - at < CTL_CAPTURE_LINE ? len - at : CTL_CAPTURE_LINE;
        ofcd_hex_encode(hex, p + at, n);
        ofcd_ctl_printf(out, "%s\n", hex);
    }
    return 0;
}

static int live_poll(void *arg, struct ofcd_ctl_out *out, uint64_t now_ms)
{
    struct app_ctx *app = arg;
    char why[CAPTURE_WHY_MAX];
    struct ofcd_pcapng w;

    if (!app->capture.deadline_ms)
        app->capture.deadline_ms = now_ms + CAPTURE_WAIT_MS;
    if (app->capture.ctl_asking) {
        /* Another capture (a freeze, a download) held the ask: ours now. */
        int rc = app->capture.ctl_conn ? capture_ask_conn(app, app->capture.ctl_conn, why)
                                       : capture_ask(app, app->capture.ctl_dpid, why);
        if (rc == -EBUSY && now_ms < app->capture.deadline_ms)
            return OFCD_CTL_LATER;
        app->capture.ctl_asking = false;
        if (rc < 0) {
            ofcd_ctl_printf(out, "%s\n", why);
            return rc;
        }
        return OFCD_CTL_LATER;
    }
    int rc = capture_take(app, &w, why);
    if (rc == 1 && now_ms < app->capture.deadline_ms)
        return OFCD_CTL_LATER;
    if (rc == 1) {
        capture_drop(app);
        ofcd_ctl_printf(out, "no answer from the switch's io lcore within %u ms (is its "
                        "loop stuck?)\n", CAPTURE_WAIT_MS);
        return -ETIMEDOUT;
    }
    if (rc < 0) {
        ofcd_ctl_printf(out, "%s\n", why);
        return rc;
    }
    rc = emit(out, why, w.p, w.len);
    ofcd_pcapng_free(&w);
    return rc;
}

static void live_cancel(void *arg)
{
    struct app_ctx *app = arg;

    if (app->capture.ctl_asking)
        app->capture.ctl_asking = false;     /* never asked: nothing to let go */
    else
        capture_drop(app);
}

/* Frozen copy id of dpid (capture.h copies it out). */
static int frozen_get(struct app_ctx *app, uint64_t dpid, const char *arg,
                      struct ofcd_ctl_out *out)
{
    char *end, why[CAPTURE_WHY_MAX];
    unsigned long id = strtoul(arg, &end, 10);
    uint8_t *p = NULL;
    size_t len = 0;

    if (*arg < '1' || *arg > '9' || *end || id > UINT32_MAX) {
        ofcd_ctl_printf(out, "'%s' is not a frozen capture's id (capture/list shows them)\n",
                        arg);
        return -EINVAL;
    }
    int rc = capture_frozen_copy(app, dpid, (uint32_t)id, &p, &len, why);
    if (rc < 0) {
        ofcd_ctl_printf(out, "%s\n", why);
        return rc;
    }
    rc = emit(out, why, p, len);
    free(p);
    return rc;
}

static int parse_dpid(const char *arg, uint64_t *dpid, struct ofcd_ctl_out *out)
{
    if (dpid_parse(arg, dpid) == 0)
        return 0;
    ofcd_ctl_printf(out, "'%s' is not a datapath id (16 hex digits, with or without colons, "
                    "or decimal)\n", arg);
    return -EINVAL;
}

/* capture/get DPID [ID]: the live record (its connection now, or the last
 * one while its slot keeps it), or frozen copy ID. */
static int capture_get(void *arg, int argc, char **argv, struct ofcd_ctl_out *out)
{
    struct app_ctx *app = arg;
    char why[CAPTURE_WHY_MAX];
    uint64_t dpid;

    /* A connection's handle, as the logs print it: a switch that never
     * came up has no dpid. */
    uint64_t conn = 0;
    char *end;
    if (strncmp(argv[1], "0x", 2) == 0 && argc == 2) {
        errno = 0;
        conn = strtoull(argv[1] + 2, &end, 16);
        if (errno || *end || !conn || argv[1][2] == '\0') {
            ofcd_ctl_printf(out, "'%s' is not a connection (0x and hex digits, as the log "
                            "prints it)\n", argv[1]);
            return -EINVAL;
        }
    } else if (parse_dpid(argv[1], &dpid, out) < 0) {
        return -EINVAL;
    }
    if (argc > 2)
        return frozen_get(app, dpid, argv[2], out);
    int rc = conn ? capture_ask_conn(app, conn, why) : capture_ask(app, dpid, why);
    if (rc < 0 && rc != -EBUSY) {
        ofcd_ctl_printf(out, "%s\n", why);
        return rc;
    }
    app->capture.ctl_asking = rc == -EBUSY;
    app->capture.ctl_dpid = dpid;
    app->capture.ctl_conn = conn;
    app->capture.deadline_ms = 0;           /* set at the first poll, on the server's clock */
    return ofcd_ctl_defer(out, &(struct ofcd_ctl_later){live_poll, live_cancel, app});
}

/* capture/list: the frozen copies, oldest first. */
static int capture_list(void *arg, int argc, char **argv, struct ofcd_ctl_out *out)
{
    struct app_ctx *app = arg;
    char d[24], when[CAPTURE_WHEN_LEN];

    (void)argc;
    (void)argv;
    pthread_mutex_lock(&app->capture.shelf_lock);
    const struct capture_shelf *s = &app->capture.shelf;
    ofcd_ctl_printf(out, "%u frozen of at most %u (%zu bytes); %llu asked, %llu skipped as "
                    "repeats, %llu let go\n", s->n, s->max, s->bytes,
                    (unsigned long long)s->st.asked, (unsigned long long)s->st.skipped,
                    (unsigned long long)s->st.evicted);
    for (unsigned i = 0; i < s->n; i++) {
        const struct capture_copy *c = capture_shelf_at(s, i);
        capture_copy_when(c, when);
        dpid_format(c->dpid, d);
        ofcd_ctl_printf(out, "%u %s %s %s: %s (%zu bytes)\n", c->id, d, when,
                        capture_kind_name(c->kind), c->reason, c->len);
    }
    pthread_mutex_unlock(&app->capture.shelf_lock);
    return 0;
}

/* capture/freeze DPID: asked now, frozen within a few ms (logged). */
static int capture_freeze_cmd(void *arg, int argc, char **argv, struct ofcd_ctl_out *out)
{
    struct app_ctx *app = arg;
    uint64_t dpid;

    (void)argc;
    if (parse_dpid(argv[1], &dpid, out) < 0)
        return -EINVAL;
    int rc = capture_freeze(app, dpid, 0, CAPTURE_KIND_ASKED, "asked by ofcdctl capture/freeze");
    if (rc == -ENOTSUP)
        ofcd_ctl_printf(out, "nothing is frozen here (openflow.recorder_kb or "
                        "openflow.recorder_frozen is 0)\n");
    else if (rc < 0)
        ofcd_ctl_printf(out, "not asked: %d freezes are waiting already\n", CAPTURE_SHELF_ASKS);
    else
        ofcd_ctl_printf(out, "asked: the copy appears in capture/list within a few "
                        "milliseconds (or the log says why not)\n");
    return rc;
}

int capture_ctl_register(struct app_ctx *app)
{
    const struct ofcd_ctl_cmd cmds[] = {
        {"capture/get", "DPID [ID]|0xCONN", "the switch's flight record (its last OpenFlow "
         "messages each way), its frozen copy ID, or a connection's (0x..., as the log "
         "names one that never came up) as a pcapng file in hex; ofcdctl capture/save "
         "DPID|0xCONN FILE [ID] writes the file", 1, 2, capture_get, app},
        {"capture/list", "", "the frozen flight records: id, switch, when and why (a "
         "disconnect, an OFPT_ERROR, a table the check mended, capture/freeze)", 0, 0,
         capture_list, app},
        {"capture/freeze", "DPID", "freeze the switch's flight record now (capture/list)", 1,
         1, capture_freeze_cmd, app},
    };
    int rc = 0;

    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]) && rc == 0; i++)
        rc = ofcd_ctl_register(app->cmds, &cmds[i]);
    return rc;
}

/*
 * ofswitch-replay: a captured OpenFlow session's switch side played against
 * a running controller (emu_replay.h says how), e.g. a frozen flight record
 * of ofcd's (`ofcdctl capture/save DPID FILE ID`) against a fresh ofcd.
 * Prints what it did as one JSON object; exit 0 when the whole record was
 * played, 1 when it could not be (why on stderr), 2 for a bad command line.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_pcapr.h"
#include "emu_replay.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: ofswitch-replay --controller IP:PORT [options] CAPTURE.pcapng\n"
            "\n"
            "Plays the switch's side of a captured OpenFlow 1.3 session (one TCP\n"
            "connection, from its HELLO: an ofcd flight record, or any capture) against a\n"
            "running controller, replies carrying the live requests' xids, and compares the\n"
            "FLOW_MODs the controller sends with the recorded ones.\n"
            "\n"
            "  --controller IP:PORT   the controller to connect to (required)\n"
            "  --speed X              the recorded gaps divided by X (default 0: no waits)\n"
            "  --wait-ms N            a reply waits this long for its request (default 2000)\n"
            "  --hold-ms N            stay this long after the last message (default 2000)\n"
            "  --ctl-port N           the controller's port in a capture without a SYN (6653)\n"
            "  --help\n"
            "\n"
            "Output: {\"sent\", \"replies_matched\", \"replies_skipped\", \"echoes_answered\",\n"
            "\"barriers_answered\", \"recorded_flow_mods\", \"live_flow_mods\",\n"
            "\"live_flow_mods_recorded\", \"peer_closed\"}.\n");
}

static int read_file(const char *path, uint8_t **p, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -errno;
    size_t cap = 1 << 16, n = 0;
    uint8_t *b = malloc(cap);
    while (b) {
        size_t k = fread(b + n, 1, cap - n, f);
        n += k;
        if (n < cap)
            break;
        uint8_t *nb = cap < (256u << 20) ? realloc(b, cap * 2) : NULL;
        if (!nb) {
            free(b);
            b = NULL;
            break;
        }
        b = nb;
        cap *= 2;
    }
    int err = ferror(f);
    fclose(f);
    if (!b || err) {
        free(b);
        return b ? -EIO : -ENOMEM;
    }
    *p = b;
    *len = n;
    return 0;
}

static int number(const char *s, unsigned long max, unsigned long *out)
{
    char *end;
    errno = 0;
    *out = strtoul(s, &end, 10);
    return *s && !*end && !errno && *out <= max ? 0 : -1;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"controller", required_argument, NULL, 'c'}, {"speed", required_argument, NULL, 's'},
        {"wait-ms", required_argument, NULL, 'w'},    {"hold-ms", required_argument, NULL, 'H'},
        {"ctl-port", required_argument, NULL, 'p'},   {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct emu_replay_opts o = {.wait_ms = 2000, .hold_ms = 2000};
    char host[64] = "";
    unsigned long v, ctl_port = 6653;
    int c;

    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'c': {
            const char *colon = strrchr(optarg, ':');
            if (!colon || (size_t)(colon - optarg) >= sizeof(host) || number(colon + 1, 65535, &v)) {
                fprintf(stderr, "ofswitch-replay: --controller takes IP:PORT, not '%s'\n", optarg);
                return 2;
            }
            memcpy(host, optarg, (size_t)(colon - optarg));
            host[colon - optarg] = '\0';
            o.port = (uint16_t)v;
            break;
        }
        case 's':
            o.speed = strtod(optarg, NULL);
            if (o.speed < 0) {
                fprintf(stderr, "ofswitch-replay: --speed takes a number >= 0\n");
                return 2;
            }
            break;
        case 'w':
        case 'H':
            if (number(optarg, 3600000, &v)) {
                fprintf(stderr, "ofswitch-replay: --%s takes milliseconds (0..3600000)\n",
                        c == 'w' ? "wait-ms" : "hold-ms");
                return 2;
            }
            *(c == 'w' ? &o.wait_ms : &o.hold_ms) = (unsigned)v;
            break;
        case 'p':
            if (number(optarg, 65535, &ctl_port)) {
                fprintf(stderr, "ofswitch-replay: --ctl-port takes a port\n");
                return 2;
            }
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (!host[0] || optind != argc - 1) {
        usage(stderr);
        return 2;
    }
    o.host = host;
    uint8_t *file = NULL;
    size_t len = 0;
    int rc = read_file(argv[optind], &file, &len);
    if (rc < 0) {
        fprintf(stderr, "ofswitch-replay: %s: %s\n", argv[optind], strerror(-rc));
        return 1;
    }
    struct emu_pcapr_session s;
    char why[256];
    rc = emu_pcapr_read(file, len, (uint16_t)ctl_port, &s, why, sizeof(why));
    free(file);
    if (rc < 0) {
        fprintf(stderr, "ofswitch-replay: %s: %s\n", argv[optind], why);
        return 1;
    }
    struct emu_replay_report rep;
    rc = emu_replay_run(&s, &o, &rep, why, sizeof(why));
    emu_pcapr_free(&s);
    printf("{\"sent\": %u, \"replies_matched\": %u, \"replies_skipped\": %u, "
           "\"echoes_answered\": %u, \"barriers_answered\": %u, \"recorded_flow_mods\": %u, "
           "\"live_flow_mods\": %u, \"live_flow_mods_recorded\": %u, \"peer_closed\": %s}\n",
           rep.sent, rep.replies_matched, rep.replies_skipped, rep.echoes_answered,
           rep.barriers_answered, rep.rec_flow_mods, rep.live_flow_mods,
           rep.live_flow_mods_recorded, rep.peer_closed ? "true" : "false");
    if (rc < 0) {
        fprintf(stderr, "ofswitch-replay: %s\n", why);
        return 1;
    }
    return 0;
}

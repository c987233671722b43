/* emu_wire: see emu_wire.h. */
#include "emu_wire.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct emu_wire {
    uint32_t n_switches, n_ports;
    uint64_t links;
    uint32_t *peer;             /* [idx * n_ports + port - 1]: peer idx * n_ports + port, 0 = none */
};

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -EINVAL;
}

static int link(struct emu_wire *w, uint32_t a, uint32_t pa, uint32_t b, uint32_t pb, char *err,
                size_t errlen)
{
    if (a >= w->n_switches || b >= w->n_switches || pa < 1 || pa > w->n_ports || pb < 1 ||
        pb > w->n_ports)
        return fail(err, errlen, "--wiring: %u:%u - %u:%u is outside %u switches of %u ports",
                    a + 1, pa, b + 1, pb, w->n_switches, w->n_ports);
    size_t ia = (size_t)a * w->n_ports + pa - 1, ib = (size_t)b * w->n_ports + pb - 1;
    if (w->peer[ia] || w->peer[ib] || ia == ib)
        return fail(err, errlen, "--wiring: port %u:%u or %u:%u is wired twice", a + 1, pa,
                    b + 1, pb);
    w->peer[ia] = (uint32_t)ib + 1;
    w->peer[ib] = (uint32_t)ia + 1;
    w->links++;
    return 0;
}

static int ring(struct emu_wire *w, char *err, size_t errlen)
{
    if (w->n_switches < 3 || w->n_ports < 2)
        return fail(err, errlen, "--wiring ring: needs 3 switches and 2 ports at least");
    for (uint32_t i = 0; i < w->n_switches; i++) {
        int rc = link(w, i, 1, (i + 1) % w->n_switches, 2, err, errlen);
        if (rc)
            return rc;
    }
    return 0;
}

static int fattree(struct emu_wire *w, uint32_t k, char *err, size_t errlen)
{
    uint32_t h = k / 2, cores = h * h;
    if (k < 2 || k % 2 || (uint64_t)5 * k * k / 4 > w->n_switches || w->n_ports < k)
        return fail(err, errlen, "--wiring fattree:%u: needs K even, %u switches and %u ports "
                    "(have %u and %u)", k, 5 * k * k / 4, k, w->n_switches, w->n_ports);
    for (uint32_t pod = 0; pod < k; pod++) {
        uint32_t agg0 = cores + pod * k, edge0 = agg0 + h;
        for (uint32_t a = 0; a < h; a++) {
            for (uint32_t j = 1; j <= h; j++) {
                int rc = link(w, agg0 + a, j, a * h + j - 1, pod + 1, err, errlen);
                if (rc)
                    return rc;
            }
            for (uint32_t e = 0; e < h; e++) {
                int rc = link(w, edge0 + e, a + 1, agg0 + a, h + e + 1, err, errlen);
                if (rc)
                    return rc;
            }
        }
    }
    return 0;
}

static int from_file(struct emu_wire *w, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    char line[256];
    unsigned no = 0;
    int rc = 0;

    if (!f)
        return fail(err, errlen, "--wiring file:%s: %s", path, strerror(errno));
    while (rc == 0 && fgets(line, sizeof(line), f)) {
        unsigned a, pa, b, pb;
        char extra;
        no++;
        if (line[strspn(line, " \t\r\n")] == '\0' || line[0] == '#')
            continue;
        if (sscanf(line, "%u %u %u %u %c", &a, &pa, &b, &pb, &extra) != 4 || !a || !b)
            rc = fail(err, errlen, "--wiring file:%s line %u: want \"A PA B PB\"", path, no);
        else
            rc = link(w, a - 1, pa, b - 1, pb, err, errlen);
    }
    fclose(f);
    return rc;
}

int emu_wire_build(const char *spec, uint32_t n_switches, uint32_t n_ports,
                   struct emu_wire **out, char *err, size_t errlen)
{
    struct emu_wire *w = calloc(1, sizeof(*w));
    int rc;

    if (!w || !(w->peer = calloc((size_t)n_switches * n_ports, sizeof(w->peer[0])))) {
        free(w);
        return fail(err, errlen, "--wiring: out of memory");
    }
    w->n_switches = n_switches;
    w->n_ports = n_ports;
    if (strcmp(spec, "ring") == 0)
        rc = ring(w, err, errlen);
    else if (strncmp(spec, "fattree:", 8) == 0)
        rc = fattree(w, (uint32_t)strtoul(spec + 8, NULL, 10), err, errlen);
    else if (strncmp(spec, "file:", 5) == 0)
        rc = from_file(w, spec + 5, err, errlen);
    else
        rc = fail(err, errlen, "--wiring %s: want ring, fattree:K or file:PATH", spec);
    if (rc) {
        emu_wire_free(w);
        return rc;
    }
    *out = w;
    return 0;
}

void emu_wire_free(struct emu_wire *w)
{
    if (!w)
        return;
    free(w->peer);
    free(w);
}

int emu_wire_peer(const struct emu_wire *w, uint32_t idx, uint32_t port, uint32_t *peer_idx,
                  uint32_t *peer_port)
{
    if (!w || idx >= w->n_switches || port < 1 || port > w->n_ports)
        return -ENOENT;
    uint32_t p = w->peer[(size_t)idx * w->n_ports + port - 1];
    if (!p)
        return -ENOENT;
    *peer_idx = (p - 1) / w->n_ports;
    *peer_port = (p - 1) % w->n_ports + 1;
    return 0;
}

uint64_t emu_wire_links(const struct emu_wire *w)
{
    return w ? w->links : 0;
}

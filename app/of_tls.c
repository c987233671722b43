/* of_tls: see of_tls.h. */
#include "of_tls.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofcd_inet.h"
#include "ofcd_log.h"

#define OFCD_PINS_FILE_MAX (1u << 20)

/* The pins file whole (1 MiB at most): 0, or a negative errno logged. */
static int load_pins(const char *path, struct of_pins *pins)
{
    FILE *f = fopen(path, "r");
    char *text = NULL, err[256];
    size_t n = 0;
    int rc;

    if (!f) {
        rc = -errno;
        LOG_ERR("main", "tls.pins_file = %s: cannot open: %s", path, strerror(-rc));
        return rc;
    }
    text = malloc(OFCD_PINS_FILE_MAX + 1);
    if (text)
        n = fread(text, 1, OFCD_PINS_FILE_MAX + 1, f);
    fclose(f);
    if (!text || n > OFCD_PINS_FILE_MAX) {
        LOG_ERR("main", "tls.pins_file = %s: %s", path,
                text ? "larger than 1 MiB" : "out of memory");
        free(text);
        return text ? -EFBIG : -ENOMEM;
    }
    text[n] = '\0';
    rc = of_pins_parse(text, pins, err, sizeof(err));
    free(text);
    if (rc < 0)
        LOG_ERR("main", "tls.pins_file = %s: %s", path, rc == -ENOMEM ? "out of memory" : err);
    else
        LOG_INFO("main", "tls.pins_file: %zu switch(es) pinned to their certificates", pins->n);
    return rc;
}

static void tls_cfg_of(const struct ofcd_config *c, struct tls_cfg *tc)
{
    *tc = (struct tls_cfg){
        .cert = c->tls_cert,
        .key = c->tls_key,
        .ca = c->tls_ca,
        .verify_peer = c->tls_verify_peer,
        .min_version = c->tls_min_version,
        .ciphers = c->tls_ciphers,
        .ciphersuites = c->tls_ciphersuites,
        .key_prefix = "tls.",
        .crl = c->tls_crl_file,
        .verify_depth = c->tls_verify_depth,
        .max_cert_list_kb = c->tls_max_cert_list_kb,
    };
}

int of_tls_reload(const struct ofcd_config *c, struct tls_ctx *ctx)
{
    struct tls_cfg tc;

    tls_cfg_of(c, &tc);
    return tls_ctx_reload(ctx, &tc);
}

int of_tls_open(const struct ofcd_config *c, struct tls_ctx **out, struct of_pins *pins)
{
    char ip[OFCD_IPV4_STRLEN], ports[40];

    *out = NULL;
    *pins = (struct of_pins){0};
    if (c->of_port && c->of_extra_port)
        snprintf(ports, sizeof(ports), "ports %u and %u", c->of_port, c->of_extra_port);
    else
        snprintf(ports, sizeof(ports), "port %u", c->of_port ? c->of_port : c->of_extra_port);
    if (c->of_port || c->of_extra_port)
        LOG_WARN("main", "OpenFlow on %s %s is plaintext and unauthenticated: any host that "
                 "reaches it can claim a dpid; tls.port with openflow.port = 0 closes it "
                 "(docs/operations.md: OpenFlow over TLS)", ofcd_ipv4_format(c->ip, ip), ports);
    if (!c->tls_port)
        return 0;
    struct tls_cfg tc;
    tls_cfg_of(c, &tc);
    int rc = tls_ctx_create(&tc, out);
    if (rc < 0)
        return rc;
    if (c->tls_pins_file[0] && (rc = load_pins(c->tls_pins_file, pins)) < 0) {
        tls_ctx_destroy(*out);
        *out = NULL;
        return rc;
    }
    if (!c->tls_verify_peer)
        LOG_WARN("main", "tls.verify_peer = false: OpenFlow over TLS on port %u accepts any "
                 "client, certificate or not; the channel is private, not authenticated",
                 c->tls_port);
    return 0;
}

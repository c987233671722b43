/* test_services: see test_services.h. Built only with -Dtest_services=true. */
#include "test_services.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "echo_service.h"
#include "ofcd_inet.h"
#include "ofcd_log.h"

static void task_echo_counters(void *arg, ofcd_counter_fn fn, void *fn_arg)
{
    echo_service_counters(arg, fn, fn_arg);
}

int test_services_start(struct app_ctx *app, struct app_lcore *al)
{
    const struct ofcd_config *cfg = &app->cfg;
    struct tcp_stack *tcp = lcore_tcp(al->lc);
    unsigned id = lcore_id(al->lc);

    /* Active echo only on the first io lcore: one connection is the test. */
    if (cfg->tcp_echo_connect_port && al->queue == 0) {
        al->echo_out = calloc(1, sizeof(*al->echo_out));
        if (!al->echo_out)
            return -ENOMEM;
        int rc = echo_service_connect(al->echo_out, tcp, cfg->tcp_echo_connect_ip,
                                      cfg->tcp_echo_connect_port, cfg->tcp_backoff_min_ms,
                                      cfg->tcp_backoff_max_ms, lcore_clock_us());
        if (rc < 0)
            return rc;
        char peer[OFCD_PEER_STRLEN];
        LOG_WARN("lcore", "lcore %u: TEST-ONLY TCP echo connecting to %s", id,
                 ofcd_peer_format(cfg->tcp_echo_connect_ip, cfg->tcp_echo_connect_port, peer));
        struct lcore_task t = {.name = "echo-client", .counters = task_echo_counters,
                               .arg = al->echo_out};
        if ((rc = lcore_add_task(al->lc, &t)) < 0)
            return rc;
    }
    if (!cfg->tcp_echo_port)
        return 0;
    al->echo = calloc(1, sizeof(*al->echo));
    if (!al->echo)
        return -ENOMEM;
    int rc = echo_service_start(al->echo, tcp, cfg->tcp_echo_port);
    if (rc < 0) {
        LOG_ERR("lcore", "lcore %u: TCP echo service on port %u: %s", id, cfg->tcp_echo_port,
                strerror(-rc));
        return rc;
    }
    LOG_WARN("lcore", "lcore %u: TEST-ONLY TCP echo service listening on port %u", id,
             cfg->tcp_echo_port);
    return 0;
}

void test_services_stop(struct app_lcore *al)
{
    echo_service_stop(al->echo_out);
    free(al->echo_out);
    free(al->echo);
    al->echo_out = al->echo = NULL;
}

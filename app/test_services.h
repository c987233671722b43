/*
 * test_services: the TEST ONLY services an io lcore may run next to
 * OpenFlow — the TCP echo listener (tcp.echo_port) and the active echo
 * (tcp.echo_connect) of app/echo_service.h — which the TCP integration
 * tests and benches drive against Linux's TCP.
 *
 * They are built into ofcd only with meson's -Dtest_services=true (the
 * builds make test and make bench set up; OFCD_TEST_SERVICES=1). A product
 * build has neither file: these calls are then empty, and the config
 * (no_test_services, set by app/main.c) refuses any value of those keys that
 * would turn a service on, so nothing is ever asked of them.
 */
#ifndef OFCD_TEST_SERVICES_H
#define OFCD_TEST_SERVICES_H

#include "app.h"

#if OFCD_TEST_SERVICES

/* Start what app->cfg asks for on io lcore al (its TCP stack is up; the
 * active echo only on the first io lcore). 0 or a negative errno (logged). */
int test_services_start(struct app_ctx *app, struct app_lcore *al);

/* Stop and free al's services; safe when none was started. */
void test_services_stop(struct app_lcore *al);

#else

static inline int test_services_start(struct app_ctx *app, struct app_lcore *al)
{
    (void)app;
    (void)al;
    return 0;
}

static inline void test_services_stop(struct app_lcore *al)
{
    (void)al;
}

#endif

#endif

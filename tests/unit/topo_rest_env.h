/*
 * topo_rest_env: the fixture the topology's REST unit tests share — a real
 * switch view with two switches (00:..:10:01 and 00:..:10:02, ports 1-3
 * each) linked 10:01:1 - 10:02:2 (liveness on at both ends), a link table,
 * an admin table and a store in a fresh directory, topo_rest over them
 * with the view's lock watched (view_watch.h) — and the calls the tests
 * make: one request to a route, its status and words, an entity as
 * topology v3 shows it, a restart on the same store.
 */
#ifndef OFCD_TOPO_REST_ENV_H
#define OFCD_TOPO_REST_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "sw_view.h"
#include "store.h"
#include "topo_app.h"
#include "topo_rest.h"
#include "view_watch.h"

#define S 1000000ull
#define SW1 "00:00:00:00:00:00:10:01"
#define SW2 "00:00:00:00:00:00:10:02"

struct tenv {
    char dir[64];
    struct store *store;
    struct fm *fm;                      /* the stored flows' reader, as in ofcd; sends nothing */
    struct sw_view *cs;
    struct topo_view *ctl;
    struct topo_admin *admin;
    struct topo_app_cfg app;
    struct topo_rest t;
    struct view_watch watch;            /* the switch view's lock */
};

/* A request's one query argument (NULL key: none), carried in its conn. */
struct query_arg {
    const char *key, *value;
};

void tenv_switch_up(struct tenv *e, uint64_t dpid);
/* The events themselves (malloc'd): dpid up with ports 1-3; a PORT_STATUS
 * (OFPPR_*) of port with state (OFPPS_*). */
struct qmsg *tenv_up_event(uint64_t dpid);
struct qmsg *tenv_port_event(uint64_t dpid, uint8_t reason, uint32_t port, uint32_t state);
/* dpid disconnected; a PORT_STATUS applied. */
void tenv_switch_down(struct tenv *e, uint64_t dpid);
void tenv_port_status(struct tenv *e, uint64_t dpid, uint8_t reason, uint32_t port,
                      uint32_t state);
void tenv_seen(struct tenv *e, uint64_t from, uint32_t fport, uint64_t to, uint32_t tport);
/* The same, sent and seen at now_us (later frames are not replays). */
void tenv_seen_at(struct tenv *e, uint64_t from, uint32_t fport, uint64_t to, uint32_t tport,
                  uint64_t now_us);
int tenv_setup(void **state);
int tenv_teardown(void **state);
unsigned tenv_call_q(struct tenv *e, const struct rest_ext *ext, const char *method,
                     const char *arg, const char *body, const struct query_arg *qa,
                     json_t **out);
unsigned tenv_call(struct tenv *e, const struct rest_ext *ext, const char *method,
                   const char *arg, const char *body, json_t **out);
void tenv_expect(struct tenv *e, const struct rest_ext *ext, const char *method,
                 const char *arg, const char *body, unsigned status, const char *words);
json_t *tenv_v3_entity(struct tenv *e, const char *what, const char *id);
bool tenv_v3_enabled(struct tenv *e, const char *what, const char *id);
size_t tenv_listed(struct tenv *e, const struct rest_ext *ext, const char *arg,
                   const struct query_arg *qa, const char *key);
void tenv_restart(struct tenv *e);
/* ... with the link table new too (links only as the store kept them);
 * the switch view stays, as the switches would come back. */
void tenv_restart_all(struct tenv *e);
/* Until everything queued to the store (the _async writes) is durable. */
void tenv_store_sync(struct tenv *e);
void tenv_link_id(struct tenv *e, char *out, size_t n);

#endif

/*
 * rest_fixture: the REST server on a loopback port over a real flow
 * manager and a real LMDB store in a temporary directory, for tests of
 * the REST face that assert what a client sees: a request in, its status,
 * headers and JSON out. The switches are reached through a fake way that
 * records what the flow manager sends (no DPDK), and come up and go down
 * as the control thread would tell the flow manager.
 *
 * Everything a test does with the flow manager itself goes through this
 * file, so the tests survive changes to its API.
 */
#ifndef OFCD_TEST_REST_FIXTURE_H
#define OFCD_TEST_REST_FIXTURE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct fm;
struct rest_server;
struct store;

struct rest_fixture_cfg {
    uint32_t queue_max;                 /* flow_manager.queue_max (0: 1000) */
    size_t store_map;                   /* the store's map size (0: its default) */
    uint32_t max_flows_per_request;     /* 0: 100000 */
    bool no_fm;                         /* serve without a flow manager (503 paths) */
    bool answer_queued;                 /* flow_manager.durability = async */
};

struct rest_fixture {
    char dir[64];
    uint16_t port;
    struct store *store;
    struct fm *fm;
    struct rest_server *rs;
    pthread_mutex_t lock;               /* the fake switches' side, below */
    unsigned room;                      /* free slots toward every switch */
    unsigned flow_mods;                 /* FLOW_MODs handed to the fake switches */
    unsigned flow_mod_adds, flow_mod_deletes;
};

/* Start it all; the test fails when something does not start. */
void rest_fixture_start(struct rest_fixture *f, const struct rest_fixture_cfg *cfg);
void rest_fixture_stop(struct rest_fixture *f);
/* The same on the heap, for cmocka's setup; rest_fixture_teardown is a
 * cmocka teardown for *state made so. */
struct rest_fixture *rest_fixture_new(const struct rest_fixture_cfg *cfg);
int rest_fixture_teardown(void **state);

/* The control thread's news for the flow manager: dpid connected on a
 * connection of its own / went down. */
void rest_fixture_switch_up(struct rest_fixture *f, uint64_t dpid);
void rest_fixture_switch_down(struct rest_fixture *f, uint64_t dpid);
/* One control-thread wake-up: the flow manager sends what is queued and
 * the fake switches have room for; the count of FLOW_MODs sent since the
 * start is returned. */
unsigned rest_fixture_tick(struct rest_fixture *f);

/* One HTTP/1.1 exchange (Connection: close), the body de-chunked. */
struct rest_answer {
    unsigned status;
    char *headers;                      /* the header lines as received */
    char *body;                         /* NUL-terminated */
    size_t body_len;
    unsigned chunks;                    /* pieces of a chunked answer (0: not chunked) */
    unsigned retry_after;               /* the Retry-After header, 0 when absent */
    json_t *json;                       /* the body parsed, NULL when it is not JSON */
};

/* method path [body as application/json, NULL: none]. */
void rest_fixture_http(struct rest_fixture *f, const char *method, const char *path,
                       const char *body, struct rest_answer *a);
/* The same with the Content-Type given (NULL: no Content-Type header). */
void rest_fixture_http_ct(struct rest_fixture *f, const char *method, const char *path,
                          const char *content_type, const char *body, struct rest_answer *a);
void rest_answer_free(struct rest_answer *a);

/* The error body's "description" (fails the test unless the answer is a
 * JSON error with code == status). */
const char *rest_answer_description(const struct rest_answer *a);

#endif

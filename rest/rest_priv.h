/*
 * rest_priv: what the REST files share — the server state, the request being
 * answered, and the handlers the route table (rest_server.c) dispatches to.
 */
#ifndef OFCD_REST_PRIV_H
#define OFCD_REST_PRIV_H

#include <pthread.h>
#include <stdint.h>

#include <jansson.h>

#include "app.h"

#define REST_CODES 6   /* 2xx 3xx 400 404 405 5xx, for metrics */

struct rest_server {
    struct app_ctx *app;
    struct MHD_Daemon *mhd;
    pthread_mutex_t lock;               /* guards the health history below */
    uint64_t last_loops[RTE_MAX_LCORE];
    uint64_t last_change_ms[RTE_MAX_LCORE];
    uint64_t requests[REST_CODES];      /* relaxed atomics */
};

/* A response under construction: either JSON or plain text. */
struct rest_reply {
    unsigned status;
    json_t *json;                       /* owned */
    char *text;                         /* owned (malloc), for /metrics */
    size_t text_len;
};

struct rest_req {
    struct rest_server *rs;
    const char *method;
    const char *path;
    const char *arg;                    /* the path after a prefix route, or NULL */
};

void rest_error(struct rest_reply *r, unsigned status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

void rest_get_switches(struct rest_req *q, struct rest_reply *r);
void rest_get_switch(struct rest_req *q, struct rest_reply *r);
void rest_get_health(struct rest_req *q, struct rest_reply *r);
void rest_get_metrics(struct rest_req *q, struct rest_reply *r);

/* Parse a dpid: 16 hex digits with optional colons ("00:00:..:10:01"), or
 * decimal. 0 or -EINVAL. */
int rest_parse_dpid(const char *s, uint64_t *out);
/* "00:00:00:00:00:00:10:01" */
void rest_format_dpid(uint64_t dpid, char out[24]);

uint64_t rest_now_ms(void);

#endif

/*
 * rest: ofcd's HTTP API on libmicrohttpd (its own thread pool, epoll), JSON
 * with jansson, on rest.listen (127.0.0.1:8181 by default).
 *
 * Today the read-only part of the appliance's own API:
 *   GET /api/v1/switches          every switch the control thread knows
 *   GET /api/v1/switches/{dpid}   one switch with its ports (dpid as 16 hex
 *                                 digits, with or without colons, or decimal)
 *   GET /api/v1/health            lcores alive, rings not stuck
 *   GET /metrics                  Prometheus text format
 * Every error is JSON {"code": N, "description": "..."}: 404 for an unknown
 * path or dpid, 405 for a method a path does not take.
 *
 * Handlers run on MHD's threads. They read the control thread's switch view
 * under app->ctl_lock (the control thread holds it while applying events)
 * and the lcores' seqlock-published counters; they never touch lcore state.
 */
#ifndef OFCD_REST_H
#define OFCD_REST_H

struct app_ctx;
struct flowmgr;
struct rest_server;
struct store;

/* Start serving; NULL (logged) when the address cannot be bound. fm and
 * store serve the flow paths (NULL: they answer 503). */
struct rest_server *rest_start(struct app_ctx *app, struct flowmgr *fm, struct store *store);
void rest_stop(struct rest_server *rs);

#endif

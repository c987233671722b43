/*
 * rest_events: the live event stream, GET /api/v1/events, as Server-Sent
 * Events ("event: KIND\ndata: {...}\n\n"): switch up/down, port status,
 * link up/down and what else the appliance publishes.
 *
 * A hub that any thread publishes to (the control thread does) and that
 * every streaming client has a bounded queue in. Publishing formats the
 * event once and appends it to each client's queue under the hub's lock —
 * a memcpy per client, never a wait for one: a client whose queue would
 * pass queue_bytes (it reads too slowly, or not at all) is cut off (its
 * queue freed, its socket shut down, counted and logged) and the others
 * go on; the socket of one that does not read is closed by the server's
 * inactivity timeout. A client that has read everything waits without
 * holding a thread: its reader suspends the connection (the server's) and
 * the next event resumes it, through io.wake, called outside the hub's
 * lock on a connection that is suspended (and so cannot go away).
 *
 * Filter: ?kinds=link,switch keeps the events whose kind starts with one
 * of the given words ("link" matches "link.up" and "link.down").
 *
 * In a cluster a tap hands every event published here to the cluster,
 * which relays it to the other nodes; theirs come back through
 * rest_events_publish_relayed with "node" in their data.
 */
#ifndef OFCD_REST_EVENTS_H
#define OFCD_REST_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include "ofcd_counters.h"

#define REST_EVENTS_COUNTERS(X)                                                           \
    X(published, "events published")                                                      \
    X(queued, "event copies queued to clients")                                           \
    X(clients_cut, "clients cut off: their queue was full (too slow or not reading)")     \
    X(clients_refused, "stream requests refused: rest.events_max_clients reached")
#define REST_EVENTS_GAUGES(X) X(clients, "clients streaming events")

struct rest_events_stats {
    REST_EVENTS_COUNTERS(OFCD_COUNTER_FIELD)
    REST_EVENTS_GAUGES(OFCD_COUNTER_FIELD)
};

extern const struct ofcd_counter_group rest_events_counters;  /* "rest_events" */

struct rest_events;
struct rest_events_client;

/* How the hub makes a waiting client's stream go on: the server's (MHD
 * resume), or a test's. */
struct rest_events_io {
    void (*wake)(void *conn);
};

struct rest_events *rest_events_create(unsigned max_clients, size_t queue_bytes);
void rest_events_destroy(struct rest_events *h);

/* Publish kind (e.g. "link.up") with data (borrowed, a JSON object). */
void rest_events_publish(struct rest_events *h, const char *kind, const json_t *data);

/* A cluster: every event published here is also handed to fn (on the
 * publisher's thread, outside the hub's lock: fn must not wait), which
 * carries it to the other nodes. Set once, before anything publishes. */
typedef void (*rest_events_tap_fn)(void *arg, const char *kind, const json_t *data);
void rest_events_set_tap(struct rest_events *h, rest_events_tap_fn fn, void *arg);
/* An event another node published: to this node's clients like any
 * other, its data with "node": node added; never to the tap (no echo). */
void rest_events_publish_relayed(struct rest_events *h, const char *kind, const json_t *data,
                                 const char *node);
/* An SSE comment to every client, so proxies keep idle streams open. */
void rest_events_keepalive(struct rest_events *h);
/* Cut every client (the server is stopping). */
void rest_events_close_all(struct rest_events *h);

/* A new client with its filter (NULL = every kind) and a name for the
 * logs (its address; copied, cut at REST_EVENTS_WHO_LEN - 1); NULL when
 * the hub is full (counted) or out of memory. */
#define REST_EVENTS_WHO_LEN 64
struct rest_events_client *rest_events_join(struct rest_events *h, const char *kinds,
                                            const char *who, const struct rest_events_io *io,
                                            void *conn);
/* Up to max queued bytes into buf: >0 bytes, -1 = cut off, 0 = nothing
 * now: the caller suspends the connection, then calls
 * rest_events_suspended(), which says whether an event came meanwhile
 * (then the caller resumes it at once); otherwise io.wake comes with the
 * next event. */
ssize_t rest_events_read(struct rest_events_client *c, char *buf, size_t max);
bool rest_events_suspended(struct rest_events_client *c);
void rest_events_leave(struct rest_events_client *c);

void rest_events_get_stats(struct rest_events *h, struct rest_events_stats *out);

#endif

/* rest_events_http: GET /api/v1/events — the hub's stream (rest_events.c)
 * as an MHD response: pieces as the client reads, the connection suspended
 * while there is nothing to send, resumed by the next event. */
#include <microhttpd.h>

#include "rest_events.h"
#include "rest_priv.h"

static void sse_wake(void *conn)
{
    MHD_resume_connection(conn);
}

static const struct rest_events_io sse_io = {.wake = sse_wake};

struct sse {
    struct rest_events_client *c;
    struct MHD_Connection *conn;
};

static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    struct sse *s = cls;
    ssize_t n = rest_events_read(s->c, buf, max);

    (void)pos;
    if (n < 0)
        return MHD_CONTENT_READER_END_WITH_ERROR;
    if (n == 0) {
        /* The pattern microhttpd.h gives for "no data yet": suspend and
         * return 0; an event that came meanwhile resumes at once. */
        MHD_suspend_connection(s->conn);
        if (rest_events_suspended(s->c))
            MHD_resume_connection(s->conn);
    }
    return n;
}

static void sse_free(void *cls)
{
    struct sse *s = cls;

    rest_events_leave(s->c);
    free(s);
}

void rest_get_events(struct rest_req *q, struct rest_reply *r)
{
    struct rest_events *h = q->rs->src.events;

    if (!h) {
        rest_error(r, 404, "no event stream in this ofcd");
        return;
    }
    const char *kinds = MHD_lookup_connection_value(q->conn, MHD_GET_ARGUMENT_KIND, "kinds");
    char who[REST_EVENTS_WHO_LEN];
    rest_client_name(q->conn, who, sizeof(who));
    struct sse *s = calloc(1, sizeof(*s));
    if (s)
        s->c = rest_events_join(h, kinds, who, &sse_io, q->conn);
    if (!s || !s->c) {
        free(s);
        rest_error(r, 503, "too many event stream clients (rest.events_max_clients), or "
                   "ofcd is stopping");
        r->retry_after = 5;
        return;
    }
    s->conn = q->conn;
    r->events = s;
}

struct MHD_Response *rest_events_response(struct rest_reply *r)
{
    struct sse *s = r->events;
    /* Small blocks: an event goes out as soon as it is queued. */
    struct MHD_Response *resp =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, sse_read, s, sse_free);

    if (!resp) {
        sse_free(s);
        return NULL;
    }
    MHD_add_response_header(resp, "Content-Type", "text/event-stream");
    MHD_add_response_header(resp, "Cache-Control", "no-cache");
    return resp;
}

/*
 * ofcd_ctl_wire: the line protocol between ofcdctl and ofcd's command
 * socket, both sides of it.
 *
 * One request per connection: a line of words separated by blanks, the
 * command's name then its arguments ("log/set of debug"), ended by a
 * newline or by the client's end of stream, at most OFCD_CTL_REQUEST_MAX
 * bytes, printable ASCII only (no quoting: no argument needs a blank).
 * The answer: a status line, "ok LEN" or "error LEN", then exactly LEN
 * bytes of text (ending in a newline), then the server closes. The length
 * tells a whole answer from one cut short by a connection that broke.
 */
#ifndef OFCD_CTL_WIRE_H
#define OFCD_CTL_WIRE_H

#include <stdbool.h>
#include <stddef.h>

#define OFCD_CTL_REQUEST_MAX 4096       /* bytes of a request line, newline included */
#define OFCD_CTL_HEAD_MAX 32            /* bytes of a status line */

/*
 * Split a request line (without its newline; one '\r' before it is
 * allowed) into words, in place: how many (at least 1), or -EINVAL (no
 * word, or a byte that is not printable ASCII) / -E2BIG (more than max),
 * with *why saying which for the answer.
 */
int ofcd_ctl_wire_split(char *line, char **words, unsigned max, const char **why);

/* The status line of an answer of text_len bytes into buf (at least
 * OFCD_CTL_HEAD_MAX): its length. */
int ofcd_ctl_wire_head(char *buf, size_t n, bool ok, size_t text_len);

/*
 * The client's side: a whole answer as received (up to the server's
 * close). 0 with *ok and the text (*text, *text_len: inside reply), or
 * -EPROTO when the status line is not one, or the text is shorter or
 * longer than it says (a connection that broke).
 */
int ofcd_ctl_wire_parse(const char *reply, size_t len, bool *ok, const char **text,
                        size_t *text_len);

#endif

/*
 * ofcd_journal: ofcd's log lines as systemd-journald's own entries, so that
 * an operator filters them by priority and by switch:
 *
 *   journalctl -u ofcd -p warning
 *   journalctl -u ofcd OFCD_DPID=00000000000010a0
 *
 * Each line "<time> <LEVEL> <component>: <message>" (ofcd_log.h) becomes
 * PRIORITY (error 3, warn 4, info 6, debug 7), OFCD_MODULE (the component),
 * OFCD_DPID (the switch the message names as "switch <16 hex digits>",
 * when it does), SYSLOG_IDENTIFIER=ofcd and MESSAGE ("component: message";
 * journald keeps the time itself). Only when stderr is journald's stream
 * (JOURNAL_STREAM, which systemd sets for a service): anywhere else the
 * lines stay on stderr as they are, and a line the journal refuses goes
 * there too.
 */
#ifndef OFCD_JOURNAL_H
#define OFCD_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>

#define OFCD_JOURNAL_SOCKET "/run/systemd/journal/socket"

struct ofcd_journal {
    int fd;
    struct sockaddr_un addr;
    socklen_t addr_len;
};

/* Whether stderr is connected to journald (JOURNAL_STREAM is its device
 * and inode). */
bool ofcd_journal_wanted(void);

/* A datagram socket towards path (OFCD_JOURNAL_SOCKET): 0 or -errno. */
int ofcd_journal_open(struct ofcd_journal *j, const char *path);
void ofcd_journal_close(struct ofcd_journal *j);

/* The entry of one log line into out (at most cap bytes): its length, or
 * 0 when the line is not in ofcd_log's form (it then goes as it is). */
size_t ofcd_journal_entry(const char *line, size_t len, char *out, size_t cap);

/* One line as an entry: 0, or -errno (the caller writes it to stderr). */
int ofcd_journal_send(const struct ofcd_journal *j, const char *line, size_t len);

#endif

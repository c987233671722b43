/*
 * dpid: datapath ids as people write them — 16 hex digits with or without
 * colons ("00:00:00:00:00:00:10:01", as Kytos shows them) or decimal (as
 * ovs-ofctl prints them) — for the REST paths, bodies and answers, and for logs.
 */
#ifndef OFCD_DPID_H
#define OFCD_DPID_H

#include <stdint.h>

/* 0, or -EINVAL when s is neither form. */
int dpid_parse(const char *s, uint64_t *out);
/* "00:00:00:00:00:00:10:01" */
void dpid_format(uint64_t dpid, char out[24]);

#endif

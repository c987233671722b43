/*
 * dpid: datapath ids as people write them — 16 hex digits with or without
 * colons ("00:00:00:00:00:00:10:01", as Kytos shows them) or decimal (as
 * ovs-ofctl prints them) — for the REST paths, bodies and answers, and for logs;
 * and port MAC addresses in the same colon form.
 */
#ifndef OFCD_DPID_H
#define OFCD_DPID_H

#include <stdint.h>

/* 0, or -EINVAL when s is neither form. */
int dpid_parse(const char *s, uint64_t *out);
/* "00:00:00:00:00:00:10:01" */
void dpid_format(uint64_t dpid, char out[24]);
/* A MAC address as "aa:bb:cc:dd:ee:ff" (a port's hw_addr, as Kytos shows it). */
void mac_format(const uint8_t mac[6], char out[18]);

#endif

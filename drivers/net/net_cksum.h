/*
 * net_cksum: the Internet checksum (RFC 1071) in software, for ports whose NIC
 * cannot offload it and for every checksum we verify on receive.
 */
#ifndef OFCD_NET_CKSUM_H
#define OFCD_NET_CKSUM_H

#include <stddef.h>
#include <stdint.h>

/* Add len bytes to a running 32-bit one's-complement sum. data may have any
 * alignment and len any size (carries are folded, not lost). When a sum is
 * built from several blocks, every block but the last must have an even
 * length, or the later blocks' bytes land in the wrong half of the word. */
uint32_t net_cksum_add(uint32_t sum, const void *data, size_t len);

/* Fold a running sum to 16 bits and complement it: the value to store, in
 * network byte order as it sits in memory. */
uint16_t net_cksum_finish(uint32_t sum);

/* net_cksum_finish(net_cksum_add(0, data, len)). Verifying a block whose
 * checksum field is included gives 0 when it is right. */
uint16_t net_cksum(const void *data, size_t len);

#endif

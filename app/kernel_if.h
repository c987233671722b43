/*
 * kernel_if: configure the kernel side of a tap port (address, up) so a
 * fresh machine can reach ofcd without any manual `ip` commands.
 */
#ifndef OFCD_KERNEL_IF_H
#define OFCD_KERNEL_IF_H

#include <stddef.h>
#include <stdint.h>

/* Kernel-side queue toward ofcd, frames (the kernel's default is 1000). */
#define KERNEL_IF_TXQUEUELEN 10000

/*
 * Give the kernel netdev ifindex the address ip/prefix_len (host byte order)
 * set its txqueuelen to KERNEL_IF_TXQUEUELEN and bring it up. Returns 0 or a negative errno; err names the interface
 * and the failing step.
 */
int kernel_if_configure(int ifindex, uint32_t ip, uint8_t prefix_len, char *name_out,
                        size_t name_len, char *err, size_t errlen);

#endif

/*
 * free_port: a loopback TCP port nothing listens on now (the kernel's
 * pick), for tests that start a server of their own.
 */
#ifndef OFCD_TEST_FREE_PORT_H
#define OFCD_TEST_FREE_PORT_H

#include <stdint.h>

/* Fails the test when no socket can be bound. */
uint16_t free_port(void);

#endif

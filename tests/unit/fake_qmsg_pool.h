/*
 * fake_qmsg_pool: the qmsg_pool.h API over malloc, for unit tests of the
 * OpenFlow data path without EAL. Same sizes and counting as the real pool;
 * a test can lower the number of buffers left and ask how many are out, so
 * a leaked or double-freed buffer fails the test.
 */
#ifndef OFCD_FAKE_QMSG_POOL_H
#define OFCD_FAKE_QMSG_POOL_H

#include "qmsg_pool.h"

/* Buffers handed out and not yet freed. */
unsigned fake_qmsg_pool_live(const struct qmsg_pool *p);

#endif

/*
 * ofcd_log_ctl: the log's commands for ofcdctl — log/list (each module, its
 * level and what it covers) and log/set (one module's level, or every
 * module's), taking effect at the next line any thread writes.
 */
#ifndef OFCD_LOG_CTL_H
#define OFCD_LOG_CTL_H

#include "ofcd_ctl.h"

/* 0 or ofcd_ctl_register's error. */
int ofcd_log_ctl_register(struct ofcd_ctl *c);

#endif

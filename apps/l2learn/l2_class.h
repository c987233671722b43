/*
 * l2_class: the L2 learning switch as an app class (apps/api/app_class.h):
 * apps.l2_learning, apps.l2_table_size,
 * apps.l2_idle_timeout_s; worker hooks only.
 */
#ifndef OFCD_L2_CLASS_H
#define OFCD_L2_CLASS_H

#include "app_class.h"

extern const struct app_class l2_class;

#endif

/*
 * apps: the app classes this build carries, in the order their worker hooks
 * run (topology first: it sees LLDP before the learning switch does), and
 * the loops over the running instances that wire.c, control.c and views.c
 * call. Adding an app: its folder (its class, apps/api/app_class.h), its
 * library in app/meson.build, and one line in app_classes[] (apps.c).
 */
#ifndef OFCD_APPS_H
#define OFCD_APPS_H

#include "app_class.h"

extern const struct app_class *const app_classes[];
extern const unsigned app_classes_n;

/* The class called name, or NULL. */
const struct app_class *app_class_find(const char *name);

#endif

/*
 * topo_class: topology discovery as an app class (apps/api/app_class.h).
 * One instance owns what apps.topology needs: the workers' part and its
 * LLDP key (topo_app), what operators switched off (topo_admin), the
 * control thread's links (topo_view), the LLDP flow's failure lines
 * (topo_flow), the REST routes and what they keep (topo_rest, topo_keep);
 * link changes go to the event stream (topo_class_publish_link); other
 * apps reach its paths through topo_class_rest (topo_paths.h).
 */
#ifndef OFCD_TOPO_CLASS_H
#define OFCD_TOPO_CLASS_H

#include "app_class.h"
#include "topo_view.h"

struct rest_events;

extern const struct app_class topo_class;

/* topo_view's on_change (arg: the event stream, may be NULL): link.up,
 * link.down, link.loop with {"id", "a", "b", "why"}. */
void topo_class_publish_link(void *arg, const struct topo_link_rec *l, enum topo_change c);

struct topo_rest;

/* What another app asks of a running topology (topo_paths.h; the host's
 * app_find gives its self): NULL until its REST face is made (load). */
struct topo_rest *topo_class_rest(void *self);

#endif

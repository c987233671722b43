/*
 * eline_class: Ethernet virtual circuits as an app class
 * (apps/api/app_class.h), Kytos-ng's mef_eline v2 under
 * /api/kytos/mef_eline/v2 (eline_rest.c). It keeps its EVCs as app records
 * (eline_evc.c), lays their flows through the flow manager (eline_deploy.c)
 * and finds dynamic paths on the topology app's (topo_paths.h, through the
 * host's app_find), so apps.topology is needed for those.
 */
#ifndef OFCD_ELINE_CLASS_H
#define OFCD_ELINE_CLASS_H

#include "app_class.h"

extern const struct app_class eline_class;

#endif

/* apps: see apps.h. */
#include "apps.h"

#include <string.h>

#include "cnode_class.h"
#include "eline_class.h"
#include "l2_class.h"
#include "topo_class.h"

const struct app_class *const app_classes[] = {
    &cnode_class,
    &topo_class,
    &eline_class,
    &l2_class,
};
const unsigned app_classes_n = sizeof(app_classes) / sizeof(app_classes[0]);

const struct app_class *app_class_find(const char *name)
{
    for (unsigned i = 0; i < app_classes_n; i++)
        if (strcmp(app_classes[i]->name, name) == 0)
            return app_classes[i];
    return NULL;
}

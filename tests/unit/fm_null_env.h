/* fm_null_env: a flow manager's env that reaches no switch (no room, every
 * send refused, a clock stopped at 0), for tests that need the manager only
 * as the owner of the stored flows (fm_change, fm_stored). */
#ifndef OFCD_TEST_FM_NULL_ENV_H
#define OFCD_TEST_FM_NULL_ENV_H

#include "fm.h"

void fm_null_env(struct fm_env *env);

#endif

/*
 * rest_access: who may reach the REST API, as the command line decides it.
 *   - where the users live: rest.users_file, or app.data_dir/users.json;
 *   - the listen policy's warning: a rest.listen outside 127.0.0.0/8 needs
 *     rest.auth and HTTPS (cfg_finish refuses it otherwise), unless
 *     rest.allow_insecure, which is logged loudly at every start;
 *   - `ofcd user add NAME [--role admin|reader] [config options]`: add or
 *     replace a user, the password read from the terminal (twice, not
 *     echoed) or from stdin's first line when it is not a terminal.
 */
#ifndef OFCD_REST_ACCESS_H
#define OFCD_REST_ACCESS_H

#include <stddef.h>

#include "cfg.h"

/* Fill rest.users_file when it was left empty. */
void rest_access_resolve(struct ofcd_config *c);

/* Log what rest.allow_insecure lets through, if anything. */
void rest_access_warn(const struct ofcd_config *c);

/* The user command: exit code (0 done, 1 failed, 2 bad usage). */
int rest_access_user_add(const struct ofcd_config *c, const char *name, const char *role);

#endif

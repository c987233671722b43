/* fm_null_env: see fm_null_env.h. */
#include "fm_null_env.h"

#include <errno.h>
#include <string.h>

static unsigned no_room(void *arg, conn_handle_t conn, uint8_t cls)
{
    (void)arg, (void)conn, (void)cls;
    return 0;
}

static int no_send(void *arg, conn_handle_t conn, const uint8_t *msg, size_t len, uint8_t cls)
{
    (void)arg, (void)conn, (void)msg, (void)len, (void)cls;
    return -ENOBUFS;
}

static uint64_t zero_now(void *arg)
{
    (void)arg;
    return 0;
}

void fm_null_env(struct fm_env *env)
{
    memset(env, 0, sizeof(*env));
    env->room = no_room;
    env->send = no_send;
    env->now_us = zero_now;
}

/*
 * instance_lock: one ofcd per EAL file-prefix, and one per data directory.
 *
 * Two primaries with the same prefix would fight over the same runtime files
 * and (on a tap) the same kernel interface, so the second one must stop
 * before rte_eal_init() with a message that says who holds the lock. The lock
 * is an flock() on /run/ofcd/<prefix>.lock holding the owner's pid; the
 * kernel drops it when the process dies, so a crash never leaves it stale.
 *
 * Two with another prefix each but one app.data_dir would share the store:
 * the second's journal recovery rewrites data.mdb under the first. So the
 * data directory has its own lock, DIR/ofcd.lock (the same flock, the
 * owner's pid in it), taken before any store file is opened; its file stays
 * (the data directory is ofcd's).
 */
#ifndef OFCD_INSTANCE_LOCK_H
#define OFCD_INSTANCE_LOCK_H

#include <stddef.h>

#define INSTANCE_LOCK_DIR "/run/ofcd"

/*
 * Take the lock for prefix under dir (INSTANCE_LOCK_DIR in production).
 * Returns the lock fd (>= 0), -EBUSY if another process holds it (err names
 * its pid), or another negative errno (err says what failed).
 */
int instance_lock_acquire(const char *dir, const char *prefix, char *err, size_t errlen);

/* Take DIR/ofcd.lock: its fd (>= 0), -EBUSY if another process holds it
 * (err names its pid and the directory), or another negative errno (err
 * says what failed). Release with close(). */
int instance_data_lock_acquire(const char *data_dir, char *err, size_t errlen);

/* The path of the command socket (ofcdctl) of the ofcd that holds prefix's
 * lock: dir/prefix.ctl. 0, or -ENAMETOOLONG when it does not fit n. */
int instance_ctl_path(char *out, size_t n, const char *dir, const char *prefix);

/* Release and remove the lock file. */
void instance_lock_release(int fd, const char *dir, const char *prefix);

#endif

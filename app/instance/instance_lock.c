/* instance_lock: see instance_lock.h. */
#include "instance_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static void lock_path(char *out, size_t len, const char *dir, const char *prefix)
{
    snprintf(out, len, "%s/%s.lock", dir, prefix);
}

/* An flock on path with our pid in it: the fd, or -EBUSY with the holder's
 * pid in *holder, or another negative errno (err says what failed). */
static int lock_file(const char *path, char *holder, size_t hlen, char *err, size_t errlen)
{
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        int e = errno;
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(e));
        return -e;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        int e = errno;
        ssize_t n = pread(fd, holder, hlen - 1, 0);
        holder[n > 0 ? n : 0] = '\0';
        holder[strcspn(holder, "\n")] = '\0';
        if (!holder[0])
            snprintf(holder, hlen, "unknown");
        close(fd);
        if (e == EWOULDBLOCK)
            return -EBUSY;
        snprintf(err, errlen, "cannot lock %s: %s", path, strerror(e));
        return -e;
    }
    char pid[32];
    int len = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, (size_t)len, 0) != len) {
        int e = errno;
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(e));
        close(fd);
        return -e;
    }
    return fd;
}

int instance_lock_acquire(const char *dir, const char *prefix, char *err, size_t errlen)
{
    char path[PATH_MAX], holder[32];

    if (strchr(prefix, '/')) {
        snprintf(err, errlen, "EAL file-prefix '%s' must not contain '/'", prefix);
        return -EINVAL;
    }
    if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
        int e = errno;
        snprintf(err, errlen, "cannot create %s: %s", dir, strerror(e));
        return -e;
    }
    lock_path(path, sizeof(path), dir, prefix);
    int fd = lock_file(path, holder, sizeof(holder), err, errlen);
    if (fd == -EBUSY)
        snprintf(err, errlen,
                 "another ofcd (pid %s) is already running with EAL file-prefix '%s' "
                 "(lock %s); stop it, or give this one its own --eal.args with "
                 "another --file-prefix", holder, prefix, path);
    return fd;
}

int instance_data_lock_acquire(const char *data_dir, char *err, size_t errlen)
{
    char path[PATH_MAX], holder[32];

    if (snprintf(path, sizeof(path), "%s/ofcd.lock", data_dir) >= (int)sizeof(path)) {
        snprintf(err, errlen, "app.data_dir '%s' is too long", data_dir);
        return -ENAMETOOLONG;
    }
    int fd = lock_file(path, holder, sizeof(holder), err, errlen);
    if (fd == -EBUSY)
        snprintf(err, errlen,
                 "another ofcd (pid %s) is already running on app.data_dir '%s' (lock %s); "
                 "stop it, or give this one its own app.data_dir", holder, data_dir, path);
    return fd;
}

int instance_ctl_path(char *out, size_t n, const char *dir, const char *prefix)
{
    int len = snprintf(out, n, "%s/%s.ctl", dir, prefix);

    return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}

void instance_lock_release(int fd, const char *dir, const char *prefix)
{
    char path[PATH_MAX];

    if (fd < 0)
        return;
    /* Unlink while still holding the lock so a starting instance never sees
     * a file we are about to delete. */
    lock_path(path, sizeof(path), dir, prefix);
    unlink(path);
    close(fd);
}

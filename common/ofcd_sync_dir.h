/*
 * ofcd_sync_dir: make a directory's entries durable (a file created,
 * renamed or unlinked in it survives a power cut only once its directory
 * is synced; fdatasync of the file alone does not cover its name).
 */
#ifndef OFCD_SYNC_DIR_H
#define OFCD_SYNC_DIR_H

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

/* 0, or -errno from opening or syncing dir. */
static inline int ofcd_sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int rc = 0;

    if (fd < 0)
        return -errno;
    if (fsync(fd) != 0)
        rc = -errno;
    close(fd);
    return rc;
}

#endif

/* ofcd_pem: see ofcd_pem.h. */
#include "ofcd_pem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ofcd_log.h"

static int read_file(const char *subsys, const char *key_name, const char *path, bool secret,
                     bool pem, char **out)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0) {
        int e = errno;
        LOG_ERR(subsys, "%s = %s: cannot open: %s", key_name, path, strerror(e));
        return -e;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
        st.st_size > (off_t)OFCD_PEM_MAX) {
        LOG_ERR(subsys, "%s = %s: not a %s of 1 byte .. %u KiB", key_name, path,
                pem ? "PEM file" : "regular file", OFCD_PEM_MAX / 1024);
        close(fd);
        return -EINVAL;
    }
    if (secret && (st.st_mode & 077)) {
        LOG_ERR(subsys, "%s = %s: readable by others (mode %03o); chmod 600 it", key_name,
                path, (unsigned)(st.st_mode & 0777));
        close(fd);
        return -EPERM;
    }
    char *buf = malloc((size_t)st.st_size + 1);
    size_t got = 0;
    while (buf && got < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    if (!buf || got != (size_t)st.st_size) {
        LOG_ERR(subsys, "%s = %s: cannot read it whole", key_name, path);
        free(buf);
        return -EIO;
    }
    buf[got] = '\0';
    if (pem && !strstr(buf, "-----BEGIN ")) {
        LOG_ERR(subsys, "%s = %s: no PEM block (-----BEGIN ...) in it", key_name, path);
        free(buf);
        return -EINVAL;
    }
    *out = buf;
    return 0;
}

int ofcd_pem_read(const char *subsys, const char *key_name, const char *path, bool secret,
                  char **out)
{
    return read_file(subsys, key_name, path, secret, true, out);
}

int ofcd_secret_file_read(const char *subsys, const char *key_name, const char *path,
                          char **out)
{
    return read_file(subsys, key_name, path, true, false, out);
}

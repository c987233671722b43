/* rest_tls: see rest_tls.h. */
#include "rest_tls.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ofcd_log.h"

static int read_pem(const char *key_name, const char *path, bool secret, char **out)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0) {
        int e = errno;
        LOG_ERR("rest", "%s = %s: cannot open: %s", key_name, path, strerror(e));
        return -e;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
        st.st_size > (off_t)REST_TLS_PEM_MAX) {
        LOG_ERR("rest", "%s = %s: not a PEM file of 1 byte .. %u KiB", key_name, path,
                REST_TLS_PEM_MAX / 1024);
        close(fd);
        return -EINVAL;
    }
    if (secret && (st.st_mode & 077)) {
        LOG_ERR("rest", "%s = %s: readable by others (mode %03o); chmod 600 it", key_name,
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
        LOG_ERR("rest", "%s = %s: cannot read it whole", key_name, path);
        free(buf);
        return -EIO;
    }
    buf[got] = '\0';
    if (!strstr(buf, "-----BEGIN ")) {
        LOG_ERR("rest", "%s = %s: no PEM block (-----BEGIN ...) in it", key_name, path);
        free(buf);
        return -EINVAL;
    }
    *out = buf;
    return 0;
}

int rest_tls_load(const struct rest_cfg *cfg, char **cert, char **key)
{
    bool has_cert = cfg->tls_cert && *cfg->tls_cert, has_key = cfg->tls_key && *cfg->tls_key;

    *cert = *key = NULL;
    if (!has_cert && !has_key)
        return 0;
    if (!has_cert || !has_key) {
        LOG_ERR("rest", "rest.tls_cert and rest.tls_key go together: %s is set, %s is not",
                has_cert ? "rest.tls_cert" : "rest.tls_key",
                has_cert ? "rest.tls_key" : "rest.tls_cert");
        return -EINVAL;
    }
    int rc = read_pem("rest.tls_cert", cfg->tls_cert, false, cert);
    if (rc == 0 && (rc = read_pem("rest.tls_key", cfg->tls_key, true, key)) < 0) {
        free(*cert);
        *cert = NULL;
    }
    return rc;
}

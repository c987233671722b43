/* rest_ui: the dashboard's files, held in memory (rest_ui.h). */
#include "rest_ui.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool plain_name(const char *s)
{
    size_t n = strlen(s);

    if (n == 0 || n >= REST_UI_NAME_MAX || s[0] == '.')
        return false;
    return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == n;
}

const char *rest_ui_type(const char *name)
{
    static const struct { const char *ext, *type; } types[] = {
        {".html", "text/html; charset=utf-8"},
        {".js", "text/javascript; charset=utf-8"},
        {".css", "text/css; charset=utf-8"},
        {".svg", "image/svg+xml"},
        {".png", "image/png"},
        {".json", "application/json"},
        {".txt", "text/plain; charset=utf-8"},
        {".ico", "image/x-icon"},
    };
    const char *dot = strrchr(name, '.');

    for (size_t i = 0; dot && i < sizeof(types) / sizeof(types[0]); i++)
        if (strcmp(dot, types[i].ext) == 0)
            return types[i].type;
    return "application/octet-stream";
}

/* The whole of dir/name (a regular file of at most max bytes). */
static int read_whole(int dfd, const char *name, size_t max, char **out, size_t *len)
{
    int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    int rc = 0;

    if (fd < 0)
        return -errno;
    if (fstat(fd, &st) < 0) {
        rc = -errno;
        goto out;
    }
    if (!S_ISREG(st.st_mode)) {
        rc = -EISDIR;
        goto out;
    }
    if ((size_t)st.st_size > max) {
        rc = -EFBIG;
        goto out;
    }
    char *buf = malloc((size_t)st.st_size + 1);
    size_t got = 0;
    if (!buf) {
        rc = -ENOMEM;
        goto out;
    }
    while (got < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = n < 0 ? -errno : -EIO;     /* shrank while read */
            free(buf);
            goto out;
        }
        got += (size_t)n;
    }
    buf[got] = '\0';
    *out = buf;
    *len = got;
out:
    close(fd);
    return rc;
}

int rest_ui_load(struct rest_ui *ui, const char *dir, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    size_t total = 0;
    struct dirent *e;
    int rc = 0;

    memset(ui, 0, sizeof(*ui));
    if (!d) {
        rc = -errno;
        snprintf(err, errlen, "%s: %s", dir, strerror(-rc));
        return rc;
    }
    while ((e = readdir(d)) != NULL) {
        if (!plain_name(e->d_name))
            continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
            continue;
        if (ui->n == REST_UI_MAX_FILES) {
            rc = -EFBIG;
            snprintf(err, errlen, "%s: more than %d files", dir, REST_UI_MAX_FILES);
            break;
        }
        struct rest_ui_file *f = &ui->files[ui->n];
        rc = read_whole(dirfd(d), e->d_name, REST_UI_MAX_BYTES - total, &f->data, &f->len);
        if (rc < 0) {
            snprintf(err, errlen, "%s/%s: %s", dir, e->d_name,
                     rc == -EFBIG ? "the files pass 32 MiB together" : strerror(-rc));
            break;
        }
        memcpy(f->name, e->d_name, strlen(e->d_name) + 1);     /* plain_name: it fits */
        f->type = rest_ui_type(f->name);
        total += f->len;
        ui->n++;
    }
    closedir(d);
    if (rc == 0 && !rest_ui_find(ui, "index.html")) {
        rc = -ENOENT;
        snprintf(err, errlen, "%s: no index.html (is the dashboard built? ui/README.md)", dir);
    }
    if (rc < 0)
        rest_ui_free(ui);
    return rc;
}

void rest_ui_free(struct rest_ui *ui)
{
    for (unsigned i = 0; i < ui->n; i++)
        free(ui->files[i].data);
    memset(ui, 0, sizeof(*ui));
}

const struct rest_ui_file *rest_ui_find(const struct rest_ui *ui, const char *name)
{
    for (unsigned i = 0; i < ui->n; i++)
        if (strcmp(ui->files[i].name, name) == 0)
            return &ui->files[i];
    return NULL;
}

enum rest_ui_route rest_ui_route(const char *path, const char **name)
{
    if (strcmp(path, "/") == 0 || strcmp(path, "/ui") == 0)
        return REST_UI_REDIRECT;
    if (strncmp(path, "/ui/", 4) != 0)
        return REST_UI_NONE;
    *name = path[4] ? path + 4 : "index.html";
    return REST_UI_FILE;
}

/*
 * ofcdctl: run one command in a running ofcd and print its answer — the
 * client side of ofcd's command socket (common/ofcd_ctl_wire.h says what
 * travels). It finds the socket the way ofcd makes it: app.ctl_socket of
 * the configuration given (or the built-in one), or when that is empty
 * /run/ofcd/<the EAL file-prefix>.ctl; --socket names it outright.
 *
 * Exit codes: 0 the answer is ok (on stdout); 1 ofcd answered with an
 * error (its message on stderr); 2 a bad command line, no ofcd at the
 * socket, or no whole answer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "cfg.h"
#include "eal_args.h"
#include "instance_lock.h"
#include "ofcd_ctl.h"
#include "ofcd_ctl_wire.h"
#include "ofcd_hex.h"
#include "ofcd_version.h"

#define EXIT_ERROR_ANSWER 1
#define EXIT_USAGE 2
#define ANSWER_TIMEOUT_S 10

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: ofcdctl [--socket PATH | --config FILE] COMMAND [ARGS ...]\n"
            "\n"
            "Runs COMMAND in the running ofcd and prints its answer.\n"
            "\n"
            "  --socket PATH   ofcd's command socket (default: app.ctl_socket of FILE or of\n"
            "                  the built-in configuration; when empty, " INSTANCE_LOCK_DIR
            "/<prefix>.ctl\n"
            "                  where <prefix> is the EAL --file-prefix in eal.args, which\n"
            "                  makes it " INSTANCE_LOCK_DIR "/ofcd.ctl built in)\n"
            "  --config FILE   the configuration ofcd runs with: it names the socket\n"
            "  --version       print the version, exit\n"
            "  -h, --help      this text\n"
            "\n"
            "Commands (`ofcdctl list-commands` lists those of the running ofcd with their\n"
            "help):\n"
            "  list-commands                 every command, its arguments, what it does\n"
            "  log/list                      each log module and its level\n"
            "  log/set [MODULE] LEVEL        error|warn|info|debug, one module or all, at once\n"
            "  counters/show [GROUP]         every counter set as SIGUSR1 logs them\n"
            "  conn/show                     every TCP connection, from the io lcores\n"
            "  switch/show [DPID]            the switches, or one of them whole\n"
            "  fm/queue [DPID]               the flow manager's FLOW_MODs waiting per switch\n"
            "  fault/set rx|tx|both [K=V..]  the fault injector's rates (fault.enabled only)\n"
            "  config/reload                 read the configuration again (as SIGHUP does)\n"
            "  capture/save DPID FILE [ID]   the switch's flight record (its last OpenFlow\n"
            "                                messages each way), or its frozen copy ID, as\n"
            "                                a pcapng file for Wireshark or tshark (mode 600)\n"
            "  capture/save 0xCONN FILE      the same for a connection the log names (a\n"
            "                                switch that never came up has no dpid)\n"
            "  capture/list                  the frozen copies: a switch's record kept when\n"
            "                                it disconnected, sent an OFPT_ERROR, had its\n"
            "                                table mended, or on capture/freeze DPID\n"
            "\n"
            "Examples:\n"
            "  ofcdctl log/set of debug\n"
            "  ofcdctl --config /etc/ofcd/ofcd.conf counters/show tcp\n"
            "  ofcdctl switch/show 00:00:00:00:00:00:00:01\n"
            "  ofcdctl capture/save 00:00:00:00:00:00:00:01 sw1.pcapng && tshark -r sw1.pcapng\n"
            "\n"
            "The socket is ofcd's user's only (mode 600), or also app.ctl_group's (660:\n"
            "the Debian package's service opens it to group ofcd, so `adduser NAME ofcd`\n"
            "lets NAME run ofcdctl). Exit codes: 0 ok (the answer on stdout);\n"
            "1 ofcd answered with an error (on stderr); 2 a bad command line, no ofcd at\n"
            "the socket, or no whole answer within %d s.\n", ANSWER_TIMEOUT_S);
}

/* The socket path from --config FILE (or the built-in configuration). */
static int socket_from_config(const char *file, char *path, size_t n)
{
    static struct ofcd_config cfg;          /* large: not on the stack */
    struct eal_args ea;
    char err[CFG_ERR_MAX];

    cfg_defaults(&cfg);
    if (file && cfg_load_file(&cfg, file, err, sizeof(err)) < 0) {
        fprintf(stderr, "ofcdctl: %s\n", err);
        return -1;
    }
    if (cfg.ctl_socket[0]) {
        if (strlen(cfg.ctl_socket) >= n) {
            fprintf(stderr, "ofcdctl: app.ctl_socket '%s' is longer than a unix socket's "
                    "path may be (%zu bytes)\n", cfg.ctl_socket, n - 1);
            return -1;
        }
        snprintf(path, n, "%s", cfg.ctl_socket);
        return 0;
    }
    if (eal_args_build(&ea, "ofcd", cfg.eal_args) < 0) {
        fprintf(stderr, "ofcdctl: eal.args of %s cannot be read\n", file ? file : "the default");
        return -1;
    }
    if (instance_ctl_path(path, n, INSTANCE_LOCK_DIR, eal_args_file_prefix(&ea)) < 0) {
        fprintf(stderr, "ofcdctl: the socket path for file-prefix '%s' is too long\n",
                eal_args_file_prefix(&ea));
        return -1;
    }
    return 0;
}

/* The request line from the words, checked as the server would. */
static int build_request(int argc, char **argv, char *line, size_t n)
{
    size_t len = 0;

    for (int i = 0; i < argc; i++) {
        for (const char *p = argv[i]; *p; p++)
            if (*p <= ' ' || *p > '~') {
                fprintf(stderr, "ofcdctl: '%s': an argument is printable ASCII without "
                        "blanks\n", argv[i]);
                return -1;
            }
        size_t w = strlen(argv[i]);
        if (len + w + 2 > n) {
            fprintf(stderr, "ofcdctl: the request is longer than %zu bytes\n", n - 1);
            return -1;
        }
        if (i)
            line[len++] = ' ';
        memcpy(line + len, argv[i], w);
        len += w;
    }
    line[len++] = '\n';
    line[len] = '\0';
    return (int)len;
}

/* Connect, ask, read the answer to the server's close: the bytes in *buf
 * (malloc'd), their count; -1 (said why) on failure. */
static ssize_t exchange(const char *path, const char *req, size_t req_len, char **buf)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    struct timeval tv = {.tv_sec = ANSWER_TIMEOUT_S};
    size_t cap = OFCD_CTL_HEAD_MAX + OFCD_CTL_REPLY_MAX + 256, n = 0;

    if (strlen(path) >= sizeof(a.sun_path)) {
        fprintf(stderr, "ofcdctl: %s: longer than a unix socket's path may be\n", path);
        return -1;
    }
    strcpy(a.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
        int e = errno;
        fprintf(stderr, "ofcdctl: cannot connect to %s: %s%s\n", path, strerror(e),
                e == EACCES ? " (the socket is ofcd's user's and app.ctl_group's only: "
                              "the package's service opens it to group ofcd)"
                : e == ENOENT || e == ECONNREFUSED ? " (is ofcd running, with this "
                                                     "configuration?)" : "");
        if (fd >= 0)
            close(fd);
        return -1;
    }
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    if (send(fd, req, req_len, MSG_NOSIGNAL) != (ssize_t)req_len) {
        fprintf(stderr, "ofcdctl: %s: cannot send the request: %s\n", path, strerror(errno));
        close(fd);
        return -1;
    }
    shutdown(fd, SHUT_WR);
    *buf = malloc(cap);
    if (!*buf) {
        close(fd);
        return -1;
    }
    for (;;) {
        ssize_t r = read(fd, *buf + n, cap - n);
        if (r > 0) {
            n += (size_t)r;
            if (n < cap)
                continue;
        }
        /* A reset after the answer (the server closes without reading what
         * it did not need) ends it like a close; a timeout does not. */
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            fprintf(stderr, "ofcdctl: %s: no whole answer within %d s\n", path,
                    ANSWER_TIMEOUT_S);
            free(*buf);
            close(fd);
            return -1;
        }
        break;
    }
    close(fd);
    return (ssize_t)n;
}

/* capture/save's answer (capture/get's: "# " lines, then the file as
 * lines of hex) into file: 0, or EXIT_USAGE with why on stderr. */
static int save_capture(const char *text, size_t len, const char *file)
{
    uint8_t *bytes = malloc(len / 2 + 1);
    size_t n = 0;

    if (!bytes) {
        fprintf(stderr, "ofcdctl: out of memory\n");
        return EXIT_USAGE;
    }
    for (size_t at = 0; at < len;) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t l = (nl ? (size_t)(nl - text) : len) - at;
        if (l && text[at] == '#') {
            fwrite(text + at, 1, l, stdout);
            fputc('\n', stdout);
        } else if (l && (l % 2 || ofcd_hex_decode(text + at, l, bytes + n, l / 2) < 0)) {
            fprintf(stderr, "ofcdctl: capture/get answered something that is not hex\n");
            free(bytes);
            return EXIT_USAGE;
        } else {
            n += l / 2;
        }
        at += l + 1;
    }
    /* The capture holds the switch's whole channel: the file is its
     * owner's only, also one that was there (mode changed), never through
     * a symbolic link; one not written whole is removed. */
    int err = 0;
    int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0 || fchmod(fd, 0600) < 0)
        err = errno;
    for (size_t at = 0; !err && at < n;) {
        ssize_t w = write(fd, bytes + at, n - at);
        if (w < 0 && errno != EINTR)
            err = errno;
        at += w > 0 ? (size_t)w : 0;
    }
    if (fd >= 0 && close(fd) < 0 && !err)
        err = errno;
    free(bytes);
    if (err) {
        fprintf(stderr, "ofcdctl: %s: %s\n", file, strerror(err));
        if (fd >= 0)
            unlink(file);
        return EXIT_USAGE;
    }
    printf("saved %zu bytes to %s\n", n, file);
    return 0;
}

int main(int argc, char **argv)
{
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)] = "";
    char req[OFCD_CTL_REQUEST_MAX];
    const char *config = NULL;
    int i = 1;

    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(argv[i], "--version") == 0) {
            printf("ofcdctl %s\n", OFCD_VERSION);
            return 0;
        }
        if ((strcmp(argv[i], "--socket") == 0 || strcmp(argv[i], "--config") == 0) &&
            i + 1 < argc) {
            if (argv[i][2] == 's')
                snprintf(path, sizeof(path), "%s", argv[++i]);
            else
                config = argv[++i];
        } else if (strncmp(argv[i], "--socket=", 9) == 0) {
            snprintf(path, sizeof(path), "%s", argv[i] + 9);
        } else if (strncmp(argv[i], "--config=", 9) == 0) {
            config = argv[i] + 9;
        } else {
            fprintf(stderr, "ofcdctl: unknown option '%s' (ofcdctl --help)\n", argv[i]);
            return EXIT_USAGE;
        }
    }
    if (i == argc) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (path[0] && config) {
        fprintf(stderr, "ofcdctl: --socket or --config, not both\n");
        return EXIT_USAGE;
    }
    if (!path[0] && socket_from_config(config, path, sizeof(path)) < 0)
        return EXIT_USAGE;
    /* capture/save DPID FILE [ID]: capture/get DPID [ID], its answer into
     * FILE here. */
    const char *save_to = NULL;
    static char get_cmd[] = "capture/get";
    char *get[3];
    int n_get = 0;
    if (strcmp(argv[i], "capture/save") == 0) {
        if (argc - i != 3 && argc - i != 4) {
            fprintf(stderr, "ofcdctl: usage: capture/save DPID FILE [ID]\n");
            return EXIT_USAGE;
        }
        save_to = argv[i + 2];
        get[n_get++] = get_cmd;
        get[n_get++] = argv[i + 1];
        if (argc - i == 4)
            get[n_get++] = argv[i + 3];
    }
    int req_len = save_to ? build_request(n_get, get, req, sizeof(req))
                          : build_request(argc - i, argv + i, req, sizeof(req));
    if (req_len < 0)
        return EXIT_USAGE;

    char *answer;
    ssize_t n = exchange(path, req, (size_t)req_len, &answer);
    if (n < 0)
        return EXIT_USAGE;
    bool ok;
    const char *text;
    size_t text_len;
    if (ofcd_ctl_wire_parse(answer, (size_t)n, &ok, &text, &text_len) < 0) {
        fprintf(stderr, "ofcdctl: %s: the answer was cut short (%zd bytes came)\n", path, n);
        free(answer);
        return EXIT_USAGE;
    }
    if (ok && save_to) {
        int rc = save_capture(text, text_len, save_to);
        free(answer);
        return rc;
    }
    if (ok) {
        fwrite(text, 1, text_len, stdout);
    } else {
        fputs("ofcdctl: ", stderr);
        fwrite(text, 1, text_len, stderr);
    }
    free(answer);
    return ok ? 0 : EXIT_ERROR_ANSWER;
}

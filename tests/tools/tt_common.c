/*
 * tt_common: clock, parsing and socket helpers of the TCP tools
 * (see tt_common.h). Called from each tool's option parsing and set-up.
 */
#include "tt_common.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

uint64_t tt_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * TT_NS_PER_S + (uint64_t)ts.tv_nsec;
}

int tt_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    char *end;
    unsigned long long v;

    if (s == NULL || *s < '0' || *s > '9')
        return -EINVAL;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max)
        return -EINVAL;
    *out = v;
    return 0;
}

int tt_parse_size(const char *s, uint64_t max, uint64_t *out)
{
    char *end;
    unsigned long long v;
    unsigned shift = 0;

    if (s == NULL || *s < '0' || *s > '9')
        return -EINVAL;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno != 0)
        return -EINVAL;
    switch (*end) {
    case '\0': break;
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: return -EINVAL;
    }
    if (*end != '\0' || v > (max >> shift))
        return -EINVAL;
    *out = (uint64_t)v << shift;
    return 0;
}

int tt_parse_seconds(const char *s, double *out)
{
    char *end;
    double v;

    if (s == NULL || *s == '\0')
        return -EINVAL;
    errno = 0;
    v = strtod(s, &end);
    if (errno != 0 || *end != '\0' || !isfinite(v) || v < 0)
        return -EINVAL;
    *out = v;
    return 0;
}

int tt_parse_addr(const char *addr, uint16_t port, struct sockaddr_in *out)
{
    memset(out, 0, sizeof(*out));
    out->sin_family = AF_INET;
    out->sin_port = htons(port);
    if (addr == NULL || inet_pton(AF_INET, addr, &out->sin_addr) != 1)
        return -EINVAL;
    return 0;
}

int tt_raise_nofile(uint64_t want)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return -errno;
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur >= want)
        return 0;
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want) {
        struct rlimit hard = { .rlim_cur = want, .rlim_max = want };

        /* Only root may raise the hard limit; fall back to what we have. */
        if (setrlimit(RLIMIT_NOFILE, &hard) == 0)
            return 0;
        rl.rlim_cur = rl.rlim_max;
        (void)setrlimit(RLIMIT_NOFILE, &rl);
        return -EMFILE;
    }
    rl.rlim_cur = want;
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
        return -errno;
    return 0;
}

int tt_tcp_socket(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

    return fd < 0 ? -errno : fd;
}

int tt_set_nodelay(int fd)
{
    int one = 1;

    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) != 0)
        return -errno;
    return 0;
}

int tt_set_linger0(int fd)
{
    struct linger lg = { .l_onoff = 1, .l_linger = 0 };

    if (setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)) != 0)
        return -errno;
    return 0;
}

int tt_signal_fd(void)
{
    sigset_t set;
    int fd;

    /* Writes to a reset peer must come back as EPIPE, not kill the tool. */
    signal(SIGPIPE, SIG_IGN);
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGUSR1);
    if (sigprocmask(SIG_BLOCK, &set, NULL) != 0)
        return -errno;
    fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

int tt_signal_read(int sfd)
{
    struct signalfd_siginfo si;
    ssize_t n = read(sfd, &si, sizeof(si));

    if (n != (ssize_t)sizeof(si))
        return 0;
    return (int)si.ssi_signo;
}

const char *tt_errname(int err)
{
    const char *name = strerrorname_np(err);

    return name != NULL ? name : "EUNKNOWN";
}

const char *tt_optname(const struct option *opts, int val)
{
    for (; opts->name != NULL; opts++)
        if (opts->val == val)
            return opts->name;
    return "?";
}

void tt_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s != '\0'; s++) {
        unsigned char c = (unsigned char)*s;

        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/*
 * tb_env: the epoll set, signal handling and connect helpers shared by the
 * tcp-bench measurements (see tb.h). Each measurement calls tb_wait() as the
 * one blocking point of its loop.
 */
#include "tb.h"

#include <errno.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tt_common.h"

#define TB_SIGNAL_TAG UINT64_MAX

int tb_env_init(struct tb_env *env)
{
    struct epoll_event ev = { .events = EPOLLIN, .data.u64 = TB_SIGNAL_TAG };

    env->interrupted = false;
    env->sfd = -1;
    env->ep = epoll_create1(EPOLL_CLOEXEC);
    if (env->ep < 0)
        return -errno;
    env->sfd = tt_signal_fd();
    if (env->sfd < 0)
        return env->sfd;
    if (epoll_ctl(env->ep, EPOLL_CTL_ADD, env->sfd, &ev) != 0)
        return -errno;
    return 0;
}

void tb_env_close(struct tb_env *env)
{
    if (env->sfd >= 0)
        close(env->sfd);
    if (env->ep >= 0)
        close(env->ep);
    env->sfd = env->ep = -1;
}

int tb_wait(struct tb_env *env, struct epoll_event *events, int max, uint64_t deadline_ns)
{
    uint64_t now = tt_now_ns();
    int ms = now >= deadline_ns ? 0 : (int)((deadline_ns - now + 999999) / 1000000);
    int n = epoll_wait(env->ep, events, max, ms), out = 0;

    if (n < 0)
        return errno == EINTR ? 0 : -errno;
    /* Compact the signal event out so callers only see their sockets. */
    for (int i = 0; i < n; i++) {
        if (events[i].data.u64 == TB_SIGNAL_TAG) {
            int sig;

            while ((sig = tt_signal_read(env->sfd)) != 0)
                if (sig != SIGUSR1)
                    env->interrupted = true;
            continue;
        }
        events[out++] = events[i];
    }
    return out;
}

int tb_connect_start(struct tb_env *env, const struct sockaddr_in *dst, uint64_t tag)
{
    struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
                              .data.u64 = tag };
    int fd = tt_tcp_socket(), err;

    if (fd < 0)
        return fd;
    (void)tt_set_nodelay(fd);
    if (epoll_ctl(env->ep, EPOLL_CTL_ADD, fd, &ev) != 0)
        goto fail;
    if (connect(fd, (const struct sockaddr *)dst, sizeof(*dst)) != 0 && errno != EINPROGRESS)
        goto fail;
    return fd;
fail:
    err = -errno;
    close(fd);
    return err;
}

int tb_connect_result(int fd, uint32_t events)
{
    int err = 0;
    socklen_t len = sizeof(err);

    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
        return errno;
    if (err == 0 && !(events & EPOLLOUT))
        err = ECONNRESET;
    return err;
}

/*
 * free_port: a loopback port for a test's own server (free_port.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "free_port.h"

uint16_t free_port(void)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t n = sizeof(a);
    int s = socket(AF_INET, SOCK_STREAM, 0);

    assert_true(s >= 0);
    assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(getsockname(s, (struct sockaddr *)&a, &n), 0);
    close(s);
    return ntohs(a.sin_port);
}

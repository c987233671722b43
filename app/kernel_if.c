/* kernel_if: see kernel_if.h. Plain ioctls: no netlink library needed for
 * one address and one flag. */
#include "kernel_if.h"

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

static int set_addr(int sock, const char *ifname, unsigned long req, uint32_t addr_host)
{
    struct ifreq ifr;
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(addr_host)};

    memset(&ifr, 0, sizeof(ifr));
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
    memcpy(&ifr.ifr_addr, &sin, sizeof(sin));
    return ioctl(sock, req, &ifr) < 0 ? -errno : 0;
}

int kernel_if_configure(int ifindex, uint32_t ip, uint8_t prefix_len, char *name_out,
                        size_t name_len, char *err, size_t errlen)
{
    char ifname[IF_NAMESIZE];
    struct ifreq ifr;
    int rc;

    if (!if_indextoname((unsigned)ifindex, ifname)) {
        rc = -errno;
        snprintf(err, errlen, "no kernel interface with index %d: %s", ifindex, strerror(-rc));
        return rc;
    }
    snprintf(name_out, name_len, "%s", ifname);

    int sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (sock < 0) {
        rc = -errno;
        snprintf(err, errlen, "socket: %s", strerror(-rc));
        return rc;
    }
    uint32_t mask = prefix_len ? ~0u << (32 - prefix_len) : 0;
    rc = set_addr(sock, ifname, SIOCSIFADDR, ip);
    if (rc < 0) {
        snprintf(err, errlen, "%s: set address: %s", ifname, strerror(-rc));
        goto out;
    }
    rc = set_addr(sock, ifname, SIOCSIFNETMASK, mask);
    if (rc < 0) {
        snprintf(err, errlen, "%s: set netmask: %s", ifname, strerror(-rc));
        goto out;
    }
    memset(&ifr, 0, sizeof(ifr));
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
    if (ioctl(sock, SIOCGIFFLAGS, &ifr) < 0) {
        rc = -errno;
        snprintf(err, errlen, "%s: get flags: %s", ifname, strerror(-rc));
        goto out;
    }
    /* The tap's kernel-to-ofcd queue is this interface's tx queue: the
     * default 1000 frames overflows when many peers send at once while an
     * io lcore sleeps in its idle backoff, and each overflow is a TCP loss. */
    memset(&ifr, 0, sizeof(ifr));
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
    ifr.ifr_qlen = KERNEL_IF_TXQUEUELEN;
    if (ioctl(sock, SIOCSIFTXQLEN, &ifr) < 0) {
        rc = -errno;
        snprintf(err, errlen, "%s: set txqueuelen: %s", ifname, strerror(-rc));
        goto out;
    }
    memset(&ifr, 0, sizeof(ifr));
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
    if (ioctl(sock, SIOCGIFFLAGS, &ifr) < 0) {
        rc = -errno;
        snprintf(err, errlen, "%s: get flags: %s", ifname, strerror(-rc));
        goto out;
    }
    ifr.ifr_flags |= IFF_UP;
    if (ioctl(sock, SIOCSIFFLAGS, &ifr) < 0) {
        rc = -errno;
        snprintf(err, errlen, "%s: bring up: %s", ifname, strerror(-rc));
        goto out;
    }
    rc = 0;
out:
    close(sock);
    return rc;
}

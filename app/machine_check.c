/* machine_check: see machine_check.h. */
#include "machine_check.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <dirent.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "eal_args.h"

#define MC_PATH 512
#define MC_TEXT 2048

struct mc {
    const char *root;
    machine_problem_fn fn;
    void *arg;
    int problems;
};

static void problem(struct mc *m, const char *what, const char *fix)
{
    m->problems++;
    m->fn(m->arg, what, fix);
}

static void path_of(const struct mc *m, char *out, const char *fmt, const char *a)
{
    char rel[MC_PATH];
    snprintf(rel, sizeof(rel), fmt, a);
    snprintf(out, MC_PATH, "%s%s", m->root, rel);
}

static bool exists(const struct mc *m, const char *fmt, const char *a)
{
    char p[MC_PATH];
    struct stat st;
    path_of(m, p, fmt, a);
    return stat(p, &st) == 0;
}

static bool eal_has(const struct eal_args *ea, const char *opt)
{
    for (int i = 1; i < ea->argc; i++)
        if (strcmp(ea->argv[i], opt) == 0)
            return true;
    return false;
}

/* ---- hugepages ----------------------------------------------------------------- */

/* MiB asked by -m N or --socket-mem a,b,...: 0 when neither. */
static unsigned long mem_asked(const struct eal_args *ea)
{
    unsigned long mb = 0;
    int i = 1;
    const char *v;

    while ((v = eal_args_next(ea, &i, NULL, "-m")))
        mb = strtoul(v, NULL, 10);
    i = 1;
    while ((v = eal_args_next(ea, &i, "--socket-mem", NULL))) {
        mb = 0;
        for (const char *p = v; *p; p++) {
            mb += strtoul(p, NULL, 10);
            p = strchr(p, ',');
            if (!p)
                break;
        }
    }
    return mb;
}

static unsigned long long read_ull(const char *path)
{
    FILE *f = fopen(path, "r");
    unsigned long long v = 0;
    if (f) {
        if (fscanf(f, "%llu", &v) != 1)
            v = 0;
        fclose(f);
    }
    return v;
}

/* Free hugepage memory of every size, in MiB (sysfs' pools). */
static unsigned long long huge_free_mb(const struct mc *m)
{
    char dir[MC_PATH], p[MC_PATH + 300];
    unsigned long long mb = 0;
    path_of(m, dir, "%s", "/sys/kernel/mm/hugepages");
    DIR *d = opendir(dir);
    struct dirent *e;

    while (d && (e = readdir(d))) {
        unsigned long long kb;
        if (sscanf(e->d_name, "hugepages-%llukB", &kb) != 1)
            continue;
        snprintf(p, sizeof(p), "%s/%s/free_hugepages", dir, e->d_name);
        mb += read_ull(p) * kb / 1024;
    }
    if (d)
        closedir(d);
    return mb;
}

static bool hugetlbfs_mounted(const struct mc *m)
{
    char p[MC_PATH], line[MC_TEXT], dev[128], where[256], type[64];
    path_of(m, p, "%s", "/proc/mounts");
    FILE *f = fopen(p, "r");
    bool yes = false;

    while (f && !yes && fgets(line, sizeof(line), f))
        yes = sscanf(line, "%127s %255s %63s", dev, where, type) == 3 &&
              strcmp(type, "hugetlbfs") == 0;
    if (f)
        fclose(f);
    return yes;
}

static void check_hugepages(struct mc *m, const struct eal_args *ea)
{
    char what[MC_TEXT];

    if (eal_has(ea, "--no-huge"))
        return;
    if (!hugetlbfs_mounted(m))
        problem(m, "eal.args use hugepages (no --no-huge) and no hugetlbfs is mounted",
                "mount -t hugetlbfs nodev /dev/hugepages (systemd's dev-hugepages.mount "
                "does it at boot)");
    unsigned long long free_mb = huge_free_mb(m);
    unsigned long asked = mem_asked(ea);
    if (free_mb == 0 || free_mb < asked) {
        if (asked)
            snprintf(what, sizeof(what), "eal.args use hugepages (no --no-huge) and ask for "
                     "%lu MiB; %llu MiB of hugepages are free", asked, free_mb);
        else
            snprintf(what, sizeof(what), "eal.args use hugepages (no --no-huge) and none "
                     "are free");
        problem(m, what, "reserve them: echo 1024 > /proc/sys/vm/nr_hugepages (2 GiB of 2 MiB "
                "pages; kept across boots by `ofcd setup` in /etc/dpdk/dpdk.conf), or run on "
                "ordinary memory with --no-huge -m 512 in eal.args");
    }
}

/* ---- PCI devices --------------------------------------------------------------- */

/* "03:00.0" -> "0000:03:00.0"; devargs after ',' dropped. */
static void pci_norm(const char *in, char *out, size_t n)
{
    char a[48];
    snprintf(a, sizeof(a), "%s", in);
    a[strcspn(a, ",")] = '\0';
    for (char *p = a; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    if (strchr(a, ':') == strrchr(a, ':'))
        snprintf(out, n, "0000:%s", a);
    else
        snprintf(out, n, "%s", a);
}

static bool driver_is(const char *drv, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(drv, *list) == 0)
            return true;
    return false;
}

/* The kernel interfaces of a PCI device (net/, or a virtio child's). */
static void pci_ifaces(const struct mc *m, const char *addr, char *out, size_t n)
{
    char dir[MC_PATH], sub[MC_PATH + 300];
    size_t used = 0;
    path_of(m, dir, "/sys/bus/pci/devices/%s", addr);
    DIR *d = opendir(dir);
    struct dirent *e;

    out[0] = '\0';
    while (d && (e = readdir(d))) {
        if (strcmp(e->d_name, "net") == 0)
            snprintf(sub, sizeof(sub), "%s/net", dir);
        else if (strncmp(e->d_name, "virtio", 6) == 0)
            snprintf(sub, sizeof(sub), "%s/%s/net", dir, e->d_name);
        else
            continue;
        DIR *nd = opendir(sub);
        struct dirent *ne;
        while (nd && (ne = readdir(nd)))
            if (ne->d_name[0] != '.' && used + strlen(ne->d_name) + 2 < n)
                used += (size_t)snprintf(out + used, n - used, "%s%s", used ? " " : "",
                                         ne->d_name);
        if (nd)
            closedir(nd);
    }
    if (d)
        closedir(d);
}

static void check_pci(struct mc *m, const struct eal_args *ea)
{
    static const char *const dpdk_drivers[] = {"vfio-pci", "uio_pci_generic", "igb_uio", NULL};
    static const char *const bifurcated[] = {"mlx4_core", "mlx5_core", NULL};
    char addr[64], p[MC_PATH], link[MC_PATH], what[MC_TEXT], fix[MC_TEXT], ifs[128];
    const char *v;

    for (int pass = 0; pass < 2; pass++) {
        int i = 1;
        while ((v = pass == 0 ? eal_args_next(ea, &i, "--allow", "-a")
                              : eal_args_next(ea, &i, NULL, "-w"))) {
            pci_norm(v, addr, sizeof(addr));
            if (!exists(m, "/sys/bus/pci/devices/%s", addr)) {
                snprintf(what, sizeof(what), "PCI device %s (eal.args) is not on this machine",
                         addr);
                problem(m, what, "`ofcd setup` lists this machine's NICs with their PCI "
                        "addresses");
                continue;
            }
            path_of(m, p, "/sys/bus/pci/devices/%s/driver", addr);
            ssize_t n = readlink(p, link, sizeof(link) - 1);
            const char *drv = NULL;
            if (n > 0) {
                link[n] = '\0';
                drv = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
            }
            snprintf(fix, sizeof(fix), "bind it to vfio-pci: dpdk-devbind.py --bind=vfio-pci %s "
                     "(and list it in /etc/dpdk/interfaces for boot), or run `ofcd setup`", addr);
            if (!drv) {
                snprintf(what, sizeof(what), "PCI device %s is bound to no driver", addr);
                problem(m, what, fix);
                continue;
            }
            if (driver_is(drv, bifurcated))
                continue;
            if (!driver_is(drv, dpdk_drivers)) {
                pci_ifaces(m, addr, ifs, sizeof(ifs));
                snprintf(what, sizeof(what), "PCI device %s is driven by the kernel's %s%s%s%s",
                         addr, drv, ifs[0] ? " (interface " : "", ifs, ifs[0] ? ")" : "");
                problem(m, what, fix);
                continue;
            }
            if (strcmp(drv, "vfio-pci") == 0 &&
                (!exists(m, "/sys/bus/pci/devices/%s/iommu_group", addr) ||
                 !exists(m, "%s", "/dev/vfio/vfio"))) {
                snprintf(what, sizeof(what), "PCI device %s is bound to vfio-pci but has no "
                         "IOMMU group (or /dev/vfio/vfio is missing)", addr);
                problem(m, what, "turn the IOMMU on: intel_iommu=on iommu=pt (AMD: iommu=pt) "
                        "on the kernel command line, then reboot; check with ls "
                        "/sys/kernel/iommu_groups");
            }
        }
    }
}

/* ---- virtual devices ----------------------------------------------------------- */

static void check_vdevs(struct mc *m, const struct eal_args *ea)
{
    char what[MC_TEXT], iface[64];
    const char *v;
    int i = 1;

    while ((v = eal_args_next(ea, &i, "--vdev", NULL))) {
        if (strncmp(v, "net_tap", 7) == 0 && !exists(m, "%s", "/dev/net/tun")) {
            snprintf(what, sizeof(what), "%s needs /dev/net/tun and there is none", v);
            problem(m, what, "modprobe tun (and in a container: give it /dev/net/tun)");
        }
        const char *ifp = strstr(v, "iface=");
        if ((strncmp(v, "net_af_packet", 13) == 0 || strncmp(v, "net_af_xdp", 10) == 0) && ifp) {
            snprintf(iface, sizeof(iface), "%s", ifp + 6);
            iface[strcspn(iface, ",")] = '\0';
            if (!exists(m, "/sys/class/net/%s", iface)) {
                snprintf(what, sizeof(what), "%s names interface %s, which this machine "
                         "lacks", v, iface);
                problem(m, what, "ip -br link lists the interfaces; fix iface= in eal.args");
            }
        }
    }
}

/* ---- the data directory and the REST port -------------------------------------- */

static void check_data_dir(struct mc *m, const char *dir)
{
    char p[MC_PATH], what[MC_TEXT], fix[MC_TEXT];
    struct stat st;

    snprintf(p, sizeof(p), "%s", dir);
    /* The nearest part of it that exists must let this user in and write. */
    while (stat(p, &st) != 0) {
        char *slash = strrchr(p, '/');
        if (!slash || slash == p) {
            snprintf(p, sizeof(p), "%s", slash == p ? "/" : ".");
            break;
        }
        *slash = '\0';
    }
    if (stat(p, &st) == 0 && !S_ISDIR(st.st_mode)) {
        snprintf(what, sizeof(what), "app.data_dir %s cannot be made: %s is not a directory",
                 dir, p);
        problem(m, what, "point app.data_dir at a directory (the package's: /var/lib/ofcd)");
        return;
    }
    if (access(p, W_OK | X_OK) != 0) {
        snprintf(what, sizeof(what), "app.data_dir %s: %s is not writable by uid %u (%s)", dir,
                 p, (unsigned)geteuid(), strerror(errno));
        snprintf(fix, sizeof(fix), "chown %u %s, or run as its owner (the package's service "
                 "runs as ofcd, which owns /var/lib/ofcd)", (unsigned)geteuid(), p);
        problem(m, what, fix);
    }
}

static void check_rest_port(struct mc *m, uint32_t ip, uint16_t port)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port),
                            .sin_addr.s_addr = htonl(ip)};
    char what[MC_TEXT], fix[MC_TEXT], txt[INET_ADDRSTRLEN];
    int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    if (fd < 0)
        return;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    int rc = bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 ? 0 : errno;
    close(fd);
    if (rc == 0)
        return;
    inet_ntop(AF_INET, &a.sin_addr, txt, sizeof(txt));
    snprintf(what, sizeof(what), "rest.listen %s:%u cannot be bound: %s", txt, (unsigned)port,
             strerror(rc));
    if (rc == EADDRINUSE)
        snprintf(fix, sizeof(fix), "another program listens there (ss -ltnp 'sport = :%u' "
                 "names it, maybe another ofcd): stop it or change rest.listen",
                 (unsigned)port);
    else if (rc == EACCES)
        snprintf(fix, sizeof(fix), "a port below 1024 needs CAP_NET_BIND_SERVICE (the "
                 "package's service has it) or a port above 1023");
    else
        snprintf(fix, sizeof(fix), "rest.listen must be an address of this machine "
                 "(ip -br addr)");
    problem(m, what, fix);
}

int machine_check(const struct ofcd_config *cfg, const char *root, machine_problem_fn fn,
                  void *arg)
{
    struct mc m = {.root = root ? root : "", .fn = fn, .arg = arg};
    struct eal_args ea;

    if (eal_args_build(&ea, "ofcd", cfg->eal_args) < 0)
        return -EINVAL;
    check_hugepages(&m, &ea);
    check_pci(&m, &ea);
    check_vdevs(&m, &ea);
    check_data_dir(&m, cfg->data_dir);
    check_rest_port(&m, cfg->rest_ip, cfg->rest_port);
    return m.problems;
}

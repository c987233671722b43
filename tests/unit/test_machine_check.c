/* machine_check against a fake machine: a directory laid out as /sys,
 * /proc and /dev are, built per case. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cfg.h"
#include "machine_check.h"

struct fake {
    char root[64];
    char seen[4096];        /* every problem, "what | fix" lines */
    struct ofcd_config cfg;
};

/* root/rel into p; a path that does not fit fails the test. */
static void join(char *p, size_t cap, const char *root, const char *rel)
{
    int n = snprintf(p, cap, "%s/%s", root, rel);
    assert_true(n > 0 && (size_t)n < cap);
}

static void mkpath(const char *root, const char *rel)
{
    char p[512], *s;
    join(p, sizeof(p), root, rel);
    for (s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
        *s = '\0';
        mkdir(p, 0755);
        *s = '/';
    }
    mkdir(p, 0755);
}

static void put(const char *root, const char *rel, const char *text)
{
    char p[512], dir[512];
    snprintf(dir, sizeof(dir), "%s", rel);
    *strrchr(dir, '/') = '\0';
    mkpath(root, dir);
    join(p, sizeof(p), root, rel);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void link_to(const char *root, const char *rel, const char *target)
{
    char p[512], dir[512];
    snprintf(dir, sizeof(dir), "%s", rel);
    *strrchr(dir, '/') = '\0';
    mkpath(root, dir);
    join(p, sizeof(p), root, rel);
    assert_int_equal(symlink(target, p), 0);
}

/* A NIC at addr bound to drv (NULL: none), with iface when the kernel drives it. */
static void nic(struct fake *f, const char *addr, const char *drv, const char *iface)
{
    char rel[256], tgt[256];
    snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/vendor", addr);
    put(f->root, rel, "0x8086\n");
    if (drv) {
        snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/driver", addr);
        snprintf(tgt, sizeof(tgt), "../../../bus/pci/drivers/%s", drv);
        link_to(f->root, rel, tgt);
    }
    if (iface) {
        snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/net/%s", addr, iface);
        mkpath(f->root, rel);
    }
}

static void iommu(struct fake *f, const char *addr)
{
    char rel[256], tgt[256];
    mkpath(f->root, "sys/kernel/iommu_groups/7");
    snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/iommu_group", addr);
    snprintf(tgt, sizeof(tgt), "%s/sys/kernel/iommu_groups/7", f->root);
    link_to(f->root, rel, tgt);
}

static void collect(void *arg, const char *what, const char *fix)
{
    struct fake *f = arg;
    size_t n = strlen(f->seen);
    snprintf(f->seen + n, sizeof(f->seen) - n, "%s | %s\n", what, fix);
}

static int run(struct fake *f, const char *eal)
{
    snprintf(f->cfg.eal_args, sizeof(f->cfg.eal_args), "%s", eal);
    f->seen[0] = '\0';
    return machine_check(&f->cfg, f->root, collect, f);
}

/* A machine set up right: hugetlbfs, 2 GiB of 2 MiB pages free, /dev/net/tun,
 * /dev/vfio/vfio; data_dir inside the fake root; port 0 always binds. */
static int setup(void **state)
{
    struct fake *f = calloc(1, sizeof(*f));
    snprintf(f->root, sizeof(f->root), "/tmp/ofcd-test-machine.XXXXXX");
    assert_non_null(mkdtemp(f->root));
    put(f->root, "proc/mounts", "sysfs /sys sysfs rw 0 0\nhugetlbfs /dev/hugepages hugetlbfs "
        "rw,relatime,pagesize=2M 0 0\n");
    put(f->root, "sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "1024\n");
    put(f->root, "sys/kernel/mm/hugepages/hugepages-1048576kB/free_hugepages", "0\n");
    put(f->root, "dev/net/tun", "");
    put(f->root, "dev/vfio/vfio", "");
    mkpath(f->root, "sys/class/net/veth0");
    cfg_defaults(&f->cfg);
    snprintf(f->cfg.data_dir, sizeof(f->cfg.data_dir), "%s/var/lib/ofcd", f->root);
    f->cfg.rest_port = 0;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fake *f = *state;
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", f->root);
    assert_int_equal(system(cmd), 0);
    free(f);
    return 0;
}

static void test_all_well(void **state)
{
    struct fake *f = *state;

    nic(f, "0000:03:00.0", "vfio-pci", NULL);
    iommu(f, "0000:03:00.0");
    nic(f, "0000:04:00.0", "mlx5_core", "enp4s0");
    int n = run(f, "-l 0-1 -m 1024 -a 03:00.0 --allow=0000:04:00.0,txq_inline=0 "
                   "--vdev=net_tap0,iface=ofc0 --vdev net_af_packet0,iface=veth0");
    assert_string_equal(f->seen, "");
    assert_int_equal(n, 0);
    /* The default configuration: a tap on ordinary memory. */
    assert_int_equal(run(f, "--no-huge -m 512 --no-pci --vdev=net_tap0,iface=ofc0"), 0);
}

static void test_hugepages(void **state)
{
    struct fake *f = *state;

    put(f->root, "sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "100\n");
    assert_int_equal(run(f, "-m 1024 --vdev=net_tap0"), 1);
    assert_non_null(strstr(f->seen, "ask for 1024 MiB; 200 MiB of hugepages are free"));
    assert_non_null(strstr(f->seen, "/proc/sys/vm/nr_hugepages"));
    assert_int_equal(run(f, "--socket-mem 100,100 --vdev=net_tap0"), 0);
    assert_int_equal(run(f, "--socket-mem=150,100 --vdev=net_tap0"), 1);
    put(f->root, "sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "0\n");
    assert_int_equal(run(f, "--vdev=net_tap0"), 1);
    assert_non_null(strstr(f->seen, "no --no-huge) and none are free"));
    put(f->root, "proc/mounts", "sysfs /sys sysfs rw 0 0\n");
    assert_int_equal(run(f, "--vdev=net_tap0"), 2);
    assert_non_null(strstr(f->seen, "no hugetlbfs is mounted"));
    /* --no-huge: none of it matters. */
    assert_int_equal(run(f, "--no-huge -m 512 --vdev=net_tap0"), 0);
}

static void test_nics(void **state)
{
    struct fake *f = *state;

    nic(f, "0000:03:00.0", "ixgbe", "enp3s0f0");
    nic(f, "0000:03:00.1", NULL, NULL);
    nic(f, "0000:05:00.0", "vfio-pci", NULL);          /* no IOMMU group */
    assert_int_equal(run(f, "--no-huge -a 0000:03:00.0 -a03:00.1 -w 0000:05:00.0 "
                            "-a 0000:09:00.0"), 4);
    assert_non_null(strstr(f->seen, "PCI device 0000:03:00.0 is driven by the kernel's ixgbe "
                                    "(interface enp3s0f0) | bind it to vfio-pci: dpdk-devbind.py "
                                    "--bind=vfio-pci 0000:03:00.0"));
    assert_non_null(strstr(f->seen, "PCI device 0000:03:00.1 is bound to no driver"));
    assert_non_null(strstr(f->seen, "PCI device 0000:05:00.0 is bound to vfio-pci but has no "
                                    "IOMMU group"));
    assert_non_null(strstr(f->seen, "intel_iommu=on"));
    assert_non_null(strstr(f->seen, "PCI device 0000:09:00.0 (eal.args) is not on this machine"));
}

static void test_vdevs_and_dirs(void **state)
{
    struct fake *f = *state;
    char p[512];

    snprintf(p, sizeof(p), "%s/dev/net/tun", f->root);
    unlink(p);
    assert_int_equal(run(f, "--no-huge --vdev=net_tap0,iface=ofc0 "
                            "--vdev=net_af_xdp0,iface=eth9,start_queue=0"), 2);
    assert_non_null(strstr(f->seen, "net_tap0,iface=ofc0 needs /dev/net/tun"));
    assert_non_null(strstr(f->seen, "names interface eth9, which this machine lacks"));

    /* A data_dir below a file can never be made. */
    put(f->root, "etc/file", "x");
    snprintf(f->cfg.data_dir, sizeof(f->cfg.data_dir), "%s/etc/file/var", f->root);
    assert_int_equal(run(f, "--no-huge"), 1);
    assert_non_null(strstr(f->seen, "/etc/file is not a directory"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_all_well, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hugepages, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nics, setup, teardown),
        cmocka_unit_test_setup_teardown(test_vdevs_and_dirs, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

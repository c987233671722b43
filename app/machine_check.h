/*
 * machine_check: whether this machine can run the configuration, asked
 * before anything starts — `ofcd --check-machine`, the service's
 * ExecStartPre. Each problem is reported once, with the fix an operator
 * types; nothing is changed.
 *
 * What it looks at:
 *  - eal.args without --no-huge: a hugetlbfs mounted and hugepages free,
 *    as many MiB as -m or --socket-mem ask (any at all without them)
 *  - each PCI device of -a/--allow/-w: present, bound to a driver DPDK can
 *    drive (vfio-pci, uio_pci_generic, igb_uio, or the bifurcated mlx4_core
 *    and mlx5_core), and for vfio-pci an IOMMU group and /dev/vfio/vfio
 *  - a net_tap vdev: /dev/net/tun; a net_af_packet or net_af_xdp vdev: its
 *    iface= present
 *  - app.data_dir: a directory this user may write, or one it may create
 *  - rest.listen: its address and port free to bind (this user's rights)
 *
 * root: "" for this machine, or a directory laid out like one (proc/meminfo,
 * proc/mounts, sys/bus/pci/devices/ADDR/{driver,iommu_group,net},
 * sys/kernel/mm/hugepages, sys/class/net, dev/net/tun, dev/vfio/vfio) that
 * the tests build. data_dir and the port are always the real ones.
 */
#ifndef OFCD_MACHINE_CHECK_H
#define OFCD_MACHINE_CHECK_H

#include "cfg.h"

/* One problem: what is wrong, and what to do about it. */
typedef void (*machine_problem_fn)(void *arg, const char *what, const char *fix);

/* How many problems (0: the machine can run cfg), or -EINVAL when
 * eal.args cannot be split (cfg_finish has refused that already). */
int machine_check(const struct ofcd_config *cfg, const char *root, machine_problem_fn fn,
                  void *arg);

#endif

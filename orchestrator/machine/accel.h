/*
 * accel.h - which accelerator a hypervisor host really has.
 *
 * "/dev/kvm exists" proves nothing (on some hosts a KVM guest hangs at
 * "Booting from ROM"), so accel: auto boots a short probe guest with KVM and
 * a deadline, and takes KVM only if the kernel got as far as printing its
 * banner on the console. Otherwise TCG. The answer is remembered per host
 * (libvirt URI) in a file under the state directory, so the probe runs once.
 */
#ifndef FL_ACCEL_H
#define FL_ACCEL_H

#include <stdint.h>

struct fl_machine_conf;

struct fl_accel_probe {
	const char *uri;
	const char *kernel; /* any bootable kernel and initramfs */
	const char *initrd;
	const char *state_dir; /* the answer is kept in <state_dir>/accel/ */
	int64_t deadline_ms;
	const struct fl_machine_conf *machine; /* its pool takes the probe's files; may be NULL */
};

/*
 * wanted is the machine's accel: "kvm" and "tcg" are taken as they are,
 * "auto" is probed. *accel points at a static "kvm" or "tcg"; *probed says
 * whether a probe guest ran (0: given or remembered).
 */
int fl_accel_resolve(const char *wanted, const struct fl_accel_probe *p, const char **accel,
		     int *probed);

#endif

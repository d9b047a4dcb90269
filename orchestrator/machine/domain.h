/*
 * domain.h - libvirt domain XML for one benchmark run.
 *
 * A machine entry (sockets, cores, threads, memory per node, distances)
 * becomes a guest whose NUMA topology the kernel really sees: one <cell> per
 * socket, ACPI on so the guest gets an SRAT, direct kernel boot from paths
 * on the guest's host, the serial console on a pty that libvirt hands out as
 * a stream (guest.h), and every way out of the guest (power-off, reboot,
 * crash) destroying the domain so no guest outlives its run.
 */
#ifndef FL_DOMAIN_H
#define FL_DOMAIN_H

struct fl_machine_conf;

struct fl_domain_spec {
	const char *name; /* unique per run: transient domains must not collide */
	const struct fl_machine_conf *machine;
	const char *accel; /* resolved: "kvm" or "tcg" */
	const char *kernel; /* in the XML: paths on the host (guest.c uploads them there) */
	const char *initrd;
	const char *console_path; /* guest.c writes the console here (not in the XML) */
	const char *job;	  /* appended to the command line as fl.job=JOB */
	int profile;		  /* kernel has CONFIG_PROFILING: boot with profile=2 */
};

/* The domain XML (caller frees), or FL_EINVAL naming what is missing. */
int fl_domain_xml(const struct fl_domain_spec *spec, char **xml);

/* The kernel command line the XML carries. */
char *fl_domain_cmdline(const struct fl_domain_spec *spec);

#endif

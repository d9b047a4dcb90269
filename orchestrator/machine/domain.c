/* domain.c - builds libvirt domain XML from a machine entry (see domain.h). */
#include "machine/domain.h"
#include "lib/buf.h"
#include "config/config.h"
#include "lib/error.h"
#include "lib/html.h"

#include <stdlib.h>
#include <string.h>

char *fl_domain_cmdline(const struct fl_domain_spec *spec)
{
	fl_buf b = FL_BUF_INIT;

	/* panic=-1: a panicking guest reboots at once, and reboot destroys it.
	 * cryptomgr.notests: the crypto self-tests a distribution kernel runs
	 * at boot took 0.47 s of a 2.5 s TCG boot and say nothing about its
	 * performance (cryptomgr.notests=0 in a machine's cmdline turns them
	 * back on).
	 * no_timer_check: under TCG on a loaded host the kernel's check that the
	 * IO-APIC timer ticks can time out and panic ("IO-APIC + timer doesn't
	 * work"); seen once in run_libvirt on 2 busy cores. */
	fl_buf_adds(&b, "console=ttyS0 panic=-1 rdinit=/init cryptomgr.notests no_timer_check");
	/* profile=2: 4-byte buckets. Functions start 16-byte aligned in -O2
	 * builds, so each bucket holds one function and the profile is exact
	 * at function level; in -Os builds (tinyconfig) a bucket can straddle
	 * a function start, which moves at most 3 bytes' worth of hits to the
	 * previous function. The buffer is as many bytes as the kernel text
	 * (15 MB for Debian's cloud kernel), read once per point. */
	if (spec->profile)
		fl_buf_adds(&b, " profile=2");
	/* The machine's own arguments come after ours, so they can override them. */
	if (spec->machine && spec->machine->cmdline && *spec->machine->cmdline)
		fl_buf_addf(&b, " %s", spec->machine->cmdline);
	if (spec->job)
		fl_buf_addf(&b, " fl.job=%s", spec->job);
	return fl_buf_detach(&b);
}

static void add_cells(fl_buf *b, const struct fl_machine_conf *m)
{
	unsigned per_node = m->cores * m->threads;

	fl_buf_adds(b, "    <numa>\n");
	for (unsigned n = 0; n < m->sockets; n++) {
		fl_buf_addf(b, "      <cell id='%u' cpus='%u-%u' memory='%llu' unit='KiB'", n,
			    n * per_node, (n + 1) * per_node - 1,
			    (unsigned long long)(m->memory_per_node >> 10));
		if (!m->ndistances) {
			fl_buf_adds(b, "/>\n");
			continue;
		}
		fl_buf_adds(b, ">\n        <distances>\n");
		for (unsigned j = 0; j < m->sockets; j++)
			fl_buf_addf(b, "          <sibling id='%u' value='%u'/>\n", j,
				    m->distances[n * m->sockets + j]);
		fl_buf_adds(b, "        </distances>\n      </cell>\n");
	}
	fl_buf_adds(b, "    </numa>\n");
}

static void add_os(fl_buf *b, const struct fl_domain_spec *spec)
{
	char *cmdline = fl_domain_cmdline(spec);

	fl_buf_adds(b, "  <os>\n    <type arch='x86_64'>hvm</type>\n    <kernel>");
	fl_html_text(b, spec->kernel);
	fl_buf_adds(b, "</kernel>\n    <initrd>");
	fl_html_text(b, spec->initrd);
	fl_buf_adds(b, "</initrd>\n    <cmdline>");
	fl_html_text(b, cmdline);
	fl_buf_adds(b, "</cmdline>\n  </os>\n");
	free(cmdline);
}

int fl_domain_xml(const struct fl_domain_spec *spec, char **xml)
{
	const struct fl_machine_conf *m = spec->machine;
	unsigned vcpus;
	fl_buf b = FL_BUF_INIT;

	*xml = NULL;
	if (!m || !spec->name || !spec->kernel || !spec->initrd || !spec->console_path)
		return fl_error_set(FL_EINVAL, "domain XML: machine, name, kernel, initrd and "
					       "console path are all needed");
	if (!spec->accel || (strcmp(spec->accel, "kvm") && strcmp(spec->accel, "tcg")))
		return fl_error_set(FL_EINVAL, "machine '%s': accelerator must be resolved to kvm "
					       "or tcg, got '%s'",
				    m->name, spec->accel ? spec->accel : "(none)");
	vcpus = fl_config_machine_cpus(m);
	fl_buf_addf(&b, "<domain type='%s'>\n  <name>", strcmp(spec->accel, "kvm") ? "qemu" : "kvm");
	fl_html_text(&b, spec->name);
	fl_buf_addf(&b, "</name>\n  <memory unit='KiB'>%llu</memory>\n  <vcpu>%u</vcpu>\n",
		    (unsigned long long)((m->memory_per_node >> 10) * m->sockets), vcpus);
	add_os(&b, spec);
	/* Without ACPI libvirt passes -no-acpi: no SRAT, so the guest sees no nodes. */
	fl_buf_adds(&b, "  <features><acpi/><apic/></features>\n");
	fl_buf_addf(&b, "  <cpu>\n    <topology sockets='%u' dies='1' cores='%u' threads='%u'/>\n",
		    m->sockets, m->cores, m->threads);
	add_cells(&b, m);
	fl_buf_adds(&b, "  </cpu>\n"
			"  <on_poweroff>destroy</on_poweroff>\n"
			"  <on_reboot>destroy</on_reboot>\n"
			"  <on_crash>destroy</on_crash>\n"
			"  <devices>\n"
			"    <serial type='pty'>\n      <target port='0'/>\n    </serial>\n"
			"    <console type='pty'>\n      <target type='serial' port='0'/>\n"
			"    </console>\n"
			"    <memballoon model='none'/>\n"
			"  </devices>\n</domain>\n");
	*xml = fl_buf_detach(&b);
	return 0;
}

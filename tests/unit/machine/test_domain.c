/*
 * test_domain.c - the domain XML is accepted by libvirt itself: each shape is
 * created on the test:///default driver (no daemon needed) and read back
 * with virDomainGetXMLDesc, which must show the topology and the NUMA cells.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "machine/domain.h"
#include "lib/error.h"

static void quiet(void *data, virErrorPtr err)
{
	(void)data;
	(void)err;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static char *roundtrip(const struct fl_domain_spec *spec)
{
	virConnectPtr conn = virConnectOpen("test:///default");
	virDomainPtr dom;
	char *xml, *desc;

	assert_non_null(conn);
	assert_int_equal(fl_domain_xml(spec, &xml), 0);
	dom = virDomainCreateXML(conn, xml, 0);
	if (!dom)
		fail_msg("libvirt refused the XML: %s\n%s", virGetLastErrorMessage(), xml);
	desc = virDomainGetXMLDesc(dom, 0);
	assert_non_null(desc);
	virDomainDestroy(dom);
	virDomainFree(dom);
	virConnectClose(conn);
	free(xml);
	return desc;
}

static void test_eight_sockets(void **state)
{
	struct fl_machine_conf m = {.name = "numa8", .sockets = 8, .cores = 1, .threads = 1,
				    .memory_per_node = 256ULL << 20};
	struct fl_domain_spec spec = {"fl-run-1", &m, "tcg", "/boot/vmlinuz", "/tmp/initrd.cpio",
				      "/tmp/console.log", "page_fault2", 1};
	char *desc;

	(void)state;
	desc = roundtrip(&spec);
	assert_non_null(strstr(desc, "<vcpu placement='static'>8</vcpu>"));
	assert_non_null(strstr(desc, "sockets='8'"));
	assert_int_equal(count(desc, "<cell "), 8);
	assert_non_null(strstr(desc, "<cell id='7' cpus='7' memory='262144' unit='KiB'/>"));
	assert_non_null(strstr(desc, "<on_poweroff>destroy</on_poweroff>"));
	assert_non_null(strstr(desc, "<on_reboot>destroy</on_reboot>"));
	assert_non_null(strstr(desc, "<on_crash>destroy</on_crash>"));
	assert_non_null(strstr(desc, "<acpi/>"));
	assert_non_null(strstr(desc, "console=ttyS0 panic=-1 rdinit=/init cryptomgr.notests "
				     "no_timer_check profile=2 fl.job=page_fault2"));
	/* The console is a pty that libvirt streams (a remote host has no file of ours). */
	assert_non_null(strstr(desc, "<serial type='pty'>"));
	assert_non_null(strstr(desc, "<console type='pty'>"));
	assert_null(strstr(desc, "console.log"));
	assert_non_null(strstr(desc, "<domain type='qemu'"));
	free(desc);
}

static void test_two_sockets_with_distances(void **state)
{
	unsigned dist[4] = {10, 21, 21, 10};
	struct fl_machine_conf m = {.name = "numa2", .sockets = 2, .cores = 2, .threads = 2,
				    .memory_per_node = 512ULL << 20, .distances = dist,
				    .ndistances = 4};
	struct fl_domain_spec spec = {"fl-run-'<2>'", &m, "kvm", "/k", "/i", "/c", NULL, 0};
	char *desc;

	(void)state;
	desc = roundtrip(&spec);
	assert_non_null(strstr(desc, "<vcpu placement='static'>8</vcpu>"));
	assert_non_null(strstr(desc, "sockets='2' dies='1' cores='2' threads='2'"));
	assert_non_null(strstr(desc, "<cell id='0' cpus='0-3' memory='524288' unit='KiB'>"));
	assert_non_null(strstr(desc, "<cell id='1' cpus='4-7' memory='524288' unit='KiB'>"));
	assert_non_null(strstr(desc, "<sibling id='1' value='21'/>"));
	assert_non_null(strstr(desc, "<domain type='kvm'"));
	assert_non_null(strstr(desc, "<name>fl-run-&apos;&lt;2&gt;&apos;</name>"));
	assert_null(strstr(desc, "profile=2"));
	free(desc);
}

/* The machine's own arguments follow ours (so they override), the job comes last. */
static void test_machine_cmdline_and_job(void **state)
{
	struct fl_machine_conf m = {.name = "numa2", .sockets = 2, .cores = 1, .threads = 1,
				    .memory_per_node = 1ULL << 28,
				    .cmdline = "mitigations=off rdinit=/nonexistent"};
	struct fl_domain_spec spec = {"fl-h-1-2", &m, "tcg", "/k", "/i", "/c",
				      "test=page_fault2;tasks=1,100%;hang=1", 0};
	char *desc, *cmdline = fl_domain_cmdline(&spec);

	(void)state;
	assert_string_equal(cmdline, "console=ttyS0 panic=-1 rdinit=/init cryptomgr.notests "
				     "no_timer_check mitigations=off rdinit=/nonexistent "
				     "fl.job=test=page_fault2;tasks=1,100%;hang=1");
	desc = roundtrip(&spec);
	assert_non_null(strstr(desc, cmdline));
	free(desc);
	free(cmdline);
}

static void test_refuses_unresolved_accel(void **state)
{
	struct fl_machine_conf m = {.name = "numa2", .sockets = 2, .cores = 1, .threads = 1,
				    .memory_per_node = 1ULL << 28};
	struct fl_domain_spec spec = {"x", &m, "auto", "/k", "/i", "/c", NULL, 0};
	char *xml;

	(void)state;
	assert_int_equal(fl_domain_xml(&spec, &xml), FL_EINVAL);
	assert_null(xml);
	assert_string_equal(fl_error_last(), "machine 'numa2': accelerator must be resolved to "
					     "kvm or tcg, got 'auto'");
	spec.accel = "tcg";
	spec.kernel = NULL;
	assert_int_equal(fl_domain_xml(&spec, &xml), FL_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eight_sockets),
		cmocka_unit_test(test_two_sockets_with_distances),
		cmocka_unit_test(test_machine_cmdline_and_job),
		cmocka_unit_test(test_refuses_unresolved_accel),
	};
	virSetErrorFunc(NULL, quiet);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

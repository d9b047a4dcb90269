/*
 * test_guest.c - real guests through libvirtd: a kernel that panics ends by
 * itself (panic=-1 reboots, reboot destroys) with the panic on the console;
 * a guest still booting at its deadline is destroyed; neither leaves a
 * domain behind. FL_TEST_KERNEL names the kernel (tests/integration/guest.sh
 * fetches Debian's and starts libvirtd).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <libvirt/libvirt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/buf.h"
#include "lib/cancel.h"
#include "config/config.h"
#include "machine/domain.h"
#include "lib/error.h"
#include "testlib.h"
#include "machine/accel.h"
#include "machine/guest.h"

#define URI "qemu:///system"

static char dir[64], initrd[128], console[128];

/* An initramfs holding nothing: the kernel finds no init and panics. */
static void write_empty_initrd(const char *path)
{
	const char *name = "TRAILER!!!";
	FILE *f = fopen(path, "wb");
	size_t len;

	assert_non_null(f);
	len = (size_t)fprintf(f, "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X", 0, 0,
			      0, 0, 1, 0, 0, 0, 0, 0, 0, (unsigned)strlen(name) + 1, 0);
	len += (size_t)fprintf(f, "%s", name) + 1;
	fputc('\0', f);
	while (len++ % 512)
		fputc('\0', f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	if (fl_test_tmpdir(dir, sizeof(dir), "guest"))
		return -1;
	snprintf(initrd, sizeof(initrd), "%s/empty.cpio", dir);
	snprintf(console, sizeof(console), "%s/console.log", dir);
	write_empty_initrd(initrd);
	fl_cancel_catch(0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return fl_test_rmtree(dir);
}

static void collect(const char *data, size_t len, void *arg)
{
	fl_buf_add(arg, data, len);
}

static int domain_exists(const char *name)
{
	virConnectPtr conn = virConnectOpen(URI);
	virDomainPtr dom;
	int found;

	assert_non_null(conn);
	dom = virDomainLookupByName(conn, name);
	found = dom != NULL;
	if (dom)
		virDomainFree(dom);
	virConnectClose(conn);
	return found;
}

static void run(unsigned sockets, int64_t deadline, const char *name, enum fl_guest_end *end,
		fl_buf *out)
{
	struct fl_machine_conf m = {.name = "t",
				    .sockets = sockets,
				    .cores = 1,
				    .threads = 1,
				    .memory_per_node = 256ULL << 20};
	struct fl_domain_spec spec = {name,   &m,      "tcg", getenv("FL_TEST_KERNEL"),
				      initrd, console, NULL,  0};
	fl_guest *g;

	assert_non_null(spec.kernel);
	assert_int_equal(fl_guest_start(&g, URI, &spec), 0);
	assert_true(domain_exists(name));
	assert_int_equal(fl_guest_wait(g, deadline, collect, out, end), 0);
	fl_guest_free(g);
	assert_false(domain_exists(name));
}

static void test_panic_ends_the_guest(void **state)
{
	fl_buf out = FL_BUF_INIT;
	enum fl_guest_end end;
	char name[64];

	(void)state;
	snprintf(name, sizeof(name), "fl-test-panic-%d", (int)getpid());
	run(2, 120000, name, &end, &out);
	assert_int_equal(end, FL_GUEST_EXITED);
	assert_non_null(strstr(fl_buf_str(&out), "Linux version"));
	assert_non_null(strstr(fl_buf_str(&out), "Kernel panic"));
	/* The guest saw the NUMA topology the XML gave it. */
	assert_non_null(strstr(fl_buf_str(&out), "NUMA: Node"));
	fl_buf_free(&out);
}

static void test_deadline_destroys(void **state)
{
	fl_buf out = FL_BUF_INIT;
	enum fl_guest_end end;
	char name[64];

	(void)state;
	snprintf(name, sizeof(name), "fl-test-deadline-%d", (int)getpid());
	run(1, 800, name, &end, &out);
	assert_int_equal(end, FL_GUEST_DEADLINE);
	assert_null(strstr(fl_buf_str(&out), "Kernel panic"));
	fl_buf_free(&out);
}

static void test_accel_auto_probes_once(void **state)
{
	struct fl_accel_probe p = {URI, getenv("FL_TEST_KERNEL"), initrd, dir, 10000};
	const char *accel, *again;
	int probed;

	(void)state;
	assert_int_equal(fl_accel_resolve("tcg", &p, &accel, &probed), 0);
	assert_string_equal(accel, "tcg");
	assert_int_equal(probed, 0);
	assert_int_equal(fl_accel_resolve("auto", &p, &accel, &probed), 0);
	assert_int_equal(probed, 1);
	assert_true(!strcmp(accel, "kvm") || !strcmp(accel, "tcg"));
	if (access("/dev/kvm", R_OK | W_OK))
		assert_string_equal(accel, "tcg");
	/* The second time the answer is remembered: no probe guest. */
	assert_int_equal(fl_accel_resolve("auto", &p, &again, &probed), 0);
	assert_int_equal(probed, 0);
	assert_string_equal(again, accel);
	assert_int_equal(fl_accel_resolve("kvn", &p, &again, &probed), FL_EINVAL);
	printf("accel auto on %s: %s\n", URI, accel);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_panic_ends_the_guest),
	    cmocka_unit_test(test_deadline_destroys),
	    cmocka_unit_test(test_accel_auto_probes_once),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

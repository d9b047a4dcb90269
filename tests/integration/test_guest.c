/*
 * test_guest.c - real guests through libvirtd: a kernel that panics ends by
 * itself (panic=-1 reboots, reboot destroys) with the panic on the console,
 * which arrives through libvirt's console stream and is kept in the
 * console file; a guest still booting at its deadline is destroyed; the
 * kernel and initramfs are volumes of the pool while the guest runs, and
 * neither a domain nor a volume is left behind; volumes named by a
 * faultline process that is gone are reaped, and only those; two reapers
 * at once destroy each such guest once, quietly. FL_TEST_KERNEL names the
 * kernel (tests/integration/guest.sh fetches Debian's and starts libvirtd).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
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
#include "machine/machine.h"
#include "machine/volume.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/wait.h>

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

/* Volumes of the default pool whose names start with prefix. */
static int volumes(const char *prefix)
{
	virConnectPtr conn = virConnectOpen(URI);
	virStoragePoolPtr pool;
	virStorageVolPtr *vols = NULL;
	int n, found = 0;

	assert_non_null(conn);
	pool = virStoragePoolLookupByName(conn, FL_VOLUME_POOL);
	assert_non_null(pool);
	n = virStoragePoolListAllVolumes(pool, &vols, 0);
	assert_true(n >= 0);
	for (int i = 0; i < n; i++) {
		found += !strncmp(virStorageVolGetName(vols[i]), prefix, strlen(prefix));
		virStorageVolFree(vols[i]);
	}
	free(vols);
	virStoragePoolFree(pool);
	virConnectClose(conn);
	return found;
}

static char *file_text(const char *path)
{
	fl_buf b = FL_BUF_INIT;
	char chunk[4096];
	size_t n;
	FILE *f = fopen(path, "rb");

	assert_non_null(f);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fl_buf_add(&b, chunk, n);
	fclose(f);
	return fl_buf_detach(&b);
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
	char *kept;

	assert_non_null(spec.kernel);
	assert_int_equal(fl_guest_start(&g, URI, &spec), 0);
	assert_true(domain_exists(name));
	assert_int_equal(volumes(name), 2); /* the kernel and the initramfs, uploaded */
	assert_int_equal(fl_guest_wait(g, deadline, collect, out, end), 0);
	fl_guest_free(g);
	assert_false(domain_exists(name));
	assert_int_equal(volumes(name), 0);
	/* The console file holds what the stream brought, byte for byte. */
	kept = file_text(console);
	assert_string_equal(kept, fl_buf_str(out));
	free(kept);
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
	struct fl_accel_probe p = {URI, getenv("FL_TEST_KERNEL"), initrd, dir, 10000, NULL};
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

static void make_volume(virStoragePoolPtr pool, const char *name)
{
	char *xml = fl_xasprintf(
		"<volume><name>%s</name><capacity unit='bytes'>4096</capacity></volume>", name);
	virStorageVolPtr v = virStorageVolCreateXML(pool, xml, 0);

	free(xml);
	if (!v)
		fail_msg("volume %s: %s", name, virGetLastErrorMessage());
	virStorageVolFree(v);
}

/* "fl-<host>-<pid>-<what>" of this host with the pid of a process that has ended. */
static void dead_name(char *out, size_t n, const char *what)
{
	char *live = fl_guest_name(what), *p = strstr(live, what);
	pid_t child = fork();

	if (!child)
		_exit(0);
	waitpid(child, NULL, 0);
	p--;
	while (p > live && p[-1] != '-')
		p--;
	snprintf(out, n, "%.*s%d-%s", (int)(p - live), live, (int)child, what);
	free(live);
}

/* Only volumes of this host's faultline processes that are gone go. */
static void test_reap_volumes_of_dead_owners(void **state)
{
	struct fl_machine_conf m = {.name = "t", .uri = URI};
	char *live = fl_guest_name("7-kernel"), dead[256], other[256];
	virConnectPtr conn = virConnectOpen(URI);
	virStoragePoolPtr pool;
	fl_volumes *v;

	(void)state;
	dead_name(dead, sizeof(dead), "7-kernel");
	snprintf(other, sizeof(other), "fl-otherhost-%d-7-kernel", (int)getpid());
	assert_non_null(conn);
	assert_int_equal(fl_volumes_open(&v, conn, &m), 0);
	fl_volumes_free(v);
	pool = virStoragePoolLookupByName(conn, FL_VOLUME_POOL);
	assert_non_null(pool);
	make_volume(pool, live);
	make_volume(pool, dead);
	make_volume(pool, other);
	assert_int_equal(fl_volumes_reap(conn, &m, fl_guest_owner_gone), 1);
	assert_int_equal(volumes(dead), 0);
	assert_int_equal(volumes(live), 1);
	assert_int_equal(volumes(other), 1);
	for (const char *const *n = (const char *const[]){live, other, NULL}; *n; n++) {
		virStorageVolPtr vol = virStorageVolLookupByName(pool, *n);

		assert_non_null(vol);
		assert_int_equal(virStorageVolDelete(vol, 0), 0);
		virStorageVolFree(vol);
	}
	virStoragePoolFree(pool);
	virConnectClose(conn);
	free(live);
}

#define REAPERS 2
#define LEFT	4

static pthread_barrier_t reapers_ready;

static void *reaper(void *arg)
{
	const struct fl_machine_conf *m = arg;

	pthread_barrier_wait(&reapers_ready);
	return (void *)(intptr_t)fl_machine_backend("libvirt")->reap(m);
}

/*
 * Two faultline processes reaping one host at once (a lab's workers sharing
 * it): every guest a dead process left is destroyed, once; the reaper that
 * comes second to a guest finds it gone, which is no error and prints
 * nothing (libvirt's own "Domain not found" on stderr was printed before).
 */
static void test_concurrent_reapers(void **state)
{
	struct fl_machine_conf m = {.name = "t", .backend = "libvirt", .uri = URI};
	char names[LEFT][256], err_path[160];
	virConnectPtr conn = virConnectOpen(URI);
	pthread_t t[REAPERS];
	int saved, fd, reaped = 0;
	char *err;

	(void)state;
	assert_non_null(conn);
	for (int i = 0; i < LEFT; i++) {
		/* No kernel: the firmware looks for a boot disk for as long as it runs. */
		char what[32], *xml;
		virDomainPtr dom;

		snprintf(what, sizeof(what), "%d-left", i);
		dead_name(names[i], sizeof(names[i]), what);
		xml =
		    fl_xasprintf("<domain type='qemu'><name>%s</name><memory unit='MiB'>32</memory>"
				 "<os><type arch='x86_64'>hvm</type></os></domain>",
				 names[i]);
		dom = virDomainCreateXML(conn, xml, 0);
		if (!dom)
			fail_msg("domain %s: %s", names[i], virGetLastErrorMessage());
		virDomainFree(dom);
		free(xml);
	}
	virSetErrorFunc(NULL, NULL); /* libvirt's default: errors printed to stderr */
	snprintf(err_path, sizeof(err_path), "%s/reapers.err", dir);
	fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	saved = dup(2);
	assert_true(fd >= 0 && saved >= 0 && dup2(fd, 2) == 2);
	pthread_barrier_init(&reapers_ready, NULL, REAPERS);
	for (int i = 0; i < REAPERS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, reaper, &m), 0);
	for (int i = 0; i < REAPERS; i++) {
		void *r;

		pthread_join(t[i], &r);
		assert_true((intptr_t)r >= 0);
		reaped += (int)(intptr_t)r;
	}
	pthread_barrier_destroy(&reapers_ready);
	dup2(saved, 2);
	close(saved);
	close(fd);
	for (int i = 0; i < LEFT; i++)
		assert_false(domain_exists(names[i]));
	assert_int_equal(reaped, LEFT);
	err = file_text(err_path);
	if (strstr(err, "libvirt:"))
		fail_msg("the reapers printed libvirt's errors:\n%s", err);
	free(err);
	virConnectClose(conn);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_panic_ends_the_guest),
	    cmocka_unit_test(test_deadline_destroys),
	    cmocka_unit_test(test_accel_auto_probes_once),
	    cmocka_unit_test(test_reap_volumes_of_dead_owners),
	    cmocka_unit_test(test_concurrent_reapers),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

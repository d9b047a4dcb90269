/*
 * test_machine_ops.c - the backends' table (machine.h): every backend the
 * configuration accepts has ops and the other way round, an unknown one is
 * refused naming the line of the configuration, and what the table answers
 * for each backend (own kernel, kernel or not, the agent API, the report's
 * machine line and its configuration line, the run page's words, the
 * guest's slowdown), with the CPU count and memory every caller now shares.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "lib/buf.h"
#include "lib/error.h"
#include "dispatch/dispatch.h"
#include "machine/machine.h"
#include "testlib.h"

#include <unistd.h>

static char dir[64], path[128];
static struct fl_config *cfg;

static int setup(void **state)
{
	char token[128];

	(void)state;
	if (fl_test_tmpdir(dir, sizeof(dir), "mops"))
		return -1;
	snprintf(token, sizeof(token), "%s/box.token", dir);
	snprintf(path, sizeof(path), "%s/fl.yaml", dir);
	if (fl_test_write(token, "0123456789abcdef0123456789abcdef\n") ||
	    fl_test_write(
		path,
		"var: %s/var\n"
		"agent_api: { listen: '127.0.0.1:0' }\n"
		"machines:\n"
		"  - { name: vm, uri: 'test:///default', sockets: 2, cores: 3, threads: 2,\n"
		"      memory_per_node: 512M }\n"
		"  - { name: cmd, backend: command, command: 'echo 1' }\n"
		"  - { name: box, backend: baremetal, token_file: %s }\n"
		"  - { name: own, backend: baremetal, token_file: %s, boot: current }\n"
		"benchmarks: [ { name: b, test: page_fault1 } ]\n",
		dir, token, token))
		return -1;
	if (fl_config_load(&cfg, path)) {
		fprintf(stderr, "%s\n", fl_error_last());
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fl_config_free(cfg);
	return fl_test_rmtree(dir);
}

/* The two halves of a backend: config's names and machine's ops, the same set. */
static void test_tables_agree(void **state)
{
	const char *const *names = fl_config_backend_names();
	const struct fl_machine_ops *const *ops;
	size_t n, nnames = 0;

	(void)state;
	ops = fl_machine_backends(&n);
	assert_true(n >= 3);
	for (size_t i = 0; i < n; i++) {
		assert_non_null(ops[i]->run);
		assert_non_null(ops[i]->describe);
		assert_non_null(fl_config_backend(ops[i]->name));
		assert_ptr_equal(fl_machine_backend(ops[i]->name), ops[i]);
	}
	for (; names[nnames]; nnames++)
		assert_non_null(fl_machine_backend(names[nnames]));
	assert_int_equal(nnames, n);
	assert_null(fl_machine_backend("qemu"));
	assert_null(fl_machine_backend(NULL));
	assert_null(fl_config_backend("qemu"));
}

static const struct fl_machine_conf *machine(const char *name)
{
	const struct fl_machine_conf *m = fl_config_machine(cfg, name);

	assert_non_null(m);
	return m;
}

static void test_each_backend(void **state)
{
	const struct fl_machine_ops *ops;

	(void)state;
	assert_int_equal(fl_machine_ops_of(cfg, machine("vm"), &ops), 0);
	assert_string_equal(ops->name, "libvirt");
	assert_non_null(ops->reap);
	assert_false(ops->agent_api);
	assert_int_equal(fl_machine_ops_of(cfg, machine("cmd"), &ops), 0);
	assert_string_equal(ops->name, "command");
	assert_null(ops->reap);
	assert_int_equal(fl_machine_ops_of(cfg, machine("box"), &ops), 0);
	assert_string_equal(ops->name, "baremetal");
	assert_true(ops->agent_api);

	assert_true(fl_machine_kernel(machine("vm")));
	assert_true(fl_machine_kernel(machine("box")));
	assert_false(fl_machine_kernel(machine("cmd")));
	assert_true(fl_machine_own_kernel(machine("own")));
	assert_false(fl_machine_own_kernel(machine("box")));
	assert_false(fl_machine_own_kernel(machine("vm")));
	assert_false(fl_machine_own_kernel(machine("cmd")));

	assert_int_equal(fl_config_machine_cpus(machine("vm")), 12);
	assert_int_equal(fl_config_machine_memory(machine("vm")), 1024ULL << 20);
}

/* Where the backends differ on pages, reports and timings: their ops say it. */
static void quote(fl_buf *out, const char *text)
{
	fl_buf_addf(out, "<%s>", text);
}

static char *repro(const char *name)
{
	const struct fl_machine_ops *ops;
	fl_buf b = FL_BUF_INIT;

	assert_int_equal(fl_machine_ops_of(cfg, machine(name), &ops), 0);
	if (ops->repro_keys)
		ops->repro_keys(machine(name), &b, quote);
	return fl_buf_detach(&b);
}

static void test_backend_words(void **state)
{
	const char *start, *agent, *facts;
	struct fl_machine_conf kvm = *machine("vm"), tcg = *machine("vm");
	long host = sysconf(_SC_NPROCESSORS_ONLN);
	char *s;

	(void)state;
	fl_machine_words("libvirt", &start, &agent, &facts);
	assert_string_equal(start, "guest created");
	assert_string_equal(agent, "boot to the agent");
	assert_string_equal(facts, "Guest");
	fl_machine_words("baremetal", &start, &agent, &facts);
	assert_string_equal(start, "job handed to the box");
	assert_string_equal(agent, "to the agent's first record");
	assert_string_equal(facts, "Machine");
	fl_machine_words("command", &start, &agent, &facts);
	assert_string_equal(start, "started");
	fl_machine_words("qemu", &start, &agent, &facts);
	assert_string_equal(start, "started");
	assert_string_equal(facts, "Machine");

	s = repro("vm");
	assert_string_equal(s, ", sockets: 2, cores: 3, threads: 2, memory_per_node: 512M");
	free(s);
	s = repro("cmd");
	assert_string_equal(s, ", command: <echo 1>");
	free(s);
	s = repro("box");
	assert_string_equal(s, "");
	free(s);

	/* 12 vCPUs under TCG on this host's CPUs; KVM, boxes and commands keep their clock */
	kvm.accel = "kvm";
	tcg.accel = "tcg";
	assert_int_equal(fl_machine_slowdown(&kvm), 1);
	assert_int_equal(fl_machine_slowdown(&tcg),
			 host > 0 && 12 > host ? (12 + host - 1) / host : 1);
	assert_int_equal(fl_machine_slowdown(machine("box")), 1);
	assert_int_equal(fl_machine_slowdown(machine("cmd")), 1);
}

/* A name no backend has (a configuration made by hand): refused at its line. */
static void test_unknown_backend(void **state)
{
	struct fl_machine_conf *m = (struct fl_machine_conf *)machine("cmd");
	const struct fl_run_sink sink = {0}; /* never called */
	struct fl_run_req req = {.cfg = cfg,
				 .machine = m,
				 .bench = fl_config_benchmark(cfg, "b"),
				 .rev = "HEAD",
				 .sink = &sink};
	struct fl_dispatch_req dreq = {.run = req, .store = (fl_store *)cfg /* never used */};
	struct fl_run_result res;
	const struct fl_machine_ops *ops;
	char *saved = m->backend, want[256];
	int found, ran, dispatched, kernel, own;
	char said[3][512];

	(void)state;
	m->backend = "qemu";
	found = fl_machine_ops_of(cfg, m, &ops);
	snprintf(said[0], sizeof(said[0]), "%s", fl_error_last());
	ran = fl_machine_run(&req, &res);
	snprintf(said[1], sizeof(said[1]), "%s", fl_error_last());
	dispatched = fl_dispatch_run(&dreq, &res);
	snprintf(said[2], sizeof(said[2]), "%s", fl_error_last());
	kernel = fl_machine_kernel(m);
	own = fl_machine_own_kernel(m);
	m->backend = saved;

	snprintf(want, sizeof(want),
		 "%s:6:27: machines[1].backend: machine 'cmd': backend 'qemu' is not in this "
		 "faultline (it has libvirt, command, baremetal)",
		 path);
	assert_int_equal(found, FL_EINVAL);
	assert_null(ops);
	assert_string_equal(said[0], want);
	assert_int_equal(ran, FL_EINVAL);
	assert_string_equal(said[1], want);
	assert_int_equal(dispatched, FL_EINVAL);
	assert_string_equal(said[2], want);
	assert_false(kernel);
	assert_false(own);
}

/* The configuration refuses it first, with the names it knows. */
static void test_unknown_backend_config(void **state)
{
	char bad[160];
	struct fl_config *c = NULL;

	(void)state;
	snprintf(bad, sizeof(bad), "%s/bad.yaml", dir);
	assert_int_equal(fl_test_write(bad, "machines: [ { name: m, backend: libvrt } ]\n"), 0);
	assert_int_equal(fl_config_load(&c, bad), FL_EINVAL);
	assert_non_null(strstr(fl_error_last(), "bad.yaml:1:33: machines[0].backend: unknown "
						"value 'libvrt' (did you mean 'libvirt'?)"));
	assert_null(c);
	assert_int_equal(fl_test_write(bad, "machines: [ { name: m, backend: qemu } ]\n"), 0);
	assert_int_equal(fl_config_load(&c, bad), FL_EINVAL);
	assert_non_null(strstr(fl_error_last(),
			       "bad.yaml:1:33: machines[0].backend: unknown "
			       "value 'qemu' (expected one of: libvirt, baremetal, "
			       "command)"));
}

static char *describe(const char *name, const struct fl_machine_seen *run)
{
	const struct fl_machine_ops *ops;
	fl_buf b = FL_BUF_INIT;

	assert_int_equal(fl_machine_ops_of(cfg, machine(name), &ops), 0);
	ops->describe(machine(name), run, &b);
	return fl_buf_detach(&b);
}

static void test_describe(void **state)
{
	struct fl_machine_seen row = {.run_id = 7,
				      .facts = "{\"sockets\":4,\"memory_per_node\":268435456}",
				      .nodes = 4,
				      .cpus = 16,
				      .accel = "kvm",
				      .kernel_release = "6.1.0"};
	char *s;

	(void)state;
	s = describe("vm", NULL);
	assert_string_equal(s, "vm: 2 sockets, 2 NUMA nodes, 12 CPUs, 1G memory, accelerator "
			       "auto (libvirt test:///default)");
	free(s);
	s = describe("vm", &row);
	assert_string_equal(s, "vm: 4 sockets, 4 NUMA nodes, 16 CPUs, 1G memory, accelerator kvm "
			       "(libvirt test:///default)\n                 as the guest of run 7 "
			       "saw it, kernel 6.1.0");
	free(s);
	s = describe("cmd", &row);
	assert_string_equal(s, "cmd, the command backend");
	free(s);
	s = describe("box", NULL);
	assert_string_equal(s, "box, a bare-metal box (kexec)");
	free(s);
	s = describe("own", NULL);
	assert_string_equal(s, "own, a bare-metal box (its own kernel)");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tables_agree),	   cmocka_unit_test(test_each_backend),
	    cmocka_unit_test(test_backend_words),	   cmocka_unit_test(test_unknown_backend),
	    cmocka_unit_test(test_unknown_backend_config), cmocka_unit_test(test_describe),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

/*
 * testdef.h - the table of benchmark tests: what each test is (its name,
 * the modes it runs in, what one operation is, the parameters it takes and
 * their checks) and how the agent runs it.
 *
 * A test is declared once, in agents/tests/: one file per test, or per
 * family of tests sharing a runner (page_fault.c), and one line in
 * agents/tests/table.c. fl-agent runs the tests of its job from the table;
 * the orchestrator links the same table and reads it through this header:
 * the configuration's test: key (its choices, "did you mean", the checks
 * of a benchmark's modes and parameters) and the job line follow from it,
 * and the store, the pages and the reports carry the test's name as it is.
 * Adding a test is its file and its line in the table, nothing else.
 *
 * The definitions are in agents/tests/table.c. libc only: fl-agent-static
 * links the table.
 */
#ifndef FL_PROTO_TESTDEF_H
#define FL_PROTO_TESTDEF_H

#include <stddef.h>
#include <stdint.h>

/* How many tests the table may hold: a job's choice of tests is a 64-bit
 * mask over the table's order. */
#define FL_TESTDEF_MAX 64

/* The modes a test's tasks run in, bits of fl_testdef.modes: processes
 * (forked, one address space each) or threads (of one process, one address
 * space). Their names are the configuration's and the job's. */
#define FL_TESTDEF_PROCESSES 0x1u
#define FL_TESTDEF_THREADS   0x2u

/* The job's parameters a test's tasks take. */
struct fl_testdef_params {
	uint64_t memory; /* bytes per task: memory=, the configuration's memory_per_task */
};

/* One task of a measured point, as the agent hands it to its test. */
struct fl_testdef_task {
	const struct fl_testdef *test;
	const struct fl_testdef_params *params;
	volatile uint64_t *ops; /* the task's counter, which the agent samples */
	/* threads: set when the point ends, to be looked at off the hot path;
	 * processes: NULL, they are killed */
	volatile int *stop;
	/* the test's own, for open/close: -1 and NULL before open */
	int fd;
	void *state;
};

struct fl_testdef {
	const char *name;  /* "page_fault1": test: in the configuration, the job's test= */
	const char *about; /* what each task does, one line of fl-agent --help */
	const char *op;	   /* what one operation is: samples are these per second */
	unsigned modes;	   /* FL_TESTDEF_PROCESSES, FL_TESTDEF_THREADS or both */
	/* The most memory a task holds while it runs, in copies of its
	 * params->memory, in RAM and in /tmp (tmpfs, which is RAM too): the
	 * agent refuses a point that would not fit rather than be OOM-killed. */
	unsigned ram_copies, tmp_copies;
	/* The checks of the parameters, the same for a configuration and for a
	 * job: 0, or FL_EINVAL (proto/error.h) saying what is wrong. NULL: any
	 * parameters do. */
	int (*check)(const struct fl_testdef_params *p);
	/*
	 * How the agent runs a task. open, in the agent before the point's
	 * tasks start (what a task needs that a killed task must not leave
	 * behind, like an unlinked file): 0 or a negative code with the
	 * message kept; NULL: nothing to open. run, in the task: the loop,
	 * counting each operation in *task->ops until the agent stops it.
	 * close, in the agent once the tasks are gone; NULL: nothing.
	 */
	int (*open)(struct fl_testdef_task *task);
	void (*run)(struct fl_testdef_task *task);
	void (*close)(struct fl_testdef_task *task);
	const void *data; /* the test's own constants, for a runner several tests share */
};

/* The table, in the order a job runs its tests; NULL-ended. */
extern const struct fl_testdef *const fl_testdefs[];
/* Their names in the same order, NULL-ended: the choices of test:. */
extern const char *const fl_testdef_names[];

/* The test of that name, or NULL. */
const struct fl_testdef *fl_testdef_find(const char *name);
/*
 * Whether test t runs in mode ("processes" or "threads"; NULL: not asked)
 * with the parameters p (NULL: not asked): 0, or FL_EINVAL saying why not.
 * The configuration checks a benchmark with it, fl-agent a job.
 */
int fl_testdef_check(const struct fl_testdef *t, const char *mode,
		     const struct fl_testdef_params *p);

#endif

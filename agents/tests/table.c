/*
 * table.c - the table of benchmark tests (proto/testdef.h): one line per
 * test in FL_TESTS, in the order a job runs them, and the lookups both
 * sides use. A new test is its file in this folder (agents/CMakeLists.txt
 * builds every one) and its line here; fl_test_NAME is the fl_testdef that
 * file defines, its name "NAME".
 */
#include "proto/testdef.h"
#include "proto/error.h"

#include <string.h>

#define FL_TESTS(X)                                                                                \
	X(page_fault1)                                                                             \
	X(page_fault2)                                                                             \
	X(page_fault3)                                                                             \
	X(mmap1)                                                                                   \
	/* a new test's line goes above this one */

#define DECLARE(t) extern const struct fl_testdef fl_test_##t;
#define ENTRY(t)   &fl_test_##t,
#define NAME(t)	   #t,

FL_TESTS(DECLARE)

const struct fl_testdef *const fl_testdefs[] = {FL_TESTS(ENTRY) NULL};
const char *const fl_testdef_names[] = {FL_TESTS(NAME) NULL};

_Static_assert(sizeof(fl_testdefs) / sizeof(fl_testdefs[0]) - 1 <= FL_TESTDEF_MAX,
	       "a job chooses its tests with a 64-bit mask");

const struct fl_testdef *fl_testdef_find(const char *name)
{
	for (size_t i = 0; name && fl_testdefs[i]; i++)
		if (!strcmp(fl_testdefs[i]->name, name))
			return fl_testdefs[i];
	return NULL;
}

static unsigned mode_bit(const char *mode)
{
	return !strcmp(mode, "processes") ? FL_TESTDEF_PROCESSES
	       : !strcmp(mode, "threads") ? FL_TESTDEF_THREADS
					  : 0;
}

int fl_testdef_check(const struct fl_testdef *t, const char *mode,
		     const struct fl_testdef_params *p)
{
	int r;

	if (mode && !mode_bit(mode))
		return fl_error_set(FL_EINVAL, "unknown mode '%s' (processes or threads)", mode);
	if (mode && !(t->modes & mode_bit(mode)))
		return fl_error_set(FL_EINVAL, "%s does not run as %s (only as %s)", t->name, mode,
				    t->modes & FL_TESTDEF_PROCESSES ? "processes" : "threads");
	if (p && t->check && (r = t->check(p)))
		return fl_error_wrap(r, "%s", t->name);
	return 0;
}

/* cgroup.c - a point's cgroup context as one key (see cgroup.h). */
#include "analysis/cgroup.h"

#include <string.h>

const char *fl_cgroup_key(const char *s)
{
	return !s || !strcmp(s, "root") ? "" : s;
}

const char *fl_cgroup_word(const char *s)
{
	return *fl_cgroup_key(s) ? s : "root";
}

/*
 * cgroup.h - a measured point's cgroup context, the one spelling evidence
 * (a record's points), comparisons (their rows) and the pages key on: ""
 * is the root cgroup (and what rows from before contexts say),
 * FL_CGROUP_CHILD a child memory cgroup the agent made for the point's
 * tasks. Names, row order and text put it after the task count:
 * page_fault2.threads.2.child.
 */
#ifndef FL_CGROUP_H
#define FL_CGROUP_H

#define FL_CGROUP_CHILD "child"
/* "" for NULL, "" and "root"; s otherwise. */
const char *fl_cgroup_key(const char *s);
/* What a table says: "root" for the root, the context otherwise. */
const char *fl_cgroup_word(const char *s);

#endif

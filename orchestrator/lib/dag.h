/*
 * dag.h - a range of git history as a graph of commits by sha, each with
 * its parents (first parent first): what build/repo.c reads out of a
 * repository and the merge descent (analysis/descent.h) searches. It knows
 * nothing of git; it lives here so that both layers can use it.
 */
#ifndef FL_DAG_H
#define FL_DAG_H

#include <stddef.h>

struct fl_dag_node {
	char sha[41];
	size_t *parents; /* their indices, first parent first */
	size_t nparents;
	int outside; /* a good reaches it: good, its parents are not listed */
};

/* The commits bad reaches and no good reaches, and the commits a good
 * reaches that are their parents (outside). build/repo.c makes one from a
 * repository (fl_repo_range); a test or a simulation makes its own;
 * analysis/descent.c searches it. */
struct fl_dag {
	struct fl_dag_node *nodes;
	size_t n, alloc;
	size_t bad; /* bad's index */
};

/* A node, its index returned; parents are added with fl_dag_add_parent. */
size_t fl_dag_add(struct fl_dag *g, const char *sha, int outside);
void fl_dag_add_parent(struct fl_dag *g, size_t node, size_t parent);
void fl_dag_release(struct fl_dag *g);
/* The commits of the range: the nodes not outside. */
size_t fl_dag_range_size(const struct fl_dag *g);

#endif

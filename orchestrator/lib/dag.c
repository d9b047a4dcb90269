/* dag.c - a range of history as a graph of commits (see dag.h). */
#include "lib/dag.h"
#include "lib/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t fl_dag_add(struct fl_dag *g, const char *sha, int outside)
{
	struct fl_dag_node *nd;

	if (g->n == g->alloc) {
		g->alloc = g->alloc ? 2 * g->alloc : 64;
		g->nodes = fl_xrealloc(g->nodes, g->alloc * sizeof(*g->nodes));
	}
	nd = &g->nodes[g->n];
	memset(nd, 0, sizeof(*nd));
	snprintf(nd->sha, sizeof(nd->sha), "%s", sha);
	nd->outside = outside;
	return g->n++;
}

void fl_dag_add_parent(struct fl_dag *g, size_t node, size_t parent)
{
	struct fl_dag_node *nd = &g->nodes[node];

	nd->parents = fl_xrealloc(nd->parents, (nd->nparents + 1) * sizeof(size_t));
	nd->parents[nd->nparents++] = parent;
}

void fl_dag_release(struct fl_dag *g)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->nodes[i].parents);
	free(g->nodes);
	memset(g, 0, sizeof(*g));
}

size_t fl_dag_range_size(const struct fl_dag *g)
{
	size_t k = 0;

	for (size_t i = 0; i < g->n; i++)
		k += !g->nodes[i].outside;
	return k;
}

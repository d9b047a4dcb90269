/*
 * svg.h - plots drawn on the server as inline SVG, so pages need no script:
 * scalability (operations per second per task against task count, error
 * bars, a linear-scaling reference), a
 * metric across tags (with change points marked), and strip plots of one
 * commit's samples in a bisection.
 */
#ifndef FL_SVG_H
#define FL_SVG_H

#include "lib/buf.h"

struct fl_svg_series {
	const char *label;
	const double *x, *y;
	const double *err; /* half-height of the error bar (NAN: none), or NULL */
	size_t n;
	int dashed; /* a reference line (linear scaling), drawn dashed without dots */
};

struct fl_svg_plot {
	const char *title;
	const char *xlabel, *ylabel;
	const struct fl_svg_series *series;
	size_t nseries;
	const double *marks; /* x positions of vertical markers (change points) */
	size_t nmarks;
	const char *const *xnames; /* names for integer x ticks 0..n-1 (tags), or NULL */
	size_t nxnames;
	int width, height;
	/* Not 0: a right-hand axis says each tick's change against this value
	 * in percent ("-2%"), what a regression is read as. */
	double ref;
	const char *reflabel; /* what ref is ("v6.1"), for the right axis */
};

/*
 * Appends an <svg> element. Labels are escaped. The y axis spans the
 * data (with a margin), not zero to the largest value: a 2% change must
 * show. A lone point sits in the middle of its plot.
 */
void fl_svg_lines(fl_buf *out, const struct fl_svg_plot *p);
/* One row of dots per group: the samples of each commit, side by side. */
void fl_svg_strip(fl_buf *out, const char *const *groups, const double *const *values,
		  const size_t *counts, size_t ngroups, int width);

#endif

/* svg.c - server-side SVG plots (see svg.h). */
#include "web/svg.h"
#include "lib/html.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const colors[] = {"#1f77b4", "#d62728", "#2ca02c",
				     "#9467bd", "#ff7f0e", "#8c564b"};
#define NCOLORS (sizeof(colors) / sizeof(colors[0]))

struct frame {
	double x0, x1, y0, y1;	      /* data range */
	int left, right, top, bottom; /* pixel box */
};

static double px(const struct frame *f, double x)
{
	return f->left + (x - f->x0) / (f->x1 - f->x0) * (f->right - f->left);
}

static double py(const struct frame *f, double y)
{
	return f->bottom - (y - f->y0) / (f->y1 - f->y0) * (f->bottom - f->top);
}

/* A step of 1, 2 or 5 times a power of ten giving about five ticks. */
static double nice_step(double span)
{
	double raw = span / 5, mag = pow(10, floor(log10(raw))), r = raw / mag;

	return (r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10) * mag;
}

static double err_at(const struct fl_svg_series *se, size_t i)
{
	return se->err && isfinite(se->err[i]) ? se->err[i] : 0;
}

static void data_range(const struct fl_svg_plot *p, struct frame *f)
{
	double span, dmin;

	f->x0 = f->y0 = INFINITY;
	f->x1 = f->y1 = -INFINITY;
	for (size_t s = 0; s < p->nseries; s++) {
		const struct fl_svg_series *se = &p->series[s];

		for (size_t i = 0; i < se->n; i++) {
			double e = err_at(se, i);

			if (!isfinite(se->x[i]) || !isfinite(se->y[i]))
				continue;
			f->x0 = fmin(f->x0, se->x[i]);
			f->x1 = fmax(f->x1, se->x[i]);
			f->y0 = fmin(f->y0, se->y[i] - e);
			f->y1 = fmax(f->y1, se->y[i] + e);
		}
	}
	if (!isfinite(f->x0) || !isfinite(f->y0)) {
		f->x0 = f->y0 = 0;
		f->x1 = f->y1 = 1;
	}
	/* a lone x in the middle */
	if (f->x1 <= f->x0) {
		f->x0 -= 1;
		f->x1 += 1;
	}
	/* The data's span with a margin, not from zero: a 2% change has to show.
	 * A flat line gets 5% of its value either way. Data that is never
	 * negative (throughput) keeps the axis at or above zero. */
	dmin = f->y0;
	span = f->y1 - f->y0;
	if (span <= fabs(f->y1) * 1e-9)
		span = f->y1 != 0 ? fabs(f->y1) * 0.625 : 12.5; /* +- 5% */
	f->y0 -= span * 0.08;
	f->y1 += span * 0.08;
	if (dmin >= 0 && f->y0 < 0)
		f->y0 = 0;
}

/*
 * 1.5M, 250k, 1010, 12.5: what a tick says, to the resolution step asks
 * (a tick's step). A unit is used only where its label stays short: 1010
 * with a step of 2 is "1010", not "1.01k" or a "1.0098k" an axis clips.
 */
static void value_label(char *label, size_t n, double v, double step)
{
	static const struct {
		double unit;
		const char *suffix;
	} units[] = {{1e6, "M"}, {1e3, "k"}, {1, ""}};
	size_t len;

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		double u = units[i].unit;
		int digits = step > 0 && step < u ? (int)ceil(-log10(step / u) - 1e-9) : 0;

		if ((fabs(v) < u && u > 1) || (digits > 2 && u > 1))
			continue;
		snprintf(label, n, "%.*f", digits < 0 ? 0 : digits > 6 ? 6 : digits, v / u);
		/* 1.50 -> 1.5, 2.0 -> 2 */
		if (strchr(label, '.')) {
			len = strlen(label);
			while (len && label[len - 1] == '0')
				label[--len] = '\0';
			if (len && label[len - 1] == '.')
				label[--len] = '\0';
		}
		snprintf(label + strlen(label), n - strlen(label), "%s", units[i].suffix);
		return;
	}
}

static void axes(fl_buf *out, const struct fl_svg_plot *p, const struct frame *f)
{
	double step = nice_step(f->y1 - f->y0);

	fl_html_addf(out, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='#333'/>", f->left,
		     f->bottom, f->right, f->bottom);
	fl_html_addf(out, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='#333'/>", f->left, f->top,
		     f->left, f->bottom);
	/* Ticks as multiples of the step, not a running sum: no drift in the labels. */
	for (long k = (long)ceil(f->y0 / step); k * step <= f->y1; k++) {
		double y = (double)k * step;
		char label[32];

		value_label(label, sizeof(label), y, step);
		fl_html_addf(out,
			     "<text x='%d' y='%.1f' text-anchor='end' font-size='10'>%s</text>",
			     f->left - 4, py(f, y) + 3, label);
		if (p->ref != 0 && isfinite(p->ref))
			fl_html_addf(out,
				     "<text class='rel' x='%d' y='%.1f' font-size='10' "
				     "fill='#555'>%+.1f%%</text>",
				     f->right + 4, py(f, y) + 3, 100 * (y - p->ref) / fabs(p->ref));
	}
	if (p->ref != 0 && isfinite(p->ref)) {
		char label[32];

		value_label(label, sizeof(label), p->ref, step);
		fl_html_addf(out,
			     "<line class='ref' x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#bbb'/>"
			     "<text x='%d' y='%d' text-anchor='end' font-size='10' fill='#555'>"
			     "%% against %s (%s)</text>",
			     f->left, py(f, p->ref), f->right, py(f, p->ref), f->right + 44,
			     f->top - 8, p->reflabel ? p->reflabel : "the first", label);
	}
	if (p->xnames) {
		for (size_t i = 0; i < p->nxnames; i++)
			fl_html_addf(out,
				     "<text x='%.1f' y='%d' text-anchor='middle' "
				     "font-size='10'>%s</text>",
				     px(f, (double)i), f->bottom + 14, p->xnames[i]);
	} else {
		double xs = nice_step(f->x1 - f->x0) < 1 ? 1 : nice_step(f->x1 - f->x0);

		for (long k = (long)ceil(f->x0 / xs); k * xs <= f->x1; k++)
			fl_html_addf(out,
				     "<text x='%.1f' y='%d' text-anchor='middle' "
				     "font-size='10'>%.0f</text>",
				     px(f, (double)k * xs), f->bottom + 14, (double)k * xs);
	}
	fl_html_addf(out, "<text x='%d' y='%d' text-anchor='middle' font-size='11'>%s</text>",
		     (f->left + f->right) / 2, f->bottom + 30, p->xlabel ? p->xlabel : "");
	fl_html_addf(out,
		     "<text x='12' y='%d' text-anchor='middle' font-size='11' "
		     "transform='rotate(-90 12 %d)'>%s</text>",
		     (f->top + f->bottom) / 2, (f->top + f->bottom) / 2,
		     p->ylabel ? p->ylabel : "");
}

static void series(fl_buf *out, const struct fl_svg_series *s, const struct frame *f,
		   const char *color, size_t index)
{
	fl_html_addf(out, "<g class='series%S' data-label='%s'>", s->dashed ? " reference" : "",
		     s->label);
	fl_html_addf(out, "<polyline fill='none' stroke='%s' stroke-width='%S'%S points='", color,
		     s->dashed ? "1.5" : "2", s->dashed ? " stroke-dasharray='6 4'" : "");
	for (size_t i = 0; i < s->n; i++)
		if (isfinite(s->y[i]))
			fl_html_addf(out, "%.1f,%.1f ", px(f, s->x[i]), py(f, s->y[i]));
	fl_buf_adds(out, "'/>");
	for (size_t i = 0; i < s->n && !s->dashed; i++) {
		if (!isfinite(s->y[i]))
			continue;
		if (err_at(s, i) > 0)
			fl_html_addf(out,
				     "<line class='err' x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' "
				     "stroke='%s'/>",
				     px(f, s->x[i]), py(f, s->y[i] - s->err[i]), px(f, s->x[i]),
				     py(f, s->y[i] + s->err[i]), color);
		fl_html_addf(out, "<circle cx='%.1f' cy='%.1f' r='3' fill='%s'/>", px(f, s->x[i]),
			     py(f, s->y[i]), color);
	}
	/* the legend under the plot, where no line runs */
	fl_html_addf(out,
		     "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='%s' stroke-width='2'%S/>"
		     "<text x='%d' y='%d' font-size='11' fill='%s'>%s</text></g>",
		     f->left, f->bottom + 44 + 14 * (int)index - 4, f->left + 18,
		     f->bottom + 44 + 14 * (int)index - 4, color,
		     s->dashed ? " stroke-dasharray='6 4'" : "", f->left + 24,
		     f->bottom + 44 + 14 * (int)index, color, s->label);
}

void fl_svg_lines(fl_buf *out, const struct fl_svg_plot *p)
{
	int legend = 14 * (int)p->nseries + 8;
	int w = p->width ? p->width : 640, h = p->height ? p->height : 360 + legend;
	struct frame f = {
	    .left = 60, .right = w - (p->ref != 0 ? 50 : 10), .top = 24, .bottom = h - 40 - legend};

	data_range(p, &f);
	fl_html_addf(out,
		     "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' "
		     "viewBox='0 0 %d %d' role='img'><title>%s</title>",
		     w, h, w, h, p->title ? p->title : "");
	axes(out, p, &f);
	for (size_t i = 0; i < p->nmarks; i++)
		fl_html_addf(out,
			     "<line class='mark' x1='%.1f' y1='%d' x2='%.1f' y2='%d' "
			     "stroke='#999' stroke-dasharray='4 3'/>",
			     px(&f, p->marks[i]), f.top, px(&f, p->marks[i]), f.bottom);
	for (size_t s = 0; s < p->nseries; s++)
		series(out, &p->series[s], &f, colors[s % NCOLORS], s);
	fl_buf_adds(out, "</svg>");
}

void fl_svg_strip(fl_buf *out, const char *const *groups, const double *const *values,
		  const size_t *counts, size_t ngroups, int width)
{
	int row = 18, h = row * (int)ngroups + 34;
	char lo_label[32], hi_label[32];
	double lo = INFINITY, hi = -INFINITY;

	for (size_t g = 0; g < ngroups; g++)
		for (size_t i = 0; i < counts[g]; i++) {
			lo = fmin(lo, values[g][i]);
			hi = fmax(hi, values[g][i]);
		}
	if (!(hi > lo)) {
		lo = isfinite(lo) ? lo - 1 : 0;
		hi = lo + 2;
	}
	fl_html_addf(out, "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d'>", width,
		     h);
	for (size_t g = 0; g < ngroups; g++) {
		int y = 14 + row * (int)g;

		fl_html_addf(out, "<text x='0' y='%d' font-size='10'>%s</text>", y + 3, groups[g]);
		for (size_t i = 0; i < counts[g]; i++)
			fl_html_addf(out, "<circle cx='%.1f' cy='%d' r='2.5' fill='%S'/>",
				     110 + (values[g][i] - lo) / (hi - lo) * (width - 120), y,
				     colors[0]);
	}
	/* the value scale: the smallest and the largest sample */
	value_label(lo_label, sizeof(lo_label), lo, (hi - lo) / 50);
	value_label(hi_label, sizeof(hi_label), hi, (hi - lo) / 50);
	fl_html_addf(
	    out,
	    "<text class='scale' x='110' y='%d' font-size='10' text-anchor='middle'>%s</text>"
	    "<text class='scale' x='%d' y='%d' font-size='10' text-anchor='end'>%s</text>",
	    h - 6, lo_label, width - 2, h - 6, hi_label);
	fl_buf_adds(out, "</svg>");
}

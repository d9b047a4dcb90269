/*
 * stats.c - robust summaries, rank tests, shift estimates and change points
 * for noisy benchmark samples. See stats.h for the contracts.
 */
#include "analysis/stats.h"
#include "lib/buf.h"
#include "lib/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double *sorted_copy(const double *x, size_t n)
{
	double *c = fl_xmalloc((n ? n : 1) * sizeof(*c));

	memcpy(c, x, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp_double);
	return c;
}

static double median_sorted(const double *s, size_t n)
{
	if (!n)
		return NAN;
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

double fl_stats_mean(const double *x, size_t n)
{
	double sum = 0;

	if (!n)
		return NAN;
	for (size_t i = 0; i < n; i++)
		sum += x[i];
	return sum / n;
}

double fl_stats_stddev(const double *x, size_t n)
{
	double m, ss = 0;

	if (n < 2)
		return 0;
	m = fl_stats_mean(x, n);
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - m) * (x[i] - m);
	return sqrt(ss / (n - 1));
}

double fl_stats_median(const double *x, size_t n)
{
	double *s = sorted_copy(x, n), m = median_sorted(s, n);

	free(s);
	return m;
}

double fl_stats_mad(const double *x, size_t n)
{
	double *d, med, mad;

	if (!n)
		return NAN;
	med = fl_stats_median(x, n);
	d = fl_xmalloc(n * sizeof(*d));
	for (size_t i = 0; i < n; i++)
		d[i] = fabs(x[i] - med);
	mad = fl_stats_median(d, n);
	free(d);
	return mad;
}

double fl_stats_trimmed_mean(const double *x, size_t n, double frac)
{
	double *s, m;
	size_t cut;

	if (!n || frac < 0 || frac >= 0.5)
		return NAN;
	s = sorted_copy(x, n);
	cut = (size_t)floor(frac * n);
	m = fl_stats_mean(s + cut, n - 2 * cut);
	free(s);
	return m;
}

double fl_stats_norm_cdf(double z)
{
	return 0.5 * erfc(-z / sqrt(2.0));
}

/* Acklam's rational approximation (relative error 1.15e-9), then one Newton
 * step against erfc, which makes it good to double precision in practice. */
double fl_stats_norm_quantile(double p)
{
	static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
				   -2.759285104469687e+02, 1.383577518672690e+02,
				   -3.066479806614716e+01, 2.506628277459239e+00};
	static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
				   -1.556989798598866e+02, 6.680131188771972e+01,
				   -1.328068155288572e+01};
	static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
				   -2.400758277161838e+00, -2.549732539343734e+00,
				   4.374664141464968e+00,  2.938163982698783e+00};
	static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
				   2.445134137142996e+00, 3.754408661907416e+00};
	double q, r, x;

	if (p <= 0)
		return -INFINITY;
	if (p >= 1)
		return INFINITY;
	if (p < 0.02425) {
		q = sqrt(-2 * log(p));
		x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	} else if (p > 1 - 0.02425) {
		q = sqrt(-2 * log(1 - p));
		x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	} else {
		q = p - 0.5;
		r = q * q;
		x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
		    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
	}
	r = (fl_stats_norm_cdf(x) - p) * sqrt(2 * M_PI) * exp(x * x / 2);
	return x - r / (1 + x * r / 2);
}

/*
 * Number of arrangements of m x's and n y's with U = u, for every u, by the
 * recurrence f(m, n, u) = f(m - 1, n, u - n) + f(m, n - 1, u) (the largest
 * value is an x, beating all n y's, or a y). Doubles: C(40, 20) fits exactly.
 */
static double *mwu_counts(size_t m, size_t n)
{
	size_t w = m * n + 1, i, j, u;
	double *f = fl_xcalloc((m + 1) * (n + 1) * w, sizeof(*f));

#define F(i, j, u) f[((i) * (n + 1) + (j)) * w + (u)]
	for (i = 0; i <= m; i++)
		for (j = 0; j <= n; j++) {
			if (!i || !j) {
				F(i, j, 0) = 1;
				continue;
			}
			for (u = 0; u <= i * j; u++)
				F(i, j, u) = (u >= j ? F(i - 1, j, u - j) : 0) +
					     (u <= i * (j - 1) ? F(i, j - 1, u) : 0);
		}
	memmove(f, &F(m, n, 0), w * sizeof(*f));
#undef F
	return f;
}

static double mwu_exact_p(double u, size_t m, size_t n)
{
	double *f = mwu_counts(m, n), total = 0, le = 0, ge = 0, p;

	for (size_t k = 0; k <= m * n; k++) {
		total += f[k];
		if (k <= u)
			le += f[k];
		if (k >= u)
			ge += f[k];
	}
	free(f);
	p = 2 * fmin(le, ge) / total;
	return p > 1 ? 1 : p;
}

/* Sum over tie groups of t^3 - t, from the pooled sorted sample. */
static double tie_term(const double *x, size_t nx, const double *y, size_t ny)
{
	size_t n = nx + ny, i, j;
	double *all = fl_xmalloc(n * sizeof(*all)), t, sum = 0;

	memcpy(all, x, nx * sizeof(*all));
	memcpy(all + nx, y, ny * sizeof(*all));
	qsort(all, n, sizeof(*all), cmp_double);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && all[j] == all[i]; j++)
			;
		t = (double)(j - i);
		sum += t * t * t - t;
	}
	free(all);
	return sum;
}

int fl_stats_mwu(const double *x, size_t nx, const double *y, size_t ny, struct fl_mwu *out)
{
	double u = 0, mu, var, z, ties, n = (double)(nx + ny);

	if (!nx || !ny)
		return fl_error_set(FL_EINVAL, "Mann-Whitney needs two non-empty samples");
	for (size_t i = 0; i < nx; i++)
		for (size_t j = 0; j < ny; j++)
			u += x[i] > y[j] ? 1 : x[i] == y[j] ? 0.5 : 0;
	out->u = u;
	ties = tie_term(x, nx, y, ny);
	if (nx <= FL_MWU_EXACT_MAX && ny <= FL_MWU_EXACT_MAX && ties == 0) {
		out->exact = 1;
		out->p = mwu_exact_p(u, nx, ny);
		return 0;
	}
	out->exact = 0;
	mu = nx * (double)ny / 2;
	var = nx * (double)ny / 12 * ((n + 1) - ties / (n * (n - 1)));
	if (var <= 0) {
		out->p = 1; /* every value equal: no evidence of a difference */
		return 0;
	}
	z = (fabs(u - mu) - 0.5) / sqrt(var);
	out->p = z <= 0 ? 1 : erfc(z / sqrt(2.0));
	return 0;
}

int fl_stats_hodges_lehmann(const double *x, size_t nx, const double *y, size_t ny, double conf,
			    struct fl_shift *out)
{
	size_t m = nx * ny, k = 0, i, j;
	double *d, z, ca;

	if (!nx || !ny || conf <= 0 || conf >= 1)
		return fl_error_set(FL_EINVAL, "Hodges-Lehmann needs two samples and 0 < conf < 1");
	d = fl_xmalloc(m * sizeof(*d));
	for (i = 0; i < nx; i++)
		for (j = 0; j < ny; j++)
			d[k++] = y[j] - x[i];
	qsort(d, m, sizeof(*d), cmp_double);
	out->shift = median_sorted(d, m);
	/* Moses: the interval runs from the (C+1)-th to the (m-C)-th ordered
	 * difference, C the lower critical value of U at 1 - conf two-sided
	 * (normal approximation of the U distribution). */
	z = fl_stats_norm_quantile(1 - (1 - conf) / 2);
	ca = floor(m / 2.0 - z * sqrt(nx * (double)ny * (nx + ny + 1) / 12.0));
	k = ca < 0 ? 0 : (size_t)ca;
	if (k > (m - 1) / 2)
		k = (m - 1) / 2;
	out->lo = d[k];
	out->hi = d[m - 1 - k];
	free(d);
	return 0;
}

const char *fl_verdict_name(enum fl_verdict v)
{
	return v == FL_DIFFERENT ? "different" : v == FL_SAME ? "same" : "unknown";
}

int fl_stats_compare(const double *x, size_t nx, const double *y, size_t ny, double alpha,
		     double min_change, enum fl_direction dir, struct fl_compare *out)
{
	struct fl_mwu t;
	double base, band, sign = dir == FL_HIGHER_BETTER ? -1 : 1;
	int r;

	if (alpha <= 0 || alpha >= 0.5 || min_change < 0)
		return fl_error_set(FL_EINVAL, "compare needs 0 < alpha < 0.5 and min_change >= 0");
	if ((r = fl_stats_mwu(x, nx, y, ny, &t)) ||
	    (r = fl_stats_hodges_lehmann(x, nx, y, ny, 1 - 2 * alpha, &out->s)))
		return r;
	out->p = t.p;
	base = fabs(fl_stats_median(x, nx));
	band = min_change * base;
	out->change_pct = base > 0 ? 100 * sign * out->s.shift / base : 0;
	if (out->s.lo > -band && out->s.hi < band)
		out->verdict = FL_SAME;
	else if (t.p < alpha)
		out->verdict = FL_DIFFERENT;
	else
		out->verdict = FL_UNKNOWN;
	return 0;
}

uint64_t fl_rand_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

double fl_rand_uniform(uint64_t *state)
{
	return ((fl_rand_next(state) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

double fl_rand_normal(uint64_t *state)
{
	double u1 = fl_rand_uniform(state), u2 = fl_rand_uniform(state);

	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/*
 * The best split of v[lo..hi) by the energy statistic (Matteson-James,
 * alpha 1): Q = m n / (m + n) * (2 E|X - Y| - E|X - X'| - E|Y - Y'|), means
 * over pairs of the left part X (m values) and the right part Y (n values).
 * Moving the split one position right moves one value from Y to X, which
 * updates the three pair sums in O(n): O(n^2) for all splits, not O(n^3).
 */
static double best_split(const double *v, size_t lo, size_t hi, size_t *at)
{
	double between = 0, left = 0, right = 0, best = -INFINITY;

	for (size_t i = lo; i < hi; i++)
		for (size_t j = i + 1; j < hi; j++)
			right += fabs(v[i] - v[j]);
	for (size_t t = lo + 1; t < hi; t++) {
		double x = v[t - 1], to_left = 0, to_right = 0, m = (double)(t - lo),
		       n = (double)(hi - t), w, q;

		for (size_t i = lo; i < t - 1; i++)
			to_left += fabs(x - v[i]);
		for (size_t j = t; j < hi; j++)
			to_right += fabs(x - v[j]);
		right -= to_right;
		left += to_left;
		between += to_right - to_left;
		w = m * n / (m + n);
		q = w * (2 * between / (m * n) - (m > 1 ? left / (m * (m - 1) / 2) : 0) -
			 (n > 1 ? right / (n * (n - 1) / 2) : 0));
		/* Of splits equal up to the rounding of these sums (relative to the largest
		 * term), the first, as sums taken directly would find. */
		if (t == lo + 1 || q > best + 1e-10 * w * 2 * between / (m * n)) {
			best = q;
			*at = t;
		}
	}
	return best;
}

/* Permutation p-value of the best split of v[lo..hi): (1 + #{Q* >= Q}) / (1 + perms). */
static double split_p(const double *v, size_t lo, size_t hi, double q, int perms, uint64_t *rng)
{
	size_t n = hi - lo, at;
	double *w = fl_xmalloc(n * sizeof(*w)), tmp;
	int ge = 0;

	memcpy(w, v + lo, n * sizeof(*w));
	for (int p = 0; p < perms; p++) {
		for (size_t i = n - 1; i > 0; i--) {
			size_t j = fl_rand_next(rng) % (i + 1);

			tmp = w[i];
			w[i] = w[j];
			w[j] = tmp;
		}
		if (best_split(w, 0, n, &at) >= q - 1e-12 * fabs(q))
			ge++;
	}
	free(w);
	return (1.0 + ge) / (1.0 + perms);
}

struct segmenter {
	const double *v;
	double alpha;
	int perms;
	uint64_t rng;
	size_t *cuts, ncuts, max;
	double *pvals;
};

static void segment(struct segmenter *sg, size_t lo, size_t hi)
{
	size_t at = lo;
	double q, p;

	if (hi - lo < 2 || sg->ncuts == sg->max)
		return;
	q = best_split(sg->v, lo, hi, &at);
	p = split_p(sg->v, lo, hi, q, sg->perms, &sg->rng);
	if (p >= sg->alpha)
		return;
	sg->cuts[sg->ncuts] = at;
	sg->pvals[sg->ncuts++] = p;
	segment(sg, lo, at);
	segment(sg, at, hi);
}

static void fill_point(const double *med, size_t k, const size_t *cuts, size_t nc, size_t c,
		       double p, enum fl_direction dir, struct fl_change_point *o)
{
	size_t lo = 0, hi = k;

	for (size_t i = 0; i < nc; i++) {
		if (cuts[i] < cuts[c] && cuts[i] > lo)
			lo = cuts[i];
		if (cuts[i] > cuts[c] && cuts[i] < hi)
			hi = cuts[i];
	}
	o->index = cuts[c];
	o->before = fl_stats_median(med + lo, cuts[c] - lo);
	o->after = fl_stats_median(med + cuts[c], hi - cuts[c]);
	o->p = p;
	o->change_pct = o->before ? 100 * (o->after - o->before) / fabs(o->before) : 0;
	if (dir == FL_HIGHER_BETTER)
		o->change_pct = -o->change_pct;
}

int fl_stats_change_points(const struct fl_series_point *s, size_t k, double alpha, int perms,
			   uint64_t seed, enum fl_direction dir, struct fl_change_point *out,
			   size_t max, size_t *n)
{
	struct segmenter sg = {.alpha = alpha, .perms = perms, .rng = seed, .max = max};
	double *med;
	size_t i, j;

	*n = 0;
	if (perms < 1 || alpha <= 0 || alpha >= 1)
		return fl_error_set(FL_EINVAL, "change points need perms >= 1 and 0 < alpha < 1");
	for (i = 0; i < k; i++)
		if (!s[i].n)
			return fl_error_set(FL_EINVAL, "series position %zu has no values", i);
	med = fl_xmalloc((k ? k : 1) * sizeof(*med));
	for (i = 0; i < k; i++)
		med[i] = fl_stats_median(s[i].v, s[i].n);
	sg.v = med;
	sg.cuts = fl_xmalloc((max ? max : 1) * sizeof(size_t));
	sg.pvals = fl_xmalloc((max ? max : 1) * sizeof(double));
	segment(&sg, 0, k);
	/* insertion sort by index; few points */
	for (i = 1; i < sg.ncuts; i++)
		for (j = i; j > 0 && sg.cuts[j - 1] > sg.cuts[j]; j--) {
			size_t t = sg.cuts[j];
			double p = sg.pvals[j];

			sg.cuts[j] = sg.cuts[j - 1];
			sg.pvals[j] = sg.pvals[j - 1];
			sg.cuts[j - 1] = t;
			sg.pvals[j - 1] = p;
		}
	for (i = 0; i < sg.ncuts; i++)
		fill_point(med, k, sg.cuts, sg.ncuts, i, sg.pvals[i], dir, &out[i]);
	*n = sg.ncuts;
	free(sg.cuts);
	free(sg.pvals);
	free(med);
	return 0;
}

void fl_cp_opts_init(struct fl_cp_opts *o)
{
	o->alpha = 0.01;
	o->perms = 199;
	o->seed = 0x5eed;
	o->max = 8;
	o->min_positions = 4;
}

/*
 * passfail.c - the pass/fail model of the bisection engine (bisect.h): each
 * sample is a test outcome, the test may be flaky, and the posterior over
 * the culprit integrates both flake rates out.
 *
 * With the culprit at position c, commits before c are good and fail with
 * rate f (false fail), commits from c on are bad and pass with rate p (false
 * pass). Under priors on f and p that are mixtures of Beta distributions
 * the likelihood of every outcome seen, with f and p integrated out, is a
 * sum of ratios of Beta functions of four counts (passes and fails on
 * either side of c): exact, and the same for every
 * position between two tested commits, so the work grows with the commits
 * tested, not with the history. The predictive chance that a run fails is
 * the posterior mean of the rate on its side, which is what the choice of
 * the next commit (expected information about c) uses.
 */
#include "analysis/bisect-core.h"
#include "lib/buf.h"

#include <math.h>
#include <stdlib.h>

/*
 * The prior of each rate. Not stated: a mixture of a reliable test (a flake
 * in some 25000 runs) at weight 0.99 and a flaky one at 0.01, whose means
 * are those of a typical intermittent failure: a bad commit's test passing
 * one time in five, a good commit's failing one time in twenty. A test
 * that never contradicts itself is then believed after one run per commit
 * (git bisect's runs: a history of a few thousand commits is where the
 * first extra run shows), while one contradiction makes the flaky component
 * the likelier by far. A test that is flaky but happens not to contradict
 * itself cannot be told from a reliable one by any rule: the runs it gave
 * are the same. Stating the rates makes each the mean of one Beta prior
 * weighing as much as ten runs, and the search then repeats runs until the
 * flakes are accounted for.
 */
#define STATED_WEIGHT 10.0
#define RELIABLE_W    0.99

struct beta {
	double a, b;
};

struct rate_prior {
	struct beta c[2];
	double w[2]; /* log weights; -INFINITY: no such component */
};

static const struct beta reliable = {0.002, 50};

static struct rate_prior prior(double stated, double flaky_mean)
{
	struct rate_prior p;

	if (stated > 0) {
		p.c[0] = (struct beta){STATED_WEIGHT * stated, STATED_WEIGHT * (1 - stated)};
		p.w[0] = 0;
		p.c[1] = p.c[0];
		p.w[1] = -INFINITY;
		return p;
	}
	p.c[0] = reliable;
	p.w[0] = log(RELIABLE_W);
	p.c[1] = (struct beta){STATED_WEIGHT * flaky_mean, STATED_WEIGHT * (1 - flaky_mean)};
	p.w[1] = log(1 - RELIABLE_W);
	return p;
}

static double lbeta(double a, double b)
{
	return lgamma(a) + lgamma(b) - lgamma(a + b);
}

/* log P(k rate events in k + m trials) with the rate integrated out, and
 * the rate's posterior mean in *mean. */
static double marginal(const struct rate_prior *p, double k, double m, double *mean)
{
	double l[2], max, sum = 0, num = 0;

	for (int i = 0; i < 2; i++) {
		const struct beta *c = &p->c[i];

		l[i] = p->w[i] + lbeta(c->a + k, c->b + m) - lbeta(c->a, c->b);
	}
	max = fmax(l[0], l[1]);
	for (int i = 0; i < 2; i++) {
		const struct beta *c = &p->c[i];
		double e = exp(l[i] - max);

		sum += e;
		num += e * (c->a + k) / (c->a + c->b + k + m);
	}
	*mean = num / sum;
	return max + log(sum);
}

static int observed(const fl_bisect *b, size_t i)
{
	return i < b->n && (b->c[i].pass || b->c[i].fail);
}

/*
 * The splits: split[j] is the positions lo+1..at between two consecutive
 * tested commits (at is npos for the last one), with mu[0] the mean false
 * fail rate and mu[1] the mean false pass rate given the culprit there.
 * post[c] = P(culprit = c) for c in 1..npos, uniform prior over positions.
 */
void fl_passfail_posterior(fl_bisect *b)
{
	struct rate_prior pf = prior(b->o.false_fail, 0.05), pp = prior(b->o.false_pass, 0.2);
	double gp = b->c[0].pass, gf = b->c[0].fail, bp = 0, bf = 0, max = -INFINITY, sum = 0;
	struct split *sp = b->split;
	size_t prev = 0, m = 1;

	for (size_t i = 1; i < b->n; i++) {
		bp += b->c[i].pass;
		bf += b->c[i].fail;
	}
	for (size_t i = 1; i <= b->npos; i++) {
		if (!observed(b, i) && i != b->npos)
			continue;
		/* the culprit in prev+1..i: commits up to prev good, from i on bad */
		sp[m].lo = prev;
		sp[m].at = i;
		sp[m].mass =
		    marginal(&pf, gf, gp, &sp[m].mu[0]) + marginal(&pp, bp, bf, &sp[m].mu[1]);
		max = fmax(max, sp[m].mass);
		m++;
		if (i < b->n) {
			gp += b->c[i].pass;
			gf += b->c[i].fail;
			bp -= b->c[i].pass;
			bf -= b->c[i].fail;
		}
		prev = i;
	}
	for (size_t j = 1; j < m; j++) {
		double l = exp(sp[j].mass - max);

		sp[j].mass = l * (double)(sp[j].at - sp[j].lo);
		sum += sp[j].mass;
		for (size_t c = sp[j].lo + 1; c <= sp[j].at; c++)
			b->post[c] = l;
	}
	for (size_t j = 1; j < m; j++)
		sp[j].mass /= sum;
	for (size_t c = 1; c <= b->npos; c++)
		b->post[c] /= sum;
	b->nsplit = m;
	b->have_post = 1;
}

static double entropy2(double q)
{
	return q <= 0 || q >= 1 ? 0 : -q * log(q) - (1 - q) * log1p(-q);
}

/*
 * The information (in nats) one more run of commit i is expected to give
 * about the culprit position: the entropy of its outcome less the expected
 * entropy given the position. Commit i is bad for every position up to it.
 */
static double info_gain(const fl_bisect *b, size_t i)
{
	double fail = 0, cond = 0;

	for (size_t j = 1; j < b->nsplit; j++) {
		const struct split *sp = &b->split[j];
		double wb = 0, wg, qb = 1 - sp->mu[1], qg = sp->mu[0];

		if (i >= sp->at)
			wb = sp->mass;
		else if (i > sp->lo)
			wb = sp->mass * (double)(i - sp->lo) / (double)(sp->at - sp->lo);
		wg = sp->mass - wb;
		fail += wb * qb + wg * qg;
		cond += wb * entropy2(qb) + wg * entropy2(qg);
	}
	return entropy2(fail) - cond;
}

/*
 * The commit to run next: of the commits already run (a repeat is what
 * tells a flake from a culprit), the ends, and the untested commits at the
 * middle of each interval between tested commits and at the posterior
 * median, the one expected to tell the most. n when nothing can be run.
 */
static size_t choose(const fl_bisect *b)
{
	size_t *cand = fl_xmalloc((3 * b->nsplit + 2) * sizeof(size_t)), nc, pick = b->n;
	double best = -1;

	cand[0] = 0;
	cand[1] = b->n - 1;
	nc = 2 + fl_bisect_candidates(b, cand + 2);
	for (size_t k = 0; k < nc; k++) {
		double g;

		if (b->c[cand[k]].skipped)
			continue;
		g = info_gain(b, cand[k]);
		if (g > best + 1e-12 || (g > best - 1e-12 && cand[k] < pick)) {
			best = g;
			pick = cand[k];
		}
	}
	free(cand);
	return pick;
}

/* The split holding position c: the rates the answer is given with. */
static const struct split *split_of(const fl_bisect *b, size_t c)
{
	for (size_t j = 1; j < b->nsplit; j++)
		if (c > b->split[j].lo && c <= b->split[j].at)
			return &b->split[j];
	return &b->split[b->nsplit - 1];
}

static void answer(fl_bisect *b, struct fl_bisect_result *res, enum fl_bisect_kind kind,
		   double conf, size_t first, size_t last)
{
	const struct split *sp = split_of(b, first);

	res->kind = kind;
	res->confidence = conf;
	res->first = first;
	res->last = last;
	res->false_fail = sp->mu[0];
	res->false_pass = sp->mu[1];
	res->good_value = res->bad_value = NAN;
}

int fl_passfail_search(fl_bisect *b, struct fl_bisect_result *res)
{
	size_t first = 1, last = 1, pick;
	double conf, none;
	int r;

	for (;;) {
		fl_passfail_posterior(b);
		conf = fl_bisect_best_block(b, &first, &last);
		none = b->npos == b->n ? b->post[b->n] : 0;
		if (none >= b->o.confidence) {
			answer(b, res, FL_BISECT_NO_REGRESSION, none, b->n - 1, b->n - 1);
			return 0;
		}
		if (conf >= b->o.confidence) {
			answer(b, res, first == last ? FL_BISECT_CULPRIT : FL_BISECT_RANGE, conf,
			       first, last);
			return 0;
		}
		if (!fl_bisect_budget_left(b) || (pick = choose(b)) == b->n)
			break;
		if ((r = fl_bisect_run_one(b, FL_PHASE_SEARCH, pick, NULL)))
			return r;
	}
	answer(b, res, FL_BISECT_INCONCLUSIVE, fmax(conf, none), first, last);
	return 0;
}

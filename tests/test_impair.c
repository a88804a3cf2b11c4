/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tier 1 tests of models/impair.c and control/impair_spec.c: each loss chain and jitter
 * distribution held against its definition, and the netem words read or refused.
 *
 * The draws are seeded, so each check gives the same answer on every run; the bounds are still
 * those a fresh sample of the size would meet but with probability about 1e-9, so that a model
 * that is wrong by more fails and one that is right passes for any seed:
 *   - a loss rate of n independent frames: |rate - p| <= 6 sqrt(p (1 - p) / n) (normal
 *     approximation to the binomial; 6 sigma: 2e-9);
 *   - a Markov chain's frames are not independent: its rate is held by batch means (100 batches
 *     of n / 100 frames, each batch far longer than the chain's memory), |mean - rate| <= 6 s /
 *     sqrt(100), s the batches' standard deviation;
 *   - Gilbert-Elliott's loss bursts are independent geometric runs: their mean against 1/R with
 *     6 standard errors, sqrt((1 - R) / R^2 / bursts);
 *   - the reordered fraction against its closed form, by batch means (test_reorder_fraction());
 *   - RED's marks against its curve (test_red_curve());
 *   - a jitter sample against its distribution: the Kolmogorov-Smirnov distance D_n, bounded by
 *     the Dvoretzky-Kiefer-Wolfowitz inequality P(D_n > e) <= 2 exp(-2 n e^2) at 1e-9:
 *     e = sqrt(ln(2e9) / (2 n)).
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common.h"
#include "impair_spec.h"

#define SEED 20261205u
#define BATCHES 100

static double
batch_bound(const double *x, int n)
{
	double m = 0, v = 0;

	for (int i = 0; i < n; i++)
		m += x[i];
	m /= n;
	for (int i = 0; i < n; i++)
		v += (x[i] - m) * (x[i] - m);
	return 6.0 * sqrt(v / (n - 1)) / sqrt((double)n);
}

/* The chain's loss rate by batch means; the bound into *bound. */
static double
chain_rate(const struct sm_impair *im, uint64_t seed, uint32_t n, double *bound)
{
	struct sm_impair_state st;
	double batch[BATCHES], lost = 0;
	uint32_t per = n / BATCHES;

	sm_impair_start(&st, seed);
	for (int b = 0; b < BATCHES; b++) {
		uint32_t k = 0;

		for (uint32_t i = 0; i < per; i++)
			k += sm_impair_lose(im, &st);
		batch[b] = (double)k / per;
		lost += k;
	}
	*bound = batch_bound(batch, BATCHES);
	return lost / ((double)per * BATCHES);
}

static void
test_random_loss(void **state)
{
	const double ps[] = { 0.001, 0.01, 0.1, 0.5 };
	const uint32_t n = 2000000;

	(void)state;
	for (unsigned int i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		struct sm_impair im = { .loss = SM_LOSS_RANDOM, .p = { ps[i] } };
		struct sm_impair_state st;
		uint32_t k = 0, run = 0, runs = 0, pairs = 0;
		bool prev = false;

		sm_impair_start(&st, SEED + i);
		for (uint32_t f = 0; f < n; f++) {
			bool l = sm_impair_lose(&im, &st);

			k += l;
			pairs += l && prev;	/* independence: P(lost | lost before) = p */
			runs += l && !prev;
			run += l;
			prev = l;
		}
		double rate = (double)k / n, bound = 6 * sqrt(ps[i] * (1 - ps[i]) / n);

		assert_true(fabs(rate - ps[i]) <= bound);
		assert_true(fabs(sm_impair_loss_rate(&im) - ps[i]) < 1e-15);
		/* of the k - 1 frames after a loss, a fraction p lost again */
		double again = (double)pairs / (k - 1);

		assert_true(fabs(again - ps[i]) <= 6 * sqrt(ps[i] * (1 - ps[i]) / (k - 1)));
		(void)run;
		(void)runs;
	}
}

static void
test_gemodel(void **state)
{
	/* (P, R, 1-H, 1-K): simple Gilbert (losses exactly in bad), then with losses in good and
	 * frames through in bad, then tc's default R = 1 - P: Bernoulli */
	const struct sm_impair cases[] = {
		{ .loss = SM_LOSS_GE, .p = { 0.01, 0.10, 1.0, 0.0 } },
		{ .loss = SM_LOSS_GE, .p = { 0.002, 0.25, 1.0, 0.0 } },
		{ .loss = SM_LOSS_GE, .p = { 0.05, 0.30, 0.70, 0.005 } },
		{ .loss = SM_LOSS_GE, .p = { 0.03, 0.97, 1.0, 0.0 } },
	};
	const uint32_t n = 4000000;

	(void)state;
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct sm_impair *im = &cases[i];
		double want = sm_impair_loss_rate(im), bound, got;
		double bad = im->p[0] / (im->p[0] + im->p[1]);

		assert_true(fabs(want - ((1 - bad) * im->p[3] + bad * im->p[2])) < 1e-15);
		got = chain_rate(im, SEED + 10 + i, n, &bound);
		print_message("gemodel %g %g %g %g: loss %.6f, stationary %.6f (bound %.6f)\n",
			      im->p[0], im->p[1], im->p[2], im->p[3], got, want, bound);
		assert_true(fabs(got - want) <= bound);
		if (!isnan(sm_impair_mean_burst(im))) {
			struct sm_impair_state st;
			uint64_t bursts = 0, in_bursts = 0;
			bool prev = false;

			sm_impair_start(&st, SEED + 20 + i);
			for (uint32_t f = 0; f < n; f++) {
				bool l = sm_impair_lose(im, &st);

				bursts += l && !prev;
				in_bursts += l;
				prev = l;
			}
			double mean = (double)in_bursts / bursts, r = im->p[1];
			double se = sqrt((1 - r) / (r * r) / bursts);

			print_message("  bursts %lu, mean length %.4f, 1/R %.4f (6 se %.4f)\n",
				      (unsigned long)bursts, mean, 1 / r, 6 * se);
			assert_true(fabs(mean - 1 / r) <= 6 * se);
		}
	}
}

static void
test_4state(void **state)
{
	/* P13 P31 P32 P23 P14: Bernoulli (P13 alone), Gilbert (P13, P31), and the full chain */
	struct sm_impair cases[] = {
		{ .loss = SM_LOSS_4STATE, .p = { 0.02, 0.98, 0.0, 1.0, 0.0 } },
		{ .loss = SM_LOSS_4STATE, .p = { 0.01, 0.30, 0.0, 1.0, 0.0 } },
		{ .loss = SM_LOSS_4STATE, .p = { 0.01, 0.30, 0.20, 0.10, 0.001 } },
		{ .loss = SM_LOSS_4STATE, .p = { 0.005, 0.6, 0.35, 0.02, 0.01 } },
	};
	const uint32_t n = 4000000;

	(void)state;
	/* Bernoulli: its rate is P13 exactly; Gilbert (P32 = P14 = 0): P13 / (P13 + P31) */
	assert_true(fabs(sm_impair_loss_rate(&cases[0]) - 0.02) < 1e-12);
	assert_true(fabs(sm_impair_loss_rate(&cases[1]) - 0.01 / 0.31) < 1e-12);
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double bound, want = sm_impair_loss_rate(&cases[i]);
		double got = chain_rate(&cases[i], SEED + 30 + i, n, &bound);

		print_message("state %g %g %g %g %g: loss %.6f, stationary %.6f (bound %.6f)\n",
			      cases[i].p[0], cases[i].p[1], cases[i].p[2], cases[i].p[3],
			      cases[i].p[4], got, want, bound);
		assert_true(fabs(got - want) <= bound);
	}
}

static int
cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void
test_jitter(void **state)
{
	const enum sm_jitter_dist ds[] = { SM_JITTER_UNIFORM, SM_JITTER_NORMAL, SM_JITTER_PARETO,
					   SM_JITTER_PARETONORMAL };
	const uint32_t n = 200000;
	const double eps = sqrt(log(2e9) / (2.0 * n));
	double *x = malloc(n * sizeof(*x));

	(void)state;
	assert_non_null(x);
	for (unsigned int i = 0; i < sizeof(ds) / sizeof(ds[0]); i++) {
		struct sm_impair im = { .dist = ds[i], .jitter = 0.005 };
		struct sm_impair_state st;
		double d = 0, mean = 0, var = 0, lo = sm_impair_jitter_min(ds[i]);

		sm_impair_start(&st, SEED + 40 + i);
		for (uint32_t k = 0; k < n; k++) {
			x[k] = sm_impair_jitter(&im, &st) / im.jitter;
			mean += x[k];
		}
		mean /= n;
		qsort(x, n, sizeof(*x), cmp_dbl);
		/* paretonormal's CDF is a sum over 20000 points: from a table on [-6, 14) J, linear
		 * between its points 0.01 J apart: an error of at most h^2 / 8 max F'', about 1e-5 */
		static double tab[2001];

		if (ds[i] == SM_JITTER_PARETONORMAL)
			for (int g = 0; g <= 2000; g++)
				tab[g] = sm_impair_jitter_cdf(ds[i], -6.0 + 0.01 * g);
		for (uint32_t k = 0; k < n; k++) {
			double f, at = (x[k] + 6.0) / 0.01;

			if (ds[i] != SM_JITTER_PARETONORMAL)
				f = sm_impair_jitter_cdf(ds[i], x[k]);
			else if (at <= 0)
				f = 0;
			else if (at >= 2000)
				f = sm_impair_jitter_cdf(ds[i], x[k]);
			else
				f = tab[(int)at] + (at - (int)at) * (tab[(int)at + 1] - tab[(int)at]);

			d = fmax(d, fmax(fabs(f - (double)k / n), fabs(f - (double)(k + 1) / n)));
			var += (x[k] - mean) * (x[k] - mean);
		}
		var /= n - 1;
		print_message("%s: KS distance %.5f (bound %.5f), mean %.4f, sd %.4f, min %.4f "
			      "(least %.4f), p50 %.4f, p99 %.4f\n", sm_jitter_dist_name(ds[i]), d,
			      eps, mean, sqrt(var), x[0], lo, x[n / 2], x[n * 99 / 100]);
		assert_true(d <= eps);
		assert_true(x[0] >= lo);
		/* the scale: uniform's deviation is 1/sqrt(3), normal's 1, within 6 standard errors
		 * of a sample deviation, sd sqrt((kurtosis - 1) / (4 n)): 0.010 for n = 200000
		 * (Pareto of shape 3 has no fourth moment: its deviation is the KS test's) */
		if (ds[i] == SM_JITTER_UNIFORM)
			assert_true(fabs(sqrt(var) - 1 / sqrt(3)) < 6 * sqrt(0.8 / (4.0 * n)) / sqrt(3));
		if (ds[i] == SM_JITTER_NORMAL)
			assert_true(fabs(sqrt(var) - 1) < 6 * sqrt(2.0 / (4.0 * n)));
	}
	free(x);
}

/* duplicate and corrupt: each within 6 sigma of its probability, the flipped bit inside the frame
 * and uniform over it (its mean within 6 standard errors of (8 len - 1) / 2) */
static void
test_fate(void **state)
{
	struct sm_impair im = { .duplicate = 0.02, .corrupt = 0.005 };
	struct sm_impair_state st;
	const uint32_t n = 2000000, len = 1514;
	uint64_t dup = 0, cor = 0;
	double bits = 0;

	(void)state;
	sm_impair_start(&st, SEED + 60);
	for (uint32_t i = 0; i < n; i++) {
		bool c, d;
		uint32_t bit;

		sm_impair_fate(&im, &st, len, &c, &bit, &d);
		dup += d;
		cor += c;
		if (c) {
			assert_true(bit < 8 * len);
			bits += bit;
		}
	}
	assert_true(fabs((double)dup / n - 0.02) <= 6 * sqrt(0.02 * 0.98 / n));
	assert_true(fabs((double)cor / n - 0.005) <= 6 * sqrt(0.005 * 0.995 / n));
	double m = bits / cor, mid = (8.0 * len - 1) / 2, sd = 8.0 * len / sqrt(12.0);

	print_message("duplicated %lu, corrupted %lu of %u; mean bit %.1f (mid %.1f)\n",
		      (unsigned long)dup, (unsigned long)cor, n, m, mid);
	assert_true(fabs(m - mid) <= 6 * sd / sqrt((double)cor));
	assert_true(sm_impair_active(&im));
}

/* The same seed, the same draws; another seed, others; the two streams apart. */
static void
test_streams(void **state)
{
	struct sm_impair im = { .loss = SM_LOSS_RANDOM, .p = { 0.3 }, .dist = SM_JITTER_NORMAL,
				.jitter = 1 };
	struct sm_impair only_loss = { .loss = SM_LOSS_RANDOM, .p = { 0.3 } };
	struct sm_impair_state a, b, c;
	int same = 0, differ = 0;

	(void)state;
	sm_impair_start(&a, 7);
	sm_impair_start(&b, 7);
	sm_impair_start(&c, 8);
	for (int i = 0; i < 1000; i++) {
		bool la = sm_impair_lose(&im, &a);

		assert_int_equal(la, sm_impair_lose(&only_loss, &b));	/* jitter not drawn in b */
		(void)sm_impair_jitter(&im, &a);
		differ += la != sm_impair_lose(&im, &c);
		same++;
	}
	assert_true(differ > 100);
	assert_int_equal(same, 1000);
}

struct spec_case {
	const char *text;
	int rc;
	const char *why;	/* a substring of the message, or of nothing */
};

static void
test_spec(void **state)
{
	static const struct spec_case cases[] = {
		{ "none", 0, NULL },
		{ "loss random 1%", 0, NULL },
		{ "loss gemodel 1% 10% 70% 0.1%", 0, NULL },
		{ "loss state 1% 30% 20% 10% 0.1% jitter 5ms distribution paretonormal reorder", 0,
		  NULL },
		{ "jitter 200 us", -EINVAL, "'200' at byte 7" },
		{ "jitter 200us normal fifo", 0, NULL },
		{ "", -EINVAL, "empty" },
		{ "loss", -EINVAL, "needs a model" },
		{ "loss random", -EINVAL, "missing at the end" },
		{ "loss random 1", -EINVAL, "'1' at byte 12" },
		{ "loss random 101%", -EINVAL, "0% to 100%" },
		{ "loss random 1% 25%", -EINVAL, "correlation" },
		{ "loss bogus 1%", -EINVAL, "'bogus' at byte 5" },
		{ "loss state 80% 50% 60%", -EINVAL, "at most 100%" },
		{ "delay 5ms", -EINVAL, "jitter TIME" },
		{ "jitter -1ms", -EINVAL, "0 s or more" },
		{ "jitter 1ms distribution", -EINVAL, "needs one of" },
		{ "jitter 1ms distribution cauchy", -EINVAL, "'cauchy' at byte 24" },
		{ "loss random 1% loss random 2%", -EINVAL, "given twice" },
		{ "jitter 1ms normal extra", -EINVAL, "'extra' at byte 18" },
		{ "loss random 1% duplicate 1% corrupt 0.1%", 0, NULL },
		{ "duplicate 1", -EINVAL, "'1' at byte 10" },
		{ "corrupt 1% 25%", -EINVAL, "correlation" },
		{ "corrupt 1% corrupt 2%", -EINVAL, "given twice" },
		{ "red min 30kB max 90kB probability 2% ecn", 0, NULL },
		{ "red min 30kB max 90kB probability 0.02 burst 20 avpkt 1500B harddrop gentle", 0,
		  NULL },
		{ "loss random 1% mark 60kB", 0, NULL },
		{ "red min 30kB max 90kB", -EINVAL, "needs min, max and probability" },
		{ "red min 90kB max 30kB probability 2%", -EINVAL, "must be above min" },
		{ "red min 30KB max 90kB probability 2%", -EINVAL, "'30KB' at byte 8" },
		{ "red min 30kB max 90kB probability 2 ", -EINVAL, "(0, 1]" },
		{ "red min 30kB max 90kB probability x", -EINVAL, "'x' at byte 34" },
		{ "red min 30kB min 40kB", -EINVAL, "given twice" },
		{ "mark 60kB red min 1kB max 2kB probability 1%", -EINVAL, "red or mark" },
		{ "mark", -EINVAL, "missing at the end" },
	};
	char why[512];

	(void)state;
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sm_impair im = { .loss = SM_LOSS_RANDOM, .p = { 0.5 } }, keep = im;
		int rc;

		why[0] = '\0';
		rc = sc_impair_parse(cases[i].text, &im, why, sizeof(why));
		print_message("'%s': %d %s\n", cases[i].text, rc, why);
		assert_int_equal(rc, cases[i].rc);
		if (rc != 0) {
			assert_non_null(strstr(why, cases[i].why));
			assert_memory_equal(&im, &keep, sizeof(im));	/* untouched */
		}
	}
	{
		struct sm_impair im;
		char name[24];

		assert_int_equal(sc_impair_parse_link("wan0>1 loss gemodel 1% 10%", name, sizeof(name),
						      &im, why, sizeof(why)), 0);
		assert_string_equal(name, "wan0>1");
		assert_int_equal(im.loss, SM_LOSS_GE);
		assert_true(im.p[1] == 0.1 && im.p[2] == 1.0 && im.p[3] == 0.0);
		assert_int_equal(sc_impair_parse_link("wan0>1 loss random 1", name, sizeof(name), &im,
						      why, sizeof(why)), -EINVAL);
		assert_non_null(strstr(why, "at byte 19"));	/* the whole text's offset */
		assert_int_equal(sc_impair_parse_link("wan0>1", name, sizeof(name), &im, why,
						      sizeof(why)), -EINVAL);
		assert_non_null(strstr(why, "no impairment after it"));
	}
}

/*
 * The reordered fraction: frames sent every s, each delayed by the latency plus its own jitter
 * X (netem's reorder: none waits for another), and a frame counted as the link counts it when
 * one sent later arrives before it.  Its closed form, 1 - E[prod_{k >= 1} (1 - F(X - k s))] (a
 * later frame k sends ahead by k s and must draw more than X - k s not to overtake), from F on
 * a grid 0.01 J apart over [-6, 14) J, against the draws' fraction by batch means (the counts of
 * neighbouring frames are not independent).
 */
static void
test_reorder_fraction(void **state)
{
	const enum sm_jitter_dist ds[] = { SM_JITTER_UNIFORM, SM_JITTER_NORMAL, SM_JITTER_PARETO,
					   SM_JITTER_PARETONORMAL };
	const double sp = 0.5;		/* the sending interval, in units of J */
	const uint32_t n = 200000, per = n / BATCHES;
	static double tab[2001];
	double *a = malloc(n * sizeof(*a));

	(void)state;
	assert_non_null(a);
	for (unsigned int i = 0; i < sizeof(ds) / sizeof(ds[0]); i++) {
		struct sm_impair im = { .dist = ds[i], .jitter = 0.002, .reorder = true };
		struct sm_impair_state st;
		double batch[BATCHES], lo, closed = 0, got = 0, bound;

		for (int g = 0; g <= 2000; g++)
			tab[g] = sm_impair_jitter_cdf(ds[i], -6.0 + 0.01 * g);
		/* E[prod] by the midpoint rule over the grid's cells */
		for (int g = 0; g < 2000; g++) {
			double x = -6.0 + 0.01 * (g + 0.5), pr = 1;

			for (int k = 1; x - k * sp > -6.0; k++) {
				double at = (x - k * sp + 6.0) / 0.01;
				int c = (int)at;

				pr *= 1 - (tab[c] + (at - c) * (tab[c + 1] - tab[c]));
			}
			closed += (tab[g + 1] - tab[g]) * pr;
		}
		closed = 1 - closed;
		sm_impair_start(&st, SEED + 60 + i);
		for (uint32_t k = 0; k < n; k++)
			a[k] = k * sp + sm_impair_jitter(&im, &st) / im.jitter;
		lo = INFINITY;
		for (int b = BATCHES - 1; b >= 0; b--) {
			uint32_t over = 0;

			for (uint32_t k = (uint32_t)(b + 1) * per; k-- > (uint32_t)b * per;) {
				over += lo < a[k];
				if (a[k] < lo)
					lo = a[k];
			}
			batch[b] = (double)over / per;
			got += over;
		}
		got /= n;
		bound = batch_bound(batch, BATCHES);
		print_message("%s: %.4f of the frames overtaken, closed form %.4f (+- %.4f)\n",
			      sm_jitter_dist_name(ds[i]), got, closed, bound);
		assert_true(fabs(got - closed) <= bound);
	}
	free(a);
}

/*
 * RED's marking curve: at a steady average between min and max, the frames taken are spaced
 * as Linux spaces them (the gap G from one to the next is k with probability p_b for k below
 * n = ceil(1 / p_b), the rest at n), so in N arrivals about N / E[G] are taken, with standard
 * deviation sqrt(N Var(G) / E[G]^3) (a renewal process's count).  6 of them bound each point.
 */
static void
test_red_curve(void **state)
{
	struct sm_red r = { .kind = SM_AQM_RED, .min = 30000, .max = 90000, .max_p = 0.1,
			    .ecn = true };
	struct sm_impair_state st;
	char why[200];
	const uint32_t n = 400000;

	(void)state;
	assert_int_equal(sm_red_finish(&r, why, sizeof(why)), 0);
	/* tc's weight: a power of two that absorbs the burst, and the next larger does not */
	assert_true(r.w > 0 && r.w <= 1 && frexp(r.w, &(int){ 0 }) == 0.5);
	{
		double b = (2 * r.min + r.max) / (3 * r.avpkt), lhs = b + 1 - r.min / r.avpkt;

		assert_true(lhs < (1 - pow(1 - r.w, b)) / r.w);
		assert_false(lhs < (1 - pow(1 - 2 * r.w, b)) / (2 * r.w));
	}
	sm_impair_start(&st, SEED);
	for (double at = 0.1; at < 1.0; at += 0.2) {
		double q = r.min + at * (r.max - r.min), p = sm_red_prob(&r, q), e = 0, e2 = 0;
		double k_max = ceil(1 / p), rate = sm_red_rate(&r, q), sd;
		struct sm_red_state rs;
		uint32_t marks = 0;

		for (double k = 1; k <= k_max; k++) {
			double pk = k < k_max ? p : 1 - (k_max - 1) * p;

			e += k * pk;
			e2 += k * k * pk;
		}
		assert_true(fabs(1 / e - rate) < 1e-12);
		sd = sqrt(n * (e2 - e * e) / (e * e * e));
		sm_red_start(&rs);
		rs.avg = q;
		for (uint32_t i = 0; i < n; i++) {
			enum sm_red_verdict v = sm_red_arrive(&r, &rs, (uint64_t)q, 0, true,
							     &st.aqm_rng);

			assert_int_not_equal(v, SM_RED_DROP);	/* ECT: marked, never dropped */
			marks += v == SM_RED_MARK;
		}
		print_message("avg %.0f B: p_b %.4f, %u marked of %u (%.5f), expected %.5f +- %.5f\n",
			      q, p, marks, n, (double)marks / n, rate, 6 * sd / n);
		assert_true(fabs(marks - n * rate) <= 6 * sd);
	}
	{
		/* not ECN-capable: dropped instead; above max: every frame, harddrop drops ECT */
		struct sm_red_state rs;
		uint32_t drops = 0;

		sm_red_start(&rs);
		rs.avg = 60000;
		for (uint32_t i = 0; i < 100000; i++) {
			enum sm_red_verdict v = sm_red_arrive(&r, &rs, 60000, 0, false, &st.aqm_rng);

			assert_int_not_equal(v, SM_RED_MARK);
			drops += v == SM_RED_DROP;
		}
		assert_true(drops > 0);
		rs.avg = 200000;
		assert_int_equal(sm_red_arrive(&r, &rs, 200000, 0, true, &st.aqm_rng), SM_RED_MARK);
		r.harddrop = true;
		assert_int_equal(sm_red_arrive(&r, &rs, 200000, 0, true, &st.aqm_rng), SM_RED_DROP);
		/* gentle: 2 max is where every frame is taken */
		r.gentle = true;
		assert_true(fabs(sm_red_prob(&r, 135000) - 0.55) < 1e-12);
		assert_true(sm_red_prob(&r, 180000) == 1);
		/* an idle queue: the average decays by (1 - W)^m */
		rs.avg = 50000;
		(void)sm_red_arrive(&r, &rs, 0, 10, true, &st.aqm_rng);
		assert_true(fabs(rs.avg - 50000 * pow(1 - r.w, 10)) < 1e-6);
	}
	{
		/* the step threshold: ECT frames above K marked, nothing below, nothing dropped */
		struct sm_red k = { .kind = SM_AQM_STEP, .min = 60000 };
		struct sm_red_state rs;

		assert_int_equal(sm_red_finish(&k, why, sizeof(why)), 0);
		sm_red_start(&rs);
		assert_int_equal(sm_red_arrive(&k, &rs, 60000, 0, true, &st.aqm_rng), SM_RED_PASS);
		assert_int_equal(sm_red_arrive(&k, &rs, 60001, 0, true, &st.aqm_rng), SM_RED_MARK);
		assert_int_equal(sm_red_arrive(&k, &rs, 600000, 0, false, &st.aqm_rng), SM_RED_PASS);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_loss),
		cmocka_unit_test(test_gemodel),
		cmocka_unit_test(test_4state),
		cmocka_unit_test(test_jitter),
		cmocka_unit_test(test_fate),
		cmocka_unit_test(test_streams),
		cmocka_unit_test(test_spec),
		cmocka_unit_test(test_reorder_fraction),
		cmocka_unit_test(test_red_curve),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

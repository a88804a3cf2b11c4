/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Statistics of a stream (models/stream.c): while exact, the same figures as sm_stats() bit for
 * bit; beyond, every quantile within the stated relative error of the exact value of its rank,
 * on samples of several shapes; bounded memory however wide the values spread; the confidence
 * interval of a stream of unknown length against the batch means computed apart.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "queueing.h"
#include "rng.h"
#include "stream.h"

/* A stream of x[0..n-1] expecting n values gives sm_stats() exactly (the sketch is exact). */
static void
same_as_sm_stats(const double *x, unsigned int n)
{
	struct sm_stream s;
	struct sm_stats a, b;
	unsigned int i;

	assert_int_equal(sm_stream_init(&s, n), 0);
	for (i = 0; i < n; i++)
		assert_int_equal(sm_stream_add(&s, x[i]), 0);
	assert_int_equal(sm_stream_stats(&s, &a), 0);
	assert_int_equal(sm_stats(x, n, &b), 0);
	assert_int_equal(a.n, b.n);
	assert_true(a.mean == b.mean);
	assert_true(a.median == b.median);
	assert_true(a.p99 == b.p99);
	assert_true(a.min == b.min && a.max == b.max);
	assert_true((isnan(a.ci95) && isnan(b.ci95)) || a.ci95 == b.ci95);
	sm_stream_free(&s);
}

static void
test_exact_equals_sm_stats(void **state)
{
	static const unsigned int sizes[] = { 1, 2, 3, 9, 10, 11, 100, 199, 200, 1001,
					       SM_SKETCH_EXACT };
	double *x = malloc(SM_SKETCH_EXACT * sizeof(*x));
	struct sm_rng r;
	unsigned int i, k;

	(void)state;
	assert_non_null(x);
	sm_rng_seed(&r, 5);
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		for (i = 0; i < sizes[k]; i++)	/* step times around 25 ms, some repeated */
			x[i] = i % 7 == 3 ? 0.025 : 0.02 + 0.01 * sm_rng_uniform(&r);
		same_as_sm_stats(x, sizes[k]);
	}
	free(x);
}

/* Every quantile of @x[0..n-1] read from the sketch is within its relative error. */
static void
within_alpha(const char *what, double *x, unsigned int n)
{
	static const double qs[] = { 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1 };
	struct sm_stream s;
	struct sm_stats st;
	unsigned int i, k;
	double worst = 0;

	assert_int_equal(sm_stream_init(&s, 0), 0);
	for (i = 0; i < n; i++)
		assert_int_equal(sm_stream_add(&s, x[i]), 0);
	assert_false(sm_sketch_is_exact(&s.q));
	assert_true(s.q.nb <= SM_SKETCH_BUCKETS);
	qsort(x, n, sizeof(*x), sm_cmp_double);
	for (k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
		uint64_t rank = (uint64_t)ceil(qs[k] * n);
		double got = sm_sketch_rank(&s.q, rank), want = x[rank - 1];
		double err = want > 0 ? fabs(got - want) / want : fabs(got);

		if (rank <= s.q.collapsed) {
			/* below the 1.3e7 the buckets span under the largest value: no bound */
			assert_true(want < x[n - 1] / 1.3e7);
			continue;
		}
		if (err > worst)
			worst = err;
		if (err > SM_SKETCH_ALPHA * (1 + 1e-9))
			fail_msg("%s: rank %lu of %u: %.12g, exact %.12g (relative error %.3g > %g)",
				 what, (unsigned long)rank, n, got, want, err, SM_SKETCH_ALPHA);
	}
	/* the median and p99 as sm_stream_stats() gives them, against the exact ones */
	assert_int_equal(sm_stream_stats(&s, &st), 0);
	assert_true(fabs(st.median - (x[n / 2 - 1] + x[n / 2]) / 2) <=
		    SM_SKETCH_ALPHA * (x[n / 2 - 1] + x[n / 2]) / 2 * (1 + 1e-9));
	assert_true(fabs(st.p99 - x[(n * 99 + 99) / 100 - 1]) <=
		    SM_SKETCH_ALPHA * x[(n * 99 + 99) / 100 - 1] * (1 + 1e-9));
	assert_true(st.min == x[0] && st.max == x[n - 1]);
	print_message("%s: worst relative error %.3g over %u values, %u buckets, %lu collapsed\n",
		      what, worst, n, s.q.nb, (unsigned long)s.q.collapsed);
	sm_stream_free(&s);
}

static void
test_sketch_error_bound(void **state)
{
	const unsigned int n = 200000;
	double *x = malloc(n * sizeof(*x));
	struct sm_rng r;
	unsigned int i;

	(void)state;
	assert_non_null(x);
	sm_rng_seed(&r, 11);
	for (i = 0; i < n; i++)
		x[i] = 0.02 + 0.01 * sm_rng_uniform(&r);	/* step times */
	within_alpha("uniform", x, n);
	for (i = 0; i < n; i++)
		x[i] = sm_rng_exp(&r, 4.5e-3);		/* waits */
	within_alpha("exponential", x, n);
	for (i = 0; i < n; i++)				/* Pareto, shape 1.1: heavy tail */
		x[i] = 80e-6 / pow(1 - sm_rng_uniform(&r), 1 / 1.1);
	within_alpha("pareto", x, n);
	for (i = 0; i < n; i++)				/* queue bytes: often empty */
		x[i] = i % 3 == 0 ? 0 : 8282.0 * (double)(1 + (uint64_t)(sm_rng_uniform(&r) * 9000));
	within_alpha("queue bytes with zeros", x, n);
	for (i = 0; i < n; i++)
		x[i] = 0.025;
	within_alpha("constant", x, n);
	for (i = 0; i < n; i++)				/* six decades */
		x[i] = 1e-9 * pow(10, 6 * sm_rng_uniform(&r));
	within_alpha("log-uniform over 1e-9..1e-3", x, n);
	free(x);
}

/* Values spread beyond the cap: memory stays bounded, the top of the range stays within bound. */
static void
test_sketch_bounded(void **state)
{
	struct sm_sketch q;
	unsigned int i;
	double top;

	(void)state;
	assert_int_equal(sm_sketch_init(&q), 0);
	for (i = 0; i < 1000000; i++)
		assert_int_equal(sm_sketch_add(&q, pow(10, -300 + 600.0 * (i % 1000) / 999)), 0);
	assert_true(q.nb <= SM_SKETCH_BUCKETS);
	assert_true(q.collapsed > 0);
	assert_true(sm_sketch_rank(&q, q.n) == q.max && sm_sketch_rank(&q, 1) == q.min);
	/* rank 999,000 (the 999th of the 1000 values, each 1000 times) is far above the collapsed */
	top = sm_sketch_rank(&q, 999000);
	assert_true(fabs(top / pow(10, -300 + 600.0 * 998 / 999) - 1) <= SM_SKETCH_ALPHA * 1.000001);
	assert_int_equal(sm_sketch_add(&q, -1), -EINVAL);
	assert_int_equal(sm_sketch_add(&q, NAN), -EINVAL);
	assert_int_equal(sm_sketch_add(&q, INFINITY), -EINVAL);
	assert_true(isnan(sm_sketch_rank(&q, 0)) && isnan(sm_sketch_rank(&q, q.n + 1)));
	sm_sketch_free(&q);
}

/* Unknown length: batches of equal size, 10 to 19 of them, the partial one left out. */
static void
test_unknown_length_ci(void **state)
{
	static const unsigned int sizes[] = { 10, 19, 20, 57, 1000, 4097, 123457 };
	struct sm_rng r;
	unsigned int k;

	(void)state;
	sm_rng_seed(&r, 3);
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		unsigned int n = sizes[k], i, j, size = 1, nb;
		double *x = malloc(n * sizeof(*x)), mean = 0, var = 0, want, w_mean = 0, w_var = 0;
		struct sm_stream s;
		struct sm_stats st;

		assert_non_null(x);
		assert_int_equal(sm_stream_init(&s, k % 2 ? 0 : 2 * n), 0);	/* 2n: cut short */
		for (i = 0; i < n; i++) {
			x[i] = sm_rng_exp(&r, 1.0) + (i / 100) * 0.01;	/* a drift */
			assert_int_equal(sm_stream_add(&s, x[i]), 0);
		}
		/* the batch size doubles while 20 batches would be full */
		while (n / size >= 2 * SM_STATS_BATCHES)
			size *= 2;
		nb = n / size;
		for (j = 0; j < nb; j++) {
			double b = 0;

			for (i = j * size; i < (j + 1) * size; i++)
				b += x[i];
			mean += b / size;
		}
		mean /= nb;
		for (j = 0; j < nb; j++) {
			double b = 0;

			for (i = j * size; i < (j + 1) * size; i++)
				b += x[i];
			var += (b / size - mean) * (b / size - mean);
		}
		var /= nb - 1;
		want = sm_t95(nb - 1) * sqrt(var / nb);
		assert_int_equal(sm_stream_stats(&s, &st), 0);
		if (fabs(st.ci95 - want) > 1e-9 * want)
			fail_msg("n %u: ci95 %.12g, batch means of %u x %u give %.12g", n, st.ci95, nb,
				 size, want);
		/* Welford's variance against two passes */
		for (i = 0; i < n; i++)
			w_mean += x[i] / n;
		for (i = 0; i < n; i++)
			w_var += (x[i] - w_mean) * (x[i] - w_mean) / (n - 1);
		assert_true(fabs(sm_stream_var(&s) - w_var) <= 1e-9 * w_var);
		sm_stream_free(&s);
		free(x);
	}
}

/* The helpers for values held whole: order, median, the nearest-index quantile. */
static void
test_sorted_helpers(void **state)
{
	double v[] = { 3, -1, 2, 0.5, -0.0, 0.0 }, q[1000], a = 1, b = 2;
	unsigned int i;

	(void)state;
	assert_int_equal(sm_cmp_double(&a, &b), -1);
	assert_int_equal(sm_cmp_double(&b, &a), 1);
	assert_int_equal(sm_cmp_double(&a, &a), 0);
	qsort(v, 6, sizeof(*v), sm_cmp_double);
	for (i = 1; i < 6; i++)
		assert_true(v[i - 1] <= v[i]);
	assert_true(sm_median_sorted(v, 6) == 0.25);	/* (0 + 0.5) / 2 */
	assert_true(sm_median_sorted(v, 5) == 0);
	assert_true(sm_median_sorted(v + 1, 1) == v[1]);
	for (i = 0; i < 1000; i++)
		q[i] = i;
	/* index round(q (n - 1)): 499.5 -> 500, 989.01 -> 989, 998.001 -> 998 */
	assert_true(sm_quantile_sorted(q, 1000, 0.5) == 500);
	assert_true(sm_quantile_sorted(q, 1000, 0.99) == 989);
	assert_true(sm_quantile_sorted(q, 1000, 0.999) == 998);
	assert_true(sm_quantile_sorted(q, 1000, 0) == 0);
	assert_true(sm_quantile_sorted(q, 1000, 1) == 999);
	assert_true(sm_quantile_sorted(q, 1, 0.99) == 0);
}

static void
test_stream_rejects(void **state)
{
	struct sm_stream s;
	struct sm_stats st;

	(void)state;
	assert_int_equal(sm_stream_init(&s, 10), 0);
	assert_int_equal(sm_stream_stats(&s, &st), -EINVAL);
	assert_int_equal(sm_stream_add(&s, -0.5), -EINVAL);
	assert_int_equal(sm_stream_add(&s, NAN), -EINVAL);
	assert_int_equal(s.n, 0);
	assert_int_equal(sm_stream_add(&s, 2), 0);
	assert_int_equal(sm_stream_stats(&s, &st), 0);
	assert_true(st.n == 1 && st.mean == 2 && st.median == 2 && st.p99 == 2 && isnan(st.ci95));
	assert_true(isnan(sm_stream_var(&s)));
	sm_stream_free(&s);
	assert_true(sm_t95(9) == SM_STATS_T95_9 && isnan(sm_t95(0)) && sm_t95(1000) == 1.96);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_equals_sm_stats),
		cmocka_unit_test(test_sketch_error_bound),
		cmocka_unit_test(test_sketch_bounded),
		cmocka_unit_test(test_unknown_length_ci),
		cmocka_unit_test(test_sorted_helpers),
		cmocka_unit_test(test_stream_rejects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

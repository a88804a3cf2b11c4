/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The lateness histogram (dataplane/lateness.c): every frame counted, each percentile the
 * nearest rank's value within dp_lateness_bucket_error() of it, the largest exact, early frames
 * and frames over DP_LATE_OVER_NS counted apart.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../dataplane/lateness.h"

static void
assert_near(double got, double want, double rel)
{
	if (fabs(got - want) > rel * want) {
		print_error("%.1f is not within %.3g of %.1f\n", got, rel, want);
		fail();
	}
}

/* n frames late by 0, 1, 2, ... ns: the percentiles are the nearest ranks' values. */
static void
test_uniform(void **state)
{
	const uint64_t n = 3000001;
	const double err = dp_lateness_bucket_error();
	struct dp_lateness l = { 0 };
	double med, p99, p999, max;
	uint64_t i;

	(void)state;
	assert_true(err <= 1.0 / 256);
	dp_lateness_reset(&l);
	assert_non_null(l.hist);
	for (i = 0; i < n; i++)
		dp_lateness_add(&l, 1000000 + i, 1000000);
	assert_int_equal(l.seen, n);
	assert_int_equal(l.early, 0);
	assert_int_equal(l.over, n - 1 - DP_LATE_OVER_NS);
	dp_lateness_stats(&l, &med, &p99, &p999, &max);
	/* rank k holds the value k - 1 */
	assert_near(med, (double)((n + 1) / 2 - 1), err);
	assert_near(p99, (double)((n * 99 + 99) / 100 - 1), err);
	assert_near(p999, (double)((n * 999 + 999) / 1000 - 1), err);
	assert_true(max == (double)(n - 1));
	dp_lateness_free(&l);
	assert_null(l.hist);
}

/* Small values are exact (a bucket a ns wide); one very late frame is the max, not p99. */
static void
test_small_exact_and_outlier(void **state)
{
	struct dp_lateness l = { 0 };
	double med, p99, p999, max;
	uint64_t i;

	(void)state;
	dp_lateness_reset(&l);
	for (i = 0; i < 1000; i++)
		dp_lateness_add(&l, 5000 + (i < 500 ? 40 : 90), 5000);
	dp_lateness_add(&l, 3ull << 41, 0);	/* beyond the histogram's range */
	dp_lateness_stats(&l, &med, &p99, &p999, &max);
	assert_true(med == 90.0);	/* rank 501 of 1001 */
	assert_true(p99 == 90.0);
	assert_true(p999 == 90.0);
	assert_true(max == (double)(3ull << 41));
	assert_int_equal(l.over, 1);
	dp_lateness_free(&l);
}

/* A frame handed over early counts as 0 late and apart; a reset clears every count. */
static void
test_early_and_reset(void **state)
{
	struct dp_lateness l = { 0 };
	double med, p99, p999, max;

	(void)state;
	dp_lateness_reset(&l);
	dp_lateness_add(&l, 100, 350);
	dp_lateness_add(&l, 100, 120);
	assert_int_equal(l.early, 2);
	assert_true(l.early_max == 250.0);
	dp_lateness_stats(&l, &med, &p99, &p999, &max);
	assert_true(med == 0 && p99 == 0 && max == 0);
	dp_lateness_reset(&l);
	assert_int_equal(l.seen, 0);
	assert_int_equal(l.early, 0);
	dp_lateness_stats(&l, &med, &p99, &p999, &max);
	assert_true(med == 0 && p99 == 0 && max == 0);
	dp_lateness_add(&l, 1000, 0);
	dp_lateness_stats(&l, &med, &p99, &p999, &max);
	assert_near(med, 1000, dp_lateness_bucket_error());
	assert_true(max == 1000.0);
	dp_lateness_free(&l);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uniform),
		cmocka_unit_test(test_small_exact_and_outlier),
		cmocka_unit_test(test_early_and_reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

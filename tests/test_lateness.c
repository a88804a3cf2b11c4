/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The lateness reservoir (dataplane/lateness.c): past DP_LATE_MAX frames, the samples kept are a
 * uniform sample of every frame seen (algorithm L), so the percentiles are those of all frames.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../dataplane/lateness.h"

/* 3 x DP_LATE_MAX frames late by 0, 1, 2, ... ns: the kept ones spread evenly over them. */
static void
test_reservoir_is_uniform(void **state)
{
	const uint64_t n = 3ull * DP_LATE_MAX;
	struct dp_lateness l = { 0 };
	uint64_t i, third[3] = { 0 };
	double sum = 0, med, p99, p999, max;

	(void)state;
	dp_lateness_reset(&l);
	assert_non_null(l.ns);
	for (i = 0; i < n; i++)
		dp_lateness_add(&l, 1000000 + i, 1000000);
	assert_int_equal(l.seen, n);
	assert_int_equal(l.n, DP_LATE_MAX);
	for (i = 0; i < l.n; i++) {
		sum += l.ns[i];
		third[(uint64_t)l.ns[i] * 3 / n]++;
	}
	/* a uniform sample of 2^20 from 0 .. n - 1: its mean within 0.3 % of (n - 1) / 2 (the
	 * standard error is 0.06 % of it), each third of the frames 1/3 of it within 1 % */
	assert_true(sum / (double)l.n > 0.997 * (double)(n - 1) / 2);
	assert_true(sum / (double)l.n < 1.003 * (double)(n - 1) / 2);
	for (i = 0; i < 3; i++) {
		assert_true(third[i] > 0.99 * (double)l.n / 3);
		assert_true(third[i] < 1.01 * (double)l.n / 3);
	}
	dp_lateness_stats(&l, &med, &p99, &p999, &max);
	assert_true(med > 0.99 * (double)n / 2 && med < 1.01 * (double)n / 2);
	assert_true(p99 > 0.985 * 0.99 * (double)n && p99 < 1.015 * 0.99 * (double)n);
	assert_true(max == (double)(n - 1));
	dp_lateness_free(&l);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reservoir_is_uniform),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

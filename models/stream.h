/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Statistics of a stream of values in bounded memory: what a run of a million steps, or of a
 * hundred million background transfers or queue samples, reports without holding its values.
 *
 * A stream keeps the count, the sum (in order: the mean is the one sm_stats() gives), Welford's
 * running mean and variance, the minimum and maximum, the batch means of the 95 % confidence
 * interval, and a quantile sketch for the median and p99:
 *   - exact while the stream has at most SM_SKETCH_EXACT values (they are kept and sorted);
 *   - beyond, a log-bucketed histogram (DDSketch: C. Masson, J. E. Rim, H. K. Lee, "DDSketch: a
 *     fast and fully-mergeable quantile sketch with relative-error guarantees", VLDB 2019):
 *     bucket i holds the values in (g^(i-1), g^i] with g = (1 + a) / (1 - a), and a quantile is
 *     read as its bucket's 2 g^i / (g + 1), within a relative error a = SM_SKETCH_ALPHA of the
 *     value of that rank.  Zeros are counted apart (exact).  At most SM_SKETCH_BUCKETS buckets
 *     are kept, which span a factor g^8192 = 1.3e7 below the largest value; values further below
 *     are counted in the lowest bucket (the bound then no longer holds for the quantiles that fall
 *     there: sm_sketch.collapsed says how many).
 * Batch means (A. M. Law, Simulation Modeling and Analysis, 5th ed., section 9.5.3): with the
 * count known in advance (a run's steps), the 10 consecutive batches of sm_stats() exactly, so a
 * stream of that many values gives sm_stats()'s figures bit for bit while it is exact; otherwise
 * (background transfers, queue samples, a run interrupted early) batches of equal size, 10 to 19
 * of them, merged in pairs as the stream grows (the last, partial batch left out), with Student
 * t at their degrees of freedom.
 *
 * Memory: a stream is about 0.3 KB plus SM_SKETCH_EXACT values (16 KB), and at most
 * SM_SKETCH_BUCKETS counts (64 KB) once it passes them, however long it runs.
 */
#ifndef SM_STREAM_H
#define SM_STREAM_H

#include <stdbool.h>
#include <stdint.h>

#include "queueing.h"

#define SM_SKETCH_EXACT 2048u		/**< values kept exactly */
#define SM_SKETCH_ALPHA 1e-3		/**< relative error of a quantile beyond them */
#define SM_SKETCH_BUCKETS 8192u		/**< buckets at most */

/** Quantiles of non-negative values. */
struct sm_sketch {
	uint64_t n;			/**< values added */
	double *exact;			/**< [SM_SKETCH_EXACT] the values while n <= that */
	bool sorted;			/**< exact[0..n-1] is sorted */
	uint64_t zeros;			/**< values that are 0 (histogram mode) */
	uint64_t *count;		/**< [nb] bucket counts; count[k] is bucket lo + k */
	int32_t lo;
	uint32_t nb;
	uint64_t collapsed;		/**< values counted in the lowest bucket from below it */
	double min, max;
};

/** An empty sketch; 0 or -ENOMEM. */
int sm_sketch_init(struct sm_sketch *q);

/** Add @p x (>= 0, finite); 0, -EINVAL, or -ENOMEM (the sketch is then unchanged). */
int sm_sketch_add(struct sm_sketch *q, double x);

/**
 * The value of rank @p k (1 <= k <= n) of the values added in ascending order: exact while
 * n <= SM_SKETCH_EXACT and for the first and last rank, else within a relative error
 * SM_SKETCH_ALPHA for the ranks above sm_sketch.collapsed (see above); NAN if k is out of
 * range.
 */
double sm_sketch_rank(struct sm_sketch *q, uint64_t k);

/** Whether the quantiles are exact (n <= SM_SKETCH_EXACT). */
bool sm_sketch_is_exact(const struct sm_sketch *q);

void sm_sketch_free(struct sm_sketch *q);

/** A stream's summary state. */
struct sm_stream {
	uint64_t n;			/**< values added */
	uint64_t expect;		/**< values expected (0: not known) */
	double sum;			/**< in the order added */
	double w_mean, w_m2;		/**< Welford: running mean, sum of squared deviations */
	/* the 10 batches of sm_stats() over @c expect values */
	double bsum[SM_STATS_BATCHES];
	uint32_t bj;			/**< the batch value n goes into */
	uint64_t bhi;			/**< the first value of batch bj + 1 */
	/* batches of equal size when the count is not known */
	double dsum[2 * SM_STATS_BATCHES];
	uint32_t dfull;			/**< full batches */
	uint64_t dsize, dcur_n;		/**< batch size, values in the current batch */
	double dcur;
	struct sm_sketch q;
};

/**
 * An empty stream expecting @p expect values (0: not known): with exactly that many the
 * confidence interval is sm_stats()'s.  0 or -ENOMEM.
 */
int sm_stream_init(struct sm_stream *s, uint64_t expect);

/** Add @p x (>= 0, finite); 0, -EINVAL or -ENOMEM (the stream is then unchanged). */
int sm_stream_add(struct sm_stream *s, double x);

/**
 * The summary (struct sm_stats: n, mean, median, p99, min, max, ci95) of the values added.
 *
 * @return 0; -EINVAL if none was added
 */
int sm_stream_stats(struct sm_stream *s, struct sm_stats *out);

/** Welford's variance of the values added (n - 1 in the denominator); NAN below 2 values. */
double sm_stream_var(const struct sm_stream *s);

/** The two-sided 95 % Student t quantile at @p df degrees of freedom (1 to 30; beyond, 1.96). */
double sm_t95(unsigned int df);

void sm_stream_free(struct sm_stream *s);

/*
 * Helpers for values held whole (an array): sort with qsort(v, n, sizeof(*v), sm_cmp_double),
 * then read the median or a quantile.
 */

/** qsort(3)'s comparison of two doubles: -1, 0 or 1 for ascending order. */
int sm_cmp_double(const void *a, const void *b);

/** The median of @p v[0..n-1] sorted ascending: the mean of the middle two for even @p n; n > 0. */
double sm_median_sorted(const double *v, uint64_t n);

/**
 * Quantile @p q (0..1) of @p v[0..n-1] sorted ascending: the value of index round(q (n - 1));
 * n > 0.
 */
double sm_quantile_sorted(const double *v, uint64_t n, double q);

#endif /* SM_STREAM_H */

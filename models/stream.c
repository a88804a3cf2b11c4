/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Statistics of a stream in bounded memory (see stream.h for the method and its sources).
 *
 * The quantile sketch.  With g = (1 + a) / (1 - a), a value x > 0 goes to bucket
 * i = ceil(ln x / ln g), which holds (g^(i-1), g^i]; reading the bucket as r = 2 g^i / (g + 1)
 * gives |r - x| / x <= (g - 1) / (g + 1) = a for every x in it, so the value of any rank is read
 * within a relative error a.  The buckets kept are a window [lo, lo + nb) that grows (doubling)
 * towards the values seen, up to SM_SKETCH_BUCKETS; past that the lowest buckets are merged into
 * the new lowest one.  The median of an even count is the mean of two ranks, each within a, so it
 * is within a too; a quantile is clamped to the exact minimum and maximum.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stream.h"

static double
sk_gamma(void)
{
	return (1 + SM_SKETCH_ALPHA) / (1 - SM_SKETCH_ALPHA);
}

static int32_t
sk_index(double x)
{
	return (int32_t)ceil(log(x) / log(sk_gamma()));
}

int
sm_sketch_init(struct sm_sketch *q)
{
	memset(q, 0, sizeof(*q));
	q->exact = malloc(SM_SKETCH_EXACT * sizeof(*q->exact));
	if (q->exact == NULL)
		return -ENOMEM;
	q->sorted = true;
	q->min = NAN;
	q->max = NAN;
	return 0;
}

void
sm_sketch_free(struct sm_sketch *q)
{
	free(q->exact);
	free(q->count);
	q->exact = NULL;
	q->count = NULL;
	q->nb = 0;
}

bool
sm_sketch_is_exact(const struct sm_sketch *q)
{
	return q->exact != NULL;
}

/*
 * A window of @nb buckets from @lo holding the counts of @q (those below @lo counted in the
 * lowest bucket); replaces q's window.  0 or -ENOMEM (q unchanged).
 */
static int
rewindow(struct sm_sketch *q, int32_t lo, uint32_t nb)
{
	uint64_t *c = calloc(nb, sizeof(*c));
	uint32_t k;

	if (c == NULL)
		return -ENOMEM;
	for (k = 0; k < q->nb; k++) {
		int64_t b = (int64_t)q->lo + k;

		if (q->count[k] == 0)
			continue;
		if (b < lo) {
			c[0] += q->count[k];
			q->collapsed += q->count[k];
		} else {
			c[b - lo] += q->count[k];	/* the window grows: b < lo + nb */
		}
	}
	free(q->count);
	q->count = c;
	q->lo = lo;
	q->nb = nb;
	return 0;
}

/*
 * Make the window hold bucket @i: it doubles (or grows to reach i) towards i, up to
 * SM_SKETCH_BUCKETS; at the cap the highest buckets are kept, and a lower i is counted in the
 * lowest bucket.
 */
static int
cover(struct sm_sketch *q, int32_t i)
{
	int64_t lo = q->lo, hi = (int64_t)q->lo + q->nb - 1, nb;

	if (q->nb == 0)
		return rewindow(q, i - 32, 64);
	if (i >= lo && i <= hi)
		return 0;
	if (i < lo && q->nb == SM_SKETCH_BUCKETS)
		return 0;
	nb = 2 * (int64_t)q->nb;
	if (i > hi) {
		if (nb < i - lo + 1)
			nb = i - lo + 1;
		if (nb > SM_SKETCH_BUCKETS)
			nb = SM_SKETCH_BUCKETS;
		return rewindow(q, (int32_t)(lo + nb - 1 >= i ? lo : i - nb + 1), (uint32_t)nb);
	}
	if (nb < hi - i + 1)
		nb = hi - i + 1;
	if (nb > SM_SKETCH_BUCKETS)
		nb = SM_SKETCH_BUCKETS;
	return rewindow(q, (int32_t)(hi - nb + 1), (uint32_t)nb);
}

static int
hist_add(struct sm_sketch *q, double x)
{
	int32_t i;
	int rc;

	if (x == 0) {
		q->zeros++;
		return 0;
	}
	i = sk_index(x);
	rc = cover(q, i);
	if (rc != 0)
		return rc;
	if (i < q->lo) {
		q->count[0]++;
		q->collapsed++;
	} else {
		q->count[i - q->lo]++;
	}
	return 0;
}

int
sm_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double
sm_median_sorted(const double *v, uint64_t n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double
sm_quantile_sorted(const double *v, uint64_t n, double q)
{
	uint64_t i = (uint64_t)(q * (double)(n - 1) + 0.5);

	return v[i < n ? i : n - 1];
}

/* Past SM_SKETCH_EXACT values: the histogram of those kept, then no more values kept. */
static int
to_histogram(struct sm_sketch *q)
{
	struct sm_sketch h;
	uint64_t k;
	int rc;

	/* from the largest down: the window is anchored at the top, as the cap keeps it */
	qsort(q->exact, q->n, sizeof(*q->exact), sm_cmp_double);
	memset(&h, 0, sizeof(h));
	for (k = q->n; k-- > 0;) {
		rc = hist_add(&h, q->exact[k]);
		if (rc != 0) {
			free(h.count);
			q->sorted = true;
			return rc;
		}
	}
	free(q->exact);
	q->exact = NULL;
	q->zeros = h.zeros;
	q->count = h.count;
	q->lo = h.lo;
	q->nb = h.nb;
	q->collapsed = h.collapsed;
	return 0;
}

int
sm_sketch_add(struct sm_sketch *q, double x)
{
	int rc;

	if (!isfinite(x) || x < 0)
		return -EINVAL;
	if (q->exact != NULL && q->n == SM_SKETCH_EXACT) {
		rc = to_histogram(q);
		if (rc != 0)
			return rc;
	}
	if (q->exact != NULL) {
		q->exact[q->n] = x;
		q->sorted = q->n == 0 || (q->sorted && x >= q->exact[q->n - 1]);
	} else {
		rc = hist_add(q, x);
		if (rc != 0)
			return rc;
	}
	q->n++;
	if (q->n == 1 || x < q->min)
		q->min = x;
	if (q->n == 1 || x > q->max)
		q->max = x;
	return 0;
}

double
sm_sketch_rank(struct sm_sketch *q, uint64_t k)
{
	double g = sk_gamma(), r;
	uint64_t acc;
	uint32_t b;

	if (k < 1 || k > q->n)
		return NAN;
	if (q->exact != NULL) {
		if (!q->sorted) {
			qsort(q->exact, q->n, sizeof(*q->exact), sm_cmp_double);
			q->sorted = true;
		}
		return q->exact[k - 1];
	}
	if (k == 1)
		return q->min;
	if (k == q->n)
		return q->max;
	if (k <= q->zeros)
		return 0;
	acc = q->zeros;
	for (b = 0; b < q->nb; b++) {
		acc += q->count[b];
		if (acc >= k)
			break;
	}
	if (b == q->nb)
		return q->max;	/* cannot happen: the counts add up to n */
	r = 2 * pow(g, (double)q->lo + b) / (g + 1);
	if (r < q->min)
		r = q->min;
	if (r > q->max)
		r = q->max;
	return r;
}

/* ---- the stream ---- */

double
sm_t95(unsigned int df)
{
	static const double t[31] = {
		NAN, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
	};

	if (df == 0)
		return NAN;
	return df <= 30 ? t[df] : 1.96;
}

int
sm_stream_init(struct sm_stream *s, uint64_t expect)
{
	memset(s, 0, sizeof(*s));
	s->expect = expect;
	s->bhi = expect / SM_STATS_BATCHES;
	s->dsize = 1;
	return sm_sketch_init(&s->q);
}

void
sm_stream_free(struct sm_stream *s)
{
	sm_sketch_free(&s->q);
}

int
sm_stream_add(struct sm_stream *s, double x)
{
	double delta;
	int rc;

	rc = sm_sketch_add(&s->q, x);
	if (rc != 0)
		return rc;
	if (s->n < s->expect) {
		/* value n in batch j of [j n / 10, (j + 1) n / 10), as sm_stats() cuts them */
		while (s->bj + 1 < SM_STATS_BATCHES && s->n >= s->bhi) {
			s->bj++;
			s->bhi = (uint64_t)(s->bj + 1) * s->expect / SM_STATS_BATCHES;
		}
		s->bsum[s->bj] += x;
	}
	s->dcur += x;
	if (++s->dcur_n == s->dsize) {
		s->dsum[s->dfull++] = s->dcur;
		s->dcur = 0;
		s->dcur_n = 0;
		if (s->dfull == 2 * SM_STATS_BATCHES) {
			uint32_t j;

			for (j = 0; j < SM_STATS_BATCHES; j++)
				s->dsum[j] = s->dsum[2 * j] + s->dsum[2 * j + 1];
			s->dfull = SM_STATS_BATCHES;
			s->dsize *= 2;
		}
	}
	s->n++;
	s->sum += x;
	delta = x - s->w_mean;
	s->w_mean += delta / (double)s->n;
	s->w_m2 += delta * (x - s->w_mean);
	return 0;
}

double
sm_stream_var(const struct sm_stream *s)
{
	return s->n >= 2 ? s->w_m2 / (double)(s->n - 1) : NAN;
}

/* The half-width over the 10 batches of sm_stats() (n == expect), as its batch_ci() computes it. */
static double
fixed_ci(const struct sm_stream *s)
{
	double bm[SM_STATS_BATCHES], mean = 0, var = 0;
	unsigned long long lo, hi;
	unsigned int j;

	for (j = 0; j < SM_STATS_BATCHES; j++) {
		lo = (unsigned long long)j * s->n / SM_STATS_BATCHES;
		hi = (unsigned long long)(j + 1) * s->n / SM_STATS_BATCHES;
		bm[j] = s->bsum[j] / (double)(hi - lo);
		mean += bm[j];
	}
	mean /= SM_STATS_BATCHES;
	for (j = 0; j < SM_STATS_BATCHES; j++)
		var += (bm[j] - mean) * (bm[j] - mean);
	var /= SM_STATS_BATCHES - 1;
	return SM_STATS_T95_9 * sqrt(var / SM_STATS_BATCHES);
}

/* The half-width over the full batches of equal size. */
static double
doubling_ci(const struct sm_stream *s)
{
	double mean = 0, var = 0;
	uint32_t j, k = s->dfull;

	for (j = 0; j < k; j++)
		mean += s->dsum[j] / (double)s->dsize;
	mean /= k;
	for (j = 0; j < k; j++) {
		double d = s->dsum[j] / (double)s->dsize - mean;

		var += d * d;
	}
	var /= k - 1;
	return sm_t95(k - 1) * sqrt(var / k);
}

int
sm_stream_stats(struct sm_stream *s, struct sm_stats *out)
{
	uint64_t n = s->n, rank;

	if (n == 0 || out == NULL)
		return -EINVAL;
	out->n = n > UINT_MAX ? UINT_MAX : (unsigned int)n;
	out->mean = s->sum / (double)n;
	out->median = n % 2 ? sm_sketch_rank(&s->q, n / 2 + 1) :
			      (sm_sketch_rank(&s->q, n / 2) + sm_sketch_rank(&s->q, n / 2 + 1)) / 2;
	rank = (n * 99 + 99) / 100;	/* ceil(0.99 n) */
	out->p99 = sm_sketch_rank(&s->q, rank);
	out->min = s->q.min;
	out->max = s->q.max;
	if (n < SM_STATS_BATCHES)
		out->ci95 = NAN;
	else if (n == s->expect)
		out->ci95 = fixed_ci(s);
	else
		out->ci95 = doubling_ci(s);
	return 0;
}

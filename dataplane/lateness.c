/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How late frames left (lateness.h): every frame counted into a log-linear histogram of
 * integer ns (as HdrHistogram buckets values: G. Tene, "HdrHistogram", hdrhistogram.org).
 * Below 2^LATE_SUB_BITS ns a bucket is one ns wide; above, each power of two is cut into
 * 2^LATE_SUB_BITS equal buckets, so a quantile read as its bucket's middle is within
 * 2^-(LATE_SUB_BITS + 1) of the value of that rank.  A frame costs a count leading zeros, two
 * shifts and an increment into 35 KB that stay in cache: at 10 M frames a second the reservoir
 * of samples this replaced (8 MB of doubles, a random store per kept frame) was a tenth of the
 * bridge's time, and models/stream.h's sketch takes a log() per value.
 */
#include <stdlib.h>
#include <string.h>

#include "lateness.h"

#define SUB (1u << DP_LATE_SUB_BITS)

/* The middle of bucket @i, ns. */
static double
bucket_mid(uint32_t i)
{
	unsigned int e;
	uint64_t lo, width;

	if (i < SUB)
		return i;
	e = i / SUB + DP_LATE_SUB_BITS - 1;
	width = 1ull << (e - DP_LATE_SUB_BITS);
	lo = (uint64_t)(SUB + i % SUB) << (e - DP_LATE_SUB_BITS);
	return (double)lo + (double)(width - 1) / 2;
}

/* The value of rank @k (1 .. counted) in ascending order. */
static double
rank(const struct dp_lateness *l, uint64_t counted, uint64_t k)
{
	uint64_t below = 0;
	uint32_t i;

	if (k >= counted)
		return (double)l->max_ns;	/* the largest is known exactly */
	for (i = 0; i < DP_LATE_BUCKETS; i++) {
		below += l->hist[i];
		if (below >= k)
			break;
	}
	return i < DP_LATE_BUCKETS ? bucket_mid(i) : (double)l->max_ns;
}

void
dp_lateness_stats(const struct dp_lateness *l, double *median, double *p99, double *p999,
		  double *max)
{
	uint64_t n = 0;
	uint32_t i;

	*median = *p99 = *p999 = 0;
	*max = (double)l->max_ns;
	if (l->hist == NULL || l->seen == 0)
		return;
	for (i = 0; i < DP_LATE_BUCKETS; i++)
		n += l->hist[i];
	/* the nearest rank: the smallest value with at least q of the frames at or below it */
	*median = rank(l, n, (n + 1) / 2);
	*p99 = rank(l, n, (n * 99 + 99) / 100);
	*p999 = rank(l, n, (n * 999 + 999) / 1000);
	if (*median > *max)
		*median = *max;	/* a bucket's middle past the largest value in it */
	if (*p99 > *max)
		*p99 = *max;
	if (*p999 > *max)
		*p999 = *max;
}

void
dp_lateness_free(struct dp_lateness *l)
{
	free(l->hist);
	memset(l, 0, sizeof(*l));
}

void
dp_lateness_reset(struct dp_lateness *l)
{
	uint64_t *hist = l->hist;

	memset(l, 0, sizeof(*l));
	if (hist == NULL)
		hist = calloc(DP_LATE_BUCKETS, sizeof(*hist));
	else
		memset(hist, 0, DP_LATE_BUCKETS * sizeof(*hist));
	l->hist = hist;
}

void
dp_lateness_merge(struct dp_lateness *dst, const struct dp_lateness *src)
{
	dst->seen += src->seen;
	dst->over += src->over;
	dst->early += src->early;
	if (src->early_max > dst->early_max)
		dst->early_max = src->early_max;
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
	for (uint32_t i = 0; dst->hist != NULL && src->hist != NULL && i < DP_LATE_BUCKETS; i++)
		dst->hist[i] += src->hist[i];
}

double
dp_lateness_bucket_error(void)
{
	return 1.0 / (2.0 * SUB);
}

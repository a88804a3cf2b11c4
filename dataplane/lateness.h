/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How late frames left a port: the actual time each was handed to the device against the real
 * time it was due, in ns; every frame counted in a histogram for the percentiles (each within
 * dp_lateness_bucket_error() of the value of its rank), and counts a caller can difference while
 * the run goes on.  A frame handed over before its time is counted apart
 * (early): a port never does that, and a count of 0 says so.
 */
#ifndef DP_LATENESS_H
#define DP_LATENESS_H

#include <stdint.h>

#define DP_LATE_SUB_BITS 7	/**< each power of two of ns cut into 2^this buckets */
#define DP_LATE_TOP_BITS 40	/**< ns to 2^this (18 min) told apart; beyond, the last bucket */
#define DP_LATE_BUCKETS ((DP_LATE_TOP_BITS - DP_LATE_SUB_BITS + 1) << DP_LATE_SUB_BITS)
#define DP_LATE_OVER_NS 1000000	/**< a frame this late counts in @c over */

struct dp_lateness {
	uint64_t seen;		/**< frames measured */
	uint64_t *hist;		/**< [DP_LATE_BUCKETS] frames per bucket of ns late */
	uint64_t max_ns;
	uint64_t over;		/**< frames late by more than DP_LATE_OVER_NS */
	uint64_t early;		/**< frames handed over before their time (counted as 0 late) */
	double early_max;	/**< ns, the most any was early */
};

_Static_assert(DP_LATE_TOP_BITS > DP_LATE_SUB_BITS, "lateness histogram: its range");

/* The bucket of @p v ns (inline: a bridge counts every frame, 10 M a second). */
static inline uint32_t
dp_lateness_bucket(uint64_t v)
{
	const uint32_t sub = 1u << DP_LATE_SUB_BITS;
	unsigned int e;

	if (v < sub)
		return (uint32_t)v;
	if (v >> DP_LATE_TOP_BITS)
		return DP_LATE_BUCKETS - 1;	/* beyond the range: the last bucket (max is exact) */
	e = 63u - (unsigned int)__builtin_clzll(v);	/* 2^e <= v < 2^(e + 1), e >= SUB_BITS */
	return (e - DP_LATE_SUB_BITS + 1) * sub +
	       (uint32_t)((v >> (e - DP_LATE_SUB_BITS)) & (sub - 1));
}

/** @p k frames @p ns late each (a replayed step's: ffwd.h). */
static inline void
dp_lateness_add_n(struct dp_lateness *l, uint64_t ns, uint64_t k)
{
	l->seen += k;
	if (ns > l->max_ns)
		l->max_ns = ns;
	if (ns > DP_LATE_OVER_NS)
		l->over += k;
	if (l->hist != NULL)
		l->hist[dp_lateness_bucket(ns)] += k;
}

/**
 * A frame due at real time @p at (ns) was handed over at @p real.  (Any unit will do, the
 * same for both: the engine counts how late its events ran in ps.)
 */
static inline void
dp_lateness_add(struct dp_lateness *l, uint64_t real, uint64_t at)
{
	uint64_t ns = 0;

	if (real < at) {
		l->early++;
		if ((double)(at - real) > l->early_max)
			l->early_max = (double)(at - real);
	} else {
		ns = real - at;
	}
	l->seen++;
	if (ns > l->max_ns)
		l->max_ns = ns;
	if (ns > DP_LATE_OVER_NS)
		l->over++;
	if (l->hist != NULL)	/* NULL: not kept, or no memory for it (dp_lateness_reset()) */
		l->hist[dp_lateness_bucket(ns)]++;
}

/** Percentiles of @p l (0 when empty): the nearest rank, its bucket's middle. */
void dp_lateness_stats(const struct dp_lateness *l, double *median, double *p99, double *p999,
		       double *max);

/**
 * Ready @p l for a run: the histogram's memory taken and zeroed now, before the run's clock
 * starts, so that the frames sent do not pay for it.
 */
void dp_lateness_reset(struct dp_lateness *l);

/** The most a percentile differs from the value of its rank, relative to it. */
double dp_lateness_bucket_error(void);

void dp_lateness_free(struct dp_lateness *l);

/** Add @p src's counts to @p dst's (a histogram only where both keep one). */
void dp_lateness_merge(struct dp_lateness *dst, const struct dp_lateness *src);

#endif /* DP_LATENESS_H */

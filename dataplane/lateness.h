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

/** A frame due at real time @p at (ns) was handed over at @p real. */
void dp_lateness_add(struct dp_lateness *l, uint64_t real, uint64_t at);

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

#endif /* DP_LATENESS_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How late frames left a port: the actual time each was handed to the device against the real
 * time it was due, in ns; a reservoir of samples for the percentiles, and counts a caller can
 * difference while the run goes on.  A frame handed over before its time is counted apart
 * (early): a port never does that, and a count of 0 says so.
 */
#ifndef DP_LATENESS_H
#define DP_LATENESS_H

#include <stdint.h>

#define DP_LATE_MAX (1u << 20)	/**< lateness samples kept (a reservoir beyond) */
#define DP_LATE_OVER_NS 1000000	/**< a frame this late counts in @c over */

struct dp_lateness {
	uint64_t n;		/**< samples kept */
	uint64_t seen;		/**< frames measured */
	double *ns;		/**< [min(seen, DP_LATE_MAX)] */
	uint64_t rng;		/**< reservoir sampling state */
	uint64_t take_at;	/**< the reservoir full: the frame (by seen) whose sample
				 *   replaces one next */
	double w;		/**< and the weight that drew it (Li's algorithm L) */
	double max;
	uint64_t over;		/**< frames late by more than DP_LATE_OVER_NS */
	uint64_t early;		/**< frames handed over before their time (their sample is 0) */
	double early_max;	/**< ns, the most any was early */
};

/** A frame due at real time @p at (ns) was handed over at @p real. */
void dp_lateness_add(struct dp_lateness *l, uint64_t real, uint64_t at);

/** Percentiles of @p l (0 when empty); sorts the samples. */
void dp_lateness_stats(struct dp_lateness *l, double *median, double *p99, double *p999,
		       double *max);

/**
 * Ready @p l for a run: the samples' memory taken and touched now, before the run's clock
 * starts, so that the frames sent do not pay for it.
 */
void dp_lateness_reset(struct dp_lateness *l);

void dp_lateness_free(struct dp_lateness *l);

#endif /* DP_LATENESS_H */

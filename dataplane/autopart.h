/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * run.partitions = auto: one engine, or one partition per lcore, whichever a short calibration
 * on the run itself says is faster on this machine now.
 *
 * Partitions give the results of one engine byte for byte (parallel.h), so the choice changes
 * only the run time.  What they gain depends on more than the cluster: the frames per window
 * (the lookahead against the traffic), and the machine (on a 2-vCPU VM the same run in two
 * partitions ran 1.7 times as fast as one engine on some hours and 0.5 times on others, and
 * with other processes busy on the CPUs two lcores buy nothing).  So the calibration measures:
 * the run's first events (a 400th of those it is expected to have, 2^17 to 2^20), as one engine
 * and in a partition per lcore, one after the other, twice if the first pair's speedup is near
 * the threshold (0.95 to 1.30), each sample's events over the wall time it spent running them
 * (its graph's build apart); the partitions are chosen if they ran at least DP_AUTO_GAIN times
 * as fast.  A run expected to have fewer than DP_AUTO_MIN_EVENTS events (a quarter of a second
 * to a second in one engine) is not worth it: one engine, no sample.  Nor is a run on one lcore.
 * The calibration costs its samples and their graphs' builds: 2 to 6 % of the runs it was
 * measured on at the threshold, about 1 % of a long run.
 */
#ifndef DP_AUTOPART_H
#define DP_AUTOPART_H

#include <stdbool.h>
#include <stdint.h>

#include "run.h"

/** Runs expected to have fewer events than this run in one engine without a calibration. */
#define DP_AUTO_MIN_EVENTS (UINT64_C(1) << 23)
/** The partitions' rate over one engine's from which they are chosen. */
#define DP_AUTO_GAIN 1.10

/** What the calibration found and chose. */
struct dp_auto {
	uint32_t partitions;		/**< chosen: 1, or the partitions of the sample */
	uint32_t tried;			/**< partitions the samples ran in; 0: no sample */
	uint32_t lcores;		/**< lcores the partitions had */
	uint64_t expected_events;	/**< the run's, estimated */
	uint64_t sample_events;		/**< events each sample ran (at least) */
	uint32_t pairs;			/**< samples in one engine and in partitions, each */
	double one_rate, part_rate;	/**< events per second of running them, the best */
	double gain;			/**< part_rate / one_rate (0: no sample) */
	double cost_s;			/**< wall time of the calibration, builds included */
	char why[160];			/**< why, in a phrase */
};

/**
 * Choose the partitions of run @p p (its dp_run_params.partitions ignored) on @p lcores lcores:
 * the samples run as @p p with no sink, progress or control, and change nothing the run then
 * does.  @p stop (may be NULL), set, ends the calibration (one engine).  Returns the partitions
 * chosen (also in @p v).
 */
uint32_t dp_auto_partitions(const struct dp_run_params *p, uint32_t lcores,
			    const volatile sig_atomic_t *stop, struct dp_auto *v);

/** The frames run @p p's workers make, all its steps (0 if its program cannot be built). */
uint64_t dp_run_frames(const struct dp_run_params *p);

#endif /* DP_AUTOPART_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a run records per step: the latest time any worker reached each point of the step.
 */
#ifndef DP_RECORD_H
#define DP_RECORD_H

#include <stdint.h>

#include "engine.h"

struct dp_record {
	uint32_t steps, rounds, workers;
	dp_time_t *compute_end;		/**< [steps]: the last worker's compute end */
	dp_time_t *round_end;		/**< [steps x rounds]: the last worker's round end */
	dp_time_t *step_end;		/**< [steps]: the last worker's step end */
	uint64_t *frames;		/**< [steps]: frames the workers made */
	dp_time_t *gathered;		/**< [steps]: the last module in the network to have
					 *   its whole input (E'), else 0 */
	uint32_t *finished;		/**< [steps]: workers that finished the step */
	uint32_t steps_done;		/**< steps every worker finished */
	/* for the probes (usdt.h) */
	dp_time_t t0;			/**< the run's start: the first step's "previous end" */
	uint32_t *round_in, *round_out;	/**< [steps x rounds]: workers that began, ended it */
	int binding;			/**< the modules' binding stage (enum sm_stage) in the
					 *   latest step; -1: no module */
	double budget;			/**< the modules' compute budget now, FLOP/s (it may
					 *   change during a run: tune.h) */
};

static inline void
dp_record_max(dp_time_t *slot, dp_time_t t)
{
	if (t > *slot)
		*slot = t;
}

#endif /* DP_RECORD_H */

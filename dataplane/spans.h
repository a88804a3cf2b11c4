/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The time each resource held a step: what `syncemu run` turns into shares (dataplane/run.c) and
 * the step_end probe reports (dataplane/usdt.h), from one function so the two cannot disagree.
 */
#ifndef DP_SPANS_H
#define DP_SPANS_H

#include "../models/kernel.h"
#include "../models/packet.h"
#include "../models/step.h"
#include "record.h"

/** The resource a module's binding stage is charged to (SM_RES_MOD_OPTICS, ...). */
enum sm_resource dp_stage_res(enum sm_stage s);

/**
 * The spans of step @p s of @p rec, in ps, by resource: the compute span from @p prev (the
 * previous step's end, or the run's start) to the last worker's compute end, then each round's
 * span from the latest end so far to the last worker's end of the round, charged to the round's
 * resource (struct sm_round.res), a module round to @p module_res (for a module in the network,
 * the wait for its whole input is charged to the intra-DC links).  With phase sync the spans add
 * up to the step.  Every time of step @p s in @p rec must be final (every worker finished it), and
 * the step still in the record (not yet retired: record.h).
 */
void dp_step_spans(const struct dp_record *rec, const struct sm_program *prog, uint32_t s,
		   dp_time_t prev, enum sm_resource module_res, dp_time_t span[SM_RES_COUNT]);

/**
 * The same spans with the module rounds' apart in *@p module (not in @p span): for a run that
 * charges them to the stage that bound it over the whole run, known only at its end.
 */
void dp_step_spans_apart(const struct dp_record *rec, const struct sm_program *prog, uint32_t s,
			 dp_time_t prev, dp_time_t span[SM_RES_COUNT], dp_time_t *module);

#endif /* DP_SPANS_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The results of a run, made as the run goes (runner.c): each step, queue sample and background
 * transfer goes into streamed statistics (models/stream.h) as the data plane makes it, each step
 * is held against the packet-level closed form of the parameters in force during it, and only the
 * first and last steps are kept for the report, so a run's memory does not grow with its steps.
 */
#ifndef SYNCEMU_RUNSTATS_H
#define SYNCEMU_RUNSTATS_H

#include "runner.h"
#include "sharedwan.h"

struct runstats;

/**
 * Begin the results of a run of @p o->c under @p sc into @p o; @p sink then takes the run's
 * steps, samples and transfers (dp_run_params.sink).  0 or -ENOMEM.
 */
int runstats_begin(struct runstats **rs, const struct runner *r, const struct sc_scenario *sc,
		   struct outcome *o, struct dp_run_sink *sink);

/**
 * The run is over (o->res holds its totals): the summaries into @p o, and under load the fluid
 * shared-WAN model with @p sizes and the parameters in force at the end.  0, or -ENOMEM (a
 * stream could not grow during the run), with the message in o->err.
 */
int runstats_end(struct runstats *rs, const struct sm_size_dist *sizes, struct outcome *o);

void runstats_free(struct runstats *rs);

/**
 * The fluid shared-WAN model's parameters for variant @p v at @p budget (FLOP/s, 0 = not
 * charged) under @p load with @p sizes, over @p steps syncs (at least one) with the scenario's
 * seed, warm-up and background directions; processor sharing, the sync one flow (set disc for
 * FIFO).  What a run is held against under load, and a sweep's curves between its values.
 */
void runstats_wan_params(const struct sc_scenario *sc, enum sm_variant v, double budget,
			 double load, const struct sm_size_dist *sizes, uint32_t steps,
			 struct sm_sharedwan_params *wp);

#endif /* SYNCEMU_RUNSTATS_H */

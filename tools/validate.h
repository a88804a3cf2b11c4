/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * syncemu validate: the tables it prints (validate_tables.c), apart from its options and the
 * command (cmd_validate.c).
 */
#ifndef SYNCEMU_VALIDATE_H
#define SYNCEMU_VALIDATE_H

#include <stdbool.h>
#include <stdint.h>

#include "reader.h"
#include "scenario.h"
#include "syncs.h"
#include "table.h"
#include "variant.h"

/** How far the trace is from the model: what the tables compared. */
struct verdict {
	double worst;		/**< max |error| %, over what was compared */
	bool compared;		/**< anything was */
};

/** A syncemu trace's capture points: frames, background, queueing. */
struct table *validate_points_table(const struct tr_syncs *s);

/**
 * One run of a syncemu trace against the model of @p sc (if @p have_sc): its steps; the worst
 * error in @p v, the mean step in *@p mean_ms, the run's label in @p label.
 */
struct table *validate_run_table(struct tr_reader *r, const struct tr_run *run,
				 const struct sc_scenario *sc, bool have_sc, struct verdict *v,
				 double *mean_ms, char *label, size_t llen);

/** The share of the run's time each resource held beside the model's; NULL without a label. */
struct table *validate_hotspot_table(struct tr_reader *r, const struct tr_run *run,
				     const struct sc_scenario *sc);

/** The flows of a generic trace, largest first. */
struct table *validate_flows_table(const struct tr_bursts *b);

/** The bursts of a generic trace against the alpha-beta model @p m and, with @p have_sc, the
 *  sync of variant @p var at @p budget. */
struct table *validate_bursts_table(const struct tr_bursts *b, const struct tr_fit *m,
				    const struct sc_scenario *sc, bool have_sc,
				    enum sm_variant var, double budget, struct verdict *v);

#endif /* SYNCEMU_VALIDATE_H */

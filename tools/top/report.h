/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What syncemu-top shows: the BPF maps read back per run, the rare events, the model's shares
 * beside the measured ones; as a live text screen and as the JSON summary.
 */
#ifndef SYNCEMU_TOP_REPORT_H
#define SYNCEMU_TOP_REPORT_H

#include <linux/types.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "scenario.h"
#include "step.h"
#include "top.h"

#define TOP_CHANGES_KEPT 16

/** The analytic model of a run's variant and budget under the scenario. */
struct top_model {
	bool ok;
	double share[SM_RES_COUNT];
	double step_s;
	int binding;			/**< enum sm_stage; -1: no module */
};

/** A binding change (module_binding with a previous stage). */
struct top_change {
	uint32_t worker;
	int old_stage, new_stage;
	uint64_t t_ps;
};

/** A change of the module's budget (step_info with another budget than the last). */
struct top_budget_change {
	uint64_t step;			/**< the step it happened in (counted in no share) */
	uint64_t old_mflops, new_mflops;
};

struct top_elem_view {
	uint32_t id;
	struct top_elem e;
};

struct top_run_view {
	uint32_t run_id;
	struct top_run r;		/**< the map's entry */
	char label[48];			/**< "E'[free]" */
	char budget[32];		/**< "free", "low", "3000 MFLOP/s"; "-" without a module */
	struct top_model model;
	uint64_t model_variant, model_mflops;	/**< what @model was computed for */
	double rate;			/**< steps/s over the last interval */
	uint64_t prev_steps;
	double prev_wall;
	uint64_t n_changes;		/**< binding changes seen through the ring buffer */
	struct top_change ch[TOP_CHANGES_KEPT];	/**< the first ones */
	uint64_t n_budget;		/**< budget changes seen through the ring buffer */
	struct top_budget_change bch[TOP_CHANGES_KEPT];	/**< the first ones */
	uint32_t n_elems, elems_cap;
	struct top_elem_view *elems;	/**< by id */
};

struct top_view {
	int pid;
	const char *exe;
	const struct sc_scenario *sc;
	int runs_fd, elems_fd;		/**< the BPF maps */
	double t_start;			/**< wall clock at attach, s */
	double t_now;			/**< at the last refresh */
	bool busy;			/**< busy periods are counted */
	uint32_t n_runs, cap;
	struct top_run_view *runs;	/**< by run_id */
	uint64_t lost;			/**< ring buffer records that could not be read */
};

/** Read the maps into @p v at wall time @p now; 0 or -errno. */
int top_view_refresh(struct top_view *v, double now);

/** A ring buffer record. */
void top_view_event(struct top_view *v, const struct top_event *ev);

/** The live screen (@p clear: redraw in place on a terminal). */
void top_view_print(const struct top_view *v, FILE *f, bool clear);

/** The summary as JSON; @p ended_by: "duration", "signal" or "exit". 0 or -ENOMEM. */
int top_view_json(const struct top_view *v, FILE *f, const char *ended_by);

void top_view_free(struct top_view *v);

#endif /* SYNCEMU_TOP_REPORT_H */

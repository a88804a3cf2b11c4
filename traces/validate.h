/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * syncemu validate's analysis: tr_validate() (validate.c), the tables it makes
 * (validate_tables.c, validate_streams.c), apart from its options and its output
 * (tools/cmd_validate.c).
 */
#ifndef SYNCEMU_VALIDATE_H
#define SYNCEMU_VALIDATE_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "appsteps.h"
#include "reader.h"
#include "results.h"
#include "scenario.h"
#include "streams.h"
#include "syncs.h"
#include "table.h"
#include "variant.h"

/** How far the trace is from the model: what the tables compared. */
struct verdict {
	double worst;		/**< max |error| %, over what was compared */
	bool compared;		/**< anything was */
	bool uncertain;		/**< the steps were not found with confidence: what was
				 *   compared is not a measurement (reason: why) */
	char reason[256];
};

/** Count @p err_pct (a relative error, %) into @p v; NaN is not counted. */
void verdict_add(struct verdict *v, double err_pct);

/**
 * What a syncemu run's trace makes possible, from its header's comment @p comment (the runs it
 * announces) and the scenario @p sc it carries: the steps, the workers and each run's rounds,
 * into @p lim; the runs go in *@p runs (free() it).
 *
 * @return 0; -ENOENT if the trace is not a run's (a bridge's, another tool's: no limits);
 *         -ENOMEM
 */
int validate_trace_limits(const char *comment, const struct sc_scenario *sc,
			  struct tr_syncs_limits *lim, struct tr_run_limit **runs);

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

/* ---- a real job's streams (validate_streams.c) ---- */

/** What the steps found in the streams say, in a line a person reads first and in figures. */
struct stream_summary {
	char line[1024];
	uint32_t steps;
	double median_ms;		/**< the median step */
	double overlap_pct;		/**< of the steps' time, every direction carried data */
	double one_way_pct;		/**< some did, not all */
	double idle_pct;		/**< none did */
	const char *turns;		/**< the directions' behaviour, in words */
	double rate_Bps;		/**< the link's (given), or the directions' rate while busy */
	bool rate_given;
	double duplex_ms;		/**< the largest direction's frame bytes of a step / rate */
	double serial_ms;		/**< every direction's, one after another */
	double x_b_rate;		/**< the median step / (B / rate): B the largest direction's
					 *   frame bytes of a step, rate the link's */
	bool background;		/**< the steps had background beside them */
	const char *matches;		/**< "duplex", "serialised" or NULL (one direction) */
	uint32_t stalls;		/**< idle times inside steps over TR_STALL_S */
	double longest_idle_ms;
	double bg_share_pct;		/**< the background's largest share of a direction */
	const char *bg_dir;		/**< of that direction */
};

/** Sum the steps of @p s up, with the link rate @p rate_Bps (0: not known). */
void validate_stream_summary(const struct tr_streams *s, double rate_Bps,
			     struct stream_summary *m);

/** The summary as a JSON object; NULL on ENOMEM. */
json_t *validate_stream_summary_json(const struct stream_summary *m);

/** Each direction: its stream, flows, losses, cuts. */
struct table *validate_dirs_table(const struct tr_streams *s);

/** Each step over the directions; against the model's sync of @p model_s seconds if finite. */
struct table *validate_steps_table(const struct tr_streams *s, double model_s,
				   struct verdict *v);

/** Each step in each direction, with the background beside it. */
struct table *validate_step_dirs_table(const struct tr_streams *s);

/** JSON of table "steps" with each row's "directions" from table "step_directions". */
json_t *validate_steps_json(const struct table *steps, const struct table *dirs);

/** Alpha-beta per direction over its steps, and whether it is a fit. */
struct table *validate_stream_fit_table(const struct tr_streams *s);

/** A step as the wire shows it (first and last packet, ns). */
struct wire_span {
	uint64_t start_ns, end_ns;
};

/** The application's steps @p a against the wire's @p w (@p t0: the capture's start, for the
 *  relative times); the differences into @p v, unless v->uncertain (then the table says they
 *  are not measurements). */
struct table *validate_app_table(const struct wire_span *w, uint32_t nw, uint64_t t0,
				 const struct tr_appsteps *a, struct verdict *v);

/** What validate is asked: the trace, the model, how to read the trace. */
struct tr_validate_params {
	const char *trace;		/**< the capture's path */
	const char *scenario;		/**< --scenario; NULL: a syncemu trace's own */
	const char *const *sets;	/**< --set's overrides */
	unsigned int nsets;
	const char *filter;		/**< a libpcap filter (--filter, --hosts, --ports); NULL */
	const char *ifaces;		/**< --interface: only these capture interfaces; NULL */
	const char *background;		/**< --background's filter; NULL */
	const char *steps_csv;		/**< the application's step times; NULL */
	const char *csv_col;		/**< their step column; NULL */
	double clock_offset;		/**< s added to the times of steps_csv */
	double gap, period;		/**< bursts: cut at gaps, or into periods (s) */
	double alpha, beta;		/**< a given alpha-beta model (have_alpha, have_beta) */
	double rate;			/**< the link's rate, B/s; 0: not given */
	double idle;			/**< a direction's idle gap, s; 0: found */
	double coll_bytes;		/**< the collective's buffer */
	unsigned long steps, ranks;
	enum tr_coll coll;
	enum tr_placement place;
	bool generic;			/**< read as a real job's capture (the header ignored) */
	bool bursts;			/**< cut into bursts (--gap, --period) */
	bool payload;			/**< bursts count payload bytes, not frame bytes */
	bool have_alpha, have_beta;
	unsigned int variants, budgets;	/**< the model's sync to compare bursts with */
};

/**
 * Read the trace of @p p, rebuild its syncs and hold them against the model: the results' text
 * lines, JSON members (after those @p res has) and tables go into @p res, the worst error into
 * @p v.
 *
 * @return 0; -ENOMEM (out of memory, or the results could not be made: exit 1);
 *         -ENODEV (an --interface the trace does not have: a bad command line);
 *         -EINVAL (a bad input: the trace, the scenario, --steps-csv).  The reason is in
 *         @p err, "" when there is none to say.
 */
int tr_validate(const struct tr_validate_params *p, struct results *res, struct verdict *v,
		char *err, size_t errlen);

#endif /* SYNCEMU_VALIDATE_H */

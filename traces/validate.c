/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * syncemu validate's analysis, apart from its options and its output (tools/cmd_validate.c): a
 * capture read, its syncs rebuilt (a syncemu trace's runs, or a real job's streams cut into
 * steps, or bursts), and held against the model, as the results' lines, members and tables.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <jansson.h>

#include "reader.h"
#include "results.h"
#include "scenario.h"
#include "streams.h"
#include "syncs.h"
#include "table.h"
#include "validate.h"
#include "variant.h"

/*
 * --interface: each name must be one of the trace's interfaces (those described before its
 * first packet: every one a syncemu trace has); then only their packets are read.  0; -ENODEV
 * (a name the trace does not have, said in @p err); -ENOMEM.
 */
static int
select_ifaces(struct tr_reader *r, const char *list, char *err, size_t errlen)
{
	char *copy = strdup(list), *save = NULL, *name;
	uint32_t i, n = tr_reader_ifcount(r);
	size_t len;
	int rc = 0;

	if (copy == NULL)
		return -ENOMEM;
	for (name = strtok_r(copy, ",", &save); name != NULL && rc == 0;
	     name = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < n && strcmp(tr_reader_ifname(r, i), name) != 0; i++)
			;
		if (i < n)
			continue;
		len = (size_t)snprintf(err, errlen, "--interface: the trace has no interface '%s' "
				       "(it has:", name);
		for (i = 0; i < n && len < errlen; i++)
			len += (size_t)snprintf(err + len, errlen - len, "%s %s", i ? "," : "",
						tr_reader_ifname(r, i));
		if (len < errlen)
			snprintf(err + len, errlen - len, ")");
		rc = -ENODEV;
	}
	free(copy);
	if (rc == 0 && tr_reader_select(r, list) != 0)
		rc = -ENOMEM;
	return rc;
}

/*
 * The scenario a syncemu trace carries in its header's comment (after the first line), loaded
 * from a file in memory (memfd_create(): nothing on disk, nothing left by a signal), with the
 * overrides @p sets.
 */
static int
trace_own_scenario(struct tr_reader *r, const char *const *sets, unsigned int nsets,
		   struct sc_scenario *sc, char *err, size_t errlen)
{
	const char *c = tr_reader_comment(r), *dump = strchr(c, '\n');
	char path[64];
	FILE *f;
	int fd, rc;

	if (strncmp(c, "syncemu ", 8) != 0 || dump == NULL) {
		snprintf(err, errlen, "the trace carries no scenario (give --scenario)");
		return -ENOENT;
	}
	fd = memfd_create("the trace's scenario", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	f = fdopen(dup(fd), "w");
	if (f == NULL) {
		rc = -errno;
		close(fd);
		return rc;
	}
	fputs(dump + 1, f);
	rc = fclose(f) == 0 ? 0 : -EIO;
	if (rc == 0)
		rc = sc_scenario_load(sc, path, sets, nsets, err, errlen);
	close(fd);
	return rc;
}

/* The model's scenario for a syncemu trace: --scenario, else the trace's own. */
static int
trace_scenario(struct tr_reader *r, const struct tr_validate_params *o, struct sc_scenario *sc,
	       char *err, size_t errlen)
{
	if (o->scenario != NULL)
		return sc_scenario_load(sc, o->scenario, o->sets, o->nsets, err, errlen);
	return trace_own_scenario(r, o->sets, o->nsets, sc, err, errlen);
}

/*
 * Read a syncemu trace's frames, refusing those its own header makes impossible (a step, a round,
 * a worker or a run beyond the scenario it carries, not --scenario's).  0 or -errno, the
 * message in @p err.
 */
static int
read_syncs(struct tr_reader *r, struct tr_syncs *syn, char *err, size_t errlen)
{
	struct sc_scenario *own = calloc(1, sizeof(*own));
	struct tr_syncs_limits lim;
	struct tr_run_limit *runs = NULL;
	bool limited = false;
	int rc;

	if (own == NULL)
		return -ENOMEM;
	if (trace_own_scenario(r, NULL, 0, own, err, errlen) == 0) {
		rc = validate_trace_limits(tr_reader_comment(r), own, &lim, &runs);
		if (rc == -ENOMEM) {
			free(own);
			snprintf(err, errlen, "out of memory");
			return rc;
		}
		limited = rc == 0;
	}
	rc = tr_syncs_read(r, limited ? &lim : NULL, syn, err, errlen);
	free(runs);
	free(own);
	return rc;
}

static json_t *
steps_json(const struct table *steps, const void *dirs)
{
	return validate_steps_json(steps, dirs);
}

/*
 * Add the tables @p tabs (taken over: each set to NULL) to @p res, after the JSON members set so
 * far, under "tables" (the step directions in text only: inside each step's row in JSON).
 * 0 or -ENOMEM.
 */
static int
add_tables(struct results *res, struct table **tabs, unsigned int n)
{
	const struct table *dirs = NULL;
	json_t *tj = json_object();
	unsigned int i;
	int rc = 0;

	if (tj == NULL || json_object_set_new(results_root(res), "tables", tj) != 0)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (tabs[i] != NULL && strcmp(table_id(tabs[i]), "step_directions") == 0)
			dirs = tabs[i];
	for (i = 0; rc == 0 && i < n; i++) {
		struct results_place at = { .parent = tj };
		struct table *t = tabs[i];

		if (t == NULL)
			continue;
		tabs[i] = NULL;
		if (dirs != NULL && strcmp(table_id(t), "steps") == 0) {
			at.json = steps_json;
			at.arg = dirs;
		}
		rc = results_add_table(res, t, t == dirs ? RESULTS_TEXT :
				       RESULTS_TEXT | RESULTS_JSON, &at);
	}
	return rc;
}

/* The model's sync for --scenario --variant --budget, in s (NAN without). */
static double
model_sync(const struct tr_validate_params *o, const struct sc_scenario *sc, bool have_sc,
	   enum sm_variant *var, enum sm_budget *bud)
{
	struct sm_step fl;
	unsigned int i;

	*var = SM_VAR_A;
	*bud = SM_BUDGET_FREE;
	for (i = 0; i < SM_VAR_COUNT; i++)
		if (o->variants & (1u << i)) {
			*var = (enum sm_variant)i;
			break;
		}
	for (i = 0; i < SM_BUDGET_COUNT; i++)
		if (o->budgets & (1u << i)) {
			*bud = (enum sm_budget)i;
			break;
		}
	if (!have_sc || sm_step_eval(&sc->model, *var, sm_budget_value(&sc->model.mod, *bud),
				     &fl) != 0)
		return NAN;
	return sm_step_sync(&fl);
}

/* Warnings about bursts: a split that cannot be trusted, a fit that is not one. */
static void
burst_warnings(const struct tr_bursts *b, const struct tr_fit *fit, double rate, json_t *warn)
{
	char w[512];

	if (b->n > 1 && isfinite(b->min_between_s) && b->max_inside_s >= 0.5 * b->min_between_s) {
		snprintf(w, sizeof(w), "the gaps inside the bursts (up to %.6g s) are as long as "
			 "those between them (from %.6g s): where a step ends is not told by a gap; "
			 "cut the streams with --steps N or --collective instead", b->max_inside_s,
			 b->min_between_s);
		json_array_append_new(warn, json_string(w));
	}
	if (b->n < 3) {
		snprintf(w, sizeof(w), "%u burst%s: not a fit (two points are not a fit; alpha-beta "
			 "needs 3 or more of several sizes)", b->n, b->n == 1 ? "" : "s");
		json_array_append_new(warn, json_string(w));
	} else if (fit->alpha_fixed) {
		snprintf(w, sizeof(w), "the bursts are of one size: alpha and beta cannot be told "
			 "apart (beta is bytes / time with alpha 0)");
		json_array_append_new(warn, json_string(w));
	} else if (!(fit->r2 >= 0.9)) {
		snprintf(w, sizeof(w), "a poor fit: R^2 %.3f (the bursts' times do not grow with "
			 "their bytes as one alpha and beta say)", fit->r2);
		json_array_append_new(warn, json_string(w));
	}
	if (b->late > 0) {
		snprintf(w, sizeof(w), "%" PRIu64 " packets came more than %u packets after their "
			 "time (the capture is out of order): each was counted at the time of the "
			 "last packet before it", b->late, TR_REORDER_MAX);
		json_array_append_new(warn, json_string(w));
	}
	if (b->gaps_thinned) {
		snprintf(w, sizeof(w), "more than %u gaps over 100 us: the automatic gap was found "
			 "among the longest of them (give --gap)", TR_BURST_GAPS_MAX);
		json_array_append_new(warn, json_string(w));
	}
	if (rate > 0 && fit->beta > 1.05 * rate) {
		snprintf(w, sizeof(w), "the fitted beta (%.6g Mbit/s) is above the link's rate "
			 "(%.6g Mbit/s): the bursts are not transfers at the link's rate (steps cut "
			 "in the wrong places, or several flows at once)", fit->beta * 8 / 1e6,
			 rate * 8 / 1e6);
		json_array_append_new(warn, json_string(w));
	}
}

/* The bursts of a generic trace: the former way, and the fallback. */
static int
generic_bursts(const struct tr_validate_params *o, const char *path, struct tr_reader **r,
	       struct sc_scenario *sc, bool have_sc, double rate, const char *fallback,
	       struct table **tabs, unsigned int *nt, struct results *res, json_t *warn,
	       struct tr_bursts *bur, struct wire_span **spans, uint32_t *nspans,
	       struct verdict *v, char *err, size_t errlen)
{
	json_t *root = results_root(res);
	struct tr_burst_params bp = {
			.filter = o->filter, .ifaces = o->ifaces,
		.gap_s = o->gap, .period_s = o->period, .payload = o->payload,
	};
	struct tr_fit fit, model;
	enum sm_variant var;
	enum sm_budget bud;
	uint32_t i;
	int rc;

	rc = tr_bursts_read(path, &bp, bur, err, errlen);
	if (rc != 0)
		return rc == -ENOMEM ? rc : -EINVAL;
	if (bur->n == 0) {
		snprintf(err, errlen, "%s: no packet selected (%" PRIu64 " packets, %" PRIu64
			 " not IP)%s%s", path, bur->packets, bur->not_ip,
			 bp.filter ? "; filter: " : "", bp.filter ? bp.filter : "");
		return -EINVAL;
	}
	err[0] = '\0';
	if (tr_fit_alpha_beta(bur->b, bur->n, &fit) != 0)
		return -ENOMEM;
	/* a given model: what is given, latency 0 if only the bandwidth is */
	model = fit;
	if (o->have_alpha || o->have_beta)
		model.alpha = o->have_alpha ? o->alpha : 0;
	if (o->have_beta)
		model.beta = o->beta;
	model_sync(o, sc, have_sc, &var, &bud);
	tabs[(*nt)++] = validate_bursts_table(bur, &model, sc, have_sc, var,
					      have_sc ? sm_budget_value(&sc->model.mod, bud) : 0, v);
	tabs[(*nt)++] = validate_flows_table(bur);
	*spans = calloc(bur->n, sizeof(**spans));
	if (*spans == NULL)
		return -ENOMEM;
	for (i = 0; i < bur->n; i++) {
		(*spans)[i].start_ns = bur->b[i].start_ns;
		(*spans)[i].end_ns = bur->b[i].end_ns;
	}
	*nspans = bur->n;
	if (fallback[0] != '\0')
		json_array_append_new(warn, json_string(fallback));
	burst_warnings(bur, &fit, rate, warn);
	json_object_set_new(root, "mode", json_string("bursts"));
	json_object_set_new(root, "split", json_pack(
		"{s:s, s:I, s:I, s:I, s:i, s:o, s:o, s:o}", "how", bur->how,
		"packets", (json_int_t)bur->packets, "selected", (json_int_t)bur->selected,
		"not_ip", (json_int_t)bur->not_ip, "bursts", (int)bur->n,
		"gap_s", isfinite(bur->gap_s) ? json_real(bur->gap_s) : json_null(),
		"max_gap_inside_s", json_real(bur->max_inside_s),
		"min_gap_between_s", isfinite(bur->min_between_s) ?
		json_real(bur->min_between_s) : json_null()));
	json_object_set_new(root, "fit", json_pack(
		"{s:f, s:f, s:o, s:b}", "alpha_s", fit.alpha, "beta_Bps", fit.beta,
		"r2", isfinite(fit.r2) ? json_real(fit.r2) : json_null(),
		"alpha_identifiable", !fit.alpha_fixed));
	json_object_set_new(root, "model", json_pack("{s:f, s:f, s:s}", "alpha_s",
			    model.alpha, "beta_Bps", model.beta, "from",
			    o->have_alpha || o->have_beta ? "given" : "fitted"));
	/* the text's header */
	results_line(res, "syncemu validate: %s (%s): %" PRIu64 " packets, %" PRIu64
		     " selected%s%s", path, tr_reader_format(*r), bur->packets, bur->selected,
		     bp.filter ? " by " : "", bp.filter ? bp.filter : "");
	results_line(res, "  %s: %u bursts; largest gap inside a burst %.6g s, smallest between "
		     "bursts %.6g s", bur->how, bur->n, bur->max_inside_s, bur->min_between_s);
	results_line(res, "  alpha-beta fitted: alpha %.6g s, beta %.6g B/s (%.6g Mbit/s)%s, "
		     "R^2 %.6f", fit.alpha, fit.beta, fit.beta * 8 / 1e6,
		     fit.alpha_fixed ? " (one size: alpha not identifiable, 0)" : "", fit.r2);
	if (o->have_alpha || o->have_beta)
		results_line(res, "  alpha-beta given: alpha %.6g s, beta %.6g B/s", model.alpha,
			     model.beta);
	return 0;
}

/* The steps of a real job's streams. */
static int
generic_streams(const struct tr_validate_params *o, const char *path, const struct tr_reader *r,
		const struct sc_scenario *sc, bool have_sc, double rate, struct table **tabs,
		unsigned int *nt, struct results *res, struct tr_streams *st,
		struct wire_span **spans, uint32_t *nspans, json_t *warn, struct verdict *v)
{
	json_t *root = results_root(res);
	static const char *const by[] = { "none", "steps", "collective", "period" };
	const char *f = o->filter;
	struct stream_summary m;
	enum sm_variant var;
	enum sm_budget bud;
	double sync = model_sync(o, sc, have_sc, &var, &bud);
	json_t *split;
	uint32_t k;

	validate_stream_summary(st, rate, &m);
	if (st->cuts_uncertain) {
		v->uncertain = true;
		snprintf(v->reason, sizeof(v->reason), "equal volumes miss the idle times (steps of "
			 "different sizes?) and the times every direction was idle do not tell where "
			 "the steps end");
	}
	if (st->by == TR_SPLIT_PERIOD && st->period_uncertain && !v->uncertain) {
		v->uncertain = true;
		snprintf(v->reason, sizeof(v->reason), "the streams repeat as well on %u steps "
			 "(confidence %.2f) as on the %u found (%.2f): give --steps N, --steps-csv "
			 "or --collective", st->runner_up, st->runner_up_confidence, st->nsteps,
			 st->confidence);
	}
	if (st->by == TR_SPLIT_PERIOD && st->period_other != 0 && !v->uncertain) {
		v->uncertain = true;
		snprintf(v->reason, sizeof(v->reason), "the idle times at the steps' ends and "
			 "middles tell %u steps no better than %u (give --steps N, --steps-csv or "
			 "--collective)", st->nsteps, st->period_other);
	}
	if (st->by == TR_SPLIT_COLLECTIVE && st->coll_disagrees) {
		char w[512];

		v->uncertain = true;
		snprintf(v->reason, sizeof(v->reason), "the directions hold %.2f to %.2f steps of "
			 "the %s's bytes, not one whole number", st->steps_dir_min,
			 st->steps_dir_max, tr_coll_name(o->coll));
		snprintf(w, sizeof(w), "the directions disagree with --collective %s: they hold "
			 "%.3f to %.3f of its steps (%.0f bytes per direction), not one whole number "
			 "(another algorithm or collective, a buffer of another size, a one-way "
			 "prelude, or other traffic between the hosts): the step count %u is "
			 "uncertain", tr_coll_name(o->coll), st->steps_dir_min, st->steps_dir_max,
			 st->coll_dir_bytes[0], st->nsteps);
		json_array_append_new(warn, json_string(w));
	}
	tabs[(*nt)++] = validate_dirs_table(st);
	tabs[(*nt)++] = validate_steps_table(st, sync, v);
	tabs[(*nt)++] = validate_step_dirs_table(st);
	tabs[(*nt)++] = validate_stream_fit_table(st);
	*spans = calloc(st->nsteps, sizeof(**spans));
	if (*spans == NULL)
		return -ENOMEM;
	for (k = 0; k < st->nsteps; k++) {
		(*spans)[k].start_ns = st->step[k].start_ns;
		(*spans)[k].end_ns = st->step[k].end_ns;
	}
	*nspans = st->nsteps;
	split = json_pack("{s:s, s:s, s:i, s:I, s:I, s:I}", "by", by[st->by], "how", st->how,
			  "steps", (int)st->nsteps, "packets", (json_int_t)st->packets,
			  "selected", (json_int_t)st->selected, "not_ip", (json_int_t)st->not_ip);
	if (st->by == TR_SPLIT_PERIOD) {
		json_object_set_new(split, "confidence", json_real(st->confidence));
		json_object_set_new(split, "runner_up", json_integer(st->runner_up));
		json_object_set_new(split, "runner_up_confidence",
				    json_real(st->runner_up_confidence));
	}
	if (st->by == TR_SPLIT_COLLECTIVE) {
		json_object_set_new(split, "collective", json_string(tr_coll_name(o->coll)));
		json_object_set_new(split, "direction_bytes", json_real(st->coll_dir_bytes[0]));
		json_object_set_new(split, "steps_exact", json_real(st->steps_exact));
		json_object_set_new(split, "steps_exact_directions", json_pack("[f, f]",
				    st->steps_dir_min, st->steps_dir_max));
	}
	json_object_set_new(split, "cuts", json_string(st->by_idle ? "joint idle" :
						       "equal volumes"));
	json_object_set_new(root, "mode", json_string("streams"));
	json_object_set_new(root, "split", split);
	json_object_set_new(root, "overlap_pct", isfinite(m.overlap_pct) ?
			    json_real(m.overlap_pct) : json_null());
	json_object_set_new(root, "summary", validate_stream_summary_json(&m));
	/* the text's header */
	results_line(res, "syncemu validate: %s (%s): %" PRIu64 " packets, %" PRIu64 " selected"
		     "%s%s; %u directions, %u of the job", path, tr_reader_format(r), st->packets,
		     st->selected, f ? " by " : "", f ? f : "", st->ndirs, st->nmajor);
	results_line(res, "  %s", st->how);
	results_line(res, "  summary: %s", m.line);
	return 0;
}

/* A generic trace: the streams, or bursts; then the application's steps beside them. */
static int
validate_generic(const struct tr_validate_params *o, const char *path, struct tr_reader **r,
		 struct sc_scenario *sc, struct table **tabs, unsigned int *nt,
		 struct results *res, json_t *warn, struct tr_streams *st, struct tr_bursts *bur,
		 const struct tr_appsteps *app, struct wire_span **spans, struct verdict *v,
		 char *err, size_t errlen)
{
	const char *filter = o->filter;
	bool bursts = o->bursts, have_sc = false;
	char fallback[768] = "";
	double rate = o->rate;
	uint32_t nspans = 0;
	int rc;
	size_t i;
	json_t *w;

	if (o->scenario != NULL) {
		if (sc_scenario_load(sc, o->scenario, o->sets, o->nsets, err, errlen) != 0)
			return -EINVAL;
		have_sc = o->variants != 0;
		if (!(rate > 0))
			rate = sc->model.wan.bw;
	}
	if (!bursts) {
		struct tr_stream_params sp = {
			.filter = filter, .ifaces = o->ifaces, .background = o->background,
			.steps = (uint32_t)o->steps, .coll = o->coll, .ranks = (uint32_t)o->ranks,
			/* the application's times hold its step count */
			.steps_from_app = o->steps == 0 && o->coll == TR_COLL_NONE && app->n > 0,
			.place = o->place, .rate_Bps = rate,
			.coll_bytes = o->coll_bytes, .idle_s = o->idle,
		};

		if (sp.steps_from_app)
			sp.steps = app->n;
		rc = tr_streams_read(path, &sp, st, err, errlen);
		if (rc != 0)
			return rc == -ENOMEM ? rc : -EINVAL;
		if (st->nmajor == 0) {
			snprintf(err, errlen, "%s: %s (%" PRIu64 " packets, %" PRIu64 " selected, %"
				 PRIu64 " not IP)%s%s", path, st->selected ?
				 "no packet selected carries application bytes" :
				 "no packet selected", st->packets, st->selected, st->not_ip,
				 filter ? "; filter: " : "", filter ? filter : "");
			return -EINVAL;
		}
		if (st->nsteps == 0) {
			uint32_t d, flows = 0;

			/* the bursts are measurements of themselves (transfers of several sizes
			 * held against alpha-beta), not of a job's steps: said, not uncertain */
			for (d = 0; d < st->nmajor; d++)
				flows = st->dir[d].flows > flows ? st->dir[d].flows : flows;
			snprintf(fallback, sizeof(fallback), "%s: cut at idle gaps instead (give "
				 "--steps N or --collective to cut the streams%s)", st->how,
				 flows > 1 ? "; other traffic between the hosts? name it with "
				 "--background, or select the job's with --filter" : "");
			bursts = true;
			tr_streams_free(st);
		}
	}
	err[0] = '\0';
	if (bursts)
		rc = generic_bursts(o, path, r, sc, have_sc, rate, fallback, tabs, nt, res, warn,
				    bur, spans, &nspans, v, err, errlen);
	else
		rc = generic_streams(o, path, *r, sc, have_sc, rate, tabs, nt, res, st, spans,
				     &nspans, warn, v);
	if (rc != 0)
		return rc;
	if (app->n > 0 && !bursts && st->by != TR_SPLIT_STEPS && st->nsteps != app->n) {
		char msg[512];

		if (!v->uncertain)	/* the first reason */
			snprintf(v->reason, sizeof(v->reason), "the wire's %u steps (%s) are not the "
				 "application's %u", st->nsteps, st->by == TR_SPLIT_COLLECTIVE ?
				 "from --collective" : "found from the streams", app->n);
		v->uncertain = true;
		snprintf(msg, sizeof(msg), "%u steps on the wire, %u in --steps-csv: the step count is "
			 "uncertain (give --steps N, or leave --collective out to cut at the "
			 "application's count)", st->nsteps, app->n);
		json_array_append_new(warn, json_string(msg));
	}
	if (app->n > 0)
		tabs[(*nt)++] = validate_app_table(*spans, nspans, bursts ? bur->b[0].start_ns :
						   st->first_ns, app, v);
	if (json_array_size(warn) > 0)
		json_object_set(results_root(res), "warnings", warn);
	if (v->compared)
		json_object_set_new(results_root(res), "max_error_pct", json_real(v->worst));
	json_object_set_new(results_root(res), "uncertain", v->uncertain ?
			    json_string(v->reason) : json_null());
	if (v->uncertain)
		results_line(res, "  UNCERTAIN: %s", v->reason);
	json_array_foreach(warn, i, w)
		results_line(res, "  warning: %s", json_string_value(w));
	results_line(res, "%s", "");
	err[0] = '\0';
	return add_tables(res, tabs, *nt) == 0 ? 0 : -ENOMEM;
}

int
tr_validate(const struct tr_validate_params *o, struct results *res, struct verdict *v,
	    char *err, size_t errlen)
{
	struct sc_scenario *sc = calloc(1, sizeof(*sc));
	struct table **tabs = calloc(8, sizeof(*tabs));	/* more for a trace's runs */
	struct tr_reader *r = NULL;
	struct tr_syncs syn;
	struct tr_bursts bur;
	struct tr_streams st;
	struct tr_appsteps app;
	struct wire_span *spans = NULL;
	json_t *root = results_root(res), *warn = json_array(), *runs = NULL;
	const char *path = o->trace;
	unsigned int nt = 0, i;
	bool have_sc = false, regular;
	struct stat sb;
	int rc = 0;

	err[0] = '\0';
	memset(v, 0, sizeof(*v));
	memset(&syn, 0, sizeof(syn));
	memset(&bur, 0, sizeof(bur));
	memset(&st, 0, sizeof(st));
	memset(&app, 0, sizeof(app));
	if (sc == NULL || warn == NULL || tabs == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	/* a real job's capture is read more than once: a pipe cannot be */
	regular = stat(path, &sb) != 0 || S_ISREG(sb.st_mode);
	if (!regular && o->generic)
		goto not_regular;
	r = tr_reader_open(path, err, errlen);
	if (r == NULL) {
		rc = -EINVAL;
		goto out;
	}
	if (o->ifaces != NULL) {
		rc = select_ifaces(r, o->ifaces, err, errlen);
		if (rc != 0)
			goto out;
	}
	if (o->steps_csv != NULL) {
		rc = tr_appsteps_read(o->steps_csv, o->csv_col,
				      (int64_t)llround(o->clock_offset * 1e9), &app, err, errlen);
		if (rc != 0) {
			rc = rc == -ENOMEM ? rc : -EINVAL;
			goto out;
		}
	}
	json_object_set_new(root, "trace", json_pack("{s:s, s:s, s:i}", "file", path, "format",
						     tr_reader_format(r), "interfaces",
						     (int)tr_reader_ifcount(r)));
	if (!o->generic) {
		rc = read_syncs(r, &syn, err, errlen);
		if (rc != 0) {
			rc = rc == -ENOMEM ? rc : -EINVAL;
			goto out;
		}
	}
	if (syn.se_frames > 0) {
		/* a syncemu trace: two tables a run and the capture points' */
		struct table **more = realloc(tabs, (2 * (size_t)syn.nruns + 1) * sizeof(*tabs));

		if (more != NULL)
			tabs = more;
		runs = json_array();
		if (runs == NULL || more == NULL) {
			err[0] = '\0';
			rc = -ENOMEM;
			goto out;
		}
		have_sc = trace_scenario(r, o, sc, err, errlen) == 0;
		if (!have_sc && o->scenario != NULL) {
			rc = -EINVAL;
			goto out;
		}
		for (i = 0; i < syn.nruns; i++) {
			char label[32];
			double mean;

			tabs[nt++] = validate_run_table(r, &syn.run[i], sc, have_sc, v, &mean, label,
					       sizeof(label));
			if (have_sc && syn.has_rx)
				tabs[nt++] = validate_hotspot_table(r, &syn.run[i], sc);
			json_array_append_new(runs, json_pack("{s:i, s:s, s:i, s:f, s:b}", "run_id",
					      (int)syn.run[i].run_id, "label", label, "steps",
					      (int)syn.run[i].nsteps, "mean_ms",
					      isfinite(mean) ? mean : 0.0, "ends_at_rx",
					      syn.run[i].ends_at_rx));
		}
		tabs[nt++] = validate_points_table(&syn);
		if (v->compared)
			json_object_set_new(root, "max_error_pct", json_real(v->worst));
		json_object_set_new(root, "mode", json_string("syncemu"));
		json_object_set(root, "runs", runs);
		json_object_set_new(root, "frames", json_pack("{s:I, s:I, s:I}", "all",
				    (json_int_t)syn.frames, "syncemu", (json_int_t)syn.se_frames,
				    "unordered", (json_int_t)syn.unordered));
		results_line(res, "syncemu validate: %s (%s): %" PRIu64 " frames, %" PRIu64 " with "
			     "the syncemu header, %u runs%s%s", path, tr_reader_format(r),
			     syn.frames, syn.se_frames, syn.nruns, have_sc ? ", scenario " : "",
			     have_sc ? sc->name : "");
		results_line(res, "%s", "");
		if (add_tables(res, tabs, nt) != 0) {
			err[0] = '\0';
			rc = -ENOMEM;
			goto out;
		}
	} else if (!regular) {
not_regular:
		snprintf(err, errlen, "%s: not a regular file, and not a syncemu trace: a real job's "
			 "capture is read more than once (save it to a file first)", path);
		rc = -EINVAL;
		goto out;
	} else {
		rc = validate_generic(o, path, &r, sc, tabs, &nt, res, warn, &st, &bur, &app,
				      &spans, v, err, errlen);
		if (rc != 0)
			goto out;
	}
	if (syn.unordered > 0)
		results_line(res, "note: %" PRIu64 " packets came with a timestamp below the "
			     "previous one", syn.unordered);
out:
	for (i = 0; tabs != NULL && i < nt; i++)
		table_free(tabs[i]);
	free(tabs);
	tr_syncs_free(&syn);
	tr_bursts_free(&bur);
	tr_streams_free(&st);
	tr_appsteps_free(&app);
	free(spans);
	tr_reader_close(r);
	json_decref(warn);
	json_decref(runs);
	free(sc);
	return rc;
}

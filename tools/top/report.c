/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * syncemu-top's view: the BPF maps read back per run, with the model beside them.
 *
 * Measured shares are the step_end spans summed over the steps seen, over their total: the same
 * rule `syncemu run` applies per step (dataplane/spans.c), so at zero load they equal the deck's
 * hot-spot table up to the packet level's store-and-forward.  The model's shares are those of
 * `syncemu model --table shares` for the run's variant and budget under the scenario given (the
 * built-in default unless --scenario): the probes say which variant and budget a run has, not
 * which scenario it runs.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <jansson.h>

#include "kernel.h"
#include "report.h"
#include "variant.h"

#ifndef SYNCEMU_VERSION
#define SYNCEMU_VERSION "unknown"
#endif

#define ULL(x) ((unsigned long long)(x))

static const char *const res_short[SM_RES_COUNT] = {
	"compute", "intra-DC", "inter-DC", "mod port", "optics", "mod comp", "FPGA",
};

static struct top_run_view *
run_view(struct top_view *v, uint32_t run_id)
{
	struct top_run_view *rv;
	uint32_t i;

	for (i = 0; i < v->n_runs; i++)
		if (v->runs[i].run_id == run_id)
			return &v->runs[i];
	if (v->n_runs == v->cap) {
		uint32_t cap = v->cap ? 2 * v->cap : 8;
		struct top_run_view *r = realloc(v->runs, cap * sizeof(*r));

		if (r == NULL)
			return NULL;
		v->runs = r;
		v->cap = cap;
	}
	/* keep them in run_id order */
	for (i = v->n_runs; i > 0 && v->runs[i - 1].run_id > run_id; i--)
		v->runs[i] = v->runs[i - 1];
	rv = &v->runs[i];
	memset(rv, 0, sizeof(*rv));
	rv->run_id = run_id;
	rv->r.binding = -1;
	rv->r.variant = UINT64_MAX;
	rv->model.binding = -1;
	v->n_runs++;
	return rv;
}

/*
 * The label and the model of a run, once its variant and budget are known, and again whenever
 * the budget changes (syncemu ctl).
 */
static void
model_of(const struct sc_scenario *sc, struct top_run_view *rv)
{
	enum sm_variant var = (enum sm_variant)rv->r.variant;
	uint64_t mflops = rv->r.budget_mflops;
	double budget = (double)mflops * 1e6;
	struct sm_step st;
	int b;

	if (rv->r.variant >= SM_VAR_COUNT ||
	    (rv->label[0] != '\0' && rv->model_variant == rv->r.variant &&
	     rv->model_mflops == mflops))
		return;
	rv->model_variant = rv->r.variant;
	rv->model_mflops = mflops;
	rv->model.ok = false;
	if (!sm_variant_has_module(var)) {
		snprintf(rv->budget, sizeof(rv->budget), "-");
		snprintf(rv->label, sizeof(rv->label), "%s", sm_variant_name(var));
	} else {
		snprintf(rv->budget, sizeof(rv->budget), "%" PRIu64 " MFLOP/s", mflops);
		if (mflops == 0)
			snprintf(rv->budget, sizeof(rv->budget), "%s",
				 sm_budget_name(SM_BUDGET_FREE));
		for (b = 0; b < SM_BUDGET_FREE && mflops > 0; b++) {
			double x = sm_budget_value(&sc->model.mod, (enum sm_budget)b);

			if (x > 0 && (uint64_t)(x / 1e6 + 0.5) == mflops) {
				budget = x;	/* the scenario's value, not the rounded one */
				snprintf(rv->budget, sizeof(rv->budget), "%s",
					 sm_budget_name((enum sm_budget)b));
				break;
			}
		}
		snprintf(rv->label, sizeof(rv->label), "%s[%s]", sm_variant_name(var), rv->budget);
	}
	if (sm_step_eval(&sc->model, var, budget, &st) != 0)
		return;
	rv->model.ok = true;
	sm_step_shares(&st, rv->model.share);
	rv->model.step_s = st.total;
	rv->model.binding = st.n_modules > 0 ? (int)st.kernel.binding : -1;
}

static double steps_per_s(const struct top_run_view *rv);

static int
read_elems(struct top_view *v)
{
	struct top_elem_key key, next, *prev = NULL;
	uint32_t i;

	for (i = 0; i < v->n_runs; i++)
		v->runs[i].n_elems = 0;
	while (bpf_map_get_next_key(v->elems_fd, prev, &next) == 0) {
		struct top_run_view *rv;
		struct top_elem e;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(v->elems_fd, &key, &e) != 0)
			continue;
		rv = run_view(v, key.run_id);
		if (rv == NULL)
			return -ENOMEM;
		if (rv->n_elems == rv->elems_cap) {
			uint32_t cap = rv->elems_cap ? 2 * rv->elems_cap : 64;
			struct top_elem_view *ev = realloc(rv->elems, cap * sizeof(*ev));

			if (ev == NULL)
				return -ENOMEM;
			rv->elems = ev;
			rv->elems_cap = cap;
		}
		for (i = rv->n_elems; i > 0 && rv->elems[i - 1].id > key.elem_id; i--)
			rv->elems[i] = rv->elems[i - 1];
		rv->elems[i].id = key.elem_id;
		rv->elems[i].e = e;
		rv->n_elems++;
	}
	return 0;
}

int
top_view_refresh(struct top_view *v, double now)
{
	uint32_t key, next, *prev = NULL, i;

	while (bpf_map_get_next_key(v->runs_fd, prev, &next) == 0) {
		struct top_run_view *rv;
		struct top_run r;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(v->runs_fd, &key, &r) != 0)
			continue;
		rv = run_view(v, key);
		if (rv == NULL)
			return -ENOMEM;
		rv->r = r;
		model_of(v->sc, rv);
	}
	for (i = 0; i < v->n_runs; i++) {
		struct top_run_view *rv = &v->runs[i];

		/* over the last interval; for a run first seen now, over its steps so far */
		rv->rate = rv->prev_wall > 0 && now > rv->prev_wall &&
			   rv->r.steps >= rv->prev_steps ?
			   (double)(rv->r.steps - rv->prev_steps) / (now - rv->prev_wall) :
			   steps_per_s(rv);
		rv->prev_steps = rv->r.steps;
		rv->prev_wall = now;
	}
	v->t_now = now;
	return read_elems(v);
}

void
top_view_event(struct top_view *v, const struct top_event *ev)
{
	struct top_run_view *rv = run_view(v, ev->run_id);

	if (rv == NULL) {
		v->lost++;
		return;
	}
	if (ev->kind == TOP_EV_BINDING && ev->a[1] >= 0) {
		if (rv->n_changes < TOP_CHANGES_KEPT) {
			struct top_change *c = &rv->ch[rv->n_changes];

			c->worker = (uint32_t)ev->a[0];
			c->old_stage = (int)ev->a[1];
			c->new_stage = (int)ev->a[2];
			c->t_ps = (uint64_t)ev->a[3];
		}
		rv->n_changes++;
	}
	if (ev->kind == TOP_EV_BUDGET) {
		if (rv->n_budget < TOP_CHANGES_KEPT) {
			struct top_budget_change *c = &rv->bch[rv->n_budget];

			c->step = (uint64_t)ev->a[0];
			c->old_mflops = (uint64_t)ev->a[1];
			c->new_mflops = (uint64_t)ev->a[2];
		}
		rv->n_budget++;
	}
}

/* Shares of the step measured so far (the spans over their sum). */
static void
measured(const struct top_run_view *rv, double share[SM_RES_COUNT])
{
	double total = 0;
	int k;

	for (k = 0; k < SM_RES_COUNT; k++)
		total += (double)rv->r.span_ps[k];
	for (k = 0; k < SM_RES_COUNT; k++)
		share[k] = total > 0 ? (double)rv->r.span_ps[k] / total : 0;
}

static int
argmax(const double *x, int n)
{
	int k, best = 0;

	for (k = 1; k < n; k++)
		if (x[k] > x[best])
			best = k;
	return best;
}

static double
steps_per_s(const struct top_run_view *rv)
{
	if (rv->r.steps < 2 || rv->r.last_ns <= rv->r.first_ns)
		return 0;
	return (double)(rv->r.steps - 1) * 1e9 / (double)(rv->r.last_ns - rv->r.first_ns);
}

static const char *
stage_name(int s)
{
	return s >= 0 && s < SM_STAGE_COUNT ? sm_stage_name((enum sm_stage)s) : "-";
}

static void
bucket_bounds(int k, uint64_t *lo, uint64_t *hi)
{
	*lo = k == 0 ? 0 : UINT64_C(1) << (k - 1);
	*hi = k == 0 ? 0 : (UINT64_C(1) << k) - 1;
}

static const char *
fmt_bytes(uint64_t b, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double x = (double)b;
	int u = 0;

	while (x >= 1024 && u < 4) {
		x /= 1024;
		u++;
	}
	snprintf(buf, len, u ? "%.4g %s" : "%.0f %s", x, unit[u]);
	return buf;
}

static void
print_hist(const struct top_run_view *rv, FILE *f)
{
	uint64_t peak = 0;
	int k;

	for (k = 0; k < TOP_HIST_BUCKETS; k++)
		if (rv->r.q_hist[k] > peak)
			peak = rv->r.q_hist[k];
	for (k = 0; k < TOP_HIST_BUCKETS && peak > 0; k++) {
		char a[24], b[24], range[56];
		uint64_t lo, hi, n = rv->r.q_hist[k];
		int bar;

		if (n == 0)
			continue;
		bucket_bounds(k, &lo, &hi);
		if (k == 0)
			snprintf(range, sizeof(range), "0 B");
		else
			snprintf(range, sizeof(range), "%s - %s", fmt_bytes(lo, a, sizeof(a)),
				 fmt_bytes(hi + 1, b, sizeof(b)));
		bar = (int)(40.0 * (double)n / (double)peak + 0.5);
		fprintf(f, "    %22s  %-40.*s %10" PRIu64 " %5.1f%%\n", range, bar > 0 ? bar : 1,
			"########################################", n,
			100.0 * (double)n / (double)rv->r.q_samples);
	}
}

static void
print_run(const struct top_view *v, const struct top_run_view *rv, FILE *f)
{
	double sh[SM_RES_COUNT];
	uint64_t busy_top = 0, drops = 0;
	uint32_t i, busy_id = 0;
	int k;

	measured(rv, sh);
	fprintf(f, "\nrun %u  %s", rv->run_id, rv->label[0] ? rv->label : "(variant not seen yet)");
	if (rv->r.steps > 0)
		fprintf(f, "  step %llu", ULL(rv->r.last_step + 1));
	if (rv->r.steps_planned > 0)
		fprintf(f, " of %llu (%llu workers)", ULL(rv->r.steps_planned),
			ULL(rv->r.n_workers));
	fprintf(f, "  %.1f steps/s  %llu steps seen%s\n", rv->rate, ULL(rv->r.steps),
		rv->r.ended ? "  (run over)" : "");
	for (i = 0; i < rv->n_budget && i < TOP_CHANGES_KEPT; i++)
		fprintf(f, "  budget %llu -> %llu MFLOP/s in step %llu%s\n",
			ULL(rv->bch[i].old_mflops), ULL(rv->bch[i].new_mflops),
			ULL(rv->bch[i].step + 1), i + 1 == rv->n_budget ?
			": the shares below are of the steps after it" : "");
	if (rv->r.steps > 0)
		fprintf(f, "  mean step %.6f ms (model %.6f ms)\n",
			(double)rv->r.step_ps / (double)rv->r.steps / 1e9, rv->model.step_s * 1e3);
	fprintf(f, "  %-9s", "share %");
	for (k = 0; k < SM_RES_COUNT; k++)
		fprintf(f, " %9s", res_short[k]);
	fprintf(f, "  hot spot\n  %-9s", "measured");
	for (k = 0; k < SM_RES_COUNT; k++)
		fprintf(f, " %9.1f", 100 * sh[k]);
	fprintf(f, "  %s\n", rv->r.steps ?
		sm_resource_name((enum sm_resource)argmax(sh, SM_RES_COUNT)) : "-");
	if (rv->model.ok) {
		fprintf(f, "  %-9s", "model");
		for (k = 0; k < SM_RES_COUNT; k++)
			fprintf(f, " %9.1f", 100 * rv->model.share[k]);
		fprintf(f, "  %s\n", sm_resource_name((enum sm_resource)argmax(rv->model.share,
									     SM_RES_COUNT)));
	}
	fprintf(f, "  module binding: %s (model %s), %" PRIu64 " change%s\n",
		stage_name((int)rv->r.binding), stage_name(rv->model.binding), rv->n_changes,
		rv->n_changes == 1 ? "" : "s");
	for (i = 0; i < rv->n_changes && i < TOP_CHANGES_KEPT; i++)
		fprintf(f, "    module %u: %s -> %s at %.6f ms\n", rv->ch[i].worker,
			stage_name(rv->ch[i].old_stage), stage_name(rv->ch[i].new_stage),
			(double)rv->ch[i].t_ps / 1e9);
	if (rv->r.q_samples > 0) {
		char b[24];

		fprintf(f, "  WAN queue depth: %llu samples, max %s\n", ULL(rv->r.q_samples),
			fmt_bytes(rv->r.q_max, b, sizeof(b)));
		print_hist(rv, f);
	}
	for (i = 0; i < rv->n_elems; i++)
		if (rv->elems[i].e.busy_periods > busy_top) {
			busy_top = rv->elems[i].e.busy_periods;
			busy_id = rv->elems[i].id;
		}
	if (v->busy)
		fprintf(f, "  busy periods: %llu (most on element %u: %llu)\n",
			ULL(rv->r.busy_periods), busy_id, ULL(busy_top));
	else
		fprintf(f, "  busy periods: not counted (--busy)\n");
	fprintf(f, "  drops: %llu frames, %llu bytes (%llu background)", ULL(rv->r.drops),
		ULL(rv->r.drop_bytes), ULL(rv->r.bg_drops));
	for (i = 0; i < rv->n_elems; i++) {
		if (rv->elems[i].e.drops == 0)
			continue;
		fprintf(f, "%s element %u: %llu", drops++ ? "," : ";", rv->elems[i].id,
			ULL(rv->elems[i].e.drops));
	}
	fprintf(f, "\n");
}

void
top_view_print(const struct top_view *v, FILE *f, bool clear)
{
	uint32_t i, shown = 0;

	if (clear)
		fprintf(f, "\033[H\033[2J");
	fprintf(f, "syncemu-top  pid %d  %s  up %.1f s\nmodel: scenario %s%s%s%s\n", v->pid,
		v->exe, v->t_now - v->t_start, v->sc->name, v->sc->path[0] ? " (" : " (built in",
		v->sc->path, ")");
	/* the latest runs first on a terminal: they are what is live */
	for (i = v->n_runs; i > 0 && (!clear || shown < 3); i--, shown++)
		print_run(v, &v->runs[i - 1], f);
	if (v->n_runs == 0)
		fprintf(f, "\nno step seen yet\n");
	fflush(f);
}

static json_t *
shares_json(const double share[SM_RES_COUNT])
{
	json_t *o = json_object();
	int k;

	for (k = 0; k < SM_RES_COUNT && o != NULL; k++)
		json_object_set_new(o, sm_resource_id((enum sm_resource)k),
				    json_real(round(1e6 * share[k]) / 1e4));
	return o;
}

static json_t *
stage_json(int s)
{
	return s >= 0 && s < SM_STAGE_COUNT ? json_string(sm_stage_name((enum sm_stage)s)) :
					      json_null();
}

static json_t *
run_json(const struct top_view *v, const struct top_run_view *rv)
{
	json_t *o = json_object(), *hist = json_array(), *drops = json_array(),
	       *busy = json_array(), *changes = json_array(), *budgets = json_array();
	double sh[SM_RES_COUNT], diff = 0;
	uint32_t i;
	int k;

	measured(rv, sh);
	for (k = 0; k < SM_RES_COUNT && rv->model.ok && rv->r.steps > 0; k++)
		diff = fmax(diff, fabs(sh[k] - rv->model.share[k]));
	for (k = 0; k < TOP_HIST_BUCKETS; k++) {
		uint64_t lo, hi;

		if (rv->r.q_hist[k] == 0)
			continue;
		bucket_bounds(k, &lo, &hi);
		json_array_append_new(hist, json_pack("{sIsIsI}", "from_bytes", (json_int_t)lo,
						      "to_bytes", (json_int_t)hi, "count",
						      (json_int_t)rv->r.q_hist[k]));
	}
	for (i = 0; i < rv->n_elems; i++) {
		const struct top_elem_view *e = &rv->elems[i];

		if (e->e.drops > 0)
			json_array_append_new(drops, json_pack("{sisIsIsI}", "elem", (int)e->id,
				"frames", (json_int_t)e->e.drops,
				"bytes", (json_int_t)e->e.drop_bytes,
				"background", (json_int_t)e->e.bg_drops));
		if (e->e.busy_periods > 0)
			json_array_append_new(busy, json_pack("{sisI}", "elem", (int)e->id,
				"count", (json_int_t)e->e.busy_periods));
	}
	for (i = 0; i < rv->n_changes && i < TOP_CHANGES_KEPT; i++)
		json_array_append_new(changes, json_pack("{sisososI}",
			"module", (int)rv->ch[i].worker,
			"from", stage_json(rv->ch[i].old_stage),
			"to", stage_json(rv->ch[i].new_stage),
			"t_ps", (json_int_t)rv->ch[i].t_ps));
	for (i = 0; i < rv->n_budget && i < TOP_CHANGES_KEPT; i++)
		json_array_append_new(budgets, json_pack("{sIsIsI}",
			"step", (json_int_t)rv->bch[i].step,
			"from_mflops", (json_int_t)rv->bch[i].old_mflops,
			"to_mflops", (json_int_t)rv->bch[i].new_mflops));
	json_object_set_new(o, "run_id", json_integer(rv->run_id));
	json_object_set_new(o, "run", rv->label[0] ? json_string(rv->label) : json_null());
	json_object_set_new(o, "variant", rv->r.variant < SM_VAR_COUNT ?
			    json_string(sm_variant_name((enum sm_variant)rv->r.variant)) :
			    json_null());
	json_object_set_new(o, "budget", rv->budget[0] ? json_string(rv->budget) : json_null());
	json_object_set_new(o, "budget_mflops", json_integer((json_int_t)rv->r.budget_mflops));
	json_object_set_new(o, "start_seen", json_boolean(rv->r.started));
	json_object_set_new(o, "ended", json_boolean(rv->r.ended));
	json_object_set_new(o, "steps_planned", rv->r.started ?
			    json_integer((json_int_t)rv->r.steps_planned) : json_null());
	json_object_set_new(o, "workers", rv->r.started ?
			    json_integer((json_int_t)rv->r.n_workers) : json_null());
	json_object_set_new(o, "steps", json_integer((json_int_t)rv->r.steps));
	json_object_set_new(o, "first_step", rv->r.steps ?
			    json_integer((json_int_t)rv->r.first_step) : json_null());
	json_object_set_new(o, "last_step", rv->r.steps ?
			    json_integer((json_int_t)rv->r.last_step) : json_null());
	json_object_set_new(o, "steps_per_s", json_real(round(100 * steps_per_s(rv)) / 100));
	json_object_set_new(o, "mean_step_ms", rv->r.steps ?
			    json_real((double)rv->r.step_ps / (double)rv->r.steps / 1e9) :
			    json_null());
	json_object_set_new(o, "model_step_ms", rv->model.ok ? json_real(rv->model.step_s * 1e3) :
			    json_null());
	json_object_set_new(o, "shares_pct", shares_json(sh));
	json_object_set_new(o, "model_shares_pct", rv->model.ok ? shares_json(rv->model.share) :
			    json_null());
	json_object_set_new(o, "max_share_diff_pp", rv->model.ok && rv->r.steps ?
			    json_real(round(1e6 * diff) / 1e4) : json_null());
	json_object_set_new(o, "hot_spot", rv->r.steps ?
			    json_string(sm_resource_id((enum sm_resource)argmax(sh,
										SM_RES_COUNT))) :
			    json_null());
	json_object_set_new(o, "model_hot_spot", rv->model.ok ?
			    json_string(sm_resource_id((enum sm_resource)argmax(rv->model.share,
										SM_RES_COUNT))) :
			    json_null());
	json_object_set_new(o, "binding_stage", stage_json((int)rv->r.binding));
	json_object_set_new(o, "model_binding_stage", stage_json(rv->model.binding));
	json_object_set_new(o, "binding_changes", json_integer((json_int_t)rv->n_changes));
	json_object_set_new(o, "binding_events", changes);
	json_object_set_new(o, "budget_changes", json_integer((json_int_t)rv->n_budget));
	json_object_set_new(o, "budget_events", budgets);
	json_object_set_new(o, "wan_queue", json_pack("{sIsIso}", "samples",
			    (json_int_t)rv->r.q_samples, "max_bytes", (json_int_t)rv->r.q_max,
			    "hist", hist));
	json_object_set_new(o, "drops", json_pack("{sIsIsIso}", "frames",
			    (json_int_t)rv->r.drops, "bytes", (json_int_t)rv->r.drop_bytes,
			    "background", (json_int_t)rv->r.bg_drops, "by_element", drops));
	json_object_set_new(o, "busy_periods", v->busy ? json_pack("{sIso}", "total",
			    (json_int_t)rv->r.busy_periods, "by_element", busy) : json_null());
	if (!v->busy)
		json_decref(busy);
	return o;
}

int
top_view_json(const struct top_view *v, FILE *f, const char *ended_by)
{
	json_t *root = json_object(), *runs = json_array();
	uint32_t i;
	int rc;

	if (root == NULL || runs == NULL) {
		json_decref(root);
		json_decref(runs);
		return -ENOMEM;
	}
	for (i = 0; i < v->n_runs; i++)
		json_array_append_new(runs, run_json(v, &v->runs[i]));
	json_object_set_new(root, "syncemu_top", json_string(SYNCEMU_VERSION));
	json_object_set_new(root, "pid", json_integer(v->pid));
	json_object_set_new(root, "binary", json_string(v->exe));
	json_object_set_new(root, "scenario", json_string(v->sc->name));
	json_object_set_new(root, "scenario_file", v->sc->path[0] ? json_string(v->sc->path) :
			    json_null());
	json_object_set_new(root, "attached_s", json_real(round(1e3 * (v->t_now - v->t_start)) /
							   1e3));
	json_object_set_new(root, "ended_by", json_string(ended_by));
	json_object_set_new(root, "runs", runs);
	rc = json_dumpf(root, f, JSON_INDENT(2) | JSON_REAL_PRECISION(12)) == 0 ? 0 : -EIO;
	fputc('\n', f);
	fflush(f);
	json_decref(root);
	return rc;
}

void
top_view_free(struct top_view *v)
{
	uint32_t i;

	for (i = 0; i < v->n_runs; i++)
		free(v->runs[i].elems);
	free(v->runs);
	v->runs = NULL;
	v->n_runs = v->cap = 0;
}

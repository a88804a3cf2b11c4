/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The results of a run, made as the run goes.
 *
 * A step that ends goes into the statistics of all steps and of the steady ones (the warm-up
 * apart), into the mean shares, and, at zero load, is held against the packet-level closed form
 * of the parameters in force during it (models/packet.h's iterator, one step after the other).
 * A live change (dataplane/tune.h) starts a new setting: the step during which it landed is
 * marked and left out; the steps after it are held against the closed form of the new
 * parameters, from a fresh iterator (with a barrier every step starts from an empty network, so
 * the closed form of any step is that of a step from the run's start; without sync the steps
 * after a change have no closed form).  Queue samples and background transfers go into their
 * own streams, and the queue samples to --queue-csv as they are taken.  Memory: the streams
 * (models/stream.h, at most some 80 KB each), the first and last runner.keep steps, and one
 * setting per live change; nothing that grows with the steps.
 *
 * Under load the fluid shared-WAN model (models/sharedwan.c) runs after the data plane, over as
 * many syncs with the same seed, with the parameters in force at the end.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runstats.h"
#include "spans.h"
#include "stream.h"
#include "variant.h"

struct runstats {
	const struct runner *r;
	const struct sc_scenario *sc;
	struct outcome *o;
	int err;			/* a stream could not grow: the run fails */
	/* the steps */
	uint32_t n, warmup;
	struct sm_stream all, steady;
	double warm_sum;
	double share_sum[SM_RES_COUNT], module_sum;
	uint32_t last_next;		/* where the next kept step goes in o->last */
	uint32_t first_cap;
	/* the parameters in force: the run's with the first @applied changes */
	struct sm_params model;
	double load;
	uint32_t applied;
	/* at zero load, the closed form of the current setting */
	bool zero;
	struct sm_packet_iter *it;
	double pm_sum, max_rel;
	uint32_t pm_n;
	/* the WAN queues and the background */
	bool q_open;
	struct sm_stream q[DP_PROBE_LINKS];
	struct sm_stream fct, wait;
};

static double
budget_of(const struct outcome *o, const struct sm_params *m)
{
	return sm_variant_has_module(o->c.var) ? sm_budget_value(&m->mod, o->c.b) : o->c.budget;
}

/* The parameters in force after the first @n of @ch. */
static void
apply_changes(struct runstats *rs, const struct dp_change *ch, uint32_t n)
{
	for (; rs->applied < n; rs->applied++) {
		const struct dp_change *c = &ch[rs->applied];

		if (c->param == DP_P_BG_LOAD)
			rs->load = c->value;
		else if (c->param != DP_P_WAN_QUEUE)	/* not in the models */
			dp_param_set(&rs->model, c->param, c->value);
	}
}

/* The fluid step and bound of the parameters in force into @g. */
static void
fluid_of(struct runstats *rs, struct regime *g, char *why, size_t len)
{
	struct sm_program *prog = calloc(1, sizeof(*prog));
	double budget = budget_of(rs->o, &rs->model);
	struct sm_step fl;

	g->fluid = sm_step_eval(&rs->model, rs->o->c.var, budget, &fl) == 0 ? fl.total : NAN;
	g->bound = NAN;
	g->bound_holds = false;
	if (prog != NULL && sm_program_build(&rs->model, rs->o->c.var, budget, prog) == 0) {
		g->bound = sm_packet_fluid_bound(&rs->model, &rs->sc->run.pk, prog);
		g->bound_holds = sm_packet_fluid_bound_holds(&rs->model, &rs->sc->run.pk, prog, why,
							     len);
	}
	sm_program_free(prog);
	free(prog);
}

/* The steps from @s on run under the run's parameters with @changes of @ch. */
static void
new_regime(struct runstats *rs, uint32_t changes, const struct dp_change *ch, uint32_t s)
{
	struct outcome *o = rs->o;
	struct regime *g = realloc(o->regimes, (o->nregimes + 1) * sizeof(*g));
	char why[240];
	int rc;

	if (g == NULL) {
		rs->err = -ENOMEM;
		return;
	}
	o->regimes = g;
	g = &o->regimes[o->nregimes++];
	memset(g, 0, sizeof(*g));
	apply_changes(rs, ch, changes);
	g->changes = changes;
	g->first = g->last = s;
	g->max_rel = NAN;
	fluid_of(rs, g, why, sizeof(why));
	sm_packet_iter_free(rs->it);
	rs->it = NULL;
	if (!rs->zero || o->pm_rc != 0)
		return;
	if (changes > 0 && rs->sc->run.pk.sync == SM_SYNC_NONE)
		return;		/* overlapping steps: no closed form across a change */
	rc = sm_packet_iter_create(&rs->model, &rs->sc->run.pk, o->c.var, budget_of(o, &rs->model),
				   &rs->it);
	if (rc != 0 && changes == 0)
		o->pm_rc = rc;
}

/* Keep step @s for the report if it is among the first or the last o->keep. */
static void
keep_step(struct runstats *rs, uint32_t s, const struct dp_step_result *sr, double pm,
	  double fluid)
{
	struct outcome *o = rs->o;
	struct kept_step k = { .s = s, .r = *sr, .pm_ps = pm, .fluid = fluid };

	if (o->keep == 0)
		return;
	if (o->nfirst < o->keep) {
		if (o->nfirst == rs->first_cap) {
			uint32_t cap = rs->first_cap ? 2 * rs->first_cap : 64;
			struct kept_step *f;

			if (cap > o->keep)
				cap = o->keep;
			f = realloc(o->first, cap * sizeof(*f));
			if (f == NULL) {
				rs->err = -ENOMEM;
				return;
			}
			o->first = f;
			rs->first_cap = cap;
		}
		o->first[o->nfirst++] = k;
		return;
	}
	if (o->last == NULL) {
		o->last = malloc(o->keep * sizeof(*o->last));
		if (o->last == NULL) {
			rs->err = -ENOMEM;
			return;
		}
	}
	o->last[rs->last_next] = k;
	rs->last_next = (rs->last_next + 1) % o->keep;
	o->last_next = rs->last_next;
	if (o->nlast < o->keep)
		o->nlast++;
}

static void
add(struct runstats *rs, struct sm_stream *st, double x)
{
	int rc = sm_stream_add(st, x);

	if (rc != 0 && rs->err == 0)
		rs->err = rc;
}

/* A step as a row of run --csv (STEPS_CSV_HEADER): times in ms, shares in %, NAN as empty. */
static void
csv_step(struct runstats *rs, uint32_t s, const struct dp_step_result *sr, double pm_ps,
	 double fluid)
{
	FILE *f = rs->r->steps_csv;
	const struct outcome *o = rs->o;
	int k;

	fprintf(f, "%u,\"%s\",%s,%s,%u,%.9f,", o->run_id, o->c.label, sm_variant_id(o->c.var),
		sm_variant_has_module(o->c.var) ? sm_budget_name(o->c.b) : "", s,
		(double)sr->time / 1e9);
	if (isfinite(pm_ps))
		fprintf(f, "%.9f", pm_ps / 1e9);
	fputc(',', f);
	if (isfinite(fluid))
		fprintf(f, "%.9f", fluid * 1e3);
	fprintf(f, ",%" PRIu64, sr->frames);
	for (k = 0; k < SM_RES_COUNT; k++)
		fprintf(f, ",%.6f", 100.0 * sr->share[k]);
	fprintf(f, ",%.6f,%d\n", 100.0 * sr->module_share, sr->changed ? 1 : 0);
}

static void
on_step(void *arg, uint32_t s, const struct dp_step_result *sr, const struct dp_change *ch,
	uint32_t nch)
{
	struct runstats *rs = arg;
	struct outcome *o = rs->o;
	double x = (double)sr->time / 1e12, pm = NAN, fluid = NAN;
	int k;

	rs->n++;
	add(rs, &rs->all, x);
	if (s < rs->warmup)
		rs->warm_sum += x;
	else
		add(rs, &rs->steady, x);
	for (k = 0; k < SM_RES_COUNT; k++)
		rs->share_sum[k] += sr->share[k];
	rs->module_sum += sr->module_share;
	if (sr->changed) {
		o->changed_steps++;	/* under two settings: no model applies */
	} else {
		struct regime *g;

		if (o->nregimes == 0 || o->regimes[o->nregimes - 1].changes != sr->changes_before)
			new_regime(rs, sr->changes_before, ch, s);
		if (o->nregimes == 0)
			return;
		g = &o->regimes[o->nregimes - 1];
		g->last = s;
		fluid = g->fluid;
		if (rs->it != NULL && o->pm_rc == 0) {
			struct sm_packet_step ps;
			int rc = sm_packet_iter_next(rs->it, &ps);

			if (rc != 0) {
				o->pm_rc = rc;
			} else {
				double d = fabs((double)sr->time - (double)ps.time_ps) /
					   (double)ps.time_ps;

				pm = (double)ps.time_ps;
				g->steps++;
				g->pm_sum += pm;
				if (isnan(g->max_rel) || d > g->max_rel)
					g->max_rel = d;
				rs->pm_n++;
				rs->pm_sum += pm;
				if (d > rs->max_rel)
					rs->max_rel = d;
			}
		}
	}
	(void)nch;
	if (rs->r->steps_csv != NULL)
		csv_step(rs, s, sr, pm, fluid);
	keep_step(rs, s, sr, pm, fluid);
}

/* The WAN queues over time for --json: every stride-th sample, thinned to every other one
 * (and the stride doubled) when QUEUE_POINTS are kept. */
static void
keep_point(struct runstats *rs, dp_time_t t, const uint64_t *bytes, uint32_t n)
{
	struct queue_points *qp = &rs->o->qp;
	uint64_t seen = qp->seen++;
	uint32_t k;

	if (qp->t == NULL) {
		qp->t = malloc(QUEUE_POINTS * sizeof(*qp->t));
		qp->bytes = malloc((size_t)QUEUE_POINTS * n * sizeof(*qp->bytes));
		qp->stride = 1;
		if (qp->t == NULL || qp->bytes == NULL) {
			rs->err = -ENOMEM;
			return;
		}
	}
	if (seen % qp->stride != 0)
		return;
	if (qp->n == QUEUE_POINTS) {
		for (k = 0; k < qp->n / 2; k++) {
			qp->t[k] = qp->t[2 * k];
			memcpy(&qp->bytes[(size_t)k * n], &qp->bytes[(size_t)2 * k * n],
			       n * sizeof(*qp->bytes));
		}
		qp->n /= 2;
		qp->stride *= 2;
		if (seen % qp->stride != 0)
			return;
	}
	qp->t[qp->n] = (double)t / 1e12;
	memcpy(&qp->bytes[(size_t)qp->n * n], bytes, n * sizeof(*bytes));
	qp->n++;
}

static void
on_sample(void *arg, dp_time_t t, const uint64_t *bytes, const char *const *names, uint32_t n)
{
	struct runstats *rs = arg;
	struct outcome *o = rs->o;
	uint32_t i;

	if (!rs->q_open) {
		rs->q_open = true;
		o->nq = n;
		for (i = 0; i < n; i++) {
			snprintf(o->q[i].name, sizeof(o->q[i].name), "%s", names[i]);
			if (sm_stream_init(&rs->q[i], 0) != 0)
				rs->err = -ENOMEM;
		}
	}
	if (rs->err != 0)
		return;
	for (i = 0; i < n && i < o->nq; i++) {
		add(rs, &rs->q[i], (double)bytes[i]);
		if (rs->r->queue_csv != NULL)
			fprintf(rs->r->queue_csv, "%u,%s,%.9f,%s,%" PRIu64 "\n", o->run_id,
				o->c.label, (double)t / 1e12, names[i], bytes[i]);
	}
	if (rs->r->queue_points)
		keep_point(rs, t, bytes, o->nq);
}

static int
on_transfer(void *arg, double fct, double wait)
{
	struct runstats *rs = arg;
	int rc = sm_stream_add(&rs->fct, fct);

	if (rc == 0)
		rc = sm_stream_add(&rs->wait, wait);
	return rc;
}

int
runstats_begin(struct runstats **out, const struct runner *r, const struct sc_scenario *sc,
	       struct outcome *o, struct dp_run_sink *sink)
{
	struct runstats *rs = calloc(1, sizeof(*rs));
	uint32_t steps = sc->run.steps;
	int rc;

	*out = NULL;
	if (rs == NULL)
		return -ENOMEM;
	rs->r = r;
	rs->sc = sc;
	rs->o = o;
	rs->warmup = sc->run.warmup;
	rs->model = sc->model;
	rs->load = sc->background.load;
	/* the packet closed form is the ideal collective's: none for TCP's windows and ACKs */
	rs->zero = !(sc->background.load > 0) && sc->run.pk.tcp.transport != SM_TRANSPORT_TCP;
	o->keep = r->keep;
	if (rs->zero)
		o->pm_rc = 0;
	rc = sm_stream_init(&rs->all, steps);
	if (rc == 0)
		rc = sm_stream_init(&rs->steady, steps > rs->warmup ? steps - rs->warmup : 0);
	if (rc == 0)
		rc = sm_stream_init(&rs->fct, 0);
	if (rc == 0)
		rc = sm_stream_init(&rs->wait, 0);
	if (rc != 0) {
		runstats_free(rs);
		return rc;
	}
	*sink = (struct dp_run_sink){ .arg = rs, .step = on_step, .sample = on_sample,
				      .transfer = on_transfer };
	*out = rs;
	return 0;
}

void
runstats_wan_params(const struct sc_scenario *sc, enum sm_variant v, double budget, double load,
		    const struct sm_size_dist *sizes, uint32_t steps,
		    struct sm_sharedwan_params *wp)
{
	sm_sharedwan_default(wp);
	wp->var = v;
	wp->budget = budget;
	wp->load = load;
	wp->sizes = sizes;
	wp->directions = sc->background.directions == SC_DIRECTIONS_ONE ? 1 : 2;
	wp->seed = sc->run.seed;
	wp->n_syncs = steps ? steps : 1;
	wp->warmup = sc->run.warmup < wp->n_syncs ? sc->run.warmup : wp->n_syncs;
	wp->disc = SM_WAN_PS;
	wp->sync_one_flow = true;
}

/* Under load: the fluid shared-WAN model (PS and FIFO), M/G/1 for the background. */
static void
loaded_models(struct runstats *rs, const struct sm_size_dist *sizes, struct outcome *o)
{
	const struct sc_scenario *sc = rs->sc;
	struct sm_sharedwan_params wp;
	double lambda, es, es2, bw = rs->model.wan.bw;

	o->loaded = true;
	runstats_wan_params(sc, o->c.var, budget_of(o, &rs->model), rs->load, sizes, o->res.steps,
			    &wp);
	o->model_rc = sm_sharedwan_run(&rs->model, &wp, NULL, &o->ps);
	wp.disc = SM_WAN_FIFO;
	if (o->model_rc == 0)
		o->model_rc = sm_sharedwan_run(&rs->model, &wp, NULL, &o->fifo);
	lambda = sm_bg_rate(rs->load, bw, sizes);
	es = sizes->mean / bw;
	es2 = sm_size_moment2(sizes) / (bw * bw);
	o->mg1_wait = sm_mg1_wait(lambda, es, es2);
	o->bg_util = rs->load;
}

int
runstats_end(struct runstats *rs, const struct sm_size_dist *sizes, struct outcome *o)
{
	enum sm_resource bres = o->res.has_module ? dp_stage_res(o->res.binding) : SM_RES_COMPUTE;
	uint32_t n = rs->n, w = rs->warmup < n ? rs->warmup : n, i;
	struct regime end;
	int k;

	if (rs->err != 0) {
		snprintf(o->err, sizeof(o->err), "the run's statistics: %s", strerror(-rs->err));
		return rs->err;
	}
	memset(&o->all, 0, sizeof(o->all));
	memset(&o->steady, 0, sizeof(o->steady));
	o->warm_mean = NAN;
	if (n > 0) {
		sm_stream_stats(&rs->all, &o->all);
		if (w > 0)
			o->warm_mean = rs->warm_sum / w;
		if (n > w)
			sm_stream_stats(&rs->steady, &o->steady);
		for (k = 0; k < SM_RES_COUNT; k++)
			o->share[k] = rs->share_sum[k] / n;
		o->share[bres] += rs->module_sum / n;	/* the module, at the run's binding stage */
	}
	for (i = 0; i < outcome_kept(o); i++) {
		struct kept_step *ks = (struct kept_step *)outcome_kept_step(o, i);

		ks->r.share[bres] += ks->r.module_share;
	}
	/* the model columns: the parameters in force during the last step (a change after it
	 * touched no step) */
	for (i = 0; i < o->res.nchanges && o->res.changes[i].step != UINT32_MAX; i++)
		;
	apply_changes(rs, o->res.changes, i);
	fluid_of(rs, &end, o->bound_why, sizeof(o->bound_why));
	o->fluid = end.fluid;
	o->bound = end.bound;
	o->bound_holds = end.bound_holds;
	if (rs->zero) {
		o->pm_steps = rs->pm_n;
		o->pm_mean = rs->pm_n > 0 ? rs->pm_sum / rs->pm_n / 1e12 : NAN;
		o->max_rel = o->pm_rc == 0 && rs->pm_n > 0 ? rs->max_rel : NAN;
	} else {
		loaded_models(rs, sizes, o);
	}
	memset(&o->fct, 0, sizeof(o->fct));
	memset(&o->wait, 0, sizeof(o->wait));
	if (rs->fct.n > 0) {
		sm_stream_stats(&rs->fct, &o->fct);
		sm_stream_stats(&rs->wait, &o->wait);
		for (i = 0; i < OUTCOME_FCT_Q; i++)
			o->fct_q[i] = sm_sketch_rank(&rs->fct.q, 1 + (uint64_t)llround(
				(double)(rs->fct.n - 1) * i / (OUTCOME_FCT_Q - 1)));
	}
	for (i = 0; rs->q_open && i < o->nq; i++) {
		struct sm_stats st;

		if (sm_stream_stats(&rs->q[i], &st) != 0)
			continue;
		o->q[i].mean = st.mean;
		o->q[i].p99 = st.p99;
		o->q[i].max = st.max;
	}
	return 0;
}

void
runstats_free(struct runstats *rs)
{
	uint32_t i;

	if (rs == NULL)
		return;
	sm_packet_iter_free(rs->it);
	sm_stream_free(&rs->all);
	sm_stream_free(&rs->steady);
	sm_stream_free(&rs->fct);
	sm_stream_free(&rs->wait);
	for (i = 0; rs->q_open && i < rs->o->nq; i++)
		sm_stream_free(&rs->q[i]);
	free(rs);
}

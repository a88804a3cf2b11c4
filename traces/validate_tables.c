/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * syncemu validate: the tables, a syncemu trace's runs, steps, hot spots and capture points,
 * or a generic trace's bursts and flows, beside the model.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "kernel.h"
#include "packet.h"
#include "step.h"
#include "validate.h"

/* The label of run @id in the trace's comment ("runs: 1=A 2=E'[free]"). */
static int
run_label(const char *comment, uint32_t id, enum sm_variant *v, enum sm_budget *b, char *label,
	  size_t len)
{
	char key[16], name[16], *br;
	const char *p = strstr(comment, "runs:");
	int n;

	if (p == NULL)
		return -ENOENT;
	snprintf(key, sizeof(key), " %u=", id);
	p = strstr(p, key);
	if (p == NULL)
		return -ENOENT;
	p += strlen(key);
	n = (int)strcspn(p, " \n");
	if (n <= 0 || n >= (int)sizeof(name))
		return -ENOENT;
	snprintf(name, sizeof(name), "%.*s", n, p);
	snprintf(label, len, "%s", name);
	*b = SM_BUDGET_FREE;
	br = strchr(name, '[');
	if (br != NULL) {
		char *close = strchr(br, ']');

		if (close == NULL)
			return -ENOENT;
		*close = '\0';
		if (sm_budget_parse(br + 1, b) != 0)
			return -ENOENT;
		*br = '\0';
	}
	return sm_variant_parse(name, v);
}

int
validate_trace_limits(const char *comment, const struct sc_scenario *sc,
		      struct tr_syncs_limits *lim, struct tr_run_limit **runs)
{
	const char *nl = strchr(comment, '\n'), *p = strstr(comment, "runs:");
	uint32_t n = 0, cap = 0;

	memset(lim, 0, sizeof(*lim));
	*runs = NULL;
	/* a run's trace: a bridge's carries frames of runs it does not know */
	if (strncmp(comment, "syncemu ", 8) != 0 || nl == NULL ||
	    strstr(comment, " run of scenario ") == NULL ||
	    strstr(comment, " run of scenario ") > nl)
		return -ENOENT;
	lim->steps = sc->run.steps;
	lim->nodes = sm_workers(&sc->model);
	if (p == NULL || p > nl)
		return 0;
	for (p += 5; p < nl && *p == ' ';) {
		char *end, label[32];
		unsigned long id = strtoul(p + 1, &end, 10);
		enum sm_variant var;
		enum sm_budget bud;
		struct sm_program prog;

		if (end == p + 1 || *end != '=' || id == 0 || id > UINT32_MAX)
			break;
		if (n == cap) {
			uint32_t nc = cap ? 2 * cap : 8;
			struct tr_run_limit *nr = realloc(*runs, nc * sizeof(*nr));

			if (nr == NULL) {
				free(*runs);
				*runs = NULL;
				return -ENOMEM;
			}
			*runs = nr;
			cap = nc;
		}
		(*runs)[n].run_id = (uint32_t)id;
		(*runs)[n].rounds = 0;
		memset(&prog, 0, sizeof(prog));
		if (run_label(comment, (uint32_t)id, &var, &bud, label, sizeof(label)) == 0 &&
		    sm_program_build(&sc->model, var, sm_budget_value(&sc->model.mod, bud),
				     &prog) == 0)
			(*runs)[n].rounds = prog.n;
		sm_program_free(&prog);
		n++;
		p = end + strcspn(end, " \n");
	}
	lim->nruns = n;
	lim->run = *runs;
	return 0;
}

void
verdict_add(struct verdict *v, double err_pct)
{
	if (!isfinite(err_pct))
		return;
	v->compared = true;
	if (fabs(err_pct) > v->worst)
		v->worst = fabs(err_pct);
}

struct table *
validate_points_table(const struct tr_syncs *s)
{
	static const struct tcol cols[] = {
		{ "capture point", "point", -1 }, { "frames", "frames", 0 },
		{ "bytes", "bytes", 0 }, { "background %", "background_pct", 1 },
		{ "queued frames", "delays", 0 }, { "mean delay us", "mean_delay_us", 3 },
		{ "sync mean us", "sync_mean_delay_us", 3 }, { "max delay us", "max_delay_us", 3 },
	};
	struct table *t = table_create("points", "Capture points: frames, background, queueing",
				       cols, sizeof(cols) / sizeof(cols[0]));
	uint32_t i;

	for (i = 0; t != NULL && i < s->npoints; i++) {
		const struct tr_point *p = &s->point[i];

		table_str(t, p->name);
		table_num(t, (double)p->frames);
		table_num(t, (double)p->bytes);
		table_num(t, p->bytes ? 100.0 * p->bg_bytes / p->bytes : NAN);
		table_num(t, (double)p->delays);
		table_num(t, p->delays ? p->delay_sum_ns / p->delays / 1e3 : NAN);
		table_num(t, p->fg_delays ? p->fg_delay_sum_ns / p->fg_delays / 1e3 : NAN);
		table_num(t, p->delays ? p->delay_max_ns / 1e3 : NAN);
	}
	if (t != NULL)
		table_note(t, "a queue's delay: from a frame's record at <queue>.in to its record at "
			   "<queue>.out (matched by the syncemu header)");
	return t;
}

/* One run of a syncemu trace against the model. */
struct table *
validate_run_table(struct tr_reader *r, const struct tr_run *run, const struct sc_scenario *sc,
	  bool have_sc, struct verdict *v, double *mean_ms, char *label, size_t llen)
{
	static const struct tcol cols[] = {
		{ "step", "step", 0 }, { "trace ms", "trace_ms", 6 },
		{ "packet model ms", "packet_model_ms", 6 }, { "error %", "error_pct", 6 },
		{ "fluid ms", "fluid_ms", 6 }, { "vs fluid %", "vs_fluid_pct", 4 },
		{ "rounds", "rounds", 0 }, { "frames", "frames", 0 },
	};
	struct sm_packet_step *pm = NULL;
	enum sm_variant var = SM_VAR_A;
	enum sm_budget bud = SM_BUDGET_FREE;
	struct sm_program *prog = NULL;
	double fluid = NAN, budget = 0, sum = 0;
	uint64_t prev = 0, compute_ns = 0;
	char title[160];
	struct table *t;
	bool know = false, loaded = have_sc && sc->background.load > 0;
	uint32_t s, n = 0, npm = 0;

	snprintf(label, llen, "run %u", run->run_id);
	if (run_label(tr_reader_comment(r), run->run_id, &var, &bud, label, llen) == 0 && have_sc)
		know = true;
	if (know) {
		struct sm_step fl;

		budget = sm_budget_value(&sc->model.mod, bud);
		if (sm_step_eval(&sc->model, var, budget, &fl) == 0)
			fluid = fl.total;
		prog = calloc(1, sizeof(*prog));
		if (prog != NULL && sm_program_build(&sc->model, var, budget, prog) == 0)
			compute_ns = prog->compute_ps / 1000;
		/* the model of every step up to the last one the trace has (its steps are those
		 * of its scenario: a number beyond its run.steps was refused; with another
		 * scenario, steps beyond the model's and the trace's count get none) */
		npm = run->nsteps ? run->step[run->nsteps - 1].step + 1 : 1;
		if (npm > run->nsteps && npm > sc->run.steps)
			npm = 0;
		pm = npm ? calloc(npm, sizeof(*pm)) : NULL;
		if (pm != NULL && (loaded || sm_packet_model(&sc->model, &sc->run.pk, var, budget,
							     npm, pm) != 0)) {
			free(pm);
			pm = NULL;
		}
	}
	sm_program_free(prog);
	free(prog);
	snprintf(title, sizeof(title), "Run %u (%s): steps rebuilt from the trace%s", run->run_id,
		 label, run->ends_at_rx ? "" : " (no rx points: ends at the last record)");
	t = table_create("steps", title, cols, sizeof(cols) / sizeof(cols[0]));
	for (s = 0; t != NULL && s < run->nsteps; s++) {
		const struct tr_step *st = &run->step[s];
		double ms, pmms = NAN, e;

		if (st->end_ns == 0)
			continue;
		if (n == 0) {
			/* the run began a compute phase before its first frame left */
			prev = know && st->first_dep_ns != UINT64_MAX ? st->first_dep_ns - compute_ns :
								     st->first_ns;
		}
		/* signed: a corrupt record can end a step before the one before it */
		ms = (double)(int64_t)(st->end_ns - prev) / 1e6;
		prev = st->end_ns;
		if (pm != NULL && st->step < npm)
			pmms = pm[st->step].time_ps / 1e9;
		e = 100.0 * (ms - pmms) / pmms;
		if (!loaded)
			verdict_add(v, isfinite(pmms) ? e : 100.0 * (ms / 1e3 - fluid) / fluid);
		table_num(t, st->step);
		table_num(t, ms);
		table_num(t, pmms);
		table_num(t, e);
		table_num(t, fluid * 1e3);
		table_num(t, 100.0 * (ms / 1e3 - fluid) / fluid);
		table_num(t, st->rounds);
		table_num(t, (double)st->frames);
		sum += ms;
		n++;
	}
	*mean_ms = n ? sum / n : NAN;
	if (t != NULL && loaded)
		table_note(t, "the scenario had background load %.3g: compare the mean with `syncemu "
			   "run`'s models; no per-step closed form", sc->background.load);
	if (t != NULL && !know)
		table_note(t, "no scenario or run label: the trace alone");
	free(pm);
	return t;
}

/* The share of the run's time each resource held, from the rounds' ends, beside the model's. */
struct table *
validate_hotspot_table(struct tr_reader *r, const struct tr_run *run, const struct sc_scenario *sc)
{
	static const struct tcol cols[] = {
		{ "resource", "resource", -1 }, { "trace %", "trace_pct", 1 },
		{ "model %", "model_pct", 1 },
	};
	double span[SM_RES_COUNT] = { 0 }, model[SM_RES_COUNT], total = 0;
	enum sm_variant var;
	enum sm_budget bud;
	struct sm_program *prog;
	struct sm_step fl;
	struct table *t;
	char label[32], title[96];
	uint64_t prev = 0;
	uint32_t s, k;
	bool first = true;

	if (run_label(tr_reader_comment(r), run->run_id, &var, &bud, label, sizeof(label)) != 0)
		return NULL;
	prog = calloc(1, sizeof(*prog));
	if (prog == NULL || sm_program_build(&sc->model, var, sm_budget_value(&sc->model.mod, bud),
					      prog) != 0 ||
	    sm_step_eval(&sc->model, var, sm_budget_value(&sc->model.mod, bud), &fl) != 0) {
		sm_program_free(prog);
		free(prog);
		return NULL;
	}
	sm_step_shares(&fl, model);
	for (s = 0; s < run->nsteps; s++) {
		const struct tr_step *st = &run->step[s];
		uint64_t mark;

		if (st->end_ns == 0 || st->first_dep_ns == UINT64_MAX)
			continue;
		if (first) {
			prev = st->first_dep_ns - prog->compute_ps / 1000;
			first = false;
		}
		/* compute: until the step's first frame left */
		mark = st->first_dep_ns > prev ? st->first_dep_ns : prev;
		span[SM_RES_COMPUTE] += (double)(mark - prev);
		for (k = 0; k < st->rounds && k < prog->n && k < st->round_cap; k++) {
			uint64_t end = st->round_end[k];

			/* a round no worker receives (the module's) ends when the next one starts */
			if (end == 0 && k + 1 < st->rounds && st->round_dep[k + 1] != UINT64_MAX)
				end = st->round_dep[k + 1];

			if (end > mark) {
				span[prog->r[k].res] += (double)(end - mark);
				mark = end;
			}
		}
		prev = st->end_ns;
	}
	sm_program_free(prog);
	free(prog);
	for (k = 0; k < SM_RES_COUNT; k++)
		total += span[k];
	snprintf(title, sizeof(title), "Run %u (%s): hot spots", run->run_id, label);
	t = table_create("hotspots", title, cols, sizeof(cols) / sizeof(cols[0]));
	for (k = 0; t != NULL && k < SM_RES_COUNT; k++) {
		if (span[k] == 0 && model[k] == 0)
			continue;
		table_str(t, sm_resource_name(k));
		table_num(t, total > 0 ? 100.0 * span[k] / total : NAN);
		table_num(t, 100.0 * model[k]);
	}
	if (t != NULL)
		table_note(t, "each round charged to the resource the model charges it to, from the "
			   "last record of the round (rx points) to the next");
	if (t != NULL && var == SM_VAR_EP)
		table_note(t, "E': the dense hop to the module is inside the module's round here "
			   "(the model charges it to the intra-DC link)");
	return t;
}

/* The flows of a generic trace, largest first: where the bytes went. */
struct table *
validate_flows_table(const struct tr_bursts *b)
{
	static const struct tcol cols[] = {
		{ "flow", "flow", -1 }, { "proto", "proto", -1 }, { "packets", "packets", 0 },
		{ "bytes", "bytes", 0 }, { "share %", "share_pct", 1 },
	};
	struct table *t = table_create("flows", "Flows (one direction of a 5-tuple), largest first",
				       cols, sizeof(cols) / sizeof(cols[0]));
	uint64_t total = 0;
	uint32_t i;

	for (i = 0; i < b->nflows; i++)
		total += b->flow[i].bytes;
	for (i = 0; t != NULL && i < b->nflows && i < 20; i++) {
		const struct tr_flow *f = &b->flow[i];
		char a[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];

		inet_ntop(f->family == 6 ? AF_INET6 : AF_INET, f->src, a, sizeof(a));
		inet_ntop(f->family == 6 ? AF_INET6 : AF_INET, f->dst, d, sizeof(d));
		table_strf(t, "%s:%u > %s:%u", a, f->sport, d, f->dport);
		table_str(t, f->proto == 6 ? "tcp" : f->proto == 17 ? "udp" : "ip");
		table_num(t, (double)f->packets);
		table_num(t, (double)f->bytes);
		table_num(t, total ? 100.0 * f->bytes / total : NAN);
	}
	if (t != NULL && b->nflows > 20)
		table_note(t, "%u flows; the 20 largest shown", b->nflows);
	return t;
}

/* Bursts of a generic trace against the alpha-beta model and, optionally, a scenario. */
struct table *
validate_bursts_table(const struct tr_bursts *b, const struct tr_fit *m, const struct sc_scenario *sc,
	     bool have_sc, enum sm_variant var, double budget, struct verdict *v)
{
	static const struct tcol cols[] = {
		{ "burst", "burst", 0 }, { "start s", "start_s", 6 },
		{ "duration ms", "duration_ms", 6 }, { "bytes", "bytes", 0 },
		{ "packets", "packets", 0 }, { "flows", "flows", 0 },
		{ "alpha-beta ms", "alpha_beta_ms", 6 }, { "error %", "error_pct", 3 },
		{ "model sync ms", "model_sync_ms", 6 }, { "vs model %", "vs_model_pct", 3 },
		{ "period ms", "period_ms", 6 }, { "model step ms", "model_step_ms", 6 },
	};
	struct table *t = table_create("bursts", "Bursts of the trace", cols,
				       sizeof(cols) / sizeof(cols[0]));
	double sync = NAN, step = NAN;
	uint32_t i;

	if (have_sc) {
		struct sm_step fl;

		if (sm_step_eval(&sc->model, var, budget, &fl) == 0) {
			step = fl.total;
			sync = sm_step_sync(&fl);
		}
	}
	for (i = 0; t != NULL && i < b->n; i++) {
		const struct tr_burst *x = &b->b[i];
		double d = (x->end_ns - x->start_ns) / 1e9, ab = m->alpha + x->bytes / m->beta;
		double e = 100.0 * (d - ab) / ab;

		verdict_add(v, e);
		if (have_sc)
			verdict_add(v, 100.0 * (d - sync) / sync);
		table_num(t, i);
		table_num(t, (x->start_ns - b->b[0].start_ns) / 1e9);
		table_num(t, d * 1e3);
		table_num(t, (double)x->bytes);
		table_num(t, (double)x->packets);
		table_num(t, x->flows);
		table_num(t, ab * 1e3);
		table_num(t, e);
		table_num(t, sync * 1e3);
		table_num(t, 100.0 * (d - sync) / sync);
		table_num(t, i + 1 < b->n ? (b->b[i + 1].start_ns - x->start_ns) / 1e6 : NAN);
		table_num(t, step * 1e3);
	}
	return t;
}

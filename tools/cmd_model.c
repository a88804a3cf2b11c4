/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * syncemu model: the analytic model's tables for a scenario (the deck's tables).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "breakeven.h"
#include "cli.h"
#include "energy.h"
#include "extrapolate.h"
#include "library.h"
#include "model_curves.h"
#include "opts.h"
#include "packet.h"
#include "presets.h"
#include "scenario.h"
#include "step.h"
#include "table.h"
#include "variant.h"

enum model_table {
	T_WIRE, T_STEP, T_TERMS, T_SHARES, T_ENERGY, T_BE_BW, T_BE_BUDGET, T_ENOB, T_PLANES,
	T_TOPO, T_EXTRA, T_COUNT
};

static const struct {
	const char *name;
	const char *help;
	bool dflt;
} table_info[T_COUNT] = {
	[T_WIRE] = { "wire", "payload and wire bytes per worker", true },
	[T_STEP] = { "step", "step time and time to target", true },
	[T_TERMS] = { "terms", "every term of every step, with its resource", false },
	[T_SHARES] = { "shares", "hot spots: share of the step by resource", true },
	[T_ENERGY] = { "energy", "energy per step and to target", true },
	[T_BE_BW] = { "breakeven", "break-even against WAN bandwidth (section 7a)", true },
	[T_BE_BUDGET] = { "budget", "break-even in module GFLOP/s (section 7b)", true },
	[T_ENOB] = { "enob", "ENOB through the steps (section 7c)", true },
	[T_PLANES] = { "planes", "bit planes (section 8)", true },
	[T_TOPO] = { "topologies", "time to target on the deck's topologies", true },
	[T_EXTRA] = { "extrapolation", "model size and a sync every H steps (section 10)", true },
};

struct model_opts {
	const char *sets[CLI_MAX_SETS];
	unsigned int nsets;
	unsigned int variants;	/* 0: the scenario's [report] */
	unsigned int budgets;
	unsigned int tables;
	bool json;
	bool help;
};

enum { O_SET, O_TABLE };

static const struct opt model_optv[] = {
	{ "set", 's', "SECTION.KEY=VALUE", "override a scenario key (repeatable)", .id = O_SET },
	{ "variant", 'v', "LIST", "variants: A,B,C,E,C',E' or all [scenario's report]",
	  OPT_TARGET(cli_opt_variants, struct model_opts, variants) },
	{ "budget", 'b', "LIST", "module budgets: low,high,free or all [scenario's report]",
	  OPT_TARGET(cli_opt_budgets, struct model_opts, budgets) },
	{ "table", 't', "LIST", "tables to print, or all [all but terms]; see below",
	  .id = O_TABLE },
	{ "json", 'j', NULL, "print JSON instead of text",
	  OPT_TARGET(opts_set_flag, struct model_opts, json) },
	{ "help", 'h', NULL, "show this help", OPT_TARGET(opts_set_flag, struct model_opts, help) },
};

#define N_OPTS (sizeof(model_optv) / sizeof(model_optv[0]))

static int
parse_tables(const char *arg, unsigned int *mask, char *err, size_t errlen)
{
	char buf[256], *tok, *save = NULL;
	int i;

	if (strlen(arg) >= sizeof(buf)) {
		snprintf(err, errlen, "%s: list too long", opts_spelling());
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", arg);
	*mask = 0;
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		if (strcmp(tok, "all") == 0) {
			*mask = (1u << T_COUNT) - 1;
			continue;
		}
		for (i = 0; i < T_COUNT; i++)
			if (strcmp(tok, table_info[i].name) == 0)
				break;
		if (i == T_COUNT) {
			snprintf(err, errlen, "%s: unknown table '%s' (see --help)", opts_spelling(),
				 tok);
			return -EINVAL;
		}
		*mask |= 1u << i;
	}
	if (*mask == 0) {
		snprintf(err, errlen, "%s: empty list", opts_spelling());
		return -EINVAL;
	}
	return 0;
}

static int
model_opt(void *ctx, int id, const char *arg, char *err, size_t errlen)
{
	struct model_opts *o = ctx;

	switch (id) {
	case O_SET:
		return cli_add_set(o->sets, &o->nsets, arg, err, errlen);
	case O_TABLE:
		return parse_tables(arg, &o->tables, err, errlen);
	}
	return -EINVAL;
}

static void
model_usage(FILE *f)
{
	int i;

	opts_usage(f, "syncemu model [SCENARIO.ini] [options]",
		   "Print the analytic model of the deck for a scenario: wire bytes, step time and\n"
		   "time to target, hot spots, energy, break-evens and extrapolations. Without a\n"
		   "scenario file the built-in default is used (2 DC x 4, 100 GbE WAN; the same as\n"
		   "scenarios/2dc4-100g.ini). Times are in ms (steps) and s (to target).",
		   model_optv, N_OPTS);
	fprintf(f, "\ntables (--table):\n");
	for (i = 0; i < T_COUNT; i++)
		fprintf(f, "  %-14s %s%s\n", table_info[i].name, table_info[i].help,
			table_info[i].dflt ? "" : " (not by default)");
	fprintf(f, "\nExit codes: 0 ok, 1 failed (memory), 2 bad command line, 3 bad scenario.\n");
	fprintf(f, "\nexamples:\n"
		   "  syncemu model\n"
		   "  syncemu model scenarios/2dc4-8g.ini --table step,shares\n"
		   "  syncemu model --set wan.bandwidth=3GB/s --variant A,E' --budget free --json\n");
}

/* ---- the contenders the tables list ---- */

#define MAX_CONT (SM_VAR_COUNT * SM_BUDGET_COUNT)

struct cont {
	struct sm_contender c;
	enum sm_budget b;	/* meaningful when the variant has a module */
	char label[16];		/* "E[low]" */
};

static unsigned int
contenders(const struct sm_params *p, unsigned int vmask, unsigned int bmask, struct cont *out)
{
	unsigned int n = 0;
	int v, b;

	for (v = 0; v < SM_VAR_COUNT; v++) {
		if (!(vmask & (1u << v)))
			continue;
		for (b = 0; b < SM_BUDGET_COUNT; b++) {
			bool mod = sm_variant_has_module(v);

			if (mod && !(bmask & (1u << b)))
				continue;
			if (!mod && b != SM_BUDGET_FREE)
				continue;
			out[n].c.var = (enum sm_variant)v;
			out[n].c.budget = sm_budget_value(&p->mod, b);
			out[n].c.steps = p->steps[v];
			out[n].b = (enum sm_budget)b;
			if (mod)
				snprintf(out[n].label, sizeof(out[n].label), "%s[%s]",
					 sm_variant_name(v), sm_budget_name(b));
			else
				snprintf(out[n].label, sizeof(out[n].label), "%s", sm_variant_name(v));
			n++;
		}
	}
	return n;
}

static const char *
budget_cell(const struct cont *c)
{
	return sm_variant_has_module(c->c.var) ? sm_budget_name(c->b) : "-";
}

struct ctx {
	const struct sc_scenario *sc;
	const struct sm_params *p;
	struct cont cont[MAX_CONT];
	unsigned int ncont;
	struct table *tabs[T_COUNT + 4];
	unsigned int ntabs;
};

static struct table *
add_table(struct ctx *x, const char *id, const char *title, const struct tcol *cols,
	  unsigned int ncols)
{
	struct table *t = table_create(id, title, cols, ncols);

	if (t != NULL)
		x->tabs[x->ntabs++] = t;
	return t;
}

#define COLS(...) ((const struct tcol[]){ __VA_ARGS__ }), \
	(sizeof((const struct tcol[]){ __VA_ARGS__ }) / sizeof(struct tcol))

static int
t_wire(struct ctx *x)
{
	struct table *t = add_table(x, "wire", "Wire bytes per worker per step",
		COLS({ "variant", "variant", -1 }, { "payload B", "payload_bytes", 0 },
		     { "wire, W in 1 DC", "wire_flat_bytes", 0 },
		     { "intra-DC B", "intra_bytes", 0 }, { "WAN B", "wan_bytes", 0 },
		     { "module in B", "module_in_bytes", 0 }));
	int v;

	if (t == NULL)
		return -ENOMEM;
	for (v = 0; v < SM_VAR_COUNT; v++) {
		struct sm_step s;

		if (!(x->sc->variants & (1u << v)))
			continue;
		if (sm_step_eval(x->p, v, 0, &s) != 0)
			return -EINVAL;
		table_str(t, sm_variant_name(v));
		table_num(t, sm_payload(x->p, v));
		table_num(t, sm_wire_flat(x->p, v));
		table_num(t, s.bytes_intra);
		table_num(t, s.bytes_wan);
		table_num(t, s.kernel.bytes_in);
	}
	table_note(t, "wire, W in 1 DC = bytes a worker sends with all %u workers in one DC "
		   "(results.json wire_per_step for A, B, C, E)", sm_workers(x->p));
	return 0;
}

static double
module_time(const struct sm_step *s)
{
	return s->n_modules ? s->kernel.t + s->kernel.latency : 0.0;
}

static int
t_step(struct ctx *x)
{
	struct table *t = add_table(x, "step", "Step time and time to target",
		COLS({ "variant", "variant", -1 }, { "budget", "budget", -1 },
		     { "compute ms", "compute_ms", 6 }, { "network ms", "network_ms", 6 },
		     { "module ms", "module_ms", 6 }, { "step ms", "step_ms", 6 },
		     { "steps", "steps", 0 }, { "to target s", "time_to_target_s", 4 },
		     { "hot spot", "hot_spot", -1 }));
	unsigned int i;

	if (t == NULL)
		return -ENOMEM;
	for (i = 0; i < x->ncont; i++) {
		const struct cont *c = &x->cont[i];
		struct sm_step s;
		double comp, mod;

		if (sm_step_eval(x->p, c->c.var, c->c.budget, &s) != 0)
			return -EINVAL;
		comp = s.t_compute + s.t_extra;
		mod = module_time(&s);
		table_str(t, sm_variant_name(c->c.var));
		table_str(t, budget_cell(c));
		table_num(t, comp * 1e3);
		table_num(t, (s.total - comp - mod) * 1e3);
		table_num(t, mod * 1e3);
		table_num(t, s.total * 1e3);
		table_num(t, c->c.steps);
		table_num(t, sm_time_to_target(&s, c->c.steps));
		table_str(t, sm_resource_name(sm_step_hot_spot(&s)));
	}
	table_note(t, "compute = %s + the extra GPU transform; network = the "
		   "collective's rounds (latency included); module = its binding stage + latency",
		   x->p->job.compute > 0 ? "job.compute" : "6PT/(MFU x peak)");
	return 0;
}

static int
t_terms(struct ctx *x)
{
	struct table *t = add_table(x, "terms", "Terms of each step",
		COLS({ "variant", "variant", -1 }, { "budget", "budget", -1 },
		     { "term", "term", -1 }, { "charged to", "resource", -1 },
		     { "rounds", "rounds", 0 }, { "ms", "ms", 6 }, { "latency ms", "latency_ms", 6 }));
	unsigned int i, j;

	if (t == NULL)
		return -ENOMEM;
	for (i = 0; i < x->ncont; i++) {
		const struct cont *c = &x->cont[i];
		struct sm_step s;

		if (sm_step_eval(x->p, c->c.var, c->c.budget, &s) != 0)
			return -EINVAL;
		for (j = 0; j < s.n; j++) {
			table_str(t, sm_variant_name(c->c.var));
			table_str(t, budget_cell(c));
			table_str(t, s.term[j].what);
			table_str(t, sm_resource_name(s.term[j].res));
			table_num(t, s.term[j].rounds);
			table_num(t, s.term[j].t * 1e3);
			table_num(t, s.term[j].lat * 1e3);
		}
	}
	return 0;
}

static int
t_shares(struct ctx *x)
{
	struct tcol cols[2 + SM_RES_COUNT] = {
		{ "variant", "variant", -1 }, { "budget", "budget", -1 },
	};
	struct table *t;
	unsigned int i;
	int r;

	for (r = 0; r < SM_RES_COUNT; r++) {
		cols[2 + r].title = sm_resource_name(r);
		cols[2 + r].key = sm_resource_id(r);
		cols[2 + r].decimals = 1;
	}
	t = add_table(x, "shares", "Hot spots: share of the step, %", cols, 2 + SM_RES_COUNT);
	if (t == NULL)
		return -ENOMEM;
	for (i = 0; i < x->ncont; i++) {
		const struct cont *c = &x->cont[i];
		double sh[SM_RES_COUNT];
		struct sm_step s;

		if (sm_step_eval(x->p, c->c.var, c->c.budget, &s) != 0)
			return -EINVAL;
		sm_step_shares(&s, sh);
		table_str(t, sm_variant_name(c->c.var));
		table_str(t, budget_cell(c));
		for (r = 0; r < SM_RES_COUNT; r++)
			table_num(t, 100.0 * sh[r]);
	}
	table_note(t, "each round is charged to its slowest operation, the module to its binding "
		   "stage; latency is charged with its round");
	return 0;
}

static int
t_energy(struct ctx *x)
{
	struct table *t = add_table(x, "energy", "Energy per step (all workers) and to target",
		COLS({ "variant", "variant", -1 }, { "budget", "budget", -1 },
		     { "GPU static J", "gpu_static_j", 4 }, { "GPU FLOP J", "gpu_dynamic_j", 4 },
		     { "link J", "link_j", 4 }, { "module J", "module_j", 4 },
		     { "step J", "step_j", 4 }, { "to target kJ", "to_target_kj", 3 },
		     { "module %", "module_share_pct", 1 }));
	unsigned int i;

	if (t == NULL)
		return -ENOMEM;
	for (i = 0; i < x->ncont; i++) {
		const struct cont *c = &x->cont[i];
		struct sm_energy e;
		struct sm_step s;

		if (sm_step_eval(x->p, c->c.var, c->c.budget, &s) != 0)
			return -EINVAL;
		sm_energy_step(x->p, &s, &e);
		table_str(t, sm_variant_name(c->c.var));
		table_str(t, budget_cell(c));
		table_num(t, e.gpu_static);
		table_num(t, e.gpu_dynamic);
		table_num(t, e.link);
		table_num(t, e.mod_static + e.mod_dynamic);
		table_num(t, e.total);
		table_num(t, e.total * c->c.steps / 1e3);
		table_num(t, 100.0 * sm_energy_module_share(&e));
	}
	table_note(t, "GPU: %g W static each for the whole step + %g pJ/FLOP; links: pJ/bit over "
		   "every byte; modules: %g W + %g W laser each + %g pJ/bit over the bytes in",
		   x->p->gpu.static_w, x->p->gpu.pj_per_flop, x->p->mod.static_w, x->p->mod.laser_w,
		   x->p->mod.pj_per_bit);
	return 0;
}

static void
crossing_cells(struct table *t, const struct sm_crossing *c, double unit, const char *below,
	       const char *above)
{
	unsigned int i;
	char buf[64] = "";
	size_t k = 0;

	if (c->n == 0) {
		table_num(t, NAN);
		table_str(t, c->lo_winner < 0 ? "always" : c->lo_winner > 0 ? "never" : "tie");
		return;
	}
	table_num(t, c->x[0] / unit);
	for (i = 1; i < c->n && k < sizeof(buf); i++)
		k += snprintf(buf + k, sizeof(buf) - k, "%s%.4g", i > 1 ? "," : "+", c->x[i] / unit);
	if (c->n > 1)
		table_strf(t, "%s (crosses again at %s)", c->lo_winner < 0 ? below : above,
			   buf + 1);
	else
		table_str(t, c->lo_winner < 0 ? below : above);
}

struct pair {
	enum sm_variant x, y;
	int basis;	/* 0 measured, 1 E's steps, 2 C's (exact) steps */
};

static int
t_breakeven_bw(struct ctx *x)
{
	static const struct pair pairs[] = {
		{ SM_VAR_B, SM_VAR_A, 0 }, { SM_VAR_C, SM_VAR_A, 0 }, { SM_VAR_CP, SM_VAR_A, 0 },
		{ SM_VAR_C, SM_VAR_B, 0 }, { SM_VAR_CP, SM_VAR_B, 0 }, { SM_VAR_CP, SM_VAR_C, 0 },
		{ SM_VAR_E, SM_VAR_A, 1 }, { SM_VAR_E, SM_VAR_B, 1 }, { SM_VAR_E, SM_VAR_C, 1 },
		{ SM_VAR_E, SM_VAR_CP, 1 }, { SM_VAR_EP, SM_VAR_A, 1 }, { SM_VAR_EP, SM_VAR_B, 1 },
		{ SM_VAR_EP, SM_VAR_C, 1 }, { SM_VAR_EP, SM_VAR_CP, 1 },
		{ SM_VAR_E, SM_VAR_A, 2 }, { SM_VAR_E, SM_VAR_B, 2 }, { SM_VAR_E, SM_VAR_C, 2 },
		{ SM_VAR_E, SM_VAR_CP, 2 }, { SM_VAR_EP, SM_VAR_A, 2 }, { SM_VAR_EP, SM_VAR_B, 2 },
		{ SM_VAR_EP, SM_VAR_C, 2 }, { SM_VAR_EP, SM_VAR_CP, 2 },
	};
	static const char *const basis[] = { "measured", "E", "C (exact)" };
	struct table *t = add_table(x, "breakeven",
		"Break-even against WAN bandwidth (time to target, WAN latency unchanged)",
		COLS({ "variant", "variant", -1 }, { "budget", "budget", -1 },
		     { "against", "against", -1 }, { "steps", "steps_basis", -1 },
		     { "break-even GB/s", "breakeven_gbps", 3 }, { "variant faster", "faster", -1 }));
	unsigned int i;
	int b;

	if (t == NULL)
		return -ENOMEM;
	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		const struct pair *pr = &pairs[i];

		if (!(x->sc->variants & (1u << pr->x)) || !(x->sc->variants & (1u << pr->y)))
			continue;
		for (b = 0; b < SM_BUDGET_COUNT; b++) {
			struct sm_contender cx = { pr->x, 0, x->p->steps[pr->x] };
			struct sm_contender cy = { pr->y, 0, x->p->steps[pr->y] };
			struct sm_crossing c;

			if (sm_variant_has_module(pr->x) ? !(x->sc->budgets & (1u << b)) :
							   b != SM_BUDGET_FREE)
				continue;
			cx.budget = sm_budget_value(&x->p->mod, b);
			if (pr->basis == 2) {
				cx.steps = x->p->steps[SM_VAR_C];
				if (pr->y == SM_VAR_C || pr->y == SM_VAR_CP)
					cy.steps = x->p->steps[SM_VAR_C];
			}
			if (sm_breakeven_bw(x->p, &cx, &cy, &c) != 0)
				return -EINVAL;
			table_str(t, sm_variant_name(pr->x));
			table_str(t, sm_variant_has_module(pr->x) ? sm_budget_name(b) : "-");
			table_str(t, sm_variant_name(pr->y));
			table_str(t, basis[pr->basis]);
			crossing_cells(t, &c, 1e9, "below", "above");
		}
	}
	table_note(t, "bisection to a relative tolerance of %g over %g-%g GB/s; 'always'/'never': "
		   "no crossing in the range", x->p->be_rtol, x->p->be_bw_lo / 1e9,
		   x->p->be_bw_hi / 1e9);
	table_note(t, "steps 'E': E's single-seed steps (a hypothesis); 'C (exact)': the exact "
		   "band's steps for the in-transit and band variants; 'measured': no module");
	return 0;
}

static int
t_breakeven_budget(struct ctx *x)
{
	static const struct {
		enum sm_variant x, y;
		bool c_mean;
	} pairs[] = {
		{ SM_VAR_E, SM_VAR_C, false }, { SM_VAR_E, SM_VAR_C, true },
		{ SM_VAR_E, SM_VAR_A, false }, { SM_VAR_E, SM_VAR_B, false },
		{ SM_VAR_EP, SM_VAR_A, false }, { SM_VAR_EP, SM_VAR_B, false },
		{ SM_VAR_EP, SM_VAR_C, false }, { SM_VAR_EP, SM_VAR_CP, false },
	};
	struct table *t = add_table(x, "budget",
		"Break-even in module compute budget (transform charged), this WAN",
		COLS({ "variant", "variant", -1 }, { "against", "against", -1 },
		     { "their steps", "against_steps", 1 },
		     { "break-even GFLOP/s", "breakeven_gflops", 3 },
		     { "variant faster", "faster", -1 }));
	double unbind;
	unsigned int i;

	if (t == NULL)
		return -ENOMEM;
	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		struct sm_contender cx = { pairs[i].x, 0, x->p->steps[pairs[i].x] };
		struct sm_contender cy = { pairs[i].y, 0, x->p->steps[pairs[i].y] };
		struct sm_crossing c;

		if (!(x->sc->variants & (1u << pairs[i].x)) ||
		    !(x->sc->variants & (1u << pairs[i].y)))
			continue;
		if (pairs[i].c_mean)
			cy.steps = x->p->steps_c_mean;
		if (sm_breakeven_budget(x->p, &cx, &cy, &c) != 0)
			return -EINVAL;
		table_str(t, sm_variant_name(pairs[i].x));
		table_str(t, sm_variant_name(pairs[i].y));
		table_num(t, cy.steps);
		crossing_cells(t, &c, 1e9, "below", "above");
	}
	unbind = sm_kernel_budget_unbinds(&x->p->mod, sm_dense_bytes(x->p), x->p->job.value_bytes);
	table_note(t, "the budget stops binding at %.1f GFLOP/s (%g planes)", unbind / 1e9,
		   x->p->mod.planes);
	table_note(t, "swept over %g-%g GFLOP/s; the deck's 79.9 (E vs C) uses C's unrounded mean "
		   "of %.1f steps", x->p->be_budget_lo / 1e9, x->p->be_budget_hi / 1e9,
		   x->p->steps_c_mean);
	return 0;
}

static int
t_enob(struct ctx *x)
{
	static const enum sm_variant rivals[] = { SM_VAR_A, SM_VAR_B, SM_VAR_C, SM_VAR_CP };
	struct table *t = add_table(x, "enob", "ENOB through the steps (E's steps at each ENOB)",
		COLS({ "variant", "variant", -1 }, { "budget", "budget", -1 },
		     { "ENOB", "enob", 0 }, { "steps", "steps", 0 }, { "to target s", "time_s", 4 },
		     { "beats A", "beats_A", -1 }, { "beats B", "beats_B", -1 },
		     { "beats C", "beats_C", -1 }, { "beats C'", "beats_Cp", -1 }));
	unsigned int i, j, k;

	if (t == NULL)
		return -ENOMEM;
	for (i = 0; i < x->ncont; i++) {
		const struct cont *c = &x->cont[i];
		struct sm_knob_row rows[4][SM_TABLE_MAX];
		char be[4][16];

		if (!sm_variant_has_module(c->c.var))
			continue;
		for (k = 0; k < 4; k++) {
			struct sm_contender y = { rivals[k], 0, x->p->steps[rivals[k]] };
			double e;

			if (sm_breakeven_enob(x->p, &c->c, &y, rows[k], &e) != 0)
				return -EINVAL;
			if (e > 0)
				snprintf(be[k], sizeof(be[k]), "%g", e);
			else
				snprintf(be[k], sizeof(be[k]), "none");
		}
		for (j = 0; j < x->p->enob.n; j++) {
			table_str(t, sm_variant_name(c->c.var));
			table_str(t, sm_budget_name(c->b));
			table_num(t, rows[0][j].key);
			table_num(t, rows[0][j].steps);
			table_num(t, rows[0][j].time);
			for (k = 0; k < 4; k++)
				table_str(t, rows[k][j].wins ? "yes" : "no");
		}
		table_note(t, "%s[%s]: lowest ENOB that beats A / B / C / C': %s / %s / %s / %s",
			   sm_variant_name(c->c.var), sm_budget_name(c->b), be[0], be[1], be[2],
			   be[3]);
	}
	table_note(t, "ENOB enters only through the steps: measured at each ENOB, one seed each; "
		   "'never' = does not reach the target");
	return 0;
}

static int
t_planes(struct ctx *x)
{
	struct table *t = add_table(x, "planes", "Bit planes (one optical pass each)",
		COLS({ "variant", "variant", -1 }, { "budget", "budget", -1 },
		     { "planes", "planes", 0 }, { "steps", "steps", 0 },
		     { "binding stage", "binding", -1 }, { "step ms", "step_ms", 6 },
		     { "to target s", "time_s", 4 }, { "fastest", "fastest", -1 }));
	unsigned int i, j, f;

	if (t == NULL)
		return -ENOMEM;
	for (i = 0; i < x->ncont; i++) {
		const struct cont *c = &x->cont[i];
		struct sm_knob_row rows[SM_TABLE_MAX];

		if (!sm_variant_has_module(c->c.var))
			continue;
		if (sm_planes_table(x->p, c->c.var, c->c.budget, rows, &f) != 0)
			return -EINVAL;
		for (j = 0; j < x->p->planes.n; j++) {
			table_str(t, sm_variant_name(c->c.var));
			table_str(t, sm_budget_name(c->b));
			table_num(t, rows[j].key);
			table_num(t, rows[j].steps);
			table_str(t, sm_stage_name(rows[j].binding));
			table_num(t, rows[j].step * 1e3);
			table_num(t, rows[j].time);
			table_str(t, j == f ? "*" : "");
		}
	}
	return 0;
}

/* A table with one row per setting and one column per contender, of times to target. */
static struct table *
per_contender_table(struct ctx *x, const char *id, const char *title, const char *key_title,
		    const char *key_id)
{
	struct tcol cols[2 + MAX_CONT];
	unsigned int i;

	cols[0] = (struct tcol){ key_title, key_id, -1 };
	for (i = 0; i < x->ncont; i++)
		cols[1 + i] = (struct tcol){ x->cont[i].label, x->cont[i].label, 4 };
	return add_table(x, id, title, cols, 1 + x->ncont);
}

static int
t_topologies(struct ctx *x)
{
	struct table *t = per_contender_table(x, "topologies",
		"Time to target on the deck's topologies, s", "topology", "topology");
	const struct sm_deck_topology *tp;
	unsigned int i, j, n;

	if (t == NULL)
		return -ENOMEM;
	tp = sm_deck_topologies(&n);
	for (i = 0; i < n; i++) {
		struct sm_params q = *x->p;

		if (sm_apply_topology(&q, &tp[i]) != 0)
			return -EINVAL;
		table_strf(t, "%s%s", tp[i].desc, tp[i].in_deck ? "" : " *");
		for (j = 0; j < x->ncont; j++)
			table_num(t, sm_contender_time(&q, &x->cont[j].c));
	}
	table_note(t, "every other parameter from this scenario; * = not among the deck's six "
		   "(illustrative presets)");
	return 0;
}

static int
t_extrapolation(struct ctx *x)
{
	static const double sizes[] = { 0.1, 1, 10, 100, 1000 };
	static const double hs[] = { 1, 10, 100 };
	struct table *t = per_contender_table(x, "model_size",
		"Model size (same steps to target): time to target, s", "parameters", "parameters");
	struct table *u;
	unsigned int i, j;

	if (t == NULL)
		return -ENOMEM;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct sm_params q;

		if (sm_scale_model(x->p, sizes[i], &q) != 0)
			continue;
		table_strf(t, "%.4g M (x%g)", q.job.params / 1e6, sizes[i]);
		for (j = 0; j < x->ncont; j++)
			table_num(t, sm_contender_time(&q, &x->cont[j].c));
	}
	table_note(t, "an assumption, not a measurement: FLOP and bytes scale with the parameters");
	u = per_contender_table(x, "diloco", "A sync every H steps (DiLoCo-style): time to "
				"target, s", "H", "h");
	if (u == NULL)
		return -ENOMEM;
	for (i = 0; i < sizeof(hs) / sizeof(hs[0]); i++) {
		table_strf(u, "%g", hs[i]);
		for (j = 0; j < x->ncont; j++)
			table_num(u, sm_diloco_time(x->p, &x->cont[j].c, hs[i]));
	}
	table_note(u, "same steps to target (DiLoCo changes the optimiser too)");
	return 0;
}

static int (*const builders[T_COUNT])(struct ctx *) = {
	[T_WIRE] = t_wire, [T_STEP] = t_step, [T_TERMS] = t_terms, [T_SHARES] = t_shares,
	[T_ENERGY] = t_energy, [T_BE_BW] = t_breakeven_bw, [T_BE_BUDGET] = t_breakeven_budget,
	[T_ENOB] = t_enob, [T_PLANES] = t_planes, [T_TOPO] = t_topologies,
	[T_EXTRA] = t_extrapolation,
};

/*
 * job.transport = tcp: there is no closed form (windows, ACKs, losses, protocols): the emulation
 * is the answer.  What the model can say: the path, what slow start adds to a round's flow
 * across the WAN from the initial window, and the rendezvous round trips.
 */
struct transport_terms {
	uint32_t mss;
	double rtt;		/* the WAN path's, s */
	double bdp_segments;	/* segments that fill it */
	uint32_t rounds;	/* variant A's WAN rounds */
	uint32_t ss_rtts;	/* most round trips of slow start in one of them */
	double ss_extra;	/* what slow start adds to a step, s */
	uint32_t handshakes;	/* messages that wait a round trip for the protocol */
	uint32_t in_series;	/* of those round trips, paid one after another (buckets at once) */
	uint32_t buckets;	/* DDP's buckets, and how many run at once (job.threads) */
	uint32_t at_once;
	bool plan;		/* the terms past the header could be computed */
};

static bool
transport_terms(const struct sc_scenario *sc, struct transport_terms *t)
{
	const struct sm_tcp_conf *c = &sc->run.pk.tcp;
	const struct sm_params *p = &sc->model;
	uint32_t per[SM_PHASES_MAX] = { 0 }, lane[SM_PHASES_MAX] = { 0 }, b = 0, i, j;
	struct sm_program prog;

	if (c->transport != SM_TRANSPORT_TCP)
		return false;
	memset(t, 0, sizeof(*t));
	t->mss = c->mss ? c->mss : sc->run.pk.mtu - 52;
	t->rtt = 2 * p->wan.lat;
	t->bdp_segments = p->wan.bw * t->rtt / t->mss;
	memset(&prog, 0, sizeof(prog));
	if (p->topo.n_dc < 2 || sm_program_build(p, SM_VAR_A, 0, &prog) != 0) {
		sm_program_free(&prog);
		return true;
	}
	for (i = 0; i < prog.n; i++) {
		const struct sm_round *r = &prog.r[i];
		uint32_t k = 0;

		if (i > 0 && prog.plan.ph[r->phase].bucket !=
			     prog.plan.ph[prog.r[i - 1].phase].bucket && b + 1 < SM_PHASES_MAX)
			b++;
		if (r->hop != SM_HOP_WAN)
			continue;
		t->rounds++;
		t->ss_extra += sm_ss_extra(r->bytes, p->wan.bw, t->rtt, t->mss, c->init_cwnd, &k);
		t->ss_rtts = k > t->ss_rtts ? k : t->ss_rtts;
		if (sm_proto_eager(c, r->bytes) < r->bytes) {
			t->handshakes++;
			per[b]++;
		}
	}
	/*
	 * The worker runs up to prog.threads buckets at once over TCP (dataplane/worker_lanes.c;
	 * not under run.sync = phase): a bucket takes the lane free first, so the round trips in
	 * series are the busiest lane's.
	 */
	t->buckets = b + 1;
	t->at_once = sc->run.pk.sync == SM_SYNC_PHASE ? 1 : prog.threads;
	t->at_once = t->at_once < t->buckets ? t->at_once : t->buckets;
	for (i = 0; i < t->buckets; i++) {
		uint32_t m = 0;

		for (j = 1; j < t->at_once; j++)
			m = lane[j] < lane[m] ? j : m;
		lane[m] += per[i];
		t->in_series = lane[m] > t->in_series ? lane[m] : t->in_series;
	}
	sm_program_free(&prog);
	t->plan = true;
	return true;
}

static void
print_transport(const struct sc_scenario *sc, FILE *f)
{
	const struct sm_tcp_conf *c = &sc->run.pk.tcp;
	struct transport_terms t;

	if (!transport_terms(sc, &t))
		return;
	fprintf(f, "  transport tcp (%s, initial window %u, MSS %u, protocol %s): no closed form "
		"for windows, ACKs, losses or reacting traffic: syncemu run is the answer\n",
		sm_cc_name(c->cc), c->init_cwnd, t.mss, sm_proto_name(c->proto));
	if (!t.plan)
		return;
	fprintf(f, "    the WAN path: RTT %.6g ms, %.0f segments fill it; variant A's %u WAN "
		"round%s from the initial window: up to %u round trips of slow start, +%.6g ms "
		"(the first step; every step %s)\n", t.rtt * 1e3, t.bdp_segments, t.rounds,
		t.rounds == 1 ? "" : "s", t.ss_rtts, t.ss_extra * 1e3, !c->ss_after_idle ? "never: "
		"transport.slow_start_after_idle = no" : "a flow is idle longer than its RTO (at "
		"least transport.rto_min)");
	if (t.handshakes > 0 && t.at_once < 2)
		fprintf(f, "    the %s protocol: a round trip before each of %u messages: +%.6g ms a "
			"step at least\n", sm_proto_name(c->proto), t.handshakes,
			t.in_series * t.rtt * 1e3);
	else if (t.handshakes > 0)
		fprintf(f, "    the %s protocol: a round trip before each of %u messages, %u of %u "
			"buckets at once (job.threads): %u round trips in series, +%.6g ms a step at "
			"least\n", sm_proto_name(c->proto), t.handshakes, t.at_once, t.buckets,
			t.in_series, t.in_series * t.rtt * 1e3);
}

/* The same terms for --json; NULL on no memory, json_null() without tcp. */
static json_t *
transport_json(const struct sc_scenario *sc)
{
	const struct sm_tcp_conf *c = &sc->run.pk.tcp;
	struct transport_terms t;
	json_t *o;

	if (!transport_terms(sc, &t))
		return json_null();
	o = json_pack("{s:s, s:s, s:i, s:i, s:s, s:b, s:s}", "transport", "tcp",
		      "congestion", sm_cc_name(c->cc), "initial_window", (int)c->init_cwnd,
		      "mss", (int)t.mss, "protocol", sm_proto_name(c->proto), "closed_form", 0,
		      "answer", "syncemu run: no closed form for windows, ACKs, losses or "
		      "reacting traffic");
	if (o == NULL || !t.plan)
		return o;
	if (json_object_update_new(o, json_pack("{s:f, s:f, s:i, s:i, s:f, s:b, s:i, s:i, s:i, s:f}",
			"rtt_s", t.rtt, "bdp_segments", t.bdp_segments, "wan_rounds",
			(int)t.rounds, "slow_start_round_trips", (int)t.ss_rtts,
			"slow_start_extra_s", t.ss_extra, "slow_start_every_step",
			(int)(c->ss_after_idle != 0), "handshakes", (int)t.handshakes,
			"buckets_at_once", (int)t.at_once, "handshakes_in_series", (int)t.in_series,
			"handshake_extra_s", t.in_series * t.rtt)) != 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* Background over TCP (bulk flows, or the transfers as TCP flows) backs off: no closed form. */
static bool
reacting_background(const struct sc_scenario *sc)
{
	return sc->model.topo.n_dc > 1 && (sc->background.bulk > 0 ||
	       (sc->background.transport == SC_BG_TCP && sc->background.load > 0));
}

static void
print_header(const struct sc_scenario *sc, FILE *f)
{
	const struct sm_params *p = &sc->model;

	fprintf(f, "syncemu model: %s%s%s\n", sc->name, sc->path[0] ? " from " : " (built in)",
		sc->path);
	if (sc->desc[0])
		fprintf(f, "  %s\n", sc->desc);
	fprintf(f, "  %u DC x %u workers; intra-DC %.4g GB/s %.4g us; WAN %.4g GB/s %.4g us; "
		"P = %.0f; MFU %.2f of %.4g TFLOP/s\n", p->topo.n_dc, p->topo.per_dc,
		p->intra.bw / 1e9, p->intra.lat * 1e6, p->wan.bw / 1e9, p->wan.lat * 1e6,
		p->job.params, p->gpu.mfu, p->gpu.peak_flops / 1e12);
	fprintf(f, "  collectives %s%s%s%s%s, WAN %s; variant A: %s of %.0f B\n",
		sm_algo_name(sm_plan_algo(p)), p->job.collective == SM_ALGO_AUTO ? " (auto)" : "",
		sm_plan_direct_name(p)[0] ? ", " : "", sm_plan_direct_name(p),
		p->job.library != SM_LIB_IDEAL ? " for the variants past A" : "",
		sm_wan_shape_name(p->topo.wan), sm_opkind_name(p->job.operation),
		sm_dense_bytes(p));
	if (p->job.library != SM_LIB_IDEAL)
		fprintf(f, "  library %s: variant A's %s runs as %s over %u ranks\n",
			sm_library_name(p->job.library), sm_opkind_name(p->job.operation),
			sm_library_algo(p), sm_workers(p));
	if (p->job.compute > 0)
		fprintf(f, "  compute %.6g ms a step (job.compute)\n", p->job.compute * 1e3);
	print_transport(sc, f);
	if (reacting_background(sc))
		fprintf(f, "  background that reacts (%s): no closed form for flows that back off "
			"from the sync's losses: syncemu run is the answer\n",
			sc->background.bulk > 0 && sc->background.transport == SC_BG_TCP ?
			"background.bulk and background.transport = tcp" : sc->background.bulk > 0 ?
			"background.bulk" : "background.transport = tcp");
	fputc('\n', f);
}

static json_t *
header_json(const struct sc_scenario *sc)
{
	const struct sm_params *p = &sc->model;
	json_t *h, *job;

	h = json_pack("{s:s, s:s, s:s, s:{s:i, s:i, s:i, s:s}, s:{s:f, s:f}, s:{s:f, s:f}, "
			 "s:f, s:{s:s, s:s, s:f}}",
			 "name", sc->name, "description", sc->desc, "path", sc->path,
			 "topology", "data_centres", (int)p->topo.n_dc, "workers_per_dc",
			 (int)p->topo.per_dc, "workers", (int)sm_workers(p),
			 "wan", sm_wan_shape_name(p->topo.wan),
			 "intra", "bandwidth_Bps", p->intra.bw, "latency_s", p->intra.lat,
			 "wan", "bandwidth_Bps", p->wan.bw, "latency_s", p->wan.lat,
			 "parameters", p->job.params,
			 "job", "collective", sm_algo_name(sm_plan_algo(p)),
			 "operation", sm_opkind_name(p->job.operation),
			 "dense_bytes", sm_dense_bytes(p));
	job = h != NULL ? json_object_get(h, "job") : NULL;
	/* only off the defaults, so that the deck's output stays as it was */
	if (job != NULL && p->job.library != SM_LIB_IDEAL &&
	    (json_object_set_new(job, "library", json_string(sm_library_name(p->job.library))) ||
	     json_object_set_new(job, "algorithm", json_string(sm_library_algo(p))))) {
		json_decref(h);
		return NULL;
	}
	if (job != NULL && sm_plan_direct_name(p)[0] != '\0' &&
	    json_object_set_new(job, "direct", json_string(sm_plan_direct_name(p)))) {
		json_decref(h);
		return NULL;
	}
	if (job != NULL && p->job.compute > 0 &&
	    json_object_set_new(job, "compute_s", json_real(p->job.compute))) {
		json_decref(h);
		return NULL;
	}
	if (h != NULL && sc->run.pk.tcp.transport == SM_TRANSPORT_TCP &&
	    json_object_set_new(h, "transport", transport_json(sc)) != 0) {
		json_decref(h);
		return NULL;
	}
	if (h != NULL && reacting_background(sc) &&
	    json_object_set_new(h, "background", json_pack("{s:i, s:s, s:f, s:b}", "bulk",
			(int)sc->background.bulk, "transport", sc->background.transport ==
			SC_BG_TCP ? "tcp" : "open", "load", sc->background.load, "closed_form",
			0)) != 0) {
		json_decref(h);
		return NULL;
	}
	return h;
}

static int
emit(struct ctx *x, bool json)
{
	json_t *root, *tabs;
	unsigned int i;
	int rc = 0;

	if (!json) {
		print_header(x->sc, stdout);
		for (i = 0; i < x->ntabs; i++)
			table_print(x->tabs[i], stdout);
		return 0;
	}
	root = json_object();
	tabs = json_object();
	if (root == NULL || tabs == NULL ||
	    json_object_set_new(root, "syncemu", json_string(SYNCEMU_VERSION)) != 0 ||
	    json_object_set_new(root, "command", json_string("model")) != 0 ||
	    json_object_set_new(root, "scenario", header_json(x->sc)) != 0) {
		json_decref(tabs);
		json_decref(root);
		return -ENOMEM;
	}
	for (i = 0; i < x->ntabs && rc == 0; i++)
		if (json_object_set_new(tabs, table_id(x->tabs[i]), table_json(x->tabs[i])) != 0)
			rc = -ENOMEM;
	if (json_object_set_new(root, "tables", tabs) != 0)
		rc = -ENOMEM;
	if (rc == 0) {
		json_t *c = model_curves_json(x->sc);

		if (c == NULL || json_object_set_new(root, "curves", c) != 0)
			rc = -ENOMEM;
	}
	/* a failed write on stdout is said by cli_finish(), with its reason */
	if (rc == 0 && json_dumpf(root, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(10)) != 0 &&
	    !ferror(stdout))
		rc = -EIO;
	if (rc == 0)
		fputc('\n', stdout);
	json_decref(root);
	return rc;
}

int
cmd_model(int argc, char **argv)
{
	struct model_opts o = { .tables = 0 };
	struct sc_scenario sc;
	struct ctx *x;
	char err[512], *pos[1];
	int npos, i, rc;

	for (i = 0; i < T_COUNT; i++)
		if (table_info[i].dflt)
			o.tables |= 1u << i;
	npos = opts_parse(argc, argv, model_optv, N_OPTS, model_opt, &o, pos, 1, err, sizeof(err));
	if (npos < 0) {
		fprintf(stderr, "syncemu model: %s\n(try 'syncemu model --help')\n", err);
		return CLI_EXIT_USAGE;
	}
	if (o.help) {
		model_usage(stdout);
		return 0;
	}
	rc = sc_scenario_load(&sc, npos ? pos[0] : NULL, o.sets, o.nsets, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "syncemu model: %s\n", err);
		return CLI_EXIT_INPUT;
	}
	if (o.variants)
		sc.variants = o.variants;
	if (o.budgets)
		sc.budgets = o.budgets;

	x = calloc(1, sizeof(*x));
	if (x == NULL) {
		fprintf(stderr, "syncemu model: out of memory\n");
		return CLI_EXIT_FAIL;
	}
	x->sc = &sc;
	x->p = &sc.model;
	x->ncont = contenders(x->p, sc.variants, sc.budgets, x->cont);
	for (i = 0; i < T_COUNT && rc == 0; i++)
		if (o.tables & (1u << i))
			rc = builders[i](x);
	if (rc == 0)
		rc = emit(x, o.json);
	for (i = 0; i < (int)x->ntabs; i++)
		table_free(x->tabs[i]);
	free(x);
	if (rc != 0) {
		fprintf(stderr, "syncemu model: %s\n", strerror(-rc));
		return CLI_EXIT_FAIL;
	}
	return 0;
}

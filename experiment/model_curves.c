/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The model's curves for `model --json` (and so for `syncemu report`): the closed form
 * evaluated densely over a knob, not only at the scenario's own value.
 *
 *   wan_bandwidth  time to target of every contender over the break-even search range
 *                  (log-spaced), and of each module variant over a ladder of compute
 *                  budgets (the report's budget slider picks one of them)
 *   kernel         each module variant's four stages against the compute budget
 */
#include <errno.h>
#include <math.h>

#include <jansson.h>

#include "kernel.h"
#include "model_curves.h"
#include "step.h"
#include "variant.h"

#define BW_POINTS 121u		/* 0.1-1,000 GB/s: 30 points per decade */
#define BUDGET_POINTS 17u	/* 1-100,000 GFLOP/s: the slider's rungs, 3.4 per decade */
#define KERNEL_POINTS 101u

static double
log_point(double lo, double hi, unsigned int i, unsigned int n)
{
	return lo * pow(hi / lo, (double)i / (double)(n - 1));
}

static json_t *
num(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

/* time to target at each bandwidth of @p xs; NULL: out of memory or a bad model */
static json_t *
ttt_series(const struct sm_params *p, enum sm_variant v, double budget, const double *xs,
	   unsigned int n)
{
	json_t *a = json_array();
	unsigned int i;

	for (i = 0; a != NULL && i < n; i++) {
		struct sm_params q = *p;
		struct sm_step s;

		q.wan.bw = xs[i];
		if (sm_step_eval(&q, v, budget, &s) != 0 ||
		    json_array_append_new(a, num(sm_time_to_target(&s, p->steps[v]))) != 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *
xs_json(const double *xs, unsigned int n)
{
	json_t *a = json_array();
	unsigned int i;

	for (i = 0; a != NULL && i < n; i++)
		if (json_array_append_new(a, json_real(xs[i])) != 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

static json_t *
bandwidth_curves(const struct sc_scenario *sc)
{
	const struct sm_params *p = &sc->model;
	double xs[BW_POINTS], budgets[BUDGET_POINTS];
	json_t *o, *series, *family;
	unsigned int i, k;
	int v, b;

	for (i = 0; i < BW_POINTS; i++)
		xs[i] = log_point(p->be_bw_lo, p->be_bw_hi, i, BW_POINTS);
	for (i = 0; i < BUDGET_POINTS; i++)
		budgets[i] = log_point(p->be_budget_lo, p->be_budget_hi, i, BUDGET_POINTS);
	o = json_pack("{s:o, s:f, s:o, s:o, s:o}", "x_Bps", xs_json(xs, BW_POINTS),
		      "scenario_Bps", p->wan.bw, "series", json_array(), "budget_family",
		      json_array(), "budgets_flops", xs_json(budgets, BUDGET_POINTS));
	if (o == NULL)
		return NULL;
	series = json_object_get(o, "series");
	family = json_object_get(o, "budget_family");
	for (v = 0; v < SM_VAR_COUNT; v++) {
		bool mod = sm_variant_has_module(v);

		if (!(sc->variants & (1u << v)))
			continue;
		for (b = 0; b < SM_BUDGET_COUNT; b++) {
			double budget = sm_budget_value(&p->mod, b);
			json_t *s;

			if (mod ? !(sc->budgets & (1u << b)) : b != SM_BUDGET_FREE)
				continue;
			s = json_pack("{s:s, s:s, s:o, s:f, s:o}", "variant", sm_variant_name(v),
				      "budget", mod ? sm_budget_name(b) : "-", "budget_flops",
				      num(budget), "steps", p->steps[v], "time_to_target_s",
				      ttt_series(p, v, budget, xs, BW_POINTS));
			if (s == NULL || json_array_append_new(series, s) != 0)
				goto fail;
		}
		if (!mod)
			continue;
		for (k = 0; k < BUDGET_POINTS; k++) {
			json_t *s = json_pack("{s:s, s:f, s:o}", "variant", sm_variant_name(v),
					      "budget_flops", budgets[k], "time_to_target_s",
					      ttt_series(p, v, budgets[k], xs, BW_POINTS));

			if (s == NULL || json_array_append_new(family, s) != 0)
				goto fail;
		}
	}
	return o;
fail:
	json_decref(o);
	return NULL;
}

static json_t *
kernel_curves(const struct sc_scenario *sc)
{
	const struct sm_params *p = &sc->model;
	double xs[KERNEL_POINTS];
	json_t *o, *vars;
	unsigned int i;
	int v, st;

	for (i = 0; i < KERNEL_POINTS; i++)
		xs[i] = log_point(p->be_budget_lo, p->be_budget_hi, i, KERNEL_POINTS);
	o = json_pack("{s:o, s:o, s:o}", "x_flops", xs_json(xs, KERNEL_POINTS), "stages",
		      json_array(), "variants", json_array());
	if (o == NULL)
		return NULL;
	for (st = 0; st < SM_STAGE_COUNT; st++)
		json_array_append_new(json_object_get(o, "stages"),
				      json_string(sm_stage_name(st)));
	vars = json_object_get(o, "variants");
	for (v = 0; v < SM_VAR_COUNT; v++) {
		json_t *stage[SM_STAGE_COUNT], *binding, *step, *e;

		if (!(sc->variants & (1u << v)) || !sm_variant_has_module(v))
			continue;
		binding = json_array();
		step = json_array();
		for (st = 0; st < SM_STAGE_COUNT; st++)
			stage[st] = json_array();
		for (i = 0; i < KERNEL_POINTS; i++) {
			struct sm_step s;

			if (sm_step_eval(p, v, xs[i], &s) != 0 || s.n_modules == 0)
				break;
			for (st = 0; st < SM_STAGE_COUNT; st++)
				json_array_append_new(stage[st], num(s.kernel.stage[st]));
			json_array_append_new(binding,
					      json_string(sm_stage_name(s.kernel.binding)));
			json_array_append_new(step, num(s.total));
		}
		e = json_pack("{s:s, s:o, s:o, s:{s:o, s:o, s:o, s:o}}", "variant",
			      sm_variant_name(v), "binding", binding, "step_s", step, "stage_s",
			      sm_stage_name(SM_STAGE_OPTICS), stage[SM_STAGE_OPTICS],
			      sm_stage_name(SM_STAGE_COMPUTE), stage[SM_STAGE_COMPUTE],
			      sm_stage_name(SM_STAGE_FPGA), stage[SM_STAGE_FPGA],
			      sm_stage_name(SM_STAGE_PORT), stage[SM_STAGE_PORT]);
		if (e == NULL || i < KERNEL_POINTS || json_array_append_new(vars, e) != 0) {
			json_decref(e);
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

json_t *
model_curves_json(const struct sc_scenario *sc)
{
	return json_pack("{s:o, s:o}", "wan_bandwidth", bandwidth_curves(sc), "kernel",
			 kernel_curves(sc));
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A sweep's model curves: the models evaluated at many values of the swept key between the
 * first and the last (log-spaced where the range spans 20 x or more), not only at the swept
 * ones, so that a plot draws the model as the curve it is, not as straight lines between the
 * sweep's points.  Under background load the fluid shared-WAN model (PS and FIFO, the same seed
 * and syncs as the runs); at zero load the packet-level closed form and the fluid step.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bgsizes.h"
#include "packet.h"
#include "runstats.h"
#include "sharedwan.h"
#include "step.h"
#include "stream.h"
#include "sweep.h"
#include "variant.h"

#define DENSE_ZERO 81u		/* closed forms: cheap */
#define DENSE_LOADED 41u	/* the fluid shared-WAN model: a simulation per point */

static json_t *
jnum(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

/* The swept values as numbers of one unit, the range they span; false: not a numeric sweep. */
static bool
numeric_range(const struct sweep *sw, double *lo, double *hi, bool *ints)
{
	unsigned int i;

	*lo = INFINITY;
	*hi = -INFINITY;
	*ints = true;
	for (i = 0; i < sw->nvalues; i++) {
		const struct sweep_point *p = &sw->pt[i];

		if (strcmp(p->unit, sw->pt[0].unit) != 0 || !isfinite(p->x))
			return false;
		/* a position, not a number (split_number failed): no curve */
		if (p->x == (double)i && strtod(p->value, NULL) != p->x)
			return false;
		if (p->x != floor(p->x))
			*ints = false;
		if (p->x < *lo)
			*lo = p->x;
		if (p->x > *hi)
			*hi = p->x;
	}
	return *hi > *lo;
}

bool
sweep_log_axis(double lo, double hi)
{
	return lo > 0 && hi / lo >= 20;
}

/* Packet-level closed form, mean over @steps steps, s (NAN: none) */
static double
packet_mean(const struct sc_scenario *sc, const struct contender *c, double budget)
{
	struct sm_packet_iter *it = NULL;
	struct sm_packet_step ps;
	double sum = 0;
	uint32_t s;

	if (sm_packet_iter_create(&sc->model, &sc->run.pk, c->var, budget, &it) != 0)
		return NAN;
	for (s = 0; s < sc->run.steps; s++) {
		if (sm_packet_iter_next(it, &ps) != 0) {
			sm_packet_iter_free(it);
			return NAN;
		}
		sum += (double)ps.time_ps / 1e12;
	}
	sm_packet_iter_free(it);
	return sc->run.steps ? sum / sc->run.steps : NAN;
}

/* The figures of one contender at one value into @a (ms): PS, FIFO or packet, fluid. */
static void
point_models(const struct sc_scenario *sc, const struct contender *c, bool loaded_sweep,
	     double out[2])
{
	const struct sm_params *p = &sc->model;
	double budget = sm_variant_has_module(c->var) ? sm_budget_value(&p->mod, c->b) :
							c->budget;

	out[0] = out[1] = NAN;
	if (sc->background.load > 0) {
		struct sm_sharedwan_params wp;
		struct sm_sharedwan_result res;
		struct sm_size_dist sizes;
		char err[256];

		memset(&sizes, 0, sizeof(sizes));
		if (sc_background_sizes(sc, &sizes, err, sizeof(err)) != 0)
			return;
		runstats_wan_params(sc, c->var, budget, sc->background.load, &sizes,
				    sc->run.steps, &wp);
		if (sm_sharedwan_run(p, &wp, NULL, &res) == 0)
			out[0] = res.step.mean * 1e3;
		wp.disc = SM_WAN_FIFO;
		if (sm_sharedwan_run(p, &wp, NULL, &res) == 0)
			out[1] = res.step.mean * 1e3;
		sm_size_free(&sizes);
	} else {
		struct sm_step s;

		out[0] = packet_mean(sc, c, budget) * 1e3;
		/* in a loaded sweep, load 0 has the packet closed form alone, as its points */
		if (!loaded_sweep && sm_step_eval(p, c->var, budget, &s) == 0)
			out[1] = s.total * 1e3;
	}
}

json_t *
sweep_curves_json(const struct sweep *sw, const struct sweep_load *ld)
{
	double lo, hi, *xs;
	unsigned int n, i, j, k, nx = 0;
	bool ints, logx;
	json_t *root, *series, *ax;
	const char **sets;

	if (!numeric_range(sw, &lo, &hi, &ints))
		return json_null();
	logx = sweep_log_axis(lo, hi);
	n = sw->loaded ? DENSE_LOADED : DENSE_ZERO;
	xs = calloc(n + sw->nvalues, sizeof(*xs));
	if (xs == NULL)
		return NULL;
	/* the grid and the swept values themselves: the curve passes through their models */
	for (i = 0; i < n; i++)
		xs[i] = logx ? lo * pow(hi / lo, (double)i / (n - 1)) : lo + (hi - lo) * i / (n - 1);
	for (i = 0; i < sw->nvalues; i++)
		xs[n + i] = sw->pt[i].x;
	qsort(xs, n + sw->nvalues, sizeof(*xs), sm_cmp_double);
	for (i = 0; i < n + sw->nvalues; i++) {
		double x = ints ? round(xs[i]) : xs[i];

		if (nx > 0 && (x == xs[nx - 1] ||
			       fabs(x - xs[nx - 1]) < 1e-9 * fmax(fabs(x), fabs(xs[nx - 1]))))
			continue;
		xs[nx++] = x;
	}
	sets = calloc(ld->nsets + 2, sizeof(*sets));
	series = json_array();
	ax = json_array();
	root = json_pack("{s:b, s:s, s:s, s:o, s:o}", "log_x", logx, "unit", sw->pt[0].unit,
			 "models", sw->loaded ? "fluid shared WAN: PS, FIFO" :
			 "packet closed form, fluid", "x", ax, "series", series);
	if (root == NULL || sets == NULL) {
		free(sets);
		free(xs);
		json_decref(root);
		return NULL;
	}
	memcpy(sets, ld->sets, ld->nsets * sizeof(*sets));
	/* one series per contender of the first value, by label */
	for (j = 0; j < sw->pt[0].nc; j++)
		json_array_append_new(series, json_pack("{s:s, s:[], s:[]}", "run",
							sw->pt[0].c[j].label,
							sw->loaded ? "model_ms" : "packet_ms",
							sw->loaded ? "model_fifo_ms" : "fluid_ms"));
	for (i = 0; i < nx; i++) {
		struct sc_scenario *sc = calloc(1, sizeof(*sc));
		struct contender c[RUNNER_MAX];
		char *kv = NULL, err[512];
		unsigned int nc;

		if (sc == NULL || asprintf(&kv, "%s=%.12g%s", sw->key, xs[i], sw->pt[0].unit) < 0) {
			free(sc);
			break;
		}
		sets[ld->nsets] = kv;
		sets[ld->nsets + 1] = "trace.file=none";
		if (sc_scenario_load_run(sc, ld->scenario, sets, ld->from, ld->nsets + 2,
					 ld->variants, ld->budgets, err, sizeof(err)) != 0) {
			free(kv);
			free(sc);
			continue;	/* a value between the swept ones the key refuses */
		}
		free(kv);
		if (ld->variants)
			sc->variants = ld->variants;
		if (ld->budgets)
			sc->budgets = ld->budgets;
		nc = contenders_of(sc, c);
		json_array_append_new(ax, json_real(xs[i]));
		for (j = 0; j < sw->pt[0].nc; j++) {
			json_t *s = json_array_get(series, j);
			double m[2] = { NAN, NAN };

			for (k = 0; k < nc; k++)
				if (strcmp(c[k].label, sw->pt[0].c[j].label) == 0)
					point_models(sc, &c[k], sw->loaded, m);
			json_array_append_new(json_object_get(s, sw->loaded ? "model_ms" :
							      "packet_ms"), jnum(m[0]));
			json_array_append_new(json_object_get(s, sw->loaded ? "model_fifo_ms" :
							      "fluid_ms"), jnum(m[1]));
		}
		free(sc);
	}
	free(sets);
	free(xs);
	return root;
}

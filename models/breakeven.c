/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Break-evens by bisection.
 *
 * Deck section 7a: on 2 DC x 4 only the sync's WAN term depends on the bandwidth; solve
 * steps_X (rest_X + bytes_X / bw) = steps_A (rest_A + 2P / bw) by bisection to a relative
 * tolerance of 1e-4 over 0.1-1,000 GB/s.  Section 7b: the compute budget, swept from 1 to 100,000
 * GFLOP/s, with t_mod = max(optics, ..., compute ops / g).  Section 7c: ENOB enters only through
 * the steps, a step function of the measured ENOBs.  Section 8: bit planes set both the optics
 * stage time and the steps.
 *
 * The time differences are piecewise smooth in 1/bw and 1/g with at most a few kinks (the max()
 * of a pluggable and of the module stages), so a log-spaced scan finds every sign change and a
 * bisection in each bracket gives the crossing.
 */
#include <errno.h>
#include <math.h>

#include "breakeven.h"
#include "variant.h"

#define SCAN_POINTS 512

double
sm_contender_time(const struct sm_params *p, const struct sm_contender *c)
{
	struct sm_step s;

	if (c->steps <= 0)
		return INFINITY;
	if (sm_step_eval(p, c->var, c->budget, &s) != 0)
		return NAN;
	return sm_time_to_target(&s, c->steps);
}

static int
sign_of(double v)
{
	return v < 0 ? -1 : v > 0 ? 1 : 0;
}

int
sm_find_crossings(double (*f)(double x, void *ctx), void *ctx, double lo, double hi, double rtol,
		  struct sm_crossing *out)
{
	double step = log(hi / lo) / (SCAN_POINTS - 1);
	double xa = lo, fa, fb;
	int i;

	out->n = 0;
	if (!(lo > 0) || !(hi > lo) || !(rtol > 0))
		return -EINVAL;
	fa = f(lo, ctx);
	if (isnan(fa))
		return -EINVAL;
	out->lo_winner = sign_of(fa);
	for (i = 1; i < SCAN_POINTS; i++) {
		double xb = i == SCAN_POINTS - 1 ? hi : lo * exp(step * i);

		fb = f(xb, ctx);
		if (isnan(fb))
			return -EINVAL;
		if (sign_of(fa) != 0 && sign_of(fb) != 0 && sign_of(fa) != sign_of(fb)) {
			double a = xa, b = xb, fl = fa;

			while (b - a > rtol * a) {
				double m = 0.5 * (a + b), fm = f(m, ctx);

				if (fm == 0) {
					a = b = m;
					break;
				}
				if (sign_of(fm) == sign_of(fl)) {
					a = m;
					fl = fm;
				} else {
					b = m;
				}
			}
			if (out->n < SM_CROSS_MAX)
				out->x[out->n++] = 0.5 * (a + b);
		} else if (sign_of(fb) == 0 && sign_of(fa) != 0 && out->n < SM_CROSS_MAX) {
			out->x[out->n++] = xb;
		}
		xa = xb;
		fa = fb;
	}
	out->hi_winner = sign_of(fa);
	return 0;
}

struct sweep {
	const struct sm_params *p;
	const struct sm_contender *x, *y;
	bool budget;		/* sweep X's budget, else the WAN bandwidth */
};

static double
diff_at(double knob, void *ctx)
{
	const struct sweep *sw = ctx;
	struct sm_params q = *sw->p;
	struct sm_contender x = *sw->x;
	double tx, ty;

	if (sw->budget)
		x.budget = knob;
	else
		q.wan.bw = knob;
	tx = sm_contender_time(&q, &x);
	ty = sm_contender_time(&q, sw->y);
	if (isinf(tx) && isinf(ty))
		return 0.0;
	return tx - ty;
}

int
sm_breakeven_bw(const struct sm_params *p, const struct sm_contender *x,
		const struct sm_contender *y, struct sm_crossing *out)
{
	struct sweep sw = { p, x, y, false };

	return sm_find_crossings(diff_at, &sw, p->be_bw_lo, p->be_bw_hi, p->be_rtol, out);
}

int
sm_breakeven_budget(const struct sm_params *p, const struct sm_contender *x,
		    const struct sm_contender *y, struct sm_crossing *out)
{
	struct sweep sw = { p, x, y, true };

	if (!sm_variant_has_module(x->var))
		return -ENOTSUP;
	return sm_find_crossings(diff_at, &sw, p->be_budget_lo, p->be_budget_hi, p->be_rtol, out);
}

static int
knob_row(const struct sm_params *q, enum sm_variant v, double budget, double key, double steps,
	 struct sm_knob_row *r)
{
	struct sm_step s;
	int rc = sm_step_eval(q, v, budget, &s);

	if (rc != 0)
		return rc;
	r->key = key;
	r->steps = steps;
	r->step = s.total;
	r->time = steps > 0 ? steps * s.total : INFINITY;
	r->binding = s.kernel.binding;
	r->wins = false;
	return 0;
}

int
sm_breakeven_enob(const struct sm_params *p, const struct sm_contender *x,
		  const struct sm_contender *y, struct sm_knob_row *rows, double *enob)
{
	double ty = sm_contender_time(p, y);
	unsigned int i;
	int rc;

	*enob = 0;
	if (isnan(ty))
		return -EINVAL;
	for (i = 0; i < p->enob.n; i++) {
		rc = knob_row(p, x->var, x->budget, p->enob.key[i], p->enob.steps[i], &rows[i]);
		if (rc != 0)
			return rc;
		rows[i].wins = rows[i].time < ty;
		if (rows[i].wins && *enob == 0)
			*enob = rows[i].key;
	}
	return 0;
}

int
sm_planes_table(const struct sm_params *p, enum sm_variant v, double budget,
		struct sm_knob_row *rows, unsigned int *fastest)
{
	struct sm_params q = *p;
	unsigned int i;
	int rc;

	*fastest = 0;
	for (i = 0; i < p->planes.n; i++) {
		q.mod.planes = p->planes.key[i];
		rc = knob_row(&q, v, budget, p->planes.key[i], p->planes.steps[i], &rows[i]);
		if (rc != 0)
			return rc;
		if (rows[i].time < rows[*fastest].time)
			*fastest = i;
	}
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The analytic model against the deck: every number of reference-model.md section 4.1, each to
 * the precision the deck prints, the experiment's wire bytes, and properties of the closed forms.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "breakeven.h"
#include "collective.h"
#include "energy.h"
#include "extrapolate.h"
#include "presets.h"
#include "step.h"
#include "variant.h"

/* The deck prints @printed with @decimals decimals: the model must round to it. */
#define assert_printed(actual, printed, decimals)					\
	do {										\
		double _a = (actual), _scale = pow(10.0, (decimals));			\
		double _r = round(_a * _scale) / _scale;				\
		if (fabs(_r - (printed)) > 0.5 / _scale / 10.0)				\
			fail_msg("%s = %.6f rounds to %.*f, deck prints %.*f", #actual, _a,	\
				 (decimals), _r, (decimals), (double)(printed));	\
	} while (0)

static struct sm_params P0;

static const struct sm_contender A = { SM_VAR_A, 0, 400 };
static const struct sm_contender B = { SM_VAR_B, 0, 400 };
static const struct sm_contender C = { SM_VAR_C, 0, 2667 };
static const struct sm_contender CP = { SM_VAR_CP, 0, 2667 };
static const struct sm_contender E_FREE = { SM_VAR_E, 0, 1800 };
static const struct sm_contender EP_FREE = { SM_VAR_EP, 0, 1800 };

static int
setup(void **state)
{
	sm_params_default(&P0);
	return 0;
}

static struct sm_step
step(const struct sm_params *p, enum sm_variant v, enum sm_budget b)
{
	struct sm_step s;

	assert_int_equal(sm_step_eval(p, v, sm_budget_value(&p->mod, b), &s), 0);
	return s;
}

static double
share(const struct sm_step *s, enum sm_resource r)
{
	return 100.0 * sm_step_resource(s, r) / s->total;
}

static struct sm_params
topology(const char *name)
{
	struct sm_params p = P0;
	unsigned int i, n;
	const struct sm_deck_topology *t = sm_deck_topologies(&n);

	for (i = 0; i < n; i++)
		if (strcmp(t[i].name, name) == 0)
			assert_int_equal(sm_apply_topology(&p, &t[i]), 0);
	return p;
}

static double
energy_to_target(const struct sm_params *p, enum sm_variant v, enum sm_budget b, double steps)
{
	struct sm_step s = step(p, v, b);
	struct sm_energy e;

	sm_energy_step(p, &s, &e);
	return steps * e.total;
}

static double
module_energy_share(const struct sm_params *p, enum sm_variant v, enum sm_budget b)
{
	struct sm_step s = step(p, v, b);
	struct sm_energy e;

	sm_energy_step(p, &s, &e);
	return 100.0 * sm_energy_module_share(&e);
}

/* ---- wire bytes: results.json wire_per_step, 8 workers in one DC ---- */

static void
test_wire_bytes(void **state)
{
	struct sm_params p = topology("1dc8");

	assert_true(sm_wire_flat(&p, SM_VAR_A) == 55417152.0);
	assert_true(sm_wire_flat(&p, SM_VAR_B) == 27705720.0);
	assert_true(sm_wire_flat(&p, SM_VAR_C) == 13854288.0);
	assert_true(sm_wire_flat(&p, SM_VAR_E) == 13854288.0);
	assert_true(sm_payload(&p, SM_VAR_A) == 31666944.0);
	assert_true(sm_payload(&p, SM_VAR_C) == 1979184.0);
	/* inferred: C' = 1.75 band, E' = 2P + 1.75 band */
	assert_true(sm_wire_flat(&p, SM_VAR_CP) == 3463572.0);
	assert_true(sm_wire_flat(&p, SM_VAR_EP) == 31666944.0 + 3463572.0);
}

/* The hierarchical collectives send what the flat ones send (only the links differ). */
static void
test_wire_bytes_hierarchical(void **state)
{
	int v;

	for (v = 0; v < SM_VAR_COUNT; v++) {
		struct sm_step s = step(&P0, v, SM_BUDGET_FREE);

		assert_float_equal(s.bytes_intra + s.bytes_wan, sm_wire_flat(&P0, v), 1e-6);
	}
}

/* ---- section 4.1, one assertion per deck number ---- */

static void
test_adamw_step(void **state)
{
	struct sm_step s = step(&P0, SM_VAR_A, SM_BUDGET_FREE);

	assert_printed(s.total * 1e3, 4.075, 3);
}

static void
test_adamw_time_to_target(void **state)
{
	assert_printed(sm_contender_time(&P0, &A), 1.63, 2);
}

static void
test_adamw_compute_share(void **state)
{
	struct sm_step s = step(&P0, SM_VAR_A, SM_BUDGET_FREE);

	assert_printed(share(&s, SM_RES_COMPUTE), 12.1, 1);
}

static void
test_adamw_wan_share(void **state)
{
	struct sm_step s = step(&P0, SM_VAR_A, SM_BUDGET_FREE);

	assert_printed(share(&s, SM_RES_WAN), 63.1, 1);
}

static void
test_topk_time_to_target(void **state)
{
	assert_printed(sm_contender_time(&P0, &B), 0.93, 2);
}

static void
test_pluggable_low_step(void **state)
{
	struct sm_step s = step(&P0, SM_VAR_E, SM_BUDGET_LOW);

	assert_printed(s.total * 1e3, 33.348, 3);
}

static void
test_band_gpu_step(void **state)
{
	struct sm_step s = step(&P0, SM_VAR_C, SM_BUDGET_FREE);

	assert_printed(s.total * 1e3, 1.443, 3);
}

static void
test_ep_free_step(void **state)
{
	struct sm_step s = step(&P0, SM_VAR_EP, SM_BUDGET_FREE);

	assert_printed(s.total * 1e3, 3.726, 3);
}

static void
test_cp_8g_time_to_target(void **state)
{
	struct sm_params p = topology("2dc4-8g");

	assert_printed(sm_contender_time(&p, &CP), 7.02, 2);
}

static void
test_ep_free_8g_time_to_target(void **state)
{
	struct sm_params p = topology("2dc4-8g");

	assert_printed(sm_contender_time(&p, &EP_FREE), 9.98, 2);
}

static void
test_adamw_8g_time_to_target(void **state)
{
	struct sm_params p = topology("2dc4-8g");

	assert_printed(sm_contender_time(&p, &A), 13.28, 2);
}

/* "A pluggable with the transform charged at 10 GFLOP/s takes about a minute (59.01 to 73.14 s)
 * wherever it is", over the six topologies the deck prints. */
static void
test_pluggable_low_range(void **state)
{
	struct sm_contender e_low = { SM_VAR_E, P0.mod.budget[SM_BUDGET_LOW], 1800 };
	double lo = INFINITY, hi = 0;
	unsigned int i, n;
	const struct sm_deck_topology *t = sm_deck_topologies(&n);

	for (i = 0; i < n; i++) {
		struct sm_params p = P0;
		double x;

		if (!t[i].in_deck)
			continue;
		sm_apply_topology(&p, &t[i]);
		x = sm_contender_time(&p, &e_low);
		lo = fmin(lo, x);
		hi = fmax(hi, x);
	}
	assert_printed(lo, 59.01, 2);
	assert_printed(hi, 73.14, 2);
}

static void
test_module_compute_share_low(void **state)
{
	struct sm_step s = step(&P0, SM_VAR_E, SM_BUDGET_LOW);

	assert_printed(share(&s, SM_RES_MOD_COMPUTE), 95.0, 1);
}

static void
test_module_compute_share_high(void **state)
{
	struct sm_step s = step(&P0, SM_VAR_E, SM_BUDGET_HIGH);

	assert_printed(share(&s, SM_RES_MOD_COMPUTE), 65.6, 1);
}

static void
test_optics_share_free(void **state)
{
	struct sm_step s = step(&P0, SM_VAR_E, SM_BUDGET_FREE);

	assert_int_equal(s.kernel.binding, SM_STAGE_OPTICS);
	assert_printed(share(&s, SM_RES_MOD_OPTICS), 57.4, 1);
}

static void
test_module_port_share_free(void **state)
{
	struct sm_step s = step(&P0, SM_VAR_E, SM_BUDGET_FREE);

	assert_printed(share(&s, SM_RES_MOD_PORT), 13.6, 1);
}

static void
test_cp_compute_share(void **state)
{
	struct sm_step s = step(&P0, SM_VAR_CP, SM_BUDGET_FREE);

	assert_printed(share(&s, SM_RES_COMPUTE), 60.8, 1);
}

static void
test_budget_stops_binding(void **state)
{
	double g = sm_kernel_budget_unbinds(&P0.mod, sm_dense_bytes(&P0), P0.job.value_bytes);

	assert_printed(g / 1e9, 140.0, 1);
}

static void
test_breakeven_ep_adamw_e_steps(void **state)
{
	struct sm_crossing c;

	assert_int_equal(sm_breakeven_bw(&P0, &EP_FREE, &A, &c), 0);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.lo_winner, -1);	/* E' wins below */
	assert_printed(c.x[0] / 1e9, 1.57, 2);
}

static void
test_breakeven_ep_adamw_exact_steps(void **state)
{
	struct sm_contender ep = EP_FREE;
	struct sm_crossing c;

	ep.steps = 2667;
	assert_int_equal(sm_breakeven_bw(&P0, &ep, &A, &c), 0);
	assert_int_equal(c.n, 1);
	assert_printed(c.x[0] / 1e9, 0.83, 2);
}

static void
test_breakeven_cp_adamw(void **state)
{
	struct sm_crossing c;

	assert_int_equal(sm_breakeven_bw(&P0, &CP, &A, &c), 0);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.lo_winner, -1);
	assert_printed(c.x[0] / 1e9, 6.58, 2);
}

static void
test_budget_ep_beats_adamw_8g(void **state)
{
	struct sm_params p = topology("2dc4-8g");
	struct sm_crossing c;

	assert_int_equal(sm_breakeven_budget(&p, &EP_FREE, &A, &c), 0);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.hi_winner, -1);	/* E' wins above */
	assert_printed(c.x[0] / 1e9, 77.3, 1);
}

/* The deck's 79.9 comes out with C's unrounded 3-seed mean (2,666.7 steps); with the printed 2,667
 * it is 79.85.  Reference-model.md section 4.2 ("The C steps") discusses the two. */
static void
test_budget_pluggable_beats_band_8g(void **state)
{
	struct sm_params p = topology("2dc4-8g");
	struct sm_contender c_mean = C;
	struct sm_crossing c;

	c_mean.steps = p.steps_c_mean;
	assert_int_equal(sm_breakeven_budget(&p, &E_FREE, &c_mean, &c), 0);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.hi_winner, -1);
	assert_printed(c.x[0] / 1e9, 79.9, 1);
}

static void
test_energy_ep_free(void **state)
{
	assert_printed(energy_to_target(&P0, SM_VAR_EP, SM_BUDGET_FREE, 1800) / 1e3, 8.87, 2);
}

static void
test_energy_adamw(void **state)
{
	assert_printed(energy_to_target(&P0, SM_VAR_A, SM_BUDGET_FREE, 400) / 1e3, 1.95, 2);
}

static void
test_energy_topk(void **state)
{
	assert_printed(energy_to_target(&P0, SM_VAR_B, SM_BUDGET_FREE, 400) / 1e3, 1.38, 2);
}

static void
test_energy_cp(void **state)
{
	assert_printed(energy_to_target(&P0, SM_VAR_CP, SM_BUDGET_FREE, 2667) / 1e3, 5.90, 2);
}

static void
test_module_energy_share_free(void **state)
{
	assert_printed(module_energy_share(&P0, SM_VAR_EP, SM_BUDGET_FREE), 7.2, 1);
}

static void
test_module_energy_share_low(void **state)
{
	assert_printed(module_energy_share(&P0, SM_VAR_EP, SM_BUDGET_LOW), 10.0, 1);
}

static void
test_diloco_adamw(void **state)
{
	assert_printed(sm_diloco_time(&P0, &A, 100), 0.21, 2);
}

static void
test_diloco_ep_free(void **state)
{
	assert_printed(sm_diloco_time(&P0, &EP_FREE, 100), 0.94, 2);
}

/* "Eight is the fastest to 3.158 for both E and E'" (section 8). */
static void
test_eight_planes_fastest(void **state)
{
	struct sm_knob_row rows[SM_TABLE_MAX];
	unsigned int f;

	assert_int_equal(sm_planes_table(&P0, SM_VAR_E, 0, rows, &f), 0);
	assert_true(rows[f].key == 8);
	assert_printed(rows[0].time, 7.66, 2);	/* 4 planes: the port binds, not the optics */
	assert_int_equal(rows[0].binding, SM_STAGE_PORT);
	assert_int_equal(sm_planes_table(&P0, SM_VAR_EP, 0, rows, &f), 0);
	assert_true(rows[f].key == 8);
}

/* "Top-k (B) is the fastest to 3.158 on every topology"; "C' beats AdamW on the 25 GbE and 8 Gb/s
 * WANs; E' [free] beats AdamW only on the 8 Gb/s WAN". */
static void
test_qualitative_topologies(void **state)
{
	unsigned int i, n;
	const struct sm_deck_topology *t = sm_deck_topologies(&n);

	for (i = 0; i < n; i++) {
		struct sm_params p = P0;
		double tb, ta, tcp, tep;
		bool slow_wan;
		int v, b;

		if (!t[i].in_deck)
			continue;
		sm_apply_topology(&p, &t[i]);
		tb = sm_contender_time(&p, &B);
		for (v = 0; v < SM_VAR_COUNT; v++) {
			for (b = 0; b < SM_BUDGET_COUNT; b++) {
				struct sm_contender x = { v, sm_budget_value(&p.mod, b),
							  p.steps[v] };

				if (v != SM_VAR_B)
					assert_true(sm_contender_time(&p, &x) > tb);
			}
		}
		if (t[i].n_dc != 2)
			continue;
		ta = sm_contender_time(&p, &A);
		tcp = sm_contender_time(&p, &CP);
		tep = sm_contender_time(&p, &EP_FREE);
		slow_wan = strcmp(t[i].wan, "eth-25g") == 0 || strcmp(t[i].wan, "wan-8g") == 0;
		assert_true((tcp < ta) == slow_wan);
		assert_true((tep < ta) == (strcmp(t[i].wan, "wan-8g") == 0));
	}
}

/* "A pluggable all-gather never breaks even with AdamW or top-k over 0.1 to 1,000 GB/s". */
static void
test_pluggable_never_breaks_even(void **state)
{
	const struct sm_contender *rivals[] = { &A, &B };
	unsigned int i;
	int b;

	for (b = 0; b < SM_BUDGET_COUNT; b++) {
		struct sm_contender e = { SM_VAR_E, sm_budget_value(&P0.mod, b), 1800 };

		for (i = 0; i < 2; i++) {
			struct sm_crossing c;

			assert_int_equal(sm_breakeven_bw(&P0, &e, rivals[i], &c), 0);
			assert_int_equal(c.n, 0);
			assert_int_equal(c.lo_winner, 1);
		}
	}
}

/* "On a 100 GbE WAN no budget is enough"; "at no budget does E' beat top-k or C'" (8 Gb/s);
 * "on the exact band's steps E' never beats C'". */
static void
test_budget_sweeps_without_crossing(void **state)
{
	struct sm_params p8 = topology("2dc4-8g");
	struct sm_contender ep_exact = EP_FREE;
	struct sm_crossing c;

	assert_int_equal(sm_breakeven_budget(&P0, &E_FREE, &C, &c), 0);
	assert_true(c.n == 0 && c.hi_winner == 1);
	assert_int_equal(sm_breakeven_budget(&P0, &EP_FREE, &A, &c), 0);
	assert_true(c.n == 0 && c.hi_winner == 1);
	assert_int_equal(sm_breakeven_budget(&p8, &EP_FREE, &B, &c), 0);
	assert_true(c.n == 0 && c.hi_winner == 1);
	assert_int_equal(sm_breakeven_budget(&p8, &EP_FREE, &CP, &c), 0);
	assert_true(c.n == 0 && c.hi_winner == 1);
	ep_exact.steps = 2667;
	assert_int_equal(sm_breakeven_bw(&P0, &ep_exact, &CP, &c), 0);
	assert_true(c.n == 0 && c.lo_winner == 1);
}

/* "Where an in-transit variant wins at all, the break-even ENOB is 8". */
static void
test_enob_breakeven(void **state)
{
	struct sm_params p8 = topology("2dc4-8g");
	struct sm_knob_row rows[SM_TABLE_MAX];
	double enob;

	assert_int_equal(sm_breakeven_enob(&p8, &EP_FREE, &A, rows, &enob), 0);
	assert_true(enob == 8);
	assert_true(isinf(rows[0].time));	/* ENOB 6 never trains */
	assert_int_equal(sm_breakeven_enob(&P0, &EP_FREE, &A, rows, &enob), 0);
	assert_true(enob == 0);			/* never on 100 GbE */
}

/* Section 5 predictions, a few, and the 1 DC x 8 and 8 DC x 1 rows. */
static void
test_predictions(void **state)
{
	struct sm_params p1 = topology("1dc8"), p8 = topology("8dc1-100g");
	struct sm_params p25 = topology("2dc4-25g");

	assert_printed(sm_contender_time(&p1, &A), 0.696, 3);
	assert_printed(sm_contender_time(&p1, &B), 0.447, 3);
	assert_printed(sm_contender_time(&p8, &A), 2.082, 3);
	assert_printed(sm_contender_time(&p8, &C), 4.643, 3);
	assert_printed(sm_contender_time(&p25, &CP), 3.428, 3);
	assert_printed(sm_contender_time(&P0, &E_FREE), 7.10, 2);
}

/* ---- properties ---- */

static void
test_shares_sum_to_one(void **state)
{
	unsigned int i, n;
	const struct sm_deck_topology *t = sm_deck_topologies(&n);

	for (i = 0; i < n; i++) {
		struct sm_params p = P0;
		int v, b, r;

		sm_apply_topology(&p, &t[i]);
		for (v = 0; v < SM_VAR_COUNT; v++) {
			for (b = 0; b < SM_BUDGET_COUNT; b++) {
				struct sm_step s = step(&p, v, b);
				double sh[SM_RES_COUNT], sum = 0;

				sm_step_shares(&s, sh);
				for (r = 0; r < SM_RES_COUNT; r++) {
					assert_true(sh[r] >= 0);
					sum += sh[r];
				}
				assert_float_equal(sum, 1.0, 1e-12);
			}
		}
	}
}

static void
test_step_falls_as_bandwidth_rises(void **state)
{
	unsigned int i, n;
	const struct sm_deck_topology *t = sm_deck_topologies(&n);

	for (i = 0; i < n; i++) {
		struct sm_params p = P0;
		int v;

		sm_apply_topology(&p, &t[i]);
		for (v = 0; v < SM_VAR_COUNT; v++) {
			double prev = INFINITY, bw;

			for (bw = 0.1e9; bw <= 1000e9; bw *= 1.5) {
				struct sm_step s;

				p.wan.bw = bw;
				assert_int_equal(sm_step_eval(&p, v, 10e9, &s), 0);
				if (t[i].n_dc == 1)
					assert_true(s.total <= prev);	/* no WAN: flat */
				else
					assert_true(s.total < prev || s.total == prev);
				prev = s.total;
			}
			/* and strictly over the range where the WAN term is not capped */
			if (t[i].n_dc > 1) {
				struct sm_step s1, s2;

				p.wan.bw = 1e9;
				sm_step_eval(&p, v, 0, &s1);
				p.wan.bw = 2e9;
				sm_step_eval(&p, v, 0, &s2);
				assert_true(s2.total < s1.total);
			}
		}
	}
}

static void
test_times_agree_at_breakeven(void **state)
{
	struct sm_crossing c;
	struct sm_params q = P0;
	double tx, ty;

	assert_int_equal(sm_breakeven_bw(&P0, &CP, &A, &c), 0);
	assert_int_equal(c.n, 1);
	q.wan.bw = c.x[0];
	tx = sm_contender_time(&q, &CP);
	ty = sm_contender_time(&q, &A);
	assert_true(fabs(tx - ty) / ty < P0.be_rtol);

	q = topology("2dc4-8g");
	assert_int_equal(sm_breakeven_budget(&q, &EP_FREE, &A, &c), 0);
	{
		struct sm_contender ep = EP_FREE;

		ep.budget = c.x[0];
		tx = sm_contender_time(&q, &ep);
		ty = sm_contender_time(&q, &A);
		assert_true(fabs(tx - ty) / ty < q.be_rtol);
	}
}

static double
line(double x, void *ctx)
{
	return x - *(double *)ctx;
}

static void
test_bisection_tolerance(void **state)
{
	double root = 3.14159;
	struct sm_crossing c;

	assert_int_equal(sm_find_crossings(line, &root, 0.1, 1000, 1e-6, &c), 0);
	assert_int_equal(c.n, 1);
	assert_true(fabs(c.x[0] - root) / root < 1e-6);
	assert_int_equal(sm_find_crossings(line, &root, 10, 1000, 1e-6, &c), 0);
	assert_int_equal(c.n, 0);
	assert_int_equal(sm_find_crossings(line, &root, 0, 1000, 1e-6, &c), -EINVAL);
}

static void
test_module_stage_binding(void **state)
{
	struct sm_kernel k;
	double in = sm_dense_bytes(&P0);

	sm_kernel_eval(&P0.mod, in, 2.0, 10e9, 0, &k);
	assert_int_equal(k.binding, SM_STAGE_COMPUTE);
	assert_float_equal(k.stage[SM_STAGE_OPTICS], in / 2 * 8 / 56e9, 1e-15);
	assert_float_equal(k.stage[SM_STAGE_COMPUTE], 20.0 * P0.job.params / 10e9, 1e-15);
	assert_float_equal(k.stage[SM_STAGE_PORT], in / 25e9, 1e-15);
	sm_kernel_eval(&P0.mod, in, 2.0, 0, 0, &k);
	assert_int_equal(k.binding, SM_STAGE_OPTICS);
	assert_true(k.stage[SM_STAGE_COMPUTE] == 0);
	assert_true(k.stage[SM_STAGE_FPGA] < k.stage[SM_STAGE_OPTICS]);	/* never binds */
}

static void
test_bad_params_rejected(void **state)
{
	struct sm_params p = P0;
	struct sm_step s;
	char err[128];

	p.wan.bw = 0;
	assert_int_equal(sm_params_check(&p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "wan.bandwidth"));
	assert_int_equal(sm_step_eval(&p, SM_VAR_A, 0, &s), -EINVAL);
	p = P0;
	p.gpu.mfu = 1.5;
	assert_int_equal(sm_params_check(&p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "gpu.mfu"));
	p = P0;
	p.topo.n_dc = 1;
	p.topo.per_dc = 1;
	assert_int_equal(sm_params_check(&p, err, sizeof(err)), -EINVAL);
	assert_int_equal(sm_step_eval(&P0, SM_VAR_COUNT, 0, &s), -EINVAL);
	assert_int_equal(sm_step_eval(&P0, SM_VAR_A, -1, &s), -EINVAL);
	assert_true(isnan(sm_diloco_time(&P0, &A, 0.5)));
}

static void
test_scale_model(void **state)
{
	struct sm_params q;
	struct sm_step s1, s10;

	assert_int_equal(sm_scale_model(&P0, 10, &q), 0);
	assert_true(q.job.params == 10 * P0.job.params);
	sm_step_eval(&P0, SM_VAR_A, 0, &s1);
	sm_step_eval(&q, SM_VAR_A, 0, &s10);
	assert_float_equal(s10.t_compute, 10 * s1.t_compute, 1e-15);
	assert_float_equal(s10.bytes_wan, 10 * s1.bytes_wan, 1e-3);
	assert_int_equal(sm_scale_model(&P0, 0, &q), -EINVAL);
	assert_int_equal(sm_scale_model(&P0, NAN, &q), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wire_bytes),
		cmocka_unit_test(test_wire_bytes_hierarchical),
		cmocka_unit_test(test_adamw_step),
		cmocka_unit_test(test_adamw_time_to_target),
		cmocka_unit_test(test_adamw_compute_share),
		cmocka_unit_test(test_adamw_wan_share),
		cmocka_unit_test(test_topk_time_to_target),
		cmocka_unit_test(test_pluggable_low_step),
		cmocka_unit_test(test_band_gpu_step),
		cmocka_unit_test(test_ep_free_step),
		cmocka_unit_test(test_cp_8g_time_to_target),
		cmocka_unit_test(test_ep_free_8g_time_to_target),
		cmocka_unit_test(test_adamw_8g_time_to_target),
		cmocka_unit_test(test_pluggable_low_range),
		cmocka_unit_test(test_module_compute_share_low),
		cmocka_unit_test(test_module_compute_share_high),
		cmocka_unit_test(test_optics_share_free),
		cmocka_unit_test(test_module_port_share_free),
		cmocka_unit_test(test_cp_compute_share),
		cmocka_unit_test(test_budget_stops_binding),
		cmocka_unit_test(test_breakeven_ep_adamw_e_steps),
		cmocka_unit_test(test_breakeven_ep_adamw_exact_steps),
		cmocka_unit_test(test_breakeven_cp_adamw),
		cmocka_unit_test(test_budget_ep_beats_adamw_8g),
		cmocka_unit_test(test_budget_pluggable_beats_band_8g),
		cmocka_unit_test(test_energy_ep_free),
		cmocka_unit_test(test_energy_adamw),
		cmocka_unit_test(test_energy_topk),
		cmocka_unit_test(test_energy_cp),
		cmocka_unit_test(test_module_energy_share_free),
		cmocka_unit_test(test_module_energy_share_low),
		cmocka_unit_test(test_diloco_adamw),
		cmocka_unit_test(test_diloco_ep_free),
		cmocka_unit_test(test_eight_planes_fastest),
		cmocka_unit_test(test_qualitative_topologies),
		cmocka_unit_test(test_pluggable_never_breaks_even),
		cmocka_unit_test(test_budget_sweeps_without_crossing),
		cmocka_unit_test(test_enob_breakeven),
		cmocka_unit_test(test_predictions),
		cmocka_unit_test(test_shares_sum_to_one),
		cmocka_unit_test(test_step_falls_as_bandwidth_rises),
		cmocka_unit_test(test_times_agree_at_breakeven),
		cmocka_unit_test(test_bisection_tolerance),
		cmocka_unit_test(test_module_stage_binding),
		cmocka_unit_test(test_bad_params_rejected),
		cmocka_unit_test(test_scale_model),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}

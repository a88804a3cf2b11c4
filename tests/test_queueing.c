/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PRNG, background size distributions, single-queue formulas, step statistics, and the
 * shared-WAN model: at load 0 it is the closed form, under load it grows and lands near the
 * reference model's figures (reference-model.md sections 2.9 and 4.3).
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common.h"
#include "presets.h"
#include "queueing.h"
#include "rng.h"
#include "sharedwan.h"
#include "step.h"

#define assert_rel(actual, expected, tol)						\
	do {										\
		double _a = (actual), _e = (expected);					\
		if (!(fabs(_a - _e) <= (tol) * fabs(_e)))				\
			fail_msg("%s = %.15g, expected %.15g within %g relative", #actual,	\
				 _a, _e, (double)(tol));				\
	} while (0)

#define DRAWS 1000000u

static struct sm_params
topology(const char *name)
{
	struct sm_params p = tc_topology(name);

	assert_true(strncmp(name, "8dc1", 4) != 0 || p.topo.n_dc == 8);
	return p;
}

/* ---- rng ---- */

static void
test_rng_known_answer(void **state)
{
	/* From an independent implementation of splitmix64 seeding and xoshiro256**. */
	static const uint64_t seed0[3] = {
		UINT64_C(0x99ec5f36cb75f2b4), UINT64_C(0xbf6e1f784956452a),
		UINT64_C(0x1a5f849d4933e6e0),
	};
	static const uint64_t seed42[3] = {
		UINT64_C(0x15780b2e0c2ec716), UINT64_C(0x6104d9866d113a7e),
		UINT64_C(0xae17533239e499a1),
	};
	struct sm_rng a, b;
	int i;

	(void)state;
	sm_rng_seed(&a, 0);
	sm_rng_seed(&b, 42);
	for (i = 0; i < 3; i++) {
		assert_true(sm_rng_next(&a) == seed0[i]);
		assert_true(sm_rng_next(&b) == seed42[i]);
	}
}

static void
test_rng_same_seed(void **state)
{
	struct sm_rng a, b;
	int i;

	(void)state;
	sm_rng_seed(&a, 12345);
	sm_rng_seed(&b, 12345);
	for (i = 0; i < 10000; i++)
		assert_true(sm_rng_next(&a) == sm_rng_next(&b));
}

static void
test_rng_seeds_differ(void **state)
{
	struct sm_rng a, b, c;
	int i, same = 0;

	(void)state;
	sm_rng_seed(&a, 1);
	sm_rng_seed(&b, 2);
	sm_rng_seed(&c, sm_rng_stream_seed(1, 1));
	for (i = 0; i < 1000; i++) {
		uint64_t x = sm_rng_next(&a), y = sm_rng_next(&b), z = sm_rng_next(&c);

		same += x == y || x == z || y == z;
	}
	assert_int_equal(same, 0);
	assert_true(sm_rng_stream_seed(7, 0) != sm_rng_stream_seed(7, 1));
	assert_true(sm_rng_stream_seed(7, 0) != sm_rng_stream_seed(8, 0));
}

static void
test_rng_uniform_mean(void **state)
{
	struct sm_rng r;
	double s = 0, lo = 1, hi = 0;
	unsigned int i;

	(void)state;
	sm_rng_seed(&r, 3);
	for (i = 0; i < DRAWS; i++) {
		double u = sm_rng_uniform(&r);

		s += u;
		lo = u < lo ? u : lo;
		hi = u > hi ? u : hi;
	}
	assert_true(lo >= 0 && hi < 1);
	assert_rel(s / DRAWS, 0.5, 0.01);
}

static void
test_rng_exp_mean(void **state)
{
	struct sm_rng r;
	double s = 0;
	unsigned int i;

	(void)state;
	sm_rng_seed(&r, 4);
	for (i = 0; i < DRAWS; i++) {
		double x = sm_rng_exp(&r, 3.0);

		assert_true(isfinite(x) && x >= 0);
		s += x;
	}
	assert_rel(s / DRAWS, 3.0, 0.01);
}

/* ---- sizes ---- */

static void
test_size_fixed_exp(void **state)
{
	struct sm_size_dist d;
	struct sm_rng r;
	double s = 0;
	unsigned int i;

	(void)state;
	sm_rng_seed(&r, 5);
	assert_int_equal(sm_size_fixed(&d, 1e6), 0);
	assert_true(d.mean == 1e6 && sm_size_moment2(&d) == 1e12);
	assert_true(sm_size_sample(&d, &r) == 1e6);
	assert_int_equal(sm_size_exp(&d, 2e6), 0);
	assert_true(d.mean == 2e6 && sm_size_moment2(&d) == 8e12);
	for (i = 0; i < DRAWS; i++)
		s += sm_size_sample(&d, &r);
	assert_rel(s / DRAWS, 2e6, 0.01);
	assert_int_equal(sm_size_fixed(&d, 0), -EINVAL);
	assert_int_equal(sm_size_fixed(&d, INFINITY), -EINVAL);
	assert_int_equal(sm_size_exp(&d, -1), -EINVAL);
	assert_int_equal(sm_size_exp(&d, NAN), -EINVAL);
}

static void
test_size_empirical(void **state)
{
	static const double sizes[4] = { 1e3, 1e4, 1e5, 1e6 };
	static const double weights[4] = { 1, 2, 0, 7 };
	unsigned int count[4] = { 0 }, i, k;
	struct sm_size_dist d;
	struct sm_rng r;

	(void)state;
	assert_int_equal(sm_size_empirical(&d, sizes, weights, 4), 0);
	assert_rel(d.mean, 0.1 * 1e3 + 0.2 * 1e4 + 0.7 * 1e6, 1e-12);
	assert_rel(sm_size_moment2(&d), 0.1 * 1e6 + 0.2 * 1e8 + 0.7 * 1e12, 1e-12);
	sm_rng_seed(&r, 6);
	for (i = 0; i < DRAWS; i++) {
		double x = sm_size_sample(&d, &r);

		for (k = 0; k < 4 && sizes[k] != x; k++)
			;
		assert_true(k < 4);
		count[k]++;
	}
	assert_rel(count[0] / (double)DRAWS, 0.1, 0.01);
	assert_rel(count[1] / (double)DRAWS, 0.2, 0.01);
	assert_int_equal(count[2], 0);
	assert_rel(count[3] / (double)DRAWS, 0.7, 0.01);
	sm_size_free(&d);
	assert_null(d.size);
	sm_size_free(&d);	/* twice is harmless */

	/* Equal weights. */
	assert_int_equal(sm_size_empirical(&d, sizes, NULL, 2), 0);
	assert_rel(d.mean, 5.5e3, 1e-12);
	memset(count, 0, sizeof(count));
	for (i = 0; i < DRAWS; i++)
		count[sm_size_sample(&d, &r) == sizes[0] ? 0 : 1]++;
	assert_rel(count[0] / (double)DRAWS, 0.5, 0.01);
	sm_size_free(&d);
}

static void
test_size_empirical_rejects(void **state)
{
	static const double good[2] = { 1e3, 1e4 };
	static const double bad_size[2][2] = { { 1e3, 0 }, { -1, 1e4 } };
	static const double bad_w[4][2] = { { 1, -1 }, { 0, 0 }, { NAN, 1 }, { INFINITY, 1 } };
	double nan_size[2] = { NAN, 1e4 };
	struct sm_size_dist d;
	unsigned int i;

	(void)state;
	assert_int_equal(sm_size_fixed(&d, 7), 0);
	assert_int_equal(sm_size_empirical(&d, good, NULL, 0), -EINVAL);
	assert_int_equal(sm_size_empirical(&d, NULL, NULL, 2), -EINVAL);
	for (i = 0; i < 2; i++)
		assert_int_equal(sm_size_empirical(&d, bad_size[i], NULL, 2), -EINVAL);
	assert_int_equal(sm_size_empirical(&d, nan_size, NULL, 2), -EINVAL);
	for (i = 0; i < 4; i++)
		assert_int_equal(sm_size_empirical(&d, good, bad_w[i], 2), -EINVAL);
	/* A rejected table leaves the distribution as it was. */
	assert_true(d.kind == SM_SIZE_FIXED && d.mean == 7);
}

/* ---- formulas ---- */

static void
test_md1_reference(void **state)
{
	struct sm_size_dist d;
	double s;

	(void)state;
	assert_int_equal(sm_size_fixed(&d, 1e6), 0);
	s = d.mean / 12.5e9;
	assert_rel(s, 80e-6, 1e-12);
	assert_rel(sm_md1_wait(0.9, s), 360e-6, 1e-12);
	assert_rel(sm_md1_sojourn(0.9, s), 440e-6, 1e-12);
	assert_rel(sm_bg_rate(0.9, 12.5e9, &d), 11250, 1e-12);
	assert_true(isinf(sm_md1_wait(1.0, s)));
	assert_true(isnan(sm_md1_wait(-0.1, s)));
	assert_true(isnan(sm_bg_rate(0.5, 12.5e9, NULL)));
}

static void
test_mg1_forms(void **state)
{
	double es = 80e-6, rho = 0.7, lambda = rho / es;

	(void)state;
	/* Exponential sizes: M/M/1, rho E[S] / (1 - rho). */
	assert_rel(sm_mg1_wait(lambda, es, 2 * es * es), rho * es / (1 - rho), 1e-12);
	/* Fixed sizes: M/D/1. */
	assert_rel(sm_mg1_wait(lambda, es, es * es), sm_md1_wait(rho, es), 1e-12);
	assert_rel(sm_mg1_sojourn(lambda, es, es * es), sm_md1_sojourn(rho, es), 1e-12);
	assert_rel(sm_ps_sojourn(rho, es), es / 0.3, 1e-12);
	assert_true(isinf(sm_mg1_wait(1.5 / es, es, es * es)));
	assert_true(isnan(sm_mg1_wait(lambda, es, 0.5 * es * es)));
	assert_true(isnan(sm_mg1_wait(-1, es, es * es)));
}

static void
test_capacity_bound(void **state)
{
	struct sm_params p;

	(void)state;
	sm_params_default(&p);
	/* Section 2.9: AdamW's 2P bytes at load 0.9 need steps >= 25.3 ms. */
	assert_rel(sm_capacity_min_step(p.job.params * p.job.value_bytes, 0.9, p.wan.bw),
		   31666944.0 / (0.1 * 12.5e9), 1e-9);
	assert_true(fabs(sm_capacity_min_step(31666944.0, 0.9, 12.5e9) - 25.3e-3) < 0.05e-3);
	assert_true(isinf(sm_capacity_min_step(1e6, 1.0, 12.5e9)));
	assert_true(isnan(sm_capacity_min_step(1e6, 0.5, 0)));
}

/* ---- the event code, background only ---- */

static void
test_fifo_bg_md1(void **state)
{
	struct sm_size_dist d;
	struct sm_bg_only o;
	double s = 1e6 / 12.5e9;

	(void)state;
	assert_int_equal(sm_size_fixed(&d, 1e6), 0);
	assert_int_equal(sm_sharedwan_bg_only(SM_WAN_FIFO, 0.5, 12.5e9, &d, 1, 1000000, &o), 0);
	assert_true(o.jobs == 1000000);
	assert_rel(o.wait, sm_md1_wait(0.5, s), 0.02);
	assert_rel(o.sojourn, sm_md1_sojourn(0.5, s), 0.02);
	assert_rel(o.util, 0.5, 0.02);
	/* Exponential sizes: Pollaczek-Khinchine (M/M/1). */
	assert_int_equal(sm_size_exp(&d, 1e6), 0);
	assert_int_equal(sm_sharedwan_bg_only(SM_WAN_FIFO, 0.5, 12.5e9, &d, 2, 1000000, &o), 0);
	assert_rel(o.wait, sm_mg1_wait(0.5 / s, s, 2 * s * s), 0.02);
	assert_int_equal(sm_sharedwan_bg_only(SM_WAN_FIFO, 1.0, 12.5e9, &d, 2, 10, &o), -EINVAL);
}

static void
test_ps_bg_sojourn(void **state)
{
	struct sm_size_dist d;
	struct sm_bg_only o;
	double s = 1e6 / 12.5e9;

	(void)state;
	/* M/G/1-PS: E[S] / (1 - rho) whatever the sizes. */
	assert_int_equal(sm_size_fixed(&d, 1e6), 0);
	assert_int_equal(sm_sharedwan_bg_only(SM_WAN_PS, 0.5, 12.5e9, &d, 3, 1000000, &o), 0);
	assert_rel(o.sojourn, sm_ps_sojourn(0.5, s), 0.02);
	assert_int_equal(sm_size_exp(&d, 1e6), 0);
	assert_int_equal(sm_sharedwan_bg_only(SM_WAN_PS, 0.5, 12.5e9, &d, 4, 1000000, &o), 0);
	assert_rel(o.sojourn, sm_ps_sojourn(0.5, s), 0.02);
}

/* ---- the shared WAN ---- */

static void
check_closed_form(const struct sm_params *p, enum sm_variant v, double budget)
{
	static const enum sm_wan_discipline disc[2] = { SM_WAN_PS, SM_WAN_FIFO };
	struct sm_sharedwan_params wp;
	struct sm_sharedwan_result res;
	struct sm_step s;
	double x[20];
	unsigned int i, k, dir;

	assert_int_equal(sm_step_eval(p, v, budget, &s), 0);
	for (k = 0; k < 2; k++) {
		for (dir = 1; dir <= 2; dir++) {
			sm_sharedwan_default(&wp);
			wp.var = v;
			wp.budget = budget;
			wp.disc = disc[k];
			wp.sync_one_flow = dir == 1;
			wp.directions = dir;
			wp.n_syncs = 20;
			wp.warmup = 5;
			assert_int_equal(sm_sharedwan_run(p, &wp, x, &res), 0);
			for (i = 0; i < 20; i++)
				assert_rel(x[i], s.total, 1e-12);
			assert_rel(res.step.mean, s.total, 1e-12);
			assert_true(res.closed == s.total && res.loaded == 0);
			assert_true(isnan(res.bg_sojourn));
		}
	}
}

static void
test_sharedwan_load0_closed_form(void **state)
{
	struct sm_params p = topology("2dc4-100g"), p8 = topology("8dc1-100g");
	double free_budget = sm_budget_value(&p.mod, SM_BUDGET_FREE);
	int v;

	(void)state;
	check_closed_form(&p, SM_VAR_A, 0);
	check_closed_form(&p, SM_VAR_CP, 0);
	check_closed_form(&p, SM_VAR_EP, free_budget);
	check_closed_form(&p8, SM_VAR_A, 0);
	/* a direct exchange to the 7 other DCs at once on a mesh, bound by each worker's NIC (7
	 * flows of B / 50 GB/s against B / 12.5 GB/s on each DC pair's link) and on a 4 x 2 mesh
	 * by the WAN */
	p8.topo.wan = SM_WAN_MESH;
	p8.job.collective = SM_ALGO_DIRECT;
	check_closed_form(&p8, SM_VAR_A, 0);
	p8.topo.n_dc = 4;
	p8.topo.per_dc = 2;
	check_closed_form(&p8, SM_VAR_A, 0);
	p8 = topology("8dc1-100g");
	/* And the others, for good measure. */
	for (v = 0; v < SM_VAR_COUNT; v++) {
		check_closed_form(&p, (enum sm_variant)v, sm_budget_value(&p.mod, SM_BUDGET_LOW));
		check_closed_form(&p8, (enum sm_variant)v, free_budget);
	}
}

static double
run_mean(const struct sm_params *p, enum sm_variant v, double load, enum sm_wan_discipline disc,
	 bool one_flow, unsigned int dir, uint64_t seed, double *x)
{
	struct sm_sharedwan_params wp;
	struct sm_sharedwan_result res;
	struct sm_size_dist d;

	assert_int_equal(sm_size_fixed(&d, 1e6), 0);
	sm_sharedwan_default(&wp);
	wp.var = v;
	wp.budget = sm_budget_value(&p->mod, SM_BUDGET_FREE);
	wp.load = load;
	wp.sizes = &d;
	wp.disc = disc;
	wp.sync_one_flow = one_flow;
	wp.directions = dir;
	wp.seed = seed;
	assert_int_equal(sm_sharedwan_run(p, &wp, x, &res), 0);
	return res.step.mean;
}

static void
test_sharedwan_grows_with_load(void **state)
{
	struct sm_params p = topology("2dc4-100g");
	double x[SM_SHAREDWAN_SYNCS], closed, m3, m6, m9;
	struct sm_step s;
	unsigned int i;

	(void)state;
	assert_int_equal(sm_step_eval(&p, SM_VAR_A, 0, &s), 0);
	closed = s.total;
	m3 = run_mean(&p, SM_VAR_A, 0.3, SM_WAN_PS, true, 1, 1, x);
	for (i = 0; i < SM_SHAREDWAN_SYNCS; i++)
		assert_true(x[i] >= closed * (1 - 1e-12));
	m6 = run_mean(&p, SM_VAR_A, 0.6, SM_WAN_PS, true, 1, 1, x);
	m9 = run_mean(&p, SM_VAR_A, 0.9, SM_WAN_PS, true, 1, 1, x);
	assert_true(closed < m3 && m3 < m6 && m6 < m9);
	assert_true(run_mean(&p, SM_VAR_A, 0.6, SM_WAN_FIFO, true, 1, 1, x) > closed);
	/* Background on both directions is no faster than on one. */
	assert_true(run_mean(&p, SM_VAR_A, 0.6, SM_WAN_PS, true, 2, 1, x) > m6);
}

static void
test_sharedwan_reproducible(void **state)
{
	struct sm_params p = topology("2dc4-100g");
	double a[SM_SHAREDWAN_SYNCS], b[SM_SHAREDWAN_SYNCS], c[SM_SHAREDWAN_SYNCS];
	struct sm_sharedwan_params wp;
	struct sm_size_dist d;

	(void)state;
	run_mean(&p, SM_VAR_EP, 0.7, SM_WAN_PS, true, 2, 11, a);
	run_mean(&p, SM_VAR_EP, 0.7, SM_WAN_PS, true, 2, 11, b);
	assert_memory_equal(a, b, sizeof(a));
	run_mean(&p, SM_VAR_EP, 0.7, SM_WAN_PS, true, 2, 12, c);
	assert_memory_not_equal(a, c, sizeof(a));
	run_mean(&p, SM_VAR_EP, 0.7, SM_WAN_FIFO, true, 2, 11, b);
	run_mean(&p, SM_VAR_EP, 0.7, SM_WAN_FIFO, true, 2, 11, c);
	assert_memory_equal(b, c, sizeof(b));
	/* A shorter run is the prefix of a longer one. */
	assert_int_equal(sm_size_fixed(&d, 1e6), 0);
	sm_sharedwan_default(&wp);
	wp.var = SM_VAR_EP;
	wp.load = 0.7;
	wp.sizes = &d;
	wp.directions = 2;
	wp.seed = 11;
	wp.n_syncs = 50;
	wp.warmup = 10;
	assert_int_equal(sm_sharedwan_run(&p, &wp, c, NULL), 0);
	assert_memory_equal(a, c, 50 * sizeof(*c));
}

/* Mean over 8 seeds x 200 syncs, PS with the sync as one flow, background on one direction. */
static double
reference_mean(enum sm_variant v)
{
	struct sm_params p = topology("2dc4-100g");
	double x[SM_SHAREDWAN_SYNCS], s = 0;
	uint64_t seed;

	for (seed = 0; seed < 8; seed++)
		s += run_mean(&p, v, 0.9, SM_WAN_PS, true, 1, seed, x);
	return s / 8;
}

static void
test_sharedwan_reference_adamw(void **state)
{
	(void)state;
	assert_rel(reference_mean(SM_VAR_A), 26.47e-3, 0.15);
}

static void
test_sharedwan_reference_ep_free(void **state)
{
	(void)state;
	assert_rel(reference_mean(SM_VAR_EP), 5.21e-3, 0.15);
}

static void
test_sharedwan_result(void **state)
{
	struct sm_params p = topology("2dc4-100g"), p1 = topology("1dc8");
	struct sm_sharedwan_params wp;
	struct sm_sharedwan_result res;
	struct sm_size_dist d;
	struct sm_step s;

	(void)state;
	assert_int_equal(sm_size_fixed(&d, 1e6), 0);
	sm_sharedwan_default(&wp);
	wp.load = 0.9;
	wp.sizes = &d;
	assert_int_equal(sm_sharedwan_run(&p, &wp, NULL, &res), 0);
	assert_rel(res.wan_bytes, 31666944.0, 1e-12);
	assert_rel(res.min_step, 25.3335552e-3, 1e-9);
	assert_true(res.links == 2 && res.loaded == 1 && res.bg_done > 0);
	assert_true(res.util > 0.9 && res.util <= 1.0);
	assert_true(res.bg_sojourn > 80e-6);
	assert_true(res.step.ci95 > 0 && res.step.p99 >= res.step.median);
	assert_true(isfinite(res.warm_mean) && isfinite(res.rest_mean));
	assert_rel((20 * res.warm_mean + 180 * res.rest_mean) / 200, res.step.mean, 1e-12);
	/* One data centre: no WAN, the closed form under any load. */
	assert_int_equal(sm_step_eval(&p1, SM_VAR_A, 0, &s), 0);
	assert_int_equal(sm_sharedwan_run(&p1, &wp, NULL, &res), 0);
	assert_rel(res.step.mean, s.total, 1e-12);
	assert_true(res.step.max == s.total && res.step.min == s.total && res.links == 0);
}

static void
test_sharedwan_rejects(void **state)
{
	struct sm_params p = topology("2dc4-100g");
	struct sm_sharedwan_params wp, bad;
	struct sm_size_dist d;
	double x[SM_SHAREDWAN_SYNCS];

	(void)state;
	assert_int_equal(sm_size_fixed(&d, 1e6), 0);
	sm_sharedwan_default(&wp);
	wp.load = 0.5;
	wp.sizes = &d;
	assert_int_equal(sm_sharedwan_run(&p, &wp, x, NULL), 0);
	bad = wp;
	bad.sizes = NULL;
	assert_int_equal(sm_sharedwan_run(&p, &bad, x, NULL), -EINVAL);
	bad = wp;
	bad.load = NAN;
	assert_int_equal(sm_sharedwan_run(&p, &bad, x, NULL), -EINVAL);
	bad = wp;
	bad.load = -0.1;
	assert_int_equal(sm_sharedwan_run(&p, &bad, x, NULL), -EINVAL);
	bad = wp;
	bad.directions = 3;
	assert_int_equal(sm_sharedwan_run(&p, &bad, x, NULL), -EINVAL);
	bad = wp;
	bad.n_syncs = 0;
	assert_int_equal(sm_sharedwan_run(&p, &bad, x, NULL), -EINVAL);
	bad = wp;
	bad.warmup = wp.n_syncs + 1;
	assert_int_equal(sm_sharedwan_run(&p, &bad, x, NULL), -EINVAL);
	bad = wp;
	bad.var = SM_VAR_COUNT;
	assert_int_equal(sm_sharedwan_run(&p, &bad, x, NULL), -EINVAL);
	/* Load >= 1: the backlog grows without bound, and the event budget stops the run. */
	bad = wp;
	bad.load = 1.2;
	bad.n_syncs = 10;
	bad.warmup = 0;
	bad.max_events = 1000000;
	assert_int_equal(sm_sharedwan_run(&p, &bad, x, NULL), -ERANGE);
}

static void
test_sharedwan_overload_grows(void **state)
{
	struct sm_params p = topology("2dc4-100g");
	struct sm_sharedwan_params wp;
	struct sm_sharedwan_result r9, r11;
	struct sm_size_dist d;

	(void)state;
	assert_int_equal(sm_size_fixed(&d, 1e6), 0);
	sm_sharedwan_default(&wp);
	wp.load = 0.9;
	wp.sizes = &d;
	wp.disc = SM_WAN_FIFO;
	wp.n_syncs = 10;
	wp.warmup = 0;
	assert_int_equal(sm_sharedwan_run(&p, &wp, NULL, &r9), 0);
	wp.load = 1.1;
	assert_int_equal(sm_sharedwan_run(&p, &wp, NULL, &r11), 0);
	assert_true(r11.step.mean > 2 * r9.step.mean);
	assert_true(isinf(r11.min_step));
}

/* ---- stats ---- */

static void
test_stats_known(void **state)
{
	static const double three[3] = { 3, 1, 2 };
	double x[100], k[20];
	struct sm_stats st;
	unsigned int i;

	(void)state;
	/* Ten batches of ten, batch j all equal to j: batch means 0..9. */
	for (i = 0; i < 100; i++)
		x[i] = i / 10;
	assert_int_equal(sm_stats(x, 100, &st), 0);
	assert_int_equal(st.n, 100);
	assert_rel(st.mean, 4.5, 1e-12);
	assert_rel(st.median, 4.5, 1e-12);
	assert_true(st.p99 == 9 && st.min == 0 && st.max == 9);
	assert_rel(st.ci95, 2.262 * sqrt(82.5 / 9) / sqrt(10), 1e-12);
	/* Order matters to the batches, not to the rest. */
	for (i = 0; i < 100; i++)
		x[i] = (double)((i * 37) % 100 + 1);
	assert_int_equal(sm_stats(x, 100, &st), 0);
	assert_rel(st.mean, 50.5, 1e-12);
	assert_rel(st.median, 50.5, 1e-12);
	assert_true(st.p99 == 99 && st.min == 1 && st.max == 100);
	assert_true(x[0] == 1 && x[1] == 38);	/* input untouched */
	/* Odd n, too few for batches. */
	assert_int_equal(sm_stats(three, 3, &st), 0);
	assert_true(st.median == 2 && st.p99 == 3 && isnan(st.ci95));
	/* Constant: no spread. */
	for (i = 0; i < 20; i++)
		k[i] = 7;
	assert_int_equal(sm_stats(k, 20, &st), 0);
	assert_true(st.ci95 == 0 && st.p99 == 7 && st.median == 7);
	assert_int_equal(sm_stats(x, 0, &st), -EINVAL);
	assert_int_equal(sm_stats(NULL, 3, &st), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rng_known_answer),
		cmocka_unit_test(test_rng_same_seed),
		cmocka_unit_test(test_rng_seeds_differ),
		cmocka_unit_test(test_rng_uniform_mean),
		cmocka_unit_test(test_rng_exp_mean),
		cmocka_unit_test(test_size_fixed_exp),
		cmocka_unit_test(test_size_empirical),
		cmocka_unit_test(test_size_empirical_rejects),
		cmocka_unit_test(test_md1_reference),
		cmocka_unit_test(test_mg1_forms),
		cmocka_unit_test(test_capacity_bound),
		cmocka_unit_test(test_fifo_bg_md1),
		cmocka_unit_test(test_ps_bg_sojourn),
		cmocka_unit_test(test_sharedwan_load0_closed_form),
		cmocka_unit_test(test_sharedwan_grows_with_load),
		cmocka_unit_test(test_sharedwan_reproducible),
		cmocka_unit_test(test_sharedwan_reference_adamw),
		cmocka_unit_test(test_sharedwan_reference_ep_free),
		cmocka_unit_test(test_sharedwan_result),
		cmocka_unit_test(test_sharedwan_rejects),
		cmocka_unit_test(test_sharedwan_overload_grows),
		cmocka_unit_test(test_stats_known),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

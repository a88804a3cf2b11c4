/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tier 2: stalls in virtual time, on the EAL (--no-huge --no-pci).
 *
 * A step takes as long as it takes.  Whichever kind of element holds the sync's last frames, or
 * its last pending event, for longer than any timeout would allow (each case below holds a step
 * for more than the 10 s of virtual time without a step that used to be taken for a stall), the
 * run finishes and every step equals the packet-level closed form to the picosecond.  A real
 * stall, the sync's frames lost without the run failing, is found at the event that ended the
 * last of the sync's work, with the queue probe and background traffic running on, and names
 * where the workers wait.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <rte_mempool.h>

#include "common.h"
#include "eal.h"
#include "packet.h"
#include "presets.h"
#include "queueing.h"
#include "run.h"
#include "topology.h"
#include "tune.h"
#include "variant.h"

#define POOL_N 48000
#define OLD_TIMEOUT_PS UINT64_C(10000000000000)	/* 10 s */

static struct rte_mempool *pool;
static struct sm_params P0;
static struct sm_packet PK0;

static int
setup(void **state)
{
	pool = tc_eal_pool("stall_frames", POOL_N, SM_HDR_BYTES + 8192);
	if (pool == NULL)
		return -1;
	sm_params_default(&P0);
	sm_packet_default(&PK0);
	return 0;
}

static int
teardown(void **state)
{
	tc_eal_fini(pool);
	return 0;
}

static void
topology(struct sm_params *p, const char *name)
{
	const struct sm_deck_topology *t;
	unsigned int n, i;

	t = sm_deck_topologies(&n);
	for (i = 0; i < n; i++)
		if (strcmp(t[i].name, name) == 0) {
			assert_int_equal(sm_apply_topology(p, &t[i]), 0);
			return;
		}
	fail_msg("no deck topology %s", name);
}

/* One kind of element holding the sync for long: a change to the defaults and what to run. */
struct slow_case {
	const char *what;
	enum sm_variant var;
	enum sm_budget budget;
	uint32_t steps;
	void (*apply)(struct sm_params *p, struct sm_packet *pk);
};

static void
wan_serialiser(struct sm_params *p, struct sm_packet *pk)
{
	p->wan.bw = 1e6;		/* wan.bandwidth = 1 MB/s: a 31.7 s step */
}

static void
wan_propagation(struct sm_params *p, struct sm_packet *pk)
{
	p->wan.lat = 9;			/* wan.latency = 9 s: two WAN rounds of 9 s */
}

static void
intra_serialisers(struct sm_params *p, struct sm_packet *pk)
{
	topology(p, "1dc8");
	p->intra.bw = 2e5;		/* NICs and the switch's down links at 200 kB/s */
}

static void
intra_propagation(struct sm_params *p, struct sm_packet *pk)
{
	topology(p, "1dc8");
	p->intra.lat = 11;		/* 5.5 s on a NIC, 5.5 s on a down link */
}

static void
port_cap(struct sm_params *p, struct sm_packet *pk)
{
	p->mod.port_bw = 5e5;		/* a pluggable's port cap (and port stage) at 500 kB/s */
}

static void
module_stages(struct sm_params *p, struct sm_packet *pk)
{
	p->mod.lane_rate = 1e6;		/* the optics stage at 1 MB/s: frames wait in the module */
}

static void
module_latency(struct sm_params *p, struct sm_packet *pk)
{
	p->mod.latency_network = 12;	/* nothing in flight: only the module's answer pending */
}

static void
pluggable_latency(struct sm_params *p, struct sm_packet *pk)
{
	p->mod.latency_port = 12;
}

static void
compute(struct sm_params *p, struct sm_packet *pk)
{
	p->gpu.peak_flops = 1e10;	/* a compute of 49 s: only the workers' events pending */
}

static void
compute_no_barrier(struct sm_params *p, struct sm_packet *pk)
{
	topology(p, "1dc8");
	p->gpu.peak_flops = 1e10;
	pk->sync = SM_SYNC_NONE;
}

static void
compute_step_barrier(struct sm_params *p, struct sm_packet *pk)
{
	p->gpu.peak_flops = 1e10;
	pk->sync = SM_SYNC_STEP;
}

static const struct slow_case slow_cases[] = {
	{ "the WAN's serialiser", SM_VAR_A, SM_BUDGET_FREE, 1, wan_serialiser },
	{ "the WAN's propagation delay", SM_VAR_A, SM_BUDGET_FREE, 1, wan_propagation },
	{ "NIC and down-link serialisers", SM_VAR_A, SM_BUDGET_FREE, 1, intra_serialisers },
	{ "NIC and down-link propagation", SM_VAR_A, SM_BUDGET_FREE, 1, intra_propagation },
	{ "a pluggable's port cap", SM_VAR_E, SM_BUDGET_FREE, 1, port_cap },
	{ "the module's stages (in the network)", SM_VAR_EP, SM_BUDGET_FREE, 1, module_stages },
	{ "the module's latency (in the network)", SM_VAR_EP, SM_BUDGET_FREE, 1, module_latency },
	{ "the pluggable's latency", SM_VAR_E, SM_BUDGET_HIGH, 1, pluggable_latency },
	{ "the workers' compute (phase sync)", SM_VAR_C, SM_BUDGET_FREE, 2, compute },
	{ "the workers' compute (no barrier)", SM_VAR_A, SM_BUDGET_FREE, 2, compute_no_barrier },
	{ "the workers' compute (step barrier)", SM_VAR_B, SM_BUDGET_FREE, 2,
	  compute_step_barrier },
};

static struct dp_run_params
params(const struct sm_params *p, const struct sm_packet *pk, enum sm_variant v, double budget,
       uint32_t steps)
{
	struct dp_run_params rp = {
		.model = p, .pk = pk, .var = v, .budget = budget, .steps = steps, .run_id = 1,
		.t0 = 0, .q_nic = 2000000, .q_port = 2000000, .q_sw = 16000000,
		.q_wan = 64000000, .pool = pool, .budget_kind = -1,
	};

	rp.bg.fg_lossless = true;
	return rp;
}

/* No element holding the sync for long is a stall: each run finishes, as the closed form says. */
static void
test_slow_elements_are_not_stalls(void **state)
{
	unsigned int i, s;

	/* each case in one engine, then in three partitions (parallel.h): windows of seconds */
	for (i = 0; i < 2 * sizeof(slow_cases) / sizeof(slow_cases[0]); i++) {
		const struct slow_case *c = &slow_cases[i % (sizeof(slow_cases) /
							     sizeof(slow_cases[0]))];
		struct sm_params p = P0;
		struct sm_packet pk = PK0;
		struct sm_packet_step pm[2];
		struct dp_run_params rp;
		struct dp_run_result res;
		char err[512];
		double budget;
		int rc;

		c->apply(&p, &pk);
		assert_int_equal(sm_params_check(&p, err, sizeof(err)), 0);
		budget = sm_variant_has_module(c->var) ? sm_budget_value(&p.mod, c->budget) : 0;
		rp = params(&p, &pk, c->var, budget, c->steps);
		rp.partitions = i < sizeof(slow_cases) / sizeof(slow_cases[0]) ? 1 : 3;
		rc = dp_run(&rp, &res, err, sizeof(err));
		if (rc != 0)
			fail_msg("%s (%s): %s", c->what, sm_variant_name(c->var), err);
		assert_int_equal(sm_packet_model(&p, &pk, c->var, budget, c->steps, pm), 0);
		assert_int_equal(res.steps, c->steps);
		for (s = 0; s < c->steps; s++) {
			if (res.step[s].time != pm[s].time_ps || res.step[s].frames != pm[s].frames)
				fail_msg("%s: step %u took %lu ps and %lu frames, the closed form %lu "
					 "ps and %lu", c->what, s, (unsigned long)res.step[s].time,
					 (unsigned long)res.step[s].frames,
					 (unsigned long)pm[s].time_ps, (unsigned long)pm[s].frames);
			/* longer than the old timeout: this case is one it took for a stall */
			if (res.step[s].time <= OLD_TIMEOUT_PS)
				fail_msg("%s: step %u took only %.3f s", c->what, s,
					 res.step[s].time / 1e12);
		}
		assert_int_equal(res.drops, 0);
		dp_run_result_free(&res);
		assert_int_equal(rte_mempool_avail_count(pool), POOL_N);
	}
}

/*
 * A stalled sync: the topology of A on 2 DC x 4 with frames for w1 lost at its switch (as if
 * the switch had no route to it).  Run until the engine says no step can finish; the time it
 * stops at, and whether background traffic and the probe ran on.
 */
static dp_time_t
stalled_run(double load, dp_time_t probe_every, char *where, size_t len, uint64_t *events_after,
	    uint32_t partitions)
{
	struct sm_program *prog = calloc(1, sizeof(*prog));
	struct dp_topo *t = calloc(1, sizeof(*t));
	struct sm_size_dist sizes;
	struct dp_topo_params tp = {
		.model = &P0, .pk = &PK0, .prog = prog, .run_id = 1, .steps = 2,
		.q_nic = 2000000, .q_port = 2000000, .q_sw = 16000000, .q_wan = 64000000,
		.pool = pool, .partitions = partitions,
	};
	char err[512];
	dp_time_t at;
	uint64_t ev;
	int rc;

	assert_non_null(prog);
	assert_non_null(t);
	assert_int_equal(sm_size_fixed(&sizes, 1e6), 0);
	assert_int_equal(sm_program_build(&P0, SM_VAR_A, 0, prog), 0);
	tp.bg.load = load;
	tp.bg.sizes = &sizes;
	tp.bg.host_bw = 50000000000ULL;
	tp.bg.seed = 3;
	tp.bg.directions = UINT32_MAX;
	tp.bg.fg_lossless = true;
	tp.bg.probe_every = probe_every;
	assert_int_equal(dp_topo_build(t, &tp, err, sizeof(err)), 0);
	dp_topo_start(t, false);
	t->sw[0].to_worker[1] = NULL;		/* the frames for w1 vanish there */
	rc = dp_topo_advance(t, 0);
	assert_int_equal(rc, 0);		/* no step: stalled */
	at = t->eng.now;
	assert_int_equal(t->eng.sync_wip, 0);
	assert_true(t->sw[0].no_route > 0);
	assert_int_equal(t->rec.steps_done, 0);
	dp_topo_waiting(t, where, len);
	/* the background and the probe would run on */
	ev = t->eng.events;
	if (t->par == NULL)
		assert_int_equal(dp_engine_run(&t->eng, at + 1000000000ULL, NULL, NULL), 0);
	*events_after = t->eng.events - ev;
	dp_topo_stop(t);
	rc = dp_topo_check(t, err, sizeof(err));
	assert_int_equal(rc, -EPROTO);
	assert_non_null(strstr(err, "the run stalled: "));
	dp_topo_free(t);
	assert_int_equal(rte_mempool_avail_count(pool), POOL_N);
	sm_size_free(&sizes);
	sm_program_free(prog);
	free(prog);
	free(t);
	return at;
}

/* A real stall is found at the event that ended the sync's last work, not after a timeout. */
static void
test_real_stall_found_at_once(void **state)
{
	struct sm_packet_step pm[1];
	char where[256], with_probe[256], loaded[256];
	dp_time_t alone, probed, busy;
	uint64_t after;

	/* alone, the calendar runs dry when the sync's last frame has ended: the exact time */
	alone = stalled_run(0, 0, where, sizeof(where), &after, 1);
	assert_int_equal(after, 0);
	assert_non_null(strstr(where, "in a round"));
	assert_non_null(strstr(where, "workers not done"));
	assert_int_equal(sm_packet_model(&P0, &PK0, SM_VAR_A, 0, 1, pm), 0);
	assert_true(alone > 0 && alone < pm[0].time_ps);
	/* the probe's events go on for ever: the stall is found at the same event all the same */
	probed = stalled_run(0, 100000000, with_probe, sizeof(with_probe), &after, 1);
	assert_true(after > 0);
	assert_true(probed == alone);
	assert_string_equal(with_probe, where);
	/* so with background traffic on the WAN (which delays the sync, so later, but at once) */
	busy = stalled_run(0.5, 100000000, loaded, sizeof(loaded), &after, 1);
	assert_true(after > 0);
	assert_true(busy >= alone && busy < OLD_TIMEOUT_PS);
	assert_non_null(strstr(loaded, "in a round"));
	/* in partitions (parallel.h) it is found at the end of the window it happened in: no later
	 * than a lookahead (the WAN's delay) after the event, the same worker waiting */
	for (uint32_t np = 2; np <= 8; np *= 2) {
		char apart[256];
		dp_time_t at = stalled_run(0, 100000000, apart, sizeof(apart), &after, np);

		assert_true(at >= alone && at <= alone + 10000000);	/* 10 us */
		assert_string_equal(apart, where);
		at = stalled_run(0.5, 100000000, apart, sizeof(apart), &after, np);
		assert_true(at >= busy && at < OLD_TIMEOUT_PS);
		assert_non_null(strstr(apart, "in a round"));
	}
}

/*
 * A long run keeps its WAN queue samples within DP_PROBE_MEM: every other one is dropped and the
 * interval doubled each time it fills, so the samples stay evenly spaced over the whole run.
 */
static void
test_long_run_probe_thins(void **state)
{
	struct sm_params p = P0;
	struct dp_run_params rp;
	struct dp_run_result res;
	struct sm_packet_step pm[1];
	uint64_t max = DP_PROBE_MEM / (8 + 2 * 8) & ~UINT64_C(1), i;
	dp_time_t gap;
	char err[512];

	p.wan.lat = 9;				/* an 18 s step */
	rp = params(&p, &PK0, SM_VAR_A, 0, 1);
	rp.bg.probe_every = 2000000;		/* 2 us: 9e6 samples, more than it keeps */
	if (dp_run(&rp, &res, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_int_equal(sm_packet_model(&p, &PK0, SM_VAR_A, 0, 1, pm), 0);
	assert_true(res.step[0].time == pm[0].time_ps);
	assert_int_equal(res.q_links, 2);
	assert_true(res.q_n > max / 2 && res.q_n <= max);
	gap = res.q_t[1] - res.q_t[0];
	assert_true(gap == 2 * rp.bg.probe_every);
	for (i = 1; i < res.q_n; i++)
		assert_true(res.q_t[i] - res.q_t[i - 1] == gap);
	assert_true(res.q_t[res.q_n - 1] + gap > res.step[0].end);
	dp_run_result_free(&res);
}

/* Background set to load 0 during a run stops its arrivals; set back above 0, they resume. */
static void
test_background_load_to_zero_and_back(void **state)
{
	struct sm_program *prog = calloc(1, sizeof(*prog));
	struct dp_topo *t = calloc(1, sizeof(*t));
	struct sm_params model = P0;
	struct sm_size_dist sizes;
	struct dp_topo_params tp = {
		.model = &P0, .pk = &PK0, .prog = prog, .run_id = 1, .steps = 1,
		.q_nic = 2000000, .q_port = 2000000, .q_sw = 16000000, .q_wan = 64000000,
		.pool = pool,
	};
	uint64_t before, stopped, resumed;
	struct dp_tune_why why = { .named = false };
	char err[512];
	double old;

	assert_non_null(prog);
	assert_non_null(t);
	assert_int_equal(sm_size_fixed(&sizes, 1e5), 0);
	assert_int_equal(sm_program_build(&P0, SM_VAR_A, 0, prog), 0);
	tp.bg.load = 0.5;
	tp.bg.sizes = &sizes;
	tp.bg.host_bw = 50000000000ULL;
	tp.bg.seed = 5;
	tp.bg.directions = UINT32_MAX;
	tp.bg.fg_lossless = true;
	assert_int_equal(dp_topo_build(t, &tp, err, sizeof(err)), 0);
	dp_topo_start(t, true);				/* background alone */
	assert_int_equal(dp_engine_run(&t->eng, 10000000000ULL, NULL, NULL), 0);	/* 10 ms */
	before = t->bgstats.started;
	assert_true(before > 100);
	assert_int_equal(dp_topo_tune(t, &model, -1, DP_P_BG_LOAD, 0, t->eng.now, &old, &why),
			 0);
	assert_int_equal(dp_engine_run(&t->eng, 20000000000ULL, NULL, NULL), 0);
	stopped = t->bgstats.started - before;
	assert_true(stopped <= 2);			/* at most the arrivals already drawn */
	assert_int_equal(dp_topo_tune(t, &model, -1, DP_P_BG_LOAD, 0.5, t->eng.now, &old, &why),
			 0);
	assert_int_equal(dp_engine_run(&t->eng, 30000000000ULL, NULL, NULL), 0);
	resumed = t->bgstats.started - before - stopped;
	assert_true(resumed > 100);
	/* a refusal names the parameter, not its key (the control plane names it) */
	assert_int_equal(dp_topo_tune(t, &model, -1, DP_P_BG_LOAD, 1.5, t->eng.now, &old, &why),
			 -EINVAL);
	assert_true(why.named && why.param == DP_P_BG_LOAD);
	assert_string_equal(why.msg, "1.5 not in [0, 1)");
	assert_int_equal(dp_topo_tune(t, &model, -1, DP_P_WAN_QUEUE, -1, t->eng.now, &old, &why),
			 -EINVAL);
	assert_true(why.named && why.param == DP_P_WAN_QUEUE);
	assert_string_equal(why.msg, "-1 not a queue limit in bytes");
	dp_topo_stop(t);
	dp_topo_free(t);
	assert_int_equal(rte_mempool_avail_count(pool), POOL_N);
	sm_size_free(&sizes);
	sm_program_free(prog);
	free(prog);
	free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slow_elements_are_not_stalls),
		cmocka_unit_test(test_real_stall_found_at_once),
		cmocka_unit_test(test_long_run_probe_thins),
		cmocka_unit_test(test_background_load_to_zero_and_back),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

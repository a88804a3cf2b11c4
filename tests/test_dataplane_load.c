/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tier 2, the data plane under load (test_dataplane.c runs them): load 0 is the zero-load result,
 * background alone is M/D/1's, a seed gives one run; a run's results streamed to a sink equal
 * those it keeps; the record's ring of steps in flight.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <rte_mempool.h>

#include "../traces/pcapng.h"
#include "capture.h"
#include "common.h"
#include "eal.h"
#include "fpool.h"
#include "frame.h"
#include "packet.h"
#include "presets.h"
#include "queueing.h"
#include "record.h"
#include "run.h"
#include "test_dataplane.h"
#include "variant.h"


/* Load 0 with the WAN probe and a lossless sync: still the zero-load result, to the picosecond. */
void
test_load_zero_is_zero_load(void **state)
{
	struct dp_run_params rp = params(&P0, &PK0, SM_VAR_A, 0, 3);
	struct sm_packet_step pm[3];
	struct sm_size_dist sizes;
	struct dp_run_result res;
	char err[256];
	uint32_t s;

	assert_int_equal(sm_size_fixed(&sizes, 1e6), 0);
	rp.bg.load = 0;
	rp.bg.sizes = &sizes;
	rp.bg.host_bw = 50000000000ULL;
	rp.bg.fg_lossless = true;
	rp.bg.probe_every = 100000000;	/* 100 us */
	assert_int_equal(dp_run(&rp, &res, err, sizeof(err)), 0);
	assert_int_equal(sm_packet_model(&P0, &PK0, SM_VAR_A, 0, 3, pm), 0);
	for (s = 0; s < 3; s++)
		assert_true(res.step[s].time == pm[s].time_ps);
	assert_true(res.q_n > 0);
	assert_int_equal(res.bg.started, 0);
	dp_run_result_free(&res);
	sm_size_free(&sizes);
}

static void
bg_only(double load, uint64_t seed, struct dp_run_result *res)
{
	struct dp_run_params rp = params(&P0, &PK0, SM_VAR_A, 0, 0);
	static struct sm_size_dist sizes;
	char err[256];

	assert_int_equal(sm_size_fixed(&sizes, 64000), 0);
	rp.bg.load = load;
	rp.bg.sizes = &sizes;
	rp.bg.host_bw = 50000000000ULL;
	rp.bg.seed = seed;
	rp.bg.directions = 1;
	rp.bg.fg_lossless = true;
	rp.bg_only = 1000000000000ULL;	/* 1 s */
	if (dp_run(&rp, res, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	sm_size_free(&sizes);
}

/* Background alone at load 0.5: the transfers' mean wait for the WAN is M/D/1's within 5 %. */
void
test_background_alone_is_md1(void **state)
{
	struct dp_run_result res;
	struct sm_stats st;
	double md1 = sm_md1_wait(0.5, 64000 / 12.5e9);

	bg_only(0.5, 1, &res);
	assert_true(res.bg.done > 90000);
	assert_int_equal(res.bg.incomplete, 0);
	assert_int_equal(res.drops, 0);
	assert_int_equal(sm_stats(res.bg.wait, (unsigned int)res.bg.done, &st), 0);
	if (fabs(st.mean / md1 - 1) > 0.05)
		fail_msg("mean wait %.4g us, M/D/1 %.4g us over %lu transfers", st.mean * 1e6,
			 md1 * 1e6, (unsigned long)res.bg.done);
	dp_run_result_free(&res);
	assert_int_equal(rte_mempool_avail_count(pool), POOL_N);
}

/* The same seed gives the same run under load; another seed another. */
void
test_seeded_background(void **state)
{
	struct sm_size_dist sizes;
	struct dp_run_result a, b, c;
	struct dp_run_params rp = params(&P0, &PK0, SM_VAR_C, 0, 4);
	char err[256];
	uint32_t s;
	bool differ = false;

	assert_int_equal(sm_size_fixed(&sizes, 1e6), 0);
	bg_on(&rp, &sizes, 0.7, 7);
	assert_int_equal(dp_run(&rp, &a, err, sizeof(err)), 0);
	assert_int_equal(dp_run(&rp, &b, err, sizeof(err)), 0);
	rp.bg.seed = 8;
	assert_int_equal(dp_run(&rp, &c, err, sizeof(err)), 0);
	for (s = 0; s < 4; s++) {
		assert_true(a.step[s].time == b.step[s].time);
		if (a.step[s].time != c.step[s].time)
			differ = true;
	}
	assert_true(a.bg.done == b.bg.done && a.bg.done > 0);
	assert_memory_equal(a.bg.fct, b.bg.fct, a.bg.done * sizeof(double));
	assert_true(differ);
	/* and the load slows the sync down */
	assert_true(a.step[3].time > 1444700775ULL);
	dp_run_result_free(&a);
	dp_run_result_free(&b);
	dp_run_result_free(&c);
	sm_size_free(&sizes);
}

/* What a sink got: the steps, samples and transfers a run streamed. */
struct got {
	struct dp_step_result step[64];
	uint32_t steps;
	dp_time_t t[20000];
	uint64_t bytes[20000][2];
	uint32_t samples;
	double fct[20000], wait[20000];
	uint32_t transfers;
};

static void
got_step(void *arg, uint32_t s, const struct dp_step_result *sr, const struct dp_change *ch,
	 uint32_t n)
{
	struct got *g = arg;

	assert_int_equal(s, g->steps);	/* in order, each once */
	assert_true(s < 64);
	g->step[g->steps++] = *sr;
}

static void
got_sample(void *arg, dp_time_t t, const uint64_t *bytes, const char *const *names, uint32_t n)
{
	struct got *g = arg;

	assert_int_equal(n, 2);
	assert_string_equal(names[0], "wan0>1");
	if (g->samples < 20000) {
		g->t[g->samples] = t;
		memcpy(g->bytes[g->samples], bytes, 2 * sizeof(*bytes));
	}
	g->samples++;
}

static int
got_transfer(void *arg, double fct, double wait)
{
	struct got *g = arg;

	if (g->transfers < 20000) {
		g->fct[g->transfers] = fct;
		g->wait[g->transfers] = wait;
	}
	g->transfers++;
	return 0;
}

/* A run with its results streamed to a sink: the same steps, samples and transfers as a run that
 * keeps them, none kept; and with the record holding every step (as a run split over two
 * processes), the same again. */
void
test_streamed_equals_kept(void **state)
{
	static struct got g;
	struct dp_run_sink sink = { &g, got_step, got_sample, got_transfer };
	struct dp_run_params rp = params(&P0, &PK0, SM_VAR_C, 0, 12);
	struct dp_run_result kept, streamed, held;
	struct sm_size_dist sizes;
	char err[256];
	uint32_t s;

	assert_int_equal(sm_size_fixed(&sizes, 1e6), 0);
	bg_on(&rp, &sizes, 0.7, 3);
	rp.bg.probe_every = 100000000;	/* 100 us */
	assert_int_equal(dp_run(&rp, &kept, err, sizeof(err)), 0);
	memset(&g, 0, sizeof(g));
	rp.sink = &sink;
	assert_int_equal(dp_run(&rp, &streamed, err, sizeof(err)), 0);
	assert_null(streamed.step);
	assert_null(streamed.q_t);
	assert_null(streamed.bg.fct);
	assert_int_equal(g.steps, 12);
	assert_int_equal(streamed.steps, 12);
	assert_int_equal(streamed.record_slots, 1);	/* phase sync: one step in flight */
	for (s = 0; s < 12; s++) {
		assert_true(g.step[s].time == kept.step[s].time);
		assert_true(g.step[s].end == kept.step[s].end);
		assert_true(g.step[s].frames == kept.step[s].frames);
		assert_true(fabs(g.step[s].share[SM_RES_WAN] - kept.step[s].share[SM_RES_WAN]) <
			    1e-12);
	}
	assert_true(streamed.frames == kept.frames);
	assert_true(g.samples == kept.q_n && streamed.q_n == kept.q_n && kept.q_n > 100);
	assert_memory_equal(g.t, kept.q_t, kept.q_n * sizeof(*kept.q_t));
	assert_memory_equal(g.bytes, kept.q_bytes, kept.q_n * 2 * sizeof(*kept.q_bytes));
	assert_true(g.transfers == kept.bg.done && streamed.bg.done == kept.bg.done &&
		    kept.bg.done > 100);
	assert_memory_equal(g.fct, kept.bg.fct, kept.bg.done * sizeof(double));
	assert_memory_equal(g.wait, kept.bg.wait, kept.bg.done * sizeof(double));
	/* the record holding every step retires them at the end, to the same results */
	memset(&g, 0, sizeof(g));
	rp.hold_record = true;
	assert_int_equal(dp_run(&rp, &held, err, sizeof(err)), 0);
	assert_int_equal(held.record_slots, 12);
	for (s = 0; s < 12; s++)
		assert_true(g.step[s].time == kept.step[s].time &&
			    g.step[s].frames == kept.step[s].frames);
	dp_run_result_free(&kept);
	dp_run_result_free(&streamed);
	dp_run_result_free(&held);
	sm_size_free(&sizes);
}

/* Without sync the steps overlap: the record's ring grows to the steps in flight, which stay
 * within the workers (record.h), and gives the steps a record of every step gives. */
void
test_record_ring_without_sync(void **state)
{
	struct sm_packet pk = PK0;
	struct dp_run_params rp = params(&P0, &pk, SM_VAR_A, 0, 40);
	struct dp_run_result ring, all;
	char err[256];
	uint32_t s;

	pk.sync = SM_SYNC_NONE;
	assert_int_equal(dp_run(&rp, &ring, err, sizeof(err)), 0);
	rp.hold_record = true;
	assert_int_equal(dp_run(&rp, &all, err, sizeof(err)), 0);
	assert_int_equal(ring.steps, 40);
	assert_true(ring.record_slots >= 2 && ring.record_slots <= sm_workers(&P0));
	assert_int_equal(all.record_slots, 40);
	for (s = 0; s < 40; s++)
		assert_true(ring.step[s].time == all.step[s].time &&
			    ring.step[s].end == all.step[s].end &&
			    ring.step[s].frames == all.step[s].frames &&
			    fabs(ring.step[s].share[SM_RES_INTRA] - all.step[s].share[SM_RES_INTRA])
				    < 1e-12);
	print_message("sync none, 2 DC x 4: the record held %u steps at once\n",
		      ring.record_slots);
	dp_run_result_free(&ring);
	dp_run_result_free(&all);
}

static struct {
	uint32_t s[16], n;
	dp_time_t end[16], prev[16];
	uint64_t frames[16];
} retired;

static void
on_retire(void *arg, const struct dp_record *r, uint32_t s, dp_time_t prev)
{
	uint32_t k = dp_record_slot(r, s);

	retired.s[retired.n] = s;
	retired.end[retired.n] = r->step_end[k];
	retired.frames[retired.n] = r->frames[k];
	retired.prev[retired.n++] = prev;
}

/* The ring itself: it doubles when a step begins beyond it, keeps the steps in flight across
 * the growth, retires them in order with the previous step's end, and refuses more steps in
 * flight than workers (record.h's bound) rather than overwrite one. */
void
test_record_ring_grows(void **state)
{
	struct dp_record r;
	uint32_t s, k;

	memset(&retired, 0, sizeof(retired));
	assert_int_equal(dp_record_init(&r, 100, 3, 6, false, false), 0);
	r.t0 = r.last_end = 1000;
	r.retire = on_retire;
	assert_int_equal(r.slots, 2);
	for (s = 0; s < 6; s++) {	/* six steps begun, none finished */
		assert_int_equal(dp_record_begin(&r, s), 0);
		k = dp_record_slot(&r, s);
		r.frames[k] = 10 + s;
		r.step_end[k] = 2000 + 100 * s;
		r.round_end[k * 3 + 2] = 1900 + 100 * s;
	}
	assert_int_equal(r.slots, 8);
	assert_int_equal(r.slots_max, 8);
	assert_int_equal(dp_record_begin(&r, 6), -EPROTO);	/* a seventh with six workers */
	for (s = 0; s < 6; s++) {
		k = dp_record_slot(&r, s);
		assert_true(r.round_end[k * 3 + 2] == 1900 + 100 * s);
		dp_record_done(&r, s);
		assert_true(r.frames[k] == 0 && r.step_end[k] == 0 && r.round_end[k * 3 + 2] == 0);
	}
	assert_int_equal(retired.n, 6);
	for (s = 0; s < 6; s++) {
		assert_int_equal(retired.s[s], s);
		assert_true(retired.end[s] == 2000 + 100 * s && retired.frames[s] == 10 + s);
		assert_true(retired.prev[s] == (s ? 2000 + 100 * (s - 1) : 1000));
	}
	assert_int_equal(r.steps_done, 6);
	assert_true(r.frames_done == 10 + 11 + 12 + 13 + 14 + 15 && r.last_frames == 15);
	assert_int_equal(dp_record_begin(&r, 11), 0);	/* 6 .. 11 in flight: six, as workers */
	assert_int_equal(r.slots, 8);
	assert_int_equal(dp_record_begin(&r, 12), -EPROTO);
	assert_int_equal(dp_record_begin(&r, 5), -EPROTO);	/* retired */
	dp_record_free(&r);
	/* with a barrier, one slot */
	assert_int_equal(dp_record_init(&r, 100, 3, 6, false, true), 0);
	assert_int_equal(r.slots, 1);
	dp_record_free(&r);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The event calendar against the rule it must keep: the next event is always the least (time, id)
 * of every element's pending event, whatever the elements do to each other's events while one
 * runs (schedule another at the time running now, before or after it in id order, move one that
 * is waiting to run now to later or to never, schedule itself again now).  A reference keeps each
 * element's next time in a plain array and finds the least by a scan; each event checks that it
 * is that one.  No EAL: the engine's calendar is plain memory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../dataplane/engine.h"
#include "../models/rng.h"

#define ELEMS_MAX 600

struct cal_test {
	struct dp_engine eng;
	struct dp_elem el[ELEMS_MAX];
	dp_time_t ref[ELEMS_MAX];	/* each element's next event, as the reference sees it */
	uint32_t n;
	struct sm_rng rng;
	uint64_t events, wrong;
	uint64_t same_time;		/* events at the time of the one before */
	dp_time_t last;
	uint32_t spread;		/* times ahead are drawn from [1, spread] ps */
	uint64_t budget;		/* events to run in all */
};

static struct cal_test *T;

static void
sched(uint32_t id, dp_time_t t)
{
	T->ref[id] = t;
	dp_sched(&T->el[id], t);
}

/* The reference's next event: the least (time, id) of all, id n if none. */
static uint32_t
ref_next(void)
{
	uint32_t best = T->n, i;

	for (i = 0; i < T->n; i++)
		if (T->ref[i] != DP_NEVER && (best == T->n || T->ref[i] < T->ref[best]))
			best = i;
	return best;
}

static void
ev(struct dp_elem *e, dp_time_t now)
{
	uint32_t id = e->id, k, acts;

	if (ref_next() != id || T->ref[id] != now)
		T->wrong++;
	T->same_time += now == T->last;
	T->last = now;
	T->events++;
	sched(id, DP_NEVER);		/* its event is done, as an element's handler says */
	if (T->events >= T->budget)
		return;
	acts = (uint32_t)(sm_rng_next(&T->rng) % 4);
	for (k = 0; k < acts; k++) {
		uint32_t who = (uint32_t)(sm_rng_next(&T->rng) % T->n);
		uint32_t what = (uint32_t)(sm_rng_next(&T->rng) % 16);
		dp_time_t t;

		if (what < 5)
			t = now;			/* due now: before or after this one by id */
		else if (what < 6)
			t = DP_NEVER;			/* no event */
		else
			t = now + 1 + sm_rng_next(&T->rng) % T->spread;
		if (t == now && who == id && what == 0)
			continue;			/* (itself again now: below) */
		if (T->ref[who] != DP_NEVER && T->ref[who] <= now && who != id && t != now &&
		    what >= 6 && what < 8)
			t = now;			/* keep some waiting ones where they are */
		sched(who, t);
	}
	if (sm_rng_next(&T->rng) % 8 == 0)
		sched(id, now);				/* again at once */
	else if (T->ref[id] == DP_NEVER && sm_rng_next(&T->rng) % 8 != 0)
		sched(id, now + 1 + sm_rng_next(&T->rng) % T->spread);
}

static void
noop_rx(struct dp_elem *e, const struct dp_pkt *m, dp_time_t now)
{
	(void)e;
	(void)m;
	(void)now;
}

static uint64_t
none_held(const struct dp_elem *e)
{
	(void)e;
	return 0;
}

static const struct dp_elem_ops ops = { .kind = "test", .event = ev, .rx = noop_rx,
					.held = none_held };

static void
run_case(uint32_t n, uint32_t spread, uint64_t seed, uint64_t budget)
{
	struct cal_test *t = calloc(1, sizeof(*t));
	uint32_t i;

	assert_non_null(t);
	T = t;
	t->n = n;
	t->spread = spread;
	t->budget = budget;
	t->last = DP_NEVER;
	sm_rng_seed(&t->rng, seed);
	assert_int_equal(dp_engine_init(&t->eng, n, NULL, 0), 0);
	for (i = 0; i < n; i++) {
		char name[16];

		snprintf(name, sizeof(name), "e%u", i);
		assert_int_equal(dp_engine_add(&t->eng, &t->el[i], &ops, name), 0);
		t->ref[i] = DP_NEVER;
	}
	assert_int_equal(dp_engine_add(&t->eng, &t->el[0], &ops, "extra"), -ENOSPC);
	/* everyone starts at one of a few times: many equal times from the start */
	for (i = 0; i < n; i++)
		sched(i, sm_rng_next(&t->rng) % 3);
	/* in slices, as a run's steps are: the calendar keeps its state between them */
	while (t->events < budget) {
		dp_time_t until;

		if (dp_engine_next(&t->eng) == DP_NEVER)	/* all idle: everyone again, later */
			for (i = 0; i < n; i++)
				sched(i, t->eng.now + 1 + sm_rng_next(&t->rng) % 3);
		until = dp_engine_next(&t->eng) + spread;

		assert_int_equal(dp_engine_run(&t->eng, until, NULL, NULL), 0);
		assert_true(dp_engine_next(&t->eng) > until);
	}
	assert_int_equal(t->wrong, 0);
	assert_true(t->events >= budget);	/* it kept going: every case above is exercised */
	/* nothing pending is lost: what the reference still holds, the engine still runs */
	t->budget = 0;
	for (i = 0; i < n; i++)
		assert_true(t->eng.elems[i]->next == t->ref[i]);
	assert_int_equal(dp_engine_run(&t->eng, DP_NEVER - 1, NULL, NULL), 0);
	assert_int_equal(t->wrong, 0);
	assert_int_equal(ref_next(), n);
	assert_int_equal(dp_engine_next(&t->eng), DP_NEVER);
	print_message("  %u elements, times 1..%u ps ahead: %lu events, %.0f %% at the time before\n",
		      n, spread, (unsigned long)t->events, 100.0 * t->same_time / t->events);
	dp_engine_fini(&t->eng);
	free(t);
}

static void
test_order_is_time_then_id(void **state)
{
	(void)state;
	run_case(1, 3, 1, 2000);
	run_case(7, 2, 2, 20000);	/* few times: long runs of equal times */
	run_case(64, 5, 3, 50000);
	run_case(ELEMS_MAX, 4, 4, 200000);
	run_case(ELEMS_MAX, 1000000, 5, 100000);	/* mostly distinct times */
}

/* Many elements moving in step: one bucket of hundreds, taken, sorted and run in id order. */
static void
test_large_equal_time_batches(void **state)
{
	(void)state;
	run_case(ELEMS_MAX, 1, 6, 300000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_is_time_then_id),
		cmocka_unit_test(test_large_equal_time_batches),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

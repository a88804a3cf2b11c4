/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The partitions' runner in real time, dp_par_run_rt() of parallel.h: each lcore gives its
 * partitions turns of a few events; the caller's lcore fires the barrier and merges.
 */
#include <stdatomic.h>

#include <rte_pause.h>

#include "par_impl.h"

/* Events a partition runs in one turn before its lcore's next partition has its turn
 * (a turn is a few microseconds: the lateness of the partitions sharing an lcore). */
#define RT_TURN_EVENTS 256

/*
 * How far partition @pt, its workers all in at the barrier's generation @g, may run before the
 * release: the release is at the latest time any partition's workers are all in, and a partition
 * not yet in will be so no earlier than its bound (pub_lb).  Running no further, the partition
 * runs the release at its exact time and in its place among its events, as one engine would.
 */
static dp_time_t
rt_hold(const struct dp_par *x, uint32_t g)
{
	dp_time_t cap = 0;

	for (uint32_t i = 0; i < x->n; i++) {
		const struct dp_part *q = &x->p[i];
		dp_time_t v = atomic_load_explicit(&q->pub_ndone, memory_order_acquire) > g ?
			      atomic_load_explicit(&q->pub_done_t[g & 1], memory_order_relaxed) :
			      atomic_load_explicit(&q->pub_lb, memory_order_relaxed);

		if (v > cap)
			cap = v;
	}
	return cap;
}

/* One turn of partition @pt on its lcore: the release if one was fired, the events due (held
 * short of the release while its workers wait at the barrier), and what it publishes. */
static void
rt_turn(struct dp_par *x, struct dp_part *pt)
{
	struct dp_engine *eng = &pt->eng;
	dp_time_t until = DP_NEVER, lb;
	bool idle;

	if (pt->fired_seen < atomic_load_explicit(&x->rt_fired, memory_order_acquire)) {
		/* one at a time: the next needs this partition's workers, released by this one */
		dp_time_t t = atomic_load_explicit(&x->rt_fire_t, memory_order_relaxed);

		pt->fired_seen++;
		dp_barrier_fire(&pt->bar, t > eng->now ? t : eng->now);
	} else if (pt->ndone > pt->fired_seen) {
		until = rt_hold(x, pt->fired_seen);
	}
	if (dp_engine_turn(eng, RT_TURN_EVENTS, until, &pt->hit, &lb) != 0)
		atomic_store_explicit(&pt->pub_error, true, memory_order_release);
	if (pt->hit) {
		pt->hit = false;
		atomic_store_explicit(&pt->pub_done_t[(pt->ndone - 1) & 1], pt->done_t,
				      memory_order_relaxed);
		atomic_store_explicit(&pt->pub_ndone, pt->ndone, memory_order_release);
	}
	atomic_store_explicit(&pt->pub_lb, lb, memory_order_relaxed);
	if (atomic_load_explicit(&pt->pub_steps, memory_order_relaxed) != pt->rec.steps_done)
		atomic_store_explicit(&pt->pub_steps, pt->rec.steps_done, memory_order_release);
	idle = dp_engine_next(eng) == DP_NEVER &&
	       (eng->rt->busy == NULL || !eng->rt->busy(eng->rt->arg));
	if (atomic_load_explicit(&pt->pub_idle, memory_order_relaxed) != idle)
		atomic_store_explicit(&pt->pub_idle, idle, memory_order_release);
}

/* The partitions of lcore index @li, turn by turn, until the caller halts them. */
void
par_rt_share(struct dp_par *x, uint32_t li)
{
	uint32_t seen = atomic_load_explicit(&x->rt_pause_gen, memory_order_acquire);

	while (!atomic_load_explicit(&x->rt_stop, memory_order_acquire)) {
		uint32_t g = atomic_load_explicit(&x->rt_pause_gen, memory_order_acquire);

		if (g != seen) {	/* the caller wants every partition: wait for its word */
			seen = g;
			atomic_fetch_add_explicit(&x->rt_paused, 1, memory_order_acq_rel);
			while (atomic_load_explicit(&x->rt_resume_gen, memory_order_acquire) != g)
				rte_pause();
		}
		for (uint32_t k = li; k < x->n_mine; k += x->nl)
			rt_turn(x, &x->p[x->mine[k]]);
	}
}

dp_time_t
dp_par_rt_pause(struct dp_par *x)
{
	dp_time_t t = 0;

	if (x->rt_on && !x->rt_held && x->nl > 1) {
		atomic_store_explicit(&x->rt_paused, 0, memory_order_relaxed);
		atomic_fetch_add_explicit(&x->rt_pause_gen, 1, memory_order_acq_rel);
		while (atomic_load_explicit(&x->rt_paused, memory_order_acquire) < x->nl - 1)
			rte_pause();
	}
	x->rt_held = x->rt_on;
	for (uint32_t i = 0; i < x->n; i++)
		if (x->p[i].eng.now > t)
			t = x->p[i].eng.now;
	return t;
}

void
dp_par_rt_resume(struct dp_par *x)
{
	if (!x->rt_held)
		return;
	x->rt_held = false;
	if (x->nl > 1)
		atomic_store_explicit(&x->rt_resume_gen,
				      atomic_load_explicit(&x->rt_pause_gen, memory_order_relaxed),
				      memory_order_release);
}

bool
dp_par_rt_running(const struct dp_par *x)
{
	return x->rt_on && !x->rt_held;
}

/* The caller's lcore: if every partition is in, publish the release at the latest time. */
static void
rt_fire_if_all_in(struct dp_par *x)
{
	dp_time_t t = 0;

	for (uint32_t i = 0; i < x->n; i++) {
		struct dp_part *pt = &x->p[i];
		dp_time_t d;

		if (atomic_load_explicit(&pt->pub_ndone, memory_order_acquire) <= x->fired)
			return;
		d = atomic_load_explicit(&pt->pub_done_t[x->fired & 1], memory_order_relaxed);
		if (d > t)
			t = d;
	}
	atomic_store_explicit(&x->rt_fire_t, t, memory_order_relaxed);
	x->fired++;
	atomic_store_explicit(&x->rt_fired, x->fired, memory_order_release);
}

static void
rt_go(struct dp_par *x)
{
	for (uint32_t i = 0; i < x->n; i++) {
		struct dp_part *pt = &x->p[i];

		atomic_store(&pt->pub_ndone, pt->ndone);
		atomic_store(&pt->pub_done_t[0], pt->done_t);
		atomic_store(&pt->pub_done_t[1], pt->done_t);
		atomic_store(&pt->pub_lb, pt->eng.now);
		atomic_store(&pt->pub_steps, pt->rec.steps_done);
		atomic_store(&pt->pub_idle, false);
		atomic_store(&pt->pub_error, pt->eng.error != 0);
		pt->fired_seen = x->fired;
	}
	atomic_store(&x->rt_fired, x->fired);
	atomic_store(&x->rt_stop, false);
	x->rt_on = true;
	if (x->nl > 1)
		par_go(x, CMD_RT);		/* the lcores go */
}

bool
dp_par_rt_idle(const struct dp_par *x)
{
	for (uint32_t i = 0; i < x->n; i++)
		if (!atomic_load_explicit(&x->p[i].pub_idle, memory_order_acquire))
			return false;
	return true;
}

void
dp_par_rt_halt(struct dp_par *x)
{
	int rc;

	if (!x->rt_on)
		return;
	dp_par_rt_resume(x);	/* (a paused lcore waits for that word before it sees stop) */
	atomic_store_explicit(&x->rt_stop, true, memory_order_release);
	if (x->nl > 1) {
		/* every lcore is out of its turns */
		x->halted_want += x->nl - 1;
		par_wait_for(x, &x->halted, x->halted_want);
	}
	rc = par_merge_steps(x);	/* with the steps published (rt_on), then all is this lcore's */
	x->rt_on = false;
	if (rc == 0)
		rc = par_merge_trace(x, DP_NEVER);
	if (rc == 0)
		rc = par_merge_transfers(x, DP_NEVER);
	if (rc != 0 && x->error == 0)
		x->error = rc;
	par_merge_samples(x);
}

int
dp_par_run_rt(struct dp_par *x, dp_time_t wait, bool (*done)(void *arg), void *arg)
{
	const struct dp_rt_hooks *rt = x->p[x->mine[0]].eng.rt;
	dp_time_t now = rt->now(rt->arg), until = now < DP_NEVER - wait ? now + wait : DP_NEVER;
	uint32_t turns = 0;
	int rc;

	if (!x->rt_on)
		rt_go(x);
	for (;;) {
		for (uint32_t k = 0; k < x->n_mine; k += x->nl)
			rt_turn(x, &x->p[x->mine[k]]);
		rt_fire_if_all_in(x);

		for (uint32_t i = 0; i < x->n; i++)
			if (atomic_load_explicit(&x->p[i].pub_error, memory_order_acquire)) {
				dp_par_rt_halt(x);
				return par_part_error(x);
			}
		rc = par_merge_steps(x);
		if (rc != 0) {
			x->error = rc;
			dp_par_rt_halt(x);
			return rc;
		}
		if (done != NULL && done(arg))
			return 0;
		if ((++turns & 63) == 0 && rt->now(rt->arg) > until)
			return 0;
	}
}
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The partitions' runner in real time, dp_par_run_rt() of parallel.h: each lcore gives its
 * partitions turns of a few events; the caller's lcore fires the barrier and merges.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_errno.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include "fpool.h"
#include "par_impl.h"
#include "xin.h"

/* Events a partition runs in one turn before its lcore's next partition has its turn
 * (a turn is a few microseconds: the lateness of the partitions sharing an lcore). */
#define RT_TURN_EVENTS 256

/*
 * A cut link's ring: frames a receiver has not taken yet.  A receiver takes them every turn, a
 * few us apart; 8192 frames is a WAN link's 800 us at 100 Gbit/s in 1250-byte frames, and what
 * does not fit waits with the sender (dp_xbox.ov).
 */
#define RT_RING 8192u
#define RT_TAKE 64u	/* frames taken at once */

/* ---- cut links ---- */

/* Box @b's rings, named after its ends @from and @to; 0 or -errno. */
static int
box_rings(struct dp_xbox *b, uint32_t from, uint32_t to)
{
	static unsigned int made;	/* ring names are the process's: each unique */
	char name[RTE_RING_NAMESIZE];

	if (b->fwd != NULL)
		return 0;
	snprintf(name, sizeof(name), "xf%u_%u_%u", from, to, made);
	b->fwd = rte_ring_create_elem(name, sizeof(struct dp_xfer), RT_RING, SOCKET_ID_ANY,
				      RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "xr%u_%u_%u", from, to, made++);
	b->ret = rte_ring_create(name, RT_RING, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (b->fwd == NULL || b->ret == NULL) {
		int rc = -(rte_errno ? rte_errno : ENOMEM);

		rte_ring_free(b->fwd);
		rte_ring_free(b->ret);
		b->fwd = b->ret = NULL;
		return rc;
	}
	return 0;
}

/* The sender's side, on its lcore: free the frames copied, post those that waited for room. */
static void
box_give(struct dp_xbox *b)
{
	void *m[RT_TAKE];
	unsigned int n, i;

	while ((n = rte_ring_sc_dequeue_burst(b->ret, m, RT_TAKE, NULL)) > 0)
		for (i = 0; i < n; i++)
			dp_fpool_frame_free(m[i]);
	if (b->ov_n == 0)
		return;
	n = rte_ring_sp_enqueue_burst_elem(b->fwd, b->ov + b->ov_head, sizeof(*b->ov), b->ov_n,
					   NULL);
	b->ov_head += n;
	b->ov_n -= n;
	if (b->ov_n == 0)
		b->ov_head = 0;
}

/*
 * The receiver's side, on its lcore: into the far ends, each a copy from its own pool, at its
 * arrival, or now if that has passed (never before what the partition has published as its
 * bound: the barrier's release counts on it).
 */
static void
box_take(struct dp_part *pt, struct dp_xbox *b)
{
	const dp_time_t floor = pt->eng.now > pt->rt_lb ? pt->eng.now : pt->rt_lb;
	struct dp_xfer f[RT_TAKE];
	unsigned int n, i, room;

	for (;;) {
		room = rte_ring_free_count(b->ret);	/* every original goes back */
		n = rte_ring_sc_dequeue_burst_elem(b->fwd, f, sizeof(f[0]),
						   room < RT_TAKE ? room : RT_TAKE, NULL);
		if (n == 0)
			return;
		for (i = 0; i < n; i++) {
			struct dp_xin *xi = (struct dp_xin *)pt->eng.elems[f[i].xin];
			struct dp_pkt p = f[i].p;
			dp_time_t at = f[i].arrive;

			if (p.m != NULL) {
				p.m = dp_frame_copy(pt->eng.pool, f[i].p.m);
				rte_ring_sp_enqueue(b->ret, f[i].p.m);	/* room taken above */
				if (p.m == NULL) {
					dp_engine_fail(&pt->eng, -ENOBUFS, "%s: the frame pool of "
						       "partition %u ran dry", xi->e.name, pt->index);
					continue;
				}
			}
			pt->rt_taken++;
			if (at < floor) {
				pt->rt_late++;
				if (floor - at > pt->rt_late_max)
					pt->rt_late_max = floor - at;
				at = floor;
			}
			if (dp_xin_put(xi, &p, at) != 0) {
				dp_engine_fail(&pt->eng, -ENOMEM, "%s: out of memory for the "
					       "frames arriving", xi->e.name);
				rte_pktmbuf_free(p.m);
			}
		}
	}
}

/* Partition @pt's cut links, both ways: what it sent and was copied, and what came to it. */
static void
rt_cross(struct dp_par *x, struct dp_part *pt)
{
	for (uint32_t j = 0; j < x->n; j++) {
		if (pt->out[j].fwd != NULL)
			box_give(&pt->out[j]);
		if (x->p[j].out[pt->index].fwd != NULL)
			box_take(pt, &x->p[j].out[pt->index]);
	}
}

/* Nothing on its way to partition @pt, nothing of it waiting to cross. */
static bool
rt_nothing_crossing(const struct dp_par *x, const struct dp_part *pt)
{
	for (uint32_t j = 0; j < x->n; j++) {
		const struct dp_xbox *in = &x->p[j].out[pt->index];

		if (pt->out[j].ov_n > 0 || (in->fwd != NULL && !rte_ring_empty(in->fwd)))
			return false;
	}
	return true;
}

void
par_rt_box_fini(struct dp_xbox *b)
{
	struct dp_xfer f;
	void *m;

	while (b->fwd != NULL && rte_ring_sc_dequeue_elem(b->fwd, &f, sizeof(f)) == 0)
		if (f.p.m != NULL)
			dp_fpool_frame_free(f.p.m);	/* the far end's reference */
	while (b->ret != NULL && rte_ring_sc_dequeue(b->ret, &m) == 0)
		dp_fpool_frame_free(m);
	for (uint32_t i = 0; i < b->ov_n; i++)
		if (b->ov[b->ov_head + i].p.m != NULL)
			dp_fpool_frame_free(b->ov[b->ov_head + i].p.m);
	rte_ring_free(b->fwd);
	rte_ring_free(b->ret);
	free(b->ov);
	b->fwd = b->ret = NULL;
	b->ov = NULL;
	b->ov_n = b->ov_head = b->ov_cap = 0;
	b->rt = false;
}

void
dp_par_rt_crossings(const struct dp_par *x, uint64_t *taken, uint64_t *late, dp_time_t *late_max)
{
	*taken = *late = 0;
	*late_max = 0;
	for (uint32_t i = 0; i < x->n; i++) {
		*taken += x->p[i].rt_taken;
		*late += x->p[i].rt_late;
		if (x->p[i].rt_late_max > *late_max)
			*late_max = x->p[i].rt_late_max;
	}
}

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
	rt_cross(x, pt);
	if (dp_engine_turn(eng, RT_TURN_EVENTS, until, &pt->hit, &lb) != 0)
		atomic_store_explicit(&pt->pub_error, true, memory_order_release);
	if (pt->hit) {
		pt->hit = false;
		atomic_store_explicit(&pt->pub_done_t[(pt->ndone - 1) & 1], pt->done_t,
				      memory_order_relaxed);
		atomic_store_explicit(&pt->pub_ndone, pt->ndone, memory_order_release);
	}
	pt->rt_lb = lb;
	atomic_store_explicit(&pt->pub_lb, lb, memory_order_relaxed);
	if (atomic_load_explicit(&pt->pub_steps, memory_order_relaxed) != pt->rec.steps_done)
		atomic_store_explicit(&pt->pub_steps, pt->rec.steps_done, memory_order_release);
	idle = dp_engine_next(eng) == DP_NEVER &&
	       (eng->rt->busy == NULL || !eng->rt->busy(eng->rt->arg)) &&
	       rt_nothing_crossing(x, pt);
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

static int
rt_go(struct dp_par *x)
{
	for (uint32_t i = 0; i < x->n; i++)
		for (uint32_t j = 0; j < x->n; j++) {
			struct dp_xbox *b = &x->p[i].out[j];
			int rc = b->used ? box_rings(b, i, j) : 0;

			if (rc != 0) {
				snprintf(x->errmsg, sizeof(x->errmsg), "partitions %u to %u: no ring "
					 "for the frames crossing (%s)", i, j, rte_strerror(-rc));
				x->error = rc;
				return rc;
			}
			b->rt = b->used;
		}
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
	return 0;
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
	/* every frame on its way into its far end, every original back with its sender */
	for (bool again = true; again;) {
		again = false;
		for (uint32_t i = 0; i < x->n; i++)
			if (x->p[i].here)
				rt_cross(x, &x->p[i]);
		for (uint32_t i = 0; i < x->n; i++)
			for (uint32_t j = 0; j < x->n; j++)
				again |= x->p[i].out[j].ov_n > 0 || (x->p[i].out[j].fwd != NULL &&
						!rte_ring_empty(x->p[i].out[j].fwd));
	}
	for (uint32_t i = 0; i < x->n; i++)
		for (uint32_t j = 0; j < x->n; j++)
			if (x->p[i].out[j].ret != NULL)
				box_give(&x->p[i].out[j]);
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

	if (!x->rt_on && (rc = rt_go(x)) != 0)
		return rc;
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
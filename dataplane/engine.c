/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The event calendar: a binary heap of elements keyed by (next event, id).
 *
 * With a few dozen elements the heap is a handful of cache lines; an update is O(log n) and the
 * (time, id) key makes equal-time events run in a fixed order, so the same scenario gives the same
 * frames in the same order, byte for byte.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

RTE_LOG_REGISTER_DEFAULT(dp_logtype, NOTICE);

static inline bool
before(const struct dp_elem *a, const struct dp_elem *b)
{
	return a->next < b->next || (a->next == b->next && a->id < b->id);
}

static inline void
heap_set(struct dp_engine *eng, uint32_t i, struct dp_elem *e)
{
	eng->heap[i] = e;
	e->heap_pos = i;
}

static void
sift_up(struct dp_engine *eng, uint32_t i)
{
	struct dp_elem *e = eng->heap[i];

	while (i > 0) {
		uint32_t parent = (i - 1) / 2;

		if (!before(e, eng->heap[parent]))
			break;
		heap_set(eng, i, eng->heap[parent]);
		i = parent;
	}
	heap_set(eng, i, e);
}

static void
sift_down(struct dp_engine *eng, uint32_t i)
{
	struct dp_elem *e = eng->heap[i];

	for (;;) {
		uint32_t l = 2 * i + 1, best = i;
		struct dp_elem *b = e;

		if (l < eng->n && before(eng->heap[l], b)) {
			best = l;
			b = eng->heap[l];
		}
		if (l + 1 < eng->n && before(eng->heap[l + 1], b)) {
			best = l + 1;
			b = eng->heap[l + 1];
		}
		if (best == i)
			break;
		heap_set(eng, i, b);
		i = best;
	}
	heap_set(eng, i, e);
}

void
dp_sched(struct dp_elem *e, dp_time_t t)
{
	dp_time_t old = e->next;

	if (t == old)
		return;
	e->next = t;
	if (t < old)
		sift_up(e->eng, e->heap_pos);
	else
		sift_down(e->eng, e->heap_pos);
}

int
dp_engine_init(struct dp_engine *eng, uint32_t max_elems, struct rte_mempool *pool, dp_time_t t0)
{
	memset(eng, 0, sizeof(*eng));
	eng->heap = calloc(max_elems, sizeof(*eng->heap));
	if (eng->heap == NULL)
		return -ENOMEM;
	eng->cap = max_elems;
	eng->pool = pool;
	eng->now = t0;
	return 0;
}

void
dp_engine_fini(struct dp_engine *eng)
{
	free(eng->heap);
	eng->heap = NULL;
	eng->n = 0;
}

int
dp_engine_add(struct dp_engine *eng, struct dp_elem *e, const struct dp_elem_ops *ops,
	      const char *name)
{
	if (eng->n == eng->cap)
		return -ENOSPC;
	memset(e, 0, sizeof(*e));
	e->ops = ops;
	e->eng = eng;
	e->next = DP_NEVER;
	e->id = eng->n;
	snprintf(e->name, sizeof(e->name), "%s", name);
	heap_set(eng, eng->n++, e);
	sift_up(eng, e->heap_pos);
	return 0;
}

/*
 * Real time.  E, the emulated clock, only grows, and an event runs only once E has reached it, so
 * every arrival stamped E by poll() is at or after every event already run: a port's arrivals
 * enter the calendar as its own events, in order with the rest.
 */
static int
run_rt(struct dp_engine *eng, dp_time_t until, bool (*done)(void *arg), void *arg)
{
	const struct dp_rt_hooks *rt = eng->rt;
	dp_time_t E = rt->now(rt->arg);
	uint32_t since_poll = 0;

	while (eng->error == 0) {
		struct dp_elem *e = eng->heap[0];

		if (e->next > E || ++since_poll >= 64) {
			if (e->next <= E)
				eng->rt_behind++;
			/* arrivals at the time they are taken: later than every event run so far, and
			 * run after the overdue ones before them */
			E = rt->now(rt->arg);
			rt->poll(rt->arg, E);
			since_poll = 0;
			e = eng->heap[0];
			if (e->next > E) {
				if (E > until)
					break;
				eng->rt_spins++;
				if (done != NULL && done(arg))
					break;
				continue;
			}
		}
		if (e->next > until)
			break;
		eng->now = e->next;
		e->ops->event(e, eng->now);
		eng->events++;
		if (eng->poll != NULL && (eng->events & eng->poll_mask) == 0)
			eng->poll(eng->poll_arg, eng->now);
		if (done != NULL && done(arg))
			break;
	}
	return eng->error;
}

int
dp_engine_run(struct dp_engine *eng, dp_time_t until, bool (*done)(void *arg), void *arg)
{
	if (eng->rt != NULL)
		return run_rt(eng, until, done, arg);
	while (eng->error == 0) {
		struct dp_elem *e = eng->heap[0];

		if (e->next == DP_NEVER || e->next > until)
			break;
		if (e->next < eng->now) {
			/* a time past the 64 bits of dp_time_t wrapped around: stop, never go back */
			dp_engine_fail(eng, -ERANGE, "%s: an event due at %" PRIu64 " ps, before now (%"
				       PRIu64 " ps): virtual time overflowed its 64-bit picoseconds",
				       e->name, e->next, eng->now);
			break;
		}
		eng->now = e->next;
		e->ops->event(e, eng->now);
		eng->events++;
		if (eng->poll != NULL && (eng->events & eng->poll_mask) == 0)
			eng->poll(eng->poll_arg, eng->now);	/* between frames: atomic for them */
		if (done != NULL && done(arg))
			break;
	}
	return eng->error;
}

void
dp_engine_fail(struct dp_engine *eng, int err, const char *fmt, ...)
{
	va_list ap;

	if (eng->error != 0)
		return;
	eng->error = err;
	va_start(ap, fmt);
	vsnprintf(eng->errmsg, sizeof(eng->errmsg), fmt, ap);
	va_end(ap);
}

static void
barrier_release(struct dp_barrier *b, dp_time_t now)
{
	uint32_t i;

	b->count = 0;
	b->here_done = false;
	b->peer_count[b->generation & 1] = 0;
	b->generation++;
	for (i = 0; i < b->need; i++)
		b->release(b->arg, i, now);
}

void
dp_barrier_arrive(struct dp_barrier *b, dp_time_t now)
{
	if (++b->count < b->need)
		return;
	if (b->peers == 0) {
		barrier_release(b, now);
		return;
	}
	b->here_done = true;
	b->arrived(b->peer_arg, b->generation, now);
	if (b->peer_count[b->generation & 1] == b->peers)
		barrier_release(b, now);
}

void
dp_barrier_peer(struct dp_barrier *b, uint32_t generation, dp_time_t now)
{
	/* a peer can be at most one generation ahead: it waits for this one's word */
	if (generation != b->generation && generation != b->generation + 1)
		return;
	if (++b->peer_count[generation & 1] == b->peers && generation == b->generation &&
	    b->here_done)
		barrier_release(b, now);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The event calendar: a 4-ary heap of (next event, id) keys.
 *
 * The keys live in the heap's own array, 16 bytes each (time and id as one 128-bit integer, so
 * that a compare has no branch), and a node's four children share one cache line: ordering the calendar never touches the elements, which with thousands of them
 * (a 32 x 32 topology has about 5,000) would cost a cache miss per level.  Where each element sits
 * is in a dense array by id (pos).  An update is O(log4 n); the (time, id) key makes equal-time
 * events run in a fixed order, so the same scenario gives the same frames in the same order, byte
 * for byte.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_prefetch.h>

#include "engine.h"

RTE_LOG_REGISTER_DEFAULT(dp_logtype, NOTICE);

#define ARITY 4
#define WARM_MIN 128	/* elements from which to warm the next event's: fewer fit the cache */

#define KEY(t, id) ((unsigned __int128)(t) << 64 | (id))

static inline void
cal_set(struct dp_engine *eng, uint32_t i, unsigned __int128 key)
{
	eng->cal[i].key = key;
	eng->pos[(uint32_t)key] = i;
}

static void
sift_up(struct dp_engine *eng, uint32_t i, unsigned __int128 key)
{
	struct dp_cal_slot *cal = eng->cal;

	while (i > 0) {
		uint32_t parent = (i - 1) / ARITY;

		if (key >= cal[parent].key)
			break;
		cal_set(eng, i, cal[parent].key);
		i = parent;
	}
	cal_set(eng, i, key);
}

/* The earliest of the children [c, last) of a node: its index. */
static inline uint32_t
min_child(const struct dp_cal_slot *cal, uint32_t c, uint32_t last)
{
	uint32_t best = c, k;

	for (k = c + 1; k < last; k++)
		best = cal[k].key < cal[best].key ? k : best;
	return best;
}

static void
sift_down(struct dp_engine *eng, uint32_t i, unsigned __int128 key)
{
	struct dp_cal_slot *cal = eng->cal;
	uint32_t n = eng->n;

	for (;;) {
		uint32_t c = ARITY * i + 1, best;

		if (c >= n)
			break;
		best = min_child(cal, c, c + ARITY < n ? c + ARITY : n);
		if (cal[best].key >= key)
			break;
		cal_set(eng, i, cal[best].key);
		i = best;
	}
	cal_set(eng, i, key);
}

void
dp_sched(struct dp_elem *e, dp_time_t t)
{
	struct dp_engine *eng = e->eng;
	dp_time_t old = e->next;

	if (t == old)
		return;
	e->next = t;
	if (t < old)
		sift_up(eng, eng->pos[e->id], KEY(t, e->id));
	else
		sift_down(eng, eng->pos[e->id], KEY(t, e->id));
}

int
dp_engine_init(struct dp_engine *eng, uint32_t max_elems, struct rte_mempool *pool, dp_time_t t0)
{
	/* cal[1..4], a root's children, start a cache line: cal is 3 slots into a line */
	size_t bytes = ((size_t)max_elems + ARITY) * sizeof(struct dp_cal_slot);

	memset(eng, 0, sizeof(*eng));
	eng->cal_mem = aligned_alloc(64, RTE_ALIGN_CEIL(bytes, 64));
	eng->pos = calloc(max_elems ? max_elems : 1, sizeof(*eng->pos));
	eng->elems = calloc(max_elems ? max_elems : 1, sizeof(*eng->elems));
	eng->warm = calloc(max_elems ? max_elems : 1, sizeof(*eng->warm));
	if (eng->cal_mem == NULL || eng->pos == NULL || eng->elems == NULL || eng->warm == NULL) {
		dp_engine_fini(eng);
		return -ENOMEM;
	}
	eng->cal = (struct dp_cal_slot *)eng->cal_mem + (ARITY - 1);
	eng->cap = max_elems;
	eng->pool = pool;
	eng->now = t0;
	return 0;
}

void
dp_engine_fini(struct dp_engine *eng)
{
	free(eng->cal_mem);
	free(eng->pos);
	free(eng->elems);
	free(eng->warm);
	eng->warm = NULL;
	eng->cal_mem = NULL;
	eng->cal = NULL;
	eng->pos = NULL;
	eng->elems = NULL;
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
	eng->elems[e->id] = e;
	eng->n++;
	sift_up(eng, e->id, KEY(DP_NEVER, e->id));
	return 0;
}

/*
 * The next event is most likely the root's earliest child (unless the element at the root comes
 * back before it): its element's first lines, and what it said its event reads
 * (dp_sched_warm()), are warmed while the root's runs.  With thousands of elements they would
 * otherwise be cache misses on every event.
 */
static inline void
prefetch_next(const struct dp_engine *eng)
{
	uint32_t best = min_child(eng->cal, 1, eng->n < ARITY + 1 ? eng->n : ARITY + 1);
	uint32_t id = (uint32_t)eng->cal[best].id;
	const struct dp_warm *w = &eng->warm[id];
	const uint8_t *e = (const uint8_t *)eng->elems[id];

	rte_prefetch0(e);
	rte_prefetch0(e + RTE_CACHE_LINE_SIZE);
	rte_prefetch0(e + 2 * RTE_CACHE_LINE_SIZE);
	if (w->a != NULL)
		rte_prefetch0(w->a);
	if (w->m != NULL) {
		rte_prefetch0(w->m);
		rte_prefetch0((const uint8_t *)w->m + 2 * RTE_CACHE_LINE_SIZE);	/* dp_meta */
	}
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
		struct dp_elem *e = eng->elems[eng->cal[0].id];

		if (e->next > E || ++since_poll >= 64) {
			if (e->next <= E)
				eng->rt_behind++;
			/* arrivals at the time they are taken: later than every event run so far, and
			 * run after the overdue ones before them */
			E = rt->now(rt->arg);
			rt->poll(rt->arg, E);
			since_poll = 0;
			e = eng->elems[eng->cal[0].id];
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
		const struct dp_cal_slot *head = &eng->cal[0];
		struct dp_elem *e;

		if (head->t == DP_NEVER || head->t > until)
			break;
		e = eng->elems[head->id];
		if (eng->n > WARM_MIN)
			prefetch_next(eng);
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

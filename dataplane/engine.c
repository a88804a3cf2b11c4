/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The event calendar: the elements due at each pending time, in buckets.
 *
 * Events run in (time, id) order, so equal-time events run in a fixed order and the same scenario
 * gives the same frames in the same order, byte for byte.  In a synchronous collective nearly
 * every event shares its time with the one before (98.8 % of them at 32 x 32, where thousands of
 * elements move in step; 2 x 4 runs about three at each time), so the calendar keeps a bucket of
 * elements per pending time rather than a key per element: a bucket is found by its time in a
 * hash table (open addressing, linear probing) and the buckets are ordered by a binary heap of
 * their times, a few dozen entries that stay in the cache.  Scheduling an element is a hash
 * probe and an append (a heap insertion only for a time not yet pending); moving it is a swap
 * with its bucket's last.  A heap of elements (the calendar before this one) cost a sift of
 * log4(n) levels per event, each a likely cache miss with thousands of elements.
 *
 * The due list.  When the events due now are all run, the earliest bucket is taken whole: its
 * elements, sorted by id, are the due list, and the engine runs them from there.  An element
 * scheduled at that time meanwhile joins the list in its place by id (a later time goes to its
 * bucket), so the order is exactly (time, id).  Knowing the next events many events ahead, the
 * engine warms their elements, the lines they named (dp_sched_warm()) and the frames they will
 * move well before they run.  An element whose event is running is in neither (DP_BKT_OUT): it
 * is placed once its event returns.  An element with no event (DP_NEVER) is in neither either.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_prefetch.h>

#include "engine.h"

#define WARM_MIN 128	/* elements from which to warm the next events': fewer fit the cache */
#define WARM_AHEAD 4	/* due events warmed ahead of the one running */
#define BUCKET_MIN 16	/* ids a bucket first has room for */

static void
oom(struct dp_engine *eng)
{
	dp_engine_fail(eng, -ENOMEM, "the event calendar is out of memory");
}

/*
 * @n zeroed items of @size bytes on whole cache lines of their own: partitions run their engines
 * on different lcores (parallel.h), and an array of one sharing a line with another's would have
 * the two lcores take the line from each other.
 */
static void *
lines(size_t n, size_t size)
{
	size_t len;
	void *p;

	if (n == 0 || n > SIZE_MAX / size - RTE_CACHE_LINE_SIZE)
		return NULL;
	len = RTE_ALIGN_CEIL(n * size, RTE_CACHE_LINE_SIZE);
	p = aligned_alloc(RTE_CACHE_LINE_SIZE, len);
	if (p != NULL)
		memset(p, 0, len);
	return p;
}

/* ---- the time heap: a binary heap of the pending times, each with its bucket ---- */

static inline void
th_set(struct dp_engine *eng, uint32_t i, struct dp_cal_time v)
{
	eng->th[i] = v;
	eng->bk[v.b].hpos = i;
}

static void
th_up(struct dp_engine *eng, uint32_t i, struct dp_cal_time v)
{
	while (i > 0) {
		uint32_t parent = (i - 1) / 2;

		if (eng->th[parent].t <= v.t)
			break;
		th_set(eng, i, eng->th[parent]);
		i = parent;
	}
	th_set(eng, i, v);
}

static void
th_down(struct dp_engine *eng, uint32_t i, struct dp_cal_time v)
{
	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= eng->thn)
			break;
		if (c + 1 < eng->thn && eng->th[c + 1].t < eng->th[c].t)
			c++;
		if (eng->th[c].t >= v.t)
			break;
		th_set(eng, i, eng->th[c]);
		i = c;
	}
	th_set(eng, i, v);
}

static void
th_remove(struct dp_engine *eng, uint32_t i)
{
	struct dp_cal_time last = eng->th[--eng->thn];

	if (i == eng->thn)
		return;
	if (i > 0 && last.t < eng->th[(i - 1) / 2].t)
		th_up(eng, i, last);
	else
		th_down(eng, i, last);
}

/* ---- the hash table: time -> bucket ---- */

static inline uint32_t
hash_of(const struct dp_engine *eng, dp_time_t t)
{
	return (uint32_t)((t * 0x9e3779b97f4a7c15ull) >> 32) & eng->hash_mask;
}

/* The slot of time @p t's bucket, or of the empty slot where it would go. */
static inline uint32_t
hash_slot(const struct dp_engine *eng, dp_time_t t)
{
	uint32_t i = hash_of(eng, t), b;

	while ((b = eng->hash[i]) != 0 && eng->bk[b - 1].t != t)
		i = (i + 1) & eng->hash_mask;
	return i;
}

/* Empty slot @p i, moving back the entries after it that would no longer be found. */
static void
hash_delete(struct dp_engine *eng, uint32_t i)
{
	uint32_t j = i, b;

	for (;;) {
		uint32_t h;

		j = (j + 1) & eng->hash_mask;
		b = eng->hash[j];
		if (b == 0)
			break;
		h = hash_of(eng, eng->bk[b - 1].t);
		/* entry j belongs at h: it may move to i if i lies on its way from h to j */
		if (((j - h) & eng->hash_mask) >= ((j - i) & eng->hash_mask)) {
			eng->hash[i] = b;
			i = j;
		}
	}
	eng->hash[i] = 0;
}

/* ---- buckets ---- */

/* Bucket @p b has emptied: out of the heap and the hash table, free for another time. */
static void
bucket_release(struct dp_engine *eng, uint32_t b)
{
	th_remove(eng, eng->bk[b].hpos);
	hash_delete(eng, hash_slot(eng, eng->bk[b].t));
	eng->bk_free[eng->n_free++] = b;
}

/* Element @p id into the bucket of time @p t (made if none). */
static void
bucket_add(struct dp_engine *eng, uint32_t id, dp_time_t t)
{
	uint32_t slot = hash_slot(eng, t), b = eng->hash[slot];
	struct dp_cal_bucket *k;

	if (b == 0) {
		b = eng->bk_free[--eng->n_free];
		k = &eng->bk[b];
		k->t = t;
		k->n = 0;
		eng->hash[slot] = b + 1;
		eng->thn++;
		th_up(eng, eng->thn - 1, (struct dp_cal_time){ .t = t, .b = b });
	} else {
		b--;
		k = &eng->bk[b];
	}
	if (k->n == k->cap) {
		uint32_t cap = k->cap ? 2 * k->cap : BUCKET_MIN;
		uint32_t *ids = lines(cap, sizeof(*ids));

		if (ids != NULL && k->n > 0)
			memcpy(ids, k->ids, k->n * sizeof(*ids));
		if (ids != NULL)
			free(k->ids);
		if (ids == NULL) {
			oom(eng);
			if (k->n == 0)
				bucket_release(eng, b);
			eng->bkt[id] = DP_BKT_NONE;
			return;
		}
		k->ids = ids;
		k->cap = cap;
	}
	eng->bkt[id] = b;
	eng->pos[id] = k->n;
	k->ids[k->n++] = id;
}

/* Element @p id out of its bucket (its last takes its place). */
static void
bucket_del(struct dp_engine *eng, uint32_t id)
{
	uint32_t b = eng->bkt[id], i = eng->pos[id];
	struct dp_cal_bucket *k = &eng->bk[b];
	uint32_t last = k->ids[--k->n];

	k->ids[i] = last;
	eng->pos[last] = i;
	if (k->n == 0)
		bucket_release(eng, b);
}

/* ---- the due list ---- */

/* Ids @p a[0..n) in ascending order; nearly sorted as buckets fill, so insertion sort first. */
static void
sort_ids(uint32_t *a, uint32_t n)
{
	uint32_t i;

	while (n > 24) {
		/* quicksort on the larger part's median of three, the smaller part by recursion */
		uint32_t mid = n / 2, p, lo = 0, hi = n - 1, t;

		if (a[mid] < a[0]) { t = a[mid]; a[mid] = a[0]; a[0] = t; }
		if (a[hi] < a[0]) { t = a[hi]; a[hi] = a[0]; a[0] = t; }
		if (a[hi] < a[mid]) { t = a[hi]; a[hi] = a[mid]; a[mid] = t; }
		p = a[mid];
		for (;;) {
			while (a[lo] < p)
				lo++;
			while (a[hi] > p)
				hi--;
			if (lo >= hi)
				break;
			t = a[lo]; a[lo] = a[hi]; a[hi] = t;
			lo++;
			hi--;
		}
		/* [0, hi] <= p <= [hi + 1, n) */
		if (hi + 1 < n - hi - 1) {
			sort_ids(a, hi + 1);
			a += hi + 1;
			n -= hi + 1;
		} else {
			sort_ids(a + hi + 1, n - hi - 1);
			n = hi + 1;
		}
	}
	for (i = 1; i < n; i++) {
		uint32_t v = a[i], j = i;

		while (j > 0 && a[j - 1] > v) {
			a[j] = a[j - 1];
			j--;
		}
		a[j] = v;
	}
}

/* The lowest index in [due_i, due_n) whose id is not below @p id. */
static inline uint32_t
due_find(const struct dp_engine *eng, uint32_t id)
{
	uint32_t lo = eng->due_i, hi = eng->due_n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (eng->due[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Element @p id joins the due list in its place by id among those still to run. */
static void
due_insert(struct dp_engine *eng, uint32_t id)
{
	uint32_t lo = due_find(eng, id);

	eng->bkt[id] = DP_BKT_DUE;
	if (lo == eng->due_i && eng->due_i > 0) {
		eng->due[--eng->due_i] = id;	/* before all the rest: the common case */
		return;
	}
	if (eng->due_n == eng->cap) {
		/* at the end of the array: those still to run move to its start */
		memmove(eng->due, eng->due + eng->due_i, (eng->due_n - eng->due_i) * sizeof(*eng->due));
		lo -= eng->due_i;
		eng->due_n -= eng->due_i;
		eng->due_i = 0;
	}
	memmove(eng->due + lo + 1, eng->due + lo, (eng->due_n - lo) * sizeof(*eng->due));
	eng->due[lo] = id;
	eng->due_n++;
}

/* Element @p id, waiting in the due list, is no longer due now. */
static void
due_remove(struct dp_engine *eng, uint32_t id)
{
	uint32_t lo = due_find(eng, id);

	memmove(eng->due + lo, eng->due + lo + 1, (eng->due_n - lo - 1) * sizeof(*eng->due));
	eng->due_n--;
}

/* Where an element goes for its next event: the due list if due now, else its time's bucket. */
static inline void
place(struct dp_engine *eng, struct dp_elem *e)
{
	if (e->next == DP_NEVER)
		eng->bkt[e->id] = DP_BKT_NONE;
	else if (eng->due_i < eng->due_n && e->next == eng->due_t)
		due_insert(eng, e->id);
	else
		bucket_add(eng, e->id, e->next);
}

void
dp_sched(struct dp_elem *e, dp_time_t t)
{
	struct dp_engine *eng = e->eng;
	uint32_t b;

	if (t == e->next)
		return;
	e->next = t;
	b = eng->bkt[e->id];
	if (b == DP_BKT_OUT)
		return;		/* its event is running: placed when it returns */
	if (b == DP_BKT_DUE)
		due_remove(eng, e->id);	/* it was due now: no longer */
	else if (b != DP_BKT_NONE)
		bucket_del(eng, e->id);
	place(eng, e);
}

int
dp_engine_init(struct dp_engine *eng, uint32_t max_elems, struct rte_mempool *pool, dp_time_t t0)
{
	uint32_t m = max_elems ? max_elems : 1, h = rte_align32pow2(2 * m), i;

	memset(eng, 0, sizeof(*eng));
	eng->bk = lines(m, sizeof(*eng->bk));	/* a bucket holds at least one element */
	eng->bk_free = lines(m, sizeof(*eng->bk_free));
	eng->hash = lines(h, sizeof(*eng->hash));
	eng->th = lines(m, sizeof(*eng->th));
	eng->bkt = lines(m, sizeof(*eng->bkt));
	eng->pos = lines(m, sizeof(*eng->pos));
	eng->due = lines(m, sizeof(*eng->due));
	eng->elems = lines(m, sizeof(*eng->elems));
	eng->warm = lines(m, sizeof(*eng->warm));
	if (eng->bk == NULL || eng->bk_free == NULL || eng->hash == NULL || eng->th == NULL ||
	    eng->bkt == NULL || eng->pos == NULL || eng->due == NULL || eng->elems == NULL ||
	    eng->warm == NULL) {
		dp_engine_fini(eng);
		return -ENOMEM;
	}
	for (i = 0; i < m; i++)
		eng->bk_free[i] = m - 1 - i;	/* bucket 0 first */
	eng->n_free = m;
	eng->hash_mask = h - 1;
	eng->cap = max_elems;
	eng->pool = pool;
	eng->now = t0;
	return 0;
}

void
dp_engine_fini(struct dp_engine *eng)
{
	uint32_t i;

	for (i = 0; eng->bk != NULL && i < (eng->cap ? eng->cap : 1); i++)
		free(eng->bk[i].ids);
	free(eng->bk);
	free(eng->bk_free);
	free(eng->hash);
	free(eng->th);
	free(eng->bkt);
	free(eng->pos);
	free(eng->due);
	free(eng->elems);
	free(eng->warm);
	dp_lateness_free(&eng->rt_lag);
	eng->bk = NULL;
	eng->bk_free = NULL;
	eng->hash = NULL;
	eng->th = NULL;
	eng->bkt = NULL;
	eng->pos = NULL;
	eng->due = NULL;
	eng->elems = NULL;
	eng->warm = NULL;
	eng->n = 0;
	eng->thn = 0;
	eng->n_free = 0;
	eng->due_i = eng->due_n = 0;
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
	e->gid = eng->gid_next != NULL ? (*eng->gid_next)++ : eng->n;
	snprintf(e->name, sizeof(e->name), "%s", name);
	eng->elems[e->id] = e;
	eng->bkt[e->id] = DP_BKT_NONE;
	eng->n++;
	return 0;
}

/* Warm element @p id's first lines and what it said its event reads (dp_sched_warm()). */
static inline void
warm_elem(const struct dp_engine *eng, uint32_t id)
{
	const struct dp_warm *w = &eng->warm[id];
	const uint8_t *e = (const uint8_t *)eng->elems[id];

	rte_prefetch0(e);
	rte_prefetch0(e + RTE_CACHE_LINE_SIZE);
	rte_prefetch0(e + 2 * RTE_CACHE_LINE_SIZE);
	if (w->a != NULL)
		rte_prefetch0(w->a);
	if (w->m != NULL) {
		/* the mbuf's lines: lengths, then next and pool (its free), then dp_meta */
		rte_prefetch0(w->m);
		rte_prefetch0((const uint8_t *)w->m + RTE_CACHE_LINE_SIZE);
		rte_prefetch0((const uint8_t *)w->m + 2 * RTE_CACHE_LINE_SIZE);
	}
}

/*
 * Warm what the events ahead will read: from the due list, the element WARM_AHEAD events on (and
 * the pointers to it twice as far on, so that reading them is no miss either); at the end of the
 * list, one of the next bucket's.
 * With thousands of elements each of these would otherwise be a cache miss on every event.
 */
static inline void
warm_ahead(const struct dp_engine *eng)
{
	uint32_t i = eng->due_i + WARM_AHEAD - 1;

	if (i < eng->due_n) {
		warm_elem(eng, eng->due[i]);
		if (i + WARM_AHEAD < eng->due_n) {
			uint32_t far = eng->due[i + WARM_AHEAD];

			rte_prefetch0(&eng->warm[far]);
			rte_prefetch0(&eng->elems[far]);
		}
	} else if (eng->due_i == eng->due_n && eng->thn > 0) {
		const struct dp_cal_bucket *k = &eng->bk[eng->th[0].b];

		warm_elem(eng, k->ids[0]);	/* of the next bucket, one (sorted when taken) */
	}
}

/* Take the next event's element out of the calendar (the earliest bucket if the due list is empty). */
static inline struct dp_elem *
take(struct dp_engine *eng)
{
	uint32_t id;

	if (eng->due_i == eng->due_n) {
		uint32_t b = eng->th[0].b, i;
		struct dp_cal_bucket *k = &eng->bk[b];

		memcpy(eng->due, k->ids, k->n * sizeof(*eng->due));
		eng->due_i = 0;
		eng->due_n = k->n;
		eng->due_t = k->t;
		for (i = 0; i < k->n; i++)
			eng->bkt[k->ids[i]] = DP_BKT_DUE;
		k->n = 0;
		bucket_release(eng, b);
		sort_ids(eng->due, eng->due_n);
	}
	id = eng->due[eng->due_i++];
	eng->bkt[id] = DP_BKT_OUT;
	return eng->elems[id];
}

/* Run element @p e's event at its time, then put it back in the calendar. */
static inline void
run_event(struct dp_engine *eng, struct dp_elem *e)
{
	eng->now = e->next;
	eng->cur = e;
	e->ops->event(e, eng->now);
	place(eng, e);
	eng->events += !e->aux;
	if (eng->poll != NULL && (eng->events & eng->poll_mask) == 0)
		eng->poll(eng->poll_arg, eng->now);	/* between frames: atomic for them */
}

/*
 * Real time.  E, the emulated clock, only grows, and an event runs only once E has reached it, so
 * every arrival poll() stamps E or later (when it was taken) is at or after every event already
 * run: a port's arrivals enter the calendar as its own events, in order with the rest.
 */
static int
run_rt(struct dp_engine *eng, dp_time_t until, bool (*done)(void *arg), void *arg)
{
	const struct dp_rt_hooks *rt = eng->rt;
	dp_time_t E = rt->now(rt->arg);
	uint32_t since_poll = 0;

	eng->rt_horizon = E;
	while (eng->error == 0) {
		dp_time_t t = dp_engine_next(eng);

		if (t > E || ++since_poll >= 64) {
			if (t <= E)
				eng->rt_behind++;
			/* arrivals at the time they are taken: later than every event run so far, and
			 * run after the overdue ones before them */
			E = rt->now(rt->arg);
			eng->rt_horizon = E;
			rt->poll(rt->arg, E);
			since_poll = 0;
			t = dp_engine_next(eng);
			if (t > E) {
				if (E > until)
					break;
				eng->rt_spins++;
				if (done != NULL && done(arg))
					break;
				continue;
			}
		}
		if (t > until)
			break;
		if (eng->rt_lag.hist != NULL)	/* (a bridge reads none of it) */
			dp_lateness_add(&eng->rt_lag, E, t);
		run_event(eng, take(eng));
		if (done != NULL && done(arg))
			break;
	}
	return eng->error;
}

int
dp_engine_turn(struct dp_engine *eng, uint32_t max, dp_time_t until, const bool *stop,
	       dp_time_t *lb)
{
	const struct dp_rt_hooks *rt = eng->rt;
	dp_time_t E = rt->now(rt->arg), t;
	uint32_t n = 0;

	rt->poll(rt->arg, E);	/* arrivals stamped E (or later): after every event run so far */
	if (until > E)
		until = E;
	while (n < max && eng->error == 0 && !*stop && (t = dp_engine_next(eng)) <= until) {
		dp_lateness_add(&eng->rt_lag, E, t);
		run_event(eng, take(eng));
		n++;
	}
	if (n == max)
		eng->rt_behind++;
	else if (n == 0)
		eng->rt_spins++;
	t = dp_engine_next(eng);
	*lb = t < E ? t : E;	/* later polls stamp later; the calendar holds nothing earlier */
	return eng->error;
}

int
dp_engine_run(struct dp_engine *eng, dp_time_t until, bool (*done)(void *arg), void *arg)
{
	if (eng->rt != NULL)
		return run_rt(eng, until, done, arg);
	while (eng->error == 0) {
		dp_time_t t = dp_engine_next(eng);
		struct dp_elem *e;

		if (t == DP_NEVER || t > until)
			break;
		if (t < eng->now) {
			/* a time past the 64 bits of dp_time_t wrapped around: stop, never go back */
			e = eng->elems[eng->due_i < eng->due_n ? eng->due[eng->due_i] :
							       eng->bk[eng->th[0].b].ids[0]];
			dp_engine_fail(eng, -ERANGE, "%s: an event due at %" PRIu64 " ps, before now (%"
				       PRIu64 " ps): virtual time overflowed its 64-bit picoseconds",
				       e->name, t, eng->now);
			break;
		}
		e = take(eng);
		if (eng->n > WARM_MIN)
			warm_ahead(eng);
		run_event(eng, e);
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

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The partitions' runner (parallel.h): windows, frames across cuts, the barrier across
 * partitions, and the merge of what the partitions record.
 *
 * A window is three phases, each partition's work done by the lcore it is given (partition k by
 * lcore k mod nl), with a spin barrier between them:
 *   run     each partition runs its events up to its bound (dp_part.until), queueing the frames
 *           that cross into its boxes;
 *   take    each partition takes the frames sent to it into its far ends (xin.h);
 *   decide  the caller's lcore alone: fires the barrier if every partition is in, merges what
 *           can no longer change (trace records, transfers, samples, steps) and sets the next
 *           window's bounds.
 * References: ns-3 src/mpi (distributed-simulator-impl: windows of the smallest lookahead, the
 * next event time agreed between ranks each window); DPDK examples/ip_pipeline (pipelines on
 * lcores, rte_eal_remote_launch).
 */
#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_pause.h>

#include "../traces/pcapng.h"
#include "capture.h"
#include "clock.h"
#include "fpool.h"
#include "parallel.h"
#include "xin.h"

enum { CMD_WINDOW, CMD_QUIT };

/* The key a partition writes a record under: its event's, so that the merge orders records as
 * one engine would have written them. */
struct key {
	dp_time_t t;
	uint32_t gid, sub;
	uint32_t half;
	uint32_t size;		/* bytes of the record, this header included */
};

struct trace_rec {
	struct key k;
	uint64_t ts_ns;
	uint32_t ifid, len, orig;
	uint32_t pad;
};

struct xfer_rec {
	struct key k;
	double fct, wait;
};

static inline int
key_cmp(const struct key *a, const struct key *b)
{
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	if (a->gid != b->gid)
		return a->gid < b->gid ? -1 : 1;
	if (a->half != b->half)
		return a->half < b->half ? -1 : 1;
	if (a->sub != b->sub)
		return a->sub < b->sub ? -1 : 1;
	return 0;
}

static inline struct key
key_now(const struct dp_engine *eng, uint32_t size)
{
	/* (no element's event runs before the first: gid 0) */
	return (struct key){ .t = eng->now, .gid = eng->cur != NULL ? eng->cur->gid : 0,
			     .sub = eng->sub, .half = eng->cur != NULL ? eng->cur->half : 0,
			     .size = size };
}

/* Room for @n more bytes in @b: a pointer to them, or NULL. */
static void *
kbuf_room(struct dp_kbuf *b, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		uint8_t *nb;

		if (b->rd > 0) {	/* what was merged goes first */
			memmove(b->b, b->b + b->rd, b->len - b->rd);
			b->len -= b->rd;
			b->rd = 0;
		}
		while (b->len + n > cap)
			cap *= 2;
		if (cap != b->cap) {
			nb = realloc(b->b, cap);
			if (nb == NULL)
				return NULL;
			b->b = nb;
			b->cap = cap;
		}
	}
	return b->b + b->len;
}

static inline const struct key *
kbuf_head(const struct dp_kbuf *b)
{
	return b->rd < b->len ? (const struct key *)(b->b + b->rd) : NULL;
}

static void
kbuf_free(struct dp_kbuf *b)
{
	free(b->b);
	memset(b, 0, sizeof(*b));
}

int
dp_xbox_post(struct dp_xbox *b, const struct dp_pkt *p, dp_time_t arrive, uint32_t xin)
{
	uint32_t s = *b->cur;

	if (b->n[s] == b->cap[s]) {
		uint32_t cap = b->cap[s] ? 2 * b->cap[s] : 256;
		struct dp_xfer *v = realloc(b->v[s], cap * sizeof(*v));

		if (v == NULL)
			return -ENOMEM;
		b->v[s] = v;
		b->cap[s] = cap;
	}
	if (b->n[s] == 0 || arrive < b->first[s])
		b->first[s] = arrive;
	b->v[s][b->n[s]++] = (struct dp_xfer){ .p = *p, .arrive = arrive, .xin = xin };
	return 0;
}

void
dp_par_free_later(struct dp_part *pt, struct rte_mbuf *m)
{
	if (pt->n_defer == pt->cap_defer) {
		uint32_t cap = pt->cap_defer ? 2 * pt->cap_defer : 1024;
		struct rte_mbuf **v = realloc(pt->defer, cap * sizeof(*v));

		if (v == NULL) {
			/* it may still be read by the far end's copy: keep it (a leak the run's
			 * end reports) rather than free it under a reader */
			dp_engine_fail(&pt->eng, -ENOMEM, "partition %u: out of memory for the "
				       "frames to free", pt->index);
			return;
		}
		pt->defer = v;
		pt->cap_defer = cap;
	}
	pt->defer[pt->n_defer++] = m;
}

/* Between windows (every lcore waits): free what the cut links are done with. */
static void
free_deferred(struct dp_par *x)
{
	for (uint32_t i = 0; i < x->n; i++) {
		struct dp_part *pt = &x->p[i];

		for (uint32_t k = 0; k < pt->n_defer; k++)
			dp_fpool_frame_free(pt->defer[k]);
		pt->n_defer = 0;
	}
}

/* ---- what the partitions record, keyed ---- */

void
dp_par_capture(struct dp_engine *eng, int ifid, const struct rte_mbuf *m, dp_time_t t)
{
	struct dp_part *pt = eng->part;
	const struct dp_capture *c = pt->par->cap;
	uint32_t len = rte_pktmbuf_pkt_len(m), size;
	struct trace_rec *r;
	const void *data;

	if (len > c->snaplen)
		len = c->snaplen;
	size = (uint32_t)((sizeof(*r) + len + 7) & ~(size_t)7);
	r = kbuf_room(&pt->cb, size);
	if (r == NULL) {
		dp_engine_fail(eng, -ENOMEM, "trace: out of memory for partition %u's records",
			       pt->index);
		return;
	}
	r->k = key_now(eng, size);
	r->ts_ns = t / 1000;
	r->ifid = (uint32_t)ifid;
	r->len = len;
	r->orig = rte_pktmbuf_pkt_len(m);
	data = rte_pktmbuf_read(m, 0, len, r + 1);
	if (data != NULL && data != (const void *)(r + 1))
		memcpy(r + 1, data, len);
	pt->cb.len += size;
}

int
dp_par_transfer(void *arg, double fct, double wait)
{
	struct dp_part *pt = arg;
	struct xfer_rec *r = kbuf_room(&pt->xd, sizeof(*r));

	if (r == NULL)
		return -ENOMEM;
	r->k = key_now(&pt->eng, sizeof(*r));
	r->fct = fct;
	r->wait = wait;
	pt->xd.len += sizeof(*r);
	return 0;
}

void
dp_par_sample(void *arg, dp_time_t t, const uint64_t *bytes, const char *const *names,
	      uint32_t nlinks)
{
	struct dp_part *pt = arg;
	size_t size = sizeof(dp_time_t) + nlinks * sizeof(uint64_t);
	uint8_t *r = kbuf_room(&pt->qs, size);

	(void)names;
	if (r == NULL) {
		dp_engine_fail(&pt->eng, -ENOMEM, "probe: out of memory for partition %u's samples",
			       pt->index);
		return;
	}
	memcpy(r, &t, sizeof(t));
	memcpy(r + sizeof(t), bytes, nlinks * sizeof(uint64_t));
	pt->qs.len += size;
	pt->qs_n++;
}

void
dp_par_local_done(void *arg, dp_time_t now)
{
	struct dp_part *pt = arg;

	pt->ndone++;
	pt->done_t = now;
	pt->hit = true;
}

/* ---- set-up ---- */

int
dp_par_init(struct dp_par *x, uint32_t n, uint32_t max_elems, struct rte_mempool *pool,
	    dp_time_t t0, struct dp_capture *cap)
{
	uint32_t i;
	int rc;

	memset(x, 0, sizeof(*x));
	x->p = aligned_alloc(RTE_CACHE_LINE_SIZE, n * sizeof(*x->p));
	if (x->p == NULL)
		return -ENOMEM;
	memset(x->p, 0, n * sizeof(*x->p));
	x->n = n;
	x->cap = cap;
	x->nl = 1;
	x->lookahead = DP_NEVER;
	for (i = 0; i < n; i++) {
		struct dp_part *pt = &x->p[i];

		rc = dp_engine_init(&pt->eng, max_elems, pool, t0);
		pt->out = calloc(n, sizeof(*pt->out));
		if (rc != 0 || pt->out == NULL) {
			dp_par_fini(x);
			return -ENOMEM;
		}
		pt->eng.part = pt;
		pt->eng.gid_next = &x->gid_next;
		pt->eng.cap_ctx = cap;
		pt->par = x;
		pt->index = i;
		for (uint32_t j = 0; j < n; j++)
			pt->out[j].cur = &x->side;
	}
	return 0;
}

void
dp_par_fini(struct dp_par *x)
{
	uint32_t i, j;

	for (i = 0; x->p != NULL && i < x->n; i++) {
		struct dp_part *pt = &x->p[i];

		/* frames never taken: their link frees them (the far end has copies) */
		for (j = 0; pt->out != NULL && j < x->n; j++) {
			free(pt->out[j].v[0]);
			free(pt->out[j].v[1]);
		}
		free(pt->out);
		for (j = 0; j < pt->n_defer; j++)
			dp_fpool_frame_free(pt->defer[j]);
		free(pt->defer);
		kbuf_free(&pt->cb);
		kbuf_free(&pt->xd);
		kbuf_free(&pt->qs);
		dp_record_free(&pt->rec);
		dp_bgstats_free(&pt->bg);
		free(pt->who);
		dp_engine_fini(&pt->eng);
		dp_fpool_free(pt->own_pool);	/* every frame is back by now */
	}
	free(x->p);
	memset(x, 0, sizeof(*x));
}

/* ---- the window's phases ---- */

static bool
part_hit(void *arg)
{
	return ((struct dp_part *)arg)->hit;
}

static void phase_events(struct dp_part *pt, dp_time_t until);

/* Run partition @pt's events up to its bound; a completion at the barrier lowers the bound. */
static void
phase_run(struct dp_part *pt)
{
	dp_time_t until = pt->until;
	uint64_t t0 = dp_clock_raw_ns();

	phase_events(pt, until);
	pt->busy_ns += dp_clock_raw_ns() - t0;	/* instrumentation: no element reads it */
}

static void
phase_events(struct dp_part *pt, dp_time_t until)
{
	for (;;) {
		if (dp_engine_run(&pt->eng, until, part_hit, pt) != 0 || !pt->hit)
			return;
		pt->hit = false;
		/* its workers are all in: the release is no earlier than this or the bound */
		if (until > (pt->done_t > pt->lb ? pt->done_t : pt->lb))
			until = pt->done_t > pt->lb ? pt->done_t : pt->lb;
	}
}

/* Take the frames sent to partition @pt in the window before into its far ends. */
static void
phase_take(struct dp_par *x, struct dp_part *pt)
{
	uint32_t from, k, s = x->side ^ 1;

	for (from = 0; from < x->n; from++) {
		struct dp_xbox *b = &x->p[from].out[pt->index];

		for (k = 0; k < b->n[s]; k++) {
			struct dp_xfer *f = &b->v[s][k];
			struct dp_xin *xi = (struct dp_xin *)pt->eng.elems[f->xin];
			struct dp_pkt p = f->p;

			/* its bytes: a copy from this partition's pool, for the original is the
			 * sender's (its link frees it at the arrival) */
			if (p.m != NULL) {
				p.m = dp_frame_copy(pt->eng.pool, f->p.m);
				if (p.m == NULL) {
					dp_engine_fail(&pt->eng, -ENOBUFS, "%s: the frame pool of "
						       "partition %u ran dry", xi->e.name,
						       pt->index);
					continue;
				}
			}
			if (dp_xin_put(xi, &p, f->arrive) != 0) {
				dp_engine_fail(&pt->eng, -ENOMEM, "%s: out of memory for the "
					       "frames arriving", xi->e.name);
				rte_pktmbuf_free(p.m);
			}
		}
		b->n[s] = 0;
	}
}

/* The earliest of partition @pt's next event and the frames sent to it not yet taken. */
static dp_time_t
part_next(const struct dp_par *x, const struct dp_part *pt)
{
	dp_time_t t = dp_engine_next(&pt->eng);
	uint32_t from, s;

	for (from = 0; from < x->n; from++)
		for (s = 0; s < 2; s++) {
			const struct dp_xbox *b = &x->p[from].out[pt->index];

			if (b->n[s] > 0 && b->first[s] < t)
				t = b->first[s];
		}
	return t;
}

static void
spin_barrier(struct dp_par *x)
{
	unsigned int gen = atomic_load_explicit(&x->b_gen, memory_order_acquire);

	if (atomic_fetch_add_explicit(&x->b_count, 1, memory_order_acq_rel) + 1 == x->nl) {
		atomic_store_explicit(&x->b_count, 0, memory_order_relaxed);
		atomic_store_explicit(&x->b_gen, gen + 1, memory_order_release);
		return;
	}
	while (atomic_load_explicit(&x->b_gen, memory_order_acquire) == gen)
		rte_pause();
}

/*
 * The window for the partitions of lcore index @li: each takes what was sent to it in the window
 * before (its senders now fill the boxes' other side), then runs; then the lcores wait for each
 * other.
 */
static void
window_share(struct dp_par *x, uint32_t li)
{
	uint32_t i;

	for (i = li; i < x->n; i += x->nl) {
		phase_take(x, &x->p[i]);
		phase_run(&x->p[i]);
	}
	if (x->nl > 1)
		spin_barrier(x);
}

struct lcore_arg {
	struct dp_par *x;
	uint32_t li;
};

static struct lcore_arg lcore_args[RTE_MAX_LCORE];

static int
lcore_main(void *arg)
{
	struct lcore_arg *a = arg;
	struct dp_par *x = a->x;

	for (;;) {
		spin_barrier(x);	/* the caller has set the command */
		if (x->cmd == CMD_QUIT)
			return 0;
		window_share(x, a->li);
	}
}

void
dp_par_start(struct dp_par *x, uint32_t lcores)
{
	unsigned int lc;

	x->nl = 1;
	x->lcore[0] = rte_lcore_id();
	if (lcores > x->n)
		lcores = x->n;
	RTE_LCORE_FOREACH_WORKER(lc) {
		if (x->nl >= lcores)
			break;
		if (rte_eal_get_lcore_state(lc) != WAIT)
			continue;
		x->lcore[x->nl++] = lc;
	}
	if (x->nl == 1)
		return;
	atomic_store(&x->b_count, 0);
	atomic_store(&x->b_gen, 0);
	for (uint32_t i = 1; i < x->nl; i++) {
		lcore_args[x->lcore[i]] = (struct lcore_arg){ x, i };
		if (rte_eal_remote_launch(lcore_main, &lcore_args[x->lcore[i]],
					  x->lcore[i]) != 0) {
			/* cannot happen for a WAIT lcore; run on those launched so far */
			x->nl = i;
			break;
		}
	}
	x->launched = x->nl > 1;
}

void
dp_par_stop(struct dp_par *x)
{
	if (!x->launched)
		return;
	x->cmd = CMD_QUIT;
	spin_barrier(x);
	for (uint32_t i = 1; i < x->nl; i++)
		rte_eal_wait_lcore(x->lcore[i]);
	x->launched = false;
	x->nl = 1;
}

/* ---- the decide phase ---- */

/* Fire the barrier everywhere if every partition is in for the event it waits for. */
static void
fire_if_all_in(struct dp_par *x)
{
	dp_time_t t = 0;
	uint32_t i;

	for (i = 0; i < x->n; i++) {
		if (x->p[i].ndone <= x->fired)
			return;
		if (x->p[i].done_t > t)
			t = x->p[i].done_t;
	}
	for (i = 0; i < x->n; i++)
		dp_barrier_fire(&x->p[i].bar, t);
	x->fired++;
}

/*
 * The earliest record before time @m over the partitions' buffers at offset @off in struct
 * dp_part (trace records or transfers), and the partition it is in; NULL if none.
 */
static const struct key *
earliest(struct dp_par *x, size_t off, dp_time_t m, struct dp_kbuf **from)
{
	const struct key *best = NULL;

	for (uint32_t i = 0; i < x->n; i++) {
		struct dp_kbuf *b = (struct dp_kbuf *)((uint8_t *)&x->p[i] + off);
		const struct key *k = kbuf_head(b);

		if (k != NULL && k->t < m && (best == NULL || key_cmp(k, best) < 0)) {
			best = k;
			*from = b;
		}
	}
	return best;
}

/* Merge the trace records with keys before time @m into the trace, in key order. */
static int
merge_trace(struct dp_par *x, dp_time_t m)
{
	struct dp_capture *c = x->cap;

	if (c == NULL || c->w == NULL)
		return 0;
	for (;;) {
		struct dp_kbuf *from = NULL;
		const struct trace_rec *r =
			(const struct trace_rec *)earliest(x, offsetof(struct dp_part, cb), m, &from);
		int rc;

		if (r == NULL)
			return 0;
		rc = tr_pcapng_write(c->w, r->ifid, r->ts_ns, r + 1, r->len, r->orig);
		if (rc != 0) {
			snprintf(x->errmsg, sizeof(x->errmsg), "trace: writing interface %s failed: "
				 "%s", c->names[r->ifid], strerror(-rc));
			return rc;
		}
		c->frames[r->ifid]++;
		from->rd += r->k.size;
	}
}

/* Merge the background transfers done before time @m into the run's statistics. */
static int
merge_transfers(struct dp_par *x, dp_time_t m)
{
	for (;;) {
		struct dp_kbuf *from = NULL;
		const struct xfer_rec *r =
			(const struct xfer_rec *)earliest(x, offsetof(struct dp_part, xd), m, &from);

		if (r == NULL)
			return 0;
		if (dp_bgstats_add(x->bg, r->fct, r->wait) != 0) {
			snprintf(x->errmsg, sizeof(x->errmsg), "background: out of memory for the "
				 "transfers' records");
			return -ENOMEM;
		}
		from->rd += sizeof(*r);
	}
}

/* With a sink: the samples every partition with a probe has taken, merged, to the sink. */
static void
merge_samples(struct dp_par *x)
{
	uint64_t have = UINT64_MAX, k;
	uint32_t i, j;

	if (x->on_sample == NULL)
		return;
	for (i = 0; i < x->n; i++)
		if (x->p[i].probe != NULL && x->p[i].qs_n < have)
			have = x->p[i].qs_n;
	if (have == UINT64_MAX)
		return;
	for (k = x->q_merged; k < have; k++) {
		uint64_t b[DP_PROBE_LINKS] = { 0 };
		dp_time_t t = 0;

		for (i = 0; i < x->n; i++) {
			struct dp_part *pt = &x->p[i];
			size_t size;

			if (pt->probe == NULL)
				continue;
			size = sizeof(dp_time_t) + pt->probe->nlinks * sizeof(uint64_t);
			memcpy(&t, pt->qs.b + pt->qs.rd, sizeof(t));
			for (j = 0; j < pt->probe->nlinks; j++)
				memcpy(&b[pt->probe_at[j]], pt->qs.b + pt->qs.rd + sizeof(t) +
				       j * sizeof(uint64_t), sizeof(uint64_t));
			pt->qs.rd += size;
		}
		x->on_sample(x->sample_arg, t, b, x->q_names, x->q_links);
	}
	x->q_merged = have;
}

/* Steps every partition has finished: merged into the run's record, which retires them. */
static int
merge_steps(struct dp_par *x)
{
	uint32_t done = UINT32_MAX, i;

	for (i = 0; i < x->n; i++)
		if (x->p[i].rec.steps_done < done)
			done = x->p[i].rec.steps_done;
	while (x->rec->steps_done < done) {
		uint32_t s = x->rec->steps_done;
		int rc = dp_record_begin(x->rec, s);

		if (rc != 0) {
			snprintf(x->errmsg, sizeof(x->errmsg), "the run's record cannot hold step "
				 "%u: %s", s, strerror(-rc));
			return rc;
		}
		for (i = 0; i < x->n; i++)
			dp_record_merge(x->rec, &x->p[i].rec, s);
		dp_record_done(x->rec, s);
	}
	return 0;
}

/* The first error of any partition (the lowest index): 0 or -errno. */
static int
part_error(struct dp_par *x)
{
	uint32_t i;

	if (x->error != 0)
		return x->error;
	for (i = 0; i < x->n; i++)
		if (x->p[i].eng.error != 0) {
			x->error = x->p[i].eng.error;
			snprintf(x->errmsg, sizeof(x->errmsg), "%s", x->p[i].eng.errmsg);
			return x->error;
		}
	return 0;
}

/*
 * Between windows: fire, merge what is final, and bound the next window.  Returns 1 if there is
 * a window to run, 0 if nothing is left, or an error.
 */
static int
decide(struct dp_par *x)
{
	dp_time_t tmin = DP_NEVER, end, lb = 0;
	uint32_t i;
	int rc;

	free_deferred(x);
	rc = part_error(x);
	if (rc != 0)
		return rc;
	fire_if_all_in(x);
	for (i = 0; i < x->n; i++) {
		dp_time_t t = part_next(x, &x->p[i]);

		if (t < tmin)
			tmin = t;
	}
	/* nothing before tmin can be written any more */
	rc = merge_trace(x, tmin);
	if (rc == 0)
		rc = merge_transfers(x, tmin);
	if (rc == 0)
		rc = merge_steps(x);
	if (rc != 0) {
		x->error = rc;
		return rc;
	}
	merge_samples(x);
	x->tmin = tmin;
	if (tmin == DP_NEVER)
		return 0;
	end = tmin < DP_NEVER - x->lookahead ? tmin + x->lookahead - 1 : DP_NEVER - 1;
	/* where the release of the barrier some partitions wait at can be, at the earliest */
	for (i = 0; i < x->n; i++) {
		struct dp_part *pt = &x->p[i];
		dp_time_t f;

		if (pt->ndone > x->fired) {
			f = pt->done_t;
		} else {
			f = part_next(x, pt);
			if (f > end)
				f = end + 1;
		}
		if (f > lb)
			lb = f;
	}
	for (i = 0; i < x->n; i++) {
		struct dp_part *pt = &x->p[i];

		pt->lb = lb;
		pt->until = end;
		if (pt->ndone > x->fired) {
			dp_time_t cap = pt->done_t > lb ? pt->done_t : lb;

			if (cap < pt->until)
				pt->until = cap;
		}
	}
	return 1;
}

int
dp_par_run(struct dp_par *x, bool (*done)(void *arg), void *arg)
{
	int rc;

	for (;;) {
		rc = decide(x);
		if (rc <= 0)
			return rc;
		if (done != NULL && done(arg))
			return 0;
		if (x->nl > 1) {
			x->cmd = CMD_WINDOW;
			spin_barrier(x);	/* the lcores go */
		}
		window_share(x, 0);
		x->windows++;
		x->side ^= 1;
	}
}

void
dp_par_totals(const struct dp_par *x, uint64_t *events, int64_t *sync_wip, dp_time_t *now)
{
	*events = 0;
	*sync_wip = 0;
	*now = 0;
	for (uint32_t i = 0; i < x->n; i++) {
		const struct dp_engine *e = &x->p[i].eng;

		*events += e->events;
		*sync_wip += e->sync_wip;
		if (e->now > *now)
			*now = e->now;
	}
}

int
dp_par_samples(struct dp_par *x, uint64_t *n, dp_time_t **t, uint64_t **bytes)
{
	const struct dp_probe *first = NULL;
	uint64_t k;
	uint32_t i, j;

	*n = 0;
	*t = NULL;
	*bytes = NULL;
	for (i = 0; i < x->n && first == NULL; i++)
		first = x->p[i].probe;
	if (first == NULL || first->n == 0)
		return 0;
	*t = malloc(first->n * sizeof(**t));
	*bytes = calloc(first->n * x->q_links, sizeof(**bytes));
	if (*t == NULL || *bytes == NULL) {
		free(*t);
		free(*bytes);
		*t = NULL;
		*bytes = NULL;
		return -ENOMEM;
	}
	memcpy(*t, first->t, first->n * sizeof(**t));
	for (i = 0; i < x->n; i++) {
		const struct dp_probe *pr = x->p[i].probe;

		for (k = 0; pr != NULL && k < first->n && k < pr->n; k++)
			for (j = 0; j < pr->nlinks; j++)
				(*bytes)[k * x->q_links + x->p[i].probe_at[j]] =
					pr->bytes[k * pr->nlinks + j];
	}
	*n = first->n;
	return 0;
}

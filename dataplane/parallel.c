/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The partitions' runner (parallel.h): windows, frames across cuts, the barrier across
 * partitions, and the merge of what the partitions record.
 *
 * A window is three phases, each partition's work done by the lcore that takes it (its own,
 * partition k for lcore k mod nl, unless that lcore is late: "the lcores" below), the caller's
 * lcore waiting for every partition between them:
 *   run     each partition runs its events up to its bound (dp_part.until), queueing the frames
 *           that cross into its boxes;
 *   take    each partition takes the frames sent to it into its far ends (xin.h);
 *   decide  the caller's lcore alone: fires the barrier if every partition is in, merges what
 *           can no longer change (trace records, transfers, samples, steps) and sets the next
 *           window's bounds.
 * What the partitions record and its merge are in par_merge.c, what crosses between ranks in
 * par_wire.c, real time's turns in par_rt.c (par_impl.h joins them).
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

#include "capture.h"
#include "clock.h"
#include "fpool.h"
#include "par_impl.h"
#include "parallel.h"
#include "ranks.h"
#include "xin.h"

/* Real time: onto the ring, or after the frames already waiting for room in it. */
static int
post_rt(struct dp_xbox *b, const struct dp_pkt *p, dp_time_t arrive, uint32_t xin)
{
	struct dp_xfer f = { .p = *p, .arrive = arrive, .xin = xin };

	if (b->ov_n == 0 && rte_ring_free_count(b->fwd) > 0)
		goto post;
	if (b->ov_head + b->ov_n == b->ov_cap) {
		if (b->ov_head > 0) {
			memmove(b->ov, b->ov + b->ov_head, b->ov_n * sizeof(*b->ov));
			b->ov_head = 0;
		} else {
			uint32_t cap = b->ov_cap ? 2 * b->ov_cap : 1024;
			struct dp_xfer *v = realloc(b->ov, cap * sizeof(*v));

			if (v == NULL)
				return -ENOMEM;
			b->ov = v;
			b->ov_cap = cap;
		}
	}
post:
	if (p->m != NULL)
		rte_pktmbuf_refcnt_update(p->m, 1);	/* the far end's until it has its copy */
	if (b->ov_n == 0 && rte_ring_sp_enqueue_elem(b->fwd, &f, sizeof(f)) == 0)
		return 0;
	b->ov[b->ov_head + b->ov_n++] = f;	/* room made above */
	return 0;
}

int
dp_xbox_post(struct dp_xbox *b, const struct dp_pkt *p, dp_time_t arrive, uint32_t xin)
{
	uint32_t s = *b->cur;

	if (b->rt)
		return post_rt(b, p, arrive, xin);

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
	if (pt->par->rt_on) {
		dp_fpool_frame_free(m);	/* the far end holds its own reference (post_rt()) */
		return;
	}
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

/* ---- set-up ---- */

int
dp_par_init(struct dp_par *x, uint32_t n, uint32_t max_elems, struct rte_mempool *pool,
	    dp_time_t t0, struct dp_capture *cap)
{
	uint32_t i;
	int rc;

	memset(x, 0, sizeof(*x));
	x->p = aligned_alloc(DP_PART_ALIGN, n * sizeof(*x->p));
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
		/* its boxes on lines of their own: the receivers' lcores take from them */
		pt->out = aligned_alloc(RTE_CACHE_LINE_SIZE,
					RTE_ALIGN_CEIL(n * sizeof(*pt->out), RTE_CACHE_LINE_SIZE));
		if (rc != 0 || pt->out == NULL) {
			dp_par_fini(x);
			return -ENOMEM;
		}
		memset(pt->out, 0, n * sizeof(*pt->out));
		pt->eng.part = pt;
		pt->eng.gid_next = &x->gid_next;
		pt->eng.cap_ctx = cap;
		pt->par = x;
		pt->index = i;
		for (uint32_t j = 0; j < n; j++)
			pt->out[j].cur = &x->side;
	}
	/* ranks: contiguous blocks of partitions (neighbours on the WAN's ring stay together) */
	x->rank = dp_ranks_rank();
	x->nranks = dp_ranks_size();
	x->mine = calloc(n, sizeof(*x->mine));
	x->slen = calloc((size_t)x->nranks, sizeof(*x->slen));
	x->rlen = calloc((size_t)x->nranks, sizeof(*x->rlen));
	x->claim = aligned_alloc(RTE_CACHE_LINE_SIZE, n * sizeof(*x->claim));
	if (x->mine == NULL || x->slen == NULL || x->rlen == NULL || x->claim == NULL) {
		dp_par_fini(x);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct dp_part *pt = &x->p[i];

		pt->rank = (uint32_t)((uint64_t)i * (uint32_t)x->nranks / n);
		pt->here = pt->rank == (uint32_t)x->rank;
		if (pt->here)
			x->mine[x->n_mine++] = i;
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
			par_rt_box_fini(&pt->out[j]);
			free(pt->out[j].v[0]);
			free(pt->out[j].v[1]);
			free(pt->out[j].hb[0]);
			free(pt->out[j].hb[1]);
		}
		free(pt->out);
		for (j = 0; j < pt->n_defer; j++)
			dp_fpool_frame_free(pt->defer[j]);
		free(pt->defer);
		par_kbuf_free(&pt->cb);
		par_kbuf_free(&pt->xd);
		par_kbuf_free(&pt->qs);
		dp_record_free(&pt->rec);
		dp_bgstats_free(&pt->bg);
		free(pt->who);
		dp_engine_fini(&pt->eng);
		dp_fpool_free(pt->own_pool);	/* every frame is back by now */
	}
	free(x->p);
	free(x->claim);
	free(x->mine);
	free(x->sbuf);
	free(x->rbuf);
	free(x->slen);
	free(x->rlen);
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
			 * sender's (its link frees it at the arrival); from another rank, made
			 * from its headers */
			if (f->hdr != 0) {
				const uint8_t *h = b->hb[s] + f->hdr - 1;

				p.m = dp_frame_of_hdr(pt->eng.pool, h + sizeof(struct dp_meta),
						      p.len, (const struct dp_meta *)h);
				if (p.m == NULL) {
					dp_engine_fail(&pt->eng, -ENOBUFS, "%s: the frame pool of "
						       "partition %u ran dry", xi->e.name,
						       pt->index);
					continue;
				}
			} else if (p.m != NULL) {
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
		b->hlen[s] = 0;
	}
}

/* The earliest of partition @pt's next event and the frames sent to it not yet taken. */
dp_time_t
par_part_next(const struct dp_par *x, const struct dp_part *pt)
{
	dp_time_t t = dp_engine_next(&pt->eng);
	uint32_t from, s;

	if (!pt->here)
		return pt->m_next;	/* its rank told, after the frames to it crossed */
	for (from = 0; from < x->n; from++)
		for (s = 0; s < 2; s++) {
			const struct dp_xbox *b = &x->p[from].out[pt->index];

			if (b->n[s] > 0 && b->first[s] < t)
				t = b->first[s];
		}
	return t;
}

/* ---- the lcores ----
 *
 * The caller's lcore (index 0) decides each window, opens it (go), runs its share and waits for
 * every partition to be done; the other lcores wait for go, run their share and wait again.  A
 * share is taken, not given: an lcore takes its own partitions (k mod nl: their memory stays in
 * its cache) and then any that no lcore has taken yet, each partition once per window
 * (dp_claim).  An lcore that the kernel has descheduled (other work on the CPUs) then delays no
 * one: the others run its partitions, and it finds none left when it comes back.  Waits spin a
 * while, then sleep (gate.h).  Which lcore runs a partition changes no result: in a window the
 * partitions share nothing but what crossed before it.
 */

#define GO(gen, cmd) ((uint32_t)(gen) << 2 | (uint32_t)(cmd))
#define GO_CMD(go) ((go) & 3)
#define GO_WIN(go) ((go) >> 2)

/*
 * Take partition @k (of this rank's) for window @w (30 bits, as go carries it): false if an
 * lcore has it already, in this window or (an lcore late by a window or more) a later one.
 */
static bool
claim(struct dp_par *x, uint32_t k, uint32_t w)
{
	atomic_uint *c = &x->claim[k].window;
	uint32_t old = atomic_load_explicit(c, memory_order_relaxed);

	while ((int32_t)((w - old) << 2) > 0)
		if (atomic_compare_exchange_weak_explicit(c, &old, w, memory_order_acq_rel,
							  memory_order_relaxed))
			return true;
	return false;
}

/* Partition @k's window: take what was sent to it in the window before, then run. */
static void
window_part(struct dp_par *x, uint32_t k)
{
	phase_take(x, &x->p[x->mine[k]]);
	phase_run(&x->p[x->mine[k]]);
}

/*
 * Window @w for lcore index @li: its own partitions, then those left; each counted done.  One
 * lcore: every partition in order.
 */
static void
window_share(struct dp_par *x, uint32_t li, uint32_t w)
{
	uint32_t k;

	if (x->nl == 1) {
		for (k = 0; k < x->n_mine; k++)
			window_part(x, k);
		return;
	}
	for (k = li; k < x->n_mine; k += x->nl)
		if (claim(x, k, w)) {
			window_part(x, k);
			dp_gate_add(&x->done, 1);
		}
	for (k = 0; k < x->n_mine; k++)
		if (k % x->nl != li && claim(x, k, w)) {
			window_part(x, k);
			x->waiter[li].steals++;
			dp_gate_add(&x->done, 1);
		}
}

/* The caller's lcore: wait until gate @g reaches @want. */
void
par_wait_for(struct dp_par *x, struct dp_gate *g, uint32_t want)
{
	uint32_t v = dp_gate_get(g);

	while (v != want)
		v = dp_gate_wait(g, v, &x->waiter[0]);
}

/* The caller's lcore: open the lcores' next command. */
void
par_go(struct dp_par *x, uint32_t cmd)
{
	x->wgen++;
	dp_gate_set(&x->go, GO(x->wgen, cmd));
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
	uint32_t seen = GO(0, CMD_WINDOW);

	for (;;) {
		seen = dp_gate_wait(&x->go, seen, &x->waiter[a->li]);
		switch (GO_CMD(seen)) {
		case CMD_QUIT:
			return 0;
		case CMD_RT:
			par_rt_share(x, a->li);
			dp_gate_add(&x->halted, 1);	/* halted: the caller merges */
			break;
		default:
			/* (late, it may find every partition of that window taken) */
			window_share(x, a->li, GO_WIN(seen));
			break;
		}
	}
}

void
dp_par_start(struct dp_par *x, uint32_t lcores)
{
	unsigned int lc;

	x->nl = 1;
	x->lcore[0] = rte_lcore_id();
	dp_waiter_init(&x->waiter[0]);
	if (lcores > x->n_mine)
		lcores = x->n_mine;
	RTE_LCORE_FOREACH_WORKER(lc) {
		if (x->nl >= lcores)
			break;
		if (rte_eal_get_lcore_state(lc) != WAIT)
			continue;
		x->lcore[x->nl++] = lc;
	}
	if (x->nl == 1)
		return;
	x->wgen = 0;
	x->done_want = 0;
	x->halted_want = 0;
	dp_gate_init(&x->go, GO(0, CMD_WINDOW));
	dp_gate_init(&x->done, 0);
	dp_gate_init(&x->halted, 0);
	for (uint32_t k = 0; k < x->n_mine; k++)
		atomic_init(&x->claim[k].window, 0);
	for (uint32_t i = 1; i < x->nl; i++) {
		dp_waiter_init(&x->waiter[i]);
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
	dp_par_rt_halt(x);
	if (!x->launched)
		return;
	par_go(x, CMD_QUIT);
	for (uint32_t i = 1; i < x->nl; i++)
		rte_eal_wait_lcore(x->lcore[i]);
	for (uint32_t i = 0; i < x->nl; i++) {
		x->sleeps += x->waiter[i].sleeps;
		x->steals += x->waiter[i].steals;
	}
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
	for (i = 0; i < x->n; i++) {
		struct dp_part *pt = &x->p[i];

		if (pt->here)
			dp_barrier_fire(&pt->bar, t);
		else {
			/* its rank fires it alike: its event at t, the release held as the sync's
			 * work in progress (dp_barrier_fire()) */
			if (t < pt->m_next)
				pt->m_next = t;
			if (pt->m_rel_hold)
				pt->m_wip++;
			pt->m_rel_hold = false;
		}
	}
	x->fired++;
}

/* The first error of any partition (the lowest index): 0 or -errno. */
int
par_part_error(struct dp_par *x)
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
	if (x->nranks > 1 && par_exchange_status(x) != 0)
		return x->error;
	rc = par_part_error(x);
	if (rc != 0)
		return rc;
	fire_if_all_in(x);
	for (i = 0; i < x->n; i++) {
		dp_time_t t = par_part_next(x, &x->p[i]);

		if (t < tmin)
			tmin = t;
	}
	/* nothing before tmin can be written any more */
	rc = par_merge_trace(x, tmin);
	if (rc == 0)
		rc = par_merge_transfers(x, tmin);
	if (rc == 0)
		rc = par_merge_steps(x);
	if (rc != 0) {
		x->error = rc;
		return rc;
	}
	par_merge_samples(x);
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
			f = par_part_next(x, pt);
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
		if (x->nl > 1)
			par_go(x, CMD_WINDOW);	/* the lcores go */
		window_share(x, 0, GO_WIN(GO(x->wgen, CMD_WINDOW)));
		if (x->nl > 1) {
			x->done_want += x->n_mine;
			par_wait_for(x, &x->done, x->done_want);
		}
		if (x->nranks > 1)
			par_exchange_boxes(x);	/* an error goes with the state, to every rank */
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
		const struct dp_part *pt = &x->p[i];
		const struct dp_engine *e = &pt->eng;

		*events += pt->here ? e->events : pt->m_events;
		*sync_wip += pt->here ? e->sync_wip : pt->m_wip;
		if ((pt->here ? e->now : pt->m_now) > *now)
			*now = pt->here ? e->now : pt->m_now;
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

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
#include "ranks.h"
#include "xin.h"

enum { CMD_WINDOW, CMD_RT, CMD_QUIT };

/* Real time: events a partition runs in one turn before its lcore's next partition has its turn
 * (a turn is a few microseconds: the lateness of the partitions sharing an lcore). */
#define RT_TURN_EVENTS 256

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
			free(pt->out[j].v[0]);
			free(pt->out[j].v[1]);
			free(pt->out[j].hb[0]);
			free(pt->out[j].hb[1]);
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
static dp_time_t
part_next(const struct dp_par *x, const struct dp_part *pt)
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
static void
wait_for(struct dp_par *x, struct dp_gate *g, uint32_t want)
{
	uint32_t v = dp_gate_get(g);

	while (v != want)
		v = dp_gate_wait(g, v, &x->waiter[0]);
}

/* The caller's lcore: open the lcores' next command. */
static void
go(struct dp_par *x, uint32_t cmd)
{
	x->wgen++;
	dp_gate_set(&x->go, GO(x->wgen, cmd));
}

struct lcore_arg {
	struct dp_par *x;
	uint32_t li;
};

static struct lcore_arg lcore_args[RTE_MAX_LCORE];

static void rt_share(struct dp_par *x, uint32_t li);

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
			rt_share(x, a->li);
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
	go(x, CMD_QUIT);
	for (uint32_t i = 1; i < x->nl; i++)
		rte_eal_wait_lcore(x->lcore[i]);
	for (uint32_t i = 0; i < x->nl; i++) {
		x->sleeps += x->waiter[i].sleeps;
		x->steals += x->waiter[i].steals;
	}
	x->launched = false;
	x->nl = 1;
}

/* ---- ranks: what crosses between processes (ranks.h) ----
 *
 * After each window (exchange_boxes): the frames that cross to a partition of another rank, as
 * their dp_pkt and, with bytes, their dp_meta and headers (a frame's payload is zeros:
 * frame.h), one message per pair of ranks (MPI_Alltoallv).  The receiver's rank puts them into
 * its mirror of the sender's box, which its partition takes as the next window begins, as if
 * the sender were on its lcores.
 * Between windows (exchange_status): each rank's partitions' state (what decide() reads of a
 * partition: its next event, its completion at the barrier, its steps, error, counters) to every
 * rank (MPI_Allgatherv), so that every rank decides alike; and to rank 0 alone what the
 * partitions recorded (trace records, transfers, samples, steps: MPI_Gatherv), which it merges
 * and writes as one process would.  Every rank runs the same build: structures cross as they are.
 */

struct wire_box {		/* a box's frames from partition @from to @to */
	uint32_t from, to, n, pad;
};

struct wire_xfer {
	struct dp_pkt p;	/* its m: non-NULL if a dp_meta and headers follow */
	dp_time_t arrive;
	uint32_t xin, pad;
};

#define WIRE_HDR RTE_ALIGN(sizeof(struct dp_meta) + SM_HDR_BYTES, 8)

struct wire_status {
	uint32_t part, ndone, steps_done;
	int32_t error;
	uint32_t rel_hold, pad;	/* its barrier, fired, would hold the sync's work in progress */
	dp_time_t done_t, next, now;
	uint64_t events, busy_ns;
	int64_t wip;
	char errmsg[sizeof(((struct dp_engine *)0)->errmsg)];
};

struct wire_rec {		/* partition @part's records since the last window */
	uint32_t part, steps_from, steps_to;
	int32_t binding;
	uint64_t qs_n, cb, xd, qs;	/* samples; bytes of records, transfers, samples */
};

/* Room for @n more bytes at *@len of the send buffer. */
static void *
sput(struct dp_par *x, size_t *len, size_t n)
{
	if (*len + n > x->scap) {
		size_t cap = x->scap ? x->scap : 65536;
		uint8_t *b;

		while (*len + n > cap)
			cap *= 2;
		b = realloc(x->sbuf, cap);
		if (b == NULL)
			return NULL;
		x->sbuf = b;
		x->scap = cap;
	}
	*len += n;
	return x->sbuf + *len - n;
}

static int
hb_put(struct dp_xbox *b, uint32_t s, const void *h, size_t n)
{
	if (b->hlen[s] + n > b->hcap[s]) {
		size_t cap = b->hcap[s] ? 2 * b->hcap[s] : 64 * WIRE_HDR;
		uint8_t *nb;

		while (b->hlen[s] + n > cap)
			cap *= 2;
		nb = realloc(b->hb[s], cap);
		if (nb == NULL)
			return -ENOMEM;
		b->hb[s] = nb;
		b->hcap[s] = cap;
	}
	memcpy(b->hb[s] + b->hlen[s], h, n);
	b->hlen[s] += n;
	return 0;
}

/* The frames of this window's boxes to other ranks' partitions, rank by rank. */
static int
pack_boxes(struct dp_par *x, size_t *len)
{
	uint32_t s = x->side, k, j, f;

	for (int r = 0; r < x->nranks; r++) {
		size_t at = *len;

		for (k = 0; k < x->n_mine && r != x->rank; k++)
			for (j = 0; j < x->n; j++) {
				struct dp_xbox *b = &x->p[x->mine[k]].out[j];
				struct wire_box *wb;

				if (x->p[j].rank != (uint32_t)r || b->n[s] == 0)
					continue;
				wb = sput(x, len, sizeof(*wb));
				if (wb == NULL)
					return -ENOMEM;
				*wb = (struct wire_box){ .from = x->mine[k], .to = j, .n = b->n[s] };
				for (f = 0; f < b->n[s]; f++) {
					const struct dp_xfer *xf = &b->v[s][f];
					struct wire_xfer *w = sput(x, len, sizeof(*w));
					uint8_t *h;
					const void *d;

					if (w == NULL)
						return -ENOMEM;
					*w = (struct wire_xfer){ .p = xf->p, .arrive = xf->arrive,
								 .xin = xf->xin };
					if (xf->p.m == NULL)
						continue;
					/* the original stays the link's (it frees it at the
					 * arrival, after this) */
					w->p.m = (struct rte_mbuf *)(uintptr_t)1;
					h = sput(x, len, WIRE_HDR);
					if (h == NULL)
						return -ENOMEM;
					memcpy(h, dp_meta(xf->p.m), sizeof(struct dp_meta));
					d = rte_pktmbuf_read(xf->p.m, 0, SM_HDR_BYTES,
							     h + sizeof(struct dp_meta));
					if (d == NULL)
						return -EINVAL;
					if (d != h + sizeof(struct dp_meta))
						memcpy(h + sizeof(struct dp_meta), d, SM_HDR_BYTES);
				}
				b->n[s] = 0;	/* its receiver's rank has them */
			}
		x->slen[r] = *len - at;
	}
	return 0;
}

/* Frames from other ranks into this rank's mirrors of their senders' boxes. */
static int
unpack_boxes(struct dp_par *x)
{
	uint32_t s = x->side;
	size_t at = 0, end = 0;

	for (int r = 0; r < x->nranks; r++)
		end += x->rlen[r];
	while (at < end) {
		struct wire_box wb;
		struct dp_xbox *b;

		if (end - at < sizeof(wb))
			return -EPROTO;
		memcpy(&wb, x->rbuf + at, sizeof(wb));
		at += sizeof(wb);
		if (wb.from >= x->n || wb.to >= x->n || !x->p[wb.to].here)
			return -EPROTO;
		b = &x->p[wb.from].out[wb.to];
		for (uint32_t f = 0; f < wb.n; f++) {
			struct wire_xfer w;
			int rc;

			if (end - at < sizeof(w))
				return -EPROTO;
			memcpy(&w, x->rbuf + at, sizeof(w));
			at += sizeof(w);
			rc = dp_xbox_post(b, &(struct dp_pkt){ 0 }, w.arrive, w.xin);
			if (rc != 0)
				return rc;
			b->v[s][b->n[s] - 1].p = w.p;
			b->v[s][b->n[s] - 1].p.m = NULL;
			if (w.p.m == NULL)
				continue;
			if (end - at < WIRE_HDR)
				return -EPROTO;
			b->v[s][b->n[s] - 1].hdr = (uint32_t)b->hlen[s] + 1;
			rc = hb_put(b, s, x->rbuf + at, WIRE_HDR);
			if (rc != 0)
				return rc;
			at += WIRE_HDR;
		}
	}
	return 0;
}

/* After a window: the frames crossing to other ranks. */
static int
exchange_boxes(struct dp_par *x)
{
	size_t len = 0;
	int rc = pack_boxes(x, &len);

	if (rc != 0) {
		/* nothing goes, and the error goes with the partitions' state */
		memset(x->slen, 0, (size_t)x->nranks * sizeof(*x->slen));
	}
	{
		int rc2 = dp_ranks_alltoallv(x->sbuf, x->slen, &x->rbuf, &x->rcap, x->rlen);

		if (rc == 0)
			rc = rc2;
	}
	if (rc == 0)
		rc = unpack_boxes(x);
	if (rc != 0 && x->n_mine > 0)
		dp_engine_fail(&x->p[x->mine[0]].eng, rc, "rank %d: the frames crossing to other "
			       "ranks: %s", x->rank, strerror(-rc));
	return rc;
}

/* This rank's partitions' state and, for rank 0, their records. */
static int
pack_status(struct dp_par *x, size_t *len)
{
	for (uint32_t k = 0; k < x->n_mine; k++) {
		struct dp_part *pt = &x->p[x->mine[k]];
		struct wire_status *w = sput(x, len, sizeof(*w));

		if (w == NULL)
			return -ENOMEM;
		memset(w, 0, sizeof(*w));
		*w = (struct wire_status){
			.part = pt->index, .ndone = pt->ndone, .steps_done = pt->rec.steps_done,
			.error = pt->eng.error, .done_t = pt->done_t, .next = part_next(x, pt),
			.now = pt->eng.now, .events = pt->eng.events, .busy_ns = pt->busy_ns,
			.wip = pt->eng.sync_wip,
			.rel_hold = pt->bar.count == pt->bar.need && pt->bar.need > 0 &&
				    !pt->bar.rel_due,
		};
		if (pt->eng.error != 0)
			memcpy(w->errmsg, pt->eng.errmsg, sizeof(w->errmsg));
	}
	return 0;
}

static int
unpack_status(struct dp_par *x)
{
	size_t at = 0, end = 0;

	for (int r = 0; r < x->nranks; r++)
		end += x->rlen[r];
	for (; at + sizeof(struct wire_status) <= end; at += sizeof(struct wire_status)) {
		struct wire_status w;
		struct dp_part *pt;

		memcpy(&w, x->rbuf + at, sizeof(w));
		if (w.part >= x->n)
			return -EPROTO;
		pt = &x->p[w.part];
		if (pt->here)
			continue;
		pt->ndone = w.ndone;
		pt->done_t = w.done_t;
		pt->m_next = w.next;
		pt->m_now = w.now;
		pt->m_events = w.events;
		pt->m_busy_ns = w.busy_ns;
		pt->m_wip = w.wip;
		pt->m_rel_hold = w.rel_hold != 0;
		if (x->rank != 0)
			pt->rec.steps_done = w.steps_done;	/* rank 0: with the records */
		if (w.error != 0 && pt->eng.error == 0) {
			pt->eng.error = w.error;
			memcpy(pt->eng.errmsg, w.errmsg, sizeof(pt->eng.errmsg));
			pt->eng.errmsg[sizeof(pt->eng.errmsg) - 1] = '\0';
		}
	}
	return at == end ? 0 : -EPROTO;
}

/* A step's record of a partition, as it crosses. */
static size_t
step_size(const struct dp_record *r)
{
	return 3 * sizeof(dp_time_t) + sizeof(uint64_t) + 2 * sizeof(uint32_t) +
	       r->rounds * (sizeof(dp_time_t) + 2 * sizeof(uint32_t));
}

#define PUT(p, v) do { memcpy(p, &(v), sizeof(v)); p += sizeof(v); } while (0)
#define GET(p, v) do { memcpy(&(v), p, sizeof(v)); p += sizeof(v); } while (0)

static int
pack_records(struct dp_par *x, size_t *len)
{
	for (uint32_t k = 0; k < x->n_mine && x->rank != 0; k++) {
		struct dp_part *pt = &x->p[x->mine[k]];
		const struct dp_record *r = &pt->rec;
		size_t ss = step_size(r), R = r->rounds;
		struct wire_rec h = {
			.part = pt->index, .steps_from = pt->steps_sent, .steps_to = r->steps_done,
			.binding = r->binding, .qs_n = pt->qs_n, .cb = pt->cb.len - pt->cb.rd,
			.xd = pt->xd.len - pt->xd.rd, .qs = pt->qs.len - pt->qs.rd,
		};
		uint8_t *p = sput(x, len, sizeof(h) + h.cb + h.xd + h.qs +
				  (h.steps_to - h.steps_from) * ss);

		if (p == NULL)
			return -ENOMEM;
		memcpy(p, &h, sizeof(h));
		p += sizeof(h);
		memcpy(p, pt->cb.b + pt->cb.rd, h.cb);
		p += h.cb;
		memcpy(p, pt->xd.b + pt->xd.rd, h.xd);
		p += h.xd;
		memcpy(p, pt->qs.b + pt->qs.rd, h.qs);
		p += h.qs;
		for (uint32_t s = h.steps_from; s < h.steps_to; s++) {
			uint32_t q = dp_record_slot(r, s);

			PUT(p, r->compute_end[q]);
			PUT(p, r->step_end[q]);
			PUT(p, r->gathered[q]);
			PUT(p, r->frames[q]);
			PUT(p, r->finished[q]);
			PUT(p, r->binding);
			memcpy(p, &r->round_end[q * R], R * sizeof(dp_time_t));
			p += R * sizeof(dp_time_t);
			memcpy(p, &r->round_in[q * R], R * sizeof(uint32_t));
			p += R * sizeof(uint32_t);
			memcpy(p, &r->round_out[q * R], R * sizeof(uint32_t));
			p += R * sizeof(uint32_t);
		}
		/* gone to rank 0 */
		pt->cb.len = pt->cb.rd = 0;
		pt->xd.len = pt->xd.rd = 0;
		pt->qs.len = pt->qs.rd = 0;
		pt->qs_n = 0;
		pt->steps_sent = h.steps_to;
	}
	return 0;
}

static int
kbuf_add(struct dp_kbuf *b, const uint8_t *src, size_t n)
{
	void *d;

	if (n == 0)
		return 0;
	d = kbuf_room(b, n);
	if (d == NULL)
		return -ENOMEM;
	memcpy(d, src, n);
	b->len += n;
	return 0;
}

/* Rank 0: the other ranks' records into its mirrors of their partitions. */
static int
unpack_records(struct dp_par *x)
{
	const uint8_t *p = x->rbuf, *end = x->rbuf;
	int rc = 0;

	for (int r = 0; r < x->nranks; r++)
		end += x->rlen[r];
	while (rc == 0 && p < end) {
		struct wire_rec h;
		struct dp_part *pt;
		struct dp_record *rec;
		size_t R;

		if ((size_t)(end - p) < sizeof(h))
			return -EPROTO;
		memcpy(&h, p, sizeof(h));
		p += sizeof(h);
		if (h.part >= x->n || x->p[h.part].here || h.steps_to < h.steps_from)
			return -EPROTO;
		pt = &x->p[h.part];
		rec = &pt->rec;
		R = rec->rounds;
		if ((size_t)(end - p) < h.cb + h.xd + h.qs + (h.steps_to - h.steps_from) *
		    step_size(rec))
			return -EPROTO;
		rc = kbuf_add(&pt->cb, p, h.cb);
		p += h.cb;
		if (rc == 0)
			rc = kbuf_add(&pt->xd, p, h.xd);
		p += h.xd;
		if (rc == 0)
			rc = kbuf_add(&pt->qs, p, h.qs);
		p += h.qs;
		pt->qs_n += h.qs_n;
		for (uint32_t s = h.steps_from; rc == 0 && s < h.steps_to; s++) {
			uint32_t q;

			rc = dp_record_begin(rec, s);
			if (rc != 0)
				break;
			q = dp_record_slot(rec, s);
			GET(p, rec->compute_end[q]);
			GET(p, rec->step_end[q]);
			GET(p, rec->gathered[q]);
			GET(p, rec->frames[q]);
			GET(p, rec->finished[q]);
			GET(p, rec->binding);
			memcpy(&rec->round_end[q * R], p, R * sizeof(dp_time_t));
			p += R * sizeof(dp_time_t);
			memcpy(&rec->round_in[q * R], p, R * sizeof(uint32_t));
			p += R * sizeof(uint32_t);
			memcpy(&rec->round_out[q * R], p, R * sizeof(uint32_t));
			p += R * sizeof(uint32_t);
		}
		if (rc == 0) {
			rec->steps_done = h.steps_to;
			rec->binding = h.binding;
		}
	}
	return rc;
}

/* Between windows: every rank learns every partition's state; rank 0 gets their records. */
static int
exchange_status(struct dp_par *x)
{
	size_t len = 0;
	int rc = pack_status(x, &len), rc2;

	rc2 = dp_ranks_allgatherv(x->sbuf, rc == 0 ? len : 0, &x->rbuf, &x->rcap, x->rlen);
	if (rc == 0)
		rc = rc2;
	if (rc == 0)
		rc = unpack_status(x);
	len = 0;
	rc2 = pack_records(x, &len);
	if (rc == 0)
		rc = rc2;
	rc2 = dp_ranks_gatherv(x->sbuf, rc2 == 0 ? len : 0, &x->rbuf, &x->rcap, x->rlen);
	if (rc == 0)
		rc = rc2;
	if (rc == 0 && x->rank == 0)
		rc = unpack_records(x);
	if (rc != 0) {
		x->error = rc;
		snprintf(x->errmsg, sizeof(x->errmsg), "rank %d: the partitions' state between "
			 "ranks: %s", x->rank, strerror(-rc));
	}
	return rc;
}

struct wire_end {
	uint32_t part, nlinks;
	uint64_t started, unsent, incomplete, frames, bytes;
	uint64_t n;		/* probe samples that follow */
};

int
dp_par_gather_end(struct dp_par *x)
{
	const uint8_t *p, *end;
	size_t len = 0;
	int rc = 0, rc2;

	if (x->nranks == 1)
		return 0;
	for (uint32_t k = 0; k < x->n_mine && x->rank != 0; k++) {
		const struct dp_part *pt = &x->p[x->mine[k]];
		const struct dp_probe *pr = pt->probe;
		struct wire_end w = {
			.part = pt->index, .started = pt->bg.started, .unsent = pt->bg.unsent,
			.incomplete = pt->bg.incomplete, .frames = pt->bg.frames,
			.bytes = pt->bg.bytes, .n = pr != NULL && x->on_sample == NULL ? pr->n : 0,
			.nlinks = pr != NULL ? pr->nlinks : 0,
		};
		uint8_t *o = sput(x, &len, sizeof(w) + w.n * (sizeof(dp_time_t) +
							      w.nlinks * sizeof(uint64_t)));

		if (o == NULL) {
			rc = -ENOMEM;
			len = 0;
			break;
		}
		memcpy(o, &w, sizeof(w));
		if (w.n > 0) {
			memcpy(o + sizeof(w), pr->t, w.n * sizeof(dp_time_t));
			memcpy(o + sizeof(w) + w.n * sizeof(dp_time_t), pr->bytes,
			       w.n * w.nlinks * sizeof(uint64_t));
		}
	}
	rc2 = dp_ranks_gatherv(x->sbuf, len, &x->rbuf, &x->rcap, x->rlen);
	if (rc == 0)
		rc = rc2;
	if (rc != 0 || x->rank != 0)
		return rc;
	p = x->rbuf;
	end = p;
	for (int r = 0; r < x->nranks; r++)
		end += x->rlen[r];
	while (p < end) {
		struct wire_end w;
		struct dp_part *pt;
		struct dp_probe *pr;

		if ((size_t)(end - p) < sizeof(w))
			return -EPROTO;
		memcpy(&w, p, sizeof(w));
		p += sizeof(w);
		if (w.part >= x->n || x->p[w.part].here)
			return -EPROTO;
		pt = &x->p[w.part];
		pt->bg.started = w.started;
		pt->bg.unsent = w.unsent;
		pt->bg.incomplete = w.incomplete;
		pt->bg.frames = w.frames;
		pt->bg.bytes = w.bytes;
		pr = pt->probe;
		if (w.n == 0)
			continue;
		if (pr == NULL || pr->nlinks != w.nlinks ||
		    (size_t)(end - p) < w.n * (sizeof(dp_time_t) + w.nlinks * sizeof(uint64_t)))
			return -EPROTO;
		{
			dp_time_t *t = realloc(pr->t, w.n * sizeof(*t));
			uint64_t *b;

			if (t == NULL)
				return -ENOMEM;
			pr->t = t;
			b = realloc(pr->bytes, w.n * w.nlinks * sizeof(*b));
			if (b == NULL)
				return -ENOMEM;
			pr->bytes = b;
		}
		memcpy(pr->t, p, w.n * sizeof(dp_time_t));
		p += w.n * sizeof(dp_time_t);
		memcpy(pr->bytes, p, w.n * w.nlinks * sizeof(uint64_t));
		p += w.n * w.nlinks * sizeof(uint64_t);
		pr->n = pr->cap = w.n;
	}
	return 0;
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

	if (c == NULL || c->w == NULL || x->rank != 0)
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
	if (x->rank != 0)
		return 0;	/* rank 0 has them */
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

	if (x->on_sample == NULL || x->rank != 0)
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

	for (i = 0; i < x->n; i++) {
		/* real time: what its lcore published (the slots of those steps are final) */
		uint32_t s = x->rt_on ? atomic_load_explicit(&x->p[i].pub_steps, memory_order_acquire)
				      : x->p[i].rec.steps_done;

		if (s < done)
			done = s;
	}
	if (x->rank != 0) {
		/* rank 0 has the steps' records: the others keep count, as every rank decides
		 * alike when to stop */
		if (done > x->rec->steps_done)
			x->rec->steps_done = done;
		return 0;
	}
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
	if (x->nranks > 1 && exchange_status(x) != 0)
		return x->error;
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
		if (x->nl > 1)
			go(x, CMD_WINDOW);	/* the lcores go */
		window_share(x, 0, GO_WIN(GO(x->wgen, CMD_WINDOW)));
		if (x->nl > 1) {
			x->done_want += x->n_mine;
			wait_for(x, &x->done, x->done_want);
		}
		if (x->nranks > 1)
			exchange_boxes(x);	/* an error goes with the state, to every rank */
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

/* ---- real time: dp_par_run_rt() ---- */

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
static void
rt_share(struct dp_par *x, uint32_t li)
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
		go(x, CMD_RT);		/* the lcores go */
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
		wait_for(x, &x->halted, x->halted_want);
	}
	rc = merge_steps(x);	/* with the steps published (rt_on), then all is this lcore's */
	x->rt_on = false;
	if (rc == 0)
		rc = merge_trace(x, DP_NEVER);
	if (rc == 0)
		rc = merge_transfers(x, DP_NEVER);
	if (rc != 0 && x->error == 0)
		x->error = rc;
	merge_samples(x);
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
				return part_error(x);
			}
		rc = merge_steps(x);
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

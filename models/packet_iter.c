/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The packet-level closed form: the recursion, round by round (packet.h: sm_packet_iter_*(),
 * sm_packet_model()).
 *
 * The fluid model of the deck charges a round B/b + l.  Frames add what a store-and-forward network
 * adds: a chunk of S bytes is k = ceil(S / m) frames of m payload bytes (the last smaller); each
 * hop is a serialiser at its rate plus a propagation delay, and a frame leaves a hop only when it
 * has fully arrived.  For one flow through hops h = 1..H with per-frame times s_h (rounded up to
 * the picosecond, as the data plane rounds them) the last frame arrives after
 *     max over lattice paths of sum s_h(frame)  +  sum of delays,
 * which is the max-plus recursion d_j(h) = max(d_j(h-1), d_{j-1}(h)) + s_h(j).  A WAN link that a
 * data centre's N workers share serves their frames in order of arrival (ties by worker index), the
 * same recursion over the merged sequence.  This file evaluates those recursions round by round for
 * every worker, with each round starting when the worker's previous round has arrived and its
 * previous frames are queued (the workers' program: sm_program_build()).  It uses no event calendar
 * and shares no code with the data plane beyond the program and sm_ser_ps(), so the data plane's
 * zero-load step is checked against an independent computation.
 *
 * Engine semantics the two share (see dataplane/worker.c):
 *   - a worker queues at most @c burst frames ahead on its first hop and re-arms when the last
 *     queued frame starts serialising, so the first hop is never idle while frames remain;
 *   - a round's frames are all queued before the next round's;
 *   - with SM_SYNC_PHASE every phase, and with SM_SYNC_STEP every step, starts for all workers
 *     when the last has finished the one before (received everything and queued everything);
 *   - a module in a worker's port (E) takes the dense frames at the pace of its slowest stage; a module
 *     in the network (E') starts streaming when the whole dense gradient has arrived; a module is
 *     done when the last frame leaves its last stage, plus its latency.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "packet.h"
#include "ring.h"
#include "variant.h"

/* A frame in flight through the form: when it reaches the next hop, and who sent it. */
struct pframe {
	uint64_t t;		/* arrival at the next hop */
	uint32_t w;		/* sender */
	uint32_t dst;		/* receiver */
	uint32_t len;		/* payload bytes */
	uint32_t at;		/* the node it is at: a DC, or the core (d) */
	uint32_t round;		/* its round in the program */
	bool last;		/* the last of its flow */
};

/* A source's frames in flight, in time order: a ring. */
struct pqueue {
	struct pframe *a;
	uint32_t head, tail, mask;
};

/* A round's input that was all in before its receiver began the round (a peer ahead). */
struct pearly {
	uint64_t t;		/* the latest of its flows' last frames */
	uint32_t round, next;	/* next: the worker's next one, or UINT32_MAX */
	uint32_t flows;		/* flows of the round all in */
};

/* A frame due at a hop, in the order a FIFO link takes its arrivals: by time, then by the link
 * that delivered it (its place in the data plane's order of elements: the workers' NICs, then
 * the WAN links in sm_wan_ends() order), as events at one time run by element. */
struct pdue {
	uint64_t t;
	uint32_t from;
};

/* A serialiser: its rate, delay, when it is next free, and for links fed by several sources the
 * latest arrival of an earlier round (to detect interleaving, where the form would not apply). */
struct hop {
	uint64_t bw, delay, busy;
	uint64_t prev_last;	/* latest arrival of earlier rounds */
	uint64_t cur_first;	/* earliest arrival of this round (UINT64_MAX: none yet) */
	uint64_t cur_last;
	uint32_t last_len;	/* cache of the last serialisation */
	uint64_t last_ps;
};

struct pmodel {
	const struct sm_params *p;
	const struct sm_packet *pk;
	const struct sm_program *prog;
	struct sm_links l;
	uint32_t w_count, n, d, n_wan;
	enum sm_wan_shape shape;
	struct hop *nic, *down, *port, *mlink, *wan, (*stage)[SM_STAGE_COUNT];
	uint32_t *wan_to;		/* [n_wan]: the node a WAN link ends at */
	uint64_t *ready, *txdone;
	struct pframe *scratch;		/* a round's frames off the first hop */
	uint64_t scap;
	/*
	 * The frames in flight in a segment (rounds without a barrier between them), by due time:
	 * each source (a worker's first hop, a WAN link) makes its frames in time order, so they
	 * wait in a ring per source, read in order (the cache's prefetcher follows), and a heap
	 * holds each source's first: at most one entry per source, not one per frame.
	 */
	struct pqueue *q;		/* [w_count + n_wan] */
	struct pdue *heap;
	uint64_t hcap, nheap;
	/* each worker's progress through the segment */
	uint32_t *cur;			/* the round it is in */
	bool *have_in;			/* that round's input is all in (ready set) */
	uint32_t *need, *got;		/* flows it receives in that round, and has */
	uint64_t *in_t;			/* when the latest of them was in */
	uint32_t *early_head;		/* its early inputs, a list in early[] */
	struct pearly *early;
	uint32_t n_early, cap_early, early_free;
	uint32_t seg_end;
	int err;			/* -ENOMEM in a segment */
};

static uint64_t
ser(struct hop *h, uint32_t charge)
{
	if (charge != h->last_len) {
		h->last_len = charge;
		h->last_ps = sm_ser_ps(charge, h->bw);
	}
	return h->last_ps;
}

/* Pass a frame arriving at @t through @h (max-plus step); returns its arrival at the next hop. */
static uint64_t
pass(struct hop *h, uint64_t t, uint32_t charge)
{
	uint64_t start = t > h->busy ? t : h->busy;

	h->busy = start + ser(h, charge);
	return h->busy + h->delay;
}

static void
note_arrival(struct hop *h, uint64_t t)
{
	if (t < h->cur_first)
		h->cur_first = t;
	if (t > h->cur_last)
		h->cur_last = t;
}

/* End a round on @h: -ERANGE if its frames may have interleaved with an earlier round's. */
static int
close_round(struct hop *h)
{
	int rc = 0;

	if (h->cur_first == UINT64_MAX)
		return 0;
	if (h->cur_first <= h->prev_last)
		rc = -ERANGE;
	if (h->cur_last > h->prev_last)
		h->prev_last = h->cur_last;
	h->cur_first = UINT64_MAX;
	h->cur_last = 0;
	return rc;
}

/*
 * A worker queues @flows flows of k frames each, one after another (@mix: a frame of each in
 * turn, frame j of flow j % flows), on its first hop @h from @s: bursts of @burst, each re-armed
 * when the last frame queued starts serialising.  Fills @out with the frames' arrivals at the
 * next hop and returns when the last burst was queued.
 */
static uint64_t
first_hop(struct pmodel *m, struct hop *h, uint64_t s, uint32_t w, uint64_t k, uint32_t flows,
	  bool mix, uint32_t last, uint32_t charge_unit, struct pframe *out)
{
	uint64_t j, queued = s, start = 0;

	for (j = 0; j < k * flows; j++) {
		bool end = mix ? j / flows == k - 1 : (j + 1) % k == 0;
		uint32_t len = end ? last : m->pk->payload;
		uint32_t charge = charge_unit ? sm_charge(m->pk->account, len) : len;

		if (j > 0 && j % m->pk->burst == 0)
			queued = start;	/* re-armed when frame j - 1 started */
		start = queued > h->busy ? queued : h->busy;
		h->busy = start + ser(h, charge);
		out[j].t = h->busy + h->delay;
		out[j].w = w;
		out[j].len = len;
	}
	return queued;
}

/* Stream @k frames through the module of worker @w, each available at f[j].t; returns done. */
static uint64_t
module_stream(struct pmodel *m, uint32_t w, const struct pframe *f, uint64_t k, uint64_t latency)
{
	uint64_t j, t = 0;
	int s;

	for (j = 0; j < k; j++) {
		t = f[j].t;
		for (s = 0; s < SM_STAGE_COUNT; s++)
			if (m->stage[w][s].bw > 0)
				t = pass(&m->stage[w][s], t, f[j].len);
	}
	return t + latency;
}

/*
 * A pluggable: the worker queues bursts of frames into its module and re-arms when the slowest
 * stage starts the last one queued, less the time a frame takes through the stages before it (so
 * that the next burst reaches the slowest stage before it runs dry, wherever in the pipeline it
 * is); each frame passes the stages in order.  Sets when the module is done (ready) and returns
 * when the last burst was queued.
 */
static uint64_t
pluggable(struct pmodel *m, uint32_t w, uint64_t s0, uint64_t k, uint32_t last)
{
	struct hop *st = m->stage[w];
	uint64_t j, queued = s0, slow_start = 0, t = 0;
	int s, slowest = SM_STAGE_PORT;

	for (s = 0; s < SM_STAGE_COUNT; s++)
		if (st[s].bw > 0 && st[s].bw < st[slowest].bw)
			slowest = s;
	for (j = 0; j < k; j++) {
		uint32_t len = j + 1 == k ? last : m->pk->payload;
		uint64_t entry, upstream = 0;

		if (j > 0 && j % m->pk->burst == 0)
			queued = slow_start;	/* re-armed for frame j - 1 at the slowest */
		t = entry = queued;
		for (s = 0; s < SM_STAGE_COUNT; s++) {
			uint64_t begin;

			if (st[s].bw == 0)
				continue;
			begin = t > st[s].busy ? t : st[s].busy;
			if (s == slowest)	/* less the stages before it: no bubble */
				slow_start = begin - upstream > entry ? begin - upstream : entry;
			else if (s < slowest)
				upstream += ser(&st[s], len);
			st[s].busy = begin + ser(&st[s], len);
			t = st[s].busy;
		}
	}
	m->ready[w] = t + m->l.mod_latency_port;
	return queued;
}

/* The module round of worker @w from @s: the dense gradient to its own module; sets ready. */
static void
module_one(struct pmodel *m, const struct sm_round *r, uint32_t w, uint64_t s)
{
	uint32_t last;
	uint64_t k = sm_frames(r->bytes, m->pk->payload, &last), j;
	struct pframe *f = m->scratch;

	if (m->prog->plan.placement == SM_PLACE_PORT) {
		m->txdone[w] = pluggable(m, w, s, k, last);
		return;
	}
	/* in the network: nic, switch, mlink (all the worker's own), then gather and stream */
	m->txdone[w] = first_hop(m, &m->nic[w], s, w, k, 1, false, last, 1, f);
	for (j = 0; j < k; j++)
		f[j].t = pass(&m->mlink[w], f[j].t, sm_charge(m->pk->account, f[j].len));
	for (j = 0; j < k; j++)
		f[j].t = f[k - 1].t;	/* gathered: all available when the last arrives */
	m->ready[w] = module_stream(m, w, f, k, m->l.mod_latency_network);
}

static bool
due_before(const struct pdue *a, const struct pdue *b)
{
	return a->t != b->t ? a->t < b->t : a->from < b->from;
}

static int
heap_push(struct pmodel *m, uint64_t t, uint32_t from)
{
	struct pdue x = { t, from };
	uint64_t i;

	if (m->nheap == m->hcap) {
		uint64_t cap = m->hcap ? 2 * m->hcap : 1024;
		struct pdue *h = realloc(m->heap, cap * sizeof(*h));

		if (h == NULL)
			return -ENOMEM;
		m->heap = h;
		m->hcap = cap;
	}
	i = m->nheap++;
	while (i > 0 && due_before(&x, &m->heap[(i - 1) / 2])) {
		m->heap[i] = m->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	m->heap[i] = x;
	return 0;
}

/* Take the heap's first entry; if @p more, one due at @p t from the same source takes its place. */
static struct pdue
heap_pop(struct pmodel *m, bool more, uint64_t t)
{
	struct pdue top = m->heap[0], x;
	uint64_t i = 0, c;

	if (more)
		x = (struct pdue){ t, top.from };
	else
		x = m->heap[--m->nheap];
	while ((c = 2 * i + 1) < m->nheap) {
		if (c + 1 < m->nheap && due_before(&m->heap[c + 1], &m->heap[c]))
			c++;
		if (!due_before(&m->heap[c], &x))
			break;
		m->heap[i] = m->heap[c];
		i = c;
	}
	m->heap[i] = x;
	return top;
}

/*
 * Frame @p fr, due at fr->t at its next hop, from source @p from: at the end of the source's
 * ring (its frames come in time order), into the heap if it is the ring's first.  The heap
 * gives the frames in (time, source) order as a heap of every frame would.
 */
static int
src_push(struct pmodel *m, uint32_t from, const struct pframe *fr)
{
	struct pqueue *q = &m->q[from];
	uint32_t n = q->tail - q->head;

	if (q->a == NULL || n > q->mask) {
		struct pframe *a = sm_ring_grow(q->a, &q->mask, &q->head, &q->tail, sizeof(*a), 64, 0);

		if (a == NULL)
			return -ENOMEM;
		q->a = a;
	}
	q->a[q->tail++ & q->mask] = *fr;
	return n == 0 ? heap_push(m, fr->t, from) : 0;
}

/* The frame due first of all into @p fr: out of its source's ring, the source's next in the heap. */
static struct pdue
src_pop(struct pmodel *m, struct pframe *fr)
{
	struct pqueue *q = &m->q[m->heap[0].from];
	bool more;

	*fr = q->a[q->head++ & q->mask];
	more = q->head != q->tail;
	return heap_pop(m, more, more ? q->a[q->head & q->mask].t : 0);
}

static void
early_add(struct pmodel *m, uint32_t w, uint32_t round, uint64_t t)
{
	uint32_t i;

	for (i = m->early_head[w]; i != UINT32_MAX; i = m->early[i].next)
		if (m->early[i].round == round) {	/* another flow of it */
			m->early[i].flows++;
			if (t > m->early[i].t)
				m->early[i].t = t;
			return;
		}
	if (m->early_free != UINT32_MAX) {
		i = m->early_free;
		m->early_free = m->early[i].next;
	} else {
		if (m->n_early == m->cap_early) {
			uint32_t cap = m->cap_early ? 2 * m->cap_early : 64;
			struct pearly *e = realloc(m->early, cap * sizeof(*e));

			if (e == NULL) {
				m->err = -ENOMEM;
				return;
			}
			m->early = e;
			m->cap_early = cap;
		}
		i = m->n_early++;
	}
	m->early[i] = (struct pearly){ t, round, m->early_head[w], 1 };
	m->early_head[w] = i;
}

/* Take worker @w's early input of @round: how many flows are in (0: none), and by @t. */
static uint32_t
early_take(struct pmodel *m, uint32_t w, uint32_t round, uint64_t *t)
{
	uint32_t *p = &m->early_head[w];

	while (*p != UINT32_MAX) {
		uint32_t i = *p;

		if (m->early[i].round == round) {
			*t = m->early[i].t;
			*p = m->early[i].next;
			m->early[i].next = m->early_free;
			m->early_free = i;
			return m->early[i].flows;
		}
		p = &m->early[i].next;
	}
	return 0;
}

/* A flow of worker @w's current round is all in at @t. */
static void
flow_in(struct pmodel *m, uint32_t w, uint64_t t)
{
	if (t > m->in_t[w])
		m->in_t[w] = t;
	if (++m->got[w] < m->need[w])
		return;
	m->ready[w] = m->in_t[w];
	m->have_in[w] = true;
}

/*
 * Worker @w begins round @ri at @s: its flows' frames onto their first hop (one flow after
 * another, as sm_phase_sends() lists them; a fan's a frame of each in turn), in flight from
 * there.
 */
static void
begin(struct pmodel *m, uint32_t w, uint32_t ri, uint64_t s)
{
	const struct sm_round *r = &m->prog->r[ri];
	const struct sm_phase *ph = &m->prog->plan.ph[r->phase];
	uint32_t last, acc = m->pk->account, dst[SM_SENDS_MAX], ns;
	uint64_t k, j, t = 0;
	struct pframe *f = m->scratch;

	m->cur[w] = ri;
	m->have_in[w] = false;
	if (r->hop == SM_HOP_MODULE) {
		module_one(m, r, w, s);
		m->have_in[w] = true;
		return;
	}
	k = sm_frames(r->bytes, m->pk->payload, &last);
	ns = sm_phase_sends(ph, r->index, w, dst, NULL);
	m->txdone[w] = s;
	if (ns > 0 && r->capped) {
		m->txdone[w] = first_hop(m, &m->port[w], s, w, k, ns, ph->fan, last, 1, f);
		for (j = 0; j < k * ns; j++)
			f[j].t = pass(&m->nic[w], f[j].t, sm_charge(acc, f[j].len));
	} else if (ns > 0) {
		m->txdone[w] = first_hop(m, &m->nic[w], s, w, k, ns, ph->fan, last, 1, f);
	}
	for (j = 0; j < k * ns; j++) {
		f[j].dst = ph->fan ? dst[j % ns] : dst[j / k];
		f[j].at = w / m->n;
		f[j].round = ri;
		f[j].last = ph->fan ? j / ns == k - 1 : (j + 1) % k == 0;
		if (src_push(m, w, &f[j]) != 0) {
			m->err = -ENOMEM;
			return;
		}
	}
	/* its input: none (in at once), or what came before it began */
	m->need[w] = sm_phase_ins(ph, r->index, w);
	m->got[w] = early_take(m, w, ri, &t);
	m->in_t[w] = m->got[w] > 0 ? t : s;
	if (m->got[w] >= m->need[w]) {
		m->ready[w] = m->in_t[w];
		m->have_in[w] = true;
	}
}

/* While worker @w's round is over (input in, frames queued), on into the next of the segment. */
static void
advance(struct pmodel *m, uint32_t w)
{
	while (m->have_in[w] && m->err == 0 && m->cur[w] + 1 < m->seg_end)
		begin(m, w, m->cur[w] + 1,
		      m->ready[w] > m->txdone[w] ? m->ready[w] : m->txdone[w]);
}

/*
 * A segment: rounds [@r0, @r1) of every worker with no barrier between them, each worker
 * starting r0 at start[w] and each of its next rounds when its previous one is over.  In a round
 * every worker sends r->bytes to the worker r->shift places on around its ring, so each receives
 * one flow a round.  Every frame goes hop by hop (its first hop and a module are the worker's
 * own, computed when it begins the round; a down link and the WAN links are shared), and each
 * shared link serves its arrivals in order (struct pdue), whichever round, flow or route they
 * come from: a ring of DCs, a star's core, a pairwise exchange whose rounds interleave, a step
 * without phase barriers.
 */
static int
segment(struct pmodel *m, uint32_t r0, uint32_t r1, const uint64_t *start)
{
	uint32_t acc = m->pk->account, w;
	uint64_t i;
	int rc = 0;

	m->seg_end = r1;
	m->nheap = 0;
	for (w = 0; w < m->w_count + m->n_wan; w++)
		m->q[w].head = m->q[w].tail = 0;
	m->n_early = 0;
	m->early_free = UINT32_MAX;
	m->err = 0;
	for (w = 0; w < m->w_count; w++)
		m->early_head[w] = UINT32_MAX;
	for (w = 0; w < m->w_count && m->err == 0; w++)
		begin(m, w, r0, start[w]);
	for (w = 0; w < m->w_count && m->err == 0; w++)
		advance(m, w);
	while (m->nheap > 0 && m->err == 0) {
		struct pframe fr, *f = &fr;
		struct pdue x = src_pop(m, &fr);
		uint32_t v = f->dst, dv = v / m->n, li;

		if (f->at == dv) {	/* the receiver's DC: its down link */
			note_arrival(&m->down[v], x.t);
			f->t = pass(&m->down[v], x.t, sm_charge(acc, f->len));
			if (!f->last)
				continue;
			if (m->cur[v] != f->round) {	/* it has not begun that round */
				early_add(m, v, f->round, f->t);
				continue;
			}
			flow_in(m, v, f->t);
			if (m->have_in[v])
				advance(m, v);
			continue;
		}
		li = sm_wan_next(m->shape, m->d, f->at, dv);
		note_arrival(&m->wan[li], x.t);
		f->t = pass(&m->wan[li], x.t, sm_charge(acc, f->len));
		f->at = m->wan_to[li];
		if (src_push(m, m->w_count + li, f) != 0)
			m->err = -ENOMEM;
	}
	if (m->err != 0)
		return m->err;
	/* frames of this segment on a link before the last of an earlier one's: not this form */
	for (w = 0; w < m->w_count; w++)
		if (close_round(&m->down[w]) != 0)
			rc = -ERANGE;
	for (i = 0; i < m->n_wan; i++)
		if (close_round(&m->wan[i]) != 0)
			rc = -ERANGE;
	return rc;
}

/* An ideal barrier: every worker continues when the last has finished (data and queueing). */
static void
barrier(struct pmodel *m)
{
	uint64_t b = 0;
	uint32_t w;

	for (w = 0; w < m->w_count; w++) {
		if (m->ready[w] > b)
			b = m->ready[w];
		if (m->txdone[w] > b)
			b = m->txdone[w];
	}
	for (w = 0; w < m->w_count; w++)
		m->ready[w] = m->txdone[w] = b;
}

static void
hop_init(struct hop *h, uint64_t bw, uint64_t delay)
{
	memset(h, 0, sizeof(*h));
	h->bw = bw;
	h->delay = delay;
	h->cur_first = UINT64_MAX;
	h->last_len = UINT32_MAX;
}

static void
pmodel_free(struct pmodel *m)
{
	uint32_t w;

	free(m->nic);
	free(m->stage);
	free(m->ready);
	free(m->scratch);
	free(m->heap);
	for (w = 0; m->q != NULL && w < m->w_count + m->n_wan; w++)
		free(m->q[w].a);
	free(m->q);
	free(m->wan_to);
	free(m->cur);
	free(m->have_in);
	free(m->need);
	free(m->in_t);
	free(m->early_head);
	free(m->early);
}

static int
pmodel_init(struct pmodel *m, const struct sm_params *p, const struct sm_packet *pk,
	    const struct sm_program *prog)
{
	uint64_t maxk = 1;
	uint32_t w, i;

	memset(m, 0, sizeof(*m));
	m->p = p;
	m->pk = pk;
	m->prog = prog;
	if (sm_links_build(p, prog->budget, &m->l, NULL, 0) != 0)
		return -EINVAL;
	m->n = p->topo.per_dc;
	m->d = p->topo.n_dc;
	m->w_count = sm_workers(p);
	m->shape = p->topo.wan;
	m->n_wan = sm_wan_count(m->shape, m->d);
	for (i = 0; i < prog->n; i++) {
		uint64_t k = sm_frames(prog->r[i].bytes, pk->payload, NULL);

		k *= sm_phase_sends_max(&prog->plan.ph[prog->r[i].phase]); /* a tree's, a fan's */
		if (k > maxk)
			maxk = k;
	}
	m->scap = maxk;
	m->nic = calloc((size_t)4 * m->w_count + m->n_wan, sizeof(*m->nic));
	m->stage = calloc(m->w_count, sizeof(*m->stage));
	m->ready = calloc(2 * (size_t)m->w_count, sizeof(*m->ready));
	m->scratch = calloc(m->scap, sizeof(*m->scratch));
	m->wan_to = calloc(m->n_wan + 1, sizeof(*m->wan_to));
	m->cur = calloc(m->w_count, sizeof(*m->cur));
	m->have_in = calloc(m->w_count, sizeof(*m->have_in));
	m->need = calloc(2 * (size_t)m->w_count, sizeof(*m->need));
	m->in_t = calloc(m->w_count, sizeof(*m->in_t));
	m->early_head = calloc(m->w_count, sizeof(*m->early_head));
	m->q = calloc((size_t)m->w_count + m->n_wan, sizeof(*m->q));
	if (m->nic == NULL || m->stage == NULL || m->ready == NULL || m->scratch == NULL ||
	    m->wan_to == NULL || m->cur == NULL || m->have_in == NULL || m->need == NULL ||
	    m->in_t == NULL || m->early_head == NULL || m->q == NULL) {
		pmodel_free(m);
		return -ENOMEM;
	}
	m->down = m->nic + m->w_count;
	m->port = m->down + m->w_count;
	m->mlink = m->port + m->w_count;
	m->wan = m->mlink + m->w_count;
	m->txdone = m->ready + m->w_count;
	m->got = m->need + m->w_count;
	for (w = 0; w < m->w_count; w++) {
		int s;

		hop_init(&m->nic[w], m->l.intra_bw, m->l.nic_delay);
		hop_init(&m->down[w], m->l.intra_bw, m->l.down_delay);
		hop_init(&m->port[w], m->l.port_bw, 0);
		hop_init(&m->mlink[w], m->l.intra_bw, m->l.mlink_delay);
		for (s = 0; s < SM_STAGE_COUNT; s++)
			hop_init(&m->stage[w][s], m->l.stage_bw[s], 0);
	}
	for (i = 0; i < m->n_wan; i++) {
		uint32_t from;

		hop_init(&m->wan[i], m->l.wan_bw,
			 sm_wan_link_delay(m->shape, m->d, i, m->l.wan_delay));
		sm_wan_ends(m->shape, m->d, i, &from, &m->wan_to[i]);
	}
	return 0;
}

/* An iterator of the closed form, step by step (see packet.h). */
struct sm_packet_iter {
	struct sm_params p;		/* copies: the caller's may change or go */
	struct sm_packet pk;
	struct sm_program prog;
	struct pmodel m;
	uint64_t *start, *end, prev_end;
	int rc;				/* sticky: a step that failed fails every later one */
	bool barrier;			/* every step starts when the last worker has finished */
	/* a step from a quiescent state, and the state after it, for the next quiescent one */
	bool cached;
	uint64_t c_start, c_time, c_frames;
	struct hop *snap, *snap_stage;	/* [4 w + WAN links], [w x stages] */
	uint64_t shortcuts;
	bool no_shortcut;		/* the tests' reference: every step in full */
};

static size_t
n_hops(const struct pmodel *m)
{
	return (size_t)4 * m->w_count + m->n_wan;
}

/*
 * Whether nothing of the earlier steps can touch a step starting at @t: every serialiser free
 * and every earlier round's last arrival at or before t.  Every time of the step is then later
 * than t (a frame takes at least a picosecond on its first hop), so the earlier state enters
 * only through max() against later times: the step is the same as any other step from a
 * quiescent state, shifted.
 */
static bool
quiescent(const struct pmodel *m, uint64_t t)
{
	size_t i, n = n_hops(m);
	uint32_t w;
	int s;

	for (i = 0; i < n; i++)
		if (m->nic[i].busy > t || m->nic[i].prev_last > t)
			return false;
	for (w = 0; w < m->w_count; w++)
		for (s = 0; s < SM_STAGE_COUNT; s++)
			if (m->stage[w][s].busy > t || m->stage[w][s].prev_last > t)
				return false;
	return true;
}

static void
shift_hops(struct hop *dst, const struct hop *src, size_t n, uint64_t delta)
{
	size_t i;

	for (i = 0; i < n; i++) {
		dst[i] = src[i];
		dst[i].busy += delta;
		dst[i].prev_last += delta;
	}
}

int
sm_packet_iter_create(const struct sm_params *p, const struct sm_packet *pk, enum sm_variant v,
		      double budget, struct sm_packet_iter **out)
{
	struct sm_packet_iter *it;
	int rc;

	*out = NULL;
	if (sm_packet_check(pk, NULL, 0) != 0)
		return -EINVAL;
	it = calloc(1, sizeof(*it));
	if (it == NULL)
		return -ENOMEM;
	it->p = *p;
	it->pk = *pk;
	rc = sm_program_build(&it->p, v, budget, &it->prog);
	if (rc == 0)
		rc = pmodel_init(&it->m, &it->p, &it->pk, &it->prog);
	if (rc != 0) {
		sm_program_free(&it->prog);
		free(it);
		return rc;
	}
	it->start = calloc(it->m.w_count, sizeof(*it->start));
	it->end = calloc(it->m.w_count, sizeof(*it->end));
	it->snap = calloc(n_hops(&it->m), sizeof(*it->snap));
	it->snap_stage = calloc((size_t)it->m.w_count * SM_STAGE_COUNT, sizeof(*it->snap_stage));
	if (it->start == NULL || it->end == NULL || it->snap == NULL || it->snap_stage == NULL) {
		sm_packet_iter_free(it);
		return -ENOMEM;
	}
	it->barrier = pk->sync != SM_SYNC_NONE;
	*out = it;
	return 0;
}

void
sm_packet_iter_free(struct sm_packet_iter *it)
{
	if (it == NULL)
		return;
	free(it->start);
	free(it->end);
	free(it->snap);
	free(it->snap_stage);
	pmodel_free(&it->m);
	sm_program_free(&it->prog);
	free(it);
}

uint64_t
sm_packet_iter_shortcuts(const struct sm_packet_iter *it)
{
	return it->shortcuts;
}

void
sm_packet_iter_no_shortcut(struct sm_packet_iter *it)
{
	it->no_shortcut = true;
}

/* One step of the recursion from the workers' starts. */
static int
full_step(struct sm_packet_iter *it, uint64_t *step_end, uint64_t *frames)
{
	struct pmodel *m = &it->m;
	const struct sm_program *prog = &it->prog;
	unsigned int i, j, k;
	uint32_t w;
	int rc = 0;

	*frames = 0;
	*step_end = 0;
	for (w = 0; w < m->w_count; w++) {
		/* a step barrier: every worker starts when the last has finished */
		m->ready[w] = (it->barrier ? it->prev_end : it->end[w]) + prog->compute_ps;
		m->txdone[w] = m->ready[w];
	}
	for (i = 0; i < prog->n && rc == 0; i = j) {
		/* a segment: a phase with phase barriers, else the whole step */
		for (j = i + 1; j < prog->n; j++)
			if (it->pk.sync == SM_SYNC_PHASE && prog->r[j].phase != prog->r[i].phase)
				break;
		if (i > 0)
			barrier(m);	/* between phases */
		for (w = 0; w < m->w_count; w++)
			it->start[w] = m->ready[w] > m->txdone[w] ? m->ready[w] : m->txdone[w];
		rc = segment(m, i, j, it->start);
		for (k = i; k < j; k++)
			*frames += (uint64_t)prog->r[k].flows *
				   sm_frames(prog->r[k].bytes, it->pk.payload, NULL);
	}
	for (w = 0; w < m->w_count; w++) {
		it->end[w] = m->ready[w] > m->txdone[w] ? m->ready[w] : m->txdone[w];
		if (it->end[w] > *step_end)
			*step_end = it->end[w];
	}
	return rc;
}

int
sm_packet_iter_next(struct sm_packet_iter *it, struct sm_packet_step *out)
{
	struct pmodel *m = &it->m;
	uint64_t step_end, frames, t = it->prev_end;
	bool quiet;
	uint32_t w;

	if (it->rc != 0)
		return it->rc;
	quiet = it->barrier && !it->no_shortcut && quiescent(m, t);
	if (quiet && it->cached) {
		/* the cached quiescent step, shifted to start at t */
		uint64_t delta = t - it->c_start;

		shift_hops(m->nic, it->snap, n_hops(m), delta);
		shift_hops(&m->stage[0][0], it->snap_stage, (size_t)m->w_count * SM_STAGE_COUNT,
			   delta);
		step_end = t + it->c_time;
		frames = it->c_frames;
		for (w = 0; w < m->w_count; w++)
			it->end[w] = step_end;	/* a barrier: only their maximum is used */
		it->shortcuts++;
	} else {
		it->rc = full_step(it, &step_end, &frames);
		if (it->rc != 0)
			return it->rc;
		if (quiet) {
			it->cached = true;
			it->c_start = t;
			it->c_time = step_end - t;
			it->c_frames = frames;
			memcpy(it->snap, m->nic, n_hops(m) * sizeof(*it->snap));
			memcpy(it->snap_stage, &m->stage[0][0],
			       (size_t)m->w_count * SM_STAGE_COUNT * sizeof(*it->snap_stage));
		}
	}
	out->end_ps = step_end;
	out->time_ps = step_end - t;
	out->frames = frames;
	it->prev_end = step_end;
	return 0;
}

int
sm_packet_model(const struct sm_params *p, const struct sm_packet *pk, enum sm_variant v,
		double budget, unsigned int steps, struct sm_packet_step *out)
{
	struct sm_packet_iter *it;
	unsigned int s;
	int rc;

	rc = sm_packet_iter_create(p, pk, v, budget, &it);
	for (s = 0; s < steps && rc == 0; s++)
		rc = sm_packet_iter_next(it, &out[s]);
	sm_packet_iter_free(it);
	return rc;
}

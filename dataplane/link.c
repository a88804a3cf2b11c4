/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The link element: FIFO + serialiser + propagation delay, with tail drop.
 *
 * References: linux net/sched/sch_netem.c (tfifo_enqueue: time_to_send kept with the packet;
 * packet_time_ns: serialisation time from the rate and per-packet overhead); a frame's
 * serialisation here is sm_ser_ps() of its charged bytes, the same function the packet-level
 * closed form uses.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "../models/ring.h"
#include "capture.h"
#include "ffwd.h"
#include "fpool.h"
#include "frame.h"
#include "link.h"
#include "parallel.h"
#include "rawframe.h"
#include "usdt.h"

#define RING_MIN 64

/* A frame that has left the wire's near end, held until it is due (reordering jitter). */
struct imp_held {
	struct dp_pkt p;
	dp_time_t due;
	uint64_t seq;			/* its place in the order the frames were sent */
};

/* A link's impairments: the model, its state, and the frames held for their due times (a
 * binary min-heap on (due, seq): ties leave in the order they were sent). */
struct dp_link_imp {
	struct sm_impair im;
	struct sm_impair_state st;
	dp_time_t last_due;		/* fifo: no frame arrives before the one sent before it */
	struct imp_held *heap;
	uint32_t n, cap;
	uint64_t seq_in, seq_out;	/* seq_out: one past the latest sent of those arrived */
	struct sm_red_state aqm;	/* the queue's RED average and count */
	struct sm_ltrace_state lt;	/* where the link is in its delivery trace */
};

/* The waiting frame of place @p i (0: the earliest) in its sorted ring. */
#define PEND(l, i) ((l)->pend[((l)->pend_h + (i)) & ((l)->pend_cap - 1)])

static void link_event(struct dp_elem *e, dp_time_t now);
static void link_rx(struct dp_elem *e, const struct dp_pkt *p, dp_time_t now);
static uint64_t link_held(const struct dp_elem *e);

static bool link_settled(const struct dp_elem *e);

static const struct dp_ffwd_field link_moving[] = {
	DP_FFWD_FIELD(struct dp_link, head), DP_FFWD_FIELD(struct dp_link, qhead),
	DP_FFWD_FIELD(struct dp_link, pend_seq), DP_FFWD_FIELD(struct dp_link, pend_h),
	DP_FFWD_FIELD(struct dp_link, ohead), DP_FFWD_FIELD(struct dp_link, tail),
	DP_FFWD_FIELD(struct dp_link, busy), DP_FFWD_FIELD(struct dp_link, qbytes),
	DP_FFWD_FIELD(struct dp_link, qframes), DP_FFWD_FIELD(struct dp_link, last_charge),
	DP_FFWD_FIELD(struct dp_link, last_ps), DP_FFWD_FIELD(struct dp_link, busy_ps),
	DP_FFWD_FIELD(struct dp_link, max_qbytes), DP_FFWD_FIELD(struct dp_link, max_qframes),
	DP_FFWD_FIELD(struct dp_link, fg_over), DP_FFWD_FIELD(struct dp_link, bg_drop),
	DP_FFWD_FIELD(struct dp_link, tcp_drop), DP_FFWD_FIELD(struct dp_link, raw_drop),
	DP_FFWD_FIELD(struct dp_link, lost), DP_FFWD_FIELD(struct dp_link, reordered),
	DP_FFWD_FIELD(struct dp_link, corrupted), DP_FFWD_FIELD(struct dp_link, duplicated),
	DP_FFWD_FIELD(struct dp_link, dup_failed), DP_FFWD_FIELD(struct dp_link, marked),
	DP_FFWD_FIELD(struct dp_link, aqm_drop),
};
static const struct dp_ffwd_layout link_ffwd = {
	.size = sizeof(struct dp_link),
	.moving = link_moving, .n_moving = RTE_DIM(link_moving),
	.settled = link_settled,
};

const struct dp_elem_ops dp_link_ops = {
	.kind = "link",
	.event = link_event,
	.rx = link_rx,
	.held = link_held,
	.ffwd = &link_ffwd,
};

int
dp_link_init(struct dp_link *l, struct dp_engine *eng, const struct dp_link_params *p)
{
	int rc;

	if (p->bw == 0 || p->next == NULL)
		return -EINVAL;
	memset(l, 0, sizeof(*l));
	rc = dp_engine_add(eng, &l->e, &dp_link_ops, p->name);
	if (rc != 0)
		return rc;
	l->bw = p->bw;
	l->delay = p->delay;
	l->cap_bytes = p->cap_bytes;
	l->cap_frames = p->cap_frames;
	l->account = p->account;
	l->next = p->next;
	l->cap_in = p->cap_in;
	l->cap_out = p->cap_out;
	l->cap_drop = -1;
	l->cap_loss = -1;
	l->cap_mark = -1;
	l->cap_aqm = -1;
	l->fg_lossless = p->fg_lossless;
	l->last_charge = UINT32_MAX;
	l->ring = aligned_alloc(64, RING_MIN * sizeof(*l->ring));
	if (l->ring == NULL)
		return -ENOMEM;
	l->mask = RING_MIN - 1;
	return 0;
}

void
dp_link_fini(struct dp_link *l)
{
	if (l->busy_ps > 0)
		DP_USDT_BUSY_END(l->e.id, l->busy);	/* its last busy period */
	while (l->head != l->tail)
		rte_pktmbuf_free(l->ring[l->head++ & l->mask].p.m);	/* NULL is fine */
	free(l->ring);
	l->ring = NULL;
	for (uint32_t i = 0; i < l->pend_n; i++)
		rte_pktmbuf_free(PEND(l, i).p.m);
	free(l->pend);
	l->pend = NULL;
	l->pend_n = 0;
	if (l->imp != NULL) {
		for (uint32_t i = 0; i < l->imp->n; i++)
			rte_pktmbuf_free(l->imp->heap[i].p.m);
		free(l->imp->heap);
		free(l->imp);
		l->imp = NULL;
	}
	if (l->wait != NULL) {
		for (int c = 0; c < DP_WAIT_CLASSES; c++)
			dp_lateness_free(&l->wait->h[c]);
		free(l->wait->log);
		free(l->wait);
		l->wait = NULL;
	}
}

void
dp_link_wait_summary(const struct dp_link *l, struct dp_wait_summary out[DP_WAIT_CLASSES])
{
	const struct dp_link_wait *w = l->wait;
	double p999;
	int c;

	for (c = 0; c < DP_WAIT_CLASSES; c++) {
		struct dp_wait_summary *s = &out[c];

		if (w->given) {
			*s = w->from[c];
			continue;
		}
		s->n = w->h[c].seen;
		s->mean_ns = s->n ? (double)w->sum_ps[c] / 1e3 / (double)s->n : NAN;
		if (s->n)
			dp_lateness_stats(&w->h[c], &s->p50_ns, &s->p99_ns, &p999, &s->max_ns);
		else
			s->p50_ns = s->p99_ns = s->max_ns = NAN;
	}
}

void
dp_link_wait_log_on(struct dp_link *l)
{
	l->wait->log_on = true;
	l->wait->log_n = 0;
}

void
dp_link_wait_log_reset(struct dp_link *l)
{
	l->wait->log_n = 0;
	l->wait->log_failed = false;
}

bool
dp_link_wait_log_whole(const struct dp_link *l)
{
	return !l->wait->log_failed;
}

void
dp_link_wait_repeat(struct dp_link *l, uint64_t k)
{
	struct dp_link_wait *w = l->wait;
	uint32_t i;

	for (i = 0; i < w->log_n; i++) {
		int c = (int)(w->log[i] >> 63);
		uint64_t ps = w->log[i] & ~(1ull << 63);

		w->sum_ps[c] += k * ps;
		dp_lateness_add_n(&w->h[c], ps / 1000, k);
	}
}

/* A wait of @p ps of class @p c into the step's log. */
static void
wait_log(struct dp_link_wait *w, int c, uint64_t ps)
{
	if (w->log_n == w->log_cap) {
		uint32_t cap = w->log_cap ? 2 * w->log_cap : 1024;
		uint64_t *n = cap > w->log_cap ? realloc(w->log, cap * sizeof(*n)) : NULL;

		if (n == NULL) {
			w->log_failed = true;
			return;
		}
		w->log = n;
		w->log_cap = cap;
	}
	w->log[w->log_n++] = ps | (uint64_t)c << 63;
}

int
dp_link_wait_on(struct dp_link *l)
{
	struct dp_link_wait *w = calloc(1, sizeof(*w));
	int c;

	if (w == NULL)
		return -ENOMEM;
	for (c = 0; c < DP_WAIT_CLASSES; c++) {
		dp_lateness_reset(&w->h[c]);
		if (w->h[c].hist == NULL) {
			while (c-- > 0)
				dp_lateness_free(&w->h[c]);
			free(w);
			return -ENOMEM;
		}
	}
	l->wait = w;
	return 0;
}

void
dp_link_impair_get(const struct dp_link *l, struct sm_impair *im)
{
	if (l->imp != NULL)
		*im = l->imp->im;
	else
		*im = (struct sm_impair){ .loss = SM_LOSS_NONE, .dist = SM_JITTER_NONE };
}

uint64_t
dp_link_stream(const struct dp_link *l, uint64_t seed)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a: the same in any partition */

	for (const char *c = l->e.name; *c != '\0'; c++)
		h = (h ^ (uint8_t)*c) * 0x100000001b3ULL;
	return sm_rng_stream_seed(seed, h);
}

int
dp_link_impair_live(struct dp_link *l, double loss, double jitter, uint64_t seed)
{
	struct sm_impair im;

	dp_link_impair_get(l, &im);
	sm_impair_override(&im, loss, jitter);
	return dp_link_impair(l, &im, dp_link_stream(l, seed));
}

dp_time_t
dp_link_min_delay(const struct dp_link *l)
{
	double lo;

	if (l->imp == NULL || l->imp->im.dist == SM_JITTER_NONE)
		return l->delay;
	lo = (double)l->delay + sm_impair_jitter_least(&l->imp->im) * 1e12;
	return lo > 0.0 ? (dp_time_t)lo : 0;
}

int
dp_link_impair(struct dp_link *l, const struct sm_impair *im, uint64_t seed)
{
	struct dp_link_imp *x = l->imp;

	if (!sm_impair_active(im)) {
		if (x != NULL && x->n == 0 && l->head == l->tail) {
			free(x->heap);
			free(x);
			l->imp = NULL;
		} else if (x != NULL) {
			x->im = (struct sm_impair){ .reorder = x->im.reorder };	/* drain the held */
		}
		return 0;
	}
	if (l->xbox != NULL) {
		struct dp_link_imp probe = { .im = *im };
		struct dp_link tmp = { .delay = l->delay, .imp = &probe };

		/* the far end's partition may run ahead by the latency: nothing may come sooner;
		 * and it takes its copy as the frame is queued: no fate drawn at the far end */
		if (im->reorder || dp_link_min_delay(&tmp) < l->delay || im->duplicate > 0 ||
		    im->corrupt > 0)
			return -EINVAL;
	}
	if (x == NULL) {
		x = calloc(1, sizeof(*x));
		if (x == NULL)
			return -ENOMEM;
		sm_impair_start(&x->st, seed);
		sm_red_start(&x->aqm);
		l->imp = x;
	}
	if (im->trace != x->im.trace)
		sm_ltrace_start(&x->lt, 0);	/* a new trace starts at the run's time 0 */
	x->im = *im;
	return 0;
}

static uint64_t
link_held(const struct dp_elem *e)
{
	const struct dp_link *l = (const struct dp_link *)e;

	return l->tail - l->head + (l->imp != NULL ? l->imp->n : 0) + l->pend_n;
}

/* Double the ring, keeping the order. */
static int
grow(struct dp_link *l)
{
	uint32_t head = l->head;
	struct dp_link_slot *r = sm_ring_grow(l->ring, &l->mask, &l->head, &l->tail, sizeof(*r), 0,
					      64);

	if (r == NULL)
		return -ENOMEM;
	l->ring = r;
	l->qhead -= head;
	l->ohead -= head;
	return 0;
}

static inline dp_time_t
ser(struct dp_link *l, uint32_t charge)
{
	if (charge != l->last_charge) {
		l->last_charge = charge;
		l->last_ps = sm_ser_ps(charge, l->bw);
	}
	return l->last_ps;
}

/* The next event: the head's arrival, or an earlier pending "out" capture. */
static inline dp_time_t
next_event(const struct dp_link *l)
{
	dp_time_t t = l->head != l->tail ? l->ring[l->head & l->mask].arrive : DP_NEVER;

	if (l->ohead != l->tail && l->ring[l->ohead & l->mask].start < t)
		t = l->ring[l->ohead & l->mask].start;
	if (l->imp != NULL && l->imp->n > 0 && l->imp->heap[0].due < t)
		t = l->imp->heap[0].due;
	if (unlikely(l->pend_n > 0) && PEND(l, 0).t + l->delay < t)
		t = PEND(l, 0).t + l->delay;	/* no frame of theirs arrives before */
	return t;
}

/* Schedule the next event; it reads the head's slot and delivers its frame. */
static inline void
resched(struct dp_link *l)
{
	if (l->head == l->tail || l->imp != NULL) {
		dp_sched(&l->e, next_event(l));
		return;
	}
	dp_sched_warm(&l->e, next_event(l), &l->ring[l->head & l->mask],
		      l->ring[l->head & l->mask].p.m);
}

/* Frames that have started serialising by @now have left the queue. */
static inline void
advance_queue(struct dp_link *l, dp_time_t now)
{
	while (l->qhead != l->tail && l->ring[l->qhead & l->mask].start <= now) {
		l->qbytes -= l->ring[l->qhead & l->mask].p.len;
		l->qframes--;
		l->qhead++;
	}
}

/*
 * A frame queued on an impaired link: lost or not, and when it is due at the far end.  With
 * reordering, slot.arrive is when it leaves the wire's near end, and it waits among the held.
 */
static void
impair(struct dp_link *l, struct dp_link_slot *s, const struct dp_pkt *p)
{
	struct dp_link_imp *x = l->imp;
	bool lost = sm_impair_lose(&x->im, &x->st);
	dp_time_t due = s->arrive;

	if (x->im.dist != SM_JITTER_NONE) {
		double d = (double)l->delay + sm_impair_jitter(&x->im, &x->st) * 1e12;

		due = l->busy + (d > 0.0 ? (dp_time_t)d : 0);
		if (x->im.reorder)
			s->arrive = l->busy;
		else if (due < x->last_due)
			due = x->last_due;
	}
	if (!x->im.reorder) {
		x->last_due = due;
		s->arrive = due;
	}
	if (lost && !(p->meta.flags & (DP_SE_F_BG | DP_SE_F_RAW | DP_SE_F_TCP)))
		/* nothing resends a frame of the sync over frames: it cannot complete */
		dp_engine_fail(l->e.eng, -EPROTO, "%s lost a frame of the sync (worker %u, step %u): "
			       "with job.transport = frames nothing resends it; losses need "
			       "job.transport = tcp", l->e.name, p->meta.src, p->meta.step);
	s->due = lost ? DP_NEVER : due;
}

/* Hold a frame until it is due; -ENOMEM if the heap cannot grow. */
static int
hold(struct dp_link_imp *x, const struct dp_pkt *p, dp_time_t due)
{
	struct imp_held h = { .p = *p, .due = due, .seq = x->seq_in++ };
	uint32_t i;

	if (x->n == x->cap) {
		uint32_t cap = x->cap ? 2 * x->cap : 64;
		struct imp_held *a = realloc(x->heap, cap * sizeof(*a));

		if (a == NULL)
			return -ENOMEM;
		x->heap = a;
		x->cap = cap;
	}
	for (i = x->n++; i > 0; i = (i - 1) / 2) {
		const struct imp_held *up = &x->heap[(i - 1) / 2];

		if (up->due < h.due || (up->due == h.due && up->seq < h.seq))
			break;
		x->heap[i] = *up;
	}
	x->heap[i] = h;
	return 0;
}

/* The first held frame out of the heap. */
static struct imp_held
unhold(struct dp_link_imp *x)
{
	struct imp_held top = x->heap[0], last = x->heap[--x->n];
	uint32_t i = 0;

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= x->n)
			break;
		if (c + 1 < x->n && (x->heap[c + 1].due < x->heap[c].due ||
				     (x->heap[c + 1].due == x->heap[c].due &&
				      x->heap[c + 1].seq < x->heap[c].seq)))
			c++;
		if (last.due < x->heap[c].due || (last.due == x->heap[c].due && last.seq < x->heap[c].seq))
			break;
		x->heap[i] = x->heap[c];
		i = c;
	}
	x->heap[i] = last;
	return top;
}

/* Is the frame ECN-capable: a TCP data segment of an ECN transport, or a bridged ECT frame. */
static bool
frame_ect(const struct dp_link *l, const struct dp_pkt *p)
{
	if (p->meta.flags & DP_SE_F_TCP)
		return l->tcp_ect && p->meta.payload > 0 && !(p->meta.flags & DP_SE_F_TCP_SACK);
	if ((p->meta.flags & DP_SE_F_RAW) && p->m != NULL)
		return dp_raw_ecn(rte_pktmbuf_mtod(p->m, const uint8_t *),
				  rte_pktmbuf_data_len(p->m)) > 0;
	return false;
}

/*
 * The queue's RED or step threshold (models/red.h) for a frame that arrives: SM_RED_PASS,
 * SM_RED_MARK (the caller marks it once queued) or SM_RED_DROP.
 */
static enum sm_red_verdict
aqm(struct dp_link *l, const struct dp_pkt *p, dp_time_t now)
{
	struct dp_link_imp *x = l->imp;
	const struct sm_red *r = &x->im.aqm;
	double idle = 0;

	if (r->kind == SM_AQM_RED && l->qbytes == 0 && now > l->busy) {
		/* idle since the serialiser finished: the average decays as if avpkt frames
		 * had gone out meanwhile (red_calc_qavg_from_idle_time()) */
		double slot = (double)ser(l, sm_charge_frame(l->account, (uint32_t)r->avpkt));

		idle = slot > 0 ? (double)(now - l->busy) / slot : 0;
	}
	return sm_red_arrive(r, &x->aqm, l->qbytes, idle, frame_ect(l, p), &x->st.aqm_rng);
}

static void
trail_add(struct dp_link_trail *tr, dp_time_t push, dp_time_t start, uint32_t bytes)
{
	if (tr->n == tr->cap) {
		uint64_t cap = tr->cap ? 2 * tr->cap : 1024;
		dp_time_t *a = realloc(tr->push, cap * sizeof(*a)), *b;
		uint32_t *c;

		if (a != NULL)
			tr->push = a;
		b = a != NULL ? realloc(tr->start, cap * sizeof(*b)) : NULL;
		if (b != NULL)
			tr->start = b;
		c = b != NULL ? realloc(tr->bytes, cap * sizeof(*c)) : NULL;
		if (c == NULL) {
			tr->failed = true;
			return;
		}
		tr->bytes = c;
		tr->cap = cap;
	}
	tr->push[tr->n] = push;
	tr->start[tr->n] = start;
	tr->bytes[tr->n++] = bytes;
}

int
dp_link_trail_sum(struct dp_link_trail *tr)
{
	uint64_t i, *s = realloc(tr->sum, (tr->n + 1) * sizeof(*s));

	if (s == NULL)
		return -ENOMEM;
	tr->sum = s;
	s[0] = 0;
	for (i = 0; i < tr->n; i++)
		s[i + 1] = s[i] + tr->bytes[i];
	return 0;
}

/* The frames of @a (non-decreasing) before @t, or at or before it if @p incl. */
static uint64_t
count_to(const dp_time_t *a, uint64_t n, dp_time_t t, bool incl)
{
	uint64_t lo = 0, hi = n;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (a[mid] < t || (incl && a[mid] == t))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int64_t
dp_link_trail_backlog(const struct dp_link_trail *tr, dp_time_t t)
{
	/* a FIFO: the frames start in the order they were queued, so both times ascend */
	uint64_t in = count_to(tr->push, tr->n, t, false);
	uint64_t out = count_to(tr->start, tr->n, t, true);

	if (in < tr->n && tr->push[in] == t)
		return -1;
	return (int64_t)(tr->sum[in] - tr->sum[out < in ? out : in]);
}

void
dp_link_trail_free(struct dp_link_trail *tr)
{
	free(tr->push);
	free(tr->start);
	free(tr->bytes);
	free(tr->sum);
	memset(tr, 0, sizeof(*tr));
}

static int
push(struct dp_link *l, const struct dp_pkt *p, dp_time_t now, dp_time_t *start)
{
	uint32_t charge = p->meta.flags & (DP_SE_F_RAW | DP_SE_F_TCP) ?
				  sm_charge_frame(l->account, p->len) :
				  sm_charge(l->account, p->meta.payload);
	enum sm_red_verdict verdict = SM_RED_PASS;
	uint32_t bytes = p->len;
	struct dp_link_slot *s;
	dp_time_t t;
	bool full;

	advance_queue(l, now);
	full = (l->cap_frames && l->qframes + 1 > l->cap_frames) ||
	       (l->cap_bytes && l->qbytes + bytes > l->cap_bytes);
	if (unlikely(l->imp != NULL) && l->imp->im.aqm.kind != SM_AQM_NONE) {
		verdict = aqm(l, p, now);
		if (verdict == SM_RED_DROP && l->fg_lossless &&
		    !(p->meta.flags & (DP_SE_F_BG | DP_SE_F_RAW)))
			verdict = SM_RED_PASS;	/* the sync's class is lossless: marked, never dropped */
	}
	if (full || verdict == SM_RED_DROP) {
		bool bg = p->meta.flags & DP_SE_F_BG, raw = p->meta.flags & DP_SE_F_RAW;
		bool tcp = p->meta.flags & DP_SE_F_TCP, early = verdict == SM_RED_DROP;

		if (early && !(bg || raw || tcp))
			dp_engine_fail(l->e.eng, -EPROTO, "%s: RED dropped a frame of the sync "
				       "(worker %u, step %u): with job.transport = frames nothing "
				       "resends it; RED's drops need job.transport = tcp",
				       l->e.name, p->meta.src, p->meta.step);
		if (bg || raw || !l->fg_lossless) {
			const struct dp_meta *meta = &p->meta;

			DP_USDT_DROP(l->e.id, bg || raw, bytes, now);
			if (raw)
				l->raw_drop++;	/* a bridged frame: its sender's to resend */
			else if (tcp)
				l->tcp_drop++;	/* TCP's to resend */
			else if (bg)
				l->bg_drop++;
			else if (!early)
				/* nothing resends it: the sync cannot complete */
				dp_engine_fail(l->e.eng, -ENOBUFS, "%s dropped a frame of the sync "
					       "(worker %u, step %u, round %u): its queue limit (%lu "
					       "bytes) is below what the sync needs; raise it or make "
					       "the sync lossless (queues.sync_lossless = yes)",
					       l->e.name, meta->src, meta->step, meta->round,
					       (unsigned long)l->cap_bytes);
			l->e.c.drop++;
			l->e.c.drop_bytes += bytes;
			if (early)
				l->aqm_drop++;
			dp_capture_frame(l->e.eng, early ? l->cap_aqm : l->cap_drop, p, now);
			dp_frame_end(l->e.eng, p);
			return -ENOBUFS;
		}
		l->fg_over++;	/* the sync's class is lossless: held upstream on a real link */
	}
	if (l->tail - l->head > l->mask && grow(l) != 0) {
		dp_engine_fail(l->e.eng, -ENOMEM, "%s: out of memory for its queue", l->e.name);
		l->e.c.drop++;
		l->e.c.drop_bytes += bytes;
		dp_frame_end(l->e.eng, p);
		return -ENOBUFS;
	}
	dp_capture_frame(l->e.eng, l->cap_in, p, now);
	t = now > l->busy ? now : l->busy;
	if (now > l->busy || l->busy_ps == 0) {
		/* an idle serialiser: the previous busy period ended at l->busy, one begins */
		if (l->busy_ps > 0)
			DP_USDT_BUSY_END(l->e.id, l->busy);
		DP_USDT_BUSY_START(l->e.id, now);
	}
	s = &l->ring[l->tail++ & l->mask];
	s->p = *p;
	if (unlikely(verdict == SM_RED_MARK)) {
		s->p.meta.flags |= DP_SE_F_CE;
		if (s->p.m != NULL)
			(void)dp_raw_set_ce(rte_pktmbuf_mtod(s->p.m, uint8_t *),
					    rte_pktmbuf_data_len(s->p.m));
		l->marked++;
		dp_capture_frame(l->e.eng, l->cap_mark, &s->p, now);
	}
	if (unlikely(l->imp != NULL) && l->imp->im.trace != NULL) {
		uint64_t first, last;

		/* its IP packet and a TUN header, as Mahimahi counts a packet (ltrace.h) */
		sm_ltrace_send(l->imp->im.trace, &l->imp->lt, now, bytes > 14 ? bytes - 10 : 4,
			       &first, &last);
		t = first;
		l->busy = last;
	} else {
		l->busy = t + ser(l, charge);
	}
	s->start = t;
	if (unlikely(l->trail != NULL))
		trail_add(l->trail, now, t, bytes);
	if (l->wait != NULL) {	/* its wait in the queue, by class (ns in the histogram) */
		int c = p->meta.flags & DP_SE_F_BG ? DP_WAIT_BG : DP_WAIT_SYNC;

		l->wait->sum_ps[c] += t - now;
		dp_lateness_add(&l->wait->h[c], (t - now) / 1000, 0);
		if (unlikely(l->wait->log_on))
			wait_log(l->wait, c, t - now);
	}
	l->busy_ps += l->busy - t;
	s->arrive = l->busy + l->delay;
	if (l->imp != NULL)
		impair(l, s, p);
	l->qbytes += bytes;
	l->qframes++;
	if (l->qbytes > l->max_qbytes)
		l->max_qbytes = l->qbytes;
	if (l->qframes > l->max_qframes)
		l->max_qframes = l->qframes;
	if (l->cap_out >= 0 && l->ohead + 1 == l->tail && (t == now || l->e.eng->window > 0)) {
		/* starts at once; in a steady run, recorded now: an event at its start would
		 * change the windows, and the run with it */
		dp_capture_frame(l->e.eng, l->cap_out, p, t);
		l->ohead++;
	} else if (l->cap_out < 0) {
		l->ohead = l->tail;
	}
	if (l->xbox != NULL && (l->imp == NULL || s->due != DP_NEVER) &&
	    dp_xbox_post(l->xbox, p, s->arrive, l->xin) != 0)
		dp_engine_fail(l->e.eng, -ENOMEM, "%s: out of memory for the frames to its far end",
			       l->e.name);
	if (start != NULL)
		*start = t;
	if (l->head + 1 == l->tail)
		resched(l);	/* the first in the ring: a new next event */
	else if (l->ohead + 1 == l->tail)
		dp_sched(&l->e, next_event(l));	/* its "out" capture may come first */
	return 0;
}

static void pend_commit(struct dp_link *l, dp_time_t t, uint32_t by);

int
dp_link_push(struct dp_link *l, const struct dp_pkt *p, dp_time_t now, dp_time_t *start)
{
	l->e.c.rx++;
	l->e.c.rx_bytes += p->len;
	if (unlikely(l->pend_n > 0))
		pend_commit(l, l->e.eng->now, 0);	/* those surely before it first */
	return push(l, p, now, start);
}

static inline bool
pend_less(const struct dp_link_pend *a, const struct dp_link_pend *b)
{
	return a->t != b->t ? a->t < b->t : a->by != b->by ? a->by < b->by : a->seq < b->seq;
}

/*
 * Queue the waiting frames of times before @p t, and of @p t itself those brought by elements
 * of ids below @p by (their events at @p t run first), in time order.
 */
static void
pend_commit(struct dp_link *l, dp_time_t t, uint32_t by)
{
	while (l->pend_n > 0) {
		const struct dp_link_pend *x = &PEND(l, 0);
		struct dp_pkt p;
		dp_time_t when;

		if (x->t > t || (x->t == t && x->by >= by))
			break;
		p = x->p;
		when = x->t;
		l->pend_h++;
		l->pend_n--;
		(void)push(l, &p, when, NULL);
	}
}

/*
 * A frame come early, in a steady run's window: it waits, in order, in a ring sorted by
 * (t, by, seq) (it mostly comes last: one sender at a time); 0 or -ENOMEM.
 */
static int
pend_add(struct dp_link *l, const struct dp_pkt *p, dp_time_t t)
{
	const struct dp_elem *by = l->e.eng->cur;
	struct dp_link_pend x = { t, by != NULL ? by->id : 0, l->pend_seq++, *p };
	uint32_t i;

	if (l->pend_n == l->pend_cap) {
		uint32_t cap = l->pend_cap ? 2 * l->pend_cap : 64;
		struct dp_link_pend *n = malloc(cap * sizeof(*n));

		if (n == NULL)
			return -ENOMEM;
		for (i = 0; i < l->pend_n; i++)
			n[i] = PEND(l, i);
		free(l->pend);
		l->pend = n;
		l->pend_cap = cap;
		l->pend_h = 0;
	}
	for (i = l->pend_n; i > 0 && pend_less(&x, &PEND(l, i - 1)); i--)
		PEND(l, i) = PEND(l, i - 1);
	PEND(l, i) = x;
	l->pend_n++;
	return 0;
}

bool
dp_link_in_order(const struct dp_link *l, dp_time_t w)
{
	return l->delay >= w && l->xbox == NULL &&
	       (l->imp == NULL || l->imp->im.dist == SM_JITTER_NONE);
}

uint64_t
dp_link_backlog(struct dp_link *l, dp_time_t now)
{
	if (unlikely(l->pend_n > 0))	/* a probe's reading: as its event at @p now sees them */
		pend_commit(l, now, l->e.eng->cur != NULL ? l->e.eng->cur->id : UINT32_MAX);
	advance_queue(l, now);
	return l->qbytes;
}

static void
link_rx(struct dp_elem *e, const struct dp_pkt *p, dp_time_t now)
{
	struct dp_link *l = (struct dp_link *)e;
	struct dp_engine *eng = e->eng;

	if (unlikely(eng->window > 0) && dp_link_in_order(l, eng->window)) {
		/* maybe before its time, from a window: it waits for those of earlier times
		 * (and of its own from elements whose events at that time run first) */
		e->c.rx++;
		e->c.rx_bytes += p->len;
		if (pend_add(l, p, now) != 0) {
			dp_engine_fail(eng, -ENOMEM, "%s: out of memory for its frames to come",
				       e->name);
			e->c.drop++;
			e->c.drop_bytes += p->len;
			dp_frame_end(eng, p);
		}
		pend_commit(l, eng->now, 0);
		dp_sched(e, next_event(l));
		return;
	}
	dp_link_push(l, p, now, NULL);
}

/* A frame reaches the far end: on to the next element, or (cut) its copy is already there. */
static inline void
deliver(struct dp_link *l, const struct dp_pkt *p, dp_time_t now)
{
	l->e.c.tx++;
	l->e.c.tx_bytes += p->len;
	if (l->xbox == NULL)
		l->next->ops->rx(l->next, p, now);
	else if (p->m != NULL)	/* cut: its far end delivers a copy (parallel.h) */
		dp_par_free_later(l->e.eng->part, p->m);
}

/*
 * An impaired link's frame at its far end: corrupted (one bit flipped; syncemu's own frames are
 * then dropped, as their receiver's checksum would, a bridge's go on as on a wire) and
 * duplicated, as its fate stream draws, then delivered.
 */
static void
arrive(struct dp_link *l, struct dp_pkt *p, dp_time_t now)
{
	struct dp_link_imp *x = l->imp;
	bool corrupt, dup, sync = !(p->meta.flags & (DP_SE_F_BG | DP_SE_F_RAW | DP_SE_F_TCP));
	uint32_t bit;

	if (x->im.duplicate <= 0 && x->im.corrupt <= 0) {
		deliver(l, p, now);
		return;
	}
	sm_impair_fate(&x->im, &x->st, p->len, &corrupt, &bit, &dup);
	if ((corrupt || dup) && sync)
		/* the frames transport counts a round's bytes: a lost or doubled frame breaks it */
		dp_engine_fail(l->e.eng, -EPROTO, "%s %s a frame of the sync (worker %u, step %u): "
			       "with job.transport = frames nothing checks or resends it; this "
			       "needs job.transport = tcp", l->e.name, corrupt ? "corrupted" :
			       "duplicated", p->meta.src, p->meta.step);
	if (corrupt) {
		l->corrupted++;
		if (p->m != NULL && p->m->data_len > 0) {
			/* (within the first segment: a frame's payload segment may be shared) */
			bit %= 8u * p->m->data_len;
			rte_pktmbuf_mtod(p->m, uint8_t *)[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		}
		if (!(p->meta.flags & DP_SE_F_RAW)) {
			l->e.c.drop++;
			l->e.c.drop_bytes += p->len;
			dp_capture_frame(l->e.eng, l->cap_loss, p, now);
			dp_frame_end(l->e.eng, p);
			return;
		}
	}
	if (dup) {
		struct dp_pkt c = *p;

		if (p->m != NULL) {
			c.m = rte_pktmbuf_copy(p->m, p->m->pool, 0, UINT32_MAX);
			if (c.m != NULL)
				memcpy(rte_mbuf_to_priv(c.m), rte_mbuf_to_priv(p->m),
				       rte_pktmbuf_priv_size(p->m->pool));
		}
		if (p->m == NULL || c.m != NULL) {
			l->duplicated++;
			l->e.c.rx++;	/* the copy came in on its wire: rx = tx + drop holds */
			l->e.c.rx_bytes += c.len;
			if (!(p->meta.flags & (DP_SE_F_BG | DP_SE_F_RAW)))
				dp_sync_hold(l->e.eng);	/* its own journey, released at its end */
			deliver(l, p, now);
			deliver(l, &c, now);
			return;
		}
		l->dup_failed++;	/* no mbuf for the copy: delivered once */
	}
	deliver(l, p, now);
}

/* An impaired link's event: frames off the wire lost, held or delivered, then the held due. */
static void
impaired_event(struct dp_link *l, dp_time_t now)
{
	struct dp_link_imp *x = l->imp;

	while (l->head != l->tail && l->ring[l->head & l->mask].arrive <= now) {
		const struct dp_link_slot *s = &l->ring[l->head & l->mask];
		struct dp_pkt p = s->p;
		dp_time_t due = s->due;

		if (l->qhead == l->head) {
			l->qbytes -= p.len;
			l->qframes--;
			l->qhead++;
		}
		l->head++;
		if (due == DP_NEVER) {
			l->lost++;
			l->e.c.drop++;
			l->e.c.drop_bytes += p.len;
			DP_USDT_DROP(l->e.id, (p.meta.flags & (DP_SE_F_BG | DP_SE_F_RAW)) != 0, p.len,
				     now);
			dp_capture_frame(l->e.eng, l->cap_loss, &p, now);
			dp_frame_end(l->e.eng, &p);	/* cut or not: no copy was sent on */
		} else if (x->im.reorder && hold(x, &p, due) != 0) {
			dp_engine_fail(l->e.eng, -ENOMEM, "%s: out of memory for its frames in flight",
				       l->e.name);
			l->e.c.drop++;
			dp_frame_end(l->e.eng, &p);
		} else if (!x->im.reorder) {
			arrive(l, &p, now);
		}
	}
	while (x->n > 0 && x->heap[0].due <= now) {
		struct imp_held h = unhold(x);

		if (h.seq < x->seq_out)
			l->reordered++;		/* one sent after it is already there */
		else
			x->seq_out = h.seq + 1;
		arrive(l, &h.p, now);
	}
}

static void
link_event(struct dp_elem *e, dp_time_t now)
{
	struct dp_link *l = (struct dp_link *)e;
	dp_time_t upto = now;

	if (l->burst && e->eng->rt != NULL && e->eng->rt_horizon > now)
		upto = e->eng->rt_horizon;	/* every one due by now in real time, in one go */
	else if (e->eng->window > 0 && e->eng->rt == NULL)
		upto = now + e->eng->window;	/* run.fast_forward = steady */
	if (unlikely(l->pend_n > 0))
		pend_commit(l, now, 0);
	while (l->ohead != l->tail && l->ring[l->ohead & l->mask].start <= upto) {
		const struct dp_link_slot *s = &l->ring[l->ohead & l->mask];

		dp_capture_frame(e->eng, l->cap_out, &s->p, s->start);
		l->ohead++;
	}
	if (l->imp != NULL) {
		impaired_event(l, now);
		resched(l);
		return;
	}
	while (l->head != l->tail && l->ring[l->head & l->mask].arrive <= upto) {
		/* a copy: the receiver may push a frame into this very link, over the slot */
		struct dp_pkt p = l->ring[l->head & l->mask].p;
		dp_time_t at = l->ring[l->head & l->mask].arrive;

		if (at > now && e->eng->window > 0 &&
		    (p.meta.flags & (DP_SE_F_BG | DP_SE_F_LAST)) == (DP_SE_F_BG | DP_SE_F_LAST))
			break;	/* steady: a transfer's end is recorded in time order, its own event */

		if (l->qhead == l->head) {	/* qhead stays ahead of head; the rest is lazy */
			l->qbytes -= p.len;
			l->qframes--;
			l->qhead++;
		}
		l->head++;
		l->e.c.tx++;
		l->e.c.tx_bytes += p.len;
		if (l->head != l->tail) {
			/* the next frame to arrive: its slot (and bytes) have long left the cache */
			const struct dp_link_slot *ns = &l->ring[l->head & l->mask];

			rte_prefetch0(ns);
			if (ns->p.m != NULL)
				rte_prefetch0(ns->p.m);
		}
		if (e->eng->window > 0 && at > e->eng->reach)
			e->eng->reach = at;	/* steady: the run ends no earlier */
		if (l->xbox == NULL)
			l->next->ops->rx(l->next, &p, at > now ? at : now);
		else if (p.m != NULL)	/* cut: its far end delivers a copy (parallel.h) */
			dp_par_free_later(l->e.eng->part, p.m);
	}
	resched(l);
}

static bool
link_settled(const struct dp_elem *e)
{
	const struct dp_link *l = (const struct dp_link *)e;

	return l->imp == NULL && l->xbox == NULL;	/* no random stream, no far end */
}

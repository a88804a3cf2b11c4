/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The background host and the sink.
 *
 * Deck "Hot Spots, and a Shared WAN" (results.md section 9): with other jobs' traffic on the
 * inter-DC link (Poisson, 1 MB transfers) the sync queues.  A host per data centre draws transfer
 * arrivals with exponential gaps (mean = 1 / rate, rate = load x WAN rate / mean size) and sizes
 * from the scenario's distribution, all from its own seeded generator; it queues each transfer's
 * frames on its access link in bursts, the same way a worker does, so the link is never idle while
 * a transfer waits.  The frames cross the same WAN FIFO as the sync and end in the next data
 * centre's sink, which records each transfer's completion time and its wait for the WAN.
 * Over TCP (background.transport = tcp) the same draws go to the data centre's TCP host
 * (bulk.c) instead, which writes each transfer to one of its connections.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../models/ring.h"
#include "bghost.h"
#include "bulk.h"
#include "capture.h"
#include "frame.h"
#include "link.h"

#define QMIN 64

/* The next arrival after @now: an exponential gap, at least 1 ps; one that would fall after the
 * end of the 64-bit clock (at a load so small, or a load set to 0 during the run) never comes. */
static dp_time_t
arrival_after(struct dp_bghost *h, dp_time_t now)
{
	double g = sm_rng_exp(&h->rng, h->mean_gap_ps);
	dp_time_t d;

	if (!(g < 0x1p63))
		return DP_NEVER;
	d = g < 1 ? 1 : (dp_time_t)g;
	return d < DP_NEVER - now ? now + d : DP_NEVER;
}

static dp_time_t
next_event(const struct dp_bghost *h)
{
	dp_time_t t = h->stopped ? DP_NEVER : h->next_arrival;

	return h->rearm < t ? h->rearm : t;
}

static int
enqueue_xfer(struct dp_bghost *h, dp_time_t now)
{
	struct dp_bgxfer *x;
	double bytes = sm_size_sample(h->sizes, &h->rng);

	if (h->qtail - h->qhead > h->qmask) {
		struct dp_bgxfer *q = sm_ring_grow(h->q, &h->qmask, &h->qhead, &h->qtail, sizeof(*q),
						   0, 0);

		if (q == NULL)
			return -ENOMEM;
		h->q = q;
	}
	x = &h->q[h->qtail++ & h->qmask];
	x->id = h->next_id++;
	x->bytes = bytes < 1 ? 1 : (uint64_t)llround(bytes);
	x->created = now;
	h->stats->started++;
	return 0;
}

/* Queue up to a burst of frames of the waiting transfers; re-arm when the last starts. */
static void
emit(struct dp_bghost *h, dp_time_t now)
{
	dp_time_t start = now;
	uint32_t i;

	h->rearm = DP_NEVER;
	for (i = 0; i < h->burst && h->qhead != h->qtail; i++) {
		struct dp_bgxfer *x = &h->q[h->qhead & h->qmask];
		uint64_t left = x->bytes - h->off;
		uint32_t len = left < h->payload ? (uint32_t)left : h->payload;
		bool last = left <= h->payload;
		struct dp_pkt p;

		if (x->id != h->flow_xfer) {
			/* the flow's headers carry the transfer id in the step field */
			dp_flow_init(&h->flow, h->per_dc, h->run_id, (uint32_t)x->id, 0, 0, 0,
				     h->id, h->dst_first, DP_KIND_SINK, DP_SE_F_BG, h->payload);
			h->flow.meta.src = (uint16_t)h->id;
			h->flow_xfer = x->id;
		}
		if (dp_pkt_make(h->e.eng, &h->flow, h->off, h->seq, len, x->created, last,
				&p) != 0) {
			dp_engine_fail(h->e.eng, -ENOBUFS, "%s: the mbuf pool (%u mbufs) is empty: "
				       "give it more (--mbufs)", h->e.name, h->e.eng->pool->size);
			return;
		}
		h->e.c.tx++;
		h->e.c.tx_bytes += p.len;
		dp_capture_frame(h->e.eng, h->cap_tx, &p, now);
		if (dp_link_push(h->link, &p, now, &start) != 0) {
			/* its own link is full: the frame is dropped there and counted */
			start = now;
		}
		h->off += len;
		h->seq++;
		if (last) {
			h->qhead++;
			h->off = 0;
			h->seq = 0;
		}
	}
	if (h->qhead != h->qtail)
		h->rearm = start;
}

static void
bghost_event(struct dp_elem *e, dp_time_t now)
{
	struct dp_bghost *h = (struct dp_bghost *)e;

	if (!h->stopped && h->next_arrival <= now && h->tcp != NULL) {
		/* over TCP: the same draw of its size, written to one of the host's connections */
		double bytes = sm_size_sample(h->sizes, &h->rng);
		int rc = dp_bulk_xfer(h->tcp, bytes < 1 ? 1 : (uint64_t)llround(bytes), now);

		if (rc != 0) {
			dp_engine_fail(e->eng, rc, "%s: out of memory for its transfers", e->name);
			return;
		}
		h->stats->started++;
		h->next_arrival = arrival_after(h, now);
	}
	if (!h->stopped && h->next_arrival <= now) {
		bool idle = h->qhead == h->qtail;

		if (enqueue_xfer(h, now) != 0) {
			dp_engine_fail(e->eng, -ENOMEM, "%s: out of memory for its transfers",
				       e->name);
			return;
		}
		h->next_arrival = arrival_after(h, now);
		if (idle)
			emit(h, now);
	}
	if (!h->stopped && h->rearm <= now)
		emit(h, now);
	dp_sched(e, next_event(h));
}

static void
bghost_rx(struct dp_elem *e, const struct dp_pkt *p, dp_time_t now)
{
	e->c.rx++;
	e->c.drop++;	/* a host takes no frames */
	dp_frame_end(e->eng, p);
}

static uint64_t
no_held(const struct dp_elem *e)
{
	return 0;
}

static const struct dp_elem_ops bghost_ops = {
	.kind = "bghost",
	.event = bghost_event,
	.rx = bghost_rx,
	.held = no_held,
};

int
dp_bghost_init(struct dp_bghost *h, struct dp_engine *eng, const struct dp_bghost_params *p)
{
	int rc;

	if (!(p->rate > 0) || p->sizes == NULL || (p->link == NULL && p->tcp == NULL) ||
	    p->stats == NULL ||
	    p->payload == 0 || p->burst == 0)
		return -EINVAL;
	memset(h, 0, sizeof(*h));
	rc = dp_engine_add(eng, &h->e, &bghost_ops, p->name);
	if (rc != 0)
		return rc;
	h->id = p->id;
	h->dst_first = p->dst_first;
	h->per_dc = p->per_dc;
	h->run_id = p->run_id;
	h->payload = p->payload;
	h->burst = p->burst;
	h->mean_gap_ps = 1e12 / p->rate;
	h->sizes = p->sizes;
	sm_rng_seed(&h->rng, p->seed);
	h->link = p->link;
	h->stats = p->stats;
	h->tcp = p->tcp;
	h->cap_tx = p->cap_tx;
	h->next_arrival = DP_NEVER;
	h->rearm = DP_NEVER;
	h->flow_xfer = UINT64_MAX;
	h->q = malloc(QMIN * sizeof(*h->q));
	if (h->q == NULL)
		return -ENOMEM;
	h->qmask = QMIN - 1;
	return 0;
}

void
dp_bghost_start(struct dp_bghost *h, dp_time_t now)
{
	h->next_arrival = arrival_after(h, now);
	dp_sched(&h->e, next_event(h));
}

void
dp_bghost_set_rate(struct dp_bghost *h, double rate, dp_time_t now)
{
	h->mean_gap_ps = rate > 0 ? 1e12 / rate : INFINITY;
	if (rate > 0 && !h->stopped && h->next_arrival == DP_NEVER) {
		/* none pending (the load was 0): Poisson arrivals start afresh from now */
		h->next_arrival = arrival_after(h, now);
		dp_sched(&h->e, next_event(h));
	}
}

void
dp_bghost_stop(struct dp_bghost *h)
{
	h->stopped = true;
	h->stats->unsent += h->qtail - h->qhead;
	h->qhead = h->qtail;
	h->rearm = DP_NEVER;
	dp_sched(&h->e, DP_NEVER);
}

void
dp_bghost_fini(struct dp_bghost *h)
{
	free(h->q);
	h->q = NULL;
}

/* ---- the sink ---- */

int
dp_bgstats_add(struct dp_bgstats *st, double fct, double wait)
{
	if (st->on_done != NULL) {	/* streamed: nothing kept */
		st->done++;
		return st->on_done(st->arg, fct, wait);
	}
	if (st->done == st->cap) {
		uint64_t cap = st->cap ? 2 * st->cap : 4096;
		double *f = realloc(st->fct, cap * sizeof(*f));
		double *w;

		if (f == NULL)
			return -ENOMEM;
		st->fct = f;
		w = realloc(st->wait, cap * sizeof(*w));
		if (w == NULL)
			return -ENOMEM;
		st->wait = w;
		st->cap = cap;
	}
	st->fct[st->done] = fct;
	st->wait[st->done] = wait;
	st->done++;
	return 0;
}

static void
sink_rx(struct dp_elem *e, const struct dp_pkt *p, dp_time_t now)
{
	struct dp_sink *s = (struct dp_sink *)e;
	const struct dp_meta *meta = &p->meta;
	uint64_t created_ps = p->departure_ns * 1000;
	uint32_t seq = p->seq;

	e->c.rx++;
	e->c.rx_bytes += p->len;
	e->c.tx++;	/* consumed */
	e->c.tx_bytes += p->len;
	dp_capture_frame(e->eng, s->cap_rx, p, now);
	s->stats->frames++;
	s->stats->bytes += meta->payload;
	if (s->cur_open && meta->step != s->cur_id) {
		s->stats->incomplete++;		/* its last frame was dropped */
		s->cur_open = false;
	}
	if (!s->cur_open) {
		if (seq != 0) {
			/* the first frames of this transfer were dropped */
			s->stats->incomplete += (meta->flags & DP_SE_F_LAST) ? 1 : 0;
			s->cur_open = !(meta->flags & DP_SE_F_LAST);
			s->cur_id = meta->step;
			s->cur_bytes = UINT64_MAX;	/* marks it broken */
			dp_frame_end(e->eng, p);
			return;
		}
		{
			uint32_t c = sm_charge(s->account, meta->payload);
			dp_time_t own = sm_ser_ps(c, s->host_bw) + s->host_delay +
					sm_ser_ps(c, s->wan_bw) + s->wan_delay;

			s->cur_open = true;
			s->cur_id = meta->step;
			s->cur_bytes = 0;
			/* the first frame: its wait for the WAN, kept until the transfer ends */
			s->wait_first = now > created_ps + own ? now - created_ps - own : 0;
		}
	}
	if (s->cur_bytes != UINT64_MAX)
		s->cur_bytes += meta->payload;
	if (meta->flags & DP_SE_F_LAST) {
		if (s->cur_bytes != UINT64_MAX &&
		    dp_bgstats_add(s->stats, (now - created_ps) / 1e12, s->wait_first / 1e12) != 0)
			dp_engine_fail(e->eng, -ENOMEM, "%s: out of memory for the transfers' "
				       "records or statistics", e->name);
		else if (s->cur_bytes == UINT64_MAX)
			s->stats->incomplete++;
		s->cur_open = false;
	}
	dp_frame_end(e->eng, p);
}

static void
sink_event(struct dp_elem *e, dp_time_t now)
{
	dp_sched(e, DP_NEVER);
}

static const struct dp_elem_ops sink_ops = {
	.kind = "sink",
	.event = sink_event,
	.rx = sink_rx,
	.held = no_held,
};

int
dp_sink_init(struct dp_sink *s, struct dp_engine *eng, const char *name,
	     struct dp_bgstats *stats, uint64_t host_bw, dp_time_t host_delay, uint64_t wan_bw,
	     dp_time_t wan_delay, enum sm_account account, int cap_rx)
{
	int rc;

	memset(s, 0, sizeof(*s));
	rc = dp_engine_add(eng, &s->e, &sink_ops, name);
	if (rc != 0)
		return rc;
	s->stats = stats;
	s->host_bw = host_bw;
	s->host_delay = host_delay;
	s->wan_bw = wan_bw;
	s->wan_delay = wan_delay;
	s->account = account;
	s->cap_rx = cap_rx;
	return 0;
}

void
dp_bgstats_free(struct dp_bgstats *st)
{
	free(st->fct);
	free(st->wait);
	memset(st, 0, sizeof(*st));
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MPI wire of the partitions' runner (par_impl.h, ranks.h): the frames, state and records
 * that cross between ranks, packed into one buffer per collective.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "frame.h"
#include "par_impl.h"
#include "ranks.h"

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
int
par_exchange_boxes(struct dp_par *x)
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
			.error = pt->eng.error, .done_t = pt->done_t, .next = par_part_next(x, pt),
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
		rc = par_kbuf_add(&pt->cb, p, h.cb);
		p += h.cb;
		if (rc == 0)
			rc = par_kbuf_add(&pt->xd, p, h.xd);
		p += h.xd;
		if (rc == 0)
			rc = par_kbuf_add(&pt->qs, p, h.qs);
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
int
par_exchange_status(struct dp_par *x)
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

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The keyed merge of the partitions' runner (par_impl.h): each partition writes its trace
 * records, transfers and queue samples under its event's key (time, gid, half, sub); between
 * windows the caller's lcore merges those no partition can precede any more, in key order, into
 * the one trace and statistics, and the steps every partition has finished into the run's record.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "../traces/pcapng.h"
#include "capture.h"
#include "par_impl.h"

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

void
par_kbuf_free(struct dp_kbuf *b)
{
	free(b->b);
	memset(b, 0, sizeof(*b));
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

int
par_kbuf_add(struct dp_kbuf *b, const uint8_t *src, size_t n)
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
int
par_merge_trace(struct dp_par *x, dp_time_t m)
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
int
par_merge_transfers(struct dp_par *x, dp_time_t m)
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
void
par_merge_samples(struct dp_par *x)
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
int
par_merge_steps(struct dp_par *x)
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

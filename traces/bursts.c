/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A generic trace cut into bursts (syncs.h): the packets a BPF filter selects, in time order,
 * cut where the link was idle longer than a gap, or into fixed periods.
 *
 * The capture is streamed: memory holds the flows, the bursts and (for the automatic gap) the
 * gaps over 100 us, never the packets.  Packets are taken in time order through a window of
 * TR_REORDER_MAX packets (a capture of several interfaces or CPUs is a little out of order); a
 * packet later than that is counted at the time of the last one released, and counted as late.
 * With a gap or a period given, one pass; the automatic gap needs the gaps first: two.
 *
 * The automatic gap: among the sorted gaps between consecutive packets, those over 10 x their
 * median and over 100 us are the candidates; the one with the largest ratio to the gap just below
 * it marks the break between "inside a burst" and "between bursts", and the threshold is the
 * geometric mean of the two.  The median comes from a quantile sketch (exact up to 2048 gaps,
 * within 0.1 % beyond: models/stream.h), the gaps over 100 us are kept exactly, and of those
 * below only the largest (the one just below the smallest kept).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"
#include "select.h"
#include "stream.h"
#include "syncs.h"

/* Gaps below this are never a burst's end (the automatic gap's floor). */
#define GAP_FLOOR_NS 100000u

/* ---- flows: one direction of a 5-tuple, in an open-addressing index ---- */

struct fkey {
	uint8_t family, proto;
	uint16_t sport, dport;
	uint8_t src[16], dst[16];
};

struct bflow {
	struct fkey k;			/* first: the index compares it */
	uint64_t packets, bytes;
	uint64_t burst;			/* the last burst it was counted in, + 1 */
};

struct flows {
	struct bflow *f;
	uint32_t n, cap;
	uint32_t *slot, mask;		/* flow + 1, 0 empty */
};

static uint64_t
hash_key(const struct fkey *k)
{
	const uint8_t *b = (const uint8_t *)k;
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */
	size_t i;

	for (i = 0; i < sizeof(*k); i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h ^ h >> 29;
}

/* The flow of @k (added if new): its index in *@out; 0, -E2BIG past TR_BURST_FLOWS_MAX, or
 * -ENOMEM. */
static int
flow_find(struct flows *t, const struct fkey *k, uint32_t *out)
{
	uint32_t h, v;

	if (t->slot == NULL || 2 * ((uint64_t)t->n + 1) > (uint64_t)t->mask + 1) {
		uint32_t nm = t->slot == NULL ? 1023 : 2 * t->mask + 1, i;
		uint32_t *ns = calloc((size_t)nm + 1, sizeof(*ns));

		if (ns == NULL)
			return -ENOMEM;
		for (i = 0; i < t->n; i++) {
			for (h = (uint32_t)hash_key(&t->f[i].k) & nm; ns[h] != 0; h = (h + 1) & nm)
				;
			ns[h] = i + 1;
		}
		free(t->slot);
		t->slot = ns;
		t->mask = nm;
	}
	for (h = (uint32_t)hash_key(k) & t->mask; (v = t->slot[h]) != 0; h = (h + 1) & t->mask)
		if (memcmp(&t->f[v - 1].k, k, sizeof(*k)) == 0) {
			*out = v - 1;
			return 0;
		}
	if (t->n == TR_BURST_FLOWS_MAX)
		return -E2BIG;
	if (t->n == t->cap) {
		uint32_t nc = t->cap ? 2 * t->cap : 64;
		struct bflow *nf = realloc(t->f, (size_t)nc * sizeof(*nf));

		if (nf == NULL)
			return -ENOMEM;
		t->f = nf;
		t->cap = nc;
	}
	memset(&t->f[t->n], 0, sizeof(t->f[t->n]));
	t->f[t->n].k = *k;
	t->slot[h] = t->n + 1;
	*out = t->n++;
	return 0;
}

static void
flows_free(struct flows *t)
{
	free(t->f);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

/* ---- packets in time order: a window sorted by insertion from its end ---- */

#define NO_FLOW UINT32_MAX

struct pkt {
	uint64_t ts;
	uint32_t bytes;
	uint32_t flow;			/* NO_FLOW: not IP */
};

struct reorder {
	struct pkt *w;			/* [TR_REORDER_MAX], a ring: head, n */
	uint32_t head, n;
	uint64_t out_ts;		/* the last one released */
	bool out_any;
	uint64_t late;			/* came after a later packet was released */
};

/* What takes the packets, in time order. */
struct sink {
	int (*take)(struct sink *s, const struct pkt *p);
};

static int
reorder_put(struct reorder *r, struct pkt p, struct sink *s)
{
	uint32_t i, m = TR_REORDER_MAX - 1;
	int rc;

	if (r->out_any && p.ts < r->out_ts) {
		p.ts = r->out_ts;
		r->late++;
	}
	if (r->n == TR_REORDER_MAX) {
		rc = s->take(s, &r->w[r->head]);
		if (rc != 0)
			return rc;
		r->out_ts = r->w[r->head].ts;
		r->out_any = true;
		r->head = (r->head + 1) & m;
		r->n--;
		if (p.ts < r->out_ts) {
			p.ts = r->out_ts;
			r->late++;
		}
	}
	/* from the end, move the later ones up by one */
	for (i = r->n; i > 0 && r->w[(r->head + i - 1) & m].ts > p.ts; i--)
		r->w[(r->head + i) & m] = r->w[(r->head + i - 1) & m];
	r->w[(r->head + i) & m] = p;
	r->n++;
	return 0;
}

static int
reorder_drain(struct reorder *r, struct sink *s)
{
	int rc;

	while (r->n > 0) {
		rc = s->take(s, &r->w[r->head]);
		if (rc != 0)
			return rc;
		r->out_ts = r->w[r->head].ts;
		r->out_any = true;
		r->head = (r->head + 1) & (TR_REORDER_MAX - 1);
		r->n--;
	}
	return 0;
}

/* ---- one pass over the capture ---- */

struct pass {
	const struct tr_burst_params *bp;
	struct tr_bursts *out;
	struct flows *fl;
	bool count;			/* the first pass: count packets and flows */
};

static int
read_pass(const char *path, struct pass *ps, struct sink *sk, char *err, size_t errlen)
{
	const struct tr_burst_params *bp = ps->bp;
	struct tr_select *sel = tr_select_create(bp->filter);
	struct reorder ro = { .w = malloc(TR_REORDER_MAX * sizeof(struct pkt)) };
	struct tr_reader *r = NULL;
	struct tr_packet p;
	int rc;

	if (sel == NULL || ro.w == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	r = tr_reader_open(path, err, errlen);
	if (r == NULL) {
		rc = errno == ENOMEM ? -ENOMEM : -EINVAL;
		goto out;
	}
	if (bp->ifaces != NULL && tr_reader_select(r, bp->ifaces) != 0) {
		rc = -ENOMEM;
		goto out;
	}
	while ((rc = tr_reader_next(r, &p, err, errlen)) == 1) {
		struct pkt x = { p.ts_ns, p.len, NO_FLOW };
		struct tr_ip ip;

		if (ps->count)
			ps->out->packets++;
		rc = tr_select_match(sel, &p, err, errlen);
		if (rc < 0)
			break;
		if (rc == 0)
			continue;
		if (tr_decode_ip(p.linktype, p.data, p.caplen, &ip) != 0) {
			if (ps->count)
				ps->out->not_ip++;
			if (bp->filter == NULL || bp->filter[0] == '\0')
				continue;
		}
		if (bp->payload)
			x.bytes = ip.l4_payload;
		if (ip.family != 0) {
			struct fkey k;

			memset(&k, 0, sizeof(k));
			k.family = (uint8_t)ip.family;
			k.proto = ip.proto;
			k.sport = ip.sport;
			k.dport = ip.dport;
			memcpy(k.src, ip.src, 16);
			memcpy(k.dst, ip.dst, 16);
			rc = flow_find(ps->fl, &k, &x.flow);
			if (rc == -E2BIG)
				snprintf(err, errlen, "more than %u flows: select the job's with "
					 "--filter, --hosts or --ports", TR_BURST_FLOWS_MAX);
			if (rc != 0)
				break;
			if (ps->count) {
				ps->fl->f[x.flow].packets++;
				ps->fl->f[x.flow].bytes += x.bytes;
			}
		}
		if (ps->count)
			ps->out->selected++;
		rc = reorder_put(&ro, x, sk);
		if (rc != 0)
			break;
	}
	if (rc == 0)
		rc = reorder_drain(&ro, sk);
	if (ps->count) {
		ps->out->late = ro.late;
		if (r != NULL)
			ps->out->unordered = tr_reader_unordered(r);
	}
out:
	tr_reader_close(r);
	tr_select_free(sel);
	free(ro.w);
	return rc;
}

/* ---- the cut ---- */

struct cutter {
	struct sink sink;		/* first */
	struct tr_bursts *out;
	struct flows *fl;
	const struct tr_burst_params *bp;
	double period_ns;		/* > 0: periods, else gaps over out->gap_s end bursts */
	uint64_t t0, prev;
	struct tr_burst cur;
	bool any;
};

static int
burst_close(struct cutter *c)
{
	struct tr_bursts *b = c->out;

	if (b->n == TR_BURSTS_MAX)
		return -E2BIG;
	if (b->n == b->cap) {
		uint32_t cap = b->cap ? 2 * b->cap : 64;
		struct tr_burst *n = realloc(b->b, (size_t)cap * sizeof(*n));

		if (n == NULL)
			return -ENOMEM;
		b->b = n;
		b->cap = cap;
	}
	b->b[b->n++] = c->cur;
	return 0;
}

static int
cut_take(struct sink *s, const struct pkt *p)
{
	struct cutter *c = (struct cutter *)s;
	bool cut = false;
	int rc;

	if (c->any) {
		double g = (double)(p->ts - c->prev) / 1e9;

		if (c->period_ns > 0)
			cut = (uint64_t)((double)(p->ts - c->t0) / c->period_ns) !=
			      (uint64_t)((double)(c->cur.start_ns - c->t0) / c->period_ns);
		else
			cut = g > c->out->gap_s;
		if (cut) {
			rc = burst_close(c);
			if (rc != 0)
				return rc;
			if (g < c->out->min_between_s)
				c->out->min_between_s = g;
		} else if (g > c->out->max_inside_s) {
			c->out->max_inside_s = g;
		}
	} else {
		c->t0 = p->ts;
	}
	if (!c->any || cut) {
		memset(&c->cur, 0, sizeof(c->cur));
		c->cur.start_ns = p->ts;
	}
	c->any = true;
	c->cur.end_ns = p->ts;
	c->cur.packets++;
	c->cur.bytes += p->bytes;
	if (p->flow != NO_FLOW && c->fl->f[p->flow].burst != (uint64_t)c->out->n + 1) {
		c->fl->f[p->flow].burst = (uint64_t)c->out->n + 1;
		c->cur.flows++;
	}
	c->prev = p->ts;
	return 0;
}

/* ---- the automatic gap ---- */

struct gaps {
	struct sink sink;		/* first */
	struct sm_sketch all;
	uint64_t *big;			/* the gaps over floor, up to TR_BURST_GAPS_MAX */
	uint32_t nbig, cap;
	uint64_t floor;			/* kept: over it (GAP_FLOOR_NS, doubled when full) */
	uint64_t below_max;		/* the largest gap not kept */
	bool below_any;
	uint64_t prev;
	bool any;
	bool thinned;
};

static int
gaps_take(struct sink *s, const struct pkt *p)
{
	struct gaps *g = (struct gaps *)s;
	uint64_t d = p->ts - g->prev;
	int rc;

	if (!g->any) {
		g->any = true;
		g->prev = p->ts;
		return 0;
	}
	g->prev = p->ts;
	rc = sm_sketch_add(&g->all, (double)d);
	if (rc != 0)
		return rc;
	while (d >= g->floor && g->nbig == TR_BURST_GAPS_MAX) {
		/* full: keep only those over twice the floor */
		uint32_t i, k = 0;

		g->floor *= 2;
		g->thinned = true;
		for (i = 0; i < g->nbig; i++) {
			if (g->big[i] >= g->floor)
				g->big[k++] = g->big[i];
			else if (!g->below_any || g->big[i] > g->below_max)
				g->below_max = g->big[i], g->below_any = true;
		}
		g->nbig = k;
	}
	if (d < g->floor) {
		if (!g->below_any || d > g->below_max)
			g->below_max = d, g->below_any = true;
		return 0;
	}
	if (g->nbig == g->cap) {
		uint32_t nc = g->cap ? 2 * g->cap : 256;
		uint64_t *nb = realloc(g->big, (size_t)nc * sizeof(*nb));

		if (nb == NULL)
			return -ENOMEM;
		g->big = nb;
		g->cap = nc;
	}
	g->big[g->nbig++] = d;
	return 0;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The threshold in s (INFINITY: no break, one burst). */
static double
gaps_threshold(struct gaps *g)
{
	double med, best = 0, thr = 0;
	uint32_t i;

	if (g->all.n < 2)
		return INFINITY;
	med = sm_sketch_rank(&g->all, g->all.n / 2 + 1) / 1e9;
	if (g->nbig > 1)
		qsort(g->big, g->nbig, sizeof(*g->big), cmp_u64);
	for (i = 0; i < g->nbig; i++) {
		double x = g->big[i] / 1e9, lo;

		if (i > 0)
			lo = g->big[i - 1] / 1e9;
		else if (g->below_any)
			lo = g->below_max / 1e9;
		else
			continue;		/* the smallest gap of all has none below it */
		if (lo < 1e-9)
			lo = 1e-9;
		if (x < 10 * med || x < 100e-6)
			continue;
		if (x / lo > best) {
			best = x / lo;
			thr = sqrt(x * lo);
		}
	}
	return best > 0 ? thr : INFINITY;
}

/* ---- the whole ---- */

static int
cmp_flow(const void *a, const void *b)
{
	const struct tr_flow *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The flows, largest first, into @out. */
static int
flows_out(const struct flows *fl, struct tr_bursts *out)
{
	uint32_t i;

	out->nflows = fl->n;
	if (fl->n == 0)
		return 0;
	out->flow = calloc(fl->n, sizeof(*out->flow));
	if (out->flow == NULL)
		return -ENOMEM;
	for (i = 0; i < fl->n; i++) {
		const struct bflow *f = &fl->f[i];
		struct tr_flow *o = &out->flow[i];

		o->family = f->k.family;
		o->proto = f->k.proto;
		o->sport = f->k.sport;
		o->dport = f->k.dport;
		memcpy(o->src, f->k.src, 16);
		memcpy(o->dst, f->k.dst, 16);
		o->packets = f->packets;
		o->bytes = f->bytes;
		o->order = i;
	}
	qsort(out->flow, fl->n, sizeof(*out->flow), cmp_flow);
	return 0;
}

int
tr_bursts_read(const char *path, const struct tr_burst_params *bp, struct tr_bursts *out,
	       char *err, size_t errlen)
{
	struct flows fl = { NULL, 0, 0, NULL, 0 };
	struct cutter c = { .sink = { cut_take }, .out = out, .fl = &fl, .bp = bp };
	struct pass ps = { bp, out, &fl, true };
	bool automatic = !(bp->period_s > 0) && !(bp->gap_s > 0);
	int rc;

	memset(out, 0, sizeof(*out));
	out->max_inside_s = 0;
	out->min_between_s = INFINITY;
	if (automatic) {
		struct gaps g = { .sink = { gaps_take }, .floor = GAP_FLOOR_NS };

		rc = sm_sketch_init(&g.all);
		if (rc == 0)
			rc = read_pass(path, &ps, &g.sink, err, errlen);
		if (rc == 0) {
			out->gap_s = gaps_threshold(&g);
			out->gaps_thinned = g.thinned;
		}
		sm_sketch_free(&g.all);
		free(g.big);
		ps.count = false;
	} else if (bp->period_s > 0) {
		out->gap_s = NAN;
		c.period_ns = bp->period_s * 1e9;
		rc = 0;
	} else {
		out->gap_s = bp->gap_s;
		rc = 0;
	}
	if (rc == 0)
		rc = read_pass(path, &ps, &c.sink, err, errlen);
	if (rc == 0 && c.any)
		rc = burst_close(&c);
	if (rc == -E2BIG && out->n == TR_BURSTS_MAX)
		snprintf(err, errlen, "more than %u bursts: cut at a longer gap or period",
			 TR_BURSTS_MAX);
	if (rc == 0)
		rc = flows_out(&fl, out);
	flows_free(&fl);
	if (rc != 0) {
		if (rc == -ENOMEM)
			snprintf(err, errlen, "out of memory");
		tr_bursts_free(out);
		return rc;
	}
	if (out->selected == 0)
		snprintf(out->how, sizeof(out->how), "no packet selected");
	else if (bp->period_s > 0)
		snprintf(out->how, sizeof(out->how), "periods of %.9g s from the first packet",
			 bp->period_s);
	else
		snprintf(out->how, sizeof(out->how), "bursts split at idle gaps over %.6g s (%s)",
			 out->gap_s, bp->gap_s > 0 ? "given" : "automatic: the largest jump among "
			 "the gaps over 10 x the median");
	return 0;
}

void
tr_bursts_free(struct tr_bursts *b)
{
	free(b->flow);
	free(b->b);
	memset(b, 0, sizeof(*b));
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Steps from the application's byte stream (streams.h): the tracker that turns packets into
 * each direction's stream offsets, and the three passes over the capture.  The split itself
 * (where the cuts go, the step count from the stream's periodicity) is in split.c.  Somewhat
 * over 900 lines: the passes share the tracker and its per-direction state, kept private here.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "reader.h"
#include "select.h"
#include "stream.h"
#include "streams.h"
#include "streams_impl.h"

/* ---- flows and directions: open-addressing tables over arrays ---- */

static uint64_t
hash_bytes(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h ^ h >> 29;
}

/* Find @p key (of @p ksize bytes at offset 0 of each element of @p elems, @p esize apart) in
 * the index @p idx (slots hold element + 1, 0 empty); insert it if absent (then *@p fresh). */
static int
lookup(uint32_t **idx, uint32_t *mask, void **elems, uint32_t *n, uint32_t *cap, size_t esize,
       const void *key, size_t ksize, uint32_t max, bool *fresh, uint32_t *out)
{
	uint32_t i, h;

	*fresh = false;
	if (*idx == NULL || 2 * (*n + 1) > *mask + 1) {
		uint32_t nm = *idx == NULL ? 63 : 2 * *mask + 1, j;
		uint32_t *ni = calloc((size_t)nm + 1, sizeof(*ni));

		if (ni == NULL)
			return -ENOMEM;
		for (j = 0; j < *n; j++) {
			h = (uint32_t)hash_bytes((char *)*elems + (size_t)j * esize, ksize) & nm;
			while (ni[h] != 0)
				h = (h + 1) & nm;
			ni[h] = j + 1;
		}
		free(*idx);
		*idx = ni;
		*mask = nm;
	}
	h = (uint32_t)hash_bytes(key, ksize) & *mask;
	while ((i = (*idx)[h]) != 0) {
		if (memcmp((char *)*elems + (size_t)(i - 1) * esize, key, ksize) == 0) {
			*out = i - 1;
			return 0;
		}
		h = (h + 1) & *mask;
	}
	if (*n == max)
		return -E2BIG;
	if (*n == *cap) {
		uint32_t nc = *cap ? 2 * *cap : 16;
		void *ne = realloc(*elems, (size_t)nc * esize);

		if (ne == NULL)
			return -ENOMEM;
		*elems = ne;
		*cap = nc;
	}
	memset((char *)*elems + (size_t)*n * esize, 0, esize);
	memcpy((char *)*elems + (size_t)*n * esize, key, ksize);
	(*idx)[h] = *n + 1;
	*out = (*n)++;
	*fresh = true;
	return 0;
}

/* ---- the tracker ---- */

int
tk_init(struct tracker *t, const struct tr_stream_params *p)
{
	memset(t, 0, sizeof(*t));
	t->fg = tr_select_create(p->filter);
	t->bg = p->background != NULL ? tr_select_create(p->background) : NULL;
	if (t->fg == NULL || (p->background != NULL && t->bg == NULL)) {
		tk_free(t);
		return -ENOMEM;
	}
	return 0;
}

void
tk_free(struct tracker *t)
{
	tr_select_free(t->fg);
	tr_select_free(t->bg);
	free(t->flow);
	free(t->fidx);
	free(t->dkey);
	free(t->didx);
	free(t->dpos);
	memset(t, 0, sizeof(*t));
}

/* Remove [s, e) from the flow's holes; @return the bytes of it that were in one. */
static uint64_t
fill_holes(struct flow *f, uint64_t s, uint64_t e)
{
	uint64_t filled = 0;
	uint32_t i = 0;

	while (i < f->nholes) {
		struct hole *h = &f->hole[i];
		uint64_t lo = s > h->s ? s : h->s, hi = e < h->e ? e : h->e;

		if (lo >= hi) {
			i++;
			continue;
		}
		filled += hi - lo;
		if (lo == h->s && hi == h->e) {		/* whole */
			*h = f->hole[--f->nholes];
			continue;
		}
		if (lo == h->s) {
			h->s = hi;
		} else if (hi == h->e) {
			h->e = lo;
		} else if (f->nholes < FLOW_HOLES) {	/* split in two */
			f->hole[f->nholes].s = hi;
			f->hole[f->nholes].e = h->e;
			f->nholes++;
			h->e = lo;
		} else {				/* no room: the upper part is given up */
			f->lost += h->e - hi;
			h->e = lo;
		}
		i++;
	}
	return filled;
}

/*
 * Could a sender have moved its sequence on by @p ahead (bytes, or RoCE packets of at least
 * TR_ROCE_WIRE_MIN bytes: @p roce) since the flow's last data packet, at @p ts?  See
 * TR_SEQ_WINDOW_MAX.
 */
static bool
seq_jump(const struct flow *f, int64_t ahead, uint64_t ts, bool roce)
{
	double dt = (ts > f->last_ts ? (double)(ts - f->last_ts) : 0) / 1e9 + 1e-6;
	double bytes = roce ? (double)ahead * TR_ROCE_WIRE_MIN : (double)ahead;

	if (ahead > (int64_t)TR_SEQ_WINDOW_MAX || ahead < -(int64_t)TR_SEQ_WINDOW_MAX)
		return true;
	return bytes > dt * TR_LINK_RATE_MAX + (roce ? 0 : TR_SEQ_BURST_MAX);
}

/* TCP: the segment's new bytes from its sequence number (see streams.h). */
static void
tcp_segment(struct flow *f, const struct tr_ip *ip, uint32_t len, struct tk_ev *ev)
{
	uint64_t s, e;

	if (ip->tcp_flags & 0x02) {		/* SYN: data starts at ISN + 1 */
		uint64_t isn1 = (1ULL << 32 | ip->tcp_seq) + 1;

		if (!f->has_base || (f->hwm != isn1 && f->syn_seq != ip->tcp_seq)) {
			/* the first, or a new connection on the same addresses and ports */
			f->has_base = true;
			f->hwm = isn1;
			f->nholes = 0;
		}
		f->syn_seq = ip->tcp_seq;
		if (len == 0)
			return;
		/* data on a SYN (TCP Fast Open) starts at ISN + 1 too */
	}
	if (len == 0)
		return;
	if (f->has_base && seq_jump(f, (int32_t)(ip->tcp_seq - (uint32_t)f->hwm), ev->ts, false)) {
		/* not the same stream: the holes it left stay missing, a new one starts */
		uint32_t i;

		for (i = 0; i < f->nholes; i++)
			f->lost += f->hole[i].e - f->hole[i].s;
		f->nholes = 0;
		f->has_base = false;
		f->jumps++;
		ev->jump = true;
	}
	if (!f->has_base) {
		f->has_base = true;
		f->hwm = 1ULL << 32 | ip->tcp_seq;
	}
	/* the 64-bit offset nearest the highest one so far */
	s = f->hwm + (uint64_t)(int64_t)(int32_t)(ip->tcp_seq - (uint32_t)f->hwm);
	e = s + len;
	if (s > f->hwm) {			/* a hole: bytes not seen (yet) */
		if (f->nholes == FLOW_HOLES) {
			f->lost += f->hole[0].e - f->hole[0].s;
			f->hole[0] = f->hole[--f->nholes];
		}
		f->hole[f->nholes].s = f->hwm;
		f->hole[f->nholes].e = s;
		f->nholes++;
		f->holes++;
	}
	if (e > f->hwm) {
		/* new bytes from the highest so far (over a hole just left, too); what lies below
		 * it filled a hole or was sent before */
		uint64_t old = s < f->hwm ? f->hwm - s : 0, filled = old ? fill_holes(f, s, f->hwm) : 0;

		ev->fresh = (uint32_t)(e - f->hwm);
		ev->retrans = (uint32_t)(old - filled);
		ev->reordered = filled > 0;
		f->hwm = e;
		return;
	}
	{
		uint64_t filled = fill_holes(f, s, e);

		ev->retrans = (uint32_t)(len - filled);
		ev->reordered = filled > 0;
	}
}

/* RoCE v2: a new PSN on its queue pair carries new bytes; a PSN at or behind the highest is a
 * retransmission (24-bit serial arithmetic: behind means within 2^23 below). */
static void
roce_packet(struct flow *f, const struct tr_bth *b, struct tk_ev *ev)
{
	uint32_t d;

	if (b->payload == 0)
		return;
	if (!f->has_base) {
		f->has_base = true;
		f->hwm = b->psn;
		ev->fresh = b->payload;
		return;
	}
	d = (b->psn - (uint32_t)f->hwm) & 0xffffff;
	if (d == 0 || d >= 1u << 23) {
		ev->retrans = b->payload;
		return;
	}
	if (d > 1 && seq_jump(f, d - 1, ev->ts, true)) {
		f->jumps++;			/* not the same stream: a new one from here */
		ev->jump = true;
	} else if (d > 1) {
		f->holes += d - 1;		/* packets missing: their bytes are not known */
	}
	f->hwm = b->psn;
	ev->fresh = b->payload;
}

int
tk_packet(struct tracker *t, const struct tr_packet *p, struct tk_ev *ev, char *err,
	  size_t errlen)
{
	struct flow_key fk;
	struct dir_key dk;
	struct tr_ip ip;
	struct tr_bth bth;
	struct flow *f;
	uint32_t fi, di, len;
	bool fresh, bg = false;
	int rc;

	memset(ev, 0, sizeof(*ev));
	ev->dir = -1;
	ev->ts = p->ts_ns;
	ev->wire = p->len;
	/* the background is what its filter selects, whatever the job's filter says */
	if (t->bg != NULL) {
		rc = tr_select_match(t->bg, p, err, errlen);
		if (rc < 0)
			return rc;
		bg = rc == 1;
	}
	if (!bg) {
		rc = tr_select_match(t->fg, p, err, errlen);
		if (rc <= 0)
			return rc;
	}
	ev->selected = true;
	if (tr_decode_ip(p->linktype, p->data, p->caplen, &ip) != 0 || ip.fragment ||
	    (ip.proto != IPPROTO_TCP && ip.proto != IPPROTO_UDP)) {
		ev->not_ip = ip.family == 0;
		return 1;
	}
	memset(&fk, 0, sizeof(fk));
	fk.family = (uint8_t)ip.family;
	fk.proto = ip.proto;
	fk.bg = bg;
	memcpy(fk.src, ip.src, 16);
	memcpy(fk.dst, ip.dst, 16);
	fk.sport = ip.sport;
	fk.dport = ip.dport;
	len = ip.l4_payload;
	if (ip.proto == IPPROTO_UDP && ip.dport == TR_ROCE_PORT) {
		if (tr_decode_bth(&ip, &bth) == 0) {
			fk.roce = 1;
			fk.qp = bth.dest_qp;
			len = bth.payload;
		}
	}
	rc = lookup(&t->fidx, &t->fmask, (void **)&t->flow, &t->nflows, &t->fcap, sizeof(*f), &fk,
		    sizeof(fk), TR_STREAM_FLOWS_MAX, &fresh, &fi);
	if (rc == -E2BIG) {
		snprintf(err, errlen, "more than %u flows: select the job's with --filter, --hosts "
			 "or --ports", TR_STREAM_FLOWS_MAX);
		return rc;
	}
	if (rc != 0)
		return rc;
	f = &t->flow[fi];
	if (fresh) {
		memset(&dk, 0, sizeof(dk));
		dk.family = fk.family;
		memcpy(dk.src, fk.src, 16);
		memcpy(dk.dst, fk.dst, 16);
		rc = lookup(&t->didx, &t->dmask, (void **)&t->dkey, &t->ndirs, &t->dcap,
			    sizeof(dk), &dk, sizeof(dk), TR_DIRS_MAX, &fresh, &di);
		if (rc == -E2BIG) {
			snprintf(err, errlen, "more than %u host pairs: select the job's with "
				 "--filter, --hosts or --ports", TR_DIRS_MAX);
			return rc;
		}
		if (rc != 0)
			return rc;
		if (fresh) {
			uint64_t *np = realloc(t->dpos, (size_t)t->dcap * sizeof(*np));

			if (np == NULL)
				return -ENOMEM;
			t->dpos = np;
			t->dpos[di] = 0;
		}
		f->dir = di;
		f->new_flow = true;
	}
	ev->dir = (int32_t)f->dir;
	ev->bg = bg;
	ev->proto = fk.roce ? 2 : ip.proto == IPPROTO_TCP ? 0 : 1;
	ev->new_flow = f->new_flow;
	f->new_flow = false;
	ev->payload = len;
	ev->cut = ip.l4_caplen < ip.l4_payload && len > 0;
	if (fk.roce)
		roce_packet(f, &bth, ev);
	else if (ip.proto == IPPROTO_TCP)
		tcp_segment(f, &ip, len, ev);
	else
		ev->fresh = len;
	if (len > 0)
		f->last_ts = p->ts_ns;
	/* the direction's stream is the job's: the background's bytes are not in it */
	ev->off = t->dpos[f->dir];
	if (!bg)
		t->dpos[f->dir] += ev->fresh;
	return 1;
}

/* The holes a flow still has at the end: bytes never seen. */
static void
flow_missing(const struct flow *f, uint64_t *bytes, uint64_t *holes)
{
	uint32_t i;

	*bytes = f->lost;
	for (i = 0; i < f->nholes; i++)
		*bytes += f->hole[i].e - f->hole[i].s;
	*holes = f->holes;
}

/* ---- pass 1: the streams, their idle gaps ---- */

struct p1dir {
	struct sm_sketch gaps;		/* between data packets */
	bool sketch;
	struct occ link;
	uint64_t floor_ns;		/* gaps kept are above this */
	uint32_t gcap;
};

static int
gap_push(struct tr_dir *d, struct p1dir *q, const struct tr_gap *g)
{
	if (d->ngaps == TR_GAPS_MAX) {
		/* full: keep only the gaps above twice the floor */
		uint32_t i, k = 0;

		q->floor_ns = q->floor_ns ? 2 * q->floor_ns : 1;
		for (i = 0; i < d->ngaps; i++)
			if (d->gap[i].dur_ns > q->floor_ns)
				d->gap[k++] = d->gap[i];
		d->ngaps = k;
		d->gaps_thinned = true;
		if (g->dur_ns <= q->floor_ns)
			return 0;
		if (d->ngaps == TR_GAPS_MAX)
			return gap_push(d, q, g);
	}
	if (d->ngaps == q->gcap) {
		uint32_t nc = q->gcap ? 2 * q->gcap : 256;
		struct tr_gap *ng = realloc(d->gap, (size_t)nc * sizeof(*ng));

		if (ng == NULL)
			return -ENOMEM;
		d->gap = ng;
		q->gcap = nc;
	}
	d->gap[d->ngaps++] = *g;
	return 0;
}

static void
dir_name(struct tr_dir *d)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	int af = d->family == 6 ? AF_INET6 : AF_INET;

	if (inet_ntop(af, d->src, a, sizeof(a)) == NULL)
		snprintf(a, sizeof(a), "?");
	if (inet_ntop(af, d->dst, b, sizeof(b)) == NULL)
		snprintf(b, sizeof(b), "?");
	snprintf(d->name, sizeof(d->name), "%s > %s", a, b);
}

/* Open @p path for one more pass. */
static struct tr_reader *
reopen(const char *path, const char *ifaces, char *err, size_t errlen, int *rc)
{
	struct tr_reader *r = tr_reader_open(path, err, errlen);

	*rc = r != NULL ? 0 : errno == ENOMEM ? -ENOMEM : errno == EINVAL ? -EINVAL : -EBADMSG;
	if (r == NULL && errno != 0 && errno != EBADMSG && errno != ENOMEM)
		*rc = -errno;
	if (r != NULL && ifaces != NULL && tr_reader_select(r, ifaces) != 0) {
		tr_reader_close(r);
		snprintf(err, errlen, "out of memory");
		*rc = -ENOMEM;
		return NULL;
	}
	return r;
}

/* After pass 1's packets: the flows' holes into their directions, each direction's idle
 * threshold and its gaps above it. */
static void
pass1_end(struct tr_reader *r, const struct tracker *t, struct p1dir *q,
	  const struct tr_stream_params *prm, struct tr_streams *out)
{
	uint32_t i;

	out->unordered = tr_reader_unordered(r);
	for (i = 0; i < t->nflows; i++) {
		uint64_t mb, mh;

		if (t->flow[i].k.bg)
			continue;
		flow_missing(&t->flow[i], &mb, &mh);
		out->dir[t->flow[i].dir].missing_bytes += mb;
		out->dir[t->flow[i].dir].holes += mh;
		out->dir[t->flow[i].dir].jumps += t->flow[i].jumps;
	}
	/* the idle threshold of each direction, and its gaps above it */
	for (i = 0; i < out->ndirs; i++) {
		struct tr_dir *d = &out->dir[i];
		uint64_t thr;
		uint32_t j, k = 0;

		d->median_gap_s = q[i].sketch && q[i].gaps.n > 0 ?
			sm_sketch_rank(&q[i].gaps, (q[i].gaps.n + 1) / 2) / 1e9 : NAN;
		if (prm->idle_s > 0)
			d->idle_s = prm->idle_s;
		else
			d->idle_s = isfinite(d->median_gap_s) && 10 * d->median_gap_s >
				    TR_IDLE_MIN_S ? 10 * d->median_gap_s : TR_IDLE_MIN_S;
		thr = tk_ns(d->idle_s);
		if (q[i].floor_ns > thr)
			d->gaps_thinned = true;
		for (j = 0; j < d->ngaps; j++)
			if (d->gap[j].dur_ns > thr)
				d->gap[k++] = d->gap[j];
		d->ngaps = k;
		if (d->first_ns == UINT64_MAX)
			d->first_ns = 0;
	}
}

static int
pass1(const char *path, const struct tr_stream_params *prm, struct tr_streams *out, char *err,
      size_t errlen)
{
	struct tr_reader *r;
	struct tracker t;
	struct p1dir *q = NULL;
	struct tr_packet p;
	struct tk_ev ev;
	uint32_t qcap = 0, i;
	uint64_t floor_ns = tk_ns(prm->idle_s > 0 && prm->idle_s < TR_IDLE_MIN_S ? prm->idle_s :
				  TR_IDLE_MIN_S);
	int rc;

	r = reopen(path, prm->ifaces, err, errlen, &rc);
	if (r == NULL)
		return rc;
	rc = tk_init(&t, prm);
	if (rc != 0) {
		tr_reader_close(r);
		return rc;
	}
	out->first_ns = UINT64_MAX;
	while ((rc = tr_reader_next(r, &p, err, errlen)) == 1) {
		struct tr_dir *d;

		out->packets++;
		rc = tk_packet(&t, &p, &ev, err, errlen);
		if (rc < 0)
			break;
		if (!ev.selected)
			continue;
		out->selected++;
		if (p.ts_ns < out->first_ns)
			out->first_ns = p.ts_ns;
		if (p.ts_ns > out->last_ns)
			out->last_ns = p.ts_ns;
		if (ev.bg)
			out->bg_packets++;
		if (ev.dir < 0) {
			out->not_ip += ev.not_ip;
			continue;
		}
		if (t.ndirs > out->ndirs) {		/* a new direction */
			struct tr_dir *nd = t.dcap > qcap ?
				realloc(out->dir, (size_t)t.dcap * sizeof(*nd)) : out->dir;
			struct p1dir *nq = t.dcap > qcap ? realloc(q, (size_t)t.dcap * sizeof(*nq)) : q;

			if (nd != NULL)
				out->dir = nd;
			if (nq != NULL)
				q = nq;
			if (nd == NULL || nq == NULL) {
				rc = -ENOMEM;
				break;
			}
			for (i = out->ndirs; i < t.ndirs; i++) {
				memset(&out->dir[i], 0, sizeof(out->dir[i]));
				memset(&q[i], 0, sizeof(q[i]));
				out->dir[i].family = t.dkey[i].family;
				memcpy(out->dir[i].src, t.dkey[i].src, 16);
				memcpy(out->dir[i].dst, t.dkey[i].dst, 16);
				out->dir[i].first_ns = UINT64_MAX;
				out->dir[i].id = i;
				dir_name(&out->dir[i]);
				q[i].floor_ns = floor_ns;
			}
			out->ndirs = t.ndirs;
			qcap = t.dcap;
		}
		d = &out->dir[ev.dir];
		d->packets++;
		if (ev.bg) {
			d->bg_packets++;
			d->bg_bytes += ev.payload;
			d->bg_wire += ev.wire;
			d->bg_flows += ev.new_flow;
			out->bg_flows += ev.new_flow;
			continue;
		}
		out->flows += ev.new_flow;
		d->flows += ev.new_flow;
		if (ev.new_flow) {
			d->tcp += ev.proto == 0;
			d->udp += ev.proto == 1;
			d->roce += ev.proto == 2;
		}
		if (ev.payload == 0)
			continue;
		/* a data packet */
		d->data_packets++;
		d->bytes += ev.fresh;
		d->payload += ev.payload;
		d->wire += ev.wire;
		d->retrans_bytes += ev.retrans;
		d->retrans_packets += ev.retrans > 0;
		d->reordered += ev.reordered;
		d->cut_payload += ev.cut;
		if (p.ts_ns < d->first_ns)
			d->first_ns = p.ts_ns;
		if (p.ts_ns > d->last_ns)
			d->last_ns = p.ts_ns;
		{
			bool first = !q[ev.dir].link.any;
			uint64_t from, gap = occ_frame(&q[ev.dir].link, p.ts_ns, ev.wire,
						       prm->rate_Bps, &from);

			if (!first) {
				if (!q[ev.dir].sketch) {
					rc = sm_sketch_init(&q[ev.dir].gaps);
					if (rc != 0)
						break;
					q[ev.dir].sketch = true;
				}
				rc = sm_sketch_add(&q[ev.dir].gaps, (double)gap);
				if (rc != 0)
					break;
				if (gap > q[ev.dir].floor_ns) {
					struct tr_gap g = { ev.off, from, gap, 0 };

					rc = gap_push(d, &q[ev.dir], &g);
					if (rc != 0)
						break;
				}
			}
		}
	}
	if (rc == 0)
		pass1_end(r, &t, q, prm, out);
	if (q != NULL)
		for (i = 0; i < out->ndirs; i++)
			if (q[i].sketch)
				sm_sketch_free(&q[i].gaps);
	free(q);
	tk_free(&t);
	tr_reader_close(r);
	if (out->first_ns == UINT64_MAX)
		out->first_ns = 0;
	return rc < 0 ? rc : 0;
}

/* ---- pass 2: each step's bytes in each direction ---- */

/* The step holding stream byte @p x of direction @p d (cuts ascending), or -1 outside. */
static int64_t
step_at(const struct tr_dir *d, uint32_t nsteps, uint64_t x)
{
	uint32_t lo = 0, hi = nsteps;

	if (x < d->cut[0] || x >= d->cut[nsteps])
		return -1;
	while (hi - lo > 1) {			/* cut[lo] <= x < cut[hi] */
		uint32_t mid = lo + (hi - lo) / 2;

		if (d->cut[mid] <= x)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static int
pass2(const char *path, const struct tr_stream_params *prm, struct tr_streams *out, char *err,
      size_t errlen)
{
	struct tr_reader *r;
	struct tracker t;
	struct tr_packet p;
	struct tk_ev ev;
	struct occ *link = calloc(out->nmajor, sizeof(*link));
	int64_t *prev_step = malloc(out->nmajor * sizeof(*prev_step));
	uint32_t i;
	int rc;

	if (link == NULL || prev_step == NULL) {
		free(link);
		free(prev_step);
		return -ENOMEM;
	}
	for (i = 0; i < out->nmajor; i++)
		prev_step[i] = -1;
	r = reopen(path, prm->ifaces, err, errlen, &rc);
	if (r == NULL || (rc = tk_init(&t, prm)) != 0) {
		tr_reader_close(r);
		free(link);
		free(prev_step);
		return rc;
	}
	while ((rc = tr_reader_next(r, &p, err, errlen)) == 1) {
		struct tr_dir_step *x;
		struct tr_dir *d;
		int64_t k, owner;
		uint32_t di;

		rc = tk_packet(&t, &p, &ev, err, errlen);
		if (rc < 0)
			break;
		if (ev.dir < 0 || ev.bg || ev.payload == 0)
			continue;
		di = out->rank[ev.dir];
		if (di >= out->nmajor)
			continue;
		d = &out->dir[di];
		if (ev.fresh > 0) {
			/* the steps its bytes fall in: the first of them owns the packet */
			uint64_t s = ev.off, e = ev.off + ev.fresh;

			if (e <= d->cut[0] || s >= d->cut[out->nsteps])
				continue;
			owner = step_at(d, out->nsteps, s > d->cut[0] ? s : d->cut[0]);
			for (k = owner; k < out->nsteps && d->cut[k] < e; k++) {
				struct tr_dir_step *y = &d->step[k];
				uint64_t lo = s > d->cut[k] ? s : d->cut[k];
				uint64_t hi = e < d->cut[k + 1] ? e : d->cut[k + 1];

				y->bytes += hi - lo;
				if (p.ts_ns < y->first_ns)
					y->first_ns = p.ts_ns;
				if (p.ts_ns > y->last_ns)
					y->last_ns = p.ts_ns;
			}
		} else {
			/* a retransmission: the step in progress */
			owner = ev.off > 0 ? step_at(d, out->nsteps, ev.off - 1) : -1;
			if (owner < 0)
				continue;
		}
		x = &d->step[owner];
		x->packets++;
		x->wire += ev.wire;
		x->retrans_bytes += ev.retrans;
		/* the gaps between the step's data packets */
		{
			uint64_t from, gap = occ_frame(&link[di], p.ts_ns, ev.wire, prm->rate_Bps,
						       &from);

			if (prev_step[di] == owner) {
				if (gap > x->longest_gap_ns)
					x->longest_gap_ns = gap;
				if (gap > tk_ns(d->idle_s))
					x->idle_ns += gap;
			}
		}
		prev_step[di] = owner;
	}
	tk_free(&t);
	tr_reader_close(r);
	free(link);
	free(prev_step);
	return rc < 0 ? rc : 0;
}

/* ---- pass 3: what the background and the job's other packets did during each step ---- */

static int
pass3(const char *path, const struct tr_stream_params *prm, struct tr_streams *out, char *err,
      size_t errlen)
{
	struct tr_reader *r;
	struct tracker t;
	struct tr_packet p;
	struct tk_ev ev;
	uint64_t *pmax = malloc((size_t)out->nsteps * sizeof(*pmax));
	uint32_t k;
	int rc;

	if (pmax == NULL)
		return -ENOMEM;
	/* the latest end of the steps up to k: the steps that may hold a time are found by a
	 * binary search on the starts, then back while this reaches it */
	for (k = 0; k < out->nsteps; k++)
		pmax[k] = k == 0 || out->step[k].end_ns > pmax[k - 1] ? out->step[k].end_ns :
			  pmax[k - 1];
	r = reopen(path, prm->ifaces, err, errlen, &rc);
	if (r == NULL || (rc = tk_init(&t, prm)) != 0) {
		tr_reader_close(r);
		free(pmax);
		return rc;
	}
	while ((rc = tr_reader_next(r, &p, err, errlen)) == 1) {
		uint32_t di, lo = 0, hi = out->nsteps;
		int64_t j;

		rc = tk_packet(&t, &p, &ev, err, errlen);
		if (rc < 0)
			break;
		if (ev.dir < 0 || (!ev.bg && ev.payload == 0))
			continue;
		di = out->rank[ev.dir];
		if (di >= out->nmajor)
			continue;
		while (lo < hi) {			/* the first step starting after ts */
			uint32_t mid = lo + (hi - lo) / 2;

			if (out->step[mid].start_ns <= p.ts_ns)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (j = (int64_t)lo - 1; j >= 0 && pmax[j] >= p.ts_ns; j--) {
			struct tr_dir_step *x = &out->dir[di].step[j];

			if (out->step[j].end_ns < p.ts_ns)
				continue;
			if (ev.bg) {
				x->bg_bytes += ev.payload;
				x->bg_wire += ev.wire;
			} else {
				x->span_wire += ev.wire;
			}
		}
	}
	tk_free(&t);
	tr_reader_close(r);
	free(pmax);
	return rc < 0 ? rc : 0;
}

/* ---- the whole ---- */

static int
cmp_dir(const void *a, const void *b)
{
	const struct tr_dir *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return strcmp(x->name, y->name);
}

int
tr_streams_read(const char *path, const struct tr_stream_params *p, struct tr_streams *out,
		char *err, size_t errlen)
{
	uint32_t i, k;
	int rc;

	memset(out, 0, sizeof(*out));
	if (path == NULL || p == NULL) {
		snprintf(err, errlen, "no trace");
		return -EINVAL;
	}
	if (p->steps > TR_STEPS_MAX) {
		snprintf(err, errlen, "%u steps: at most %u", p->steps, TR_STEPS_MAX);
		return -EINVAL;
	}
	rc = pass1(path, p, out, err, errlen);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (rc != 0)
		goto fail;
	/* the directions, largest stream first, and which carry the job */
	if (out->ndirs > 1)
		qsort(out->dir, out->ndirs, sizeof(*out->dir), cmp_dir);
	for (i = 0; i < out->ndirs; i++)
		if (out->dir[i].bytes > 0 &&
		    out->dir[i].bytes >= TR_MINOR_SHARE * (double)out->dir[0].bytes)
			out->dir[i].major = true;
	for (out->nmajor = 0; out->nmajor < out->ndirs && out->dir[out->nmajor].major;)
		out->nmajor++;
	/* the tracker numbers directions as it meets them: where each went in the sort */
	out->rank = malloc((size_t)(out->ndirs ? out->ndirs : 1) * sizeof(*out->rank));
	if (out->rank == NULL) {
		rc = -ENOMEM;
		goto fail;
	}
	for (i = 0; i < out->ndirs; i++)
		out->rank[out->dir[i].id] = i;
	rc = split_streams(out, p, err, errlen);
	if (rc != 0)
		goto fail;
	if (out->nsteps == 0)
		return 0;
	for (i = 0; i < out->nmajor; i++)
		for (k = 0; k < out->nsteps; k++)
			out->dir[i].step[k].first_ns = UINT64_MAX;
	rc = pass2(path, p, out, err, errlen);
	if (rc != 0)
		goto fail;
	spans_fill(out);
	rc = pass3(path, p, out, err, errlen);
	if (rc != 0)
		goto fail;
	return 0;
fail:
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	tr_streams_free(out);
	return rc;
}

void
tr_streams_free(struct tr_streams *s)
{
	uint32_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->ndirs; i++) {
		free(s->dir[i].gap);
		free(s->dir[i].cut);
		free(s->dir[i].step);
	}
	free(s->dir);
	free(s->step);
	free(s->rank);
	memset(s, 0, sizeof(*s));
}

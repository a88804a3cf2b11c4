/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rebuilding syncs from a capture.
 *
 * syncemu frames: UDP to port 47110 with the syncemu header (README, "Traces and the wire
 * format").  A run is the frames with one run id; a step ends when its last frame reaches a
 * worker ("wN.rx" capture points), which is exactly when the data plane ends it (the step's last
 * round is complete at its last worker); without rx points the last record of the step is used
 * and the report says so.  A frame captured at "X.in" and then at "X.out" spent the difference
 * queued at X.
 *
 * Other traces: the packets a BPF filter selects (select.h: compiled for each link type) are cut
 * into bursts at idle gaps, or into fixed periods; an alpha-beta model (latency + bytes /
 * bandwidth) can be fitted to the bursts by least squares.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "reader.h"
#include "select.h"
#include "syncs.h"

#define SE_PORT 47110
#define SE_MAGIC 0x53594e43u
#define SE_HDR 48
#define F_BG 0x01
#define KIND_SINK 2

static uint64_t
be(const uint8_t *p, int n)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* ---- frames waiting at a queue's ".in" for their ".out": an open-addressing table ---- */

struct pending {
	uint64_t key;		/* 0: empty */
	uint64_t ts;
	uint8_t fg;
};

struct table {
	struct pending *s;
	uint64_t mask, n;
};

static uint64_t
mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x ? x : 1;
}

static int
table_grow(struct table *t)
{
	uint64_t size = t->mask ? 2 * (t->mask + 1) : 4096, i;
	struct pending *s = calloc(size, sizeof(*s));

	if (s == NULL)
		return -ENOMEM;
	for (i = 0; t->s != NULL && i <= t->mask; i++) {
		uint64_t j;

		if (t->s[i].key == 0)
			continue;
		for (j = t->s[i].key & (size - 1); s[j].key != 0; j = (j + 1) & (size - 1))
			;
		s[j] = t->s[i];
	}
	free(t->s);
	t->s = s;
	t->mask = size - 1;
	return 0;
}

static int
table_put(struct table *t, uint64_t key, uint64_t ts, uint8_t fg)
{
	uint64_t j;

	if ((t->n + 1) * 2 > t->mask + 1 && table_grow(t) != 0)
		return -ENOMEM;
	for (j = key & t->mask; t->s[j].key != 0 && t->s[j].key != key; j = (j + 1) & t->mask)
		;
	if (t->s[j].key == 0)
		t->n++;
	t->s[j].key = key;
	t->s[j].ts = ts;
	t->s[j].fg = fg;
	return 0;
}

/* Take the entry of @key out (backward-shift deletion); false if absent. */
static bool
table_take(struct table *t, uint64_t key, struct pending *out)
{
	uint64_t j, k;

	if (t->s == NULL)
		return false;
	for (j = key & t->mask; t->s[j].key != key; j = (j + 1) & t->mask)
		if (t->s[j].key == 0)
			return false;
	*out = t->s[j];
	t->s[j].key = 0;
	t->n--;
	for (k = (j + 1) & t->mask; t->s[k].key != 0; k = (k + 1) & t->mask) {
		uint64_t home = t->s[k].key & t->mask;

		/* move it back if its home is not in (j, k] */
		if ((j < k) ? (home <= j || home > k) : (home <= j && home > k)) {
			t->s[j] = t->s[k];
			t->s[k].key = 0;
			j = k;
		}
	}
	return true;
}

/* ---- points ---- */

enum role { R_OTHER, R_TX, R_RX, R_IN, R_OUT };

struct pinfo {
	enum role role;
	int32_t in_of;		/* for an ".out": the matching ".in" point, else -1 */
};

static bool
ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Describe interface @i (new interfaces may appear mid-file: pcapng allows an IDB anywhere). */
static void
point_describe(struct tr_reader *r, uint32_t i, struct tr_point *pt, struct pinfo *pi)
{
	const char *name = tr_reader_ifname(r, i);

	snprintf(pt->name, sizeof(pt->name), "%s", name ? name : "?");
	pi->in_of = -1;
	pi->role = R_OTHER;
	if (ends_with(pt->name, ".tx") && pt->name[0] == 'w')
		pi->role = R_TX;
	else if (ends_with(pt->name, ".rx") && pt->name[0] == 'w')
		pi->role = R_RX;
	else if (ends_with(pt->name, ".in"))
		pi->role = R_IN;
	else if (ends_with(pt->name, ".out"))
		pi->role = R_OUT;
}

/* Make room for interfaces up to @n and pair every ".out" with its ".in". */
static int
points_grow(struct tr_reader *r, struct tr_syncs *out, struct pinfo **pi, uint32_t n)
{
	struct tr_point *pt;
	struct pinfo *np;
	uint32_t i, j;

	if (n <= out->npoints)
		return 0;
	pt = realloc(out->point, n * sizeof(*pt));
	if (pt == NULL)
		return -ENOMEM;
	out->point = pt;
	np = realloc(*pi, n * sizeof(*np));
	if (np == NULL)
		return -ENOMEM;
	*pi = np;
	for (i = out->npoints; i < n; i++) {
		memset(&out->point[i], 0, sizeof(out->point[i]));
		point_describe(r, i, &out->point[i], &np[i]);
		if (np[i].role == R_RX)
			out->has_rx = true;
	}
	out->npoints = n;
	for (i = 0; i < n; i++) {
		size_t len = strlen(out->point[i].name);

		if (np[i].role != R_OUT || np[i].in_of >= 0)
			continue;
		for (j = 0; j < n; j++)
			if (np[j].role == R_IN && strlen(out->point[j].name) == len - 1 &&
			    strncmp(out->point[j].name, out->point[i].name, len - 4) == 0)
				np[i].in_of = (int32_t)j;
	}
	return 0;
}

/* ---- runs and steps ---- */

static struct tr_run *
run_of(struct tr_syncs *s, uint32_t run_id)
{
	struct tr_run *r;
	uint32_t i;

	for (i = 0; i < s->nruns; i++)
		if (s->run[i].run_id == run_id)
			return &s->run[i];
	r = realloc(s->run, (s->nruns + 1) * sizeof(*r));
	if (r == NULL)
		return NULL;
	s->run = r;
	r = &s->run[s->nruns++];
	memset(r, 0, sizeof(*r));
	r->run_id = run_id;
	return r;
}

static struct tr_step *
step_of(struct tr_run *r, uint32_t step)
{
	uint32_t i;

	if (step < r->nsteps)
		return &r->step[step];
	if (step >= 100000000)
		return NULL;
	if (step >= r->cap) {
		uint32_t cap = r->cap ? r->cap : 64;
		struct tr_step *s;

		while (cap <= step)
			cap *= 2;
		s = realloc(r->step, cap * sizeof(*s));
		if (s == NULL)
			return NULL;
		r->step = s;
		r->cap = cap;
	}
	for (i = r->nsteps; i <= step; i++) {
		memset(&r->step[i], 0, sizeof(r->step[i]));
		r->step[i].step = i;
		r->step[i].first_ns = UINT64_MAX;
		r->step[i].first_dep_ns = UINT64_MAX;
	}
	r->nsteps = step + 1;
	return &r->step[step];
}

int
tr_syncs_read(struct tr_reader *rd, struct tr_syncs *out, char *err, size_t errlen)
{
	struct table pend = { NULL, 0, 0 };
	struct pinfo *pi = NULL;
	struct tr_packet p;
	bool any_tx = false;
	uint32_t i;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = points_grow(rd, out, &pi, tr_reader_ifcount(rd));
	while (rc == 0 && (rc = tr_reader_next(rd, &p, err, errlen)) == 1) {
		struct tr_point *pt;
		struct tr_ip ip;
		const uint8_t *h;
		struct tr_run *run;
		struct tr_step *st;
		uint32_t step, round;
		uint64_t key;
		bool bg;

		rc = 0;
		out->frames++;
		if (p.ifid >= out->npoints &&
		    points_grow(rd, out, &pi, tr_reader_ifcount(rd) > p.ifid ?
				tr_reader_ifcount(rd) : p.ifid + 1) != 0) {
			rc = -ENOMEM;
			break;
		}
		pt = &out->point[p.ifid];
		if (pi[p.ifid].role == R_TX)
			any_tx = true;
		pt->frames++;
		pt->bytes += p.len;
		if (tr_decode_ip(p.linktype, p.data, p.caplen, &ip) != 0 || ip.proto != 17 ||
		    ip.dport != SE_PORT || ip.l4_data == NULL || ip.l4_caplen < SE_HDR ||
		    be(ip.l4_data, 4) != SE_MAGIC) {
			out->other++;
			continue;
		}
		out->se_frames++;
		h = ip.l4_data;
		bg = (h[5] & F_BG) || h[21] == KIND_SINK;
		step = (uint32_t)be(h + 12, 4);
		round = (uint32_t)be(h + 6, 2);
		if (bg) {
			pt->bg_frames++;
			pt->bg_bytes += p.len;
		}
		/* queueing delay between ".in" and ".out" of one queue */
		key = mix(be(h + 8, 4) << 40 ^ (uint64_t)h[5] << 56 ^ be(h + 16, 2) << 24 ^
			  (uint64_t)step << 7 ^ (uint64_t)round << 48 ^ be(h + 32, 4) ^
			  (uint64_t)be(h + 24, 8) * 31);
		if (pi[p.ifid].role == R_IN) {
			if (table_put(&pend, mix(key ^ p.ifid), p.ts_ns, !bg) != 0)
				rc = -ENOMEM;
		} else if (pi[p.ifid].role == R_OUT && pi[p.ifid].in_of >= 0) {
			struct pending got;

			if (table_take(&pend, mix(key ^ (uint32_t)pi[p.ifid].in_of), &got) &&
			    p.ts_ns >= got.ts) {
				double d = (double)(p.ts_ns - got.ts);

				pt->delays++;
				pt->delay_sum_ns += d;
				if (d > pt->delay_max_ns)
					pt->delay_max_ns = d;
				if (got.fg) {
					pt->fg_delays++;
					pt->fg_delay_sum_ns += d;
				}
			}
		}
		run = run_of(out, (uint32_t)be(h + 8, 4));
		if (run == NULL) {
			rc = -ENOMEM;
			break;
		}
		if (bg) {
			run->bg_frames++;
			continue;
		}
		st = step_of(run, step);
		if (st == NULL) {
			snprintf(err, errlen, "frame %lu: step %u is not plausible",
				 (unsigned long)p.frame, step);
			rc = -EINVAL;
			break;
		}
		run->frames++;
		if (p.ts_ns < st->first_ns)
			st->first_ns = p.ts_ns;
		if (be(h + 40, 8) < st->first_dep_ns)
			st->first_dep_ns = be(h + 40, 8);
		if (round + 1 > st->rounds)
			st->rounds = round + 1;
		if (round >= 4096) {
			snprintf(err, errlen, "frame %lu: round %u is not plausible",
				 (unsigned long)p.frame, round);
			rc = -EINVAL;
			break;
		}
		if (round >= st->round_cap) {
			uint32_t cap = st->round_cap ? st->round_cap : 16, k;
			uint64_t *re, *dep;

			while (cap <= round)
				cap *= 2;
			re = realloc(st->round_end, cap * sizeof(*re));
			if (re != NULL)
				st->round_end = re;
			dep = realloc(st->round_dep, cap * sizeof(*dep));
			if (dep != NULL)
				st->round_dep = dep;
			if (re == NULL || dep == NULL) {
				rc = -ENOMEM;
				break;
			}
			for (k = st->round_cap; k < cap; k++) {
				st->round_end[k] = 0;
				st->round_dep[k] = UINT64_MAX;
			}
			st->round_cap = cap;
		}
		if (be(h + 40, 8) < st->round_dep[round])
			st->round_dep[round] = be(h + 40, 8);
		if (pi[p.ifid].role == R_RX || !out->has_rx) {
			if (p.ts_ns > st->end_ns)
				st->end_ns = p.ts_ns;
			if (p.ts_ns > st->round_end[round])
				st->round_end[round] = p.ts_ns;
		}
		if (pi[p.ifid].role == R_TX || !any_tx) {
			st->frames++;
			st->bytes += be(h + 36, 4);
		}
	}
	if (rc == 0)
		for (i = 0; i < out->nruns; i++)
			out->run[i].ends_at_rx = out->has_rx;
	out->unordered = tr_reader_unordered(rd);
	free(pend.s);
	free(pi);
	if (rc != 0) {
		if (rc == -ENOMEM)
			snprintf(err, errlen, "out of memory");
		tr_syncs_free(out);
		return rc;
	}
	/* runs in run-id order */
	for (i = 1; i < out->nruns; i++) {
		struct tr_run t = out->run[i];
		uint32_t j = i;

		while (j > 0 && out->run[j - 1].run_id > t.run_id) {
			out->run[j] = out->run[j - 1];
			j--;
		}
		out->run[j] = t;
	}
	return 0;
}

void
tr_syncs_free(struct tr_syncs *s)
{
	uint32_t i;

	for (i = 0; i < s->nruns; i++) {
		uint32_t k;

		for (k = 0; k < s->run[i].nsteps; k++) {
			free(s->run[i].step[k].round_end);
			free(s->run[i].step[k].round_dep);
		}
		free(s->run[i].step);
	}
	free(s->run);
	free(s->point);
	memset(s, 0, sizeof(*s));
}

/* ---- bursts ---- */

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The gap between "inside a burst" and "between bursts": the largest multiplicative jump among
 * the sorted gaps above 10 x their median. */
static double
auto_gap(const uint64_t *ts, uint64_t n)
{
	double *g, med, best = 0, thr = 0;
	uint64_t i;

	if (n < 3)
		return INFINITY;
	g = malloc((n - 1) * sizeof(*g));
	if (g == NULL)
		return INFINITY;
	for (i = 1; i < n; i++)
		g[i - 1] = (ts[i] - ts[i - 1]) / 1e9;
	qsort(g, n - 1, sizeof(*g), cmp_double);
	med = g[(n - 1) / 2];
	for (i = 1; i < n - 1; i++) {
		double lo = g[i - 1] > 1e-9 ? g[i - 1] : 1e-9;

		if (g[i] < 10 * med || g[i] < 100e-6)
			continue;
		if (g[i] / lo > best) {
			best = g[i] / lo;
			thr = sqrt(g[i] * lo);
		}
	}
	free(g);
	return best > 0 ? thr : INFINITY;
}

struct sel {
	uint64_t ts;
	uint32_t bytes;
	uint64_t flow;
};

static int
cmp_flow_bytes(const void *a, const void *b)
{
	const struct tr_flow *x = a, *y = b;

	return x->bytes > y->bytes ? -1 : x->bytes < y->bytes;
}

/* Count a packet on its flow (a linear table: a sync has few flows; past TR_FLOWS_MAX the rest
 * are only counted in the bursts). */
static int
flow_add(struct tr_bursts *out, const struct tr_ip *ip, uint32_t bytes)
{
	uint32_t i;
	struct tr_flow *f;

	for (i = 0; i < out->nflows; i++) {
		f = &out->flow[i];
		if (f->family == ip->family && f->proto == ip->proto && f->sport == ip->sport &&
		    f->dport == ip->dport && memcmp(f->src, ip->src, 16) == 0 &&
		    memcmp(f->dst, ip->dst, 16) == 0)
			goto found;
	}
	if (out->nflows == TR_FLOWS_MAX)
		return 0;
	if ((out->nflows & (out->nflows - 1)) == 0) {
		f = realloc(out->flow, (out->nflows ? 2 * out->nflows : 1) * sizeof(*f));
		if (f == NULL)
			return -ENOMEM;
		out->flow = f;
	}
	f = &out->flow[out->nflows++];
	memset(f, 0, sizeof(*f));
	f->family = ip->family;
	f->proto = ip->proto;
	f->sport = ip->sport;
	f->dport = ip->dport;
	memcpy(f->src, ip->src, 16);
	memcpy(f->dst, ip->dst, 16);
found:
	f->packets++;
	f->bytes += bytes;
	return 0;
}

static int
cmp_sel(const void *a, const void *b)
{
	const struct sel *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static int
push_burst(struct tr_bursts *b, const struct tr_burst *x)
{
	if (b->n == b->cap) {
		uint32_t cap = b->cap ? 2 * b->cap : 64;
		struct tr_burst *n = realloc(b->b, cap * sizeof(*n));

		if (n == NULL)
			return -ENOMEM;
		b->b = n;
		b->cap = cap;
	}
	b->b[b->n++] = *x;
	return 0;
}

static uint32_t
count_flows(const struct sel *s, uint64_t n)
{
	uint64_t seen[64];
	uint32_t k = 0, i;
	uint64_t j;

	for (j = 0; j < n && k < 64; j++) {
		for (i = 0; i < k && seen[i] != s[j].flow; i++)
			;
		if (i == k)
			seen[k++] = s[j].flow;
	}
	return k;
}

int
tr_bursts_read(struct tr_reader *r, const struct tr_burst_params *bp, struct tr_bursts *out,
	       char *err, size_t errlen)
{
	struct tr_select *sel = tr_select_create(bp->filter);
	struct sel *s = NULL;
	uint64_t n = 0, cap = 0, j, start;
	uint64_t *ts = NULL;
	struct tr_packet p;
	int rc;

	memset(out, 0, sizeof(*out));
	if (sel == NULL)
		return -ENOMEM;
	while ((rc = tr_reader_next(r, &p, err, errlen)) == 1) {
		struct tr_ip ip;

		out->packets++;
		rc = tr_select_match(sel, &p, err, errlen);
		if (rc < 0)
			break;
		if (rc == 0)
			continue;
		if (tr_decode_ip(p.linktype, p.data, p.caplen, &ip) != 0) {
			out->not_ip++;
			if (bp->filter == NULL || bp->filter[0] == '\0')
				continue;
		}
		if (n == cap) {
			uint64_t c = cap ? 2 * cap : 4096;
			struct sel *t = realloc(s, c * sizeof(*s));

			if (t == NULL) {
				rc = -ENOMEM;
				break;
			}
			s = t;
			cap = c;
		}
		s[n].ts = p.ts_ns;
		s[n].bytes = bp->payload ? ip.l4_payload : p.len;
		if (ip.family != 0 && flow_add(out, &ip, s[n].bytes) != 0) {
			rc = -ENOMEM;
			break;
		}
		s[n].flow = (be(ip.src, 4) << 32 | be(ip.dst, 4)) ^
			    ((uint64_t)ip.sport << 16 | ip.dport) * 0x9e3779b97f4a7c15ULL ^ ip.proto;
		n++;
	}
	tr_select_free(sel);
	if (rc < 0) {
		if (rc == -ENOMEM)
			snprintf(err, errlen, "out of memory");
		free(s);
		tr_bursts_free(out);
		return rc;
	}
	out->selected = n;
	if (out->nflows > 1)
		qsort(out->flow, out->nflows, sizeof(*out->flow), cmp_flow_bytes);
	if (n == 0) {
		free(s);
		snprintf(out->how, sizeof(out->how), "no packet selected");
		return 0;
	}
	qsort(s, n, sizeof(*s), cmp_sel);
	if (bp->period_s > 0) {
		out->gap_s = NAN;
		snprintf(out->how, sizeof(out->how), "periods of %.9g s from the first packet",
			 bp->period_s);
	} else {
		ts = malloc(n * sizeof(*ts));
		if (ts == NULL) {
			free(s);
			return -ENOMEM;
		}
		for (j = 0; j < n; j++)
			ts[j] = s[j].ts;
		out->gap_s = bp->gap_s > 0 ? bp->gap_s : auto_gap(ts, n);
		free(ts);
		snprintf(out->how, sizeof(out->how), "bursts split at idle gaps over %.6g s (%s)",
			 out->gap_s, bp->gap_s > 0 ? "given" : "automatic: the largest jump among "
			 "the gaps over 10 x the median");
	}
	out->max_inside_s = 0;
	out->min_between_s = INFINITY;
	for (start = 0, j = 1; j <= n; j++) {
		bool cut;

		if (j == n)
			cut = true;
		else if (bp->period_s > 0)
			cut = (uint64_t)((s[j].ts - s[0].ts) / (bp->period_s * 1e9)) !=
			      (uint64_t)((s[start].ts - s[0].ts) / (bp->period_s * 1e9));
		else
			cut = (s[j].ts - s[j - 1].ts) / 1e9 > out->gap_s;
		if (!cut) {
			double g = (s[j].ts - s[j - 1].ts) / 1e9;

			if (g > out->max_inside_s)
				out->max_inside_s = g;
			continue;
		}
		{
			struct tr_burst b = { s[start].ts, s[j - 1].ts, j - start, 0,
					      count_flows(s + start, j - start) };
			uint64_t k;

			for (k = start; k < j; k++)
				b.bytes += s[k].bytes;
			if (push_burst(out, &b) != 0) {
				free(s);
				tr_bursts_free(out);
				return -ENOMEM;
			}
		}
		if (j < n && (s[j].ts - s[j - 1].ts) / 1e9 < out->min_between_s)
			out->min_between_s = (s[j].ts - s[j - 1].ts) / 1e9;
		start = j;
	}
	free(s);
	return 0;
}

void
tr_bursts_free(struct tr_bursts *b)
{
	free(b->flow);
	free(b->b);
	memset(b, 0, sizeof(*b));
}

int
tr_fit_points(const double *x, const double *y, uint32_t n, struct tr_fit *fit)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0, vx, cov, vy;
	uint32_t i;

	if (n == 0)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		sx += x[i];
		sy += y[i];
		sxx += x[i] * x[i];
		sxy += x[i] * y[i];
		syy += y[i] * y[i];
	}
	vx = sxx - sx * sx / n;
	cov = sxy - sx * sy / n;
	vy = syy - sy * sy / n;
	if (n < 2 || vx <= 1e-6 * sxx || cov <= 0) {
		/* one size: the bandwidth from the totals, alpha not identifiable */
		fit->alpha = 0;
		fit->beta = sy > 0 ? sx / sy : NAN;
		fit->r2 = NAN;
		fit->alpha_fixed = true;
		return 0;
	}
	fit->beta = vx / cov;
	fit->alpha = (sy - sx / fit->beta) / n;
	fit->r2 = vy > 0 ? cov * cov / (vx * vy) : NAN;
	fit->alpha_fixed = false;
	return 0;
}

int
tr_fit_alpha_beta(const struct tr_burst *b, uint32_t n, struct tr_fit *fit)
{
	double *x = malloc((n ? n : 1) * sizeof(*x)), *y = malloc((n ? n : 1) * sizeof(*y));
	uint32_t i;
	int rc;

	if (x == NULL || y == NULL) {
		free(x);
		free(y);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		x[i] = (double)b[i].bytes;
		y[i] = (b[i].end_ns - b[i].start_ns) / 1e9;
	}
	rc = tr_fit_points(x, y, n, fit);
	free(x);
	free(y);
	return rc;
}

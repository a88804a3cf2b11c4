/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rebuilding syncs from a capture.
 *
 * syncemu frames: UDP to port 47110 with the syncemu header (wire.h; README, "Traces and the wire
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
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "reader.h"
#include "select.h"
#include "syncs.h"
#include "wire.h"

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

/* ---- runs and steps: by number, in the order met, through an index (runs and steps are
 * as many as the trace holds, whatever their numbers) ---- */

/* An open-addressing index of 32-bit keys to positions in an array (slots hold position + 1). */
struct idx32 {
	uint32_t *slot;
	uint32_t mask;
};

/* The position of @key in @arr (elements of @esize bytes, the key at @koff), or -1. */
static int64_t
idx32_find(const struct idx32 *x, uint32_t key, const void *arr, size_t esize, size_t koff)
{
	uint32_t h, v;

	if (x->slot == NULL)
		return -1;
	for (h = (uint32_t)mix(key) & x->mask; (v = x->slot[h]) != 0; h = (h + 1) & x->mask)
		if (*(const uint32_t *)((const char *)arr + (size_t)(v - 1) * esize + koff) == key)
			return v - 1;
	return -1;
}

/* Add position @pos of @key (absent); the index grows to hold @n + 1 entries, rebuilt from
 * @arr's first @n. */
static int
idx32_add(struct idx32 *x, uint32_t key, uint32_t pos, uint32_t n, const void *arr, size_t esize,
	  size_t koff)
{
	uint32_t h;

	if (x->slot == NULL || 2 * ((uint64_t)n + 1) > (uint64_t)x->mask + 1) {
		uint32_t nm = x->slot == NULL ? 63 : 2 * x->mask + 1, i;
		uint32_t *ns = calloc((size_t)nm + 1, sizeof(*ns));

		if (ns == NULL)
			return -ENOMEM;
		for (i = 0; i < n; i++) {
			uint32_t k = *(const uint32_t *)((const char *)arr + (size_t)i * esize +
							  koff);

			for (h = (uint32_t)mix(k) & nm; ns[h] != 0; h = (h + 1) & nm)
				;
			ns[h] = i + 1;
		}
		free(x->slot);
		x->slot = ns;
		x->mask = nm;
	}
	for (h = (uint32_t)mix(key) & x->mask; x->slot[h] != 0; h = (h + 1) & x->mask)
		;
	x->slot[h] = pos + 1;
	return 0;
}

struct builder {
	struct idx32 runs;
	struct idx32 *steps;		/* [nruns]: each run's steps */
	uint32_t steps_cap;
};

static struct tr_run *
run_of(struct tr_syncs *s, struct builder *b, uint32_t run_id)
{
	int64_t i = idx32_find(&b->runs, run_id, s->run, sizeof(*s->run),
			       offsetof(struct tr_run, run_id));
	struct tr_run *r;

	if (i >= 0)
		return &s->run[i];
	if (s->nruns == UINT32_MAX - 1)
		return NULL;
	r = realloc(s->run, ((size_t)s->nruns + 1) * sizeof(*r));
	if (r == NULL)
		return NULL;
	s->run = r;
	if (s->nruns == b->steps_cap) {
		uint32_t nc = b->steps_cap ? 2 * b->steps_cap : 8;
		struct idx32 *ns = realloc(b->steps, (size_t)nc * sizeof(*ns));

		if (ns == NULL)
			return NULL;
		memset(ns + b->steps_cap, 0, (size_t)(nc - b->steps_cap) * sizeof(*ns));
		b->steps = ns;
		b->steps_cap = nc;
	}
	if (idx32_add(&b->runs, run_id, s->nruns, s->nruns, s->run, sizeof(*s->run),
		      offsetof(struct tr_run, run_id)) != 0)
		return NULL;
	r = &s->run[s->nruns++];
	memset(r, 0, sizeof(*r));
	r->run_id = run_id;
	return r;
}

static struct tr_step *
step_of(struct tr_run *r, struct idx32 *x, uint32_t step)
{
	int64_t i = idx32_find(x, step, r->step, sizeof(*r->step), offsetof(struct tr_step, step));
	struct tr_step *st;

	if (i >= 0)
		return &r->step[i];
	if (r->nsteps == r->cap) {
		uint32_t cap = r->cap ? 2 * r->cap : 64;
		struct tr_step *s = realloc(r->step, (size_t)cap * sizeof(*s));

		if (s == NULL)
			return NULL;
		r->step = s;
		r->cap = cap;
	}
	if (idx32_add(x, step, r->nsteps, r->nsteps, r->step, sizeof(*r->step),
		      offsetof(struct tr_step, step)) != 0)
		return NULL;
	st = &r->step[r->nsteps++];
	memset(st, 0, sizeof(*st));
	st->step = step;
	st->first_ns = UINT64_MAX;
	st->first_dep_ns = UINT64_MAX;
	return st;
}

static int
cmp_run(const void *a, const void *b)
{
	const struct tr_run *x = a, *y = b;

	return x->run_id < y->run_id ? -1 : x->run_id > y->run_id;
}

static int
cmp_step(const void *a, const void *b)
{
	const struct tr_step *x = a, *y = b;

	return x->step < y->step ? -1 : x->step > y->step;
}

/* The rounds a run's step can have: the limit of its run id, if the trace announces it. */
static int
run_limit(const struct tr_syncs_limits *lim, uint32_t run_id, uint32_t *rounds)
{
	uint32_t i;

	*rounds = 0;
	if (lim == NULL || lim->nruns == 0)
		return 0;
	for (i = 0; i < lim->nruns; i++)
		if (lim->run[i].run_id == run_id) {
			*rounds = lim->run[i].rounds;
			return 0;
		}
	return -ENOENT;
}

/* A frame's header that the trace's own scenario makes impossible: -EINVAL with the message
 * naming the frame, else 0. */
static int
frame_check(const struct tr_syncs_limits *lim, uint64_t frame, uint32_t run_id, uint32_t step,
	    uint32_t round, uint32_t src, uint32_t dst, char *err, size_t errlen)
{
	uint32_t rounds, i;
	int n;

	if (lim == NULL)
		return 0;
	if (run_limit(lim, run_id, &rounds) != 0) {
		n = snprintf(err, errlen, "frame %" PRIu64 ": run id %u, but the trace's header "
			     "lists the runs", frame, run_id);
		for (i = 0; i < lim->nruns && n >= 0 && (size_t)n < errlen; i++)
			n += snprintf(err + n, errlen - (size_t)n, "%s %u", i ? "," : "",
				      lim->run[i].run_id);
		return -EINVAL;
	}
	if (lim->steps > 0 && step >= lim->steps) {
		snprintf(err, errlen, "frame %" PRIu64 ": step %u, but the trace's scenario runs "
			 "%u steps (0 to %u)", frame, step, lim->steps, lim->steps - 1);
		return -EINVAL;
	}
	if (rounds > 0 && round >= rounds) {
		snprintf(err, errlen, "frame %" PRIu64 ": round %u, but run %u has %u rounds a "
			 "step (0 to %u)", frame, round, run_id, rounds, rounds - 1);
		return -EINVAL;
	}
	if (lim->nodes > 0 && (src >= lim->nodes || dst >= lim->nodes)) {
		snprintf(err, errlen, "frame %" PRIu64 ": %s %u, but the trace's scenario has %u "
			 "workers (0 to %u)", frame, src >= lim->nodes ? "source" : "destination",
			 src >= lim->nodes ? src : dst, lim->nodes, lim->nodes - 1);
		return -EINVAL;
	}
	return 0;
}

/* Room in @p st's per-round arrays for round @p round (doubling); 0 or -ENOMEM. */
static int
step_rounds_grow(struct tr_step *st, uint32_t round)
{
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
	if (re == NULL || dep == NULL)
		return -ENOMEM;
	for (k = st->round_cap; k < cap; k++) {
		st->round_end[k] = 0;
		st->round_dep[k] = UINT64_MAX;
	}
	st->round_cap = cap;
	return 0;
}

int
tr_syncs_read(struct tr_reader *rd, const struct tr_syncs_limits *lim, struct tr_syncs *out,
	      char *err, size_t errlen)
{
	struct table pend = { NULL, 0, 0 };
	struct builder bld = { { NULL, 0 }, NULL, 0 };
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
		uint32_t step, round, rounds_max;
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
		    ip.dport != SM_SE_UDP_DST || ip.l4_data == NULL || ip.l4_caplen < SM_SE_HDR ||
		    sm_se_magic(ip.l4_data) != SM_SE_MAGIC) {
			out->other++;
			continue;
		}
		out->se_frames++;
		h = ip.l4_data;
		bg = (sm_se_flags(h) & SM_SE_F_BG) || sm_se_kind(h) == SM_SE_KIND_SINK;
		step = sm_se_step(h);
		round = sm_se_round(h);
		if (!bg) {
			rc = frame_check(lim, p.frame, sm_se_run_id(h), step, round, sm_se_src(h),
					 sm_se_dst(h), err, errlen);
			if (rc != 0)
				break;
		}
		if (bg) {
			pt->bg_frames++;
			pt->bg_bytes += p.len;
		}
		/* queueing delay between ".in" and ".out" of one queue */
		key = mix((uint64_t)sm_se_run_id(h) << 40 ^ (uint64_t)sm_se_flags(h) << 56 ^
			  (uint64_t)sm_se_src(h) << 24 ^ (uint64_t)step << 7 ^
			  (uint64_t)round << 48 ^ sm_se_seq(h) ^ sm_se_offset(h) * 31);
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
		if (rc != 0)
			break;
		run = run_of(out, &bld, sm_se_run_id(h));
		if (run == NULL) {
			rc = -ENOMEM;
			break;
		}
		if (bg) {
			run->bg_frames++;
			continue;
		}
		/* without the trace's scenario, a round from TR_ROUNDS_PLAUSIBLE is not believed */
		run_limit(lim, run->run_id, &rounds_max);
		if (rounds_max == 0 && round >= TR_ROUNDS_PLAUSIBLE) {
			snprintf(err, errlen, "frame %" PRIu64 ": round %u is not plausible (the "
				 "trace carries no scenario to say how many rounds a step has)",
				 p.frame, round);
			rc = -EINVAL;
			break;
		}
		st = step_of(run, &bld.steps[run - out->run], step);
		if (st == NULL) {
			rc = -ENOMEM;
			break;
		}
		run->frames++;
		if (p.ts_ns < st->first_ns)
			st->first_ns = p.ts_ns;
		if (sm_se_departure_ns(h) < st->first_dep_ns)
			st->first_dep_ns = sm_se_departure_ns(h);
		if (round + 1 > st->rounds)
			st->rounds = round + 1;
		if (round >= st->round_cap && step_rounds_grow(st, round) != 0) {
			rc = -ENOMEM;
			break;
		}
		if (sm_se_departure_ns(h) < st->round_dep[round])
			st->round_dep[round] = sm_se_departure_ns(h);
		if (pi[p.ifid].role == R_RX || !out->has_rx) {
			if (p.ts_ns > st->end_ns)
				st->end_ns = p.ts_ns;
			if (p.ts_ns > st->round_end[round])
				st->round_end[round] = p.ts_ns;
		}
		if (pi[p.ifid].role == R_TX || !any_tx) {
			st->frames++;
			st->bytes += sm_se_payload_len(h);
		}
	}
	if (rc == 0)
		for (i = 0; i < out->nruns; i++)
			out->run[i].ends_at_rx = out->has_rx;
	out->unordered = tr_reader_unordered(rd);
	free(pend.s);
	free(pi);
	free(bld.runs.slot);
	for (i = 0; i < bld.steps_cap; i++)
		free(bld.steps[i].slot);
	free(bld.steps);
	if (rc != 0) {
		if (rc == -ENOMEM)
			snprintf(err, errlen, "out of memory");
		tr_syncs_free(out);
		return rc;
	}
	/* runs in run-id order, each one's steps in step order */
	if (out->nruns > 1)
		qsort(out->run, out->nruns, sizeof(*out->run), cmp_run);
	for (i = 0; i < out->nruns; i++)
		if (out->run[i].nsteps > 1)
			qsort(out->run[i].step, out->run[i].nsteps, sizeof(*out->run[i].step),
			      cmp_step);
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

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The job's part of each direction's stream, from the joint structure of the directions
 * (streams.h): what a direction sent while the others were silent, before the job's first
 * exchange and after its last, is not a step.
 *
 * A job's steps are exchanges: every direction of the job carries a share of each.  A job also
 * sends one way only at times: PyTorch DDP broadcasts its parameters from rank 0 before the
 * first iteration (a step's volume one way, none back), a library's set-up or a final gather
 * sends a little.  Cut into equal volumes, such a direction's stream puts every cut a part of a
 * step late.  So the capture is split in time into *periods* at the times when every direction
 * of the job was idle (joint idle times of at least TR_JOINT_IDLE_MIN_S); a period is *one-way*
 * when some direction carried less than TR_ONE_WAY_SHARE of the bytes the busiest one carried
 * in it, and *small* when its busiest direction carried less than TR_SMALL_SHARE of the median
 * period's (by bytes: half the bytes are in periods as large or larger).  If a one-way period
 * that is not small comes before the first two-way period that is not small (a prelude), the
 * job's part starts with that two-way period; if one comes after the last (a postlude), the
 * job's part ends with that one (the small periods beside them go too); each
 * direction's bounds are its stream's offsets at those two times (every direction is idle
 * there: its offset is its stream's position in its idle gap).  A step whose directions took
 * turns can also look one-way (a period each way, the reduction's compute between): it is told
 * from a prelude by the volumes, since a collective between hosts sends each of them the same
 * bytes a step: the prelude, the postlude or both are left out only if that at least halves
 * the spread of the directions' volumes ((largest - smallest) / largest).  Without them the
 * bounds are the streams' ends, as before.
 *
 * Steps of different sizes (a job whose buffers change) are not equal volumes: when fewer than
 * TR_VARY_SNAP_SHARE of the largest direction's equal cuts find an idle gap, joint_cuts() puts
 * the N - 1 interior cuts at the N - 1 longest times every direction was idle (the compute
 * between steps), each direction's cut its stream's offset there, if the shortest of them is
 * TR_IDLE_SEP_MIN times the longest left out at least: otherwise nothing tells the steps apart,
 * and the caller says so.
 *
 * A step of two alike halves folds as two steps: joint_alternate() and joint_middles() look at
 * the idle times at the cuts the period gave (the ends alternating long and short: halves that
 * differ, so half the count; the middles pausing as the ends: twice it), for split.c to cut
 * again.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream.h"
#include "streams.h"
#include "streams_impl.h"

#define TR_ALT_SHARE 0.8		/* cuts whose idle times alternate this often pair up */
#define TR_SPREAD_GAIN 0.01		/* a prelude left out evens the volumes by this much */
#define TR_ALIKE 0.1			/* idle times this close pause alike */

/* An idle interval of one direction, as edges: +1 it goes idle, -1 it is busy again. */
struct jedge {
	uint64_t t;
	int delta;
};

static int
cmp_jedge(const void *a, const void *b)
{
	const struct jedge *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->delta - y->delta;
}

/* Direction @p d's stream offset at time @p t, when @p d is idle at @p t (before its first data
 * packet: 0; after its last: its length; else the gap that holds t). */
static uint64_t
off_at(const struct tr_dir *d, uint64_t t)
{
	uint32_t lo;

	if (t <= d->first_ns)
		return 0;
	if (t >= d->last_ns)
		return d->bytes;
	lo = tr_gap_after(d, t);
	if (lo < d->ngaps && d->gap[lo].start_ns <= t)
		return d->gap[lo].off;
	/* not in a gap (no joint idle time is): the previous gap's offset is the nearest known */
	return lo > 0 ? d->gap[lo - 1].off : 0;
}

/* A period between two joint idle times: each direction's bytes in it. */
struct period {
	uint64_t t0, t1;		/* the joint idle times around it (their midpoints) */
	uint64_t maxb, minb;
};

/* The joint idle times of the major directions (at least @p min_ns long), as their midpoints,
 * the capture's start and end first and last; *@p n of them.  NULL on ENOMEM. */
static uint64_t *
joint_idle_times(const struct tr_streams *s, uint64_t min_ns, uint32_t *n)
{
	uint64_t t0 = UINT64_MAX, t1 = 0, *mid = NULL, from = 0;
	struct jedge *e;
	size_t ne = 0, cap = 2, i;
	uint32_t d, nm = 0;
	int idle = 0;

	for (d = 0; d < s->nmajor; d++) {
		cap += 2 * ((size_t)s->dir[d].ngaps + 2);
		t0 = s->dir[d].first_ns < t0 ? s->dir[d].first_ns : t0;
		t1 = s->dir[d].last_ns > t1 ? s->dir[d].last_ns : t1;
	}
	e = malloc(cap * sizeof(*e));
	mid = malloc((cap / 2 + 2) * sizeof(*mid));
	if (e == NULL || mid == NULL) {
		free(e);
		free(mid);
		return NULL;
	}
	for (d = 0; d < s->nmajor; d++) {
		const struct tr_dir *x = &s->dir[d];
		uint32_t g;

		if (x->first_ns > t0) {
			e[ne++] = (struct jedge){ t0, +1 };
			e[ne++] = (struct jedge){ x->first_ns, -1 };
		}
		for (g = 0; g < x->ngaps; g++) {
			e[ne++] = (struct jedge){ x->gap[g].start_ns, +1 };
			e[ne++] = (struct jedge){ x->gap[g].start_ns + x->gap[g].dur_ns, -1 };
		}
		if (x->last_ns < t1) {
			e[ne++] = (struct jedge){ x->last_ns, +1 };
			e[ne++] = (struct jedge){ t1, -1 };
		}
	}
	qsort(e, ne, sizeof(*e), cmp_jedge);
	mid[nm++] = t0;
	for (i = 0; i < ne; i++) {
		if (idle == (int)s->nmajor && e[i].delta < 0 && e[i].t - from >= min_ns &&
		    from > t0 && e[i].t < t1)
			mid[nm++] = from + (e[i].t - from) / 2;
		idle += e[i].delta;
		if (idle == (int)s->nmajor && e[i].delta > 0)
			from = e[i].t;
	}
	mid[nm++] = t1;
	free(e);
	*n = nm;
	return mid;
}

static int
cmp_u64(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* The spread of the major directions' volumes between times @p lo_t and @p hi_t (each idle
 * then): (largest - smallest) / largest. */
static double
spread(const struct tr_streams *s, uint64_t lo_t, uint64_t hi_t)
{
	double mx = 0, mn = INFINITY;
	uint32_t d;

	for (d = 0; d < s->nmajor; d++) {
		uint64_t a = off_at(&s->dir[d], lo_t), b = off_at(&s->dir[d], hi_t);
		double x = b > a ? (double)(b - a) : 0;

		mx = x > mx ? x : mx;
		mn = x < mn ? x : mn;
	}
	return mx > 0 ? (mx - mn) / mx : 0;
}

int
joint_bounds(struct tr_streams *s)
{
	uint64_t *t, *maxs, med, sum = 0, min_ns = UINT64_MAX, lo_t, hi_t;
	struct period *p;
	uint32_t nt, np, d, k, first2 = UINT32_MAX, last2 = 0, pre = UINT32_MAX, post = UINT32_MAX;
	unsigned int c, best = 0;
	double best_x = INFINITY, all;

	s->prelude_ns = s->postlude_ns = 0;
	for (d = 0; d < s->nmajor; d++) {
		s->dir[d].job_lo = 0;
		s->dir[d].job_hi = s->dir[d].bytes;
		if (tk_ns(s->dir[d].idle_s) < min_ns)
			min_ns = tk_ns(s->dir[d].idle_s);
	}
	if (s->nmajor < 2)
		return 0;
	if (min_ns < tk_ns(TR_JOINT_IDLE_MIN_S))
		min_ns = tk_ns(TR_JOINT_IDLE_MIN_S);
	t = joint_idle_times(s, min_ns, &nt);
	if (t == NULL)
		return -ENOMEM;
	np = nt - 1;
	p = calloc(np ? np : 1, sizeof(*p));
	maxs = calloc(np ? np : 1, sizeof(*maxs));
	if (p == NULL || maxs == NULL) {
		free(t);
		free(p);
		free(maxs);
		return -ENOMEM;
	}
	for (k = 0; k < np; k++) {
		p[k].t0 = t[k];
		p[k].t1 = t[k + 1];
		p[k].minb = UINT64_MAX;
		for (d = 0; d < s->nmajor; d++) {
			uint64_t a = off_at(&s->dir[d], p[k].t0), b = off_at(&s->dir[d], p[k].t1);
			uint64_t x = b > a ? b - a : 0;

			p[k].maxb = x > p[k].maxb ? x : p[k].maxb;
			p[k].minb = x < p[k].minb ? x : p[k].minb;
		}
		maxs[k] = p[k].maxb;
	}
	/* the median period by bytes: half the bytes are in periods as large or larger (small
	 * periods, a few messages each, can be the most) */
	qsort(maxs, np, sizeof(*maxs), cmp_u64);
	for (k = 0; k < np; k++)
		sum += maxs[k];
	for (k = 0, med = 0; k < np && 2 * med < sum; k++)
		med += maxs[k];
	med = k > 0 ? maxs[k - 1] : 0;
#define BIG(k) ((double)p[k].maxb >= TR_SMALL_SHARE * (double)med && p[k].maxb > 0)
#define TWO_WAY(k) ((double)p[k].minb >= TR_ONE_WAY_SHARE * (double)p[k].maxb)
	for (k = 0; k < np; k++)
		if (BIG(k) && TWO_WAY(k)) {
			if (first2 == UINT32_MAX)
				first2 = k;
			last2 = k;
		}
	for (k = 0; first2 != UINT32_MAX && k < first2; k++)
		if (BIG(k) && !TWO_WAY(k))
			pre = k;
	for (k = np; first2 != UINT32_MAX && k-- > last2 + 1;)
		if (BIG(k) && !TWO_WAY(k))
			post = k;
#undef BIG
#undef TWO_WAY
	/* the small periods between them go too (a library's few messages around its set-up) */
	lo_t = pre != UINT32_MAX ? p[first2].t0 : 0;
	hi_t = post != UINT32_MAX ? p[last2].t1 : UINT64_MAX;
	/* which of them to leave out: the choice with the least spread, if it halves it and
	 * evens the volumes by TR_SPREAD_GAIN of them at least (directions equal to a few
	 * hundred bytes of a library's messages are not uneven: halving that is noise) */
	all = spread(s, 0, UINT64_MAX);
	for (c = 1; c < 4; c++) {
		double x;

		if (((c & 1) && pre == UINT32_MAX) || ((c & 2) && post == UINT32_MAX))
			continue;
		x = spread(s, c & 1 ? lo_t : 0, c & 2 ? hi_t : UINT64_MAX);
		if (x < 0.5 * all && all - x >= TR_SPREAD_GAIN && (best == 0 || x < best_x)) {
			best = c;
			best_x = x;
		}
	}
	for (d = 0; d < s->nmajor; d++) {
		if (best & 1)
			s->dir[d].job_lo = off_at(&s->dir[d], lo_t);
		if (best & 2)
			s->dir[d].job_hi = off_at(&s->dir[d], hi_t);
		if (s->dir[d].job_hi < s->dir[d].job_lo)
			s->dir[d].job_hi = s->dir[d].job_lo;
	}
	if (best & 1)
		s->prelude_ns = lo_t;
	if (best & 2)
		s->postlude_ns = hi_t;
	free(t);
	free(p);
	free(maxs);
	return 0;
}

/* An idle time of every direction: its midpoint and its length. */
struct jidle {
	uint64_t mid, dur;
};

static int
cmp_jidle_dur(const void *a, const void *b)
{
	const struct jidle *x = a, *y = b;

	return x->dur > y->dur ? -1 : x->dur < y->dur;
}

static int
cmp_jidle_mid(const void *a, const void *b)
{
	const struct jidle *x = a, *y = b;

	return x->mid < y->mid ? -1 : x->mid > y->mid;
}

int
joint_cuts(struct tr_streams *s, uint32_t n, double *sep)
{
	uint64_t t0 = UINT64_MAX, t1 = 0, from = 0, lo_t, hi_t, min_ns = UINT64_MAX;
	struct jedge *e;
	struct jidle *c;
	size_t ne = 0, cap = 0, i;
	uint32_t d, nc = 0, k;
	int idle = 0;

	*sep = 0;
	if (n < 2 || s->nmajor < 1)
		return -ENOENT;
	for (d = 0; d < s->nmajor; d++) {
		cap += 2 * ((size_t)s->dir[d].ngaps + 2);
		t0 = s->dir[d].first_ns < t0 ? s->dir[d].first_ns : t0;
		t1 = s->dir[d].last_ns > t1 ? s->dir[d].last_ns : t1;
		if (tk_ns(s->dir[d].idle_s) < min_ns)
			min_ns = tk_ns(s->dir[d].idle_s);
	}
	if (min_ns < tk_ns(TR_JOINT_IDLE_MIN_S))
		min_ns = tk_ns(TR_JOINT_IDLE_MIN_S);
	lo_t = s->prelude_ns ? s->prelude_ns : t0;
	hi_t = s->postlude_ns ? s->postlude_ns : t1;
	e = malloc(cap * sizeof(*e));
	c = malloc((cap / 2 + 1) * sizeof(*c));
	if (e == NULL || c == NULL) {
		free(e);
		free(c);
		return -ENOMEM;
	}
	for (d = 0; d < s->nmajor; d++) {
		const struct tr_dir *x = &s->dir[d];
		uint32_t g;

		for (g = 0; g < x->ngaps; g++) {
			e[ne++] = (struct jedge){ x->gap[g].start_ns, +1 };
			e[ne++] = (struct jedge){ x->gap[g].start_ns + x->gap[g].dur_ns, -1 };
		}
		/* before its first packet and after its last it is idle */
		e[ne++] = (struct jedge){ t0, +1 };
		e[ne++] = (struct jedge){ x->first_ns, -1 };
		e[ne++] = (struct jedge){ x->last_ns, +1 };
		e[ne++] = (struct jedge){ t1, -1 };
	}
	qsort(e, ne, sizeof(*e), cmp_jedge);
	for (i = 0; i < ne; i++) {
		if (idle == (int)s->nmajor && e[i].delta < 0 && e[i].t - from >= min_ns) {
			uint64_t mid = from + (e[i].t - from) / 2;

			if (mid > lo_t && mid < hi_t)
				c[nc++] = (struct jidle){ mid, e[i].t - from };
		}
		idle += e[i].delta;
		if (idle == (int)s->nmajor && e[i].delta > 0)
			from = e[i].t;
	}
	free(e);
	if (nc < n - 1) {
		free(c);
		return -ENOENT;
	}
	qsort(c, nc, sizeof(*c), cmp_jidle_dur);
	*sep = nc > n - 1 ? (double)c[n - 2].dur / (double)c[n - 1].dur : INFINITY;
	if (*sep < TR_IDLE_SEP_MIN) {		/* they do not tell: the cuts stay */
		free(c);
		return -ENOENT;
	}
	qsort(c, n - 1, sizeof(*c), cmp_jidle_mid);
	/* every direction must carry bytes in every step: else the idle times do not cut it */
	for (d = 0; d < s->nmajor; d++) {
		const struct tr_dir *x = &s->dir[d];
		uint64_t prev = x->cut[0], at;

		for (k = 1; k <= n; k++) {
			at = k < n ? off_at(x, c[k - 1].mid) : x->cut[n];
			if (at <= prev) {
				free(c);
				return -ENOENT;
			}
			prev = at;
		}
	}
	for (d = 0; d < s->nmajor; d++) {
		struct tr_dir *x = &s->dir[d];

		for (k = 1; k < n; k++)
			x->cut[k] = off_at(x, c[k - 1].mid);
		x->snapped = n - 1;
	}
	free(c);
	return 0;
}

/* The joint idle time of direction @p d's gaps at offset @p off (the longest), 0 if none. */
static uint64_t
idle_at(const struct tr_dir *d, uint64_t off)
{
	uint32_t lo;
	uint64_t w = 0;

	lo = tr_gap_from_off(d, off);
	for (; lo < d->ngaps && d->gap[lo].off == off; lo++)
		w = d->gap[lo].joint_ns > w ? d->gap[lo].joint_ns : w;
	return w;
}

/*
 * Whether direction @p d's n cuts pair up: the idle times at them alternate, long and short, in
 * at least TR_ALT_SHARE of the turns (a step of two phases whose pauses differ read as two
 * steps).  Ties (steps as alike as an emulation makes them) are no turn.
 */
bool
joint_alternate(const struct tr_dir *d, uint32_t n)
{
	uint32_t k, up = 0, down = 0;

	if (n < 6 || n % 2 != 0)
		return false;
	for (k = 1; k + 1 < n; k++) {
		uint64_t a = idle_at(d, d->cut[k]), b = idle_at(d, d->cut[k + 1]);

		if (a == 0 || b == 0 || a == b)
			continue;
		if ((b > a) == (k % 2 == 1))
			up++;
		else
			down++;
	}
	return (up > down ? up : down) >= TR_ALT_SHARE * (n - 2);
}

/*
 * Whether direction @p d's n steps pause at their middles as at their ends: in at least half of
 * them, the longest idle gap within TR_EDGE_FRACTION of a step of the middle is within
 * TR_ALIKE of the idle time at the step's end (the steps may be 2n, as alike as an emulation
 * makes them, their first ones unlike the rest: TCP's warm-up).
 */
bool
joint_middles(const struct tr_dir *d, uint32_t n)
{
	uint32_t k, alike = 0;

	if (n < 2)
		return false;
	for (k = 0; k + 1 < n; k++) {
		double v = (double)(d->cut[k + 1] - d->cut[k]), m = (double)d->cut[k] + v / 2;
		double w = TR_EDGE_FRACTION * v / 2;
		int64_t g = longest_gap(d, (uint64_t)(m - w), (uint64_t)(m + w));
		double a = (double)idle_at(d, d->cut[k + 1]), b = g >= 0 ? (double)d->gap[g].joint_ns : 0;

		alike += a > 0 && fabs(a - b) <= TR_ALIKE * (a > b ? a : b);
	}
	return alike >= n / 2;
}

/* The overlap of time spans [a0, a1) and [b0, b1), as [*lo, *hi); its length. */
static uint64_t
span_and(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1, uint64_t *lo, uint64_t *hi)
{
	*lo = a0 > b0 ? a0 : b0;
	*hi = a1 < b1 ? a1 : b1;
	return *hi > *lo ? *hi - *lo : 0;
}

/*
 * Direction @p d's gap within @p w bytes of offset @p x, strictly between offsets @p lo and
 * @p hi, that overlaps [@p t0, @p t1) the longest: its index, -1 if none does.
 */
static int64_t
gap_meeting(const struct tr_dir *d, uint64_t x, uint64_t w, uint64_t lo, uint64_t hi,
	    uint64_t t0, uint64_t t1)
{
	uint32_t j = tr_gap_from_off(d, x > w ? x - w : 0);
	uint64_t best = 0, a, b, o;
	int64_t g = -1;

	for (; j < d->ngaps && d->gap[j].off <= x + w; j++) {
		if (d->gap[j].off <= lo || d->gap[j].off >= hi)
			continue;
		o = span_and(t0, t1, d->gap[j].start_ns, d->gap[j].start_ns + d->gap[j].dur_ns,
			     &a, &b);
		if (o > best) {
			best = o;
			g = j;
		}
	}
	return g;
}

int
joint_agree(struct tr_streams *s, uint32_t n)
{
	uint32_t k, i, nd = s->nmajor, moved = 0;
	int64_t *pick, *best;

	if (nd < 2 || n < 2)
		return 0;
	pick = calloc(nd, sizeof(*pick));
	best = calloc(nd, sizeof(*best));
	if (pick == NULL || best == NULL) {
		free(pick);
		free(best);
		return -ENOMEM;
	}
	for (k = 1; k < n; k++) {
		const struct tr_dir *d0 = &s->dir[0];
		uint64_t w0 = (uint64_t)(TR_SNAP_FRACTION * (double)(d0->cut[n] - d0->cut[0]) / n);
		uint64_t t0 = 0, t1 = UINT64_MAX, lo, hi, top = 0;
		uint32_t j;

		/* the cuts as placed: left if one is not at a gap, or if their gaps' times meet */
		for (i = 0; i < nd; i++)
			if (gap_meeting(&s->dir[i], s->dir[i].cut[k], 0, s->dir[i].cut[k - 1],
					s->dir[i].cut[k + 1], 0, UINT64_MAX) < 0)
				break;
		if (i < nd)
			continue;
		for (i = 0; i < nd && t1 > t0; i++) {
			const struct tr_dir *d = &s->dir[i];
			int64_t g = gap_meeting(d, d->cut[k], 0, d->cut[k - 1], d->cut[k + 1], t0, t1);

			if (g < 0)
				t1 = t0;
			else
				span_and(t0, t1, d->gap[g].start_ns,
					 d->gap[g].start_ns + d->gap[g].dur_ns, &t0, &t1);
		}
		if (t1 > t0)
			continue;
		/* else the gaps near direction 0's cut whose time every direction was idle in
		 * near its own cut too: the longest such time */
		j = tr_gap_from_off(d0, d0->cut[k] > w0 ? d0->cut[k] - w0 : 0);
		for (; j < d0->ngaps && d0->gap[j].off <= d0->cut[k] + w0; j++) {
			const struct tr_gap *g0 = &d0->gap[j];

			if (g0->off <= d0->cut[k - 1] || g0->off >= d0->cut[k + 1])
				continue;
			lo = g0->start_ns;
			hi = g0->start_ns + g0->dur_ns;
			pick[0] = j;
			for (i = 1; i < nd && hi > lo; i++) {
				const struct tr_dir *d = &s->dir[i];
				uint64_t w = (uint64_t)(TR_SNAP_FRACTION *
							(double)(d->cut[n] - d->cut[0]) / n);

				pick[i] = gap_meeting(d, d->cut[k], w, d->cut[k - 1], d->cut[k + 1],
						      lo, hi);
				if (pick[i] < 0)
					hi = lo;
				else
					span_and(lo, hi, d->gap[pick[i]].start_ns,
						 d->gap[pick[i]].start_ns + d->gap[pick[i]].dur_ns,
						 &lo, &hi);
			}
			if (hi > lo && hi - lo > top) {
				top = hi - lo;
				memcpy(best, pick, nd * sizeof(*pick));
			}
		}
		if (top == 0)
			continue;
		for (i = 0; i < nd; i++)
			s->dir[i].cut[k] = s->dir[i].gap[best[i]].off;
		moved++;
	}
	free(pick);
	free(best);
	return (int)moved;
}

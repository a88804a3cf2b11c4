/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where the steps of a job's streams begin and end (streams.h): the step count (given, from the
 * collective's bytes, or from the stream's periodicity), the cuts of each direction's stream,
 * and each step's span, overlap and idle time.
 *
 * The periodicity is found by phase dispersion minimisation (R. F. Stellingwerf, "Period
 * determination using phase dispersion minimization", ApJ 224, 1978) over the stream instead of
 * time: the idle time of the job at each position of a direction's stream is folded on a
 * candidate step volume L / n (L the stream's length) into TR_PDM_BINS phase bins, and
 *	theta(n) = [within-bin variance, B (n - 1) degrees of freedom] /
 *		   [total variance, n B - 1 degrees of freedom]
 * is about 1 for a volume the idle moments do not repeat at and near 0 for one they do.  A
 * volume is also only as good as the share of its steps that do pause where most of the idle
 * time folds (its coverage: two pauses 8 MB apart fold perfectly on 1 MB, with 2 of 8 steps
 * covered), so a candidate scores (1 - theta) x coverage.  Every multiple of the true volume
 * folds as well as the volume itself, and half of it folds badly unless the two halves of a step
 * pause alike; so the step count is the largest n whose score is within TR_PDM_SLACK of the best,
 * then a multiple of it while that scores within TR_PDM_SLACK of it and within twice that of the
 * best (a few steps unlike the rest, TCP's warm-up, spoil the fine folds more than the coarse),
 * and that score is the confidence.  A step count neither a divisor nor a multiple of it that
 * scores as well (the runner-up) makes the answer uncertain.  Folds cannot tell a step of two
 * alike halves from two steps: cut, the idle times at the steps' ends that alternate long and
 * short (the halves differ) halve the count, and middles that pause as the ends do double it;
 * if the new cuts tell no better, the answer is uncertain, naming both (joint.c).  The idle
 * time at a gap of one direction is the part of it during which every other direction of the
 * job was idle too (a direction waiting for the other's turn is not between steps); the cuts
 * move to the gaps with the most of it.
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

#define TR_PDM_BINS 32			/* phase bins */
#define TR_PDM_SLACK 0.05		/* theta within this of the smallest: as good */
#define TR_PDM_GAPS 8192u		/* the longest gaps used */
#define TR_PERIOD_MIN_CONF 0.5		/* below: no period found, unless clear: */
#define TR_PERIOD_CLEAR_CONF 0.3	/* at least this, and TR_PERIOD_CLEAR_RATIO times */
#define TR_PERIOD_CLEAR_RATIO 3.0	/* the next best count's (neither multiple nor divisor) */

/* ---- collectives ---- */

static const char *const coll_names[] = {
	[TR_COLL_ALLREDUCE] = "allreduce",
	[TR_COLL_ALLGATHER] = "allgather",
	[TR_COLL_REDUCESCATTER] = "reducescatter",
	[TR_COLL_ALLTOALL] = "alltoall",
};

const char *
tr_coll_name(enum tr_coll c)
{
	return c > TR_COLL_NONE && c <= TR_COLL_ALLTOALL ? coll_names[c] : NULL;
}

enum tr_coll
tr_coll_parse(const char *name)
{
	int c;

	for (c = TR_COLL_ALLREDUCE; name != NULL && c <= TR_COLL_ALLTOALL; c++)
		if (strcmp(name, coll_names[c]) == 0)
			return (enum tr_coll)c;
	return TR_COLL_NONE;
}

double
tr_coll_dir_bytes(enum tr_coll c, uint32_t ranks, uint32_t hosts, enum tr_placement place,
		  double bytes)
{
	double n = ranks, per = (double)ranks / hosts;
	double crossings = place == TR_PLACE_CYCLIC ? per : 1;

	if (ranks < 2 || hosts < 2 || ranks % hosts != 0 || !(bytes >= 0) || !isfinite(bytes))
		return -1;
	switch (c) {
	case TR_COLL_ALLREDUCE:
		return crossings * 2 * (n - 1) / n * bytes;
	case TR_COLL_ALLGATHER:
	case TR_COLL_REDUCESCATTER:
		return crossings * (n - 1) / n * bytes;
	case TR_COLL_ALLTOALL:
		return per * per * bytes / n;
	default:
		return -1;
	}
}

/* ---- idle time ---- */

/* The idle time of direction @p d within [t0, t1): its gaps, and before and after its data. */
static uint64_t
idle_within(const struct tr_dir *d, uint64_t t0, uint64_t t1)
{
	uint64_t idle = 0, a, b;
	uint32_t lo;

	if (t1 <= t0)
		return 0;
	if (d->first_ns > t0)
		idle += (d->first_ns < t1 ? d->first_ns : t1) - t0;
	if (d->last_ns < t1)
		idle += t1 - (d->last_ns > t0 ? d->last_ns : t0);
	lo = tr_gap_after(d, t0);
	for (; lo < d->ngaps && d->gap[lo].start_ns < t1; lo++) {
		a = d->gap[lo].start_ns > t0 ? d->gap[lo].start_ns : t0;
		b = d->gap[lo].start_ns + d->gap[lo].dur_ns;
		if (b > t1)
			b = t1;
		if (b > a)
			idle += b - a;
	}
	return idle > t1 - t0 ? t1 - t0 : idle;
}

/* How much of gap @p g of direction @p i every other major direction was idle for: exact with
 * two directions, the product of the others' idle shares beyond. */
static double
joint_idle(const struct tr_streams *s, uint32_t i, const struct tr_gap *g)
{
	double w = (double)g->dur_ns;
	uint32_t j;

	for (j = 0; j < s->nmajor && w > 0; j++)
		if (j != i)
			w *= (double)idle_within(&s->dir[j], g->start_ns, g->start_ns + g->dur_ns) /
			     (double)g->dur_ns;
	return w;
}

/* ---- the step count from the stream ---- */

struct wgap {
	uint64_t off;
	double w;
};

static int
cmp_w_desc(const void *a, const void *b)
{
	const struct wgap *x = a, *y = b;

	return x->w > y->w ? -1 : x->w < y->w;
}

static int
cmp_off(const void *a, const void *b)
{
	const struct wgap *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* A candidate step count's fold: theta, and the share of the steps whose idle moment is where
 * the fold puts most idle time (the dominant phase bin or a neighbour). */
struct fold {
	double theta, coverage;
};

/* The phase bin of offset @p off on steps of @p p bytes, shifted by @p shift of a bin; the step
 * in *@p k (at most n - 1). */
static uint32_t
phase_bin(uint64_t off, double p, uint32_t n, double shift, uint64_t *k)
{
	double x = (double)off / p + shift / TR_PDM_BINS;
	uint32_t b;

	*k = (uint64_t)x;
	if (*k >= n)
		*k = n - 1;
	b = (uint32_t)((x - (double)*k) * TR_PDM_BINS);
	return b >= TR_PDM_BINS ? TR_PDM_BINS - 1 : b;
}

/* The fold on n steps of directions whose weighted gaps (offsets from their first cut, in
 * order) are @p g[d], the phase bins shifted by @p shift of a bin (Stellingwerf's covers: a
 * pause that falls on a bin's edge in one cover is whole in the other). */
static struct fold
pdm_fold(struct wgap *const *g, const uint32_t *ng, const uint64_t *len, uint32_t nd, uint32_t n,
	 double shift)
{
	double within = 0, total = 0, dof_w = 0, dof_t = 0, bin[TR_PDM_BINS] = { 0 };
	struct fold f = { INFINITY, 0 };
	uint32_t d, i, b, top = 0, dirs = 0;
	uint64_t covered = 0;

	for (d = 0; d < nd; d++) {
		double sum[TR_PDM_BINS] = { 0 }, sq[TR_PDM_BINS] = { 0 }, all = 0, allsq = 0;
		double v = 0, p = (double)len[d] / n;
		uint64_t cell_prev = UINT64_MAX, k;

		if (ng[d] == 0 || len[d] == 0)
			continue;
		/* the cells (step, phase bin) in order: each cell's idle time */
		for (i = 0; i <= ng[d]; i++) {
			uint64_t cell = UINT64_MAX;

			if (i < ng[d]) {
				b = phase_bin(g[d][i].off, p, n, shift, &k);
				cell = k * TR_PDM_BINS + b;
			}
			if (cell != cell_prev && cell_prev != UINT64_MAX) {
				b = (uint32_t)(cell_prev % TR_PDM_BINS);
				sum[b] += v;
				sq[b] += v * v;
				all += v;
				allsq += v * v;
				v = 0;
			}
			if (i < ng[d])
				v += g[d][i].w;
			cell_prev = cell;
		}
		for (b = 0; b < TR_PDM_BINS; b++) {
			within += sq[b] - sum[b] * sum[b] / n;
			bin[b] += sum[b];
		}
		total += allsq - all * all / ((double)n * TR_PDM_BINS);
		dof_w += (double)TR_PDM_BINS * (n - 1);
		dof_t += (double)n * TR_PDM_BINS - 1;
	}
	if (total <= 0 || dof_w <= 0)
		return f;
	f.theta = (within / dof_w) / (total / dof_t);
	/* the coverage of the dominant bin and its neighbours */
	for (b = 1; b < TR_PDM_BINS; b++)
		if (bin[b] > bin[top])
			top = b;
	for (d = 0; d < nd; d++) {
		double p = (double)len[d] / n;
		uint64_t k, last = UINT64_MAX;

		if (ng[d] == 0 || len[d] == 0)
			continue;
		dirs++;
		for (i = 0; i < ng[d]; i++) {
			b = phase_bin(g[d][i].off, p, n, shift, &k);
			if ((b + TR_PDM_BINS - top) % TR_PDM_BINS <= 1 ||
			    (top + TR_PDM_BINS - b) % TR_PDM_BINS <= 1) {
				covered += k != last;
				last = k;
			}
		}
	}
	f.coverage = dirs ? (double)covered / ((double)n * dirs) : 0;
	return f;
}

/* How sure a fold makes a step count: 1 - theta, times the coverage, in 0..1. */
static double
fold_score(struct fold f)
{
	double s = (1 - f.theta) * f.coverage;

	return isfinite(s) && s > 0 ? s : 0;
}

uint32_t
tr_period_find(const struct tr_dir *dirs, uint32_t nd, const uint64_t *lo, const uint64_t *hi,
	       uint32_t max_steps, double *conf, uint32_t *second_n, double *second_conf)
{
	struct wgap **g = calloc(nd ? nd : 1, sizeof(*g));
	uint32_t *ng = calloc(nd ? nd : 1, sizeof(*ng));
	uint64_t *len = calloc(nd ? nd : 1, sizeof(*len));
	double *score = NULL, best = 0;
	uint32_t d, n, m, nmax = 0, found = 0;

	*conf = 0;
	*second_n = 0;
	*second_conf = 0;
	if (g == NULL || ng == NULL || len == NULL)
		goto out;
	for (d = 0; d < nd; d++) {
		uint32_t i, k = 0;

		len[d] = hi[d] > lo[d] ? hi[d] - lo[d] : 0;
		g[d] = malloc(((size_t)dirs[d].ngaps + 1) * sizeof(**g));
		if (g[d] == NULL)
			goto out;
		for (i = 0; i < dirs[d].ngaps; i++) {
			const struct tr_gap *x = &dirs[d].gap[i];

			if (x->off < lo[d] || x->off > hi[d] || x->joint_ns == 0)
				continue;
			g[d][k].off = x->off - lo[d];
			g[d][k].w = (double)x->joint_ns;
			k++;
		}
		/* the longest TR_PDM_GAPS, in stream order */
		qsort(g[d], k, sizeof(**g), cmp_w_desc);
		if (k > TR_PDM_GAPS)
			k = TR_PDM_GAPS;
		/* the stream's start is an idle moment too (the capture before it), as long as
		 * its median one */
		if (k > 0) {
			g[d][k].off = 0;
			g[d][k].w = g[d][k / 2].w;
			k++;
		}
		qsort(g[d], k, sizeof(**g), cmp_off);
		ng[d] = k;
		if (k > nmax)
			nmax = k;
	}
	/* no more steps than idle moments (the start and the gaps), nor than bytes */
	for (d = 0; d < nd; d++)
		if (len[d] > 0 && len[d] < nmax)
			nmax = (uint32_t)len[d];
	if (nmax > max_steps)
		nmax = max_steps;
	if (nmax < 2)
		goto out;
	score = calloc((size_t)nmax + 1, sizeof(*score));
	if (score == NULL)
		goto out;
	for (n = 2; n <= nmax; n++) {
		double s0 = fold_score(pdm_fold(g, ng, len, nd, n, 0));
		double s1 = fold_score(pdm_fold(g, ng, len, nd, n, 0.5));

		score[n] = s0 > s1 ? s0 : s1;
		if (score[n] > best)
			best = score[n];
	}
	if (!(best > 0))
		goto out;
	/* a multiple of the step folds as well as the step: the most steps that score as well */
	for (n = nmax; n >= 2; n--)
		if (score[n] >= best - TR_PDM_SLACK) {
			found = n;
			break;
		}
	/* a few steps unlike the rest (TCP's warm-up) spoil the fine folds more than the coarse:
	 * a multiple of the count found that scores as well is the finer step */
	for (m = 2; found >= 2 && (uint64_t)m * found <= nmax; m++)
		if (score[m * found] >= score[found] - TR_PDM_SLACK &&
		    score[m * found] >= best - 2 * TR_PDM_SLACK) {
			found *= m;
			m = 1;
		}
	*conf = score[found];
	for (n = 2; n <= nmax; n++)
		if (n % found != 0 && found % n != 0 &&
		    (*second_n == 0 || score[n] > score[*second_n]))
			*second_n = n;
	if (*second_n != 0)
		*second_conf = score[*second_n];
out:
	for (d = 0; g != NULL && d < nd; d++)
		free(g[d]);
	free(g);
	free(ng);
	free(len);
	free(score);
	return found;
}

/* ---- the cuts ---- */

int64_t
longest_gap(const struct tr_dir *d, uint64_t a, uint64_t b)
{
	uint32_t lo;
	int64_t best = -1;

	lo = tr_gap_from_off(d, a);
	for (; lo < d->ngaps && d->gap[lo].off <= b; lo++)
		if (best < 0 || d->gap[lo].joint_ns > d->gap[best].joint_ns)
			best = lo;
	return best;
}

/* The median of @p v[0..n-1] (sorted in place); n > 0. */
static double
median(double *v, uint32_t n)
{
	qsort(v, n, sizeof(*v), sm_cmp_double);
	return sm_median_sorted(v, n);
}

/* Cut @p n steps of @p v bytes from @p lo: each interior cut at the longest idle gap within
 * @p w bytes of its nominal offset, if there is one; @return how many were.  @p at[k] says
 * whether cut k is at a gap. */
static uint32_t
snap_cuts(struct tr_dir *d, uint32_t n, double lo, double v, double w, bool *at)
{
	uint32_t k, snapped = 0;

	for (k = 1; k < n; k++) {
		double x = lo + k * v;
		int64_t g = longest_gap(d, x > w ? (uint64_t)(x - w) : 0, (uint64_t)(x + w));

		d->cut[k] = x > 0 ? (uint64_t)llround(x) : 0;
		at[k] = false;
		if (g >= 0 && d->gap[g].off > d->cut[k - 1] && d->gap[g].off < d->cut[n]) {
			d->cut[k] = d->gap[g].off;
			at[k] = true;
			snapped++;
		}
		if (d->cut[k] <= d->cut[k - 1])
			d->cut[k] = d->cut[k - 1] + 1;
	}
	return snapped;
}

/* The first or last cut: the idle gap nearest @p x within @p w of it, else @p x, in [0, T]. */
static uint64_t
edge_cut(const struct tr_dir *d, double x, double w)
{
	uint32_t lo = 0, hi = d->ngaps;
	double best = INFINITY;
	uint64_t cut = x <= 0 ? 0 : x >= (double)d->bytes ? d->bytes : (uint64_t)llround(x);

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if ((double)d->gap[mid].off < x - w)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < d->ngaps && (double)d->gap[lo].off <= x + w; lo++)
		if (fabs((double)d->gap[lo].off - x) < best) {
			best = fabs((double)d->gap[lo].off - x);
			cut = d->gap[lo].off;
		}
	return cut;
}

/*
 * Direction @p d's cuts for @p n steps.  First from the whole stream, each interior cut moved to
 * the longest idle gap within TR_EDGE_FRACTION of a step (the stream may hold bytes before the
 * first step and after the last, which shift the nominal cuts); the cuts that found a gap give
 * the steps' pattern, a + k b (medians: a pause inside a step taken for the boundary now and
 * then does not move it); the first and last cuts go to a and a + n b (or the idle gap there),
 * and each interior cut to the longest idle gap within TR_SNAP_FRACTION of its place between
 * them.
 */
static int
place_cuts(struct tr_dir *d, uint32_t n)
{
	double lo = (double)d->job_lo, len = (double)(d->job_hi - d->job_lo);
	double v = len / n, *x = NULL, a = lo, b = v;
	bool *at = NULL;
	uint32_t k, m = 0, prev = 0;
	int rc = -ENOMEM;

	d->cut = malloc(((size_t)n + 1) * sizeof(*d->cut));
	d->step = calloc(n, sizeof(*d->step));
	at = calloc((size_t)n + 1, sizeof(*at));
	x = malloc(((size_t)n + 1) * sizeof(*x));
	if (d->cut == NULL || d->step == NULL || at == NULL || x == NULL)
		goto out;
	d->cut[0] = d->job_lo;
	d->cut[n] = d->job_hi;
	if (n > 1 && snap_cuts(d, n, lo, v, TR_EDGE_FRACTION * v, at) >= 2) {
		/* b: the median spacing of consecutive cuts at gaps; a: the median origin */
		for (k = 1; k < n; k++) {
			if (!at[k])
				continue;
			if (prev != 0)
				x[m++] = (double)(d->cut[k] - d->cut[prev]) / (k - prev);
			prev = k;
		}
		b = m > 0 ? median(x, m) : v;
		for (k = 1, m = 0; k < n; k++)
			if (at[k])
				x[m++] = (double)d->cut[k] - k * b;
		a = median(x, m);
		/* the ends of the job's part, where a one-way prelude or postlude set them (an
		 * idle time of every direction: joint.c), else the idle gap nearest the pattern */
		d->cut[0] = d->job_lo > 0 ? d->job_lo : edge_cut(d, a, TR_SNAP_FRACTION * b);
		d->cut[n] = d->job_hi < d->bytes ? d->job_hi :
			    edge_cut(d, a + n * b, TR_SNAP_FRACTION * b);
		/* not a pattern after all, or not the steps': n steps from a run past the
		 * stream's end (the longest gaps fall a part of a step in: a rendezvous's
		 * round trip outlasting the compute between steps) */
		if (d->cut[n] < d->cut[0] + n ||
		    a + n * b > (double)d->job_hi + TR_SNAP_FRACTION * n * b) {
			d->cut[0] = d->job_lo;
			d->cut[n] = d->job_hi;
		}
	}
	v = (double)(d->cut[n] - d->cut[0]) / n;
	d->snapped = snap_cuts(d, n, (double)d->cut[0], v, TR_SNAP_FRACTION * v, at);
	d->before = d->cut[0];
	d->after = d->bytes - d->cut[n];
	rc = 0;
out:
	free(at);
	free(x);
	return rc;
}

/* The distinct hosts of the major directions. */
static uint32_t
count_hosts(const struct tr_streams *s)
{
	uint8_t (*h)[17] = calloc(2 * (size_t)s->nmajor + 1, sizeof(*h));
	uint32_t n = 0, i, j, e;

	if (h == NULL)
		return 0;
	for (i = 0; i < s->nmajor; i++)
		for (e = 0; e < 2; e++) {
			const uint8_t *a = e ? s->dir[i].dst : s->dir[i].src;

			for (j = 0; j < n; j++)
				if (h[j][0] == s->dir[i].family && memcmp(h[j] + 1, a, 16) == 0)
					break;
			if (j == n) {
				h[n][0] = (uint8_t)s->dir[i].family;
				memcpy(h[n] + 1, a, 16);
				n++;
			}
		}
	free(h);
	return n;
}

/* The step count from the collective's bytes per direction. */
static int
steps_of_collective(struct tr_streams *s, const struct tr_stream_params *p, char *err,
		    size_t errlen, uint32_t *n)
{
	uint32_t hosts = count_hosts(s), per, i;
	double vol, sum = 0;

	if (hosts == 0)
		return -ENOMEM;
	if (p->ranks < hosts || p->ranks % hosts != 0) {
		snprintf(err, errlen, "--ranks %u over the %u hosts the job's streams join: the "
			 "ranks are taken in blocks of the same size on each host", p->ranks, hosts);
		return -EINVAL;
	}
	per = p->ranks / hosts;
	vol = tr_coll_dir_bytes(p->coll, p->ranks, hosts, p->place, p->coll_bytes);
	if (!(vol > 0)) {
		snprintf(err, errlen, "--collective %s over %u ranks moves no bytes between two "
			 "hosts", tr_coll_name(p->coll), p->ranks);
		return -EINVAL;
	}
	s->coll_dir_bytes[0] = vol;
	s->coll_dir_bytes[1] = 0;
	s->steps_dir_min = INFINITY;
	s->steps_dir_max = 0;
	for (i = 0; i < s->nmajor; i++) {
		double x = (double)(s->dir[i].job_hi - s->dir[i].job_lo) / vol;

		sum += x;
		s->steps_dir_min = x < s->steps_dir_min ? x : s->steps_dir_min;
		s->steps_dir_max = x > s->steps_dir_max ? x : s->steps_dir_max;
		/* a step's bytes are the collective's and a few of the library's headers */
		if (fabs(x - round(x)) > TR_COLL_SLACK * x + 0.02)
			s->coll_disagrees = true;
	}
	s->steps_exact = sum / s->nmajor;
	if (round(s->steps_dir_min) != round(s->steps_dir_max))
		s->coll_disagrees = true;
	if (s->steps_exact < 0.5) {
		snprintf(err, errlen, "the job's streams hold %.3g of a step of the %s (%.0f bytes "
			 "per direction: %u ranks, %u per host, buffer %.0f bytes): is the buffer "
			 "the step's?", s->steps_exact, tr_coll_name(p->coll), vol, p->ranks, per,
			 p->coll_bytes);
		return -EINVAL;
	}
	*n = (uint32_t)llround(s->steps_exact);
	snprintf(s->how, sizeof(s->how), "%u steps of the %s's %.0f bytes per direction (%u "
		 "ranks, %u per host on %u hosts, %s%s): the streams hold %.4f of them", *n,
		 tr_coll_name(p->coll), vol, p->ranks, per, hosts,
		 p->place == TR_PLACE_CYCLIC ? "dealt round robin" : "in blocks",
		 p->coll == TR_COLL_ALLTOALL ? "" : ", a ring", s->steps_exact);
	return 0;
}

/* The step count from the stream's periodicity, on each gap's joint idle time. */
static int
steps_of_period(struct tr_streams *s, uint32_t *n)
{
	uint64_t *lo = calloc(s->nmajor, sizeof(*lo)), *hi = calloc(s->nmajor, sizeof(*hi));
	uint32_t i, max = TR_STEPS_MAX;

	if (lo == NULL || hi == NULL) {
		free(lo);
		free(hi);
		return -ENOMEM;
	}
	for (i = 0; i < s->nmajor; i++) {
		lo[i] = s->dir[i].job_lo;
		hi[i] = s->dir[i].job_hi;
		if (hi[i] - lo[i] < max)
			max = (uint32_t)(hi[i] - lo[i]);
	}
	*n = tr_period_find(s->dir, s->nmajor, lo, hi, max, &s->confidence, &s->runner_up,
			    &s->runner_up_confidence);
	free(lo);
	free(hi);
	return 0;
}

/* Add to the split's words what was left out as a one-way prelude and postlude. */
static void
prelude_how(struct tr_streams *s)
{
	size_t len = strlen(s->how);
	uint32_t i;

	for (i = 0; i < 2; i++) {
		uint64_t at = i ? s->postlude_ns : s->prelude_ns;
		uint32_t d, top = 0;

		if (at == 0)
			continue;
		for (d = 1; d < s->nmajor; d++)
			if ((i ? s->dir[d].bytes - s->dir[d].job_hi : s->dir[d].job_lo) >
			    (i ? s->dir[top].bytes - s->dir[top].job_hi : s->dir[top].job_lo))
				top = d;
		if (len < sizeof(s->how))
			len += (size_t)snprintf(s->how + len, sizeof(s->how) - len, "; a one-way %s "
						"left out (%" PRIu64 " bytes of %s, %s the other "
						"directions were silent)", i ? "postlude" : "prelude",
						i ? s->dir[top].bytes - s->dir[top].job_hi :
						s->dir[top].job_lo, s->dir[top].name,
						i ? "after the last step, while" :
						"before the first step, while");
	}
}

/* Cut every major direction into @p n steps (the steps' arrays made anew). */
static int
cut_all(struct tr_streams *s, uint32_t n)
{
	uint32_t i;
	int rc;

	free(s->step);
	s->step = calloc(n, sizeof(*s->step));
	if (s->step == NULL)
		return -ENOMEM;
	s->nsteps = n;
	for (i = 0; i < s->nmajor; i++) {
		free(s->dir[i].cut);
		free(s->dir[i].step);
		s->dir[i].cut = NULL;
		s->dir[i].step = NULL;
		rc = place_cuts(&s->dir[i], n);
		if (rc != 0)
			return rc;
	}
	rc = joint_agree(s, n);
	return rc < 0 ? rc : 0;
}

int
split_streams(struct tr_streams *s, const struct tr_stream_params *p, char *err, size_t errlen)
{
	uint32_t n = 0, i, j;
	int rc;

	s->by = TR_SPLIT_NONE;
	/* each gap's joint idle time: what the period and the cuts are found on */
	for (i = 0; i < s->nmajor; i++)
		for (j = 0; j < s->dir[i].ngaps; j++)
			s->dir[i].gap[j].joint_ns =
				(uint64_t)joint_idle(s, i, &s->dir[i].gap[j]);
	/* a one-way prelude and postlude are not the job's steps */
	rc = joint_bounds(s);
	if (rc != 0)
		return rc;
	if (s->nmajor == 0) {
		snprintf(s->how, sizeof(s->how), "no stream to cut: no packet selected carries "
			 "application bytes");
		return 0;
	}
	if (p->steps > 0) {
		n = p->steps;
		s->by = TR_SPLIT_STEPS;
		snprintf(s->how, sizeof(s->how), "%u steps (%s): each direction's stream cut into "
			 "%u equal volumes", n, p->steps_from_app ? "the application's, in "
			 "--steps-csv" : "given", n);
	} else if (p->coll != TR_COLL_NONE) {
		rc = steps_of_collective(s, p, err, errlen, &n);
		if (rc != 0)
			return rc;
		s->by = TR_SPLIT_COLLECTIVE;
	} else {
		rc = steps_of_period(s, &n);
		if (rc != 0)
			return rc;
		if (n == 0 || (s->confidence < TR_PERIOD_MIN_CONF &&
			       (s->confidence < TR_PERIOD_CLEAR_CONF ||
				s->confidence < TR_PERIOD_CLEAR_RATIO * s->runner_up_confidence))) {
			snprintf(s->how, sizeof(s->how), "no step volume repeats in the streams "
				 "(best: %u steps, confidence %.2f, next best %u steps, %.2f; at "
				 "least %.2f is needed, or %.2f and %.0f x the next best)", n,
				 s->confidence, s->runner_up, s->runner_up_confidence,
				 TR_PERIOD_MIN_CONF, TR_PERIOD_CLEAR_CONF, TR_PERIOD_CLEAR_RATIO);
			s->nsteps = 0;
			return 0;
		}
		s->by = TR_SPLIT_PERIOD;
		/* a step count that is neither a multiple nor a divisor of the one found and
		 * folds as well: the streams do not tell which */
		s->period_uncertain = s->runner_up != 0 &&
				      s->runner_up_confidence >= s->confidence;
		snprintf(s->how, sizeof(s->how), "%u steps found from the streams: their idle "
			 "moments repeat every %.0f bytes of %s (confidence %.2f; next best %u "
			 "steps, %.2f)", n, (double)(s->dir[0].job_hi - s->dir[0].job_lo) / n,
			 s->dir[0].name,
			 s->confidence, s->runner_up, s->runner_up_confidence);
	}
	for (i = 0; i < s->nmajor; i++)
		if (s->dir[i].job_hi - s->dir[i].job_lo < n) {
			snprintf(err, errlen, "%u steps, but the stream %s holds %" PRIu64 " bytes "
				 "(a step needs one at least)", n, s->dir[i].name,
				 s->dir[i].job_hi - s->dir[i].job_lo);
			return -EINVAL;
		}
	prelude_how(s);
	rc = cut_all(s, n);
	if (rc != 0)
		return rc;
	/* steps found from the period whose halves differ (the idle times at their ends alternate:
	 * n / 2 steps of two phases) or whose middles pause as their ends do (2n steps, the first
	 * ones unlike the rest): cut again, and if the new cuts are no better, say so */
	if (s->by == TR_SPLIT_PERIOD && !s->period_uncertain) {
		uint32_t m = joint_alternate(&s->dir[0], n) ? n / 2 :
			     joint_middles(&s->dir[0], n) ? 2 * n : 0;
		size_t len = strlen(s->how);

		for (i = 0; i < s->nmajor && m != 0; i++)
			if (s->dir[i].job_hi - s->dir[i].job_lo < m)
				m = 0;
		if (m >= 2) {
			rc = cut_all(s, m);
			if (rc != 0)
				return rc;
			if (joint_alternate(&s->dir[0], m) || joint_middles(&s->dir[0], m))
				s->period_other = n;
			if (len < sizeof(s->how))
				snprintf(s->how + len, sizeof(s->how) - len, "; cut into %u steps "
					 "instead: %s", m, m < n ? "the idle times at the ends of "
					 "the first count's steps alternate, long and short (steps of two "
					 "phases)" : "the first count's steps pause at their middles as at "
					 "their ends");
			n = m;
		}
	}
	/* equal volumes that miss the idle times: steps of different sizes */
	if (n > 1 && s->dir[0].snapped < TR_VARY_SNAP_SHARE * (n - 1)) {
		size_t len = strlen(s->how);
		uint32_t snapped = s->dir[0].snapped;

		rc = joint_cuts(s, n, &s->idle_sep);
		if (rc == -ENOMEM)
			return rc;
		s->by_idle = rc == 0;
		s->cuts_uncertain = rc != 0;
		if (s->by_idle && len < sizeof(s->how))
			len += (size_t)snprintf(s->how + len, sizeof(s->how) - len, "; equal "
						"volumes missed the idle times (%u of %u cuts of %s "
						"at one): cut at the %u longest times every direction "
						"was idle instead (the steps' sizes differ", snapped,
						n - 1, s->dir[0].name, n - 1);
		if (s->by_idle && len < sizeof(s->how))
			snprintf(s->how + len, sizeof(s->how) - len, isfinite(s->idle_sep) ?
				 "; the shortest taken %.2f x the longest left)" : ")", s->idle_sep);
		else if (len < sizeof(s->how))
			snprintf(s->how + len, sizeof(s->how) - len, "; equal volumes missed the idle "
				 "times (%u of %u cuts of %s at one), and the times every direction "
				 "was idle do not tell where the steps end (the %u longest: the "
				 "shortest %.2f x the next)", snapped, n - 1, s->dir[0].name, n - 1,
				 s->idle_sep);
	}
	return 0;
}

/* ---- each step's span ---- */

struct edge {
	uint64_t t;
	int delta;		/* +1: a direction goes idle, -1: it is busy again */
};

static int
cmp_edge(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->delta - y->delta;
}

/* Add direction @p d's idle intervals within [t0, t1) to @p e. */
static int
idle_edges(const struct tr_dir *d, uint64_t t0, uint64_t t1, struct edge **e, uint32_t *n,
	   uint32_t *cap)
{
	uint32_t lo;

#define PUSH(a, b) do { \
		uint64_t a_ = (a) < t0 ? t0 : (a), b_ = (b) > t1 ? t1 : (b); \
		if (b_ > a_) { \
			if (*n + 2 > *cap) { \
				uint32_t c_ = *cap ? 2 * *cap : 64; \
				struct edge *x_ = realloc(*e, c_ * sizeof(*x_)); \
				if (x_ == NULL) \
					return -ENOMEM; \
				*e = x_; \
				*cap = c_; \
			} \
			(*e)[(*n)++] = (struct edge){ a_, +1 }; \
			(*e)[(*n)++] = (struct edge){ b_, -1 }; \
		} \
	} while (0)

	PUSH(t0, d->first_ns);
	PUSH(d->last_ns, t1);
	lo = tr_gap_after(d, t0);
	for (; lo < d->ngaps && d->gap[lo].start_ns < t1; lo++)
		PUSH(d->gap[lo].start_ns, d->gap[lo].start_ns + d->gap[lo].dur_ns);
#undef PUSH
	return 0;
}

void
spans_fill(struct tr_streams *s)
{
	struct edge *e = NULL;
	uint32_t cap = 0, k, i;

	s->span_ns = s->overlap_ns = s->some_ns = 0;
	for (k = 0; k < s->nsteps; k++) {
		struct tr_step_span *x = &s->step[k];
		uint32_t n = 0, j;
		uint64_t t, idle_from = 0;
		int idle = 0;
		bool ok = true;

		x->start_ns = UINT64_MAX;
		x->end_ns = 0;
		for (i = 0; i < s->nmajor; i++) {
			const struct tr_dir_step *d = &s->dir[i].step[k];

			if (d->first_ns == UINT64_MAX)
				continue;
			if (d->first_ns < x->start_ns)
				x->start_ns = d->first_ns;
			if (d->last_ns > x->end_ns)
				x->end_ns = d->last_ns;
		}
		if (x->start_ns == UINT64_MAX) {	/* none of its bytes was captured */
			x->start_ns = x->end_ns = 0;
			continue;
		}
		for (i = 0; i < s->nmajor && ok; i++)
			ok = idle_edges(&s->dir[i], x->start_ns, x->end_ns, &e, &n, &cap) == 0;
		if (!ok)
			break;
		if (n > 1)
			qsort(e, n, sizeof(*e), cmp_edge);
		/* sweep: idle = how many directions are idle */
		t = x->start_ns;
		for (j = 0; j <= n; j++) {
			uint64_t next = j < n ? e[j].t : x->end_ns;

			if (next > t) {
				if (idle == 0)
					x->overlap_ns += next - t;
				if (idle < (int)s->nmajor)
					x->some_ns += next - t;
			}
			if (j == n)
				break;
			t = next;
			if (idle == (int)s->nmajor && e[j].delta < 0) {
				/* the end of a time when none carried data */
				uint64_t len = t - idle_from;

				if (len > x->longest_idle_ns)
					x->longest_idle_ns = len;
				x->stalls += len > (uint64_t)(TR_STALL_S * 1e9);
			}
			idle += e[j].delta;
			if (idle == (int)s->nmajor && e[j].delta > 0)
				idle_from = t;
		}
		s->span_ns += x->end_ns - x->start_ns;
		s->overlap_ns += x->overlap_ns;
		s->some_ns += x->some_ns;
	}
	free(e);
}

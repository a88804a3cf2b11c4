/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How late frames left (lateness.h): every frame counted, a uniform reservoir of at most
 * DP_LATE_MAX samples kept for the percentiles.  Once it is full, Li's algorithm L draws how many
 * frames to pass over before the next one is kept (the same uniform sample as Vitter's algorithm
 * R, without a random draw and a division per frame: at 10 M frames a second those were a tenth
 * of the bridge's time).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lateness.h"

#include "../models/stream.h"

/* A uniform draw in (0, 1). */
static double
uniform(struct dp_lateness *l)
{
	l->rng = l->rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return ((double)(l->rng >> 11) + 0.5) * 0x1p-53;
}

/* Frames to pass over, plus one: the next one kept is that many after this one. */
static uint64_t
pass_over(struct dp_lateness *l)
{
	double k = floor(log(uniform(l)) / log1p(-l->w));

	return k < 1e18 ? (uint64_t)k + 1 : UINT64_MAX / 2;
}

void
dp_lateness_add(struct dp_lateness *l, uint64_t real, uint64_t at)
{
	double ns = 0;

	if (real < at) {
		l->early++;
		if ((double)(at - real) > l->early_max)
			l->early_max = (double)(at - real);
	} else {
		ns = (double)(real - at);
	}
	l->seen++;
	if (ns > l->max)
		l->max = ns;
	if (ns > DP_LATE_OVER_NS)
		l->over++;
	if (l->ns == NULL)
		return;		/* no memory for samples (dp_lateness_reset()) */
	if (l->n < DP_LATE_MAX) {
		l->ns[l->n++] = ns;
		if (l->n == DP_LATE_MAX) {
			l->w = exp(log(uniform(l)) / DP_LATE_MAX);
			l->take_at = l->seen + pass_over(l);
		}
		return;
	}
	/* reservoir: each of the samples seen stays with probability DP_LATE_MAX / seen */
	if (l->seen < l->take_at)
		return;
	l->rng = l->rng * 6364136223846793005ULL + 1442695040888963407ULL;
	l->ns[(l->rng >> 7) & (DP_LATE_MAX - 1)] = ns;
	l->w *= exp(log(uniform(l)) / DP_LATE_MAX);
	l->take_at = l->seen + pass_over(l);
}

void
dp_lateness_stats(struct dp_lateness *l, double *median, double *p99, double *p999, double *max)
{
	*median = *p99 = *p999 = 0;
	*max = l->max;
	if (l->n == 0 || l->ns == NULL)
		return;
	qsort(l->ns, l->n, sizeof(*l->ns), sm_cmp_double);
	*median = sm_quantile_sorted(l->ns, l->n, 0.5);
	*p99 = sm_quantile_sorted(l->ns, l->n, 0.99);
	*p999 = sm_quantile_sorted(l->ns, l->n, 0.999);
}

void
dp_lateness_free(struct dp_lateness *l)
{
	free(l->ns);
	memset(l, 0, sizeof(*l));
}

void
dp_lateness_reset(struct dp_lateness *l)
{
	double *ns = l->ns;

	memset(l, 0, sizeof(*l));
	if (ns == NULL)
		ns = malloc(DP_LATE_MAX * sizeof(*ns));
	if (ns != NULL)
		memset(ns, 0, DP_LATE_MAX * sizeof(*ns));	/* (8 MB of page faults at the
								 *  first frame made it late) */
	l->ns = ns;
}

_Static_assert((DP_LATE_MAX & (DP_LATE_MAX - 1)) == 0, "DP_LATE_MAX: a power of two");

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How late frames left (lateness.h): every frame counted, a uniform reservoir of at most
 * DP_LATE_MAX samples kept (Vitter's algorithm R) for the percentiles.
 */
#include <stdlib.h>
#include <string.h>

#include "lateness.h"

#include "../models/stream.h"

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
		return;
	}
	/* reservoir: each of the samples seen stays with probability DP_LATE_MAX / seen */
	l->rng = l->rng * 6364136223846793005ULL + 1442695040888963407ULL;
	if ((l->rng >> 20) % l->seen < DP_LATE_MAX)
		l->ns[(l->rng >> 7) % DP_LATE_MAX] = ns;
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

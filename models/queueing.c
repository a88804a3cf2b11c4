/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Background transfer sizes and single-queue formulas.
 *
 * Reference-model.md section 2.9 (deck: "Hot Spots, and a Shared WAN"): Poisson arrivals of 1 MB
 * transfers at rate rho b / 1 MB; the M/D/1 reference wait rho S / (2 (1 - rho)), 360 us at
 * rho = 0.9 and S = 1 MB / 12.5 GB/s = 80 us; the capacity bound T >= B / ((1 - rho) b).  The
 * general forms are the Pollaczek-Khinchine mean wait of M/G/1, W = lambda E[S^2] / (2 (1 - rho)),
 * and the M/G/1 processor-sharing sojourn E[S] / (1 - rho) (L. Kleinrock, Queueing Systems,
 * vol. 1 chapter 5, vol. 2 chapter 4).
 *
 * sm_stats(): mean, median, nearest-rank p99, and the 95 % confidence interval of the mean by
 * batch means (A. M. Law, Simulation Modeling and Analysis, 5th ed., section 9.5.3): the sample is
 * cut into 10 consecutive batches, whose means are close to independent when the batches are long
 * against the correlation of consecutive steps; half-width t(0.975, 9) s / sqrt(10), t = 2.262.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "queueing.h"
#include "stream.h"

static int
positive_finite(double x)
{
	return isfinite(x) && x > 0;
}

int
sm_size_fixed(struct sm_size_dist *d, double bytes)
{
	if (d == NULL || !positive_finite(bytes))
		return -EINVAL;
	memset(d, 0, sizeof(*d));
	d->kind = SM_SIZE_FIXED;
	d->mean = bytes;
	d->m2 = bytes * bytes;
	return 0;
}

int
sm_size_exp(struct sm_size_dist *d, double mean)
{
	if (d == NULL || !positive_finite(mean))
		return -EINVAL;
	memset(d, 0, sizeof(*d));
	d->kind = SM_SIZE_EXP;
	d->mean = mean;
	d->m2 = 2 * mean * mean;
	return 0;
}

int
sm_size_empirical(struct sm_size_dist *d, const double *sizes, const double *weights,
		  unsigned int n)
{
	double *size, *cdf, sum = 0, mean = 0, m2 = 0, acc = 0, top;
	unsigned int i;

	if (d == NULL || sizes == NULL || n == 0)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		double w = weights != NULL ? weights[i] : 1.0;

		if (!positive_finite(sizes[i]) || !isfinite(w) || w < 0)
			return -EINVAL;
		sum += w;
	}
	if (!positive_finite(sum))
		return -EINVAL;
	size = malloc(n * sizeof(*size));
	cdf = malloc(n * sizeof(*cdf));
	if (size == NULL || cdf == NULL) {
		free(size);
		free(cdf);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		double q = (weights != NULL ? weights[i] : 1.0) / sum;

		size[i] = sizes[i];
		acc += q;
		cdf[i] = acc;
		mean += q * sizes[i];
		m2 += q * sizes[i] * sizes[i];
	}
	/* Close the table at exactly 1, and keep trailing zero-weight entries unreachable. */
	top = cdf[n - 1];
	for (i = n; i-- > 0 && cdf[i] >= top;)
		cdf[i] = 1.0;
	memset(d, 0, sizeof(*d));
	d->kind = SM_SIZE_EMPIRICAL;
	d->mean = mean;
	d->m2 = m2;
	d->n = n;
	d->size = size;
	d->cdf = cdf;
	return 0;
}

void
sm_size_free(struct sm_size_dist *d)
{
	if (d == NULL)
		return;
	free(d->size);
	free(d->cdf);
	d->size = NULL;
	d->cdf = NULL;
	d->n = 0;
}

double
sm_size_sample(const struct sm_size_dist *d, struct sm_rng *r)
{
	unsigned int lo, hi;
	double u;

	switch (d->kind) {
	case SM_SIZE_FIXED:
		return d->mean;
	case SM_SIZE_EXP:
		return sm_rng_exp(r, d->mean);
	case SM_SIZE_EMPIRICAL:
		/* The first entry whose cdf exceeds u; zero-weight entries repeat the cdf below
		 * them and are never chosen. */
		u = sm_rng_uniform(r);
		lo = 0;
		hi = d->n - 1;
		while (lo < hi) {
			unsigned int mid = lo + (hi - lo) / 2;

			if (u < d->cdf[mid])
				hi = mid;
			else
				lo = mid + 1;
		}
		return d->size[lo];
	}
	return NAN;
}

double
sm_size_moment2(const struct sm_size_dist *d)
{
	return d->m2;
}

double
sm_bg_rate(double load, double bw, const struct sm_size_dist *d)
{
	if (d == NULL || !isfinite(load) || load < 0 || !positive_finite(bw) ||
	    !positive_finite(d->mean))
		return NAN;
	return load * bw / d->mean;
}

double
sm_md1_wait(double rho, double service_s)
{
	if (!isfinite(rho) || rho < 0 || !isfinite(service_s) || service_s < 0)
		return NAN;
	if (rho >= 1)
		return INFINITY;
	return rho * service_s / (2 * (1 - rho));
}

double
sm_md1_sojourn(double rho, double service_s)
{
	return sm_md1_wait(rho, service_s) + service_s;
}

double
sm_mg1_wait(double lambda, double es, double es2)
{
	double rho = lambda * es;

	if (!isfinite(lambda) || lambda < 0 || !isfinite(es) || es < 0 || !isfinite(es2) ||
	    es2 < es * es * (1 - 1e-12))
		return NAN;
	if (rho >= 1)
		return INFINITY;
	return lambda * es2 / (2 * (1 - rho));
}

double
sm_mg1_sojourn(double lambda, double es, double es2)
{
	return sm_mg1_wait(lambda, es, es2) + es;
}

double
sm_ps_sojourn(double rho, double es)
{
	if (!isfinite(rho) || rho < 0 || !isfinite(es) || es < 0)
		return NAN;
	if (rho >= 1)
		return INFINITY;
	return es / (1 - rho);
}

double
sm_capacity_min_step(double bytes, double load, double bw)
{
	if (!isfinite(bytes) || bytes < 0 || !isfinite(load) || load < 0 || !positive_finite(bw))
		return NAN;
	if (load >= 1)
		return INFINITY;
	return bytes / ((1 - load) * bw);
}

/* Half-width of the batch-means 95 % confidence interval of the mean. */
static double
batch_ci(const double *x, unsigned int n)
{
	double bm[SM_STATS_BATCHES], mean = 0, var = 0;
	unsigned long long i, lo, hi;
	unsigned int j;

	if (n < SM_STATS_BATCHES)
		return NAN;
	for (j = 0; j < SM_STATS_BATCHES; j++) {
		double s = 0;

		lo = (unsigned long long)j * n / SM_STATS_BATCHES;
		hi = (unsigned long long)(j + 1) * n / SM_STATS_BATCHES;
		for (i = lo; i < hi; i++)
			s += x[i];
		bm[j] = s / (double)(hi - lo);
		mean += bm[j];
	}
	mean /= SM_STATS_BATCHES;
	for (j = 0; j < SM_STATS_BATCHES; j++)
		var += (bm[j] - mean) * (bm[j] - mean);
	var /= SM_STATS_BATCHES - 1;
	return SM_STATS_T95_9 * sqrt(var / SM_STATS_BATCHES);
}

int
sm_stats(const double *x, unsigned int n, struct sm_stats *out)
{
	double *s, sum = 0;
	unsigned int i, rank;

	if (x == NULL || out == NULL || n == 0)
		return -EINVAL;
	s = malloc(n * sizeof(*s));
	if (s == NULL)
		return -ENOMEM;
	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), sm_cmp_double);
	for (i = 0; i < n; i++)
		sum += x[i];
	out->n = n;
	out->mean = sum / n;
	out->median = sm_median_sorted(s, n);
	rank = (unsigned int)(((unsigned long long)n * 99 + 99) / 100);	/* ceil(0.99 n) */
	out->p99 = s[rank - 1];
	out->min = s[0];
	out->max = s[n - 1];
	out->ci95 = batch_ci(x, n);
	free(s);
	return 0;
}

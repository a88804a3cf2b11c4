/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Background traffic on a shared WAN, and the single-queue formulas it is checked against
 * (deck: "Hot Spots, and a Shared WAN"; reference-model.md section 2.9).
 *
 * Transfer sizes: fixed, exponential or empirical (a table of sizes with weights).  Formulas for
 * one server of rate b fed by Poisson arrivals at rate lambda, S = size / b, rho = lambda E[S]:
 *   M/G/1 FIFO mean wait (Pollaczek-Khinchine)  W = lambda E[S^2] / (2 (1 - rho))
 *   M/D/1 (fixed sizes)                          W = rho S / (2 (1 - rho))
 *   M/M/1 (exponential sizes)                    W = rho E[S] / (1 - rho)
 *   M/G/1 processor sharing mean sojourn         T = E[S] / (1 - rho)   (any size distribution)
 * (L. Kleinrock, Queueing Systems, vol. 1 (1975), chapter 5, the M/G/1 queue; vol. 2 (1976),
 * chapter 4, processor sharing.)  Capacity bound of section 2.9: a sync putting B bytes on a WAN
 * direction every step of length T adds B / T to the background's load x b, so the link is stable
 * only if T >= B / ((1 - load) b).
 * And sm_stats(): the summary the shared-WAN model and the emulator report for step times.
 */
#ifndef SM_QUEUEING_H
#define SM_QUEUEING_H

#include "rng.h"

/** Shape of a transfer size distribution. */
enum sm_size_kind {
	SM_SIZE_FIXED,		/**< every transfer has the mean size */
	SM_SIZE_EXP,		/**< exponential with the given mean */
	SM_SIZE_EMPIRICAL,	/**< a table of sizes, drawn with the given weights */
};

/**
 * A distribution of background transfer sizes, bytes.  Set it up with sm_size_fixed(),
 * sm_size_exp() or sm_size_empirical(); release an empirical one with sm_size_free().
 */
struct sm_size_dist {
	enum sm_size_kind kind;
	double mean;		/**< E[S], bytes */
	double m2;		/**< E[S^2], bytes^2 */
	unsigned int n;		/**< table entries (empirical), else 0 */
	double *size;		/**< n sizes, bytes (empirical), else NULL */
	double *cdf;		/**< n cumulative probabilities, cdf[n-1] = 1 (empirical) */
};

/** Every transfer @p bytes long. @return 0, or -EINVAL unless 0 < bytes < inf. */
int sm_size_fixed(struct sm_size_dist *d, double bytes);

/** Exponential sizes of mean @p mean. @return 0, or -EINVAL unless 0 < mean < inf. */
int sm_size_exp(struct sm_size_dist *d, double mean);

/**
 * A table of @p n sizes drawn with probabilities proportional to @p weights (NULL: equal).  The
 * arrays are copied.
 *
 * @return 0; -EINVAL if n is 0, a size is not finite and > 0, a weight is not finite and >= 0, or
 *         the weights sum to 0 (d is then untouched); -ENOMEM
 */
int sm_size_empirical(struct sm_size_dist *d, const double *sizes, const double *weights,
		      unsigned int n);

/** Release an empirical table (no-op for the other kinds, and after a previous free). */
void sm_size_free(struct sm_size_dist *d);

/** Draw one size, bytes (empirical: binary search of a uniform draw on the cdf). */
double sm_size_sample(const struct sm_size_dist *d, struct sm_rng *r);

/** E[S^2], bytes^2. */
double sm_size_moment2(const struct sm_size_dist *d);

/**
 * Transfers per second that make a fraction @p load of a link of @p bw B/s busy:
 * load bw / E[S].  NAN on bad input (load < 0, bw <= 0, d NULL).
 */
double sm_bg_rate(double load, double bw, const struct sm_size_dist *d);

/** M/D/1 mean wait in queue, s: rho S / (2 (1 - rho)).  INFINITY if rho >= 1; NAN on bad input. */
double sm_md1_wait(double rho, double service_s);

/** M/D/1 mean sojourn (wait + S), s. */
double sm_md1_sojourn(double rho, double service_s);

/**
 * M/G/1 FIFO mean wait in queue (Pollaczek-Khinchine), s: lambda E[S^2] / (2 (1 - rho)),
 * rho = lambda E[S] (service times in s).  INFINITY if rho >= 1; NAN on bad input (negative or
 * not finite values, or E[S^2] < E[S]^2).
 */
double sm_mg1_wait(double lambda, double es, double es2);

/** M/G/1 FIFO mean sojourn (wait + E[S]), s. */
double sm_mg1_sojourn(double lambda, double es, double es2);

/** M/G/1 processor-sharing mean sojourn, s: E[S] / (1 - rho).  INFINITY if rho >= 1. */
double sm_ps_sojourn(double rho, double es);

/**
 * The shortest step at which a sync putting @p bytes on a WAN direction every step keeps a link of
 * @p bw B/s with background load @p load stable: B / ((1 - load) bw), s.  INFINITY if load >= 1;
 * NAN on bad input.
 */
double sm_capacity_min_step(double bytes, double load, double bw);

/** Student t, two-sided 95 %, 9 degrees of freedom: the batch-means multiplier. */
#define SM_STATS_T95_9 2.262
/** Batches of the batch-means confidence interval. */
#define SM_STATS_BATCHES 10u

/** A sample's summary. */
struct sm_stats {
	unsigned int n;
	double mean;
	double median;		/**< middle value; mean of the two middle ones for even n */
	double p99;		/**< nearest rank: the ceil(0.99 n)-th smallest */
	double min, max;
	double ci95;		/**< half-width of the 95 % CI of the mean by batch means:
				 *   the sample in 10 consecutive batches (sizes differ by at
				 *   most 1), t(9) = 2.262 times the batch means' standard
				 *   deviation / sqrt(10); NAN if n < 10 */
};

/**
 * Summarise @p x[0..n-1] (left unchanged).
 *
 * @return 0; -EINVAL if x or out is NULL or n is 0; -ENOMEM
 */
int sm_stats(const double *x, unsigned int n, struct sm_stats *out);

#endif /* SM_QUEUEING_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Link impairments: the loss chains and the jitter distributions (impair.h).
 *
 * References: linux net/sched/sch_netem.c (loss_4state(), loss_gilb_ell(): the order of the
 * draws, a state's loss decided by the state a frame meets); tc-netem(8) for the parameters and
 * their defaults; S. Salsano et al., "Definition of a general and intuitive loss model for packet
 * networks and its implementation in the Netem module", 2012, for the 4-state chain.
 */
#include <math.h>

#include "impair.h"

/* Pareto of shape 3 and minimum 1: mean 3/2, variance 3/4 */
#define PARETO_MEAN 1.5
#define PARETO_SD 0.86602540378443864676
/* netem's paretonormal: 1/4 normal + 3/4 pareto, each of unit deviation */
#define PN_NORMAL 0.25
#define PN_PARETO 0.75
#define PN_SD 0.79056941504209483300	/* sqrt(0.25^2 + 0.75^2) */

enum { GE_GOOD, GE_BAD };
enum { S_GAP_TX = 1, S_BURST_TX, S_BURST_LOST, S_GAP_LOST };

void
sm_impair_start(struct sm_impair_state *st, uint64_t seed)
{
	sm_rng_seed(&st->loss_rng, sm_rng_stream_seed(seed, 0));
	sm_rng_seed(&st->delay_rng, sm_rng_stream_seed(seed, 1));
	sm_rng_seed(&st->fate_rng, sm_rng_stream_seed(seed, 2));
	sm_rng_seed(&st->aqm_rng, sm_rng_stream_seed(seed, 3));
	st->state = 0;
}

static bool
lose_ge(const double *p, struct sm_impair_state *st)
{
	double u = sm_rng_uniform(&st->loss_rng), v = sm_rng_uniform(&st->loss_rng);

	if (st->state == GE_GOOD) {
		if (u < p[0])
			st->state = GE_BAD;
		return v < p[3];
	}
	if (u < p[1])
		st->state = GE_GOOD;
	return v < p[2];
}

static bool
lose_4state(const double *p, struct sm_impair_state *st)
{
	double u = sm_rng_uniform(&st->loss_rng);

	switch (st->state) {
	case S_BURST_TX:
		st->state = u < p[3] ? S_BURST_LOST : S_BURST_TX;
		break;
	case S_BURST_LOST:
		st->state = u < p[2] ? S_BURST_TX : u < p[2] + p[1] ? S_GAP_TX : S_BURST_LOST;
		break;
	case S_GAP_LOST:
		st->state = S_GAP_TX;
		break;
	default:	/* S_GAP_TX, and the start */
		st->state = u < p[4] ? S_GAP_LOST : u < p[4] + p[0] ? S_BURST_LOST : S_GAP_TX;
		break;
	}
	return st->state == S_BURST_LOST || st->state == S_GAP_LOST;
}

bool
sm_impair_lose(const struct sm_impair *im, struct sm_impair_state *st)
{
	switch (im->loss) {
	case SM_LOSS_RANDOM:
		return sm_rng_uniform(&st->loss_rng) < im->p[0];
	case SM_LOSS_GE:
		return lose_ge(im->p, st);
	case SM_LOSS_4STATE:
		return lose_4state(im->p, st);
	default:
		return false;
	}
}

void
sm_impair_fate(const struct sm_impair *im, struct sm_impair_state *st, uint32_t len,
	       bool *corrupt, uint32_t *bit, bool *duplicate)
{
	*corrupt = im->corrupt > 0 && sm_rng_uniform(&st->fate_rng) < im->corrupt;
	*bit = *corrupt && len > 0 ? (uint32_t)(sm_rng_next(&st->fate_rng) % (8ull * len)) : 0;
	*duplicate = im->duplicate > 0 && sm_rng_uniform(&st->fate_rng) < im->duplicate;
}

void
sm_impair_override(struct sm_impair *im, double loss, double jitter)
{
	if (!isnan(loss)) {
		im->loss = loss > 0 ? SM_LOSS_RANDOM : SM_LOSS_NONE;
		im->p[0] = loss;
	}
	if (!isnan(jitter)) {
		if (im->dist == SM_JITTER_NONE)
			im->dist = SM_JITTER_UNIFORM;
		im->jitter = jitter;
		if (jitter == 0)
			im->dist = SM_JITTER_NONE;
	}
}

/* Standard normal by Box-Muller, one value per call (1 - u lies in (0, 1]: a finite log). */
static double
normal(struct sm_rng *r)
{
	double u = sm_rng_uniform(r), v = sm_rng_uniform(r);

	return sqrt(-2.0 * log(1.0 - u)) * cos(2.0 * M_PI * v);
}

/* Pareto of shape 3, mean 0 and deviation 1 */
static double
pareto(struct sm_rng *r)
{
	return (pow(1.0 - sm_rng_uniform(r), -1.0 / 3.0) - PARETO_MEAN) / PARETO_SD;
}

double
sm_impair_jitter(const struct sm_impair *im, struct sm_impair_state *st)
{
	struct sm_rng *r = &st->delay_rng;

	switch (im->dist) {
	case SM_JITTER_UNIFORM:
		return im->jitter * (2.0 * sm_rng_uniform(r) - 1.0);
	case SM_JITTER_NORMAL:
		return im->jitter * normal(r);
	case SM_JITTER_PARETO:
		return im->jitter * pareto(r);
	case SM_JITTER_PARETONORMAL: {
		double z = normal(r);

		return im->jitter * (PN_NORMAL * z + PN_PARETO * pareto(r)) / PN_SD;
	}
	case SM_JITTER_TABLE:
		return im->jitter * im->table->v[sm_rng_next(r) % im->table->n] / SM_JTABLE_SCALE;
	default:
		return 0.0;
	}
}

/* The 4-state chain's stationary distribution: pi T = pi, sum pi = 1, by elimination. */
static double
loss_4state_rate(const double *p)
{
	/* T[i][j]: from state i + 1 to state j + 1 */
	double t[4][4] = {
		{ 1.0 - p[0] - p[4], 0.0, p[0], p[4] },
		{ 0.0, 1.0 - p[3], p[3], 0.0 },
		{ p[1], p[2], 1.0 - p[1] - p[2], 0.0 },
		{ 1.0, 0.0, 0.0, 0.0 },
	};
	double a[4][5];
	int i, j, k;

	/* (T^t - I) pi = 0 for rows 0..2, and sum pi = 1 as row 3 */
	for (i = 0; i < 3; i++) {
		for (j = 0; j < 4; j++)
			a[i][j] = t[j][i] - (i == j ? 1.0 : 0.0);
		a[i][4] = 0.0;
	}
	for (j = 0; j < 4; j++)
		a[3][j] = 1.0;
	a[3][4] = 1.0;
	for (k = 0; k < 4; k++) {
		int piv = k;

		for (i = k + 1; i < 4; i++)
			if (fabs(a[i][k]) > fabs(a[piv][k]))
				piv = i;
		if (a[piv][k] == 0.0)
			return NAN;	/* more than one closed class: no single long-run rate */
		for (j = 0; j < 5; j++) {
			double x = a[k][j];

			a[k][j] = a[piv][j];
			a[piv][j] = x;
		}
		for (i = 0; i < 4; i++) {
			double f;

			if (i == k)
				continue;
			f = a[i][k] / a[k][k];
			for (j = k; j < 5; j++)
				a[i][j] -= f * a[k][j];
		}
	}
	return a[2][4] / a[2][2] + a[3][4] / a[3][3];
}

double
sm_impair_loss_rate(const struct sm_impair *im)
{
	double bad;

	switch (im->loss) {
	case SM_LOSS_RANDOM:
		return im->p[0];
	case SM_LOSS_GE:
		if (im->p[0] + im->p[1] == 0.0)
			return im->p[3];	/* never leaves good */
		bad = im->p[0] / (im->p[0] + im->p[1]);
		return (1.0 - bad) * im->p[3] + bad * im->p[2];
	case SM_LOSS_4STATE:
		return loss_4state_rate(im->p);
	default:
		return 0.0;
	}
}

double
sm_impair_mean_burst(const struct sm_impair *im)
{
	if (im->loss != SM_LOSS_GE || im->p[2] != 1.0 || im->p[3] != 0.0 || im->p[1] <= 0.0)
		return NAN;
	return 1.0 / im->p[1];
}

double
sm_impair_jitter_min(enum sm_jitter_dist d)
{
	switch (d) {
	case SM_JITTER_NONE:
		return 0.0;
	case SM_JITTER_UNIFORM:
		return -1.0;
	case SM_JITTER_PARETO:
		return (1.0 - PARETO_MEAN) / PARETO_SD;
	default:
		return -INFINITY;
	}
}

double
sm_impair_jitter_least(const struct sm_impair *im)
{
	if (im->dist == SM_JITTER_TABLE)
		return im->jitter * im->table->least / SM_JTABLE_SCALE;
	return im->dist == SM_JITTER_NONE ? 0.0 : sm_impair_jitter_min(im->dist) * im->jitter;
}

static double
phi(double x)
{
	return 0.5 * erfc(-x / M_SQRT2);
}

static double
pareto_cdf(double x)
{
	double v = PARETO_MEAN + PARETO_SD * x;

	return v <= 1.0 ? 0.0 : 1.0 - 1.0 / (v * v * v);
}

double
sm_impair_jitter_cdf(enum sm_jitter_dist d, double x)
{
	switch (d) {
	case SM_JITTER_NONE:
		return x < 0.0 ? 0.0 : 1.0;
	case SM_JITTER_UNIFORM:
		return x <= -1.0 ? 0.0 : x >= 1.0 ? 1.0 : (x + 1.0) / 2.0;
	case SM_JITTER_NORMAL:
		return phi(x);
	case SM_JITTER_PARETO:
		return pareto_cdf(x);
	case SM_JITTER_PARETONORMAL: {
		/* P(0.25 Z + 0.75 P <= s x) = E over P of Phi((s x - 0.75 P) / 0.25): the midpoint
		 * rule over P's quantiles, fine to well under 1e-4 with 20000 points */
		const int n = 20000;
		double sum = 0.0;

		for (int i = 0; i < n; i++) {
			double u = (i + 0.5) / n;
			double q = (pow(1.0 - u, -1.0 / 3.0) - PARETO_MEAN) / PARETO_SD;

			sum += phi((PN_SD * x - PN_PARETO * q) / PN_NORMAL);
		}
		return sum / n;
	}
	case SM_JITTER_TABLE:
		break;		/* the table's own */
	}
	return NAN;
}

const char *
sm_loss_model_name(enum sm_loss_model m)
{
	static const char *const names[] = { "none", "random", "gemodel", "state" };

	return (unsigned int)m < 4 ? names[m] : "?";
}

const char *
sm_jitter_dist_name(enum sm_jitter_dist d)
{
	static const char *const names[] = { "none", "uniform", "normal", "pareto",
					     "paretonormal", "table" };

	return (unsigned int)d < 6 ? names[d] : "?";
}

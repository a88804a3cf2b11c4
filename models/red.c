/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RED and the step threshold (red.h): Linux's red_calc_qavg(), red_action() and
 * red_mark_probability() in floating point.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "red.h"

int
sm_red_finish(struct sm_red *r, char *why, size_t len)
{
	double burst, w;
	int n;

	if (r->kind == SM_AQM_NONE)
		return 0;
	if (r->kind == SM_AQM_STEP) {
		r->ecn = true;
		if (!(r->min >= 0)) {
			snprintf(why, len, "the threshold must be a size of 0 or more");
			return -EINVAL;
		}
		return 0;
	}
	if (!(r->min >= 0 && r->max > r->min)) {
		snprintf(why, len, "red: max (%.0f bytes) must be above min (%.0f bytes)", r->max,
			 r->min);
		return -EINVAL;
	}
	if (!(r->max_p > 0 && r->max_p <= 1)) {
		snprintf(why, len, "red: probability must be in (0, 1]");
		return -EINVAL;
	}
	if (r->avpkt == 0)
		r->avpkt = 1000;		/* tc-red's */
	if (!(r->avpkt >= 64 && r->avpkt <= 65536)) {
		snprintf(why, len, "red: avpkt must be 64 to 65536 bytes");
		return -EINVAL;
	}
	burst = r->burst > 0 ? r->burst : (2 * r->min + r->max) / (3 * r->avpkt);
	if (burst < 1)
		burst = 1;
	if (burst + 1 - r->min / r->avpkt <= 0) {
		r->w = 1;			/* tc: the first weight passes */
		return 0;
	}
	/* tc_red_eval_ewma(): the smallest weight 2^-n that absorbs the burst */
	for (n = 0; n < 32; n++) {
		w = ldexp(1, -n);
		if (burst + 1 - r->min / r->avpkt < (1 - pow(1 - w, burst)) / w)
			break;
	}
	if (n == 32) {
		snprintf(why, len, "red: burst %.0f is too large for min %.0f bytes", burst, r->min);
		return -EINVAL;
	}
	r->w = ldexp(1, -n);
	return 0;
}

void
sm_red_start(struct sm_red_state *st)
{
	st->avg = 0;
	st->count = -1;
	st->u = 0;
}

double
sm_red_prob(const struct sm_red *r, double avg)
{
	if (r->kind == SM_AQM_STEP)
		return avg > r->min ? 1 : 0;
	if (r->kind != SM_AQM_RED || avg < r->min)
		return 0;
	if (avg < r->max)
		return r->max_p * (avg - r->min) / (r->max - r->min);
	if (r->gentle && avg < 2 * r->max)
		return r->max_p + (1 - r->max_p) * (avg - r->max) / r->max;
	return 1;
}

double
sm_red_rate(const struct sm_red *r, double avg)
{
	double p = sm_red_prob(r, avg), n;

	if (p <= 0 || p >= 1)
		return p <= 0 ? 0 : 1;
	n = ceil(1 / p);
	return 1 / (n - p * n * (n - 1) / 2);
}

enum sm_red_verdict
sm_red_arrive(const struct sm_red *r, struct sm_red_state *st, uint64_t qbytes,
	      double idle_frames, bool ect, struct sm_rng *rng)
{
	double p;

	if (r->kind == SM_AQM_STEP)
		return ect && (double)qbytes > r->min ? SM_RED_MARK : SM_RED_PASS;
	if (idle_frames > 0)
		st->avg *= pow(1 - r->w, idle_frames);
	else
		st->avg += r->w * ((double)qbytes - st->avg);
	p = sm_red_prob(r, st->avg);
	if (p <= 0) {
		st->count = -1;
		return SM_RED_PASS;
	}
	if (p >= 1) {				/* above max (or 2 max, gentle) */
		st->count = -1;
		return r->ecn && ect && !r->harddrop ? SM_RED_MARK : SM_RED_DROP;
	}
	if (++st->count == 0) {			/* the first frame between the thresholds */
		st->u = sm_rng_uniform(rng);
		return SM_RED_PASS;
	}
	if ((double)st->count * p < st->u)
		return SM_RED_PASS;
	st->count = 0;
	st->u = sm_rng_uniform(rng);
	return r->ecn && ect ? SM_RED_MARK : SM_RED_DROP;
}

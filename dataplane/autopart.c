/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * run.partitions = auto: the calibration (autopart.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autopart.h"
#include "clock.h"

/* Events per frame, about (2.1 at 2 x 4 to 32 x 32: README "Performance"). */
#define EVENTS_PER_FRAME 2
/* A sample: this share of the run's expected events, within these bounds. */
#define SAMPLE_SHARE 400
#define SAMPLE_MIN (UINT64_C(1) << 17)
#define SAMPLE_MAX (UINT64_C(1) << 20)
/* A first pair this far from a gain of DP_AUTO_GAIN decides alone. */
#define CLEAR_ABOVE 1.30
#define CLEAR_BELOW 0.95

uint64_t
dp_run_frames(const struct dp_run_params *p)
{
	struct sm_program *prog = calloc(1, sizeof(*prog));
	uint64_t frames = 0, w;
	unsigned int i;

	if (prog == NULL)
		return 0;
	if (sm_program_build(p->model, p->var, p->budget, prog) == 0) {
		w = (uint64_t)p->model->topo.n_dc * p->model->topo.per_dc;
		for (i = 0; i < prog->n; i++)
			frames += sm_frames(prog->r[i].bytes, p->pk->payload, NULL) * w;
		frames *= p->steps;
	}
	sm_program_free(prog);
	free(prog);
	return frames;
}

/* A sink that keeps nothing: a sample's steps are not the run's. */
static void
no_step(void *arg, uint32_t s, const struct dp_step_result *sr, const struct dp_change *changes,
	uint32_t nchanges)
{
	(void)arg;
	(void)s;
	(void)sr;
	(void)changes;
	(void)nchanges;
}

static int
no_transfer(void *arg, double fct, double wait)
{
	(void)arg;
	(void)fct;
	(void)wait;
	return 0;
}

static const struct dp_run_sink no_sink = { .step = no_step, .transfer = no_transfer };

/*
 * One sample of @p p in @p parts partitions: its events per second of running them (0 if it
 * failed), and the partitions it ran in.
 */
static double
sample(const struct dp_run_params *p, uint32_t parts, uint32_t lcores, uint64_t events,
       const volatile sig_atomic_t *stop, uint32_t *ran_in)
{
	struct dp_run_params sp = *p;
	struct dp_run_result res;
	char err[256];
	double rate = 0;

	sp.partitions = parts;
	sp.lcores = lcores;
	sp.max_events = events;
	sp.sink = &no_sink;
	sp.progress = NULL;
	sp.ctl_req = sp.ctl_resp = NULL;
	sp.status = NULL;
	sp.stop = stop;
	sp.cap = NULL;		/* nothing written; its frames have bytes all the same */
	sp.bytes = p->bytes || p->cap != NULL;
	*ran_in = 0;
	if (dp_run(&sp, &res, err, sizeof(err)) != 0)
		return 0;
	if (res.run_s > 0)
		rate = (double)res.events / res.run_s;
	*ran_in = res.partitions;
	dp_run_result_free(&res);
	return rate;
}

uint32_t
dp_auto_partitions(const struct dp_run_params *p, uint32_t lcores,
		   const volatile sig_atomic_t *stop, struct dp_auto *v)
{
	uint64_t t0 = dp_clock_raw_ns();
	uint32_t k, ran_in = 0;

	memset(v, 0, sizeof(*v));
	v->partitions = 1;
	v->lcores = lcores;
	v->expected_events = dp_run_frames(p) * EVENTS_PER_FRAME;
	if (lcores < 2) {
		snprintf(v->why, sizeof(v->why), "one lcore");
		return 1;
	}
	if (v->expected_events < DP_AUTO_MIN_EVENTS) {
		snprintf(v->why, sizeof(v->why), "a run of about %.2g events: too short to gain "
			 "(below %.2g)", (double)v->expected_events, (double)DP_AUTO_MIN_EVENTS);
		return 1;
	}
	v->sample_events = v->expected_events / SAMPLE_SHARE;
	if (v->sample_events < SAMPLE_MIN)
		v->sample_events = SAMPLE_MIN;
	if (v->sample_events > SAMPLE_MAX)
		v->sample_events = SAMPLE_MAX;
	for (k = 0; k < 2; k++) {
		double one = sample(p, 1, 1, v->sample_events, stop, &ran_in);
		double part = 0;

		if (one > 0 && (stop == NULL || !*stop))
			part = sample(p, lcores, lcores, v->sample_events, stop, &ran_in);
		if (one <= 0 || part <= 0 || ran_in < 2 || (stop != NULL && *stop))
			break;
		v->tried = ran_in;
		v->pairs++;
		if (one > v->one_rate)
			v->one_rate = one;
		if (part > v->part_rate)
			v->part_rate = part;
		v->gain = v->part_rate / v->one_rate;
		if (v->gain >= CLEAR_ABOVE || v->gain <= CLEAR_BELOW)
			break;
	}
	v->cost_s = (double)(dp_clock_raw_ns() - t0) / 1e9;
	if (v->pairs == 0) {
		snprintf(v->why, sizeof(v->why), stop != NULL && *stop ? "interrupted" :
			 ran_in == 1 ? "the graph has no link to cut at" : "the sample failed");
		return 1;
	}
	if (v->gain >= DP_AUTO_GAIN) {
		v->partitions = v->tried;
		snprintf(v->why, sizeof(v->why), "%u partitions ran %.2f times as fast as one engine",
			 v->tried, v->gain);
	} else {
		snprintf(v->why, sizeof(v->why), "%u partitions ran %.2f times as fast as one engine "
			 "(less than %.2f)", v->tried, v->gain, DP_AUTO_GAIN);
	}
	return v->partitions;
}

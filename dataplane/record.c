/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The record of the steps in flight: a ring of slots that grows only as far as the steps in
 * flight reach (record.h says how far that is for each sync mode).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"

/* The per-slot arrays of a record. */
struct slots {
	dp_time_t *compute_end, *round_end, *step_end, *gathered;
	uint64_t *frames;
	uint32_t *finished, *round_in, *round_out;
};

static void
slots_free(struct slots *a)
{
	free(a->compute_end);
	free(a->round_end);
	free(a->step_end);
	free(a->gathered);
	free(a->frames);
	free(a->finished);
	free(a->round_in);
	free(a->round_out);
}

static int
slots_alloc(struct slots *a, uint32_t n, uint32_t rounds)
{
	size_t nr = (size_t)n * rounds;

	a->compute_end = calloc(n, sizeof(*a->compute_end));
	a->round_end = calloc(nr ? nr : 1, sizeof(*a->round_end));
	a->step_end = calloc(n, sizeof(*a->step_end));
	a->gathered = calloc(n, sizeof(*a->gathered));
	a->frames = calloc(n, sizeof(*a->frames));
	a->finished = calloc(n, sizeof(*a->finished));
	a->round_in = calloc(nr ? nr : 1, sizeof(*a->round_in));
	a->round_out = calloc(nr ? nr : 1, sizeof(*a->round_out));
	if (a->compute_end == NULL || a->round_end == NULL || a->step_end == NULL ||
	    a->gathered == NULL || a->frames == NULL || a->finished == NULL ||
	    a->round_in == NULL || a->round_out == NULL) {
		slots_free(a);
		return -ENOMEM;
	}
	return 0;
}

static void
slots_take(struct dp_record *r, const struct slots *a, uint32_t n)
{
	r->compute_end = a->compute_end;
	r->round_end = a->round_end;
	r->step_end = a->step_end;
	r->gathered = a->gathered;
	r->frames = a->frames;
	r->finished = a->finished;
	r->round_in = a->round_in;
	r->round_out = a->round_out;
	r->slots = n;
	if (n > r->slots_max)
		r->slots_max = n;
}

int
dp_record_init(struct dp_record *r, uint32_t steps, uint32_t rounds, uint32_t workers,
	       bool hold, bool barrier)
{
	struct slots a;
	uint32_t n = hold ? steps : barrier ? 1 : 2;

	memset(r, 0, sizeof(*r));
	r->steps = steps;
	r->rounds = rounds;
	r->workers = workers;
	r->hold = hold;
	r->binding = -1;
	if (n == 0)
		n = 1;
	if (slots_alloc(&a, n, rounds) != 0)
		return -ENOMEM;
	slots_take(r, &a, n);
	return 0;
}

void
dp_record_free(struct dp_record *r)
{
	struct slots a = {
		r->compute_end, r->round_end, r->step_end, r->gathered, r->frames, r->finished,
		r->round_in, r->round_out,
	};

	slots_free(&a);
	memset(r, 0, sizeof(*r));
}

/* Twice the slots, the steps in flight moved to their new slots. */
static int
grow(struct dp_record *r)
{
	uint32_t n = 2 * r->slots, s, k;
	struct slots a;
	size_t R = r->rounds;

	if (slots_alloc(&a, n, r->rounds) != 0)
		return -ENOMEM;
	for (k = 0; k < r->slots; k++) {
		uint32_t from, to;

		s = r->steps_done + k;
		from = s % r->slots;
		to = s % n;
		a.compute_end[to] = r->compute_end[from];
		a.step_end[to] = r->step_end[from];
		a.gathered[to] = r->gathered[from];
		a.frames[to] = r->frames[from];
		a.finished[to] = r->finished[from];
		memcpy(&a.round_end[to * R], &r->round_end[from * R], R * sizeof(*a.round_end));
		memcpy(&a.round_in[to * R], &r->round_in[from * R], R * sizeof(*a.round_in));
		memcpy(&a.round_out[to * R], &r->round_out[from * R], R * sizeof(*a.round_out));
	}
	{
		struct slots old = {
			r->compute_end, r->round_end, r->step_end, r->gathered, r->frames,
			r->finished, r->round_in, r->round_out,
		};

		slots_free(&old);
	}
	slots_take(r, &a, n);
	return 0;
}

int
dp_record_begin(struct dp_record *r, uint32_t s)
{
	int rc;

	if (s < r->steps_done || s >= r->steps)
		return -EPROTO;
	/* in flight: steps_done .. s, at most one per worker (record.h) */
	if (!r->hold && s - r->steps_done >= r->workers)
		return -EPROTO;
	while (s >= r->steps_done + r->slots) {
		if (r->hold)
			return -EPROTO;
		rc = grow(r);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* Clear the slot of step @s for step s + slots. */
static void
clear(struct dp_record *r, uint32_t s)
{
	uint32_t k = dp_record_slot(r, s);
	size_t R = r->rounds;

	r->compute_end[k] = 0;
	r->step_end[k] = 0;
	r->gathered[k] = 0;
	r->frames[k] = 0;
	r->finished[k] = 0;
	memset(&r->round_end[k * R], 0, R * sizeof(*r->round_end));
	memset(&r->round_in[k * R], 0, R * sizeof(*r->round_in));
	memset(&r->round_out[k * R], 0, R * sizeof(*r->round_out));
}

void
dp_record_done(struct dp_record *r, uint32_t s)
{
	uint32_t k = dp_record_slot(r, s);

	r->steps_done = s + 1;
	r->frames_done += r->frames[k];
	r->last_frames = r->frames[k];
	if (!r->hold && r->retire != NULL)
		r->retire(r->retire_arg, r, s, r->last_end);
	r->last_end = r->step_end[k];
	if (!r->hold)
		clear(r, s);
}

void
dp_record_retire_all(struct dp_record *r)
{
	dp_time_t prev = r->t0;
	uint32_t s;

	for (s = 0; r->hold && r->retire != NULL && s < r->steps_done; s++) {
		r->retire(r->retire_arg, r, s, prev);
		prev = r->step_end[s];
	}
}

void
dp_record_merge(struct dp_record *dst, const struct dp_record *src, uint32_t s)
{
	uint32_t kd = dp_record_slot(dst, s), ks = dp_record_slot(src, s), i;
	size_t R = dst->rounds;

	dp_record_max(&dst->compute_end[kd], src->compute_end[ks]);
	dp_record_max(&dst->step_end[kd], src->step_end[ks]);
	dp_record_max(&dst->gathered[kd], src->gathered[ks]);
	dst->frames[kd] += src->frames[ks];
	dst->finished[kd] += src->finished[ks];
	for (i = 0; i < R; i++) {
		dp_record_max(&dst->round_end[kd * R + i], src->round_end[ks * R + i]);
		dst->round_in[kd * R + i] += src->round_in[ks * R + i];
		dst->round_out[kd * R + i] += src->round_out[ks * R + i];
	}
	if (src->binding >= 0)
		dst->binding = src->binding;
}

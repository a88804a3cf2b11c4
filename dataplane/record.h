/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a run records per step: the latest time any worker reached each point of the step.
 *
 * The record holds only the steps in flight, in a ring of slots (step s in slot s % slots):
 * when the last worker finishes a step, the step is handed to dp_record.retire (the run turns it
 * into its result, dataplane/run.c) and its slot is cleared for a later step, so a run's memory
 * does not grow with its steps.  How many steps are in flight at once:
 *   - phase or step sync: one.  A worker begins step s + 1 only when the barrier releases it,
 *     after every worker has finished step s, and the last of them retires it before it arrives
 *     at the barrier;
 *   - no sync: a worker is in step s only after it received every round of step s - 1 from its
 *     ring predecessors, so it is at most one step ahead of each of them, and at most d steps
 *     ahead of any worker d hops before it on the rings: the steps in flight are at most the
 *     diameter of the rings' graph plus one (at most the workers).  The ring starts with two
 *     slots and doubles when a worker begins a step that does not fit (dp_record_begin()), so it
 *     holds what the run reaches, never more than that bound;
 *   - a run split over two processes (real time) keeps every step (dp_record.hold): the other
 *     process hands its half of the record over at the end, and the steps are retired then.
 */
#ifndef DP_RECORD_H
#define DP_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"

struct dp_record;

/** Called when step @p s is done by every worker, with the previous step's end (or t0). */
typedef void (*dp_record_retire_fn)(void *arg, const struct dp_record *r, uint32_t s,
				     dp_time_t prev_end);

struct dp_record {
	uint32_t steps, rounds, workers;
	uint32_t slots;			/**< steps held at once (hold: every step) */
	bool hold;			/**< keep every step; retire them at the end */
	dp_time_t *compute_end;		/**< [slots]: the last worker's compute end */
	dp_time_t *round_end;		/**< [slots x rounds]: the last worker's round end */
	dp_time_t *step_end;		/**< [slots]: the last worker's step end */
	uint64_t *frames;		/**< [slots]: frames the workers made */
	dp_time_t *gathered;		/**< [slots]: the last module in the network to have
					 *   its whole input (E'), else 0 */
	uint32_t *finished;		/**< [slots]: workers that finished the step */
	uint32_t steps_done;		/**< steps every worker finished */
	uint64_t frames_done;		/**< frames of those steps */
	uint64_t last_frames;		/**< frames of the latest step done */
	dp_time_t last_end;		/**< the latest step done's end (t0 before the first) */
	uint32_t slots_max;		/**< the most slots the ring grew to */
	dp_record_retire_fn retire;	/**< NULL: none */
	void *retire_arg;
	/* for the probes (usdt.h) */
	dp_time_t t0;			/**< the run's start: the first step's "previous end" */
	uint32_t *round_in, *round_out;	/**< [slots x rounds]: workers that began, ended it */
	int binding;			/**< the modules' binding stage (enum sm_stage) in the
					 *   latest step; -1: no module */
	double budget;			/**< the modules' compute budget now, FLOP/s (it may
					 *   change during a run: tune.h) */
};

/**
 * A record of @p steps steps of @p rounds rounds for @p workers workers, holding every step if
 * @p hold, else the steps in flight (from two slots; one with @p barrier: phase or step sync).
 * 0 or -ENOMEM.
 */
int dp_record_init(struct dp_record *r, uint32_t steps, uint32_t rounds, uint32_t workers,
		   bool hold, bool barrier);

void dp_record_free(struct dp_record *r);

/** The slot of step @p s (which must be in flight: steps_done <= s < steps_done + slots). */
static inline uint32_t
dp_record_slot(const struct dp_record *r, uint32_t s)
{
	return r->slots == 1 ? 0 : s % r->slots;
}

/**
 * A worker begins step @p s: make room for it (the ring doubles if s does not fit).
 * 0, or -ENOMEM (the ring could not grow), or -EPROTO if the step is beyond what the record may
 * hold (cannot happen: see above; the run fails rather than overwrite a step in flight).
 */
int dp_record_begin(struct dp_record *r, uint32_t s);

/**
 * Step @p s is done by every worker: it is counted, then (unless the record holds every step)
 * retired and its slot cleared.
 */
void dp_record_done(struct dp_record *r, uint32_t s);

/** Hold mode, at the end: retire steps 0 .. steps_done - 1 in order. */
void dp_record_retire_all(struct dp_record *r);

/**
 * Add step @p s of @p src (a partition's workers) into @p dst's (the whole run's: the step must
 * be in flight there, dp_record_begin()): the latest times, the sums of counts.
 */
void dp_record_merge(struct dp_record *dst, const struct dp_record *src, uint32_t s);

static inline void
dp_record_max(dp_time_t *slot, dp_time_t t)
{
	if (t > *slot)
		*slot = t;
}

#endif /* DP_RECORD_H */

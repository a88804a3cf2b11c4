/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Active queue management at a link's queue: RED (Floyd and Jacobson 1993, as Linux's sch_red
 * and include/net/red.h run it) and a step threshold on the instantaneous queue (DCTCP's K, the
 * marking DCQCN's switches do).
 *
 * RED keeps an average of the queue in bytes, avg <- (1 - W) avg + W q at each arrival, and
 * after the queue was idle for the time m frames of avpkt bytes take at the link's rate,
 * avg <- (1 - W)^m avg.  Below min a frame passes; between min and max it is taken with
 * probability p_b = max_p (avg - min) / (max - min), spread as Linux spreads it: the frames since
 * the last one taken are counted, and a frame is taken once count x p_b reaches a uniform draw
 * made after the last one, so the gap between two is (about) uniform on 1..ceil(1 / p_b), not
 * geometric.  Above max every frame is taken (gentle, as ns-3's RED has it: between max and
 * 2 max, p_b rises from max_p to 1).  A frame taken is marked Congestion Experienced if ECN is on and the frame is
 * ECN-capable (ECT), else dropped; above max with harddrop, dropped either way.
 *
 * The step threshold marks an ECT frame when the queue it joins holds more than K bytes, and
 * never drops one (a non-ECT frame meets only the queue's limit).
 *
 * W comes from tc-red's burst (tc_red_eval_ewma(): the smallest W = 2^-n, n up to 31, with
 * burst + 1 - min / avpkt < (1 - (1 - W)^burst) / W), burst by default (2 min + max) / (3 avpkt).
 */
#ifndef SM_RED_H
#define SM_RED_H

#include <stdbool.h>
#include <stdint.h>

#include "rng.h"

enum sm_aqm {
	SM_AQM_NONE,
	SM_AQM_RED,
	SM_AQM_STEP,
};

/** A link's queue management, as its [impair] words give it. */
struct sm_red {
	enum sm_aqm kind;
	double min, max;	/**< bytes of average queue (step: min is K) */
	double max_p;		/**< the probability at max */
	double burst;		/**< frames (0: tc's default) */
	double avpkt;		/**< bytes */
	double w;		/**< the average's weight (sm_red_finish()) */
	bool ecn;		/**< mark ECT frames rather than drop them (step: always) */
	bool harddrop;		/**< above max, drop even ECT frames */
	bool gentle;
};

/** What becomes of a frame that joins the queue. */
enum sm_red_verdict {
	SM_RED_PASS,
	SM_RED_MARK,		/**< set CE */
	SM_RED_DROP,
};

/** A queue's RED state. */
struct sm_red_state {
	double avg;		/**< bytes */
	int64_t count;		/**< frames since the last one taken; -1: below min since */
	double u;		/**< the draw the count is held against */
};

/** Defaults left unset (burst, avpkt) and the weight; 0 or -EINVAL (@p why says which). */
int sm_red_finish(struct sm_red *r, char *why, size_t len);

/** A queue's state at the start (empty, nothing counted). */
void sm_red_start(struct sm_red_state *st);

/**
 * A frame of an ECN-capable transport (@p ect) joins a queue of @p qbytes bytes (before it)
 * that has been idle for @p idle_frames avpkt-sized frame times (0: not idle).  Draws from
 * @p rng only between min and max.
 */
enum sm_red_verdict sm_red_arrive(const struct sm_red *r, struct sm_red_state *st,
				  uint64_t qbytes, double idle_frames, bool ect, struct sm_rng *rng);

/** p_b at an average queue of @p avg bytes (RED's curve; step: 0 or 1 at K). */
double sm_red_prob(const struct sm_red *r, double avg);

/**
 * The long-run fraction of frames taken at a steady average @p avg: 1 / E[gap] with the gap
 * uniform on 1..ceil(1 / p_b) as sm_red_arrive() spaces them (for tests of the curve).
 */
double sm_red_rate(const struct sm_red *r, double avg);

#endif /* SM_RED_H */

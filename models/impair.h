/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Link impairments as netem defines them: frames lost on the wire (random, Gilbert-Elliott, the
 * 4-state Markov model) and a delay that varies from frame to frame (jitter from a uniform,
 * normal, Pareto or Pareto-normal distribution), with or without reordering.
 *
 * The loss models are netem's (tc-netem(8); net/sched/sch_netem.c, loss_4state() and
 * loss_gilb_ell()), their parameters the probabilities tc takes:
 *   - random P: each frame lost with probability P, independently;
 *   - gemodel P R 1-H 1-K: two states, good and bad; from good to bad with probability P per
 *     frame, back with R; a frame is lost with probability 1-K in good and 1-H in bad, by the
 *     state it meets (then the state moves on).  R defaults to 1-P, 1-H to 1, 1-K to 0;
 *   - state P13 P31 P32 P23 P14: the 4-state model of Salsano et al. (1: a frame through in a
 *     gap, 2: through in a burst, 3: lost in a burst, 4: an isolated loss in a gap): each frame
 *     moves the chain and is lost in states 3 and 4.  P31 defaults to 1-P13, P32 and P14 to 0,
 *     P23 to 1.
 * The jitter X is added to the link's latency (a total below 0 is 0), as netem's delay TIME
 * JITTER: uniform on [-J, J] as netem's; normal, pareto and paretonormal with mean 0 and standard
 * deviation J (pareto: shape 3, shifted and scaled; paretonormal: netem's mix, 1/4 normal and 3/4
 * pareto, scaled back to J).
 *
 * A table (SM_JITTER_TABLE) is netem's empirical distribution, as tc reads a .dist file.
 *
 * Every draw comes from the caller's xoshiro256** stream (rng.h): one stream for losses, one for
 * the delays, so that a change of one leaves the other's sequence as it was.
 */
#ifndef SM_IMPAIR_H
#define SM_IMPAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ltrace.h"
#include "red.h"
#include "rng.h"

enum sm_loss_model {
	SM_LOSS_NONE,
	SM_LOSS_RANDOM,		/**< p[0] = P */
	SM_LOSS_GE,		/**< p[0..3] = P, R, 1-H, 1-K */
	SM_LOSS_4STATE,		/**< p[0..4] = P13, P31, P32, P23, P14 */
};

enum sm_jitter_dist {
	SM_JITTER_NONE,
	SM_JITTER_UNIFORM,
	SM_JITTER_NORMAL,
	SM_JITTER_PARETO,
	SM_JITTER_PARETONORMAL,
	SM_JITTER_TABLE,	/**< netem's empirical table (struct sm_jtable) */
};

/** netem's scale of a table's entries: an entry of 8192 is one J (NETEM_DIST_SCALE). */
#define SM_JTABLE_SCALE 8192.0

/** The most entries a table may hold (tc's MAX_DIST). */
#define SM_JTABLE_MAX (16 * 1024)

/**
 * An empirical jitter distribution as tc-netem reads it from a .dist file: the delay's
 * variation is J * v[i] / SM_JTABLE_SCALE for an i drawn uniformly (netem's tabledist()).
 */
struct sm_jtable {
	uint32_t n;
	int16_t least;			/**< the smallest entry */
	int16_t v[];
};

/** What a link does to its frames besides its rate, latency and queue. */
struct sm_impair {
	enum sm_loss_model loss;
	double p[5];			/**< the loss model's probabilities, in tc's order */
	enum sm_jitter_dist dist;
	double jitter;			/**< J, s */
	bool reorder;			/**< a frame may overtake an earlier one (netem's tfifo);
					 *   false: each leaves no earlier than the one before */
	double duplicate;		/**< a frame delivered twice, with this probability */
	double corrupt;			/**< one bit of a frame flipped, with this probability */
	struct sm_red aqm;		/**< the queue's RED or step marking (red.h) */
	const struct sm_jtable *table;	/**< SM_JITTER_TABLE's table (shared, never freed here) */
	const struct sm_ltrace *trace;	/**< delivery opportunities in place of the rate (ltrace.h;
					 *   shared, never freed here), NULL: the link's rate */
};

/** The state of one link's impairments: its streams and the loss chain's state. */
struct sm_impair_state {
	struct sm_rng loss_rng, delay_rng, fate_rng;	/**< fate: duplicate, corrupt */
	struct sm_rng aqm_rng;				/**< RED's draws */
	uint8_t state;			/**< GE: 0 good, 1 bad; 4-state: 1..4 */
};

/** True if @p im changes anything. */
static inline bool
sm_impair_active(const struct sm_impair *im)
{
	return im != NULL && (im->loss != SM_LOSS_NONE || im->dist != SM_JITTER_NONE ||
			      im->duplicate > 0 || im->corrupt > 0 || im->aqm.kind != SM_AQM_NONE ||
			      im->trace != NULL);
}

/** Start the state of a link's impairments: its streams from @p seed (rng.h's sub-streams). */
void sm_impair_start(struct sm_impair_state *st, uint64_t seed);

/** The next frame: lost or not (the chain moves on by one frame). */
bool sm_impair_lose(const struct sm_impair *im, struct sm_impair_state *st);

/** The next frame's delay added to the latency, s (may be below 0; 0 without jitter). */
double sm_impair_jitter(const struct sm_impair *im, struct sm_impair_state *st);

/**
 * A frame that arrives: corrupted (*@p bit receives which bit of @p len bytes, from the first)
 * and duplicated or not, from the fate stream (each drawn only when its probability is set).
 */
void sm_impair_fate(const struct sm_impair *im, struct sm_impair_state *st, uint32_t len,
		    bool *corrupt, uint32_t *bit, bool *duplicate);

/**
 * impair.loss and impair.jitter over @p im: random loss @p loss in place of its model (0: none),
 * jitter @p jitter s with its distribution and order (uniform, fifo if it had none; 0: none);
 * NAN leaves either as it is.
 */
void sm_impair_override(struct sm_impair *im, double loss, double jitter);

/** The long-run fraction of frames lost (the chain's stationary loss probability). */
double sm_impair_loss_rate(const struct sm_impair *im);

/**
 * Gilbert-Elliott with 1-H = 1 and 1-K = 0 (losses exactly in the bad state): the mean length of
 * a run of lost frames, 1/R; other models and parameters: NAN.
 */
double sm_impair_mean_burst(const struct sm_impair *im);

/** The least the jitter can be, in units of J: -1 (uniform), about -0.577 (pareto), -INFINITY. */
double sm_impair_jitter_min(enum sm_jitter_dist d);

/** The least jitter @p im can draw, s (0 without jitter; -INFINITY if unbounded). */
double sm_impair_jitter_least(const struct sm_impair *im);

/** The jitter distribution's CDF at @p x (units of J): for tests of the draws against it. */
double sm_impair_jitter_cdf(enum sm_jitter_dist d, double x);

/** Names of the models ("random", "gemodel", "state") and distributions ("uniform", ...). */
const char *sm_loss_model_name(enum sm_loss_model m);
const char *sm_jitter_dist_name(enum sm_jitter_dist d);

#endif /* SM_IMPAIR_H */

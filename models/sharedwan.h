/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The sync on a shared WAN: a fluid discrete-event model (deck: "Hot Spots, and a Shared WAN";
 * reference-model.md sections 2.9 and 4.3, "Shared-WAN DES variants").  It is the model figure the
 * packet emulation is compared with under background load; at load 0 it is the closed form.
 */
#ifndef SM_SHAREDWAN_H
#define SM_SHAREDWAN_H

#include <stdbool.h>
#include <stdint.h>

#include "params.h"
#include "queueing.h"

/** How a directional WAN link serves its transfers. */
enum sm_wan_discipline {
	SM_WAN_PS,	/**< egalitarian processor sharing: the rate split equally among the
			 *   active background transfers and the sync's flow(s) */
	SM_WAN_FIFO,	/**< whole transfers in arrival order at the full rate; a sync round is
			 *   one job of flows x bytes queued at the round's start */
};

/** Syncs per run of the deck (section 9: "mean step over 200 syncs"). */
#define SM_SHAREDWAN_SYNCS 200u

/**
 * Events (arrivals, completions) one link may handle in a run before it gives up.  At load >= 1
 * the backlog, and with it each step, grows geometrically, so without a budget a run of 200 syncs
 * would not end; at load 0.9 a run of 200 AdamW syncs takes about 10^5 events.
 */
#define SM_SHAREDWAN_MAX_EVENTS UINT64_C(30000000)

/** What to run. sm_sharedwan_default() fills the deck's setting at load 0. */
struct sm_sharedwan_params {
	enum sm_variant var;
	double budget;		/**< module compute budget, FLOP/s; 0 = not charged */
	double load;		/**< background on each loaded link, fraction of the WAN rate (>= 0;
				 *   at >= 1 the backlog grows without bound and so do the steps) */
	const struct sm_size_dist *sizes; /**< background transfer sizes; may be NULL at load 0 */
	enum sm_wan_discipline disc;
	bool sync_one_flow;	/**< PS: a WAN round of the sync is one flow (true), or as
				 *   many flows as the phase has (a data centre's workers:
				 *   the "4 flows" row) */
	unsigned int directions; /**< 1: background on WAN link 0 (DC 0 to DC 1) only;
				  *   2: on every directional link, independently */
	uint64_t seed;		/**< link k draws from sm_rng_stream_seed(seed, k) */
	unsigned int n_syncs;	/**< steps to simulate, >= 1 (200) */
	unsigned int warmup;	/**< the first syncs reported apart, <= n_syncs (20) */
	uint64_t max_events;	/**< event budget per link; 0 = SM_SHAREDWAN_MAX_EVENTS */
};

/** What a run measured. */
struct sm_sharedwan_result {
	struct sm_stats step;	/**< the n_syncs step times, s (streamed: models/stream.h; exact
				 *   quantiles up to SM_SKETCH_EXACT syncs) */
	double warm_mean;	/**< mean of the first @c warmup steps (NAN if warmup is 0) */
	double rest_mean;	/**< mean of the others (NAN if there are none) */
	double closed;		/**< the closed form, sm_step_eval()'s total, s */
	double wan_bytes;	/**< sync bytes per WAN direction per step */
	double min_step;	/**< capacity bound sm_capacity_min_step(wan_bytes, load, bw), s */
	unsigned int links;	/**< directional WAN links: n_dc (0 with one data centre) */
	unsigned int loaded;	/**< of which carry background */
	double bg_sojourn;	/**< background mean transfer completion time, s: per loaded
				 *   link over the transfers completed, averaged over links
				 *   (NAN: none) */
	double util;		/**< busy fraction of the loaded links (background and sync) over
				 *   the run, averaged over links (NAN: none loaded) */
	uint64_t bg_done;	/**< background transfers completed, all links */
	double horizon;		/**< simulated time, s */
};

/** Defaults: variant A, budget 0, load 0, no sizes, PS, one flow, one direction, seed 1, 200
 * syncs, 20 of warm-up, the default event budget. */
void sm_sharedwan_default(struct sm_sharedwan_params *wp);

/**
 * Simulate @p wp->n_syncs consecutive steps of variant @p wp->var on @p p with background traffic
 * on the WAN, starting from empty links at t = 0.
 *
 * A step is the closed form's terms in plan order (sm_step_eval(), sm_plan_build()): compute and
 * every non-WAN phase take their closed-form time; a WAN phase of r rounds runs each round on
 * every directional link at once, flows x bytes per link, and the round ends when the slowest
 * link has delivered, max(that, bytes / cap) for a port-capped phase, plus the WAN latency.
 * Background arrives throughout (Poisson, rate sm_bg_rate()), so backlogs drain during compute
 * and the other phases.  With one data centre there is no WAN: every step is the closed form.
 *
 * @param step  n_syncs step times, s (may be NULL)
 * @param res   summary (may be NULL)
 * @return 0; -EINVAL on bad parameters (those of sm_step_eval(), load < 0 or not finite, sizes
 *         NULL at load > 0, directions not 1 or 2, n_syncs 0, warmup > n_syncs); -ERANGE if a
 *         link needs more than its event budget (a backlog that grows without bound, load >= 1);
 *         -ENOMEM
 */
int sm_sharedwan_run(const struct sm_params *p, const struct sm_sharedwan_params *wp,
		     double *step, struct sm_sharedwan_result *res);

/** Background alone on one link: what sm_sharedwan_bg_only() measured. */
struct sm_bg_only {
	uint64_t jobs;		/**< transfers measured */
	double wait;		/**< mean wait, s: FIFO, until service starts; PS, the
				 *   sojourn less size / bw */
	double sojourn;		/**< mean completion time from arrival, s */
	double util;		/**< busy fraction */
};

/**
 * Run one link of rate @p bw with only background (the same event code as sm_sharedwan_run())
 * until @p jobs transfers are measured (FIFO: counted at arrival; PS: at completion).  Checks the
 * event code against sm_md1_wait(), sm_mg1_wait() and sm_ps_sojourn().
 *
 * @return 0; -EINVAL (load not in (0, 1), bw <= 0, sizes NULL, jobs 0, unknown discipline); -ENOMEM
 */
int sm_sharedwan_bg_only(enum sm_wan_discipline disc, double load, double bw,
			 const struct sm_size_dist *sizes, uint64_t seed, uint64_t jobs,
			 struct sm_bg_only *out);

#endif /* SM_SHAREDWAN_H */

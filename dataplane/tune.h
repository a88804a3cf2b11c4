/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Changing a running topology: the module's budget, bit planes, latency and port cap, the WAN's
 * rate and latency, the background load.  The control plane sends requests through a ring; the
 * engine applies them between two events (so atomically for every frame) and answers through
 * another ring; the data plane never waits on the control plane.
 */
#ifndef DP_TUNE_H
#define DP_TUNE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../models/bits.h"
#include "../models/params.h"
#include "engine.h"

/** What can change during a run. */
enum dp_param {
	DP_P_BUDGET_LOW,	/**< module.budget_low, FLOP/s */
	DP_P_BUDGET_HIGH,	/**< module.budget_high, FLOP/s */
	DP_P_PLANES,		/**< module.planes */
	DP_P_LAT_PLUGGABLE,	/**< module.latency_pluggable, s */
	DP_P_LAT_NETWORK,	/**< module.latency_network, s */
	DP_P_MOD_PORT,		/**< module.port, B/s: the pluggable's throughput cap */
	DP_P_FPGA_RATE,		/**< module.fpga_rate, ops/s */
	DP_P_WAN_BW,		/**< wan.bandwidth, B/s */
	DP_P_WAN_LAT,		/**< wan.latency, s */
	DP_P_BG_LOAD,		/**< background.load, a fraction of the WAN rate */
	DP_P_WAN_QUEUE,		/**< queues.wan, frame bytes: the WAN queues' limit */
	DP_P_IMP_LOSS,		/**< impair.loss: random loss on the WAN links, a probability */
	DP_P_IMP_JITTER,	/**< impair.jitter: their jitter, s */
	DP_P_COUNT
};

/** A request from the control plane. */
struct dp_tune_req {
	uint64_t id;
	enum dp_param param;
	const char *key;	/**< its scenario key, for the trace's note (static, the control
				 *   plane's) */
	double value;		/**< SI units */
};

/**
 * Why a change was refused, in words that name no scenario key: the control plane names the key
 * (ctl_tune_message()).
 */
struct dp_tune_why {
	char msg[160];		/**< the reason */
	bool named;		/**< the reason is about @p param: its key goes before it */
	enum dp_param param;
	uint32_t takes;		/**< -ENOTSUP: the parameters the target takes (1 << p each), for
				 *   the message to list; 0: none listed */
};

/** The data plane's answer. */
struct dp_tune_resp {
	uint64_t id;
	int rc;			/**< 0, or -errno */
	uint32_t run_id;	/**< the run it was applied in */
	dp_time_t at;		/**< virtual time it took effect */
	double old;		/**< the value before */
	char msg[160];		/**< rc != 0: struct dp_tune_why's fields */
	bool named;
	enum dp_param param;
	uint32_t takes;
};

/** A change, as the run's report and trace record it. */
struct dp_change {
	dp_time_t at;
	enum dp_param param;
	double old, value;
	uint32_t step;		/**< the step during which it landed (dp_step_result.changed);
				 *   UINT32_MAX: after the last step done */
};

/**
 * Append change @p c to the array *@p v of *@p n changes, room for *@p cap, which doubles when
 * full (16 at first): false if out of memory (the array is then unchanged).
 */
bool dp_change_add(struct dp_change **v, uint32_t *n, uint32_t *cap, const struct dp_change *c);

#define DP_STATUS_LINKS 64	/**< WAN links (a bridge's directions) published, the first */

/**
 * A WAN link's figures, or a bridge's direction's: its name is written before dp_status.n_link
 * counts it (release), the rest as the engine polls.
 */
struct dp_status_link {
	char name[32];
	_Atomic uint64_t frames, bytes;		/**< sent on, frame bytes */
	_Atomic uint64_t drops;			/**< at its queue, every class: */
	_Atomic uint64_t drops_bg, drops_tcp, drops_real;	/**< background, TCP's, a bridge's */
	_Atomic uint64_t drops_aqm;		/**< of those, RED's early drops */
	_Atomic uint64_t lost, marked;		/**< on its wire; CE-marked (impairments) */
	_Atomic uint64_t qbytes, max_qbytes;	/**< its queue now and at most, frame bytes */
	_Atomic uint64_t busy_ps;		/**< time it serialised */
	/* a bridge's far port: how late its frames left (ns; refreshed every 0.1 s) */
	_Atomic uint64_t late_n, late_p50_ns, late_p99_ns, late_p999_ns, late_max_ns;
};

/** What the telemetry endpoints read: written by the data plane, read by any thread. */
struct dp_status {
	_Atomic uint32_t running;	/**< a run is in progress */
	_Atomic uint32_t run_id, var, budget;	/**< budget: enum sm_budget, UINT32_MAX: none */
	_Atomic int32_t binding;	/**< the modules' binding stage (enum sm_stage), -1: none */
	_Atomic uint64_t budget_flops;	/**< the compute budget charged now, FLOP/s */
	_Atomic uint64_t steps, steps_done, frames, drops, events, now_ps, changes;
	_Atomic uint64_t step_ps;	/**< the mean of the steps done since the poll before, ps
					 *   (0: none yet) */
	_Atomic uint64_t value_bits[DP_P_COUNT]; /**< current values, as double bits */
	_Atomic uint64_t bg_started, bg_done, bg_incomplete;	/**< background transfers */
	_Atomic uint32_t n_link;		/**< link[] published (0 at a run's start) */
	struct dp_status_link link[DP_STATUS_LINKS];
};

struct dp_link;

/** Publish link @p l's counters into @p sl (the engine that owns @p l calls it). */
void dp_status_link_update(struct dp_status_link *sl, const struct dp_link *l, dp_time_t now);

/** Publish the value in force of @p p (its double's bits: any thread reads them). */
static inline void
dp_status_publish(struct dp_status *st, enum dp_param p, double v)
{
	atomic_store(&st->value_bits[p], sm_double_bits(v));
}

struct dp_topo;

/**
 * Apply a change to a running topology at @p now: the new value goes into @p model (the run's
 * working copy) and every element that depends on it is updated; frames already queued keep the
 * times they were given (as netem's do).  @p budget_kind says which budget the run charges
 * (-1: none).
 *
 * @return 0; -EINVAL (the value fails the model's checks; *@p why says why) or -ENOTSUP
 */
int dp_topo_tune(struct dp_topo *t, struct sm_params *model, int budget_kind, enum dp_param p,
		 double value, dp_time_t now, double *old, struct dp_tune_why *why);

/** The current value of @p p in @p model. */
double dp_param_get(const struct sm_params *model, enum dp_param p);

/**
 * Set @p p in @p model, as a change applied during a run did (unchecked: the run checked it):
 * what the parameters in force were after it.  0, or -EINVAL for background.load and
 * queues.wan, which are not in the model.
 */
int dp_param_set(struct sm_params *model, enum dp_param p, double value);

/** What a control request is applied to (a run's topology, the bridge), for dp_tune_serve(). */
struct dp_tune_target {
	/** Apply @p p = @p v at @p now: 0, with the value before in *@p old, or -errno, with why
	 *  in *@p why */
	int (*tune)(void *arg, enum dp_param p, double v, dp_time_t now, double *old,
		    struct dp_tune_why *why);
	/** Record a change applied; false if it could not (out of memory): it is then not noted */
	bool (*keep)(void *arg, enum dp_param p, double old, double v, dp_time_t now);
	void *arg;
	struct dp_engine *eng;		/**< whose trace gets the change's note */
	struct dp_status *status;	/**< the value in force, published */
	struct rte_ring *resp;		/**< the answers */
	uint32_t run_id;		/**< the answer's */
	const char *where;		/**< the note's end: "run 2", "the bridge" */
};

/**
 * Apply control request @p req (freed here) to @p tg at @p now: record and note the change,
 * publish the value in force, and answer on @p tg->resp (an answer nobody reads is dropped:
 * the data plane never waits for the control plane).
 */
void dp_tune_serve(const struct dp_tune_target *tg, struct dp_tune_req *req, dp_time_t now);

#endif /* DP_TUNE_H */

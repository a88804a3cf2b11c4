/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Step time, time to target and hot-spot shares (deck: "The Model", "Time to Target Loss",
 * "Hot Spots").
 */
#ifndef SM_STEP_H
#define SM_STEP_H

#include "collective.h"
#include "kernel.h"
#include "params.h"

/** The resources a step's time is charged to (deck section 6, "Hot Spots"). */
enum sm_resource {
	SM_RES_COMPUTE,		/**< the GPU: 6PT plus the extra transform */
	SM_RES_INTRA,		/**< links inside a data centre */
	SM_RES_WAN,		/**< links between data centres */
	SM_RES_MOD_PORT,	/**< the module's port where it caps a worker's flow */
	SM_RES_MOD_OPTICS,	/**< module optics stage */
	SM_RES_MOD_COMPUTE,	/**< module compute budget */
	SM_RES_MOD_FPGA,	/**< module FPGA stage */
	SM_RES_COUNT
};

/** One additive term of a step: a phase charged to the resource that bounds it. */
struct sm_term {
	enum sm_resource res;
	const char *what;	/**< static description, e.g. "reduce-scatter in DC" */
	double t;		/**< seconds, latency included */
	double lat;		/**< of which latency, s */
	unsigned int rounds;	/**< rounds of the collective in the term (0 for compute) */
};

/** The compute, the extra transform and every phase of a plan. */
#define SM_TERMS_MAX (SM_PHASES_MAX + 2)

/** A step of one variant: the sum of its terms, and what it moves. */
struct sm_step {
	enum sm_variant var;
	double budget;		/**< module compute budget, FLOP/s (0: not charged) */
	unsigned int n;
	struct sm_term term[SM_TERMS_MAX];
	double total;		/**< step time, s */
	double t_compute;	/**< 6PT / (MFU peak), s */
	double t_extra;		/**< extra GPU transform, s */
	double flops;		/**< GPU FLOP per worker per step */
	double bytes_intra;	/**< bytes each worker sends on intra-DC links */
	double bytes_wan;	/**< bytes each worker sends on the WAN */
	unsigned int n_modules;	/**< modules in the topology */
	struct sm_kernel kernel; /**< module stages (n_modules > 0) */
};

/**
 * Evaluate the step of variant @p v with the module's compute budget @p budget (FLOP/s, 0 for
 * not charged): t_step = t_c + t_x + t_sync (reference-model.md section 2.2), with the sync as in
 * section 2.4 for the topology of @p p.
 *
 * @return 0, or -EINVAL if the parameters fail sm_params_check() or a term is not finite
 */
int sm_step_eval(const struct sm_params *p, enum sm_variant v, double budget, struct sm_step *s);

struct sm_phase;

/** The resource a phase's rounds are charged to: its link, or the module port if that is slower. */
enum sm_resource sm_phase_resource(const struct sm_params *p, const struct sm_phase *ph);

/** Append a term (used by the collective forms). */
void sm_step_add(struct sm_step *s, enum sm_resource res, const char *what, double t, double lat,
		 unsigned int rounds);

/** Time to target: @p steps x step. */
static inline double
sm_time_to_target(const struct sm_step *s, double steps)
{
	return steps * s->total;
}

/** Shares of the step by resource; they sum to 1. */
void sm_step_shares(const struct sm_step *s, double share[SM_RES_COUNT]);

/** Time of the step charged to @p res. */
double sm_step_resource(const struct sm_step *s, enum sm_resource res);

/** The resource holding the largest share. */
enum sm_resource sm_step_hot_spot(const struct sm_step *s);

/** Sync time: the step minus compute and the extra transform. */
static inline double
sm_step_sync(const struct sm_step *s)
{
	return s->total - s->t_compute - s->t_extra;
}

const char *sm_resource_name(enum sm_resource r);	/**< "compute", "intra-DC link", ... */
const char *sm_resource_id(enum sm_resource r);		/**< "compute", "intra", "wan", ... */

#endif /* SM_STEP_H */

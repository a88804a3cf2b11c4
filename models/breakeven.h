/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Break-evens (deck: "Break-even against WAN Bandwidth", "Break-even in Module GFLOP/s, ENOB and
 * Bit Planes"; results.md sections 7a, 7b, 7c and 8).
 */
#ifndef SM_BREAKEVEN_H
#define SM_BREAKEVEN_H

#include "step.h"

/** A contender: a variant at a module budget, with its steps to target. */
struct sm_contender {
	enum sm_variant var;
	double budget;		/**< module compute budget, FLOP/s; 0 = not charged */
	double steps;		/**< steps to target */
};

/** Time to target of @p c under @p p, s; INFINITY if steps is 0 (never reaches the target). */
double sm_contender_time(const struct sm_params *p, const struct sm_contender *c);

#define SM_CROSS_MAX 4

/** Where two contenders' times to target cross over a swept knob. */
struct sm_crossing {
	unsigned int n;			/**< crossings found in the range */
	double x[SM_CROSS_MAX];		/**< the knob at each crossing */
	int lo_winner;			/**< at the low end: -1 X faster, +1 Y faster, 0 equal */
	int hi_winner;			/**< at the high end */
};

/**
 * Sweep the WAN bandwidth over [be_bw_lo, be_bw_hi] (latency unchanged) and find where X's and Y's
 * times to target are equal, by bisection to the relative tolerance be_rtol.  Every other term of
 * both steps is recomputed, which is the deck's "rest of each step from the 100 GbE step plus the
 * WAN bandwidth term" where only that term depends on the bandwidth.
 *
 * @return 0, or -EINVAL on bad parameters
 */
int sm_breakeven_bw(const struct sm_params *p, const struct sm_contender *x,
		    const struct sm_contender *y, struct sm_crossing *out);

/**
 * Sweep X's module compute budget (charged) over [be_budget_lo, be_budget_hi]; Y is fixed.
 *
 * @return 0, -EINVAL on bad parameters, or -ENOTSUP if X has no module
 */
int sm_breakeven_budget(const struct sm_params *p, const struct sm_contender *x,
			const struct sm_contender *y, struct sm_crossing *out);

/** One row of the ENOB or bit-plane tables. */
struct sm_knob_row {
	double key;		/**< ENOB or bit planes */
	double steps;		/**< steps to target at that setting (0 = never) */
	double step;		/**< step time, s */
	double time;		/**< time to target, s (INFINITY if never) */
	enum sm_stage binding;	/**< the module's binding stage */
	bool wins;		/**< beats the rival (ENOB table) */
};

/**
 * ENOB enters only through convergence: X's steps are the step function of measured ENOBs
 * (p->enob).  Fills @p rows (p->enob.n of them) and returns in @p enob the lowest ENOB at which X
 * beats Y, or 0 if none does.
 */
int sm_breakeven_enob(const struct sm_params *p, const struct sm_contender *x,
		      const struct sm_contender *y, struct sm_knob_row *rows, double *enob);

/**
 * Bit planes trade throughput against convergence: each plane is one optical pass, and the steps
 * are those measured at that plane count (p->planes).  Fills @p rows (p->planes.n of them) and
 * returns the index of the fastest in @p fastest.
 */
int sm_planes_table(const struct sm_params *p, enum sm_variant v, double budget,
		    struct sm_knob_row *rows, unsigned int *fastest);

/**
 * Find every sign change of f over [lo, hi] on a log grid and bisect each to relative tolerance
 * @p rtol.  Exposed for the tests.
 */
int sm_find_crossings(double (*f)(double x, void *ctx), void *ctx, double lo, double hi,
		      double rtol, struct sm_crossing *out);

#endif /* SM_BREAKEVEN_H */

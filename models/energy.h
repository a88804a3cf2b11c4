/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Energy per step and to target (deck: "Energy"; results.md section 5).
 */
#ifndef SM_ENERGY_H
#define SM_ENERGY_H

#include "step.h"

/** Energy of one step, all workers, joules. */
struct sm_energy {
	double gpu_static;	/**< W x static power x step time */
	double gpu_dynamic;	/**< W x pJ/FLOP x FLOP per worker */
	double link;		/**< each link's pJ/bit over every byte it carries */
	double mod_static;	/**< modules x (static + laser) x step time */
	double mod_dynamic;	/**< modules x pJ/bit x bytes each processes */
	double total;
};

/**
 * E_step = W P_gpu t + W e_flop F + sum over links (e_bit 8 bytes) + N_mod (P_mod + P_laser) t
 *          + N_mod e_mod 8 bytes_in        (reference-model.md section 2.6)
 */
void sm_energy_step(const struct sm_params *p, const struct sm_step *s, struct sm_energy *e);

/** Share of the step's energy held by the modules. */
static inline double
sm_energy_module_share(const struct sm_energy *e)
{
	return e->total > 0 ? (e->mod_static + e->mod_dynamic) / e->total : 0.0;
}

#endif /* SM_ENERGY_H */

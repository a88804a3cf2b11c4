/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Energy per step.
 *
 * Deck "Energy" (results.md section 5): compute = each H100's static power (100 W, illustrative)
 * for the whole step + 1 pJ per FLOP; link = each preset's pJ/bit over every byte; module = (9.7 W
 * static + 2 W laser) per module for the whole step + 2.76 pJ/bit over the bytes it processes.
 * Energy to target = steps x energy per step.  Which bytes each link carries and how many modules
 * there are follow the collective plans (fitted: reference-model.md section 2.6).  The dense bytes
 * from a host into its own pluggable cross no link and cost no link energy.
 */
#include "energy.h"
#include "params.h"

void
sm_energy_step(const struct sm_params *p, const struct sm_step *s, struct sm_energy *e)
{
	double w = sm_workers(p);

	e->gpu_static = w * p->gpu.static_w * s->total;
	e->gpu_dynamic = w * p->gpu.pj_per_flop * 1e-12 * s->flops;
	e->link = w * 8.0 * 1e-12 *
		  (s->bytes_intra * p->intra.pj_per_bit + s->bytes_wan * p->wan.pj_per_bit);
	e->mod_static = s->n_modules * (p->mod.static_w + p->mod.laser_w) * s->total;
	e->mod_dynamic = s->n_modules * 8.0 * 1e-12 * p->mod.pj_per_bit * s->kernel.bytes_in;
	e->total = e->gpu_static + e->gpu_dynamic + e->link + e->mod_static + e->mod_dynamic;
}

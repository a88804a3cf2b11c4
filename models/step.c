/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Step time and hot spots.
 *
 * Deck "The Model": a step is compute, then one sync of the update; time to target = steps x step
 * time.  Reference-model.md section 2.2: t_step = t_c + t_x + t_sync with t_c = 6 P T / (MFU peak)
 * and t_x the extra transform of the DeMo variants.  Section 2.8 (deck section 6, "Hot Spots"):
 * each round of the sync is charged to its slowest operation, the module to its binding stage, and
 * a pluggable's intra-DC rounds to the module port when the port is slower than the link.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "collective.h"
#include "step.h"
#include "variant.h"

void
sm_step_add(struct sm_step *s, enum sm_resource res, const char *what, double t, double lat,
	    unsigned int rounds)
{
	struct sm_term *x;

	if (s->n >= SM_TERMS_MAX)
		return;
	x = &s->term[s->n++];
	x->res = res;
	x->what = what;
	x->t = t;
	x->lat = lat;
	x->rounds = rounds;
	s->total += t;
}

static const enum sm_resource stage_res[SM_STAGE_COUNT] = {
	[SM_STAGE_OPTICS] = SM_RES_MOD_OPTICS,
	[SM_STAGE_COMPUTE] = SM_RES_MOD_COMPUTE,
	[SM_STAGE_FPGA] = SM_RES_MOD_FPGA,
	[SM_STAGE_PORT] = SM_RES_MOD_PORT,
};

/*
 * A round takes the slowest of its links' transfers (the most flows on one WAN link x bytes / the
 * WAN rate; bytes / the intra rate where a flow stays inside a DC and none crosses; bytes / the
 * cap) plus the latency of its longest path (the WAN's, or on a ring of DCs the intra latency
 * and the WAN's excess once per WAN link crossed).
 */
static double
round_time(const struct sm_params *p, const struct sm_phase *ph, unsigned int k,
	   enum sm_resource *res, double *lat)
{
	struct sm_round_load ld;
	double t, cap_t = ph->cap > 0 ? ph->bytes / ph->cap : 0.0;

	sm_phase_round_load(p, ph, k, &ld);
	if (ld.wan) {
		t = ld.wan_flows * ph->bytes / p->wan.bw;
		*res = SM_RES_WAN;
		*lat = p->topo.wan == SM_WAN_RING ?
			p->intra.lat + ld.wan_hops * (p->wan.lat - p->intra.lat) : p->wan.lat;
	} else {
		t = ph->bytes / p->intra.bw;
		*res = SM_RES_INTRA;
		*lat = p->intra.lat;
	}
	if (ld.out_max > 1 || ld.in_max > 1) {
		/* a tree's round: a worker's flows one after another on its own links */
		double own = (ld.out_max > ld.in_max ? ld.out_max : ld.in_max) * ph->bytes /
			     p->intra.bw;

		if (own > t) {
			t = own;
			*res = SM_RES_INTRA;
		}
	}
	if (cap_t > t) {
		*res = SM_RES_MOD_PORT;
		return cap_t;
	}
	return t;
}

enum sm_resource
sm_phase_resource(const struct sm_params *p, const struct sm_phase *ph)
{
	enum sm_resource res;
	double lat;

	round_time(p, ph, 0, &res, &lat);
	return res;
}

/*
 * One phase of the plan as a term: the sum of its rounds' transfer + latency.  A pairwise phase's
 * rounds each cross the WAN (D > 1: no shift of one round stays inside every DC) or none does
 * (D = 1), so without a cap its sum is the sum of its rounds' loads (sm_phase_load()).
 */
static void
add_phase(const struct sm_params *p, const struct sm_phase *ph, struct sm_step *s)
{
	enum sm_resource res, r;
	double t, lat, sum_t = 0, sum_lat = 0;
	struct sm_phase_load pl;
	unsigned int k;

	t = round_time(p, ph, 0, &res, &lat);
	if (!ph->pairwise && ph->tree == SM_TREE_NONE) {
		sm_step_add(s, res, ph->what, ph->rounds * (t + lat), ph->rounds * lat, ph->rounds);
		return;
	}
	sm_phase_load(p, ph, &pl);
	if (ph->cap == 0 && ph->tree == SM_TREE_NONE) {
		if (pl.wan) {
			sum_t = pl.sum_flows * ph->bytes / p->wan.bw;
			sum_lat = p->topo.wan == SM_WAN_RING ?
				ph->rounds * p->intra.lat + pl.sum_hops * (p->wan.lat - p->intra.lat) :
				ph->rounds * p->wan.lat;
		} else {
			sum_t = ph->rounds * ph->bytes / p->intra.bw;
			sum_lat = ph->rounds * p->intra.lat;
		}
		sm_step_add(s, res, ph->what, sum_t + sum_lat, sum_lat, ph->rounds);
		return;
	}
	for (k = 0; k < ph->rounds; k++) {	/* each round its own peers, the cap, a tree */
		t = round_time(p, ph, k, &r, &lat);
		sum_t += t;
		sum_lat += lat;
	}
	sm_step_add(s, res, ph->what, sum_t + sum_lat, sum_lat, ph->rounds);
}

int
sm_step_eval(const struct sm_params *p, enum sm_variant v, double budget, struct sm_step *s)
{
	struct sm_plan plan;
	double rate = p->gpu.mfu * p->gpu.peak_flops;
	double base_flops = p->job.flops_per_param_token * p->job.params * p->job.tokens;
	double extra_flops = sm_extra_flops(p, v);
	unsigned int i;

	memset(s, 0, sizeof(*s));
	if ((unsigned int)v >= SM_VAR_COUNT || !(budget >= 0) || sm_params_check(p, NULL, 0) != 0)
		return -EINVAL;
	s->var = v;
	s->budget = budget;
	s->t_compute = p->job.compute > 0 ? p->job.compute : base_flops / rate;
	s->t_extra = extra_flops / rate;
	s->flops = base_flops + extra_flops;
	sm_step_add(s, SM_RES_COMPUTE, p->job.compute > 0 ? "compute (job.compute)" :
							    "compute (6PT)",
		    s->t_compute, 0, 0);
	if (extra_flops > 0)
		sm_step_add(s, SM_RES_COMPUTE, "extra GPU transform", s->t_extra, 0, 0);

	sm_plan_build(p, v, &plan);
	s->n_modules = plan.n_modules;
	for (i = 0; i < plan.n; i++) {
		const struct sm_phase *ph = &plan.ph[i];

		if (ph->hop != SM_HOP_MODULE) {
			add_phase(p, ph, s);
			continue;
		}
		sm_kernel_eval(&p->mod, ph->bytes, p->job.value_bytes, budget,
			       plan.placement == SM_PLACE_PORT ? p->mod.latency_port :
								 p->mod.latency_network,
			       &s->kernel);
		sm_step_add(s, stage_res[s->kernel.binding], ph->what,
			    s->kernel.t + s->kernel.latency, s->kernel.latency, 1);
	}
	s->bytes_intra = sm_plan_bytes(p, &plan, SM_HOP_INTRA);
	s->bytes_wan = sm_plan_bytes(p, &plan, SM_HOP_WAN);
	if (!isfinite(s->total))
		return -EINVAL;
	return 0;
}

double
sm_step_resource(const struct sm_step *s, enum sm_resource res)
{
	double t = 0.0;
	unsigned int i;

	for (i = 0; i < s->n; i++)
		if (s->term[i].res == res)
			t += s->term[i].t;
	return t;
}

void
sm_step_shares(const struct sm_step *s, double share[SM_RES_COUNT])
{
	int r;

	for (r = 0; r < SM_RES_COUNT; r++)
		share[r] = s->total > 0 ? sm_step_resource(s, (enum sm_resource)r) / s->total : 0.0;
}

enum sm_resource
sm_step_hot_spot(const struct sm_step *s)
{
	enum sm_resource best = SM_RES_COMPUTE;
	int r;

	for (r = 1; r < SM_RES_COUNT; r++)
		if (sm_step_resource(s, (enum sm_resource)r) > sm_step_resource(s, best))
			best = (enum sm_resource)r;
	return best;
}

static const char *const res_names[SM_RES_COUNT] = {
	"compute", "intra-DC link", "inter-DC link", "module port", "module optics",
	"module compute", "module FPGA",
};
static const char *const res_ids[SM_RES_COUNT] = {
	"compute", "intra", "wan", "module_port", "module_optics", "module_compute", "module_fpga",
};

const char *
sm_resource_name(enum sm_resource r)
{
	return (unsigned int)r < SM_RES_COUNT ? res_names[r] : "?";
}

const char *
sm_resource_id(enum sm_resource r)
{
	return (unsigned int)r < SM_RES_COUNT ? res_ids[r] : "?";
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The packet level (packet.h): its parameters, the workers' round program, the links' rates and
 * delays, and the bounds the data plane is held to (the fluid bound, a step's bound, the frame
 * pool).  The closed form's recursion is in packet_iter.c.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "packet.h"
#include "variant.h"

void
sm_packet_default(struct sm_packet *pk)
{
	pk->mtu = 9000;
	pk->payload = 8192;
	pk->account = SM_ACCOUNT_PAYLOAD;
	pk->sync = SM_SYNC_PHASE;
	pk->burst = 16;
	sm_tcp_conf_default(&pk->tcp);
}

int
sm_packet_check(const struct sm_packet *pk, char *err, unsigned long errlen)
{
	uint32_t room = pk->mtu - SM_IP_HDR - SM_UDP_HDR - SM_SE_HDR;

	SM_CHECK(pk->mtu >= SM_MTU_MIN && pk->mtu <= SM_MTU_MAX, "run.mtu: %u not in %u..%u", pk->mtu,
	      SM_MTU_MIN, SM_MTU_MAX);
	SM_CHECK(pk->payload >= 1 && pk->payload <= room,
	      "run.frame_payload: %u not in 1..%u (the MTU %u less %u bytes of IP, UDP and syncemu "
	      "headers)", pk->payload, room, pk->mtu, SM_IP_HDR + SM_UDP_HDR + SM_SE_HDR);
	SM_CHECK(pk->account == SM_ACCOUNT_PAYLOAD || pk->account == SM_ACCOUNT_WIRE,
	      "run.accounting: unknown mode");
	SM_CHECK(pk->sync == SM_SYNC_PHASE || pk->sync == SM_SYNC_STEP || pk->sync == SM_SYNC_NONE,
	      "run.sync: unknown mode");
	SM_CHECK(pk->burst >= 1 && pk->burst <= 256, "run.burst: %u not in 1..256", pk->burst);
	SM_CHECK(pk->tcp.mss <= pk->mtu - 52, "transport.mss: %u is more than run.mtu (%u) less "
		 "52 bytes of IPv4, TCP and its timestamps", pk->tcp.mss, pk->mtu);
	return 0;
}

uint64_t
sm_ps(double seconds)
{
	double ps = seconds * 1e12;

	/* beyond llround()'s range: saturated (the scenario loader refuses such values) */
	if (!(ps < 0x1p63))
		return ps > 0 ? (uint64_t)INT64_MAX : 0;
	return ps > 0 ? (uint64_t)llround(ps) : 0;
}

uint64_t
sm_rate(double bytes_per_s)
{
	double r = nearbyint(bytes_per_s);

	if (!(r < 0x1p64))	/* saturated, as sm_ps() */
		return r > 0 ? UINT64_MAX : 1;
	return r < 1 ? 1 : (uint64_t)r;
}

static enum sm_resource
stage_resource(enum sm_stage s)
{
	static const enum sm_resource res[SM_STAGE_COUNT] = {
		SM_RES_MOD_OPTICS, SM_RES_MOD_COMPUTE, SM_RES_MOD_FPGA, SM_RES_MOD_PORT,
	};

	return res[s];
}

int
sm_program_build(const struct sm_params *p, enum sm_variant v, double budget,
		 struct sm_program *prog)
{
	struct sm_step s;
	unsigned int i, k, n = 0;
	int rc;

	memset(prog, 0, sizeof(*prog));
	rc = sm_step_eval(p, v, budget, &s);
	if (rc != 0)
		return rc;
	prog->var = v;
	prog->budget = budget;
	prog->compute_ps = sm_ps(s.t_compute + s.t_extra);
	prog->module_res = stage_resource(s.kernel.binding);
	sm_plan_build(p, v, &prog->plan);
	prog->threads = 1;
	if (v == SM_VAR_A && p->job.library == SM_LIB_GLOO) {
		prog->threads = p->job.threads > 0 ? p->job.threads : 1;
		prog->lead_ps = sm_ps(s.t_compute * p->job.first_lead);
	}
	for (i = 0; i < prog->plan.n; i++)
		if (prog->plan.ph[i].xfer != SM_XFER_DENSE)	/* E': part of the module round */
			n += prog->plan.ph[i].rounds;
	if (n > SM_ROUNDS_MAX)
		return -E2BIG;
	prog->r = calloc(n > 0 ? n : 1, sizeof(*prog->r));
	if (prog->r == NULL)
		return -ENOMEM;
	for (i = 0; i < prog->plan.n; i++) {
		const struct sm_phase *ph = &prog->plan.ph[i];
		enum sm_resource res;

		if (ph->xfer == SM_XFER_DENSE)
			continue;
		res = ph->hop == SM_HOP_MODULE ? prog->module_res : sm_phase_resource(p, ph);
		for (k = 0; k < ph->rounds; k++) {
			struct sm_round *r = &prog->r[prog->n++];

			r->hop = ph->hop;
			r->xfer = ph->xfer;
			r->phase = (uint8_t)i;
			r->index = (uint16_t)k;
			r->bytes = (uint64_t)ceil(ph->bytes - 1e-6);
			r->ring = ph->ring;
			r->stride = ph->stride;
			r->shift = sm_phase_shift(ph, k);
			r->flows = sm_workers(p);
			if (ph->tree != SM_TREE_NONE || ph->fan) {
				struct sm_round_load ld;

				sm_phase_round_load(p, ph, k, &ld);
				r->flows = ld.flows;
			}
			r->capped = ph->cap > 0;
			r->res = res;
		}
	}
	return 0;
}

void
sm_program_free(struct sm_program *prog)
{
	if (prog == NULL)
		return;
	free(prog->r);
	prog->r = NULL;
	prog->n = 0;
}

int
sm_links_build(const struct sm_params *p, double budget, struct sm_links *l, char *err,
	       unsigned long errlen)
{
	double compute_ops = 0, fpga_ops = 0;
	int i;

	SM_CHECK(p->topo.n_dc == 1 || p->wan.lat >= p->intra.lat,
	      "wan.latency (%g s) must be >= intra.latency (%g s): a path across data centres also "
	      "crosses the links inside them", p->wan.lat, p->intra.lat);
	memset(l, 0, sizeof(*l));
	l->intra_bw = sm_rate(p->intra.bw);
	l->wan_bw = sm_rate(p->wan.bw);
	l->port_bw = sm_rate(p->mod.port_bw);
	l->nic_delay = sm_ps(p->intra.lat / 2);
	l->down_delay = sm_ps(p->intra.lat) - l->nic_delay;
	l->mlink_delay = l->down_delay;
	l->wan_delay = p->topo.n_dc > 1 ? sm_ps(p->wan.lat) - sm_ps(p->intra.lat) : 0;
	for (i = 0; i < SM_OP_COUNT; i++) {
		if (p->mod.compute_ops & (1u << i))
			compute_ops += p->mod.ops_per_byte[i];
		else
			fpga_ops += p->mod.ops_per_byte[i];
	}
	l->stage_bw[SM_STAGE_OPTICS] =
		sm_rate(p->job.value_bytes * p->mod.lanes * p->mod.lane_rate / p->mod.planes);
	l->stage_bw[SM_STAGE_COMPUTE] = budget > 0 && compute_ops > 0 ?
		sm_rate(budget / compute_ops) : 0;
	l->stage_bw[SM_STAGE_FPGA] = fpga_ops > 0 ? sm_rate(p->mod.fpga_rate / fpga_ops) : 0;
	l->stage_bw[SM_STAGE_PORT] = l->port_bw;
	l->mod_latency_port = sm_ps(p->mod.latency_port);
	l->mod_latency_network = sm_ps(p->mod.latency_network);
	return 0;
}

/* Sum of a frame's times on @n hops of rates @bw, less the slowest one's: the store-and-forward a
 * tandem adds to the slowest hop's time for the whole chunk. */
static double
fill(double frame, const double *bw, unsigned int n)
{
	double sum = 0, worst = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		double t = frame / bw[i];

		sum += t;
		if (t > worst)
			worst = t;
	}
	return sum - worst;
}

double
sm_packet_fluid_bound(const struct sm_params *p, const struct sm_packet *pk,
		      const struct sm_program *prog)
{
	double bound = 0, frame = pk->payload, bw[SM_STAGE_COUNT + 1];
	struct sm_phase_load pl;
	struct sm_links l;
	struct sm_step s;
	unsigned int i, nh;
	int st;

	if (sm_links_build(p, prog->budget, &l, NULL, 0) != 0 ||
	    sm_step_eval(p, prog->var, prog->budget, &s) != 0)
		return NAN;
	for (i = 0; i < prog->n; i++) {
		const struct sm_round *r = &prog->r[i];
		const struct sm_phase *ph = &prog->plan.ph[r->phase];
		uint64_t k = sm_frames(r->bytes, pk->payload, NULL);
		unsigned int fan = ph->fan ? sm_phase_sends_max(ph) : 1;

		/* up to 1 ps of rounding per frame on each of up to 4 hops or stages */
		bound += 4e-12 * (double)k * fan;
		/* a fan's flows take turns frame by frame on the first hop: the last flow's first
		 * frame leaves after one of each other flow's */
		bound += (fan - 1) * frame / (double)l.intra_bw;
		nh = 0;
		if (r->hop == SM_HOP_MODULE) {
			for (st = 0; st < SM_STAGE_COUNT; st++)
				if (l.stage_bw[st] > 0)
					bw[nh++] = (double)l.stage_bw[st];
			bound += fill(frame, bw, nh);
			if (prog->plan.placement == SM_PLACE_NETWORK)
				bound += frame / (double)l.intra_bw;	/* nic, then mlink */
			continue;
		}
		if (r->capped)
			bw[nh++] = (double)l.port_bw;
		bw[nh++] = (double)l.intra_bw;
		sm_phase_load(p, &prog->plan.ph[r->phase], &pl);
		if (pl.wan && pl.max_hops == 1)	/* the data centre's flows share it */
			bw[nh++] = (double)l.wan_bw / pl.max_flows;
		bw[nh++] = (double)l.intra_bw;
		bound += fill(frame, bw, nh);
	}
	return bound / s.total;
}

bool
sm_packet_fluid_bound_holds(const struct sm_params *p, const struct sm_packet *pk,
			    const struct sm_program *prog, char *why, size_t len)
{
	struct sm_links l;
	unsigned int i;

	if (why != NULL && len > 0)
		why[0] = '\0';
	if (pk->account != SM_ACCOUNT_PAYLOAD) {
		if (why != NULL)
			snprintf(why, len, "wire accounting: the links charge framing the fluid model "
				 "does not have");
		return false;
	}
	if (pk->sync != SM_SYNC_PHASE) {
		if (why != NULL)
			snprintf(why, len, "%s sync: phases overlap, which the fluid model's sum of "
				 "phases does not", pk->sync == SM_SYNC_STEP ? "step" : "no");
		return false;
	}
	for (i = 0; i < prog->plan.n; i++) {
		const struct sm_phase *ph = &prog->plan.ph[i];
		struct sm_round_load ld;
		unsigned int k;

		if (ph->hop == SM_HOP_MODULE || ph->xfer == SM_XFER_DENSE)
			continue;
		if (ph->tree != SM_TREE_NONE) {
			if (why != NULL)
				snprintf(why, len, "%s: a tree's rounds are a pipeline (a rank sends "
					 "up when its children's sums are in, down when its parent's "
					 "result is), with up to %u flows a rank; the fluid model sums "
					 "each round's slowest link", ph->what, SM_TREE_SENDS);
			return false;
		}
		for (k = 0; k < ph->rounds; k++) {
			unsigned int flows;

			sm_phase_round_load(p, ph, k, &ld);
			flows = ld.wan ? ld.wan_flows : 1;
			if (ld.wan && ld.wan_hops > 1) {
				if (why != NULL)
					snprintf(why, len, "%s: frames cross %u WAN links (%s WAN), "
						 "stored and forwarded at each, which the fluid model "
						 "charges as one", ph->what, ld.wan_hops,
						 sm_wan_shape_name(p->topo.wan));
				return false;
			}
			if (ph->rounds >= 2 && flows >= 2) {
				if (why != NULL)
					snprintf(why, len, "%s: %u rounds of up to %u flows on a %s "
						 "link, served in order of arrival: the flows drift "
						 "apart over the rounds and a round's frames fill the "
						 "latency of the one before, which the fluid model "
						 "charges in full", ph->what, ph->rounds, flows,
						 ld.wan ? "WAN" : "intra-DC");
				return false;
			}
			if (!ph->pairwise)
				break;	/* every round the same */
		}
	}
	if (prog->plan.n_modules > 0 && prog->plan.placement == SM_PLACE_PORT &&
	    sm_links_build(p, prog->budget, &l, NULL, 0) == 0) {
		double upstream = 0;
		int s, slowest = SM_STAGE_PORT;

		for (s = 0; s < SM_STAGE_COUNT; s++)
			if (l.stage_bw[s] > 0 && l.stage_bw[s] < l.stage_bw[slowest])
				slowest = s;
		for (s = 0; s < slowest; s++)
			if (l.stage_bw[s] > 0)
				upstream += (double)pk->payload / (double)l.stage_bw[s];
		if ((double)pk->burst * pk->payload / (double)l.stage_bw[slowest] < upstream) {
			if (why != NULL)
				snprintf(why, len, "a burst of %u frames at the module's slowest stage "
					 "is shorter than a frame's time through the stages before it: "
					 "the stage waits for its worker", pk->burst);
			return false;
		}
	}
	return true;
}

/* Serialisation of one flow's @k frames (the last of @last bytes) at @bw, as the links charge them. */
static double
flow_ps(const struct sm_packet *pk, uint64_t k, uint32_t last, uint64_t bw, bool charged)
{
	uint32_t full = charged ? sm_charge(pk->account, pk->payload) : pk->payload;
	uint32_t tail = charged ? sm_charge(pk->account, last) : last;

	if (bw == 0 || k == 0)
		return 0;
	return (double)(k - 1) * (double)sm_ser_ps(full, bw) + (double)sm_ser_ps(tail, bw);
}

double
sm_packet_step_bound_ps(const struct sm_params *p, const struct sm_packet *pk,
			const struct sm_program *prog)
{
	double t = (double)prog->compute_ps;
	struct sm_links l;
	unsigned int i;
	int s;

	if (sm_links_build(p, prog->budget, &l, NULL, 0) != 0)
		return NAN;
	for (i = 0; i < prog->n; i++) {
		const struct sm_round *r = &prog->r[i];
		uint32_t last;
		uint64_t k = sm_frames(r->bytes, pk->payload, &last);
		const struct sm_phase *ph = &prog->plan.ph[r->phase];
		struct sm_phase_load pl;

		if (r->hop == SM_HOP_MODULE) {
			for (s = 0; s < SM_STAGE_COUNT; s++)
				t += flow_ps(pk, k, last, l.stage_bw[s], false);
			if (prog->plan.placement == SM_PLACE_NETWORK) {
				/* the dense hop: nic, then the link to the module */
				t += flow_ps(pk, k, last, l.intra_bw, true) + (double)l.nic_delay;
				t += flow_ps(pk, k, last, l.intra_bw, true) + (double)l.mlink_delay;
				t += (double)l.mod_latency_network;
			} else {
				t += (double)l.mod_latency_port;
			}
			continue;
		}
		/* a worker's flows one after another on its first hop (several in a tree) */
		sm_phase_load(p, ph, &pl);
		if (r->capped)
			t += pl.max_out * flow_ps(pk, k, last, l.port_bw, true);
		t += pl.max_out * flow_ps(pk, k, last, l.intra_bw, true) + (double)l.nic_delay;
		/* each WAN link shared by its flows, one after another: a pairwise phase's sum at
		 * its first round, any other's one round at a time */
		if (pl.wan && !ph->pairwise)
			t += pl.max_hops * (pl.max_flows * flow_ps(pk, k, last, l.wan_bw, true) +
					    (double)l.wan_delay);
		else if (pl.wan && r->index == 0)
			t += pl.sum_flows_hops * flow_ps(pk, k, last, l.wan_bw, true) +
			     pl.sum_hops * (double)l.wan_delay;
		t += pl.max_in * flow_ps(pk, k, last, l.intra_bw, true) + (double)l.down_delay;
	}
	return t;
}

uint64_t
sm_packet_pool_count(const struct sm_params *p, const struct sm_packet *pk,
		     const struct sm_program *prog, uint64_t q_wan, bool lossless, bool background)
{
	uint32_t w_count = sm_workers(p), n = p->topo.per_dc;
	uint64_t need, frame = SM_HDR_BYTES + pk->payload, wan_round = 0, dense = 0;
	unsigned int i;

	for (i = 0; i < prog->n; i++) {
		uint64_t k = sm_frames(prog->r[i].bytes, pk->payload, NULL);

		if (prog->r[i].hop == SM_HOP_WAN && k * n > wan_round)
			wan_round = k * n;
		if (prog->r[i].hop == SM_HOP_MODULE && prog->plan.placement == SM_PLACE_NETWORK)
			dense = k;
	}
	/* a round of the sync in each WAN queue (above the limit if its class is lossless) and
	 * background up to the limit */
	if (!lossless && wan_round > q_wan / frame + 1)
		wan_round = q_wan / frame + 1;
	if (background)
		wan_round += q_wan / frame + 1;
	/* bursts and frames in flight on each worker's hops, rounds overlapping without sync */
	need = (uint64_t)w_count * (4 * pk->burst + 64);
	need += wan_round * p->topo.n_dc + (uint64_t)w_count * dense;
	need += need / 4 + 1024;
	return need;
}

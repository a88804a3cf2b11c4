/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Collectives of the six variants on 1 DC x W, D DC x 1 and D DC x N.
 *
 * Reference-model.md sections 2.3 and 2.4; the deck's "How the curves are drawn" (the WAN term is
 * B / bw for an all-reduce or the switch sum, 4P / bw for an all-gather, max(4P / bw, P / 25 GB/s)
 * for a pluggable).  With D = 2, N = 4 a hierarchical all-reduce of B bytes takes
 *   2 [(N-1)/N B/b_i + (N-1) l_i] + [B/b_w + 2 l_w]
 * and an all-gather of p bytes per worker
 *   2 [(N-1) p/b_i + (N-1) l_i] + [N p/b_w + l_w]     (the remote phase moves (D-1) p per round).
 * The structure (which collective, which link) was fitted to the deck's numbers: section 4 of the
 * reference model lists what matches.
 */
#include "collective.h"
#include "variant.h"

static void
add(struct sm_plan *plan, const char *what, enum sm_hop hop, enum sm_xfer xfer,
    unsigned int rounds, double bytes, unsigned int flows, double cap, unsigned int ring,
    unsigned int stride)
{
	struct sm_phase *ph;

	if (rounds == 0 || plan->n >= SM_PHASES_MAX)
		return;
	ph = &plan->ph[plan->n++];
	ph->what = what;
	ph->hop = hop;
	ph->xfer = xfer;
	ph->rounds = rounds;
	ph->bytes = bytes;
	ph->flows = flows;
	ph->cap = cap;
	ph->ring = ring;
	ph->stride = stride;
}

/* All-reduce of @b bytes per worker. */
static void
allreduce(const struct sm_params *p, double b, struct sm_plan *plan)
{
	unsigned int d = p->topo.n_dc, n = p->topo.per_dc, w = d * n;

	if (d == 1 || n == 1) {
		enum sm_hop hop = d == 1 ? SM_HOP_INTRA : SM_HOP_WAN;

		add(plan, "ring reduce-scatter", hop, SM_XFER_REDUCE, w - 1, b / w, 1, 0, w, 1);
		add(plan, "ring all-gather", hop, SM_XFER_GATHER, w - 1, b / w, 1, 0, w, 1);
		return;
	}
	add(plan, "reduce-scatter in DC", SM_HOP_INTRA, SM_XFER_REDUCE, n - 1, b / n, 1, 0, n, 1);
	add(plan, "reduce-scatter across DCs", SM_HOP_WAN, SM_XFER_REDUCE, d - 1, b / (n * d), n, 0,
	    d, n);
	add(plan, "all-gather across DCs", SM_HOP_WAN, SM_XFER_GATHER, d - 1, b / (n * d), n, 0,
	    d, n);
	add(plan, "all-gather in DC", SM_HOP_INTRA, SM_XFER_GATHER, n - 1, b / n, 1, 0, n, 1);
}

/* All-gather of @b bytes per worker, each flow capped at @cap B/s (0: none). */
static void
allgather(const struct sm_params *p, double b, double cap, struct sm_plan *plan)
{
	unsigned int d = p->topo.n_dc, n = p->topo.per_dc, w = d * n;

	if (d == 1 || n == 1) {
		add(plan, "ring all-gather", d == 1 ? SM_HOP_INTRA : SM_HOP_WAN, SM_XFER_GATHER, w - 1,
		    b, 1, cap, w, 1);
		return;
	}
	add(plan, "all-gather in DC", SM_HOP_INTRA, SM_XFER_GATHER, n - 1, b, 1, cap, n, 1);
	add(plan, "all-gather across DCs", SM_HOP_WAN, SM_XFER_GATHER, d - 1, b, n, cap, d, n);
	add(plan, "all-gather of remote shards in DC", SM_HOP_INTRA, SM_XFER_GATHER, n - 1,
	    (d - 1) * b, 1, cap, n, 1);
}

void
sm_plan_build(const struct sm_params *p, enum sm_variant v, struct sm_plan *plan)
{
	double dense = sm_dense_bytes(p);

	plan->var = v;
	plan->n = 0;
	plan->n_modules = 0;
	plan->placement = SM_PLACE_PORT;
	plan->module_bytes_in = 0;

	switch (v) {
	case SM_VAR_A:
	case SM_VAR_CP:
		allreduce(p, sm_payload(p, v), plan);
		break;
	case SM_VAR_B:
	case SM_VAR_C:
		allgather(p, sm_payload(p, v), 0, plan);
		break;
	case SM_VAR_E:
		plan->n_modules = sm_workers(p);
		plan->placement = SM_PLACE_PORT;
		plan->module_bytes_in = dense;
		add(plan, "module (pluggable)", SM_HOP_MODULE, SM_XFER_KERNEL, 1, dense, 1, 0, 1, 1);
		allgather(p, sm_payload(p, v), p->mod.port_bw, plan);
		break;
	case SM_VAR_EP:
		plan->n_modules = sm_workers(p);
		plan->placement = SM_PLACE_NETWORK;
		plan->module_bytes_in = dense;
		add(plan, "dense gradient to module", SM_HOP_INTRA, SM_XFER_DENSE, 1, dense, 1, 0, 1, 1);
		add(plan, "module (in network)", SM_HOP_MODULE, SM_XFER_KERNEL, 1, dense, 1, 0, 1, 1);
		allreduce(p, sm_payload(p, v), plan);
		break;
	default:
		break;
	}
}

double
sm_plan_bytes(const struct sm_plan *plan, enum sm_hop hop)
{
	double b = 0.0;
	unsigned int i;

	for (i = 0; i < plan->n; i++)
		if (plan->ph[i].hop == hop)
			b += plan->ph[i].rounds * plan->ph[i].bytes;
	return b;
}

const char *
sm_hop_name(enum sm_hop h)
{
	switch (h) {
	case SM_HOP_INTRA:
		return "intra";
	case SM_HOP_WAN:
		return "wan";
	case SM_HOP_MODULE:
		return "module";
	}
	return "?";
}

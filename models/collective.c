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
#include <stdlib.h>
#include <string.h>

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
	ph->pairwise = false;
}

/* A pairwise exchange: round k sends k + 1 places on around the ring. */
static void
add_pairwise(struct sm_plan *plan, const char *what, enum sm_hop hop, enum sm_xfer xfer,
	     unsigned int rounds, double bytes, unsigned int flows, double cap, unsigned int ring,
	     unsigned int stride)
{
	unsigned int n = plan->n;

	add(plan, what, hop, xfer, rounds, bytes, flows, cap, ring, stride);
	if (plan->n > n)
		plan->ph[n].pairwise = true;
}

enum sm_algo
sm_plan_algo(const struct sm_params *p)
{
	if (p->job.collective != SM_ALGO_AUTO)
		return p->job.collective;
	return p->topo.n_dc > 1 && p->topo.per_dc > 1 ? SM_ALGO_HIER : SM_ALGO_RING;
}

/* The hop a flat phase over all workers charges: the WAN if any of its flows crosses it. */
static enum sm_hop
flat_hop(const struct sm_params *p)
{
	return p->topo.n_dc > 1 ? SM_HOP_WAN : SM_HOP_INTRA;
}

/* All-reduce of @b bytes per worker. */
static void
allreduce(const struct sm_params *p, double b, struct sm_plan *plan)
{
	unsigned int d = p->topo.n_dc, n = p->topo.per_dc, w = d * n;
	enum sm_algo algo = sm_plan_algo(p);

	if (algo == SM_ALGO_RING || (algo == SM_ALGO_HIER && (d == 1 || n == 1))) {
		add(plan, "ring reduce-scatter", flat_hop(p), SM_XFER_REDUCE, w - 1, b / w, 1, 0, w,
		    1);
		add(plan, "ring all-gather", flat_hop(p), SM_XFER_GATHER, w - 1, b / w, 1, 0, w, 1);
		return;
	}
	add(plan, "reduce-scatter in DC", SM_HOP_INTRA, SM_XFER_REDUCE, n - 1, b / n, 1, 0, n, 1);
	if (algo == SM_ALGO_DIRECT) {
		/* each worker's shard straight to each DC peer, which sums the D copies */
		add_pairwise(plan, "shard exchange across DCs", SM_HOP_WAN, SM_XFER_REDUCE, d - 1,
			     b / n, n, 0, d, n);
	} else {
		add(plan, "reduce-scatter across DCs", SM_HOP_WAN, SM_XFER_REDUCE, d - 1,
		    b / (n * d), n, 0, d, n);
		add(plan, "all-gather across DCs", SM_HOP_WAN, SM_XFER_GATHER, d - 1, b / (n * d),
		    n, 0, d, n);
	}
	add(plan, "all-gather in DC", SM_HOP_INTRA, SM_XFER_GATHER, n - 1, b / n, 1, 0, n, 1);
}

/* All-gather of @b bytes per worker, each flow capped at @cap B/s (0: none). */
static void
allgather(const struct sm_params *p, double b, double cap, struct sm_plan *plan)
{
	unsigned int d = p->topo.n_dc, n = p->topo.per_dc, w = d * n;
	enum sm_algo algo = sm_plan_algo(p);

	if (algo == SM_ALGO_RING || (algo == SM_ALGO_HIER && (d == 1 || n == 1))) {
		add(plan, "ring all-gather", flat_hop(p), SM_XFER_GATHER, w - 1, b, 1, cap, w, 1);
		return;
	}
	add(plan, "all-gather in DC", SM_HOP_INTRA, SM_XFER_GATHER, n - 1, b, 1, cap, n, 1);
	if (algo == SM_ALGO_DIRECT)
		add_pairwise(plan, "exchange across DCs", SM_HOP_WAN, SM_XFER_GATHER, d - 1, b, n,
			     cap, d, n);
	else
		add(plan, "all-gather across DCs", SM_HOP_WAN, SM_XFER_GATHER, d - 1, b, n, cap, d,
		    n);
	add(plan, "all-gather of remote shards in DC", SM_HOP_INTRA, SM_XFER_GATHER, n - 1,
	    (d - 1) * b, 1, cap, n, 1);
}

/* Reduce-scatter of @b bytes per worker: each ends with its B / W of the sum. */
static void
reducescatter(const struct sm_params *p, double b, struct sm_plan *plan)
{
	unsigned int d = p->topo.n_dc, n = p->topo.per_dc, w = d * n;
	enum sm_algo algo = sm_plan_algo(p);

	if (algo == SM_ALGO_RING || (algo == SM_ALGO_HIER && (d == 1 || n == 1))) {
		add(plan, "ring reduce-scatter", flat_hop(p), SM_XFER_REDUCE, w - 1, b / w, 1, 0, w,
		    1);
		return;
	}
	add(plan, "reduce-scatter in DC", SM_HOP_INTRA, SM_XFER_REDUCE, n - 1, b / n, 1, 0, n, 1);
	if (algo == SM_ALGO_DIRECT)
		add_pairwise(plan, "shard parts across DCs", SM_HOP_WAN, SM_XFER_REDUCE, d - 1,
			     b / (n * d), n, 0, d, n);
	else
		add(plan, "reduce-scatter across DCs", SM_HOP_WAN, SM_XFER_REDUCE, d - 1,
		    b / (n * d), n, 0, d, n);
}

/* All-to-all of @b bytes per worker, B / W to each: a pairwise exchange over all workers (every
 * algorithm: the bytes go straight to their owner). */
static void
alltoall(const struct sm_params *p, double b, struct sm_plan *plan)
{
	unsigned int w = p->topo.n_dc * p->topo.per_dc;

	add_pairwise(plan, "pairwise all-to-all", flat_hop(p), SM_XFER_GATHER, w - 1, b / w, 1, 0,
		     w, 1);
}

/* Variant A: the job's operation on the dense gradient. */
static void
dense_op(const struct sm_params *p, double b, struct sm_plan *plan)
{
	switch (p->job.operation) {
	case SM_OPK_ALLGATHER:
		allgather(p, b / sm_workers(p), 0, plan);
		break;
	case SM_OPK_REDUCESCATTER:
		reducescatter(p, b, plan);
		break;
	case SM_OPK_ALLTOALL:
		alltoall(p, b, plan);
		break;
	default:
		allreduce(p, b, plan);
		break;
	}
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
		dense_op(p, sm_payload(p, v), plan);
		break;
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

/* ---- the WAN's shape ---- */

unsigned int
sm_wan_count(enum sm_wan_shape shape, unsigned int d)
{
	if (d < 2)
		return 0;
	switch (shape) {
	case SM_WAN_MESH:
		return d * (d - 1);
	case SM_WAN_STAR:
		return 2 * d;
	default:
		return d;
	}
}

void
sm_wan_ends(enum sm_wan_shape shape, unsigned int d, unsigned int i, unsigned int *from,
	    unsigned int *to)
{
	unsigned int b;

	switch (shape) {
	case SM_WAN_MESH:
		*from = i / (d - 1);
		b = i % (d - 1);
		*to = b < *from ? b : b + 1;
		break;
	case SM_WAN_STAR:
		*from = i < d ? i : d;
		*to = i < d ? d : i - d;
		break;
	default:
		*from = i;
		*to = (i + 1) % d;
		break;
	}
}

unsigned int
sm_wan_next(enum sm_wan_shape shape, unsigned int d, unsigned int at, unsigned int dst)
{
	switch (shape) {
	case SM_WAN_MESH:
		return at * (d - 1) + (dst < at ? dst : dst - 1);
	case SM_WAN_STAR:
		return at == d ? d + dst : at;
	default:
		return at;
	}
}

unsigned int
sm_wan_hops(enum sm_wan_shape shape, unsigned int d, unsigned int a, unsigned int b)
{
	if (a == b)
		return 0;
	switch (shape) {
	case SM_WAN_MESH:
		return 1;
	case SM_WAN_STAR:
		return 2;
	default:
		return (b + d - a) % d;
	}
}

uint64_t
sm_wan_link_delay(enum sm_wan_shape shape, unsigned int d, unsigned int i, uint64_t wan_delay)
{
	if (shape != SM_WAN_STAR)
		return wan_delay;
	return i < d ? wan_delay / 2 : wan_delay - wan_delay / 2;
}

/* Add @c flows from DC @a to DC @b to the WAN links' loads (ring: a difference array). */
static void
load_pair(const struct sm_params *p, unsigned int a, unsigned int b, unsigned int c,
	  unsigned int *load, int *diff, struct sm_round_load *out)
{
	unsigned int d = p->topo.n_dc, hops;

	if (c == 0)
		return;
	if (a == b) {
		out->intra = true;
		out->inside += c;
		return;
	}
	out->wan = true;
	hops = sm_wan_hops(p->topo.wan, d, a, b);
	out->link_hops += c * hops;
	if (hops > out->wan_hops)
		out->wan_hops = hops;
	switch (p->topo.wan) {
	case SM_WAN_MESH:
		load[sm_wan_next(SM_WAN_MESH, d, a, b)] += c;
		break;
	case SM_WAN_STAR:
		load[a] += c;
		load[d + b] += c;
		break;
	default:	/* links a .. b - 1 around the ring */
		diff[a] += (int)c;
		if (b > a) {
			diff[b] -= (int)c;
		} else {
			diff[d] -= (int)c;
			diff[0] += (int)c;
			diff[b] -= (int)c;
		}
		break;
	}
}

void
sm_round_load(const struct sm_params *p, unsigned int ring, unsigned int stride,
	      unsigned int shift, struct sm_round_load *out)
{
	unsigned int d = p->topo.n_dc, n = p->topo.per_dc;
	unsigned int nw = sm_wan_count(p->topo.wan, d), a, i;
	/* D <= 64 (the key's range): at most 64 x 63 mesh links */
	unsigned int load[64 * 63 + 1];
	int diff[64 + 1], run = 0;

	memset(out, 0, sizeof(*out));
	if (d < 2 || (stride == 1 && ring <= n && n % ring == 0)) {
		out->intra = true;	/* rings inside a DC */
		out->inside = d * n;
		return;
	}
	if (d > 64) {			/* beyond the key's range: the worst a round can be */
		out->wan = true;
		out->wan_flows = d * n;
		out->wan_hops = d;
		return;
	}
	memset(load, 0, (nw + 1) * sizeof(load[0]));
	memset(diff, 0, (d + 1) * sizeof(diff[0]));
	for (a = 0; a < d; a++) {
		if (stride == n && ring == d) {		/* DC peers: all n to one DC */
			load_pair(p, a, (a + shift) % d, n, load, diff, out);
		} else if (stride == 1 && ring == d * n) {	/* one ring over all: two DCs at most */
			unsigned int q = (shift % ring) / n, r = (shift % ring) % n;

			load_pair(p, a, (a + q) % d, n - r, load, diff, out);
			load_pair(p, a, (a + q + 1) % d, r, load, diff, out);
		} else {			/* anything else: worker by worker */
			unsigned int j;

			for (j = a * n; j < (a + 1) * n; j++) {
				unsigned int pos = (j / stride) % ring;
				unsigned int v = j - pos * stride + ((pos + shift) % ring) * stride;

				load_pair(p, a, v / n, 1, load, diff, out);
			}
		}
	}
	for (i = 0; p->topo.wan == SM_WAN_RING && i < d; i++) {
		run += diff[i];
		load[i] += (unsigned int)run;
	}
	for (i = 0; i < nw; i++)
		if (load[i] > out->wan_flows)
			out->wan_flows = load[i];
}

struct phase_key {
	unsigned int d, n, ring, stride, rounds;
	enum sm_wan_shape shape;
	bool pairwise;
};

#define PHASE_CACHE 16

void
sm_phase_load(const struct sm_params *p, const struct sm_phase *ph, struct sm_phase_load *out)
{
	static _Thread_local struct {
		struct phase_key k;
		struct sm_phase_load v;
		bool used;
	} cache[PHASE_CACHE];
	static _Thread_local unsigned int next;
	struct phase_key key;
	struct sm_round_load ld;
	unsigned int i, k, rounds;

	memset(&key, 0, sizeof(key));
	key.d = p->topo.n_dc;
	key.n = p->topo.per_dc;
	key.ring = ph->ring;
	key.stride = ph->stride;
	key.rounds = ph->pairwise ? ph->rounds : 1;
	key.shape = p->topo.wan;
	key.pairwise = ph->pairwise;
	for (i = 0; i < PHASE_CACHE; i++)
		if (cache[i].used && memcmp(&cache[i].k, &key, sizeof(key)) == 0)
			goto found;
	memset(out, 0, sizeof(*out));
	rounds = ph->pairwise ? ph->rounds : 1;
	for (k = 0; k < rounds; k++) {
		sm_round_load(p, ph->ring, ph->stride, sm_phase_shift(ph, k), &ld);
		out->sum_flows += ld.wan_flows;
		out->sum_hops += ld.wan_hops;
		out->sum_flows_hops += (double)ld.wan_flows * ld.wan_hops;
		if (ld.wan_flows > out->max_flows)
			out->max_flows = ld.wan_flows;
		if (ld.wan_hops > out->max_hops)
			out->max_hops = ld.wan_hops;
		out->intra |= ld.intra;
		out->wan |= ld.wan;
		out->inside += ld.inside;
		out->link_hops += ld.link_hops;
	}
	i = next++ % PHASE_CACHE;
	cache[i].k = key;
	cache[i].v = *out;
	cache[i].used = true;
found:
	*out = cache[i].v;
	if (!ph->pairwise) {	/* every round the same */
		out->sum_flows *= ph->rounds;
		out->sum_hops *= ph->rounds;
		out->sum_flows_hops *= ph->rounds;
		out->inside *= ph->rounds;
		out->link_hops *= ph->rounds;
	}
}

static const char *const algo_names[SM_ALGO_COUNT] = {
	"auto", "ring", "hierarchical", "direct",
};
static const char *const opkind_names[SM_OPK_COUNT] = {
	"allreduce", "allgather", "reducescatter", "alltoall",
};
static const char *const shape_names[SM_WAN_SHAPE_COUNT] = { "ring", "mesh", "star" };

const char *
sm_algo_name(enum sm_algo a)
{
	return (unsigned int)a < SM_ALGO_COUNT ? algo_names[a] : "?";
}

const char *
sm_opkind_name(enum sm_opkind o)
{
	return (unsigned int)o < SM_OPK_COUNT ? opkind_names[o] : "?";
}

const char *
sm_wan_shape_name(enum sm_wan_shape s)
{
	return (unsigned int)s < SM_WAN_SHAPE_COUNT ? shape_names[s] : "?";
}

double
sm_plan_bytes(const struct sm_params *p, const struct sm_plan *plan, enum sm_hop hop)
{
	double b = 0.0, w = (double)p->topo.n_dc * p->topo.per_dc;
	struct sm_phase_load pl;
	unsigned int i;

	for (i = 0; i < plan->n; i++) {
		const struct sm_phase *ph = &plan->ph[i];

		if (ph->hop == SM_HOP_MODULE || ph->xfer == SM_XFER_DENSE) {
			if (ph->hop == hop)
				b += ph->rounds * ph->bytes;
			continue;
		}
		if (hop == SM_HOP_MODULE)
			continue;
		sm_phase_load(p, ph, &pl);
		b += ph->bytes * (hop == SM_HOP_WAN ? pl.link_hops : pl.inside) / w;
	}
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

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
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collective.h"
#include "library.h"
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
	ph->back = false;
	ph->tree = SM_TREE_NONE;
	ph->chunks = 1;
	ph->fan = false;
	ph->bucket = 0;
}

struct sm_phase *
sm_plan_add(struct sm_plan *plan, const char *what, enum sm_hop hop, enum sm_xfer xfer,
	    unsigned int rounds, double bytes, unsigned int ring, unsigned int stride)
{
	unsigned int n = plan->n;

	add(plan, what, hop, xfer, rounds, bytes, 1, 0, ring, stride);
	return plan->n > n ? &plan->ph[n] : NULL;
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

/*
 * A direct exchange across DCs (rounds of @bytes): D - 1 pairwise rounds, or one round to every
 * DC peer at once (job.direct; auto: at once where each peer has its own WAN link, a mesh).
 */
bool
sm_plan_direct_fan(const struct sm_params *p)
{
	/* with two DCs one round either way */
	return sm_plan_algo(p) == SM_ALGO_DIRECT && p->topo.n_dc > 2 &&
	       (p->job.direct == SM_DIRECT_CONCURRENT ||
		(p->job.direct == SM_DIRECT_AUTO && p->topo.wan == SM_WAN_MESH));
}

static void
add_direct(const struct sm_params *p, struct sm_plan *plan, const char *what, enum sm_xfer xfer,
	   double bytes, double cap)
{
	unsigned int d = p->topo.n_dc, n = p->topo.per_dc, k = plan->n;

	if (!sm_plan_direct_fan(p)) {
		add_pairwise(plan, what, SM_HOP_WAN, xfer, d - 1, bytes, n, cap, d, n);
		return;
	}
	add(plan, what, SM_HOP_WAN, xfer, 1, bytes, n, cap, d, n);
	if (plan->n > k)
		plan->ph[k].fan = true;
}

const char *
sm_plan_direct_name(const struct sm_params *p)
{
	if (sm_plan_algo(p) != SM_ALGO_DIRECT || p->topo.n_dc <= 2)
		return "";
	return sm_plan_direct_fan(p) ? "concurrent" : "rounds";
}

/* The rounds of a double binary tree over all @w workers, each tree pipelining @half bytes. */
static void
add_tree(struct sm_plan *plan, const char *what, enum sm_hop hop, enum sm_xfer xfer,
	 double half, enum sm_tree_dir dir, unsigned int w)
{
	unsigned int n = plan->n, h = sm_tree_rounds(w);
	double c = ceil(half / SM_TREE_CHUNK);

	if (c < 1)
		c = 1;
	if (c > SM_TREE_CHUNKS_MAX)
		c = SM_TREE_CHUNKS_MAX;
	add(plan, what, hop, xfer, h > 0 ? (unsigned int)c + h - 1 : 0, half / c, 1, 0, w, 1);
	if (plan->n > n) {
		plan->ph[n].tree = dir;
		plan->ph[n].chunks = (unsigned int)c;
	}
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

	if (algo == SM_ALGO_TREE) {
		/* each tree reduces half of B to its root and broadcasts it back down */
		add_tree(plan, "tree reduce", flat_hop(p), SM_XFER_REDUCE, b / 2, SM_TREE_UP, w);
		add_tree(plan, "tree broadcast", flat_hop(p), SM_XFER_GATHER, b / 2, SM_TREE_DOWN,
			 w);
		return;
	}
	if (algo == SM_ALGO_RING || (algo == SM_ALGO_HIER && (d == 1 || n == 1))) {
		add(plan, "ring reduce-scatter", flat_hop(p), SM_XFER_REDUCE, w - 1, b / w, 1, 0, w,
		    1);
		add(plan, "ring all-gather", flat_hop(p), SM_XFER_GATHER, w - 1, b / w, 1, 0, w, 1);
		return;
	}
	add(plan, "reduce-scatter in DC", SM_HOP_INTRA, SM_XFER_REDUCE, n - 1, b / n, 1, 0, n, 1);
	if (algo == SM_ALGO_DIRECT) {
		/* each worker's shard straight to each DC peer, which sums the D copies */
		add_direct(p, plan, "shard exchange across DCs", SM_XFER_REDUCE, b / n, 0);
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

	/* a tree has no all-gather: one ring */
	if (algo == SM_ALGO_RING || algo == SM_ALGO_TREE ||
	    (algo == SM_ALGO_HIER && (d == 1 || n == 1))) {
		add(plan, "ring all-gather", flat_hop(p), SM_XFER_GATHER, w - 1, b, 1, cap, w, 1);
		return;
	}
	add(plan, "all-gather in DC", SM_HOP_INTRA, SM_XFER_GATHER, n - 1, b, 1, cap, n, 1);
	if (algo == SM_ALGO_DIRECT)
		add_direct(p, plan, "exchange across DCs", SM_XFER_GATHER, b, cap);
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

	/* nor a reduce-scatter */
	if (algo == SM_ALGO_RING || algo == SM_ALGO_TREE ||
	    (algo == SM_ALGO_HIER && (d == 1 || n == 1))) {
		add(plan, "ring reduce-scatter", flat_hop(p), SM_XFER_REDUCE, w - 1, b / w, 1, 0, w,
		    1);
		return;
	}
	add(plan, "reduce-scatter in DC", SM_HOP_INTRA, SM_XFER_REDUCE, n - 1, b / n, 1, 0, n, 1);
	if (algo == SM_ALGO_DIRECT)
		add_direct(p, plan, "shard parts across DCs", SM_XFER_REDUCE, b / (n * d), 0);
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
		if (p->job.library != SM_LIB_IDEAL)
			sm_library_allreduce(p, b, plan);
		else
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

/* Every worker's flow @shift places on around its ring, onto the links' loads. */
static void
shift_load(const struct sm_params *p, unsigned int ring, unsigned int stride, unsigned int shift,
	   unsigned int *load, int *diff, struct sm_round_load *out)
{
	unsigned int d = p->topo.n_dc, n = p->topo.per_dc, a;

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
				unsigned int v = sm_ring_peer(j, ring, stride, shift, +1);

				load_pair(p, a, v / n, 1, load, diff, out);
			}
		}
	}
}

/* The load of a round in which every worker sends @fan flows, 1 .. @fan places on around its
 * ring (a ring's round: @shift places on, @fan 0). */
static void
round_load(const struct sm_params *p, unsigned int ring, unsigned int stride, unsigned int shift,
	   unsigned int fan, struct sm_round_load *out)
{
	unsigned int d = p->topo.n_dc, n = p->topo.per_dc, f = fan > 0 ? fan : 1;
	unsigned int nw = sm_wan_count(p->topo.wan, d), i, s;
	/* D <= 64 (the key's range): at most 64 x 63 mesh links */
	unsigned int load[64 * 63 + 1];
	int diff[64 + 1], run = 0;

	memset(out, 0, sizeof(*out));
	out->out_max = out->in_max = f;		/* f flows out and f in, every worker */
	out->flows = d * n * f;
	if (d < 2 || (stride == 1 && ring <= n && n % ring == 0)) {
		out->intra = true;	/* rings inside a DC */
		out->inside = d * n * f;
		return;
	}
	if (d > 64) {			/* beyond the key's range: the worst a round can be */
		out->wan = true;
		out->wan_flows = d * n * f;
		out->wan_hops = d;
		return;
	}
	memset(load, 0, (nw + 1) * sizeof(load[0]));
	memset(diff, 0, (d + 1) * sizeof(diff[0]));
	if (fan == 0)
		shift_load(p, ring, stride, shift, load, diff, out);
	for (s = 1; s <= fan; s++)
		shift_load(p, ring, stride, s, load, diff, out);
	for (i = 0; p->topo.wan == SM_WAN_RING && i < d; i++) {
		run += diff[i];
		load[i] += (unsigned int)run;
	}
	for (i = 0; i < nw; i++)
		if (load[i] > out->wan_flows)
			out->wan_flows = load[i];
}

void
sm_round_load(const struct sm_params *p, unsigned int ring, unsigned int stride,
	      unsigned int shift, struct sm_round_load *out)
{
	round_load(p, ring, stride, shift, 0, out);
}

unsigned int
sm_tree_rounds(uint32_t w)
{
	unsigned int h = 0;

	while (w >= 2) {
		w /= 2;
		h++;
	}
	return h;
}

void
sm_tree_node(uint32_t w, unsigned int t, uint32_t rank, struct sm_tree_node *out)
{
	/* tree 1: rank r at position r - 1, so position q holds rank q + 1 */
	uint32_t pos = t == 0 ? rank : (rank + w - 1) % w, lo = 0, hi = w, mid, sh = t == 0 ? 0 : 1;
	int c;

	out->up = SM_TREE_NIL;
	out->depth = 0;
	for (;;) {
		mid = lo + (hi - lo) / 2;	/* the root of [lo, hi) */
		if (pos == mid)
			break;
		out->up = (mid + sh) % w;
		out->depth++;
		if (pos < mid)
			hi = mid;
		else
			lo = mid + 1;
	}
	/* a range of s positions is floor(log2 s) high: its left half is the larger */
	out->height = sm_tree_rounds(hi - lo);
	for (c = 0; c < 2; c++) {
		uint32_t a = c == 0 ? lo : mid + 1, b = c == 0 ? mid : hi;

		out->down[c] = a < b ? (a + (b - a) / 2 + sh) % w : SM_TREE_NIL;
		out->down_height[c] = a < b ? sm_tree_rounds(b - a) : 0;
	}
}

/* Whether a rank at level @h (height up, depth down) sends a chunk in round @k: chunk k - h. */
static bool
chunk_due(const struct sm_phase *ph, unsigned int k, unsigned int h)
{
	return k >= h && k - h < ph->chunks;
}

unsigned int
sm_phase_sends(const struct sm_phase *ph, unsigned int k, uint32_t w, uint32_t *dst,
	       uint8_t *tree)
{
	struct sm_tree_node nd;
	unsigned int n = 0, t, c;

	if (ph->fan) {
		for (n = 0; n + 1 < ph->ring && n < SM_SENDS_MAX; n++) {
			dst[n] = sm_ring_peer(w, ph->ring, ph->stride, n + 1, +1);
			if (tree != NULL)
				tree[n] = 0;
		}
		return n;
	}
	if (ph->tree == SM_TREE_NONE) {
		dst[0] = sm_ring_peer(w, ph->ring, ph->stride, sm_phase_shift(ph, k), +1);
		if (tree != NULL)
			tree[0] = 0;
		return 1;
	}
	for (t = 0; t < 2; t++) {
		sm_tree_node(ph->ring, t, w, &nd);
		if (ph->tree == SM_TREE_UP) {
			if (nd.up != SM_TREE_NIL && chunk_due(ph, k, nd.height)) {
				if (tree != NULL)
					tree[n] = (uint8_t)t;
				dst[n++] = nd.up;
			}
			continue;
		}
		for (c = 0; c < 2 && chunk_due(ph, k, nd.depth); c++) {
			if (nd.down[c] == SM_TREE_NIL)
				continue;
			if (tree != NULL)
				tree[n] = (uint8_t)t;
			dst[n++] = nd.down[c];
		}
	}
	return n;
}

unsigned int
sm_phase_sends_max(const struct sm_phase *ph)
{
	if (ph->fan)
		return ph->ring - 1 < SM_SENDS_MAX ? ph->ring - 1 : SM_SENDS_MAX;
	return ph->tree != SM_TREE_NONE ? SM_TREE_SENDS : 1;
}

unsigned int
sm_phase_ins(const struct sm_phase *ph, unsigned int k, uint32_t w)
{
	struct sm_tree_node nd;
	unsigned int n = 0, t, c;

	if (ph->fan)
		return sm_phase_sends_max(ph);
	if (ph->tree == SM_TREE_NONE)
		return 1;
	for (t = 0; t < 2; t++) {
		sm_tree_node(ph->ring, t, w, &nd);
		if (ph->tree == SM_TREE_DOWN) {
			n += nd.up != SM_TREE_NIL && chunk_due(ph, k, nd.depth - 1);
			continue;
		}
		for (c = 0; c < 2; c++)
			n += nd.down[c] != SM_TREE_NIL && chunk_due(ph, k, nd.down_height[c]);
	}
	return n;
}

/*
 * A tree round's load: the levels [lo, hi] send (a level: the ranks of one subtree height in a
 * reduce, of one depth in a broadcast), one pass over the workers' tree edges, O(W log W).
 */
static void
tree_edge(const struct sm_params *p, uint32_t w, uint32_t v, struct sm_round_load *ld,
	  unsigned int *load)
{
	unsigned int d = p->topo.n_dc, n = p->topo.per_dc, a = w / n, b = v / n, at = a, hops = 0;
	unsigned int from, j;

	ld->flows++;
	if (a == b) {
		ld->intra = true;
		ld->inside++;
		return;
	}
	ld->wan = true;
	while (at != b) {
		j = sm_wan_next(p->topo.wan, d, at, b);
		load[j]++;
		sm_wan_ends(p->topo.wan, d, j, &from, &at);
		hops++;
	}
	ld->link_hops += hops;
	if (hops > ld->wan_hops)
		ld->wan_hops = hops;
}

static bool
in_levels(unsigned int h, unsigned int lo, unsigned int hi)
{
	return h >= lo && h <= hi;
}

static int
tree_load(const struct sm_params *p, const struct sm_phase *ph, unsigned int lo, unsigned int hi,
	  struct sm_round_load *out)
{
	unsigned int nw = sm_wan_count(p->topo.wan, p->topo.n_dc), outc, inc, j, t, c, *load;
	struct sm_tree_node nd;
	uint32_t w;

	load = calloc(nw + 1, sizeof(*load));
	if (load == NULL)
		return -ENOMEM;
	memset(out, 0, sizeof(*out));
	for (w = 0; w < ph->ring; w++) {
		outc = inc = 0;
		for (t = 0; t < 2; t++) {
			sm_tree_node(ph->ring, t, w, &nd);
			if (ph->tree == SM_TREE_UP) {	/* up at its height, children's at theirs */
				if (nd.up != SM_TREE_NIL && in_levels(nd.height, lo, hi)) {
					tree_edge(p, w, nd.up, out, load);
					outc++;
				}
				for (c = 0; c < 2; c++)
					inc += nd.down[c] != SM_TREE_NIL &&
					       in_levels(nd.down_height[c], lo, hi);
				continue;
			}
			for (c = 0; c < 2 && in_levels(nd.depth, lo, hi); c++) {	/* down */
				if (nd.down[c] == SM_TREE_NIL)
					continue;
				tree_edge(p, w, nd.down[c], out, load);
				outc++;
			}
			inc += nd.up != SM_TREE_NIL && in_levels(nd.depth - 1, lo, hi);
		}
		if (outc > out->out_max)
			out->out_max = outc;
		if (inc > out->in_max)
			out->in_max = inc;
	}
	for (j = 0; j < nw; j++)
		if (load[j] > out->wan_flows)
			out->wan_flows = load[j];
	free(load);
	return 0;
}

/* Levels a tree has: floor(log2 W) <= 16 for the W a topology takes (64 x 1024); with more, a
 * round's load is computed every time it is asked for. */
#define TREE_LEVELS 17

static void
worst_round(const struct sm_params *p, const struct sm_phase *ph, struct sm_round_load *out)
{
	memset(out, 0, sizeof(*out));
	out->wan = p->topo.n_dc > 1;
	out->intra = true;
	out->wan_flows = out->flows = out->inside = 2 * ph->ring;
	out->wan_hops = p->topo.n_dc;
	out->out_max = SM_TREE_SENDS;
	out->in_max = SM_TREE_SENDS;
}

void
sm_phase_round_load(const struct sm_params *p, const struct sm_phase *ph, unsigned int k,
		    struct sm_round_load *out)
{
	/*
	 * The loads of a tree's level ranges [lo, hi], each computed when first asked for, for
	 * the last topology asked about (per thread): a pipelined tree's rounds take at most twice
	 * its height of ranges, a model's variants of other sizes a few more, and a bisection asks
	 * for the same again and again.
	 */
	static _Thread_local struct {
		unsigned int d, n, w;
		enum sm_wan_shape shape;
		bool known[2][TREE_LEVELS][TREE_LEVELS];
		struct sm_round_load ld[2][TREE_LEVELS][TREE_LEVELS];
	} tab;
	unsigned int h, lo, hi, dir;

	if (ph->fan) {
		round_load(p, ph->ring, ph->stride, 0, sm_phase_sends_max(ph), out);
		return;
	}
	if (ph->tree == SM_TREE_NONE) {
		sm_round_load(p, ph->ring, ph->stride, sm_phase_shift(ph, k), out);
		return;
	}
	h = sm_tree_rounds(ph->ring);	/* levels 0 .. h - 1 send */
	lo = k + 1 > ph->chunks ? k + 1 - ph->chunks : 0;
	hi = k < h - 1 ? k : h - 1;
	dir = ph->tree == SM_TREE_UP ? 0 : 1;
	if (h > TREE_LEVELS) {
		if (tree_load(p, ph, lo, hi, out) != 0)
			worst_round(p, ph, out);	/* out of memory */
		return;
	}
	if (tab.d != p->topo.n_dc || tab.n != p->topo.per_dc || tab.w != ph->ring ||
	    tab.shape != p->topo.wan) {
		memset(tab.known, 0, sizeof(tab.known));
		tab.d = p->topo.n_dc;
		tab.n = p->topo.per_dc;
		tab.w = ph->ring;
		tab.shape = p->topo.wan;
	}
	if (!tab.known[dir][lo][hi]) {
		if (tree_load(p, ph, lo, hi, out) != 0) {
			worst_round(p, ph, out);	/* out of memory: not kept */
			return;
		}
		tab.ld[dir][lo][hi] = *out;
		tab.known[dir][lo][hi] = true;
	}
	*out = tab.ld[dir][lo][hi];
}

struct phase_key {
	unsigned int d, n, ring, stride, rounds;
	enum sm_wan_shape shape;
	bool pairwise, back, fan;
	enum sm_tree_dir tree;
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
	key.back = ph->back;
	key.fan = ph->fan;
	key.tree = ph->tree;
	if (ph->tree != SM_TREE_NONE)
		key.rounds = ph->rounds;
	for (i = 0; i < PHASE_CACHE; i++)
		if (cache[i].used && memcmp(&cache[i].k, &key, sizeof(key)) == 0)
			goto found;
	memset(out, 0, sizeof(*out));
	rounds = key.rounds;
	for (k = 0; k < rounds; k++) {
		sm_phase_round_load(p, ph, k, &ld);
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
		if (ld.out_max > out->max_out)
			out->max_out = ld.out_max;
		if (ld.in_max > out->max_in)
			out->max_in = ld.in_max;
	}
	i = next++ % PHASE_CACHE;
	cache[i].k = key;
	cache[i].v = *out;
	cache[i].used = true;
found:
	*out = cache[i].v;
	if (!ph->pairwise && ph->tree == SM_TREE_NONE) {	/* every round the same */
		out->sum_flows *= ph->rounds;
		out->sum_hops *= ph->rounds;
		out->sum_flows_hops *= ph->rounds;
		out->inside *= ph->rounds;
		out->link_hops *= ph->rounds;
	}
}

static const char *const algo_names[SM_ALGO_COUNT] = {
	"auto", "ring", "hierarchical", "direct", "tree",
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

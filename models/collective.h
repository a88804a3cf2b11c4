/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Collectives as plans: the phases of a variant's sync on a topology.
 *
 * One plan serves both the fluid closed form (step.c sums its phases) and the packet data plane
 * (its workers run the same phases as frames), so the two cannot drift apart.
 */
#ifndef SM_COLLECTIVE_H
#define SM_COLLECTIVE_H

#include <stdbool.h>

#include <stdint.h>

#include "params.h"

/** Which hop a phase crosses. */
enum sm_hop {
	SM_HOP_INTRA,	/**< worker to worker inside a data centre */
	SM_HOP_WAN,	/**< worker to its peer in the next data centre */
	SM_HOP_MODULE,	/**< through the module's four stages */
};

/** What the receiver of a phase does with the bytes. */
enum sm_xfer {
	SM_XFER_REDUCE,	/**< reduce-scatter step: add to own and forward the sum */
	SM_XFER_GATHER,	/**< all-gather step: keep and forward */
	SM_XFER_DENSE,	/**< the dense gradient to a module in the network */
	SM_XFER_KERNEL,	/**< the module's stream (SM_HOP_MODULE) */
};

/**
 * The rounds of a double binary tree: none (a ring), a reduce to the roots, a broadcast.  Each
 * tree pipelines its half of the data in @c chunks chunks: in round k a rank sends chunk k - h,
 * where h is its subtree's height (reduce: up to its parent, once its children's are in) or its
 * depth (broadcast: down to its children, once its parent's is in).
 */
enum sm_tree_dir {
	SM_TREE_NONE,
	SM_TREE_UP,
	SM_TREE_DOWN,
};

/** A tree pipelines its half of B in chunks of at most this many bytes ... */
#define SM_TREE_CHUNK (1u << 20)
/** ... and at most this many (the rounds of a step fit a frame's 16-bit round). */
#define SM_TREE_CHUNKS_MAX 16384u

/**
 * One phase: @c rounds rounds; in each, every worker sends @c bytes to its ring neighbour and
 * waits for the same from the other side.  @c flows workers' flows share one link (the WAN
 * phases of a hierarchical collective put a data centre's workers on one WAN link).  A round
 * takes max(flows * bytes / bw, bytes / cap) + latency.
 */
struct sm_phase {
	const char *what;	/**< static description */
	enum sm_hop hop;
	enum sm_xfer xfer;
	unsigned int rounds;
	double bytes;		/**< per worker per round */
	unsigned int flows;	/**< flows sharing one link in a round */
	double cap;		/**< per-flow rate cap, B/s (the module port); 0 = none */
	unsigned int ring;	/**< ring size: peers exchange within rings of this many */
	unsigned int stride;	/**< worker-index distance to the ring neighbour */
	bool pairwise;		/**< round k (from 0) sends k + 1 places on around the ring (a
				 *   pairwise exchange); else every round one place on */
	bool back;		/**< every round sends ring - 1 places on: to the worker a ring
				 *   round receives from (a library's ready messages) */
	enum sm_tree_dir tree;	/**< not a ring: rounds of the double binary tree over the
				 *   @c ring workers (sm_phase_sends()); @c bytes per chunk */
	unsigned int chunks;	/**< a tree's chunks: rounds = chunks + height - 1 */
	bool fan;		/**< one round in which every worker sends @c bytes to each of the
				 *   @c ring - 1 others of its ring at once (a direct exchange
				 *   posted as a library posts it): its flows' frames interleave on
				 *   its first hop, one frame of each in turn (sm_phase_sends()) */
	uint8_t bucket;		/**< a library's all-reduce of one DDP bucket: which (from 0);
				 *   the worker may run buckets' phases at once (job.threads) */
};

#define SM_PHASES_MAX 64

/**
 * The worker that @p w sends to (@p dir = +1) or receives from (-1) in rings of @p ring workers
 * @p stride apart, @p shift places on around its ring.
 */
static inline uint32_t
sm_ring_peer(uint32_t w, uint32_t ring, uint32_t stride, uint32_t shift, int dir)
{
	uint32_t pos = (w / stride) % ring;
	uint32_t base = w - pos * stride;

	pos = dir > 0 ? (pos + shift) % ring : (pos + ring - shift % ring) % ring;
	return base + pos * stride;
}

/** How far on around its ring round @p k of phase @p ph sends. */
static inline unsigned int
sm_phase_shift(const struct sm_phase *ph, unsigned int k)
{
	if (ph->back)
		return ph->ring - 1;
	return ph->pairwise ? k + 1 : 1;
}

/** A variant's sync on a topology. */
struct sm_plan {
	enum sm_variant var;
	unsigned int n;
	struct sm_phase ph[SM_PHASES_MAX];
	unsigned int n_modules;		/**< modules in the topology (one per worker for E, E') */
	enum sm_placement placement;	/**< where they sit */
	double module_bytes_in;		/**< bytes each module streams per step */
};

/**
 * Build the plan of variant @p v (reference-model.md section 2.3-2.4):
 *   1 DC x W (D = 1): flat rings over the intra-DC link;
 *   D DC x 1 (N = 1): flat rings over the WAN;
 *   D DC x N: hierarchical.  All-reduce of B: reduce-scatter in the DC (N-1 rounds of B/N), a
 *     D-rank ring all-reduce of each shard across data centres (2(D-1) rounds of B/(N D), N flows
 *     per WAN link), all-gather in the DC.  All-gather of p: ring all-gather in the DC (N-1 rounds
 *     of p), ring across data centres (D-1 rounds of p, N flows per WAN link), ring all-gather of
 *     the (D-1) p received (N-1 rounds).
 * Variants: A all-reduce of 2P; B, C all-gather of their payload; E the module (2P in), then the
 * all-gather with every flow capped by the module port; C' all-reduce of the band; E' the dense 2P
 * over one intra-DC hop to the module, the module, then C''s all-reduce.
 */
void sm_plan_build(const struct sm_params *p, enum sm_variant v, struct sm_plan *plan);

/**
 * What one round puts on the links: each worker sends to the worker @p shift places on around
 * its ring (@p ring, @p stride, as struct sm_phase), routed over the WAN shape.
 */
struct sm_round_load {
	bool intra;		/**< some flow stays inside its DC */
	bool wan;		/**< some flow crosses the WAN */
	unsigned int wan_flows;	/**< the most flows on one WAN link */
	unsigned int wan_hops;	/**< the most WAN links on one flow's path */
	unsigned int inside;	/**< flows that stay inside their DC */
	unsigned int link_hops;	/**< WAN links crossed, summed over the flows */
	unsigned int out_max;	/**< the most flows one worker sends (1 in a ring round) */
	unsigned int in_max;	/**< the most flows one worker receives */
	unsigned int flows;	/**< flows in the round, over all workers */
};

/** The load of a round (D flows per DC pair, a difference array over ring WANs: O(D)). */
void sm_round_load(const struct sm_params *p, unsigned int ring, unsigned int stride,
		   unsigned int shift, struct sm_round_load *out);

/** The load of round @p k of phase @p ph: a ring's (sm_round_load()) or a tree's. */
void sm_phase_round_load(const struct sm_params *p, const struct sm_phase *ph, unsigned int k,
			 struct sm_round_load *out);

/** No rank (a root's parent, a missing child). */
#define SM_TREE_NIL UINT32_MAX

/**
 * A rank's place in tree @c t (0 or 1) of the double binary tree over @c w ranks.  Tree 0 is the
 * balanced in-order tree of positions 0 .. w - 1 (a range's root is its middle, floor((lo + hi)
 * / 2), its halves the subtrees); rank r sits at position r.  Tree 1 is the same tree with every
 * rank one place on (rank r at position r - 1 mod w), so that most ranks that are leaves in one
 * tree are inner nodes in the other, and each carries half of the data.
 */
struct sm_tree_node {
	uint32_t up;		/**< parent rank, SM_TREE_NIL at the root */
	uint32_t down[2];	/**< children, SM_TREE_NIL where none */
	uint32_t down_height[2];
	uint32_t height;	/**< of its subtree: 0 for a leaf */
	uint32_t depth;		/**< 0 at the root */
};

void sm_tree_node(uint32_t w, unsigned int t, uint32_t rank, struct sm_tree_node *out);

/** A tree's reduce (and broadcast) rounds over @p w ranks: floor(log2 w), 0 below 2. */
unsigned int sm_tree_rounds(uint32_t w);

/** The most flows a worker sends in a tree's round: a broadcast, two children in each tree. */
#define SM_TREE_SENDS 4
/** The most flows a worker sends in any round: a fan's ring - 1 peers, D - 1 <= 63. */
#define SM_SENDS_MAX 63

/**
 * Whom worker @p w sends to in round @p k of phase @p ph, in the order it sends: one ring peer;
 * in a fan every other worker of its ring, 1, 2, ... places on (their frames interleaved); in a
 * tree's reduce its parent in each tree where it has a chunk to send up (tree 0 first); in
 * a broadcast its children in each tree where it has a chunk to send down.  Sets @p tree[i] (if not NULL) to the
 * tree of each (0 in a ring or a fan).  Returns how many (0 .. SM_SENDS_MAX).
 */
unsigned int sm_phase_sends(const struct sm_phase *ph, unsigned int k, uint32_t w,
			    uint32_t *dst, uint8_t *tree);

/** The most flows a worker sends in a round of @p ph: 1 on a ring, a tree's, a fan's. */
unsigned int sm_phase_sends_max(const struct sm_phase *ph);

/** How many flows worker @p w receives in round @p k of phase @p ph (each of ph->bytes). */
unsigned int sm_phase_ins(const struct sm_phase *ph, unsigned int k, uint32_t w);

/** A phase's rounds' loads, summed over its rounds (every round the same unless pairwise). */
struct sm_phase_load {
	double sum_flows;	/**< sum of each round's wan_flows */
	double sum_hops;	/**< sum of each round's wan_hops */
	double sum_flows_hops;	/**< sum of wan_flows x wan_hops */
	unsigned int max_flows, max_hops;
	bool intra, wan;	/**< some round has a flow inside a DC / across the WAN */
	double inside;		/**< flows inside a DC, summed over the rounds */
	double link_hops;	/**< WAN links crossed by the flows, summed over the rounds */
	unsigned int max_out, max_in;	/**< the most flows a worker sends, receives in a round */
};

/**
 * The loads of @p ph's rounds.  A pairwise phase of R rounds costs O(R D) the first time; the
 * last few results are kept (per thread), as a sweep or a bisection asks again and again.
 */
void sm_phase_load(const struct sm_params *p, const struct sm_phase *ph,
		   struct sm_phase_load *out);

/**
 * The WAN links of @p shape between @p d data centres, in a fixed order (the data plane creates
 * them in it):
 *   ring: link i from DC i to DC i + 1 (mod d);
 *   mesh: from DC a to DC b != a at a (d - 1) + (b < a ? b : b - 1);
 *   star: link i < d from DC i to the core (node d), link d + i from the core to DC i.
 * With d = 1 there is none.
 */
unsigned int sm_wan_count(enum sm_wan_shape shape, unsigned int d);

/** The ends of WAN link @p i: DC indices, the core being @p d. */
void sm_wan_ends(enum sm_wan_shape shape, unsigned int d, unsigned int i, unsigned int *from,
		 unsigned int *to);

/** The WAN link a frame at node @p at (a DC, or the core @p d) takes towards DC @p dst != at. */
unsigned int sm_wan_next(enum sm_wan_shape shape, unsigned int d, unsigned int at,
			 unsigned int dst);

/** WAN links on the path from DC @p a to DC @p b (0 if a == b). */
unsigned int sm_wan_hops(enum sm_wan_shape shape, unsigned int d, unsigned int a,
			 unsigned int b);

/**
 * A WAN link's delay: the WAN's latency less the intra-DC latency (@p wan_delay), whole on a ring
 * or mesh link, halved on a star's (the link into the core gets the smaller half).
 */
uint64_t sm_wan_link_delay(enum sm_wan_shape shape, unsigned int d, unsigned int i,
			   uint64_t wan_delay);

/**
 * Append a ring phase to @p plan (see struct sm_phase; @p rounds of @p bytes to the worker one
 * place on in rings of @p ring workers @p stride apart, charged to @p hop).  NULL, and nothing
 * added, when @p rounds is 0 or the plan is full.
 */
struct sm_phase *sm_plan_add(struct sm_plan *plan, const char *what, enum sm_hop hop,
			     enum sm_xfer xfer, unsigned int rounds, double bytes,
			     unsigned int ring, unsigned int stride);

/** The algorithm @p p's collectives run with (SM_ALGO_AUTO resolved). */
enum sm_algo sm_plan_algo(const struct sm_params *p);

/**
 * Whether @p p's direct collective sends to its D - 1 DC peers in one round (job.direct,
 * SM_DIRECT_AUTO resolved: at once on a mesh WAN); false for any other algorithm and D <= 2.
 */
bool sm_plan_direct_fan(const struct sm_params *p);

/** A direct collective's way across DCs, for a header: "concurrent", "rounds", or "" if none. */
const char *sm_plan_direct_name(const struct sm_params *p);

const char *sm_algo_name(enum sm_algo a);
const char *sm_opkind_name(enum sm_opkind o);
const char *sm_wan_shape_name(enum sm_wan_shape s);

/**
 * Bytes a worker puts on @p hop's links per step, on average over the workers: a flow that stays
 * inside its DC counts on SM_HOP_INTRA, one that crosses the WAN once per WAN link it crosses on
 * SM_HOP_WAN (its NIC and down link not counted, as the deck counts a WAN round), a module's
 * stream on SM_HOP_MODULE, E''s dense gradient on SM_HOP_INTRA.
 */
double sm_plan_bytes(const struct sm_params *p, const struct sm_plan *plan, enum sm_hop hop);

const char *sm_hop_name(enum sm_hop h);

#endif /* SM_COLLECTIVE_H */

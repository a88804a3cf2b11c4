/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Collectives as plans: the phases of a variant's sync on a topology.
 *
 * One plan serves both the fluid closed form (step.c sums its phases) and the packet data plane
 * (its workers run the same phases as frames), so the two cannot drift apart.
 */
#ifndef SM_COLLECTIVE_H
#define SM_COLLECTIVE_H

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
};

#define SM_PHASES_MAX 8

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

/** Bytes each worker sends on @p hop per step. */
double sm_plan_bytes(const struct sm_plan *plan, enum sm_hop hop);

const char *sm_hop_name(enum sm_hop h);

#endif /* SM_COLLECTIVE_H */

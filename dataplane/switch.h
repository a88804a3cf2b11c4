/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A data centre's switch: forwards each frame to the output queue of its destination.
 */
#ifndef DP_SWITCH_H
#define DP_SWITCH_H

#include <rte_common.h>

#include "engine.h"

/**
 * A switch: an output per local worker, per local module, and per other data centre (the WAN
 * link its frames take first: on a ring of DCs the same for all, on a mesh one each, on a star
 * the link to the core).  The core of a star is a switch too, of no DC (dc = n_dc), whose
 * outputs are all WAN links.
 */
struct dp_switch {
	struct dp_elem e;
	uint32_t dc, per_dc, n_workers, n_dc;
	struct dp_elem **to_worker;	/**< [per_dc]: the down link of each local worker */
	struct dp_elem **to_module;	/**< [per_dc]: the link to each local module, or NULL */
	struct dp_elem **to_dc;		/**< [n_dc]: the WAN link towards each DC, or NULL */
	struct dp_elem *to_sink;	/**< the local background sink, or NULL */
	struct dp_elem *to_bulk;	/**< the link to the local bulk host, or NULL */
	uint64_t no_route;		/**< frames with nowhere to go (dropped) */
} __rte_cache_aligned;

/** Set up a switch with empty outputs; 0, -ENOMEM or -ENOSPC. */
int dp_switch_init(struct dp_switch *s, struct dp_engine *eng, const char *name, uint32_t dc,
		   uint32_t per_dc, uint32_t n_workers, uint32_t n_dc);

void dp_switch_fini(struct dp_switch *s);

#endif /* DP_SWITCH_H */

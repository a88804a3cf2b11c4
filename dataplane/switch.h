/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A data centre's switch: forwards each frame to the output queue of its destination.
 */
#ifndef DP_SWITCH_H
#define DP_SWITCH_H

#include "engine.h"

/** A switch: an output per local worker, per local module, and one towards the next DC. */
struct dp_switch {
	struct dp_elem e;
	uint32_t dc, per_dc, n_workers;
	struct dp_elem **to_worker;	/**< [n_workers]: the down link of each local worker */
	struct dp_elem **to_module;	/**< [n_workers]: the link to each local module, or NULL */
	struct dp_elem *to_wan;		/**< the WAN link to the next data centre, or NULL */
	struct dp_elem *to_sink;	/**< the local background sink, or NULL */
	uint64_t no_route;		/**< frames with nowhere to go (dropped) */
};

/** Set up a switch with empty outputs; 0, -ENOMEM or -ENOSPC. */
int dp_switch_init(struct dp_switch *s, struct dp_engine *eng, const char *name, uint32_t dc,
		   uint32_t per_dc, uint32_t n_workers);

void dp_switch_fini(struct dp_switch *s);

#endif /* DP_SWITCH_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The far end of a bridge's WAN (bridge.h): a frame that crossed goes out through the port if it
 * is a real one; a background frame, made inside, ends in the background sink (its transfer's
 * completion time measured), and also goes out through the port if the bridge emits background.
 */
#ifndef DP_BRIDGE_OUT_H
#define DP_BRIDGE_OUT_H

#include <stdbool.h>

#include <rte_common.h>

#include "engine.h"

struct dp_bridge_out {
	struct dp_elem e;
	struct dp_elem *port;		/**< the port the real frames leave by */
	struct dp_elem *sink;		/**< background frames end here */
	bool emit_bg;			/**< background frames leave by the port too */
	uint64_t bg_emitted;		/**< background frames sent out */
} __rte_cache_aligned;

/** Set up the far end of a direction; 0, -EINVAL or -ENOSPC. */
int dp_bridge_out_init(struct dp_bridge_out *o, struct dp_engine *eng, const char *name,
		       struct dp_elem *port, struct dp_elem *sink, bool emit_bg);

#endif /* DP_BRIDGE_OUT_H */

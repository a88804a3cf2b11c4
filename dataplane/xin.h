/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A cut link's far end: where a link whose two ends are in different partitions delivers.
 *
 * The link itself (its queue, serialiser and captures) runs in the partition of what feeds it;
 * when it queues a frame it knows the frame's arrival, and hands the frame over with that time
 * (parallel.h).  The far end, in the partition of what the link leads to, holds the frames in
 * order and delivers each at its arrival, in an event that carries the link's own id (gid) so
 * that it keeps the link's place among the events of that picosecond.  Its events are not
 * counted: the link counts its own.
 */
#ifndef DP_XIN_H
#define DP_XIN_H

#include <rte_common.h>

#include "engine.h"
#include "frame.h"

struct dp_xin_slot {
	struct dp_pkt p;
	dp_time_t arrive;
};

struct dp_xin {
	struct dp_elem e;
	struct dp_elem *next;		/**< where the link leads */
	struct dp_xin_slot *ring;	/**< in order of arrival; a power-of-two ring */
	uint32_t mask, head, tail;
} __rte_cache_aligned;

/** Set up the far end of the link of id @p gid, in @p eng: 0 or -errno. */
int dp_xin_init(struct dp_xin *x, struct dp_engine *eng, const char *name, uint32_t gid,
		struct dp_elem *next);

/** A frame handed over, to arrive at @p arrive (not before the last one): 0 or -ENOMEM. */
int dp_xin_put(struct dp_xin *x, const struct dp_pkt *p, dp_time_t arrive);

/** Free its ring and the frames still in it. */
void dp_xin_fini(struct dp_xin *x);

extern const struct dp_elem_ops dp_xin_ops;

#endif /* DP_XIN_H */

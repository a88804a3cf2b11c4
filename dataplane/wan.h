/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The WAN: a link from one data centre's switch to the next one's.
 */
#ifndef DP_WAN_H
#define DP_WAN_H

#include "link.h"

/**
 * Set up @p l as the WAN link from switch @p from_dc to the switch @p next: the WAN rate and the
 * WAN's own propagation delay (the model's WAN latency less the intra-DC path's, see
 * sm_links_build()), with a deep drop-tail queue shared by every flow that crosses it.
 */
int dp_wan_init(struct dp_link *l, struct dp_engine *eng, const char *name, uint64_t rate,
		dp_time_t delay, uint64_t cap_bytes, enum sm_account account, struct dp_elem *next,
		int cap_in, int cap_out);

#endif /* DP_WAN_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The WAN element: the link between data centre switches.  The sync's WAN rounds put a data
 * centre's workers' flows into its one FIFO, served in order of arrival.
 */
#include "wan.h"

int
dp_wan_init(struct dp_link *l, struct dp_engine *eng, const char *name, uint64_t rate,
	    dp_time_t delay, uint64_t cap_bytes, enum sm_account account, struct dp_elem *next,
	    int cap_in, int cap_out)
{
	struct dp_link_params p = {
		.name = name,
		.bw = rate,
		.delay = delay,
		.cap_bytes = cap_bytes,
		.account = account,
		.next = next,
		.cap_in = cap_in,
		.cap_out = cap_out,
	};

	int rc = dp_link_init(l, eng, &p);

	/* each frame's wait in the WAN queue, by class: what a shared WAN costs the sync */
	if (rc == 0 && (rc = dp_link_wait_on(l)) != 0)
		dp_link_fini(l);
	return rc;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The port cap element: a link of its own, at the module port's rate, with no delay.
 */
#include "portcap.h"

int
dp_portcap_init(struct dp_link *l, struct dp_engine *eng, const char *name, uint64_t rate,
		uint64_t cap_bytes, enum sm_account account, struct dp_link *nic, int cap_in,
		int cap_out)
{
	struct dp_link_params p = {
		.name = name,
		.bw = rate,
		.delay = 0,
		.cap_bytes = cap_bytes,
		.account = account,
		.next = &nic->e,
		.cap_in = cap_in,
		.cap_out = cap_out,
	};

	return dp_link_init(l, eng, &p);
}

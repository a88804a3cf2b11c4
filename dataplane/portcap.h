/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A port cap: a pluggable module's port (QSFP56, 25 GB/s) in front of a faster host port.
 */
#ifndef DP_PORTCAP_H
#define DP_PORTCAP_H

#include "link.h"

/**
 * Set up @p l as the port cap of a worker: a serialiser at @p rate with no propagation delay,
 * feeding the worker's NIC @p nic.  The worker's flows through the pluggable are capped at the
 * port's rate, as the model caps them (reference model section 2.3, "Pluggable").
 */
int dp_portcap_init(struct dp_link *l, struct dp_engine *eng, const char *name, uint64_t rate,
		    uint64_t cap_bytes, enum sm_account account, struct dp_link *nic, int cap_in,
		    int cap_out);

#endif /* DP_PORTCAP_H */

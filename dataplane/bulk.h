/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bulk TCP flows beside the sync (background.bulk): a host in each data centre whose flows to
 * the next data centre's host are always backlogged, as iperf3's are, over TCP (tcp.h) with the
 * job's TCP settings ([transport]).  They share the WAN queue with the sync and back off from
 * its losses as the sync's own TCP does.  The host at the far end receives and acknowledges.
 */
#ifndef DP_BULK_H
#define DP_BULK_H

#include <stdint.h>

#include "tcp.h"

/** Flows per host at most (a connection's wire id: host x DP_BULK_FLOWS_MAX + flow). */
#define DP_BULK_FLOWS_MAX 64u

struct dp_bulk_params {
	const char *name;
	uint32_t dc, to;		/**< its data centre; the one its flows go to */
	uint32_t flows;			/**< 0: it only receives */
	uint32_t per_dc;
	const struct sm_tcp_conf *conf;
	uint32_t mss, burst;
	struct dp_link *nic;		/**< its access link */
	int cap_tx, cap_rx;
};

/** A bulk host: its TCP and its flows. */
struct dp_bulk {
	struct dp_tcp tcp;
	uint32_t to, flows;
	uint64_t chunk;			/**< bytes written to a flow at a time */
	struct dp_link *nic;
};

int dp_bulk_init(struct dp_bulk *b, struct dp_engine *eng, const struct dp_bulk_params *p);

/** Its flows start sending at @p now. */
void dp_bulk_start(struct dp_bulk *b, dp_time_t now);

/** The sync is done: nothing more is written (what is in flight is delivered). */
void dp_bulk_stop(struct dp_bulk *b);

void dp_bulk_fini(struct dp_bulk *b);

#endif /* DP_BULK_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bulk TCP flows beside the sync (background.bulk): a host in each data centre whose flows to
 * the next data centre's host are always backlogged, as iperf3's are, over TCP (tcp.h) with the
 * job's TCP settings ([transport]).  They share the WAN queue with the sync and back off from
 * its losses as the sync's own TCP does.  The host at the far end receives and acknowledges.
 * The same host carries background.load's transfers when they go over TCP: each written to one
 * of a pool of connections, its completion time taken when the far host has its last byte.
 */
#ifndef DP_BULK_H
#define DP_BULK_H

#include <stdint.h>

#include "bghost.h"
#include "tcp.h"

/** Flows per host at most (a connection's wire id: host x DP_BULK_FLOWS_MAX + flow). */
#define DP_BULK_FLOWS_MAX 64u

/** A transfer on a connection: where it lies in the stream, when it began. */
struct dp_bulk_xfer {
	uint64_t start, end;
	dp_time_t created, first;	/**< first: its first byte at the far host (or DP_NEVER) */
};

/** A connection of the transfers' pool: its transfers in order, and the bytes delivered. */
struct dp_bulk_conn {
	struct dp_bulk_xfer *q;		/**< a ring of qmask + 1 */
	uint32_t qmask, qhead, qtail;
	uint64_t written, got;
};

struct dp_bulk_params {
	const char *name;
	uint32_t dc, to;		/**< its data centre; the one its flows go to */
	uint32_t flows;			/**< 0: it only receives */
	uint32_t conns;			/**< the transfers' connections at most (0: no transfers) */
	struct dp_bgstats *stats;	/**< where its transfers' completions are counted */
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
	/* transfers: connections flows .. flows + conns - 1, n_open of them used so far */
	struct dp_bulk_conn *conn;
	uint32_t conns, n_open;
	bool stopped;
	struct dp_bgstats *stats;
	struct dp_bulk *from;		/**< the host whose flows end here (set by its builder) */
};

int dp_bulk_init(struct dp_bulk *b, struct dp_engine *eng, const struct dp_bulk_params *p);

/** Its flows start sending at @p now. */
void dp_bulk_start(struct dp_bulk *b, dp_time_t now);

/**
 * A transfer of @p bytes begins at @p now: written to an idle connection of the pool, or to a new
 * one while fewer than its conns are open, else behind the least loaded; 0 or -ENOMEM.
 */
int dp_bulk_xfer(struct dp_bulk *b, uint64_t bytes, dp_time_t now);

/**
 * The sync is done: nothing more is written (what is in flight is delivered); transfers not yet
 * complete are counted unsent.
 */
void dp_bulk_stop(struct dp_bulk *b);

void dp_bulk_fini(struct dp_bulk *b);

#endif /* DP_BULK_H */

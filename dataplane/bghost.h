/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Background traffic on a shared WAN: a host in one data centre that sends transfers to a sink in
 * the next one (Poisson arrivals, sizes from a distribution), and the sink that takes them.
 */
#ifndef DP_BGHOST_H
#define DP_BGHOST_H

#include <rte_common.h>

#include "../models/packet.h"
#include "../models/queueing.h"
#include "../models/rng.h"
#include "engine.h"
#include "frame.h"

struct dp_link;
struct dp_bulk;

/** What a sink measures of the background transfers it took. */
struct dp_bgstats {
	uint64_t started;		/**< transfers the hosts began sending */
	uint64_t unsent;		/**< transfers not yet sent when the run ended */
	uint64_t done;			/**< transfers whose last frame arrived */
	uint64_t incomplete;		/**< transfers that lost frames (drop-tail) */
	uint64_t frames, bytes;		/**< background frames and payload received */
	double *fct;			/**< [done]: completion times, s (creation to last frame) */
	double *wait;			/**< [done]: waits for the WAN, s (see dp_sink) */
	uint64_t cap;
	/** If set, each transfer goes here as it completes and fct, wait stay NULL: 0 or
	 *  -ENOMEM (the run then fails). */
	int (*on_done)(void *arg, double fct, double wait);
	void *arg;
};

/** A transfer done: to @c on_done, or kept; 0 or -ENOMEM. */
int dp_bgstats_add(struct dp_bgstats *st, double fct, double wait);

/** Configuration of a background host. */
struct dp_bghost_params {
	const char *name;
	uint32_t id;			/**< host index (its data centre) */
	uint32_t dst_first;		/**< first worker index of the sink's data centre */
	uint32_t per_dc;
	uint32_t run_id;
	double rate;			/**< transfers per second (Poisson) */
	const struct sm_size_dist *sizes;
	uint64_t seed;
	uint32_t payload;		/**< bytes per full frame */
	uint32_t burst;			/**< frames queued ahead on its link */
	struct dp_link *link;		/**< its access link to the switch */
	struct dp_bgstats *stats;
	struct dp_bulk *tcp;		/**< non-NULL: each transfer goes over this host's TCP */
	int cap_tx;
};

struct dp_bgxfer {
	uint64_t id;
	uint64_t bytes;
	dp_time_t created;
};

/** A background host. */
struct dp_bghost {
	struct dp_elem e;
	uint32_t id, dst_first, per_dc, run_id, payload, burst;
	double mean_gap_ps;		/**< mean time between arrivals, ps */
	const struct sm_size_dist *sizes;
	struct sm_rng rng;
	struct dp_link *link;
	struct dp_bgstats *stats;
	struct dp_bulk *tcp;
	int cap_tx;
	bool stopped;			/**< no new transfers, no more frames */
	dp_time_t next_arrival;
	dp_time_t rearm;		/**< when to queue the next burst (DP_NEVER: idle) */
	/* transfers waiting or being sent, in order of arrival */
	struct dp_bgxfer *q;
	uint32_t qmask, qhead, qtail;
	uint64_t off;			/**< bytes of the head transfer queued so far */
	uint32_t seq;
	uint64_t next_id;
	struct dp_flow flow;		/**< the headers of transfer flow_xfer's frames */
	uint64_t flow_xfer;		/**< UINT64_MAX: none made yet */
} __rte_cache_aligned;

/** Set up a host; it starts at the engine's time when dp_bghost_start() is called. */
int dp_bghost_init(struct dp_bghost *h, struct dp_engine *eng, const struct dp_bghost_params *p);
void dp_bghost_start(struct dp_bghost *h, dp_time_t now);
/**
 * A new arrival rate (transfers per second; 0: none) from @p now: the next arrival already drawn
 * stands; with none pending, one is drawn from @p now.
 */
void dp_bghost_set_rate(struct dp_bghost *h, double rate, dp_time_t now);
/** Stop: no new transfers; what is not yet made into frames is counted as unsent. */
void dp_bghost_stop(struct dp_bghost *h);
void dp_bghost_fini(struct dp_bghost *h);

/**
 * A sink: background frames end here.  A transfer's wait for the WAN is the time its first frame
 * took from creation to the WAN link's far end, less that frame's serialisation on the host link
 * and on the WAN and their delays: the queueing it met (at its host and at the WAN), which is the
 * wait of an M/G/1 queue at the WAN when the host link is faster than the WAN.
 */
struct dp_sink {
	struct dp_elem e;
	struct dp_bgstats *stats;
	uint64_t host_bw, wan_bw;	/**< to take the first frame's own times off */
	dp_time_t host_delay, wan_delay;
	enum sm_account account;
	uint64_t cur_id;		/**< the transfer in progress (one source, in order) */
	uint64_t cur_bytes;		/**< its bytes so far; UINT64_MAX if it lost frames */
	dp_time_t wait_first;		/**< its first frame's wait */
	bool cur_open;
	int cap_rx;
} __rte_cache_aligned;

int dp_sink_init(struct dp_sink *s, struct dp_engine *eng, const char *name,
		 struct dp_bgstats *stats, uint64_t host_bw, dp_time_t host_delay, uint64_t wan_bw,
		 dp_time_t wan_delay, enum sm_account account, int cap_rx);

void dp_bgstats_free(struct dp_bgstats *st);

#endif /* DP_BGHOST_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A probe: samples the queues of chosen links at a fixed interval of virtual time, for the WAN
 * queue's occupancy over time.  With dp_probe.on_sample set (what syncemu run does) every sample
 * goes there as it is taken and none is kept, however long the run.  Without, it keeps them, at
 * most DP_PROBE_MEM bytes: a run long enough to take more keeps every other sample and samples
 * half as often from then on, so the series stays evenly spaced (and bounded) for a caller that
 * reads them at the end.
 */
#ifndef DP_PROBE_H
#define DP_PROBE_H

#include <rte_common.h>

#include "engine.h"

struct dp_link;

#define DP_PROBE_LINKS 16
#define DP_PROBE_MEM (UINT64_C(128) << 20)	/**< bytes of samples kept at most */

struct dp_probe {
	struct dp_elem e;
	dp_time_t every;			/**< sampling interval (doubles as it thins) */
	uint64_t max;				/**< samples kept at most (even) */
	uint32_t nlinks;
	struct dp_link *links[DP_PROBE_LINKS];
	uint64_t n, cap;			/**< samples taken */
	uint64_t taken;				/**< samples taken, all (n is thinned) */
	dp_time_t *t;				/**< [n] sample times */
	uint64_t *bytes;			/**< [n x nlinks] frame bytes queued */
	bool stopped;
	/** If set: each sample goes here (the links' frame bytes and names), none is kept. */
	void (*on_sample)(void *arg, dp_time_t t, const uint64_t *bytes,
			  const char *const *names, uint32_t nlinks);
	void *arg;
	const char *names[DP_PROBE_LINKS];
} __rte_cache_aligned;

/** Set up a probe of @p nlinks links every @p every ps; 0 or -errno. */
int dp_probe_init(struct dp_probe *p, struct dp_engine *eng, const char *name, dp_time_t every,
		  struct dp_link *const *links, uint32_t nlinks);
void dp_probe_start(struct dp_probe *p, dp_time_t now);
void dp_probe_stop(struct dp_probe *p);
void dp_probe_fini(struct dp_probe *p);

/**
 * The fast-forward (ffwd.h): the samples due before @p until, each link's bytes at t from
 * @p read (link i of the probe's), as its events would have taken them; then its next event.
 * 0, or -EAGAIN (nothing taken) if @p read cannot give one of them (-1).
 */
int dp_probe_replay(struct dp_probe *p, dp_time_t until,
		    int64_t (*read)(void *arg, uint32_t link, dp_time_t t), void *arg);

#endif /* DP_PROBE_H */

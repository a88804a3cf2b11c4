/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The barrier element: the workers' phase or step barrier, and the end of the sync.
 *
 * A barrier releases its workers in an event of its own at the time the last of them arrived,
 * after every other event of that picosecond: it is the last element added to a graph, so its
 * id is the largest.  The same element says when every worker has finished its last step, in an
 * event at that time too: the background hosts and the probe stop there (dp_barrier.finish).
 * Being an event at the end of its picosecond, and not a call inside the last worker's event,
 * the release happens at the same place in the order of events however the graph is cut into
 * partitions (parallel.h): each partition has a copy of the element for its own workers, and the
 * partitions' copies fire at the time the last of all the workers arrived.
 *
 * Split over processes (real time, one set of data centres each), @c need counts the workers here
 * and @c peers the other processes: when the workers here are all in, @c arrived tells the peers
 * (rt.c) and the barrier waits for each peer's word (dp_barrier_peer()); the last of these
 * releases the workers here.
 */
#ifndef DP_BARRIER_H
#define DP_BARRIER_H

#include "engine.h"

struct dp_barrier {
	struct dp_elem e;
	uint32_t need, count;		/**< workers here, and those in */
	uint32_t fin;			/**< workers here done with their last step */
	uint32_t generation;		/**< releases so far */
	dp_time_t latest;		/**< the latest arrival (run.fast_forward = steady: the
					 *   last to arrive may have come at an earlier time) */
	const uint32_t *who;		/**< [need]: the workers here (indices of the graph) */
	/** Worker @p w (of the graph) is released at @p now. */
	void (*release)(void *arg, uint32_t w, dp_time_t now);
	/** Every worker is done (all partitions, all processes' own): stop what runs beside. */
	void (*finish)(void *finish_arg, dp_time_t now);
	void *arg, *finish_arg;
	bool rel_due, fin_due;		/**< the event releases, finishes */
	bool finished;
	/* cut into partitions: the workers here are all in; the partitions' runner fires it */
	void (*local_done)(void *arg, dp_time_t now);
	void *local_arg;
	/* split over processes */
	uint32_t peers;					/**< other processes; 0: none */
	void (*arrived)(void *arg, uint32_t generation, dp_time_t now);
	void *peer_arg;
	bool here_done;					/**< all workers here are in */
	uint32_t peer_count[2];				/**< peers in, by generation parity */
};

/** Set up a barrier for @p need workers (listed in @p who) in @p eng: 0 or -errno. */
int dp_barrier_init(struct dp_barrier *b, struct dp_engine *eng, const char *name,
		    uint32_t need, const uint32_t *who);

/** Arrive at the barrier; the last arrival has the barrier's event release everyone. */
void dp_barrier_arrive(struct dp_barrier *b, dp_time_t now);

/** A worker has finished its last step; the last has the barrier's event call @c finish. */
void dp_barrier_finish(struct dp_barrier *b, dp_time_t now);

/**
 * The barrier's event at @p t: a release if the workers here are all in, else the finish.  For
 * the partitions' runner (every partition's workers are in) and the peers' word.
 */
void dp_barrier_fire(struct dp_barrier *b, dp_time_t t);

/**
 * A peer process's workers are all in at generation @p generation (a split barrier); the last
 * word releases the workers here at @p now.  Words of a generation already released are ignored.
 */
void dp_barrier_peer(struct dp_barrier *b, uint32_t generation, dp_time_t now);

/** The element ops of a barrier. */
extern const struct dp_elem_ops dp_barrier_ops;

#endif /* DP_BARRIER_H */

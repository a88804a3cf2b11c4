/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The virtual-time engine: elements, the event calendar, barriers, captures.
 *
 * Every element (worker, link, switch, module) embeds a struct dp_elem.  An element has at most
 * one pending event of its own, at dp_elem.next; events run in (next, id) order, so events at the
 * same picosecond run in a fixed order and a run is deterministic.  The calendar keeps a bucket
 * of elements per pending time (engine.c): in a synchronous collective most events share their
 * time with many others.
 * Frames pass between elements by direct calls (dp_elem_ops.rx) at the current time; an element
 * that holds frames (a link, a module) keeps them with the times they are due and schedules its
 * next event for the earliest.  No element reads a clock: they are all given `now`.
 */
#ifndef DP_ENGINE_H
#define DP_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "lateness.h"

/** Time in picoseconds (virtual time; 2^64 ps is 213 days). */
typedef uint64_t dp_time_t;
#define DP_NEVER UINT64_MAX

struct dp_elem;
struct dp_engine;
struct dp_capture;
struct dp_pkt;
struct dp_part;
struct dp_ffwd_layout;

/** What an element does. */
struct dp_elem_ops {
	const char *kind;					/**< "link", "worker", ... */
	void (*event)(struct dp_elem *e, dp_time_t now);	/**< its event is due */
	/** A frame arrives: the element owns it from now (frame.h struct dp_pkt). */
	void (*rx)(struct dp_elem *e, const struct dp_pkt *p, dp_time_t now);
	/** Frames the element holds now (for the end-of-run invariant). */
	uint64_t (*held)(const struct dp_elem *e);
	/** What of it moves from step to step, for the exact fast-forward (ffwd.h); NULL: a run
	 *  with it is never fast-forwarded. */
	const struct dp_ffwd_layout *ffwd;
};

/** Frame counters every element keeps: rx = tx + drop + held at all times. */
struct dp_counters {
	uint64_t rx, tx, drop;		/**< frames */
	uint64_t rx_bytes, tx_bytes, drop_bytes; /**< frame bytes */
};

/** The part of every element the engine knows. */
struct dp_elem {
	const struct dp_elem_ops *ops;
	struct dp_engine *eng;
	dp_time_t next;		/**< its next event; DP_NEVER if none */
	uint32_t id;		/**< order of events at the same time; index in dp_engine.elems */
	uint32_t gid;		/**< its id in the whole graph (cut into partitions: parallel.h) */
	uint8_t half;		/**< a cut link's far end: 1 (its events follow the near end's) */
	bool aux;		/**< a copy's or a far end's events are not counted */
	struct dp_counters c;
	char name[32];
};

/**
 * Real time (rt.c): the engine runs an event only once the emulated clock has reached it, and
 * between events takes what arrived on the ports.
 */
struct dp_rt_hooks {
	dp_time_t (*now)(void *arg);			/**< emulated time now, read off the TSC */
	void (*poll)(void *arg, dp_time_t now);		/**< take arrivals, stamped @p now or later */
	bool (*busy)(void *arg);			/**< frames wait to leave the ports */
	void *arg;
};

/** Memory an element's next event will read, warmed a few events ahead (dp_sched_warm()). */
struct dp_warm {
	const void *a;		/**< a cache line (NULL: none) */
	const void *m;		/**< an mbuf: its first line and its private area (NULL: none) */
};

/** The elements due at one time (the calendar's buckets, engine.c). */
struct dp_cal_bucket {
	dp_time_t t;
	uint32_t *ids;		/**< in no order until taken */
	uint32_t n, cap;
	uint32_t hpos;		/**< where it sits in the time heap */
};

/** The time heap's entry: a bucket and its time. */
struct dp_cal_time {
	dp_time_t t;
	uint32_t b;
};

/** The engine: the calendar, the mempool, the capture, the first fatal error. */
struct dp_engine {
	dp_time_t now;
	/*
	 * The calendar (engine.c): a bucket of elements per pending time, the buckets found by
	 * time in a hash table and ordered in a small heap of their times; the due list holds the
	 * elements due now, ascending by id, run from due[due_i] on.  bkt[id] is element id's
	 * bucket (or DP_BKT_*) and pos[id] its place in it.
	 */
	struct dp_cal_bucket *bk;
	uint32_t *bk_free, n_free;	/**< buckets not in use */
	uint32_t *hash, hash_mask;	/**< bucket + 1 by time, open addressing; 0: empty */
	struct dp_cal_time *th;		/**< the time heap */
	uint32_t thn;
	uint32_t *bkt, *pos;
	uint32_t *due;
	uint32_t due_i, due_n;
	dp_time_t due_t;
	struct dp_elem **elems;	/**< every element, by id (the order of addition) */
	struct dp_warm *warm;	/**< by id: what its next event will read (dp_sched_warm()) */
	uint32_t n, cap;	/**< elements, room for them */
	struct rte_mempool *pool;
	/*
	 * Frames have bytes (an mbuf each, from pool): with a trace or DPDK ports.  Without, a frame
	 * is its struct dp_pkt alone (frame.h).
	 */
	bool bytes;
	struct dp_capture *cap_ctx;	/**< NULL: no trace */
	uint64_t events;
	/* the running event, for a partition's trace records (parallel.h): its element (gid and
	 * half), and during a barrier's release the worker released + 1 */
	const struct dp_elem *cur;
	uint32_t sub;
	struct dp_part *part;		/**< NULL: the whole graph in one engine */
	uint32_t *gid_next;		/**< partitions: the graph's id counter they share */
	/*
	 * The sync's work in progress (virtual time): its frames alive anywhere (made by a worker
	 * and not yet received, consumed by a module or dropped) plus its pending events (a
	 * worker's compute, a worker's round with frames still to make, a module's stream not yet
	 * done).  Background traffic and the probe do not count.  With nothing in progress, a
	 * worker still waiting can never finish its step: the run has stalled (dp_topo_advance()).
	 * In real time frames also leave and arrive through ports, out of this count.
	 */
	int64_t sync_wip;
	int error;			/**< first fatal error, -errno; the run stops */
	char errmsg[256];
	/* the control plane's hook: called between events every poll_mask + 1 events */
	void (*poll)(void *arg, dp_time_t now);
	/* a request waits for poll() (real time in partitions: it runs with the lcores paused) */
	bool (*poll_wants)(void *arg);
	void *poll_arg;
	uint64_t poll_mask;		/**< a power of two less one */
	/* real time: NULL in virtual time */
	const struct dp_rt_hooks *rt;
	uint64_t rt_spins;		/**< polls while nothing was due (idle) */
	dp_time_t rt_horizon;		/**< the emulated time last read off the clock: every
					 *   event up to it is due (a link with burst set
					 *   delivers its frames up to it in one event) */
	uint64_t rt_behind;		/**< polls while events were overdue */
	/* virtual time, run.fast_forward = steady: a link's event delivers every frame due
	 * within this of it, each at its own time (0: only those due now) */
	dp_time_t window;
	dp_time_t reach;		/**< the latest time a window handed on (its "now") */
	struct dp_lateness rt_lag;	/**< how late events ran: the clock's last reading less
					 *   their time, ps; counted only where the run keeps its
					 *   histogram (dp_lateness_reset()) */
};

/** Initialise an engine at time @p t0 with room for @p max_elems elements; 0 or -ENOMEM. */
int dp_engine_init(struct dp_engine *eng, uint32_t max_elems, struct rte_mempool *pool,
		   dp_time_t t0);

/** Free the calendar (not the elements). */
void dp_engine_fini(struct dp_engine *eng);

/** Add an element (ids are given in the order of addition); 0 or -ENOSPC. */
int dp_engine_add(struct dp_engine *eng, struct dp_elem *e, const struct dp_elem_ops *ops,
		  const char *name);

/** Set the element's next event to @p t (DP_NEVER for none). */
void dp_sched(struct dp_elem *e, dp_time_t t);

/**
 * dp_sched(), telling the engine what the event will read besides the element (@p a, a line of
 * the element's own memory, and mbuf @p m; either may be NULL): the engine warms them a few
 * events before it runs (engine.c warm_ahead()).  With thousands of elements and frames in flight they are otherwise
 * cache misses.  Warming changes nothing but time.
 */
static inline void
dp_sched_warm(struct dp_elem *e, dp_time_t t, const void *a, const struct rte_mbuf *m)
{
	struct dp_warm *w = &e->eng->warm[e->id];

	w->a = a;
	w->m = m;
	dp_sched(e, t);
}

/**
 * The running event of @p e found nothing to do (an element that keeps an early event rather
 * than move it at every frame): it is not counted in dp_engine.events, which then counts the
 * same events as if the element had been placed exactly.
 */
static inline void
dp_event_void(struct dp_elem *e)
{
	e->eng->events -= !e->aux;
}

#define DP_BKT_NONE UINT32_MAX		/* no event (DP_NEVER) */
#define DP_BKT_DUE (UINT32_MAX - 1)	/* in the due list */
#define DP_BKT_OUT (UINT32_MAX - 2)	/* its event is running */

/** The earliest pending event's time, DP_NEVER if none. */
static inline dp_time_t
dp_engine_next(const struct dp_engine *eng)
{
	if (eng->due_i < eng->due_n)
		return eng->due_t;
	return eng->thn > 0 ? eng->th[0].t : DP_NEVER;
}

/**
 * Run events in time order until none is due at or before @p until, @p done(arg) returns true
 * (checked after each event), or an element reports an error.
 *
 * In real time (@c rt set) an event runs when the emulated clock reaches it (at its own time,
 * however late), the ports are polled whenever nothing is due and every 64 events when behind,
 * and the run returns once the clock has passed @p until with nothing due.
 *
 * @return 0, or the element's error
 */
int dp_engine_run(struct dp_engine *eng, dp_time_t until, bool (*done)(void *arg), void *arg);

/**
 * Real time, one turn of a partition on an lcore shared with others (parallel.h): take the
 * arrivals at the clock's time and run the events due by then and at or before @p until, at
 * most @p max of them, stopping after the event that sets *@p stop.  *@p lb is then the
 * earliest time an event of the engine can have from now on (its next event, or the clock's
 * time: what later polls bring is stamped later).
 * @return 0, or the element's error
 */
int dp_engine_turn(struct dp_engine *eng, uint32_t max, dp_time_t until, const bool *stop,
		   dp_time_t *lb);

/** One more piece of the sync's work in progress (dp_engine.sync_wip). */
static inline void
dp_sync_hold(struct dp_engine *eng)
{
	eng->sync_wip++;
}

/** A piece of the sync's work in progress is over. */
static inline void
dp_sync_release(struct dp_engine *eng)
{
	eng->sync_wip--;
}

/** Record a fatal error (the first one wins) with a message naming the element. */
void dp_engine_fail(struct dp_engine *eng, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* DP_ENGINE_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Partitions: one graph cut into engines that run side by side, with the results of one.
 *
 * The graph is cut at links of positive delay (topology.c: between data centres at the WAN
 * links, then inside a large data centre between groups of workers and their switch at the NIC
 * and switch links).  Each partition is an engine of its own (calendar, trace records, record of
 * steps, background statistics); a cut link runs in the partition that feeds it and hands each
 * frame, as it queues it, to its far end in the other partition (xin.h) with its arrival time.
 *
 * Virtual time, conservatively (as ns-3's distributed simulator and YAWNS do): the partitions run
 * in synchronous windows.  A window begins at T, the earliest pending event of any partition,
 * and ends before T + L, L the smallest delay of a cut link (the lookahead): a frame queued in
 * the window arrives at or after T + L, so no partition can receive, within the window, a frame
 * it has not been given.  Frames cross at the window's end in one batch per ordered pair of
 * partitions (struct dp_xbox): the receiver has nothing to do with them before the next window,
 * so a batch needs no per-frame synchronisation and no fixed capacity (an rte_ring full in the
 * middle of a window would have to stop a sender whose receiver waits on the same lcore).
 *
 * The barrier (barrier.h) is the one thing that crosses partitions without delay: it releases
 * every worker at the time the last of them arrived.  A partition whose workers are all in tells
 * the runner its time and stops there, going on only as far as the release cannot be earlier
 * than (a partition not yet in will arrive no earlier than its next event); when every
 * partition is in, the runner fires every partition's barrier at the latest of their times.
 *
 * Identical results.  Events within a partition run in (time, id) order with ids in the order of
 * the whole graph (gid), the order one engine would run them in.  A trace record is written with
 * its event's key (time, gid, half, sub: a cut link's near end before its far end, a barrier's
 * records in the order of the workers it releases) and the partitions' records are merged by key
 * as soon as no partition can write an earlier one; background transfers and queue samples the
 * same way; step records are merged when every partition has finished the step.  So the trace,
 * the steps, counters and statistics are byte for byte those of one engine, whatever the
 * number of partitions or lcores.
 */
#ifndef DP_PARALLEL_H
#define DP_PARALLEL_H

#include <stdatomic.h>

#include <rte_common.h>

#include "barrier.h"
#include "bghost.h"
#include "engine.h"
#include "frame.h"
#include "gate.h"
#include "probe.h"
#include "record.h"

/** A frame crossing a cut: it arrives at @c arrive at far end @c xin of the receiver. */
struct dp_xfer {
	struct dp_pkt p;
	dp_time_t arrive;
	uint32_t xin;
	uint32_t hdr;		/**< from another rank: 1 + the place of its dp_meta and headers
				 *   in dp_xbox.hb (its bytes are made as it is taken); 0: none */
};

/**
 * Frames from one partition to another, in the order they were queued: those of the window
 * running (side @c *cur) and those of the window before (the other side), which the receiver
 * takes as its next window begins, while the sender fills the side of the new one.
 */
struct dp_xbox {
	struct dp_xfer *v[2];
	uint32_t n[2], cap[2];
	dp_time_t first[2];		/**< the earliest arrival in each side */
	const uint32_t *cur;		/**< the side of the window running (the runner's) */
	uint8_t *hb[2];			/**< from another rank: the frames' metas and headers */
	size_t hlen[2], hcap[2];
	/*
	 * Real time (dp_par_run_rt()): no windows; a frame crosses as its link queues it.  The
	 * sender takes a reference on the frame and puts it on @c fwd; the receiver copies it into
	 * its own pool, hands it to the far end at its arrival, and puts the original on @c ret;
	 * the sender frees it from there (a frame pool is one lcore's: only its owner frees into
	 * it).  What the full ring does not take waits in @c ov, in order, for the sender's next
	 * turn: the sender never waits for a receiver that may share its lcore.
	 */
	bool used;			/**< a cut link posts to it (set as the graph is built) */
	bool rt;			/**< posts go to @c fwd */
	struct rte_ring *fwd;		/**< SP/SC of struct dp_xfer */
	struct rte_ring *ret;		/**< SP/SC of the mbufs copied */
	struct dp_xfer *ov;		/**< [ov_head .. ov_head + ov_n) the frames waiting */
	uint32_t ov_head, ov_n, ov_cap;
};

/** Hand frame @p p to far end @p xin of the box's receiver: 0 or -ENOMEM. */
int dp_xbox_post(struct dp_xbox *b, const struct dp_pkt *p, dp_time_t arrive, uint32_t xin);

/** A buffer of keyed records (trace frames, transfers, samples) waiting for the merge. */
struct dp_kbuf {
	uint8_t *b;
	size_t len, cap, rd;
};

struct dp_par;
struct dp_topo;

/**
 * A partition is on pages of its own: its lcore writes its engine (first in it) at every event
 * and reads its bound, and lines of two lcores less than a page apart slow both (on the 2-vCPU
 * AMD EPYC VM, 2.2 times at 64 or 128 bytes apart, 1.3 at 1 KB, none at 4 KB: the CPU's
 * prefetchers fetch lines around those an lcore touches, within the page).
 */
#define DP_PART_ALIGN 4096

/** One partition. */
struct dp_part {
	struct dp_engine eng;
	struct dp_par *par;
	uint32_t index;
	struct dp_xbox *out;		/**< [n]: frames to each partition this window */
	struct rte_mempool *own_pool;	/**< a frame pool of its own (NULL: the run's) */
	/* frames whose far end has a copy: freed between windows (the copy is made as the next
	 * window begins, while this partition may already run) */
	struct rte_mbuf **defer;
	uint32_t n_defer, cap_defer;
	struct dp_record rec;		/**< its workers' steps, every step held */
	struct dp_barrier bar;		/**< its copy of the barrier, for its workers */
	uint32_t *who, n_who;		/**< its workers (graph indices, ascending) */
	struct dp_bgstats bg;		/**< its sinks' counters (transfers go to @c xd) */
	struct dp_probe *probe;		/**< its WAN links' probe, NULL: none here */
	uint32_t probe_at[DP_PROBE_LINKS];	/**< its probe's links' places in the whole */
	struct dp_kbuf cb;		/**< trace records */
	struct dp_kbuf xd;		/**< background transfers done */
	struct dp_kbuf qs;		/**< queue samples (with a sink) */
	uint64_t qs_n;			/**< samples in qs */
	uint8_t gather[UINT16_MAX];	/**< a frame of several segments, made contiguous */
	/* its workers all in at the global event it is waiting for */
	uint32_t ndone;			/**< completions so far */
	dp_time_t done_t;		/**< the latest one's time */
	bool hit;			/**< one happened in the window: check the bound */
	/* the window */
	dp_time_t until;		/**< run events up to this time */
	dp_time_t lb;			/**< a release cannot be before this */
	uint64_t busy_ns;		/**< wall time spent running its events */
	/* ranks (ranks.h): a partition another rank runs is a mirror here, whose state comes from
	 * that rank after every window */
	bool here;			/**< this rank runs it */
	uint32_t rank;			/**< the rank that runs it */
	dp_time_t m_next, m_now;	/**< a mirror's next event (frames to it included), time */
	uint64_t m_events, m_busy_ns;
	int64_t m_wip;
	bool m_rel_hold;		/**< a mirror's barrier, fired, holds one more in m_wip */
	uint32_t steps_sent;		/**< steps of @c rec sent to rank 0 */
	/* real time (dp_par_run_rt()): what the lcore running it publishes, on a line of its own */
	atomic_uint pub_ndone __rte_cache_aligned;	/**< ndone, stored after pub_done_t */
	_Atomic uint64_t pub_done_t[2];	/**< done_t, by the parity of ndone - 1 */
	_Atomic uint64_t pub_lb;	/**< no event of it from now on is earlier than this */
	atomic_uint pub_steps;		/**< rec.steps_done */
	atomic_bool pub_idle;		/**< nothing pending, nothing waiting to leave its ports */
	atomic_bool pub_error;		/**< its engine failed (eng.error) */
	uint32_t fired_seen;		/**< releases of the barrier fired here */
	dp_time_t rt_lb;		/**< the latest pub_lb (nothing may come before it) */
	uint64_t rt_taken;		/**< frames taken from cut links */
	uint64_t rt_late;		/**< of them, taken after their arrival (and delivered at
					 *   the partition's time) */
	dp_time_t rt_late_max;		/**< ps, the latest any was */
} __rte_aligned(DP_PART_ALIGN);

/** A partition's claim: the window it was last taken in by an lcore (parallel.c). */
struct dp_claim {
	atomic_uint window;
} __rte_cache_aligned;

/** The partitions and how they run. */
struct dp_par {
	uint32_t n;			/**< partitions */
	struct dp_part *p;		/**< [n] */
	struct dp_topo *topo;		/**< the graph they run */
	dp_time_t tmin;			/**< the latest window's start: all before it is run */
	dp_time_t lookahead;		/**< the smallest delay of a cut link */
	uint32_t gid_next;		/**< ids in the whole graph, as elements are added */
	uint32_t fired;			/**< global events (releases, the finish) fired */
	uint64_t windows;
	/* real time: the barrier's releases (rt_fire_t, then rt_fired), the lcores' stop word */
	atomic_uint rt_fired;
	_Atomic uint64_t rt_fire_t;
	atomic_bool rt_stop;
	bool rt_on;			/**< the lcores are running the partitions in real time */
	/* real time: the caller stops the lcores between turns (dp_par_rt_pause()) */
	atomic_uint rt_pause_gen, rt_resume_gen, rt_paused;
	bool rt_held;			/**< paused: every partition is the caller's for now */
	uint32_t side;			/**< windows run, mod 2: the boxes' side being filled */
	uint32_t nl;			/**< lcores running partitions (1: this one alone) */
	unsigned int lcore[RTE_MAX_LCORE];	/**< [nl], lcore[0] the caller's */
	bool launched;
	/*
	 * The lcores (parallel.c): @c go says what they do next (a window, real time, quit) and
	 * opens it; in a window each lcore takes its own partitions, then any a late lcore has not
	 * taken (@c claim), and counts each one done in @c done; in real time each counts itself in
	 * @c halted when stopped.  Each on a line of its own.
	 */
	struct dp_gate go;		/**< (windows opened << 2) | command */
	struct dp_gate done;		/**< partitions done, all windows */
	struct dp_gate halted;		/**< lcores halted after real time, all runs */
	uint32_t wgen;			/**< windows (and commands) opened */
	uint32_t done_want, halted_want;	/**< what the caller waits for them to reach */
	struct dp_claim *claim;		/**< [n_mine]: the window each was last taken in */
	struct dp_waiter waiter[RTE_MAX_LCORE];	/**< [nl]: each lcore's waits, by lcore index */
	uint64_t sleeps, steals;	/**< the lcores' waits asleep, partitions run for another */
	/* what the merged results go to */
	struct dp_capture *cap;
	struct dp_bgstats *bg;		/**< the run's (its sink or arrays) */
	struct dp_record *rec;		/**< the run's record: steps merged, then retired */
	/* queue samples: the whole probe's */
	uint32_t q_links;
	const char *q_names[DP_PROBE_LINKS];
	void (*on_sample)(void *arg, dp_time_t t, const uint64_t *bytes,
			  const char *const *names, uint32_t nlinks);
	void *sample_arg;
	uint64_t q_merged;		/**< samples merged (with a sink) */
	int error;
	char errmsg[256];
	/* ranks: partition k runs in rank p[k].rank, contiguous blocks of partitions per rank */
	int rank, nranks;
	uint32_t *mine, n_mine;		/**< this rank's partitions */
	uint8_t *sbuf, *rbuf;		/**< what goes to the other ranks, what comes */
	size_t scap, rcap;
	size_t *slen, *rlen;		/**< [nranks] */
};

/**
 * Set up @p n partitions of room for @p max_elems elements each, over @p pool, at @p t0; the
 * lcores are taken when the run starts (dp_par_start()).  Under MPI (ranks.h) this rank runs
 * its share of them (dp_part.here).  0 or -ENOMEM.
 */
int dp_par_init(struct dp_par *x, uint32_t n, uint32_t max_elems, struct rte_mempool *pool,
		dp_time_t t0, struct dp_capture *cap);

/**
 * Real time (each partition's engine has its dp_engine.rt): every partition runs on its lcore,
 * paced by the clock, with no windows: frames between partitions cross ports (rt.h) or cut
 * links (struct dp_xbox's rings: the receiver takes them at each of its turns, a link's latency
 * ahead of their arrival; one taken after it is delivered at once and counted late), and the
 * barrier is the only thing shared.  A partition whose workers are all in publishes its time; the
 * caller's lcore, seeing every partition in, publishes the release at the latest of their times,
 * and each partition's lcore fires its copy of the barrier at that time or, if its clock has
 * passed it, at the time it learns of it (a split over processes does the same, rt.h: the
 * release is late by the time the word takes, here a few hundred ns of real time).
 *
 * The lcores are started by the first call and run on between calls, until dp_par_rt_halt().
 * The caller's lcore runs its share of the partitions too, merges steps as every partition
 * finishes them (retiring them into the run's record), and returns when @p done(arg) is true
 * (asked between its turns), when @p wait of emulated time has passed, or on an error (the lcores
 * halted).
 * Trace records, transfers and samples are merged when the lcores halt.
 *
 * @return 0, or the first error (the message in dp_par.errmsg)
 */
int dp_par_run_rt(struct dp_par *x, dp_time_t wait, bool (*done)(void *arg), void *arg);

/** Real time: stop the lcores, then merge what the partitions recorded.  Idempotent. */
void dp_par_rt_halt(struct dp_par *x);

/**
 * Real time: every partition has nothing pending and nothing waiting to leave its ports or to
 * cross a cut link.
 */
bool dp_par_rt_idle(const struct dp_par *x);

/**
 * Real time: stop every lcore between two of its turns, so that the caller may change any
 * partition's elements (a control request), until dp_par_rt_resume().  Returns the latest time a
 * partition has reached (the clock runs on: what is due meanwhile runs late, at the resume).
 */
dp_time_t dp_par_rt_pause(struct dp_par *x);
void dp_par_rt_resume(struct dp_par *x);

/** Real time: the lcores are running the partitions, not paused (their elements are theirs). */
bool dp_par_rt_running(const struct dp_par *x);

/** Real time: frames taken from cut links, and how many (and how much, ps) of them late. */
void dp_par_rt_crossings(const struct dp_par *x, uint64_t *taken, uint64_t *late,
			 dp_time_t *late_max);

/** Free the partitions (not the elements): frames still crossing go back to their pool. */
void dp_par_fini(struct dp_par *x);

/** Take up to @p lcores lcores (the caller's and idle workers'): the partitions share them. */
void dp_par_start(struct dp_par *x, uint32_t lcores);

/** Let the lcores go. */
void dp_par_stop(struct dp_par *x);

/**
 * Run windows until @p done(arg) is true after a window, or nothing is left to run, or an
 * error.  Frames cross, records are merged, steps retired into the run's record as they end.
 * @return 0, or the first error (the message in dp_par.errmsg)
 */
int dp_par_run(struct dp_par *x, bool (*done)(void *arg), void *arg);

/**
 * Over all partitions: the events run, the sync's work in progress (dp_engine.sync_wip) and the
 * latest time reached.
 */
void dp_par_totals(const struct dp_par *x, uint64_t *events, int64_t *sync_wip, dp_time_t *now);

/** The probe's samples kept (no sink), merged: arrays owned by the caller, 0 or -ENOMEM. */
int dp_par_samples(struct dp_par *x, uint64_t *n, dp_time_t **t, uint64_t **bytes);

/**
 * Ranks, at the run's end: every rank gets, for each partition another rank runs, its
 * background counters and (rank 0) its probe's samples.  0 or -errno (the same on every rank).
 */
int dp_par_gather_end(struct dp_par *x);

/** A cut link is done with frame @p m (its far end has a copy): freed between windows. */
void dp_par_free_later(struct dp_part *pt, struct rte_mbuf *m);

/** A trace record of partition engine @p eng (dp_capture_write() in a partition). */
void dp_par_capture(struct dp_engine *eng, int ifid, const struct rte_mbuf *m, dp_time_t t);

/** A background transfer done in partition @p part (its dp_bgstats.on_done). */
int dp_par_transfer(void *part, double fct, double wait);

/** A queue sample of partition @p part (its probe's on_sample, with a sink). */
void dp_par_sample(void *part, dp_time_t t, const uint64_t *bytes, const char *const *names,
		   uint32_t nlinks);

/** Partition @p part's workers are all in (its barrier's local_done). */
void dp_par_local_done(void *part, dp_time_t now);

#endif /* DP_PARALLEL_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A link: a finite FIFO, a serialiser at a rate, and a propagation delay.
 *
 * As in netem's tfifo, a frame's times are computed when it is queued: it starts serialising at
 * max(now, when the serialiser is free), leaves after its charged bytes at the rate, and arrives
 * at the far end a delay later.  The queue is the frames that have not started; a frame that does
 * not fit (bytes or frames) is dropped at the tail and counted.  Events: one per frame, at its
 * arrival; with an "out" capture also one at each start.
 */
#ifndef DP_LINK_H
#define DP_LINK_H

#include <rte_common.h>

#include "../models/impair.h"
#include "../models/packet.h"
#include "engine.h"
#include "frame.h"
#include "lateness.h"

struct dp_xbox;

/** Configuration of a link. */
struct dp_link_params {
	const char *name;
	uint64_t bw;		/**< B/s */
	dp_time_t delay;	/**< propagation delay, ps */
	uint64_t cap_bytes;	/**< queue limit in frame bytes (0: none) */
	uint32_t cap_frames;	/**< queue limit in frames (0: none) */
	enum sm_account account;
	struct dp_elem *next;	/**< where frames arrive */
	int cap_in, cap_out;	/**< capture interfaces (-1: none) */
	bool fg_lossless;	/**< the sync's frames are never dropped (their class is lossless) */
};

/** A frame in the link: the frame itself (frame.h), and its times; one cache line. */
struct dp_link_slot {
	struct dp_pkt p;
	dp_time_t start;	/**< serialisation starts */
	dp_time_t arrive;	/**< at the far end; with jitter and reordering, serialised */
	dp_time_t due;		/**< impaired links: at the far end, DP_NEVER if lost */
} __rte_aligned(64);

struct dp_link_imp;

/** A frame come in a steady run's window, before its time (dp_link.pend). */
struct dp_link_pend {
	dp_time_t t;		/**< when it is queued */
	uint32_t by;		/**< the element whose event brought it (ties: their order) */
	uint32_t seq;
	struct dp_pkt p;
};

/**
 * The frames a link queued, as they were queued (for the fast-forward's replay of the queue
 * samples, ffwd.h): when each was queued, when it started serialising, its bytes.  The link
 * adds to it while it is set; whoever set it empties it.
 */
struct dp_link_trail {
	dp_time_t *push, *start;
	uint64_t *sum;		/**< [n + 1]: bytes of the frames before (dp_link_trail_sum()) */
	uint32_t *bytes;
	uint64_t n, cap;
	bool failed;		/**< out of memory: frames are missing */
};

/** Runtime state of a link. */
struct dp_link {
	struct dp_elem e;
	/* configuration, read on every frame */
	uint64_t bw;
	dp_time_t delay;
	uint64_t cap_bytes;
	uint32_t cap_frames;
	enum sm_account account;
	struct dp_elem *next;
	int cap_in, cap_out;
	int cap_drop;		/**< frames dropped at the tail, if not -1 (set after init) */
	bool fg_lossless;
	/* cut into partitions: its far end is in another (parallel.h); NULL: next is here */
	struct dp_xbox *xbox;		/**< frames go there as they are queued */
	uint32_t xin;			/**< the far end's id in the other partition */
	/* the FIFO: frames queued or in flight, in order; a power-of-two ring */
	struct dp_link_slot *ring;
	uint32_t mask;
	uint32_t head;		/**< next to arrive */
	uint32_t qhead;		/**< next not yet started (lazily advanced) */
	uint32_t ohead;		/**< next "out" capture */
	uint32_t tail;
	dp_time_t busy;		/**< the serialiser is free from */
	uint64_t qbytes;	/**< frame bytes not yet started */
	uint32_t qframes;
	uint32_t last_charge;	/**< cache of the last serialisation time */
	dp_time_t last_ps;
	/* statistics */
	dp_time_t busy_ps;	/**< time spent serialising */
	uint64_t max_qbytes;
	uint32_t max_qframes;
	int cap_loss;		/**< frames lost on the wire, if not -1 (set after init) */
	uint64_t fg_over;	/**< sync frames taken above the limit (lossless) */
	uint64_t bg_drop;	/**< background frames dropped */
	uint64_t tcp_drop;	/**< TCP frames dropped (job.transport = tcp: resent by TCP) */
	uint64_t raw_drop;	/**< frames that are not syncemu's dropped (a bridge's) */
	/* (in the line push() writes anyway, the hot ones before it as they were) */
	struct dp_link_imp *imp;	/**< its impairments (dp_link_impair()), NULL: none */
	uint64_t lost;		/**< frames lost on the wire (impairments) */
	uint64_t reordered;	/**< frames that arrived after one sent later (impairments) */
	uint64_t corrupted;	/**< frames with a bit flipped (impairments) */
	uint64_t duplicated;	/**< frames delivered twice (impairments) */
	uint64_t dup_failed;	/**< duplicates not made: no mbuf for the copy */
	uint64_t marked;	/**< frames marked CE by the queue's RED or step (impairments) */
	uint64_t aqm_drop;	/**< frames RED dropped early (impairments; in drop too) */
	int cap_mark, cap_aqm;	/**< their capture points, if not -1 (set after init) */
	bool tcp_ect;		/**< its TCP data segments are ECN-capable (transport.ecn) */
	struct dp_link_trail *trail;	/**< NULL: none */
	struct dp_link_wait *wait;	/**< each frame's queueing delay by class, NULL: none */
	/*
	 * run.fast_forward = steady: frames come in windows, not in time order.  A link whose
	 * delay is at least the window queues them in time order: they wait here, by time, until
	 * the engine has passed it (every frame of an earlier time has come by then).
	 */
	struct dp_link_pend *pend;	/**< a ring sorted by (t, by, seq), from pend_h */
	uint32_t pend_h, pend_n, pend_cap, pend_seq;
	bool burst;		/**< real time: an event delivers every frame due by the clock's
				 *   last reading (dp_engine.rt_horizon), each at its own time:
				 *   for a next element that sends them on in one burst (a port) */
} __rte_cache_aligned;

/** The classes of dp_link_wait: the sync's frames (and any that is not background), the background's. */
enum { DP_WAIT_SYNC, DP_WAIT_BG, DP_WAIT_CLASSES };

/**
 * How long each frame waited in a link's queue before its serialisation started (its start
 * less its arrival), by class: a histogram in ns for the percentiles (lateness.h's, within
 * 0.8 % of the value of its rank), the sum for the mean.
 */
/** A class's queueing delays at a link, ns (NAN: no frame). */
struct dp_wait_summary {
	uint64_t n;
	double mean_ns, p50_ns, p99_ns, max_ns;
};

struct dp_link_wait {
	struct dp_lateness h[DP_WAIT_CLASSES];
	uint64_t sum_ps[DP_WAIT_CLASSES];
	/* another process ran the link (MPI ranks): its summary, as it sent it */
	bool given;
	struct dp_wait_summary from[DP_WAIT_CLASSES];
	/* the exact fast-forward (ffwd.h): the waits of the step in progress, each its ps with
	 * the class in the top bit, so that a replayed step counts the same waits */
	bool log_on, log_failed;
	uint64_t *log;
	uint32_t log_n, log_cap;
};

/** Keep each step's waits at @p l (for dp_link_wait_repeat()); the log starts empty. */
void dp_link_wait_log_on(struct dp_link *l);

/** Forget the waits logged so far: a step starts. */
void dp_link_wait_log_reset(struct dp_link *l);

/** Whether the log holds every wait since it was reset (false: out of memory). */
bool dp_link_wait_log_whole(const struct dp_link *l);

/** Count the logged waits @p k times more: @p k steps replayed that repeat it. */
void dp_link_wait_repeat(struct dp_link *l, uint64_t k);

/** Each class's queueing delays at @p l (which counts them: l->wait not NULL). */
void dp_link_wait_summary(const struct dp_link *l, struct dp_wait_summary out[DP_WAIT_CLASSES]);

/** Count each frame's queueing delay at @p l (dp_link_wait); 0 or -ENOMEM. */
int dp_link_wait_on(struct dp_link *l);

/** Set up a link registered with @p eng; 0, -EINVAL or -ENOMEM. */
int dp_link_init(struct dp_link *l, struct dp_engine *eng, const struct dp_link_params *p);

/** Its trail's running sums of bytes, for dp_link_trail_backlog(); 0 or -ENOMEM. */
int dp_link_trail_sum(struct dp_link_trail *tr);

/**
 * The bytes a link with trail @p tr (summed) had queued at @p t, as dp_link_backlog() then read
 * them, or -1 if a frame was queued at @p t itself (whether it counts depends on the order of
 * that instant's events).
 */
int64_t dp_link_trail_backlog(const struct dp_link_trail *tr, dp_time_t t);

void dp_link_trail_free(struct dp_link_trail *tr);

/**
 * Under a steady window @p w (run.fast_forward = steady) the link queues the frames that come
 * in time order: it is not cut, and its frames take at least @p w from the queue to the far
 * end (its latency, with no jitter).
 */
bool dp_link_in_order(const struct dp_link *l, dp_time_t w);

/** Free its ring and any frames still in it. */
void dp_link_fini(struct dp_link *l);

/**
 * Queue a frame.  On success @p start receives when it starts serialising.
 *
 * @return 0, or -ENOBUFS if it was dropped (and freed)
 */
int dp_link_push(struct dp_link *l, const struct dp_pkt *p, dp_time_t now, dp_time_t *start);

/**
 * Give link @p l the impairments @p im (models/impair.h; inactive: none), its random streams
 * from @p seed.  Before the run starts, or between events (a live change: the loss chain and
 * streams go on; frames already in the link keep their times).
 *
 * @return 0, -ENOMEM, or -EINVAL: the link is cut into partitions (its far end in another) and
 *         @p im would let a frame arrive sooner than its latency allows or overtake another
 */
int dp_link_impair(struct dp_link *l, const struct sm_impair *im, uint64_t seed);

/** The impairments of link @p l now (none: all zero). */
void dp_link_impair_get(const struct dp_link *l, struct sm_impair *im);

/** A link's own random streams' seed: @p seed's sub-stream by a hash of its name. */
uint64_t dp_link_stream(const struct dp_link *l, uint64_t seed);

/**
 * A live change (impair.loss, impair.jitter): random loss with probability @p loss in place of
 * the link's loss model (0: none), jitter of @p jitter s with its distribution and order
 * (uniform, fifo if it had none; 0: none); NAN leaves either as it is.  0, or as
 * dp_link_impair().
 */
int dp_link_impair_live(struct dp_link *l, double loss, double jitter, uint64_t seed);

/** The least delay from the end of a frame's serialisation to its arrival. */
dp_time_t dp_link_min_delay(const struct dp_link *l);

/** Frame bytes queued at @p now (not yet serialising). */
uint64_t dp_link_backlog(struct dp_link *l, dp_time_t now);

/** When the serialiser is next free. */
static inline dp_time_t
dp_link_free_at(const struct dp_link *l)
{
	return l->busy;
}

/** The element ops of a link (its rx queues the frame; drops are counted). */
extern const struct dp_elem_ops dp_link_ops;

#endif /* DP_LINK_H */

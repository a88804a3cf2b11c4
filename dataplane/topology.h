/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The element graph of a run: workers, their NICs (and port caps and modules), the DC switches
 * with their queues towards workers and modules, and the WAN links between data centres.
 *
 *   worker w --[port cap]--> nic --> switch(d) --> down --> worker v         (same DC)
 *                                       |
 *                                       +--> wan(d) --> switch(d+1) --> down --> worker v
 *                                       +--> mlink --> module (E': in the network)
 * The WAN links follow [topology] wan: a ring (as drawn; farther DCs around it), a mesh (a link
 * per ordered pair of DCs) or a star (each DC to a core switch and back).
 *   worker w --> module (E: the pluggable in its port)
 */
#ifndef DP_TOPOLOGY_H
#define DP_TOPOLOGY_H

#include "../models/impair.h"
#include "../models/packet.h"
#include "bghost.h"
#include "capture.h"
#include "engine.h"
#include "parallel.h"
#include "xin.h"
#include "link.h"
#include "module.h"
#include "port.h"
#include "probe.h"
#include "record.h"
#include "switch.h"
#include "worker.h"

struct dp_tcp;
struct dp_bulk;

/** Background traffic on the WAN (load 0: none). */
struct dp_bg_params {
	double load;				/**< offered load, a fraction of the WAN rate */
	const struct sm_size_dist *sizes;	/**< transfer sizes */
	uint64_t host_bw;			/**< the hosts' access links, B/s */
	uint64_t seed;				/**< the run's seed */
	uint32_t directions;			/**< 1: DC 0 to 1 only; 2 (or more): every one */
	uint32_t bulk;				/**< bulk TCP flows per loaded direction */
	const struct sm_tcp_conf *tcp;		/**< their TCP's settings (with bulk) */
	bool xfer_tcp;				/**< the transfers go over TCP (the bulk hosts') */
	uint32_t connections;			/**< xfer_tcp: connections per host */
	dp_time_t bulk_lead;			/**< the bulk flows start this long before the job */
	bool fg_lossless;			/**< the sync's frames are never dropped */
	dp_time_t probe_every;			/**< WAN queue sampling interval; 0: none */
};

/** A link of the topology through ports: out of @p tx, in from @p rx, then on as before. */
struct dp_topo_link_port {
	const char *name;			/**< wN.nic, dcD>wN, dcD>mN */
	struct dp_port *tx, *rx;
};

#define DP_IMPAIR_LINKS 8

/** Impairments of a run's links (models/impair.h). */
struct dp_topo_impair {
	struct sm_impair wan;			/**< every WAN link's, unless named below */
	struct {
		char name[24];			/**< a link's name (wan0>1, w3.nic, ...) */
		struct sm_impair im;
	} link[DP_IMPAIR_LINKS];
	uint32_t n_link;
	uint64_t seed;				/**< each link's streams: dp_link_stream() */
	double live_loss, live_jitter;		/**< impair.loss and impair.jitter as they start
						 *   (what a live change reports as old) */
};

struct dp_topo_params {
	const struct sm_params *model;
	const struct sm_packet *pk;
	const struct sm_program *prog;
	uint32_t run_id, steps;
	uint64_t q_nic, q_port, q_sw, q_wan;	/**< queue limits, frame bytes */
	struct dp_capture *cap;			/**< NULL: no trace */
	struct rte_mempool *pool;
	dp_time_t t0;				/**< virtual time the run starts at */
	struct dp_bg_params bg;
	const struct dp_kernel *kernel;		/**< link-kernel program, NULL: built in */
	bool hold_record;			/**< keep every step's record to the end (as a
						 *   run split over two processes does) */
	bool bytes;				/**< frames have bytes without a trace or ports */
	uint32_t partitions;			/**< engines the graph is cut into (0, 1: one;
						 *   parallel.h), at most the workers */
	uint32_t lcores;			/**< lcores they may run on (0, 1: this one) */
	bool realtime;				/**< real time: partitions meet at ports alone */
	/* real time */
	uint32_t local;				/**< data centres run here (1u << d); 0: all */
	struct dp_port **dc_port;		/**< [n_dc]: a DC's port, or NULL (none) */
	const struct dp_topo_link_port *link_port;	/**< links through ports */
	uint32_t n_link_ports;
	const struct dp_topo_impair *impair;	/**< NULL: none */
};

struct dp_topo {
	struct dp_engine eng;
	uint32_t w_count, n, d;
	struct sm_links links;
	struct rte_mempool *pool;
	struct dp_worker *workers;
	struct dp_tcp *tcp;	/* the workers' TCP (job.transport = tcp), or NULL */
	struct dp_bulk *bulk;	/* [d]: background.bulk's hosts, or NULL */
	struct dp_link *bulk_up, *bulk_down;	/* [d]: their access links */
	dp_time_t bulk_lead;	/* the workers start this long after the bulk flows */
	struct dp_link *nic, *down, *port, *mlink, *wan;	/* port, mlink: NULL if unused */
	uint32_t n_wan;						/* WAN links (wan_ends()) */
	enum sm_wan_shape shape;
	bool ring_back;		/* a ring of 3 DCs or more with TCP: links back too */
	struct dp_switch *sw;					/* [d], and the star's core at [d] */
	uint32_t n_sw;
	struct dp_module *mod;					/* NULL if no module */
	struct dp_bghost *bg;					/* [d], NULL: no load */
	struct dp_link *bglink;					/* [d] host to switch */
	struct dp_sink *sink;					/* [d] */
	struct dp_probe *probe;					/* NULL: no sampling */
	struct dp_bgstats bgstats;
	double bg_load;						/* current load */
	uint64_t imp_seed;					/* [impair]: the streams' seed */
	double imp_loss, imp_jitter;				/* impair.loss, .jitter now */
	uint32_t local;						/* DCs here (mask) */
	uint32_t *local_w, n_local;				/* workers here */
	struct dp_port **dc_port;				/* [d] or NULL */
	struct dp_topo_link_port *link_port;			/* [n_link_ports] */
	uint32_t n_link_ports;
	struct dp_barrier barrier;
	struct dp_record rec;
	/* cut into partitions (parallel.h); par NULL: one engine, eng */
	struct dp_par *par;
	uint32_t *part_w, *part_sw;				/* [w_count], [n_sw] */
	struct dp_xin *xin;					/* cut links' far ends */
	uint32_t n_xin, cap_xin;
	struct dp_elem **all;					/* every element by gid */
	uint32_t n_all;
	uint32_t lcores;					/* partitions run on */
	uint64_t ev_stop;					/* dp_topo_advance() returns
								 * 2 from this many events
								 * on (0: every
								 * DP_ADVANCE_EVENTS) */
};

/** Whether data centre @p d runs in this process. */
static inline bool
dp_topo_here(const struct dp_topo *t, uint32_t d)
{
	return t->local == UINT32_MAX || (d < 32 && ((t->local >> d) & 1u));
}

/** Build the graph of @p p's program; 0, or -EINVAL / -ENOMEM with a message. */
int dp_topo_build(struct dp_topo *t, const struct dp_topo_params *p, char *err, size_t errlen);

/** Start the workers (unless @p no_sync), background hosts and probe at the run's start. */
void dp_topo_start(struct dp_topo *t, bool no_sync);

/** Stop the background hosts and the probe (the workers are done): the rest drains. */
void dp_topo_stop(struct dp_topo *t);

/**
 * Run the calendar of a started topology until one more step is done, or the run can make no
 * more progress, or an element fails.
 *
 * In virtual time (@p watchdog 0) the run has stalled exactly when nothing of the sync is in
 * progress (dp_engine.sync_wip: no frame of it queued or in flight anywhere, no compute, round or
 * module stream pending) while a worker has not finished: it stops at the event that ended the
 * last of it, however long a step takes, and background traffic or the probe neither hide a stall
 * nor cause one.  In real time frames on a wire are out of sight: a run that makes no step for
 * @p watchdog ps of emulated time has stalled.
 *
 * @return 1 (a step more is done), 0 (no step: stalled, or nothing left to run), 2 (virtual time:
 *         DP_ADVANCE_EVENTS events run, or dp_topo.ev_stop reached, and the step goes on; call
 *         again), or the engine's error (< 0)
 */
int dp_topo_advance(struct dp_topo *t, dp_time_t watchdog);

/** Events a virtual-time dp_topo_advance() runs at most before it returns 2 (about a second). */
#define DP_ADVANCE_EVENTS (UINT64_C(1) << 23)

/** Frames the workers here have made so far. */
uint64_t dp_topo_frames_made(const struct dp_topo *t);

/**
 * Where the run waits: the first worker in a round (waiting for frames or its module), else the
 * first that has not finished, as dp_worker_describe() gives it, and how many have not finished.
 */
int dp_topo_waiting(const struct dp_topo *t, char *buf, size_t len);

/**
 * The end-of-run invariants: every worker done; every link, switch and module empty, with
 * frames in = out + dropped; frames made = received + consumed by modules + dropped; in virtual
 * time nothing of the sync left in progress (dp_engine.sync_wip 0); the mbuf pool full again.
 * 0, or -EPROTO with a message naming the element.
 */
int dp_topo_check(const struct dp_topo *t, char *err, size_t errlen);

/**
 * Ranks (ranks.h), at the run's end, on every rank: every element's counters from the rank that
 * ran it (so that dp_topo_check() and the summary see the whole graph), and to rank 0 the
 * partitions' background counters and probe samples.  0 or -errno; a no-op with one rank.
 */
int dp_topo_gather_end(struct dp_topo *t);

/**
 * Ranks: the run's outcome agreed by every rank: the first of the ranks' @p rc that is not 0
 * (with its message into @p err), in rank order.  Returns it; @p rc with one rank.
 */
int dp_topo_agree(const struct dp_topo *t, int rc, char *err, size_t errlen);

/**
 * Run what is left (the sync done, the background stopping) to the end: nothing pending.
 * @return 0 or the engine's error
 */
int dp_topo_drain(struct dp_topo *t);

/** Partitions: the topology's engine shows what they add up to (events, work, time, error). */
void dp_topo_par_view(struct dp_topo *t);

/** Free everything (frames still held are returned to the pool). */
void dp_topo_free(struct dp_topo *t);

#endif /* DP_TOPOLOGY_H */

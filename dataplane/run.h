/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A run: one variant at one module budget for N steps on the packet data plane, with its
 * per-step times, the share each resource held, and the end-of-run invariants checked.
 */
#ifndef DP_RUN_H
#define DP_RUN_H

#include <signal.h>

#include "../models/packet.h"
#include "../models/step.h"
#include "capture.h"
#include "engine.h"
#include "rt.h"
#include "tcp.h"
#include "topology.h"
#include "tune.h"

struct rte_ring;
struct dp_step_result;

/**
 * Where a run's steps, queue samples and background transfers go as they are made
 * (dp_run_params.sink), so that nothing of them is kept in the run's memory.  Each is called from
 * inside the run, between two events: it must not block.
 */
struct dp_run_sink {
	void *arg;
	/** Step @p s is done by every worker; @p changes: those applied so far (tune.h). */
	void (*step)(void *arg, uint32_t s, const struct dp_step_result *sr,
		     const struct dp_change *changes, uint32_t nchanges);
	/** The WAN queues at @p t (may be NULL): frame bytes of each of @p n links. */
	void (*sample)(void *arg, dp_time_t t, const uint64_t *bytes, const char *const *names,
		       uint32_t n);
	/** A background transfer completed (may be NULL): 0, or -ENOMEM to fail the run. */
	int (*transfer)(void *arg, double fct, double wait);
};

struct dp_run_params {
	const struct sm_params *model;
	const struct sm_packet *pk;
	enum sm_variant var;
	double budget;				/**< module compute budget, FLOP/s (0: free) */
	uint32_t steps;
	uint32_t run_id;			/**< in every frame's header */
	dp_time_t t0;				/**< virtual time the run starts at */
	uint64_t q_nic, q_port, q_sw, q_wan;	/**< queue limits, frame bytes */
	struct dp_capture *cap;			/**< NULL: no trace */
	dp_time_t trace_until;			/**< frames traced up to t0 + this; 0: all */
	struct rte_mempool *pool;
	struct dp_bg_params bg;			/**< background on the WAN (load 0: none) */
	dp_time_t bg_only;			/**< > 0: no sync, background alone this long */
	int budget_kind;			/**< enum sm_budget the run charges, -1: none */
	struct dp_rt *rt;			/**< real time (rt.h), NULL: virtual time */
	const volatile sig_atomic_t *stop;	/**< set (by a signal handler): end the run
						 *   after the step in progress, NULL: never */
	const struct dp_kernel *kernel;		/**< the module's link-kernel program, NULL:
						 *   the model's ops per byte (kernel_prog.h) */
	/* runtime control (NULL: none): requests in, answers out, the status published */
	struct rte_ring *ctl_req, *ctl_resp;
	struct dp_status *status;
	/** Called as steps finish, and in virtual time every DP_ADVANCE_EVENTS events of a long
	 *  step (may be NULL): steps done, of how many, frames the workers here made so far,
	 *  the last step's end (ps from the run's start; 0: none yet) and, in real time, how far
	 *  the clock had gone past it (the engine's lag, ps; 0 in virtual time).
	 *  @c stop is looked at then too: a long step is left out, not waited for. */
	void (*progress)(void *arg, uint32_t done, uint32_t steps, uint64_t frames,
			 dp_time_t end, dp_time_t lag);
	void *progress_arg;
	/** NULL: the result keeps every step, queue sample and transfer (step[], q_t, q_bytes,
	 *  bg.fct, bg.wait); else they go to the sink as they are made and the result keeps
	 *  their counts and totals only. */
	const struct dp_run_sink *sink;
	bool hold_record;			/**< for the tests: the record keeps every step to
						 *   the end, as a run split over two processes */
	bool bytes;				/**< frames have bytes (mbufs from @c pool) even
						 *   without a trace or ports: to measure them */
	uint32_t partitions;			/**< engines the graph is cut into (parallel.h;
						 *   0, 1: one); virtual time */
	uint32_t lcores;			/**< lcores the partitions share (0, 1: the
						 *   caller's alone) */
	struct dp_topo_impair impair;		/**< the links' impairments (none: zeroed) */
	uint64_t max_events;			/**< virtual time, > 0: a sample, ended once this
						 *   many events have run (in partitions, at the
						 *   window's end): dp_run_result.sampled, nothing
						 *   checked; 0: the whole run */
	bool fast_forward;			/**< virtual time: replay the steps that repeat the
						 *   last (ffwd.h; run.fast_forward = exact) */
	dp_time_t window;			/**< virtual time in one partition: a link's
						 *   event delivers the frames due this far past
						 *   it (run.fast_forward = steady; 0: exact;
						 *   DP_WINDOW_AUTO: the least latency of a link) */
};

#define DP_WINDOW_AUTO UINT64_MAX

/** One step as emulated. */
struct dp_step_result {
	dp_time_t end;				/**< when the last worker finished it */
	dp_time_t time;				/**< end minus the previous step's end */
	uint64_t frames;			/**< frames the workers made */
	double share[SM_RES_COUNT];		/**< of the step, by resource: in step[] with the
						 *   module rounds' at the run's binding stage; to a
						 *   sink without them (module_share) */
	double module_share;			/**< the module rounds' share: a sink adds it at
						 *   dp_run_result.binding when the run ends */
	bool changed;				/**< a live change landed during the step: at or
						 *   after the previous step's end, before its own */
	uint32_t changes_before;		/**< changes that landed before the step began: the
						 *   parameters in force are the run's with these */
};

/** An element's totals. */
struct dp_elem_summary {
	char name[32];
	const char *kind;
	uint64_t rx, tx, drop;
	uint64_t max_qbytes;
	double util;				/**< busy fraction of the run (links) */
	uint64_t fg_over;			/**< sync frames queued above the limit */
	uint64_t bg_drop;			/**< background frames dropped */
	bool impaired;				/**< a link with impairments: */
	uint64_t lost, reordered;		/**< frames lost on its wire, overtaken */
	uint64_t corrupted, duplicated;		/**< with a bit flipped, delivered twice */
	uint64_t marked, aqm_drop;		/**< marked CE, dropped early by RED */
	bool has_wait;				/**< a WAN link: its frames' queueing delays */
	struct dp_wait_summary wait[DP_WAIT_CLASSES];
};

struct dp_run_result {
	uint32_t steps;
	struct dp_step_result *step;		/**< [steps]; NULL with a sink */
	uint64_t frames;			/**< made by the workers */
	uint64_t events;
	uint64_t drops;
	struct dp_tcp_stats tcp;		/**< job.transport = tcp: the workers' TCP */
	struct dp_tcp_stats bulk;		/**< background.bulk's flows (bytes_in: delivered) */
	dp_time_t t_start, t_end;
	bool has_module;
	enum sm_stage binding;			/**< the modules' busiest stage */
	uint32_t n_elems;
	struct dp_elem_summary *elems;
	struct dp_bgstats bg;			/**< background transfers (arrays owned) */
	/* the WAN queues sampled over time (owned) */
	uint32_t q_links;			/**< links sampled */
	char q_names[DP_PROBE_LINKS][32];
	uint64_t q_n;				/**< samples (kept, or given to the sink) */
	dp_time_t *q_t;				/**< [q_n]; NULL with a sink */
	uint64_t *q_bytes;			/**< [q_n x q_links]; NULL with a sink */
	struct dp_rt_report rt;			/**< real time: the clock, ports, lateness */
	bool interrupted;			/**< ended by dp_run_params.stop before its
						 *   steps were done (steps: those done) */
	bool sampled;				/**< ended at dp_run_params.max_events */
	double run_s;				/**< wall time running the events (the graph's
						 *   build and summary apart) */
	uint32_t nchanges;			/**< changes applied during the run */
	struct dp_change *changes;		/**< [nchanges] (owned) */
	uint32_t record_slots;			/**< steps the record held at once, at most */
	uint32_t partitions;			/**< engines the graph ran in */
	uint32_t lcores;			/**< lcores they ran on (per rank) */
	uint32_t ranks;				/**< processes they ran in (MPI: ranks.h) */
	uint64_t windows;			/**< partitions: synchronous windows run */
	dp_time_t lookahead;			/**< partitions: the windows' length */
	double busy_s, busy_max_s;		/**< partitions: wall time spent running events,
						 *   all together and the busiest one's */
	uint64_t lcore_sleeps;			/**< partitions: times an lcore slept waiting for
						 *   another, its spin over (gate.h) */
	uint64_t steals;			/**< partitions: partitions an lcore ran for one
						 *   that was late */
	/* the exact fast-forward (ffwd.h) */
	bool ff_on;				/**< it watched the run's steps for a repeat */
	uint32_t ff_replayed;			/**< steps replayed, not emulated */
	uint64_t ff_events;			/**< events those steps stand for (in events,
						 *   not run) */
	uint64_t ff_frames;			/**< frames they stand for (in frames) */
	char ff_why[128];			/**< why it was off or replayed nothing */
	dp_time_t window;			/**< the steady window it ran with (0: none) */
	uint32_t window_links;			/**< links: all */
	uint32_t window_unordered;		/**< links with less latency than the window:
						 *   their queues take frames as they come */
};

/**
 * Run @p p.  On success @p res holds the steps and totals (free with dp_run_result_free()).
 *
 * @return 0; -EINVAL for parameters the data plane cannot run; -ENOBUFS if the pool ran dry;
 *         -EPROTO if an invariant failed or the run stalled; the message in @p err names the
 *         element
 */
int dp_run(const struct dp_run_params *p, struct dp_run_result *res, char *err, size_t errlen);

void dp_run_result_free(struct dp_run_result *res);

/**
 * Mbufs a run of @p p needs at most: a few bursts per worker, a whole WAN round in each WAN
 * queue (up to its limit), and for a module in the network a whole dense gradient per module.
 */
uint32_t dp_run_pool_need(const struct dp_run_params *p);

/**
 * The same count, not clamped to the 32 bits of a mempool's size (scenario limits refuse a run
 * whose count does not fit); 0 if the program cannot be built.
 */
uint64_t dp_run_pool_count(const struct dp_run_params *p);

#endif /* DP_RUN_H */

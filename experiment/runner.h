/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Running a scenario's variants on the data plane and setting the models beside them: what
 * `syncemu run` and `syncemu sweep` share.
 */
#ifndef SYNCEMU_RUNNER_H
#define SYNCEMU_RUNNER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "autopart.h"
#include "capture.h"
#include "kernel.h"
#include "packet.h"
#include "queueing.h"
#include "run.h"
#include "scenario.h"
#include "sharedwan.h"

/** One variant at one module budget. */
struct contender {
	enum sm_variant var;
	enum sm_budget b;
	double budget;		/**< FLOP/s, 0 = not charged */
	char label[16];		/**< "E'[free]" */
};

#define RUNNER_MAX (SM_VAR_COUNT * SM_BUDGET_COUNT)

/** The contenders a scenario selects ([report] variants and budgets). */
unsigned int contenders_of(const struct sc_scenario *sc, struct contender *out);

/** A WAN queue's occupancy over a run. */
struct queue_summary {
	char name[32];
	double mean, p99, max;	/**< frame bytes (p99: stream.h's sketch beyond 2048 samples) */
};

/**
 * The WAN queues over time for --json: at most QUEUE_POINTS samples per link, every 2^k-th of
 * the run's (k grows as the run does, so the points stay evenly spaced and bounded).
 */
#define QUEUE_POINTS 2000u

struct queue_points {
	uint32_t n;		/**< points kept */
	uint64_t stride;	/**< every stride-th sample */
	uint64_t seen;		/**< samples seen */
	double *t;		/**< [QUEUE_POINTS] s */
	uint64_t *bytes;	/**< [QUEUE_POINTS x links] */
};

/** A step kept for the report: the first and last runner.keep of a run. */
struct kept_step {
	uint32_t s;
	struct dp_step_result r;
	double pm_ps;		/**< the closed form of the parameters in force, ps (NAN: none) */
	double fluid;		/**< the fluid step of those parameters, s */
};

/** The parameters of a run between two live changes, and how its steps compared. */
struct regime {
	uint32_t changes;	/**< changes in force (dp_run_result.changes[0 .. changes - 1]) */
	uint32_t first, last;	/**< steps wholly under them */
	uint32_t steps;		/**< of which compared with the closed form */
	double pm_sum;		/**< of the closed form over them, ps */
	double max_rel;		/**< max |emulated - packet| / packet over them (NAN: none) */
	double fluid, bound;	/**< the fluid step (s) and bound of these parameters */
	bool bound_holds;
};

/** What the status says (outcome_flags()): several at once where several hold. */
enum outcome_flag {
	OF_FAILED,		/**< the run failed (then the only one) */
	OF_INTERRUPTED,		/**< ended by a signal after its step */
	OF_REAL_TIME,		/**< paced by the TSC: the closed form holds up to lateness */
	OF_BEHIND,		/**< real time: events ran late by more than OUTCOME_BEHIND of a
				 *   step (p99): the host could not keep up (said next to it) */
	OF_DROPS,		/**< frames dropped at a queue: the fluid models have none */
	OF_CHANGED,		/**< a live change landed during the run */
	OF_BOUND,		/**< the fluid bound's claim does not hold here */
	OF_OVERLAP,		/**< rounds overlap: no closed form */
	OF_NO_CLOSED,		/**< no closed form (for another reason) */
	OF_DIFFERS,		/**< a step differs from the closed form (beyond 1e-6) */
	OF_NO_MODEL,		/**< under load: the fluid shared-WAN model failed */
	OF_IMPAIRED,		/**< a link loses frames or varies their delay ([impair]) */
	OF_COUNT
};

/** Real time: the host fell behind when events ran later than this share of a step (p99). */
#define OUTCOME_BEHIND 0.1

/** A run with everything beside it. */
/** Quantiles of the background completion times kept (0, 2.5 %, ..., 100 %). */
#define OUTCOME_FCT_Q 41

struct outcome {
	struct contender c;
	uint32_t run_id;
	int rc;			/**< 0, or dp_run()'s error */
	char err[512];
	struct dp_run_result res;	/**< totals only: the steps went to the statistics below */
	double wall;		/**< s */
	double bg_only;		/**< > 0: no sync, the background alone for this long, s */
	bool auto_on;		/**< run.partitions = auto, chosen by a calibration: */
	struct dp_auto autop;	/**< what it found (autopart.h) */
	/* the steps kept for the report: the first keep, and the last keep in a ring */
	struct kept_step *first, *last;
	uint32_t nfirst, nlast, keep;
	uint32_t last_next;	/**< the oldest of last[] once it is full */
	/* zero load: the packet-level closed form, step by step, and the fluid model */
	int pm_rc;		/**< 0; -ERANGE: rounds overlap; -ENODATA: not computed */
	uint32_t pm_steps;	/**< steps compared with it (those wholly under one setting) */
	double pm_mean;		/**< its mean over them, s */
	double max_rel;		/**< max |emulated - packet| / packet over them */
	double fluid;		/**< the deck's step, s (of the parameters at the end) */
	double bound;		/**< (packet - fluid) / fluid bound (likewise) */
	bool bound_holds;	/**< whether its claim holds (sm_packet_fluid_bound_holds()) */
	char bound_why[240];
	struct regime *regimes;	/**< [nregimes]: one, plus one per live change */
	uint32_t nregimes;
	uint32_t changed_steps;	/**< steps during which a change landed (not compared) */
	/* statistics of the emulated steps, s */
	struct sm_stats all, steady;
	double warm_mean;	/**< mean of the warm-up steps (NAN if none) */
	double share[SM_RES_COUNT]; /**< mean shares over the steps */
	/* under load: the fluid shared-WAN model over as many syncs with the same seed */
	bool loaded;
	struct sm_sharedwan_result ps, fifo;
	int model_rc;
	/* background */
	struct sm_stats fct, wait;	/**< completion times and waits of the transfers, s */
	double fct_q[OUTCOME_FCT_Q];	/**< completion time at each 1/(Q-1) quantile, s */
	double mg1_wait;		/**< M/G/1 (M/D/1 for fixed sizes) mean wait, s */
	double bg_util;			/**< offered load */
	uint32_t nq;
	struct queue_summary q[DP_PROBE_LINKS];
	struct queue_points qp;		/**< with runner.queue_points */
};

/** Process-wide state: the EAL and one mbuf pool for every run. */
struct runner {
	const char *eal;		/**< EAL arguments, NULL: the defaults */
	uint32_t partitions;		/**< [run] partitions (0: auto): with the default EAL
					 *   arguments, an lcore per partition up to the CPUs */
	uint32_t lcores;		/**< lcores the EAL has (after runner_start()) */
	char eal_buf[4096];		/**< the default EAL arguments made (dp_eal_default()) */
	bool apart;			/**< a file prefix of its own (dp_eal_init_apart()) */
	uint32_t mbufs;			/**< pool size; 0: from the plans */
	struct rte_mempool *pool;
	uint32_t frame_max;
	struct dp_capture *cap;		/**< NULL: no trace */
	bool progress, tty;		/**< progress lines on stderr */
	dp_time_t t0;			/**< the next run's start in virtual time */
	uint32_t next_run_id;
	/* runtime control (NULL: none) */
	struct rte_ring *ctl_req, *ctl_resp;
	struct dp_status *status;
	const volatile sig_atomic_t *stop;	/**< set: end the run after its current step */
	struct dp_rt *rt;			/**< real time (runner_rt_open), NULL: virtual */
	bool rt_agreed;				/**< ranks: runner_rt_open() failed on every rank alike */
	uint32_t extra_mb;			/**< EAL memory beyond the pool (the ports') */
	/* what a run keeps for the report (all else is streamed into its statistics) */
	uint32_t keep;				/**< steps kept at each end of a run (0: none) */
	bool queue_points;			/**< the WAN queues over time (struct queue_points) */
	FILE *queue_csv;			/**< every queue sample as CSV, as it is taken */
	FILE *steps_csv;			/**< every step as CSV, as it ends (run --csv) */
	bool steps_csv_streams;			/**< it is a FIFO or stdout: flushed every step */
	bool queue_csv_streams;			/**< it is a FIFO or stdout: flushed every step */
};

/** Steps syncemu run keeps at each end of a run for its report (--every-step, --json). */
#define RUNNER_KEEP 1000u

/** Mbufs a run of @p c under @p sc needs. */
uint32_t runner_need(const struct sc_scenario *sc, const struct contender *c);

/** The links' impairments of @p sc ([impair]) for a run's parameters. */
void runner_impair(const struct sc_scenario *sc, struct dp_topo_impair *ip);

/** impair.loss and impair.jitter, when set, over @p im (a link [impair] wan covers). */
void runner_impair_live(const struct sc_scenario *sc, struct sm_impair *im);

/** True if a link of @p sc has jitter (a run of it then takes one partition unless told). */
bool runner_jitter(const struct sc_scenario *sc);

/**
 * Before runs that emulate more than an hour of virtual time (at zero load: sc_runs_bound_s()),
 * say so on @p f, with the events the WAN queues' sampler adds, since such runs can take long
 * whatever --quiet says.  @p who prefixes the line ("syncemu run").  Returns the bound, s.
 */
double runner_note_long(const struct sc_scenario *sc, const struct contender *c, unsigned int n,
			const char *who, FILE *f);

/** Mbufs of the first pool of a compact frame pool (unless --mbufs), and of each pool added. */
#define RUNNER_POOL_FIRST 16384u
#define RUNNER_POOL_GROW 16384u

/**
 * Start the EAL and a pool of @p need mbufs (r->mbufs if set) for frames of @p frame_max bytes.
 * Without ports (r->extra_mb 0: no frame leaves the process) the pool is a compact frame pool
 * (dataplane/fpool.h) that starts at r->mbufs or at most RUNNER_POOL_FIRST mbufs and grows with
 * the frames in flight; with ports, @p need whole frames in the EAL's memory.
 * 0 or -errno with a message.
 */
int runner_start(struct runner *r, uint32_t need, uint32_t frame_max, char *err, size_t errlen);

/** Free the pool and stop the EAL (closing the real-time ports first). */
void runner_stop(struct runner *r);

/**
 * Real time ([run] clock = real): calibrate the clock, open the ports of [ports], and meet the
 * peer process if the data centres are split; the peer must run the same scenario and the same
 * @p n contenders (a hash of both is compared).  A no-op in virtual time.  0 or -errno with a
 * message.
 */
int runner_rt_open(struct runner *r, const struct sc_scenario *sc, const struct contender *c,
		   unsigned int n, char *err, size_t errlen);

/** Mbufs the ports of [ports] need beyond the runs' own (their descriptor rings). */
uint32_t runner_rt_need(const struct sc_scenario *sc);

/** MB of EAL memory the ports' own receive pools take. */
uint32_t runner_rt_mem_mb(const struct sc_scenario *sc);

/**
 * Run @p c under @p sc, then compute the models beside it.  The run gets the next run id and
 * starts on the next whole millisecond after the previous run.
 *
 * @param bg_only  > 0: no sync; background alone for this long (s)
 * @return 0 or the run's error (also in out->rc, with out->err)
 */
int runner_run(struct runner *r, const struct sc_scenario *sc, const struct contender *c,
	       double bg_only, struct outcome *out);

void outcome_free(struct outcome *o);

/** Mean emulated step, s (NAN without steps). */
double outcome_mean(const struct outcome *o);

/** The kept step @p i of the @p n outcome_kept() gives, in step order. */
const struct kept_step *outcome_kept_step(const struct outcome *o, uint32_t i);

/** Steps kept for the report (all of a run of up to 2 x keep steps). */
uint32_t outcome_kept(const struct outcome *o);

/** Real time that fell behind (OF_BEHIND): the dilation to try. */
double outcome_dilation_hint(const struct outcome *o);

/** The status flags of a run (1u << enum outcome_flag). */
unsigned int outcome_flags(const struct outcome *o);

/** A flag's id in JSON ("drops", "changed_live", ...). */
const char *outcome_flag_id(enum outcome_flag f);

/** The status: "ok", or what holds ("drops, changed live"), into @p buf. */
const char *outcome_status(const struct outcome *o, char *buf, size_t len);

#endif /* SYNCEMU_RUNNER_H */

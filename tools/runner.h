/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Running a scenario's variants on the data plane and setting the models beside them: what
 * `syncemu run` and `syncemu sweep` share.
 */
#ifndef SYNCEMU_RUNNER_H
#define SYNCEMU_RUNNER_H

#include <stdbool.h>
#include <stdint.h>

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
	double mean, p99, max;	/**< frame bytes */
};

/** A run with everything beside it. */
struct outcome {
	struct contender c;
	int rc;			/**< 0, or dp_run()'s error */
	char err[512];
	struct dp_run_result res;
	double wall;		/**< s */
	/* zero load: the packet-level closed form and the fluid model */
	struct sm_packet_step *pm;	/**< [steps], NULL if not computed */
	int pm_rc;		/**< 0; -ERANGE: rounds overlap; -ENODATA: not computed */
	double max_rel;		/**< max |emulated - packet| / packet */
	double fluid;		/**< the deck's step, s */
	double bound;		/**< (packet - fluid) / fluid bound */
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
	double mg1_wait;		/**< M/G/1 (M/D/1 for fixed sizes) mean wait, s */
	double bg_util;			/**< offered load */
	uint32_t nq;
	struct queue_summary q[DP_PROBE_LINKS];
};

/** Process-wide state: the EAL and one mbuf pool for every run. */
struct runner {
	const char *eal;		/**< EAL arguments, NULL: the defaults */
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
	uint32_t extra_mb;			/**< EAL memory beyond the pool (the ports') */
};

/** Mbufs a run of @p c under @p sc needs. */
uint32_t runner_need(const struct sc_scenario *sc, const struct contender *c);

/**
 * Start the EAL and a pool of @p need mbufs (r->mbufs if set) for frames of @p frame_max bytes.
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

#endif /* SYNCEMU_RUNNER_H */

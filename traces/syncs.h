/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rebuilding syncs from a capture.
 *
 * Two ways in.  A trace whose frames carry the syncemu header (syncemu's own traces, or a capture
 * of syncemu frames on a real network) is understood fully: runs, steps, rounds, sources and
 * destinations, foreground and background, and for every frame seen at a queue's ".in" and ".out"
 * capture points its queueing delay.  Any other trace (TCP or UDP between hosts, e.g. an MPI or
 * NCCL-like all-reduce) is cut into bursts between idle gaps, or into periods, over the packets a
 * BPF filter selects.
 */
#ifndef TR_SYNCS_H
#define TR_SYNCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** A capture point's totals. */
struct tr_point {
	char name[64];
	uint64_t frames, bytes;		/**< frame bytes (original length) */
	uint64_t bg_frames, bg_bytes;	/**< of which background */
	/* frames seen at "<base>.in" and here (an ".out" point): their queueing delay */
	uint64_t delays;
	double delay_sum_ns, delay_max_ns;
	uint64_t fg_delays;
	double fg_delay_sum_ns;
};

/** One step of a run as the trace shows it. */
struct tr_step {
	uint32_t step;			/**< its number in the frames' headers */
	uint64_t first_ns;		/**< first record of the step, any point */
	uint64_t first_dep_ns;		/**< earliest departure_ns in its headers */
	uint64_t end_ns;		/**< last record at a worker's receive point ("rx"), else at
					 *   any point */
	uint64_t frames, bytes;		/**< at the points counted once (tx, else all) */
	uint32_t rounds;		/**< highest round seen + 1 */
	uint64_t *round_end;		/**< [rounds]: each round's last record (rx, else any) */
	uint64_t *round_dep;		/**< [rounds]: each round's first departure (header) */
	uint32_t round_cap;
};

/** A run: the frames with one run id. */
struct tr_run {
	uint32_t run_id;
	uint32_t nsteps, cap;
	struct tr_step *step;		/**< the steps that have frames, in step order (a step
					 *   number no frame carries is not there) */
	uint64_t frames, bg_frames;
	bool ends_at_rx;		/**< the step ends come from rx points */
};

/** A flow of a generic trace: one direction of a 5-tuple. */
struct tr_flow {
	uint8_t src[16], dst[16];
	int family;
	uint8_t proto;
	uint16_t sport, dport;
	uint64_t packets, bytes;
	uint32_t order;			/**< the order it was met in */
};

/** Everything rebuilt from a syncemu trace. */
struct tr_syncs {
	uint32_t nruns;
	struct tr_run *run;
	uint32_t npoints;
	struct tr_point *point;		/**< by interface id */
	uint64_t frames, se_frames;	/**< all frames, and those with the syncemu header */
	uint64_t other;			/**< frames without it */
	uint64_t unordered;
	bool has_rx;
};

struct tr_reader;

/** A run the trace announces (its header's "runs: 1=A 2=E'[free]"). */
struct tr_run_limit {
	uint32_t run_id;
	uint32_t rounds;		/**< rounds a step of its variant has; 0: not known */
};

/**
 * What the trace's own header (the scenario it carries) makes possible: a frame beyond it is
 * refused naming the frame.  Each limit 0 (or @c nruns 0): not known.
 */
struct tr_syncs_limits {
	uint32_t steps;			/**< steps a run has: a frame's step is below it */
	uint32_t nodes;			/**< workers: a sync frame's source and destination
					 *   are below it (a module has its worker's number) */
	uint32_t nruns;			/**< runs announced: no other run id is */
	const struct tr_run_limit *run;	/**< [nruns] */
};

/** Without the trace's scenario, a round number from this up is refused as not plausible. */
#define TR_ROUNDS_PLAUSIBLE 4096u

/**
 * Read every packet of @p r and rebuild the syncemu runs.  Memory holds the runs and the steps
 * the frames name (whatever their numbers) and the frames waiting at a queue's ".in" for its
 * ".out".
 *
 * @param lim  the trace's own limits (NULL: none known)
 * @return 0; -EINVAL/-EIO with a message naming the frame or byte offset on a bad file (a
 *         header @p lim makes impossible: the frame, the field and the limit); -ENOMEM
 */
int tr_syncs_read(struct tr_reader *r, const struct tr_syncs_limits *lim, struct tr_syncs *out,
		  char *err, size_t errlen);

void tr_syncs_free(struct tr_syncs *s);

/* ---- traces without the syncemu header ---- */

/** What to take from a generic trace. */
struct tr_burst_params {
	const char *filter;		/**< BPF expression (libpcap syntax), NULL: all IP */
	const char *ifaces;		/**< only packets of these interfaces
					 *   (tr_reader_select()); NULL: all */
	double gap_s;			/**< idle gap that ends a burst; 0: automatic */
	double period_s;		/**< > 0: fixed periods instead of gaps */
	bool payload;			/**< count TCP/UDP payload bytes, not frame bytes */
};

/** A burst: a step's sync as the capture shows it. */
struct tr_burst {
	uint64_t start_ns, end_ns;
	uint64_t packets, bytes;
	uint32_t flows;			/**< distinct flows (one direction of a 5-tuple) */
};

struct tr_bursts {
	uint32_t n, cap;
	struct tr_burst *b;
	uint64_t packets, selected;	/**< all, and those the filter kept */
	uint64_t not_ip;		/**< frames that are not IP (or of unknown link types) */
	uint64_t unordered;		/**< came with a timestamp below the previous one */
	uint64_t late;			/**< of those, came more than TR_REORDER_MAX packets
					 *   late: counted at the time of the last one before */
	double gap_s;			/**< the gap used */
	bool gaps_thinned;		/**< automatic gap: more than TR_BURST_GAPS_MAX gaps over
					 *   100 us, the shortest of them left out */
	double max_inside_s;		/**< largest gap inside a burst */
	double min_between_s;		/**< smallest gap between bursts */
	char how[256];			/**< how the trace was split, in words */
	uint32_t nflows;		/**< distinct flows, all of them */
	struct tr_flow *flow;		/**< by bytes, largest first */
};

/** Flows at most (a capture with more is refused: give a filter). */
#define TR_BURST_FLOWS_MAX (1u << 20)

/** Bursts at most (more is refused: a longer gap or period). */
#define TR_BURSTS_MAX 10000000u

/** Packets held to put them in time order (a power of 2). */
#define TR_REORDER_MAX (1u << 16)

/** Gaps over 100 us kept for the automatic gap (beyond, the shortest are dropped). */
#define TR_BURST_GAPS_MAX (1u << 20)

/**
 * Cut the packets @p p selects in the capture at @p path into bursts, in time order (bursts.c:
 * one pass, two for the automatic gap; memory holds the flows and the bursts, not the packets).
 * The automatic gap is the largest jump between consecutive sorted inter-packet gaps above
 * 10 x their median (at least 100 us): the break between "inside a burst" and "between bursts".
 *
 * @return 0; -EINVAL (a bad filter: the message has libpcap's words; a bad file); -E2BIG (more
 *         than TR_BURST_FLOWS_MAX flows or TR_BURSTS_MAX bursts); -ENOMEM
 */
int tr_bursts_read(const char *path, const struct tr_burst_params *p, struct tr_bursts *out,
		   char *err, size_t errlen);

void tr_bursts_free(struct tr_bursts *b);

/** An alpha-beta model: time = alpha + bytes / beta. */
struct tr_fit {
	double alpha;			/**< s */
	double beta;			/**< B/s */
	double r2;			/**< of the least-squares fit (NAN if not fitted) */
	bool alpha_fixed;		/**< one burst size: alpha not identifiable, set to 0 */
};

/** Fit alpha and beta to the bursts' (bytes, duration) by least squares; -EINVAL if < 1 burst,
 *  -ENOMEM. */
int tr_fit_alpha_beta(const struct tr_burst *b, uint32_t n, struct tr_fit *fit);

/** Fit time = alpha + bytes / beta to @p n points (@p x bytes, @p y seconds) by least squares;
 *  -EINVAL if n is 0.  One size only (or no positive slope): alpha_fixed, beta from the sums. */
int tr_fit_points(const double *x, const double *y, uint32_t n, struct tr_fit *fit);

#endif /* TR_SYNCS_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Real time: the same elements and the same calendar, with events due against the TSC (clock.h),
 * the WAN traffic of some data centres crossing DPDK ports (port.h), and optionally the data
 * centres split over two processes, one per set of DCs, joined by ports (memif here, NICs on a
 * testbed).
 *
 * Emulated time runs @c dilation times slower than real time: every rate is divided by it and
 * every delay multiplied, as seen from the wire; the elements and the results stay in emulated
 * time, so the step times compare with the model directly.
 *
 * Split over MPI ranks (`mpirun -np R syncemu run ...`, ranks.h): each rank runs a set of data
 * centres (its own ports.local, or a contiguous block by rank), rank 0 leads, and MPI carries the
 * control while the frames cross the DPDK ports.  At start every rank's port status, scenario
 * hash and DCs are gathered by every rank, which gives every rank the same verdict (a rank whose
 * port did not come up fails them all, named); before each run the ranks' clocks are compared
 * with rank 0's (the shortest of 8 MPI round trips each) and rank 0 broadcasts the start; during
 * the run each rank posts ARRIVED (run, generation) to the others when its workers are in; at the
 * end, once idle, the ranks sum the frames sent and received through their ports in rounds of a
 * non-blocking all-reduce until two rounds agree with each other and sent equals received; then
 * rank 0 gathers every rank's per-step record and port figures and merges them.
 *
 * Two processes without MPI: the one with DC 0 leads, over the ports themselves.  At start each
 * says HELLO (the scenario's hash, its
 * DCs) until both have heard the other; the leader measures the offset between their clocks by
 * ping-pong (the smallest round trip of 32); before each run it sends START (the real time the run
 * begins, on the follower's clock) until acknowledged.  During the run a phase barrier is split:
 * each side says ARRIVED when its workers are in.  At the end each side says DONE (frames sent
 * through its ports) once idle, waits until it has received as many, and the follower sends its
 * per-step record (RESULT), which the leader merges into its own.  Messages are UDP to port
 * 47113, little-endian (struct rt_msg in rt_peer.c).
 */
#ifndef DP_RT_H
#define DP_RT_H

#include <stdbool.h>
#include <stdint.h>

#include "clock.h"
#include "engine.h"
#include "port.h"

#define DP_RT_DC_MAX 16
#define DP_RT_LINK_MAX 8		/**< links of the topology through ports */
#define DP_RT_PORT_MAX (DP_RT_DC_MAX + 2 * DP_RT_LINK_MAX)

/** A link through ports: its frames leave through @p tx and come in through @p rx. */
struct dp_rt_link {
	const char *name;		/**< wN.nic, dcD>wN, dcD>mN */
	const char *tx, *rx;		/**< devargs; ring:NAME for both: the pair's two ends */
};

struct dp_topo;
struct dp_tcp_stats;

struct dp_rt_params {
	double dilation;		/**< >= 1 */
	double calibrate_s;		/**< TSC calibration time, 0.1 to 10 s */
	uint32_t n_dc;
	uint32_t local;			/**< DCs run here (1u << d) */
	const char *port[DP_RT_DC_MAX];	/**< devargs of DC d's port; NULL or "": none */
	struct dp_rt_link link[DP_RT_LINK_MAX];
	uint32_t n_links;
	int wait_ms;			/**< for links, the peer, the end of a run */
	uint64_t config;		/**< what both processes must agree on (a hash) */
	struct rte_mempool *pool;
	uint32_t frame_max;		/**< the largest frame a run sends */
	bool *agreed;			/**< out (MPI ranks), if not NULL: true when a failure of
					 *   dp_rt_open() is every rank's (all alive, all refusing
					 *   alike), false when it may be this rank's alone */
	bool realtime;			/**< the TSC as CLOCK_REALTIME, kept in step across hosts
					 *   by PTP: the ping-pong offset is measured, not used */
};

/** A port's figures for the report. */
struct dp_rt_port_report {
	char name[24];			/**< "dc0.eth"; a link's ends "w0.nic.tx", "w0.nic.rx" */
	char dev[256];
	uint64_t tx, tx_bytes, tx_deferred, rx, rx_bytes, rx_other, rx_stale, tx_ctl, rx_ctl;
	uint64_t dev_rx_dropped, dev_tx_errors;	/**< the device's own losses (rte_eth_stats) */
	uint64_t late_n;		/**< frames whose release lateness was measured */
	double late_median_ns, late_p99_ns, late_p999_ns, late_max_ns;
	bool hw_ts;			/**< RX stamps from the NIC; else the TSC at the poll */
};

/** What a real-time run reports beside its steps. */
/** TCP counts a split run's sides exchange (struct dp_tcp_stats's 8, in its order). */
#define DP_RT_TCP_VALS 8

struct dp_rt_report {
	bool on;
	double dilation;
	double hz, hz_nominal;		/**< TSC rate measured, and DPDK's */
	bool split, leader;
	uint32_t local;
	int64_t offset_ns;		/**< the peer's clock minus ours (ping-pong); MPI: of
					 *   the rank furthest from rank 0's */
	uint64_t rtt_ns;		/**< the smallest control round trip (MPI: the largest
					 *   of the ranks' smallest) */
	uint32_t ranks;			/**< MPI ranks of a split run; 0: none */
	bool realtime;			/**< clocks in step by PTP: the offset was not applied */
	uint32_t n_ports;
	struct dp_rt_port_report port[DP_RT_PORT_MAX];
	uint32_t n_peer_ports;		/**< the leader: the follower's ports (MPI: every
					 *   other rank's) */
	struct dp_rt_port_report peer_port[DP_RT_DC_MAX];
	uint64_t behind;		/**< polls made while events were overdue */
	uint64_t idle;			/**< polls made while nothing was due */
	uint64_t lag_events;		/**< events run */
	double lag_p99_ps, lag_p999_ps, lag_max_ps;	/**< how late they ran (emulated) */
	uint64_t cross;			/**< partitions: frames that crossed cut links */
	uint64_t cross_late;		/**< of them, taken after their arrival time */
	dp_time_t cross_late_max;	/**< ps, emulated: the latest any was */
	double start_late_ns;		/**< how late the first event ran */
	bool merged;			/**< the steps are both sides' (the leader) */
	uint64_t peer_tcp[DP_RT_TCP_VALS];	/**< the leader: the other side's (every other
						 *   rank's) TCP counts, dp_rt_tcp_add()'s order */
};

/** A partition's view of the real-time hooks (parallel.h): the ports of its own engine. */
struct dp_rt_scope {
	struct dp_rt *rt;
	struct dp_port *port[DP_RT_PORT_MAX];
	uint32_t n;
};

struct dp_rt {
	struct dp_clock clk;
	struct dp_rt_hooks hooks;
	struct dp_rt_hooks part_hooks[DP_RT_DC_MAX];	/**< partitions: by partition */
	struct dp_rt_scope scope[DP_RT_DC_MAX];
	struct dp_port port[DP_RT_PORT_MAX];	/**< the DCs' by DC, then the links' ends */
	struct dp_port *dc_port[DP_RT_DC_MAX];	/**< by DC; NULL: none */
	bool opened[DP_RT_PORT_MAX];
	struct dp_port *link_tx[DP_RT_LINK_MAX], *link_rx[DP_RT_LINK_MAX];
	char link_name[DP_RT_LINK_MAX][24];
	uint32_t n_links;
	struct dp_port *ctl;			/**< where control messages go (split) */
	uint32_t n_dc, local;
	bool split, leader;
	bool mpi;				/**< split over MPI ranks: the control is MPI's */
	int rank, nranks;
	int64_t off0;				/**< MPI: rank 0's clock minus ours */
	uint64_t sum_last[2];			/**< MPI: the last drain round's sent, received */
	bool sum_pending, sum_valid, drain_done;
	bool clean;				/**< MPI: every rank at the same point (closes together) */
	double dilation;
	int wait_ms;
	uint64_t config;
	int64_t offset_ns;
	uint64_t rtt_ns;
	/* the run in progress */
	uint32_t run_id;
	struct dp_topo *topo;
	bool sent_done, peer_done;
	uint64_t peer_tx;			/**< data frames the peer sent us in this run */
	struct dp_rt_port_report peer_port[DP_RT_DC_MAX];
	uint32_t n_peer_ports;
	uint64_t peer_tcp[DP_RT_TCP_VALS];	/* the other side's TCP counts (the leader) */
	uint64_t results, results_want;		/**< RESULT values received, announced */
	bool results_end;
	/* handshake state */
	bool got_hello, peer_has_ours, got_start, got_ack, got_pong;
	uint64_t start_ns, pong_sent, pong_peer;
	char why[256];				/**< a protocol error seen in a callback */
	uint64_t seen_other;			/**< control messages of no use now */
};

/**
 * Calibrate the clock, open the ports and, split, meet the peer (HELLO, then the clock offset).
 *
 * @return 0, or -errno with a message (a port that does not come up, a peer with another
 *         scenario or overlapping DCs, no peer within wait_ms)
 */
int dp_rt_open(struct dp_rt *rt, const struct dp_rt_params *p, char *err, size_t errlen);

/** Close the ports. */
void dp_rt_close(struct dp_rt *rt);

/**
 * Before run @p run_id of @p t (built with rt->dc_port and rt->local): agree with the peer on
 * when it starts, tie the clock's epoch to the run's first instant, and put the engine in real
 * time (split: the barrier too).  0 or -errno with a message.
 */
int dp_rt_begin(struct dp_rt *rt, struct dp_topo *t, uint32_t run_id, char *err, size_t errlen);

/**
 * After the steps (the background stopped): run on until every frame has arrived on both sides,
 * then (split) the follower hands its record to the leader, which merges it.  Fills @p rep.
 * 0 or -errno with a message.
 */
int dp_rt_end(struct dp_rt *rt, struct dp_topo *t, struct dp_rt_report *rep, char *err,
	      size_t errlen);

/** Add to @p s the TCP counts of the other side (every other rank) @p rep holds (the leader). */
void dp_rt_tcp_add(const struct dp_rt_report *rep, struct dp_tcp_stats *s);

#endif /* DP_RT_H */

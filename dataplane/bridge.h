/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A bridge: real frames between two DPDK ports through the emulated WAN, in real time.
 *
 * Each direction is the same chain of elements as a data centre's WAN in `syncemu run`:
 *
 *   port A rx -> [port cap] -> WAN link (FIFO, drop-tail, serialiser, latency) -> out -> port B tx
 *                               ^                                                 |
 *   background host -> host link                                      background sink
 *
 * and B -> A the same way.  A frame is taken as it is (dp_pkt_of_raw(): ARP, IPv6, TCP, RoCE
 * v2, jumbo; none parsed) and charged its bytes (sm_charge_frame()); background transfers are
 * made inside with syncemu's headers, queue in the same FIFO and end at the far end's sink
 * (also sent out with emit_bg).  The engine runs in real time (engine.c run_rt()): an arrival
 * is stamped with the emulated time it was taken (after the receive call that returned it), a
 * frame leaves when the emulated clock reaches its arrival at the far end, never before, and how
 * late that was is recorded per frame.
 *
 * Time: emulated time 0 is the bridge's start; the trace stamps it as that wall-clock moment
 * plus the emulated time (the TSC read as CLOCK_REALTIME), so a bridge's trace lines up with a
 * tcpdump of the hosts and with a job's own CLOCK_REALTIME times.
 *
 * Runtime control (tune.h requests through rings, as in dp_run()): wan.bandwidth, wan.latency
 * (both directions), background.load and queues.wan, applied between two events.
 */
#ifndef DP_BRIDGE_H
#define DP_BRIDGE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_ring.h>

#include "../models/packet.h"
#include "../models/queueing.h"
#include "bghost.h"
#include "bridge_out.h"
#include "clock.h"
#include "engine.h"
#include "../models/impair.h"
#include "link.h"
#include "port.h"
#include "tune.h"

/** Directions: DP_AB is what arrives on A, leaving on B. */
enum { DP_AB = 0, DP_BA = 1 };

struct dp_capture;

struct dp_bridge_params {
	const char *dev[2];		/**< devargs of ports A and B */
	uint64_t bw[2];			/**< the WAN's rate each way, B/s */
	dp_time_t delay[2];		/**< its latency each way, ps */
	uint64_t queue_bytes;		/**< the WAN queue's limit, frame bytes */
	struct sm_impair impair[2];	/**< the WAN's impairments each way (none: zeroed) */
	double imp_loss, imp_jitter;	/**< impair.loss, .jitter as they start (0: as set) */
	uint64_t port_rate;		/**< a port cap in front of the WAN queue, B/s; 0: none */
	uint64_t port_queue_bytes;	/**< its queue's limit */
	enum sm_account account;
	/* background: load on A -> B (and on B -> A when both_ways) */
	double load;			/**< fraction of the WAN rate, [0, 1) */
	bool both_ways;
	const struct sm_size_dist *sizes;
	uint64_t seed;
	uint32_t payload, burst;	/**< a background frame's payload; frames queued ahead */
	uint64_t host_bw;		/**< a background host's link, B/s */
	bool emit_bg;
	uint32_t frame_max;		/**< the largest frame a port takes */
	uint32_t mbufs;			/**< frames each port can hold inside; 0: auto */
	double dilation;		/**< >= 1 */
	double calibrate_s;
	int wait_ms;			/**< for each port's link */
	struct dp_capture *cap;		/**< NULL: no trace */
	struct rte_mempool *pool;	/**< background frames */
	/* runtime control (NULL: none) */
	struct rte_ring *ctl_req, *ctl_resp;
	struct dp_status *status;
};

/** One direction's figures. */
struct dp_bridge_dir_report {
	uint64_t in, in_bytes;		/**< frames taken at the near port */
	uint64_t out, out_bytes;	/**< real frames sent at the far port */
	uint64_t drops;			/**< real frames dropped at the WAN queue (or port cap) */
	uint64_t bg_frames, bg_bytes;	/**< background frames and payload at the far end */
	uint64_t bg_drops;		/**< background frames dropped at the queue */
	bool impaired;			/**< the WAN has impairments this way: */
	uint64_t lost, reordered;	/**< frames lost on its wire (real and background),
					 *   overtaken */
	uint64_t corrupted, duplicated;	/**< frames with a bit flipped, delivered twice */
	uint64_t marked, aqm_drops;	/**< frames marked CE, dropped early (RED; in drops) */
	uint64_t bg_started, bg_done, bg_incomplete, bg_emitted;
	double bg_fct_mean;		/**< s, of the transfers done (NAN: none) */
	uint64_t left;			/**< frames still queued or on the way at the end
					 *   (background ones too) */
	uint64_t max_qbytes;		/**< the WAN queue's largest occupancy, frame bytes */
	uint32_t max_qframes;
	double mean_qbytes;		/**< sampled every 100 us of emulated time */
	double busy;			/**< fraction of the time the WAN serialised */
	uint64_t tx_deferred;		/**< frames that waited for room in the far device */
	uint64_t dev_rx_dropped;	/**< the near device could not receive (its ring full, no
					 *   mbuf, errors: the sum of dev_in's) */
	uint64_t dev_tx_errors;		/**< the far device failed to send */
	struct dp_port_dev dev_in;	/**< the near device's own counts: every frame it took is
					 *   in (dev_in.rx_packets == in) or counted lost */
	uint64_t cut;			/**< taken cut short by the near device: dropped */
	uint64_t csum_finished;		/**< TCP/UDP checksums left by the sender, finished */
	uint64_t too_long;		/**< longer than the far port's MTU: dropped */
	uint64_t late_n;		/**< frames sent at the far port (lateness measured) */
	double late_median_ns, late_p99_ns, late_p999_ns, late_max_ns;
	uint64_t late_over;		/**< late by more than DP_LATE_OVER_NS */
	uint64_t early_n;		/**< sent before their time (none ever should be) */
	double early_max_ns;
	uint64_t bw;			/**< the rate and latency in force at the end */
	dp_time_t delay;
	uint64_t queue_bytes;
	double load;
};

struct dp_bridge_report {
	double seconds;			/**< emulated time run */
	uint64_t behind, idle;		/**< polls while events were overdue / nothing was due */
	uint64_t held_ns, holds, held_max_ns;	/**< the host kept the bridge from its ports:
						 *   in all, times, the longest (real ns) */
	uint32_t changes;		/**< live changes applied */
	double hz, hz_nominal;
	struct dp_bridge_dir_report dir[2];
};

struct dp_bridge {
	struct dp_engine eng;
	struct dp_clock clk;
	struct dp_rt_hooks hooks;
	struct dp_bridge_params p;
	struct dp_port port[2];
	bool opened[2];
	struct dp_link cap[2];		/**< port caps (if port_rate) */
	struct dp_link wan[2];
	int loss_point[2];		/**< each WAN's .loss capture point (-1: none) */
	double imp_loss, imp_jitter;	/**< impair.loss and impair.jitter in force */
	struct dp_bridge_out out[2];
	struct dp_link bglink[2];
	struct dp_bghost bg[2];
	struct dp_sink sink[2];
	struct dp_bgstats bgstats[2];
	bool has_bg[2];
	double load;			/**< the background load in force */
	/* the WAN queues sampled for their mean */
	dp_time_t next_sample;
	dp_time_t next_late;		/**< the status's lateness quantiles refreshed then */
	double qsum[2];
	uint64_t nsample;
	uint32_t polls;
	const volatile sig_atomic_t *stop;
	struct dp_change *changes;		/**< the live changes (step: UINT32_MAX) */
	uint32_t nchanges, chcap;
	dp_time_t end;			/**< emulated time the run ended (0: running) */
	/* polls further apart than DP_BRIDGE_HOLD_NS of real time: the host held the bridge */
	dp_time_t last_poll;
	uint64_t held_ns, holds, held_max_ns;
	uint64_t held_max_recent;	/**< the longest since the last tick */
};

#define DP_BRIDGE_HOLD_NS 1000000	/**< a gap between polls this long is a hold */

/**
 * Open the ports (the EAL is up), calibrate the clock, build both directions.  A port that
 * cannot open, or whose link does not come up within wait_ms, fails it with a message naming
 * the port ("bridge.a") and its device.  0 or -errno.
 */
int dp_bridge_open(struct dp_bridge *b, const struct dp_bridge_params *p, char *err,
		   size_t errlen);

/**
 * Run for @p seconds of emulated time (0: until *@p stop), calling @p tick about every
 * @p tick_s of real time (NULL: never) with the figures so far.  Changes queued on the control
 * ring before the run apply from its start.  0, or -errno with the message
 * in @p err (a frame lost where none may be: out of memory).
 */
int dp_bridge_run(struct dp_bridge *b, double seconds, const volatile sig_atomic_t *stop,
		  void (*tick)(void *arg, const struct dp_bridge *b), void *arg, double tick_s,
		  char *err, size_t errlen);

/** The figures so far (sorts the lateness samples: not in the data path). */
void dp_bridge_report(struct dp_bridge *b, struct dp_bridge_report *r);

/** Free frames still inside, close the ports. */
void dp_bridge_close(struct dp_bridge *b);

/** The mbufs each port needs (auto: from the queue and the rate x latency), and EAL MB. */
uint32_t dp_bridge_mbufs(const struct dp_bridge_params *p);
uint32_t dp_bridge_mem_mb(const struct dp_bridge_params *p);

#endif /* DP_BRIDGE_H */

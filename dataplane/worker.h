/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A worker: the source and sink of the sync, running its collective's program (models/packet.h,
 * struct sm_program) step after step.
 */
#ifndef DP_WORKER_H
#define DP_WORKER_H

#include <rte_common.h>

#include "../models/packet.h"
#include "barrier.h"
#include "engine.h"
#include "frame.h"

struct dp_link;
struct dp_module;
struct dp_record;
struct dp_tcp;

/** Configuration of a worker. */
struct dp_worker_params {
	uint32_t id;
	uint32_t per_dc;
	uint32_t run_id;
	uint32_t steps;
	const struct sm_program *prog;
	const struct sm_packet *pk;
	struct dp_link *nic;		/**< first hop of its flows */
	struct dp_link *port;		/**< port cap of its pluggable (E), or NULL */
	struct dp_module *module;	/**< its pluggable (E), or NULL; E' reaches its module by nic */
	struct dp_barrier *barrier;	/**< phase or step barrier, or NULL (sync none) */
	struct dp_barrier *fin;		/**< told when its last step is done (NULL: none) */
	struct dp_record *rec;		/**< where the run's per-step times go */
	struct dp_tcp *tcp;		/**< its TCP (job.transport = tcp), or NULL: frames */
	int cap_tx, cap_rx;
};

enum dp_worker_state {
	DP_W_COMPUTE,	/**< computing the step's gradient */
	DP_W_ROUND,	/**< in a round: queueing its frames and/or waiting for the peer's */
	DP_W_BARRIER,	/**< waiting for the other workers */
	DP_W_DONE,	/**< all steps done */
	DP_W_REDUCE,	/**< reducing (or copying) what the round brought (job.reduce_rate) */
};

/** Runtime state of a worker. */
/**
 * A bucket's all-reduce on one of the library's threads (job.threads over TCP): the round's state
 * of struct dp_worker, kept here while another lane's is in place.
 */
struct dp_lane {
	enum dp_worker_state state;	/**< DP_W_ROUND, DP_W_REDUCE; DP_W_DONE: free */
	uint32_t round, lane_end;	/**< its round; the first round past its bucket */
	bool tx_active, ready_sent, reduced;
	struct dp_flow flow;
	uint64_t tx_off;
	uint32_t tx_seq;
	uint16_t flow_chunk;
	uint64_t rest[SM_SENDS_MAX];
	uint32_t n_rest, n_sends, send_i;
	uint32_t dst[SM_SENDS_MAX];
	uint8_t tree[SM_SENDS_MAX];
	uint64_t in_bytes, cur_key, cur_got;
	dp_time_t cur_at;
	dp_time_t wake;			/**< its reduction ends (DP_W_REDUCE) */
};

struct dp_worker {
	struct dp_elem e;
	/* configuration */
	uint32_t id, per_dc, run_id, steps;
	const struct sm_program *prog;
	const struct sm_packet *pk;
	struct dp_link *nic, *port;
	struct dp_module *module;
	struct dp_barrier *barrier, *fin;
	struct dp_record *rec;
	struct dp_tcp *tcp;
	int cap_tx, cap_rx;
	/* where it is */
	enum dp_worker_state state;
	uint32_t step, round;
	uint32_t pending_round;		/**< what the barrier releases into (n: a new step) */
	/* what each segment or frame in touches, together */
	uint64_t cur_key, cur_got;	/**< the current round's step x rounds + round, its bytes
					 *   so far */
	dp_time_t cur_at;		/**< when the last of them came (run.fast_forward =
					 *   steady: maybe after an event of its own run before) */
	uint64_t in_bytes;		/**< bytes the current round receives */
	uint32_t n_lanes;		/**< 0: one round after another (lanes: below) */
	int32_t loaded;			/**< the lane in place, or -1 */
	uint64_t frames_made, frames_got, bytes_got;	/**< totals */
	/* the round's transmission: its flows one after another (several in a tree's round) */
	bool tx_active;
	struct dp_flow flow;
	struct dp_flow *fan;		/**< a fan's round: flow i's headers (cap_fan of them) */
	uint32_t cap_fan;
	uint64_t tx_off;		/**< payload bytes of the current flow queued so far */
	uint32_t tx_seq;
	uint16_t flow_chunk;		/**< the current flow's chunk */
	/* transport.protocol over TCP: what waits for a peer's control message */
	uint64_t rest[SM_SENDS_MAX];	/**< bytes of flow i still to write after its handshake */
	uint32_t n_rest;		/**< flows whose rest waits */
	bool ready_sent;		/**< the round's receive side has sent its control message */
	bool reduced;			/**< the round's input is reduced (job.reduce_rate) */
	dp_time_t left_at;		/**< it last left its progress loop (compute, reduce) */
	uint64_t unread_key;		/**< a round whose peer's rendezvous came while it was
					 *   out of its progress loop: answered after its own */
	struct dp_ctl { uint64_t key; uint32_t src; } *ctl_early; /**< control messages come
								   *   for rounds not begun */
	uint32_t n_ctl, cap_ctl;
	uint32_t n_sends, send_i;	/**< the round's flows, the one being queued */
	uint32_t dst[SM_SENDS_MAX];
	uint8_t tree[SM_SENDS_MAX];

	struct dp_got { uint64_t key, bytes; dp_time_t at; } *early;	/**< rounds not begun yet (a peer
							 *   ahead): their bytes so far */
	uint32_t n_early, cap_early;
	bool mod_done[2];
	/*
	 * The buckets' all-reduces at once (sm_program.threads, .lead_ps; TCP, no phase sync): a
	 * lane per thread.  Between events no lane is in place (loaded < 0, state is the
	 * worker's: computing, in its buckets, at the barrier or done); a lane's event puts its
	 * state in the fields above, runs, and takes it back.
	 */
	struct dp_lane *lanes;
	enum dp_worker_state wstate;	/**< the worker's state while a lane's is in place */
	uint32_t lane_end;		/**< the lane in place: the first round past its bucket */
	dp_time_t wake;			/**< the lane in place: its reduction's end */
	uint32_t n_buckets;
	uint32_t b_start[SM_PHASES_MAX + 1];	/**< bucket b's rounds: [b_start[b], b_start[b + 1]) */
	uint32_t b_ready, b_next, b_done;	/**< buckets ready, begun, done in the step */
	dp_time_t first_at, compute_at;	/**< the first bucket is ready; the compute ends */
} __rte_cache_aligned;

/** Set up a worker (it starts when dp_worker_start() is called); 0 or -errno. */
int dp_worker_init(struct dp_worker *w, struct dp_engine *eng, const char *name,
		   const struct dp_worker_params *p);

/** Free what dp_worker_init() and the run allocated. */
void dp_worker_fini(struct dp_worker *w);

/** Begin step 0 at @p now. */
void dp_worker_start(struct dp_worker *w, dp_time_t now);

/** Barrier release (struct dp_barrier.release): continue into the pending round or step. */
void dp_worker_release(struct dp_worker *w, dp_time_t now);

/** Module callback (struct dp_module_params.done): the step's stream is through. */
void dp_worker_module_done(void *arg, dp_time_t now);

struct dp_tcp_app;

/**
 * What a worker's TCP calls (tcp.h): every write of the round within its send buffer (the
 * round's sends are done), bytes of a round in order, a segment made (the step's frames).
 */
void dp_worker_tcp_app(struct dp_worker *w, struct dp_tcp_app *app);

/** One line on where a worker stands (for a stalled run's error). */
int dp_worker_describe(const struct dp_worker *w, char *buf, size_t len);

#endif /* DP_WORKER_H */

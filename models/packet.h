/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The packet level: frames, framing, the per-worker round program, and the packet-level closed
 * form that predicts what the data plane measures at zero load.
 */
#ifndef SM_PACKET_H
#define SM_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collective.h"
#include "params.h"
#include "step.h"
#include "tcp_cc.h"
#include "wire.h"

/* Framing on the wire beyond the headers (wire.h). */
#define SM_ETH_FCS 4u
#define SM_ETH_PREAMBLE 8u				/**< preamble and start delimiter */
#define SM_ETH_IFG 12u					/**< inter-frame gap */
#define SM_ETH_MIN_FRAME 64u				/**< with FCS */
#define SM_MTU_MIN 576u
#define SM_MTU_MAX 65000u

/** What a link charges for a frame. */
enum sm_account {
	SM_ACCOUNT_PAYLOAD,	/**< gradient bytes only: compares with the deck's fluid model */
	SM_ACCOUNT_WIRE,	/**< Ethernet on the wire: headers, FCS, preamble, inter-frame gap */
};

/**
 * When workers wait for each other.  Inside a phase a worker always starts a round as soon as the
 * frames it waits for have arrived; the modes differ at phase and step boundaries.
 */
enum sm_sync {
	SM_SYNC_PHASE,	/**< a phase starts when every worker has finished the previous one (an
			 *   ideal barrier, no frames): the deck's additive terms */
	SM_SYNC_STEP,	/**< only a step waits for every worker's previous step */
	SM_SYNC_NONE,	/**< no barrier: each worker runs on as its data arrives */
};

/** Packet-level settings. */
struct sm_packet {
	uint32_t mtu;		/**< IP MTU, bytes */
	uint32_t payload;	/**< gradient bytes per full frame; <= mtu - 76 */
	enum sm_account account;
	enum sm_sync sync;
	uint32_t burst;		/**< frames a worker queues ahead on its first hop */
	struct sm_tcp_conf tcp;	/**< the transport (job.transport) and TCP's settings */
};

/** Defaults: MTU 9000, 8192-byte payloads, payload accounting, phase sync, bursts of 16. */
void sm_packet_default(struct sm_packet *pk);

/** Check ranges and that the payload fits the MTU; -EINVAL with a message naming the key. */
int sm_packet_check(const struct sm_packet *pk, char *err, unsigned long errlen);

/** Picoseconds to serialise @p bytes at @p bw bytes per second (rounded up). bw >= 1. */
static inline uint64_t
sm_ser_ps(uint64_t bytes, uint64_t bw)
{
	return (bytes * UINT64_C(1000000000000) + bw - 1) / bw;
}

/** Seconds to picoseconds, rounded to nearest; 0 below 0, 2^63 - 1 at and past 2^63 ps. */
uint64_t sm_ps(double seconds);

/** A rate in B/s as the integer the packet level uses (rounded, at least 1, at most 2^64 - 1). */
uint64_t sm_rate(double bytes_per_s);

/** Bytes a link charges for a frame carrying @p payload gradient bytes. */
static inline uint32_t
sm_charge(enum sm_account a, uint32_t payload)
{
	uint32_t f;

	if (a == SM_ACCOUNT_PAYLOAD)
		return payload;
	f = SM_HDR_BYTES + payload + SM_ETH_FCS;
	if (f < SM_ETH_MIN_FRAME)
		f = SM_ETH_MIN_FRAME;
	return f + SM_ETH_PREAMBLE + SM_ETH_IFG;
}

/**
 * Bytes a link charges for a frame of @p len bytes that is not syncemu's (a real frame a bridge
 * carries, frame.h DP_SE_F_RAW): payload accounting charges the frame as the kernel counts it
 * (Ethernet headers and payload, no FCS: what tc tbf meters); wire accounting adds the FCS
 * (padding to the 64-byte minimum), the preamble and the inter-frame gap.
 */
static inline uint32_t
sm_charge_frame(enum sm_account a, uint32_t len)
{
	uint32_t f;

	if (a == SM_ACCOUNT_PAYLOAD)
		return len;
	f = len + SM_ETH_FCS;
	if (f < SM_ETH_MIN_FRAME)
		f = SM_ETH_MIN_FRAME;
	return f + SM_ETH_PREAMBLE + SM_ETH_IFG;
}

/** One round of a worker's step program. Every worker runs the same list. */
struct sm_round {
	enum sm_hop hop;	/**< SM_HOP_MODULE: send the dense gradient to the own module and
				 *   wait for its completion */
	enum sm_xfer xfer;
	uint8_t phase;		/**< index into the plan */
	uint16_t index;		/**< round within its phase */
	uint64_t bytes;		/**< bytes each worker sends (and receives) in the round */
	uint32_t ring, stride;	/**< the ring: peer = sm_round_peer() */
	uint32_t shift;		/**< places on around the ring the worker sends to */
	uint32_t flows;		/**< flows in the round over all workers (W in a ring round; a
				 *   tree's: sm_phase_sends() of its phase) */
	bool capped;		/**< the flow goes through the module port (pluggable E) */
	enum sm_resource res;	/**< what the fluid model charges the round to */
};

/** Rounds a step can have: a frame numbers its round in 16 bits. */
#define SM_ROUNDS_MAX 65535u

/** The worker program of a variant: @p plan's phases flattened into rounds. */
struct sm_program {
	enum sm_variant var;
	unsigned int n;
	struct sm_round *r;		/**< [n], allocated: sm_program_free() */
	struct sm_plan plan;
	double budget;			/**< module compute budget, FLOP/s (0 = not charged) */
	uint64_t compute_ps;		/**< compute + extra transform per step */
	enum sm_resource module_res;	/**< the module's binding stage as a resource */
	unsigned int threads;		/**< buckets (sm_phase.bucket) whose rounds may run at
					 *   once over TCP (job.threads; 1: one after another) */
	uint64_t lead_ps;		/**< the first bucket may start this long before the
					 *   compute ends (job.first_lead) */
};

/**
 * Build the round program of variant @p v at module budget @p budget (@p prog's rounds are
 * allocated: free them with sm_program_free(), also after a failure).
 *
 * @return 0, -EINVAL on bad parameters, -E2BIG if the topology needs more than SM_ROUNDS_MAX
 *         rounds, -ENOMEM
 */
int sm_program_build(const struct sm_params *p, enum sm_variant v, double budget,
		     struct sm_program *prog);

/** Free a program's rounds (a zeroed or freed program too). */
void sm_program_free(struct sm_program *prog);

/** The worker that @p w sends to (@p dir = +1) or receives from (-1) in a ring round. */
static inline uint32_t
sm_round_peer(const struct sm_round *r, uint32_t w, int dir)
{
	return sm_ring_peer(w, r->ring, r->stride, r->shift, dir);
}

/** Frames of a @p bytes chunk and the payload of its last frame. */
static inline uint64_t
sm_frames(uint64_t bytes, uint32_t payload, uint32_t *last)
{
	uint64_t k = (bytes + payload - 1) / payload;

	if (last != NULL)
		*last = (uint32_t)(bytes - (k - 1) * payload);
	return k;
}

/**
 * The element rates and delays of the packet topology, derived from the model:
 *   nic (worker to switch) and down (switch to worker): the intra rate, half the intra latency
 *   each, so a worker-to-worker path inside a DC has the model's intra latency;
 *   wan (switch to the next DC's switch): the WAN rate and wan.latency - intra.latency, so a
 *   worker-to-worker path across DCs has the model's WAN latency;
 *   port (pluggable E): the module port rate, no delay, in front of the nic;
 *   mlink (switch to a module in the network, E'): the intra rate, half the intra latency;
 *   module stages in B/s (0: the stage costs nothing) and the module latency.
 */
struct sm_links {
	uint64_t intra_bw, wan_bw, port_bw;	/**< B/s */
	uint64_t nic_delay, down_delay, wan_delay, mlink_delay; /**< ps */
	uint64_t stage_bw[SM_STAGE_COUNT];	/**< B/s, 0 = free */
	uint64_t mod_latency_port, mod_latency_network; /**< ps */
};

/** Derive the packet topology; -EINVAL (with a message) if wan.latency < intra.latency. */
int sm_links_build(const struct sm_params *p, double budget, struct sm_links *l, char *err,
		   unsigned long errlen);

/** Per-step result of the packet-level closed form. */
struct sm_packet_step {
	uint64_t end_ps;	/**< when the last worker finished the step */
	uint64_t time_ps;	/**< end minus the previous step's end */
	uint64_t frames;	/**< frames the workers sent in the step */
};

/**
 * The packet-level closed form at zero load: frames of the configured payload through
 * store-and-forward hops, each a serialiser at its rate (rounded up to the picosecond per frame)
 * plus its delay; each round starts per worker when its previous round's frames have all arrived
 * and its previous frames are queued; a shared WAN link serves the frames of a data centre's
 * workers in order of arrival (ties by worker index).  Every hop is a max-plus recursion
 * d_j = max(a_j, d_{j-1}) + s_j over its frames, which for one flow reduces to the closed form
 * t = sum of the other hops' first-frame times + k s_bottleneck + last-frame terms.
 *
 * @param steps  number of steps; @p out has that many entries
 * @return 0; -EINVAL on bad parameters; -ERANGE if two rounds overlap on a link (the form then
 *         does not apply: frames of different rounds would interleave); -ENOMEM
 */
int sm_packet_model(const struct sm_params *p, const struct sm_packet *pk, enum sm_variant v,
		    double budget, unsigned int steps, struct sm_packet_step *out);

/** The closed form one step at a time: what a run compares each step with as it ends. */
struct sm_packet_iter;

/**
 * An iterator over the steps of sm_packet_model() (the parameters are copied).  In phase and step
 * sync a step that starts with every hop idle and every earlier round's frames arrived (always,
 * after the first) is the first such step shifted in time, so it is computed once; without sync
 * each step is computed in full.
 *
 * @return 0 with *@p out set; -EINVAL, -E2BIG (sm_program_build()) or -ENOMEM, *@p out NULL
 */
int sm_packet_iter_create(const struct sm_params *p, const struct sm_packet *pk, enum sm_variant v,
			  double budget, struct sm_packet_iter **out);

/**
 * The next step.
 *
 * @return 0; -ERANGE if two rounds overlap on a link (then this and every later step fail the
 *         same way); -EINVAL
 */
int sm_packet_iter_next(struct sm_packet_iter *it, struct sm_packet_step *out);

/** Steps given as a shifted copy of an earlier one (for the tests). */
uint64_t sm_packet_iter_shortcuts(const struct sm_packet_iter *it);

/** Compute every step in full from now on (the tests' reference for the shifted copies). */
void sm_packet_iter_no_shortcut(struct sm_packet_iter *it);

/** Free an iterator; NULL is a no-op. */
void sm_packet_iter_free(struct sm_packet_iter *it);

/**
 * An upper bound, in picoseconds (as a double, so that it cannot overflow), on the time of one step
 * of @p prog at zero load in any sync mode: the compute, then for every round all the work of
 * the hops and stages its frames pass (each hop's serialisation of every frame of the flows that
 * share it, the slowest path not singled out) plus the path's delays and the module's latency.  A
 * step's critical path runs through each of these at most once, so the emulated step (and the
 * closed form's) is never longer.  It reads the rates and delays of sm_links_build() at the
 * program's budget; a link-kernel program's own stage times are taken at the model's ops per
 * byte.  NAN if the links cannot be built.
 */
double sm_packet_step_bound_ps(const struct sm_params *p, const struct sm_packet *pk,
			       const struct sm_program *prog);

/**
 * Mbufs a run of @p prog needs at most, uncapped (dp_run_pool_need() caps it to a mempool's 32
 * bits): a few bursts per worker, a whole WAN round of a data centre's flows in each WAN queue
 * (up to @p q_wan frame bytes unless the sync is @p lossless), @p q_wan of background with
 * @p background, and for a module in the network its whole dense input per module.
 */
uint64_t sm_packet_pool_count(const struct sm_params *p, const struct sm_packet *pk,
			      const struct sm_program *prog, uint64_t q_wan, bool lossless,
			      bool background);

/**
 * Bound on (packet - fluid) / fluid for one step of @p prog at zero load, payload accounting and
 * phase sync: per round, one frame's time on every hop of its path but the slowest (the
 * store-and-forward a tandem adds to the slowest hop's time for the chunk); for the module, one
 * frame through every stage but the slowest, and for a module in the network the dense hop's
 * store-and-forward; and a picosecond of rounding per frame and hop.  It assumes the slowest
 * stage of a pluggable never waits for its worker (burst x its frame time covers the stages
 * before it: true with the default burst of 16).  The packet step is never shorter than the
 * fluid one where sm_packet_fluid_bound_holds() says so.  The README states it; the tests check
 * the emulation against it.
 */
double sm_packet_fluid_bound(const struct sm_params *p, const struct sm_packet *pk,
			     const struct sm_program *prog);

/**
 * Whether the claim of sm_packet_fluid_bound(), fluid <= packet <= fluid (1 + bound), holds for
 * @p prog under @p pk: payload accounting, phase sync, no phase of two or more rounds whose rounds
 * carry two or more flows on a link, and for a pluggable a burst of frames at its slowest stage
 * that covers a frame's time through the stages before it.  The third fails for the WAN phases
 * of D >= 3 data centres of N >= 2 workers: the link serves a data centre's flows in order of
 * arrival (ties in worker order), so the flow ahead gains on the others in every round, they end
 * the phase one after the other, and the first to finish a round starts the next while the link
 * still carries the others: the next round's frames fill the WAN latency that the fluid model
 * charges every round, and the packet step is shorter (8 x 2 AdamW by 2.3 %, 64 x 2 by 26.6 %).
 *
 * @param why  if not NULL, gets the reason when it does not hold (else "")
 */
bool sm_packet_fluid_bound_holds(const struct sm_params *p, const struct sm_packet *pk,
				 const struct sm_program *prog, char *why, size_t len);

#endif /* SM_PACKET_H */

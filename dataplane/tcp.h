/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A worker's TCP: the element at a worker's end that carries its flows to their peers over a
 * connection per peer (job.transport = tcp), as Linux's TCP does it: segments of the MSS, the
 * congestion window (models/tcp_cc.h: Reno or CUBIC), the peer's receive window, delayed and
 * cumulative ACKs as frames on the reverse path, SACK, fast retransmit and recovery, an RTO.
 *
 * The worker writes a message (a round's flow to one peer) with dp_tcp_write(); its send is
 * complete once the socket holds it within its send buffer (dp_worker_tcp_sent()).  Bytes that
 * arrive in order are handed to the worker as they arrive (dp_worker_tcp_got()).  One
 * connection carries both directions between two workers, as one socket does: a data segment
 * carries the ACK of the reverse direction, and a pure ACK goes when none does.
 *
 * A TCP frame's dp_pkt (frame.h) carries its TCP fields where a syncemu frame carries its own:
 * seq = the low 32 bits of the segment's sequence (relative to its direction's start: the bytes
 * add the initial sequence number), departure_ns = the ACK number's low 32 bits << 32 | the
 * window in bytes.  A data segment's dp_meta names its message (step, round, payload: its bytes);
 * a pure ACK's payload is 0, or with DP_SE_F_TCP_SACK its SACK block's length, the block's first
 * byte's low 32 bits in step.  Links charge a TCP frame its bytes (sm_charge_frame()).
 */
#ifndef DP_TCP_H
#define DP_TCP_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>

#include "../models/tcp_buf.h"
#include "../models/tcp_cc.h"
#include "engine.h"
#include "frame.h"

struct dp_link;
struct dp_worker;

/** The window scale both ends announce (Linux's with its default buffers). */
#define DP_TCP_WSCALE 7

/** A TCP frame's header bytes: Ethernet, IPv4, TCP with timestamps (and a SACK block). */
#define DP_TCP_HDR (SM_ETH_HDR + SM_IP_HDR + 20u + 12u)
#define DP_TCP_HDR_SACK (DP_TCP_HDR + 12u)

/** MSS = MTU less this: IPv4 (20), TCP (20) and its timestamps option (12), as Linux's. */
#define DP_TCP_MSS_LESS 52u

/** Up to this many connections a scan finds the next timer; past it, a heap. */
#define DP_TCP_SCAN_MAX 8u	/* (dp_tcp.tmask has a bit for each) */

/** Blocks of connections: 4 x (2^DP_TCP_BLKS - 1) at most. */
#define DP_TCP_BLKS 20u

/** A direction's initial sequence number: fixed per ordered pair of wire ids, so runs repeat. */
static inline uint32_t
dp_tcp_isn(uint32_t from, uint32_t to)
{
	uint32_t x = from * 0x9e3779b1u ^ (to + 0x7f4a7c15u) * 0x85ebca6bu;

	return x ^ x >> 15;
}

/** A segment sent and not yet acknowledged (the retransmission queue). */
struct dp_tcp_seg {
	uint64_t seq;
	dp_time_t sent;		/**< when it was last sent */
	uint32_t len;
	uint32_t step;
	uint16_t round;
	uint8_t flags;		/**< DP_TCP_S_* */
	uint8_t phase;
	uint16_t chunk;
};
#define DP_TCP_S_SACKED 0x01
#define DP_TCP_S_LOST 0x02
#define DP_TCP_S_RETRANS 0x04	/**< retransmitted (no RTT sample from it: Karn) */
#define DP_TCP_S_LAST 0x08	/**< its message's last segment */
#define DP_TCP_S_CTL 0x10	/**< a control message's (dp_tcp_write() @p ctl) */
#define DP_TCP_S_EVER 0x20	/**< sent more than once (Linux's TCPCB_EVER_RETRANS) */

/** Bytes written and not yet segmented: a message (a round's flow to this peer). */
struct dp_tcp_msg {
	uint64_t left;
	uint64_t end;		/**< stream offset just past it */
	uint32_t step;
	uint16_t round;
	uint8_t phase;
	bool ctl;
	uint16_t chunk;
};

/** A segment that arrived beyond a hole (the receiver's out-of-order queue). */
struct dp_tcp_ooo {
	uint64_t seq;
	uint32_t len;
	uint32_t step;
	uint16_t round;
	bool ctl;
};

/**
 * A connection with one peer: its sending half and its receiving half.  What every frame in or
 * out and the timers read sits in its first three cache lines (a connection is 64-byte aligned);
 * what only losses, traces and reports read comes after.
 */
struct dp_tcp_conn {
	/* line 0: both halves' positions and the timers */
	uint32_t peer;			/**< its wire id (tcp.h dp_tcp_params) */
	uint16_t self_wire, dst;	/**< src and dst of its frames */
	dp_time_t rto_at, delack_at;
	uint64_t snd_una, snd_nxt;	/**< sending */
	uint64_t rcv_nxt, rcv_acked;	/**< receiving: next expected; the last ACK sent */
	dp_time_t last_rx;
	/* line 1: the rings' positions and the scoreboard's counts */
	struct dp_tcp_seg *rtx;		/**< [snd_una, snd_nxt): a ring of rtx_mask + 1 */
	uint32_t rtx_head, rtx_tail, rtx_mask;
	uint32_t msg_head, msg_tail, msg_mask;
	uint32_t sacked, lost, retrans;	/**< segments of rtx so marked */
	uint32_t dupacks;
	uint32_t n_ooo;
	uint32_t quick;			/**< ACKs still to send at once (quick-ACK mode) */
	bool recovery;			/**< fast recovery, until snd_una reaches recover */
	bool loss;			/**< after an RTO, until snd_una reaches recover */
	bool waiting;
	bool held;			/**< holds a unit of the sync's work (data unacknowledged) */
	bool touched;			/**< its timers may have moved since the heap was fixed */
	uint8_t slot;			/**< its index while a scan runs (a bit of dp_tcp.tmask) */
	uint8_t share;			/**< the next message goes in the packet just sent */
	/* line 2 */
	struct dp_tcp_msg *msg;		/**< written, not yet segmented: a ring */
	uint64_t peer_wnd;		/**< bytes the peer advertises */
	uint64_t rto;			/**< ps */
	uint64_t write_end;
	dp_time_t last_tx;
	uint64_t sack_len;		/**< the next ACK's SACK block: its length (0: none) */
	uint64_t segs_out, acks_out;
	/* lines 3-4: the congestion control, the RTT */
	struct sm_cc cc;
	uint64_t srtt, rttvar;		/**< ps; srtt 0: no sample yet */
	uint32_t backoff;
	uint32_t ix;			/**< its index in dp_tcp.conn */
	uint32_t heap_pos;		/**< its place in dp_tcp.heap */
	uint32_t cap_ooo;
	uint64_t bytes_in;
	uint64_t wait_end;		/**< the worker's send completes when written to here */
	/* colder: recovery, SACK, the out-of-order queue, the frames' bytes, counts */
	uint64_t recover;
	uint64_t high_sacked;		/**< end of the highest SACKed segment */
	uint64_t sack_seq;		/**< the next ACK's SACK block: its first byte */
	struct dp_tcp_ooo *ooo;
	uint32_t isn_tx, isn_rx;	/**< initial sequence numbers of the two directions */
	uint8_t hdr[DP_TCP_HDR];	/**< this side's header template (frames to the peer) */
	uint64_t retrans_out, fast_rtx, rtos, dup_rx, ooo_rx;
	uint32_t shared;		/**< bytes of the packet the next message would share */
	uint32_t prior_cwnd;		/**< a window reduction (recovery, CWR): the window before */
	uint32_t prr_delivered, prr_out;	/**< PRR: delivered and sent since it began */
	uint64_t cwr_end;		/**< ECN: the window cut on an echo lasts until here */
	bool cwr;			/**< ECN: the window was cut (Linux's TCP_CA_CWR) */
	bool ece;			/**< ECN: the next ACK echoes a CE */
	uint64_t ce_rx, ecn_cuts;	/**< CE segments received; window cuts on an echo */
	/* receive_window, send_buffer = auto (models/tcp_buf.h) */
	uint64_t sndbuf;		/**< send_buffer = auto: sk_sndbuf, truesize bytes */
	uint64_t ooo_ts;		/**< the out-of-order segments' truesize */
	struct sm_rcvbuf rb;		/**< receive_window = auto: the buffer's tuning */
} __rte_cache_aligned;

/** What the TCP serves: a worker, or a background host's bulk flows (bghost.h). */
struct dp_tcp_app {
	/** @p bytes of (step, round) from @p src arrived in order (@p ctl: a control message's). */
	void (*got)(void *arg, uint32_t src, uint32_t step, uint16_t round, bool ctl,
		    uint64_t bytes, dp_time_t now);
	/** A data segment of @p step went out for the first time. */
	void (*made)(void *arg, uint32_t step);
	void *arg;
	/** Every write is within its connection's send buffer. */
	void (*sent)(void *arg, dp_time_t now);
	struct dp_elem *pass;		/**< where frames that are not TCP's go (NULL: none come) */
};

/**
 * Configuration of a TCP element.  Its connections are named by their peer's wire id (the
 * dp_meta.src of the peer's frames): a connection to peer P sends frames with src = id x mult +
 * P mod mult and dst = (P / mult) x dst_mult, of kind @p kind (a worker's: mult 1, dst_mult 1;
 * bulk flows: several connections between two hosts, P = host x mult + flow).
 */
struct dp_tcp_params {
	uint32_t id, per_dc;
	uint32_t mult, dst_mult;
	uint8_t kind;			/**< enum dp_kind of its frames */
	uint8_t addr_base;		/**< IPv4 10.(base + DC).x.y (frame.h dp_worker_addr()) */
	bool bg;			/**< background: its frames and data are no part of the sync */
	const struct sm_tcp_conf *conf;
	uint32_t mss;
	uint32_t burst;			/**< frames queued ahead on the first hop */
	struct dp_link *nic;		/**< its first hop (a write may name another) */
	struct dp_tcp_app app;
	int cap_tx, cap_rx;
};

/**
 * A worker's TCP (an element).  What a frame in or out reads follows the element's counters, on
 * the two cache lines after them (with a thousand workers the elements are out of the caches,
 * and a frame then costs a miss per line it reads); what only writes, timers of many
 * connections, losses and reports read comes after.
 */
struct dp_tcp {
	struct dp_elem e;
	/* read by every frame: to the end of line 3 */
	uint32_t id, dst_mult;
	uint32_t mss, burst;
	uint32_t n_conn;
	uint32_t rr;			/**< the next connection to send from */
	uint8_t kind;
	bool bg, rwnd_auto, sndbuf_auto; /* sized as Linux does (models/tcp_buf.h) */
	bool heaped;			/**< more than DP_TCP_SCAN_MAX connections: the heap runs */
	bool stopped;
	uint8_t tmask;			/**< a scan's connections touched since last placed */
	int cap_tx, cap_rx;
	uint32_t waiting;		/**< connections the worker's send waits on */
	struct dp_tcp_conn *last;	/**< the last one looked up */
	struct dp_tcp_conn *last2;	/**< the one before (a ring: data from one, ACKs from the other) */
	dp_time_t tx_free;		/**< when the last frame queued starts serialising */
	dp_time_t tx_at;		/**< when to queue more (DP_NEVER: nothing waits) */
	struct dp_link *out;		/**< where frames go (the worker's first hop) */
	uint64_t delack_ps, rto_min_ps;	/* the conf's, in ps */
	uint64_t rwnd;
	struct dp_tcp_conn *conn0;	/**< blk[0]: connections 0-3 */
	struct dp_tcp_app app;		/* (its got, made and arg) */
	/* the rest */
	uint64_t sndbuf, rto_init_ps;
	const struct sm_tcp_conf *conf;
	uint32_t per_dc, mult;
	uint8_t addr_base;
	struct sm_tcp_bufconf bc;
	uint32_t cap_conn;
	uint32_t *conn_ix;		/**< by peer wire id: index in conn + 1 (0: none) */
	uint32_t cap_ix;
	uint32_t *heap;			/**< connections by earliest timer: a binary min-heap */
	uint32_t *touched;		/**< connections whose timers may have moved */
	uint32_t n_touched;
	uint32_t *due;			/**< connections whose timers are due (the event's) */
	/** the connections, in blocks of 4, 8, 16, ...: a connection's address stays */
	struct dp_tcp_conn *blk[DP_TCP_BLKS];
} __rte_cache_aligned;

int dp_tcp_init(struct dp_tcp *t, struct dp_engine *eng, const char *name,
		const struct dp_tcp_params *p);
void dp_tcp_fini(struct dp_tcp *t);

/**
 * The worker writes @p bytes of (step, round) to @p peer, through @p out (its first hop for the
 * round); 0 or -ENOMEM.  dp_worker_tcp_sent() follows once every write is within the send buffer.
 */
int dp_tcp_write(struct dp_tcp *t, struct dp_link *out, uint32_t peer, uint64_t bytes,
		 uint32_t step, uint16_t round, uint8_t phase, uint16_t chunk, dp_time_t now);

/**
 * A library's control message of @p bytes to @p peer about (step, round) (a rendezvous ACK, a
 * ready notification): in the byte stream behind what was written before; never waited on.
 * 0 or -ENOMEM.
 */
int dp_tcp_write_ctl(struct dp_tcp *t, uint32_t peer, uint32_t bytes, uint32_t step,
		     uint16_t round, dp_time_t now);

/**
 * The app does not wait for @p peer's writes to be within the send buffer: "sent" comes when the
 * others' are (a host whose transfers are independent of each other).
 */
void dp_tcp_unwait(struct dp_tcp *t, uint32_t peer);

/** Stop: what the app wrote and was not yet sent is dropped (a background host at the end). */
void dp_tcp_stop(struct dp_tcp *t);

/**
 * The job is over here: every delayed ACK goes now, as closing the socket sends it (a FIN's ACK),
 * so that a real-time run through ports drains without waiting out transport.delayed_ack.
 */
void dp_tcp_ack_pending(struct dp_tcp *t, dp_time_t now);

/** Bytes this element's connections received in order, all together. */
uint64_t dp_tcp_bytes_in(const struct dp_tcp *t);

/** One line on the connections (for a stalled run's error). */
int dp_tcp_describe(const struct dp_tcp *t, char *buf, size_t len);

/** Totals over a worker's connections. */
struct dp_tcp_stats {
	uint64_t segs, retrans, acks, fast_rtx, rtos, dup_rx, ooo_rx, bytes_in;
	uint64_t ce_rx, ecn_cuts;
	bool ecn;			/**< transport.ecn was on */
};
void dp_tcp_stats_add(const struct dp_tcp *t, struct dp_tcp_stats *s);

/* Internal to tcp*.c. */
struct dp_tcp_conn *dp_tcp_conn_of(struct dp_tcp *t, uint32_t peer);
void dp_tcp_output(struct dp_tcp *t, dp_time_t now);
void dp_tcp_send_ack(struct dp_tcp *t, struct dp_tcp_conn *c, dp_time_t now);
bool dp_tcp_ack_in(struct dp_tcp *t, struct dp_tcp_conn *c, const struct dp_pkt *p,
		   dp_time_t now);

/*
 * A data segment whose ACK field says what the last one did (the usual case of a flow one way):
 * dp_tcp_ack_in() would move nothing (no new bytes acknowledged, the same window, no SACK, no
 * loss to mark) and return false.  Keep the two in step.
 */
static inline bool
dp_tcp_ack_repeats(const struct dp_tcp_conn *c, const struct dp_pkt *p)
{
	return p->meta.payload > 0 && !(p->meta.flags & (DP_SE_F_TCP_SACK | DP_SE_F_TCP_ECE)) &&
	       c->sacked == 0 &&
	       c->dupacks < 3 && (uint32_t)(p->departure_ns >> 32) == (uint32_t)c->snd_una &&
	       (uint32_t)p->departure_ns == c->peer_wnd;
}
void dp_tcp_data_in(struct dp_tcp *t, struct dp_tcp_conn *c, const struct dp_pkt *p,
		    dp_time_t now);
void dp_tcp_rto_fire(struct dp_tcp *t, struct dp_tcp_conn *c, dp_time_t now);
void dp_tcp_resched(struct dp_tcp *t);

/** The connection with @p peer: of the last two looked up, or dp_tcp_conn_of(). */
static inline struct dp_tcp_conn *
dp_tcp_conn_find(struct dp_tcp *t, uint32_t peer)
{
	if (likely(t->last != NULL) && t->last->peer == peer)
		return t->last;
	return dp_tcp_conn_of(t, peer);
}

/** Connection @p i (of dp_tcp.blk: block k holds 4 x 2^k, from 4 x (2^k - 1) on). */
static inline struct dp_tcp_conn *
dp_tcp_conn_at(const struct dp_tcp *t, uint32_t i)
{
	uint32_t k;

	if (likely(i < 4))
		return &t->conn0[i];
	k = 31u - (uint32_t)__builtin_clz(i / 4 + 1);
	return &t->blk[k][i - 4 * ((1u << k) - 1)];
}

/** Bytes of data @p c's send buffer holds (what a write waits for). */
static inline uint64_t
dp_tcp_sndbuf_bytes(const struct dp_tcp *t, const struct dp_tcp_conn *c)
{
	if (!t->sndbuf_auto)
		return t->sndbuf;
	return (uint64_t)sm_sndbuf_segs(&t->bc, c->sndbuf) * t->mss;
}

/** @p c's timers (rto_at, delack_at) may have moved: dp_tcp_resched() places it again. */
static inline void
dp_tcp_touch(struct dp_tcp *t, struct dp_tcp_conn *c)
{
	if (!t->heaped)
		t->tmask |= (uint8_t)(1u << c->slot);
	else if (!c->touched) {
		c->touched = true;
		t->touched[t->n_touched++] = c->ix;
	}
}
struct rte_mbuf *dp_tcp_frame(struct rte_mempool *pool, const struct dp_tcp_conn *c,
			      const struct dp_pkt *p, dp_time_t now);
void dp_tcp_conn_template(const struct dp_tcp *t, struct dp_tcp_conn *c);

/*
 * Through DPDK ports (tcp_frame.c): a worker's TCP frame leaves with what its receiver needs
 * and the bytes do not otherwise say (the message a data segment belongs to: the library's own
 * framing, which the element does not put in the stream), and comes back to a dp_pkt.
 */

/** Steps a TCP frame through a port can name (24 bits of its TSecr; run.steps stays below). */
#define DP_TCP_PORT_STEPS (UINT32_C(1) << 24)

/**
 * Write into @p m's headers (a worker's TCP frame, leaving through a port in run @p run_id)
 * its message's step, round and control flag, and the run: IPv4 identification = round, TSecr
 * = control << 31 | (run_id & 0x7f) << 24 | step (mod DP_TCP_PORT_STEPS); both checksums kept
 * right.
 */
void dp_tcp_port_tag(struct rte_mbuf *m, uint32_t run_id);

/**
 * Check a frame taken from a port and fill its dp_meta if it is a TCP frame between two
 * workers (of @p per_dc a data centre) of run @p run_id, as dp_tcp_port_tag() left it.
 *
 * @return 0; -ESTALE a frame of another run; -EINVAL not such a frame (or a checksum wrong)
 */
int dp_tcp_port_parse(struct rte_mbuf *m, uint32_t per_dc, uint32_t run_id);

/** The dp_pkt of a frame dp_tcp_port_parse() took: sequence and ACK numbers relative again. */
void dp_tcp_port_pkt(struct rte_mbuf *m, struct dp_pkt *p);

#endif /* DP_TCP_H */

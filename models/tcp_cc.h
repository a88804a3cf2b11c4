/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TCP's sender-side settings and its congestion control: Reno (RFC 5681) and CUBIC (RFC 9438),
 * as Linux's net/ipv4/tcp_cong.c and tcp_cubic.c keep them, in segments.  Plain C: no DPDK, no
 * clock; every function takes the time it is called at.
 */
#ifndef SM_TCP_CC_H
#define SM_TCP_CC_H

#include <stdbool.h>
#include <stdint.h>

/** How a worker's flows reach their peers. */
enum sm_transport {
	SM_TRANSPORT_FRAMES,	/**< the ideal collective's frames: nothing acknowledged */
	SM_TRANSPORT_TCP,	/**< a TCP connection per pair of ranks that talk */
};

/** How a library's messages go over TCP (transport.protocol). */
enum sm_msg_proto {
	SM_PROTO_PLAIN,		/**< a message is written whole when its round begins */
	SM_PROTO_OPENMPI,	/**< ob1's rendezvous past the eager limit: the first rndv_first
				 *   bytes, the rest after the receiver's ACK */
	SM_PROTO_GLOO,		/**< each message after the receiver's ready notification */
};

/* The control messages' bytes: ob1's ACK with its PUT request; gloo's notification. */
#define SM_PROTO_OPENMPI_CTL 128u
#define SM_PROTO_GLOO_CTL 48u

enum sm_cc_algo {
	SM_CC_CUBIC,		/**< Linux's default */
	SM_CC_RENO,
};

/** A connection's settings (job.transport and the [transport] section). */
struct sm_tcp_conf {
	enum sm_transport transport;
	enum sm_cc_algo cc;
	uint32_t init_cwnd;		/**< segments (Linux: 10, RFC 6928) */
	int ss_after_idle;		/**< RFC 2861 as Linux does it (tcp_slow_start_after_idle) */
	int ecn;			/**< RFC 3168: data segments ECT(0), a CE echoed, the window
					 *   cut once a window on an echo (tcp_ecn = 1 both ends) */
	double delack;			/**< delayed ACK timeout, s (Linux: 40 ms); 0: every segment */
	double rto_min;			/**< s (200 ms) */
	double rto_init;		/**< s (1 s, RFC 6298) */
	double rwnd;			/**< bytes the receiver advertises; SM_TCP_AUTO: as Linux
					 *   tunes it (models/tcp_buf.h) */
	double sndbuf;			/**< bytes a sender holds unacknowledged before a send
					 *   completes; SM_TCP_AUTO: Linux's sk_sndbuf */
	double rmem_max;		/**< tcp_rmem[2], bytes (receive_window = auto) */
	double wmem_max;		/**< tcp_wmem[2], bytes (send_buffer = auto) */
	uint32_t mss;			/**< 0: from the MTU (MTU - 52: IPv4, TCP, timestamps) */
	enum sm_msg_proto proto;	/**< the library's messages over TCP */
	double eager_limit;		/**< bytes (ob1's btl_tcp_eager_limit: 64 KiB) */
	double rndv_first;		/**< bytes of a message its rendezvous carries (at most
					 *   eager_limit) */
	double reduce_rate;		/**< B/s a rank reduces a round's input at; 0: no time */
	double start_skew;		/**< s: worker r starts its first step r x this later */
	double read_window;		/**< s: a rank's progress loop still reads what comes this
					 *   long after it leaves for a compute or a reduction */
};

/** Linux's defaults. */
void sm_tcp_conf_default(struct sm_tcp_conf *c);

const char *sm_transport_name(enum sm_transport t);
const char *sm_cc_name(enum sm_cc_algo a);
const char *sm_proto_name(enum sm_msg_proto p);

/** Bytes of a @p bytes message written before the handshake; @p bytes if there is none. */
static inline uint64_t
sm_proto_eager(const struct sm_tcp_conf *c, uint64_t bytes)
{
	if (c->proto == SM_PROTO_GLOO)
		return 0;
	if (c->proto == SM_PROTO_OPENMPI && bytes > (uint64_t)c->eager_limit)
		return (uint64_t)(c->rndv_first < c->eager_limit ? c->rndv_first : c->eager_limit);
	return bytes;
}

/* CUBIC's constants (RFC 9438 section 4). */
#define SM_CUBIC_C 0.4
#define SM_CUBIC_BETA 0.7

/** Congestion control state of one sender. */
struct sm_cc {
	enum sm_cc_algo algo;
	double cwnd;		/**< segments */
	double ssthresh;	/**< segments */
	/* CUBIC */
	double w_max;		/**< window before the last reduction */
	double w_last_max;	/**< for fast convergence */
	double k;		/**< seconds from the epoch to reach w_max */
	double w_est;		/**< the Reno-friendly estimate */
	uint64_t epoch_ps;	/**< start of the congestion-avoidance epoch; UINT64_MAX: none */
	uint64_t min_rtt_ps;	/**< smallest RTT seen (UINT64_MAX: none) */
	/* the window's use, as Linux's tcp_cwnd_validate() tracks it, per window of data */
	uint64_t usage_seq;	/**< the window tracked ends when this byte is acknowledged */
	uint32_t max_out;	/**< most segments out in it */
	bool lim;		/**< the window held data back in it */
};

void sm_cc_init(struct sm_cc *cc, enum sm_cc_algo algo, uint32_t init_cwnd);

/**
 * @p acked segments newly delivered at @p now_ps: acknowledged, and not SACKed by an earlier ACK
 * (Linux's acked_sacked in tcp_cong_control()); rtt_ps: the sample of this ACK, 0 if none;
 * @p limited: the sender had less in flight than its window (RFC 7661: the window does not grow).
 */
void sm_cc_on_ack(struct sm_cc *cc, uint32_t acked, uint64_t now_ps, uint64_t rtt_ps,
		  bool limited);

/**
 * After the sender sent (or its window refused a segment: @p limited) with @p packets_out out,
 * @p snd_una acknowledged and @p snd_nxt next: what Linux's tcp_cwnd_validate() keeps of the
 * window's use.
 */
static inline void
sm_cc_validate(struct sm_cc *cc, bool limited, uint32_t packets_out, uint64_t snd_una,
	       uint64_t snd_nxt)
{
	if (snd_una >= cc->usage_seq || limited || (!cc->lim && packets_out > cc->max_out)) {
		cc->lim = limited;
		cc->max_out = packets_out;
		cc->usage_seq = snd_nxt;
	}
}

/**
 * May an ACK grow the window (Linux's tcp_is_cwnd_limited())?  If the window held data back in
 * the window of data tracked, or, in slow start, while it is under twice the most segments out.
 */
static inline bool
sm_cc_may_grow(const struct sm_cc *cc)
{
	if (cc->lim)
		return true;
	return cc->cwnd < cc->ssthresh && cc->cwnd < 2.0 * cc->max_out;
}

/**
 * A window reduction begins (a loss found by duplicate ACKs or SACK, or an ECN echo): the new
 * ssthresh; the window is the caller's to bring down to it (PRR: sm_cc_prr()).
 */
void sm_cc_reduce(struct sm_cc *cc);

/** The reduction is over (Linux's tcp_end_cwnd_reduction()): the window is ssthresh. */
void sm_cc_reduce_end(struct sm_cc *cc);

/**
 * Proportional rate reduction (RFC 6937, Linux's tcp_cwnd_reduction()): the segments that may
 * leave on an ACK that delivered @p delivered segments, a reduction having delivered
 * *@p prr_delivered (this ACK's added) and sent @p prr_out since it began at a window of
 * @p prior_cwnd, with @p in_flight segments in flight now.  At least one while nothing has
 * been sent yet (the fast retransmit).
 */
uint32_t sm_cc_prr(const struct sm_cc *cc, uint32_t delivered, bool newly_lost, bool una_moved,
		   uint32_t in_flight, uint32_t prior_cwnd, uint32_t *prr_delivered,
		   uint32_t prr_out);

/** A retransmission timeout: ssthresh from the window, the window to one segment. */
void sm_cc_on_rto(struct sm_cc *cc, uint32_t in_flight, uint64_t now_ps);

/**
 * Sending again after @p idle_ps with nothing in flight (tcp_cwnd_restart()): with
 * @p restart the window halves per RTO idle, down to the initial window; CUBIC's epoch moves by
 * the idle time either way (bictcp_cwnd_event(CA_EVENT_TX_START)).
 */
void sm_cc_on_idle(struct sm_cc *cc, uint64_t idle_ps, uint64_t rto_ps, uint32_t init_cwnd,
		   bool restart);

/** The window as whole segments (at least 1). */
static inline uint32_t
sm_cc_window(const struct sm_cc *cc)
{
	return cc->cwnd < 1 ? 1 : (uint32_t)cc->cwnd;
}

/**
 * The round trips slow start takes to send @p bytes from a window of @p iw segments of @p mss
 * when nothing else limits it (the window doubling each round trip, delayed ACKs aside):
 * the smallest r with iw (2^r - 1) mss >= bytes.  0 for 0 bytes.
 */
uint32_t sm_ss_rounds(uint64_t bytes, uint32_t mss, uint32_t iw);

/**
 * What slow start costs one flow of @p bytes over a path of @p rate B/s and round trip @p rtt
 * seconds, in segments of @p mss from a window of @p iw, no loss, an ACK per segment: the
 * window doubles each round trip until it covers the path (rate x rtt), the rest goes at the
 * rate.  Returns the flow's time from its first byte sent to its last received, less the same
 * at the rate from the start (bytes / rate + rtt / 2): the extra time slow start adds (0 for a
 * window that covers the path from the start).  *@p rounds: the round trips spent in slow start.
 */
double sm_ss_extra(uint64_t bytes, double rate, double rtt, uint32_t mss, uint32_t iw,
		   uint32_t *rounds);

#endif /* SM_TCP_CC_H */

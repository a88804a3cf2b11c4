/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reno and CUBIC.  References: RFC 5681 (slow start, congestion avoidance, ABC as Linux's
 * tcp_slow_start() and tcp_cong_avoid_ai()), RFC 9438 (CUBIC: W_cubic(t) = C (t - K)^3 + W_max,
 * the Reno-friendly region, fast convergence, beta 0.7), RFC 2861 and Linux's tcp_cwnd_restart()
 * (the window after idle).  CUBIC here computes in double precision where tcp_cubic.c uses fixed
 * point and a cube-root table; HyStart is not modelled (slow start ends at ssthresh or a loss).
 */
#include <math.h>
#include <stddef.h>

#include "tcp_cc.h"

void
sm_tcp_conf_default(struct sm_tcp_conf *c)
{
	c->transport = SM_TRANSPORT_FRAMES;
	c->cc = SM_CC_CUBIC;
	c->init_cwnd = 10;
	c->ss_after_idle = 1;
	c->ecn = 0;
	c->delack = 0.040;
	c->rto_min = 0.200;
	c->rto_init = 1.0;
	c->rwnd = 3 * 1048576.0;	/* tcp_rmem's 6 MiB, half of it for the window */
	c->sndbuf = 4 * 1048576.0;	/* tcp_wmem's 4 MiB */
	c->rmem_max = 32 * 1048576.0;	/* tcp_rmem[2] since Linux 6.10 */
	c->wmem_max = 4 * 1048576.0;
	c->mss = 0;
	c->proto = SM_PROTO_PLAIN;
	c->eager_limit = 65536;
	c->rndv_first = 40;
	c->reduce_rate = 0;
	c->start_skew = 0;
	c->read_window = 5e-6;
}

const char *
sm_proto_name(enum sm_msg_proto p)
{
	return p == SM_PROTO_OPENMPI ? "openmpi" : p == SM_PROTO_GLOO ? "gloo" : "plain";
}

const char *
sm_transport_name(enum sm_transport t)
{
	return t == SM_TRANSPORT_TCP ? "tcp" : "frames";
}

const char *
sm_cc_name(enum sm_cc_algo a)
{
	return a == SM_CC_RENO ? "reno" : "cubic";
}

void
sm_cc_init(struct sm_cc *cc, enum sm_cc_algo algo, uint32_t init_cwnd)
{
	cc->algo = algo;
	cc->cwnd = init_cwnd;
	cc->ssthresh = INFINITY;
	cc->w_max = 0;
	cc->w_last_max = 0;
	cc->k = 0;
	cc->w_est = 0;
	cc->epoch_ps = UINT64_MAX;
	cc->min_rtt_ps = UINT64_MAX;
	cc->usage_seq = 0;
	cc->max_out = 0;
	cc->lim = false;
}



/* CUBIC's congestion avoidance for @acked segments (RFC 9438 4.2-4.4). */
static void
cubic_ca(struct sm_cc *cc, uint32_t acked, uint64_t now_ps)
{
	double t, rtt = cc->min_rtt_ps == UINT64_MAX ? 0 : cc->min_rtt_ps * 1e-12;
	double target, alpha = 3 * (1 - SM_CUBIC_BETA) / (1 + SM_CUBIC_BETA);

	if (cc->epoch_ps == UINT64_MAX) {	/* the first ACK of an epoch */
		cc->epoch_ps = now_ps;
		if (cc->w_max <= cc->cwnd) {
			cc->k = 0;
			cc->w_max = cc->cwnd;
		} else {
			cc->k = cbrt((cc->w_max - cc->cwnd) / SM_CUBIC_C);
		}
		cc->w_est = cc->cwnd;
	}
	t = (now_ps - cc->epoch_ps) * 1e-12 + rtt;
	target = SM_CUBIC_C * (t - cc->k) * (t - cc->k) * (t - cc->k) + cc->w_max;
	if (target > 1.5 * cc->cwnd)
		target = 1.5 * cc->cwnd;
	cc->w_est += alpha * acked / cc->cwnd;
	if (target < cc->w_est) {		/* the Reno-friendly region */
		if (cc->w_est > cc->cwnd)
			cc->cwnd = cc->w_est;
		return;
	}
	if (target > cc->cwnd)
		cc->cwnd += (target - cc->cwnd) * acked / cc->cwnd;
}

void
sm_cc_on_ack(struct sm_cc *cc, uint32_t acked, uint64_t now_ps, uint64_t rtt_ps, bool limited)
{
	if (rtt_ps > 0 && rtt_ps < cc->min_rtt_ps)
		cc->min_rtt_ps = rtt_ps;
	if (limited || acked == 0)
		return;
	if (cc->cwnd < cc->ssthresh) {		/* slow start, ABC: a segment per segment */
		double room = cc->ssthresh - cc->cwnd;

		if (acked <= room) {
			cc->cwnd += acked;
			return;
		}
		cc->cwnd = cc->ssthresh;
		acked -= (uint32_t)room;
		if (acked == 0)
			return;
	}
	if (cc->algo == SM_CC_RENO)
		cc->cwnd += (double)acked / cc->cwnd;
	else
		cubic_ca(cc, acked, now_ps);
}

/* The reduction both losses share: ssthresh from the window (not from what was in flight). */
static void
reduce(struct sm_cc *cc)
{
	double w = cc->cwnd;

	if (cc->algo == SM_CC_RENO) {
		cc->ssthresh = w / 2 < 2 ? 2 : floor(w / 2);
		return;
	}
	cc->epoch_ps = UINT64_MAX;
	/* fast convergence (RFC 9438 4.7) */
	if (w < cc->w_last_max)
		cc->w_max = w * (1 + SM_CUBIC_BETA) / 2;
	else
		cc->w_max = w;
	cc->w_last_max = w;
	cc->ssthresh = w * SM_CUBIC_BETA < 2 ? 2 : floor(w * SM_CUBIC_BETA);
}

void
sm_cc_reduce(struct sm_cc *cc)
{
	reduce(cc);
}

void
sm_cc_reduce_end(struct sm_cc *cc)
{
	cc->cwnd = cc->ssthresh;
}

uint32_t
sm_cc_prr(const struct sm_cc *cc, uint32_t delivered, bool newly_lost, bool una_moved,
	  uint32_t in_flight, uint32_t prior_cwnd, uint32_t *prr_delivered, uint32_t prr_out)
{
	int64_t ssthresh = (int64_t)cc->ssthresh, delta = ssthresh - in_flight, sndcnt;

	if (delivered == 0 || prior_cwnd == 0)
		return prr_out == 0 ? 1 : 0;
	*prr_delivered += delivered;
	if (delta < 0) {
		/* above ssthresh: ssthresh / prior_cwnd of what is delivered, rounded up */
		sndcnt = (ssthresh * *prr_delivered + prior_cwnd - 1) / prior_cwnd -
			 (int64_t)prr_out;
	} else {
		/* at or below: as delivered, a segment more when the front moved (PRR-SSRB) */
		sndcnt = (int64_t)*prr_delivered - prr_out;
		if (sndcnt < delivered)
			sndcnt = delivered;
		if (una_moved && !newly_lost)
			sndcnt++;
		if (sndcnt > delta)
			sndcnt = delta;
	}
	if (sndcnt < (prr_out == 0 ? 1 : 0))
		sndcnt = prr_out == 0 ? 1 : 0;	/* the fast retransmit goes out */
	return (uint32_t)sndcnt;
}

void
sm_cc_on_rto(struct sm_cc *cc, uint32_t in_flight, uint64_t now_ps)
{
	(void)in_flight;
	(void)now_ps;
	reduce(cc);
	cc->cwnd = 1;
}

void
sm_cc_on_idle(struct sm_cc *cc, uint64_t idle_ps, uint64_t rto_ps, uint32_t init_cwnd,
	      bool restart)
{
	double restart_cwnd = init_cwnd < cc->cwnd ? init_cwnd : cc->cwnd;

	if (cc->epoch_ps != UINT64_MAX)
		cc->epoch_ps += idle_ps;	/* CUBIC's curve does not grow while idle */
	if (!restart || rto_ps == 0 || idle_ps <= rto_ps)
		return;
	/* tcp_cwnd_restart(): ssthresh keeps 3/4 of the window, which halves per RTO idle */
	if (cc->ssthresh < 0.75 * cc->cwnd)
		cc->ssthresh = 0.75 * cc->cwnd;
	while (idle_ps > rto_ps && cc->cwnd > restart_cwnd) {
		idle_ps -= rto_ps;
		cc->cwnd = floor(cc->cwnd / 2);
	}
	if (cc->cwnd < restart_cwnd)
		cc->cwnd = restart_cwnd;
}

uint32_t
sm_ss_rounds(uint64_t bytes, uint32_t mss, uint32_t iw)
{
	uint64_t sent = 0, w = iw ? iw : 1;
	uint32_t r = 0;

	if (mss == 0)
		return 0;
	while (sent < bytes) {
		sent += w * mss;
		w *= 2;
		r++;
	}
	return r;
}

double
sm_ss_extra(uint64_t bytes, double rate, double rtt, uint32_t mss, uint32_t iw,
	    uint32_t *rounds)
{
	double bdp = mss ? rate * rtt / mss : 0, w = iw ? iw : 1, left = (double)bytes, t;
	uint32_t r = 0;

	/* each round trip sends a window; once the window covers the path the rate limits */
	while (left > 0 && w < bdp) {
		double n = w * mss < left ? w * mss : left;

		left -= n;
		r++;
		if (left <= 0) {		/* the last flight: no round trip after it */
			t = (r - 1) * rtt + n / rate + rtt / 2;
			goto out;
		}
		w *= 2;
	}
	t = r * rtt + left / rate + rtt / 2;
out:
	if (rounds != NULL)
		*rounds = r;
	t -= (double)bytes / rate + rtt / 2;
	return t > 0 ? t : 0;
}

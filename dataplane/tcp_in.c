/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TCP's receiving half: bytes in order to the worker, segments beyond a hole kept until it
 * fills, and the ACKs: at once for every second full segment received (Linux's
 * __tcp_ack_snd_check(): more than one MSS unacknowledged), for a segment out of order or one
 * that fills a hole, and in quick-ACK mode (the first 16 segments after the connection or the
 * peer was idle longer than an RTO: tcp_event_data_recv()); else after the delayed-ACK time
 * (Linux's TCP_DELACK_MIN, 40 ms).  A data segment going the other way carries the ACK instead
 * (tcp_out.c).  The SACK block reported is the run of out-of-order bytes that holds the latest
 * segment (RFC 2018: the first block is the most recent); one block per ACK.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tcp.h"

#define QUICKACKS 16u	/* TCP_MAX_QUICKACKS */

/* The run of contiguous out-of-order bytes that holds ooo[i]: the SACK block. */
static void
sack_block(struct dp_tcp_conn *c, uint32_t i)
{
	uint32_t lo = i, hi = i;
	uint64_t end;

	while (lo > 0 && c->ooo[lo - 1].seq + c->ooo[lo - 1].len == c->ooo[lo].seq)
		lo--;
	while (hi + 1 < c->n_ooo && c->ooo[hi].seq + c->ooo[hi].len == c->ooo[hi + 1].seq)
		hi++;
	end = c->ooo[hi].seq + c->ooo[hi].len;
	c->sack_seq = c->ooo[lo].seq;
	c->sack_len = end - c->sack_seq;
}

/* Keep a segment beyond the hole, in order of sequence; its index, or -1 (a copy, or -ENOMEM). */
static int64_t
ooo_add(struct dp_tcp *t, struct dp_tcp_conn *c, uint64_t seq, const struct dp_pkt *p)
{
	uint32_t i;

	for (i = c->n_ooo; i > 0 && c->ooo[i - 1].seq > seq; i--)
		;
	if (i > 0 && c->ooo[i - 1].seq == seq)
		return -1;			/* had it already */
	if (c->n_ooo == c->cap_ooo) {
		uint32_t cap = c->cap_ooo ? 2 * c->cap_ooo : 16;
		struct dp_tcp_ooo *o = realloc(c->ooo, cap * sizeof(*o));

		if (o == NULL) {
			dp_engine_fail(t->e.eng, -ENOMEM, "%s: out of memory for segments out of "
				       "order", t->e.name);
			return -1;
		}
		c->ooo = o;
		c->cap_ooo = cap;
	}
	memmove(&c->ooo[i + 1], &c->ooo[i], (c->n_ooo - i) * sizeof(*c->ooo));
	c->ooo[i].seq = seq;
	c->ooo[i].len = p->meta.payload;
	c->ooo[i].step = p->meta.step;
	c->ooo[i].round = p->meta.round;
	c->ooo[i].ctl = p->meta.flags & DP_SE_F_CTL;
	c->n_ooo++;
	c->ooo_ts += SM_TCP_RX_TRUESIZE(p->meta.payload);
	return i;
}

/* Bytes from the next expected to the end of the out-of-order queue. */
static inline uint64_t
ooo_span(const struct dp_tcp_conn *c)
{
	if (c->n_ooo == 0)
		return 0;
	return c->ooo[c->n_ooo - 1].seq + c->ooo[c->n_ooo - 1].len - c->rcv_nxt;
}

/* Bytes [from, seq + len) of a segment of (step, round) are the next in order. */
static void
deliver(struct dp_tcp *t, struct dp_tcp_conn *c, uint64_t seq, uint32_t len, uint32_t step,
	uint16_t round, bool ctl, dp_time_t now)
{
	uint64_t end = seq + len, from = c->rcv_nxt;

	if (end <= from)
		return;
	c->rcv_nxt = end;
	c->bytes_in += end - from;
	t->app.got(t->app.arg, c->peer, step, round, ctl, end - from, now);
}

void
dp_tcp_data_in(struct dp_tcp *t, struct dp_tcp_conn *c, const struct dp_pkt *p, dp_time_t now)
{
	uint32_t seq32 = p->seq, len = p->meta.payload, k;
	uint64_t seq = c->rcv_nxt + (uint64_t)(int64_t)(int32_t)(seq32 - (uint32_t)c->rcv_nxt);
	bool now_ack = false;

	if (c->last_rx == DP_NEVER || now - c->last_rx > c->rto)
		c->quick = QUICKACKS;
	c->last_rx = now;
	if (unlikely(p->meta.flags & DP_SE_F_CE)) {
		/* echoed in the ACK of this segment, sent at once (tcp_ecn_check_ce(): a CE
		 * puts the receiver in quick-ACK mode; the sender may have a small window) */
		c->ce_rx++;
		c->ece = true;
		if (c->quick == 0)
			c->quick = 1;
	}
	if (seq + len <= c->rcv_nxt) {		/* all of it had come: a copy */
		c->dup_rx++;
		dp_tcp_send_ack(t, c, now);
		return;
	}
	if (seq > c->rcv_nxt) {			/* beyond a hole */
		int64_t i = ooo_add(t, c, seq, p);

		c->ooo_rx++;
		if (i >= 0)
			sack_block(c, (uint32_t)i);
		if (i >= 0 && t->rwnd_auto)
			sm_rcvbuf_data(&c->rb, &t->bc, len, c->rcv_nxt, false, c->ooo_ts,
				       ooo_span(c), now);
		dp_tcp_send_ack(t, c, now);
		return;
	}
	deliver(t, c, seq, len, p->meta.step, p->meta.round, p->meta.flags & DP_SE_F_CTL, now);
	if (c->n_ooo > 0) {			/* it filled a hole, or part of one */
		for (k = 0; k < c->n_ooo && c->ooo[k].seq <= c->rcv_nxt; k++) {
			deliver(t, c, c->ooo[k].seq, c->ooo[k].len, c->ooo[k].step,
				c->ooo[k].round, c->ooo[k].ctl, now);
			c->ooo_ts -= SM_TCP_RX_TRUESIZE(c->ooo[k].len);
		}
		memmove(c->ooo, &c->ooo[k], (c->n_ooo - k) * sizeof(*c->ooo));
		c->n_ooo -= k;
		c->sack_len = 0;
		if (c->n_ooo > 0)
			sack_block(c, 0);
		now_ack = true;
	}
	if (t->rwnd_auto)
		sm_rcvbuf_data(&c->rb, &t->bc, len, c->rcv_nxt, true, c->ooo_ts, ooo_span(c), now);
	if (now_ack || t->delack_ps == 0 || c->rcv_nxt - c->rcv_acked > t->mss ||
	    c->quick > 0) {
		if (c->quick > 0)
			c->quick--;
		dp_tcp_send_ack(t, c, now);
		return;
	}
	if (c->delack_at == DP_NEVER)
		c->delack_at = now + t->delack_ps;
}

void
dp_tcp_ack_pending(struct dp_tcp *t, dp_time_t now)
{
	uint32_t i;

	for (i = 0; i < t->n_conn; i++) {
		struct dp_tcp_conn *c = dp_tcp_conn_at(t, i);

		if (c->delack_at != DP_NEVER) {
			dp_tcp_touch(t, c);
			dp_tcp_send_ack(t, c, now);
		}
	}
	dp_tcp_resched(t);
}

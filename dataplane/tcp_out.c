/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TCP's sending half: segments within the congestion and receive windows, the ACKs that come
 * back, SACK, loss recovery and the retransmission timer.
 *
 * References: RFC 5681 and 6582 (fast retransmit on three duplicate ACKs, recovery until the
 * highest sequence sent at the loss is acknowledged), RFC 6675 (SACK: a segment is lost with
 * three SACKed segments above it; pipe = sent - SACKed - lost + retransmitted, Linux's
 * tcp_packets_in_flight()), RFC 6298 and Linux's tcp_set_rto() (srtt + max(4 rttvar, 200 ms),
 * backoff doubling to 120 s), tcp_enter_loss() (after an RTO every unSACKed segment is lost and
 * the window is one segment).  In recovery and after an ECN echo the window comes down to
 * ssthresh by proportional rate reduction (RFC 6937, Linux's tcp_cwnd_reduction()): on each ACK
 * the segments sent keep pace with those delivered, ssthresh / the window before of them while
 * more than ssthresh are in flight, and the first (the fast retransmit) leaves at once.
 */
#include <errno.h>
#include <string.h>

#include "../models/ring.h"
#include "capture.h"
#include "link.h"
#include "tcp.h"

#define RTO_MAX_PS UINT64_C(120000000000000)	/* 120 s */

static inline struct dp_tcp_seg *
rtx_at(const struct dp_tcp_conn *c, uint32_t i)
{
	return &c->rtx[i & c->rtx_mask];
}

static inline uint32_t
packets_out(const struct dp_tcp_conn *c)
{
	return c->rtx_tail - c->rtx_head;
}

static inline uint32_t
in_flight(const struct dp_tcp_conn *c)
{
	return packets_out(c) - c->sacked - c->lost + c->retrans;
}

/* Frame @p of @c to the first hop: its mbuf if the run keeps bytes, the counts, the captures. */
static __rte_always_inline int
tcp_push(struct dp_tcp *t, struct dp_tcp_conn *c, struct dp_pkt *p, dp_time_t now,
	    dp_time_t *start)
{
	struct dp_engine *eng = t->e.eng;

	dp_tcp_touch(t, c);	/* the frame's ACK ends a delayed one; a segment starts the RTO */
	p->m = NULL;
	if (eng->bytes) {
		p->m = dp_tcp_frame(eng->pool, c, p, now);
		if (p->m == NULL) {
			dp_engine_fail(eng, -ENOBUFS, "%s: the mbuf pool (%u mbufs) is empty: give "
				       "it more (--mbufs)", t->e.name, eng->pool->size);
			return -ENOBUFS;
		}
	}
	if (!t->bg)
		dp_sync_hold(eng);	/* a frame of the sync, until its journey ends */
	t->e.c.tx++;
	t->e.c.tx_bytes += p->len;
	dp_capture_frame(eng, t->cap_tx, p, now);
	/* a frame the first hop drops (its queue full) is a loss TCP recovers from */
	(void)dp_link_push(t->out, p, now, start);
	return 0;
}

/* The fields every frame of @c carries: addresses, the ACK of the reverse direction. */
static __rte_always_inline void
pkt_base(const struct dp_tcp *t, struct dp_tcp_conn *c, struct dp_pkt *p)
{
	uint64_t wnd = t->rwnd_auto ? sm_rcvbuf_window(&c->rb, &t->bc, c->rcv_nxt, c->ooo_ts) :
		       t->rwnd;

	p->m = NULL;
	memset(&p->meta, 0, sizeof(p->meta));
	p->meta.src = c->self_wire;
	p->meta.dst = c->dst;
	p->meta.kind = t->kind;
	p->meta.flags = DP_SE_F_TCP | (t->bg ? DP_SE_F_BG : 0);
	if (wnd > UINT32_MAX)
		wnd = UINT32_MAX;
	p->departure_ns = (uint64_t)(uint32_t)c->rcv_nxt << 32 | wnd;
	if (unlikely(c->ece)) {
		p->meta.flags |= DP_SE_F_TCP_ECE;
		c->ece = false;
	}
	/* the ACK goes with it */
	c->rcv_acked = c->rcv_nxt;
	c->delack_at = DP_NEVER;
}

void
dp_tcp_send_ack(struct dp_tcp *t, struct dp_tcp_conn *c, dp_time_t now)
{
	struct dp_pkt p;
	dp_time_t start = now;

	pkt_base(t, c, &p);
	p.seq = (uint32_t)c->snd_nxt;
	p.len = DP_TCP_HDR;
	if (c->sack_len > 0) {
		p.meta.flags |= DP_SE_F_TCP_SACK;
		p.meta.step = (uint32_t)c->sack_seq;
		p.meta.payload = (uint32_t)c->sack_len;
		p.len = DP_TCP_HDR_SACK;
	}
	c->acks_out++;
	tcp_push(t, c, &p, now, &start);
}

/* Room for one more segment in the retransmission queue; 0 or -ENOMEM. */
static int
rtx_room(struct dp_tcp *t, struct dp_tcp_conn *c)
{
	struct dp_tcp_seg *r;

	if (c->rtx != NULL && c->rtx_tail - c->rtx_head <= c->rtx_mask)
		return 0;
	r = sm_ring_grow(c->rtx, &c->rtx_mask, &c->rtx_head, &c->rtx_tail, sizeof(*r), 64, 0);
	if (r == NULL) {
		dp_engine_fail(t->e.eng, -ENOMEM, "%s: out of memory for its segments", t->e.name);
		return -ENOMEM;
	}
	c->rtx = r;
	return 0;
}

/* Send segment @s (new or again); 0 or -errno. */
static __rte_always_inline int
send_seg(struct dp_tcp *t, struct dp_tcp_conn *c, struct dp_tcp_seg *s, dp_time_t now,
	 dp_time_t *start)
{
	struct dp_pkt p;

	pkt_base(t, c, &p);
	p.seq = (uint32_t)s->seq;
	p.len = DP_TCP_HDR + s->len;
	p.meta.payload = s->len;
	p.meta.step = s->step;
	p.meta.round = s->round;
	if (s->flags & DP_TCP_S_LAST)
		p.meta.flags |= DP_SE_F_LAST;
	if (s->flags & DP_TCP_S_CTL)
		p.meta.flags |= DP_SE_F_CTL;
	s->sent = now;
	c->segs_out++;
	if (c->recovery || c->cwr)
		c->prr_out++;
	c->last_tx = now;
	sm_cc_validate(&c->cc, in_flight(c) >= sm_cc_window(&c->cc), packets_out(c), c->snd_una,
		       c->snd_nxt);
	if (c->rto_at == DP_NEVER)
		c->rto_at = now + c->rto;
	return tcp_push(t, c, &p, now, start);
}

/* The first lost segment not yet sent again, or NULL. */
static struct dp_tcp_seg *
next_lost(const struct dp_tcp_conn *c)
{
	uint32_t i;

	if (c->lost == 0)
		return NULL;
	for (i = c->rtx_head; i != c->rtx_tail; i++) {
		struct dp_tcp_seg *s = rtx_at(c, i);

		if ((s->flags & (DP_TCP_S_LOST | DP_TCP_S_RETRANS)) == DP_TCP_S_LOST)
			return s;
	}
	return NULL;
}

/*
 * Send one segment of @c if the windows allow: a lost one first, else new data.
 * 1 if one went, 0 if none may, -errno.
 */
static __rte_always_inline int
send_one(struct dp_tcp *t, struct dp_tcp_conn *c, dp_time_t now, dp_time_t *start)
{
	struct dp_tcp_seg *s;
	struct dp_tcp_msg *m;
	uint32_t len, used = 0;

	if (c->msg_head == c->msg_tail && c->lost == 0)
		return 0;			/* nothing to send (a receiver's usual case) */
	if (c->share > 0) {
		/*
		 * The next message's bytes share the segment its predecessor's tail went in:
		 * Linux appends a write to the last skb of the write queue while that is unsent
		 * and shorter than the MSS, so they leave as one packet (no window of their own).
		 */
		m = &c->msg[c->msg_head & c->msg_mask];
		len = (uint32_t)m->left;
		used = c->shared;
		c->share = 0;
		goto segment;
	}
	if (in_flight(c) >= sm_cc_window(&c->cc)) {
		if (c->msg_head != c->msg_tail || c->lost > c->retrans)
			sm_cc_validate(&c->cc, true, packets_out(c), c->snd_una, c->snd_nxt);
		return 0;
	}
	s = next_lost(c);
	if (s != NULL) {
		s->flags |= DP_TCP_S_RETRANS | DP_TCP_S_EVER;
		c->retrans++;
		c->retrans_out++;
		return send_seg(t, c, s, now, start) == 0 ? 1 : -ENOBUFS;
	}
	if (c->msg_head == c->msg_tail)
		return 0;
	m = &c->msg[c->msg_head & c->msg_mask];
	len = m->left < t->mss ? (uint32_t)m->left : t->mss;
	if (c->snd_nxt + len > c->snd_una + c->peer_wnd)
		return 0;			/* the receiver's window is full */
	if (t->sndbuf_auto && packets_out(c) >= sm_sndbuf_segs(&t->bc, c->sndbuf))
		return 0;			/* the rest is not in the send buffer yet */
	if (packets_out(c) == 0 && c->last_tx != DP_NEVER)	/* sending after idle */
		sm_cc_on_idle(&c->cc, now - c->last_tx, c->rto, t->conf->init_cwnd,
			      t->conf->ss_after_idle);
segment:
	if (rtx_room(t, c) != 0)
		return -ENOMEM;
	s = rtx_at(c, c->rtx_tail++);
	s->seq = c->snd_nxt;
	s->len = len;
	s->step = m->step;
	s->round = m->round;
	s->phase = m->phase;
	s->chunk = m->chunk;
	s->flags = m->ctl ? DP_TCP_S_CTL : 0;
	c->snd_nxt += len;
	m->left -= len;
	if (m->left == 0) {
		s->flags |= DP_TCP_S_LAST;
		c->msg_head++;
		/* room left in this packet for the whole of the next message, written already */
		used += len;
		if (c->msg_head != c->msg_tail &&
		    c->msg[c->msg_head & c->msg_mask].left <= t->mss - used) {
			c->share = 1;
			c->shared = used;
		}
	}
	if (t->app.made != NULL && !(s->flags & DP_TCP_S_CTL))
		t->app.made(t->app.arg, s->step);
	return send_seg(t, c, s, now, start) == 0 ? 1 : -ENOBUFS;
}

void
dp_tcp_output(struct dp_tcp *t, dp_time_t now)
{
	uint32_t n = 0, k, i;
	dp_time_t start = now;
	bool more = true;

	if (t->n_conn == 0)
		return;
	if (now < t->tx_free) {		/* the last frame queued has not started yet */
		t->tx_at = t->tx_free;
		return;
	}
	while (more && n < t->burst) {
		uint32_t sent = 0, last = 0;

		more = false;
		for (k = 0, i = t->rr; k < t->n_conn && n < t->burst; k++) {
			if (send_one(t, dp_tcp_conn_at(t, i), now, &start) == 1) {
				n++;
				sent++;
				last = i;
				more = true;
			}
			if (++i == t->n_conn)
				i = 0;
		}
		if (sent == 1) {	/* one that could not send still cannot: the rest is its */
			struct dp_tcp_conn *c = dp_tcp_conn_at(t, last);

			while (n < t->burst && send_one(t, c, now, &start) == 1)
				n++;
			break;
		}
	}
	if (++t->rr == t->n_conn)
		t->rr = 0;
	if (n > 0)
		t->tx_free = start;
	if (n == t->burst)
		t->tx_at = start;	/* maybe more: when the last one starts */
}

/*
 * Mark SACKed the segments within [lo, lo + len); how many were not before.  *@p rack: the
 * latest time one of them that was sent once left, if later.
 */
static uint32_t
sack_mark(struct dp_tcp_conn *c, uint64_t lo, uint64_t len, dp_time_t *rack)
{
	uint64_t hi = lo + len;
	uint32_t i, n = 0;

	for (i = c->rtx_head; i != c->rtx_tail; i++) {
		struct dp_tcp_seg *s = rtx_at(c, i);

		if (s->seq >= hi)
			break;
		if (s->seq < lo || s->seq + s->len > hi || (s->flags & DP_TCP_S_SACKED))
			continue;
		s->flags |= DP_TCP_S_SACKED;
		c->sacked++;
		n++;
		if (!(s->flags & DP_TCP_S_EVER) && s->sent > *rack)
			*rack = s->sent;
		if (s->flags & DP_TCP_S_LOST) {
			s->flags &= ~DP_TCP_S_LOST;
			c->lost--;
		}
		if (s->flags & DP_TCP_S_RETRANS) {
			s->flags &= ~DP_TCP_S_RETRANS;
			c->retrans--;
		}
		if (s->seq + s->len > c->high_sacked)
			c->high_sacked = s->seq + s->len;
	}
	return n;
}

/* A window reduction begins (recovery, CWR): ssthresh now, the window by PRR (sm_cc_prr()). */
static void
reduction_start(struct dp_tcp_conn *c)
{
	c->prior_cwnd = sm_cc_window(&c->cc);
	c->prr_delivered = 0;
	c->prr_out = 0;
	sm_cc_reduce(&c->cc);
}

/* RFC 6675's IsLost with DupThresh 3, and the head on three duplicate ACKs: 1 if any new. */
static bool
mark_lost(struct dp_tcp_conn *c)
{
	uint32_t i, above = 0;
	bool any = false;

	if (c->rtx_head == c->rtx_tail)
		return false;
	for (i = c->rtx_tail; i != c->rtx_head; i--) {
		struct dp_tcp_seg *s = rtx_at(c, i - 1);

		if (s->flags & DP_TCP_S_SACKED) {
			above++;
			continue;
		}
		if (above >= 3 && !(s->flags & (DP_TCP_S_LOST | DP_TCP_S_RETRANS))) {
			s->flags |= DP_TCP_S_LOST;
			c->lost++;
			any = true;
		}
	}
	if (c->dupacks >= 3) {
		struct dp_tcp_seg *s = rtx_at(c, c->rtx_head);

		if (!(s->flags & (DP_TCP_S_SACKED | DP_TCP_S_LOST | DP_TCP_S_RETRANS))) {
			s->flags |= DP_TCP_S_LOST;
			c->lost++;
			any = true;
		}
	}
	return any;
}

/*
 * RACK for what was sent again (RFC 8985, Linux's tcp_rack_detect_loss() in recovery, where its
 * reordering window is 0): a retransmission is lost once a segment sent after it, and sent only
 * once, is delivered.  It is marked to go again (lost, no longer in flight).  1 if any.
 */
static bool
rack_lost(struct dp_tcp_conn *c, dp_time_t rack)
{
	uint32_t i;
	bool any = false;

	for (i = c->rtx_head; i != c->rtx_tail && c->retrans > 0; i++) {
		struct dp_tcp_seg *s = rtx_at(c, i);

		if ((s->flags & (DP_TCP_S_RETRANS | DP_TCP_S_SACKED)) == DP_TCP_S_RETRANS &&
		    s->sent < rack) {
			s->flags &= ~DP_TCP_S_RETRANS;
			c->retrans--;
			any = true;
		}
	}
	return any;
}

static void
rtt_sample(const struct dp_tcp *t, struct dp_tcp_conn *c, uint64_t r)
{
	uint64_t var;

	if (c->srtt == 0) {
		c->srtt = r;
		c->rttvar = r / 2;
	} else {
		uint64_t d = c->srtt > r ? c->srtt - r : r - c->srtt;

		c->rttvar = (3 * c->rttvar + d) / 4;
		c->srtt = (7 * c->srtt + r) / 8;
	}
	var = 4 * c->rttvar;
	if (var < t->rto_min_ps)
		var = t->rto_min_ps;
	c->rto = c->srtt + var;
	if (c->rto > RTO_MAX_PS)
		c->rto = RTO_MAX_PS;
}

/* Every byte written is acknowledged: the worker's waits and the sync's hold end. */
static void
acked_to(struct dp_tcp *t, struct dp_tcp_conn *c, dp_time_t now)
{
	if (c->waiting && c->wait_end - c->snd_una <= dp_tcp_sndbuf_bytes(t, c)) {
		c->waiting = false;
		if (--t->waiting == 0 && t->app.sent != NULL)
			t->app.sent(t->app.arg, now);
	}
	if (c->held && c->snd_una == c->write_end) {
		c->held = false;
		dp_sync_release(t->e.eng);
	}
}

/*
 * The ACK of frame @p: true if it may let more be sent (the windows moved, a loss marked).  The
 * case that moves nothing for a data segment is dp_tcp_ack_repeats()'s (tcp.h), which callers
 * may test first.
 */
bool
dp_tcp_ack_in(struct dp_tcp *t, struct dp_tcp_conn *c, const struct dp_pkt *p, dp_time_t now)
{
	uint32_t ack32 = (uint32_t)(p->departure_ns >> 32), delivered = 0;
	uint64_t ack = c->snd_una + (uint64_t)(int64_t)(int32_t)(ack32 - (uint32_t)c->snd_una);
	uint64_t wnd = (uint32_t)p->departure_ns, rtt = 0;
	dp_time_t rack = 0;
	bool pure = p->meta.payload == 0 || (p->meta.flags & DP_SE_F_TCP_SACK);
	bool more = wnd != c->peer_wnd, una_moved = false, newly_lost = false;

	if (ack > c->snd_nxt || ack + (UINT64_C(1) << 31) < c->snd_una)
		return false;		/* acknowledges what was never sent: ignored */
	c->peer_wnd = wnd;
	if (p->meta.flags & DP_SE_F_TCP_SACK) {
		uint32_t lo32 = p->meta.step;
		uint64_t lo = c->snd_una + (uint64_t)(int64_t)(int32_t)(lo32 - (uint32_t)c->snd_una);

		delivered += sack_mark(c, lo, p->meta.payload, &rack);
	}
	if (ack > c->snd_una) {
		while (c->rtx_head != c->rtx_tail) {
			struct dp_tcp_seg *s = rtx_at(c, c->rtx_head);

			if (s->seq + s->len > ack)
				break;
			/* Karn: no sample from a segment sent twice (or SACKed before) */
			rtt = s->flags & (DP_TCP_S_EVER | DP_TCP_S_SACKED) ? 0 : now - s->sent;
			if (s->flags & DP_TCP_S_SACKED)
				c->sacked--;
			else
				delivered++;
			if (!(s->flags & (DP_TCP_S_EVER | DP_TCP_S_SACKED)) && s->sent > rack)
				rack = s->sent;
			if (s->flags & DP_TCP_S_LOST)
				c->lost--;
			if (s->flags & DP_TCP_S_RETRANS)
				c->retrans--;
			c->rtx_head++;
		}
		c->snd_una = ack;
		una_moved = true;
		c->dupacks = 0;
		c->backoff = 0;
		if (rtt > 0)
			rtt_sample(t, c, rtt);
		if ((c->recovery || c->loss) && c->snd_una >= c->recover) {
			if (c->recovery)
				sm_cc_reduce_end(&c->cc);
			c->recovery = c->loss = false;
		}
		if (c->cwr && c->snd_una >= c->cwr_end) {
			if (!c->recovery)
				sm_cc_reduce_end(&c->cc);
			c->cwr = false;
		}
		/* (what this ACK delivered: the ACK that ends a recovery and covers the segments
		 * SACKed during it grows the window by its retransmissions alone) */
		if (!c->recovery && !c->cwr)
			sm_cc_on_ack(&c->cc, delivered, now, rtt, !sm_cc_may_grow(&c->cc));
		c->rto_at = c->snd_una < c->snd_nxt ? now + c->rto : DP_NEVER;
		/* room freed while the writer waits and the window is not full: the buffer grows */
		if (t->sndbuf_auto && c->msg_head != c->msg_tail &&
		    in_flight(c) < sm_cc_window(&c->cc))
			c->sndbuf = sm_sndbuf_expand(&t->bc, c->sndbuf, sm_cc_window(&c->cc));
		acked_to(t, c, now);
		more = true;
	} else if (pure && c->snd_una < c->snd_nxt) {
		c->dupacks++;
	}
	if (unlikely(p->meta.flags & DP_SE_F_TCP_ECE) && t->conf->ecn && !c->cwr && !c->recovery &&
	    !c->loss && c->snd_una < c->snd_nxt) {
		/* an echo of a CE: the window cut as for a loss, once a window, nothing resent
		 * (RFC 3168 6.1.2; Linux's tcp_enter_cwr()) */
		reduction_start(c);
		c->cwr = true;
		c->cwr_end = c->snd_nxt;
		c->ecn_cuts++;
	}
	if (c->retrans > 0 && rack > 0 && rack_lost(c, rack))
		more = newly_lost = true;
	if (c->snd_una < c->snd_nxt && (c->sacked > 0 || c->dupacks >= 3) && mark_lost(c)) {
		more = newly_lost = true;
		if (!c->recovery && !c->loss) {
			if (!c->cwr)
				reduction_start(c);
			c->cwr = false;		/* (recovery goes on from where CWR was) */
			c->recovery = true;
			c->recover = c->snd_nxt;
			c->fast_rtx++;
		}
	}
	if ((c->recovery || c->cwr) && delivered > 0) {
		/* the window for this ACK: what is in flight and what PRR lets leave */
		c->cc.cwnd = in_flight(c) + sm_cc_prr(&c->cc, delivered, newly_lost, una_moved,
						      in_flight(c), c->prior_cwnd,
						      &c->prr_delivered, c->prr_out);
		more = true;
	}
	return more || (p->meta.flags & DP_SE_F_TCP_SACK);
}

void
dp_tcp_rto_fire(struct dp_tcp *t, struct dp_tcp_conn *c, dp_time_t now)
{
	uint32_t i;

	if (c->snd_una == c->snd_nxt) {
		c->rto_at = DP_NEVER;
		return;
	}
	sm_cc_on_rto(&c->cc, in_flight(c), now);
	c->loss = true;
	c->recovery = false;
	c->recover = c->snd_nxt;
	c->dupacks = 0;
	c->lost = c->retrans = 0;
	for (i = c->rtx_head; i != c->rtx_tail; i++) {
		struct dp_tcp_seg *s = rtx_at(c, i);

		s->flags &= ~DP_TCP_S_RETRANS;
		if (s->flags & DP_TCP_S_SACKED) {
			s->flags &= ~DP_TCP_S_LOST;
			continue;
		}
		s->flags |= DP_TCP_S_LOST;
		c->lost++;
	}
	c->rtos++;
	c->backoff++;
	c->rto = c->rto * 2 > RTO_MAX_PS ? RTO_MAX_PS : c->rto * 2;
	c->rto_at = now + c->rto;
}

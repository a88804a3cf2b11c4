/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A worker's TCP element: its connections, its timers, and frames in and out.
 *
 * The element's one event is the earliest of: an RTO, a delayed ACK, and the time its last
 * frame queued on the first hop starts serialising (it then queues up to a burst more, as the
 * worker does for frames, so the first hop never idles while the window allows more and its
 * queue holds a burst at most: Linux's TCP small queues keep a socket's frames in the qdisc
 * short the same way); up to DP_TCP_SCAN_MAX connections a scan finds the earliest timer, past
 * that a heap of the connections by their earliest timer.  A connection is made at the first
 * write to or frame from its peer; connections are set up before the run (no handshake on the
 * wire).  Sending: tcp_out.c; receiving and ACKs: tcp_in.c; the frames' bytes: tcp_frame.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../models/ring.h"
#include "capture.h"
#include "link.h"
#include "tcp.h"
#include "worker.h"

static void tcp_event(struct dp_elem *e, dp_time_t now);
static void tcp_rx(struct dp_elem *e, const struct dp_pkt *p, dp_time_t now);
static uint64_t tcp_held(const struct dp_elem *e);

static const struct dp_elem_ops tcp_ops = {
	.kind = "tcp",
	.event = tcp_event,
	.rx = tcp_rx,
	.held = tcp_held,
};

int
dp_tcp_init(struct dp_tcp *t, struct dp_engine *eng, const char *name,
	    const struct dp_tcp_params *p)
{
	int rc;

	if (p->conf == NULL || p->app.got == NULL || p->nic == NULL || p->mss == 0 ||
	    p->burst == 0 || p->mult == 0)
		return -EINVAL;
	memset(t, 0, sizeof(*t));
	rc = dp_engine_add(eng, &t->e, &tcp_ops, name);
	if (rc != 0)
		return rc;
	t->id = p->id;
	t->per_dc = p->per_dc;
	t->mss = p->mss;
	t->burst = p->burst;
	t->conf = p->conf;
	t->delack_ps = sm_ps(p->conf->delack);
	t->rto_min_ps = sm_ps(p->conf->rto_min);
	t->rto_init_ps = sm_ps(p->conf->rto_init);
	t->rwnd_auto = p->conf->rwnd < 0;
	t->sndbuf_auto = p->conf->sndbuf < 0;
	t->rwnd = t->rwnd_auto ? 0 : (uint64_t)p->conf->rwnd;
	t->sndbuf = t->sndbuf_auto ? 0 : (uint64_t)p->conf->sndbuf;
	sm_tcp_bufconf_init(&t->bc, p->mss + DP_TCP_MSS_LESS, (uint64_t)p->conf->rmem_max,
			    (uint64_t)p->conf->wmem_max);
	t->app = p->app;
	t->mult = p->mult;
	t->dst_mult = p->dst_mult;
	t->kind = p->kind;
	t->addr_base = p->addr_base;
	t->bg = p->bg;
	t->out = p->nic;
	t->cap_tx = p->cap_tx;
	t->cap_rx = p->cap_rx;
	t->tx_at = DP_NEVER;
	return 0;
}

void
dp_tcp_fini(struct dp_tcp *t)
{
	uint32_t i;

	for (i = 0; i < t->n_conn; i++) {
		struct dp_tcp_conn *c = dp_tcp_conn_at(t, i);

		free(c->rtx);
		free(c->msg);
		free(c->ooo);
	}
	for (i = 0; i < DP_TCP_BLKS; i++) {
		free(t->blk[i]);
		t->blk[i] = NULL;
	}
	free(t->conn_ix);
	free(t->heap);
	free(t->touched);
	free(t->due);
	t->last = t->last2 = NULL;
	t->conn0 = NULL;
	t->conn_ix = t->heap = t->touched = t->due = NULL;
	t->n_conn = t->cap_conn = t->cap_ix = t->n_touched = 0;
}

static uint64_t
tcp_held(const struct dp_elem *e)
{
	return 0;	/* segments not yet acknowledged are state, not frames */
}

/* When @c's next timer fires (DP_NEVER: none runs). */
static inline dp_time_t
conn_key(const struct dp_tcp_conn *c)
{
	return c->rto_at < c->delack_at ? c->rto_at : c->delack_at;
}

static inline void
heap_set(struct dp_tcp *t, uint32_t pos, uint32_t ci)
{
	t->heap[pos] = ci;
	dp_tcp_conn_at(t, ci)->heap_pos = pos;
}

/* Move connection @ci to its place in the heap (its key moved either way). */
static void
heap_fix(struct dp_tcp *t, uint32_t ci)
{
	dp_time_t k = conn_key(dp_tcp_conn_at(t, ci));
	uint32_t pos = dp_tcp_conn_at(t, ci)->heap_pos, child;

	while (pos > 0 && conn_key(dp_tcp_conn_at(t, t->heap[(pos - 1) / 2])) > k) {
		heap_set(t, pos, t->heap[(pos - 1) / 2]);
		pos = (pos - 1) / 2;
	}
	for (;;) {
		child = 2 * pos + 1;
		if (child >= t->n_conn)
			break;
		if (child + 1 < t->n_conn &&
		    conn_key(dp_tcp_conn_at(t, t->heap[child + 1])) <
		    conn_key(dp_tcp_conn_at(t, t->heap[child])))
			child++;
		if (conn_key(dp_tcp_conn_at(t, t->heap[child])) >= k)
			break;
		heap_set(t, pos, t->heap[child]);
		pos = child;
	}
	heap_set(t, pos, ci);
}

/* Place again every connection whose timers may have moved. */
static void
heap_update(struct dp_tcp *t)
{
	while (t->n_touched > 0) {
		uint32_t ci = t->touched[--t->n_touched];

		dp_tcp_conn_at(t, ci)->touched = false;
		heap_fix(t, ci);
	}
}

/* Room for one more connection: a block, the heap, the touched and due lists; 0 or -ENOMEM. */
static int
conn_room(struct dp_tcp *t)
{
	uint32_t k = 31u - (uint32_t)__builtin_clz(t->n_conn / 4 + 1);
	uint32_t cap = 4 * ((2u << k) - 1), *h;

	if (t->n_conn < t->cap_conn)
		return 0;
	if (k >= DP_TCP_BLKS)
		return -ENOMEM;
	h = realloc(t->heap, cap * sizeof(*h));
	if (h == NULL)
		return -ENOMEM;
	t->heap = h;
	h = realloc(t->touched, cap * sizeof(*h));
	if (h == NULL)
		return -ENOMEM;
	t->touched = h;
	h = realloc(t->due, cap * sizeof(*h));
	if (h == NULL)
		return -ENOMEM;
	t->due = h;
	if (t->blk[k] == NULL) {
		/* on whole cache lines: a connection's hot fields share its first three */
		t->blk[k] = aligned_alloc(RTE_CACHE_LINE_SIZE, (4u << k) * sizeof(*t->blk[k]));
		if (t->blk[k] == NULL)
			return -ENOMEM;
		memset(t->blk[k], 0, (4u << k) * sizeof(*t->blk[k]));
		if (k == 0)
			t->conn0 = t->blk[0];
	}
	t->cap_conn = cap;
	return 0;
}

/* Room in the index by peer for @peer; 0 or -ENOMEM. */
static int
ix_room(struct dp_tcp *t, uint32_t peer)
{
	uint32_t cap = t->cap_ix ? t->cap_ix : 16, *ix;

	if (peer < t->cap_ix)
		return 0;
	while (cap <= peer)
		cap *= 2;
	ix = realloc(t->conn_ix, cap * sizeof(*ix));
	if (ix == NULL)
		return -ENOMEM;
	memset(ix + t->cap_ix, 0, (cap - t->cap_ix) * sizeof(*ix));
	t->conn_ix = ix;
	t->cap_ix = cap;
	return 0;
}

struct dp_tcp_conn *
dp_tcp_conn_of(struct dp_tcp *t, uint32_t peer)
{
	struct dp_tcp_conn *c;
	uint32_t i;

	if (t->last != NULL && t->last->peer == peer)
		return t->last;
	c = t->last2;
	if (c != NULL && c->peer == peer)
		goto found;
	if (!t->heaped) {		/* a few: a scan of what is near at hand */
		for (i = 0; i < t->n_conn; i++) {
			c = dp_tcp_conn_at(t, i);
			if (c->peer == peer)
				goto found;
		}
	} else if (peer < t->cap_ix && t->conn_ix[peer] != 0) {
		c = dp_tcp_conn_at(t, t->conn_ix[peer] - 1);
		goto found;
	}
	if (ix_room(t, peer) != 0 || conn_room(t) != 0)
		return NULL;
	/* in blocks that never move: a caller's pointer outlives the app's callbacks */
	c = dp_tcp_conn_at(t, t->n_conn);
	memset(c, 0, sizeof(*c));	/* its rings are made at their first use */
	c->ix = t->n_conn;
	c->slot = (uint8_t)(t->n_conn < DP_TCP_SCAN_MAX ? t->n_conn : 0);
	c->peer = peer;
	c->self_wire = (uint16_t)(t->id * t->mult + peer % t->mult);
	c->dst = (uint16_t)(peer / t->mult * t->dst_mult);
	c->isn_tx = dp_tcp_isn(c->self_wire, peer);
	c->isn_rx = dp_tcp_isn(peer, c->self_wire);
	sm_cc_init(&c->cc, t->conf->cc, t->conf->init_cwnd);
	c->peer_wnd = t->rwnd_auto ? sm_rcvbuf_initial_window(&t->bc) : t->rwnd;
	c->sndbuf = sm_sndbuf_expand(&t->bc, t->bc.wmem[1], t->conf->init_cwnd);
	sm_rcvbuf_init(&c->rb, &t->bc, 0);
	c->rto = t->rto_init_ps;
	c->rto_at = DP_NEVER;
	c->delack_at = DP_NEVER;
	c->last_tx = DP_NEVER;
	c->last_rx = DP_NEVER;
	dp_tcp_conn_template(t, c);
	t->conn_ix[peer] = t->n_conn + 1;
	heap_set(t, t->n_conn, t->n_conn);	/* no timer: the heap's last place is its */
	t->n_conn++;
	if (!t->heaped && t->n_conn > DP_TCP_SCAN_MAX) {	/* a scan costs more than the heap */
		uint32_t pos, up;

		t->heaped = true;
		for (i = 0; i < t->n_conn; i++) {	/* each inserted in turn, sifting up */
			for (pos = i; pos > 0; pos = up) {
				up = (pos - 1) / 2;
				if (conn_key(dp_tcp_conn_at(t, t->heap[up])) <=
				    conn_key(dp_tcp_conn_at(t, i)))
					break;
				heap_set(t, pos, t->heap[up]);
			}
			heap_set(t, pos, i);
		}
	}
found:
	t->last2 = t->last;
	t->last = c;
	return c;
}

/* Append a message to @c's stream; 0 or -ENOMEM. */
static int
msg_add(struct dp_tcp *t, struct dp_tcp_conn *c, uint64_t bytes, uint32_t step, uint16_t round,
	uint8_t phase, uint16_t chunk, bool ctl)
{
	struct dp_tcp_msg *m;

	if (c->msg == NULL || c->msg_tail - c->msg_head > c->msg_mask) {
		struct dp_tcp_msg *r = sm_ring_grow(c->msg, &c->msg_mask, &c->msg_head,
						    &c->msg_tail, sizeof(*r), 16, 0);

		if (r == NULL)
			return -ENOMEM;
		c->msg = r;
	}
	m = &c->msg[c->msg_tail++ & c->msg_mask];
	m->left = bytes;
	c->write_end += bytes;
	m->end = c->write_end;
	m->step = step;
	m->round = round;
	m->phase = phase;
	m->chunk = chunk;
	m->ctl = ctl;
	if (!c->held && !t->bg) {
		c->held = true;
		dp_sync_hold(t->e.eng);	/* its data, until acknowledged */
	}
	return 0;
}

int
dp_tcp_write(struct dp_tcp *t, struct dp_link *out, uint32_t peer, uint64_t bytes,
	     uint32_t step, uint16_t round, uint8_t phase, uint16_t chunk, dp_time_t now)
{
	struct dp_tcp_conn *c = dp_tcp_conn_of(t, peer);

	if (c == NULL)
		return -ENOMEM;
	if (bytes == 0)
		return 1;
	if (msg_add(t, c, bytes, step, round, phase, chunk, false) != 0)
		return -ENOMEM;
	t->out = out;
	dp_tcp_output(t, now);
	dp_tcp_resched(t);
	if (c->write_end - c->snd_una <= dp_tcp_sndbuf_bytes(t, c))
		return 1;		/* within the send buffer: the send is complete */
	if (!c->waiting) {
		c->waiting = true;
		t->waiting++;
	}
	c->wait_end = c->write_end;
	return 0;
}

int
dp_tcp_write_ctl(struct dp_tcp *t, uint32_t peer, uint32_t bytes, uint32_t step,
		 uint16_t round, dp_time_t now)
{
	struct dp_tcp_conn *c = dp_tcp_conn_of(t, peer);

	if (c == NULL || msg_add(t, c, bytes ? bytes : 1, step, round, 0, 0, true) != 0)
		return -ENOMEM;
	dp_tcp_output(t, now);
	dp_tcp_resched(t);
	return 0;
}

void
dp_tcp_unwait(struct dp_tcp *t, uint32_t peer)
{
	struct dp_tcp_conn *c = dp_tcp_conn_of(t, peer);

	if (c != NULL && c->waiting) {
		c->waiting = false;
		t->waiting--;
	}
}

/* The element's next event: the earliest timer or burst. */
static dp_time_t
next_due(struct dp_tcp *t)
{
	dp_time_t next = DP_NEVER;
	uint32_t i;

	if (t->heaped) {
		heap_update(t);
		next = conn_key(dp_tcp_conn_at(t, t->heap[0]));
	} else {
		for (i = 0; i < t->n_conn; i++)
			if (conn_key(dp_tcp_conn_at(t, i)) < next)
				next = conn_key(dp_tcp_conn_at(t, i));
	}
	if (t->tx_at < next)
		next = t->tx_at;
	return next;
}

/*
 * A frame or a write moved the timers: the element's event moves only if it must come sooner
 * or nothing is left to wait for.  An event already pending earlier stays (a timer pushed back
 * at every ACK or segment would otherwise move it in the calendar each frame); it finds nothing
 * due and is placed then.  The element's last event is at the same time as if placed exactly.
 * The pending event is never later than any timer, so a scan reads only the connections
 * touched since (tmask) unless these wait for nothing.
 */
static __rte_always_inline void
resched(struct dp_tcp *t)
{
	dp_time_t next;

	if (!t->heaped) {
		uint32_t m = t->tmask;

		t->tmask = 0;
		next = t->tx_at;
		while (m != 0) {
			dp_time_t k = conn_key(dp_tcp_conn_at(t, (uint32_t)__builtin_ctz(m)));

			if (k < next)
				next = k;
			m &= m - 1;
		}
		if (next < t->e.next) {
			dp_sched(&t->e, next);
			return;
		}
		if (next != DP_NEVER || t->e.next == DP_NEVER)
			return;
	}
	next = next_due(t);
	if (next < t->e.next || next == DP_NEVER)
		dp_sched(&t->e, next);
}

void
dp_tcp_resched(struct dp_tcp *t)
{
	resched(t);
}

/* Whether a timer or the burst is due at @p now. */
static bool
any_due(struct dp_tcp *t, dp_time_t now)
{
	uint32_t i;

	if (t->tx_at <= now)
		return true;
	if (t->heaped) {
		heap_update(t);
		return conn_key(dp_tcp_conn_at(t, t->heap[0])) <= now;
	}
	for (i = 0; i < t->n_conn; i++)
		if (conn_key(dp_tcp_conn_at(t, i)) <= now)
			return true;
	return false;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void
tcp_event(struct dp_elem *e, dp_time_t now)
{
	struct dp_tcp *t = (struct dp_tcp *)e;
	uint32_t n = 0, top = 0, i;

	if (!any_due(t, now)) {
		dp_event_void(e);	/* its timers moved on since it was placed */
		goto out_sched;
	}
	if (!t->heaped) {
		for (i = 0; i < t->n_conn; i++) {
			struct dp_tcp_conn *c = dp_tcp_conn_at(t, i);

			if (c->delack_at <= now)
				dp_tcp_send_ack(t, c, now);
			if (c->rto_at <= now)
				dp_tcp_rto_fire(t, c, now);
		}
		goto out;
	}
	heap_update(t);
	/* the connections whose timers are due: the heap's top down (t->touched the stack) */
	if (conn_key(dp_tcp_conn_at(t, t->heap[0])) <= now)
		t->touched[top++] = 0;
	while (top > 0) {
		uint32_t pos = t->touched[--top], child;

		t->due[n++] = t->heap[pos];
		for (child = 2 * pos + 1; child <= 2 * pos + 2 && child < t->n_conn; child++)
			if (conn_key(dp_tcp_conn_at(t, t->heap[child])) <= now)
				t->touched[top++] = child;
	}
	/* in the order the connections were made, whatever the heap's */
	if (n > 1)
		qsort(t->due, n, sizeof(*t->due), cmp_u32);
	for (i = 0; i < n; i++) {
		struct dp_tcp_conn *c = dp_tcp_conn_at(t, t->due[i]);

		if (c->delack_at <= now)
			dp_tcp_send_ack(t, c, now);
		if (c->rto_at <= now)
			dp_tcp_rto_fire(t, c, now);
		dp_tcp_touch(t, c);
	}
out:
	if (t->tx_at <= now)
		t->tx_at = DP_NEVER;
	dp_tcp_output(t, now);
out_sched:
	t->tmask = 0;
	dp_sched(&t->e, next_due(t));
}

static void
tcp_rx(struct dp_elem *e, const struct dp_pkt *p, dp_time_t now)
{
	struct dp_tcp *t = (struct dp_tcp *)e;
	struct dp_tcp_conn *c;
	bool ours, more;

	if (!(p->meta.flags & DP_SE_F_TCP) && t->app.pass != NULL) {	/* not TCP's: the app's */
		t->app.pass->ops->rx(t->app.pass, p, now);
		return;
	}
	e->c.rx++;		/* a source and sink of frames, as a worker is (topo_check.c) */
	e->c.rx_bytes += p->len;
	dp_capture_frame(e->eng, t->cap_rx, p, now);
	ours = (p->meta.flags & DP_SE_F_TCP) && p->meta.dst / t->dst_mult == t->id &&
	       p->meta.kind == t->kind;
	c = ours ? dp_tcp_conn_find(t, p->meta.src) : NULL;
	if (c == NULL) {
		dp_engine_fail(e->eng, ours ? -ENOMEM : -EPROTO,
			       "%s: a frame from %u to %u: %s", e->name, p->meta.src,
			       p->meta.dst, ours ? "out of memory" : "not ours");
		e->c.drop++;
		e->c.drop_bytes += p->len;
		dp_frame_end(e->eng, p);
		return;
	}
	dp_tcp_touch(t, c);	/* its ACK moves the RTO, its data a delayed ACK */
	more = !dp_tcp_ack_repeats(c, p) && dp_tcp_ack_in(t, c, p, now);
	if (p->meta.payload > 0 && !(p->meta.flags & DP_SE_F_TCP_SACK))
		dp_tcp_data_in(t, c, p, now);
	dp_frame_end(e->eng, p);
	if (more)
		dp_tcp_output(t, now);	/* (an app's write from a callback has sent already) */
	resched(t);
}

int
dp_tcp_describe(const struct dp_tcp *t, char *buf, size_t len)
{
	size_t n = 0;
	uint32_t i;

	n += snprintf(buf, len, "%s:", t->e.name);
	for (i = 0; i < t->n_conn && n < len; i++) {
		const struct dp_tcp_conn *c = dp_tcp_conn_at(t, i);

		n += snprintf(buf + n, len - n, " [to w%u: %lu of %lu bytes acked, %lu sent, cwnd "
			      "%u, rto %.0f ms%s; from w%u: %lu in order, %u out of order]",
			      c->peer, (unsigned long)c->snd_una, (unsigned long)c->write_end,
			      (unsigned long)c->snd_nxt, sm_cc_window(&c->cc), c->rto * 1e-9,
			      c->loss ? ", after an RTO" : c->recovery ? ", in recovery" : "",
			      c->peer, (unsigned long)c->rcv_nxt, c->n_ooo);
	}
	return (int)n;
}

void
dp_tcp_stats_add(const struct dp_tcp *t, struct dp_tcp_stats *s)
{
	uint32_t i;

	for (i = 0; i < t->n_conn; i++) {
		const struct dp_tcp_conn *c = dp_tcp_conn_at(t, i);

		s->segs += c->segs_out;
		s->retrans += c->retrans_out;
		s->acks += c->acks_out;
		s->fast_rtx += c->fast_rtx;
		s->rtos += c->rtos;
		s->dup_rx += c->dup_rx;
		s->ooo_rx += c->ooo_rx;
		s->ecn |= t->conf->ecn != 0;
		s->ce_rx += c->ce_rx;
		s->ecn_cuts += c->ecn_cuts;
		s->bytes_in += c->bytes_in;
	}
}

void
dp_tcp_stop(struct dp_tcp *t)
{
	uint32_t i;

	t->stopped = true;
	for (i = 0; i < t->n_conn; i++) {
		struct dp_tcp_conn *c = dp_tcp_conn_at(t, i);

		c->write_end = c->snd_nxt;	/* the rest is never sent */
		c->msg_head = c->msg_tail;
		if (c->held && c->snd_una == c->write_end) {
			c->held = false;
			dp_sync_release(t->e.eng);
		}
	}
}

uint64_t
dp_tcp_bytes_in(const struct dp_tcp *t)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < t->n_conn; i++)
		n += dp_tcp_conn_at(t, i)->bytes_in;
	return n;
}

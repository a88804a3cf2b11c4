/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A worker's TCP element: its connections, its timers, and frames in and out.
 *
 * The element's one event is the earliest of: an RTO, a delayed ACK, and the time its last
 * frame queued on the first hop starts serialising (it then queues up to a burst more, as the
 * worker does for frames, so the first hop never idles while the window allows more and its
 * queue holds a burst at most: Linux's TCP small queues keep a socket's frames in the qdisc
 * short the same way).  A connection is made at the first write to or frame from its peer;
 * connections are set up before the run (no handshake on the wire).  Sending: tcp_out.c;
 * receiving and ACKs: tcp_in.c; the frames' bytes: tcp_frame.c.
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
	t->rwnd = (uint64_t)p->conf->rwnd;
	t->sndbuf = (uint64_t)p->conf->sndbuf;
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
		free(t->conn[i].rtx);
		free(t->conn[i].msg);
		free(t->conn[i].ooo);
	}
	free(t->conn);
	t->conn = NULL;
	t->n_conn = t->cap_conn = 0;
}

static uint64_t
tcp_held(const struct dp_elem *e)
{
	return 0;	/* segments not yet acknowledged are state, not frames */
}

/* A direction's initial sequence number: fixed per ordered pair, so runs repeat. */
static uint32_t
isn(uint32_t from, uint32_t to)
{
	uint32_t x = from * 0x9e3779b1u ^ (to + 0x7f4a7c15u) * 0x85ebca6bu;

	return x ^ x >> 15;
}

struct dp_tcp_conn *
dp_tcp_conn_of(struct dp_tcp *t, uint32_t peer)
{
	struct dp_tcp_conn *c;
	uint32_t i;

	if (t->last_conn < t->n_conn && t->conn[t->last_conn].peer == peer)
		return &t->conn[t->last_conn];
	for (i = 0; i < t->n_conn; i++)
		if (t->conn[i].peer == peer) {
			t->last_conn = i;
			return &t->conn[i];
		}
	if (t->n_conn == t->cap_conn) {
		uint32_t cap = t->cap_conn ? 2 * t->cap_conn : 4;

		c = realloc(t->conn, cap * sizeof(*c));
		if (c == NULL)
			return NULL;
		t->conn = c;
		t->cap_conn = cap;
	}
	c = &t->conn[t->n_conn];
	memset(c, 0, sizeof(*c));	/* its rings are made at their first use */
	c->peer = peer;
	c->self_wire = (uint16_t)(t->id * t->mult + peer % t->mult);
	c->dst = (uint16_t)(peer / t->mult * t->dst_mult);
	c->isn_tx = isn(c->self_wire, peer);
	c->isn_rx = isn(peer, c->self_wire);
	sm_cc_init(&c->cc, t->conf->cc, t->conf->init_cwnd);
	c->peer_wnd = t->rwnd;
	c->rto = t->rto_init_ps;
	c->rto_at = DP_NEVER;
	c->delack_at = DP_NEVER;
	c->last_tx = DP_NEVER;
	c->last_rx = DP_NEVER;
	dp_tcp_conn_template(t, c);
	t->last_conn = t->n_conn;
	return &t->conn[t->n_conn++];
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
	if (c->write_end - c->snd_una <= t->sndbuf)
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

void
dp_tcp_resched(struct dp_tcp *t)
{
	dp_time_t next = DP_NEVER;
	uint32_t i;

	for (i = 0; i < t->n_conn; i++) {
		const struct dp_tcp_conn *c = &t->conn[i];

		if (c->rto_at < next)
			next = c->rto_at;
		if (c->delack_at < next)
			next = c->delack_at;
	}
	if (t->tx_at < next)
		next = t->tx_at;
	dp_sched(&t->e, next);
}

static void
tcp_event(struct dp_elem *e, dp_time_t now)
{
	struct dp_tcp *t = (struct dp_tcp *)e;
	uint32_t i;

	for (i = 0; i < t->n_conn; i++) {
		struct dp_tcp_conn *c = &t->conn[i];

		if (c->delack_at <= now)
			dp_tcp_send_ack(t, c, now);
		if (c->rto_at <= now)
			dp_tcp_rto_fire(t, c, now);
	}
	if (t->tx_at <= now)
		t->tx_at = DP_NEVER;
	dp_tcp_output(t, now);
	dp_tcp_resched(t);
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
	c = ours ? dp_tcp_conn_of(t, p->meta.src) : NULL;
	if (c == NULL) {
		dp_engine_fail(e->eng, ours ? -ENOMEM : -EPROTO,
			       "%s: a frame from %u to %u: %s", e->name, p->meta.src,
			       p->meta.dst, ours ? "out of memory" : "not ours");
		e->c.drop++;
		e->c.drop_bytes += p->len;
		dp_frame_end(e->eng, p);
		return;
	}
	more = dp_tcp_ack_in(t, c, p, now);
	if (p->meta.payload > 0 && !(p->meta.flags & DP_SE_F_TCP_SACK))
		dp_tcp_data_in(t, c, p, now);
	dp_frame_end(e->eng, p);
	if (more)
		dp_tcp_output(t, now);	/* (an app's write from a callback has sent already) */
	dp_tcp_resched(t);
}

int
dp_tcp_describe(const struct dp_tcp *t, char *buf, size_t len)
{
	size_t n = 0;
	uint32_t i;

	n += snprintf(buf, len, "%s:", t->e.name);
	for (i = 0; i < t->n_conn && n < len; i++) {
		const struct dp_tcp_conn *c = &t->conn[i];

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
		const struct dp_tcp_conn *c = &t->conn[i];

		s->segs += c->segs_out;
		s->retrans += c->retrans_out;
		s->acks += c->acks_out;
		s->fast_rtx += c->fast_rtx;
		s->rtos += c->rtos;
		s->dup_rx += c->dup_rx;
		s->ooo_rx += c->ooo_rx;
		s->bytes_in += c->bytes_in;
	}
}

void
dp_tcp_stop(struct dp_tcp *t)
{
	uint32_t i;

	t->stopped = true;
	for (i = 0; i < t->n_conn; i++) {
		struct dp_tcp_conn *c = &t->conn[i];

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
		n += t->conn[i].bytes_in;
	return n;
}

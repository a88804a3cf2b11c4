/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker element: its collective's state machine.
 *
 * A step is compute, then the rounds of the program.  In a round the worker queues its chunk as
 * frames on its first hop (the NIC, the port cap of its pluggable, or the pluggable itself) and
 * waits for the chunk its ring predecessor sends it (or for its module to finish); in a tree's
 * round it queues a chunk for each of its parents or children due (sm_phase_sends()), one flow
 * after another, and waits for those it is due to receive (none, in some rounds); in a fan's
 * round (a direct exchange posted at once) a frame of each of its flows in turn.  It queues at
 * most pk->burst frames ahead and re-arms when the last of them starts serialising, so the first
 * hop never idles while frames remain and the pool holds few frames per worker.  The next round
 * starts when both the round's frames are all queued and its expected bytes have all arrived.
 * Frames for a later round (a faster predecessor) are counted as they come.  With phase sync a
 * worker waits at the barrier between phases; with step or phase sync, between steps.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "ffwd.h"
#include "link.h"
#include "module.h"
#include "record.h"
#include "spans.h"
#include "tcp.h"
#include "usdt.h"
#include "worker.h"
#include "worker_impl.h"

static void worker_event(struct dp_elem *e, dp_time_t now);
static void worker_rx(struct dp_elem *e, const struct dp_pkt *p, dp_time_t now);
static uint64_t worker_held(const struct dp_elem *e);

static bool worker_settled(const struct dp_elem *e);

/* (flow: its headers are made again at each round's first frame) */
static const struct dp_ffwd_field worker_moving[] = {
	DP_FFWD_FIELD(struct dp_worker, step), DP_FFWD_FIELD(struct dp_worker, round),
	DP_FFWD_FIELD(struct dp_worker, pending_round),
	DP_FFWD_FIELD(struct dp_worker, cur_key), DP_FFWD_FIELD(struct dp_worker, cur_got),
	DP_FFWD_FIELD(struct dp_worker, cur_at),
	DP_FFWD_FIELD(struct dp_worker, in_bytes),
	DP_FFWD_FIELD(struct dp_worker, frames_made), DP_FFWD_FIELD(struct dp_worker, frames_got),
	DP_FFWD_FIELD(struct dp_worker, bytes_got), DP_FFWD_FIELD(struct dp_worker, tx_off),
	DP_FFWD_FIELD(struct dp_worker, tx_seq), DP_FFWD_FIELD(struct dp_worker, left_at),
	DP_FFWD_FIELD(struct dp_worker, unread_key), DP_FFWD_FIELD(struct dp_worker, send_i),
	DP_FFWD_FIELD(struct dp_worker, wake), DP_FFWD_FIELD(struct dp_worker, b_ready),
	DP_FFWD_FIELD(struct dp_worker, b_next), DP_FFWD_FIELD(struct dp_worker, b_done),
	DP_FFWD_FIELD(struct dp_worker, first_at), DP_FFWD_FIELD(struct dp_worker, compute_at),
};
static const struct dp_ffwd_field worker_skip[] = { DP_FFWD_FIELD(struct dp_worker, flow) };
static const struct dp_ffwd_layout worker_ffwd = {
	.size = sizeof(struct dp_worker),
	.moving = worker_moving, .n_moving = RTE_DIM(worker_moving),
	.skip = worker_skip, .n_skip = RTE_DIM(worker_skip),
	.settled = worker_settled,
};

static const struct dp_elem_ops worker_ops = {
	.kind = "worker",
	.event = worker_event,
	.rx = worker_rx,
	.held = worker_held,
	.ffwd = &worker_ffwd,
};

int
dp_worker_init(struct dp_worker *w, struct dp_engine *eng, const char *name,
	       const struct dp_worker_params *p)
{
	int rc;

	if (p->prog == NULL || p->pk == NULL || p->nic == NULL || p->rec == NULL ||
	    p->prog->n == 0)
		return -EINVAL;
	memset(w, 0, sizeof(*w));
	rc = dp_engine_add(eng, &w->e, &worker_ops, name);
	if (rc != 0)
		return rc;
	w->id = p->id;
	w->per_dc = p->per_dc;
	w->run_id = p->run_id;
	w->steps = p->steps;
	w->prog = p->prog;
	w->pk = p->pk;
	w->nic = p->nic;
	w->port = p->port;
	w->module = p->module;
	w->barrier = p->barrier;
	w->fin = p->fin;
	w->rec = p->rec;
	w->tcp = p->tcp;
	w->cap_tx = p->cap_tx;
	w->cap_rx = p->cap_rx;
	w->state = DP_W_DONE;
	w->cur_key = UINT64_MAX;
	w->unread_key = UINT64_MAX;
	w->loaded = -1;
	return dp_lanes_init(w);
}

void
dp_worker_fini(struct dp_worker *w)
{
	free(w->early);
	w->early = NULL;
	w->n_early = w->cap_early = 0;
	free(w->ctl_early);
	w->ctl_early = NULL;
	w->n_ctl = w->cap_ctl = 0;
	free(w->fan);
	w->fan = NULL;
	w->cap_fan = 0;
	free(w->lanes);
	w->lanes = NULL;
	w->n_lanes = 0;
}

static uint64_t
got_key(const struct dp_worker *w, uint32_t step, uint32_t round)
{
	return (uint64_t)step * w->prog->n + round;
}

/* The bytes of a round not begun yet: where they are kept, or -1. */
static int64_t
early_find(const struct dp_worker *w, uint64_t key)
{
	uint32_t i;

	for (i = 0; i < w->n_early; i++)
		if (w->early[i].key == key)
			return i;
	return -1;
}

/* Bytes received for (step, round) so far. */
static uint64_t
got_bytes(const struct dp_worker *w, uint64_t key)
{
	int64_t i;

	if (key == w->cur_key)
		return w->cur_got;
	i = early_find(w, key);
	return i < 0 ? 0 : w->early[i].bytes;
}

/* Count @p bytes for (step, round), come at @p now; 0 or -ENOMEM. */
static int
got_add(struct dp_worker *w, uint64_t key, uint64_t bytes, dp_time_t now)
{
	int64_t i;

	if (key == w->cur_key) {
		w->cur_got += bytes;
		w->cur_at = RTE_MAX(w->cur_at, now);
		return 0;
	}
	i = early_find(w, key);
	if (i < 0) {
		if (w->n_early == w->cap_early) {
			uint32_t cap = w->cap_early ? 2 * w->cap_early : 4;
			struct dp_got *g = realloc(w->early, cap * sizeof(*g));

			if (g == NULL)
				return -ENOMEM;
			w->early = g;
			w->cap_early = cap;
		}
		i = w->n_early++;
		w->early[i].key = key;
		w->early[i].bytes = 0;
		w->early[i].at = 0;
	}
	w->early[i].bytes += bytes;
	w->early[i].at = RTE_MAX(w->early[i].at, now);
	return 0;
}

/* Make (step, round) the current round, with what arrived for it before. */
static void
got_begin(struct dp_worker *w, uint64_t key)
{
	int64_t i = early_find(w, key);

	w->cur_key = key;
	w->cur_got = 0;
	w->cur_at = 0;
	if (i >= 0) {
		w->cur_got = w->early[i].bytes;
		w->cur_at = w->early[i].at;
		w->early[i] = w->early[--w->n_early];
	}
}

static uint64_t
worker_held(const struct dp_elem *e)
{
	return 0;
}

static void
begin_step(struct dp_worker *w, dp_time_t now)
{
	int rc = dp_record_begin(w->rec, w->step);

	if (rc != 0) {
		dp_engine_fail(w->e.eng, rc, "%s: step %u begins with %u steps in flight (from step "
			       "%u) and the record holding %u: %s", w->e.name, w->step,
			       w->step - w->rec->steps_done + 1, w->rec->steps_done, w->rec->slots,
			       rc == -ENOMEM ? "out of memory" : "more than the sync mode allows");
		return;
	}
	w->state = DP_W_COMPUTE;
	w->left_at = now;
	w->round = 0;
	dp_sync_hold(w->e.eng);		/* its compute, until it ends */
	if (w->n_lanes > 0) {
		w->round = UINT32_MAX;
		w->compute_at = now + w->prog->compute_ps;
		w->first_at = w->prog->lead_ps < w->prog->compute_ps ?
			      w->compute_at - w->prog->lead_ps : now;
		w->b_ready = w->b_next = w->b_done = 0;
		dp_lanes_resched(w);
		return;
	}
	dp_sched(&w->e, now + w->prog->compute_ps);
}

void
dp_worker_start(struct dp_worker *w, dp_time_t now)
{
	w->step = 0;
	/*
	 * rank w starts w x job.start_skew later (a launcher starts ranks one after another);
	 * until its first compute it is in the library's start-up (MPI_Init, a barrier), whose
	 * progress loop reads what comes: begin_step() sets left_at to that start
	 */
	begin_step(w, now + w->id * sm_ps(w->pk->tcp.start_skew));
}

/* The frames' header of flow @i of the round (the module's dense flow has none but its own). */
static void
flow_begin(struct dp_worker *w, uint32_t i)
{
	const struct sm_round *r = &w->prog->r[w->round];
	uint32_t dst = w->id, pos = 0;
	enum dp_kind kind = DP_KIND_WORKER;
	uint8_t flags = 0;

	if (r->hop == SM_HOP_MODULE) {
		kind = DP_KIND_MODULE;
		flags = DP_SE_F_DENSE;
	} else if (w->prog->plan.ph[r->phase].tree != SM_TREE_NONE) {
		dst = w->dst[i];
		pos = w->tree[i];	/* a tree's chunk: which tree's half */
	} else {
		dst = w->dst[i];
		pos = (w->id / r->stride) % r->ring;
		pos = (pos + r->ring - r->index % r->ring) % r->ring;
	}
	w->send_i = i;
	w->tx_off = 0;
	w->tx_seq = 0;
	w->flow_chunk = (uint16_t)pos;
	dp_flow_init(&w->flow, w->per_dc, w->run_id, w->step, (uint16_t)w->round, r->phase,
		     (uint16_t)pos, w->id, dst, kind, flags, w->pk->payload);
}

/* A fan's round: every flow's headers once, for its frames take turns (w->fan); 0 or -ENOMEM. */
static int
fan_begin(struct dp_worker *w)
{
	uint32_t i;

	if (w->n_sends > w->cap_fan) {
		struct dp_flow *f = realloc(w->fan, w->n_sends * sizeof(*f));

		if (f == NULL)
			return -ENOMEM;
		w->fan = f;
		w->cap_fan = w->n_sends;
	}
	for (i = 0; i < w->n_sends; i++) {
		flow_begin(w, i);
		w->fan[i] = w->flow;
	}
	return 0;
}

/* Queue up to a burst of the round's frames; re-arm or finish the round's transmission. */
static void
tx_burst(struct dp_worker *w, dp_time_t now)
{
	const struct sm_round *r = &w->prog->r[w->round];
	uint32_t payload = w->pk->payload, i;
	dp_time_t start = now;
	bool to_module = r->hop == SM_HOP_MODULE;
	bool mix = !to_module && w->prog->plan.ph[r->phase].fan;

	for (i = 0; i < w->pk->burst && w->tx_off < r->bytes; i++) {
		uint64_t left = r->bytes - w->tx_off;
		uint32_t len = left < payload ? (uint32_t)left : payload;
		bool last = left <= payload;
		struct dp_pkt p;
		int rc;

		if (dp_pkt_make(w->e.eng, mix ? &w->fan[w->send_i] : &w->flow, w->tx_off,
				w->tx_seq, len, now, last, &p) != 0) {
			dp_engine_fail(w->e.eng, -ENOBUFS, "%s: the mbuf pool (%u mbufs) is empty at "
				       "step %u round %u: give it more (--mbufs)", w->e.name,
				       w->e.eng->pool->size, w->step, w->round);
			return;
		}
		dp_sync_hold(w->e.eng);	/* a frame of the sync, until its journey ends */
		if (!mix || w->send_i + 1 == w->n_sends) {
			w->tx_off += len;
			w->tx_seq++;
		}
		w->frames_made++;
		w->e.c.tx++;
		w->e.c.tx_bytes += p.len;
		dp_capture_frame(w->e.eng, w->cap_tx, &p, now);
		if (to_module && w->module != NULL)
			rc = dp_module_push(w->module, &p, now, &start);
		else
			rc = dp_link_push(r->capped ? w->port : w->nic, &p, now, &start);
		if (rc != 0) {
			dp_engine_fail(w->e.eng, rc, "%s: its first hop refused a frame at step %u "
				       "round %u (queue limit below the burst?)", w->e.name, w->step,
				       w->round);
			return;
		}
		if (mix && w->tx_off < r->bytes)
			w->send_i = (w->send_i + 1) % w->n_sends;	/* a fan: the next flow's frame */
		else if (!mix && w->tx_off == r->bytes && w->send_i + 1 < w->n_sends) {
			flow_begin(w, w->send_i + 1);	/* this flow queued: the next */
		}
	}
	w->rec->frames[dp_record_slot(w->rec, w->step)] += i;
	if (w->tx_off < r->bytes) {
		dp_sched(&w->e, start);	/* when the last one queued starts */
		return;
	}
	w->tx_active = false;
	dp_sync_release(w->e.eng);	/* every frame of the round is made */
	dp_sched(&w->e, DP_NEVER);
	dp_worker_check_round(w, now);
}


/* Does round @r's flow of @bytes go with a handshake (transport.protocol, a ring's round)? */
static bool
handshake(const struct dp_worker *w, const struct sm_round *r, uint64_t bytes)
{
	const struct sm_tcp_conf *c = &w->pk->tcp;

	return c->proto != SM_PROTO_PLAIN && r->hop != SM_HOP_MODULE &&
	       sm_phase_sends_max(&w->prog->plan.ph[r->phase]) == 1 &&
	       sm_proto_eager(c, bytes) < bytes;
}

/* The round's sends are done when every rest is written and within the send buffers. */
static void
tcp_tx_check(struct dp_worker *w, dp_time_t now)
{
	if (w->n_rest == 0 && w->tcp->waiting == 0)
		dp_worker_sent_one(w, now);
}

/* Flow @i's rest, its peer's control message in. */
static int
write_rest(struct dp_worker *w, uint32_t i, dp_time_t now)
{
	const struct sm_round *r = &w->prog->r[w->round];
	uint64_t bytes = w->rest[i];
	int rc;

	w->rest[i] = 0;
	w->n_rest--;
	flow_begin(w, i);
	rc = dp_tcp_write(w->tcp, r->capped ? w->port : w->nic, w->dst[i], bytes, w->step,
			  (uint16_t)w->round, r->phase, w->flow_chunk, now);
	return rc < 0 ? rc : 0;
}

/* A control message from @src for (step, round) of the current round, kept: 1 if one was. */
static bool
ctl_take(struct dp_worker *w, uint64_t key, uint32_t src)
{
	uint32_t i;

	for (i = 0; i < w->n_ctl; i++)
		if (w->ctl_early[i].key == key && w->ctl_early[i].src == src) {
			w->ctl_early[i] = w->ctl_early[--w->n_ctl];
			return true;
		}
	return false;
}

/* The receive side's control message, once its receive is posted and the first part is in. */
static void
ready_check(struct dp_worker *w, dp_time_t now)
{
	const struct sm_round *r = &w->prog->r[w->round];
	const struct sm_tcp_conf *c = &w->pk->tcp;

	if (w->ready_sent || w->state != DP_W_ROUND || !handshake(w, r, w->in_bytes) ||
	    w->cur_got < sm_proto_eager(c, w->in_bytes))
		return;
	w->ready_sent = true;
	if (dp_tcp_write_ctl(w->tcp, sm_round_peer(r, w->id, -1), c->proto == SM_PROTO_GLOO ?
			     SM_PROTO_GLOO_CTL : SM_PROTO_OPENMPI_CTL, w->step,
			     (uint16_t)w->round, now) != 0)
		dp_engine_fail(w->e.eng, -ENOMEM, "%s: out of memory for its TCP", w->e.name);
}

/*
 * The round's flows written to its TCP (after the receive side's control message, as a
 * library posts its receive before its send); done at once if they all fit the send buffers
 * and none waits for a handshake.
 */
static void
tcp_writes(struct dp_worker *w, dp_time_t now)
{
	const struct sm_round *r = &w->prog->r[w->round];
	uint64_t key = got_key(w, w->step, w->round);
	uint32_t i;
	int rc;

	w->ready_sent = false;
	w->n_rest = 0;
	if (w->unread_key != key)
		ready_check(w, now);	/* the peer's rendezvous, read before: answered first */
	for (i = 0; i < w->n_sends; i++) {
		uint64_t first = r->bytes;

		flow_begin(w, i);
		w->rest[i] = 0;
		if (handshake(w, r, r->bytes)) {
			first = sm_proto_eager(&w->pk->tcp, r->bytes);
			w->rest[i] = r->bytes - first;
			w->n_rest++;
		}
		rc = first == 0 ? 0 :
			dp_tcp_write(w->tcp, r->capped ? w->port : w->nic, w->flow.meta.dst, first,
				     w->step, (uint16_t)w->round, r->phase, w->flow_chunk, now);
		if (rc >= 0 && w->rest[i] > 0 && ctl_take(w, key, w->dst[i]))
			rc = write_rest(w, i, now);
		if (rc < 0) {
			dp_engine_fail(w->e.eng, rc, "%s: out of memory for its TCP at step %u round "
				       "%u", w->e.name, w->step, w->round);
			return;
		}
		w->tx_off = r->bytes;
	}
	if (w->unread_key == key) {
		w->unread_key = UINT64_MAX;
		ready_check(w, now);
	}
	tcp_tx_check(w, now);
}

void
dp_worker_sent_one(struct dp_worker *w, dp_time_t now)
{
	if (!w->tx_active || w->n_rest > 0)
		return;
	w->tx_active = false;
	dp_sync_release(w->e.eng);	/* every byte of the round is written */
	dp_worker_check_round(w, now);
}

/* A peer's control message: its receive is posted, our rest may go (now, or when it begins). */
static void
tcp_ctl(struct dp_worker *w, uint32_t src, uint32_t step, uint16_t round, dp_time_t now)
{
	uint64_t key = got_key(w, step, round);
	uint32_t i;

	if (w->state == DP_W_ROUND && step == w->step && round == w->round && w->tx_active)
		for (i = 0; i < w->n_sends; i++)
			if (w->rest[i] > 0 && w->dst[i] == src) {
				if (write_rest(w, i, now) != 0)
					dp_engine_fail(w->e.eng, -ENOMEM, "%s: out of memory for "
						       "its TCP", w->e.name);
				tcp_tx_check(w, now);
				return;
			}
	if (w->n_ctl == w->cap_ctl) {
		uint32_t cap = w->cap_ctl ? 2 * w->cap_ctl : 4;
		struct dp_ctl *c = realloc(w->ctl_early, cap * sizeof(*c));

		if (c == NULL) {
			dp_engine_fail(w->e.eng, -ENOMEM, "%s: out of memory", w->e.name);
			return;
		}
		w->ctl_early = c;
		w->cap_ctl = cap;
	}
	w->ctl_early[w->n_ctl].key = key;
	w->ctl_early[w->n_ctl++].src = src;
}

/* The first worker begins a round: the step's sync, or a phase, may begin (usdt.h). */
static void
probe_round_in(const struct dp_worker *w, uint32_t round, dp_time_t now)
{
	const struct sm_round *r = &w->prog->r[round];

	if (round == 0)
		DP_USDT_SYNC_START(w->run_id, w->step, now);
	if (round == 0 || w->prog->r[round - 1].phase != r->phase)
		DP_USDT_PHASE_START(w->run_id, w->step, r->phase, now);
}

/* The last worker ends step @s: the step's spans and the probes of its end (usdt.h). */
static void
probe_step_end(const struct dp_worker *w, uint32_t s, dp_time_t now)
{
	const struct dp_record *rec = w->rec;
	dp_time_t prev = rec->last_end, span[SM_RES_COUNT];
	enum sm_resource module_res = w->prog->module_res;

	if (!DP_USDT)
		return;
	if (rec->binding >= 0)
		module_res = dp_stage_res((enum sm_stage)rec->binding);
	dp_step_spans(rec, w->prog, s, prev, module_res, span);
	DP_USDT_SYNC_END(w->run_id, s, now);
	DP_USDT_STEP_INFO(w->run_id, s, w->prog->var, dp_usdt_mflops(rec->budget),
			  rec->binding);
	DP_USDT_STEP_END(w->run_id, s, now - prev, span);
}

/* Bytes worker @w receives in @round (a ring's chunk; in a tree or a fan, a chunk per flow due
 * in). */
static uint64_t
in_bytes(const struct dp_worker *w, uint32_t round)
{
	const struct sm_round *r = &w->prog->r[round];
	const struct sm_phase *ph = &w->prog->plan.ph[r->phase];

	return sm_phase_ins(ph, r->index, w->id) * r->bytes;
}

void
dp_worker_begin_round(struct dp_worker *w, uint32_t round, dp_time_t now)
{
	const struct sm_round *r = &w->prog->r[round];

	w->state = DP_W_ROUND;
	w->reduced = false;
	w->round = round;
	got_begin(w, got_key(w, w->step, round));
	w->in_bytes = r->hop == SM_HOP_MODULE ? 0 : in_bytes(w, round);
	if (DP_USDT && w->rec->round_in[(size_t)dp_record_slot(w->rec, w->step) * w->prog->n +
					round]++ == 0)
		probe_round_in(w, round, now);
	w->n_sends = 1;
	if (r->hop != SM_HOP_MODULE)
		w->n_sends = sm_phase_sends(&w->prog->plan.ph[r->phase], r->index, w->id, w->dst,
					    w->tree);
	if (w->n_sends == 0) {		/* a tree's round it only receives in, or sits out */
		w->tx_active = false;
		w->send_i = 0;
		w->tx_off = 0;
		dp_worker_check_round(w, now);
		return;
	}
	w->tx_active = true;
	dp_sync_hold(w->e.eng);		/* frames still to make, until the last is */
	if (w->tcp != NULL && r->hop != SM_HOP_MODULE) {
		tcp_writes(w, now);
		return;
	}
	if (r->hop != SM_HOP_MODULE && w->prog->plan.ph[r->phase].fan && fan_begin(w) != 0) {
		dp_engine_fail(w->e.eng, -ENOMEM, "%s: out of memory for its flows' headers",
			       w->e.name);
		return;
	}
	flow_begin(w, 0);
	tx_burst(w, now);
}

void
dp_worker_step_done(struct dp_worker *w, dp_time_t now)
{
	struct dp_record *rec = w->rec;
	uint32_t s = w->step, k = dp_record_slot(rec, s);

	dp_record_max(&rec->step_end[k], now);
	if (++rec->finished[k] == rec->workers) {
		probe_step_end(w, s, now);
		dp_record_done(rec, s);	/* retired: its slot is free for a later step */
	}
	w->mod_done[s & 1] = false;
	w->step++;
	if (w->step == w->steps) {
		w->state = DP_W_DONE;
		if (w->fin != NULL)
			dp_barrier_finish(w->fin, now);
		return;
	}
	if (w->barrier == NULL) {
		begin_step(w, now);
		return;
	}
	w->state = DP_W_BARRIER;
	w->pending_round = w->prog->n;
	dp_barrier_arrive(w->barrier, now);
}

/* The round is over when its frames are all queued and its input has all arrived. */
void
dp_worker_check_round(struct dp_worker *w, dp_time_t now)
{
	const struct sm_program *prog = w->prog;
	const struct sm_round *r;
	uint32_t next;
	size_t k;
	bool in;

	if (w->state != DP_W_ROUND || w->tx_active)
		return;
	r = &prog->r[w->round];
	in = r->hop == SM_HOP_MODULE ? w->mod_done[w->step & 1] :
				       w->cur_got >= w->in_bytes;
	if (!in)
		return;
	if (r->hop != SM_HOP_MODULE && w->cur_at > now)
		now = w->cur_at;	/* steady: its input came in a window, after this event */
	if (!w->reduced && w->pk->tcp.transport == SM_TRANSPORT_TCP &&
	    w->pk->tcp.reduce_rate > 0 && r->hop != SM_HOP_MODULE && w->in_bytes > 0) {
		/* the library reduces (or copies) the round's input before its next round */
		w->state = DP_W_REDUCE;
		w->left_at = now;
		dp_sync_hold(w->e.eng);
		if (w->n_lanes > 0)
			w->wake = now + sm_ps(w->in_bytes / w->pk->tcp.reduce_rate);
		else
			dp_sched(&w->e, now + sm_ps(w->in_bytes / w->pk->tcp.reduce_rate));
		return;
	}
	k = (size_t)dp_record_slot(w->rec, w->step) * prog->n + w->round;
	dp_record_max(&w->rec->round_end[k], now);
	next = w->round + 1;
	if (DP_USDT && ++w->rec->round_out[k] == w->rec->workers &&
	    (next == prog->n || prog->r[next].phase != r->phase))
		DP_USDT_PHASE_END(w->run_id, w->step, r->phase, now);	/* the last one out */
	if (w->n_lanes > 0 && next == w->lane_end) {
		w->state = DP_W_DONE;	/* the lane's bucket is all-reduced: the lane is free */
		w->b_done++;
		return;
	}
	if (next == prog->n) {
		dp_worker_step_done(w, now);
		return;
	}
	if (w->pk->sync == SM_SYNC_PHASE && prog->r[next].phase != r->phase) {
		w->state = DP_W_BARRIER;
		w->pending_round = next;
		dp_barrier_arrive(w->barrier, now);
		return;
	}
	dp_worker_begin_round(w, next, now);
}

void
dp_worker_release(struct dp_worker *w, dp_time_t now)
{
	if (w->state != DP_W_BARRIER)
		return;
	if (w->pending_round == w->prog->n)
		begin_step(w, now);
	else
		dp_worker_begin_round(w, w->pending_round, now);
}

void
dp_worker_module_done(void *arg, dp_time_t now)
{
	struct dp_worker *w = arg;

	w->mod_done[w->step & 1] = true;
	dp_worker_check_round(w, now);
}

/* Its compute is over (the step's sync may begin). */
void
dp_worker_computed(struct dp_worker *w, dp_time_t now)
{
	dp_sync_release(w->e.eng);
	dp_record_max(&w->rec->compute_end[dp_record_slot(w->rec, w->step)], now);
}

/* Its reduction of the round's input is over: the round may end. */
void
dp_worker_reduced(struct dp_worker *w, dp_time_t now)
{
	dp_sync_release(w->e.eng);
	w->state = DP_W_ROUND;
	w->reduced = true;
	dp_worker_check_round(w, now);
}

static void
worker_event(struct dp_elem *e, dp_time_t now)
{
	struct dp_worker *w = (struct dp_worker *)e;

	if (w->n_lanes > 0) {
		dp_lanes_event(w, now);
		return;
	}
	if (w->state == DP_W_COMPUTE) {
		dp_sched(e, DP_NEVER);
		dp_worker_computed(w, now);
		dp_worker_begin_round(w, 0, now);
	} else if (w->state == DP_W_REDUCE) {
		dp_sched(e, DP_NEVER);
		dp_worker_reduced(w, now);
	} else if (w->tx_active) {
		tx_burst(w, now);
	} else {
		dp_sched(e, DP_NEVER);
	}
}

static void
worker_rx(struct dp_elem *e, const struct dp_pkt *p, dp_time_t now)
{
	struct dp_worker *w = (struct dp_worker *)e;
	const struct dp_meta *meta = &p->meta;
	uint32_t step = meta->step, round = meta->round;
	uint64_t key = 0;

	e->c.rx++;
	e->c.rx_bytes += p->len;
	dp_capture_frame(e->eng, w->cap_rx, p, now);
	if (meta->dst == w->id && meta->kind == DP_KIND_WORKER && round < w->prog->n &&
	    (step == w->step || step == w->step + 1))
		key = got_key(w, step, round);
	if (meta->dst != w->id || meta->kind != DP_KIND_WORKER || round >= w->prog->n ||
	    (step != w->step && step != w->step + 1) ||
	    got_bytes(w, key) + meta->payload >
		    (key == w->cur_key ? w->in_bytes : in_bytes(w, round)) ||
	    got_add(w, key, meta->payload, now) != 0) {
		dp_engine_fail(e->eng, -EPROTO, "%s: unexpected frame from worker %u: step %u "
			       "round %u (at step %u round %u)", e->name, meta->src, step, round,
			       w->step, w->round);
		e->c.drop++;
		e->c.drop_bytes += p->len;
		dp_frame_end(e->eng, p);
		return;
	}
	w->frames_got++;
	w->bytes_got += meta->payload;
	dp_frame_end(e->eng, p);
	if (step == w->step && round == w->round)
		dp_worker_check_round(w, now);
}

/*
 * A peer's rendezvous for a round not begun (transport.protocol = openmpi), coming while the
 * rank is out of its progress loop (computing, reducing) and past the read window: the rank
 * reads it only after it has posted that round's receive and sent its own rendezvous (ob1
 * reads in opal_progress()).
 */
static void
read_mark(struct dp_worker *w, uint64_t key, uint32_t round, uint64_t bytes, dp_time_t now)
{
	const struct sm_tcp_conf *c = &w->pk->tcp;
	uint64_t total, first, had;

	if (key == w->cur_key ||
	    (w->state != DP_W_COMPUTE && w->state != DP_W_REDUCE) ||
	    now < w->left_at + sm_ps(c->read_window))
		return;
	total = in_bytes(w, round);
	first = sm_proto_eager(c, total);
	had = got_bytes(w, key);
	if (first < total && had < first && had + bytes >= first)
		w->unread_key = key;
}

static __rte_always_inline void
tcp_got_one(struct dp_worker *w, uint32_t src, uint32_t step, uint16_t round, bool ctl,
	    uint64_t bytes, dp_time_t now)
{
	uint64_t key = got_key(w, step, round);

	if (ctl) {
		tcp_ctl(w, src, step, round, now);
		return;
	}
	if (round < w->prog->n && w->pk->tcp.proto == SM_PROTO_OPENMPI)
		read_mark(w, key, round, bytes, now);
	if (round >= w->prog->n || (step != w->step && step != w->step + 1) ||
	    got_bytes(w, key) + bytes > (key == w->cur_key ? w->in_bytes : in_bytes(w, round)) ||
	    got_add(w, key, bytes, now) != 0) {
		dp_engine_fail(w->e.eng, -EPROTO, "%s: unexpected bytes from worker %u: step %u "
			       "round %u (at step %u round %u)", w->e.name, src, step, round,
			       w->step, w->round);
		return;
	}
	w->frames_got++;
	w->bytes_got += bytes;
	if (step == w->step && round == w->round) {
		if (w->pk->tcp.proto != SM_PROTO_PLAIN)	/* (without a protocol, no handshake) */
			ready_check(w, now);
		dp_worker_check_round(w, now);
	}
}

static void
tcp_sent(void *arg, dp_time_t now)
{
	struct dp_worker *w = arg;

	if (w->n_lanes == 0 || w->loaded >= 0) {
		dp_worker_sent_one(w, now);
		return;
	}
	dp_lanes_settle(w, now);
}

static void
tcp_got(void *arg, uint32_t src, uint32_t step, uint16_t round, bool ctl, uint64_t bytes,
	dp_time_t now)
{
	struct dp_worker *w = arg;
	uint64_t key;
	uint32_t i;

	if (w->n_lanes == 0 || w->loaded >= 0) {
		tcp_got_one(w, src, step, round, ctl, bytes, now);
		return;
	}
	key = got_key(w, step, round);
	for (i = 0; i < w->n_lanes; i++)
		if (w->lanes[i].state != DP_W_DONE && w->lanes[i].cur_key == key)
			break;
	if (i < w->n_lanes)
		dp_lane_load(w, i);
	tcp_got_one(w, src, step, round, ctl, bytes, now);
	if (i < w->n_lanes)
		dp_lane_store(w);
	dp_lanes_settle(w, now);
}

static void
tcp_made(void *arg, uint32_t step)
{
	struct dp_worker *w = arg;

	w->rec->frames[dp_record_slot(w->rec, step)]++;
	w->frames_made++;
}

void
dp_worker_tcp_app(struct dp_worker *w, struct dp_tcp_app *app)
{
	app->sent = tcp_sent;
	app->got = tcp_got;
	app->made = tcp_made;
	app->arg = w;
	app->pass = &w->e;
}

int
dp_worker_describe(const struct dp_worker *w, char *buf, size_t len)
{
	static const char *const states[] = { "computing", "in a round", "at a barrier", "done",
					      "reducing its round's input" };
	const struct sm_round *r = w->round < w->prog->n ? &w->prog->r[w->round] : NULL;

	if (w->state == DP_W_DONE || r == NULL)
		return snprintf(buf, len, "%s: %s", w->e.name, states[w->state]);
	return snprintf(buf, len, "%s: step %u round %u %s, queued %lu of %lu bytes, received "
			"%lu of %lu%s", w->e.name, w->step, w->round, states[w->state],
			(unsigned long)w->tx_off, (unsigned long)r->bytes,
			(unsigned long)got_bytes(w, got_key(w, w->step, w->round)),
			(unsigned long)w->in_bytes,
			r->hop == SM_HOP_MODULE ? (w->mod_done[w->step & 1] ? " (module done)" :
						   " (module pending)") : "");
}

/* Between steps with nothing kept for later: no early bytes or messages, no lanes, no TCP. */
static bool
worker_settled(const struct dp_elem *e)
{
	const struct dp_worker *w = (const struct dp_worker *)e;

	return w->n_early == 0 && w->n_ctl == 0 && w->n_rest == 0 && w->n_lanes == 0 &&
	       w->tcp == NULL && !w->tx_active;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker's lanes (job.threads, job.first_lead over TCP).  ProcessGroupGloo runs each DDP
 * bucket's all-reduce start to end on one of its threads, a bucket waiting for a free one, all
 * over the pairs' one connection.  A lane is such a thread: the round's state of struct
 * dp_worker, swapped in for the lane's event and out after it, so that worker.c's rounds run as
 * they do one after another.  The first bucket is ready lead_ps before the compute ends (DDP
 * launches it during backward), the others at its end; the step ends when every bucket is
 * all-reduced.
 */
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "tcp.h"
#include "worker_impl.h"

void
dp_lane_load(struct dp_worker *w, uint32_t i)
{
	const struct dp_lane *l = &w->lanes[i];

	w->wstate = w->state;
	w->loaded = (int32_t)i;
	w->state = l->state;
	w->round = l->round;
	w->lane_end = l->end;
	w->tx_active = l->tx_active;
	w->ready_sent = l->ready_sent;
	w->reduced = l->reduced;
	w->flow = l->flow;
	w->tx_off = l->tx_off;
	w->tx_seq = l->tx_seq;
	w->flow_chunk = l->flow_chunk;
	memcpy(w->rest, l->rest, sizeof(w->rest));
	w->n_rest = l->n_rest;
	w->n_sends = l->n_sends;
	w->send_i = l->send_i;
	memcpy(w->dst, l->dst, sizeof(w->dst));
	memcpy(w->tree, l->tree, sizeof(w->tree));
	w->in_bytes = l->in_bytes;
	w->cur_key = l->cur_key;
	w->cur_got = l->cur_got;
	w->wake = l->wake;
}

void
dp_lane_store(struct dp_worker *w)
{
	struct dp_lane *l = &w->lanes[w->loaded];

	l->state = w->state;
	l->round = w->round;
	l->end = w->lane_end;
	l->tx_active = w->tx_active;
	l->ready_sent = w->ready_sent;
	l->reduced = w->reduced;
	l->flow = w->flow;
	l->tx_off = w->tx_off;
	l->tx_seq = w->tx_seq;
	l->flow_chunk = w->flow_chunk;
	memcpy(l->rest, w->rest, sizeof(l->rest));
	l->n_rest = w->n_rest;
	l->n_sends = w->n_sends;
	l->send_i = w->send_i;
	memcpy(l->dst, w->dst, sizeof(l->dst));
	memcpy(l->tree, w->tree, sizeof(l->tree));
	l->in_bytes = w->in_bytes;
	l->cur_key = w->cur_key;
	l->cur_got = w->cur_got;
	l->wake = w->wake;
	w->loaded = -1;
	w->state = w->wstate;
	w->round = UINT32_MAX;
	w->tx_active = false;
	w->cur_key = UINT64_MAX;
	w->cur_got = 0;
}

/* Lanes when the program's buckets may overlap (2 or more, over TCP, no barrier between phases). */
int
dp_lanes_init(struct dp_worker *w)
{
	const struct sm_program *prog = w->prog;
	uint32_t i, nb = 0, n;

	for (i = 0; i < prog->n; i++)
		if (i == 0 || prog->plan.ph[prog->r[i].phase].bucket !=
			      prog->plan.ph[prog->r[i - 1].phase].bucket) {
			if (nb == SM_PHASES_MAX)
				return 0;	/* not a library's buckets: one after another */
			w->b_start[nb++] = i;
		}
	w->b_start[nb] = prog->n;
	if (w->tcp == NULL || w->pk->sync == SM_SYNC_PHASE || nb < 2 ||
	    (prog->threads < 2 && prog->lead_ps == 0))
		return 0;
	n = prog->threads < nb ? prog->threads : nb;
	w->lanes = calloc(n, sizeof(*w->lanes));
	if (w->lanes == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		w->lanes[i].state = DP_W_DONE;
	w->n_lanes = n;
	w->n_buckets = nb;
	return 0;
}

/* The worker's next event: its compute's (or first bucket's) moment, or a lane's reduction. */
void
dp_lanes_resched(struct dp_worker *w)
{
	dp_time_t t = DP_NEVER;
	uint32_t i;

	if (w->state == DP_W_COMPUTE)
		t = w->b_ready == 0 && w->prog->lead_ps > 0 ? w->first_at : w->compute_at;
	for (i = 0; i < w->n_lanes; i++)
		if (w->lanes[i].state == DP_W_REDUCE && w->lanes[i].wake < t)
			t = w->lanes[i].wake;
	dp_sched(&w->e, t);
}

/* Sends completed, ready buckets begun on free lanes, the step ended when all are done. */
void
dp_lanes_settle(struct dp_worker *w, dp_time_t now)
{
	uint32_t i, b;
	bool more = true;

	while (more) {
		more = false;
		for (i = 0; i < w->n_lanes && w->tcp->waiting == 0; i++)
			if (w->lanes[i].state == DP_W_ROUND && w->lanes[i].tx_active &&
			    w->lanes[i].n_rest == 0) {
				dp_lane_load(w, i);
				dp_worker_sent_one(w, now);
				dp_lane_store(w);
			}
		for (i = 0; i < w->n_lanes && w->b_next < w->b_ready; i++)
			if (w->lanes[i].state == DP_W_DONE) {
				b = w->b_next++;
				dp_lane_load(w, i);
				w->lane_end = w->b_start[b + 1];
				dp_worker_begin_round(w, w->b_start[b], now);
				dp_lane_store(w);
				more = true;
			}
		if (w->state == DP_W_ROUND && w->b_done == w->n_buckets) {
			dp_worker_step_done(w, now);
			more = w->state == DP_W_ROUND;
		}
	}
	if (w->n_lanes > 0)
		dp_lanes_resched(w);
}

void
dp_lanes_event(struct dp_worker *w, dp_time_t now)
{
	uint32_t i;

	if (w->state == DP_W_COMPUTE) {
		if (w->b_ready == 0 && now >= w->first_at)
			w->b_ready = 1;		/* DDP's first bucket, during backward */
		if (now >= w->compute_at) {
			dp_sync_release(w->e.eng);	/* its compute is over */
			dp_record_max(&w->rec->compute_end[dp_record_slot(w->rec, w->step)], now);
			w->state = DP_W_ROUND;
			w->b_ready = w->n_buckets;
		}
	}
	for (i = 0; i < w->n_lanes; i++)
		if (w->lanes[i].state == DP_W_REDUCE && w->lanes[i].wake <= now) {
			dp_lane_load(w, i);
			dp_sync_release(w->e.eng);	/* its reduction is over */
			w->state = DP_W_ROUND;
			w->reduced = true;
			dp_worker_check_round(w, now);
			dp_lane_store(w);
		}
	dp_lanes_settle(w, now);
}

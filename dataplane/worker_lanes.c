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

#include <rte_common.h>

#include "tcp.h"
#include "worker_impl.h"

/* The round's state a lane keeps: each a field of struct dp_lane and of struct dp_worker. */
#define LANE_FIELDS(X) X(state) X(round) X(lane_end) X(tx_active) X(ready_sent) X(reduced) \
	X(flow) X(tx_off) X(tx_seq) X(flow_chunk) X(rest) X(n_rest) X(n_sends) X(send_i) X(dst) \
	X(tree) X(in_bytes) X(cur_key) X(cur_got) X(cur_at) \
	X(wake)
#define LANE_COPY(f) \
	RTE_BUILD_BUG_ON(sizeof(to->f) != sizeof(from->f)); \
	memcpy(&to->f, &from->f, sizeof(to->f));

void
dp_lane_load(struct dp_worker *w, uint32_t i)
{
	const struct dp_lane *from = &w->lanes[i];
	struct dp_worker *to = w;

	w->wstate = w->state;
	w->loaded = (int32_t)i;
	LANE_FIELDS(LANE_COPY)
}

void
dp_lane_store(struct dp_worker *w)
{
	const struct dp_worker *from = w;
	struct dp_lane *to = &w->lanes[w->loaded];

	LANE_FIELDS(LANE_COPY)
	w->loaded = -1;
	w->state = w->wstate;
	w->round = UINT32_MAX;
	w->tx_active = false;
	w->cur_key = UINT64_MAX;
	w->cur_got = 0;
	w->cur_at = 0;
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
			dp_worker_computed(w, now);
			w->state = DP_W_ROUND;
			w->b_ready = w->n_buckets;
		}
	}
	for (i = 0; i < w->n_lanes; i++)
		if (w->lanes[i].state == DP_W_REDUCE && w->lanes[i].wake <= now) {
			dp_lane_load(w, i);
			dp_worker_reduced(w, now);
			dp_lane_store(w);
		}
	dp_lanes_settle(w, now);
}

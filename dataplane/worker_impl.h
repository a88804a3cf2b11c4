/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker element's own parts (worker.c, worker_lanes.c): not for other elements.
 */
#ifndef DP_WORKER_IMPL_H
#define DP_WORKER_IMPL_H

#include "worker.h"

/* worker.c: a round begins, may end; a step ends; the round's writes are within the buffers */
void dp_worker_begin_round(struct dp_worker *w, uint32_t round, dp_time_t now);
void dp_worker_check_round(struct dp_worker *w, dp_time_t now);
void dp_worker_computed(struct dp_worker *w, dp_time_t now);
void dp_worker_reduced(struct dp_worker *w, dp_time_t now);
void dp_worker_step_done(struct dp_worker *w, dp_time_t now);
void dp_worker_sent_one(struct dp_worker *w, dp_time_t now);

/* worker_lanes.c: the buckets' all-reduces at once (struct dp_worker's lanes) */
int dp_lanes_init(struct dp_worker *w);
void dp_lane_load(struct dp_worker *w, uint32_t i);
void dp_lane_store(struct dp_worker *w);
void dp_lanes_resched(struct dp_worker *w);
void dp_lanes_settle(struct dp_worker *w, dp_time_t now);
void dp_lanes_event(struct dp_worker *w, dp_time_t now);

#endif /* DP_WORKER_IMPL_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the data plane's tests share (test_dataplane.c, test_dataplane_load.c: one test binary):
 * the group's pool and the deck's defaults, a run's parameters, background on.
 */
#ifndef TEST_DATAPLANE_H
#define TEST_DATAPLANE_H

#include "packet.h"
#include "run.h"
#include "variant.h"

#define POOL_N 48000			/* frames in the pool */

extern struct rte_mempool *pool;	/* the group's frame pool */
extern struct sm_params P0;		/* the deck's defaults */
extern struct sm_packet PK0;

/** A run of @p steps of variant @p v at @p budget from @p pool, the deck's queues. */
struct dp_run_params params(const struct sm_params *p, const struct sm_packet *pk,
			    enum sm_variant v, double budget, uint32_t steps);

/** Background of @p sizes at @p load on every WAN direction (50 GB/s hosts), the sync lossless. */
void bg_on(struct dp_run_params *rp, const struct sm_size_dist *sizes, double load, uint64_t seed);

/* Under load, and the run's results as they stream (test_dataplane_load.c). */
void test_load_zero_is_zero_load(void **state);
void test_background_alone_is_md1(void **state);
void test_seeded_background(void **state);
void test_streamed_equals_kept(void **state);
void test_record_ring_without_sync(void **state);
void test_record_ring_grows(void **state);

#endif /* TEST_DATAPLANE_H */

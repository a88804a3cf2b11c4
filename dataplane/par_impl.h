/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The partitions' runner inside (parallel.h): what its files share.  parallel.c runs the windows
 * and the lcores, par_merge.c keeps and merges what the partitions record, par_wire.c carries
 * frames and state between ranks, par_rt.c runs the partitions in real time.
 */
#ifndef DP_PAR_IMPL_H
#define DP_PAR_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "parallel.h"

/* What the lcores do next (dp_par.go). */
enum { CMD_WINDOW, CMD_RT, CMD_QUIT };

/* parallel.c: the caller's lcore opens the lcores' next command; waits until @g reaches @want. */
void par_go(struct dp_par *x, uint32_t cmd);
void par_wait_for(struct dp_par *x, struct dp_gate *g, uint32_t want);
/* The earliest of partition @pt's next event and the frames sent to it not yet taken. */
dp_time_t par_part_next(const struct dp_par *x, const struct dp_part *pt);
/* The first error of any partition (the lowest index): 0 or -errno. */
int par_part_error(struct dp_par *x);

/* par_merge.c: keyed records and their merge, on the caller's lcore. */
int par_kbuf_add(struct dp_kbuf *b, const uint8_t *src, size_t n);
void par_kbuf_free(struct dp_kbuf *b);
int par_merge_trace(struct dp_par *x, dp_time_t m);
int par_merge_transfers(struct dp_par *x, dp_time_t m);
void par_merge_samples(struct dp_par *x);
int par_merge_steps(struct dp_par *x);

/* par_wire.c: between ranks, after a window and between windows. */
int par_exchange_boxes(struct dp_par *x);
int par_exchange_status(struct dp_par *x);

/* par_rt.c: an lcore's partitions in real time, until the caller halts them. */
void par_rt_share(struct dp_par *x, uint32_t li);
/* par_rt.c: a box's rings freed, the frames on them and waiting for them back to their pool. */
void par_rt_box_fini(struct dp_xbox *b);

#endif /* DP_PAR_IMPL_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vt_bench's parts: the partitions' measures (vt_par.c) and what they share with the rest.
 */
#ifndef SYNCEMU_VT_BENCH_H
#define SYNCEMU_VT_BENCH_H

#include <stdint.h>
#include <sys/types.h>

#include "packet.h"
#include "run.h"
#include "stream.h"

#define PAR_MAX 4
#define PAR_SHAPES_DEFAULT "8x8:10,16x16:4"
#define PAR_REPEAT_MAX 100
#define PROBE_WRITES 4000000
#define BUSY_MAX 64

struct par_result {
	uint32_t d, n, steps, parts, lcores;
	uint64_t frames, windows;
	double wall, busy, busy_max;
	dp_time_t lookahead;
	int ok;
};

/* What run.partitions = auto chose for a shape, each time it was asked (autopart.h). */
struct par_auto {
	uint32_t n;
	uint32_t chose[PAR_REPEAT_MAX];
	double gain[PAR_REPEAT_MAX];	/* the calibration's speedup (0: no sample) */
	double cost[PAR_REPEAT_MAX];	/* its wall time, s */
	char why[160];			/* the last one's */
};

/* Wall-clock time, s. */
double now_s(void);

/* A run of AdamW on @p p and @p pk, the default queue limits (as syncemu run's). */
void run_params(struct dp_run_params *rp, const struct sm_params *p, const struct sm_packet *pk,
	   uint32_t steps);

/* The shape @p d x @p n in 1, 2 and 4 partitions (vt_par.c). */
int par_shape(uint32_t d, uint32_t n, uint32_t steps, uint32_t repeat, struct par_result *out,
	      uint32_t *nout, struct par_auto *au);

/* The least, median and greatest of @p v[@p n]. */
void spread(const double *v, uint32_t n, double *lo, double *med, double *hi);

/* @p n processes spinning on the CPUs, and their end. */
void busy_start(pid_t *pid, uint32_t n);
void busy_stop(pid_t *pid, uint32_t n);

/* How much two CPUs writing neighbouring cache lines slow each other (0: not two CPUs). */
double line_probe(void);

#endif /* SYNCEMU_VT_BENCH_H */

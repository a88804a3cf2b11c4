/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The real-time clock: the TSC, converted to nanoseconds of CLOCK_MONOTONIC_RAW by a rate
 * calibrated against it (DPDK's nominal TSC rate is off by about 0.15 % on some machines), with
 * one reciprocal multiply per reading, and a time-dilation factor between real and emulated time.
 *
 * This is the one place that reads a clock; elements are given `now`.
 */
#ifndef DP_CLOCK_H
#define DP_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_cycles.h>

#include "engine.h"

struct dp_clock {
	bool realtime;			/**< the TSC is read as CLOCK_REALTIME (disciplined by
					 *   PTP on a testbed); else CLOCK_MONOTONIC_RAW */
	uint64_t tsc0;			/**< a TSC reading ... */
	uint64_t ns0;			/**< ... and the clock at the same moment */
	uint64_t mult;			/**< ns = (tsc - tsc0) * mult >> 32 */
	double hz;			/**< the measured TSC rate */
	double hz_nominal;		/**< what DPDK says */
	double dilation;		/**< emulated time runs this many times slower than real */
	uint64_t epoch_ns;		/**< real time of emulated time @c epoch_ps */
	dp_time_t epoch_ps;
	bool frozen;			/**< test hook: time stands still at @c frozen_ns */
	uint64_t frozen_ns;
};

/**
 * Measure the TSC rate against CLOCK_MONOTONIC_RAW over @p seconds (0.1 to 10; 1 s gives a rate
 * good to a few parts per million).
 *
 * @return 0, or -EINVAL / -errno
 */
int dp_clock_calibrate(struct dp_clock *c, double seconds);

/**
 * Read the TSC and the clock together again, keeping the rate: a clock disciplined by PTP
 * (CLOCK_REALTIME) moves away from a fixed TSC rate by its corrections, so each run starts from
 * a fresh pair.
 */
void dp_clock_rebase(struct dp_clock *c);

/** Real time in ns (the clock's scale) from the TSC. */
static inline uint64_t
dp_clock_ns(const struct dp_clock *c)
{
	uint64_t d;

	if (c->frozen)
		return c->frozen_ns;
	d = rte_rdtsc() - c->tsc0;
	return c->ns0 + (uint64_t)(((unsigned __int128)d * c->mult) >> 32);
}

/** Tie emulated time @p emu_ps to real time @p real_ns, with @p dilation (>= 1). */
void dp_clock_epoch(struct dp_clock *c, uint64_t real_ns, dp_time_t emu_ps, double dilation);

/** Emulated time (ps) at real time @p real_ns. */
static inline dp_time_t
dp_clock_emu(const struct dp_clock *c, uint64_t real_ns)
{
	if (real_ns <= c->epoch_ns)
		return c->epoch_ps;
	return c->epoch_ps + (dp_time_t)((double)(real_ns - c->epoch_ns) * 1000.0 / c->dilation);
}

/** Real time (ns) of emulated time @p emu_ps. */
static inline uint64_t
dp_clock_real(const struct dp_clock *c, dp_time_t emu_ps)
{
	if (emu_ps <= c->epoch_ps)
		return c->epoch_ns;
	return c->epoch_ns + (uint64_t)((double)(emu_ps - c->epoch_ps) * c->dilation / 1000.0);
}

/** Test hooks: stop the clock at @p ns, or let it run again (frozen = false). */
void dp_clock_freeze(struct dp_clock *c, bool frozen, uint64_t ns);

/** CLOCK_MONOTONIC_RAW now, ns (for timeouts). */
uint64_t dp_clock_raw_ns(void);

#endif /* DP_CLOCK_H */

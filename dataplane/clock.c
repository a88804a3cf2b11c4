/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The real-time clock.
 *
 * Calibration reads the TSC and CLOCK_MONOTONIC_RAW (or CLOCK_REALTIME, where PTP disciplines it
 * across hosts) together (the pair with the shortest window
 * of several tries, so a preemption between the two reads does not skew it), waits, and reads
 * them again; the rate is the ratio.  DPDK's own rte_get_tsc_hz() comes from a 100 ms sleep
 * against the nominal frequency and is off by about 1,500 ppm on these machines (1.5 ms a second),
 * far too much for pacing frames.  After calibration a reading is one rdtsc, a multiply and a
 * shift (as in rte_pcapng's tsc_clock, with a measured rate).
 */
#include <errno.h>
#include <math.h>
#include <time.h>

#include "clock.h"

uint64_t
dp_clock_raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t
read_ns(bool realtime)
{
	struct timespec ts;

	clock_gettime(realtime ? CLOCK_REALTIME : CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* A (tsc, ns) pair read as close together as this machine allows. */
static void
pair(bool realtime, uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;
	int i;

	for (i = 0; i < 16; i++) {
		uint64_t a = rte_rdtsc(), n = read_ns(realtime), b = rte_rdtsc();

		if (b - a < best) {
			best = b - a;
			*tsc = a + (b - a) / 2;
			*ns = n;
		}
	}
}

int
dp_clock_calibrate(struct dp_clock *c, double seconds)
{
	uint64_t t0 = 0, n0 = 0, t1 = 0, n1 = 0;
	struct timespec ts;

	if (!(seconds >= 0.1 && seconds <= 10))
		return -EINVAL;
	pair(c->realtime, &t0, &n0);
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
	pair(c->realtime, &t1, &n1);
	if (t1 <= t0 || n1 <= n0)
		return -EIO;
	c->hz = (double)(t1 - t0) * 1e9 / (double)(n1 - n0);
	c->hz_nominal = (double)rte_get_tsc_hz();
	c->mult = (uint64_t)llround(1e9 * 4294967296.0 / c->hz);
	c->tsc0 = t1;
	c->ns0 = n1;
	c->frozen = false;
	if (c->dilation < 1)
		c->dilation = 1;
	return 0;
}

void
dp_clock_rebase(struct dp_clock *c)
{
	pair(c->realtime, &c->tsc0, &c->ns0);
}

void
dp_clock_epoch(struct dp_clock *c, uint64_t real_ns, dp_time_t emu_ps, double dilation)
{
	c->epoch_ns = real_ns;
	c->epoch_ps = emu_ps;
	c->dilation = dilation >= 1 ? dilation : 1;
}

void
dp_clock_freeze(struct dp_clock *c, bool frozen, uint64_t ns)
{
	c->frozen = frozen;
	c->frozen_ns = ns;
}

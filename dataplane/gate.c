/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where the partitions' lcores wait for each other (gate.h): a bounded spin, then a futex.
 */
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rte_pause.h>

#include "clock.h"
#include "gate.h"

/* pauses between two readings of the clock while spinning (a pause is 10-150 cycles) */
#define SPIN_CHECK 32

static void
futex_wait(atomic_uint *w, uint32_t v)
{
	/* (EAGAIN: it changed already; EINTR: a signal; either way the caller looks again) */
	syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
}

static void
futex_wake(atomic_uint *w)
{
	syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

void
dp_gate_init(struct dp_gate *g, uint32_t v)
{
	atomic_init(&g->v, v);
	atomic_init(&g->sleepers, 0);
}

void
dp_waiter_init(struct dp_waiter *w)
{
	w->spin_ns = DP_GATE_SPIN_FIRST_NS;
	w->waits = 0;
	w->sleeps = 0;
	w->steals = 0;
}

/* Spin until the word is not @seen or @ns have passed: the word, or @seen. */
static uint32_t
spin(struct dp_gate *g, uint32_t seen, uint64_t ns)
{
	uint64_t end = dp_clock_raw_ns() + ns;
	uint32_t v, k;

	for (;;) {
		for (k = 0; k < SPIN_CHECK; k++) {
			v = atomic_load_explicit(&g->v, memory_order_acquire);
			if (v != seen)
				return v;
			rte_pause();
		}
		if (dp_clock_raw_ns() >= end)
			return seen;
	}
}

uint32_t
dp_gate_wait(struct dp_gate *g, uint32_t seen, struct dp_waiter *w)
{
	uint32_t v = atomic_load_explicit(&g->v, memory_order_acquire);

	if (v != seen)
		return v;
	w->waits++;
	v = spin(g, seen, w->spin_ns);
	if (v != seen) {
		if (2 * w->spin_ns <= DP_GATE_SPIN_MAX_NS)
			w->spin_ns *= 2;
		return v;
	}
	if (w->spin_ns / 2 >= DP_GATE_SPIN_MIN_NS)
		w->spin_ns /= 2;
	while (v == seen) {
		atomic_fetch_add(&g->sleepers, 1);
		if (atomic_load(&g->v) == seen) {
			w->sleeps++;
			futex_wait(&g->v, seen);
		}
		atomic_fetch_sub(&g->sleepers, 1);
		v = atomic_load_explicit(&g->v, memory_order_acquire);
	}
	return v;
}

void
dp_gate_set(struct dp_gate *g, uint32_t v)
{
	atomic_store(&g->v, v);
	if (atomic_load(&g->sleepers) > 0)
		futex_wake(&g->v);
}

uint32_t
dp_gate_add(struct dp_gate *g, uint32_t n)
{
	uint32_t v = atomic_fetch_add(&g->v, n) + n;

	if (atomic_load(&g->sleepers) > 0)
		futex_wake(&g->v);
	return v;
}

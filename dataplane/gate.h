/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where the partitions' lcores wait for each other (parallel.c): a word that one lcore changes
 * and others wait to see change.
 *
 * A waiter spins (rte_pause) for a bounded time, then sleeps in the kernel (futex) until the
 * word changes.  On a quiet machine the wait is short and spun through; on one whose CPUs are
 * busy with other work, an lcore waiting for one that the kernel has descheduled gives its CPU
 * away (to that lcore, often) instead of spinning through its time slice.  The bound adapts per
 * waiter, as glibc's adaptive mutexes do: halved each time a wait ended asleep (spinning was
 * wasted), doubled each time the spin sufficed, between DP_GATE_SPIN_MIN_NS and
 * DP_GATE_SPIN_MAX_NS.
 *
 * A waiter counts itself among the sleepers before it checks the word a last time and sleeps; a
 * changer changes the word before it looks for sleepers (both sequentially consistent), so a
 * change is never missed, and a change with no sleeper costs no system call.
 * References: futex(2); U. Drepper, "Futexes Are Tricky" (2011); glibc
 * PTHREAD_MUTEX_ADAPTIVE_NP.
 */
#ifndef DP_GATE_H
#define DP_GATE_H

#include <stdatomic.h>
#include <stdint.h>

#include <rte_common.h>

/** The spin's bounds and first value, ns. */
#define DP_GATE_SPIN_MIN_NS 2000
#define DP_GATE_SPIN_MAX_NS 200000
#define DP_GATE_SPIN_FIRST_NS 50000

/** A word lcores wait on, on a line of its own. */
struct dp_gate {
	atomic_uint v;
	atomic_uint sleepers;		/**< waiters asleep, or about to be */
} __rte_cache_aligned;

/** One lcore's waiting: its spin bound and what its waits came to, on a line of its own. */
struct dp_waiter {
	uint64_t spin_ns;		/**< the bound of its next spin */
	uint64_t waits;			/**< waits that found the word unchanged */
	uint64_t sleeps;		/**< times it slept in the kernel */
	uint64_t steals;		/**< partitions it ran for a late lcore (parallel.c) */
} __rte_cache_aligned;

/** A gate at @p v. */
void dp_gate_init(struct dp_gate *g, uint32_t v);

/** A waiter's first bound, its counts zero. */
void dp_waiter_init(struct dp_waiter *w);

/** The gate's word now (acquire). */
static inline uint32_t
dp_gate_get(struct dp_gate *g)
{
	return atomic_load_explicit(&g->v, memory_order_acquire);
}

/**
 * Wait until the word is not @p seen: spin up to the waiter's bound, then sleep.  Returns the
 * word (acquire: what its changer wrote before is visible).
 */
uint32_t dp_gate_wait(struct dp_gate *g, uint32_t seen, struct dp_waiter *w);

/** Set the word to @p v and wake its sleepers (release). */
void dp_gate_set(struct dp_gate *g, uint32_t v);

/** Add @p n to the word and wake its sleepers (release); returns the new word. */
uint32_t dp_gate_add(struct dp_gate *g, uint32_t n);

#endif /* DP_GATE_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A trace-driven link, as Mahimahi's mm-link emulates one (Netravali et al., "Mahimahi: Accurate
 * Record-and-Replay for HTTP", USENIX ATC 2015; src/frontend/link_queue.cc): the link's
 * capacity is a list of delivery opportunities, each a time in milliseconds, one per line,
 * non-decreasing, repeated from the start after the last (the trace's period is its last time).
 * An opportunity carries SM_LTRACE_BYTES bytes of the frames queued when it comes: the head
 * frame takes what it needs, the rest goes to the next queued frame, and what no queued frame
 * takes is lost (the link was idle).  A frame leaves at the opportunity that carries its last
 * byte.  A frame can use only opportunities after it arrives (Mahimahi serves the opportunities
 * due by a packet's arrival before it queues the packet).
 *
 * Times here are picoseconds since the trace started (base).
 */
#ifndef SM_LTRACE_H
#define SM_LTRACE_H

#include <stdbool.h>
#include <stdint.h>

/** Bytes per opportunity: Mahimahi's 1504, a 1500-byte IP packet and its TUN header. */
#define SM_LTRACE_BYTES 1504u

/** The most opportunities a trace may hold. */
#define SM_LTRACE_MAX (1u << 26)

/** A trace: its opportunities, ms. */
struct sm_ltrace {
	uint32_t n;
	uint64_t period_ms;		/**< the last opportunity's time: the trace repeats after it */
	uint64_t ms[];
};

/** Where a link is in its trace: the opportunity last used and the bytes it has left. */
struct sm_ltrace_state {
	uint64_t base;			/**< the trace's time 0, ps */
	uint64_t cycle;			/**< repetitions of the trace before the current one */
	uint32_t idx;			/**< the current opportunity in the trace */
	uint32_t left;			/**< bytes it has left for a frame queued before it */
	bool on;			/**< a frame has used an opportunity */
};

/**
 * Check @p ms[0..n-1] as a trace: 0, or -EINVAL with *@p bad the index of the first wrong
 * entry (a time before the one before it; n when the trace is empty or lasts 0 ms).
 */
int sm_ltrace_check(const uint64_t *ms, uint32_t n, uint32_t *bad);

/** Start a link's place in a trace whose time 0 is @p base (ps). */
void sm_ltrace_start(struct sm_ltrace_state *st, uint64_t base);

/**
 * A frame of @p bytes arrives at @p now (ps): the opportunities it uses, from *@p first to
 * *@p last (when it leaves), ps.  The state moves on past them.
 */
void sm_ltrace_send(const struct sm_ltrace *t, struct sm_ltrace_state *st, uint64_t now,
		    uint32_t bytes, uint64_t *first, uint64_t *last);

/** The trace's mean capacity, bytes per second. */
double sm_ltrace_rate(const struct sm_ltrace *t);

#endif /* SM_LTRACE_H */

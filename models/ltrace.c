/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A trace-driven link's delivery opportunities (ltrace.h).  Mahimahi walks the opportunities
 * one by one as its clock passes them; here a frame's opportunities are found when it is
 * queued (the link computes every frame's times at enqueue, as netem's tfifo does), and an idle
 * gap is crossed by a binary search in the trace, not a walk.
 */
#include <errno.h>

#include "ltrace.h"

#define PS_PER_MS 1000000000ull

int
sm_ltrace_check(const uint64_t *ms, uint32_t n, uint32_t *bad)
{
	for (uint32_t i = 1; i < n; i++)
		if (ms[i] < ms[i - 1]) {
			*bad = i;
			return -EINVAL;
		}
	if (n == 0 || ms[n - 1] == 0) {
		*bad = n;
		return -EINVAL;
	}
	return 0;
}

void
sm_ltrace_start(struct sm_ltrace_state *st, uint64_t base)
{
	*st = (struct sm_ltrace_state){ .base = base };
}

static inline uint64_t
at(const struct sm_ltrace *t, const struct sm_ltrace_state *st)
{
	return st->base + (st->cycle * t->period_ms + t->ms[st->idx]) * PS_PER_MS;
}

static inline void
next(const struct sm_ltrace *t, struct sm_ltrace_state *st)
{
	if (++st->idx == t->n) {
		st->idx = 0;
		st->cycle++;
	}
}

/* The first opportunity after @now. */
static void
first_after(const struct sm_ltrace *t, struct sm_ltrace_state *st, uint64_t now)
{
	uint64_t f, r;
	uint32_t lo = 0, hi = t->n;

	if (now < st->base) {
		st->cycle = 0;
		st->idx = 0;
		return;
	}
	/* an opportunity at ms m (from base) is after now iff m > f, m and f whole */
	f = (now - st->base) / PS_PER_MS;
	st->cycle = f / t->period_ms;
	r = f - st->cycle * t->period_ms;
	while (lo < hi) {			/* the first entry above r */
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->ms[mid] > r)
			hi = mid;
		else
			lo = mid + 1;
	}
	st->idx = lo;
	if (lo == t->n) {			/* r < period: the next cycle's first is after */
		st->idx = 0;
		st->cycle++;
	}
}

void
sm_ltrace_send(const struct sm_ltrace *t, struct sm_ltrace_state *st, uint64_t now,
	       uint32_t bytes, uint64_t *first, uint64_t *last)
{
	if (!st->on || at(t, st) <= now) {
		first_after(t, st, now);	/* idle meanwhile: the bytes in between were lost */
		st->left = SM_LTRACE_BYTES;
	} else if (st->left == 0) {
		next(t, st);			/* the frame before used all of the current one */
		st->left = SM_LTRACE_BYTES;
	}
	st->on = true;
	*first = at(t, st);
	while (bytes > st->left) {
		bytes -= st->left;
		next(t, st);
		st->left = SM_LTRACE_BYTES;
	}
	st->left -= bytes;
	*last = at(t, st);
}

double
sm_ltrace_rate(const struct sm_ltrace *t)
{
	return (double)t->n * SM_LTRACE_BYTES / ((double)t->period_ms / 1000.0);
}

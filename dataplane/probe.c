/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The probe element: reads each link's queue (frame bytes waiting, not yet serialising) at
 * now, every interval.  It only reads; the links' frames do not notice it.  Past DP_PROBE_MEM of
 * samples it thins them to every other one and doubles its interval.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ffwd.h"
#include "frame.h"
#include "link.h"
#include "probe.h"
#include "usdt.h"

static int
grow(struct dp_probe *p)
{
	uint64_t cap = p->cap ? 2 * p->cap : 1024;
	dp_time_t *t = realloc(p->t, cap * sizeof(*t));
	uint64_t *b;

	if (t == NULL)
		return -ENOMEM;
	p->t = t;
	b = realloc(p->bytes, cap * p->nlinks * sizeof(*b));
	if (b == NULL)
		return -ENOMEM;
	p->bytes = b;
	p->cap = cap;
	return 0;
}

/* A sample at @now of the links' queued bytes @b; the next one scheduled. */
static void
take(struct dp_probe *p, dp_time_t now, const uint64_t *b)
{
	p->taken++;
	if (p->on_sample != NULL) {
		p->on_sample(p->arg, now, b, p->names, p->nlinks);
		p->n++;
		dp_sched(&p->e, now + p->every);
		return;
	}
	if (p->n == p->max) {
		/* full: keep every other sample (this one, at index max, is one of them) */
		uint64_t k;

		for (k = 0; k < p->n / 2; k++) {
			p->t[k] = p->t[2 * k];
			memmove(&p->bytes[k * p->nlinks], &p->bytes[2 * k * p->nlinks],
				p->nlinks * sizeof(*p->bytes));
		}
		p->n /= 2;
		if (p->every <= DP_NEVER / 2)
			p->every *= 2;
	}
	if (p->n == p->cap && grow(p) != 0) {
		dp_engine_fail(p->e.eng, -ENOMEM, "%s: out of memory for its samples", p->e.name);
		return;
	}
	p->t[p->n] = now;
	memcpy(&p->bytes[p->n * p->nlinks], b, p->nlinks * sizeof(*b));
	p->n++;
	dp_sched(&p->e, now + p->every);
}

static void
probe_event(struct dp_elem *e, dp_time_t now)
{
	struct dp_probe *p = (struct dp_probe *)e;
	uint64_t b[DP_PROBE_LINKS];
	uint32_t i;

	if (p->stopped) {
		dp_sched(e, DP_NEVER);
		return;
	}
	for (i = 0; i < p->nlinks; i++) {
		b[i] = dp_link_backlog(p->links[i], now);
		DP_USDT_QUEUE_SAMPLE(p->links[i]->e.id, b[i], now);	/* (a replay: none) */
	}
	take(p, now, b);
}

int
dp_probe_replay(struct dp_probe *p, dp_time_t until,
		int64_t (*read)(void *arg, uint32_t link, dp_time_t t), void *arg)
{
	uint64_t n = p->n, b[DP_PROBE_LINKS];
	dp_time_t t = p->e.next, every = p->every;
	uint32_t i;

	if (p->stopped)
		return 0;
	/* every reading first (as take() thins, on its own copies), then the samples */
	for (; t < until; t += every) {
		for (i = 0; i < p->nlinks; i++)
			if (read(arg, i, t) < 0)
				return -EAGAIN;
		if (p->on_sample == NULL && n == p->max) {
			n /= 2;
			if (every <= DP_NEVER / 2)
				every *= 2;
		}
		n++;
	}
	while (p->e.next < until && p->e.eng->error == 0) {
		t = p->e.next;
		for (i = 0; i < p->nlinks; i++)
			b[i] = (uint64_t)read(arg, i, t);
		take(p, t, b);
	}
	return 0;
}

static void
probe_rx(struct dp_elem *e, const struct dp_pkt *p, dp_time_t now)
{
	e->c.rx++;
	e->c.drop++;
	dp_frame_end(e->eng, p);
}

static uint64_t
probe_held(const struct dp_elem *e)
{
	return 0;
}

static bool
probe_settled(const struct dp_elem *e)
{
	(void)e;
	return true;
}

/* an observer: replayed by its samples (dp_probe_replay()), never compared */
static const struct dp_ffwd_layout probe_ffwd = {
	.size = sizeof(struct dp_probe),
	.observer = true,
	.settled = probe_settled,
};

static const struct dp_elem_ops probe_ops = {
	.kind = "probe",
	.event = probe_event,
	.rx = probe_rx,
	.held = probe_held,
	.ffwd = &probe_ffwd,
};

int
dp_probe_init(struct dp_probe *p, struct dp_engine *eng, const char *name, dp_time_t every,
	      struct dp_link *const *links, uint32_t nlinks)
{
	int rc;

	if (every == 0 || nlinks == 0 || nlinks > DP_PROBE_LINKS)
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	rc = dp_engine_add(eng, &p->e, &probe_ops, name);
	if (rc != 0)
		return rc;
	p->every = every;
	p->nlinks = nlinks;
	p->max = DP_PROBE_MEM / (sizeof(*p->t) + nlinks * sizeof(*p->bytes)) & ~UINT64_C(1);
	memcpy(p->links, links, nlinks * sizeof(*links));
	for (uint32_t i = 0; i < nlinks; i++)
		p->names[i] = links[i]->e.name;
	return 0;
}

void
dp_probe_start(struct dp_probe *p, dp_time_t now)
{
	dp_sched(&p->e, now);
}

void
dp_probe_stop(struct dp_probe *p)
{
	p->stopped = true;
	dp_sched(&p->e, DP_NEVER);
}

void
dp_probe_fini(struct dp_probe *p)
{
	free(p->t);
	free(p->bytes);
	p->t = NULL;
	p->bytes = NULL;
}

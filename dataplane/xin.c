/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A cut link's far end (xin.h): a FIFO of frames with their arrival times.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../models/ring.h"
#include "xin.h"

#define RING_MIN 64

static void xin_event(struct dp_elem *e, dp_time_t now);
static void xin_rx(struct dp_elem *e, const struct dp_pkt *p, dp_time_t now);
static uint64_t xin_held(const struct dp_elem *e);

const struct dp_elem_ops dp_xin_ops = {
	.kind = "link",
	.event = xin_event,
	.rx = xin_rx,
	.held = xin_held,
};

int
dp_xin_init(struct dp_xin *x, struct dp_engine *eng, const char *name, uint32_t gid,
	    struct dp_elem *next)
{
	int rc;

	if (next == NULL)
		return -EINVAL;
	memset(x, 0, sizeof(*x));
	rc = dp_engine_add(eng, &x->e, &dp_xin_ops, name);
	if (rc != 0)
		return rc;
	x->e.gid = gid;
	x->e.half = 1;
	x->e.aux = true;
	x->next = next;
	x->ring = aligned_alloc(RTE_CACHE_LINE_SIZE, RING_MIN * sizeof(*x->ring));
	if (x->ring == NULL)
		return -ENOMEM;
	x->mask = RING_MIN - 1;
	return 0;
}

void
dp_xin_fini(struct dp_xin *x)
{
	while (x->head != x->tail)
		rte_pktmbuf_free(x->ring[x->head++ & x->mask].p.m);	/* NULL is fine */
	free(x->ring);
	x->ring = NULL;
}

int
dp_xin_put(struct dp_xin *x, const struct dp_pkt *p, dp_time_t arrive)
{
	struct dp_xin_slot *s;

	if (x->tail - x->head > x->mask) {	/* full: double it, keeping the order */
		struct dp_xin_slot *r = sm_ring_grow(x->ring, &x->mask, &x->head, &x->tail,
						     sizeof(*r), 0, RTE_CACHE_LINE_SIZE);

		if (r == NULL)
			return -ENOMEM;
		x->ring = r;
	}
	s = &x->ring[x->tail++ & x->mask];
	s->p = *p;
	s->arrive = arrive;
	x->e.c.rx++;
	x->e.c.rx_bytes += p->len;
	if (x->head + 1 == x->tail)
		dp_sched(&x->e, arrive);
	return 0;
}

static void
xin_event(struct dp_elem *e, dp_time_t now)
{
	struct dp_xin *x = (struct dp_xin *)e;

	while (x->head != x->tail && x->ring[x->head & x->mask].arrive <= now) {
		struct dp_pkt p = x->ring[x->head++ & x->mask].p;

		e->c.tx++;
		e->c.tx_bytes += p.len;
		x->next->ops->rx(x->next, &p, now);
	}
	dp_sched(e, x->head != x->tail ? x->ring[x->head & x->mask].arrive : DP_NEVER);
}

static void
xin_rx(struct dp_elem *e, const struct dp_pkt *p, dp_time_t now)
{
	(void)now;
	dp_engine_fail(e->eng, -EPROTO, "%s: a frame was sent to a link's far end", e->name);
	dp_frame_end(e->eng, p);
}

static uint64_t
xin_held(const struct dp_elem *e)
{
	const struct dp_xin *x = (const struct dp_xin *)e;

	return x->tail - x->head;
}

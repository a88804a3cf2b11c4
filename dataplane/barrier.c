/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The barrier element (barrier.h): counts arrivals, and releases in an event of its own.
 */
#include <errno.h>

#include "barrier.h"
#include "ffwd.h"
#include "frame.h"

static void barrier_event(struct dp_elem *e, dp_time_t now);
static void barrier_rx(struct dp_elem *e, const struct dp_pkt *p, dp_time_t now);
static uint64_t barrier_held(const struct dp_elem *e);

static bool barrier_settled(const struct dp_elem *e);

static const struct dp_ffwd_field barrier_moving[] = {
	DP_FFWD_FIELD(struct dp_barrier, count), DP_FFWD_FIELD(struct dp_barrier, fin),
	DP_FFWD_FIELD(struct dp_barrier, generation), DP_FFWD_ARRAY(struct dp_barrier, peer_count),
	DP_FFWD_FIELD(struct dp_barrier, latest),
};
static const struct dp_ffwd_layout barrier_ffwd = {
	.size = sizeof(struct dp_barrier),
	.moving = barrier_moving, .n_moving = RTE_DIM(barrier_moving),
	.settled = barrier_settled,
};

const struct dp_elem_ops dp_barrier_ops = {
	.kind = "barrier",
	.event = barrier_event,
	.rx = barrier_rx,
	.held = barrier_held,
	.ffwd = &barrier_ffwd,
};

int
dp_barrier_init(struct dp_barrier *b, struct dp_engine *eng, const char *name, uint32_t need,
		const uint32_t *who)
{
	int rc = dp_engine_add(eng, &b->e, &dp_barrier_ops, name);

	if (rc != 0)
		return rc;
	b->e.aux = true;	/* its events are not the model's: not counted */
	b->need = need;
	b->who = who;
	return 0;
}

void
dp_barrier_fire(struct dp_barrier *b, dp_time_t t)
{
	if (b->count == b->need && b->need > 0) {
		/* the release to come is the sync's work in progress: no stall before it.  Only
		 * once fired: workers in here while others elsewhere never come are a stall */
		if (!b->rel_due)
			dp_sync_hold(b->e.eng);
		b->rel_due = true;
	} else {
		b->fin_due = true;
	}
	dp_sched(&b->e, t);
}

/* The workers here are all in (or all done): fire now, or tell whoever decides. */
static void
local_done(struct dp_barrier *b, dp_time_t now)
{
	if (b->local_done != NULL)
		b->local_done(b->local_arg, now);	/* the partitions' runner fires it */
	else
		dp_barrier_fire(b, now);
}

/* The time of the arrivals so far: in a steady run's window they may come out of order. */
static dp_time_t
latest(struct dp_barrier *b, dp_time_t now)
{
	if (now > b->latest)
		b->latest = now;
	return b->latest;
}

void
dp_barrier_arrive(struct dp_barrier *b, dp_time_t now)
{
	now = latest(b, now);
	if (++b->count < b->need)
		return;
	if (b->peers == 0) {
		local_done(b, now);
		return;
	}
	b->here_done = true;
	b->arrived(b->peer_arg, b->generation, now);
	if (b->peer_count[b->generation & 1] == b->peers)
		dp_barrier_fire(b, now);
}

void
dp_barrier_finish(struct dp_barrier *b, dp_time_t now)
{
	now = latest(b, now);
	if (++b->fin == b->need)
		local_done(b, now);	/* processes apart each stop their own */
}

void
dp_barrier_peer(struct dp_barrier *b, uint32_t generation, dp_time_t now)
{
	/* a peer can be at most one generation ahead: it waits for this one's word */
	if (generation != b->generation && generation != b->generation + 1)
		return;
	if (++b->peer_count[generation & 1] == b->peers && generation == b->generation &&
	    b->here_done)
		dp_barrier_fire(b, now);
}

static void
barrier_event(struct dp_elem *e, dp_time_t now)
{
	struct dp_barrier *b = (struct dp_barrier *)e;
	uint32_t i;

	dp_sched(e, DP_NEVER);
	if (b->rel_due) {
		b->rel_due = false;
		b->count = 0;
		b->here_done = false;
		b->peer_count[b->generation & 1] = 0;
		b->generation++;
		for (i = 0; i < b->need; i++) {
			/* a partition's records during the release: in the order of the workers */
			e->eng->sub = b->who[i] + 1;
			b->release(b->arg, b->who[i], now);
		}
		e->eng->sub = 0;
		dp_sync_release(e->eng);
	}
	if (b->fin_due) {
		b->fin_due = false;
		if (!b->finished && b->finish != NULL)
			b->finish(b->finish_arg, now);
		b->finished = true;
	}
}

static void
barrier_rx(struct dp_elem *e, const struct dp_pkt *p, dp_time_t now)
{
	(void)now;
	dp_engine_fail(e->eng, -EPROTO, "%s: a frame was sent to a barrier", e->name);
	dp_frame_end(e->eng, p);
}

static uint64_t
barrier_held(const struct dp_elem *e)
{
	(void)e;
	return 0;
}

static bool
barrier_settled(const struct dp_elem *e)
{
	const struct dp_barrier *b = (const struct dp_barrier *)e;

	return b->peers == 0 && b->local_done == NULL;	/* no other process or partition */
}

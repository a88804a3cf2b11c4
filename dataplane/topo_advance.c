/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Advancing a run (topology.h): one engine or the partitions, in virtual or real time, until a
 * step is done, the sync's work in progress is none, or the watchdog; and where a stalled run
 * waits.
 */
#include <stdio.h>

#include "topology.h"

/* Partitions: the topology's engine shows what they add up to (the run reads it). */
void
dp_topo_par_view(struct dp_topo *t)
{
	dp_par_totals(t->par, &t->eng.events, &t->eng.sync_wip, &t->eng.now);
	if (t->par->error != 0 && t->eng.error == 0) {
		t->eng.error = t->par->error;
		snprintf(t->eng.errmsg, sizeof(t->eng.errmsg), "%s", t->par->errmsg);
	}
}

struct advance {
	const struct dp_topo *t;
	uint32_t seen;		/* steps done when it began */
	bool exact;		/* virtual time: stop when nothing of the sync is in progress */
	uint64_t ev_end;	/* virtual time: return after this many events, for progress */
	uint32_t polls;		/* real time in partitions: calls, for the control plane's turn */
};

static bool
advanced(void *arg)
{
	const struct advance *a = arg;

	return a->t->rec.steps_done != a->seen ||
	       (a->exact && (a->t->eng.sync_wip == 0 || a->t->eng.events >= a->ev_end));
}

/* Partitions: after a window, as advanced() after an event; the control plane's turn. */
static bool
par_advanced(void *arg)
{
	struct advance *a = arg;
	struct dp_topo *t = (struct dp_topo *)a->t;

	dp_topo_par_view(t);
	if (t->eng.poll != NULL)
		t->eng.poll(t->eng.poll_arg, t->par->tmin);
	return t->rec.steps_done != a->seen || t->eng.sync_wip == 0 || t->eng.events >= a->ev_end;
}

/*
 * Real time, partitions: a step retired (merged from every partition).  And the control plane's
 * turn every 256 calls: the status as it stands, and a waiting change with every lcore paused
 * (the elements it changes are theirs), at the latest time a partition has reached.
 */
static bool
rt_advanced(void *arg)
{
	struct advance *a = arg;
	struct dp_topo *t = (struct dp_topo *)a->t;

	if (t->eng.poll != NULL && (++a->polls & 255) == 0) {
		if (t->eng.poll_wants != NULL && t->eng.poll_wants(t->eng.poll_arg)) {
			dp_time_t now = dp_par_rt_pause(t->par);

			t->eng.poll(t->eng.poll_arg, now);
			dp_par_rt_resume(t->par);
		} else {
			t->eng.poll(t->eng.poll_arg, t->eng.rt->now(t->eng.rt->arg));
		}
	}
	return t->rec.steps_done != a->seen;
}

/* Where a virtual-time advance returns for progress (or a sample's end: dp_topo.ev_stop). */
static uint64_t
ev_end(const struct dp_topo *t)
{
	uint64_t e = t->eng.events + DP_ADVANCE_EVENTS;

	return t->ev_stop != 0 && t->ev_stop < e ? t->ev_stop : e;
}

static int
par_advance(struct dp_topo *t)
{
	struct advance a = { .t = t, .seen = t->rec.steps_done, .exact = true,
			     .ev_end = ev_end(t) };
	int rc = dp_par_run(t->par, par_advanced, &a);

	dp_topo_par_view(t);
	if (rc != 0)
		return rc;
	if (t->rec.steps_done != a.seen)
		return 1;
	return t->eng.sync_wip != 0 && t->eng.events >= a.ev_end ? 2 : 0;
}

int
dp_topo_drain(struct dp_topo *t)
{
	int rc;

	if (t->par == NULL)
		return dp_engine_run(&t->eng, DP_NEVER, NULL, NULL);
	rc = dp_par_run(t->par, NULL, NULL);
	dp_topo_par_view(t);
	return rc;
}

int
dp_topo_advance(struct dp_topo *t, dp_time_t watchdog)
{
	struct advance a = { .t = t, .seen = t->rec.steps_done, .exact = t->eng.rt == NULL,
			     .ev_end = ev_end(t) };
	dp_time_t until = DP_NEVER;
	int rc;

	if (t->par != NULL && !a.exact) {
		/* real time: the partitions on their lcores until a step is done or the watchdog */
		rc = dp_par_run_rt(t->par, watchdog, rt_advanced, &a);
		if (t->rec.steps_done == a.seen)
			dp_par_rt_halt(t->par);	/* the watchdog (an error halted them already) */
		if (!t->par->rt_on)
			dp_topo_par_view(t);	/* running on, the partitions are their lcores' */
		if (rc != 0)
			return rc;
		return t->rec.steps_done != a.seen;
	}
	if (t->par != NULL)
		return par_advance(t);
	if (!a.exact)
		until = t->eng.now < DP_NEVER - watchdog ? t->eng.now + watchdog : DP_NEVER;
	rc = dp_engine_run(&t->eng, until, advanced, &a);
	if (rc != 0)
		return rc;
	if (t->rec.steps_done != a.seen)
		return 1;
	/* the sync goes on (a long step): not a stall */
	return a.exact && t->eng.sync_wip != 0 && t->eng.events >= a.ev_end ? 2 : 0;
}

uint64_t
dp_topo_frames_made(const struct dp_topo *t)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < t->w_count; i++)
		n += t->workers[i].frames_made;
	return n;
}

int
dp_topo_waiting(const struct dp_topo *t, char *buf, size_t len)
{
	const struct dp_worker *first = NULL, *in_round = NULL;
	uint32_t i, left = 0;
	char where[200];

	for (i = 0; i < t->w_count; i++) {
		const struct dp_worker *w = &t->workers[i];

		if (!dp_topo_here(t, i / t->n) || w->state == DP_W_DONE)
			continue;	/* another process runs it, or it is done */
		left++;
		if (first == NULL)
			first = w;
		if (in_round == NULL && w->state == DP_W_ROUND)
			in_round = w;
	}
	if (first == NULL)
		return snprintf(buf, len, "every worker is done");
	dp_worker_describe(in_round != NULL ? in_round : first, where, sizeof(where));
	if (left == 1)
		return snprintf(buf, len, "%s", where);
	return snprintf(buf, len, "%s (%u workers not done)", where, left);
}
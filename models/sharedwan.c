/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The sync on a shared WAN: a fluid discrete-event model.
 *
 * Deck "Hot Spots, and a Shared WAN" (results.md section 9): with other jobs' traffic on the
 * inter-DC link (Poisson, 1 MB transfers) the sync queues; the mean step over 200 syncs at load
 * 0.9 grows from 4.075 to 26.291 ms for AdamW and from 3.726 to 5.442 ms for E' [free].  The deck
 * does not state the discipline; reference-model.md section 4.3 lists the variants tried, of
 * which processor sharing with the sync's WAN round as one flow, background on one direction,
 * fits AdamW (26.47 +- 0.88 ms).  Section 2.9 adds the capacity bound: AdamW's 2P bytes per
 * direction per step keep a link at load 0.9 stable only for steps >= 2P / (0.1 b) = 25.3 ms, so
 * the mean under load is set by capacity and a run from empty links has a warm-up.
 *
 * The model.  A step is the closed form's terms in plan order (step.c, collective.c): compute and
 * t_x, every intra-DC phase and the module take their closed-form time.  A WAN phase of r rounds:
 * in each round every directional WAN link (DC d to DC d+1; D links for D data centres, so both
 * directions for D = 2) carries flows x bytes of sync; the round's transfer ends when the slowest
 * link has delivered them, no earlier than bytes / cap for a port-capped phase (nor, in a direct
 * exchange to every DC peer at once, than the worker's NIC takes for its D - 1 flows); the WAN
 * latency follows.  This is the packet emulator's default ("phase") sync.
 *
 * A loaded link has Poisson arrivals at rate load b / E[S] of transfers with sizes from the
 * distribution, all the time and from an empty link at t = 0; each link its own RNG stream.
 *   PS:   the rate b is shared equally by the n active transfers and the sync's w flows
 *         (w = 1, or the phase's flows).  Exact event-driven fluid: with V(t) the service each
 *         unit of weight has received, a transfer of S bytes arriving at V_a leaves when
 *         V = V_a + S, so the active transfers sit in a heap by that tag; between events
 *         dV/dt = b / (n + w) and the sync's remaining bytes fall at w b / (n + w).
 *   FIFO: whole transfers at rate b in arrival order; the link is its unfinished work U(t)
 *         (Lindley): an arrival waits U / b; a sync round of R bytes finishes (U + R) / b after
 *         its start and adds R to U.
 * At load 0 no transfer ever arrives, each round takes flows x bytes / b (the closed form's
 * expression), and the step equals sm_step_eval()'s total up to the order of additions.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collective.h"
#include "sharedwan.h"
#include "step.h"
#include "stream.h"

/* An active background transfer (PS). */
struct bgjob {
	double tag;		/* V at which it completes, bytes */
	double arr;		/* arrival time, s */
	double size;		/* bytes */
};

/* One directional WAN link and its background. */
struct wlink {
	/* configuration */
	enum sm_wan_discipline disc;
	double bw;			/* B/s */
	double rate;			/* background arrivals per s; 0 = unloaded */
	const struct sm_size_dist *sizes;
	uint64_t stop;			/* leave the event loop when this many are measured */
	uint64_t max_events;		/* fail with -ERANGE beyond this many events */
	/* state */
	struct sm_rng rng;
	double t;			/* the link's clock, s */
	double next_arr;		/* next background arrival, s (INFINITY: none) */
	double work;			/* FIFO: unfinished bytes */
	double v;			/* PS: service per unit of weight so far, bytes */
	struct bgjob *heap;		/* PS: active transfers, a min-heap by tag */
	unsigned int n, cap;
	/* counters */
	uint64_t done;			/* transfers measured */
	uint64_t events;		/* arrivals, completions and sync steps handled */
	double sojourn_sum, wait_sum;	/* s */
	double busy;			/* s with something to send */
};

/* ---- the PS heap ---- */

static int
heap_push(struct wlink *l, const struct bgjob *j)
{
	unsigned int i;

	if (l->n == l->cap) {
		unsigned int cap = l->cap ? 2 * l->cap : 64;
		struct bgjob *h = realloc(l->heap, cap * sizeof(*h));

		if (h == NULL)
			return -ENOMEM;
		l->heap = h;
		l->cap = cap;
	}
	for (i = l->n++; i > 0 && l->heap[(i - 1) / 2].tag > j->tag; i = (i - 1) / 2)
		l->heap[i] = l->heap[(i - 1) / 2];
	l->heap[i] = *j;
	return 0;
}

static void
heap_pop(struct wlink *l)
{
	struct bgjob last = l->heap[--l->n];
	unsigned int i = 0, c;

	while ((c = 2 * i + 1) < l->n) {
		if (c + 1 < l->n && l->heap[c + 1].tag < l->heap[c].tag)
			c++;
		if (last.tag <= l->heap[c].tag)
			break;
		l->heap[i] = l->heap[c];
		i = c;
	}
	if (l->n > 0)
		l->heap[i] = last;
}

/* ---- a link ---- */

static void
link_init(struct wlink *l, enum sm_wan_discipline disc, double bw, double load,
	  const struct sm_size_dist *sizes, uint64_t seed, uint64_t max_events)
{
	memset(l, 0, sizeof(*l));
	l->max_events = max_events;
	l->disc = disc;
	l->bw = bw;
	l->rate = load > 0 ? sm_bg_rate(load, bw, sizes) : 0;
	l->sizes = sizes;
	l->stop = UINT64_MAX;
	sm_rng_seed(&l->rng, seed);
	l->next_arr = l->rate > 0 ? sm_rng_exp(&l->rng, 1 / l->rate) : INFINITY;
}

/* A background transfer arrives at l->t: draw its size and the next arrival. */
static int
link_arrive(struct wlink *l)
{
	struct bgjob j;
	double wait;
	int rc = 0;

	if (l->disc == SM_WAN_FIFO && ++l->events > l->max_events)
		return -ERANGE;	/* PS counts in ps_run() */
	j.size = sm_size_sample(l->sizes, &l->rng);
	j.arr = l->t;
	if (l->disc == SM_WAN_FIFO) {
		wait = l->work / l->bw;
		l->wait_sum += wait;
		l->sojourn_sum += wait + j.size / l->bw;
		l->done++;
		l->work += j.size;
	} else {
		j.tag = l->v + j.size;
		rc = heap_push(l, &j);
	}
	l->next_arr = l->t + sm_rng_exp(&l->rng, 1 / l->rate);
	return rc;
}

/* FIFO: serve the unfinished work for @dt seconds. */
static void
fifo_drain(struct wlink *l, double dt)
{
	double t_empty = l->work / l->bw;

	if (dt <= 0)
		return;
	l->busy += dt < t_empty ? dt : t_empty;
	l->work = dt < t_empty ? l->work - l->bw * dt : 0;
}

/* FIFO: background only up to @until (or until l->stop transfers are measured). */
static int
fifo_advance(struct wlink *l, double until)
{
	int rc;

	while (l->next_arr <= until && l->done < l->stop) {
		fifo_drain(l, l->next_arr - l->t);
		l->t = l->next_arr;
		rc = link_arrive(l);
		if (rc != 0)
			return rc;
	}
	if (until > l->t && isfinite(until)) {
		fifo_drain(l, until - l->t);
		l->t = until;
	}
	return 0;
}

/*
 * PS: run events until @until, or, with a sync of weight @w > 0 and *@rem bytes, until the sync
 * has been delivered (then *@elapsed is its duration, the sum of the steps).
 */
static int
ps_run(struct wlink *l, double until, double w, double *rem, double *elapsed)
{
	enum { EV_SYNC, EV_DONE, EV_UNTIL, EV_ARRIVE } ev;
	double sync_dt, dt, g, nw;
	int rc;

	for (;;) {
		if (w > 0 && *rem <= 0)
			return 0;
		if (w == 0 && (l->t >= until || l->done >= l->stop))
			return 0;
		if (++l->events > l->max_events)
			return -ERANGE;
		nw = l->n + w;
		g = nw > 0 ? l->bw / nw : 0;	/* per unit of weight */
		/* The sync's rate is w b / (n + w): alone, exactly b. */
		sync_dt = w == 0 ? INFINITY : l->n == 0 ? *rem / l->bw : *rem / (w * g);
		ev = EV_SYNC;
		dt = sync_dt;
		if (l->n > 0) {
			double d = (l->heap[0].tag - l->v) / g;

			if (d < 0)
				d = 0;
			if (d < dt) {
				ev = EV_DONE;
				dt = d;
			}
		}
		if (w == 0 && until - l->t < dt) {
			ev = EV_UNTIL;
			dt = until - l->t;
		}
		if (l->next_arr - l->t < dt) {
			ev = EV_ARRIVE;
			dt = l->next_arr - l->t;
		}
		if (dt < 0)
			dt = 0;
		if (nw > 0)
			l->busy += dt;
		if (elapsed != NULL)
			*elapsed += dt;
		if (w > 0)
			*rem = ev == EV_SYNC ? 0 : *rem - (l->n == 0 ? l->bw : w * g) * dt;
		switch (ev) {
		case EV_DONE:
			l->t += dt;
			l->v = l->heap[0].tag;
			l->sojourn_sum += l->t - l->heap[0].arr;
			l->wait_sum += l->t - l->heap[0].arr - l->heap[0].size / l->bw;
			l->done++;
			heap_pop(l);
			break;
		case EV_ARRIVE:
			l->v += g * dt * (l->n > 0);
			l->t = l->next_arr;
			rc = link_arrive(l);
			if (rc != 0)
				return rc;
			break;
		case EV_UNTIL:
			l->v += g * dt * (l->n > 0);
			l->t = until;
			break;
		case EV_SYNC:
			l->v += g * dt * (l->n > 0);
			l->t += dt;
			break;
		}
	}
}

/* Background only, up to @until. */
static int
link_advance(struct wlink *l, double until)
{
	if (l->disc == SM_WAN_FIFO)
		return fifo_advance(l, until);
	return ps_run(l, until, 0, NULL, NULL);
}

/*
 * A sync round of @bytes (weight @w under PS) enters the link at @t0; *@d receives how long after
 * t0 its last byte is sent.
 */
static int
link_sync(struct wlink *l, double t0, double bytes, double w, double *d)
{
	double rem = bytes;
	int rc;

	rc = link_advance(l, t0);
	if (rc != 0)
		return rc;
	if (l->disc == SM_WAN_FIFO) {
		*d = (l->work + bytes) / l->bw;
		l->work += bytes;
		return 0;
	}
	*d = 0;
	return ps_run(l, INFINITY, w, &rem, d);
}

static void
link_free(struct wlink *l)
{
	free(l->heap);
	l->heap = NULL;
	l->n = l->cap = 0;
}

/* ---- the sync ---- */

/* A run in progress. */
struct swan {
	const struct sm_params *p;
	const struct sm_sharedwan_params *wp;
	unsigned int links, loaded;
	struct wlink *link;		/* the loaded ones, link 0 first */
	double t;			/* global clock, s */
};

/* One WAN round starting at w->t; *@x receives how long its transfer takes, latency excluded. */
static int
wan_round(struct swan *w, const struct sm_phase *ph, double *x)
{
	double bytes = ph->flows * ph->bytes;	/* per directional link, as in step.c */
	double free_t = bytes / w->p->wan.bw;
	double weight = w->wp->sync_one_flow ? 1.0 : ph->flows;
	double worst = w->loaded < w->links ? free_t : 0;
	double cap_t = ph->cap > 0 ? ph->bytes / ph->cap : 0;
	unsigned int k;
	int rc;

	for (k = 0; k < w->loaded; k++) {
		double d;

		rc = link_sync(&w->link[k], w->t, bytes, weight, &d);
		if (rc != 0)
			return rc;
		if (d > worst)
			worst = d;
	}
	if (ph->fan) {	/* to every DC peer at once: no sooner than its flows leave the NIC */
		double own = sm_phase_sends_max(ph) * ph->bytes / w->p->intra.bw;

		if (own > worst)
			worst = own;
	}
	*x = cap_t > worst ? cap_t : worst;
	return 0;
}

/* One step from w->t; *@st receives its duration. */
static int
one_step(struct swan *w, const struct sm_step *s, const struct sm_plan *plan, unsigned int off,
	 double *st)
{
	double lat = w->p->wan.lat, t = 0;
	unsigned int i, r;
	int rc;

	for (i = 0; i < off; i++) {
		t += s->term[i].t;
		w->t += s->term[i].t;
	}
	for (i = 0; i < plan->n; i++) {
		const struct sm_phase *ph = &plan->ph[i];
		double phase = 0, x;

		if (ph->hop != SM_HOP_WAN) {
			t += s->term[off + i].t;
			w->t += s->term[off + i].t;
			continue;
		}
		for (r = 0; r < ph->rounds; r++) {
			rc = wan_round(w, ph, &x);
			if (rc != 0)
				return rc;
			phase += x + lat;
			w->t += x + lat;
		}
		t += phase;
	}
	*st = t;
	return 0;
}

static int
check_params(const struct sm_sharedwan_params *wp)
{
	if (wp == NULL || !isfinite(wp->load) || wp->load < 0 ||
	    (wp->load > 0 && (wp->sizes == NULL || !(wp->sizes->mean > 0))) ||
	    (wp->disc != SM_WAN_PS && wp->disc != SM_WAN_FIFO) ||
	    (wp->directions != 1 && wp->directions != 2) || wp->n_syncs == 0 ||
	    wp->warmup > wp->n_syncs)
		return -EINVAL;
	return 0;
}

/* Fill the background part of @res from the loaded links, advanced to the horizon. */
static int
summarise_links(struct swan *w, struct sm_sharedwan_result *res)
{
	double soj = 0, util = 0;
	unsigned int k, with = 0;
	int rc;

	res->bg_done = 0;
	for (k = 0; k < w->loaded; k++) {
		struct wlink *l = &w->link[k];

		rc = link_advance(l, w->t);
		if (rc != 0)
			return rc;
		res->bg_done += l->done;
		util += w->t > 0 ? l->busy / w->t : 0;
		if (l->done > 0) {
			soj += l->sojourn_sum / (double)l->done;
			with++;
		}
	}
	res->bg_sojourn = with > 0 ? soj / with : NAN;
	res->util = w->loaded > 0 ? util / w->loaded : NAN;
	return 0;
}

void
sm_sharedwan_default(struct sm_sharedwan_params *wp)
{
	memset(wp, 0, sizeof(*wp));
	wp->var = SM_VAR_A;
	wp->budget = 0;
	wp->load = 0;
	wp->sizes = NULL;
	wp->disc = SM_WAN_PS;
	wp->sync_one_flow = true;
	wp->directions = 1;
	wp->seed = 1;
	wp->n_syncs = SM_SHAREDWAN_SYNCS;
	wp->warmup = 20;
	wp->max_events = 0;
}

int
sm_sharedwan_run(const struct sm_params *p, const struct sm_sharedwan_params *wp,
		 double *step, struct sm_sharedwan_result *res)
{
	struct swan w;
	struct sm_step s;
	struct sm_plan plan;
	struct sm_stream st;
	double warm = 0, rest = 0, x;
	unsigned int i, off;
	int rc;

	rc = check_params(wp);
	if (rc != 0)
		return rc;
	rc = sm_step_eval(p, wp->var, wp->budget, &s);
	if (rc != 0)
		return rc;
	sm_plan_build(p, wp->var, &plan);
	/* step.c adds compute (and t_x) first, then one term per phase in plan order. */
	if (s.n < plan.n || s.n - plan.n < 1 || s.n - plan.n > 2)
		return -EINVAL;
	off = s.n - plan.n;

	memset(&w, 0, sizeof(w));
	w.p = p;
	w.wp = wp;
	w.links = p->topo.n_dc > 1 ? p->topo.n_dc : 0;
	w.loaded = wp->load > 0 ? (wp->directions == 1 ? 1 : w.links) : 0;
	if (w.links == 0)
		w.loaded = 0;
	rc = sm_stream_init(&st, wp->n_syncs);
	if (rc != 0)
		return rc;
	w.link = w.loaded > 0 ? calloc(w.loaded, sizeof(*w.link)) : NULL;
	if (w.loaded > 0 && w.link == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < w.loaded; i++)
		link_init(&w.link[i], wp->disc, p->wan.bw, wp->load, wp->sizes,
			  sm_rng_stream_seed(wp->seed, i),
			  wp->max_events > 0 ? wp->max_events : SM_SHAREDWAN_MAX_EVENTS);

	/* each step into the summary as it is made: memory does not grow with the syncs */
	for (i = 0; i < wp->n_syncs; i++) {
		if (w.links == 0) {	/* no WAN: nothing is shared */
			x = s.total;
			w.t += s.total;
		} else {
			rc = one_step(&w, &s, &plan, off, &x);
			if (rc != 0)
				goto out;
		}
		if (step != NULL)
			step[i] = x;
		rc = sm_stream_add(&st, x);
		if (rc != 0)
			goto out;
		if (i < wp->warmup)
			warm += x;
		else
			rest += x;
	}
	if (res != NULL) {
		memset(res, 0, sizeof(*res));
		rc = sm_stream_stats(&st, &res->step);
		if (rc != 0)
			goto out;
		res->warm_mean = wp->warmup > 0 ? warm / wp->warmup : NAN;
		res->rest_mean = wp->n_syncs > wp->warmup ? rest / (wp->n_syncs - wp->warmup) : NAN;
		res->closed = s.total;
		res->wan_bytes = 0;
		for (i = 0; i < plan.n; i++)
			if (plan.ph[i].hop == SM_HOP_WAN)
				res->wan_bytes += plan.ph[i].rounds * plan.ph[i].flows *
						  plan.ph[i].bytes;
		res->min_step = sm_capacity_min_step(res->wan_bytes, wp->load, p->wan.bw);
		res->links = w.links;
		res->loaded = w.loaded;
		res->horizon = w.t;
		rc = summarise_links(&w, res);
	}
out:
	for (i = 0; w.link != NULL && i < w.loaded; i++)
		link_free(&w.link[i]);
	free(w.link);
	sm_stream_free(&st);
	return rc;
}

int
sm_sharedwan_bg_only(enum sm_wan_discipline disc, double load, double bw,
		     const struct sm_size_dist *sizes, uint64_t seed, uint64_t jobs,
		     struct sm_bg_only *out)
{
	struct wlink l;
	int rc;

	if (out == NULL || sizes == NULL || !(sizes->mean > 0) || !(load > 0 && load < 1) ||
	    !(bw > 0) || !isfinite(bw) || jobs == 0 || (disc != SM_WAN_PS && disc != SM_WAN_FIFO))
		return -EINVAL;
	link_init(&l, disc, bw, load, sizes, sm_rng_stream_seed(seed, 0), UINT64_MAX);
	l.stop = jobs;
	rc = link_advance(&l, INFINITY);
	if (rc == 0) {
		out->jobs = l.done;
		out->wait = l.wait_sum / (double)l.done;
		out->sojourn = l.sojourn_sum / (double)l.done;
		out->util = l.busy / l.t;
	}
	link_free(&l);
	return rc;
}

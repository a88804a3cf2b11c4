/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Running a variant on the data plane: build the graph, run the calendar, read the record.
 *
 * The share each resource held in a step follows the model's rule (a round is charged to the
 * resource its fluid term is charged to; the module to its busiest stage), applied to the
 * emulated times: the compute span, then each round's span between the last worker's end of the
 * previous round and the last worker's end of this one.  With phase sync these spans add up to
 * the step exactly.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ring.h>

#include "bulk.h"
#include "../models/variant.h"
#include "clock.h"
#include "ffwd.h"
#include "fpool.h"
#include "rt.h"
#include "run.h"
#include "spans.h"
#include "topology.h"
#include "usdt.h"

/* Runtime control of a run: requests from the control plane, applied between two events. */
struct runctl {
	const struct dp_run_params *p;
	struct dp_topo *t;
	struct sm_params model;		/* the run's working copy */
	double bg_load;
	struct dp_change *ch;
	uint32_t n, cap;
	uint32_t drop_scan;		/* polls until the next sum of drops */
	uint32_t st_done;		/* steps done, and the last one's end, at the poll before */
	dp_time_t st_end;
};

/* Turning a finished step of the record into its result (the record's retire hook). */
struct retirer {
	const struct dp_run_params *p;
	const struct sm_program *prog;
	struct dp_run_result *res;
	struct runctl *ctl;
	uint32_t ch_next;		/* the first change not yet placed in a step */
	struct dp_ffwd *ff;		/* NULL: no fast-forward */
};

/* The WAN queues' limit in force (0: no WAN). */
static double
wan_queue(const struct dp_topo *t)
{
	return t->wan != NULL && t->n_wan > 0 ? (double)t->wan[0].cap_bytes : 0;
}

static void
publish_all(struct runctl *rc)
{
	int i;

	for (i = 0; i < DP_P_COUNT; i++)
		dp_status_publish(rc->p->status, i, i == DP_P_BG_LOAD ? rc->t->bg_load :
				  i == DP_P_WAN_QUEUE ? wan_queue(rc->t) :
				  i == DP_P_IMP_LOSS ? rc->t->imp_loss :
				  i == DP_P_IMP_JITTER ? rc->t->imp_jitter : dp_param_get(&rc->model, i));
}

/* A run's WAN links into the status, counters at 0 (the first DP_STATUS_LINKS of them). */
static void
publish_links(struct dp_status *st, const struct dp_topo *t)
{
	uint32_t i, n = t->n_wan < DP_STATUS_LINKS ? t->n_wan : DP_STATUS_LINKS;

	atomic_store(&st->n_link, 0);
	for (i = 0; i < n; i++) {
		struct dp_status_link *sl = &st->link[i];

		memset(sl, 0, sizeof(*sl));
		snprintf(sl->name, sizeof(sl->name), "%s", t->wan[i].e.name);
	}
	atomic_store(&st->bg_started, 0);
	atomic_store(&st->bg_done, 0);
	atomic_store(&st->bg_incomplete, 0);
	atomic_store_explicit(&st->n_link, n, memory_order_release);
}

static int
run_tune(void *arg, enum dp_param p, double v, dp_time_t now, double *old, struct dp_tune_why *why)
{
	struct runctl *rc = arg;

	return dp_topo_tune(rc->t, &rc->model, rc->p->budget_kind, p, v, now, old, why);
}

/* A change applied, for the report and the steps it falls in. */
static bool
run_keep(void *arg, enum dp_param p, double old, double v, dp_time_t now)
{
	struct runctl *rc = arg;

	return dp_change_add(&rc->ch, &rc->n, &rc->cap,
			     &(struct dp_change){ now, p, old, v, UINT32_MAX });
}

static void
apply(struct runctl *rc, struct dp_tune_req *req, dp_time_t now)
{
	char where[24];
	const struct dp_tune_target tg = {
		.tune = run_tune, .keep = run_keep, .arg = rc, .eng = &rc->t->eng,
		.status = rc->p->status, .resp = rc->p->ctl_resp, .run_id = rc->p->run_id,
		.where = where,
	};

	snprintf(where, sizeof(where), "run %u", rc->p->run_id);
	dp_tune_serve(&tg, req, now);
}

static bool
run_wants(void *arg)
{
	const struct runctl *rc = arg;

	return rc->p->ctl_req != NULL && rte_ring_count(rc->p->ctl_req) > 0;
}

static void
run_poll(void *arg, dp_time_t now)
{
	struct runctl *rc = arg;
	struct dp_status *st = rc->p->status;
	void *obj;

	/* (real time in partitions: a change waits for the lcores to pause, run_wants()) */
	if (rc->p->ctl_req != NULL && !(rc->t->par != NULL && dp_par_rt_running(rc->t->par)) &&
	    rte_ring_dequeue(rc->p->ctl_req, &obj) == 0)
		apply(rc, obj, now);
	if (st != NULL) {
		const struct dp_record *rec = &rc->t->rec;

		if (rc->drop_scan-- == 0) {	/* every 64th poll: a walk over the elements */
			uint64_t drops = 0;
			uint32_t i, n = atomic_load(&st->n_link);

			for (i = 0; i < rc->t->n_all; i++)
				drops += rc->t->all[i]->c.drop;
			atomic_store(&st->drops, drops);
			/* (in partitions a WAN link may be another engine's: its counters read as
			 * they are, as the drops above) */
			for (i = 0; i < n; i++)
				dp_status_link_update(&st->link[i], &rc->t->wan[i], now);
			atomic_store(&st->bg_started, rc->t->bgstats.started);
			atomic_store(&st->bg_done, rc->t->bgstats.done);
			atomic_store(&st->bg_incomplete, rc->t->bgstats.incomplete);
			rc->drop_scan = 63;
		}
		if (rec->steps_done > rc->st_done && rec->last_end > rc->st_end) {
			atomic_store(&st->step_ps, (rec->last_end - rc->st_end) /
						   (rec->steps_done - rc->st_done));
			rc->st_done = rec->steps_done;
			rc->st_end = rec->last_end;
		}
		atomic_store(&st->steps_done, rec->steps_done);
		atomic_store(&st->frames, rec->frames_done);
		atomic_store(&st->events, rc->t->eng.events);
		atomic_store(&st->now_ps, now);
		atomic_store(&st->binding, rec->binding);
		atomic_store(&st->budget_flops, (uint64_t)(rec->budget + 0.5));
	}
}

/*
 * Step @s is done by every worker: its time, frames and shares (the module rounds' apart: the
 * stage they are charged to is the run's busiest, known at its end), and the changes that landed
 * during it; into the result's step[] or to the sink.
 */
static void
retire(void *arg, const struct dp_record *rec, uint32_t s, dp_time_t prev)
{
	struct retirer *rt = arg;
	const struct dp_run_sink *sink = rt->p->sink;
	struct runctl *ctl = rt->ctl;
	struct dp_step_result sr;
	dp_time_t span[SM_RES_COUNT], mod;
	uint32_t k = dp_record_slot(rec, s);
	double total;
	int r;

	dp_ffwd_retired(rt->ff, rec, s, prev);
	memset(&sr, 0, sizeof(sr));
	sr.end = rec->step_end[k];
	sr.time = sr.end - prev;
	sr.frames = rec->frames[k];
	dp_step_spans_apart(rec, rt->prog, s, prev, span, &mod);	/* as the step_end probe */
	total = (double)mod;
	for (r = 0; r < SM_RES_COUNT; r++)
		total += (double)span[r];
	for (r = 0; r < SM_RES_COUNT; r++)
		sr.share[r] = total > 0 ? (double)span[r] / total : 0;
	sr.module_share = total > 0 ? (double)mod / total : 0;
	/* the changes applied at or after the previous step's end and before this one's */
	sr.changes_before = rt->ch_next;
	while (rt->ch_next < ctl->n && ctl->ch[rt->ch_next].at < sr.end) {
		ctl->ch[rt->ch_next++].step = s;
		sr.changed = true;
	}
	rt->res->frames += sr.frames;
	if (rt->res->step != NULL)
		rt->res->step[s] = sr;
	if (sink != NULL && sink->step != NULL)
		sink->step(sink->arg, s, &sr, ctl->ch, ctl->n);
}

/* Move the background's records and the queue samples into the result. */
static int
take_background(struct dp_topo *t, struct dp_run_result *res)
{
	uint32_t i;

	for (i = 0; t->par != NULL && i < t->par->n; i++) {
		const struct dp_bgstats *b = &t->par->p[i].bg;	/* transfers merged already */

		t->bgstats.started += b->started;
		t->bgstats.unsent += b->unsent;
		t->bgstats.incomplete += b->incomplete;
		t->bgstats.frames += b->frames;
		t->bgstats.bytes += b->bytes;
	}
	res->bg = t->bgstats;
	memset(&t->bgstats, 0, sizeof(t->bgstats));
	if (t->par != NULL && t->par->q_links > 0) {
		res->q_links = t->par->q_links;
		for (i = 0; i < t->par->q_links; i++)
			snprintf(res->q_names[i], sizeof(res->q_names[i]), "%s",
				 t->par->q_names[i]);
		if (t->par->on_sample != NULL) {
			res->q_n = t->par->q_merged;
			return 0;
		}
		return dp_par_samples(t->par, &res->q_n, &res->q_t, &res->q_bytes);
	}
	if (t->probe == NULL)
		return 0;
	res->q_links = t->probe->nlinks;
	for (i = 0; i < t->probe->nlinks; i++)
		snprintf(res->q_names[i], sizeof(res->q_names[i]), "%s", t->probe->names[i]);
	res->q_n = t->probe->n;
	res->q_t = t->probe->t;
	res->q_bytes = t->probe->bytes;
	t->probe->t = NULL;
	t->probe->bytes = NULL;
	return 0;
}

static int
summarise(const struct dp_topo *t, struct dp_run_result *res)
{
	dp_time_t dur = res->t_end > res->t_start ? res->t_end - res->t_start : 1;
	uint32_t i;

	res->elems = calloc(t->n_all, sizeof(*res->elems));
	if (res->elems == NULL)
		return -ENOMEM;
	for (i = 0; t->tcp != NULL && i < t->w_count; i++)
		dp_tcp_stats_add(&t->tcp[i], &res->tcp);
	if (t->tcp != NULL && res->rt.merged)
		dp_rt_tcp_add(&res->rt, &res->tcp);	/* the other side's workers' too */
	for (i = 0; t->bulk != NULL && i < t->d; i++)
		dp_tcp_stats_add(&t->bulk[i].tcp, &res->bulk);
	for (i = 0; i < t->n_all; i++) {
		const struct dp_elem *e = t->all[i];
		struct dp_elem_summary *es = &res->elems[res->n_elems];

		if (e->ops == &dp_barrier_ops)
			continue;	/* no frames: not a part of the network */
		res->n_elems++;
		snprintf(es->name, sizeof(es->name), "%s", e->name);
		es->kind = e->ops->kind;
		es->rx = e->c.rx;
		es->tx = e->c.tx;
		es->drop = e->c.drop;
		res->drops += e->c.drop;
		if (e->ops == &dp_link_ops) {
			const struct dp_link *l = (const struct dp_link *)e;

			es->max_qbytes = l->max_qbytes;
			es->util = (double)l->busy_ps / (double)dur;
			es->fg_over = l->fg_over;
			es->bg_drop = l->bg_drop;
			es->impaired = l->imp != NULL;
			es->lost = l->lost;
			es->reordered = l->reordered;
			es->corrupted = l->corrupted;
			es->duplicated = l->duplicated;
			es->marked = l->marked;
			es->aqm_drop = l->aqm_drop;
			es->has_wait = l->wait != NULL;
			if (es->has_wait)
				dp_link_wait_summary(l, es->wait);
		}
	}
	return 0;
}

/* A real-time run failed: what its ports did, after the message. */
static void
ports_say(const struct dp_rt *rt, char *err, size_t errlen)
{
	size_t n = strlen(err);
	bool first = true;
	uint32_t d;

	for (d = 0; d < DP_RT_PORT_MAX && n + 1 < errlen; d++) {
		const struct dp_port *pt = &rt->port[d];
		uint64_t rx_dropped, tx_errors;
		int k;

		if (!rt->opened[d])
			continue;
		dp_port_dev_drops(pt, &rx_dropped, &tx_errors);
		k = snprintf(err + n, errlen - n, "%s %s sent %" PRIu64 ", received %" PRIu64
			     ", %u waiting to be sent, %" PRIu64 " deferred, the device lost %" PRIu64
			     " received and %" PRIu64 " sent%s", first ? " (ports:" : ";", pt->name, pt->tx,
			     pt->rx, dp_port_backlog(pt), pt->tx_deferred, rx_dropped, tx_errors,
			     dp_port_up(pt) ? "" : ", its link is down");
		if (k < 0 || (size_t)k >= errlen - n)
			return;
		n += (size_t)k;
		first = false;
	}
	if (!first && n + 2 < errlen)
		snprintf(err + n, errlen - n, ")");
}

/* The run's hooks: the sink's samples and transfers, the control plane's poll and status. */
static void
run_hooks(const struct dp_run_params *p, struct dp_topo *t, struct runctl *ctl)
{
	if (p->sink != NULL && t->probe != NULL && p->sink->sample != NULL) {
		t->probe->on_sample = p->sink->sample;
		t->probe->arg = p->sink->arg;
	}
	if (p->sink != NULL && t->par != NULL && p->sink->sample != NULL) {
		/* each partition's samples, merged in order, go to the sink */
		t->par->on_sample = p->sink->sample;
		t->par->sample_arg = p->sink->arg;
		for (uint32_t i = 0; i < t->par->n; i++)
			if (t->par->p[i].probe != NULL) {
				t->par->p[i].probe->on_sample = dp_par_sample;
				t->par->p[i].probe->arg = &t->par->p[i];
			}
	}
	if (p->sink != NULL && p->sink->transfer != NULL) {
		t->bgstats.on_done = p->sink->transfer;
		t->bgstats.arg = p->sink->arg;
	}
	if (p->ctl_req != NULL || p->status != NULL) {
		t->eng.poll = run_poll;
		t->eng.poll_wants = run_wants;
		t->eng.poll_arg = ctl;
		t->eng.poll_mask = 1023;
	}
	if (p->status != NULL) {
		atomic_store(&p->status->run_id, p->run_id);
		atomic_store(&p->status->var, p->var);
		atomic_store(&p->status->budget, (uint32_t)p->budget_kind);
		atomic_store(&p->status->steps, p->steps);
		atomic_store(&p->status->steps_done, 0);
		atomic_store(&p->status->changes, 0);
		atomic_store(&p->status->frames, 0);
		atomic_store(&p->status->drops, 0);
		atomic_store(&p->status->binding, -1);
		atomic_store(&p->status->budget_flops, (uint64_t)(p->budget + 0.5));
		publish_all(ctl);
		publish_links(p->status, t);
		atomic_store(&p->status->running, 1);
	}
}

/*
 * The steps, until the last is done (then the run's end), a stall, a failure, a stop or the end
 * of a sample: 0 or the error; *@p seen the steps done, *@p stalled if it stalled.
 */
/* The last step's end from the run's start (0: none yet), and how late the engine runs. */
static dp_time_t
progress_end(const struct dp_run_params *p, const struct dp_topo *t)
{
	return t->rec.steps_done > 0 && t->rec.last_end > p->t0 ? t->rec.last_end - p->t0 : 0;
}

static dp_time_t
progress_lag(const struct dp_topo *t)
{
	return t->eng.rt != NULL && t->eng.rt_horizon > t->eng.now ?
	       t->eng.rt_horizon - t->eng.now : 0;
}

static int
run_steps(const struct dp_run_params *p, struct dp_topo *t, struct dp_run_result *res,
	  struct dp_ffwd *ff, dp_time_t watchdog, uint32_t *seen, bool *stalled, char *err,
	  size_t errlen)
{
	int rc;

	for (;;) {
		/* virtual time: until a step is done or nothing of the sync is left in progress
		 * (however long a step takes); real time: [ports] wait without a step */
		rc = dp_topo_advance(t, watchdog);
		if (rc == 2 && t->ev_stop != 0 && t->eng.events >= t->ev_stop) {
			rc = 0;
			res->sampled = true;	/* a sample: it ends here, in its step */
			break;
		}
		if (rc == 2) {		/* a long step goes on */
			rc = 0;
			if (p->progress != NULL)
				p->progress(p->progress_arg, *seen, p->steps,
					    dp_topo_frames_made(t), progress_end(p, t),
					    progress_lag(t));
			if (p->stop != NULL && *p->stop) {
				res->interrupted = true;	/* the step in progress left out */
				break;
			}
			continue;
		}
		if (rc <= 0) {
			*stalled = rc == 0;
			break;
		}
		rc = 0;
		do {	/* the steps that repeat this one, replayed a chunk at a time */
			if (t->rec.steps_done < p->steps && !(p->stop != NULL && *p->stop))
				dp_ffwd_boundary(ff, p->stop);
			*seen = t->rec.steps_done;
			if (p->progress != NULL)
				p->progress(p->progress_arg, *seen, p->steps,
					    dp_topo_frames_made(t), progress_end(p, t),
					    progress_lag(t));
		} while (dp_ffwd_replaying(ff) && !(p->stop != NULL && *p->stop) &&
			 t->eng.error == 0);
		if (t->eng.error != 0) {
			rc = t->eng.error;
			break;
		}
		if (*seen < p->steps && p->stop != NULL && *p->stop) {
			res->interrupted = true;	/* the steps done stand */
			break;
		}
		if (*seen == p->steps) {
			/* the sync is done: the barrier's event has stopped the background (or
			 * will, at the end of the picosecond), what is in flight drains (in real
			 * time also what the ports still bring, and the peer's record) */
			if (p->rt != NULL)
				rc = dp_rt_end(p->rt, t, &res->rt, err, errlen);
			else
				rc = dp_topo_drain(t);
			break;
		}
	}
	return rc;
}

/* The resource the module is charged to: its busiest stage if it has one, else the program's. */
static enum sm_resource
run_binding(const struct dp_topo *t, const struct sm_program *prog, struct dp_run_result *res)
{
	enum sm_resource module_res = prog->module_res;

	if (t->mod != NULL) {
		dp_time_t busy[SM_STAGE_COUNT] = { 0 };
		uint32_t w;
		int s;

		for (w = 0; w < t->w_count; w++)
			for (s = 0; s < SM_STAGE_COUNT; s++)
				busy[s] += t->mod[w].stage_busy[s];
		res->has_module = true;
		res->binding = SM_STAGE_OPTICS;
		for (s = 1; s < SM_STAGE_COUNT; s++)
			if (busy[s] > busy[res->binding])
				res->binding = (enum sm_stage)s;
		module_res = dp_stage_res(res->binding);
	}
	return module_res;
}

/* The partitions' figures; their lcores stop (their counts are final). */
static void
run_partitions(struct dp_topo *t, struct dp_run_result *res)
{
	res->partitions = t->par != NULL ? t->par->n : 1;
	res->lcores = t->par != NULL ? t->par->nl : 1;
	if (t->par != NULL)
		dp_par_stop(t->par);	/* the lcores' counts are final */
	res->ranks = t->par != NULL ? (uint32_t)t->par->nranks : 1;
	res->windows = t->par != NULL ? t->par->windows : 0;
	res->lookahead = t->par != NULL ? t->par->lookahead : 0;
	res->lcore_sleeps = t->par != NULL ? t->par->sleeps : 0;
	res->steals = t->par != NULL ? t->par->steals : 0;
	for (uint32_t i = 0; t->par != NULL && i < t->par->n; i++) {
		const struct dp_part *pt = &t->par->p[i];
		double b = (double)(pt->here ? pt->busy_ns : pt->m_busy_ns) / 1e9;

		res->busy_s += b;
		if (b > res->busy_max_s)
			res->busy_max_s = b;
	}
}

/*
 * run.fast_forward = steady: the window (DP_WINDOW_AUTO: the least latency of a link, at least
 * 1 ns), and the links whose latency is below it (they queue frames as they come).
 */
static void
window_set(struct dp_topo *t, dp_time_t w, struct dp_run_result *res)
{
	dp_time_t least = DP_NEVER;
	uint32_t i;

	for (i = 0; i < t->eng.n; i++)
		if (t->eng.elems[i]->ops == &dp_link_ops) {
			const struct dp_link *l = (const struct dp_link *)t->eng.elems[i];

			if (l->delay > 0 && l->delay < least)
				least = l->delay;
		}
	if (w == DP_WINDOW_AUTO)
		w = least != DP_NEVER ? least : 1000;
	for (i = 0; i < t->eng.n; i++)
		if (t->eng.elems[i]->ops == &dp_link_ops) {
			const struct dp_link *l = (const struct dp_link *)t->eng.elems[i];

			res->window_links++;
			res->window_unordered += !dp_link_in_order(l, w);
		}
	t->eng.window = w;
	res->window = w;
}

/* What keeps the exact fast-forward off, known before the run (NULL: nothing; ffwd.h). */
static const char *
ffwd_off(const struct dp_run_params *p, const struct dp_topo *t)
{
	uint32_t i;

	if (!p->fast_forward)
		return "run.fast_forward = off";
	if (p->rt != NULL)
		return "real time";
	if (p->max_events > 0 || p->bg_only > 0)
		return "not a run of steps";
	if (t->par != NULL)
		return "partitions (run.partitions)";
	if (p->ctl_req != NULL)
		return "live control (--ctl)";
	if (t->bg != NULL || t->bulk != NULL || t->bg_load > 0)
		return "background load";
	if (t->tcp != NULL)
		return "TCP (job.transport = tcp)";
	if (t->eng.cap_ctx != NULL && (t->eng.cap_ctx->hold || t->eng.cap_ctx->elsewhere))
		return "a trace merged from elsewhere";
	if (p->bytes)
		return "frames with bytes";
	if (p->kernel != NULL)
		return "a link-kernel program (module.kernel)";
	if (dp_usdt_attached())
		return "a tracer on syncemu's USDT probes";
	for (i = 0; i < t->eng.n; i++) {
		const struct dp_elem *e = t->eng.elems[i];

		if (e->ops == &dp_link_ops && ((const struct dp_link *)e)->imp != NULL)
			return "impairments";
	}
	return NULL;
}

/* The fast-forward's figures; 0, or -EPROTO if a step after the replay differed. */
static int
ffwd_end(struct dp_ffwd *ff, const struct dp_run_params *p, struct dp_run_result *res,
	 char *err, size_t errlen)
{
	struct dp_ffwd_stats st;

	if (ff == NULL)
		return 0;
	dp_ffwd_stats(ff, &st);
	res->ff_on = true;
	res->ff_replayed = st.replayed;
	res->ff_events = st.events;
	res->ff_frames = st.frames;
	if (st.replayed == 0)
		snprintf(res->ff_why, sizeof(res->ff_why), "%s", st.traced ?
			 "a tracer on syncemu's USDT probes" : st.tape_over ?
			 "a step's trace records are more than 256 MB" : p->steps < 5 ?
			 "fewer than 5 steps (three to find a repeat, the last emulated)" :
			 "no two steps in a row ended in the same state");
	if (st.differed) {
		snprintf(err, errlen, "invariant: step %u, emulated after %u steps replayed, differs "
			 "from the step they repeat (run.fast_forward = off emulates every step)",
			 st.differed_step, st.replayed);
		return -EPROTO;
	}
	return 0;
}

int
dp_run(const struct dp_run_params *p, struct dp_run_result *res, char *err, size_t errlen)
{
	struct sm_program *prog;
	struct dp_topo *t;
	struct runctl ctl;
	struct retirer rtr;
	struct dp_ffwd *ff = NULL;
	enum sm_resource module_res;
	dp_time_t watchdog = 0;		/* virtual time: stalls are found exactly */
	uint64_t run_t0;
	uint32_t seen = 0;
	bool stalled = false, fpool = p->pool != NULL && dp_fpool_of(p->pool) != NULL;
	uint64_t in_use0 = fpool ? dp_fpool_in_use(p->pool) : 0;
	int rc;

	memset(res, 0, sizeof(*res));
	prog = calloc(1, sizeof(*prog));
	t = malloc(sizeof(*t));
	res->step = p->sink == NULL ? calloc(p->steps ? p->steps : 1, sizeof(*res->step)) : NULL;
	if (prog == NULL || t == NULL || (p->sink == NULL && res->step == NULL)) {
		sm_program_free(prog);
		free(prog);
		free(t);
		dp_run_result_free(res);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rc = sm_program_build(p->model, p->var, p->budget, prog);
	if (rc != 0) {
		snprintf(err, errlen, "the model cannot build the program of %s: %s",
			 sm_variant_name(p->var), strerror(-rc));
		goto out;
	}
	if (p->cap != NULL)	/* trace.until: from this run's start */
		p->cap->until = p->trace_until > 0 ? p->t0 + p->trace_until : 0;
	{
		struct dp_topo_link_port lp[DP_RT_LINK_MAX];
		uint32_t i, n_lp = p->rt != NULL ? p->rt->n_links : 0;
		struct dp_topo_params tp = {
			.model = p->model, .pk = p->pk, .prog = prog, .run_id = p->run_id,
			.steps = p->steps, .q_nic = p->q_nic, .q_port = p->q_port,
			.q_sw = p->q_sw, .q_wan = p->q_wan, .cap = p->cap, .pool = p->pool,
			.t0 = p->t0, .bg = p->bg, .kernel = p->kernel,
			.hold_record = p->hold_record, .bytes = p->bytes,
			.local = p->rt != NULL ? p->rt->local : 0,
			.dc_port = p->rt != NULL ? p->rt->dc_port : NULL,
			.link_port = lp, .n_link_ports = n_lp,
			/* in virtual time; the background alone runs in one */
			.partitions = p->bg_only > 0 ? 1 : p->partitions, .lcores = p->lcores,
			.realtime = p->rt != NULL,
			.impair = &p->impair,
		};

		for (i = 0; i < n_lp; i++)
			lp[i] = (struct dp_topo_link_port){ p->rt->link_name[i], p->rt->link_tx[i],
							    p->rt->link_rx[i] };

		rc = dp_topo_build(t, &tp, err, errlen);
		if (rc != 0)
			goto out;
		t->ev_stop = p->rt == NULL ? p->max_events : 0;
		if (p->rt == NULL && t->par == NULL && p->window > 0)
			window_set(t, p->window, res);
		rc = dp_ffwd_init(&ff, &t->eng, t->eng.elems, t->eng.n, &t->rec, ffwd_off(p, t),
				  res->ff_why, sizeof(res->ff_why));
		if (rc != 0) {
			snprintf(err, errlen, "the fast-forward cannot watch the run: %s",
				 strerror(-rc));
			dp_topo_free(t);
			goto out;
		}
	}
	if (p->rt != NULL) {
		rc = dp_rt_begin(p->rt, t, p->run_id, err, errlen);
		if (rc != 0) {
			dp_topo_free(t);
			goto out;
		}
		watchdog = (dp_time_t)((double)p->rt->wait_ms * 1e9 / p->rt->dilation);
	}
	res->t_start = p->t0;
	ctl.p = p;
	ctl.t = t;
	ctl.model = *p->model;
	ctl.ch = NULL;
	ctl.n = ctl.cap = 0;
	ctl.drop_scan = 0;
	ctl.st_done = 0;
	ctl.st_end = t->rec.last_end;
	if (p->status != NULL)
		atomic_store(&p->status->step_ps, 0);
	rtr = (struct retirer){ .p = p, .prog = prog, .res = res, .ctl = &ctl, .ff = ff };
	t->rec.retire = retire;
	t->rec.retire_arg = &rtr;
	run_hooks(p, t, &ctl);

	if (p->max_events == 0)	/* (a sample is no run of the probes') */
		DP_USDT_RUN_START(p->run_id, p->var, dp_usdt_mflops(p->budget), p->steps,
				  t->w_count);
	run_t0 = dp_clock_raw_ns();
	dp_topo_start(t, p->bg_only > 0);
	if (p->bg_only > 0) {
		/* background alone for a while, then it stops and drains */
		rc = dp_engine_run(&t->eng, p->t0 + p->bg_only, NULL, NULL);
		dp_topo_stop(t);
		if (rc == 0)
			rc = dp_engine_run(&t->eng, DP_NEVER, NULL, NULL);
	}
	if (p->bg_only == 0)
		rc = run_steps(p, t, res, ff, watchdog, &seen, &stalled, err, errlen);
	if (p->bg_only == 0 && seen != p->steps)
		dp_topo_stop(t);	/* stalled or failed: the background stops too */
	if (rc == 0)
		rc = ffwd_end(ff, p, res, err, errlen);
	res->run_s = (double)(dp_clock_raw_ns() - run_t0) / 1e9;
	{
		/* ranks: every element's counters where the checks and the summary read them */
		int rc2 = dp_topo_gather_end(t);

		if (rc2 != 0 && rc == 0) {
			snprintf(err, errlen, "the ranks' counters at the end: %s", strerror(-rc2));
			rc = rc2;
		}
	}
	if (p->status != NULL) {
		run_poll(&ctl, t->eng.now);
		atomic_store(&p->status->running, 0);
	}
	if (t->rec.hold)
		dp_record_retire_all(&t->rec);	/* the merged record of a split run */
	res->t_end = RTE_MAX(t->eng.now, t->eng.reach);
	res->events = t->eng.events;
	if (rc != 0 && t->eng.error != 0) {
		snprintf(err, errlen, "%s", t->eng.errmsg);
	} else if (stalled && p->rt == NULL && t->eng.sync_wip == 0) {
		char where[240];

		dp_topo_waiting(t, where, sizeof(where));
		snprintf(err, errlen, "the run stalled: %s; nothing of the sync is queued, in flight or "
			 "pending at %.12g s of virtual time, so no step can finish", where,
			 (double)(t->eng.now - p->t0) / 1e12);
		rc = -EPROTO;
	} else if (rc == 0 && !res->interrupted && !res->sampled) {
		/* (frames are in flight when interrupted or sampled) */
		rc = dp_topo_check(t, err, errlen);
		/* the pools a frame pool grew, and its payload segments, too */
		if (rc == 0 && fpool && dp_fpool_in_use(p->pool) != in_use0) {
			snprintf(err, errlen, "invariant: the frame pool has %" PRIu64 " mbufs taken "
				 "at the end, %" PRIu64 " at the start", dp_fpool_in_use(p->pool),
				 in_use0);
			rc = -EPROTO;
		}
	}
	rc = dp_topo_agree(t, rc, err, errlen);	/* ranks: the first failure of any */
	if (rc != 0 && p->rt != NULL)
		ports_say(p->rt, err, errlen);
	module_res = run_binding(t, prog, res);
	res->steps = t->rec.steps_done;
	res->record_slots = t->rec.slots_max;
	res->changes = ctl.ch;
	res->nchanges = ctl.n;
	for (uint32_t s = 0; res->step != NULL && s < res->steps; s++)
		res->step[s].share[module_res] += res->step[s].module_share;
	run_partitions(t, res);
	if ((take_background(t, res) != 0 || summarise(t, res) != 0) && rc == 0) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
	}
	dp_topo_free(t);
	if (p->max_events == 0)
		DP_USDT_RUN_END(p->run_id, res->t_end);	/* after the links' last busy_end */
out:
	dp_ffwd_free(ff);
	sm_program_free(prog);
	free(prog);
	free(t);
	if (rc != 0)
		dp_run_result_free(res);
	return rc;
}

void
dp_run_result_free(struct dp_run_result *res)
{
	free(res->step);
	free(res->elems);
	free(res->q_t);
	free(res->q_bytes);
	free(res->changes);
	res->changes = NULL;
	res->nchanges = 0;
	dp_bgstats_free(&res->bg);
	res->step = NULL;
	res->elems = NULL;
	res->q_t = NULL;
	res->q_bytes = NULL;
}

uint32_t
dp_run_pool_need(const struct dp_run_params *p)
{
	uint64_t need = dp_run_pool_count(p);

	return need > UINT32_MAX ? UINT32_MAX : (uint32_t)need;
}

uint64_t
dp_run_pool_count(const struct dp_run_params *p)
{
	struct sm_program *prog = calloc(1, sizeof(*prog));
	uint64_t need = 0;

	if (prog != NULL && sm_program_build(p->model, p->var, p->budget, prog) == 0)
		need = sm_packet_pool_count(p->model, p->pk, prog, p->q_wan, p->bg.fg_lossless,
					    p->bg.load > 0);
	sm_program_free(prog);
	free(prog);
	return need;
}

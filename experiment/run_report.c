/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * syncemu run's report: every run's steps beside the packet-level closed form and the fluid
 * model, the summary and its status, the background and the WAN queues, the real-time ports;
 * built once as the run's results (experiment/results.h), which its writers print as text or JSON
 * and write as CSV (--tables).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "collective.h"
#include "library.h"
#include "results.h"
#include "run_report.h"
#include "table.h"
#include "tune_keys.h"
#include "units.h"
#include "variant.h"

static struct table *
steps_table(const struct outcome *r)
{
	static const struct tcol cols[] = {
		{ "step", "step", 0 }, { "emulated ms", "emulated_ms", 6 },
		{ "packet model ms", "packet_model_ms", 6 }, { "diff ns", "diff_ns", 3 },
		{ "fluid ms", "fluid_ms", 6 }, { "vs fluid %", "vs_fluid_pct", 4 },
		{ "frames", "frames", 0 }, { "compute %", "compute", 1 }, { "intra %", "intra", 1 },
		{ "WAN %", "wan", 1 }, { "port %", "module_port", 1 },
		{ "optics %", "module_optics", 1 }, { "mod compute %", "module_compute", 1 },
		{ "FPGA %", "module_fpga", 1 }, { "note", "note", -1 },
	};
	uint32_t ncols = sizeof(cols) / sizeof(cols[0]), i, n = outcome_kept(r);
	char title[128];
	struct table *t;
	int k;

	snprintf(title, sizeof(title), "Run %s: %s", r->c.label,
		 n < r->res.steps ? "its first and last steps" : "every step");
	/* the note column only where a live change landed */
	t = table_create("steps", title, cols, r->changed_steps ? ncols : ncols - 1);
	if (t == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		const struct kept_step *ks = outcome_kept_step(r, i);
		const struct dp_step_result *st = &ks->r;
		double pm = r->pm_rc == 0 ? ks->pm_ps : NAN;

		table_num(t, ks->s);
		table_num(t, st->time / 1e9);
		table_num(t, pm / 1e9);
		table_num(t, ((double)st->time - pm) / 1e3);
		table_num(t, ks->fluid * 1e3);
		table_num(t, 100.0 * (st->time / 1e12 - ks->fluid) / ks->fluid);
		table_num(t, (double)st->frames);
		for (k = 0; k < SM_RES_COUNT; k++)
			table_num(t, 100.0 * st->share[k]);
		if (r->changed_steps)
			table_str(t, st->changed ? "changed live: no model applies" : "");
	}
	if (n < r->res.steps)
		table_note(t, "steps %u to %u not shown: a run keeps its first and last %u steps "
			   "for the report (every step is in the statistics and compared with the "
			   "closed form as it ends)", r->nfirst, r->res.steps - r->nlast - 1, r->keep);
	return t;
}

static enum sm_resource
hot_spot(const struct outcome *r)
{
	enum sm_resource hot = SM_RES_COMPUTE;
	int k;

	for (k = 1; k < SM_RES_COUNT; k++)
		if (r->share[k] > r->share[hot])
			hot = (enum sm_resource)k;
	return hot;
}

/* The status column: "ok" only where every model column applies (outcome_flags()). */
static const char *
status(const struct outcome *r)
{
	static char buf[RUNNER_MAX][160];
	static unsigned int next;
	char *b = buf[next++ % RUNNER_MAX];

	return outcome_status(r, b, sizeof(buf[0]));
}

static uint64_t
bg_drops(const struct outcome *r)
{
	uint64_t d = 0;
	uint32_t i;

	for (i = 0; i < r->res.n_elems; i++)
		d += r->res.elems[i].bg_drop;
	return d;
}

/* Why the fluid bound does not hold, once per reason, naming the runs it holds for. */
static void
bound_notes(struct table *t, const struct outcome *runs, unsigned int n)
{
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		char names[256] = "";
		size_t used = 0;
		bool seen = false;

		if (runs[i].rc != 0 || runs[i].bound_holds)
			continue;
		for (j = 0; j < i && !seen; j++)
			seen = runs[j].rc == 0 && !runs[j].bound_holds &&
			       strcmp(runs[j].bound_why, runs[i].bound_why) == 0;
		if (seen)
			continue;
		for (j = i; j < n && used + 20 < sizeof(names); j++)
			if (runs[j].rc == 0 && !runs[j].bound_holds &&
			    strcmp(runs[j].bound_why, runs[i].bound_why) == 0)
				used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s",
							 used ? ", " : "", runs[j].c.label);
		table_note(t, "bound not valid (%s): %s; the packet step may be shorter than the "
			   "fluid one (README, \"Exact against the model\")", names, runs[i].bound_why);
	}
}

/* What a run with live changes was compared with. */
static void
change_notes(struct table *t, const struct outcome *runs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		const struct outcome *r = &runs[i];

		if (r->rc != 0 || !(outcome_flags(r) & (1u << OF_CHANGED)))
			continue;
		table_note(t, "%s: changed live; %u step%s during which a change landed %s left out "
			   "of max |diff| (no model applies to them), the %u others each against the "
			   "model of the parameters in force during it; fluid and bound: those in "
			   "force during the last step", r->c.label, r->changed_steps,
			   r->changed_steps == 1 ? "" : "s", r->changed_steps == 1 ? "is" : "are",
			   r->pm_steps);
	}
}

/* The queue limits the run used, in MB. */
static void
queues_note(struct table *t, const struct sc_scenario *sc)
{
	table_note(t, "queues (frame bytes): WAN %.6g MB, NIC %.6g MB, switch %.6g MB, port %.6g "
		   "MB; the sync %s", sc->queues.wan / 1e6, sc->queues.nic / 1e6,
		   sc->queues.sw / 1e6, sc->queues.port / 1e6, sc->queues.sync_lossless ?
		   "lossless (queued above the limit)" : "drop-tail too");
}

/* job.transport = tcp: its settings, and what each run's TCP did. */
static void
tcp_notes(struct table *t, const struct outcome *runs, unsigned int n,
	  const struct sc_scenario *sc)
{
	const struct sm_tcp_conf *c = &sc->run.pk.tcp;
	unsigned int i;
	char rw[48], sb[48];

	if (c->rwnd < 0)
		snprintf(rw, sizeof(rw), "auto (up to %.6g MB of buffer)", c->rmem_max / 1e6);
	else
		snprintf(rw, sizeof(rw), "%.6g MB", c->rwnd / 1e6);
	if (c->sndbuf < 0)
		snprintf(sb, sizeof(sb), "auto (up to %.6g MB)", c->wmem_max / 1e6);
	else
		snprintf(sb, sizeof(sb), "%.6g MB", c->sndbuf / 1e6);
	table_note(t, "%s: %s, initial window %u, slow start after idle %s, delayed ACK %.6g ms, "
		   "RTO min %.6g ms, receive window %s, send buffer %s, MSS %u%s",
		   c->transport == SM_TRANSPORT_TCP ? "transport: tcp" : "the background's TCP",
		   sm_cc_name(c->cc), c->init_cwnd, c->ss_after_idle ? "on" : "off",
		   c->delack * 1e3, c->rto_min * 1e3, rw, sb,
		   c->mss ? c->mss : sc->run.pk.mtu - 52, c->transport == SM_TRANSPORT_TCP ?
		   "; no packet model (its closed form is the ideal collective's): the emulation "
		   "is the answer" : "");
	for (i = 0; i < n && (sc->background.bulk > 0 || sc->background.transport == SC_BG_TCP);
	     i++) {
		const struct dp_tcp_stats *s = &runs[i].res.bulk;
		double secs = (runs[i].res.t_end - runs[i].res.t_start) * 1e-12;
		unsigned int dirs = sc->background.directions == SC_DIRECTIONS_ONE ? 1 :
				    sc->model.topo.n_dc;
		char what[96];

		if (sc->background.bulk > 0)
			snprintf(what, sizeof(what), "%u TCP flow%s%s", sc->background.bulk,
				 sc->background.bulk == 1 ? "" : "s",
				 sc->background.transport == SC_BG_TCP ? " and the transfers" : "");
		else
			snprintf(what, sizeof(what), "the transfers over TCP");
		table_note(t, "background %s: %s on each of %u WAN direction%s, %.6g MB "
			   "delivered (%.6g Mbit/s a direction over the run's %.6g ms), %" PRIu64
			   " of %" PRIu64 " segments resent (%" PRIu64 " fast retransmits, %" PRIu64
			   " timeouts)", runs[i].c.label, what, dirs, dirs == 1 ? "" : "s",
			   s->bytes_in / 1e6, secs > 0 ? s->bytes_in * 8 / secs / 1e6 / dirs : 0,
			   secs * 1e3, s->retrans, s->segs, s->fast_rtx, s->rtos);
	}
	for (i = 0; i < n && sc->run.pk.tcp.transport == SM_TRANSPORT_TCP; i++) {
		const struct dp_tcp_stats *s = &runs[i].res.tcp;
		char ecn[96] = "";

		if (s->ecn)
			snprintf(ecn, sizeof(ecn), "; ECN: %" PRIu64 " segments came marked CE, "
				 "%" PRIu64 " window cuts on their echoes", s->ce_rx, s->ecn_cuts);

		table_note(t, "tcp %s: %" PRIu64 " data segments, %" PRIu64 " of them resent "
			   "(%" PRIu64 " fast retransmits, %" PRIu64 " timeouts), %" PRIu64
			   " pure ACKs, %" PRIu64 " segments out of order, %" PRIu64 " duplicates "
			   "received%s", runs[i].c.label, s->segs, s->retrans, s->fast_rtx, s->rtos,
			   s->acks, s->ooo_rx, s->dup_rx, ecn);
	}
}

/* run.fast_forward = steady: the window, and whether every queue took its frames in time order. */
static void
steady_note(struct table *t, const struct outcome *runs, unsigned int n)
{
	uint64_t ev;
	unsigned int i;

	for (i = 0; i < n && runs[i].res.window == 0; i++)
		;
	if (i == n)
		return;
	ev = runs[i].res.events - runs[i].res.ff_events;
	if (runs[i].res.window_unordered == 0)
		table_note(t, "steady: each link delivered in one event the frames due within %.3f "
			   "us of it, each at its own time, and every link queued what came in time "
			   "order (its latency is at least the window): %" PRIu64 " events run "
			   "(run.fast_forward = steady)%s", (double)runs[i].res.window / 1e6, ev,
			   n > 1 ? " (the first run's)" : "");
	else
		table_note(t, "steady: each link delivered in one event the frames due within %.3f "
			   "us of it, each at its own time: %" PRIu64 " events run "
			   "(run.fast_forward = steady); %u of %u links (latency below the window, or "
			   "jitter) queued what came as it came: a frame may have been queued behind frames "
			   "that came up to the window after it (off queues every frame in time "
			   "order)%s",
			   (double)runs[i].res.window / 1e6, ev, runs[i].res.window_unordered,
			   runs[i].res.window_links, n > 1 ? " (the first run's)" : "");
}

static struct table *
summary_zero(struct outcome *runs, unsigned int n, const struct sc_scenario *sc)
{
	static const struct tcol cols[] = {
		{ "run", "run", -1 }, { "steps", "steps", 0 },
		{ "emulated ms", "emulated_ms", 6 }, { "packet model ms", "packet_model_ms", 6 },
		{ "max |diff| rel", "max_rel_diff", 9 }, { "fluid ms", "fluid_ms", 6 },
		{ "vs fluid %", "vs_fluid_pct", 4 }, { "bound %", "fluid_bound_pct", 4 },
		{ "hot spot", "hot_spot", -1 }, { "frames", "frames", 0 }, { "drops", "drops", 0 },
		{ "M frames/s", "mframes_per_s", 2 }, { "status", "status", -1 },
	};
	struct table *t = table_create("summary", "Summary: mean emulated step against the models",
				       cols, sizeof(cols) / sizeof(cols[0]));
	unsigned int i;

	if (t == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		struct outcome *r = &runs[i];

		table_str(t, r->c.label);
		table_num(t, r->res.steps);
		table_num(t, outcome_mean(r) * 1e3);
		table_num(t, r->pm_rc == 0 ? r->pm_mean * 1e3 : NAN);
		table_num(t, r->max_rel);
		table_num(t, r->fluid * 1e3);
		table_num(t, 100.0 * (outcome_mean(r) - r->fluid) / r->fluid);
		table_num(t, r->bound_holds ? 100.0 * r->bound : NAN);
		table_str(t, r->res.steps ? sm_resource_name(hot_spot(r)) : "-");
		table_num(t, (double)r->res.frames);
		table_num(t, (double)r->res.drops);
		table_num(t, r->wall > 0 ? (r->res.frames - r->res.ff_frames) / r->wall / 1e6 : NAN);
		table_str(t, status(r));
	}
	for (i = 0; i < n; i++)
		if (runs[i].res.partitions > 1) {
			char on[64] = "";

			if (runs[i].res.ranks > 1)
				snprintf(on, sizeof(on), " in each of %u MPI ranks", runs[i].res.ranks);
			table_note(t, "engine: %u partitions on %u lcores%s, in %" PRIu64 " windows of "
				   "%.3f us (the shortest delay of a link cut); running events %.3f s "
				   "in all, the busiest partition %.3f s, of %.3f s (the first run's)",
				   runs[i].res.partitions, runs[i].res.lcores, on, runs[i].res.windows,
				   (double)runs[i].res.lookahead / 1e6, runs[i].res.busy_s,
				   runs[i].res.busy_max_s, runs[i].wall);
			break;
		}
	{
		uint64_t rep = 0, all = 0, ev = 0, ev_all = 0;

		for (i = 0; i < n; i++) {
			rep += runs[i].res.ff_replayed;
			all += runs[i].res.steps;
			ev += runs[i].res.events - runs[i].res.ff_events;
			ev_all += runs[i].res.events;
		}
		if (rep > 0)
			table_note(t, "fast-forward: %" PRIu64 " of %" PRIu64 " steps replayed from "
				   "the step before them, not emulated, %" PRIu64 " of %" PRIu64
				   " events run (run.fast_forward = exact: the results are every "
				   "step's; off emulates each)", rep, all, ev, ev_all);
		steady_note(t, runs, n);
	}
	for (i = 0; i < n; i++)
		if (runs[i].auto_on) {
			const struct dp_auto *a = &runs[i].autop;

			if (a->pairs > 0)
				table_note(t, "partitions = auto: %u (%s, over the run's first %" PRIu64
					   " events as one engine and in %u partitions on %u lcores; "
					   "the calibration took %.3f s)%s", a->partitions, a->why,
					   a->sample_events, a->tried, a->lcores, a->cost_s,
					   n > 1 ? " (the first run's; each run has its own)" : "");
			else
				table_note(t, "partitions = auto: %u (%s)%s", a->partitions, a->why,
					   n > 1 ? " (the first run's; each run has its own)" : "");
			break;
		}
	table_note(t, "packet model: the packet-level closed form (models/packet.c); fluid: the "
		   "deck's model; bound: how far the packet step may exceed the fluid one (payload "
		   "accounting, phase sync)");
	bound_notes(t, runs, n);
	change_notes(t, runs, n);
	table_note(t, "%s accounting, %s sync, MTU %u, %u-byte payloads, seed %" PRIu64,
		   sc->run.pk.account == SM_ACCOUNT_WIRE ? "wire" : "payload",
		   sc->run.pk.sync == SM_SYNC_PHASE ? "phase" : sc->run.pk.sync == SM_SYNC_STEP ?
		   "step" : "none", sc->run.pk.mtu, sc->run.pk.payload, sc->run.seed);
	if (sc->run.pk.tcp.transport == SM_TRANSPORT_TCP || sc->background.bulk > 0 ||
	    sc->background.transport == SC_BG_TCP)
		tcp_notes(t, runs, n, sc);
	return t;
}

static struct table *
summary_loaded(struct outcome *runs, unsigned int n, const struct sc_scenario *sc)
{
	static const struct tcol cols[] = {
		{ "run", "run", -1 }, { "steps", "steps", 0 }, { "mean ms", "mean_ms", 3 },
		{ "95% CI ms", "ci95_ms", 3 }, { "median ms", "median_ms", 3 },
		{ "p99 ms", "p99_ms", 3 }, { "warm-up ms", "warmup_mean_ms", 3 },
		{ "steady ms", "steady_mean_ms", 3 }, { "model PS ms", "model_ps_ms", 3 },
		{ "model FIFO ms", "model_fifo_ms", 3 }, { "zero load ms", "zero_load_ms", 3 },
		{ "capacity ms", "capacity_bound_ms", 3 }, { "hot spot", "hot_spot", -1 },
		{ "bg drops", "bg_drops", 0 }, { "status", "status", -1 },
	};
	struct table *t = table_create("summary", "Summary under load: emulated step against the "
				       "models", cols, sizeof(cols) / sizeof(cols[0]));
	unsigned int i;

	if (t == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		struct outcome *r = &runs[i];

		table_str(t, r->c.label);
		table_num(t, r->res.steps);
		table_num(t, outcome_mean(r) * 1e3);
		table_num(t, r->all.ci95 * 1e3);
		table_num(t, r->all.median * 1e3);
		table_num(t, r->all.p99 * 1e3);
		table_num(t, r->warm_mean * 1e3);
		table_num(t, r->steady.n ? r->steady.mean * 1e3 : NAN);
		table_num(t, r->model_rc == 0 ? r->ps.step.mean * 1e3 : NAN);
		table_num(t, r->model_rc == 0 ? r->fifo.step.mean * 1e3 : NAN);
		table_num(t, r->fluid * 1e3);
		table_num(t, r->model_rc == 0 ? r->ps.min_step * 1e3 : NAN);
		table_str(t, r->res.steps ? sm_resource_name(hot_spot(r)) : "-");
		table_num(t, (double)bg_drops(r));
		table_str(t, status(r));
	}
	table_note(t, "load %.3g of the WAN rate on %s, %s transfers of %.4g B (mean), seed %" PRIu64
		   "; the emulated WAN is one FIFO of frames; the models are fluid, over as many "
		   "syncs with the same seed: processor sharing (the sync as one flow) and FIFO of "
		   "whole transfers", sc->background.load,
		   sc->background.directions == SC_DIRECTIONS_ONE ? "DC 0 to 1" :
		   "every WAN direction", sc->background.sizes == SC_SIZES_FIXED ? "fixed" :
		   sc->background.sizes == SC_SIZES_EXP ? "exponential" : "empirical",
		   sc->background.size, sc->run.seed);
	table_note(t, "warm-up: the first %u steps (from an empty WAN queue); steady: the rest; "
		   "capacity: the shortest step at which the WAN keeps up (reference model 2.9)",
		   sc->run.warmup);
	steady_note(t, runs, n);
	queues_note(t, sc);
	for (i = 0; i < n; i++)
		if (runs[i].rc == 0 && runs[i].res.drops > 0) {
			table_note(t, "drops: frames dropped at a full queue (bg drops: the "
				   "background's, at the WAN); the fluid models have unlimited "
				   "buffers, so their columns do not apply to these runs: compare "
				   "with a queues.wan deep enough not to drop");
			break;
		}
	change_notes(t, runs, n);
	if (sc->run.pk.tcp.transport == SM_TRANSPORT_TCP || sc->background.bulk > 0 ||
	    sc->background.transport == SC_BG_TCP)
		tcp_notes(t, runs, n, sc);
	return t;
}

static struct table *
background_table(struct outcome *runs, unsigned int n, const struct sc_scenario *sc)
{
	static const struct tcol cols[] = {
		{ "run", "run", -1 }, { "transfers", "transfers", 0 },
		{ "incomplete", "incomplete", 0 }, { "unsent", "unsent", 0 },
		{ "mean wait us", "mean_wait_us", 2 }, { "95% CI us", "wait_ci95_us", 2 },
		{ "M/G/1 wait us", "mg1_wait_us", 2 }, { "mean FCT us", "mean_fct_us", 2 },
		{ "p99 FCT us", "p99_fct_us", 2 }, { "WAN queue", "queue", -1 },
		{ "mean MB", "queue_mean_mb", 3 }, { "p99 MB", "queue_p99_mb", 3 },
		{ "max MB", "queue_max_mb", 3 },
	};
	struct table *t = table_create("background", "Background transfers and the WAN queues",
				       cols, sizeof(cols) / sizeof(cols[0]));
	unsigned int i, q;

	if (t == NULL)
		return NULL;
	/* a row per run and WAN queue, the run's columns in each (text shows them once) */
	for (i = 0; i < 9; i++)
		table_col_format(t, i, 0, TCOL_GROUP);
	for (i = 0; i < n; i++) {
		struct outcome *r = &runs[i];

		for (q = 0; q < (r->nq ? r->nq : 1); q++) {
			table_str(t, r->c.label);
			table_num(t, (double)r->res.bg.done);
			table_num(t, (double)r->res.bg.incomplete);
			table_num(t, (double)r->res.bg.unsent);
			table_num(t, r->wait.n ? r->wait.mean * 1e6 : NAN);
			table_num(t, r->wait.n ? r->wait.ci95 * 1e6 : NAN);
			table_num(t, r->mg1_wait * 1e6);
			table_num(t, r->fct.n ? r->fct.mean * 1e6 : NAN);
			table_num(t, r->fct.n ? r->fct.p99 * 1e6 : NAN);
			table_str(t, r->nq ? r->q[q].name : "-");
			table_num(t, r->nq ? r->q[q].mean / 1e6 : NAN);
			table_num(t, r->nq ? r->q[q].p99 / 1e6 : NAN);
			table_num(t, r->nq ? r->q[q].max / 1e6 : NAN);
		}
	}
	if (sc->background.transport == SC_BG_TCP)
		table_note(t, "over TCP (background.transport = tcp, %u connections a host): wait: "
			   "a transfer's creation to its first byte at the far host (its turn on "
			   "its connection, the window and the path); FCT: creation to its last byte "
			   "there; unsent: not complete when the sync ended; M/G/1, like the summary's "
			   "fluid models, is the open-loop frames' reference (lambda E[S^2] / (2 (1 - "
			   "rho)), S = size / WAN rate), not a closed form of TCP transfers",
			   sc->background.connections);
	else
		table_note(t, "wait: a transfer's first frame from creation to the far end of the "
			   "WAN, less its own serialisation and delays (the queueing it met); M/G/1: "
			   "lambda E[S^2] / (2 (1 - rho)) with S = size / WAN rate (M/D/1 for fixed "
			   "sizes); FCT: creation to the last frame");
	return t;
}

/*
 * How long frames waited in each WAN queue before their turn on the wire, by class: the sync's
 * beside the background's (Job 2's question), a row per run, link and class.
 */
static struct table *
wait_table(const struct outcome *runs, unsigned int n)
{
	static const struct tcol cols[] = {
		{ "run", "run", -1 }, { "WAN link", "link", -1 }, { "class", "class", -1 },
		{ "frames", "frames", 0 }, { "mean us", "mean_us", 2 }, { "p50 us", "p50_us", 2 },
		{ "p99 us", "p99_us", 2 }, { "max us", "max_us", 2 },
	};
	static const char *const cls[DP_WAIT_CLASSES] = { "sync", "background" };
	struct table *t = table_create("queue_wait", "Queueing delay in the WAN queues, by class",
				       cols, sizeof(cols) / sizeof(cols[0]));
	unsigned int i, e;
	int c;

	if (t == NULL)
		return NULL;
	table_col_format(t, 0, 0, TCOL_GROUP);
	for (i = 0; i < n; i++) {
		const struct dp_run_result *res = &runs[i].res;

		for (e = 0; runs[i].rc == 0 && e < res->n_elems; e++) {
			const struct dp_elem_summary *es = &res->elems[e];

			for (c = 0; es->has_wait && c < DP_WAIT_CLASSES; c++) {
				table_str(t, runs[i].c.label);
				table_str(t, es->name);
				table_str(t, cls[c]);
				table_int(t, (int64_t)es->wait[c].n);
				table_num(t, es->wait[c].mean_ns / 1e3);
				table_num(t, es->wait[c].p50_ns / 1e3);
				table_num(t, es->wait[c].p99_ns / 1e3);
				table_num(t, es->wait[c].max_ns / 1e3);
			}
		}
	}
	table_note(t, "a frame's wait: from its arrival at the queue to the start of its "
		   "serialisation (percentiles within %.1f %%; the emulated steps, not those a "
		   "fast-forward replayed); JSON: each WAN element's \"queue_wait\"",
		   100 * dp_lateness_bucket_error());
	return t;
}

/* Real time: each port's traffic and how late its frames left; the clock and the split. */
static struct table *
realtime_table(const struct outcome *runs, unsigned int n)
{
	static const struct tcol cols[] = {
		{ "run", "run", -1 }, { "port", "port", -1 }, { "side", "side", -1 },
		{ "sent", "frames_sent", 0 }, { "received", "frames_received", 0 },
		{ "deferred", "deferred_sends", 0 }, { "not ours", "other_frames", 0 },
		{ "stale", "stale_frames", 0 }, { "dev lost", "device_lost", 0 },
		{ "late median us", "late_median_us", 3 },
		{ "p99 us", "late_p99_us", 3 }, { "p99.9 us", "late_p999_us", 3 },
		{ "max us", "late_max_us", 3 }, { "RX stamps", "rx_stamps", -1 },
	};
	struct table *t = table_create("real_time", "Real time: the ports, and how late frames "
				       "left against their emulated times (real us)", cols,
				       sizeof(cols) / sizeof(cols[0]));
	unsigned int i, k;

	if (t == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		const struct dp_rt_report *rt = &runs[i].res.rt;

		if (runs[i].rc != 0 || !rt->on)
			continue;
		for (k = 0; k < rt->n_ports + rt->n_peer_ports; k++) {
			bool peer = k >= rt->n_ports;
			const struct dp_rt_port_report *p = peer ? &rt->peer_port[k - rt->n_ports] :
							   &rt->port[k];

			table_str(t, k == 0 ? runs[i].c.label : "");
			table_str(t, p->name);
			table_str(t, peer ? "peer" : "here");
			table_num(t, (double)p->tx);
			table_num(t, (double)p->rx);
			table_num(t, (double)p->tx_deferred);
			table_num(t, (double)p->rx_other);
			table_num(t, (double)p->rx_stale);
			table_num(t, (double)(p->dev_rx_dropped + p->dev_tx_errors));
			table_num(t, p->late_n ? p->late_median_ns / 1e3 : NAN);
			table_num(t, p->late_n ? p->late_p99_ns / 1e3 : NAN);
			table_num(t, p->late_n ? p->late_p999_ns / 1e3 : NAN);
			table_num(t, p->late_n ? p->late_max_ns / 1e3 : NAN);
			table_str(t, p->hw_ts ? "NIC" : "TSC at poll");
		}
	}
	for (i = 0; i < n; i++) {
		const struct dp_rt_report *rt = &runs[i].res.rt;

		if (runs[i].rc != 0 || !rt->on)
			continue;
		table_note(t, "dilation %g: emulated time runs %g times slower than real time (every "
			   "rate on the wire divided by it, every delay multiplied); steps are in "
			   "emulated time", rt->dilation, rt->dilation);
		table_note(t, "TSC %.6f GHz measured against %s (DPDK says %.6f: %+.0f ppm)",
			   rt->hz / 1e9, rt->realtime ? "CLOCK_REALTIME" : "CLOCK_MONOTONIC_RAW",
			   rt->hz_nominal / 1e9, (rt->hz_nominal / rt->hz - 1) * 1e6);
		if (rt->split && rt->ranks > 0)
			table_note(t, "split over %u MPI ranks: rank 0 runs DC mask %#x and leads; "
				   "clocks compared over MPI (the furthest rank %+.3f us from rank 0's%s, "
				   "the slowest round trip %.3f us); the steps are every rank's (merged)",
				   rt->ranks, rt->local, rt->offset_ns / 1e3,
				   rt->realtime ? ", not applied (PTP)" : "", rt->rtt_ns / 1e3);
		else if (rt->split)
			table_note(t, "split over two processes: this one runs DC mask %#x and %s; "
				   "clock offset to the peer %+.3f us%s (round trip %.3f us)%s",
				   rt->local, rt->leader ? "leads" : "follows",
				   rt->offset_ns / 1e3, rt->realtime ? ", not applied (PTP)" : "",
				   rt->rtt_ns / 1e3,
				   rt->merged ? "; the steps are both sides' (merged)" :
				   "; the steps are this side's (the leader reports both)");
		table_note(t, "engine: %" PRIu64 " polls while events were overdue, %" PRIu64
			   " while idle; events ran late by p99 %.3f us, p99.9 %.3f us, max %.3f us "
			   "emulated (the clock's last reading less the event's time)", rt->behind,
			   rt->idle, rt->lag_p99_ps / 1e6, rt->lag_p999_ps / 1e6,
			   rt->lag_max_ps / 1e6);
		if (outcome_flags(&runs[i]) & (1u << OF_BEHIND))
			table_note(t, "the host could not keep up: events ran late by p99 %.3f ms "
				   "emulated, %.0f %% of the mean step (%.3f ms): frames left the ports "
				   "late and the steps are longer than the emulation's. Raise "
				   "run.dilation (%g now; try %g), give the run cores of its own "
				   "(--eal -l, one per partition) and keep other work off them "
				   "(isolcpus, taskset), or emulate fewer frames (a smaller cluster)",
				   rt->lag_p99_ps / 1e9, 100 * rt->lag_p99_ps / 1e12 /
				   outcome_mean(&runs[i]), outcome_mean(&runs[i]) * 1e3, rt->dilation,
				   outcome_dilation_hint(&runs[i]));
		if (rt->cross > 0)
			table_note(t, "partitions: %" PRIu64 " frames crossed cut links, %" PRIu64
				   " of them taken after their arrival time (the latest by %.3f us "
				   "emulated, %.3f us real): %s", rt->cross, rt->cross_late,
				   (double)rt->cross_late_max / 1e6,
				   (double)rt->cross_late_max / 1e6 * rt->dilation,
				   rt->cross_late == 0 ? "every one in time" :
				   "the lcores fell behind; raise run.dilation or give it cores");
		break;
	}
	return t;
}

/* What a run's TCP connections did (the workers', or the bulk flows'). */
static json_t *
tcp_json(const struct dp_tcp_stats *s)
{
	json_t *o = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
			 "data_segments", (json_int_t)s->segs, "resent", (json_int_t)s->retrans,
			 "fast_retransmits", (json_int_t)s->fast_rtx,
			 "timeouts", (json_int_t)s->rtos, "pure_acks", (json_int_t)s->acks,
			 "out_of_order", (json_int_t)s->ooo_rx, "duplicates", (json_int_t)s->dup_rx,
			 "delivered_bytes", (json_int_t)s->bytes_in);

	if (o != NULL && s->ecn) {	/* (present with transport.ecn = yes only) */
		json_object_set_new(o, "ce_received", json_integer((json_int_t)s->ce_rx));
		json_object_set_new(o, "ecn_window_cuts", json_integer((json_int_t)s->ecn_cuts));
	}
	return o;
}

static json_t *num(double v);

/* A WAN link's frames' waits in its queue by class, us: {"sync": {...}, "background": {...}} */
static json_t *
wait_json(const struct dp_wait_summary *w)
{
	static const char *const cls[DP_WAIT_CLASSES] = { "sync", "background" };
	json_t *o = json_object();
	int c;

	for (c = 0; o != NULL && c < DP_WAIT_CLASSES; c++)
		json_object_set_new(o, cls[c], json_pack("{s:I, s:o, s:o, s:o, s:o}",
			"frames", (json_int_t)w[c].n, "mean_us", num(w[c].mean_ns / 1e3),
			"p50_us", num(w[c].p50_ns / 1e3), "p99_us", num(w[c].p99_ns / 1e3),
			"max_us", num(w[c].max_ns / 1e3)));
	return o;
}

static json_t *
elems_json(const struct dp_run_result *res)
{
	json_t *a = json_array();
	uint32_t i;

	for (i = 0; a != NULL && i < res->n_elems; i++) {
		const struct dp_elem_summary *e = &res->elems[i];

		json_t *o = json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:f, s:I, s:I}",
				      "name", e->name, "kind", e->kind,
				      "rx", (json_int_t)e->rx, "tx", (json_int_t)e->tx,
				      "drop", (json_int_t)e->drop,
				      "max_queue_bytes", (json_int_t)e->max_qbytes,
				      "utilisation", e->util,
				      "sync_over_limit", (json_int_t)e->fg_over,
				      "background_drops", (json_int_t)e->bg_drop);

		/* an impaired link's causes: the drop count holds its losses too */
		if (o != NULL && e->impaired) {
			json_object_set_new(o, "lost", json_integer((json_int_t)e->lost));
			json_object_set_new(o, "reordered", json_integer((json_int_t)e->reordered));
			json_object_set_new(o, "corrupted", json_integer((json_int_t)e->corrupted));
			json_object_set_new(o, "duplicated", json_integer((json_int_t)e->duplicated));
			json_object_set_new(o, "marked", json_integer((json_int_t)e->marked));
			json_object_set_new(o, "aqm_drops", json_integer((json_int_t)e->aqm_drop));
		}
		if (o != NULL && e->has_wait)
			json_object_set_new(o, "queue_wait", wait_json(e->wait));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *
num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *
stats_json(const struct sm_stats *st, double scale)
{
	if (st->n == 0)
		return json_null();
	return json_pack("{s:i, s:o, s:o, s:o, s:o, s:o, s:o}", "n", (int)st->n,
			 "mean", num(st->mean * scale), "ci95", num(st->ci95 * scale),
			 "median", num(st->median * scale), "p99", num(st->p99 * scale),
			 "min", num(st->min * scale), "max", num(st->max * scale));
}

/* The WAN queues over time: at most QUEUE_POINTS per link, every stride-th sample. */
static json_t *
queues_json(const struct outcome *r)
{
	const struct queue_points *qp = &r->qp;
	json_t *o = json_object();
	uint32_t i, k;

	for (i = 0; o != NULL && i < r->nq; i++) {
		json_t *t = json_array(), *b = json_array();

		for (k = 0; k < qp->n; k++) {
			json_array_append_new(t, json_real(qp->t[k]));
			json_array_append_new(b, json_integer((json_int_t)qp->bytes[k * r->nq + i]));
		}
		json_object_set_new(o, r->q[i].name, json_pack("{s:o, s:o, s:I, s:I}", "t_s", t,
							       "bytes", b, "every_sample",
							       (json_int_t)qp->stride,
							       "samples", (json_int_t)qp->seen));
	}
	return o;
}

static json_t *
rt_port_json(const struct dp_rt_port_report *p)
{
	return json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:o, "
			 "s:o, s:o, s:s}", "name", p->name, "device", p->dev,
			 "frames_sent", (json_int_t)p->tx, "bytes_sent", (json_int_t)p->tx_bytes,
			 "deferred_sends", (json_int_t)p->tx_deferred,
			 "frames_received", (json_int_t)p->rx,
			 "bytes_received", (json_int_t)p->rx_bytes,
			 "other_frames", (json_int_t)p->rx_other, "stale_frames", (json_int_t)p->rx_stale,
			 "device_rx_dropped", (json_int_t)p->dev_rx_dropped,
			 "device_tx_errors", (json_int_t)p->dev_tx_errors,
			 "lateness_samples", (json_int_t)p->late_n,
			 "late_median_ns", num(p->late_n ? p->late_median_ns : NAN),
			 "late_p99_ns", num(p->late_n ? p->late_p99_ns : NAN),
			 "late_p999_ns", num(p->late_n ? p->late_p999_ns : NAN),
			 "late_max_ns", num(p->late_n ? p->late_max_ns : NAN),
			 "rx_stamps", p->hw_ts ? "nic" : "tsc");
}

static json_t *
rt_json(const struct dp_rt_report *rt)
{
	json_t *ports = json_array(), *peer = json_array();
	uint32_t k;

	for (k = 0; k < rt->n_ports; k++)
		json_array_append_new(ports, rt_port_json(&rt->port[k]));
	for (k = 0; k < rt->n_peer_ports; k++)
		json_array_append_new(peer, rt_port_json(&rt->peer_port[k]));
	/* event_lag: how late events ran (emulated); cut_links: frames across cut links between
	 * partitions (parallel.h) */
	return json_pack("{s:f, s:f, s:f, s:b, s:i, s:b, s:i, s:I, s:I, s:b, s:I, s:I, s:o, s:o, "
			 "s:{s:I, s:o, s:o, s:o}, s:{s:I, s:I, s:o}}",
			 "dilation", rt->dilation, "tsc_hz", rt->hz, "tsc_hz_nominal",
			 rt->hz_nominal, "split", rt->split, "ranks", (int)rt->ranks,
			 "leader", rt->leader,
			 "local_mask", (int)rt->local, "peer_offset_ns", (json_int_t)rt->offset_ns,
			 "peer_rtt_ns", (json_int_t)rt->rtt_ns, "merged", rt->merged,
			 "polls_behind", (json_int_t)rt->behind, "polls_idle", (json_int_t)rt->idle,
			 "ports", ports, "peer_ports", peer,
			 "event_lag", "events", (json_int_t)rt->lag_events,
			 "p99_ns", num(rt->lag_events ? rt->lag_p99_ps / 1e3 : NAN),
			 "p999_ns", num(rt->lag_events ? rt->lag_p999_ps / 1e3 : NAN),
			 "max_ns", num(rt->lag_events ? rt->lag_max_ps / 1e3 : NAN),
			 "cut_links", "frames", (json_int_t)rt->cross, "late", (json_int_t)rt->cross_late,
			 "late_max_ns", rt->cross_late > 0 ?
			 json_real((double)rt->cross_late_max / 1e3) : json_null());
}

static json_t *
run_json(struct results *res, const struct outcome *r, uint32_t run_id, bool every)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:i, s:b}", "label", r->c.label,
			      "variant", sm_variant_name(r->c.var),
			      "budget", sm_variant_has_module(r->c.var) ?
			      sm_budget_name(r->c.b) : "-", "run_id", (int)run_id, "ok", r->rc == 0);
	char file[32];

	if (o == NULL)
		return NULL;
	if (r->rc != 0) {
		json_object_set_new(o, "error", json_string(r->err));
		return o;
	}
	/* in text the runs of up to 20 steps, or every run with --every-step */
	snprintf(file, sizeof(file), "steps-%u", run_id);
	results_add_table(res, steps_table(r), RESULTS_JSON | (r->res.steps > 0 &&
			  (every || r->res.steps <= 20) ? RESULTS_TEXT : 0),
			  &(struct results_place){ .parent = o, .file = file });
	json_object_set_new(o, "steps_kept", json_pack("{s:i, s:i, s:i}", "first", (int)r->nfirst,
						       "last", (int)r->nlast, "of",
						       (int)r->res.steps));
	json_object_set_new(o, "background_only_s", r->bg_only > 0 ? json_real(r->bg_only) :
			    json_null());
	{
		unsigned int f = outcome_flags(r);
		json_t *fl = json_object();
		char st[160];
		int k;

		for (k = 0; fl != NULL && k < OF_COUNT; k++)
			if ((k != OF_IMPAIRED || (f & (1u << k))) &&	/* (as before without) */
			    (k != OF_BEHIND || (f & (1u << OF_REAL_TIME))))
				json_object_set_new(fl, outcome_flag_id(k),
						    json_boolean(f & (1u << k)));
		json_object_set_new(o, "status", json_string(outcome_status(r, st, sizeof(st))));
		json_object_set_new(o, "flags", fl);
	}
	json_object_set_new(o, "fluid_bound_holds", json_boolean(r->bound_holds));
	if (!r->bound_holds)
		json_object_set_new(o, "fluid_bound_why", json_string(r->bound_why));
	json_object_set_new(o, "packet_model_ms", num(r->pm_rc == 0 ? r->pm_mean * 1e3 : NAN));
	json_object_set_new(o, "compared_steps", json_integer(r->pm_steps));
	json_object_set_new(o, "changed_steps", json_integer(r->changed_steps));
	json_object_set_new(o, "step_ms", stats_json(&r->all, 1e3));
	json_object_set_new(o, "steady_ms", stats_json(&r->steady, 1e3));
	json_object_set_new(o, "warmup_mean_ms", num(r->warm_mean * 1e3));
	json_object_set_new(o, "fluid_ms", num(r->fluid * 1e3));
	json_object_set_new(o, "fluid_bound", num(r->bound_holds ? r->bound : NAN));
	json_object_set_new(o, "max_rel_diff", num(r->max_rel));
	json_object_set_new(o, "interrupted", json_boolean(r->res.interrupted));
	json_object_set_new(o, "clock", json_string(r->res.rt.on ? "real" : "virtual"));
	if (r->res.rt.on)
		json_object_set_new(o, "real_time", rt_json(&r->res.rt));
	json_object_set_new(o, "frames", json_integer((json_int_t)r->res.frames));
	json_object_set_new(o, "events", json_integer((json_int_t)r->res.events));
	json_object_set_new(o, "wall_s", json_real(r->wall));
	/* how it ran (the same results whatever these are) */
	json_object_set_new(o, "partitions", json_integer(r->res.partitions));
	json_object_set_new(o, "lcores", json_integer(r->res.lcores));
	json_object_set_new(o, "ranks", json_integer(r->res.ranks ? r->res.ranks : 1));
	json_object_set_new(o, "windows", json_integer((json_int_t)r->res.windows));
	json_object_set_new(o, "lookahead_ns", num((double)r->res.lookahead / 1e3));
	json_object_set_new(o, "partitions_busy_s", json_real(r->res.busy_s));
	json_object_set_new(o, "partition_busiest_s", json_real(r->res.busy_max_s));
	json_object_set_new(o, "lcore_sleeps", json_integer((json_int_t)r->res.lcore_sleeps));
	json_object_set_new(o, "partition_steals", json_integer((json_int_t)r->res.steals));
	json_object_set_new(o, "fast_forward", json_pack(
		"{s:b, s:i, s:i, s:I, s:o, s:o, s:o}", "on", r->res.ff_on,
		"emulated_steps", (int)(r->res.steps - r->res.ff_replayed),
		"replayed_steps", (int)r->res.ff_replayed,
		"events_run", (json_int_t)(r->res.events - r->res.ff_events),
		"why_not", r->res.ff_replayed > 0 ? json_null() : json_string(r->res.ff_why),
		"steady_window_ns", r->res.window > 0 ? num((double)r->res.window / 1e3) :
		json_null(), "steady_unordered_links", r->res.window > 0 ?
		json_integer(r->res.window_unordered) : json_null()));
	if (r->auto_on) {
		const struct dp_auto *a = &r->autop;

		json_object_set_new(o, "partitions_auto", json_pack(
			"{s:i, s:s, s:i, s:i, s:I, s:I, s:i, s:o, s:o, s:o, s:f}",
			"partitions", (int)a->partitions, "why", a->why, "tried", (int)a->tried,
			"lcores", (int)a->lcores, "expected_events", (json_int_t)a->expected_events,
			"sample_events", (json_int_t)a->sample_events, "pairs", (int)a->pairs,
			"one_engine_events_per_s", num(a->pairs ? a->one_rate : NAN),
			"partitions_events_per_s", num(a->pairs ? a->part_rate : NAN),
			"speedup", num(a->pairs ? a->gain : NAN), "calibration_s", a->cost_s));
	}
	json_object_set_new(o, "elements", elems_json(&r->res));
	if (r->res.bulk.segs > 0)
		json_object_set_new(o, "bulk", tcp_json(&r->res.bulk));
	if (r->res.tcp.segs > 0)
		json_object_set_new(o, "tcp", tcp_json(&r->res.tcp));
	if (r->res.has_module)
		json_object_set_new(o, "module_binding",
				    json_string(sm_stage_name(r->res.binding)));
	if (r->loaded && r->model_rc == 0)
		json_object_set_new(o, "model", json_pack(
			"{s:o, s:o, s:o, s:o, s:o, s:o}",
			"ps_mean_ms", num(r->ps.step.mean * 1e3),
			"ps_ci95_ms", num(r->ps.step.ci95 * 1e3),
			"fifo_mean_ms", num(r->fifo.step.mean * 1e3),
			"fifo_ci95_ms", num(r->fifo.step.ci95 * 1e3),
			"zero_load_ms", num(r->ps.closed * 1e3),
			"capacity_bound_ms", num(r->ps.min_step * 1e3)));
	if (r->res.bg.started > 0) {
		json_t *q = json_array();
		unsigned int k;

		for (k = 0; q != NULL && r->res.bg.done > 0 && k < OUTCOME_FCT_Q; k++)
			json_array_append_new(q, num(r->fct_q[k] * 1e6));
		json_object_set_new(o, "background", json_pack(
			"{s:I, s:I, s:I, s:I, s:o, s:o, s:o, s:o}",
			"started", (json_int_t)r->res.bg.started,
			"done", (json_int_t)r->res.bg.done,
			"incomplete", (json_int_t)r->res.bg.incomplete,
			"unsent", (json_int_t)r->res.bg.unsent,
			"wait_us", stats_json(&r->wait, 1e6),
			"mg1_wait_us", num(r->mg1_wait * 1e6),
			"fct_us", stats_json(&r->fct, 1e6),
			"fct_quantiles_us", q));
	}
	if (r->nq > 0 && r->qp.n > 0)
		json_object_set_new(o, "wan_queues", queues_json(r));
	if (r->res.nchanges > 0) {
		json_t *a = json_array(), *g = json_array();
		uint32_t k;

		for (k = 0; a != NULL && k < r->res.nchanges; k++) {
			const struct dp_change *ch = &r->res.changes[k];

			json_array_append_new(a, json_pack("{s:f, s:s, s:f, s:f, s:o}", "at_ms",
							   ch->at / 1e9, "key",
							   ctl_param_key(ch->param), "old", ch->old,
							   "value", ch->value, "step",
							   ch->step == UINT32_MAX ? json_null() :
							   json_integer(ch->step)));
		}
		json_object_set_new(o, "changes", a);
		/* the settings: the steps wholly under each, against its own closed form */
		for (k = 0; g != NULL && k < r->nregimes; k++) {
			const struct regime *x = &r->regimes[k];

			json_array_append_new(g, json_pack(
				"{s:i, s:i, s:i, s:i, s:o, s:o, s:o, s:o, s:b}", "changes",
				(int)x->changes, "first_step", (int)x->first, "last_step",
				(int)x->last, "compared_steps", (int)x->steps, "packet_model_ms",
				num(x->steps ? x->pm_sum / x->steps / 1e9 : NAN), "max_rel_diff",
				num(x->max_rel), "fluid_ms", num(x->fluid * 1e3), "fluid_bound",
				num(x->bound_holds ? x->bound : NAN), "fluid_bound_holds",
				x->bound_holds));
		}
		json_object_set_new(o, "regimes", g);
	}
	return o;
}

void
run_report_settings(const struct sc_scenario *sc, char *buf, size_t len)
{
	const double q[4] = { sc->queues.nic, sc->queues.port, sc->queues.sw, sc->queues.wan };
	char b[4][SC_UNIT_FMT_LEN];
	int k;

	for (k = 0; k < 4; k++)
		if (!isfinite(q[k]) || sc_unit_format(SC_UNIT_BYTES, q[k], b[k], sizeof(b[k])) != 0)
			snprintf(b[k], sizeof(b[k]), "unlimited");
	snprintf(buf, len, "seed %llu, %u steps (%u warm-up), queues: NIC %s, port %s, switch %s, "
		 "WAN %s", (unsigned long long)sc->run.seed, sc->run.steps,
		 sc->run.warmup < sc->run.steps ? sc->run.warmup : sc->run.steps, b[0], b[1], b[2],
		 b[3]);
}

json_t *
run_report_scenario_json(const struct sc_scenario *sc)
{
	const struct sc_queues *q = &sc->queues;
	const struct sm_params *p = &sc->model;
	json_t *o;

	o = json_pack("{s:s, s:s, s:s, s:I, s:f, s:i, s:i, s:f, s:f, s:{s:o, s:o, s:o, s:o}}",
			 "name", sc->name, "description", sc->desc, "path", sc->path, "seed",
			 (json_int_t)sc->run.seed, "load", sc->background.load, "steps",
			 (int)sc->run.steps, "warmup", (int)(sc->run.warmup < sc->run.steps ?
			 sc->run.warmup : sc->run.steps), "wan_bandwidth_Bps",
			 sc->model.wan.bw, "wan_latency_s", sc->model.wan.lat, "queues_bytes",
			 "nic", num(q->nic), "port", num(q->port), "switch", num(q->sw), "wan",
			 num(q->wan));
	/* only off the defaults, so that the deck's output stays as it was */
	if (o != NULL && p->job.library != SM_LIB_IDEAL &&
	    (json_object_set_new(o, "library", json_string(sm_library_name(p->job.library))) ||
	     json_object_set_new(o, "algorithm", json_string(sm_library_algo(p))))) {
		json_decref(o);
		return NULL;
	}
	if (o != NULL && p->job.compute > 0 &&
	    json_object_set_new(o, "compute_s", json_real(p->job.compute))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* The text before the tables: the scenario and the shape that ran. */
static void
header_lines(struct results *res, const struct sc_scenario *sc)
{
	results_line(res, "syncemu run: %s%s%s", sc->name, sc->path[0] ? " from " : " (built in)",
		     sc->path);
	if (sc->desc[0])
		results_line(res, "  %s", sc->desc);
	/* the shape run, which --set may have changed from what the description says */
	results_line(res, "  %u DC x %u workers, collectives %s%s%s%s%s, WAN %s",
		     sc->model.topo.n_dc, sc->model.topo.per_dc,
		     sm_algo_name(sm_plan_algo(&sc->model)),
		     sc->model.job.collective == SM_ALGO_AUTO ? " (auto)" : "",
		     sm_plan_direct_name(&sc->model)[0] ? ", " : "",
		     sm_plan_direct_name(&sc->model),
		     sc->model.job.library != SM_LIB_IDEAL ? " for the variants past A" : "",
		     sm_wan_shape_name(sc->model.topo.wan));
	if (sc->model.job.library != SM_LIB_IDEAL)
		results_line(res, "  library %s: variant A's %s runs as %s",
			     sm_library_name(sc->model.job.library),
			     sm_opkind_name(sc->model.job.operation), sm_library_algo(&sc->model));
	results_line(res, "%s", "");
}

static void
change_lines(struct results *res, const struct outcome *runs, unsigned int n)
{
	unsigned int i;
	uint32_t k;

	for (i = 0; i < n; i++)
		for (k = 0; k < runs[i].res.nchanges; k++) {
			const struct dp_change *ch = &runs[i].res.changes[k];
			char when[64];

			if (ch->step == UINT32_MAX)
				snprintf(when, sizeof(when), "after the last step");
			else
				snprintf(when, sizeof(when), "during step %u", ch->step);
			results_line(res, "%s run %s at %.6f ms, %s: %s %.12g -> %.12g",
				     k ? "      " : "change:", runs[i].c.label, ch->at / 1e9, when,
				     ctl_param_key(ch->param), ch->old, ch->value);
		}
}

/* The trace written, with its frames per capture point: lines, and the JSON's "trace". */
static void
trace_results(struct results *res, const struct dp_capture *cap, const char *path)
{
	json_t *ifs = json_object();
	uint64_t total = 0;
	uint32_t i;

	for (i = 0; i < cap->nif; i++)
		total += cap->frames[i];
	results_line(res, "trace: %s, %" PRIu64 " frames on %u interfaces", path, total, cap->nif);
	for (i = 0; i < cap->nif; i++)
		results_line(res, "  %-20s %" PRIu64, cap->names[i], cap->frames[i]);
	for (i = 0; ifs != NULL && i < cap->nif; i++)
		json_object_set_new(ifs, cap->names[i], json_integer((json_int_t)cap->frames[i]));
	json_object_set_new(results_root(res), "trace", json_pack("{s:s, s:o}", "file", path,
								  "frames", ifs));
}

struct results *
run_report_results(struct outcome *runs, unsigned int n, const struct sc_scenario *sc,
		   bool every, const struct dp_capture *cap, const char *trace_path)
{
	static const struct results_params rp = {
		.json_flags = JSON_INDENT(1) | JSON_REAL_PRECISION(12), .json_newline = true,
	};
	struct results *res = results_create(&rp);
	bool loaded = sc->background.load > 0;
	json_t *root, *ja;
	unsigned int i;

	if (res == NULL)
		return NULL;
	root = results_root(res);
	ja = json_array();
	if (ja == NULL) {
		results_free(res);
		errno = ENOMEM;
		return NULL;
	}
	json_object_set_new(root, "syncemu", json_string(SYNCEMU_VERSION));
	json_object_set_new(root, "command", json_string("run"));
	json_object_set_new(root, "scenario", run_report_scenario_json(sc));
	json_object_set_new(root, "runs", ja);
	header_lines(res, sc);
	for (i = 0; i < n; i++) {
		if (runs[i].rc != 0) {
			results_line(res, "Run %s FAILED: %s", runs[i].c.label, runs[i].err);
			results_line(res, "%s", "");
		}
		json_array_append_new(ja, run_json(res, &runs[i], i + 1, every));
	}
	if (n > 0 && runs[0].res.steps > 0)
		results_add_table(res, loaded ? summary_loaded(runs, n, sc) :
				  summary_zero(runs, n, sc), RESULTS_TEXT | RESULTS_JSON,
				  &(struct results_place){ .parent = NULL });
	change_lines(res, runs, n);
	/* in text only: the JSON has each run's "real_time" */
	if (n > 0 && runs[0].res.rt.on)
		results_add_table(res, realtime_table(runs, n), RESULTS_TEXT, NULL);
	for (i = 0; i < n; i++)
		if (runs[i].res.interrupted)
			results_line(res, "interrupted: run %s stopped after step %u of %u",
				     runs[i].c.label, runs[i].res.steps, sc->run.steps);
	/* in text only: the JSON has each run's "background" and "wan_queues" */
	if (loaded) {
		results_add_table(res, background_table(runs, n, sc), RESULTS_TEXT, NULL);
		results_add_table(res, wait_table(runs, n), RESULTS_TEXT, NULL);
	}
	if (trace_path != NULL && cap != NULL)
		trace_results(res, cap, trace_path);
	return res;
}

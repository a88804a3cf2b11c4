/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Running variants on the data plane with the models beside them.
 *
 * At zero load the models are the packet-level closed form (exact) and the deck's fluid step
 * (within the stated bound).  Under load they are the fluid shared-WAN model (models/sharedwan.c)
 * under processor sharing and FIFO, over as many syncs from an empty link, and M/G/1 for the
 * background transfers' wait for the WAN.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sched.h>
#include <stdbool.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_lcore.h>

#include "autopart.h"
#include "bgsizes.h"
#include "eal.h"
#include "fpool.h"
#include "impair_spec.h"
#include "kernel_prog.h"
#include "pcapng.h"
#include "ranks.h"
#include "runner.h"
#include "runstats.h"
#include "variant.h"

unsigned int
contenders_of(const struct sc_scenario *sc, struct contender *out)
{
	unsigned int n = 0;
	int v, b;

	for (v = 0; v < SM_VAR_COUNT; v++) {
		for (b = 0; b < SM_BUDGET_COUNT; b++) {
			bool mod = sm_variant_has_module(v);

			if (!(sc->variants & (1u << v)) || (mod && !(sc->budgets & (1u << b))) ||
			    (!mod && b != SM_BUDGET_FREE))
				continue;
			out[n].var = (enum sm_variant)v;
			out[n].b = (enum sm_budget)b;
			out[n].budget = sm_budget_value(&sc->model.mod, b);
			snprintf(out[n].label, sizeof(out[n].label), mod ? "%s[%s]" : "%s",
				 sm_variant_name(v), sm_budget_name(b));
			n++;
		}
	}
	return n;
}

static void
base_params(const struct sc_scenario *sc, const struct contender *c, struct dp_run_params *rp)
{
	memset(rp, 0, sizeof(*rp));
	rp->model = &sc->model;
	rp->pk = &sc->run.pk;
	rp->var = c->var;
	rp->budget = c->budget;
	rp->steps = sc->run.steps;
	rp->q_nic = (uint64_t)sc->queues.nic;
	rp->q_port = (uint64_t)sc->queues.port;
	rp->q_sw = (uint64_t)sc->queues.sw;
	rp->q_wan = (uint64_t)sc->queues.wan;
	rp->bg.load = sc->background.load;
	rp->bg.host_bw = sm_rate(sc->background.host_rate);
	rp->bg.seed = sc->run.seed;
	rp->bg.directions = sc->background.directions == SC_DIRECTIONS_ONE ? 1 : UINT32_MAX;
	rp->bg.fg_lossless = sc->queues.sync_lossless;
	rp->bg.bulk = sc->background.bulk;
	rp->bg.tcp = &sc->run.pk.tcp;
	rp->bg.xfer_tcp = sc->background.transport == SC_BG_TCP;
	rp->bg.connections = sc->background.connections;
	rp->bg.bulk_lead = sm_ps(sc->background.bulk_lead);
	rp->bg.probe_every = sm_ps(sc->trace.queue_sample);
	rp->trace_until = sm_ps(sc->trace.until);
	runner_impair(sc, &rp->impair);
}

void
runner_impair(const struct sc_scenario *sc, struct dp_topo_impair *ip)
{
	char why[256];
	uint32_t i;

	/* (each text was read at load: the errors here cannot happen) */
	memset(ip, 0, sizeof(*ip));
	ip->seed = sc->run.seed;
	if (sc->impair.wan[0] != '\0')
		sc_impair_parse(sc->impair.wan, &ip->wan, why, sizeof(why));
	for (i = 0; i < SC_LINKS_MAX && ip->n_link < DP_IMPAIR_LINKS; i++)
		if (sc->impair.link[i][0] != '\0' &&
		    sc_impair_parse_link(sc->impair.link[i], ip->link[ip->n_link].name,
					 sizeof(ip->link[0].name), &ip->link[ip->n_link].im, why,
					 sizeof(why)) == 0)
			ip->n_link++;
	runner_impair_live(sc, &ip->wan);
	ip->live_loss = ip->wan.loss == SM_LOSS_RANDOM ? ip->wan.p[0] : 0;
	ip->live_jitter = ip->wan.dist != SM_JITTER_NONE ? ip->wan.jitter : 0;
}

void
runner_impair_live(const struct sc_scenario *sc, struct sm_impair *im)
{
	sm_impair_override(im, sc->impair.loss != SC_AUTO ? sc->impair.loss : NAN,
			   sc->impair.jitter != SC_AUTO ? sc->impair.jitter : NAN);
}

bool
runner_jitter(const struct sc_scenario *sc)
{
	struct dp_topo_impair ip;
	bool j;

	runner_impair(sc, &ip);
	j = ip.wan.dist != SM_JITTER_NONE;
	for (uint32_t i = 0; i < ip.n_link; i++)
		j |= ip.link[i].im.dist != SM_JITTER_NONE;
	return j;
}

uint32_t
runner_need(const struct sc_scenario *sc, const struct contender *c)
{
	struct dp_run_params rp;

	base_params(sc, c, &rp);
	return dp_run_pool_need(&rp);
}

/* @p s seconds as "N.N hours" or "N.N days" (for a long virtual time). */
static void
long_time(double s, char *buf, size_t len)
{
	if (s < 2 * 86400)
		snprintf(buf, len, "%.1f hours", s / 3600);
	else
		snprintf(buf, len, "%.1f days", s / 86400);
}

double
runner_note_long(const struct sc_scenario *sc, const struct contender *c, unsigned int n,
		 const char *who, FILE *f)
{
	unsigned int variants = 0, budgets = 0, i;
	char when[32];
	double s;

	for (i = 0; i < n; i++) {
		variants |= 1u << c[i].var;
		budgets |= 1u << c[i].b;
	}
	s = sc_runs_bound_s(sc, variants, budgets);
	if (!(s > 3600))
		return s;
	long_time(s, when, sizeof(when));
	fprintf(f, "%s: these runs emulate up to %s of virtual time (run.steps = %u; at zero load, "
		"longer under load)", who, when, sc->run.steps);
	if (sc->trace.queue_sample > 0)
		fprintf(f, ", and the WAN queues are sampled every %g us of it: %.3g samples "
			"(trace.queue_sample = 0 s leaves them out)", sc->trace.queue_sample * 1e6,
			s / sc->trace.queue_sample);
	fprintf(f, "\n");
	return s;
}

int
runner_start(struct runner *r, uint32_t need, uint32_t frame_max, char *err, size_t errlen)
{
	int rc;

	if (r->mbufs)
		need = r->mbufs;
	if (r->eal == NULL && (dp_ranks_size() > 1 || r->partitions != 1)) {
		/* the lcores on the CPUs the process may run on (taskset, a cpuset, the launcher's
		 * binding): a rank, one (Open MPI binds each rank to a core unless oversubscribed;
		 * DPDK's telemetry is one socket per file prefix, which the ranks of one host would
		 * share); partitions, one each, as many as there are CPUs (auto: all of them) */
		uint32_t n = 1, cpus;
		size_t k = 0;

		if (dp_ranks_size() > 1)
			k = (size_t)snprintf(r->eal_buf, sizeof(r->eal_buf), "--no-telemetry ");
		else if (dp_eal_cpus(r->eal_buf, sizeof(r->eal_buf), &cpus) == 0)
			n = r->partitions != 0 && r->partitions < cpus ? r->partitions : cpus;
		if (n > RTE_MAX_LCORE)
			n = RTE_MAX_LCORE;
		rc = dp_eal_default(r->eal_buf + k, sizeof(r->eal_buf) - k, n,
				    dp_pool_mem_mb(need, frame_max) + r->extra_mb);
		if (rc != 0) {
			snprintf(err, errlen, "the CPUs this process may run on: %s (give the EAL's "
				 "flags with --eal)", strerror(-rc));
			return rc;
		}
		r->eal = r->eal_buf;
	}
	rc = (r->apart ? dp_eal_init_apart : dp_eal_init)(r->eal, dp_pool_mem_mb(need, frame_max) +
							 r->extra_mb, err, errlen);
	if (rc != 0)
		return rc;
	r->lcores = rte_lcore_count();
	if (r->extra_mb == 0) {
		/* no port: frames stay in the process, compact and in a pool that grows */
		struct dp_fpool_params fp = {
			.n = r->mbufs ? need : RTE_MIN(need, RUNNER_POOL_FIRST),
			.frame_max = frame_max,
			.grow = RUNNER_POOL_GROW,
			.compact = true,
		};

		r->pool = dp_fpool_create("syncemu_frames", &fp);
		if (r->pool == NULL)
			snprintf(err, errlen, "no frame pool of %u mbufs for frames of %u bytes (%s)",
				 fp.n, frame_max, rte_strerror(rte_errno));
	} else {
		/* whole frames in the EAL's memory: they may leave through a port */
		r->pool = dp_pool_create("syncemu_frames", need, frame_max, err, errlen);
	}
	if (r->pool == NULL) {
		dp_eal_fini();
		return -ENOMEM;
	}
	r->frame_max = frame_max;
	r->next_run_id = 1;
	return 0;
}

/* FNV-1a over what both processes of a split run must share. */
static uint64_t
fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n--) {
		h ^= *b++;
		h *= 1099511628211ULL;
	}
	return h;
}

uint32_t
runner_rt_need(const struct sc_scenario *sc)
{
	uint32_t d, n = 0;

	if (sc->run.clock != SC_CLOCK_REAL)
		return 0;
	for (d = 0; d < SC_PORTS_MAX; d++)
		n += sc->ports.dc[d][0] != '\0';
	for (d = 0; d < SC_LINKS_MAX; d++)
		n += 2 * (sc->ports.link[d][0] != '\0');
	return n * 2048;	/* TX rings, control messages */
}

/* The ports a real-time run of @p sc may open: the data centres' and both ends of each link. */
static uint32_t
n_ports(const struct sc_scenario *sc)
{
	uint32_t n = 0, d;

	for (d = 0; d < SC_PORTS_MAX; d++)
		n += sc->ports.dc[d][0] != '\0';
	for (d = 0; d < SC_LINKS_MAX; d++)
		n += 2 * (sc->ports.link[d][0] != '\0');
	return n;
}

uint32_t
runner_rt_mem_mb(const struct sc_scenario *sc)
{
	uint64_t bytes = 0;
	uint32_t d;

	if (sc->run.clock != SC_CLOCK_REAL)
		return 0;
	for (d = 0; d < SC_PORTS_MAX; d++)
		if (sc->ports.dc[d][0] != '\0')
			bytes += (uint64_t)DP_PORT_RX_MBUFS *
				 (dp_port_rx_room(sc->ports.dc[d], SM_HDR_BYTES + sc->run.pk.payload) +
				  RTE_PKTMBUF_HEADROOM + 256);
	for (d = 0; d < SC_LINKS_MAX; d++) {
		struct sc_port_link l;
		char why[320];

		if (sc->ports.link[d][0] == '\0' ||
		    sc_port_link_parse(sc->ports.link[d], sc->model.topo.n_dc,
				       sc->model.topo.per_dc, &l, why, sizeof(why)) != 0)
			continue;
		bytes += (uint64_t)(DP_PORT_RX_MBUFS + 1024) *
			 (dp_port_rx_room(l.rx, SM_HDR_BYTES + sc->run.pk.payload) +
			  RTE_PKTMBUF_HEADROOM + 256);
	}
	/* (and room around each pool: the EAL's heap without hugepages has one list of pages, and
	 * a fourth pool of 140 MB did not fit in the sum of the four plus 16 MB) */
	return (uint32_t)((bytes + bytes / 8) >> 20) + (bytes ? 16 + 32 * n_ports(sc) : 0);
}

int
runner_rt_open(struct runner *r, const struct sc_scenario *sc, const struct contender *c,
	       unsigned int n, char *err, size_t errlen)
{
	struct dp_rt_params p;
	struct sc_port_link links[SC_LINKS_MAX];
	uint64_t h = 14695981039346656037ULL;
	uint32_t d;
	int rc;

	if (sc->run.clock != SC_CLOCK_REAL)
		return 0;
	memset(&p, 0, sizeof(p));
	p.dilation = sc->run.dilation;
	p.calibrate_s = sc->run.calibrate;
	p.n_dc = sc->model.topo.n_dc;
	p.local = sc->ports.local_mask;
	if (dp_ranks_size() > 1) {
		/* ranks (rt.h): each its own [ports] local, or by default a contiguous block */
		uint32_t R = (uint32_t)dp_ranks_size(), k = (uint32_t)dp_ranks_rank();

		if (R > p.n_dc) {
			r->rt_agreed = true;	/* (every rank counts the same) */
			snprintf(err, errlen, "mpirun -np %u: a real-time run gives each rank data "
				 "centres of its own, and the scenario has %u", R, p.n_dc);
			return -EINVAL;
		}
		if (sc->ports.local[0] == '\0' || strcmp(sc->ports.local, "all") == 0)
			p.local = ((1u << (k + 1) * p.n_dc / R) - 1) & ~((1u << k * p.n_dc / R) - 1);
	}
	p.wait_ms = (int)(sc->ports.wait * 1e3);
	p.pool = r->pool;
	p.frame_max = SM_HDR_BYTES + sc->run.pk.payload;
	p.realtime = sc->run.time_source == SC_TIME_REALTIME;
	p.agreed = &r->rt_agreed;
	for (d = 0; d < SC_PORTS_MAX && d < p.n_dc; d++)
		p.port[d] = sc->ports.dc[d];
	for (d = 0; d < SC_LINKS_MAX && d < DP_RT_LINK_MAX; d++) {
		struct sc_port_link *l = &links[p.n_links];

		if (sc->ports.link[d][0] == '\0')
			continue;
		rc = sc_port_link_parse(sc->ports.link[d], p.n_dc, sc->model.topo.per_dc, l, err,
					errlen);
		if (rc != 0)
			return rc;	/* the scenario was checked: cannot happen */
		p.link[p.n_links++] = (struct dp_rt_link){ l->name, l->tx, l->rx };
	}
	if (p.local != (1u << p.n_dc) - 1 && sc->background.load > 0) {
		snprintf(err, errlen, "background load with the data centres split over "
			 "processes is not supported: a transfer's start and end are on different "
			 "sides (run it in one process, [ports] local = all)");
		return -ENOTSUP;
	}
	h = fnv(h, &sc->model, sizeof(sc->model));
	h = fnv(h, &sc->run, sizeof(sc->run));
	h = fnv(h, &sc->queues, sizeof(sc->queues));
	h = fnv(h, &sc->background.load, sizeof(sc->background.load));
	for (d = 0; d < n; d++) {	/* field by field: the label's tail is not set */
		h = fnv(h, &c[d].var, sizeof(c[d].var));
		h = fnv(h, &c[d].b, sizeof(c[d].b));
		h = fnv(h, &c[d].budget, sizeof(c[d].budget));
	}
	p.config = h;
	r->rt = calloc(1, sizeof(*r->rt));
	if (r->rt == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rc = dp_rt_open(r->rt, &p, err, errlen);
	if (rc != 0) {
		free(r->rt);
		r->rt = NULL;
	}
	return rc;
}

void
runner_stop(struct runner *r)
{
	dp_eal_ending();	/* the EAL goes next: its pools need not be freed (written) first */
	if (r->rt != NULL) {
		dp_rt_close(r->rt);
		free(r->rt);
		r->rt = NULL;
	}
	dp_fpool_free(r->pool);	/* a plain pool too */
	r->pool = NULL;
	dp_eal_fini();
}

static double
wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

struct progress {
	const struct runner *r;
	const char *label;
	uint32_t run_id;
	double t0, last;
	uint64_t frames;
	double dilation;	/* real time; 0: virtual */
	bool behind_said;
	uint64_t trace0;	/* the trace's bytes when the run began */
	bool size_said;
};

#define TRACE_BIG 1e9	/* a trace larger than this is said before it is written */

/* After the first steps: the trace's size at this rate, said once if more than TRACE_BIG. */
static void
say_trace_size(struct progress *pg, uint32_t done, uint32_t steps, dp_time_t end)
{
	double per, all, keep, ms, step_s = done > 0 ? (double)end / 1e12 / done : 0;
	char until[32];

	if (pg->size_said || done == 0 || pg->r->cap == NULL || pg->r->cap->w == NULL)
		return;
	pg->size_said = true;
	per = (double)(tr_pcapng_bytes(pg->r->cap->w) - pg->trace0) / done;
	all = per * steps;
	if (all <= TRACE_BIG)
		return;
	keep = floor(TRACE_BIG / per);	/* the steps that 1 GB holds, at least one */
	if (keep < 1)
		keep = 1;
	ms = keep * step_s * 1e3;
	if (ms >= 1000)
		snprintf(until, sizeof(until), "%.3gs", ms / 1e3);
	else
		snprintf(until, sizeof(until), "%.3gms", ms);
	fprintf(stderr, "%srun %u %s: its trace grows about %.1f MB a step: about %.1f GB for its "
		"%u steps; --set trace.until=%s traces each run's first %s (about %.0f steps, "
		"%.2g GB); fewer capture points (-c wan) or a shorter snap length (--snaplen) write "
		"less\n", pg->r->tty && pg->r->progress ? "\n" : "", pg->run_id, pg->label, per / 1e6,
		all / 1e9, steps, until, until, keep, keep * per / 1e9);
}

/* Real time: the engine runs later than OUTCOME_BEHIND of a step: said once, with the remedy. */
static void
say_behind(struct progress *pg, uint32_t done, dp_time_t end, dp_time_t lag)
{
	double step = done > 0 ? (double)end / done / 1e12 : 0, late = (double)lag / 1e12;

	if (pg->dilation <= 0 || pg->behind_said || step <= 0 || late <= OUTCOME_BEHIND * step)
		return;
	pg->behind_said = true;
	fprintf(stderr, "%srun %u %s: the host is not keeping up: at step %u the engine ran %.3f "
		"ms (emulated) behind the clock, %.0f %% of a step, so frames leave late and the "
		"steps grow; raise run.dilation (%g now), give the run cores of its own (--eal -l) "
		"and keep other work off them (isolcpus)\n", pg->r->tty && pg->r->progress ? "\n" : "",
		pg->run_id, pg->label, done, late * 1e3, 100 * late / step, pg->dilation);
}

static void
on_step(void *arg, uint32_t done, uint32_t steps, uint64_t frames, dp_time_t end, dp_time_t lag)
{
	struct progress *pg = arg;
	double now = wall_now(), el = now - pg->t0;

	if (pg->r->progress)
		say_behind(pg, done, end, lag);
	say_trace_size(pg, done, steps, end);
	pg->frames = frames;
	/* a trace streamed to a reader gets each step as it ends (an error shows at the next write) */
	if (pg->r->cap != NULL && tr_pcapng_streams(pg->r->cap->w))
		tr_pcapng_flush(pg->r->cap->w);
	if (pg->r->queue_csv != NULL && pg->r->queue_csv_streams)
		fflush(pg->r->queue_csv);
	if (pg->r->steps_csv != NULL && pg->r->steps_csv_streams)
		fflush(pg->r->steps_csv);
	if (!pg->r->progress || (now - pg->last < (pg->r->tty ? 0.25 : 2.0) && done != steps))
		return;
	pg->last = now;
	/* before the first step ends (a long one), the frames so far; after, the time left */
	fprintf(stderr, "%srun %u %s: step %u/%u, %.2f M frames, %.2f M frames/s, ", pg->r->tty ?
		"\r" : "", pg->run_id, pg->label, done, steps, pg->frames / 1e6,
		el > 0 ? pg->frames / el / 1e6 : 0.0);
	if (done > 0)
		fprintf(stderr, "%.1f s left%s", el * (steps - done) / done,
			pg->r->tty ? "   " : "\n");
	else
		fprintf(stderr, "%.1f s in step 1%s", el, pg->r->tty ? "   " : "\n");
}

int
runner_run(struct runner *r, const struct sc_scenario *sc, const struct contender *c,
	   double bg_only, struct outcome *o)
{
	struct dp_kernel *kernel = NULL;
	struct sm_size_dist sizes;
	struct dp_run_params rp;
	struct dp_run_sink sink;
	struct runstats *rs = NULL;
	struct progress pg;
	double start;

	memset(o, 0, sizeof(*o));
	o->c = *c;
	o->pm_rc = -ENODATA;
	o->max_rel = NAN;
	o->pm_mean = NAN;
	o->fluid = NAN;
	o->bound = NAN;
	o->mg1_wait = NAN;
	o->warm_mean = NAN;
	o->model_rc = -ENODATA;
	memset(&sizes, 0, sizeof(sizes));
	o->rc = sc_background_sizes(sc, &sizes, o->err, sizeof(o->err));
	if (o->rc != 0)
		return o->rc;
	base_params(sc, c, &rp);
	rp.bg.sizes = &sizes;
	rp.run_id = r->next_run_id++;
	o->run_id = rp.run_id;
	rp.t0 = r->t0;
	rp.cap = r->cap;
	rp.pool = r->pool;
	rp.bg_only = bg_only > 0 ? sm_ps(bg_only) : 0;
	rp.fast_forward = sc->run.fast_forward != SC_FF_OFF;
	rp.window = sc->run.fast_forward != SC_FF_STEADY ? 0 :
		    sc->run.steady_window == SC_AUTO ? DP_WINDOW_AUTO : sm_ps(sc->run.steady_window);
	rp.partitions = sc->run.partitions != 0 ? sc->run.partitions : r->lcores;
	if (dp_ranks_size() > 1 && r->rt != NULL) {
		rp.partitions = 1;	/* real time: each rank runs its data centres (rt.h) */
	} else if (dp_ranks_size() > 1) {
		/* ranks: at least one partition each (auto: one per lcore of every rank) */
		uint32_t R = (uint32_t)dp_ranks_size();

		if (sc->run.partitions == 0)
			rp.partitions = r->lcores * R;
		if (rp.partitions < R)
			rp.partitions = R;
	}
	rp.lcores = r->lcores;
	if (rp.bg_only)
		rp.steps = 0;
	o->bg_only = bg_only > 0 ? bg_only : 0;
	o->auto_on = sc->run.partitions == 0 && dp_ranks_size() == 1 && r->rt == NULL &&
		     rp.bg_only == 0;
	if (sc->run.partitions == 0 && dp_ranks_size() == 1 && runner_jitter(sc)) {
		rp.partitions = 1;	/* jitter: a frame may arrive before the lookahead */
		o->auto_on = false;
	}
	pg.r = r;
	pg.label = c->label;
	pg.run_id = rp.run_id;
	pg.frames = 0;
	pg.dilation = r->rt != NULL ? sc->run.dilation : 0;
	pg.behind_said = false;
	pg.size_said = false;
	pg.trace0 = r->cap != NULL ? tr_pcapng_bytes(r->cap->w) : 0;
	rp.progress = on_step;
	rp.progress_arg = &pg;
	rp.budget_kind = sm_variant_has_module(c->var) ? (int)c->b : -1;
	rp.ctl_req = r->ctl_req;
	rp.ctl_resp = r->ctl_resp;
	rp.status = r->status;
	rp.stop = r->stop;
	rp.rt = r->rt;
	if (sc->kernel.file[0] != '\0' && sm_variant_has_module(c->var)) {
		o->rc = dp_kernel_load(&kernel, sc->kernel.file, sc->kernel.section, o->err,
				       sizeof(o->err));
		if (o->rc != 0) {
			sm_size_free(&sizes);
			return o->rc;
		}
		rp.kernel = kernel;
	}
	/* the steps, samples and transfers go into the statistics as they are made */
	o->rc = runstats_begin(&rs, r, sc, o, &sink);
	if (o->rc != 0) {
		snprintf(o->err, sizeof(o->err), "out of memory");
		dp_kernel_free(kernel);
		sm_size_free(&sizes);
		return o->rc;
	}
	rp.sink = &sink;
	if (o->auto_on)	/* one engine or a partition per lcore: a calibration says */
		rp.partitions = dp_auto_partitions(&rp, r->lcores, r->stop, &o->autop);
	start = wall_now();
	pg.t0 = pg.last = start;
	o->rc = dp_run(&rp, &o->res, o->err, sizeof(o->err));
	o->wall = wall_now() - start;
	dp_kernel_free(kernel);
	if (o->rc == 0) {
		/* the next run starts on a whole millisecond at least 1 ms later */
		r->t0 = (o->res.t_end / 1000000000 + 2) * 1000000000;
		o->rc = runstats_end(rs, &sizes, o);
		if (o->rc != 0)
			dp_run_result_free(&o->res);
	}
	runstats_free(rs);
	sm_size_free(&sizes);
	return o->rc;
}

void
outcome_free(struct outcome *o)
{
	dp_run_result_free(&o->res);
	free(o->first);
	free(o->last);
	free(o->regimes);
	free(o->qp.t);
	free(o->qp.bytes);
	o->first = o->last = NULL;
	o->regimes = NULL;
	o->qp.t = NULL;
	o->qp.bytes = NULL;
	o->nfirst = o->nlast = o->nregimes = 0;
}

double
outcome_mean(const struct outcome *o)
{
	return o->all.n ? o->all.mean : NAN;
}

uint32_t
outcome_kept(const struct outcome *o)
{
	return o->nfirst + o->nlast;
}

const struct kept_step *
outcome_kept_step(const struct outcome *o, uint32_t i)
{
	if (i < o->nfirst)
		return &o->first[i];
	i -= o->nfirst;
	return &o->last[o->nlast < o->keep ? i : (o->last_next + i) % o->keep];
}

static const char *const flag_text[OF_COUNT] = {
	[OF_FAILED] = "FAILED", [OF_INTERRUPTED] = "interrupted", [OF_REAL_TIME] = "real time",
	[OF_DROPS] = "drops", [OF_CHANGED] = "changed live", [OF_BOUND] = "bound not valid",
	[OF_OVERLAP] = "rounds overlap: no closed form", [OF_NO_CLOSED] = "no closed form",
	[OF_DIFFERS] = "differs from the closed form", [OF_NO_MODEL] = "no model",
	[OF_IMPAIRED] = "impaired: no closed form",
	[OF_BEHIND] = "host behind",
};
static const char *const flag_ids[OF_COUNT] = {
	[OF_FAILED] = "failed", [OF_INTERRUPTED] = "interrupted", [OF_REAL_TIME] = "real_time",
	[OF_DROPS] = "drops", [OF_CHANGED] = "changed_live", [OF_BOUND] = "bound_not_valid",
	[OF_OVERLAP] = "rounds_overlap", [OF_NO_CLOSED] = "no_closed_form",
	[OF_DIFFERS] = "differs", [OF_NO_MODEL] = "no_model", [OF_IMPAIRED] = "impaired",
	[OF_BEHIND] = "host_behind",
};

const char *
outcome_flag_id(enum outcome_flag f)
{
	return (unsigned int)f < OF_COUNT ? flag_ids[f] : "?";
}

unsigned int
outcome_flags(const struct outcome *o)
{
	unsigned int f = 0;
	uint64_t lost = 0;
	uint32_t i;

	if (o->rc != 0)
		return 1u << OF_FAILED;
	if (o->res.interrupted)
		f |= 1u << OF_INTERRUPTED;
	if (o->res.rt.on)
		f |= 1u << OF_REAL_TIME;
	if (o->res.rt.on && o->res.rt.lag_events > 0 && o->all.n > 0 &&
	    o->res.rt.lag_p99_ps / 1e12 > OUTCOME_BEHIND * o->all.mean)
		f |= 1u << OF_BEHIND;
	for (i = 0; i < o->res.n_elems; i++)
		if (o->res.elems[i].impaired) {
			f |= 1u << OF_IMPAIRED;
			lost += o->res.elems[i].lost + o->res.elems[i].corrupted;
		}
	if (o->res.drops > lost)
		f |= 1u << OF_DROPS;	/* the fluid models assume unlimited buffers */
	for (i = 0; i < o->res.nchanges; i++)
		if (o->res.changes[i].step != UINT32_MAX)
			f |= 1u << OF_CHANGED;	/* landed while a step ran */
	if (o->loaded)
		return f | (o->model_rc != 0 ? 1u << OF_NO_MODEL : 0);
	if (!o->bound_holds)
		f |= 1u << OF_BOUND;
	if (f & (1u << OF_IMPAIRED))
		return f;	/* the closed form and the fluid models know no loss or jitter */
	if (o->pm_rc == -ERANGE)
		f |= 1u << OF_OVERLAP;
	else if (o->pm_rc != 0)
		f |= 1u << OF_NO_CLOSED;
	else if (o->max_rel > 1e-6)
		f |= 1u << OF_DIFFERS;
	return f;
}

/*
 * The emulated time ran on at 1/dilation of real time while events waited: the run needed about
 * (1 + lag / step) as much real time per emulated second; twice that leaves room for the host's
 * hiccups.  At least twice the dilation, rounded up to 1, 2 or 5 times a power of ten.
 */
double
outcome_dilation_hint(const struct outcome *o)
{
	double d = o->res.rt.dilation, k = 1, x;

	if (o->all.n > 0 && o->all.mean > 0)
		k = 1 + o->res.rt.lag_p99_ps / 1e12 / o->all.mean;
	x = d * 2 * (k > 1 ? k : 1);
	for (double p = 1; p < 1e9; p *= 10)
		for (int m = 0; m < 3; m++) {
			double v = p * (m == 0 ? 1 : m == 1 ? 2 : 5);

			if (v >= x)
				return v;
		}
	return x;
}

const char *
outcome_status(const struct outcome *o, char *buf, size_t len)
{
	unsigned int f = outcome_flags(o);
	size_t used = 0;
	int k;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	for (k = 0; k < OF_COUNT; k++) {
		int w;

		if (!(f & (1u << k)))
			continue;
		w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", flag_text[k]);
		if (w < 0 || (size_t)w >= len - used)
			break;
		used += (size_t)w;
	}
	if (used == 0)
		snprintf(buf, len, "ok");
	return buf;
}

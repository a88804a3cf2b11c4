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

#include "bgsizes.h"
#include "eal.h"
#include "kernel_prog.h"
#include "pcapng.h"
#include "runner.h"
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
	rp->bg.probe_every = sm_ps(sc->trace.queue_sample);
}

uint32_t
runner_need(const struct sc_scenario *sc, const struct contender *c)
{
	struct dp_run_params rp;

	base_params(sc, c, &rp);
	return dp_run_pool_need(&rp);
}

int
runner_start(struct runner *r, uint32_t need, uint32_t frame_max, char *err, size_t errlen)
{
	int rc;

	if (r->mbufs)
		need = r->mbufs;
	rc = (r->apart ? dp_eal_init_apart : dp_eal_init)(r->eal, dp_pool_mem_mb(need, frame_max) +
							 r->extra_mb, err, errlen);
	if (rc != 0)
		return rc;
	r->pool = dp_pool_create("syncemu_frames", need, frame_max, err, errlen);
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
	return (uint32_t)(bytes >> 20) + (bytes ? 16 : 0);
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
	p.wait_ms = (int)(sc->ports.wait * 1e3);
	p.pool = r->pool;
	p.frame_max = SM_HDR_BYTES + sc->run.pk.payload;
	p.realtime = sc->run.time_source == SC_TIME_REALTIME;
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
		snprintf(err, errlen, "background load with the data centres split over two "
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
	if (r->rt != NULL) {
		dp_rt_close(r->rt);
		free(r->rt);
		r->rt = NULL;
	}
	if (r->pool != NULL)
		rte_mempool_free(r->pool);
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
};

static void
on_step(void *arg, uint32_t done, uint32_t steps, uint64_t frames)
{
	struct progress *pg = arg;
	double now = wall_now(), el = now - pg->t0;

	pg->frames += frames;
	/* a trace streamed to a reader gets each step as it ends (an error shows at the next write) */
	if (pg->r->cap != NULL && tr_pcapng_streams(pg->r->cap->w))
		tr_pcapng_flush(pg->r->cap->w);
	if (!pg->r->progress || (now - pg->last < (pg->r->tty ? 0.25 : 2.0) && done != steps))
		return;
	pg->last = now;
	fprintf(stderr, "%srun %u %s: step %u/%u, %.2f M frames, %.2f M frames/s, %.1f s left%s",
		pg->r->tty ? "\r" : "", pg->run_id, pg->label, done, steps, pg->frames / 1e6,
		el > 0 ? pg->frames / el / 1e6 : 0.0, done ? el * (steps - done) / done : 0.0,
		pg->r->tty ? "   " : "\n");
}

/* The step statistics and mean shares of the run. */
static void
step_stats(const struct sc_scenario *sc, struct outcome *o)
{
	uint32_t n = o->res.steps, s, w = sc->run.warmup < n ? sc->run.warmup : n;
	double *x = malloc((n ? n : 1) * sizeof(*x)), warm = 0;
	int k;

	memset(&o->all, 0, sizeof(o->all));
	memset(&o->steady, 0, sizeof(o->steady));
	o->warm_mean = NAN;
	if (x == NULL || n == 0) {
		free(x);
		return;
	}
	for (s = 0; s < n; s++) {
		x[s] = o->res.step[s].time / 1e12;
		if (s < w)
			warm += x[s];
		for (k = 0; k < SM_RES_COUNT; k++)
			o->share[k] += o->res.step[s].share[k] / n;
	}
	sm_stats(x, n, &o->all);
	if (w > 0)
		o->warm_mean = warm / w;
	if (n > w)
		sm_stats(x + w, n - w, &o->steady);
	free(x);
}

/* Zero load: the packet-level closed form and the fluid bound. */
static void
zero_load_models(const struct sc_scenario *sc, struct outcome *o)
{
	struct sm_program *prog = malloc(sizeof(*prog));
	uint32_t s;

	if (prog != NULL && sm_program_build(&sc->model, o->c.var, o->c.budget, prog) == 0)
		o->bound = sm_packet_fluid_bound(&sc->model, &sc->run.pk, prog);
	free(prog);
	if (o->res.steps == 0)
		return;
	o->pm = calloc(o->res.steps, sizeof(*o->pm));
	if (o->pm == NULL)
		return;
	o->pm_rc = sm_packet_model(&sc->model, &sc->run.pk, o->c.var, o->c.budget, o->res.steps,
				   o->pm);
	if (o->pm_rc != 0)
		return;
	o->max_rel = 0;
	for (s = 0; s < o->res.steps; s++) {
		double d = fabs((double)o->res.step[s].time - (double)o->pm[s].time_ps) /
			   (double)o->pm[s].time_ps;

		if (d > o->max_rel)
			o->max_rel = d;
	}
}

/* Under load: the fluid shared-WAN model (PS and FIFO), M/G/1 for the background. */
static void
loaded_models(const struct sc_scenario *sc, const struct sm_size_dist *sizes, struct outcome *o)
{
	struct sm_sharedwan_params wp;
	double lambda, es, es2, bw = sc->model.wan.bw;

	o->loaded = true;
	sm_sharedwan_default(&wp);
	wp.var = o->c.var;
	wp.budget = o->c.budget;
	wp.load = sc->background.load;
	wp.sizes = sizes;
	wp.directions = sc->background.directions == SC_DIRECTIONS_ONE ? 1 : 2;
	wp.seed = sc->run.seed;
	wp.n_syncs = o->res.steps ? o->res.steps : 1;
	wp.warmup = sc->run.warmup < wp.n_syncs ? sc->run.warmup : wp.n_syncs;
	wp.disc = SM_WAN_PS;
	wp.sync_one_flow = true;
	o->model_rc = sm_sharedwan_run(&sc->model, &wp, NULL, &o->ps);
	wp.disc = SM_WAN_FIFO;
	if (o->model_rc == 0)
		o->model_rc = sm_sharedwan_run(&sc->model, &wp, NULL, &o->fifo);
	lambda = sm_bg_rate(sc->background.load, bw, sizes);
	es = sizes->mean / bw;
	es2 = sm_size_moment2(sizes) / (bw * bw);
	o->mg1_wait = sm_mg1_wait(lambda, es, es2);
	o->bg_util = sc->background.load;
}

static void
background_stats(const struct dp_run_result *res, struct outcome *o)
{
	uint32_t i;
	uint64_t k;

	memset(&o->fct, 0, sizeof(o->fct));
	memset(&o->wait, 0, sizeof(o->wait));
	if (res->bg.done > 0) {
		sm_stats(res->bg.fct, (unsigned int)res->bg.done, &o->fct);
		sm_stats(res->bg.wait, (unsigned int)res->bg.done, &o->wait);
	}
	o->nq = res->q_links;
	for (i = 0; i < res->q_links && res->q_n > 0; i++) {
		double *x = malloc(res->q_n * sizeof(*x));
		struct sm_stats st;

		snprintf(o->q[i].name, sizeof(o->q[i].name), "%s", res->q_names[i]);
		if (x == NULL)
			continue;
		for (k = 0; k < res->q_n; k++)
			x[k] = (double)res->q_bytes[k * res->q_links + i];
		sm_stats(x, (unsigned int)res->q_n, &st);
		o->q[i].mean = st.mean;
		o->q[i].p99 = st.p99;
		o->q[i].max = st.max;
		free(x);
	}
}

int
runner_run(struct runner *r, const struct sc_scenario *sc, const struct contender *c,
	   double bg_only, struct outcome *o)
{
	struct dp_kernel *kernel = NULL;
	struct sm_size_dist sizes;
	struct dp_run_params rp;
	struct progress pg;
	struct sm_step fl;
	double start;

	memset(o, 0, sizeof(*o));
	o->c = *c;
	o->pm_rc = -ENODATA;
	o->max_rel = NAN;
	o->fluid = NAN;
	o->bound = NAN;
	o->mg1_wait = NAN;
	o->model_rc = -ENODATA;
	memset(&sizes, 0, sizeof(sizes));
	o->rc = sc_background_sizes(sc, &sizes, o->err, sizeof(o->err));
	if (o->rc != 0)
		return o->rc;
	base_params(sc, c, &rp);
	rp.bg.sizes = &sizes;
	rp.run_id = r->next_run_id++;
	rp.t0 = r->t0;
	rp.cap = r->cap;
	rp.pool = r->pool;
	rp.bg_only = bg_only > 0 ? sm_ps(bg_only) : 0;
	if (rp.bg_only)
		rp.steps = 0;
	pg.r = r;
	pg.label = c->label;
	pg.run_id = rp.run_id;
	pg.frames = 0;
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
	start = wall_now();
	pg.t0 = pg.last = start;
	o->rc = dp_run(&rp, &o->res, o->err, sizeof(o->err));
	o->wall = wall_now() - start;
	dp_kernel_free(kernel);
	if (o->rc == 0) {
		/* the next run starts on a whole millisecond at least 1 ms later */
		r->t0 = (o->res.t_end / 1000000000 + 2) * 1000000000;
		if (sm_step_eval(&sc->model, c->var, c->budget, &fl) == 0)
			o->fluid = fl.total;
		step_stats(sc, o);
		if (sc->background.load > 0)
			loaded_models(sc, &sizes, o);
		else
			zero_load_models(sc, o);
		background_stats(&o->res, o);
	}
	sm_size_free(&sizes);
	return o->rc;
}

void
outcome_free(struct outcome *o)
{
	dp_run_result_free(&o->res);
	free(o->pm);
	o->pm = NULL;
}

double
outcome_mean(const struct outcome *o)
{
	return o->all.n ? o->all.mean : NAN;
}

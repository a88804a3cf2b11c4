/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scenario files: the limits of the widths the values go into.
 *
 * Every key has a range (scenario_keys.c), but values within their ranges can still overflow
 * what they are turned into: a latency in 64-bit picoseconds, a rate in integer bytes per
 * second, a round's frames against the 32 bits of the frame header's sequence number, the run's
 * virtual time against its 64-bit clock.  Each limit below is one such width: a check that says
 * what overflows, and the keys that feed it, each with the direction in which it overflows.
 *
 *   the model's limits (every load): the times and rates the packet level converts (sm_ps(),
 *     sm_rate(), sm_ser_ps()), the WAN link's own delay (wan.latency - intra.latency, not
 *     negative), the fluid model's step, which must be finite, and a link-kernel
 *     program's context (32-bit fields; checked before the loader first runs the program);
 *   a run's limits (sc_scenario_load_run(): run, sweep, a live set): the program's rounds
 *     (SM_ROUNDS_MAX), a round's bytes (64 bits) and frames (the 32-bit sequence number), the
 *     queue limits (64 bits), the mbuf pool (a mempool counts in 32 bits), background transfers
 *     (frames per transfer against the 32-bit sequence number; the hosts' addresses 10.(200+d)),
 *     and the whole run's virtual time (2^63 ps,
 *     half the clock, of a zero-load upper bound: sm_packet_step_bound_ps()).
 *
 * A value that breaks a limit is refused naming the key it came from (of the keys that feed the
 * limit, the one set last: the last --set, else the last line of the file), the value, what
 * overflows, and the largest (or smallest) value of that key that works with the scenario's other
 * values, found by bisection over the key's doubles (or integers) on the limit's own check.
 */
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cfgfile.h>

#include "../models/bits.h"
#include "../models/kernel.h"
#include "../models/variant.h"
#include "bgsizes.h"
#include "scenario_impl.h"

/* A time in ps is at most 2^63 - 1 (sm_ps() rounds with llround()). */
#define TIME_PS_LIMIT 0x1p63
/* The data plane's clock: a run's virtual time at zero load within half of it. */
#define HORIZON_PS 0x1p63
/* Between two runs of one invocation the next starts up to 2 ms later (experiment/runner.c). */
#define RUN_GAP_PS 2e9
/* The largest frame a link charges: the largest payload, its headers, FCS, preamble and gap. */
#define CHARGE_MAX (SM_MTU_MAX - SM_IP_HDR - SM_UDP_HDR - SM_SE_HDR + SM_HDR_BYTES + \
		    SM_ETH_FCS + SM_ETH_PREAMBLE + SM_ETH_IFG)
/* Frames a round (or a background transfer) can number with the 32-bit sequence number. */
#define SEQ_COUNT 0x1p32
/* A mempool's size. */
#define POOL_MAX ((double)UINT32_MAX)

/* What a check sees: the scenario, and the contenders it covers (a run's: those it runs; the
 * model's limits: all of them). */
struct lim_ctx {
	const struct sc_scenario *t;
	unsigned int variants, budgets;
};

typedef int (*lim_fn)(const struct lim_ctx *c, const char *arg, char *why, size_t len);

#define LIM_KEYS 40

/* A limit: its check (arg: a key, for the checks of one key) and the keys that feed it, each
 * "+section.key" (too large overflows) or "-section.key" (too small). */
struct limit {
	lim_fn fn;
	const char *arg;
	bool run;
	const char *keys[LIM_KEYS];
	bool early;		/* checked before a link-kernel program is first run */
	bool workers;		/* of the paths between workers: not a bridge's link alone */
};

/* ------------------------------------------------------------------------------------------ */
/* Fields */

static const struct sc_key *
key_of(const char *dotted, char *sec, size_t len)
{
	const char *dot = strchr(dotted, '.');

	if (dot == NULL || (size_t)(dot - dotted) >= len)
		return NULL;
	snprintf(sec, len, "%.*s", (int)(dot - dotted), dotted);
	return sc_key_find(sec, dot + 1);
}

static double
get_num(const struct sc_scenario *t, const struct sc_key *def)
{
	const char *f = (const char *)t + def->off;
	uint32_t u;
	double x;

	if (def->type == KT_UINT) {
		memcpy(&u, f, sizeof(u));
		return u;
	}
	memcpy(&x, f, sizeof(x));
	return x;
}

static void
set_num(struct sc_scenario *t, const struct sc_key *def, double x)
{
	char *f = (char *)t + def->off;
	uint32_t u;

	if (def->type == KT_UINT) {
		u = (uint32_t)x;	/* within the key's range, at most 2^32 - 1 */
		memcpy(f, &u, sizeof(u));
	} else {
		memcpy(f, &x, sizeof(x));
	}
}

static double
field(const struct lim_ctx *c, const char *dotted)
{
	char sec[CFG_NAME_LEN];
	const struct sc_key *def = key_of(dotted, sec, sizeof(sec));

	return def != NULL ? get_num(c->t, def) : NAN;
}

/* Whether contender (v, b) is one the check covers. */
static bool
covered(const struct lim_ctx *c, int v, int b)
{
	bool mod = sm_variant_has_module((enum sm_variant)v);

	return (c->variants & (1u << v)) && (mod ? (c->budgets & (1u << b)) != 0 :
					     b == SM_BUDGET_FREE);
}

/* ------------------------------------------------------------------------------------------ */
/* The model's limits */

static int
lim_time(const struct lim_ctx *c, const char *key, char *why, size_t len)
{
	double x = field(c, key);

	if (x * 1e12 < TIME_PS_LIMIT)
		return 0;
	snprintf(why, len, "%g s in picoseconds is beyond the %.0f ps (%.1f days) that the 64 bits "
		 "of a time in picoseconds hold", x, TIME_PS_LIMIT, TIME_PS_LIMIT / 1e12 / 86400);
	return -ERANGE;
}

/* The WAN link's own delay, wan.latency - intra.latency (the model's WAN latency is worker to
 * worker across data centres, which crosses the links inside them), cannot be negative. */
static int
lim_wan_delay(const struct lim_ctx *c, const char *arg, char *why, size_t len)
{
	const struct sm_params *p = &c->t->model;

	(void)arg;
	if (p->topo.n_dc == 1 || p->wan.lat >= p->intra.lat)
		return 0;
	snprintf(why, len, "wan.latency (%g us) is below intra.latency (%g us): the WAN's latency "
		 "is worker to worker across data centres and includes the links inside them (the "
		 "WAN link carries the difference)", p->wan.lat * 1e6, p->intra.lat * 1e6);
	return -ERANGE;
}

/* The largest rate a link takes: sm_rate() into a uint64_t, and sm_ser_ps() of the largest
 * frame (bytes * 1e12 + rate - 1) still within 64 bits. */
static double
rate_max(void)
{
	uint64_t m = UINT64_MAX - (uint64_t)CHARGE_MAX * UINT64_C(1000000000000) + 1;
	double r = (double)m;

	while ((long double)r > (long double)m)
		r = nextafter(r, 0);
	return r;
}

static int
rate_check(double x, const char *what, char *why, size_t len)
{
	double max = rate_max();

	if (x <= max)
		return 0;
	snprintf(why, len, "%s of %g B/s does not fit the data plane's integer rates: at most "
		 "%.17g B/s (2^64 less the picoseconds of a %u-byte frame)", what, x, max,
		 (unsigned int)CHARGE_MAX);
	return -ERANGE;
}

static int
lim_rate(const struct lim_ctx *c, const char *key, char *why, size_t len)
{
	return rate_check(field(c, key), "a rate", why, len);
}

/* The module's stage rates as sm_links_build() derives them, at each budget. */
static int
lim_stage_rates(const struct lim_ctx *c, const char *arg, char *why, size_t len)
{
	const struct sm_params *p = &c->t->model;
	double compute_ops = 0, fpga_ops = 0, r;
	int i, b, rc;

	for (i = 0; i < SM_OP_COUNT; i++) {
		if (p->mod.compute_ops & (1u << i))
			compute_ops += p->mod.ops_per_byte[i];
		else
			fpga_ops += p->mod.ops_per_byte[i];
	}
	r = p->job.value_bytes * p->mod.lanes * p->mod.lane_rate / p->mod.planes;
	rc = rate_check(r, "the module's optics stage (value bytes x lanes x lane rate / planes)",
			why, len);
	for (b = 0; rc == 0 && b < SM_BUDGET_COUNT; b++) {
		double budget = sm_budget_value(&p->mod, (enum sm_budget)b);

		if (budget > 0 && compute_ops > 0)
			rc = rate_check(budget / compute_ops, "the module's compute stage (its "
					"budget / its ops per byte)", why, len);
		if (rc == 0 && budget > 0 && c->t->kernel.file[0] != '\0')
			rc = rate_check(budget, "a kernel program's compute budget", why, len);
	}
	if (rc == 0 && fpga_ops > 0)
		rc = rate_check(p->mod.fpga_rate / fpga_ops, "the module's FPGA stage (its rate / "
				"its ops per byte)", why, len);
	if (rc == 0 && c->t->kernel.file[0] != '\0')
		rc = rate_check(p->mod.fpga_rate, "a kernel program's FPGA rate", why, len);
	return rc;
}

static int
lim_fluid(const struct lim_ctx *c, const char *arg, char *why, size_t len)
{
	struct sm_step s;
	int v, b;

	for (v = 0; v < SM_VAR_COUNT; v++)
		for (b = 0; b < SM_BUDGET_COUNT; b++) {
			if (!covered(c, v, b))
				continue;
			if (sm_step_eval(&c->t->model, (enum sm_variant)v,
					 sm_budget_value(&c->t->model.mod, (enum sm_budget)b),
					 &s) != 0) {
				snprintf(why, len, "the model's step of %s%s%s%s is not a finite "
					 "number of seconds", sm_variant_name((enum sm_variant)v),
					 sm_variant_has_module((enum sm_variant)v) ? " [" : "",
					 sm_variant_has_module((enum sm_variant)v) ?
					 sm_budget_name((enum sm_budget)b) : "",
					 sm_variant_has_module((enum sm_variant)v) ? "]" : "");
				return -ERANGE;
			}
		}
	return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* A run's limits */

static void
contender_name(int v, int b, char *buf, size_t len)
{
	if (sm_variant_has_module((enum sm_variant)v))
		snprintf(buf, len, "%s [%s]", sm_variant_name((enum sm_variant)v),
			 sm_budget_name((enum sm_budget)b));
	else
		snprintf(buf, len, "%s", sm_variant_name((enum sm_variant)v));
}

static int
lim_rounds(const struct lim_ctx *c, const char *arg, char *why, size_t len)
{
	const struct sm_params *p = &c->t->model;
	struct sm_plan plan;
	unsigned int i, n;
	int v;

	for (v = 0; v < SM_VAR_COUNT; v++) {
		if (!(c->variants & (1u << v)))
			continue;
		sm_plan_build(p, (enum sm_variant)v, &plan);
		for (i = 0, n = 0; i < plan.n; i++)
			if (plan.ph[i].xfer != SM_XFER_DENSE)	/* part of the module's round */
				n += plan.ph[i].rounds;
		if (n > SM_ROUNDS_MAX) {
			snprintf(why, len, "variant %s on %u x %u workers (job.collective = %s) "
				 "is %u rounds a step, more than the %u a frame's 16-bit round "
				 "field numbers", sm_variant_name((enum sm_variant)v),
				 p->topo.n_dc, p->topo.per_dc,
				 sm_algo_name(sm_plan_algo(p)), n, SM_ROUNDS_MAX);
			return -ERANGE;
		}
	}
	return 0;
}

static int
lim_round_frames(const struct lim_ctx *c, const char *arg, char *why, size_t len)
{
	const struct sm_params *p = &c->t->model;
	uint32_t payload = c->t->run.pk.payload;
	struct sm_plan plan;
	unsigned int i;
	int v;

	for (v = 0; v < SM_VAR_COUNT; v++) {
		if (!(c->variants & (1u << v)))
			continue;
		sm_plan_build(p, (enum sm_variant)v, &plan);
		for (i = 0; i < plan.n; i++) {
			double bytes = ceil(plan.ph[i].bytes - 1e-6);	/* as sm_program_build() */

			if (bytes <= SEQ_COUNT * payload)
				continue;
			snprintf(why, len, "variant %s sends %.6g B per worker in a round (%s): %.6g "
				 "frames of %u B, more than the %.0f that a round's 32-bit frame "
				 "numbers count", sm_variant_name((enum sm_variant)v), bytes,
				 plan.ph[i].what, ceil(bytes / payload), payload, SEQ_COUNT);
			return -ERANGE;
		}
	}
	return 0;
}

static int
lim_queue(const struct lim_ctx *c, const char *key, char *why, size_t len)
{
	double x = field(c, key);

	if (x < 0x1p64)
		return 0;
	snprintf(why, len, "%g B does not fit the 64-bit byte count of a queue limit (at most "
		 "%.17g B)", x, nextafter(0x1p64, 0));
	return -ERANGE;
}

static bool
background_on(const struct lim_ctx *c)
{
	return c->t->background.load > 0 && c->t->model.topo.n_dc >= 2;
}

static int
lim_bg_addresses(const struct lim_ctx *c, const char *arg, char *why, size_t len)
{
	unsigned int n = c->t->model.topo.n_dc;

	if (!background_on(c) || n <= 56)
		return 0;
	snprintf(why, len, "with background traffic the hosts of data centre d have the addresses "
		 "10.(200 + d).x.y: %u data centres would go past 255 (at most 56)", n);
	return -ERANGE;
}

static int
lim_bg_frames(const struct lim_ctx *c, const char *arg, char *why, size_t len)
{
	const struct sc_background *bg = &c->t->background;
	uint32_t payload = c->t->run.pk.payload;
	struct sm_size_dist d;
	double max = 0;
	unsigned int i;
	char msg[256];

	if (!background_on(c))
		return 0;
	if (sc_background_sizes(c->t, &d, msg, sizeof(msg)) != 0)
		return 0;	/* the loader reports a bad size table */
	if (bg->sizes == SC_SIZES_FIXED)
		max = d.mean;
	else if (bg->sizes == SC_SIZES_EXP)
		max = -d.mean * log(0x1p-53);	/* the largest draw (models/rng.h) */
	for (i = 0; i < d.n; i++)
		if (d.size[i] > max)
			max = d.size[i];
	sm_size_free(&d);
	if (ceil(max) <= SEQ_COUNT * payload)
		return 0;
	snprintf(why, len, "a background transfer of up to %.6g B%s is %.6g frames of %u B, more "
		 "than the %.0f that its 32-bit frame numbers count", max,
		 bg->sizes == SC_SIZES_EXP ? " (the largest exponential draw, 36.7 x the mean)" : "",
		 ceil(max / payload), payload, SEQ_COUNT);
	return -ERANGE;
}

static int
lim_kernel(const struct lim_ctx *c, const char *arg, char *why, size_t len)
{
	const struct sm_params *p = &c->t->model;

	if (c->t->kernel.file[0] == '\0')
		return 0;
	if (p->job.value_bytes + 0.5 < 0x1p32 && p->mod.planes + 0.5 < 0x1p32)
		return 0;
	snprintf(why, len, "a link-kernel program is given value bytes (%g) and planes (%g) in "
		 "32-bit fields", p->job.value_bytes, p->mod.planes);
	return -ERANGE;
}

static int
lim_pool(const struct lim_ctx *c, const char *arg, char *why, size_t len)
{
	const struct sc_scenario *t = c->t;
	struct sm_program *prog = calloc(1, sizeof(*prog));
	int v, b, rc = 0;

	for (v = 0; prog != NULL && rc == 0 && v < SM_VAR_COUNT; v++)
		for (b = 0; rc == 0 && b < SM_BUDGET_COUNT; b++) {
			uint64_t need;
			char name[32];

			sm_program_free(prog);
			if (!covered(c, v, b) ||
			    sm_program_build(&t->model, (enum sm_variant)v,
					     sm_budget_value(&t->model.mod, (enum sm_budget)b),
					     prog) != 0)
				continue;	/* the rounds' limit says why */
			need = sm_packet_pool_count(&t->model, &t->run.pk, prog,
						    (uint64_t)t->queues.wan, t->queues.sync_lossless,
						    t->background.load > 0);
			if ((double)need <= POOL_MAX)
				continue;
			contender_name(v, b, name, sizeof(name));
			snprintf(why, len, "a run of %s needs %" PRIu64 " mbufs (what a WAN round and "
				 "the background can put in the WAN queues, the module's whole dense "
				 "input), more than the %.0f a mempool counts", name, need, POOL_MAX);
			rc = -ERANGE;
		}
	sm_program_free(prog);
	free(prog);
	return rc;
}

/* The zero-load upper bound of the runs' virtual time, ps (and the slowest step's contender). */
static double
runs_bound_ps(const struct lim_ctx *c, double *worst, char *name, size_t len)
{
	const struct sc_scenario *t = c->t;
	struct sm_program *prog = calloc(1, sizeof(*prog));
	double total = 0;
	int v, b;

	*worst = 0;
	if (prog == NULL)
		return 0;	/* the run reports it */
	for (v = 0; v < SM_VAR_COUNT; v++)
		for (b = 0; b < SM_BUDGET_COUNT; b++) {
			double step;

			if (!covered(c, v, b))
				continue;
			sm_program_free(prog);
			if (sm_program_build(&t->model, (enum sm_variant)v,
					     sm_budget_value(&t->model.mod, (enum sm_budget)b),
					     prog) != 0)
				continue;	/* the rounds' limit says why */
			step = sm_packet_step_bound_ps(&t->model, &t->run.pk, prog);
			if (isnan(step))
				continue;	/* no links to time: the model's check says why */
			if (!(step >= 0))
				step = INFINITY;
			total += (double)t->run.steps * step + RUN_GAP_PS;
			if (step >= *worst) {
				*worst = step;
				contender_name(v, b, name, len);
			}
		}
	sm_program_free(prog);
	free(prog);
	return total;
}

double
sc_runs_bound_s(const struct sc_scenario *s, unsigned int variants, unsigned int budgets)
{
	struct lim_ctx c = { .t = s, .variants = variants != 0 ? variants : s->variants,
			     .budgets = budgets != 0 ? budgets : s->budgets };
	char name[32];
	double worst;

	return runs_bound_ps(&c, &worst, name, sizeof(name)) / 1e12;
}

static int
lim_total_time(const struct lim_ctx *c, const char *arg, char *why, size_t len)
{
	char name[32] = "";
	double worst, total = runs_bound_ps(c, &worst, name, sizeof(name));

	if (total <= HORIZON_PS)
		return 0;
	snprintf(why, len, "the runs would take up to %.6g s of virtual time (run.steps = %u, a "
		 "step of %s up to %.6g s at zero load), beyond the %.0f ps (%.1f days, half the "
		 "data plane's 64-bit clock) a run may take", total / 1e12, c->t->run.steps, name,
		 worst / 1e12, HORIZON_PS, HORIZON_PS / 1e12 / 86400);
	return -ERANGE;
}

/* ------------------------------------------------------------------------------------------ */
/* The table */

/* What makes a step longer: too large ("+") or too small ("-"). */
#define STEP_KEYS \
	"+job.parameters", "+job.tokens", "+job.flops_per_param_token", "-gpu.peak", "-gpu.mfu", \
	"+job.value_bytes", "+job.index_bytes", "+job.keep", "+job.topk_kept", \
	"-intra.bandwidth", "+intra.latency", "-wan.bandwidth", "+wan.latency", "-module.port", \
	"-module.lanes", "-module.lane_rate", "+module.planes", "-module.budget_low", \
	"-module.budget_high", "-module.fpga_rate", "+module.latency_pluggable", \
	"+module.latency_network", "+module.ops_fft", "+module.ops_add", "+module.ops_mul", \
	"+module.ops_mac", "+module.ops_fpmac", "+module.ops_mod", "+module.ops_gather", \
	"-run.frame_payload"
/* What makes a round's bytes larger. */
#define BYTES_KEYS \
	"+job.parameters", "+job.value_bytes", "+job.index_bytes", "+job.keep", "+job.topk_kept", \
	"-run.frame_payload"

static const struct limit limits[] = {
	{ lim_time, "intra.latency", false, { "+intra.latency" }, false, false },
	{ lim_time, "wan.latency", false, { "+wan.latency" }, false, false },
	{ lim_time, "module.latency_pluggable", false, { "+module.latency_pluggable" }, false, false },
	{ lim_time, "module.latency_network", false, { "+module.latency_network" }, false, false },
	{ lim_time, "trace.queue_sample", false, { "+trace.queue_sample" }, false, false },
	{ lim_wan_delay, NULL, false, { "-wan.latency", "+intra.latency" }, false, true },
	{ lim_rate, "intra.bandwidth", false, { "+intra.bandwidth" }, false, false },
	{ lim_rate, "wan.bandwidth", false, { "+wan.bandwidth" }, false, false },
	{ lim_rate, "module.port", false, { "+module.port" }, false, false },
	{ lim_rate, "background.host_rate", false, { "+background.host_rate" }, false, false },
	{ lim_stage_rates, NULL, false,
	  { "+job.value_bytes", "+module.lanes", "+module.lane_rate", "-module.planes",
	    "+module.budget_low", "+module.budget_high", "+module.fpga_rate", "-module.ops_fft",
	    "-module.ops_add", "-module.ops_mul", "-module.ops_mac", "-module.ops_fpmac",
	    "-module.ops_mod", "-module.ops_gather" }, false, false },
	{ lim_fluid, NULL, false, { STEP_KEYS }, false, false },
	{ lim_rounds, NULL, true, { "+topology.workers_per_dc", "+topology.data_centres" }, false, false },
	{ lim_round_frames, NULL, true, { BYTES_KEYS }, false, false },
	{ lim_queue, "queues.nic", true, { "+queues.nic" }, false, false },
	{ lim_queue, "queues.port", true, { "+queues.port" }, false, false },
	{ lim_queue, "queues.switch", true, { "+queues.switch" }, false, false },
	{ lim_queue, "queues.wan", true, { "+queues.wan" }, false, false },
	{ lim_bg_addresses, NULL, true, { "+topology.data_centres" }, false, false },
	{ lim_bg_frames, NULL, true, { "+background.size", "-run.frame_payload" }, false, false },
	{ lim_kernel, NULL, false, { "+job.value_bytes", "+module.planes" }, true, false },
	{ lim_pool, NULL, true,
	  { BYTES_KEYS, "+queues.wan", "+run.burst", "+topology.workers_per_dc",
	    "+topology.data_centres" }, false, false },
	{ lim_total_time, NULL, true, { "+run.steps", STEP_KEYS }, false, false },
};
#define N_LIMITS (sizeof(limits) / sizeof(limits[0]))

_Static_assert(64 * 1024 <= 65536, "worker indices (topology.data_centres x workers_per_dc, "
	       "at most 64 x 1024) fit the frame header's 16-bit src and dst");

/* ------------------------------------------------------------------------------------------ */
/* Naming the key and its largest value */

/* One load's limits: the model's, and with a run the run's. */
struct lim_load {
	const struct sc_scenario *t;
	bool run;
	bool early;				/* only the limits before the kernel program */
	bool link;				/* a bridge's link: no paths between workers */
	unsigned int variants, budgets;		/* the run's contenders */
};

/* Check limit @p l on @p t as this load sees it. */
static int
eval(const struct lim_load *ld, const struct limit *l, const struct sc_scenario *t, char *why,
     size_t len)
{
	struct lim_ctx c = { .t = t, .variants = (1u << SM_VAR_COUNT) - 1,
			     .budgets = (1u << SM_BUDGET_COUNT) - 1 };

	if (l->run) {
		c.variants = ld->variants;
		c.budgets = ld->budgets;
	}
	return l->fn(&c, l->arg, why, len);
}

static bool
applies(const struct lim_load *ld, const struct limit *l)
{
	if (ld->link && l->workers)
		return false;
	if (ld->early)
		return l->early;
	return !l->run || ld->run;
}

/* The direction in which @p def feeds @p l: 1 (too large overflows), -1 (too small), 0 (not). */
static int
direction(const struct limit *l, const struct sc_key *def)
{
	char sec[CFG_NAME_LEN];
	unsigned int i;

	for (i = 0; i < LIM_KEYS && l->keys[i] != NULL; i++)
		if (key_of(l->keys[i] + 1, sec, sizeof(sec)) == def)
			return l->keys[i][0] == '+' ? 1 : -1;
	return 0;
}

/* How recently @p def was set: an override's index after every line, a line, or -1 (not). */
static long
recency(const struct loader *ld, const char *sec, const struct sc_key *def)
{
	unsigned int i, j;

	for (i = 0; i < ld->n_orig; i++) {
		const struct origin *o = &ld->orig[i];

		if (o->key[0] == '\0' || strcmp(o->sec, sec) != 0 || sc_key_find(sec, o->key) != def)
			continue;
		if (o->set == NULL)
			return (long)o->line;
		for (j = 0; j < ld->n_overrides; j++)
			if (ld->overrides[j] == o->set)
				return 1000000000L + (long)j;
		return 1000000000L;
	}
	return -1;
}

/*
 * With @p def at @p x in the copy @p t: the failing limit @p l and every other limit that @p def
 * feeds in the same direction @p dir hold.  Limits it feeds the other way (a rate both too large
 * for the integers and too small for the clock) are left to the check of the result.
 */
static bool
holds(const struct lim_load *ld, const struct limit *l, struct sc_scenario *t,
      const struct sc_key *def, int dir, double x)
{
	char why[512];
	unsigned int i;

	set_num(t, def, x);
	for (i = 0; i < N_LIMITS; i++) {
		const struct limit *m = &limits[i];

		if (applies(ld, m) && (m == l || direction(m, def) == dir) &&
		    eval(ld, m, t, why, sizeof(why)) != 0)
			return false;
	}
	return true;
}

/* Every limit of the load holds for @p t, and the loader's checks of the whole. */
static bool
all_hold(const struct lim_load *ld, const struct sc_scenario *t)
{
	char why[512];
	unsigned int i;

	if (sm_params_check(&t->model, NULL, 0) != 0 || sm_packet_check(&t->run.pk, NULL, 0) != 0)
		return false;
	for (i = 0; i < N_LIMITS; i++)
		if (applies(ld, &limits[i]) && eval(ld, &limits[i], t, why, sizeof(why)) != 0)
			return false;
	return true;
}

/*
 * A value of @p def on the @p dir side of @p x0 (smaller for dir > 0) that holds(): the end of
 * the key's range, else the first of x0 divided (or multiplied) by 1024 over and over that does
 * (the end of the range may break another check: job.parameters = 1 is below job.topk_kept).
 */
static bool
working_end(const struct lim_load *ld, const struct limit *l, struct sc_scenario *t,
	    const struct sc_key *def, int dir, double x0, double *good)
{
	double end, x;
	int i;

	if (def->type == KT_UINT)
		end = dir > 0 ? def->min : def->max;
	else if (dir > 0)
		end = def->flags & KF_MIN_OPEN ? nextafter(def->min, INFINITY) : def->min;
	else if (isinf(def->max))
		end = DBL_MAX;
	else
		end = def->flags & KF_MAX_OPEN ? nextafter(def->max, 0) : def->max;
	if (!(end >= 0) || !(x0 >= 0) || (dir > 0 ? end >= x0 : end <= x0))
		return false;
	if (holds(ld, l, t, def, dir, end)) {
		*good = end;
		return true;
	}
	x = x0;
	for (i = 0; i < 120; i++) {	/* 1024 times each: the whole range of doubles */
		if (dir > 0)
			x = def->type == KT_UINT ? floor(x / 1024) : x / 1024;
		else
			x = x == 0 ? (def->type == KT_UINT ? 1 : DBL_TRUE_MIN) : x * 1024;
		if (dir > 0 ? !(x > end) : !(x < end))
			return false;
		if (holds(ld, l, t, def, dir, x)) {
			*good = x;
			return true;
		}
	}
	return false;
}

/*
 * The largest (@p dir > 0) or smallest (@p dir < 0) value of @p def that holds(), between a
 * working one and the current value @p x0 (which does not): bisection over the integers, or
 * over the bits of the doubles (which order doubles >= 0).  false if no working value is found.
 */
static bool
boundary(const struct lim_load *ld, const struct limit *l, struct sc_scenario *t,
	 const struct sc_key *def, int dir, double x0, double *out)
{
	double good;

	if (!working_end(ld, l, t, def, dir, x0, &good))
		return false;
	if (def->type == KT_UINT) {
		double lo = dir > 0 ? good : x0, hi = dir > 0 ? x0 : good;

		while (hi - lo > 1) {
			double mid = floor((lo + hi) / 2);

			if (holds(ld, l, t, def, dir, mid) == (dir > 0))
				lo = mid;
			else
				hi = mid;
		}
		*out = dir > 0 ? lo : hi;
	} else {	/* doubles >= 0 are ordered as their bits */
		uint64_t lo = sm_double_bits(dir > 0 ? good : x0);
		uint64_t hi = sm_double_bits(dir > 0 ? x0 : good);

		while (hi - lo > 1) {
			uint64_t mid = lo + (hi - lo) / 2;

			if (holds(ld, l, t, def, dir, sm_bits_double(mid)) == (dir > 0))
				lo = mid;
			else
				hi = mid;
		}
		*out = sm_bits_double(dir > 0 ? lo : hi);
	}
	return true;
}

static void
value_text(const struct sc_key *def, double x, char *buf, size_t len)
{
	const char *s, *e;

	if (def->type == KT_UINT)
		snprintf(buf, len, "%.0f%s", x, def->unit == SC_UNIT_BYTES ? " B" : "");
	else if (sc_unit_format(def->unit, x, buf, len) != 0)
		snprintf(buf, len, "%.17g", x);
	for (s = buf; *s == ' '; s++)	/* a plain number comes with blanks around it */
		;
	for (e = s + strlen(s); e > s && e[-1] == ' '; e--)
		;
	memmove(buf, s, (size_t)(e - s));
	buf[e - s] = '\0';
}

/* The value of @p def as the file or --set wrote it, or NULL if not set. */
static const char *
written(const struct loader *ld, struct rte_cfgfile *cfg, const char *sec,
	const struct sc_key *def)
{
	unsigned int i;

	for (i = 0; i < ld->n_orig; i++)
		if (ld->orig[i].key[0] != '\0' && strcmp(ld->orig[i].sec, sec) == 0 &&
		    sc_key_find(sec, ld->orig[i].key) == def)
			return rte_cfgfile_get_entry(cfg, sec, ld->orig[i].key);
	return NULL;
}

/* Limit @p l fails with @p why: name a key and its largest (or smallest) working value. */
static int
refuse(struct loader *ld, struct rte_cfgfile *cfg, const struct lim_load *lo,
       const struct limit *l, const char *why)
{
	char secs[LIM_KEYS][CFG_NAME_LEN], val[SC_UNIT_FMT_LEN + 8], now[SC_UNIT_FMT_LEN + 8];
	struct sc_scenario *t = malloc(sizeof(*t)), *d = malloc(sizeof(*d));
	const struct sc_key *defs[LIM_KEYS];
	bool tried[LIM_KEYS] = { false }, culprit[LIM_KEYS] = { false };
	char scratch[512];
	long rank[LIM_KEYS];
	unsigned int n = 0, i, k;
	const char *w;
	int rc;

	for (i = 0; i < LIM_KEYS && l->keys[i] != NULL; i++) {
		defs[n] = key_of(l->keys[i] + 1, secs[n], sizeof(secs[n]));
		if (defs[n] != NULL) {
			rank[n] = recency(ld, secs[n], defs[n]);
			n++;
		}
	}
	/*
	 * A key that was set and whose built-in default brings the limit back is what broke it
	 * (job.tokens = 1e26 with the file's flops_per_param_token on a later line): those first.
	 * Then the keys that were set, the most recent first, then the others in the table's order.
	 */
	if (t != NULL && d != NULL) {
		sc_scenario_default(d);
		for (i = 0; i < n; i++) {
			if (rank[i] < 0)
				continue;
			memcpy(t, lo->t, sizeof(*t));
			set_num(t, defs[i], get_num(d, defs[i]));
			culprit[i] = eval(lo, l, t, scratch, sizeof(scratch)) == 0;
		}
	}
	free(d);
	for (k = 0; t != NULL && k < n; k++) {
		unsigned int best = n;
		double x0, b;
		int dir;

		for (i = 0; i < n; i++)
			if (!tried[i] && (best == n || culprit[i] > culprit[best] ||
					  (culprit[i] == culprit[best] && rank[i] > rank[best])))
				best = i;
		tried[best] = true;
		dir = direction(l, defs[best]);
		memcpy(t, lo->t, sizeof(*t));
		x0 = get_num(t, defs[best]);
		if (!boundary(lo, l, t, defs[best], dir, x0, &b))
			continue;
		memcpy(t, lo->t, sizeof(*t));
		set_num(t, defs[best], b);
		if (!all_hold(lo, t))
			continue;	/* another limit breaks there: try another key */
		value_text(defs[best], x0, now, sizeof(now));
		value_text(defs[best], b, val, sizeof(val));
		w = written(ld, cfg, secs[best], defs[best]);
		rc = sc_key_err(ld, secs[best], defs[best]->name, w != NULL ? w : now,
				"too %s: %s; the %s value that works is %s (with the scenario's other "
				"values)", dir > 0 ? "large" : "small", why,
				dir > 0 ? "largest" : "smallest", val);
		free(t);
		return rc;
	}
	free(t);
	for (k = 0, i = 0; i < n; i++)	/* no one key brings it back: the most recent */
		if (rank[i] > rank[k])
			k = i;
	if (n > 0) {
		value_text(defs[k], get_num(lo->t, defs[k]), now, sizeof(now));
		w = written(ld, cfg, secs[k], defs[k]);
		return sc_key_err(ld, secs[k], defs[k]->name, w != NULL ? w : now, "%s (no value "
				  "of this key alone makes it fit with the scenario's other values)",
				  why);
	}
	sc_err(ld, "%s: %s", ld->path != NULL ? ld->path : "scenario", why);
	return -EINVAL;
}

int
sc_limits_check(struct loader *ld, struct rte_cfgfile *cfg, const struct sc_scenario *t,
		const struct sc_run_sel *run, bool early)
{
	struct lim_load lo = { .t = t, .run = run != NULL, .early = early, .link = ld->link };
	char why[512];
	unsigned int i;

	if (run != NULL) {
		lo.variants = run->variants != 0 ? run->variants : t->variants;
		lo.budgets = run->budgets != 0 ? run->budgets : t->budgets;
	}
	for (i = 0; i < N_LIMITS; i++)
		if (applies(&lo, &limits[i]) && eval(&lo, &limits[i], t, why, sizeof(why)) != 0)
			return refuse(ld, cfg, &lo, &limits[i], why);
	return 0;
}

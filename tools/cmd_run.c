/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * syncemu run: emulate the sync on the packet data plane in virtual time and hold every step
 * against the packet-level closed form and the deck's fluid model.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "../traces/pcapng.h"
#include "capture.h"
#include "cli.h"
#include "eal.h"
#include "kernel.h"
#include "opts.h"
#include "packet.h"
#include "run.h"
#include "scenario.h"
#include "table.h"
#include "variant.h"

#define MAX_RUNS (SM_VAR_COUNT * SM_BUDGET_COUNT)

struct run_opts {
	const char *sets[CLI_MAX_SETS];
	unsigned int nsets;
	char *owned[8];			/* option values turned into overrides */
	unsigned int nowned;
	unsigned int variants, budgets;
	const char *eal;
	uint32_t mbufs;
	bool json, quiet, help;
};

enum { O_SET, O_STEPS, O_SEED, O_VARIANT, O_BUDGET, O_TRACE, O_CAPTURE, O_SNAPLEN, O_JSON,
       O_QUIET, O_EAL, O_MBUFS, O_HELP };

static const struct opt run_optv[] = {
	{ "set", 's', "SECTION.KEY=VALUE", "override a scenario key (repeatable)", O_SET },
	{ "steps", 'n', "N", "steps per run [run.steps: 10]", O_STEPS },
	{ "seed", 0, "N", "seed of every random source [run.seed: 1]", O_SEED },
	{ "variant", 'v', "LIST", "variants: A,B,C,E,C',E' or all [scenario's report]", O_VARIANT },
	{ "budget", 'b', "LIST", "module budgets: low,high,free or all [scenario's report]",
	  O_BUDGET },
	{ "trace", 't', "FILE", "pcapng trace, or none [trace.file: NAME.pcapng]", O_TRACE },
	{ "capture", 'c', "LIST", "capture points: tx,rx,nic,switch,wan,module,port,all [wan]",
	  O_CAPTURE },
	{ "snaplen", 0, "BYTES", "bytes kept per frame, 0 = all [trace.snaplen: 90, the headers]",
	  O_SNAPLEN },
	{ "json", 'j', NULL, "print JSON instead of text", O_JSON },
	{ "quiet", 'q', NULL, "no progress on stderr", O_QUIET },
	{ "eal", 0, "ARGS", "EAL arguments instead of the defaults (" DP_EAL_DEFAULT ")", O_EAL },
	{ "mbufs", 0, "N", "size of the mbuf pool [from the plan]", O_MBUFS },
	{ "help", 'h', NULL, "show this help", O_HELP },
};

#define N_OPTS (sizeof(run_optv) / sizeof(run_optv[0]))

/* An option that is a scenario key becomes an override, so that it is checked the same way. */
static int
as_set(struct run_opts *o, const char *key, const char *arg, char *err, size_t errlen)
{
	char *s;

	int rc;

	if (o->nowned == 8) {
		snprintf(err, errlen, "too many overrides");
		return -EINVAL;
	}
	if (asprintf(&s, "%s=%s", key, arg) < 0)
		return -ENOMEM;
	o->owned[o->nowned++] = s;
	rc = cli_add_set(o->sets, &o->nsets, s, err, errlen);
	return rc;
}

static int
run_opt(void *ctx, int id, const char *arg, char *err, size_t errlen)
{
	struct run_opts *o = ctx;
	char *end;
	unsigned long v;

	switch (id) {
	case O_SET:
		return cli_add_set(o->sets, &o->nsets, arg, err, errlen);
	case O_STEPS:
		return as_set(o, "run.steps", arg, err, errlen);
	case O_SEED:
		return as_set(o, "run.seed", arg, err, errlen);
	case O_TRACE:
		return as_set(o, "trace.file", arg, err, errlen);
	case O_CAPTURE:
		return as_set(o, "trace.capture", arg, err, errlen);
	case O_SNAPLEN:
		return as_set(o, "trace.snaplen", arg, err, errlen);
	case O_VARIANT:
		return cli_parse_variants(arg, &o->variants, err, errlen);
	case O_BUDGET:
		return cli_parse_budgets(arg, &o->budgets, err, errlen);
	case O_JSON:
		o->json = true;
		return 0;
	case O_QUIET:
		o->quiet = true;
		return 0;
	case O_EAL:
		o->eal = arg;
		return 0;
	case O_MBUFS:
		errno = 0;
		v = strtoul(arg, &end, 10);
		if (errno != 0 || *end != '\0' || end == arg || v < 1024 || v > 100000000) {
			snprintf(err, errlen, "--mbufs: '%s' is not a count in 1024..100000000", arg);
			return -EINVAL;
		}
		o->mbufs = (uint32_t)v;
		return 0;
	case O_HELP:
		o->help = true;
		return 0;
	}
	return -EINVAL;
}

static void
run_usage(FILE *f)
{
	opts_usage(f, "syncemu run [SCENARIO.ini] [options]",
		   "Emulate the gradient sync as frames on the packet data plane, in virtual time:\n"
		   "each selected variant (and module budget) runs for the given steps, and every\n"
		   "step is printed beside the packet-level closed form (what the data plane must\n"
		   "give at zero load, to the picosecond) and the deck's fluid model, with the share\n"
		   "of the step each resource held. A nanosecond pcapng trace is written with one\n"
		   "interface per capture point. Without a scenario file the built-in default is used\n"
		   "(2 DC x 4, 100 GbE WAN).",
		   run_optv, N_OPTS);
	fprintf(f, "\nThe packet settings are scenario keys: run.mtu, run.frame_payload,\n"
		   "run.accounting (payload|wire), run.sync (phase|step|none), run.burst, and the\n"
		   "queue limits queues.nic, queues.port, queues.switch, queues.wan.\n"
		   "\nexamples:\n"
		   "  syncemu run\n"
		   "  syncemu run scenarios/2dc4-8g.ini -v A -n 50 --trace none\n"
		   "  syncemu run -v \"E'\" -b free --capture all --snaplen 0 --trace ep.pcapng\n"
		   "  syncemu run --set run.accounting=wire --set run.mtu=1500 "
		   "--set run.frame_payload=1410B\n");
}

/* ---- one run ---- */

struct one {
	enum sm_variant var;
	enum sm_budget b;
	double budget;
	char label[16];
	struct dp_run_result res;
	struct sm_packet_step *pm;	/* packet-level closed form per step */
	int pm_rc;
	double fluid;			/* the deck's step, s */
	double bound;			/* (packet - fluid) / fluid bound */
	double wall;			/* s */
	double max_rel;			/* max |emulated - packet| / packet */
	int rc;
	char err[512];
};

struct progress {
	bool on, tty;
	const char *label;
	unsigned int run, runs;
	double t0, last;
	uint64_t frames;
};

static double
wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
on_step(void *arg, uint32_t done, uint32_t steps, uint64_t frames)
{
	struct progress *pg = arg;
	double now = wall_now(), el = now - pg->t0;

	pg->frames += frames;
	if (!pg->on || (now - pg->last < (pg->tty ? 0.25 : 2.0) && done != steps))
		return;
	pg->last = now;
	fprintf(stderr, "%srun %u/%u %s: step %u/%u, %.2f M frames, %.2f M frames/s, %.1f s left%s",
		pg->tty ? "\r" : "", pg->run, pg->runs, pg->label, done, steps, pg->frames / 1e6,
		el > 0 ? pg->frames / el / 1e6 : 0.0, done ? el * (steps - done) / done : 0.0,
		pg->tty ? "   " : "\n");
}

static void
evaluate(struct one *r, const struct sc_scenario *sc)
{
	struct sm_program *prog = malloc(sizeof(*prog));
	struct sm_step fl;
	uint32_t s;

	r->fluid = NAN;
	r->bound = NAN;
	r->max_rel = NAN;
	if (sm_step_eval(&sc->model, r->var, r->budget, &fl) == 0)
		r->fluid = fl.total;
	if (prog != NULL && sm_program_build(&sc->model, r->var, r->budget, prog) == 0)
		r->bound = sm_packet_fluid_bound(&sc->model, &sc->run.pk, prog);
	free(prog);
	r->pm = calloc(sc->run.steps, sizeof(*r->pm));
	r->pm_rc = r->pm == NULL ? -ENOMEM :
		sm_packet_model(&sc->model, &sc->run.pk, r->var, r->budget, sc->run.steps, r->pm);
	if (r->pm_rc != 0)
		return;
	r->max_rel = 0;
	for (s = 0; s < r->res.steps; s++) {
		double d = fabs((double)r->res.step[s].time - (double)r->pm[s].time_ps) /
			   (double)r->pm[s].time_ps;

		if (d > r->max_rel)
			r->max_rel = d;
	}
}

static double
mean_step(const struct one *r)
{
	double sum = 0;
	uint32_t s;

	for (s = 0; s < r->res.steps; s++)
		sum += (double)r->res.step[s].time;
	return r->res.steps ? sum / r->res.steps / 1e12 : NAN;
}

/* ---- output ---- */

static struct table *
steps_table(const struct one *r)
{
	static const struct tcol cols[] = {
		{ "step", "step", 0 }, { "emulated ms", "emulated_ms", 6 },
		{ "packet model ms", "packet_model_ms", 6 }, { "diff ns", "diff_ns", 3 },
		{ "fluid ms", "fluid_ms", 6 }, { "vs fluid %", "vs_fluid_pct", 4 },
		{ "frames", "frames", 0 }, { "compute %", "compute", 1 }, { "intra %", "intra", 1 },
		{ "WAN %", "wan", 1 }, { "port %", "module_port", 1 },
		{ "optics %", "module_optics", 1 }, { "mod compute %", "module_compute", 1 },
		{ "FPGA %", "module_fpga", 1 },
	};
	char title[128];
	struct table *t;
	uint32_t s;
	int k;

	snprintf(title, sizeof(title), "Run of %s: every step", r->label);
	t = table_create("steps", title, cols, sizeof(cols) / sizeof(cols[0]));
	if (t == NULL)
		return NULL;
	for (s = 0; s < r->res.steps; s++) {
		const struct dp_step_result *st = &r->res.step[s];
		double pm = r->pm != NULL && r->pm_rc == 0 ? (double)r->pm[s].time_ps : NAN;

		table_num(t, s);
		table_num(t, st->time / 1e9);
		table_num(t, pm / 1e9);
		table_num(t, ((double)st->time - pm) / 1e3);
		table_num(t, r->fluid * 1e3);
		table_num(t, 100.0 * (st->time / 1e12 - r->fluid) / r->fluid);
		table_num(t, (double)st->frames);
		for (k = 0; k < SM_RES_COUNT; k++)
			table_num(t, 100.0 * st->share[k]);
	}
	return t;
}

static struct table *
summary_table(struct one *runs, unsigned int n, const struct sc_scenario *sc)
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
		struct one *r = &runs[i];
		double share[SM_RES_COUNT] = { 0 }, pm = NAN;
		enum sm_resource hot = SM_RES_COMPUTE;
		uint32_t s;
		int k;

		for (s = 0; s < r->res.steps; s++)
			for (k = 0; k < SM_RES_COUNT; k++)
				share[k] += r->res.step[s].share[k];
		for (k = 1; k < SM_RES_COUNT; k++)
			if (share[k] > share[hot])
				hot = (enum sm_resource)k;
		if (r->pm != NULL && r->pm_rc == 0 && sc->run.steps > 0) {
			pm = 0;
			for (s = 0; s < sc->run.steps; s++)
				pm += (double)r->pm[s].time_ps;
			pm /= sc->run.steps;
		}
		table_str(t, r->label);
		table_num(t, r->res.steps);
		table_num(t, mean_step(r) * 1e3);
		table_num(t, pm / 1e9);
		table_num(t, r->max_rel);
		table_num(t, r->fluid * 1e3);
		table_num(t, 100.0 * (mean_step(r) - r->fluid) / r->fluid);
		table_num(t, 100.0 * r->bound);
		table_str(t, r->res.steps ? sm_resource_name(hot) : "-");
		table_num(t, (double)r->res.frames);
		table_num(t, (double)r->res.drops);
		table_num(t, r->wall > 0 ? r->res.frames / r->wall / 1e6 : NAN);
		table_str(t, r->rc != 0 ? "FAILED" : r->pm_rc == -ERANGE ? "ok (rounds overlap: "
			  "no closed form)" : r->pm_rc != 0 ? "ok (no closed form)" :
			  r->max_rel <= 1e-6 ? "ok" : "ok (differs from the closed form)");
	}
	table_note(t, "packet model: the packet-level closed form (models/packet.c); fluid: the "
		   "deck's model; bound: how far the packet step may exceed the fluid one (payload "
		   "accounting, phase sync)");
	table_note(t, "%s accounting, %s sync, MTU %u, %u-byte payloads, seed %" PRIu64,
		   sc->run.pk.account == SM_ACCOUNT_WIRE ? "wire" : "payload",
		   sc->run.pk.sync == SM_SYNC_PHASE ? "phase" : sc->run.pk.sync == SM_SYNC_STEP ?
		   "step" : "none", sc->run.pk.mtu, sc->run.pk.payload, sc->run.seed);
	return t;
}

static void
print_text(struct one *runs, unsigned int n, const struct sc_scenario *sc,
	   const struct dp_capture *cap, const char *trace_path)
{
	struct table *t;
	unsigned int i;

	printf("syncemu run: %s%s%s\n  %s\n\n", sc->name, sc->path[0] ? " from " : " (built in)",
	       sc->path, sc->desc);
	for (i = 0; i < n; i++) {
		if (runs[i].rc != 0) {
			printf("Run of %s FAILED: %s\n\n", runs[i].label, runs[i].err);
			continue;
		}
		t = steps_table(&runs[i]);
		if (t != NULL)
			table_print(t, stdout);
		table_free(t);
	}
	t = summary_table(runs, n, sc);
	if (t != NULL)
		table_print(t, stdout);
	table_free(t);
	if (trace_path != NULL && cap != NULL) {
		uint64_t total = 0;

		for (i = 0; i < cap->nif; i++)
			total += cap->frames[i];
		printf("trace: %s, %" PRIu64 " frames on %u interfaces\n", trace_path, total,
		       cap->nif);
		for (i = 0; i < cap->nif; i++)
			printf("  %-20s %" PRIu64 "\n", cap->names[i], cap->frames[i]);
	}
}

static json_t *
elems_json(const struct dp_run_result *res)
{
	json_t *a = json_array();
	uint32_t i;

	for (i = 0; a != NULL && i < res->n_elems; i++) {
		const struct dp_elem_summary *e = &res->elems[i];

		json_array_append_new(a, json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:f}",
						   "name", e->name, "kind", e->kind,
						   "rx", (json_int_t)e->rx, "tx", (json_int_t)e->tx,
						   "drop", (json_int_t)e->drop,
						   "max_queue_bytes", (json_int_t)e->max_qbytes,
						   "utilisation", e->util));
	}
	return a;
}

static int
print_json(struct one *runs, unsigned int n, const struct sc_scenario *sc,
	   const struct dp_capture *cap, const char *trace_path)
{
	json_t *root = json_object(), *ja = json_array(), *tr;
	struct table *t;
	unsigned int i;
	int rc = 0;

	if (root == NULL || ja == NULL) {
		json_decref(root);
		json_decref(ja);
		return -ENOMEM;
	}
	json_object_set_new(root, "syncemu", json_string(SYNCEMU_VERSION));
	json_object_set_new(root, "scenario", json_pack("{s:s, s:s, s:s, s:I}", "name", sc->name,
							"description", sc->desc, "path", sc->path,
							"seed", (json_int_t)sc->run.seed));
	for (i = 0; i < n; i++) {
		struct one *r = &runs[i];
		json_t *o = json_pack("{s:s, s:s, s:s, s:i, s:b}", "label", r->label,
				      "variant", sm_variant_name(r->var),
				      "budget", sm_variant_has_module(r->var) ?
				      sm_budget_name(r->b) : "-", "run_id", (int)(i + 1),
				      "ok", r->rc == 0);

		if (o == NULL)
			continue;
		if (r->rc != 0) {
			json_object_set_new(o, "error", json_string(r->err));
		} else {
			t = steps_table(r);
			if (t != NULL)
				json_object_set_new(o, "steps", table_json(t));
			table_free(t);
			json_object_set_new(o, "elements", elems_json(&r->res));
			json_object_set_new(o, "fluid_ms", json_real(r->fluid * 1e3));
			json_object_set_new(o, "fluid_bound", json_real(r->bound));
			json_object_set_new(o, "max_rel_diff", isnan(r->max_rel) ? json_null() :
					    json_real(r->max_rel));
			json_object_set_new(o, "events", json_integer((json_int_t)r->res.events));
			json_object_set_new(o, "wall_s", json_real(r->wall));
			if (r->res.has_module)
				json_object_set_new(o, "module_binding",
						    json_string(sm_stage_name(r->res.binding)));
		}
		json_array_append_new(ja, o);
	}
	json_object_set_new(root, "runs", ja);
	t = summary_table(runs, n, sc);
	if (t != NULL)
		json_object_set_new(root, "summary", table_json(t));
	table_free(t);
	if (trace_path != NULL && cap != NULL) {
		json_t *ifs = json_object();

		for (i = 0; ifs != NULL && i < cap->nif; i++)
			json_object_set_new(ifs, cap->names[i],
					    json_integer((json_int_t)cap->frames[i]));
		tr = json_pack("{s:s, s:o}", "file", trace_path, "frames", ifs);
		json_object_set_new(root, "trace", tr);
	}
	if (json_dumpf(root, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(12)) != 0)
		rc = -EIO;
	fputc('\n', stdout);
	json_decref(root);
	return rc;
}

/* ---- the command ---- */

static char *
trace_comment(const struct sc_scenario *sc, struct one *runs, unsigned int n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	unsigned int i;

	if (f == NULL)
		return NULL;
	fprintf(f, "syncemu %s run of scenario %s, seed %" PRIu64 "; runs:", SYNCEMU_VERSION,
		sc->name, sc->run.seed);
	for (i = 0; i < n; i++)
		fprintf(f, " %u=%s", i + 1, runs[i].label);
	fprintf(f, "\n");
	sc_scenario_dump(sc, f);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

int
cmd_run(int argc, char **argv)
{
	struct run_opts o = { .nsets = 0 };
	struct sc_scenario *sc = calloc(1, sizeof(*sc));
	struct dp_capture *cap = NULL;
	struct rte_mempool *pool = NULL;
	struct progress pg = { .on = false };
	struct one *runs = calloc(MAX_RUNS, sizeof(*runs));
	char err[512], *pos[1], *trace_path = NULL, *comment = NULL;
	unsigned int n = 0, i;
	uint32_t need = 0;
	int npos, rc = 0, status = CLI_EXIT_OK, v, b;
	dp_time_t t0 = 0;

	if (sc == NULL || runs == NULL) {
		fprintf(stderr, "syncemu run: out of memory\n");
		status = CLI_EXIT_FAIL;
		goto out;
	}
	npos = opts_parse(argc, argv, run_optv, N_OPTS, run_opt, &o, pos, 1, err, sizeof(err));
	if (npos < 0) {
		fprintf(stderr, "syncemu run: %s\n(try 'syncemu run --help')\n", err);
		status = CLI_EXIT_USAGE;
		goto out;
	}
	if (o.help) {
		run_usage(stdout);
		goto out;
	}
	if (sc_scenario_load(sc, npos ? pos[0] : NULL, o.sets, o.nsets, err, sizeof(err)) != 0) {
		fprintf(stderr, "syncemu run: %s\n", err);
		status = CLI_EXIT_INPUT;
		goto out;
	}
	if (o.variants)
		sc->variants = o.variants;
	if (o.budgets)
		sc->budgets = o.budgets;
	if (strcmp(sc->trace.file, "none") != 0) {
		uint32_t mask;

		if (dp_capture_parse(sc->trace.capture, &mask, err, sizeof(err)) != 0) {
			fprintf(stderr, "syncemu run: trace.capture: %s\n", err);
			status = CLI_EXIT_INPUT;
			goto out;
		}
		if (mask != 0) {
			cap = calloc(1, sizeof(*cap));
			if (cap == NULL || asprintf(&trace_path, sc->trace.file[0] ? "%s" : "%s.pcapng",
						     sc->trace.file[0] ? sc->trace.file : sc->name) < 0) {
				trace_path = NULL;
				fprintf(stderr, "syncemu run: out of memory\n");
				status = CLI_EXIT_FAIL;
				goto out;
			}
			cap->mask = mask;
		}
	}

	for (v = 0; v < SM_VAR_COUNT; v++) {
		for (b = 0; b < SM_BUDGET_COUNT; b++) {
			bool mod = sm_variant_has_module(v);
			struct one *r = &runs[n];
			struct dp_run_params rp = { .model = &sc->model, .pk = &sc->run.pk,
						    .steps = sc->run.steps };
			uint32_t k;

			if (!(sc->variants & (1u << v)) || (mod && !(sc->budgets & (1u << b))) ||
			    (!mod && b != SM_BUDGET_FREE))
				continue;
			r->var = (enum sm_variant)v;
			r->b = (enum sm_budget)b;
			r->budget = sm_budget_value(&sc->model.mod, b);
			snprintf(r->label, sizeof(r->label), mod ? "%s[%s]" : "%s",
				 sm_variant_name(v), sm_budget_name(b));
			rp.var = r->var;
			rp.budget = r->budget;
			rp.q_wan = (uint64_t)sc->queues.wan;
			k = dp_run_pool_need(&rp);
			if (k > need)
				need = k;
			n++;
		}
	}
	if (n == 0) {
		fprintf(stderr, "syncemu run: no variant selected\n");
		status = CLI_EXIT_USAGE;
		goto out;
	}
	if (o.mbufs)
		need = o.mbufs;

	rc = dp_eal_init(o.eal, dp_pool_mem_mb(need, SM_HDR_BYTES + sc->run.pk.payload), err,
			 sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "syncemu run: %s\n", err);
		status = CLI_EXIT_FAIL;
		goto out;
	}
	pool = dp_pool_create("syncemu_frames", need, SM_HDR_BYTES + sc->run.pk.payload, err,
			      sizeof(err));
	if (pool == NULL) {
		fprintf(stderr, "syncemu run: %s\n", err);
		status = CLI_EXIT_FAIL;
		goto out;
	}
	if (cap != NULL) {
		struct tr_pcapng_params tp = { .path = trace_path, .app = "syncemu " SYNCEMU_VERSION,
					       .snaplen = sc->trace.snaplen };

		comment = trace_comment(sc, runs, n);
		tp.comment = comment;
		cap->snaplen = sc->trace.snaplen ? sc->trace.snaplen : UINT32_MAX;
		cap->w = tr_pcapng_open(&tp);
		if (cap->w == NULL) {
			fprintf(stderr, "syncemu run: cannot write the trace %s: %s\n", trace_path,
				strerror(errno));
			status = CLI_EXIT_FAIL;
			goto out;
		}
	}

	pg.on = !o.quiet;
	pg.tty = isatty(STDERR_FILENO);
	pg.runs = n;
	for (i = 0; i < n; i++) {
		struct one *r = &runs[i];
		struct dp_run_params rp = {
			.model = &sc->model, .pk = &sc->run.pk, .var = r->var, .budget = r->budget,
			.steps = sc->run.steps, .run_id = i + 1, .t0 = t0,
			.q_nic = (uint64_t)sc->queues.nic, .q_port = (uint64_t)sc->queues.port,
			.q_sw = (uint64_t)sc->queues.sw, .q_wan = (uint64_t)sc->queues.wan,
			.cap = cap, .pool = pool, .progress = on_step, .progress_arg = &pg,
		};
		double start = wall_now();

		pg.run = i + 1;
		pg.label = r->label;
		pg.t0 = start;
		pg.last = start;
		pg.frames = 0;
		r->pm_rc = -ENODATA;	/* until evaluate() */
		r->rc = dp_run(&rp, &r->res, r->err, sizeof(r->err));
		r->wall = wall_now() - start;
		if (r->rc != 0) {
			status = CLI_EXIT_FAIL;
			fprintf(stderr, "%ssyncemu run: %s: %s\n", pg.on && pg.tty ? "\n" : "",
				r->label, r->err);
			continue;
		}
		evaluate(r, sc);
		/* the next run starts on the next whole millisecond after a 1 ms gap */
		t0 = (r->res.t_end / 1000000000 + 2) * 1000000000;
	}
	if (pg.on && pg.tty)
		fputc('\n', stderr);
	if (cap != NULL && status != CLI_EXIT_OK) {
		/* a run failed: its trace would be partial, so none is written */
		tr_pcapng_abort(cap->w);
		cap->w = NULL;
		fprintf(stderr, "syncemu run: no trace written (a run failed)\n");
	} else if (cap != NULL) {
		rc = tr_pcapng_close(cap->w);
		cap->w = NULL;
		if (rc != 0) {
			fprintf(stderr, "syncemu run: the trace %s was not written: %s\n", trace_path,
				strerror(-rc));
			status = CLI_EXIT_FAIL;
		}
	}
	if (o.json)
		rc = print_json(runs, n, sc, cap, status == CLI_EXIT_OK ? trace_path : NULL);
	else
		print_text(runs, n, sc, cap, status == CLI_EXIT_OK ? trace_path : NULL);
out:
	if (cap != NULL && cap->w != NULL)
		tr_pcapng_abort(cap->w);
	for (i = 0; runs != NULL && i < n; i++) {
		dp_run_result_free(&runs[i].res);
		free(runs[i].pm);
	}
	for (i = 0; i < o.nowned; i++)
		free(o.owned[i]);
	if (pool != NULL)
		rte_mempool_free(pool);
	dp_eal_fini();
	free(comment);
	free(trace_path);
	free(cap);
	free(runs);
	free(sc);
	return status;
}

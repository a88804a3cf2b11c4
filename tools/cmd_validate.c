/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * syncemu validate: read a capture, rebuild its syncs, and hold them against the model.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/mman.h>

#include <jansson.h>

#include "cli.h"
#include "kernel.h"
#include "opts.h"
#include "packet.h"
#include "reader.h"
#include "scenario.h"
#include "step.h"
#include "syncs.h"
#include "table.h"
#include "units.h"
#include "variant.h"

struct val_opts {
	const char *sets[CLI_MAX_SETS];
	unsigned int nsets;
	const char *scenario;
	const char *filter;
	char *filter_owned;
	double gap, period, alpha, beta, tolerance;
	bool generic, payload, json, help, have_alpha, have_beta;
	unsigned int variants, budgets;
};

enum { O_SCEN, O_SET, O_GENERIC, O_FILTER, O_HOSTS, O_PORTS, O_GAP, O_PERIOD, O_BYTES, O_ALPHA,
       O_BETA, O_VARIANT, O_BUDGET, O_TOL, O_JSON, O_HELP };

static const struct opt val_optv[] = {
	{ "scenario", 's', "FILE", "the model's scenario [a syncemu trace's own; else none]",
	  O_SCEN },
	{ "set", 0, "SECTION.KEY=VALUE", "override a scenario key (repeatable)", O_SET },
	{ "generic", 'g', NULL, "ignore syncemu headers: cut the trace into bursts", O_GENERIC },
	{ "filter", 'f', "BPF", "select packets with a libpcap filter, e.g. 'tcp and host 10.0.0.1'",
	  O_FILTER },
	{ "hosts", 0, "A,B,...", "select packets between these addresses", O_HOSTS },
	{ "ports", 0, "P,Q,...", "select packets to or from these ports", O_PORTS },
	{ "gap", 0, "TIME", "an idle gap this long ends a burst [automatic]", O_GAP },
	{ "period", 0, "TIME", "cut into periods of this length instead of at gaps", O_PERIOD },
	{ "bytes", 0, "wire|payload", "count frame bytes or TCP/UDP payload [wire]", O_BYTES },
	{ "alpha", 0, "TIME", "latency of a given alpha-beta model [fitted]", O_ALPHA },
	{ "beta", 0, "RATE", "bandwidth of a given alpha-beta model [fitted]", O_BETA },
	{ "variant", 'v', "V", "compare bursts with this variant's sync (needs --scenario)",
	  O_VARIANT },
	{ "budget", 'b', "B", "its module budget [free]", O_BUDGET },
	{ "tolerance", 't', "PERCENT", "exit 4 if any step or burst is off by more", O_TOL },
	{ "json", 'j', NULL, "print JSON instead of text", O_JSON },
	{ "help", 'h', NULL, "show this help", O_HELP },
};

#define N_OPTS (sizeof(val_optv) / sizeof(val_optv[0]))

/* "a,b" -> "(host a or host b)" (or port), and-ed with what --hosts or --ports gave before. */
static int
list_filter(struct val_opts *o, const char *word, const char *arg, char *err, size_t errlen)
{
	char *copy = strdup(arg), *item, *save = NULL, *f = NULL, *n;
	int rc = 0;

	if (copy == NULL)
		return -ENOMEM;
	for (item = strtok_r(copy, ",", &save); item != NULL; item = strtok_r(NULL, ",", &save)) {
		if (strpbrk(item, " ()'\"\\;") != NULL) {
			snprintf(err, errlen, "--%ss: '%s' is not one %s", word, item, word);
			rc = -EINVAL;
			break;
		}
		if (asprintf(&n, "%s%s%s %s", f ? f : "(", f ? " or " : "", word, item) < 0) {
			rc = -ENOMEM;
			break;
		}
		free(f);
		f = n;
	}
	free(copy);
	if (rc == 0 && f == NULL) {
		snprintf(err, errlen, "--%ss: an empty list", word);
		rc = -EINVAL;
	}
	if (rc == 0) {
		if (asprintf(&n, "%s%s%s)", o->filter_owned ? o->filter_owned : "",
			     o->filter_owned ? " and " : "", f) < 0) {
			rc = -ENOMEM;
		} else {
			free(o->filter_owned);
			o->filter_owned = n;
		}
	}
	free(f);
	return rc;
}

static int
val_opt(void *ctx, int id, const char *arg, char *err, size_t errlen)
{
	struct val_opts *o = ctx;
	char *end;

	switch (id) {
	case O_SCEN:
		o->scenario = arg;
		return 0;
	case O_SET:
		return cli_add_set(o->sets, &o->nsets, arg, err, errlen);
	case O_GENERIC:
		o->generic = true;
		return 0;
	case O_FILTER:
		o->filter = arg;
		return 0;
	case O_HOSTS:
		return list_filter(o, "host", arg, err, errlen);
	case O_PORTS:
		return list_filter(o, "port", arg, err, errlen);
	case O_GAP:
		return sc_unit_parse(SC_UNIT_TIME, arg, &o->gap, err, errlen) != 0 || !(o->gap > 0) ?
			(snprintf(err, errlen, "--gap: '%s' is not a time > 0", arg), -EINVAL) : 0;
	case O_PERIOD:
		return sc_unit_parse(SC_UNIT_TIME, arg, &o->period, err, errlen) != 0 ||
			!(o->period > 0) ?
			(snprintf(err, errlen, "--period: '%s' is not a time > 0", arg), -EINVAL) : 0;
	case O_BYTES:
		if (strcmp(arg, "wire") != 0 && strcmp(arg, "payload") != 0) {
			snprintf(err, errlen, "--bytes: '%s' (allowed: wire, payload)", arg);
			return -EINVAL;
		}
		o->payload = strcmp(arg, "payload") == 0;
		return 0;
	case O_ALPHA:
		o->have_alpha = true;
		return sc_unit_parse(SC_UNIT_TIME, arg, &o->alpha, err, errlen) != 0 ||
			o->alpha < 0 ?
			(snprintf(err, errlen, "--alpha: '%s' is not a time >= 0", arg), -EINVAL) : 0;
	case O_BETA:
		o->have_beta = true;
		return sc_unit_parse(SC_UNIT_BYTE_RATE, arg, &o->beta, err, errlen) != 0 ||
			!(o->beta > 0) ?
			(snprintf(err, errlen, "--beta: '%s' is not a rate > 0 (e.g. 12.5MB/s)", arg),
			 -EINVAL) : 0;
	case O_VARIANT:
		return cli_parse_variants(arg, &o->variants, err, errlen);
	case O_BUDGET:
		return cli_parse_budgets(arg, &o->budgets, err, errlen);
	case O_TOL:
		o->tolerance = strtod(arg, &end);
		if (end == arg || *end != '\0' || !(o->tolerance >= 0) || !isfinite(o->tolerance)) {
			snprintf(err, errlen, "--tolerance: '%s' is not a percentage >= 0", arg);
			return -EINVAL;
		}
		return 0;
	case O_JSON:
		o->json = true;
		return 0;
	case O_HELP:
		o->help = true;
		return 0;
	}
	return -EINVAL;
}

static void
val_usage(FILE *f)
{
	opts_usage(f, "syncemu validate TRACE [options]",
		   "Read a capture (pcap or pcapng, us or ns timestamps, gzip or not; Ethernet, raw\n"
		   "IP, Linux cooked or loopback frames), rebuild its syncs and hold them against a\n"
		   "model.\n"
		   "\n"
		   "A trace whose frames carry the syncemu header (syncemu's own, or syncemu frames\n"
		   "captured on a real network) is understood fully: runs, steps, rounds, capture\n"
		   "points, background, and each frame's queueing delay where it was captured at a\n"
		   "queue's .in and .out. Step times come from the workers' rx points (exact: capture\n"
		   "rx to have them) and are compared with the packet-level closed form and the fluid\n"
		   "model of the trace's own scenario (or --scenario).\n"
		   "\n"
		   "Any other trace (TCP or UDP between hosts, e.g. an MPI or NCCL-like all-reduce)\n"
		   "is cut into bursts between idle gaps (or periods) over the packets selected with\n"
		   "--filter, --hosts or --ports; an alpha-beta model (latency + bytes / bandwidth)\n"
		   "is fitted to the bursts, or given with --alpha and --beta, and with --scenario\n"
		   "and --variant each burst is compared with the variant's sync time.\n"
		   "\n"
		   "Exit codes: 0 ok, 1 failed, 2 bad command line, 3 bad trace or scenario,\n"
		   "4 an error beyond --tolerance.",
		   val_optv, N_OPTS);
	fprintf(f, "\nexamples:\n"
		   "  syncemu run -v A -n 5 -c tx,rx --trace a.pcapng && syncemu validate a.pcapng\n"
		   "  syncemu validate cluster.pcap.gz --ports 29500 --gap 200us --json\n"
		   "  syncemu validate link.pcap --filter 'tcp and src host 10.9.0.1' "
		   "--beta 12.5MB/s --tolerance 5\n");
}

/*
 * The scenario a syncemu trace carries in its header's comment (after the first line), loaded
 * from a file in memory (memfd_create(): nothing on disk, nothing left by a signal).
 */
static int
trace_scenario(struct tr_reader *r, const struct val_opts *o, struct sc_scenario *sc, char *err,
	       size_t errlen)
{
	const char *c = tr_reader_comment(r), *dump = strchr(c, '\n');
	char path[64];
	FILE *f;
	int fd, rc;

	if (o->scenario != NULL)
		return sc_scenario_load(sc, o->scenario, o->sets, o->nsets, err, errlen);
	if (strncmp(c, "syncemu ", 8) != 0 || dump == NULL) {
		snprintf(err, errlen, "the trace carries no scenario (give --scenario)");
		return -ENOENT;
	}
	fd = memfd_create("the trace's scenario", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	f = fdopen(dup(fd), "w");
	if (f == NULL) {
		rc = -errno;
		close(fd);
		return rc;
	}
	fputs(dump + 1, f);
	rc = fclose(f) == 0 ? 0 : -EIO;
	if (rc == 0)
		rc = sc_scenario_load(sc, path, o->sets, o->nsets, err, errlen);
	close(fd);
	return rc;
}

/* The label of run @id in the trace's comment ("runs: 1=A 2=E'[free]"). */
static int
run_label(const char *comment, uint32_t id, enum sm_variant *v, enum sm_budget *b, char *label,
	  size_t len)
{
	char key[16], name[16], *br;
	const char *p = strstr(comment, "runs:");
	int n;

	if (p == NULL)
		return -ENOENT;
	snprintf(key, sizeof(key), " %u=", id);
	p = strstr(p, key);
	if (p == NULL)
		return -ENOENT;
	p += strlen(key);
	n = (int)strcspn(p, " \n");
	if (n <= 0 || n >= (int)sizeof(name))
		return -ENOENT;
	snprintf(name, sizeof(name), "%.*s", n, p);
	snprintf(label, len, "%s", name);
	*b = SM_BUDGET_FREE;
	br = strchr(name, '[');
	if (br != NULL) {
		char *close = strchr(br, ']');

		if (close == NULL)
			return -ENOENT;
		*close = '\0';
		if (sm_budget_parse(br + 1, b) != 0)
			return -ENOENT;
		*br = '\0';
	}
	return sm_variant_parse(name, v);
}

struct verdict {
	double worst;		/* max |error| %, over what was compared */
	bool compared;
};

static void
verdict_add(struct verdict *v, double err_pct)
{
	if (!isfinite(err_pct))
		return;
	v->compared = true;
	if (fabs(err_pct) > v->worst)
		v->worst = fabs(err_pct);
}

static struct table *
points_table(const struct tr_syncs *s)
{
	static const struct tcol cols[] = {
		{ "capture point", "point", -1 }, { "frames", "frames", 0 },
		{ "bytes", "bytes", 0 }, { "background %", "background_pct", 1 },
		{ "queued frames", "delays", 0 }, { "mean delay us", "mean_delay_us", 3 },
		{ "sync mean us", "sync_mean_delay_us", 3 }, { "max delay us", "max_delay_us", 3 },
	};
	struct table *t = table_create("points", "Capture points: frames, background, queueing",
				       cols, sizeof(cols) / sizeof(cols[0]));
	uint32_t i;

	for (i = 0; t != NULL && i < s->npoints; i++) {
		const struct tr_point *p = &s->point[i];

		table_str(t, p->name);
		table_num(t, (double)p->frames);
		table_num(t, (double)p->bytes);
		table_num(t, p->bytes ? 100.0 * p->bg_bytes / p->bytes : NAN);
		table_num(t, (double)p->delays);
		table_num(t, p->delays ? p->delay_sum_ns / p->delays / 1e3 : NAN);
		table_num(t, p->fg_delays ? p->fg_delay_sum_ns / p->fg_delays / 1e3 : NAN);
		table_num(t, p->delays ? p->delay_max_ns / 1e3 : NAN);
	}
	if (t != NULL)
		table_note(t, "a queue's delay: from a frame's record at <queue>.in to its record at "
			   "<queue>.out (matched by the syncemu header)");
	return t;
}

/* One run of a syncemu trace against the model. */
static struct table *
run_table(struct tr_reader *r, const struct tr_run *run, const struct sc_scenario *sc,
	  bool have_sc, struct verdict *v, double *mean_ms, char *label, size_t llen)
{
	static const struct tcol cols[] = {
		{ "step", "step", 0 }, { "trace ms", "trace_ms", 6 },
		{ "packet model ms", "packet_model_ms", 6 }, { "error %", "error_pct", 6 },
		{ "fluid ms", "fluid_ms", 6 }, { "vs fluid %", "vs_fluid_pct", 4 },
		{ "rounds", "rounds", 0 }, { "frames", "frames", 0 },
	};
	struct sm_packet_step *pm = NULL;
	enum sm_variant var = SM_VAR_A;
	enum sm_budget bud = SM_BUDGET_FREE;
	struct sm_program *prog = NULL;
	double fluid = NAN, budget = 0, sum = 0;
	uint64_t prev = 0, compute_ns = 0;
	char title[160];
	struct table *t;
	bool know = false, loaded = have_sc && sc->background.load > 0;
	uint32_t s, n = 0;

	snprintf(label, llen, "run %u", run->run_id);
	if (run_label(tr_reader_comment(r), run->run_id, &var, &bud, label, llen) == 0 && have_sc)
		know = true;
	if (know) {
		struct sm_step fl;

		budget = sm_budget_value(&sc->model.mod, bud);
		if (sm_step_eval(&sc->model, var, budget, &fl) == 0)
			fluid = fl.total;
		prog = malloc(sizeof(*prog));
		if (prog != NULL && sm_program_build(&sc->model, var, budget, prog) == 0)
			compute_ns = prog->compute_ps / 1000;
		pm = calloc(run->nsteps ? run->nsteps : 1, sizeof(*pm));
		if (pm != NULL && (loaded || sm_packet_model(&sc->model, &sc->run.pk, var, budget,
							     run->nsteps, pm) != 0)) {
			free(pm);
			pm = NULL;
		}
	}
	free(prog);
	snprintf(title, sizeof(title), "Run %u (%s): steps rebuilt from the trace%s", run->run_id,
		 label, run->ends_at_rx ? "" : " (no rx points: ends at the last record)");
	t = table_create("steps", title, cols, sizeof(cols) / sizeof(cols[0]));
	for (s = 0; t != NULL && s < run->nsteps; s++) {
		const struct tr_step *st = &run->step[s];
		double ms, pmms = NAN, e;

		if (st->end_ns == 0)
			continue;
		if (s == 0) {
			/* the run began a compute phase before its first frame left */
			prev = know && st->first_dep_ns != UINT64_MAX ? st->first_dep_ns - compute_ns :
								     st->first_ns;
		}
		ms = (double)(st->end_ns - prev) / 1e6;
		prev = st->end_ns;
		if (pm != NULL)
			pmms = pm[s].time_ps / 1e9;
		e = 100.0 * (ms - pmms) / pmms;
		if (!loaded)
			verdict_add(v, isfinite(pmms) ? e : 100.0 * (ms / 1e3 - fluid) / fluid);
		table_num(t, s);
		table_num(t, ms);
		table_num(t, pmms);
		table_num(t, e);
		table_num(t, fluid * 1e3);
		table_num(t, 100.0 * (ms / 1e3 - fluid) / fluid);
		table_num(t, st->rounds);
		table_num(t, (double)st->frames);
		sum += ms;
		n++;
	}
	*mean_ms = n ? sum / n : NAN;
	if (t != NULL && loaded)
		table_note(t, "the scenario had background load %.3g: compare the mean with `syncemu "
			   "run`'s models; no per-step closed form", sc->background.load);
	if (t != NULL && !know)
		table_note(t, "no scenario or run label: the trace alone");
	free(pm);
	return t;
}

/* The share of the run's time each resource held, from the rounds' ends, beside the model's. */
static struct table *
hotspot_table(struct tr_reader *r, const struct tr_run *run, const struct sc_scenario *sc)
{
	static const struct tcol cols[] = {
		{ "resource", "resource", -1 }, { "trace %", "trace_pct", 1 },
		{ "model %", "model_pct", 1 },
	};
	double span[SM_RES_COUNT] = { 0 }, model[SM_RES_COUNT], total = 0;
	enum sm_variant var;
	enum sm_budget bud;
	struct sm_program *prog;
	struct sm_step fl;
	struct table *t;
	char label[32], title[96];
	uint64_t prev = 0;
	uint32_t s, k;

	if (run_label(tr_reader_comment(r), run->run_id, &var, &bud, label, sizeof(label)) != 0)
		return NULL;
	prog = malloc(sizeof(*prog));
	if (prog == NULL || sm_program_build(&sc->model, var, sm_budget_value(&sc->model.mod, bud),
					      prog) != 0 ||
	    sm_step_eval(&sc->model, var, sm_budget_value(&sc->model.mod, bud), &fl) != 0) {
		free(prog);
		return NULL;
	}
	sm_step_shares(&fl, model);
	for (s = 0; s < run->nsteps; s++) {
		const struct tr_step *st = &run->step[s];
		uint64_t mark;

		if (st->end_ns == 0 || st->first_dep_ns == UINT64_MAX)
			continue;
		if (s == 0)
			prev = st->first_dep_ns - prog->compute_ps / 1000;
		/* compute: until the step's first frame left */
		mark = st->first_dep_ns > prev ? st->first_dep_ns : prev;
		span[SM_RES_COMPUTE] += (double)(mark - prev);
		for (k = 0; k < st->rounds && k < prog->n && k < st->round_cap; k++) {
			uint64_t end = st->round_end[k];

			/* a round no worker receives (the module's) ends when the next one starts */
			if (end == 0 && k + 1 < st->rounds && st->round_dep[k + 1] != UINT64_MAX)
				end = st->round_dep[k + 1];

			if (end > mark) {
				span[prog->r[k].res] += (double)(end - mark);
				mark = end;
			}
		}
		prev = st->end_ns;
	}
	free(prog);
	for (k = 0; k < SM_RES_COUNT; k++)
		total += span[k];
	snprintf(title, sizeof(title), "Run %u (%s): hot spots", run->run_id, label);
	t = table_create("hotspots", title, cols, sizeof(cols) / sizeof(cols[0]));
	for (k = 0; t != NULL && k < SM_RES_COUNT; k++) {
		if (span[k] == 0 && model[k] == 0)
			continue;
		table_str(t, sm_resource_name(k));
		table_num(t, total > 0 ? 100.0 * span[k] / total : NAN);
		table_num(t, 100.0 * model[k]);
	}
	if (t != NULL)
		table_note(t, "each round charged to the resource the model charges it to, from the "
			   "last record of the round (rx points) to the next");
	if (t != NULL && var == SM_VAR_EP)
		table_note(t, "E': the dense hop to the module is inside the module's round here "
			   "(the model charges it to the intra-DC link)");
	return t;
}

/* The flows of a generic trace, largest first: where the bytes went. */
static struct table *
flows_table(const struct tr_bursts *b)
{
	static const struct tcol cols[] = {
		{ "flow", "flow", -1 }, { "proto", "proto", -1 }, { "packets", "packets", 0 },
		{ "bytes", "bytes", 0 }, { "share %", "share_pct", 1 },
	};
	struct table *t = table_create("flows", "Flows (one direction of a 5-tuple), largest first",
				       cols, sizeof(cols) / sizeof(cols[0]));
	uint64_t total = 0;
	uint32_t i;

	for (i = 0; i < b->nflows; i++)
		total += b->flow[i].bytes;
	for (i = 0; t != NULL && i < b->nflows && i < 20; i++) {
		const struct tr_flow *f = &b->flow[i];
		char a[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];

		inet_ntop(f->family == 6 ? AF_INET6 : AF_INET, f->src, a, sizeof(a));
		inet_ntop(f->family == 6 ? AF_INET6 : AF_INET, f->dst, d, sizeof(d));
		table_strf(t, "%s:%u > %s:%u", a, f->sport, d, f->dport);
		table_str(t, f->proto == 6 ? "tcp" : f->proto == 17 ? "udp" : "ip");
		table_num(t, (double)f->packets);
		table_num(t, (double)f->bytes);
		table_num(t, total ? 100.0 * f->bytes / total : NAN);
	}
	if (t != NULL && b->nflows > 20)
		table_note(t, "%u flows; the 20 largest shown", b->nflows);
	return t;
}

/* Bursts of a generic trace against the alpha-beta model and, optionally, a scenario. */
static struct table *
bursts_table(const struct tr_bursts *b, const struct tr_fit *m, const struct sc_scenario *sc,
	     bool have_sc, enum sm_variant var, double budget, struct verdict *v)
{
	static const struct tcol cols[] = {
		{ "burst", "burst", 0 }, { "start s", "start_s", 6 },
		{ "duration ms", "duration_ms", 6 }, { "bytes", "bytes", 0 },
		{ "packets", "packets", 0 }, { "flows", "flows", 0 },
		{ "alpha-beta ms", "alpha_beta_ms", 6 }, { "error %", "error_pct", 3 },
		{ "model sync ms", "model_sync_ms", 6 }, { "vs model %", "vs_model_pct", 3 },
		{ "period ms", "period_ms", 6 }, { "model step ms", "model_step_ms", 6 },
	};
	struct table *t = table_create("bursts", "Bursts of the trace", cols,
				       sizeof(cols) / sizeof(cols[0]));
	double sync = NAN, step = NAN;
	uint32_t i;

	if (have_sc) {
		struct sm_step fl;

		if (sm_step_eval(&sc->model, var, budget, &fl) == 0) {
			step = fl.total;
			sync = sm_step_sync(&fl);
		}
	}
	for (i = 0; t != NULL && i < b->n; i++) {
		const struct tr_burst *x = &b->b[i];
		double d = (x->end_ns - x->start_ns) / 1e9, ab = m->alpha + x->bytes / m->beta;
		double e = 100.0 * (d - ab) / ab;

		verdict_add(v, e);
		if (have_sc)
			verdict_add(v, 100.0 * (d - sync) / sync);
		table_num(t, i);
		table_num(t, (x->start_ns - b->b[0].start_ns) / 1e9);
		table_num(t, d * 1e3);
		table_num(t, (double)x->bytes);
		table_num(t, (double)x->packets);
		table_num(t, x->flows);
		table_num(t, ab * 1e3);
		table_num(t, e);
		table_num(t, sync * 1e3);
		table_num(t, 100.0 * (d - sync) / sync);
		table_num(t, i + 1 < b->n ? (b->b[i + 1].start_ns - x->start_ns) / 1e6 : NAN);
		table_num(t, step * 1e3);
	}
	return t;
}

static void
emit(struct table **tabs, unsigned int n, json_t *extra, bool json)
{
	unsigned int i;

	if (json) {
		json_t *root = extra, *tj = json_object();

		for (i = 0; i < n; i++)
			if (tabs[i] != NULL)
				json_object_set_new(tj, table_id(tabs[i]), table_json(tabs[i]));
		json_object_set_new(root, "tables", tj);
		json_dumpf(root, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(12));
		fputc('\n', stdout);
		return;
	}
	for (i = 0; i < n; i++)
		if (tabs[i] != NULL)
			table_print(tabs[i], stdout);
}

int
cmd_validate(int argc, char **argv)
{
	struct val_opts o = { .nsets = 0, .tolerance = NAN };
	struct sc_scenario *sc = calloc(1, sizeof(*sc));
	struct table *tabs[40] = { NULL };
	struct verdict v = { 0, false };
	struct tr_reader *r = NULL;
	struct tr_syncs syn;
	struct tr_bursts bur;
	json_t *root = json_object();
	char err[512], *pos[1];
	unsigned int nt = 0, i;
	int npos, rc, status = CLI_EXIT_OK;
	bool have_sc = false;

	memset(&syn, 0, sizeof(syn));
	memset(&bur, 0, sizeof(bur));
	if (sc == NULL || root == NULL) {
		status = CLI_EXIT_FAIL;
		goto out;
	}
	npos = opts_parse(argc, argv, val_optv, N_OPTS, val_opt, &o, pos, 1, err, sizeof(err));
	if (npos < 0 || (npos == 0 && !o.help)) {
		fprintf(stderr, "syncemu validate: %s\n(try 'syncemu validate --help')\n",
			npos < 0 ? err : "missing the trace");
		status = CLI_EXIT_USAGE;
		goto out;
	}
	if (o.help) {
		val_usage(stdout);
		goto out;
	}
	if (o.filter != NULL && o.filter_owned != NULL) {
		char *both;

		if (asprintf(&both, "(%s) and %s", o.filter, o.filter_owned) < 0) {
			status = CLI_EXIT_FAIL;
			goto out;
		}
		free(o.filter_owned);
		o.filter_owned = both;
	}
	r = tr_reader_open(pos[0], err, sizeof(err));
	if (r == NULL) {
		fprintf(stderr, "syncemu validate: %s\n", err);
		status = CLI_EXIT_INPUT;
		goto out;
	}
	json_object_set_new(root, "syncemu", json_string(SYNCEMU_VERSION));
	json_object_set_new(root, "trace", json_pack("{s:s, s:s, s:i}", "file", pos[0], "format",
						     tr_reader_format(r), "interfaces",
						     (int)tr_reader_ifcount(r)));
	if (!o.generic && o.filter == NULL && o.filter_owned == NULL) {
		rc = tr_syncs_read(r, &syn, err, sizeof(err));
		if (rc != 0) {
			fprintf(stderr, "syncemu validate: %s\n", err);
			status = rc == -ENOMEM ? CLI_EXIT_FAIL : CLI_EXIT_INPUT;
			goto out;
		}
	}
	if (syn.se_frames > 0) {
		/* a syncemu trace */
		json_t *runs = json_array();

		have_sc = trace_scenario(r, &o, sc, err, sizeof(err)) == 0;
		if (!have_sc && o.scenario != NULL) {
			fprintf(stderr, "syncemu validate: %s\n", err);
			status = CLI_EXIT_INPUT;
			goto out;
		}
		for (i = 0; i < syn.nruns && nt < 38; i++) {
			char label[32];
			double mean;

			tabs[nt++] = run_table(r, &syn.run[i], sc, have_sc, &v, &mean, label,
					       sizeof(label));
			if (have_sc && syn.has_rx && nt < 38)
				tabs[nt++] = hotspot_table(r, &syn.run[i], sc);
			json_array_append_new(runs, json_pack("{s:i, s:s, s:i, s:f, s:b}", "run_id",
					      (int)syn.run[i].run_id, "label", label, "steps",
					      (int)syn.run[i].nsteps, "mean_ms",
					      isfinite(mean) ? mean : 0.0, "ends_at_rx",
					      syn.run[i].ends_at_rx));
		}
		tabs[nt++] = points_table(&syn);
		json_object_set_new(root, "mode", json_string("syncemu"));
		json_object_set_new(root, "runs", runs);
		json_object_set_new(root, "frames", json_pack("{s:I, s:I, s:I}", "all",
				    (json_int_t)syn.frames, "syncemu", (json_int_t)syn.se_frames,
				    "unordered", (json_int_t)syn.unordered));
		if (!o.json)
			printf("syncemu validate: %s (%s): %" PRIu64 " frames, %" PRIu64 " with the "
			       "syncemu header, %u runs%s%s\n\n", pos[0], tr_reader_format(r),
			       syn.frames, syn.se_frames, syn.nruns, have_sc ? ", scenario " : "",
			       have_sc ? sc->name : "");
	} else {
		/* a generic trace: bursts */
		struct tr_burst_params bp = {
			.filter = o.filter_owned ? o.filter_owned : o.filter,
			.gap_s = o.gap, .period_s = o.period, .payload = o.payload,
		};
		struct tr_fit fit, model;
		enum sm_variant var = SM_VAR_A;
		enum sm_budget bud = SM_BUDGET_FREE;

		if (syn.frames > 0) {
			tr_reader_close(r);
			r = tr_reader_open(pos[0], err, sizeof(err));
			if (r == NULL) {
				fprintf(stderr, "syncemu validate: %s\n", err);
				status = CLI_EXIT_INPUT;
				goto out;
			}
		}
		rc = tr_bursts_read(r, &bp, &bur, err, sizeof(err));
		if (rc != 0) {
			fprintf(stderr, "syncemu validate: %s\n", err);
			status = rc == -ENOMEM ? CLI_EXIT_FAIL : CLI_EXIT_INPUT;
			goto out;
		}
		if (bur.n == 0) {
			fprintf(stderr, "syncemu validate: %s: no packet selected (%" PRIu64
				" packets, %" PRIu64 " not IP)%s%s\n", pos[0], bur.packets,
				bur.not_ip, bp.filter ? "; filter: " : "", bp.filter ? bp.filter : "");
			status = CLI_EXIT_INPUT;
			goto out;
		}
		if (o.scenario != NULL) {
			if (sc_scenario_load(sc, o.scenario, o.sets, o.nsets, err, sizeof(err)) != 0) {
				fprintf(stderr, "syncemu validate: %s\n", err);
				status = CLI_EXIT_INPUT;
				goto out;
			}
			have_sc = o.variants != 0;
			for (i = 0; i < SM_VAR_COUNT; i++)
				if (o.variants & (1u << i)) {
					var = (enum sm_variant)i;
					break;
				}
			for (i = 0; i < SM_BUDGET_COUNT; i++)
				if (o.budgets & (1u << i)) {
					bud = (enum sm_budget)i;
					break;
				}
		}
		tr_fit_alpha_beta(bur.b, bur.n, &fit);
		/* a given model: what is given, latency 0 if only the bandwidth is */
		model = fit;
		if (o.have_alpha || o.have_beta)
			model.alpha = o.have_alpha ? o.alpha : 0;
		if (o.have_beta)
			model.beta = o.beta;
		tabs[nt++] = bursts_table(&bur, &model, sc, have_sc, var,
					  have_sc ? sm_budget_value(&sc->model.mod, bud) : 0, &v);
		tabs[nt++] = flows_table(&bur);
		json_object_set_new(root, "mode", json_string("bursts"));
		json_object_set_new(root, "split", json_pack(
			"{s:s, s:I, s:I, s:I, s:i, s:o, s:o, s:o}", "how", bur.how,
			"packets", (json_int_t)bur.packets, "selected", (json_int_t)bur.selected,
			"not_ip", (json_int_t)bur.not_ip, "bursts", (int)bur.n,
			"gap_s", isfinite(bur.gap_s) ? json_real(bur.gap_s) : json_null(),
			"max_gap_inside_s", json_real(bur.max_inside_s),
			"min_gap_between_s", isfinite(bur.min_between_s) ?
			json_real(bur.min_between_s) : json_null()));
		json_object_set_new(root, "fit", json_pack(
			"{s:f, s:f, s:o, s:b}", "alpha_s", fit.alpha, "beta_Bps", fit.beta,
			"r2", isfinite(fit.r2) ? json_real(fit.r2) : json_null(),
			"alpha_identifiable", !fit.alpha_fixed));
		json_object_set_new(root, "model", json_pack("{s:f, s:f, s:s}", "alpha_s",
				    model.alpha, "beta_Bps", model.beta, "from",
				    o.have_alpha || o.have_beta ? "given" : "fitted"));
		if (!o.json) {
			printf("syncemu validate: %s (%s): %" PRIu64 " packets, %" PRIu64
			       " selected%s%s\n", pos[0], tr_reader_format(r), bur.packets,
			       bur.selected, bp.filter ? " by " : "", bp.filter ? bp.filter : "");
			printf("  %s: %u bursts; largest gap inside a burst %.6g s, smallest between "
			       "bursts %.6g s\n", bur.how, bur.n, bur.max_inside_s, bur.min_between_s);
			printf("  alpha-beta fitted: alpha %.6g s, beta %.6g B/s (%.6g Mbit/s)%s, "
			       "R^2 %.6f\n", fit.alpha, fit.beta, fit.beta * 8 / 1e6,
			       fit.alpha_fixed ? " (one size: alpha not identifiable, 0)" : "",
			       fit.r2);
			if (o.have_alpha || o.have_beta)
				printf("  alpha-beta given: alpha %.6g s, beta %.6g B/s\n",
				       model.alpha, model.beta);
			printf("\n");
		}
	}
	if (v.compared)
		json_object_set_new(root, "max_error_pct", json_real(v.worst));
	emit(tabs, nt, root, o.json);
	if (!o.json && syn.unordered > 0)
		printf("note: %" PRIu64 " packets came with a timestamp below the previous one\n",
		       syn.unordered);
	if (isfinite(o.tolerance) && v.compared && v.worst > o.tolerance) {
		fprintf(stderr, "syncemu validate: the largest error is %.3g %%, over the "
			"tolerance of %.3g %%\n", v.worst, o.tolerance);
		status = CLI_EXIT_TOLERANCE;
	}
out:
	for (i = 0; i < nt; i++)
		table_free(tabs[i]);
	tr_syncs_free(&syn);
	tr_bursts_free(&bur);
	tr_reader_close(r);
	json_decref(root);
	free(o.filter_owned);
	free(sc);
	return status;
}

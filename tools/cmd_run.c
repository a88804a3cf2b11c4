/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * syncemu run: emulate the sync on the packet data plane in virtual time and hold every step
 * against the packet-level closed form and the deck's fluid model.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include <rte_ring.h>

#include "../traces/pcapng.h"
#include "cli.h"
#include "ctl.h"
#include "eal.h"
#include "opts.h"
#include "outputs.h"
#include "runner.h"
#include "table.h"
#include "units.h"
#include "variant.h"

struct run_opts {
	const char *sets[CLI_MAX_SETS];
	const char *from[CLI_MAX_SETS];	/* the option an override came from; NULL: --set */
	unsigned int nsets;
	char *owned[16];		/* option values turned into overrides, their names */
	unsigned int nowned;
	unsigned int variants, budgets;
	const char *eal;
	const char *queue_csv;
	const char *ctl;
	uint32_t mbufs;
	double bg_only;
	bool json, quiet, every_step, help;
	bool trace_cli;			/* trace.file comes from the command line */
	const char *shaped;		/* --capture or --snaplen as given, NULL: neither */
};

/* Whether an override sets trace.file ("trace.file=x", blanks allowed around the names). */
static bool
sets_trace_file(const char *s)
{
	size_t n;

	s += strspn(s, " \t");
	if (strncmp(s, "trace", 5) != 0)
		return false;
	s += 5 + strspn(s + 5, " \t");
	if (*s++ != '.')
		return false;
	s += strspn(s, " \t");
	if (strncmp(s, "file", 4) != 0)
		return false;
	n = 4 + strspn(s + 4, " \t");
	return s[n] == '=';
}

enum { O_SET, O_STEPS, O_SEED, O_VARIANT, O_BUDGET, O_LOAD, O_TRACE, O_CAPTURE, O_SNAPLEN,
       O_JSON, O_QUIET, O_EVERY, O_QCSV, O_BGONLY, O_CTL, O_EAL, O_MBUFS, O_HELP };

static const struct opt run_optv[] = {
	{ "set", 's', "SECTION.KEY=VALUE", "override a scenario key (repeatable)", O_SET },
	{ "steps", 'n', "N", "steps per run [run.steps: 200]", O_STEPS },
	{ "seed", 0, "N", "seed of every random source [run.seed: 1]", O_SEED },
	{ "variant", 'v', "LIST", "variants: A,B,C,E,C',E' or all [scenario's report]", O_VARIANT },
	{ "budget", 'b', "LIST", "module budgets: low,high,free or all [scenario's report]",
	  O_BUDGET },
	{ "load", 'l', "FRACTION", "background load on the WAN [background.load: 0]", O_LOAD },
	{ "trace", 't', "FILE", "write a pcapng trace: a file, a FIFO or - (stdout) [trace.file: "
	  "none]", O_TRACE },
	{ "capture", 'c', "LIST", "capture points: tx,rx,nic,switch,wan,module,port,all [wan]",
	  O_CAPTURE },
	{ "snaplen", 0, "BYTES", "bytes kept per frame, 0 = all [trace.snaplen: 90, the headers]",
	  O_SNAPLEN },
	{ "json", 'j', NULL, "print JSON instead of text", O_JSON },
	{ "quiet", 'q', NULL, "no progress on stderr", O_QUIET },
	{ "every-step", 'e', NULL, "print every step (default: up to 20; past 2000, the first and "
	  "last 1000)", O_EVERY },
	{ "queue-csv", 0, "FILE", "write every sample of the WAN queues as CSV, as it is taken",
	  O_QCSV },
	{ "background-only", 0, "TIME", "no sync: background alone for TIME (e.g. 2s)", O_BGONLY },
	{ "ctl", 0, "SOCKET", "serve runtime control on this UNIX socket (see syncemu ctl)", O_CTL },
	{ "eal", 0, "ARGS", "EAL arguments instead of the defaults (" DP_EAL_DEFAULT ")",
	  O_EAL | OPT_DASH_VALUE },
	{ "mbufs", 0, "N", "size of the mbuf pool [from the plan]", O_MBUFS },
	{ "help", 'h', NULL, "show this help", O_HELP },
};

#define N_OPTS (sizeof(run_optv) / sizeof(run_optv[0]))

/*
 * An option that is a scenario key becomes an override: its value is checked now by the key's
 * own rule (a bad one is a bad command line), and the loader names the option in what only the
 * whole scenario can check.
 */
static int
as_set(struct run_opts *o, const char *key, const char *arg, char *err, size_t errlen)
{
	char *s, *from;
	int rc;

	if (o->nowned + 2 > sizeof(o->owned) / sizeof(o->owned[0])) {
		snprintf(err, errlen, "too many overrides");
		return -EINVAL;
	}
	rc = cli_key_option(key, arg, &s, &from, err, errlen);
	if (rc != 0)
		return rc;
	o->owned[o->nowned++] = s;
	o->owned[o->nowned++] = from;
	if (o->nsets < CLI_MAX_SETS)
		o->from[o->nsets] = from;
	return cli_add_set(o->sets, &o->nsets, s, err, errlen);
}

static int
run_opt(void *ctx, int id, const char *arg, char *err, size_t errlen)
{
	struct run_opts *o = ctx;
	unsigned long v;

	switch (id) {
	case O_SET:
		if (sets_trace_file(arg))
			o->trace_cli = true;
		return cli_add_set(o->sets, &o->nsets, arg, err, errlen);
	case O_STEPS:
		return as_set(o, "run.steps", arg, err, errlen);
	case O_SEED:
		return as_set(o, "run.seed", arg, err, errlen);
	case O_TRACE:
		o->trace_cli = true;
		return as_set(o, "trace.file", arg, err, errlen);
	case O_LOAD:
		return as_set(o, "background.load", arg, err, errlen);
	case O_EVERY:
		o->every_step = true;
		return 0;
	case O_QCSV:
		o->queue_csv = arg;
		return 0;
	case O_CTL:
		o->ctl = arg;
		return 0;
	case O_BGONLY:
		if (sc_unit_parse(SC_UNIT_TIME, arg, &o->bg_only, err, errlen) != 0 ||
		    !(o->bg_only > 0) || o->bg_only > 3600) {
			snprintf(err, errlen, "%s: '%s' is not a time in (0, 1 h]",
				 opts_spelling(), arg);
			return -EINVAL;
		}
		return 0;
	case O_CAPTURE:
		o->shaped = "--capture";
		return as_set(o, "trace.capture", arg, err, errlen);
	case O_SNAPLEN:
		o->shaped = "--snaplen";
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
		if (opts_count("mbufs", arg, 1024, 100000000, &v, err, errlen) != 0)
			return -EINVAL;
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
		   "of the step each resource held. --trace FILE writes a nanosecond pcapng trace\n"
		   "with one interface per capture point (no trace unless asked). Without a scenario\n"
		   "file the built-in default is used (2 DC x 4, 100 GbE WAN).",
		   run_optv, N_OPTS);
	fprintf(f, "\nThe packet settings are scenario keys: run.mtu and run.frame_payload (bytes;\n"
		   "the payload fills the MTU set unless given), run.accounting (payload|wire),\n"
		   "run.sync (phase|step|none), run.burst, run.warmup, the queue limits\n"
		   "queues.nic, queues.port, queues.switch, queues.wan, queues.sync_lossless, and\n"
		   "the background: background.load,\n"
		   "background.sizes (fixed|exponential|empirical), background.size,\n"
		   "background.sizes_csv, background.host_rate, background.directions.\n"
		   "With background load, each run is also set beside the fluid shared-WAN model\n"
		   "(processor sharing and FIFO, same seed and syncs) and the transfers' wait\n"
		   "beside M/G/1.\n"
		   "\nThe status is ok only when every model column applies; otherwise it says\n"
		   "which of these hold (JSON: status and flags): drops (frames dropped at a queue:\n"
		   "the fluid models have unlimited buffers), changed live (a set landed while a step\n"
		   "ran: that step is left out, every other one compared with the closed form of the\n"
		   "parameters in force during it), bound not valid (the fluid bound's claim does not\n"
		   "hold here, e.g. 3 or more data centres of 2 or more workers), rounds overlap, no\n"
		   "closed form, differs from the closed form, no model, interrupted, real time.\n"
		   "Memory does not grow with the steps: each step goes into the statistics as it\n"
		   "ends (median and p99 exact up to 2048 values, within 0.1 %% beyond); --json keeps\n"
		   "a run's first and last 1000 steps and 2000 points per WAN queue.\n"
		   "\nDuring a run, --ctl SOCKET takes changes of the module, the WAN and the load\n"
		   "(syncemu ctl; a stale socket there is replaced, anything else is refused), DPDK\n"
		   "telemetry answers /syncemu/status and /syncemu/params (on a socket of its own,\n"
		   "named on stderr: dpdk-telemetry.py -f syncemu-PID), and\n"
		   "syncemu top -p PID shows the hot spots live. A link-kernel program replaces the\n"
		   "module's ops per byte: --set module.kernel=build/dataplane/kernels/modular.bpf.o.\n"
		   "Real time: --set run.clock=real --set run.dilation=50 --set ports.dc0=ring:w\n"
		   "--set ports.dc1=ring:w paces the same elements by the TSC and sends the WAN\n"
		   "traffic through DPDK ports (memif, af_packet, af_xdp, NICs); ports.local splits\n"
		   "the data centres over two processes; --set \"ports.link0=w0.nic ring:a\" puts a\n"
		   "link inside a data centre through ports (see the README, \"Real time on ports\").\n"
		   "\nFiles: --trace and --queue-csv replace a regular file whole or not at all (it\n"
		   "keeps its mode; a run that fails leaves it as it was), write through a symbolic\n"
		   "link to its target, and stream to a FIFO or to - (the standard output) as it goes:\n"
		   "syncemu run --trace - | tshark -r -. With an output on the standard output the\n"
		   "report, text or --json, goes to stderr. A device, a directory, a socket, or a\n"
		   "file the run reads (the scenario, background.sizes_csv, module.kernel) is refused\n"
		   "before the run.\n"
		   "A step takes as long as it takes in virtual time; a run stalls only when nothing\n"
		   "of the sync is left queued, in flight or pending while a worker waits (in real\n"
		   "time: no step within ports.wait). A value the data plane cannot hold (a round of\n"
		   "more than 2^32 frames, a run past 2^63 ps of virtual time, ...) is refused before\n"
		   "anything runs, with the largest value that works (exit 3).\n"
		   "Ctrl-C (SIGINT) or SIGTERM ends the run after its current step and still writes\n"
		   "the report and the trace of what was done (exit 130); a second one ends the\n"
		   "process at once and leaves no temporary file.\n"
		   "The options that are scenario keys (--steps, --seed, --load, --trace, --capture,\n"
		   "--snaplen) and the values of --set are checked by the key's rule as they are\n"
		   "parsed.\n"
		   "Exit codes: 0 ok, 1 a run failed, 2 bad command line (a bad option or --set\n"
		   "value, a refused output or --ctl path included), 3 bad scenario (a file, or\n"
		   "values that only the whole scenario refuses), 130 interrupted.\n"
		   "\nexamples:\n"
		   "  syncemu run\n"
		   "  syncemu run scenarios/2dc4-8g.ini -v A -n 50 --trace a.pcapng\n"
		   "  syncemu run -v A -n 50 --trace - | tshark -r - -c 10\n"
		   "  syncemu run -v A,\"E'\" -b free -n 200 --load 0.9 --queue-csv q.csv\n"
		   "  syncemu run --background-only 2s --load 0.5 --set background.size=64kB\n"
		   "  syncemu run -v \"E'\" -b free --capture all --snaplen 0 --trace ep.pcapng\n"
		   "  syncemu run --set run.accounting=wire --set run.mtu=1500\n");
}

/* ---- output ---- */

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
		table_num(t, r->wall > 0 ? r->res.frames / r->wall / 1e6 : NAN);
		table_str(t, status(r));
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
	return t;
}

static struct table *
background_table(struct outcome *runs, unsigned int n)
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
	for (i = 0; i < n; i++) {
		struct outcome *r = &runs[i];

		for (q = 0; q < (r->nq ? r->nq : 1); q++) {
			if (q == 0) {
				table_str(t, r->c.label);
				table_num(t, (double)r->res.bg.done);
				table_num(t, (double)r->res.bg.incomplete);
				table_num(t, (double)r->res.bg.unsent);
				table_num(t, r->wait.n ? r->wait.mean * 1e6 : NAN);
				table_num(t, r->wait.n ? r->wait.ci95 * 1e6 : NAN);
				table_num(t, r->mg1_wait * 1e6);
				table_num(t, r->fct.n ? r->fct.mean * 1e6 : NAN);
				table_num(t, r->fct.n ? r->fct.p99 * 1e6 : NAN);
			} else {
				table_str(t, "");
				for (int k = 0; k < 8; k++)
					table_str(t, "");
			}
			table_str(t, r->nq ? r->q[q].name : "-");
			table_num(t, r->nq ? r->q[q].mean / 1e6 : NAN);
			table_num(t, r->nq ? r->q[q].p99 / 1e6 : NAN);
			table_num(t, r->nq ? r->q[q].max / 1e6 : NAN);
		}
	}
	table_note(t, "wait: a transfer's first frame from creation to the far end of the WAN, "
		   "less its own serialisation and delays (the queueing it met); M/G/1: "
		   "lambda E[S^2] / (2 (1 - rho)) with S = size / WAN rate (M/D/1 for fixed sizes); "
		   "FCT: creation to the last frame");
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
		if (rt->split)
			table_note(t, "split over two processes: this one runs DC mask %#x and %s; "
				   "clock offset to the peer %+.3f us%s (round trip %.3f us)%s",
				   rt->local, rt->leader ? "leads" : "follows",
				   rt->offset_ns / 1e3, rt->realtime ? ", not applied (PTP)" : "",
				   rt->rtt_ns / 1e3,
				   rt->merged ? "; the steps are both sides' (merged)" :
				   "; the steps are this side's (the leader reports both)");
		table_note(t, "engine: %" PRIu64 " polls while events were overdue, %" PRIu64
			   " while idle", rt->behind, rt->idle);
		break;
	}
	return t;
}

static void
print_trace(const struct dp_capture *cap, const char *path)
{
	uint64_t total = 0;
	uint32_t i;

	for (i = 0; i < cap->nif; i++)
		total += cap->frames[i];
	printf("trace: %s, %" PRIu64 " frames on %u interfaces\n", path, total, cap->nif);
	for (i = 0; i < cap->nif; i++)
		printf("  %-20s %" PRIu64 "\n", cap->names[i], cap->frames[i]);
}

static void
print_text(struct outcome *runs, unsigned int n, const struct sc_scenario *sc, bool every,
	   const struct dp_capture *cap, const char *trace_path)
{
	bool loaded = sc->background.load > 0;
	struct table *t;
	unsigned int i;

	printf("syncemu run: %s%s%s\n  %s\n\n", sc->name, sc->path[0] ? " from " : " (built in)",
	       sc->path, sc->desc);
	for (i = 0; i < n; i++) {
		if (runs[i].rc != 0) {
			printf("Run %s FAILED: %s\n\n", runs[i].c.label, runs[i].err);
			continue;
		}
		if (runs[i].res.steps == 0 || (!every && runs[i].res.steps > 20))
			continue;
		t = steps_table(&runs[i]);
		if (t != NULL)
			table_print(t, stdout);
		table_free(t);
	}
	if (n > 0 && runs[0].res.steps > 0) {
		t = loaded ? summary_loaded(runs, n, sc) : summary_zero(runs, n, sc);
		if (t != NULL)
			table_print(t, stdout);
		table_free(t);
	}
	for (i = 0; i < n; i++) {
		uint32_t k;

		for (k = 0; k < runs[i].res.nchanges; k++) {
			const struct dp_change *ch = &runs[i].res.changes[k];
			char when[64];

			if (ch->step == UINT32_MAX)
				snprintf(when, sizeof(when), "after the last step");
			else
				snprintf(when, sizeof(when), "during step %u", ch->step);
			printf("%s run %s at %.6f ms, %s: %s %.12g -> %.12g\n", k ? "      " :
			       "change:", runs[i].c.label, ch->at / 1e9, when,
			       dp_param_key(ch->param), ch->old, ch->value);
		}
	}
	if (n > 0 && runs[0].res.rt.on) {
		t = realtime_table(runs, n);
		if (t != NULL)
			table_print(t, stdout);
		table_free(t);
	}
	for (i = 0; i < n; i++)
		if (runs[i].res.interrupted)
			printf("interrupted: run %s stopped after step %u of %u\n", runs[i].c.label,
			       runs[i].res.steps, sc->run.steps);
	if (loaded) {
		t = background_table(runs, n);
		if (t != NULL)
			table_print(t, stdout);
		table_free(t);
	}
	if (trace_path != NULL && cap != NULL)
		print_trace(cap, trace_path);
}

static json_t *
elems_json(const struct dp_run_result *res)
{
	json_t *a = json_array();
	uint32_t i;

	for (i = 0; a != NULL && i < res->n_elems; i++) {
		const struct dp_elem_summary *e = &res->elems[i];

		json_array_append_new(a, json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:f, s:I, s:I}",
						   "name", e->name, "kind", e->kind,
						   "rx", (json_int_t)e->rx, "tx", (json_int_t)e->tx,
						   "drop", (json_int_t)e->drop,
						   "max_queue_bytes", (json_int_t)e->max_qbytes,
						   "utilisation", e->util,
						   "sync_over_limit", (json_int_t)e->fg_over,
						   "background_drops", (json_int_t)e->bg_drop));
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
	return json_pack("{s:f, s:f, s:f, s:b, s:b, s:i, s:I, s:I, s:b, s:I, s:I, s:o, s:o}",
			 "dilation", rt->dilation, "tsc_hz", rt->hz, "tsc_hz_nominal",
			 rt->hz_nominal, "split", rt->split, "leader", rt->leader,
			 "local_mask", (int)rt->local, "peer_offset_ns", (json_int_t)rt->offset_ns,
			 "peer_rtt_ns", (json_int_t)rt->rtt_ns, "merged", rt->merged,
			 "polls_behind", (json_int_t)rt->behind, "polls_idle", (json_int_t)rt->idle,
			 "ports", ports, "peer_ports", peer);
}

static json_t *
run_json(const struct outcome *r, uint32_t run_id)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:i, s:b}", "label", r->c.label,
			      "variant", sm_variant_name(r->c.var),
			      "budget", sm_variant_has_module(r->c.var) ?
			      sm_budget_name(r->c.b) : "-", "run_id", (int)run_id, "ok", r->rc == 0);
	struct table *t;

	if (o == NULL)
		return NULL;
	if (r->rc != 0) {
		json_object_set_new(o, "error", json_string(r->err));
		return o;
	}
	t = steps_table(r);
	if (t != NULL)
		json_object_set_new(o, "steps", table_json(t));
	table_free(t);
	json_object_set_new(o, "steps_kept", json_pack("{s:i, s:i, s:i}", "first", (int)r->nfirst,
						       "last", (int)r->nlast, "of",
						       (int)r->res.steps));
	{
		unsigned int f = outcome_flags(r);
		json_t *fl = json_object();
		char st[160];
		int k;

		for (k = 0; fl != NULL && k < OF_COUNT; k++)
			json_object_set_new(fl, outcome_flag_id(k), json_boolean(f & (1u << k)));
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
	json_object_set_new(o, "elements", elems_json(&r->res));
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
	if (r->res.bg.started > 0)
		json_object_set_new(o, "background", json_pack(
			"{s:I, s:I, s:I, s:I, s:o, s:o, s:o}",
			"started", (json_int_t)r->res.bg.started,
			"done", (json_int_t)r->res.bg.done,
			"incomplete", (json_int_t)r->res.bg.incomplete,
			"unsent", (json_int_t)r->res.bg.unsent,
			"wait_us", stats_json(&r->wait, 1e6),
			"mg1_wait_us", num(r->mg1_wait * 1e6),
			"fct_us", stats_json(&r->fct, 1e6)));
	if (r->nq > 0 && r->qp.n > 0)
		json_object_set_new(o, "wan_queues", queues_json(r));
	if (r->res.nchanges > 0) {
		json_t *a = json_array(), *g = json_array();
		uint32_t k;

		for (k = 0; a != NULL && k < r->res.nchanges; k++) {
			const struct dp_change *ch = &r->res.changes[k];

			json_array_append_new(a, json_pack("{s:f, s:s, s:f, s:f, s:o}", "at_ms",
							   ch->at / 1e9, "key",
							   dp_param_key(ch->param), "old", ch->old,
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

static int
print_json(struct outcome *runs, unsigned int n, const struct sc_scenario *sc,
	   const struct dp_capture *cap, const char *trace_path)
{
	json_t *root = json_object(), *ja = json_array();
	struct table *t;
	unsigned int i;
	int rc = 0;

	if (root == NULL || ja == NULL) {
		json_decref(root);
		json_decref(ja);
		return -ENOMEM;
	}
	json_object_set_new(root, "syncemu", json_string(SYNCEMU_VERSION));
	json_object_set_new(root, "scenario", json_pack("{s:s, s:s, s:s, s:I, s:f}", "name",
							sc->name, "description", sc->desc, "path",
							sc->path, "seed", (json_int_t)sc->run.seed,
							"load", sc->background.load));
	for (i = 0; i < n; i++)
		json_array_append_new(ja, run_json(&runs[i], i + 1));
	json_object_set_new(root, "runs", ja);
	if (n > 0 && runs[0].res.steps > 0) {
		t = sc->background.load > 0 ? summary_loaded(runs, n, sc) :
					      summary_zero(runs, n, sc);
		if (t != NULL)
			json_object_set_new(root, "summary", table_json(t));
		table_free(t);
	}
	if (trace_path != NULL && cap != NULL) {
		json_t *ifs = json_object();

		for (i = 0; ifs != NULL && i < cap->nif; i++)
			json_object_set_new(ifs, cap->names[i],
					    json_integer((json_int_t)cap->frames[i]));
		json_object_set_new(root, "trace", json_pack("{s:s, s:o}", "file", trace_path,
							     "frames", ifs));
	}
	if (json_dumpf(root, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(12)) != 0)
		rc = -EIO;
	fputc('\n', stdout);
	json_decref(root);
	return rc;
}

/* ---- the command ---- */

static char *
trace_comment(const struct sc_scenario *sc, const struct contender *c, unsigned int n)
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
		fprintf(f, " %u=%s", i + 1, c[i].label);
	fprintf(f, "\n");
	sc_scenario_dump(sc, f);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The trace file the scenario asks for ([trace] file, capture points), or NULL: none. */
static const char *
trace_file(const struct sc_scenario *sc)
{
	uint32_t mask;

	if (sc->trace.file[0] == '\0' || strcmp(sc->trace.file, "none") == 0 ||
	    dp_capture_parse(sc->trace.capture, &mask, NULL, 0) != 0 || mask == 0)
		return NULL;
	return sc->trace.file;
}

/* The trace on the opened output @p out (of @p path), which it takes over. */
static int
open_trace(const struct sc_scenario *sc, const struct contender *c, unsigned int n,
	   struct outfile *out, const char *path, struct dp_capture **capp, char *err,
	   size_t errlen)
{
	struct tr_pcapng_params tp = { .app = "syncemu " SYNCEMU_VERSION,
				       .snaplen = sc->trace.snaplen, .out = out };
	struct dp_capture *cap;
	char *comment;
	uint32_t mask;

	*capp = NULL;
	cap = calloc(1, sizeof(*cap));
	if (cap == NULL) {
		outfile_abort(out);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (dp_capture_parse(sc->trace.capture, &mask, err, errlen) != 0) {
		free(cap);
		outfile_abort(out);
		return -EINVAL;		/* the scenario checked it: cannot happen */
	}
	cap->mask = mask;
	cap->snaplen = sc->trace.snaplen ? sc->trace.snaplen : UINT32_MAX;
	comment = trace_comment(sc, c, n);
	tp.comment = comment;
	cap->w = tr_pcapng_open(&tp);
	free(comment);
	if (cap->w == NULL) {
		snprintf(err, errlen, "cannot write the trace %s: %s", path, strerror(errno));
		free(cap);
		return -EIO;
	}
	*capp = cap;
	return 0;
}

/* The control socket, its rings to the data plane, the status and the telemetry endpoints. */
static struct dp_status ctl_status;

/* Where DPDK's telemetry of this process answers, and the command that asks it. */
static void
say_telemetry(void)
{
	char sock[PATH_MAX + 32], prefix[256];

	if (dp_eal_telemetry(sock, sizeof(sock), prefix, sizeof(prefix)) != 0) {
		fprintf(stderr, "syncemu run: DPDK telemetry is off (no socket %s)\n", sock);
		return;
	}
	fprintf(stderr, "syncemu run: telemetry on %s: echo /syncemu/status | "
		"dpdk-telemetry.py -f %s\n", sock, prefix);
}

static int
start_ctl(const struct run_opts *o, const struct sc_scenario *sc, const char *path,
	  struct runner *r, struct ctl_server **srv, char *err, size_t errlen)
{
	struct ctl_params cp = { .path = o->ctl, .scenario = path, .sets = o->sets,
				 .nsets = o->nsets, .variants = sc->variants, .budgets = sc->budgets };
	int i;

	/* static: DPDK's telemetry thread may read it until the process ends */
	r->status = &ctl_status;
	atomic_store(&ctl_status.var, UINT32_MAX);
	atomic_store(&ctl_status.budget, UINT32_MAX);
	atomic_store(&ctl_status.binding, -1);
	for (i = 0; i < DP_P_COUNT; i++) {
		double v = i == DP_P_BG_LOAD ? sc->background.load : dp_param_get(&sc->model, i);
		uint64_t b;

		memcpy(&b, &v, sizeof(b));
		atomic_store(&ctl_status.value_bits[i], b);
	}
	r->ctl_req = rte_ring_create("syncemu_ctl_req", 64, SOCKET_ID_ANY,
				     RING_F_SP_ENQ | RING_F_SC_DEQ);
	r->ctl_resp = rte_ring_create("syncemu_ctl_resp", 64, SOCKET_ID_ANY,
				      RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (r->ctl_req == NULL || r->ctl_resp == NULL) {
		snprintf(err, errlen, "--ctl: cannot create its rings");
		return -ENOMEM;
	}
	if (ctl_telemetry_register(r->status) != 0)
		fprintf(stderr, "syncemu run: the telemetry endpoints are not available\n");
	else
		say_telemetry();
	cp.req = r->ctl_req;
	cp.resp = r->ctl_resp;
	cp.status = r->status;
	*srv = ctl_server_start(&cp, err, errlen);
	return *srv != NULL ? 0 : -EIO;
}

static void
stop_ctl(struct runner *r, struct ctl_server *srv)
{
	void *obj;

	ctl_server_stop(srv);
	while (r->ctl_req != NULL && rte_ring_dequeue(r->ctl_req, &obj) == 0)
		free(obj);
	while (r->ctl_resp != NULL && rte_ring_dequeue(r->ctl_resp, &obj) == 0)
		free(obj);
	rte_ring_free(r->ctl_req);
	rte_ring_free(r->ctl_resp);
	r->ctl_req = r->ctl_resp = NULL;
	r->status = NULL;
}

/* SIGINT, SIGTERM: the run in progress ends after its step, and the report and trace are
 * written; a second one removes the temporary files and ends the process at once, as the
 * default action would. */
static volatile sig_atomic_t stop_flag;

static void
on_stop(int sig)
{
	if (stop_flag) {
		outfile_signal_cleanup();
		dp_eal_signal_cleanup();
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	stop_flag = sig;
}

static void
catch_stop(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/*
 * The trace and --queue-csv, checked against each other and against the files the run reads,
 * then opened; a refused trace is a command-line error if the command line named it, else the
 * scenario's.  0 or the exit code, with the message in @p err.
 */
static int
open_outputs(const struct run_opts *o, const struct sc_scenario *sc, const char *scenario,
	     struct output *outs, char *err, size_t errlen)
{
	const struct input in[] = {
		{ scenario, "the scenario file" },
		{ sc->background.sizes_csv, "background.sizes_csv" },
		{ sc->kernel.file, "the link-kernel program (module.kernel)" },
	};

	outs[0].path = trace_file(sc);
	outs[0].code = o->trace_cli ? CLI_EXIT_USAGE : CLI_EXIT_INPUT;
	outs[1].path = o->queue_csv;
	if (o->shaped != NULL && outs[0].path == NULL) {
		snprintf(err, errlen, "%s chooses what the trace holds, and no trace is written: "
			 "give --trace FILE", o->shaped);
		return CLI_EXIT_USAGE;
	}
	return outputs_open(outs, 2, in, sizeof(in) / sizeof(in[0]), "syncemu run", &stop_flag,
			    err, errlen);
}

int
cmd_run(int argc, char **argv)
{
	struct run_opts o = { .nsets = 0 };
	struct sc_scenario *sc = calloc(1, sizeof(*sc));
	struct contender c[RUNNER_MAX];
	struct outcome *runs = calloc(RUNNER_MAX, sizeof(*runs));
	struct runner r = { .eal = NULL };
	struct output outs[2] = {
		{ .what = "the trace" },
		{ .what = "--queue-csv", .code = CLI_EXIT_USAGE },
	};
	char err[512], *pos[1];
	const char *trace_path = NULL;
	struct ctl_server *ctl = NULL;
	unsigned int n = 0, i;
	uint32_t need = 0;
	int npos, status = CLI_EXIT_OK;
	bool written;

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
	/* the --ctl path is the command line's: refused before anything runs */
	if (o.ctl != NULL && ctl_path_check(o.ctl, err, sizeof(err)) != 0) {
		fprintf(stderr, "syncemu run: %s\n", err);
		status = CLI_EXIT_USAGE;
		goto out;
	}
	if (sc_scenario_load_run(sc, npos ? pos[0] : NULL, o.sets, o.from, o.nsets, o.variants,
				 o.budgets, err, sizeof(err)) != 0) {
		fprintf(stderr, "syncemu run: %s\n", err);
		status = CLI_EXIT_INPUT;
		goto out;
	}
	if (o.variants)
		sc->variants = o.variants;
	if (o.budgets)
		sc->budgets = o.budgets;
	if (o.bg_only > 0) {
		if (!(sc->background.load > 0) || sc->model.topo.n_dc < 2) {
			fprintf(stderr, "syncemu run: --background-only needs background.load > 0 "
				"and a WAN (data_centres >= 2)\n");
			status = CLI_EXIT_USAGE;
			goto out;
		}
		sc->variants = 1u << SM_VAR_A;	/* the topology's; no sync runs */
	}
	n = contenders_of(sc, c);
	if (n == 0) {
		fprintf(stderr, "syncemu run: no variant selected\n");
		status = CLI_EXIT_USAGE;
		goto out;
	}
	if (o.bg_only > 0) {
		n = 1;
		snprintf(c[0].label, sizeof(c[0].label), "background");
	}
	for (i = 0; i < n; i++) {
		uint32_t k = runner_need(sc, &c[i]);

		if (k > need)
			need = k;
	}
	need += runner_rt_need(sc);
	r.eal = o.eal;
	r.apart = o.ctl != NULL;	/* telemetry: a socket of its own */
	r.mbufs = o.mbufs;
	r.progress = !o.quiet;
	r.tty = isatty(STDERR_FILENO);
	r.stop = &stop_flag;
	catch_stop();
	status = open_outputs(&o, sc, npos ? pos[0] : NULL, outs, err, sizeof(err));
	if (status != CLI_EXIT_OK) {
		fprintf(stderr, "syncemu run: %s\n", err);
		goto out;
	}
	trace_path = outs[0].path;
	if (outs[0].f != NULL) {
		struct outfile *f = outs[0].f;

		outs[0].f = NULL;	/* the trace takes it over */
		if (open_trace(sc, c, n, f, trace_path, &r.cap, err, sizeof(err)) != 0) {
			fprintf(stderr, "syncemu run: %s\n", err);
			status = CLI_EXIT_FAIL;
			goto out;
		}
	}
	if (outs[1].f != NULL) {
		/* every sample goes out as it is taken: nothing of the series is held */
		r.queue_csv = outfile_fp(outs[1].f);
		if (r.queue_csv == NULL) {
			fprintf(stderr, "syncemu run: --queue-csv %s: %s\n", o.queue_csv,
				strerror(errno));
			status = CLI_EXIT_FAIL;
			goto out;
		}
		r.queue_csv_streams = outfile_streams(outs[1].f);
		fprintf(r.queue_csv, "run_id,run,t_s,link,bytes\n");
	}
	r.keep = RUNNER_KEEP;
	r.queue_points = o.json;
	r.extra_mb = runner_rt_mem_mb(sc);
	if (runner_start(&r, need, SM_HDR_BYTES + sc->run.pk.payload, err, sizeof(err)) != 0) {
		fprintf(stderr, "syncemu run: %s\n", err);
		status = CLI_EXIT_FAIL;
		goto out;
	}
	if (runner_rt_open(&r, sc, c, n, err, sizeof(err)) != 0) {
		fprintf(stderr, "syncemu run: real time: %s\n", err);
		status = CLI_EXIT_FAIL;
		goto out;
	}
	if (o.ctl != NULL && start_ctl(&o, sc, npos ? pos[0] : NULL, &r, &ctl, err,
				       sizeof(err)) != 0) {
		fprintf(stderr, "syncemu run: %s\n", err);
		status = CLI_EXIT_FAIL;
		goto out;
	}
	for (i = 0; i < n && !stop_flag; i++) {
		if (runner_run(&r, sc, &c[i], o.bg_only, &runs[i]) == 0)
			continue;
		status = CLI_EXIT_FAIL;
		fprintf(stderr, "%ssyncemu run: %s: %s\n", r.progress && r.tty ? "\n" : "",
			c[i].label, runs[i].err);
	}
	if (stop_flag) {
		/* the report and trace stand for what was done; the runs not begun are left out */
		fprintf(stderr, "%ssyncemu run: interrupted (signal %d): %u of %u runs reported, "
			"the last up to its last whole step\n", r.progress && r.tty ? "\n" : "",
			(int)stop_flag, i, n);
		n = i;
		if (status == CLI_EXIT_OK)
			status = CLI_EXIT_INTERRUPTED;
	}
	if (r.progress && r.tty)
		fputc('\n', stderr);
	if (r.cap != NULL && status != CLI_EXIT_OK && status != CLI_EXIT_INTERRUPTED) {
		if (tr_pcapng_streams(r.cap->w)) {
			/* what went out is out: the stream ends after the last whole block */
			tr_pcapng_close(r.cap->w);
			fprintf(stderr, "syncemu run: a run failed: the trace streamed to %s holds "
				"what was done up to the failure (a stream cannot be taken back)\n",
				trace_path);
		} else {
			/* its trace would be partial, so none is written */
			tr_pcapng_abort(r.cap->w);
			fprintf(stderr, "syncemu run: no trace written (a run failed)\n");
		}
		r.cap->w = NULL;
	} else if (r.cap != NULL) {
		int rc = tr_pcapng_close(r.cap->w);

		r.cap->w = NULL;
		if (rc == -EPIPE) {
			fprintf(stderr, "syncemu run: the trace %s: its reader went away before the "
				"end (broken pipe)\n", trace_path);
			status = CLI_EXIT_FAIL;
		} else if (rc != 0) {
			fprintf(stderr, "syncemu run: the trace %s was not written: %s\n",
				trace_path, strerror(-rc));
			status = CLI_EXIT_FAIL;
		}
	}
	if (outs[1].f != NULL && (status == CLI_EXIT_OK || status == CLI_EXIT_INTERRUPTED)) {
		int rc = outfile_commit(outs[1].f);

		outs[1].f = NULL;
		r.queue_csv = NULL;
		if (rc != 0) {
			fprintf(stderr, "syncemu run: cannot write %s: %s\n", o.queue_csv,
				strerror(-rc));
			status = CLI_EXIT_FAIL;
		}
	} else if (outs[1].f != NULL && r.queue_csv_streams) {
		fprintf(stderr, "syncemu run: a run failed: %s holds the samples streamed up to the "
			"failure\n", o.queue_csv);
	}
	written = status == CLI_EXIT_OK || status == CLI_EXIT_INTERRUPTED;
	if (o.json)
		print_json(runs, n, sc, r.cap, written ? trace_path : NULL);
	else
		print_text(runs, n, sc, o.every_step, r.cap, written ? trace_path : NULL);
out:
	stop_ctl(&r, ctl);
	outputs_abort(outs, 2);
	if (r.cap != NULL && r.cap->w != NULL)
		tr_pcapng_abort(r.cap->w);
	for (i = 0; runs != NULL && i < n; i++)
		outcome_free(&runs[i]);
	for (i = 0; i < o.nowned; i++)
		free(o.owned[i]);
	runner_stop(&r);
	free(r.cap);
	free(runs);
	free(sc);
	return status;
}

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
#include "metrics.h"
#include "opts.h"
#include "outputs.h"
#include "ranks.h"
#include "results.h"
#include "run_report.h"
#include "run_plot.h"
#include "runner.h"
#include "session.h"
#include "table.h"
#include "units.h"
#include "variant.h"

struct run_opts {
	struct cli_sets kv;		/* the overrides */
	unsigned int variants, budgets;
	const char *eal;
	const char *queue_csv;
	const char *steps_csv;		/* --csv */
	const char *plot;		/* --plot */
	const char *tables;		/* --tables DIR */
	const char *ctl;
	const char *metrics;
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

enum { O_SET, O_TRACE, O_CAPTURE, O_SNAPLEN,
       O_TABLES, O_BGONLY };

static const struct opt run_optv[] = {
	{ "set", 's', "SECTION.KEY=VALUE", "override a scenario key (repeatable)", .id = O_SET },
	{ "steps", 'n', "N", "steps per run [run.steps: 200]",
	  OPT_TARGET(cli_opt_key, struct run_opts, kv), .data = "run.steps" },
	{ "seed", 0, "N", "seed of every random source [run.seed: 1]",
	  OPT_TARGET(cli_opt_key, struct run_opts, kv), .data = "run.seed" },
	{ "variant", 'v', "LIST", "variants: A,B,C,E,C',E' or all [scenario's report]",
	  OPT_TARGET(cli_opt_variants, struct run_opts, variants) },
	{ "budget", 'b', "LIST", "module budgets: low,high,free or all [scenario's report]",
	  OPT_TARGET(cli_opt_budgets, struct run_opts, budgets) },
	{ "load", 'l', "FRACTION", "background load on the WAN [background.load: 0]",
	  OPT_TARGET(cli_opt_key, struct run_opts, kv), .data = "background.load" },
	{ "trace", 't', "FILE", "write a pcapng trace: a file, a FIFO or - (stdout) [trace.file: "
	  "none]", .id = O_TRACE },
	{ "capture", 'c', "LIST", "capture points: tx,rx,nic,switch,wan,module,port,all [wan]",
	  .id = O_CAPTURE },
	{ "snaplen", 0, "BYTES", "bytes kept per frame, 0 = all [trace.snaplen: 90, the headers]",
	  .id = O_SNAPLEN },
	{ "json", 'j', NULL, "print JSON instead of text",
	  OPT_TARGET(opts_set_flag, struct run_opts, json) },
	{ "quiet", 'q', NULL, "no progress on stderr",
	  OPT_TARGET(opts_set_flag, struct run_opts, quiet) },
	{ "every-step", 'e', NULL, "print every step (default: up to 20; past 2000, the first and "
	  "last 1000)", OPT_TARGET(opts_set_flag, struct run_opts, every_step) },
	{ "queue-csv", 0, "FILE", "write every sample of the WAN queues as CSV, as it is taken",
	  OPT_TARGET(opts_set_string, struct run_opts, queue_csv) },
	{ "csv", 0, "FILE", "write every step of every run as CSV, as it ends",
	  OPT_TARGET(opts_set_string, struct run_opts, steps_csv) },
	{ "plot", 0, "FILE", "draw the steps against the models (gnuplot): FILE.svg or FILE.png",
	  OPT_TARGET(opts_set_string, struct run_opts, plot) },
	{ "tables", 0, "DIR", "also write every table of the report as DIR/<table id>.csv",
	  .id = O_TABLES },
	{ "background-only", 0, "TIME", "no sync: background alone for TIME (e.g. 2s)",
	  .id = O_BGONLY },
	{ "ctl", 0, "SOCKET", "serve runtime control on this UNIX socket (see syncemu ctl)",
	  OPT_TARGET(opts_set_string, struct run_opts, ctl) },
	{ "metrics", 0, "[HOST:]PORT", "serve live metrics in Prometheus's text format at "
	  "http://HOST:PORT/metrics (HOST 127.0.0.1 if left out; PORT 0: any free one, said)",
	  OPT_TARGET(opts_set_string, struct run_opts, metrics) },
	{ "eal", 0, "ARGS", "EAL arguments instead of the defaults (" DP_EAL_DEFAULT ")",
	  .id = OPT_DASH_VALUE, OPT_TARGET(opts_set_string, struct run_opts, eal) },
	{ "mbufs", 0, "N", "mbufs of the first frame pool (more are added as frames queue up; with ports: the whole pool) [from the plan, at most 16384]",
	  OPT_TARGET(opts_set_count_u32, struct run_opts, mbufs), .data = &cli_mbufs_range },
	{ "help", 'h', NULL, "show this help",
	  OPT_TARGET(opts_set_flag, struct run_opts, help) },
};

#define N_OPTS (sizeof(run_optv) / sizeof(run_optv[0]))

static int
run_opt(void *ctx, int id, const char *arg, char *err, size_t errlen)
{
	struct run_opts *o = ctx;

	switch (id) {
	case O_SET:
		if (sets_trace_file(arg))
			o->trace_cli = true;
		return cli_add_set(o->kv.sets, &o->kv.nsets, arg, err, errlen);
	case O_TRACE:
		o->trace_cli = true;
		return cli_sets_key(&o->kv, "trace.file", arg, err, errlen);
	case O_TABLES:
		o->tables = arg;
		return results_csv_dir_check(arg, err, errlen);
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
		return cli_sets_key(&o->kv, "trace.capture", arg, err, errlen);
	case O_SNAPLEN:
		o->shaped = "--snaplen";
		return cli_sets_key(&o->kv, "trace.snaplen", arg, err, errlen);
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
		   "\nMore cores: --set run.partitions=N cuts a virtual-time run into N\n"
		   "engines on the EAL's lcores (by data centre, then by groups of workers), with the\n"
		   "trace and report of one, byte for byte; the default EAL flags then take an lcore\n"
		   "per partition, up to the CPUs the process may run on (taskset). A note says\n"
		   "the windows and lookahead. run.partitions=auto: one per lcore if a calibration\n"
		   "on the run's first events (a few hundredths of a second) finds them faster\n"
		   "than one engine, else one engine; runs too short to gain skip it.\n"
		   "Across processes or hosts: mpirun -np R syncemu run ... gives each MPI rank a\n"
		   "block of the partitions (at least one per rank; auto: an lcore's worth each);\n"
		   "rank 0 writes the trace and the report, the same byte for byte (virtual time).\n"
		   "In real time the ranks split the data centres (each its own ports.local, or\n"
		   "a block by rank), MPI carries the control and the ports the frames; rank 0\n"
		   "merges the steps and the trace.\n"
		   "\nDuring a run, --ctl SOCKET takes changes of the module, the WAN and the load\n"
		   "(syncemu ctl; a stale socket there is replaced, anything else is refused), DPDK\n"
		   "telemetry answers /syncemu/status and /syncemu/params (on a socket of its own,\n"
		   "named on stderr: dpdk-telemetry.py -f syncemu-PID), and\n"
		   "syncemu top -p PID shows the hot spots live. A link-kernel program replaces the\n"
		   "module's ops per byte: --set module.kernel=build/dataplane/kernels/modular.bpf.o.\n"
		   "Real time: --set run.clock=real --set run.dilation=50 --set ports.dc0=ring:w\n"
		   "--set ports.dc1=ring:w paces the same elements by the TSC and sends the WAN\n"
		   "traffic through DPDK ports (memif, af_packet, af_xdp, NICs); ports.local splits\n"
		   "the data centres over two processes (or MPI ranks, above);\n"
		   "--set \"ports.link0=w0.nic ring:a\" puts a link inside a data centre through\n"
		   "ports (see the README, \"Real time on ports\").\n"
		   "\nFiles: --trace and --queue-csv replace a regular file whole or not at all (it\n"
		   "keeps its mode; a run that fails leaves it as it was), write through a symbolic\n"
		   "link to its target, and stream to a FIFO or to - (the standard output) as it goes:\n"
		   "syncemu run --trace - | tshark -r -. With an output on the standard output the\n"
		   "report, text or --json, goes to stderr. A device, a directory, a socket, or a\n"
		   "file the run reads (the scenario, background.sizes_csv, module.kernel) is refused\n"
		   "before the run.\n"
		   "--tables DIR writes every table of the report (text or --json) as CSV, one file\n"
		   "each, after the runs: DIR/summary.csv, DIR/steps-N.csv (run N's, the JSON's\n"
		   "run_id), background.csv, real_time.csv; a header of the column keys (those of\n"
		   "--json), numbers as %%.10g, NaN empty, strings in double quotes. DIR is made if\n"
		   "missing; each file is replaced whole or not at all, and one that is an input or\n"
		   "another output of the run is refused.\n"
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
	sc_scenario_dump_results(sc, f);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The trace on the opened output @p out (of @p path), which it takes over. */
static int
open_trace(const struct sc_scenario *sc, const struct contender *c, unsigned int n,
	   struct outfile *out, const char *path, struct dp_capture **capp, char *err,
	   size_t errlen)
{
	char *comment = trace_comment(sc, c, n);
	int rc = outputs_open_trace(sc, out, path, comment, capp, err, errlen);

	free(comment);
	return rc;
}

/*
 * A rank other than 0 (ranks.h): the trace's interfaces numbered as rank 0 numbers them, and
 * queue samples taken as there (its partitions send both to rank 0, which writes them); nothing
 * is written here.  0 or the exit code.
 */
static int
shadow_outputs(const struct run_opts *o, const struct sc_scenario *sc, struct runner *r)
{
	uint32_t mask;

	if (outputs_trace_file(sc) != NULL && dp_capture_parse(sc->trace.capture, &mask, NULL, 0) == 0) {
		r->cap = calloc(1, sizeof(*r->cap));
		if (r->cap == NULL)
			return CLI_EXIT_FAIL;
		r->cap->elsewhere = true;
		/* real time: each rank runs data centres and ports of its own; it holds its
		 * records, which rank 0 merges at each run's end (rt.h) */
		r->cap->hold = sc->run.clock == SC_CLOCK_REAL;
		r->cap->mask = mask;
		r->cap->snaplen = sc->trace.snaplen ? sc->trace.snaplen : UINT32_MAX;
	}
	if (o->queue_csv != NULL) {
		r->queue_csv = fopen("/dev/null", "w");
		if (r->queue_csv == NULL)
			return CLI_EXIT_FAIL;
	}
	if (o->steps_csv != NULL) {
		r->steps_csv = fopen("/dev/null", "w");
		if (r->steps_csv == NULL)
			return CLI_EXIT_FAIL;
	}
	return CLI_EXIT_OK;
}

/* The control socket, its rings to the data plane, the status and the telemetry endpoints. */
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
	struct ctl_params cp = { .path = o->ctl, .scenario = path, .sets = o->kv.sets,
				 .nsets = o->kv.nsets, .variants = sc->variants, .budgets = sc->budgets };

	session_status_init(r, sc);
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

/*
 * The trace and --queue-csv, checked against each other and against the files the run reads,
 * then opened; a refused trace is a command-line error if the command line named it, else the
 * scenario's.  0 or the exit code, with the message in @p err.
 */
/* The outputs: the trace, --queue-csv, --csv, --plot. */
#define RUN_OUTS 4

/*
 * A CSV written as the runs went (--queue-csv, --csv): committed after runs that ended well or
 * were interrupted (*@p fp, its stream, then NULL), else left to be aborted, saying what a stream
 * already holds.  The exit status after it.
 */
static int
commit_csv(struct output *out, FILE **fp, const char *what, int status)
{
	int rc;

	if (out->f == NULL)
		return status;
	if (status != CLI_EXIT_OK && status != CLI_EXIT_INTERRUPTED) {
		if (outfile_streams(out->f))
			fprintf(stderr, "syncemu run: a run failed: %s holds the %s streamed up to "
				"the failure\n", out->path, what);
		return status;
	}
	rc = outfile_commit(out->f);
	out->f = NULL;
	*fp = NULL;
	if (rc == 0)
		return status;
	fprintf(stderr, "syncemu run: cannot write %s: %s\n", out->path, strerror(-rc));
	return CLI_EXIT_FAIL;
}

/* The header of --csv: a row per step (runstats.c writes them). */
static void
steps_csv_header(FILE *f)
{
	int k;

	fputs("run_id,run,variant,budget,step,emulated_ms,packet_model_ms,fluid_ms,frames", f);
	for (k = 0; k < SM_RES_COUNT; k++)
		fprintf(f, ",%s_pct", sm_resource_id(k));
	fputs(",module_rounds_pct,changed_live\n", f);
}

static int
open_outputs(const struct run_opts *o, const struct sc_scenario *sc, const char *scenario,
	     struct output *outs, char *err, size_t errlen)
{
	const struct input in[] = {
		{ scenario, "the scenario file" },
		{ sc->background.sizes_csv, "background.sizes_csv" },
		{ sc->kernel.file, "the link-kernel program (module.kernel)" },
	};

	outs[0].path = outputs_trace_file(sc);
	outs[0].code = o->trace_cli ? CLI_EXIT_USAGE : CLI_EXIT_INPUT;
	outs[1].path = o->queue_csv;
	outs[2].path = o->steps_csv;
	outs[3].path = o->plot;
	if (o->shaped != NULL && outs[0].path == NULL) {
		snprintf(err, errlen, "%s chooses what the trace holds, and no trace is written: "
			 "give --trace FILE", o->shaped);
		return CLI_EXIT_USAGE;
	}
	return outputs_open(outs, RUN_OUTS, in, sizeof(in) / sizeof(in[0]), "syncemu run",
			    &cli_stop, err, errlen);
}

/* --tables: every table of the report as CSV; the exit code (@p status unless it fails). */
static int
write_tables(const struct run_opts *o, const struct sc_scenario *sc, const char *scenario,
	     const struct results *res, int status)
{
	const struct input in[] = {
		{ scenario, "the scenario file" },
		{ sc->background.sizes_csv, "background.sizes_csv" },
		{ sc->kernel.file, "the link-kernel program (module.kernel)" },
		{ outputs_trace_file(sc), "the trace" },
		{ o->queue_csv, "--queue-csv" },
		{ o->steps_csv, "--csv" },
		{ o->plot, "--plot" },
	};
	char err[PATH_MAX + 256];
	int rc;

	const struct results_csv_dir d = { .dir = o->tables, .in = in,
					   .n_in = sizeof(in) / sizeof(in[0]),
					   .cmd = "syncemu run", .stop = &cli_stop };

	rc = results_csv_write_dir(res, &d, err, sizeof(err));
	if (rc == 0)
		return status;
	fprintf(stderr, "syncemu run: %s\n", err);
	if (status != CLI_EXIT_OK && status != CLI_EXIT_INTERRUPTED)
		return status;
	return results_csv_exit(rc);
}

/* run's messages say "syncemu run"; a second signal also removes the EAL's runtime directory */
static const struct session run_session = {
	.who = "syncemu run", .stop_cleanup = dp_eal_signal_cleanup, .trace_whole = true,
};

/*
 * The scenario loaded with the command line's overrides, checked against the options, and its
 * contenders into @p c (*@p n of them).  *@p rt_ranks: real time over ranks.  0 or the exit code.
 */
static int
run_load(const struct run_opts *o, const char *scenario, struct sc_scenario *sc,
	 struct contender *c, unsigned int *n, bool *rt_ranks)
{
	char err[512];
	int status;

	/* the --ctl path is the command line's: refused before anything runs */
	if (o->ctl != NULL && (status = session_ctl_check(&run_session, o->ctl)) != CLI_EXIT_OK)
		return status;
	if (sc_scenario_load_run(sc, scenario, o->kv.sets, o->kv.from, o->kv.nsets, o->variants,
				 o->budgets, err, sizeof(err)) != 0) {
		fprintf(stderr, "syncemu run: %s\n", err);
		return CLI_EXIT_INPUT;
	}
	*rt_ranks = dp_ranks_size() > 1 && sc->run.clock == SC_CLOCK_REAL;
	if (o->variants)
		sc->variants = o->variants;
	if (o->budgets)
		sc->budgets = o->budgets;
	if (dp_ranks_size() > 1 && sc->run.fast_forward == SC_FF_STEADY) {
		fprintf(stderr, "syncemu run: run.fast_forward = steady under mpirun: its windows "
			"run in one process (the order of a window's frames is the one engine's)\n");
		return CLI_EXIT_USAGE;
	}
	if (dp_ranks_size() > 1 && o->ctl != NULL) {
		/* the same on every rank: every one refuses */
		fprintf(stderr, "syncemu run: --ctl under mpirun: a run of several ranks has no "
			"control socket in this release\n");
		return CLI_EXIT_USAGE;
	}
	if (o->bg_only > 0) {
		if (!(sc->background.load > 0) || sc->model.topo.n_dc < 2) {
			fprintf(stderr, "syncemu run: --background-only needs background.load > 0 "
				"and a WAN (data_centres >= 2)\n");
			return CLI_EXIT_USAGE;
		}
		sc->variants = 1u << SM_VAR_A;	/* the topology's; no sync runs */
	}
	*n = contenders_of(sc, c);
	if (*n == 0) {
		fprintf(stderr, "syncemu run: no variant selected\n");
		return CLI_EXIT_USAGE;
	}
	if (o->bg_only > 0) {
		*n = 1;
		snprintf(c[0].label, sizeof(c[0].label), "background");
	}
	return CLI_EXIT_OK;
}

/*
 * Rank 0's outputs: the trace (into r->cap), --queue-csv and --csv (their headers written),
 * --plot; *@p trace_path: the trace's.  0 or the exit code, said.
 */
static int
run_open(const struct run_opts *o, const struct sc_scenario *sc, const char *scenario,
	 const struct contender *c, unsigned int n, struct output *outs, struct runner *r,
	 bool rt_ranks, const char **trace_path)
{
	char err[512];
	int status;

	if (o->bg_only == 0)
		runner_note_long(sc, c, n, "syncemu run", stderr);
	status = open_outputs(o, sc, scenario, outs, err, sizeof(err));
	if (status != CLI_EXIT_OK) {
		fprintf(stderr, "syncemu run: %s\n", err);
		return status;
	}
	*trace_path = outs[0].path;
	if (outs[0].f != NULL) {
		struct outfile *f = outs[0].f;

		outs[0].f = NULL;	/* the trace takes it over */
		if (open_trace(sc, c, n, f, *trace_path, &r->cap, err, sizeof(err)) != 0) {
			fprintf(stderr, "syncemu run: %s\n", err);
			return CLI_EXIT_FAIL;
		}
		r->cap->hold = rt_ranks;	/* the ranks' records merged at each run's end */
	}
	if (outs[1].f != NULL) {
		/* every sample goes out as it is taken: nothing of the series is held */
		r->queue_csv = outfile_fp(outs[1].f);
		if (r->queue_csv == NULL) {
			fprintf(stderr, "syncemu run: --queue-csv %s: %s\n", o->queue_csv,
				strerror(errno));
			return CLI_EXIT_FAIL;
		}
		r->queue_csv_streams = outfile_streams(outs[1].f);
		fprintf(r->queue_csv, "run_id,run,t_s,link,bytes\n");
	}
	if (outs[2].f != NULL) {
		/* every step goes out as it ends: nothing of the series is held */
		r->steps_csv = outfile_fp(outs[2].f);
		if (r->steps_csv == NULL) {
			fprintf(stderr, "syncemu run: --csv %s: %s\n", o->steps_csv, strerror(errno));
			return CLI_EXIT_FAIL;
		}
		r->steps_csv_streams = outfile_streams(outs[2].f);
		steps_csv_header(r->steps_csv);
	}
	return CLI_EXIT_OK;
}

/*
 * The runs, one by one until a signal; *@p n becomes the number reported.  The exit code
 * after them (@p status unless a run fails or a signal came).
 */
static int
run_runs(const struct run_opts *o, struct sc_scenario *sc, const struct contender *c,
	 unsigned int *n, struct runner *r, struct outcome *runs, int err_fd, int status)
{
	unsigned int i;

	for (i = 0; i < *n && !cli_stop; i++) {
		if (runner_run(r, sc, &c[i], o->bg_only, &runs[i]) == 0)
			continue;
		status = CLI_EXIT_FAIL;
		if (dp_ranks_size() > 1)
			fprintf(stderr, "syncemu run: rank %d: %s: %s\n", dp_ranks_rank(),
				c[i].label, runs[i].err);
		else
			fprintf(stderr, "%ssyncemu run: %s: %s\n", r->progress && r->tty ? "\n" : "",
				c[i].label, runs[i].err);
	}
	if (err_fd >= 0 && dp_ranks_rank() != 0)
		(void)!freopen("/dev/null", "w", stderr);	/* the rest is rank 0's to say */
	if (cli_stop) {
		/* the report and trace stand for what was done; the runs not begun are left out */
		fprintf(stderr, "%ssyncemu run: interrupted (signal %d): %u of %u runs reported, "
			"the last up to its last whole step\n", r->progress && r->tty ? "\n" : "",
			(int)cli_stop, i, *n);
		*n = i;
		if (status == CLI_EXIT_OK)
			status = CLI_EXIT_INTERRUPTED;
	}
	if (r->progress && r->tty)
		fputc('\n', stderr);
	return status;
}

/*
 * After the runs: the trace closed, the CSVs committed, the plot, the report on the standard
 * output and --tables.  The exit code.
 */
static int
run_finish(const struct run_opts *o, const struct sc_scenario *sc, const char *scenario,
	   struct output *outs, struct runner *r, struct outcome *runs, unsigned int n,
	   const char *trace_path, struct results **resp, int status)
{
	char err[512];
	struct results *res;
	bool written;

	status = session_trace_close(&run_session, r->cap, trace_path, status);
	status = commit_csv(&outs[1], &r->queue_csv, "samples", status);
	status = commit_csv(&outs[2], &r->steps_csv, "steps", status);
	if (outs[3].f != NULL && (status == CLI_EXIT_OK || status == CLI_EXIT_INTERRUPTED)) {
		/* (the plot of what was done: an interrupted run's steps up to its last) */
		if (run_plot_write(outs[3].f, runs, n, sc, err, sizeof(err)) != 0) {
			fprintf(stderr, "syncemu run: --plot: %s\n", err);
			status = CLI_EXIT_FAIL;
		}
		outs[3].f = NULL;
	}
	written = status == CLI_EXIT_OK || status == CLI_EXIT_INTERRUPTED;
	res = run_report_results(runs, n, sc, o->every_step, r->cap, written ? trace_path : NULL);
	*resp = res;
	if (res == NULL) {
		fprintf(stderr, "syncemu run: out of memory: no report\n");
		return CLI_EXIT_FAIL;
	}
	/* (as before: a standard output that cannot be written is not an error here) */
	if ((o->json ? results_json_write(res, stdout) :
		       results_text_write(res, stdout)) == -ENOMEM) {
		fprintf(stderr, "syncemu run: out of memory: no report\n");
		status = CLI_EXIT_FAIL;
	}
	/* (rank 0's: the other ranks' report goes nowhere) */
	if (o->tables != NULL && dp_ranks_rank() == 0)
		status = write_tables(o, sc, scenario, res, status);
	return status;
}

/* The runner's settings from the options and the scenario, before its start. */
static void
run_settings(const struct run_opts *o, const struct sc_scenario *sc, struct runner *r)
{
	r->eal = o->eal;
	r->partitions = sc->run.partitions;
	r->apart = o->ctl != NULL;	/* telemetry: a socket of its own */
	r->mbufs = o->mbufs;
	r->progress = !o->quiet;
	r->tty = isatty(STDERR_FILENO);
	r->stop = &cli_stop;
}

int
cmd_run(int argc, char **argv)
{
	struct run_opts o = { .variants = 0 };
	struct sc_scenario *sc = calloc(1, sizeof(*sc));
	struct contender c[RUNNER_MAX];
	struct outcome *runs = calloc(RUNNER_MAX, sizeof(*runs));
	struct runner r = { .eal = NULL };
	struct output outs[RUN_OUTS] = {
		{ .what = "the trace" },
		{ .what = "--queue-csv", .code = CLI_EXIT_USAGE },
		{ .what = "--csv", .code = CLI_EXIT_USAGE },
		{ .what = "--plot", .code = CLI_EXIT_USAGE },
	};
	char err[512], *pos[1];
	const char *trace_path = NULL, *scenario;
	struct ctl_server *ctl = NULL;
	struct metrics_server *metrics = NULL;
	unsigned int n = 0, i;
	uint32_t need = 0;
	int npos, status = CLI_EXIT_OK, err_fd = -1;
	bool rt_ranks = false;
	struct results *res = NULL;

	if (sc == NULL || runs == NULL) {
		fprintf(stderr, "syncemu run: out of memory\n");
		status = CLI_EXIT_FAIL;
		goto out;
	}
	npos = session_options(&run_session, argc, argv, run_optv, N_OPTS, run_opt, &o, pos, 1);
	if (npos < 0) {
		status = CLI_EXIT_USAGE;
		goto out;
	}
	if (o.help) {
		run_usage(stdout);
		goto out;
	}
	scenario = npos ? pos[0] : NULL;
	/* under mpirun: one rank of the run (ranks.h) */
	status = session_ranks_start(&run_session, &err_fd);
	if (status != CLI_EXIT_OK)
		goto out;
	status = run_load(&o, scenario, sc, c, &n, &rt_ranks);
	if (status != CLI_EXIT_OK)
		goto out;
	for (i = 0; i < n; i++) {
		uint32_t k = runner_need(sc, &c[i]);

		if (k > need)
			need = k;
	}
	need += runner_rt_need(sc);
	run_settings(&o, sc, &r);
	/* under mpirun, the launcher ends the ranks (no report) */
	if (dp_ranks_size() == 1)
		session_catch_stop(&run_session);
	if (dp_ranks_rank() != 0)
		status = shadow_outputs(&o, sc, &r);
	else
		status = run_open(&o, sc, scenario, c, n, outs, &r, rt_ranks, &trace_path);
	status = dp_ranks_first(status);	/* a refused output on rank 0 ends every rank */
	if (status != CLI_EXIT_OK)
		goto out;
	r.keep = RUNNER_KEEP;
	r.queue_points = o.json;
	r.extra_mb = runner_rt_mem_mb(sc);
	status = session_runner_start(&run_session, &r, need, SM_HDR_BYTES + sc->run.pk.payload);
	status = dp_ranks_first(status);
	if (status != CLI_EXIT_OK)
		goto out;
	if (runner_rt_open(&r, sc, c, n, err, sizeof(err)) != 0) {
		/* (ranks: every one has the same verdict, rank 0 says it) */
		fprintf(stderr, "syncemu run: real time: %s\n", err);
		status = CLI_EXIT_FAIL;
		goto out;
	}
	if (r.rt != NULL && err_fd >= 0) {
		/* real time over ranks: what fails in a run may fail on one rank alone, which
		 * says so itself (its progress stays off) */
		r.progress = false;
		fflush(stderr);
		dup2(err_fd, STDERR_FILENO);
	}
	if (o.ctl != NULL && start_ctl(&o, sc, scenario, &r, &ctl, err, sizeof(err)) != 0) {
		fprintf(stderr, "syncemu run: %s\n", err);
		status = CLI_EXIT_FAIL;
		goto out;
	}
	if (o.metrics != NULL) {
		session_status_init(&r, sc);
		metrics = session_metrics(&run_session, o.metrics, r.status);
		if (metrics == NULL) {
			status = CLI_EXIT_USAGE;
			goto out;
		}
	}
	status = run_runs(&o, sc, c, &n, &r, runs, err_fd, status);
	status = run_finish(&o, sc, scenario, outs, &r, runs, n, trace_path, &res, status);
out:
	results_free(res);
	metrics_server_stop(metrics);
	stop_ctl(&r, ctl);
	outputs_abort(outs, RUN_OUTS);
	if (r.cap != NULL && r.cap->w != NULL)
		tr_pcapng_abort(r.cap->w);
	for (i = 0; runs != NULL && i < n; i++)
		outcome_free(&runs[i]);
	cli_sets_free(&o.kv);
	runner_stop(&r);
	if (dp_ranks_rank() != 0 && r.queue_csv != NULL)
		fclose(r.queue_csv);
	if (dp_ranks_rank() != 0 && r.steps_csv != NULL)
		fclose(r.steps_csv);
	session_ranks_end(status, rt_ranks && !r.rt_agreed, err_fd);
	if (r.cap != NULL)
		dp_capture_hold_free(r.cap);
	free(r.cap);
	free(runs);
	free(sc);
	return status;
}

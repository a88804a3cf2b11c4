/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * syncemu sweep: run the data plane over the values of any scenario key and write the step time
 * against the key as CSV, JSON and a plot, with the model's curve beside the emulated points.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"
#include "opts.h"
#include "outputs.h"
#include "results.h"
#include "runner.h"
#include "metrics.h"
#include "scenario.h"
#include "session.h"
#include "sweep.h"
#include "sweep_plot.h"
#include "variant.h"

#define MAX_VALUES 256

struct sweep_opts {
	const char *sets[CLI_MAX_SETS];
	unsigned int nsets;
	const char *key;
	char *values[MAX_VALUES];	/* owned */
	unsigned int nvalues;
	const char *out;
	const char *tables;		/* --tables DIR */
	const char *metrics;		/* --metrics [HOST:]PORT */
	const char *eal;
	uint32_t mbufs;
	unsigned int variants, budgets;
	const char *from[CLI_MAX_SETS];	/* the option an override came from; NULL: --set */
	char *owned[8];
	unsigned int nowned;
	char values_from[32];		/* --values or --range, as typed */
	int values_id;			/* O_VALUES or O_RANGE */
	char both[80];			/* "--values and --range": both were given */
	bool json, quiet, help;
};

enum { O_SET, O_KEY, O_VALUES, O_RANGE, O_STEPS };

static const struct opt sweep_optv[] = {
	{ "key", 'k', "SECTION.KEY", "the scenario key to sweep (required)", .id = O_KEY },
	{ "values", 'V', "LIST", "its values, comma-separated, with units: 1GB/s,3GB/s",
	  .id = O_VALUES },
	{ "range", 'r', "FROM:TO:STEP", "or evenly spaced values: 0:0.9:0.1, 1GB/s:12GB/s:1GB/s",
	  .id = O_RANGE },
	{ "set", 's', "SECTION.KEY=VALUE", "override another key (repeatable)", .id = O_SET },
	{ "variant", 'v', "LIST", "variants [scenario's report]",
	  OPT_TARGET(cli_opt_variants, struct sweep_opts, variants) },
	{ "budget", 'b', "LIST", "module budgets [scenario's report]",
	  OPT_TARGET(cli_opt_budgets, struct sweep_opts, budgets) },
	{ "steps", 'n', "N", "steps per run [run.steps]", .id = O_STEPS },
	{ "out", 'o', "DIR", "write DIR/sweep.csv, .json, .svg, .png, .gp, .dat [sweep-KEY]",
	  OPT_TARGET(opts_set_string, struct sweep_opts, out) },
	{ "tables", 0, "DIR", "also write every table as DIR/<table id>.csv (DIR made if missing)",
	  OPT_TARGET(opts_set_string, struct sweep_opts, tables) },
	{ "metrics", 0, "[HOST:]PORT", "serve live metrics in Prometheus's text format at "
	  "http://HOST:PORT/metrics, the run in progress's (HOST 127.0.0.1 if left out; PORT 0: "
	  "any free one, said)", OPT_TARGET(opts_set_string, struct sweep_opts, metrics) },
	{ "json", 'j', NULL, "print the JSON on stdout too",
	  OPT_TARGET(opts_set_flag, struct sweep_opts, json) },
	{ "quiet", 'q', NULL, "no progress on stderr",
	  OPT_TARGET(opts_set_flag, struct sweep_opts, quiet) },
	{ "eal", 0, "ARGS", "EAL arguments instead of the defaults",
	  .id = OPT_DASH_VALUE, OPT_TARGET(opts_set_string, struct sweep_opts, eal) },
	{ "mbufs", 0, "N", "mbufs of the first frame pool (more are added as frames queue up; with ports: the whole pool) [from the plans, at most 16384]",
	  OPT_TARGET(opts_set_count_u32, struct sweep_opts, mbufs), .data = &cli_mbufs_range },
	{ "help", 'h', NULL, "show this help", OPT_TARGET(opts_set_flag, struct sweep_opts, help) },
};

#define N_OPTS (sizeof(sweep_optv) / sizeof(sweep_optv[0]))

static int
add_value(struct sweep_opts *o, const char *v, size_t len, char *err, size_t errlen)
{
	if (o->nvalues == MAX_VALUES) {
		snprintf(err, errlen, "at most %d values", MAX_VALUES);
		return -EINVAL;
	}
	if (len == 0) {
		snprintf(err, errlen, "%s: an empty value", opts_spelling());
		return -EINVAL;
	}
	o->values[o->nvalues] = strndup(v, len);
	if (o->values[o->nvalues] == NULL)
		return -ENOMEM;
	o->nvalues++;
	return 0;
}

/* A number and what follows it: "12.5GB/s" -> 12.5, "GB/s". */
static int
split_number(const char *s, double *x, const char **unit)
{
	char *end;

	errno = 0;
	*x = strtod(s, &end);
	if (end == s || errno != 0 || !isfinite(*x))
		return -EINVAL;
	while (*end == ' ')
		end++;
	*unit = end;
	return 0;
}

static int
parse_range(struct sweep_opts *o, const char *arg, char *err, size_t errlen)
{
	char buf[192], *part[3], *save = NULL;
	const char *unit[3];
	double v[3];
	int i, rc;
	unsigned int k, n;

	if (strlen(arg) >= sizeof(buf)) {
		snprintf(err, errlen, "%s: too long", opts_spelling());
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", arg);
	for (i = 0; i < 3; i++) {
		part[i] = strtok_r(i ? NULL : buf, ":", &save);
		if (part[i] == NULL || split_number(part[i], &v[i], &unit[i]) != 0) {
			snprintf(err, errlen, "%s: '%s' is not FROM:TO:STEP (numbers, each "
				 "with the same unit if any)", opts_spelling(), arg);
			return -EINVAL;
		}
	}
	if (strtok_r(NULL, ":", &save) != NULL || strcmp(unit[0], unit[1]) != 0 ||
	    (unit[2][0] && strcmp(unit[0], unit[2]) != 0) || !(v[2] > 0) || v[1] < v[0]) {
		snprintf(err, errlen, "%s: '%s': need FROM <= TO, STEP > 0 and one unit",
			 opts_spelling(), arg);
		return -EINVAL;
	}
	n = (unsigned int)floor((v[1] - v[0]) / v[2] + 1e-9) + 1;
	if (n > MAX_VALUES) {
		snprintf(err, errlen, "%s: %u values, at most %d", opts_spelling(), n, MAX_VALUES);
		return -EINVAL;
	}
	for (k = 0; k < n; k++) {
		char val[64];

		snprintf(val, sizeof(val), "%.10g%s", v[0] + k * v[2], unit[0]);
		rc = add_value(o, val, strlen(val), err, errlen);
		if (rc != 0)
			return rc;
	}
	return 0;
}

static int
sweep_opt(void *ctx, int id, const char *arg, char *err, size_t errlen)
{
	struct sweep_opts *o = ctx;
	const char *p, *q;
	char *s, *f;
	int rc;

	switch (id) {
	case O_SET:
		return cli_add_set(o->sets, &o->nsets, arg, err, errlen);
	case O_KEY:
		if (sc_key_name_check(arg, opts_spelling(), err, errlen) != 0)
			return -EINVAL;
		o->key = arg;
		return 0;
	case O_VALUES:
	case O_RANGE:
		/* one way to give the values: --values or --range, not both */
		if (o->values_from[0] != '\0' && id != o->values_id) {
			snprintf(o->both, sizeof(o->both), "%s and %s", o->values_from,
				 opts_spelling());
		}
		o->values_id = id;
		snprintf(o->values_from, sizeof(o->values_from), "%s", opts_spelling());
		if (id == O_RANGE)
			return parse_range(o, arg, err, errlen);
		for (p = arg; *p != '\0'; p = *q ? q + 1 : q) {
			q = strchr(p, ',');
			if (q == NULL)
				q = p + strlen(p);
			rc = add_value(o, p, (size_t)(q - p), err, errlen);
			if (rc != 0)
				return rc;
		}
		return 0;
	case O_STEPS:
		if (o->nowned + 2 > sizeof(o->owned) / sizeof(o->owned[0])) {
			snprintf(err, errlen, "too many overrides");
			return -EINVAL;
		}
		rc = cli_key_option("run.steps", arg, &s, &f, err, errlen);
		if (rc != 0)
			return rc;
		o->owned[o->nowned++] = s;
		o->owned[o->nowned++] = f;
		if (o->nsets < CLI_MAX_SETS)
			o->from[o->nsets] = f;
		return cli_add_set(o->sets, &o->nsets, s, err, errlen);
	}
	return -EINVAL;
}

static void
sweep_usage(FILE *f)
{
	opts_usage(f, "syncemu sweep [SCENARIO.ini] --key SECTION.KEY (--values LIST | --range "
		   "FROM:TO:STEP) [options]",
		   "Run the data plane for every value of one scenario key (any key: the background\n"
		   "load, the WAN rate, the module budget, bit planes, the MTU, ...) and write the\n"
		   "mean step time against the key: DIR/sweep.csv (one row per value and variant),\n"
		   "DIR/sweep.json, and the plot DIR/sweep.svg and sweep.png, with the model beside\n"
		   "every point:\n"
		   "the packet-level closed form and the fluid step at zero load, the fluid shared-WAN\n"
		   "model (processor sharing and FIFO) under load. gnuplot draws the plot from the\n"
		   "script DIR/sweep.gp and its data DIR/sweep.dat, saved beside it: edit the script\n"
		   "and draw again with  cd DIR && gnuplot sweep.gp. Every value is checked before any\n"
		   "run starts, the data plane's limits included (a value they cannot hold is refused\n"
		   "with the largest that works): alone by the key's rule (a bad one is a bad command\n"
		   "line, exit 2), then with the whole scenario (exit 3). Progress and the time left\n"
		   "go to stderr.\n"
		   "DIR is made if missing. Its files are replaced whole or not at all (a link writes\n"
		   "its target, a FIFO is streamed; a device, a directory, a socket or the scenario\n"
		   "file is refused before any run); the plot only if gnuplot succeeds and writes it\n"
		   "whole, else exit 1 with gnuplot's message, the other four files written.\n"
		   "SIGINT or SIGTERM ends the sweep after the run in progress, which keeps the steps\n"
		   "it made: the files hold the runs done, marked partial (the CSV's status\n"
		   "'interrupted' and 'not_run', the JSON's \"partial\": true and \"not_run\", the\n"
		   "plot's title), exit 130; a second signal ends it at once, leaving no temporary\n"
		   "file and each file not yet written as it was.\n"
		   "--tables DIR also writes the table of the runs (the JSON's \"points\") as\n"
		   "DIR/points.csv: a header of the column keys, numbers as %.10g, NaN empty;\n"
		   "replaced whole or not at all, an input never overwritten (a DIR refused:\n"
		   "exit 2).\n"
		   "Exit codes: 0 ok, 1 a run, a file or gnuplot failed, 2 bad command line, 3 bad\n"
		   "scenario, 130 interrupted.",
		   sweep_optv, N_OPTS);
	fprintf(f, "\nexamples:\n"
		   "  syncemu sweep --key background.load --range 0:0.9:0.1 -v A,\"E'\" -b free -n 200"
		   " \\\n      --set queues.wan=1GB -o load-sweep\n"
		   "  syncemu sweep scenarios/2dc4-8g.ini --key module.budget_low --values "
		   "10GFLOP/s,50GFLOP/s,100GFLOP/s,200GFLOP/s -v E -b low -n 3\n"
		   "  syncemu sweep --key wan.bandwidth --values 1GB/s,3GB/s,6GB/s,12.5GB/s -v A,C' "
		   "-n 3\n");
}

/*
 * SIGINT, SIGTERM: the run in progress ends after its step, and the files of the runs done are
 * written, marked partial.  A second one, or SIGHUP, removes the temporary files, ends gnuplot
 * and ends the process at once, as the default action would.  A signal ignored from the start
 * (nohup, a script's background job) stays ignored.
 */
static const struct session sweep_session = {
	.who = "syncemu sweep",
	.stop_note = "syncemu sweep: interrupted: the runs done are written after the run in "
		     "progress (a second signal ends it at once)\n",
	.stop_hup = true,
	.stop_cleanup = sweep_plot_signal_kill,
};

/*
 * --out DIR: a directory (made if missing: *@p made, and removed again if the sweep writes
 * nothing in it), and its six files checked and opened before any run (a FIFO without a reader
 * waited for, until a signal).  0 or an exit code with the message on stderr.
 */
static int
open_files(const char *dir, const struct sc_scenario *sc, const char *scenario,
	   struct output *outs, char **paths, bool *made)
{
	const struct input in[] = {
		{ scenario, "the scenario file" },
		{ sc->background.sizes_csv, "background.sizes_csv" },
		{ sc->kernel.file, "the link-kernel program (module.kernel)" },
	};
	char err[1024];
	struct stat st;
	unsigned int k;
	int rc;

	if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "syncemu sweep: --out %s is %s, not a directory\n", dir,
			S_ISREG(st.st_mode) ? "a regular file" : S_ISFIFO(st.st_mode) ? "a FIFO" :
			S_ISCHR(st.st_mode) ? "a character device" : S_ISBLK(st.st_mode) ?
			"a block device" : S_ISSOCK(st.st_mode) ? "a socket" : "not a directory");
		return CLI_EXIT_USAGE;
	}
	rc = outfile_mkdir(dir);		/* removed again if nothing is written in it */
	if (rc < 0) {
		fprintf(stderr, "syncemu sweep: --out: cannot create the directory %s: %s\n", dir,
			strerror(-rc));
		return CLI_EXIT_USAGE;
	}
	*made = rc == 1;
	for (k = 0; k < SW_FILES; k++) {
		if (asprintf(&paths[k], "%s/%s", dir, sweep_file_names[k]) < 0) {
			paths[k] = NULL;
			return CLI_EXIT_FAIL;
		}
		outs[k] = (struct output){ .path = paths[k], .what = "--out", .code =
					   CLI_EXIT_USAGE };
	}
	rc = outputs_open(outs, SW_FILES, in, sizeof(in) / sizeof(in[0]), "syncemu sweep",
			  &cli_stop,
			  err, sizeof(err));
	if (rc != 0)
		fprintf(stderr, "syncemu sweep: %s\n", err);
	return rc;
}

static double
wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}


/* "DIR" quoted for a shell when it needs it ('...', a quote in it as '\''). */
static void
put_shell_word(FILE *f, const char *s)
{
	const char *p;

	for (p = s; *p != '\0'; p++)
		if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./+:,@",
			   *p) == NULL)
			break;
	if (*p == '\0' && *s != '\0') {
		fputs(s, f);
		return;
	}
	fputc('\'', f);
	for (p = s; *p != '\0'; p++) {
		if (*p == '\'')
			fputs("'\\''", f);
		else
			fputc(*p, f);
	}
	fputc('\'', f);
}

/* The text: the table of the runs, then what is partial and which files were written. */
static void
text_lines(struct results *res, const struct sweep *sw, const char *dir,
	   const struct sweep_point *cut_pt, const struct outcome *cut, unsigned int done,
	   unsigned int total, unsigned int written)
{
	const struct sweep_point *pt = sw->pt;
	unsigned int i, j, k, n = 0;
	char files[256] = "";
	size_t used = 0;

	results_line(res, "syncemu sweep of %s over %u values (%s)%s", sw->key, sw->nvalues,
		     pt[0].sc->name, done < total || cut != NULL ? ", partial (interrupted)" : "");
	results_line(res, "  %-14s %-10s %10s %10s %12s %12s  %s", "value", "run", "mean ms",
		     "95% CI", sw->loaded ? "model PS" : "packet model",
		     sw->loaded ? "model FIFO" : "fluid ms", "status");
	for (i = 0; i < sw->nvalues; i++)
		for (j = 0; j < pt[i].nc; j++) {
			const struct outcome *q = &pt[i].o[j];
			char st[160];

			if (!pt[i].ran[j])
				continue;
			/* (the status: ok only where every model column applies, as syncemu run's) */
			results_line(res, "  %-14s %-10s %10.4f %10.4f %12.4f %12.4f  %s", pt[i].value,
				     q->c.label, outcome_mean(q) * 1e3, q->all.ci95 * 1e3,
				     sweep_model_ms(q, false),
				     sw->loaded ? sweep_model_ms(q, true) : q->fluid * 1e3,
				     sweep_run_status(&pt[i], j, st, sizeof(st)));
		}
	if (cut != NULL)
		results_line(res, "interrupted: %s=%s %s stopped after step %u of %u", sw->key,
			     cut_pt->value, cut->c.label, cut->res.steps, cut_pt->sc->run.steps);
	if (done < total)
		results_line(res, "not run: %u of %u runs", total - done, total);
	for (k = 0; k < SW_FILES && used < sizeof(files); k++) {
		if (!(written & 1u << k))
			continue;
		used += (size_t)snprintf(files + used, sizeof(files) - used, "%s%s",
					 n++ ? ", " : "", sweep_file_names[k]);
	}
	if (n > 0)
		results_line(res, "wrote %s/%s", dir, files);
}

/* What the points ask of the runs and what the runs did. */
struct sweep_state {
	unsigned int total, done;	/* runs in all, runs done */
	uint32_t need, frame;		/* the frames and the frame size the runner needs */
	bool loaded;			/* a point has background load */
	const struct outcome *cut;	/* the run a signal cut short, NULL: none */
	const struct sweep_point *cut_pt;	/* its point */
};

/*
 * The values given one way, with a key, and each value alone by the key's own rule (a bad one
 * is a bad command line): 0, or the exit code, said.
 */
static int
values_check(const struct sweep_opts *o)
{
	char err[512];
	unsigned int i;
	int rc;

	if (o->both[0] != '\0') {
		fprintf(stderr, "syncemu sweep: %s exclude each other: give the values one way\n"
			"(try 'syncemu sweep --help')\n", o->both);
		return CLI_EXIT_USAGE;
	}
	if (o->key == NULL || o->nvalues == 0) {
		fprintf(stderr, "syncemu sweep: needs --key and --values or --range\n"
			"(try 'syncemu sweep --help')\n");
		return CLI_EXIT_USAGE;
	}
	for (i = 0; i < o->nvalues; i++) {
		char *kv;

		if (asprintf(&kv, "%s=%s", o->key, o->values[i]) < 0)
			return CLI_EXIT_FAIL;
		rc = sc_override_check(kv, o->values_from, err, sizeof(err));
		free(kv);
		if (rc != 0) {
			fprintf(stderr, "syncemu sweep: value %u of %s: %s\n"
				"(try 'syncemu sweep --help')\n", i + 1, o->key, err);
			return rc == -ENOMEM ? CLI_EXIT_FAIL : CLI_EXIT_USAGE;
		}
	}
	return CLI_EXIT_OK;
}

/*
 * Every value's scenario loaded (@p sets and @p from: the overrides, the value's slot at
 * o->nsets) and its contenders, into @p pt; what they need into @p st.  0 or the exit code,
 * said.
 */
static int
load_points(const struct sweep_opts *o, const char *scenario, struct sweep_point *pt,
	    const char **sets, const char **from, struct sweep_state *st)
{
	char err[512];
	unsigned int i, j;
	int rc;

	for (i = 0; i < o->nvalues; i++) {
		char *kv;

		pt[i].value = o->values[i];
		if (split_number(pt[i].value, &pt[i].x, &pt[i].unit) != 0) {
			pt[i].x = i;	/* not a number: plot the values in order */
			pt[i].unit = "";
		}
		pt[i].sc = calloc(1, sizeof(*pt[i].sc));
		if (pt[i].sc == NULL || asprintf(&kv, "%s=%s", o->key, pt[i].value) < 0)
			return CLI_EXIT_FAIL;
		sets[o->nsets] = kv;
		rc = sc_scenario_load_run(pt[i].sc, scenario, sets, from, o->nsets + 2,
					  o->variants, o->budgets, err, sizeof(err));
		free(kv);
		if (rc != 0) {
			fprintf(stderr, "syncemu sweep: value %u of %s: %s\n", i + 1, o->key, err);
			return CLI_EXIT_INPUT;
		}
		if (pt[i].sc->run.clock == SC_CLOCK_REAL) {
			fprintf(stderr, "syncemu sweep: run.clock = real: a sweep runs in virtual "
				"time (exact and repeatable); run real-time points one by one with "
				"syncemu run\n");
			return CLI_EXIT_INPUT;
		}
		if (o->variants)
			pt[i].sc->variants = o->variants;
		if (o->budgets)
			pt[i].sc->budgets = o->budgets;
		pt[i].nc = contenders_of(pt[i].sc, pt[i].c);
		if (pt[i].sc->background.load > 0)
			st->loaded = true;
		for (j = 0; j < pt[i].nc; j++) {
			uint32_t k = runner_need(pt[i].sc, &pt[i].c[j]);

			if (k > st->need)
				st->need = k;
		}
		if (SM_HDR_BYTES + pt[i].sc->run.pk.payload > st->frame)
			st->frame = SM_HDR_BYTES + pt[i].sc->run.pk.payload;
		st->total += pt[i].nc;
	}
	return CLI_EXIT_OK;
}

/* The runs, point by point, until a signal, their progress said.  The exit code after them. */
static int
run_points(const struct sweep_opts *o, struct sweep_point *pt, struct runner *r,
	   struct sweep_state *st, int status)
{
	double t0 = wall_now();
	unsigned int i, j;

	/* after a signal no run starts; the one in progress ends after its step */
	for (i = 0; i < o->nvalues && !cli_stop; i++) {
		char who[160];

		snprintf(who, sizeof(who), "syncemu sweep: %s=%s", o->key, pt[i].value);
		runner_note_long(pt[i].sc, pt[i].c, pt[i].nc, who, stderr);
		for (j = 0; j < pt[i].nc && !cli_stop; j++) {
			struct outcome *q = &pt[i].o[j];
			double el;

			pt[i].ran[j] = true;
			if (runner_run(r, pt[i].sc, &pt[i].c[j], 0, q) != 0) {
				fprintf(stderr, "syncemu sweep: %s=%s %s: %s\n", o->key, pt[i].value,
					pt[i].c[j].label, q->err);
				status = CLI_EXIT_FAIL;
			}
			st->done++;
			if (q->rc == 0 && q->res.interrupted) {
				st->cut = q;
				st->cut_pt = &pt[i];
			}
			el = wall_now() - t0;
			if (o->quiet)
				continue;
			if (st->cut == q)
				fprintf(stderr, "sweep %u/%u: %s=%s %s: interrupted after "
					"step %u of %u: %.3f ms\n", st->done, st->total, o->key,
					pt[i].value, pt[i].c[j].label, q->res.steps,
					pt[i].sc->run.steps, outcome_mean(q) * 1e3);
			else
				fprintf(stderr, "sweep %u/%u: %s=%s %s: %.3f ms; %.1f s so "
					"far, about %.1f s left\n", st->done, st->total, o->key,
					pt[i].value, pt[i].c[j].label, outcome_mean(q) * 1e3, el,
					el / st->done * (st->total - st->done));
		}
	}
	return status;
}

/* An interrupted sweep said, and the files' mark into @p mark. */
static void
say_partial(const struct sweep_opts *o, const struct sweep_state *st, char *mark, size_t len)
{
	fprintf(stderr, "syncemu sweep: interrupted (signal %d): %u of %u runs done",
		(int)cli_stop, st->done, st->total);
	if (st->cut != NULL)
		fprintf(stderr, ", the last (%s=%s %s) up to its last whole step, %u of %u",
			o->key, st->cut_pt->value, st->cut->c.label, st->cut->res.steps,
			st->cut_pt->sc->run.steps);
	fprintf(stderr, "; the files hold them, marked partial\n");
	snprintf(mark, len, "partial (interrupted): %u of %u runs%s", st->done, st->total,
		 st->cut != NULL ? ", the last cut short" : "");
}

/* --tables: every table as CSV; the exit code (@p status unless it fails). */
static int
write_tables(const struct sweep_opts *o, const char *scenario, const struct sc_scenario *sc,
	     const struct results *res, int status)
{
	const struct input in[] = {
		{ scenario, "the scenario file" },
		{ sc->background.sizes_csv, "background.sizes_csv" },
		{ sc->kernel.file, "the link-kernel program (module.kernel)" },
	};
	char err[512];
	int rc;

	const struct results_csv_dir d = { .dir = o->tables, .in = in,
					   .n_in = sizeof(in) / sizeof(in[0]),
					   .cmd = "syncemu sweep", .stop = &cli_stop };

	rc = results_csv_write_dir(res, &d, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "syncemu sweep: %s\n", err);
		if (status == CLI_EXIT_OK)
			status = results_csv_exit(rc);
	}
	return status;
}

/* The models' curves between the swept values (NULL: none), their time said. */
static json_t *
curves(const struct sweep_opts *o, const struct sweep *sw, const char *scenario,
       const char **sets, const char **from)
{
	struct sweep_load ld = { .scenario = scenario, .sets = sets,
				 .from = from, .nsets = o->nsets, .variants = o->variants,
				 .budgets = o->budgets };
	double tc = wall_now();
	json_t *c;

	c = sweep_curves_json(sw, &ld);
	if (!o->quiet)
		fprintf(stderr, "sweep: the models between the swept values: %.1f s\n",
			wall_now() - tc);
	return c;
}

/*
 * sweep.csv and sweep.json (of the results, *@p resp: NULL, out of memory) written and committed, each one's
 * bit set in *@p written, a failure said.  The exit code after them.
 */
static int
write_data(struct output *outs, char **paths, const struct sweep *sw, bool partial,
	   struct results **resp, unsigned int *written, int status)
{
	struct results *res;
	FILE *f;
	int rc;

	rc = sweep_write_csv(outs[SW_CSV].f, sw);
	outs[SW_CSV].f = NULL;
	if (rc == 0) {
		*written |= 1u << SW_CSV;
	} else {
		fprintf(stderr, "syncemu sweep: cannot write %s: %s\n", paths[SW_CSV],
			strerror(-rc));
		status = CLI_EXIT_FAIL;
	}
	res = sweep_results(sw, partial);
	*resp = res;
	f = outfile_fp(outs[SW_JSON].f);
	if (res == NULL || f == NULL || results_json_write(res, f) != 0)
		rc = outfile_error(outs[SW_JSON].f) != 0 ? outfile_error(outs[SW_JSON].f) : -ENOMEM;
	else
		rc = 0;
	if (rc == 0) {
		rc = outfile_commit(outs[SW_JSON].f);
		outs[SW_JSON].f = NULL;
	}
	if (rc == 0) {
		*written |= 1u << SW_JSON;
	} else {
		fprintf(stderr, "syncemu sweep: cannot write %s: %s\n", paths[SW_JSON],
			strerror(-rc));
		status = CLI_EXIT_FAIL;
	}
	return status;
}

int
cmd_sweep(int argc, char **argv)
{
	struct sweep_opts o = { .nsets = 0 };
	struct sweep_point *pt = NULL;
	struct runner r = { .eal = NULL };
	struct output outs[SW_FILES] = { { .path = NULL } };
	char err[512], mark[96], *pos[1], *dir = NULL, *paths[SW_FILES] = { NULL };
	const char **sets = NULL, **from = NULL;
	struct sweep_state st = { .total = 0 };
	unsigned int i, j, written = 0;
	int npos, status = CLI_EXIT_OK;
	bool partial, made = false;
	struct sweep sw = { .curves = NULL };
	struct results *res = NULL;
	struct metrics_server *metrics = NULL;

	session_catch_stop(&sweep_session);
	npos = session_options(&sweep_session, argc, argv, sweep_optv, N_OPTS, sweep_opt, &o, pos,
			       1);
	if (npos < 0) {
		status = CLI_EXIT_USAGE;
		goto out;
	}
	if (o.help) {
		sweep_usage(stdout);
		goto out;
	}
	status = values_check(&o);
	if (status != CLI_EXIT_OK)
		goto out;
	pt = calloc(o.nvalues, sizeof(*pt));
	sets = calloc(o.nsets + 2, sizeof(*sets));
	from = calloc(o.nsets + 2, sizeof(*from));
	if (pt == NULL || sets == NULL || from == NULL) {
		status = CLI_EXIT_FAIL;
		goto out;
	}
	/* every value is checked with the whole scenario before anything runs */
	memcpy(sets, o.sets, o.nsets * sizeof(*sets));
	memcpy(from, o.from, o.nsets * sizeof(*from));
	sets[o.nsets + 1] = "trace.file=none";
	from[o.nsets] = o.values_from;
	status = load_points(&o, npos ? pos[0] : NULL, pt, sets, from, &st);
	if (status != CLI_EXIT_OK)
		goto out;
	if (st.total == 0) {
		fprintf(stderr, "syncemu sweep: no variant selected\n");
		status = CLI_EXIT_USAGE;
		goto out;
	}
	if (o.out != NULL ? (dir = strdup(o.out)) == NULL :
			    asprintf(&dir, "sweep-%s", o.key) < 0) {
		dir = NULL;
		status = CLI_EXIT_FAIL;
		goto out;
	}
	status = open_files(dir, pt[0].sc, npos ? pos[0] : NULL, outs, paths, &made);
	if (status != CLI_EXIT_OK)
		goto out;
	/* after --out's directory is made: --tables may be in it */
	if (o.tables != NULL && results_csv_dir_check(o.tables, err, sizeof(err)) != 0) {
		fprintf(stderr, "syncemu sweep: %s\n", err);
		status = CLI_EXIT_USAGE;
		goto out;
	}
	r.eal = o.eal;
	r.partitions = pt[0].sc->run.partitions;
	r.mbufs = o.mbufs;
	r.stop = &cli_stop;
	status = session_runner_start(&sweep_session, &r, st.need, st.frame);
	if (status != CLI_EXIT_OK)
		goto out;
	if (o.metrics != NULL) {
		session_status_init(&r, pt[0].sc);
		metrics = session_metrics(&sweep_session, o.metrics, r.status);
		if (metrics == NULL) {
			status = CLI_EXIT_USAGE;
			goto out;
		}
	}
	status = run_points(&o, pt, &r, &st, status);
	partial = st.done < st.total || st.cut != NULL;
	if (cli_stop && st.done == 0) {
		fprintf(stderr, "syncemu sweep: interrupted (signal %d) before the first run: "
			"nothing written, %s %s\n", (int)cli_stop, made ?
			"and the directory it made removed:" : "the files as they were in", dir);
		status = CLI_EXIT_INTERRUPTED;
		goto out;
	}
	if (partial)
		say_partial(&o, &st, mark, sizeof(mark));
	sw = (struct sweep){ .key = o.key, .nvalues = o.nvalues, .pt = pt, .loaded = st.loaded };
	if (!cli_stop)
		sw.curves = curves(&o, &sw, npos ? pos[0] : NULL, sets, from);
	status = write_data(outs, paths, &sw, partial, &res, &written, status);
	if (sweep_write_plot(outs, &sw, partial ? mark : NULL, &written) != 0)
		status = CLI_EXIT_FAIL;
	if ((written & 1u << SW_GP) && !(written & 1u << SW_SVG)) {
		fprintf(stderr, "syncemu sweep: the plot's script and data are saved: draw it "
			"with  cd ");
		put_shell_word(stderr, dir);
		fprintf(stderr, " && gnuplot sweep.gp\n");
	}
	if (res != NULL && o.tables != NULL)
		status = write_tables(&o, npos ? pos[0] : NULL, pt[0].sc, res, status);
	if (res != NULL && o.json) {
		results_json_write(res, stdout);
	} else if (res != NULL) {
		text_lines(res, &sw, dir, st.cut_pt, st.cut, st.done, st.total, written);
		results_text_write(res, stdout);
	}
	if (cli_stop && !partial)
		fprintf(stderr, "syncemu sweep: interrupted (signal %d) after the last run: its "
			"files are whole\n", (int)cli_stop);
	if (cli_stop && status == CLI_EXIT_OK)
		status = CLI_EXIT_INTERRUPTED;
out:
	metrics_server_stop(metrics);
	outputs_abort(outs, SW_FILES);
	outfile_mkdir_done(dir, written == 0);
	for (i = 0; i < SW_FILES; i++)
		free(paths[i]);
	results_free(res);
	json_decref(sw.curves);
	for (i = 0; pt != NULL && i < o.nvalues; i++) {
		for (j = 0; j < pt[i].nc; j++)
			outcome_free(&pt[i].o[j]);
		free(pt[i].sc);
	}
	for (i = 0; i < o.nvalues; i++)
		free(o.values[i]);
	for (i = 0; i < o.nowned; i++)
		free(o.owned[i]);
	runner_stop(&r);
	free(pt);
	free(sets);
	free(from);
	free(dir);
	return status;
}

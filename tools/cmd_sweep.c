/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * syncemu sweep: run the data plane over the values of any scenario key and write the step time
 * against the key as CSV, JSON and a plot, with the model's curve beside the emulated points.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
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
#include "runner.h"
#include "variant.h"

#define MAX_VALUES 256

struct sweep_opts {
	const char *sets[CLI_MAX_SETS];
	unsigned int nsets;
	const char *key;
	char *values[MAX_VALUES];	/* owned */
	unsigned int nvalues;
	const char *out;
	const char *eal;
	uint32_t mbufs;
	unsigned int variants, budgets;
	char *owned[4];
	unsigned int nowned;
	bool json, quiet, help;
};

enum { O_SET, O_KEY, O_VALUES, O_RANGE, O_VARIANT, O_BUDGET, O_STEPS, O_OUT, O_JSON, O_QUIET,
       O_EAL, O_MBUFS, O_HELP };

static const struct opt sweep_optv[] = {
	{ "key", 'k', "SECTION.KEY", "the scenario key to sweep (required)", O_KEY },
	{ "values", 'V', "LIST", "its values, comma-separated, with units: 1GB/s,3GB/s", O_VALUES },
	{ "range", 'r', "FROM:TO:STEP", "or evenly spaced values: 0:0.9:0.1, 1GB/s:12GB/s:1GB/s",
	  O_RANGE },
	{ "set", 's', "SECTION.KEY=VALUE", "override another key (repeatable)", O_SET },
	{ "variant", 'v', "LIST", "variants [scenario's report]", O_VARIANT },
	{ "budget", 'b', "LIST", "module budgets [scenario's report]", O_BUDGET },
	{ "steps", 'n', "N", "steps per run [run.steps]", O_STEPS },
	{ "out", 'o', "DIR", "write DIR/sweep.csv, sweep.json, sweep.svg [sweep-KEY]", O_OUT },
	{ "json", 'j', NULL, "print the JSON on stdout too", O_JSON },
	{ "quiet", 'q', NULL, "no progress on stderr", O_QUIET },
	{ "eal", 0, "ARGS", "EAL arguments instead of the defaults", O_EAL },
	{ "mbufs", 0, "N", "size of the mbuf pool [from the plans]", O_MBUFS },
	{ "help", 'h', NULL, "show this help", O_HELP },
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
		snprintf(err, errlen, "--values: an empty value");
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
		snprintf(err, errlen, "--range: too long");
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", arg);
	for (i = 0; i < 3; i++) {
		part[i] = strtok_r(i ? NULL : buf, ":", &save);
		if (part[i] == NULL || split_number(part[i], &v[i], &unit[i]) != 0) {
			snprintf(err, errlen, "--range: '%s' is not FROM:TO:STEP (numbers, each "
				 "with the same unit if any)", arg);
			return -EINVAL;
		}
	}
	if (strtok_r(NULL, ":", &save) != NULL || strcmp(unit[0], unit[1]) != 0 ||
	    (unit[2][0] && strcmp(unit[0], unit[2]) != 0) || !(v[2] > 0) || v[1] < v[0]) {
		snprintf(err, errlen, "--range: '%s': need FROM <= TO, STEP > 0 and one unit", arg);
		return -EINVAL;
	}
	n = (unsigned int)floor((v[1] - v[0]) / v[2] + 1e-9) + 1;
	if (n > MAX_VALUES) {
		snprintf(err, errlen, "--range: %u values, at most %d", n, MAX_VALUES);
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
	char *s;
	unsigned long v;
	int rc;

	switch (id) {
	case O_SET:
		return cli_add_set(o->sets, &o->nsets, arg, err, errlen);
	case O_KEY:
		if (strchr(arg, '.') == NULL || strchr(arg, '=') != NULL) {
			snprintf(err, errlen, "--key: '%s' is not SECTION.KEY", arg);
			return -EINVAL;
		}
		o->key = arg;
		return 0;
	case O_VALUES:
		for (p = arg; *p != '\0'; p = *q ? q + 1 : q) {
			q = strchr(p, ',');
			if (q == NULL)
				q = p + strlen(p);
			rc = add_value(o, p, (size_t)(q - p), err, errlen);
			if (rc != 0)
				return rc;
		}
		return 0;
	case O_RANGE:
		return parse_range(o, arg, err, errlen);
	case O_VARIANT:
		return cli_parse_variants(arg, &o->variants, err, errlen);
	case O_BUDGET:
		return cli_parse_budgets(arg, &o->budgets, err, errlen);
	case O_STEPS:
		if (o->nowned == 4 || asprintf(&s, "run.steps=%s", arg) < 0)
			return -ENOMEM;
		o->owned[o->nowned++] = s;
		return cli_add_set(o->sets, &o->nsets, s, err, errlen);
	case O_OUT:
		o->out = arg;
		return 0;
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
sweep_usage(FILE *f)
{
	opts_usage(f, "syncemu sweep [SCENARIO.ini] --key SECTION.KEY (--values LIST | --range "
		   "FROM:TO:STEP) [options]",
		   "Run the data plane for every value of one scenario key (any key: the background\n"
		   "load, the WAN rate, the module budget, bit planes, the MTU, ...) and write the\n"
		   "mean step time against the key: DIR/sweep.csv (one row per value and variant),\n"
		   "DIR/sweep.json, and DIR/sweep.svg and sweep.png (gnuplot), with the model beside\n"
		   "every point:\n"
		   "the packet-level closed form and the fluid step at zero load, the fluid shared-WAN\n"
		   "model (processor sharing and FIFO) under load. Every value is checked before any\n"
		   "run starts. Progress and the time left go to stderr.\n"
		   "DIR is made if missing. Its files are replaced whole or not at all (a link writes\n"
		   "its target, a FIFO is streamed; a device, a directory, a socket or the scenario\n"
		   "file is refused before any run), the plot only if gnuplot succeeds; a signal\n"
		   "leaves no temporary file.",
		   sweep_optv, N_OPTS);
	fprintf(f, "\nexamples:\n"
		   "  syncemu sweep --key background.load --range 0:0.9:0.1 -v A,\"E'\" -b free -n 200"
		   " \\\n      --set queues.wan=1GB -o load-sweep\n"
		   "  syncemu sweep scenarios/2dc4-8g.ini --key module.budget_low --values "
		   "10GFLOP/s,50GFLOP/s,100GFLOP/s,200GFLOP/s -v E -b low -n 3\n"
		   "  syncemu sweep --key wan.bandwidth --values 1GB/s,3GB/s,6GB/s,12.5GB/s -v A,C' "
		   "-n 3\n");
}

/* ---- one point of the sweep ---- */

struct point {
	char *value;
	double x;
	const char *unit;
	struct sc_scenario *sc;
	unsigned int nc;
	struct contender c[RUNNER_MAX];
	struct outcome o[RUNNER_MAX];
};

/* The model's figure for a point: PS under load, else the packet-level closed form. */
static double
model_ms(const struct outcome *o, bool fifo)
{
	if (o->rc != 0)
		return NAN;
	if (o->loaded)
		return o->model_rc == 0 ? 1e3 * (fifo ? o->fifo.step.mean : o->ps.step.mean) : NAN;
	if (fifo || o->pm_rc != 0 || o->pm_steps == 0)
		return NAN;
	return o->pm_mean * 1e3;	/* over the steps compared, as they ran */
}

/* The files of a sweep, in --out DIR. */
enum { F_CSV, F_JSON, F_SVG, F_PNG, F_COUNT };

static const char *const file_names[F_COUNT] = { "sweep.csv", "sweep.json", "sweep.svg",
						 "sweep.png" };

/* Write the CSV and commit it (or abort it on an error). */
static int
write_csv(struct outfile *out, const struct sweep_opts *o, struct point *pt)
{
	FILE *f = outfile_fp(out);
	unsigned int i, j;

	if (f == NULL) {
		outfile_abort(out);
		return -ENOMEM;
	}
	fprintf(f, "key,value,x,run,steps,mean_ms,ci95_ms,median_ms,p99_ms,model_ms,model_fifo_ms,"
		   "fluid_ms,status\n");
	for (i = 0; i < o->nvalues; i++) {
		for (j = 0; j < pt[i].nc; j++) {
			const struct outcome *r = &pt[i].o[j];
			char st[160];

			/* the status of syncemu run: "ok" only where the model columns apply */
			fprintf(f, "%s,\"%s\",%.10g,\"%s\",%u,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,\"%s\"\n",
				o->key, pt[i].value, pt[i].x, r->c.label, r->res.steps,
				outcome_mean(r) * 1e3, r->all.ci95 * 1e3, r->all.median * 1e3,
				r->all.p99 * 1e3, model_ms(r, false), model_ms(r, true),
				r->fluid * 1e3, r->rc == 0 ? outcome_status(r, st, sizeof(st)) :
				"failed");
		}
	}
	return outfile_commit(out);
}

static json_t *
jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *
sweep_json(const struct sweep_opts *o, struct point *pt)
{
	json_t *root = json_object(), *pts = json_array();
	unsigned int i, j;

	if (root == NULL || pts == NULL) {
		json_decref(root);
		json_decref(pts);
		return NULL;
	}
	json_object_set_new(root, "syncemu", json_string(SYNCEMU_VERSION));
	json_object_set_new(root, "key", json_string(o->key));
	json_object_set_new(root, "scenario", json_string(pt[0].sc->name));
	json_object_set_new(root, "seed", json_integer((json_int_t)pt[0].sc->run.seed));
	for (i = 0; i < o->nvalues; i++) {
		for (j = 0; j < pt[i].nc; j++) {
			const struct outcome *r = &pt[i].o[j];

			json_array_append_new(pts, json_pack(
				"{s:s, s:o, s:s, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b}",
				"value", pt[i].value, "x", jnum(pt[i].x), "run", r->c.label,
				"steps", (int)r->res.steps, "mean_ms", jnum(outcome_mean(r) * 1e3),
				"ci95_ms", jnum(r->all.ci95 * 1e3),
				"p99_ms", jnum(r->all.p99 * 1e3), "model_ms", jnum(model_ms(r, false)),
				"model_fifo_ms", jnum(model_ms(r, true)),
				"fluid_ms", jnum(r->fluid * 1e3), "wall_s", jnum(r->wall),
				"ok", r->rc == 0));
		}
	}
	json_object_set_new(root, "points", pts);
	return root;
}

/*
 * The plot, through gnuplot: emulated means with their CI as points, the model as lines.
 * gnuplot writes into the outputs' temporaries (outfile_child_path()), which are put in place
 * only if it succeeds; both outputs are committed or aborted here.
 */
static int
write_plot(struct outfile *svg, struct outfile *png, const struct sweep_opts *o,
	   struct point *pt, bool loaded, char *err, size_t errlen)
{
	unsigned int i, j;
	FILE *g;
	int rc, rc2;

	if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
		snprintf(err, errlen, "gnuplot is not installed (apt-get install gnuplot-nox): "
			 "the plot was not drawn; the CSV and JSON are written");
		outfile_abort(svg);
		outfile_abort(png);
		return -ENOENT;
	}
	g = popen("gnuplot >/dev/null 2>&1", "w");
	if (g == NULL) {
		rc = -errno;
		outfile_abort(svg);
		outfile_abort(png);
		return rc;
	}
	/* one data block per variant: x, emulated mean, its CI, the model (PS), FIFO */
	for (j = 0; j < pt[0].nc; j++) {
		fprintf(g, "$D%u << EOD\n", j);
		for (i = 0; i < o->nvalues; i++) {
			const struct outcome *r = &pt[i].o[j];
			double ci = r->all.ci95 * 1e3;

			fprintf(g, "%.10g %.9g %.9g %.9g %.9g\n", pt[i].x, outcome_mean(r) * 1e3,
				isfinite(ci) ? ci : 0.0, model_ms(r, false), model_ms(r, true));
		}
		fprintf(g, "EOD\n");
	}
	fprintf(g, "set terminal svg size 900,560 dynamic font 'sans,11'\n"
		   "set output '%s'\nset key outside right\nset grid\n"
		   "set datafile missing 'nan'\n"
		   "set title \"syncemu sweep of %s (%s)\" noenhanced\n"
		   "set xlabel \"%s%s%s\" noenhanced\nset ylabel 'step time, ms'\n"
		   "set yrange [0:*]\nset offsets graph 0.02, graph 0.02, 0, 0\nplot ",
		outfile_child_path(svg), o->key,
		pt[0].sc->name, o->key, pt[0].unit[0] ? ", " : "", pt[0].unit);
	for (j = 0; j < pt[0].nc; j++) {
		const char *l = pt[0].c[j].label;

		fprintf(g, "%s$D%u using 1:2:3 with yerrorbars lc %u pt 7 title \"%s emulated\" "
			   "noenhanced, $D%u using 1:4 with lines lc %u dt 2 title \"%s %s\" "
			   "noenhanced", j ? ", " : "", j, j + 1, l, j, j + 1, l,
			loaded ? "model PS" : "packet model");
		if (loaded)
			fprintf(g, ", $D%u using 1:5 with lines lc %u dt 3 title \"%s model FIFO\" "
				   "noenhanced", j, j + 1, l);
	}
	/* and the same as a PNG */
	fprintf(g, "\nset terminal pngcairo size 900,560 font 'sans,10'\nset output '%s'\n"
		   "replot\nset output\n", outfile_child_path(png));
	rc = pclose(g) == 0 ? 0 : -EIO;
	if (rc != 0) {
		snprintf(err, errlen, "gnuplot failed on %s: no plot written", outfile_path(svg));
		outfile_abort(svg);
		outfile_abort(png);
		return rc;
	}
	rc = outfile_commit(svg);
	rc2 = outfile_commit(png);	/* both are committed, whatever the first gives */
	if (rc == 0)
		rc = rc2;
	if (rc != 0)
		snprintf(err, errlen, "cannot write the plot: %s", strerror(-rc));
	return rc;
}

/*
 * --out DIR: a directory (made if missing), and its four files checked and opened before any
 * run.  0 or an exit code with the message on stderr.
 */
static int
open_files(const char *dir, const struct sc_scenario *sc, const char *scenario,
	   struct output *outs, char **paths)
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
	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "syncemu sweep: --out: cannot create the directory %s: %s\n", dir,
			strerror(errno));
		return CLI_EXIT_USAGE;
	}
	for (k = 0; k < F_COUNT; k++) {
		if (asprintf(&paths[k], "%s/%s", dir, file_names[k]) < 0) {
			paths[k] = NULL;
			return CLI_EXIT_FAIL;
		}
		outs[k] = (struct output){ .path = paths[k], .what = "--out", .code =
					   CLI_EXIT_USAGE };
	}
	rc = outputs_open(outs, F_COUNT, in, sizeof(in) / sizeof(in[0]), "syncemu sweep", NULL,
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

int
cmd_sweep(int argc, char **argv)
{
	struct sweep_opts o = { .nsets = 0 };
	struct point *pt = NULL;
	struct runner r = { .eal = NULL };
	struct output outs[F_COUNT] = { { .path = NULL } };
	char err[512], *pos[1], *dir = NULL, *paths[F_COUNT] = { NULL };
	const char **sets = NULL;
	unsigned int i, j, total = 0, done = 0;
	uint32_t need = 0, frame = 0;
	int npos, status = CLI_EXIT_OK, rc;
	bool loaded = false;
	double t0;
	json_t *js = NULL;
	FILE *f;

	outfile_catch_signals();	/* a signal leaves no temporary behind */
	npos = opts_parse(argc, argv, sweep_optv, N_OPTS, sweep_opt, &o, pos, 1, err, sizeof(err));
	if (npos < 0) {
		fprintf(stderr, "syncemu sweep: %s\n(try 'syncemu sweep --help')\n", err);
		status = CLI_EXIT_USAGE;
		goto out;
	}
	if (o.help) {
		sweep_usage(stdout);
		goto out;
	}
	if (o.key == NULL || o.nvalues == 0) {
		fprintf(stderr, "syncemu sweep: needs --key and --values or --range\n"
			"(try 'syncemu sweep --help')\n");
		status = CLI_EXIT_USAGE;
		goto out;
	}
	pt = calloc(o.nvalues, sizeof(*pt));
	sets = calloc(o.nsets + 2, sizeof(*sets));
	if (pt == NULL || sets == NULL) {
		status = CLI_EXIT_FAIL;
		goto out;
	}
	/* every value is checked before anything runs */
	memcpy(sets, o.sets, o.nsets * sizeof(*sets));
	sets[o.nsets + 1] = "trace.file=none";
	for (i = 0; i < o.nvalues; i++) {
		char *kv;

		pt[i].value = o.values[i];
		if (split_number(pt[i].value, &pt[i].x, &pt[i].unit) != 0) {
			pt[i].x = i;	/* not a number: plot the values in order */
			pt[i].unit = "";
		}
		pt[i].sc = calloc(1, sizeof(*pt[i].sc));
		if (pt[i].sc == NULL || asprintf(&kv, "%s=%s", o.key, pt[i].value) < 0) {
			status = CLI_EXIT_FAIL;
			goto out;
		}
		sets[o.nsets] = kv;
		rc = sc_scenario_load_run(pt[i].sc, npos ? pos[0] : NULL, sets, o.nsets + 2,
					  o.variants, o.budgets, err, sizeof(err));
		free(kv);
		if (rc != 0) {
			fprintf(stderr, "syncemu sweep: value %u of %s: %s\n", i + 1, o.key, err);
			status = CLI_EXIT_INPUT;
			goto out;
		}
		if (pt[i].sc->run.clock == SC_CLOCK_REAL) {
			fprintf(stderr, "syncemu sweep: run.clock = real: a sweep runs in virtual "
				"time (exact and repeatable); run real-time points one by one with "
				"syncemu run\n");
			status = CLI_EXIT_INPUT;
			goto out;
		}
		if (o.variants)
			pt[i].sc->variants = o.variants;
		if (o.budgets)
			pt[i].sc->budgets = o.budgets;
		pt[i].nc = contenders_of(pt[i].sc, pt[i].c);
		if (pt[i].sc->background.load > 0)
			loaded = true;
		for (j = 0; j < pt[i].nc; j++) {
			uint32_t k = runner_need(pt[i].sc, &pt[i].c[j]);

			if (k > need)
				need = k;
		}
		if (SM_HDR_BYTES + pt[i].sc->run.pk.payload > frame)
			frame = SM_HDR_BYTES + pt[i].sc->run.pk.payload;
		total += pt[i].nc;
	}
	if (total == 0) {
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
	status = open_files(dir, pt[0].sc, npos ? pos[0] : NULL, outs, paths);
	if (status != CLI_EXIT_OK)
		goto out;
	r.eal = o.eal;
	r.mbufs = o.mbufs;
	if (runner_start(&r, need, frame, err, sizeof(err)) != 0) {
		fprintf(stderr, "syncemu sweep: %s\n", err);
		status = CLI_EXIT_FAIL;
		goto out;
	}
	t0 = wall_now();
	for (i = 0; i < o.nvalues; i++) {
		for (j = 0; j < pt[i].nc; j++) {
			double el;

			if (runner_run(&r, pt[i].sc, &pt[i].c[j], 0, &pt[i].o[j]) != 0) {
				fprintf(stderr, "syncemu sweep: %s=%s %s: %s\n", o.key, pt[i].value,
					pt[i].c[j].label, pt[i].o[j].err);
				status = CLI_EXIT_FAIL;
			}
			done++;
			el = wall_now() - t0;
			if (!o.quiet)
				fprintf(stderr, "sweep %u/%u: %s=%s %s: %.3f ms; %.1f s so far, about "
					"%.1f s left\n", done, total, o.key, pt[i].value,
					pt[i].c[j].label, outcome_mean(&pt[i].o[j]) * 1e3, el,
					el / done * (total - done));
		}
	}
	rc = write_csv(outs[F_CSV].f, &o, pt);
	outs[F_CSV].f = NULL;
	if (rc != 0) {
		fprintf(stderr, "syncemu sweep: cannot write %s: %s\n", paths[F_CSV], strerror(-rc));
		status = CLI_EXIT_FAIL;
		goto out;
	}
	js = sweep_json(&o, pt);
	f = outfile_fp(outs[F_JSON].f);
	if (js == NULL || f == NULL ||
	    json_dumpf(js, f, JSON_INDENT(1) | JSON_REAL_PRECISION(10)) != 0) {
		fprintf(stderr, "syncemu sweep: cannot write %s\n", paths[F_JSON]);
		status = CLI_EXIT_FAIL;
		goto out;
	}
	rc = outfile_commit(outs[F_JSON].f);
	outs[F_JSON].f = NULL;
	if (rc != 0) {
		fprintf(stderr, "syncemu sweep: cannot write %s: %s\n", paths[F_JSON],
			strerror(-rc));
		status = CLI_EXIT_FAIL;
		goto out;
	}
	rc = write_plot(outs[F_SVG].f, outs[F_PNG].f, &o, pt, loaded, err, sizeof(err));
	outs[F_SVG].f = outs[F_PNG].f = NULL;
	if (rc != 0) {
		fprintf(stderr, "syncemu sweep: %s\n", err);
		status = CLI_EXIT_FAIL;
	}
	if (o.json)
		json_dumpf(js, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
	else {
		printf("syncemu sweep of %s over %u values (%s)\n", o.key, o.nvalues,
		       pt[0].sc->name);
		printf("  %-14s %-10s %10s %10s %12s %12s\n", "value", "run", "mean ms", "95% CI",
		       loaded ? "model PS" : "packet model", loaded ? "model FIFO" : "fluid ms");
		for (i = 0; i < o.nvalues; i++)
			for (j = 0; j < pt[i].nc; j++) {
				const struct outcome *q = &pt[i].o[j];

				printf("  %-14s %-10s %10.4f %10.4f %12.4f %12.4f\n", pt[i].value,
				       q->c.label, outcome_mean(q) * 1e3, q->all.ci95 * 1e3,
				       model_ms(q, false), loaded ? model_ms(q, true) :
				       q->fluid * 1e3);
			}
		printf("wrote %s/sweep.csv, %s/sweep.json%s\n", dir, dir,
		       status == CLI_EXIT_OK ? ", sweep.svg and sweep.png" : "");
	}
out:
	outputs_abort(outs, F_COUNT);
	for (i = 0; i < F_COUNT; i++)
		free(paths[i]);
	json_decref(js);
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
	free(dir);
	return status;
}

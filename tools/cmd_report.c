/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * syncemu report: one self-contained HTML page from the JSON of model, run, sweep and validate
 * (the page: experiment/report_page.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "cli.h"
#include "opts.h"
#include "outputs.h"
#include "report_page.h"

#ifndef SYNCEMU_CHARTJS
#define SYNCEMU_CHARTJS "/usr/share/javascript/chart.js/chart.min.js"
#endif

#define MAX_INPUTS 64

struct report_opts {
	const char *out;
	const char *title;
	const char *chartjs;
	bool help;
};

static const struct opt report_optv[] = {
	{ "out", 'o', "FILE", "write the page to FILE (.html; - for stdout) (required)",
	  OPT_TARGET(opts_set_string, struct report_opts, out) },
	{ "title", 't', "TEXT", "the page's title [syncemu report: the scenarios]",
	  OPT_TARGET(opts_set_string, struct report_opts, title) },
	{ "chart-js", 0, "FILE", "Chart.js 3 to inline [" SYNCEMU_CHARTJS "]",
	  OPT_TARGET(opts_set_string, struct report_opts, chartjs) },
	{ "help", 'h', NULL, "show this help",
	  OPT_TARGET(opts_set_flag, struct report_opts, help) },
};

#define N_OPTS (sizeof(report_optv) / sizeof(report_optv[0]))

static void
report_usage(FILE *f)
{
	opts_usage(f, "syncemu report JSON... -o FILE.html [options]",
		   "Write one self-contained HTML page of charts from the JSON of syncemu model,\n"
		   "run, sweep and validate (--json; a sweep's DIR/sweep.json), one or several\n"
		   "files in any mix, a section each in the order given:\n"
		   "  model     time to target against WAN bandwidth for every variant, with a\n"
		   "            slider over the bandwidth and one over the module's budget, the\n"
		   "            break-evens marked (the deck's 7a); the link kernel's four stages\n"
		   "            against the compute budget, bit planes, energy\n"
		   "  run       each step beside the packet and fluid models, the shares as\n"
		   "            stacked bars, the WAN queues over time, the background's\n"
		   "            completion times, drops, live changes marked on the time axis\n"
		   "  sweep     the swept key against the mean step with its confidence band and\n"
		   "            the models as dense curves, log axes where the range asks\n"
		   "  validate  the wire's steps against the application's and the model's, per\n"
		   "            direction, and how much the directions overlapped\n"
		   "Every chart states its scenario, seed, steps and queue limits. The page opens\n"
		   "without a network: its style, its data and Chart.js (Debian's libjs-chart.js)\n"
		   "are inlined; the same inputs give the same page. FILE is replaced whole or not\n"
		   "at all, and never when it is one of the inputs.\n"
		   "Exit codes: 0 ok, 1 cannot write the page or read Chart.js, 2 bad command line,\n"
		   "3 an input is not JSON or not syncemu's (the message names the file, line and\n"
		   "column).",
		   report_optv, N_OPTS);
	fprintf(f, "\nexample:\n"
		   "  syncemu model --json >model.json\n"
		   "  syncemu run --json >run.json\n"
		   "  syncemu sweep --key background.load --range 0:0.8:0.2 -v A -o load\n"
		   "  syncemu report model.json run.json load/sweep.json -o report.html\n");
}

int
cmd_report(int argc, char **argv)
{
	struct report_opts o = { .chartjs = NULL };
	struct report_input in[MAX_INPUTS];
	struct input ins[MAX_INPUTS + 1];
	struct output out = { .path = NULL, .what = "the page", .code = CLI_EXIT_USAGE };
	char err[1024], title[512], *pos[MAX_INPUTS + 1], *cjs = NULL;
	const char *cjs_path;
	size_t cjs_len = 0;
	int npos, i, status = CLI_EXIT_OK, rc;

	memset(in, 0, sizeof(in));
	npos = opts_parse(argc, argv, report_optv, N_OPTS, NULL, &o, pos, MAX_INPUTS + 1,
			  err, sizeof(err));
	if (npos < 0) {
		fprintf(stderr, "syncemu report: %s\n(try 'syncemu report --help')\n", err);
		return CLI_EXIT_USAGE;
	}
	if (o.help) {
		report_usage(stdout);
		return 0;
	}
	if (npos == 0 || o.out == NULL || npos > MAX_INPUTS) {
		fprintf(stderr, "syncemu report: %s\n(try 'syncemu report --help')\n",
			npos == 0 ? "no JSON to draw: give the JSON of model, run, sweep or validate" :
			npos > MAX_INPUTS ? "more than 64 inputs" :
			"no --out FILE.html (- for stdout)");
		return CLI_EXIT_USAGE;
	}
	for (i = 0; i < npos; i++) {
		json_error_t je;
		char why[256];

		struct stat st;

		in[i].path = pos[i];
		ins[i] = (struct input){ pos[i], "an input" };
		if (stat(pos[i], &st) != 0) {
			fprintf(stderr, "syncemu report: %s: %s\n", pos[i], strerror(errno));
			status = CLI_EXIT_INPUT;
			goto out;
		}
		if (S_ISDIR(st.st_mode)) {
			fprintf(stderr, "syncemu report: %s: a directory, not a JSON file (a sweep's "
				"is DIR/sweep.json)\n", pos[i]);
			status = CLI_EXIT_INPUT;
			goto out;
		}
		in[i].json = json_load_file(pos[i], JSON_REJECT_DUPLICATES, &je);
		if (in[i].json == NULL) {
			if (je.line > 0)
				fprintf(stderr, "syncemu report: %s:%d:%d: %s\n", pos[i], je.line,
					je.column, je.text);
			else
				fprintf(stderr, "syncemu report: %s: %s\n", pos[i], je.text);
			status = CLI_EXIT_INPUT;
			goto out;
		}
		in[i].kind = report_kind_of(in[i].json, why, sizeof(why));
		if (in[i].kind == NULL) {
			fprintf(stderr, "syncemu report: %s: %s\n", pos[i], why);
			status = CLI_EXIT_INPUT;
			goto out;
		}
	}
	cjs_path = o.chartjs != NULL ? o.chartjs : SYNCEMU_CHARTJS;
	ins[npos] = (struct input){ cjs_path, "Chart.js" };
	cjs = report_slurp(cjs_path, &cjs_len);
	if (cjs == NULL || strstr(cjs, "</script") != NULL || strstr(cjs, "Chart") == NULL) {
		fprintf(stderr, "syncemu report: Chart.js: %s: %s%s\n", cjs_path,
			cjs == NULL ? strerror(errno) : "not Chart.js (or it holds \"</script\")",
			o.chartjs == NULL ? " (Debian: apt-get install libjs-chart.js; or give "
					    "--chart-js FILE)" : "");
		status = o.chartjs != NULL ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
		goto out;
	}
	out.path = o.out;
	rc = outputs_open(&out, 1, ins, (unsigned int)npos + 1, "syncemu report", NULL, err,
			  sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "syncemu report: %s\n", err);
		status = rc;
		goto out;
	}
	if (o.title != NULL)
		snprintf(title, sizeof(title), "%s", o.title);
	else
		report_default_title(title, sizeof(title), in, (unsigned int)npos);
	rc = report_write_page(out.f, title, cjs, cjs_len, in, (unsigned int)npos);
	if (rc == 0) {
		rc = outfile_commit(out.f);
		out.f = NULL;
	}
	if (rc != 0) {
		fprintf(stderr, "syncemu report: cannot write %s: %s (%s left as it was)\n", o.out,
			strerror(-rc), o.out);
		status = CLI_EXIT_FAIL;
		goto out;
	}
	if (strcmp(o.out, "-") != 0)
		fprintf(stderr, "syncemu report: wrote %s (%d input%s)\n", o.out, npos,
			npos == 1 ? "" : "s");
out:
	outputs_abort(&out, 1);
	free(cjs);
	for (i = 0; i < npos && i < MAX_INPUTS; i++)
		json_decref(in[i].json);
	return status;
}

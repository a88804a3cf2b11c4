/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * syncemu report: one self-contained HTML page from the JSON of model, run, sweep and validate.
 *
 * The page needs no network to open: the style, the data and Chart.js (Debian's libjs-chart.js,
 * read from disk and inlined) are in it, with the page's own script (tools/report/report.js,
 * built into this program).  The same inputs give the same page, byte for byte.
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

#ifndef SYNCEMU_CHARTJS
#define SYNCEMU_CHARTJS "/usr/share/javascript/chart.js/chart.min.js"
#endif

/* the page's own files (built from tools/report/ by embed.py) */
extern const unsigned char report_css[], report_js[];
extern const size_t report_css_len, report_js_len;

#define MAX_INPUTS 64

struct report_opts {
	const char *out;
	const char *title;
	const char *chartjs;
	bool help;
};

enum { O_OUT, O_TITLE, O_CHARTJS, O_HELP };

static const struct opt report_optv[] = {
	{ "out", 'o', "FILE", "write the page to FILE (.html; - for stdout) (required)",
	  O_OUT },
	{ "title", 't', "TEXT", "the page's title [syncemu report: the scenarios]", O_TITLE },
	{ "chart-js", 0, "FILE", "Chart.js 3 to inline [" SYNCEMU_CHARTJS "]", O_CHARTJS },
	{ "help", 'h', NULL, "show this help", O_HELP },
};

#define N_OPTS (sizeof(report_optv) / sizeof(report_optv[0]))

static int
report_opt(void *ctx, int id, const char *arg, char *err, size_t errlen)
{
	struct report_opts *o = ctx;

	switch (id) {
	case O_OUT:
		o->out = arg;
		return 0;
	case O_TITLE:
		o->title = arg;
		return 0;
	case O_CHARTJS:
		o->chartjs = arg;
		return 0;
	case O_HELP:
		o->help = true;
		return 0;
	}
	snprintf(err, errlen, "%s: unknown option", opts_spelling());
	return -EINVAL;
}

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

struct report_input {
	const char *path;
	const char *kind;	/* "model", "run", "sweep", "validate" */
	json_t *json;
};

/* What made @p j: its "command", or (JSON of an earlier syncemu) its shape; NULL: not ours. */
static const char *
kind_of(json_t *j, char *why, size_t len)
{
	const char *c = json_string_value(json_object_get(j, "command"));
	const char *mode = json_string_value(json_object_get(j, "mode"));
	/* validate's main table: a job's or syncemu's steps, or the bursts it found */
	const char *vtab = mode != NULL && strcmp(mode, "bursts") == 0 ? "bursts" : "steps";
	json_t *tabs = json_object_get(j, "tables");

	if (!json_is_object(j) || json_object_get(j, "syncemu") == NULL) {
		snprintf(why, len, "not the JSON of syncemu model, run, sweep or validate "
			 "(no \"syncemu\" member at the top)");
		return NULL;
	}
	if (c == NULL) {
		if (json_is_array(json_object_get(j, "runs")) && json_object_get(j, "mode") == NULL)
			c = "run";
		else if (json_is_array(json_object_get(j, "points")))
			c = "sweep";
		else if (json_is_string(json_object_get(j, "mode")))
			c = "validate";
		else if (json_is_object(tabs))
			c = "model";
	}
	if (c == NULL || (strcmp(c, "model") != 0 && strcmp(c, "run") != 0 &&
			  strcmp(c, "sweep") != 0 && strcmp(c, "validate") != 0)) {
		snprintf(why, len, "the JSON of 'syncemu %s': the report draws model, run, sweep "
			 "and validate", c != NULL ? c : "?");
		return NULL;
	}
	/* what the page's script reads without looking */
	if ((strcmp(c, "model") == 0 && (!json_is_object(json_object_get(j, "scenario")) ||
					 !json_is_object(tabs))) ||
	    (strcmp(c, "run") == 0 && !json_is_array(json_object_get(j, "runs"))) ||
	    (strcmp(c, "sweep") == 0 && !json_is_array(json_object_get(j, "points"))) ||
	    (strcmp(c, "validate") == 0 &&
	     (!json_is_object(tabs) || !json_is_object(json_object_get(j, "trace")) ||
	      !json_is_object(json_object_get(tabs, vtab))))) {
		snprintf(why, len, "the JSON of 'syncemu %s' without its main members", c);
		return NULL;
	}
	return c;
}

/* The whole of a file, NUL-terminated; NULL with errno. */
static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, k;

	if (f == NULL)
		return NULL;
	do {
		if (cap - n < 65536) {
			char *b = realloc(buf, cap + 262144);

			if (b == NULL) {
				free(buf);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			buf = b;
			cap += 262144;
		}
		k = fread(buf + n, 1, cap - n - 1, f);
		n += k;
	} while (k > 0);
	if (ferror(f)) {
		free(buf);
		fclose(f);
		errno = EIO;
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* Text into HTML: the five characters that matter escaped. */
static void
put_html(struct outfile *out, const char *s)
{
	for (; *s != '\0'; s++) {
		const char *e = *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : *s == '&' ? "&amp;" :
				*s == '"' ? "&quot;" : *s == '\'' ? "&#39;" : NULL;

		outfile_write(out, e != NULL ? e : s, e != NULL ? strlen(e) : 1);
	}
}

static void
put(struct outfile *out, const char *s)
{
	outfile_write(out, s, strlen(s));	/* an error stays: outfile_error() */
}

/*
 * The inputs as one JSON array inside <script type="application/json">: every '<' written as
 * \u003c (it can only be inside a string), so nothing in the data can end the element.
 */
static int
put_data(struct outfile *out, const struct report_input *in, unsigned int n)
{
	json_t *a = json_array();
	char *s, *p, *q;
	unsigned int i;
	int rc = 0;

	for (i = 0; a != NULL && i < n; i++)
		if (json_array_append_new(a, json_pack("{s:s, s:s, s:O}", "kind", in[i].kind,
						       "file", in[i].path, "json", in[i].json)) != 0)
			rc = -ENOMEM;
	s = a != NULL && rc == 0 ? json_dumps(a, JSON_COMPACT | JSON_REAL_PRECISION(12)) : NULL;
	json_decref(a);
	if (s == NULL)
		return -ENOMEM;
	for (p = s; (q = strchr(p, '<')) != NULL; p = q + 1) {
		outfile_write(out, p, (size_t)(q - p));
		put(out, "\\u003c");
	}
	put(out, p);
	free(s);
	return 0;
}

/* The scenario's name in a command's JSON: "scenario" is an object (run, model) or a name (sweep). */
static const char *
scenario_name(json_t *j)
{
	json_t *sc = json_object_get(j, "scenario");

	return json_string_value(json_is_object(sc) ? json_object_get(sc, "name") : sc);
}

static void
default_title(char *buf, size_t len, const struct report_input *in, unsigned int n)
{
	size_t k = (size_t)snprintf(buf, len, "syncemu report:");
	unsigned int i, j;

	for (i = 0; i < n && k < len; i++) {
		const char *name = scenario_name(in[i].json);
		bool seen = false;

		for (j = 0; name != NULL && j < i && !seen; j++)
			seen = scenario_name(in[j].json) != NULL &&
			       strcmp(scenario_name(in[j].json), name) == 0;
		if (name != NULL && !seen)
			k += (size_t)snprintf(buf + k, len - k, "%s %s", k > 15 ? "," : "", name);
	}
	if (k <= 15)
		snprintf(buf, len, "syncemu report");
}

/* The page; outfile_write()'s error is sticky: it is looked at once, at the end. */
static int
write_page(struct outfile *out, const char *title, const char *chartjs, size_t chartjs_len,
	   const struct report_input *in, unsigned int n)
{
	unsigned int i;
	int rc;

	put(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		 "<meta name=\"generator\" content=\"syncemu " SYNCEMU_VERSION "\">\n<title>");
	put_html(out, title);
	put(out, "</title>\n<style>\n");
	outfile_write(out, report_css, report_css_len);
	put(out, "</style>\n</head>\n<body>\n<header class=\"page\"><h1>");
	put_html(out, title);
	put(out, "</h1><p>syncemu " SYNCEMU_VERSION " report of");
	for (i = 0; i < n; i++) {
		put(out, i ? ", " : " ");
		put_html(out, in[i].path);
		put(out, " (");
		put(out, in[i].kind);
		put(out, ")");
	}
	put(out, ". Hover a chart for values; the sliders move its marked lines.</p>"
		 "</header>\n<nav class=\"toc\"></nav>\n<main></main>\n"
		 "<noscript><p class=\"error\">The charts need JavaScript.</p></noscript>\n"
		 "<script>\n");
	outfile_write(out, chartjs, chartjs_len);
	put(out, "\n</script>\n<script type=\"application/json\" id=\"syncemu-data\">");
	rc = put_data(out, in, n);
	put(out, "</script>\n<script>\n");
	outfile_write(out, report_js, report_js_len);
	put(out, "</script>\n</body>\n</html>\n");
	return rc != 0 ? rc : outfile_error(out);
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
	npos = opts_parse(argc, argv, report_optv, N_OPTS, report_opt, &o, pos, MAX_INPUTS + 1,
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
		in[i].kind = kind_of(in[i].json, why, sizeof(why));
		if (in[i].kind == NULL) {
			fprintf(stderr, "syncemu report: %s: %s\n", pos[i], why);
			status = CLI_EXIT_INPUT;
			goto out;
		}
	}
	cjs_path = o.chartjs != NULL ? o.chartjs : SYNCEMU_CHARTJS;
	ins[npos] = (struct input){ cjs_path, "Chart.js" };
	cjs = slurp(cjs_path, &cjs_len);
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
		default_title(title, sizeof(title), in, (unsigned int)npos);
	rc = write_page(out.f, title, cjs, cjs_len, in, (unsigned int)npos);
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

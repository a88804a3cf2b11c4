/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * syncemu report's page: one self-contained HTML page from the JSON of model, run, sweep and
 * validate.
 *
 * The page needs no network to open: the style, the data and Chart.js (Debian's libjs-chart.js,
 * read from disk and inlined) are in it, with the page's own script (experiment/report/report.js,
 * built into the library).  The same inputs give the same page, byte for byte.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "report_page.h"

/* the page's own files (built from experiment/report/ by embed.py) */
extern const unsigned char report_css[], report_js[];
extern const size_t report_css_len, report_js_len;

const char *
report_kind_of(json_t *j, char *why, size_t len)
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

char *
report_slurp(const char *path, size_t *len)
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

void
report_default_title(char *buf, size_t len, const struct report_input *in, unsigned int n)
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

/* (outfile_write()'s error is sticky: it is looked at once, at the end) */
int
report_write_page(struct outfile *out, const char *title, const char *chartjs, size_t chartjs_len,
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

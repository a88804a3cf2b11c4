/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * syncemu run --plot FILE: each run's steps against the packet-level closed form and the fluid
 * model (under load, the fluid shared-WAN model's PS and FIFO means), drawn by gnuplot into
 * FILE (SVG, or PNG when FILE ends in .png), the scenario's settings in the title.  The steps
 * are those the report keeps (all up to 2000; past that the first and last 1000).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_plot.h"
#include "run_report.h"
#include "sweep_plot.h"

/* ", \ dat index IDX using 1:COL with lines lc LC dt DT title 'LABEL WHAT'" */
static void
put_line(FILE *f, unsigned int idx, unsigned int col, unsigned int lc, unsigned int dt,
	 const char *label, const char *what)
{
	char t[96];

	fprintf(f, ", \\\n     dat index %u using 1:%u with lines lc %u dt %u title ", idx, col, lc,
		dt);
	snprintf(t, sizeof(t), "%s %s", label, what);
	plot_put_string(f, t);
	fputs(" noenhanced", f);
}

static void
data(FILE *f, const struct outcome *runs, unsigned int n, double *lo, double *hi)
{
	unsigned int i, k, b = 0;

	*lo = INFINITY;
	*hi = 0;
	fputs("# syncemu run --plot: a block per run (gnuplot's index): step, emulated_ms, "
	      "packet_model_ms, fluid_ms, ps_mean_ms, fifo_mean_ms\n", f);
	for (i = 0; i < n; i++) {
		const struct outcome *o = &runs[i];
		double ps = o->loaded && o->model_rc == 0 ? o->ps.step.mean * 1e3 : NAN;
		double fifo = o->loaded && o->model_rc == 0 ? o->fifo.step.mean * 1e3 : NAN;

		if (o->rc != 0 || outcome_kept(o) == 0)
			continue;
		fprintf(f, "%s# index %u: %s\n", b ? "\n\n" : "", b, o->c.label);
		b++;
		for (k = 0; k < outcome_kept(o); k++) {
			const struct kept_step *ks = outcome_kept_step(o, k);
			const double v[5] = { (double)ks->r.time / 1e9, ks->pm_ps / 1e9,
					      ks->fluid * 1e3, ps, fifo };
			int j;

			fprintf(f, "%u", ks->s);
			for (j = 0; j < 5; j++) {
				fprintf(f, isfinite(v[j]) ? " %.9g" : " nan", v[j]);
				if (isfinite(v[j]) && v[j] > 0) {
					*lo = fmin(*lo, v[j]);
					*hi = fmax(*hi, v[j]);
				}
			}
			fputc('\n', f);
		}
	}
}

static void
script(FILE *f, const struct outcome *runs, unsigned int n, const struct sc_scenario *sc,
       bool png, bool logy)
{
	char settings[256], title[256];
	unsigned int i, b = 0;

	run_report_settings(sc, settings, sizeof(settings));
	fprintf(f, "# syncemu run --plot: each step of each run against the models\n"
		   "if (!exists(\"dat\")) { dat = 'run.dat' }\n"
		   "if (!exists(\"out\")) { out = 'run.%s' }\n", png ? "png" : "svg");
	fputs(png ? "set terminal pngcairo size 1000,620 font 'sans,10'\n" :
		    "set terminal svg size 1000,620 dynamic font 'sans,11'\n", f);
	fputs("set output out\nset key outside right\nset grid\nset datafile missing 'nan'\n"
	      "set title ", f);
	snprintf(title, sizeof(title), "syncemu run of %s: each step against the models",
		 sc->name);
	plot_put_string(f, title);
	fputs(".\"\\n\".", f);
	plot_put_string(f, settings);
	fprintf(f, " noenhanced\nset xlabel 'step'\nset ylabel 'step time, ms%s'\n",
		logy ? " (log scale)" : "");
	fputs(logy ? "set logscale y\n" : "set yrange [0:*]\n", f);
	fputs("plot ", f);
	for (i = 0; i < n; i++) {
		const struct outcome *o = &runs[i];
		char t[64];

		if (o->rc != 0 || outcome_kept(o) == 0)
			continue;
		fprintf(f, "%sdat index %u using 1:2 with linespoints lc %u pt 7 ps 0.4 title ",
			b ? ", \\\n     " : "", b, b + 1);
		snprintf(t, sizeof(t), "%s emulated", o->c.label);
		plot_put_string(f, t);
		fputs(" noenhanced", f);
		put_line(f, b, 3, b + 1, 2, o->c.label, "packet model");
		put_line(f, b, 4, b + 1, 3, o->c.label, "fluid model");
		if (o->loaded) {
			put_line(f, b, 5, b + 1, 4, o->c.label, "model PS (mean)");
			put_line(f, b, 6, b + 1, 5, o->c.label, "model FIFO (mean)");
		}
		b++;
	}
	fputs("\nset output\n", f);
}

int
run_plot_write(struct outfile *out, const struct outcome *runs, unsigned int n,
	       const struct sc_scenario *sc, char *err, size_t errlen)
{
	const char *path = outfile_path(out);
	size_t pl = strlen(path), len[2] = { 0, 0 };
	bool png = pl > 4 && strcasecmp(path + pl - 4, ".png") == 0;
	struct plot_out po = { "out", out, !png };
	char *text[2] = { NULL, NULL };
	unsigned int i, kept = 0;
	double lo, hi;
	FILE *f;
	int rc;

	for (i = 0; i < n; i++)
		kept += runs[i].rc == 0 ? outcome_kept(&runs[i]) : 0;
	if (kept == 0) {
		snprintf(err, errlen, "no run made a step: %s not drawn", path);
		outfile_abort(out);
		return -ENODATA;
	}
	f = open_memstream(&text[0], &len[0]);
	if (f != NULL) {
		data(f, runs, n, &lo, &hi);
		if (fclose(f) == 0)
			f = open_memstream(&text[1], &len[1]);
		else
			f = NULL;
	}
	if (f != NULL) {
		script(f, runs, n, sc, png, hi > 0 && hi / lo >= 20);
		if (fclose(f) != 0)
			f = NULL;
	}
	if (f == NULL) {
		free(text[0]);
		free(text[1]);
		snprintf(err, errlen, "out of memory: %s not drawn", path);
		outfile_abort(out);
		return -ENOMEM;
	}
	rc = plot_draw(text[1], len[1], text[0], len[0], &po, 1, "the plot's script",
		       "the plot's data", err, errlen);
	free(text[0]);
	free(text[1]);
	return rc;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The files of a sweep (see sweep.h): the CSV of its runs, its results (the JSON), and the
 * plot's data and script, handed to gnuplot (sweep_plot.c).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"
#include "run_report.h"
#include "sweep.h"
#include "sweep_plot.h"
#include "units.h"

const char *const sweep_file_names[SW_FILES] = { "sweep.csv", "sweep.json", "sweep.dat",
						  "sweep.gp", "sweep.svg", "sweep.png" };

/* The model's figure for a point: PS under load, else the packet-level closed form. */
double
sweep_model_ms(const struct outcome *o, bool fifo)
{
	if (o->rc != 0)
		return NAN;
	if (o->loaded)
		return o->model_rc == 0 ? 1e3 * (fifo ? o->fifo.step.mean : o->ps.step.mean) : NAN;
	if (fifo || o->pm_rc != 0 || o->pm_steps == 0)
		return NAN;
	return o->pm_mean * 1e3;	/* over the steps compared, as they ran */
}

const char *
sweep_run_status(const struct sweep_point *p, unsigned int j, char *buf, size_t len)
{
	if (!p->ran[j])
		snprintf(buf, len, "not_run");
	else if (p->o[j].rc != 0)
		snprintf(buf, len, "failed");
	else
		outcome_status(&p->o[j], buf, len);
	return buf;
}

/* Write the CSV and commit it (or abort it on an error): a row for every value and run. */
int
sweep_write_csv(struct outfile *out, const struct sweep *sw)
{
	const struct sweep_point *pt = sw->pt;
	FILE *f = outfile_fp(out);
	unsigned int i, j;

	if (f == NULL) {
		outfile_abort(out);
		return -ENOMEM;
	}
	fprintf(f, "key,value,x,run,steps,mean_ms,ci95_ms,median_ms,p99_ms,model_ms,model_fifo_ms,"
		   "fluid_ms,status\n");
	for (i = 0; i < sw->nvalues; i++) {
		for (j = 0; j < pt[i].nc; j++) {
			const struct outcome *r = &pt[i].o[j];
			char st[160];

			fprintf(f, "%s,", sw->key);
			results_csv_str(f, pt[i].value);
			fprintf(f, ",%.10g,", pt[i].x);
			results_csv_str(f, pt[i].c[j].label);
			if (!pt[i].ran[j]) {
				fprintf(f, ",0,,,,,,,,not_run\n");
				continue;
			}
			fprintf(f, ",%u,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,", r->res.steps,
				outcome_mean(r) * 1e3, r->all.ci95 * 1e3, r->all.median * 1e3,
				r->all.p99 * 1e3, sweep_model_ms(r, false), sweep_model_ms(r, true),
				r->fluid * 1e3);
			results_csv_str(f, sweep_run_status(&pt[i], j, st, sizeof(st)));
			fputc('\n', f);
		}
	}
	return outfile_commit(out);
}

static json_t *
jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* The "points" of the JSON from their table: an object per row, "ok" a boolean. */
static json_t *
points_json(const struct table *t, const void *arg)
{
	unsigned int i, j, nrows = table_nrows(t), ncols = table_ncols(t);
	json_t *a = json_array();
	struct table_cell c;

	(void)arg;
	for (i = 0; a != NULL && i < nrows; i++) {
		json_t *o = json_object();

		if (o == NULL || json_array_append_new(a, o) != 0)
			goto fail;
		for (j = 0; j < ncols && table_cell(t, i, j, &c) == 0; j++) {
			const char *key = table_col(t, j)->key;
			json_t *v;

			if (c.kind == TABLE_STR)
				v = json_string(c.s);
			else if (c.kind == TABLE_INT && strcmp(key, "ok") == 0)
				v = json_boolean(c.i != 0);
			else if (c.kind == TABLE_INT)
				v = json_integer((json_int_t)c.i);
			else
				v = jnum(c.num);
			if (v == NULL || json_object_set_new(o, key, v) != 0)
				goto fail;
		}
	}
	return a;
fail:
	json_decref(a);
	return NULL;
}

/* The runs that ran: a row each, the keys of the JSON's "points". */
static struct table *
points_table(const struct sweep *sw)
{
	static const struct tcol cols[] = {
		{ "value", "value", -1 }, { "x", "x", 6 }, { "run", "run", -1 },
		{ "steps", "steps", 0 }, { "mean ms", "mean_ms", 6 }, { "95% CI ms", "ci95_ms", 6 },
		{ "p99 ms", "p99_ms", 6 }, { "model ms", "model_ms", 6 },
		{ "model FIFO ms", "model_fifo_ms", 6 }, { "fluid ms", "fluid_ms", 6 },
		{ "wall s", "wall_s", 3 }, { "ok", "ok", 0 }, { "status", "status", -1 },
	};
	const struct sweep_point *pt = sw->pt;
	struct table *t = table_create("points", "Sweep: the mean step of every run against the "
				       "models", cols, sizeof(cols) / sizeof(cols[0]));
	unsigned int i, j;

	if (t == NULL)
		return NULL;
	for (i = 0; i < sw->nvalues; i++) {
		for (j = 0; j < pt[i].nc; j++) {
			const struct outcome *r = &pt[i].o[j];
			char st[160];

			if (!pt[i].ran[j])
				continue;
			table_str(t, pt[i].value);
			table_num(t, pt[i].x);
			table_str(t, r->c.label);
			table_int(t, r->res.steps);
			table_num(t, outcome_mean(r) * 1e3);
			table_num(t, r->all.ci95 * 1e3);
			table_num(t, r->all.p99 * 1e3);
			table_num(t, sweep_model_ms(r, false));
			table_num(t, sweep_model_ms(r, true));
			table_num(t, r->fluid * 1e3);
			table_num(t, r->wall);
			table_int(t, r->rc == 0);
			table_str(t, sweep_run_status(&pt[i], j, st, sizeof(st)));
		}
	}
	return t;
}

struct results *
sweep_results(const struct sweep *sw, bool partial)
{
	static const struct results_params rp = {
		.json_flags = JSON_INDENT(1) | JSON_REAL_PRECISION(10), .json_newline = false,
	};
	const struct sweep_point *pt = sw->pt;
	struct results *res = results_create(&rp);
	json_t *root, *nr = json_array();
	unsigned int i, j;

	if (res == NULL || nr == NULL)
		goto fail;
	root = results_root(res);
	json_object_set_new(root, "syncemu", json_string(SYNCEMU_VERSION));
	json_object_set_new(root, "command", json_string("sweep"));
	json_object_set_new(root, "key", json_string(sw->key));
	json_object_set_new(root, "scenario", json_string(pt[0].sc->name));
	json_object_set_new(root, "seed", json_integer((json_int_t)pt[0].sc->run.seed));
	json_object_set_new(root, "partial", json_boolean(partial));
	if (results_add_table(res, points_table(sw), RESULTS_JSON,
			      &(struct results_place){ .json = points_json }) != 0)
		goto fail;
	for (i = 0; i < sw->nvalues; i++)
		for (j = 0; j < pt[i].nc; j++)
			if (!pt[i].ran[j])
				json_array_append_new(nr, json_pack("{s:s, s:o, s:s}", "value",
					pt[i].value, "x", jnum(pt[i].x), "run", pt[i].c[j].label));
	json_object_set_new(root, "not_run", nr);
	json_object_set_new(root, "unit", json_string(pt[0].unit));
	json_object_set_new(root, "settings", run_report_scenario_json(pt[0].sc));
	if (sw->curves != NULL)
		json_object_set(root, "curves", sw->curves);
	return res;
fail:
	json_decref(nr);
	results_free(res);
	errno = ENOMEM;
	return NULL;
}

/* Write @p len bytes of @p text to output @p k and commit it; 0 or -errno, said on stderr. */
static int
write_text(struct output *outs, unsigned int k, const char *text, size_t len)
{
	int rc = outfile_write(outs[k].f, text, len), rc2;

	rc2 = outfile_commit(outs[k].f);
	outs[k].f = NULL;
	if (rc == 0)
		rc = rc2;
	if (rc != 0)
		fprintf(stderr, "syncemu sweep: cannot write %s: %s\n", outs[k].path,
			strerror(-rc));
	return rc;
}

/* The dense model curve of run @p ps->label from the sweep's curves, if any; 0 or -ENOMEM. */
static int
curve_of(const struct sweep *sw, struct plot_series *ps)
{
	json_t *xs = json_object_get(sw->curves, "x"), *ser = json_object_get(sw->curves, "series");
	json_t *e, *a = NULL, *b = NULL;
	size_t i, n = json_array_size(xs);

	json_array_foreach(ser, i, e)
		if (strcmp(json_string_value(json_object_get(e, "run")), ps->label) == 0) {
			a = json_object_get(e, sw->loaded ? "model_ms" : "packet_ms");
			b = json_object_get(e, sw->loaded ? "model_fifo_ms" : "fluid_ms");
		}
	if (a == NULL || b == NULL || n < 2)
		return 0;
	ps->cx = calloc(3 * n, sizeof(double));
	if (ps->cx == NULL)
		return -ENOMEM;
	ps->ca = ps->cx + n;
	ps->cb = ps->cx + 2 * n;
	for (i = 0; i < n; i++) {
		json_t *va = json_array_get(a, i), *vb = json_array_get(b, i);

		ps->cx[i] = json_number_value(json_array_get(xs, i));
		ps->ca[i] = json_is_number(va) ? json_number_value(va) : NAN;
		ps->cb[i] = json_is_number(vb) ? json_number_value(vb) : NAN;
	}
	ps->cn = (unsigned int)n;
	return 0;
}

/*
 * The plot of the runs that ran (a run that a signal stopped with the steps it made): its data
 * and script saved as DIR/sweep.dat and sweep.gp whatever gnuplot does, then gnuplot on them
 * into sweep.svg and sweep.png (sweep_plot.h).  Every plot output is committed or aborted here;
 * *@p written gets a bit (1 << F_) for each file written.  0 or -errno, said on stderr.
 */
int
sweep_write_plot(struct output *outs, const struct sweep *sw, const char *mark,
		 unsigned int *written)
{
	const struct sweep_point *pt = sw->pt;
	struct plot_series s[RUNNER_MAX];
	struct sweep_plot p = { .key = sw->key, .scenario = pt[0].sc->name, .unit = pt[0].unit,
				.mark = mark, .nvalues = sw->nvalues, .loaded = sw->loaded,
				.s = s };
	char *text[2] = { NULL, NULL }, err[2048], settings[256];
	size_t len[2] = { 0, 0 };
	unsigned int i, j, k;
	int rc = 0;
	FILE *f;

	run_report_settings(pt[0].sc, settings, sizeof(settings));
	p.settings = settings;
	p.log_x = json_is_true(json_object_get(sw->curves, "log_x"));
	memset(s, 0, sizeof(s));
	for (j = 0; j < pt[0].nc; j++) {
		struct plot_series *ps = &s[p.ns];

		ps->label = pt[0].c[j].label;
		ps->n = 0;
		if (curve_of(sw, ps) != 0) {
			rc = -ENOMEM;
			goto out;
		}
		ps->p = calloc(sw->nvalues, sizeof(*ps->p));
		if (ps->p == NULL) {
			rc = -ENOMEM;
			goto out;
		}
		for (i = 0; i < sw->nvalues; i++) {
			const struct outcome *r = &pt[i].o[j];

			if (j >= pt[i].nc || !pt[i].ran[j] || r->rc != 0)
				continue;
			char st[160];

			sweep_run_status(&pt[i], j, st, sizeof(st));
			ps->p[ps->n++] = (struct plot_point){ .x = pt[i].x,
				.mean = outcome_mean(r) * 1e3, .ci95 = r->all.ci95 * 1e3,
				.model = sweep_model_ms(r, false),
				.fifo = sweep_model_ms(r, true), .ok = strcmp(st, "ok") == 0 };
			/* the legend names what the points not ok are, each once */
			if (!ps->p[ps->n - 1].ok && strstr(ps->not_ok, st) == NULL) {
				size_t at = strlen(ps->not_ok);

				snprintf(ps->not_ok + at, sizeof(ps->not_ok) - at, "%s%s",
					 at ? "; " : "", st);
			}
		}
		if (ps->n > 0) {
			p.ns++;
		} else {
			free(ps->p);
			free(ps->cx);
			memset(ps, 0, sizeof(*ps));
		}
	}
	if (p.ns == 0) {
		fprintf(stderr, "syncemu sweep: no run gave a step time: no plot drawn\n");
		rc = -ENODATA;
		goto out;
	}
	for (k = 0; k < 2; k++) {
		f = open_memstream(&text[k], &len[k]);
		if (f == NULL) {
			rc = -ENOMEM;
			goto out;
		}
		if (k == 0)
			sweep_plot_data(f, &p);
		else
			sweep_plot_script(f, &p);
		if (fclose(f) != 0) {
			rc = -ENOMEM;
			goto out;
		}
	}
	rc = write_text(outs, SW_DAT, text[0], len[0]);
	if (rc == 0)
		*written |= 1u << SW_DAT;
	if (write_text(outs, SW_GP, text[1], len[1]) == 0)
		*written |= 1u << SW_GP;
	else
		rc = -EIO;
	if (rc != 0)
		goto out;
	rc = sweep_plot_draw(text[1], len[1], text[0], len[0], outs[SW_SVG].f, outs[SW_PNG].f,
			     outs[SW_GP].path, outs[SW_DAT].path, err, sizeof(err));
	outs[SW_SVG].f = outs[SW_PNG].f = NULL;
	if (rc == 0)
		*written |= 1u << SW_SVG | 1u << SW_PNG;
	else
		fprintf(stderr, "syncemu sweep: %s\n", err);
out:
	if (rc == -ENOMEM)
		fprintf(stderr, "syncemu sweep: out of memory: no plot drawn\n");
	for (k = SW_DAT; k < SW_FILES; k++) {
		outfile_abort(outs[k].f);
		outs[k].f = NULL;
	}
	for (k = 0; k < RUNNER_MAX; k++) {
		free(s[k].p);
		free(s[k].cx);	/* with ca, cb */
	}
	free(text[0]);
	free(text[1]);
	return rc;
}


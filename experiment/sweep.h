/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * syncemu sweep's results and the files that hold them: cmd_sweep.c runs the sweep,
 * sweep_files.c writes its CSV, JSON and the plot's data and script, sweep_plot.c has gnuplot
 * draw the plot.
 */
#ifndef SYNCEMU_SWEEP_H
#define SYNCEMU_SWEEP_H

#include <stdbool.h>

#include <jansson.h>

#include "outputs.h"
#include "runner.h"

/** The files of a sweep in --out DIR, in the order they are written. */
enum { SW_CSV, SW_JSON, SW_DAT, SW_GP, SW_SVG, SW_PNG, SW_FILES };

/** "sweep.csv", ... */
extern const char *const sweep_file_names[SW_FILES];

/** One value of the swept key and its runs. */
struct sweep_point {
	char *value;			/**< as given: "1GB/s" */
	double x;			/**< its number, or its position if it has none */
	const char *unit;		/**< what follows the number: "GB/s" */
	struct sc_scenario *sc;
	unsigned int nc;
	struct contender c[RUNNER_MAX];
	struct outcome o[RUNNER_MAX];
	bool ran[RUNNER_MAX];		/**< started (else not run: the sweep was interrupted) */
};

/** How each value's scenario is loaded (for the model at values between the swept ones). */
struct sweep_load {
	const char *scenario;		/**< the file, NULL: the built-in default */
	const char **sets;		/**< the overrides before the swept key, [nsets] */
	const char **from;		/**< where each came from, [nsets + 2] */
	unsigned int nsets;		/**< the overrides before the swept key's */
	unsigned int variants, budgets;	/**< --variant, --budget (0: the scenario's) */
};

/** A sweep's results. */
struct sweep {
	const char *key;
	unsigned int nvalues;
	struct sweep_point *pt;		/**< [nvalues] */
	bool loaded;			/**< a value has background load: the model is PS, FIFO */
	json_t *curves;			/**< sweep_curves_json(), or NULL */
};

/**
 * The models at many values between the first and the last swept one (log-spaced where they
 * span 20 x or more): {"log_x", "unit", "models", "x": [], "series": [{"run", "model_ms",
 * "model_fifo_ms"} under load, {"run", "packet_ms", "fluid_ms"} at zero load]}; JSON null
 * when the values are not numbers of one unit; NULL: out of memory.
 */
json_t *sweep_curves_json(const struct sweep *sw, const struct sweep_load *ld);

/** Whether values from @p lo to @p hi are drawn on a log axis (positive, a 20 x span). */
bool sweep_log_axis(double lo, double hi);

/** The model's figure for a run, ms: PS (or FIFO) under load, else the packet-level form. */
double sweep_model_ms(const struct outcome *o, bool fifo);

/**
 * What became of run @p j of @p p, in @p buf: "not_run" (the sweep stopped first), "failed", or
 * the status of syncemu run (outcome_status(): "ok" only where every model column applies, else
 * what holds, e.g. "drops", "interrupted": a signal stopped it after a whole step, the steps it
 * made stand).  @return @p buf
 */
const char *sweep_run_status(const struct sweep_point *p, unsigned int j, char *buf, size_t len);

/** Write the CSV (a row for every value and run) and commit it, or abort it; 0 or -errno. */
int sweep_write_csv(struct outfile *out, const struct sweep *sw);

struct results;

/**
 * The results (results.h): the JSON document, with the runs that ran as the table "points" (an
 * object per row in JSON) and the others as "not_run".
 *
 * @return the results, or NULL with errno set (ENOMEM)
 */
struct results *sweep_results(const struct sweep *sw, bool partial);

/**
 * The plot of the runs that ran: its data and script written to outs[SW_DAT] and outs[SW_GP]
 * whatever gnuplot does, then gnuplot on them into outs[SW_SVG] and outs[SW_PNG].  @p mark is
 * NULL or what the title adds.  Every plot output is committed or aborted (its f set NULL);
 * *@p written gets the bit 1 << SW_ of each file written.  0 or -errno, said on stderr.
 */
int sweep_write_plot(struct output *outs, const struct sweep *sw, const char *mark,
		     unsigned int *written);

#endif /* SYNCEMU_SWEEP_H */

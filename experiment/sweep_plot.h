/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A sweep's plot: its data (DIR/sweep.dat), the gnuplot script that draws them (DIR/sweep.gp,
 * which reads and writes the files beside it by relative names, so that `cd DIR && gnuplot
 * sweep.gp` draws the plot again), and gnuplot run on both into the temporaries of the SVG and
 * PNG outputs, which are put in place only if gnuplot succeeded and wrote both whole.
 *
 * gnuplot is given the files it reads and writes as /proc/PID/fd/N paths (the script and data
 * in memory, the plots' temporaries), set as the script's variables dat, svg and png on its
 * command line: no path the user typed goes into gnuplot's language, and the text that does (the
 * key, the scenario's name, the runs' labels) is quoted as gnuplot's single-quoted strings.
 */
#ifndef SYNCEMU_SWEEP_PLOT_H
#define SYNCEMU_SWEEP_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "outfile.h"

/** One value of the sweep for one run: the value's x and the step times, ms (NAN: none). */
struct plot_point {
	double x, mean, ci95, model, fifo;
	bool ok;			/**< its status is ok (every model column applies) */
};

/** One run (a variant at a budget) over the values. */
struct plot_series {
	const char *label;		/**< "A", "E'[free]" */
	struct plot_point *p;
	unsigned int n;			/**< > 0 */
	/* the models at many values (sweep_curves_json()): x, PS or packet form, FIFO or fluid,
	 * ms (NAN: none); cn = 0: none, the lines join the points' own model values */
	double *cx, *ca, *cb;
	unsigned int cn;
	char not_ok[96];		/**< the statuses of its points that are not ok, "": none */
};

/** What the plot shows. */
struct sweep_plot {
	const char *key;		/**< the swept key */
	const char *scenario;		/**< the scenario's name */
	const char *unit;		/**< the values' unit, "" if none */
	const char *mark;		/**< NULL, or what the title adds ("partial: ...") */
	const char *settings;		/**< the title's second line: seed, steps, queues, ... */
	bool log_x;			/**< the values span 20 x or more (sweep_log_axis()) */
	unsigned int nvalues;		/**< values of the sweep */
	bool loaded;			/**< the model is PS and FIFO, else the packet-level form */
	const struct plot_series *s;
	unsigned int ns;
};

/** The data, in gnuplot's format: one block per series, two blank lines apart (its index). */
void sweep_plot_data(FILE *f, const struct sweep_plot *p);

/**
 * The script: reads dat, writes svg and png, which are 'sweep.dat', 'sweep.svg', 'sweep.png'
 * unless set before it (gnuplot -e "svg='...'" sweep.gp).
 */
void sweep_plot_script(FILE *f, const struct sweep_plot *p);

/**
 * Run gnuplot on @p script and @p data (their text) into the temporaries of @p svg and @p png,
 * check that both were written whole (a full disk leaves them short while gnuplot exits 0), and
 * commit both, or abort both on any failure.  @p gp_path and @p dat_path are how messages name
 * the script and the data (gnuplot's own message names the saved script and its line).  A
 * signal does not end the wait (one that ends the process calls sweep_plot_signal_kill()).
 *
 * @return 0, or -errno with the message in @p err: -ENOENT gnuplot is not installed; -EIO it
 *         failed (its exit status and message quoted); -ENOSPC it exited 0 but left an output
 *         empty or short; or the error of committing an output
 */
int sweep_plot_draw(const char *script, size_t script_len, const char *data, size_t data_len,
		    struct outfile *svg, struct outfile *png, const char *gp_path,
		    const char *dat_path, char *err, size_t errlen);

/** @p s as a gnuplot single-quoted string: the quote doubled, control characters as spaces. */
void plot_put_string(FILE *f, const char *s);

/** An output gnuplot writes: the script's variable naming it, the file, its format. */
struct plot_out {
	const char *var;		/**< "svg", "png", "out" */
	struct outfile *f;		/**< opened; committed or aborted by plot_draw() */
	bool svg;			/**< an SVG (else a PNG), to check it is whole */
};

#define PLOT_OUTS_MAX 4

/**
 * gnuplot on @p script and @p data (given to it as the variables of @p outs and "dat"), into
 * the @p n outputs, each committed when gnuplot succeeds and wrote it whole, else all aborted
 * with gnuplot's message (the memory files' paths named @p gp_path, @p dat_path); 0 or -errno.
 */
int plot_draw(const char *script, size_t script_len, const char *data, size_t data_len,
	      struct plot_out *outs, unsigned int n, const char *gp_path, const char *dat_path,
	      char *err, size_t errlen);

/** End gnuplot if it is running (async-signal-safe: for a signal that ends the process). */
void sweep_plot_signal_kill(void);

#endif /* SYNCEMU_SWEEP_PLOT_H */

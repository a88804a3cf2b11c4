/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * syncemu run --plot FILE: a run's steps against the models, drawn by gnuplot.
 */
#ifndef SYNCEMU_RUN_PLOT_H
#define SYNCEMU_RUN_PLOT_H

#include "outfile.h"
#include "runner.h"
#include "scenario.h"

/**
 * Draw the kept steps of the @p n @p runs into @p out (opened; SVG, PNG if its path ends in
 * .png), which is committed when gnuplot wrote it whole and aborted otherwise.  0, or -errno
 * with the message (gnuplot's, when it failed) in @p err.
 */
int run_plot_write(struct outfile *out, const struct outcome *runs, unsigned int n,
		   const struct sc_scenario *sc, char *err, size_t errlen);

#endif /* SYNCEMU_RUN_PLOT_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Background transfer sizes from a scenario: the distribution [background] asks for, and the
 * loader of the CSV files that describe empirical ones.
 *
 * CSV format, one transfer size a line:
 *   size[,weight]
 * size is bytes: a bare number (as CSV files from elsewhere write them) or a size with a unit as
 * in a scenario file ("64 kB", "1 MiB"), > 0; weight is a plain number >= 0, 1 if left out, and
 * the sizes are drawn with probabilities proportional to the weights.  '#' and ';' start a
 * comment, up to the end of the line; blank lines are ignored.  scenarios/sizes-websearch.csv is
 * an example.
 */
#ifndef SC_BGSIZES_H
#define SC_BGSIZES_H

#include <stddef.h>

#include "scenario.h"
#include "../models/queueing.h"

/** Most lines with a size that sc_sizes_load() takes. */
#define SC_CSV_SIZES_MAX 1000000u

/**
 * Load an empirical size distribution from the CSV file @p path into @p d (sm_size_empirical()).
 * @p d is written only on success; release it with sm_size_free().
 *
 * Errors name the file, the line and the field, e.g.
 *   "sizes.csv:7: size 'abc': 'abc' is not a number (...)"
 *
 * @return 0; -ENOENT if the file cannot be opened; -EINVAL for bad content (a bad size or weight,
 *         more than two fields, no sizes at all, weights that sum to 0, more than SC_CSV_SIZES_MAX
 *         lines, a NUL byte) or bad arguments; -EIO on a read error; -ENOMEM
 */
int sc_sizes_load(const char *path, struct sm_size_dist *d, char *err, size_t errlen);

/**
 * Build the size distribution that the [background] section of @p s asks for: fixed or
 * exponential of background.size, or empirical from background.sizes_csv (with
 * sc_sizes_load(); the path is already resolved by sc_scenario_load()).  @p d is written only on
 * success; release it with sm_size_free().
 *
 * @return 0; -EINVAL (bad arguments, a size that is not > 0, empirical without a CSV, a bad CSV);
 *         -ENOENT if the CSV cannot be opened; -EIO; -ENOMEM
 */
int sc_background_sizes(const struct sc_scenario *s, struct sm_size_dist *d, char *err,
			size_t errlen);

#endif /* SC_BGSIZES_H */

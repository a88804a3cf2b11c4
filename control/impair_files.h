/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The files an [impair] text names: a trace-driven link's delivery opportunities (Mahimahi's
 * format, models/ltrace.h) and netem's empirical jitter tables (tc's .dist format).  Each file
 * is read once per process and kept (keyed by its real path), so every reading of a scenario
 * sees the same data, shared by the links that use it.
 */
#ifndef SC_IMPAIR_FILES_H
#define SC_IMPAIR_FILES_H

#include <stddef.h>

#include "../models/impair.h"

/**
 * A Mahimahi trace at @p path: one whole number of milliseconds per line, non-decreasing,
 * the last above 0.  NULL with @p why naming the line and what is wrong.
 */
const struct sm_ltrace *sc_ltrace_load(const char *path, char *why, size_t len);

/**
 * A netem table: @p name is a path (it has a '/'), or tc's name of one (NAME.dist in
 * $TC_LIB_DIR or tc's directories, as `tc qdisc ... distribution NAME` looks it up).  Whole
 * numbers from -32768 to 32767 (one J is 8192), '#' lines skipped, at most 16384.  NULL with
 * @p why naming the file and line.
 */
const struct sm_jtable *sc_jtable_load(const char *name, char *why, size_t len);

#endif /* SC_IMPAIR_FILES_H */

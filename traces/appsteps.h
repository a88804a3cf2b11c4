/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The application's own step times: a CSV file of one row per step, as a training loop's timers
 * write it, for `syncemu validate --steps-csv` to hold the steps found on the wire against.
 *
 * Format: comma-separated, one step a line, '#' starts a comment line, blank lines skipped; a
 * NUL byte is refused (not a text file).  The first line may be a header naming the columns;
 * the columns read are
 *	step		the step's number (an integer; rows in any order, each number
 *			once): the column named so, or named by the caller (e.g.
 *			"iter"), or the first
 *	start_ns, end_ns   the step's start and end, integer nanoseconds, or
 *	start_s, end_s     the same in seconds (a decimal number)
 * and any other column is ignored (e.g. each rank's own times).  Without a header the first
 * three columns are step, start_ns, end_ns (with the step's column given by number, the first
 * two others are the start and the end).  Times are on the capture's clock after adding the
 * clock offset (tcpdump stamps packets with CLOCK_REALTIME: ns since the epoch).  Every error
 * names the file, the line and the column.
 */
#ifndef TR_APPSTEPS_H
#define TR_APPSTEPS_H

#include <stddef.h>
#include <stdint.h>

/** Steps read at most. */
#define TR_APPSTEPS_MAX 10000000u

/** Longest line read (bytes). */
#define TR_APPSTEPS_LINE_MAX 65536u

/** One step of the application. */
struct tr_appstep {
	uint64_t step;
	int64_t start_ns, end_ns;	/**< on the capture's clock */
	uint32_t line;			/**< in the file */
};

/** The steps, by step number. */
struct tr_appsteps {
	uint32_t n;
	struct tr_appstep *s;
};

/**
 * Read @p path, adding @p offset_ns to every time.  @p step_col: the step's column, a header's
 * name or a number from 1; NULL: "step", else the first.
 *
 * @return 0; -EINVAL (a malformed line, a missing column, a time that is not a number, an end
 *         before its start, a step number twice, no step at all: the message names the line
 *         and the column), -E2BIG (more than TR_APPSTEPS_MAX steps or a line longer than
 *         TR_APPSTEPS_LINE_MAX), -ENOMEM, or an errno of fopen()/read (-ENOENT, -EISDIR ...)
 */
int tr_appsteps_read(const char *path, const char *step_col, int64_t offset_ns,
		     struct tr_appsteps *out, char *err, size_t errlen);

void tr_appsteps_free(struct tr_appsteps *a);

#endif /* TR_APPSTEPS_H */

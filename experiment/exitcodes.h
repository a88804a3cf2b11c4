/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The exit codes of every subcommand, shared by the commands (tools/cli.h) and the libraries
 * that decide one (experiment/outputs.c, experiment/results_csv.c).
 */
#ifndef SYNCEMU_EXITCODES_H
#define SYNCEMU_EXITCODES_H

/** Exit codes of every subcommand. */
enum {
	CLI_EXIT_OK = 0,
	CLI_EXIT_FAIL = 1,	/**< the run failed (I/O, memory, an invariant) */
	CLI_EXIT_USAGE = 2,	/**< bad command line */
	CLI_EXIT_INPUT = 3,	/**< bad input file (scenario, trace) */
	CLI_EXIT_TOLERANCE = 4,	/**< validate: an error beyond the tolerance */
	CLI_EXIT_INTERRUPTED = 130,	/**< run: stopped by SIGINT/SIGTERM; what was done is
					 *   reported (128 + SIGINT, as a shell says) */
};

#endif /* SYNCEMU_EXITCODES_H */

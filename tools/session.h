/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the commands that run the data plane (run, sweep, bridge) share: their name in every
 * message, their command line and its refusal, the signals that stop them (cli_stop), the
 * --ctl path, and the EAL with its runner started.
 */
#ifndef SYNCEMU_SESSION_H
#define SYNCEMU_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "opts.h"
#include "runner.h"

/** One command's session: constant, one per command. */
struct session {
	const char *who;		/**< "syncemu run": the messages' prefix */
	const char *stop_note;		/**< said at the first SIGINT or SIGTERM; NULL: nothing */
	bool stop_hup;			/**< SIGHUP ends the process at once, and a signal ignored
					 *   from the start (nohup) stays ignored */
	void (*stop_cleanup)(void);	/**< at the signal that ends the process, after the
					 *   temporary files are removed */
	bool trace_whole;		/**< the trace of a failed run is not written (a
					 *   streamed one is said), a broken pipe is said */
};

struct dp_capture;

/**
 * The command line into @p ctx (opts_parse()).  A bad one is said as "WHO: REASON" and
 * "(try 'WHO --help')".  @return the number of positionals, or -1: a bad command line.
 */
int session_options(const struct session *s, int argc, char **argv, const struct opt *tab,
		    unsigned int n, opt_cb cb, void *ctx, char **pos, int maxpos);

/**
 * From now on the first SIGINT or SIGTERM sets cli_stop (and says stop_note); a second one
 * (or SIGHUP with stop_hup) removes the temporary files, calls stop_cleanup and ends the
 * process by the signal.
 */
void session_catch_stop(const struct session *s);

/** --ctl's path @p path checked before anything runs: 0, or CLI_EXIT_USAGE, said. */
int session_ctl_check(const struct session *s, const char *path);

struct sc_scenario;

/**
 * The status the data plane publishes (for --ctl, the telemetry and --metrics) as @p r's, its
 * values @p sc's until a run publishes its own; once: a status already there is kept.
 */
void session_status_init(struct runner *r, const struct sc_scenario *sc);

struct dp_status;
struct metrics_server;

/**
 * --metrics @p spec served from @p st (metrics.h), where said on stderr ("WHO: metrics on
 * URL"): the server, or NULL with the reason said (a bad command line: CLI_EXIT_USAGE).
 */
struct metrics_server *session_metrics(const struct session *s, const char *spec,
				       const struct dp_status *st);

/** runner_start() with its failure said: 0, or CLI_EXIT_FAIL. */
int session_runner_start(const struct session *s, struct runner *r, uint32_t need,
			 uint32_t frame);

/**
 * Under an MPI launcher, this process as one rank (ranks.h): rank 0 alone writes and reports,
 * the others read the same input, agree on every outcome with it and say nothing (their
 * standard output and error to /dev/null, *@p err_fd the error's former descriptor).
 * 0, or CLI_EXIT_FAIL (said when MPI cannot start).
 */
int session_ranks_start(const struct session *s, int *err_fd);

/**
 * The ranks ended: with @p may_hang (real time over ranks, not agreed) and a failure, every
 * rank ends with @p status at once (another may be stuck); @p err_fd closed.
 */
void session_ranks_end(int status, bool may_hang, int err_fd);

/**
 * The trace of @p cap (NULL: none) closed, and what went wrong said with @p path: its
 * writer NULL after.  The exit code after it (@p status unless the trace fails).
 */
int session_trace_close(const struct session *s, struct dp_capture *cap, const char *path,
			int status);

#endif /* SYNCEMU_SESSION_H */

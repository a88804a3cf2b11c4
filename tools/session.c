/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The session of a command that runs the data plane (session.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../traces/pcapng.h"
#include "capture.h"
#include "cli.h"
#include "ctl.h"
#include "metrics.h"
#include "outfile.h"
#include "ranks.h"
#include "scenario.h"
#include "session.h"

volatile sig_atomic_t cli_stop;

static const struct session *stopping;	/* the session whose signals are caught */

int
session_options(const struct session *s, int argc, char **argv, const struct opt *tab,
		unsigned int n, opt_cb cb, void *ctx, char **pos, int maxpos)
{
	char err[512];
	int npos;

	npos = opts_parse(argc, argv, tab, n, cb, ctx, pos, maxpos, err, sizeof(err));
	if (npos < 0) {
		fprintf(stderr, "%s: %s\n(try '%s --help')\n", s->who, err, s->who);
		return -1;
	}
	return npos;
}

static void
on_stop(int sig)
{
	const struct session *s = stopping;

	if (cli_stop || (s->stop_hup && sig == SIGHUP)) {
		outfile_signal_cleanup();
		if (s->stop_cleanup != NULL)
			s->stop_cleanup();
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	cli_stop = sig;
	if (s->stop_note != NULL && write(STDERR_FILENO, s->stop_note, strlen(s->stop_note)) < 0) {
		/* nothing to be done about it here */
	}
}

void
session_catch_stop(const struct session *s)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa, old;
	unsigned int i;

	stopping = s;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < (s->stop_hup ? 3u : 2u); i++)
		if (!s->stop_hup || (sigaction(sigs[i], NULL, &old) == 0 &&
				     old.sa_handler != SIG_IGN))
			sigaction(sigs[i], &sa, NULL);
}

int
session_ctl_check(const struct session *s, const char *path)
{
	char err[512];

	if (ctl_path_check(path, err, sizeof(err)) == 0)
		return CLI_EXIT_OK;
	fprintf(stderr, "%s: %s\n", s->who, err);
	return CLI_EXIT_USAGE;
}

int
session_runner_start(const struct session *s, struct runner *r, uint32_t need, uint32_t frame)
{
	char err[512];

	if (runner_start(r, need, frame, err, sizeof(err)) == 0)
		return CLI_EXIT_OK;
	fprintf(stderr, "%s: %s\n", s->who, err);
	return CLI_EXIT_FAIL;
}

int
session_ranks_start(const struct session *s, int *err_fd)
{
	if (dp_ranks_init() != 0) {
		fprintf(stderr, "%s: started by an MPI launcher, but %s\n", s->who,
			dp_ranks_launched() && dp_ranks_size() == 1 ?
			"this syncemu was built without MPI (apt-get install libopenmpi-dev, then "
			"meson setup --reconfigure build)" : "MPI_Init failed");
		return CLI_EXIT_FAIL;
	}
	if (dp_ranks_rank() != 0 && ((*err_fd = dup(STDERR_FILENO)) < 0 ||
				     cli_stdout_null() != 0 ||
				     freopen("/dev/null", "w", stderr) == NULL))
		return CLI_EXIT_FAIL;
	return CLI_EXIT_OK;
}

void
session_ranks_end(int status, bool may_hang, int err_fd)
{
	if (may_hang && status != CLI_EXIT_OK) {
		/* real time over ranks: another rank may be stuck (MPI_Finalize would wait for it
		 * for ever); every rank ends with this one's code (not when all refused alike at
		 * the start: they all finalize, no rank killed mid-exit) */
		fflush(NULL);
		dp_ranks_abort(status);
	}
	dp_ranks_fini();
	if (err_fd >= 0)
		close(err_fd);
}

int
session_trace_close(const struct session *s, struct dp_capture *cap, const char *path,
		    int status)
{
	int rc;

	if (cap == NULL)
		return status;
	if (s->trace_whole && status != CLI_EXIT_OK && status != CLI_EXIT_INTERRUPTED) {
		if (tr_pcapng_streams(cap->w)) {
			/* what went out is out: the stream ends after the last whole block */
			tr_pcapng_close(cap->w);
			fprintf(stderr, "%s: a run failed: the trace streamed to %s holds what was "
				"done up to the failure (a stream cannot be taken back)\n", s->who,
				path);
		} else {
			/* its trace would be partial, so none is written */
			tr_pcapng_abort(cap->w);
			fprintf(stderr, "%s: no trace written (a run failed)\n", s->who);
		}
		cap->w = NULL;
		return status;
	}
	rc = tr_pcapng_close(cap->w);
	cap->w = NULL;
	if (s->trace_whole && rc == -EPIPE) {
		fprintf(stderr, "%s: the trace %s: its reader went away before the end (broken "
			"pipe)\n", s->who, path);
		return CLI_EXIT_FAIL;
	}
	if (rc != 0) {
		fprintf(stderr, "%s: the trace %s was not written: %s\n", s->who, path,
			strerror(-rc));
		return CLI_EXIT_FAIL;
	}
	return status;
}

/* static: DPDK's telemetry thread and the metrics server may read it until the process ends */
static struct dp_status status;

void
session_status_init(struct runner *r, const struct sc_scenario *sc)
{
	int i;

	if (r->status != NULL)
		return;
	r->status = &status;
	atomic_store(&status.var, UINT32_MAX);
	atomic_store(&status.budget, UINT32_MAX);
	atomic_store(&status.binding, -1);
	for (i = 0; i < DP_P_COUNT; i++)
		dp_status_publish(&status, i, ctl_scenario_value(sc, i));
}

struct metrics_server *
session_metrics(const struct session *s, const char *spec, const struct dp_status *st)
{
	const char *cmd = strrchr(s->who, ' ');	/* "syncemu run": run */
	struct metrics_server *m;
	char err[512];

	m = metrics_server_start(spec, st, cmd != NULL ? cmd + 1 : s->who, err, sizeof(err));
	if (m == NULL)
		fprintf(stderr, "%s: %s\n", s->who, err);
	else
		fprintf(stderr, "%s: metrics on %s\n", s->who, metrics_server_url(m));
	return m;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The session of a command that runs the data plane (session.h).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "ctl.h"
#include "outfile.h"
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

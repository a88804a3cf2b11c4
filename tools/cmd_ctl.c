/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * syncemu ctl: talk to a running `syncemu run --ctl SOCKET`.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "ctl.h"
#include "opts.h"

enum { O_TIMEOUT, O_HELP };

static const struct opt ctl_optv[] = {
	{ "timeout", 0, "MS", "how long to wait for the answer [5000]", O_TIMEOUT },
	{ "help", 'h', NULL, "show this help", O_HELP },
};

#define N_OPTS (sizeof(ctl_optv) / sizeof(ctl_optv[0]))

struct ctl_opts {
	int timeout;
	bool help;
};

static int
ctl_opt(void *ctx, int id, const char *arg, char *err, size_t errlen)
{
	struct ctl_opts *o = ctx;
	char *end;
	long v;

	if (id == O_HELP) {
		o->help = true;
		return 0;
	}
	v = strtol(arg, &end, 10);
	if (*end != '\0' || end == arg || v < 1 || v > 600000) {
		snprintf(err, errlen, "--timeout: '%s' is not a number of ms in 1..600000", arg);
		return -EINVAL;
	}
	o->timeout = (int)v;
	return 0;
}

static void
ctl_usage(FILE *f)
{
	opts_usage(f, "syncemu ctl [--timeout MS] SOCKET REQUEST...",
		   "Send one request to a running `syncemu run --ctl SOCKET` and print its\n"
		   "answer (a line of JSON). Requests:\n"
		   "  status             the run in progress and every runtime key's value\n"
		   "  keys               the keys that can change during a run\n"
		   "  get KEY            a runtime key's current value (SI units)\n"
		   "  set KEY VALUE      change it now (checked like the scenario file; applied\n"
		   "                     by the data plane between two events, for the rest of\n"
		   "                     the run in progress)\n"
		   "Options come before SOCKET; everything after it is the request.\n"
		   "Exit 0 when the answer is ok, 1 when it is a refusal or no answer came.",
		   ctl_optv, N_OPTS);
	fprintf(f, "\nexamples:\n"
		   "  syncemu ctl /tmp/se.sock status\n"
		   "  syncemu ctl /tmp/se.sock set module.budget_high 50GFLOP/s\n"
		   "  syncemu ctl /tmp/se.sock set wan.bandwidth 3GB/s\n");
}

int
cmd_ctl(int argc, char **argv)
{
	struct ctl_opts o = { 5000, false };
	char err[512], line[1024], out[8192];
	size_t k = 0;
	int i = 1, rc;

	/* options up to SOCKET; the request after it may start with '-' (a value) */
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			ctl_usage(stdout);
			return 0;
		}
		if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc) {
			if (ctl_opt(&o, O_TIMEOUT, argv[++i], err, sizeof(err)) != 0) {
				fprintf(stderr, "syncemu ctl: %s\n", err);
				return CLI_EXIT_USAGE;
			}
			continue;
		}
		fprintf(stderr, "syncemu ctl: unknown option %s\n(try 'syncemu ctl --help')\n",
			argv[i]);
		return CLI_EXIT_USAGE;
	}
	if (argc - i < 2) {
		fprintf(stderr, "syncemu ctl: needs SOCKET and a request\n"
			"(try 'syncemu ctl --help')\n");
		return CLI_EXIT_USAGE;
	}
	for (int j = i + 1; j < argc && k < sizeof(line); j++)
		k += (size_t)snprintf(line + k, sizeof(line) - k, "%s%s", j > i + 1 ? " " : "",
				      argv[j]);
	if (k >= sizeof(line)) {
		fprintf(stderr, "syncemu ctl: the request is too long\n");
		return CLI_EXIT_USAGE;
	}
	rc = ctl_client(argv[i], line, out, sizeof(out), o.timeout, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "syncemu ctl: %s\n", err);
		return CLI_EXIT_FAIL;
	}
	fputs(out, stdout);
	if (strstr(out, "\"ok\": true") == NULL) {
		const char *e = strstr(out, "\"error\": \"");

		if (e != NULL)
			fprintf(stderr, "syncemu ctl: refused: %.*s\n",
				(int)strcspn(e + 10, "\""), e + 10);
		return CLI_EXIT_FAIL;
	}
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * syncemu ctl: talk to a running `syncemu run --ctl SOCKET`.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "ctl.h"
#include "opts.h"

enum { O_TIMEOUT, O_HELP };

static const struct opt ctl_optv[] = {
	{ "timeout", 0, "MS", "time to connect and answer, 1..600000 [5000]", .id = O_TIMEOUT },
	{ "help", 'h', NULL, "show this help", .id = O_HELP },
};

#define N_OPTS (sizeof(ctl_optv) / sizeof(ctl_optv[0]))

struct ctl_opts {
	int timeout;
	bool help;
};

static int
ctl_opt(void *ctx, int id, const char *name, const char *arg, char *err, size_t errlen)
{
	struct ctl_opts *o = ctx;
	char *end;
	long v;

	if (id == O_HELP) {
		o->help = true;
		return 0;
	}
	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno != 0 || *end != '\0' || end == arg || v < 1 || v > 600000) {
		snprintf(err, errlen, "%s: '%s' is not a number of ms in 1..600000", name, arg);
		return -EINVAL;
	}
	o->timeout = (int)v;
	return 0;
}

/*
 * The options before SOCKET (by hand: the request after SOCKET may hold words that start with
 * '-', values).  The index of SOCKET, or -1 with a message.
 */
static int
ctl_args(int argc, char **argv, struct ctl_opts *o, char *err, size_t errlen)
{
	int i;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1] != '\0'; i++) {
		const char *a = argv[i], *eq = strchr(a, '='), *val;
		size_t len = eq != NULL ? (size_t)(eq - a) : strlen(a);

		if (strcmp(a, "--") == 0)
			return i + 1;
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			o->help = true;
			return i + 1;
		}
		if (len < 3 || strncmp(a, "--timeout", len) != 0) {
			snprintf(err, errlen, "unknown option %s", a);
			return -1;
		}
		if (eq != NULL) {
			val = eq + 1;
		} else if (i + 1 == argc) {
			snprintf(err, errlen, "%s needs a value", a);
			return -1;
		} else {
			val = argv[++i];
			/* a value that is an option: the value was left out (a negative number
			 * is a value, refused by its range) */
			if (val[0] == '-' && val[1] != '\0' && !isdigit((unsigned char)val[1])) {
				snprintf(err, errlen, "%s needs a value; '%s' is an option", a, val);
				return -1;
			}
		}
		if (ctl_opt(o, O_TIMEOUT, eq != NULL ? "--timeout" : a, val, err, errlen) != 0)
			return -1;
	}
	return i;
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
		   "Exit codes: 0 the answer is ok, 1 a refusal or no answer came, 2 bad\n"
		   "command line.",
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
	char err[512], line[1024], *answer;
	json_error_t jerr;
	size_t k = 0;
	json_t *j;
	int i, w, rc;

	i = ctl_args(argc, argv, &o, err, sizeof(err));
	if (i < 0) {
		fprintf(stderr, "syncemu ctl: %s\n(try 'syncemu ctl --help')\n", err);
		return CLI_EXIT_USAGE;
	}
	if (o.help) {
		ctl_usage(stdout);
		return 0;
	}
	if (argc - i < 2) {
		fprintf(stderr, "syncemu ctl: needs SOCKET and a request\n"
			"(try 'syncemu ctl --help')\n");
		return CLI_EXIT_USAGE;
	}
	if (argv[i][0] == '\0') {
		fprintf(stderr, "syncemu ctl: SOCKET '': an empty path (give the path of "
			"syncemu run --ctl)\n(try 'syncemu ctl --help')\n");
		return CLI_EXIT_USAGE;
	}
	for (w = i + 1; w < argc && k < sizeof(line); w++)
		k += (size_t)snprintf(line + k, sizeof(line) - k, "%s%s", w > i + 1 ? " " : "",
				      argv[w]);
	if (k >= sizeof(line)) {
		fprintf(stderr, "syncemu ctl: the request is too long\n");
		return CLI_EXIT_USAGE;
	}
	rc = ctl_client(argv[i], line, &answer, o.timeout, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "syncemu ctl: %s\n", err);
		return CLI_EXIT_FAIL;
	}
	fputs(answer, stdout);
	rc = CLI_EXIT_FAIL;
	j = json_loads(answer, JSON_DECODE_ANY, &jerr);
	if (j == NULL || !json_is_object(j)) {
		fprintf(stderr, "syncemu ctl: %s: not an answer of syncemu (%s)\n", argv[i],
			j == NULL ? jerr.text : "not a JSON object");
	} else if (json_is_true(json_object_get(j, "ok"))) {
		rc = 0;
	} else {
		/* the refusal whole, unescaped */
		const char *why = json_string_value(json_object_get(j, "error"));

		fprintf(stderr, "syncemu ctl: refused: %s\n", why != NULL ? why : "(no reason given)");
	}
	json_decref(j);
	free(answer);
	return rc;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * syncemu scenario: check, dump, and list the keys of scenario files.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "opts.h"
#include "scenario.h"

struct scenario_opts {
	const char *sets[CLI_MAX_SETS];
	unsigned int nsets;
	char markdown_opt[32];		/* --markdown as typed, when given */
	char set_opt[32];		/* the first --set as typed, when given */
	bool markdown;
	bool help;
};

enum { O_SET, O_MARKDOWN };

static const struct opt scenario_optv[] = {
	{ "set", 's', "SECTION.KEY=VALUE", "check, dump: override a key (repeatable)",
	  .id = O_SET },
	{ "markdown", 'm', NULL, "keys: print a markdown table", .id = O_MARKDOWN },
	{ "help", 'h', NULL, "show this help",
	  OPT_TARGET(opts_set_flag, struct scenario_opts, help) },
};

#define N_OPTS (sizeof(scenario_optv) / sizeof(scenario_optv[0]))

static int
scenario_opt(void *ctx, int id, const char *arg, char *err, size_t errlen)
{
	struct scenario_opts *o = ctx;

	switch (id) {
	case O_SET:
		if (o->set_opt[0] == '\0')
			snprintf(o->set_opt, sizeof(o->set_opt), "%s", opts_spelling());
		return cli_add_set(o->sets, &o->nsets, arg, err, errlen);
	case O_MARKDOWN:
		snprintf(o->markdown_opt, sizeof(o->markdown_opt), "%s", opts_spelling());
		o->markdown = true;
		return 0;
	}
	return -EINVAL;
}

static void
scenario_usage(FILE *f)
{
	opts_usage(f, "syncemu scenario check FILE... | dump [FILE] | keys [--markdown]",
		   "check  load each scenario file and report the first error in each\n"
		   "dump   print the scenario (default: the built-in one) with every key, in a form\n"
		   "       that loads back to the same values\n"
		   "keys   list every section and key with its unit, default, range and meaning\n\n"
		   "The keys are also the man page syncemu-scenario(5).\n"
		   "Exit codes: 0 ok, 1 failed (writing), 2 bad command line, 3 a scenario file\n"
		   "refused (check goes on to the next file and names each one's first error).",
		   scenario_optv, N_OPTS);
	fprintf(f, "\nexamples:\n"
		   "  syncemu scenario check scenarios/*.ini\n"
		   "  syncemu scenario dump --set wan.bandwidth=1Gbit/s >my.ini\n"
		   "  syncemu scenario keys | grep '^wan\\.'\n");
}

int
cmd_scenario(int argc, char **argv)
{
	struct scenario_opts o = { .nsets = 0 };
	struct sc_scenario sc;
	char err[512], *pos[64];
	int npos, i, bad = 0;

	npos = opts_parse(argc, argv, scenario_optv, N_OPTS, scenario_opt, &o, pos, 64, err,
			  sizeof(err));
	if (npos < 0) {
		fprintf(stderr, "syncemu scenario: %s\n(try 'syncemu scenario --help')\n", err);
		return CLI_EXIT_USAGE;
	}
	if (o.help) {
		scenario_usage(stdout);
		return 0;
	}
	if (npos == 0) {
		fprintf(stderr, "syncemu scenario: missing action: check, dump or keys\n"
			"(try 'syncemu scenario --help')\n");
		return CLI_EXIT_USAGE;
	}
	/* --markdown is for keys, --set for check and dump */
	if (o.markdown && strcmp(pos[0], "keys") != 0) {
		fprintf(stderr, "syncemu scenario: %s is for 'keys', not '%s'\n"
			"(try 'syncemu scenario --help')\n", o.markdown_opt, pos[0]);
		return CLI_EXIT_USAGE;
	}
	if (o.nsets > 0 && strcmp(pos[0], "keys") == 0) {
		fprintf(stderr, "syncemu scenario: %s is for 'check' and 'dump', not 'keys'\n"
			"(try 'syncemu scenario --help')\n", o.set_opt);
		return CLI_EXIT_USAGE;
	}
	if (strcmp(pos[0], "keys") == 0 && npos == 1) {
		sc_scenario_keys(stdout, o.markdown);
		return 0;
	}
	if (strcmp(pos[0], "dump") == 0 && npos <= 2) {
		if (sc_scenario_load(&sc, npos == 2 ? pos[1] : NULL, o.sets, o.nsets, err,
				     sizeof(err)) != 0) {
			fprintf(stderr, "syncemu scenario: %s\n", err);
			return CLI_EXIT_INPUT;
		}
		return sc_scenario_dump(&sc, stdout) == 0 ? 0 : CLI_EXIT_FAIL;
	}
	if (strcmp(pos[0], "check") == 0 && npos >= 2) {
		for (i = 1; i < npos; i++) {
			if (sc_scenario_load(&sc, pos[i], o.sets, o.nsets, err, sizeof(err)) != 0) {
				fprintf(stderr, "syncemu scenario: %s\n", err);
				bad++;
				continue;
			}
			printf("%s: ok (%s: %s)\n", pos[i], sc.name, sc.desc);
		}
		return bad ? CLI_EXIT_INPUT : 0;
	}
	fprintf(stderr, "syncemu scenario: bad action '%s' or wrong number of files\n"
		"(try 'syncemu scenario --help')\n", pos[0]);
	return CLI_EXIT_USAGE;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * syncemu: a packet-level emulator of the gradient sync of training workers.
 *
 * The main program only dispatches to a subcommand; each lives in its own cmd_*.c.
 */
#include <stdio.h>
#include <string.h>

#include <jansson.h>
#include <pcap/pcap.h>
#include <rte_version.h>

#include "cli.h"

static int cmd_version(int argc, char **argv);

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "model", cmd_model, "print the analytic model's tables (the deck's numbers)" },
	{ "run", cmd_run, "emulate the sync as frames in virtual time; hold it against the model" },
	{ "sweep", cmd_sweep, "run over the values of any key: CSV, JSON and a plot with the model" },
	{ "validate", cmd_validate, "rebuild the syncs of a capture; hold them against the model" },
	{ "report", cmd_report, "one self-contained HTML page of charts from their JSON" },
	{ "bridge", cmd_bridge, "put real frames between two ports through the emulated WAN" },
	{ "lab", cmd_lab, "hosts in namespaces whose traffic crosses the emulated WAN" },
	{ "ctl", cmd_ctl, "change a running syncemu: module budget, WAN rate, load, ..." },
	{ "top", cmd_top, "watch a running syncemu's hot spots through its probes (BPF)" },
	{ "scenario", cmd_scenario, "check or dump scenario files; list every key" },
	{ "version", cmd_version, "print syncemu's version and the libraries it was built with" },
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

/* syncemu version, syncemu --version: the same lines */
static void
version(FILE *f)
{
	fprintf(f, "syncemu %s\nbuilt with %s, jansson %s, %s\n", SYNCEMU_VERSION, rte_version(),
		JANSSON_VERSION, pcap_lib_version());
}

static int
cmd_version(int argc, char **argv)
{
	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		printf("usage: syncemu version\n\nPrint syncemu's version and the versions of DPDK, "
		       "jansson and libpcap it was\nbuilt with (the same as syncemu --version).\n"
		       "Exit codes: 0 ok, 2 an argument given.\n\nexamples:\n  syncemu version\n");
		return 0;
	}
	if (argc > 1) {
		fprintf(stderr, "syncemu version: takes no argument ('%s')\n", argv[1]);
		return CLI_EXIT_USAGE;
	}
	version(stdout);
	return 0;
}

static void
usage(FILE *f)
{
	unsigned int i;

	fprintf(f,
		"usage: syncemu <command> [options]    (syncemu <command> --help for more)\n\n"
		"syncemu emulates the gradient sync of training workers spread over data centres\n"
		"and compares it with the analytic model of \"Training Transit, Simulated\".\n\n"
		"commands:\n");
	for (i = 0; i < N_COMMANDS; i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\nA scenario is an INI file (see scenarios/ and 'syncemu scenario keys').\n"
		   "Exit codes: 0 ok, 1 run failed, 2 bad command line, 3 bad input file,\n"
		   "4 validate: an error beyond --tolerance.\n");
}

int
main(int argc, char **argv)
{
	char who[32];
	unsigned int i;

	cli_start();
	if (argc < 2) {
		usage(stderr);
		return CLI_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return cli_finish("syncemu", 0);
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		version(stdout);
		return cli_finish("syncemu", 0);
	}
	for (i = 0; i < N_COMMANDS; i++)
		if (strcmp(argv[1], commands[i].name) == 0) {
			snprintf(who, sizeof(who), "syncemu %s", commands[i].name);
			return cli_finish(who, commands[i].fn(argc - 1, argv + 1));
		}
	fprintf(stderr, "syncemu: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return CLI_EXIT_USAGE;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * syncemu lab: runs syncemu-lab (tools/lab), which makes network namespaces joined through
 * syncemu bridge and runs commands in them.  A script: its work is ip, tc, ethtool and
 * process management, which the shell's tools do and C would only wrap.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int
cmd_lab(int argc, char **argv)
{
	int rc;

	(void)argc;
	rc = cli_exec_helper("lab", "syncemu-lab", "syncemu-lab", argv);
	fprintf(stderr, "syncemu lab: syncemu-lab is not installed beside syncemu (%s)\n",
		strerror(-rc));
	return CLI_EXIT_FAIL;
}

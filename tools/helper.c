/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The commands that are programs of their own (syncemu top, syncemu lab): found in the build
 * tree beside syncemu, else installed beside it, else on PATH, and run in syncemu's place.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

int
cli_exec_helper(const char *cmd, const char *prog, const char *built, char **argv)
{
	char self[PATH_MAX], dir[PATH_MAX], path[PATH_MAX + 64];
	const char *where[2] = { built, prog };
	unsigned int i;
	ssize_t n;

	argv[0] = (char *)prog;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		/* the helper runs this syncemu, not another on PATH */
		setenv("SYNCEMU", self, 0);
		snprintf(dir, sizeof(dir), "%s", dirname(self));
		for (i = 0; i < 2; i++) {
			snprintf(path, sizeof(path), "%s/%s", dir, where[i]);
			if (access(path, X_OK) == 0) {
				execv(path, argv);
				fprintf(stderr, "syncemu %s: cannot run %s: %s\n", cmd, path,
					strerror(errno));
				return CLI_EXIT_FAIL;
			}
		}
	}
	execvp(prog, argv);
	return -errno;
}

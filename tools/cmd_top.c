/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * syncemu top: runs syncemu-top (tools/top/), the libbpf tool, with the same arguments.  It is a
 * program of its own because it needs libbpf, clang and the kernel's BTF at build time, which
 * syncemu itself does not.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

int
cmd_top(int argc, char **argv)
{
	char self[PATH_MAX], dir[PATH_MAX], path[PATH_MAX + 32];
	static const char *const where[] = { "top/syncemu-top", "syncemu-top" };
	unsigned int i;
	ssize_t n;

	(void)argc;
	argv[0] = "syncemu-top";
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		snprintf(dir, sizeof(dir), "%s", dirname(self));
		/* the build tree (build/tools/top/), then an installed one beside syncemu */
		for (i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
			snprintf(path, sizeof(path), "%s/%s", dir, where[i]);
			if (access(path, X_OK) == 0) {
				execv(path, argv);
				fprintf(stderr, "syncemu top: cannot run %s: %s\n", path,
					strerror(errno));
				return CLI_EXIT_FAIL;
			}
		}
	}
	execvp("syncemu-top", argv);
	fprintf(stderr,
		"syncemu top: syncemu-top is not built here (%s). It needs clang, bpftool,\n"
		"libbpf-dev, libelf-dev and a kernel with BTF (/sys/kernel/btf/vmlinux); meson\n"
		"says which one it missed ('syncemu-top is not built: ...').\n", strerror(errno));
	return CLI_EXIT_FAIL;
}

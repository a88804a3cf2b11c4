/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * syncemu top: runs syncemu-top (tools/top/), the libbpf tool, with the same arguments.  It is a
 * program of its own because it needs libbpf, clang and the kernel's BTF at build time, which
 * syncemu itself does not.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int
cmd_top(int argc, char **argv)
{
	int rc;

	(void)argc;
	rc = cli_exec_helper("top", "syncemu-top", "top/syncemu-top", argv);
	fprintf(stderr,
		"syncemu top: syncemu-top is not built here (%s). It needs clang, bpftool,\n"
		"libbpf-dev, libelf-dev and a kernel with BTF (/sys/kernel/btf/vmlinux); meson\n"
		"says which one it missed ('syncemu-top is not built: ...').\n", strerror(-rc));
	return CLI_EXIT_FAIL;
}

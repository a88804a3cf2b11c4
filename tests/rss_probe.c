/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A preloaded probe for the memory tests: when the process frees its first mbuf pool (syncemu
 * does so once, after its runs and reports), write its peak resident set (VmHWM of
 * /proc/self/status) to the file $RSS_PROBE_OUT, then free the pool.  Read there, the peak is
 * that of the runs: freeing DPDK memory zeroes it (rte_free clears what it frees), which would
 * otherwise make every process peak at its whole pool on the way out.
 *
 * Usage: LD_PRELOAD=build/tests/librss_probe.so RSS_PROBE_OUT=FILE syncemu run ...
 *
 * A command without mbuf pools (validate): RSS_PROBE_EXIT=FILE writes the peak when the process
 * exits instead.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rte_mempool;

/* VmHWM of /proc/self/status, appended to @path. */
static void
write_hwm(const char *path)
{
	FILE *in = fopen("/proc/self/status", "r"), *out = fopen(path, "a");
	char line[256];

	while (in != NULL && out != NULL && fgets(line, sizeof(line), in) != NULL)
		if (strncmp(line, "VmHWM:", 6) == 0)
			fprintf(out, "%s", line);
	if (in != NULL)
		fclose(in);
	if (out != NULL)
		fclose(out);
}

__attribute__((destructor)) static void
at_exit_hwm(void)
{
	const char *path = getenv("RSS_PROBE_EXIT");

	if (path != NULL)
		write_hwm(path);
}

void rte_mempool_free(struct rte_mempool *mp);

void
rte_mempool_free(struct rte_mempool *mp)
{
	static int done;
	void (*real)(struct rte_mempool *) =
		(void (*)(struct rte_mempool *))dlsym(RTLD_NEXT, "rte_mempool_free");
	const char *path = getenv("RSS_PROBE_OUT");

	if (!done && path != NULL)
		write_hwm(path);
	done = 1;
	if (real != NULL)
		real(mp);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The process syncemu-top attaches to: that it exists, runs syncemu, and that its binary carries
 * the data plane's USDT probes (provider "syncemu", ELF notes in .note.stapsdt).
 */
#ifndef SYNCEMU_TOP_TARGET_H
#define SYNCEMU_TOP_TARGET_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define TOP_PROBES_MAX 64

struct top_target {
	pid_t pid;
	char exe[PATH_MAX];		/**< the binary, as /proc/PID/exe names it */
	char path[PATH_MAX];		/**< where libbpf reads and attaches: exe, or /proc/PID/exe
					 *   if the file was replaced since the process started */
	unsigned int n_probes;		/**< distinct probes of provider syncemu */
	char probes[TOP_PROBES_MAX][32];
};

/**
 * Find process @p pid and the probes of its binary.
 *
 * @return 0; -ESRCH: no such process; -EACCES: its binary cannot be read (privilege); -ENOEXEC:
 *         not syncemu (no syncemu probes, and not named syncemu*); -ENOTSUP: a syncemu built
 *         without probes; -EIO: the binary cannot be parsed.  The message in @p err says which
 *         and what to do.
 */
int top_target_open(pid_t pid, struct top_target *t, char *err, size_t errlen);

/** Whether the binary has probe @p name. */
bool top_target_has(const struct top_target *t, const char *name);

/** Whether process @p pid is gone (exited, or a zombie). */
bool top_target_gone(pid_t pid);

#endif /* SYNCEMU_TOP_TARGET_H */

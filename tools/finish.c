/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The standard output of a command (cli.h): written through a stream that keeps the reason of
 * its first failed write (stdio keeps none: a failed write's buffer is dropped, and a later
 * flush may succeed with nothing left to write), then flushed and checked at the end, so that a
 * result that could not be written is never an exit code 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "outfile.h"

static int out_errno;		/* the first failed write's errno, 0: none yet */
static bool watched;		/* stdout is the stream below */

static ssize_t
out_write(void *cookie, const char *buf, size_t n)
{
	size_t done = 0;
	ssize_t k;

	(void)cookie;
	while (done < n) {
		k = write(STDOUT_FILENO, buf + done, n - done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (out_errno == 0)
				out_errno = k < 0 ? errno : EIO;
			break;
		}
		done += (size_t)k;
	}
	return (ssize_t)done;		/* short: stdio marks the stream in error */
}

void
cli_start(void)
{
	static const cookie_io_functions_t io = { .write = out_write };
	FILE *f;

	if (watched)
		return;
	f = fopencookie(NULL, "w", io);
	if (f == NULL)
		return;		/* the plain stream: a failure is still found, maybe not why */
	/* a terminal sees each line as it comes; anything else gets blocks, as stdio does */
	setvbuf(f, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, BUFSIZ);
	fflush(stdout);
	stdout = f;
	watched = true;
}

int
cli_stdout_null(void)
{
	int fd;

	fflush(stdout);
	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (dup2(fd, STDOUT_FILENO) < 0) {
		close(fd);
		return -errno;
	}
	close(fd);
	return 0;
}

int
cli_finish(const char *who, int rc)
{
	int e = 0;

	errno = 0;
	if (fflush(stdout) != 0)
		e = out_errno != 0 ? out_errno : errno != 0 ? errno : EIO;
	else if (ferror(stdout))
		e = out_errno;
	if (e == 0 && !ferror(stdout))
		return rc;
	fprintf(stderr, "%s: %s: %s\n", who,
		outfile_stdout_moved() ? "standard error (where the report went)" :
		"standard output", e != 0 ? strerror(e) : "write error");
	clearerr(stdout);
	return rc == CLI_EXIT_OK || rc == CLI_EXIT_TOLERANCE ? CLI_EXIT_FAIL : rc;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control socket's client: one request line out, the whole answer line back.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"

#define ANSWER_MAX (16u << 20)	/* an answer longer than this is not one of syncemu's */

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Write all of @p buf, within the deadline. */
static int
send_all(int fd, const char *buf, size_t n, int64_t deadline)
{
	while (n > 0) {
		struct pollfd pf = { fd, POLLOUT, 0 };
		int64_t left = deadline - now_ms();
		ssize_t k;

		if (left <= 0 || poll(&pf, 1, (int)left) == 0)
			return -ETIMEDOUT;
		k = send(fd, buf, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (k < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (k < 0)
			return -errno;
		buf += k;
		n -= (size_t)k;
	}
	return 0;
}

int
ctl_client(const char *path, const char *line, char **answer, int timeout_ms, char *err,
	   size_t errlen)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int64_t deadline = now_ms() + timeout_ms;
	size_t k = 0, cap = 4096;
	char *out = NULL, *nl = NULL;
	int fd, rc = 0;

	*answer = NULL;
	if (strlen(path) >= sizeof(a.sun_path)) {
		snprintf(err, errlen, "the path %s is too long for a socket", path);
		return -ENAMETOOLONG;
	}
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		rc = -errno;
		snprintf(err, errlen, "no syncemu is listening on %s: %s%s", path, strerror(errno),
			 errno == ENOENT ? " (start one with syncemu run --ctl PATH)" :
			 errno == ECONNREFUSED ? " (the run ended?)" : "");
		if (fd >= 0)
			close(fd);
		return rc;
	}
	rc = send_all(fd, line, strlen(line), deadline);
	if (rc == 0)
		rc = send_all(fd, "\n", 1, deadline);
	if (rc != 0) {
		snprintf(err, errlen, "%s: cannot send the request: %s", path,
			 rc == -ETIMEDOUT ? "timed out" : strerror(-rc));
		close(fd);
		return rc;
	}
	/* the whole line: it can be long */
	while (nl == NULL) {
		struct pollfd pf = { fd, POLLIN, 0 };
		int64_t left = deadline - now_ms();
		ssize_t n;

		if (out == NULL || k + 1 == cap) {
			char *bigger = cap * 2 <= ANSWER_MAX ? realloc(out, out ? cap * 2 : cap) :
							     NULL;

			if (bigger == NULL) {
				snprintf(err, errlen, "%s: the answer is too long", path);
				rc = -E2BIG;
				break;
			}
			if (out != NULL)
				cap *= 2;
			out = bigger;
		}
		if (left <= 0 || poll(&pf, 1, (int)left) == 0) {
			snprintf(err, errlen, "%s: no answer within %d ms", path, timeout_ms);
			rc = -ETIMEDOUT;
			break;
		}
		n = read(fd, out + k, cap - 1 - k);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && k == 0) {
			rc = -errno;
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			break;
		}
		if (n <= 0)
			break;	/* closed: what came is the answer */
		nl = memchr(out + k, '\n', (size_t)n);
		k += (size_t)n;
	}
	close(fd);
	if (rc == 0 && k == 0) {
		snprintf(err, errlen, "%s: the connection closed without an answer", path);
		rc = -EIO;
	}
	if (rc != 0) {
		free(out);
		return rc;
	}
	out[nl != NULL ? (size_t)(nl - out) + 1 : k] = '\0';
	*answer = out;
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control socket's client: one request line out, the whole answer line back.  The connect
 * waits its turn in the socket's queue within the deadline; when it fails, the message says what
 * the kernel said and what is at the path.
 */
#include <errno.h>
#include <poll.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../traces/outfile.h"
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

/* The directory part of @p path into @p dir ("." for a bare name, "/" for the root's). */
static void
dir_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		snprintf(dir, len, ".");
	else if (slash == path)
		snprintf(dir, len, "/");
	else
		snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

/* Why the connect() to @p path failed with @p e: the kernel's words and what is there. */
static void
connect_error(const char *path, int e, int timeout_ms, char *err, size_t errlen)
{
	const char *lead = "cannot connect to";
	char why[256] = "", dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct stat st;

	switch (e) {
	case ENOENT:
		dir_of(path, dir, sizeof(dir));
		if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
			snprintf(why, sizeof(why), " (a symbolic link to nothing)");
		} else if (stat(dir, &st) != 0) {
			snprintf(why, sizeof(why), " (the directory %s: %s)", dir, strerror(errno));
		} else {
			lead = "no syncemu is listening on";
			snprintf(why, sizeof(why), " (nothing is there: start one with syncemu run "
				 "--ctl PATH)");
		}
		break;
	case ECONNREFUSED:
		if (stat(path, &st) == 0 && !S_ISSOCK(st.st_mode)) {
			snprintf(why, sizeof(why), " (it is %s, not a socket)",
				 outfile_kind_name(st.st_mode));
		} else {
			lead = "no syncemu is listening on";
			snprintf(why, sizeof(why), " (a socket nobody listens on: the run ended?)");
		}
		break;
	case EACCES:
	case EPERM:
		if (stat(path, &st) != 0) {
			snprintf(why, sizeof(why), " (a directory on the way to it cannot be "
				 "searched by uid %u)", (unsigned int)geteuid());
		} else if (access(path, W_OK) != 0) {
			struct passwd pw, *owner = NULL;
			char buf[1024];

			if (getpwuid_r(st.st_uid, &pw, buf, sizeof(buf), &owner) != 0)
				owner = NULL;
			snprintf(why, sizeof(why), " (the socket belongs to %s%s%u, mode %04o: "
				 "connecting takes write permission on it, which uid %u has not)",
				 owner != NULL ? owner->pw_name : "",
				 owner != NULL ? ", uid " : "uid ", (unsigned int)st.st_uid,
				 (unsigned int)(st.st_mode & 07777), (unsigned int)geteuid());
		}
		break;
	case ENOTDIR:
		snprintf(why, sizeof(why), " (a part of the path before its last is not a "
			 "directory)");
		break;
	case EPROTOTYPE:
		snprintf(why, sizeof(why), " (a socket of another type: not a syncemu control "
			 "socket)");
		break;
	case EAGAIN:
		snprintf(why, sizeof(why), " (the queue of connections waiting on it stayed full "
			 "for %d ms)", timeout_ms);
		break;
	default:
		break;
	}
	snprintf(err, errlen, "%s %s: %s%s", lead, path, strerror(e), why);
}

int
ctl_client(const char *path, const char *line, char **answer, int timeout_ms, char *err,
	   size_t errlen)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int64_t deadline = now_ms() + timeout_ms;
	size_t k = 0, cap = 4096;
	char *out = NULL, *nl = NULL;
	struct timeval tv;
	int fd, rc = 0;

	*answer = NULL;
	if (strlen(path) >= sizeof(a.sun_path)) {
		snprintf(err, errlen, "the path %s is too long for a socket", path);
		return -ENAMETOOLONG;
	}
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: cannot make a socket: %s", path, strerror(errno));
		return rc;
	}
	/* the connect waits its turn while the server's queue is full, within the deadline:
	 * the kernel wakes the waiting connects in their order as the server takes connections */
	tv.tv_sec = timeout_ms / 1000;
	tv.tv_usec = (timeout_ms % 1000) * 1000;
	if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) != 0 ||
	    connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		rc = -errno;
		connect_error(path, errno, timeout_ms, err, errlen);
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

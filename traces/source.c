/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reader's byte source (reader_impl.h): a file read front to back through a TR_SRC_BUF
 * read-ahead buffer, with read() for a plain file and zlib's gzread() for a gzip'd one.
 *
 * A file is gzip'd if its first two bytes are 1f 8b (RFC 1952), whatever its name; it is then
 * rewound and handed to gzdopen(), so it must be seekable (a plain file may be a pipe).  zlib
 * reads concatenated gzip members as one stream.  A stream that ends before its last member does
 * (a truncated download, a capture still being compressed) makes gzread() stop with Z_BUF_ERROR
 * "unexpected end of file": that is an error here, named with the decompressed byte count, and
 * not a clean end, even when the cut falls between two records.
 *
 * Errors are sticky: once a read fails, every later one returns the same -errno.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* fopencookie(), strndup(); u_int for pcap.h */
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reader_impl.h"

#define GZ_BUF (128u * 1024u)		/* zlib's input and output buffers */

static int
src_fail(struct tr_src *s, int rc, const char *what, const char *detail)
{
	snprintf(s->why, sizeof(s->why), "%s: %s", what, detail);
	s->err = rc;
	return rc;
}

/* Read what the file gives into buf[end..]; @return bytes added, 0 at the end, or -errno. */
static ssize_t
fill(struct tr_src *s)
{
	size_t room = TR_SRC_BUF - s->end;
	uint64_t produced = s->off + (s->end - s->pos);
	const char *msg;
	char detail[96];
	ssize_t n;
	int zerr;

	if (s->err != 0)
		return s->err;
	if (s->eof || room == 0)
		return 0;
	if (s->gz == NULL) {
		do
			n = read(s->fd, s->buf + s->end, room);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return src_fail(s, -errno, "read", strerror(errno));
	} else {
		n = gzread(s->gz, s->buf + s->end, (unsigned int)room);
		if (n <= 0) {
			msg = gzerror(s->gz, &zerr);
			if (zerr == Z_ERRNO) {
				return src_fail(s, errno != 0 ? -errno : -EIO, "read",
						strerror(errno != 0 ? errno : EIO));
			} else if (zerr == Z_BUF_ERROR) {
				snprintf(detail, sizeof(detail),
					 "stream truncated after %" PRIu64 " decompressed bytes (%s)",
					 produced, msg);
				return src_fail(s, -EBADMSG, "gzip", detail);
			} else if (zerr == Z_MEM_ERROR) {
				return src_fail(s, -ENOMEM, "gzip", msg);
			} else if (zerr != Z_OK || n < 0) {
				snprintf(detail, sizeof(detail), "%s after %" PRIu64
					 " decompressed bytes", msg, produced);
				return src_fail(s, -EBADMSG, "gzip", detail);
			}
		}
	}
	if (n == 0)
		s->eof = true;
	s->end += (size_t)n;
	return n;
}

int
tr_src_open(struct tr_src *s, const char *path)
{
	memset(s, 0, sizeof(*s));
	s->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0)
		return src_fail(s, -errno, "open", strerror(errno));
	s->buf = malloc(TR_SRC_BUF);
	if (s->buf == NULL)
		return src_fail(s, -ENOMEM, "malloc", strerror(ENOMEM));
	/* Read until the two magic bytes are in (a pipe may give one at a time). */
	while (s->end < 2 && !s->eof)
		if (fill(s) < 0)
			return s->err;
	if (s->end < 2 || s->buf[0] != 0x1f || s->buf[1] != 0x8b)
		return 0;

	if (lseek(s->fd, 0, SEEK_SET) != 0)
		return src_fail(s, -errno, "gzip'd input must be seekable: lseek", strerror(errno));
	s->gz = gzdopen(s->fd, "rb");
	if (s->gz == NULL)
		return src_fail(s, -ENOMEM, "gzdopen", strerror(ENOMEM));
	s->fd = -1;			/* gzclose() closes it */
	if (gzbuffer(s->gz, GZ_BUF) != 0)
		return src_fail(s, -EINVAL, "gzbuffer", "refused");
	s->pos = 0;
	s->end = 0;
	s->eof = false;
	return 0;
}

void
tr_src_close(struct tr_src *s)
{
	if (s->gz != NULL)
		gzclose(s->gz);
	if (s->fd >= 0)
		close(s->fd);
	free(s->buf);
	s->gz = NULL;
	s->fd = -1;
	s->buf = NULL;
	s->pos = 0;
	s->end = 0;
}

ssize_t
tr_src_peek(struct tr_src *s, size_t n, const uint8_t **p)
{
	ssize_t rc;

	if (n > TR_SRC_BUF)
		return -EINVAL;
	if (s->end - s->pos < n && s->pos != 0) {
		memmove(s->buf, s->buf + s->pos, s->end - s->pos);
		s->end -= s->pos;
		s->pos = 0;
	}
	while (s->end - s->pos < n) {
		rc = fill(s);
		if (rc < 0)
			return rc;
		if (rc == 0)
			break;
	}
	*p = s->buf + s->pos;
	return (ssize_t)(s->end - s->pos < n ? s->end - s->pos : n);
}

ssize_t
tr_src_read(struct tr_src *s, void *dst, size_t n)
{
	size_t done = 0, k;
	ssize_t rc;

	while (done < n) {
		if (s->pos == s->end) {
			s->pos = 0;
			s->end = 0;
			rc = fill(s);
			if (rc < 0)
				return rc;
			if (rc == 0)
				break;
		}
		k = s->end - s->pos;
		if (k > n - done)
			k = n - done;
		if (dst != NULL)
			memcpy((uint8_t *)dst + done, s->buf + s->pos, k);
		s->pos += k;
		s->off += k;
		done += k;
	}
	return (ssize_t)done;
}

int64_t
tr_src_skip(struct tr_src *s, uint64_t n)
{
	uint64_t done = 0;
	ssize_t k;

	while (done < n) {
		k = tr_src_read(s, NULL, n - done > TR_SRC_BUF ? TR_SRC_BUF : (size_t)(n - done));
		if (k < 0)
			return k;
		if (k == 0)
			break;
		done += (uint64_t)k;
	}
	return (int64_t)done;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The trace reader's tests: the helpers they share (test_reader.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <netinet/in.h>
#include <pcap/pcap.h>
#include <zlib.h>

#include "common.h"
#include "pcapng.h"
#include "reader.h"
#include "test_reader.h"

char dir[256];		/* the group's mkdtemp() directory */

char *
path_in(char *buf, const char *name)
{
	snprintf(buf, PATH_MAX, "%s/%s", dir, name);
	return buf;
}

void
fill(uint8_t *buf, size_t k, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = (uint8_t)(k * 37 + i * 11 + 1);
}

void
spew(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

/* Gzip @p n bytes into @p path with zlib's gzopen(). */
void
spew_gz(const char *path, const void *data, size_t n)
{
	gzFile gz = gzopen(path, "wb6");

	assert_non_null(gz);
	assert_int_equal(gzwrite(gz, data, (unsigned int)n), (int)n);
	assert_int_equal(gzclose(gz), Z_OK);
}

/* Gzip the file @p src into @p dst. */
void
gzip_file(const char *src, const char *dst)
{
	size_t n;
	uint8_t *d = tc_slurp(src, &n);

	spew_gz(dst, d, n);
	free(d);
}

void
expect_substr(const char *msg, const char *want)
{
	if (strstr(msg, want) == NULL)
		fail_msg("message \"%s\" lacks \"%s\"", msg, want);
}

/* @p err holds @p path and each string of @p ap up to a NULL. */
static void
expect_substrs(const char *err, const char *path, va_list ap)
{
	const char *s;

	expect_substr(err, path);
	while ((s = va_arg(ap, const char *)) != NULL)
		expect_substr(err, s);
}

/* Opening @p path fails with @p eno and a message holding each of the NULL-ended strings. */
void
expect_open_fails(const char *path, int eno, ...)
{
	char err[512] = "";
	va_list ap;

	errno = 0;
	assert_null(tr_reader_open(path, err, sizeof(err)));
	if (errno != eno)
		fail_msg("errno %d, not %d (%s)", errno, eno, err);
	va_start(ap, eno);
	expect_substrs(err, path, ap);
	va_end(ap);
}

/*
 * Reading @p path gives @p n_ok packets, then @p rc with a message holding each string; the
 * error is sticky.
 */
void
expect_next_fails(const char *path, int n_ok, int rc, ...)
{
	char err[512] = "", err2[512] = "";
	struct tr_packet p;
	struct tr_reader *r;
	va_list ap;
	int i, got;

	r = tr_reader_open(path, err, sizeof(err));
	if (r == NULL)
		fail_msg("open %s: %s", path, err);
	for (i = 0; i < n_ok; i++) {
		got = tr_reader_next(r, &p, err, sizeof(err));
		if (got != 1)
			fail_msg("packet %d: %d %s", i + 1, got, err);
	}
	got = tr_reader_next(r, &p, err, sizeof(err));
	if (got != rc)
		fail_msg("got %d, not %d (%s)", got, rc, err);
	va_start(ap, rc);
	expect_substrs(err, path, ap);
	va_end(ap);
	assert_int_equal(tr_reader_next(r, &p, err2, sizeof(err2)), rc);
	assert_string_equal(err2, err);
	tr_reader_close(r);
}

/* ---- a byte builder for hand-made pcap and pcapng files ---- */

void
nb_bytes(struct nb *b, const void *p, size_t n)
{
	assert_true(b->n + n <= sizeof(b->d));
	if (n != 0)
		memcpy(b->d + b->n, p, n);
	b->n += n;
}

void
nb_uint(struct nb *b, uint64_t v, unsigned int size)
{
	unsigned int i;

	for (i = 0; i < size; i++) {
		unsigned int shift = b->be ? 8 * (size - 1 - i) : 8 * i;

		b->d[b->n + i] = (uint8_t)(v >> shift);
	}
	b->n += size;
}

void
nb_pad(struct nb *b)
{
	while (b->n % 4 != 0)
		b->d[b->n++] = 0;
}

void
nb_begin(struct nb *b, uint32_t type)
{
	b->start = b->n;
	nb_uint(b, type, 4);
	nb_uint(b, 0, 4);
}

/* Close the block: pad, patch the length, append the trailing copy; @return the length. */
uint32_t
nb_end(struct nb *b)
{
	size_t save;
	uint32_t total;

	nb_pad(b);
	total = (uint32_t)(b->n - b->start + 4);
	save = b->n;
	b->n = b->start + 4;
	nb_uint(b, total, 4);
	b->n = save;
	nb_uint(b, total, 4);
	return total;
}

void
nb_opt(struct nb *b, uint16_t code, const void *val, uint16_t len)
{
	nb_uint(b, code, 2);
	nb_uint(b, len, 2);
	nb_bytes(b, val, len);
	nb_pad(b);
}

/* An SHB with up to two comments (NULL: none). */
void
nb_shb(struct nb *b, const char *c1, const char *c2)
{
	nb_begin(b, 0x0A0D0D0A);
	nb_uint(b, 0x1A2B3C4D, 4);
	nb_uint(b, 1, 2);
	nb_uint(b, 0, 2);
	nb_uint(b, UINT64_MAX, 8);
	if (c1 != NULL)
		nb_opt(b, 1, c1, (uint16_t)strlen(c1));
	if (c2 != NULL)
		nb_opt(b, 1, c2, (uint16_t)strlen(c2));
	if (c1 != NULL || c2 != NULL)
		nb_opt(b, 0, NULL, 0);
	nb_end(b);
}

/* An IDB; @p tsresol < 0: none; @p tsoff != 0: an if_tsoffset. */
void
nb_idb(struct nb *b, uint16_t lt, uint32_t snap, const char *name, int tsresol, int64_t tsoff)
{
	uint8_t res = (uint8_t)tsresol;

	nb_begin(b, 1);
	nb_uint(b, lt, 2);
	nb_uint(b, 0, 2);
	nb_uint(b, snap, 4);
	if (name != NULL)
		nb_opt(b, 2, name, (uint16_t)strlen(name));
	if (tsresol >= 0)
		nb_opt(b, 9, &res, 1);
	if (tsoff != 0) {
		nb_uint(b, 14, 2);
		nb_uint(b, 8, 2);
		nb_uint(b, (uint64_t)tsoff, 8);
	}
	nb_opt(b, 0, NULL, 0);
	nb_end(b);
}

void
nb_epb(struct nb *b, uint32_t ifid, uint64_t ts, const uint8_t *data, uint32_t cap,
       uint32_t len)
{
	nb_begin(b, 6);
	nb_uint(b, ifid, 4);
	nb_uint(b, ts >> 32, 4);
	nb_uint(b, ts & 0xFFFFFFFF, 4);
	nb_uint(b, cap, 4);
	nb_uint(b, len, 4);
	nb_bytes(b, data, cap);
	nb_end(b);
}

void
pcap_hdr(struct nb *b, uint32_t magic, uint32_t snap, uint32_t lt)
{
	nb_uint(b, magic, 4);
	nb_uint(b, 2, 2);
	nb_uint(b, 4, 2);
	nb_uint(b, 0, 4);
	nb_uint(b, 0, 4);
	nb_uint(b, snap, 4);
	nb_uint(b, lt, 4);
}

void
pcap_rec(struct nb *b, uint32_t sec, uint32_t frac, const uint8_t *data, uint32_t cap,
	 uint32_t len)
{
	nb_uint(b, sec, 4);
	nb_uint(b, frac, 4);
	nb_uint(b, cap, 4);
	nb_uint(b, len, 4);
	nb_bytes(b, data, cap);
}

/* Next packet, which must exist. */
void
next_ok(struct tr_reader *r, struct tr_packet *p)
{
	char err[512] = "";
	int rc = tr_reader_next(r, p, err, sizeof(err));

	if (rc != 1)
		fail_msg("tr_reader_next: %d %s", rc, err);
}

void
next_end(struct tr_reader *r)
{
	char err[512] = "";
	struct tr_packet p;
	int rc = tr_reader_next(r, &p, err, sizeof(err));

	if (rc != 0)
		fail_msg("expected the end, got %d %s", rc, err);
	assert_int_equal(tr_reader_next(r, &p, err, sizeof(err)), 0);
}

struct tr_reader *
open_ok(const char *path)
{
	char err[512] = "";
	struct tr_reader *r = tr_reader_open(path, err, sizeof(err));

	if (r == NULL)
		fail_msg("open %s: %s", path, err);
	return r;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The trace reader's tests: broken files, each with the message it must give (offset, packet
 * number), out-of-order timestamps counted and not fatal, and bad arguments (test_reader.c runs
 * them).
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

/* ---- broken files ---- */

void
test_bad_open(void **state)
{
	char path[PATH_MAX];
	struct nb b = { 0 };

	(void)state;
	expect_open_fails(path_in(path, "none.pcap"), ENOENT, "No such file", NULL);
	expect_open_fails(dir, EISDIR, NULL);
	spew(path_in(path, "empty.pcap"), "", 0);
	expect_open_fails(path, EBADMSG, "empty file", NULL);
	spew(path_in(path, "three.pcap"), "\xd4\xc3\xb2", 3);
	expect_open_fails(path, EBADMSG, "too short", "3 bytes", NULL);
	spew(path_in(path, "elf.pcap"), "\x7f" "ELF\x02\x01\x01", 7);
	expect_open_fails(path, EBADMSG, "not a pcap or pcapng file (magic 0x7f454c46)", NULL);
	spew(path_in(path, "short.pcap"), "\xd4\xc3\xb2\xa1\x02\x00\x04\x00\x00\x00", 10);
	expect_open_fails(path, EBADMSG, "pcap file header truncated (10 of 24 bytes)", NULL);
	pcap_hdr(&b, 0xA1B2C3D4, 65535, 1);
	b.d[4] = 3;
	spew(path_in(path, "v3.pcap"), b.d, b.n);
	expect_open_fails(path, ENOTSUP, "unsupported pcap version 3.4", NULL);
	spew_gz(path_in(path, "empty.gz"), "", 0);
	expect_open_fails(path, EBADMSG, "empty file (gzip)", NULL);
	spew(path_in(path, "junk.gz"), "\x1f\x8b\x08\x00junk junk junk junk", 22);
	expect_open_fails(path, EBADMSG, "gzip", NULL);

	/* pcapng: byte-order magic, version, an IDB cut or with a bad option. */
	b.n = 0;
	nb_shb(&b, NULL, NULL);
	b.d[8] = 0x55;
	spew(path_in(path, "bom.pcapng"), b.d, b.n);
	expect_open_fails(path, EBADMSG, "SHB at byte 0", "byte-order magic", NULL);
	b.d[8] = 0x4D;
	b.d[12] = 2;
	spew(path_in(path, "v2.pcapng"), b.d, b.n);
	expect_open_fails(path, ENOTSUP, "unsupported pcapng version 2.0", NULL);
	b.d[12] = 1;
	nb_idb(&b, 1, 0, "eth0", 9, 0);
	spew(path_in(path, "idbcut.pcapng"), b.d, b.n - 6);
	expect_open_fails(path, EBADMSG, "IDB at byte 28", "truncated", "file ends 34 bytes into it",
			  NULL);
	b.d[28 + 16 + 2] = 100;					/* if_name of 100 bytes */
	spew(path_in(path, "idbopt.pcapng"), b.d, b.n);
	expect_open_fails(path, EBADMSG, "IDB at byte 28", "option 2 of 100 bytes overruns", NULL);
	b.d[28 + 16 + 2] = 4;
	b.d[28 + 16 + 8 + 2] = 2;				/* if_tsresol of 2 bytes */
	spew(path_in(path, "idbres.pcapng"), b.d, b.n);
	expect_open_fails(path, EBADMSG, "IDB at byte 28", "if_tsresol of 2 bytes", NULL);
}

void
test_bad_pcap(void **state)
{
	char path[PATH_MAX];
	struct nb b = { 0 };
	uint8_t data[64];

	(void)state;
	fill(data, 0, sizeof(data));
	pcap_hdr(&b, 0xA1B2C3D4, 65535, 1);
	pcap_rec(&b, 1, 0, data, 60, 60);
	pcap_rec(&b, 2, 0, data, 50, 50);
	spew(path_in(path, "cut-data.pcap"), b.d, b.n - 20);
	expect_next_fails(path, 1, -EBADMSG, "record at byte 100 (packet 2)", "libpcap",
			  "truncated", NULL);
	spew(path_in(path, "cut-hdr.pcap"), b.d, 100 + 8);
	expect_next_fails(path, 1, -EBADMSG, "record at byte 100 (packet 2)", "truncated", NULL);
	b.d[24 + 8 + 3] = 0x80;					/* caplen 2^31 + 60 */
	spew(path_in(path, "huge.pcap"), b.d, b.n);
	expect_next_fails(path, 0, -EBADMSG, "record at byte 24 (packet 1)", "capture length",
			  NULL);
}

/* A pcapng with an SHB and one Ethernet interface (if_tsresol 9) in @p b; @return its length. */
static size_t
ng_base(struct nb *b, int tsresol, int64_t tsoff)
{
	memset(b, 0, sizeof(*b));
	nb_shb(b, NULL, NULL);
	nb_idb(b, 1, 0, "e", tsresol, tsoff);
	return b->n;
}

void
test_bad_pcapng(void **state)
{
	char path[PATH_MAX], want[128];
	uint8_t data[64];
	struct nb b;
	uint8_t *big;
	size_t at;

	(void)state;
	fill(data, 0, sizeof(data));
	ng_base(&b, 9, 0);
	nb_epb(&b, 0, 1, data, 52, 52);
	at = b.n;
	nb_epb(&b, 0, 2, data, 52, 52);

	spew(path_in(path, "cut.pcapng"), b.d, b.n - 10);
	snprintf(want, sizeof(want), "EPB at byte %zu (packet 2)", at);
	expect_next_fails(path, 1, -EBADMSG, want, "truncated", "file ends 74 bytes into it",
			  NULL);
	spew(path_in(path, "cuthdr.pcapng"), b.d, at + 5);
	snprintf(want, sizeof(want), "block at byte %zu", at);
	expect_next_fails(path, 1, -EBADMSG, want, "truncated block header (5 of 8 bytes)", NULL);

	b.d[at + 4] = 30;					/* length 30 */
	spew(path_in(path, "len30.pcapng"), b.d, b.n);
	snprintf(want, sizeof(want), "EPB at byte %zu (packet 2)", at);
	expect_next_fails(path, 1, -EBADMSG, want, "block length 30 is not a multiple of 4",
			  NULL);
	b.d[at + 4] = 24;
	spew(path_in(path, "len24.pcapng"), b.d, b.n);
	expect_next_fails(path, 1, -EBADMSG, want, "block length 24 < 32", NULL);
	b.d[at + 4] = 84;
	b.d[b.n - 4] = 80;					/* trailing copy */
	spew(path_in(path, "trail.pcapng"), b.d, b.n);
	expect_next_fails(path, 1, -EBADMSG, want, "trailing length 80 differs from 84", NULL);
	b.d[b.n - 4] = 84;
	b.d[at + 20] = 100;					/* caplen 100 */
	spew(path_in(path, "caplen.pcapng"), b.d, b.n);
	expect_next_fails(path, 1, -EBADMSG, want,
			  "captured length 100 exceeds the 52 bytes of room", NULL);
	b.d[at + 20] = 52;
	b.d[at + 8] = 5;					/* interface 5 */
	spew(path_in(path, "ifid.pcapng"), b.d, b.n);
	expect_next_fails(path, 1, -EBADMSG, want, "unknown interface id 5 (section 1 has 1)",
			  NULL);
	b.d[at + 8] = 0;
	memcpy(b.d + at + 4, (const uint8_t[4]){ 0, 0, 0, 0x80 }, 4);	/* 2^31 */
	spew(path_in(path, "huge.pcapng"), b.d, b.n);
	expect_next_fails(path, 1, -EFBIG, want, "block length 2147483648 exceeds the limit",
			  NULL);
	memcpy(b.d + at + 4, (const uint8_t[4]){ 0, 0, 0x80, 0x0C }, 4);	/* 200 MiB */
	spew(path_in(path, "long.pcapng"), b.d, b.n);
	expect_next_fails(path, 1, -EBADMSG, want, "the block has 209715200 bytes",
			  "file ends 84 bytes into it", NULL);
	memcpy(b.d + at + 4, (const uint8_t[4]){ 84, 0, 0, 0 }, 4);
	memcpy(b.d + at, (const uint8_t[4]){ 0xAD, 0x0B, 0, 0 }, 4);	/* unknown type */
	b.d[at + 4] = 8;
	spew(path_in(path, "len8.pcapng"), b.d, b.n);
	snprintf(want, sizeof(want), "block of type 0x00000bad at byte %zu", at);
	expect_next_fails(path, 1, -EBADMSG, want, "block length 8 < 12", NULL);

	/* An SPB without an interface; a second section's interfaces. */
	b.n = 0;
	nb_shb(&b, NULL, NULL);
	nb_begin(&b, 3);
	nb_uint(&b, 4, 4);
	nb_bytes(&b, data, 4);
	nb_end(&b);
	spew(path_in(path, "spb.pcapng"), b.d, b.n);
	expect_next_fails(path, 0, -EBADMSG, "SPB at byte 28 (packet 1)", "unknown interface id 0",
			  NULL);
	ng_base(&b, 9, 0);
	nb_idb(&b, 1, 0, "f", 9, 0);
	nb_epb(&b, 1, 1, data, 4, 4);
	nb_shb(&b, NULL, NULL);
	nb_idb(&b, 1, 0, "g", 9, 0);
	nb_epb(&b, 0, 2, data, 4, 4);
	at = b.n;
	nb_epb(&b, 1, 3, data, 4, 4);
	spew(path_in(path, "sect.pcapng"), b.d, b.n);
	snprintf(want, sizeof(want), "EPB at byte %zu (packet 3)", at);
	expect_next_fails(path, 2, -EBADMSG, want, "unknown interface id 1 (section 2 has 1)",
			  NULL);

	/* Timestamps beyond 64-bit ns: seconds, and a negative if_tsoffset. */
	ng_base(&b, 0, 0);
	nb_epb(&b, 0, 18446744073u, data, 4, 4);		/* just fits */
	nb_epb(&b, 0, 18446744074u, data, 4, 4);
	spew(path_in(path, "ts.pcapng"), b.d, b.n);
	expect_next_fails(path, 1, -ERANGE, "does not fit in 64-bit ns", NULL);
	ng_base(&b, 6, -10);
	nb_epb(&b, 0, 10000000, data, 4, 4);
	nb_epb(&b, 0, 9999999, data, 4, 4);
	spew(path_in(path, "tsoff.pcapng"), b.d, b.n);
	expect_next_fails(path, 1, -ERANGE, "if_tsoffset -10 s", NULL);

	/* An SHB comment beyond 16 MiB: 257 options of 65532 bytes. */
	big = calloc(1, 28 + 257 * 65536);
	assert_non_null(big);
	memcpy(big, (const uint32_t[3]){ 0x0A0D0D0A, 28 + 257 * 65536, 0x1A2B3C4D }, 12);
	memcpy(big + 12, (const uint16_t[2]){ 1, 0 }, 4);
	memset(big + 16, 0xff, 8);
	for (at = 0; at < 257; at++) {
		memcpy(big + 24 + at * 65536, (const uint16_t[2]){ 1, 65532 }, 4);
		memset(big + 28 + at * 65536, 'c', 65532);
	}
	memcpy(big + 24 + 257 * 65536, (const uint32_t[1]){ 28 + 257 * 65536 }, 4);
	spew(path_in(path, "comment.pcapng"), big, 28 + 257 * 65536);
	free(big);
	expect_open_fails(path, EFBIG, "SHB at byte 0", "SHB comment exceeds the limit of 16 MiB",
			  NULL);
}

void
test_null_args(void **state)
{
	char err[256] = "", path[PATH_MAX];
	struct tr_packet p;
	struct tr_reader *r;
	struct nb b = { 0 };

	(void)state;
	tr_reader_close(NULL);
	errno = 0;
	assert_null(tr_reader_open(NULL, err, sizeof(err)));
	assert_int_equal(errno, EINVAL);
	assert_null(tr_reader_open("", NULL, 0));
	assert_int_equal(errno, EINVAL);
	assert_int_equal(tr_reader_next(NULL, &p, err, sizeof(err)), -EINVAL);
	assert_string_equal(tr_reader_format(NULL), "");
	assert_string_equal(tr_reader_comment(NULL), "");
	assert_int_equal(tr_reader_ifcount(NULL), 0);
	assert_null(tr_reader_ifname(NULL, 0));
	assert_int_equal(tr_reader_linktype(NULL, 0), -EINVAL);
	assert_int_equal(tr_reader_unordered(NULL), 0);

	nb_shb(&b, NULL, NULL);
	spew(path_in(path, "bare.pcapng"), b.d, b.n);
	r = tr_reader_open(path, NULL, 0);
	assert_non_null(r);
	assert_int_equal(tr_reader_next(r, NULL, NULL, 0), -EINVAL);
	assert_string_equal(tr_reader_comment(r), "");
	assert_int_equal(tr_reader_ifcount(r), 0);
	assert_null(tr_reader_ifname(r, 0));
	assert_int_equal(tr_reader_next(r, &p, NULL, 0), 0);
	tr_reader_close(r);
}

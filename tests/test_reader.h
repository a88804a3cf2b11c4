/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the trace reader's tests share (test_reader.c, test_reader_decode.c, test_reader_bad.c,
 * test_reader_util.c: one test binary): the group's directory, files in it, a byte builder for
 * hand-made pcap and pcapng files, and expectations on the reader.
 */
#ifndef TEST_READER_H
#define TEST_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "reader.h"

#define NS UINT64_C(1000000000)
#define SNAP 128u

extern char dir[256];		/* the group's mkdtemp() directory */

/* Files in the group's directory; expectations on the reader (test_reader_util.c). */
char *path_in(char *buf, const char *name);
void fill(uint8_t *buf, size_t k, size_t n);
void spew(const char *path, const void *data, size_t n);
void spew_gz(const char *path, const void *data, size_t n);
void gzip_file(const char *src, const char *dst);
void expect_substr(const char *msg, const char *want);
void expect_open_fails(const char *path, int eno, ...);
void expect_next_fails(const char *path, int n_ok, int rc, ...);

/* A byte builder for hand-made pcap and pcapng files. */
struct nb {
	uint8_t d[16384];
	size_t n;
	bool be;		/* write big-endian, else little-endian */
	size_t start;		/* the open block */
};

void nb_bytes(struct nb *b, const void *p, size_t n);
void nb_uint(struct nb *b, uint64_t v, unsigned int size);
void nb_pad(struct nb *b);
void nb_begin(struct nb *b, uint32_t type);
uint32_t nb_end(struct nb *b);
void nb_opt(struct nb *b, uint16_t code, const void *val, uint16_t len);
void nb_shb(struct nb *b, const char *c1, const char *c2);
void nb_idb(struct nb *b, uint16_t lt, uint32_t snap, const char *name, int tsresol, int64_t tsoff);
void nb_epb(struct nb *b, uint32_t ifid, uint64_t ts, const uint8_t *data, uint32_t cap,
	    uint32_t len);
void pcap_hdr(struct nb *b, uint32_t magic, uint32_t snap, uint32_t lt);
void pcap_rec(struct nb *b, uint32_t sec, uint32_t frac, const uint8_t *data, uint32_t cap,
	      uint32_t len);

/* The next packet, which must exist; the end; an open that must succeed. */
void next_ok(struct tr_reader *r, struct tr_packet *p);
void next_end(struct tr_reader *r);
struct tr_reader *open_ok(const char *path);

/* The tests of tr_decode_ip() (test_reader_decode.c). */
void test_decode_ether(void **state);
void test_decode_other_links(void **state);
void test_decode_bad(void **state);

/* Broken files and bad arguments (test_reader_bad.c). */
void test_bad_open(void **state);
void test_bad_pcap(void **state);
void test_bad_pcapng(void **state);
void test_null_args(void **state);

#endif /* TEST_READER_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The trace reader (traces/reader.h), from the outside:
 *   - pcapng written by traces/pcapng.c (three interfaces, one added after packets, timestamps
 *     above 2^32 ns, snapped frames, a long comment) reads back field by field, plain and
 *     gzip'd (written with zlib's gzopen());
 *   - classic pcap written by hand (microsecond, nanosecond and byte-swapped magic) and by
 *     libpcap's pcap_dump() (Ethernet, raw IP, Linux SLL) reads back with exact ns timestamps,
 *     lengths and record offsets;
 *   - hand-made pcapng: if_tsresol 10^-6, 2^-20 and 10^-12, if_tsoffset, a Simple Packet Block,
 *     an obsolete Packet Block, unknown blocks to skip, a second, big-endian section whose
 *     interface ids restart;
 *   - tr_decode_ip() on each supported link layer, truncated headers, ARP, fragments;
 *   - broken files, each with the message it must give (offset, packet number), and
 *     out-of-order timestamps, counted and not fatal;
 *   - many packets across buffer boundaries, plain and gzip'd.
 * Everything happens in a mkdtemp() directory that the group teardown removes.  The decoder's
 * tests are in test_reader_decode.c, the broken files' (but a broken gzip stream) in
 * test_reader_bad.c, the helpers they share in test_reader_util.c.
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

/* ---- pcapng from the writer ---- */

struct pkt {
	uint32_t ifid;
	uint64_t ts;
	uint32_t caplen;
	uint32_t origlen;
};

static const char *const IF_NAME[] = { "w3.tx", "wan0>1.in", "mod0.rx" };
#define IF2_BEFORE 3	/* interface 2 is added just before packet 3 */

static const struct pkt PKTS[] = {
	{ 0, 5 * NS, 60, 60 },					/* above 2^32 ns */
	{ 1, 5 * NS + 1, 61, 61 },
	{ 0, (UINT64_C(1) << 33) + 7, 100, 1500 },		/* snapped by the caller */
	{ 2, UINT64_C(1700000000123456789), SNAP, SNAP },
	{ 2, UINT64_C(1700000000123456790), 200, 9000 },	/* clipped to SNAP */
	{ 1, 6 * NS, 0, 64 },					/* out of order; empty */
	{ 0, 6 * NS + 1, 63, 63 },
	{ 1, UINT64_MAX, 63, 63 },
};
#define N_PKTS (sizeof(PKTS) / sizeof(PKTS[0]))

static const char COMMENT[] = "seed = 42\n[scenario]\nname = two DCs, 4 workers\n"
			      "; UTF-8: \xc3\xbc\xe2\x82\xac, a tab:\t.\n";

static void
write_ref(const char *path, const char *comment)
{
	struct tr_pcapng_params prm = { .path = path, .app = "syncemu (test)",
					.comment = comment, .snaplen = SNAP };
	struct tr_pcapng *w = tr_pcapng_open(&prm);
	uint8_t data[256];
	size_t k;

	assert_non_null(w);
	assert_int_equal(tr_pcapng_add_if(w, IF_NAME[0], NULL), 0);
	assert_int_equal(tr_pcapng_add_if(w, IF_NAME[1], "desc"), 1);
	for (k = 0; k < N_PKTS; k++) {
		if (k == IF2_BEFORE)
			assert_int_equal(tr_pcapng_add_if(w, IF_NAME[2], NULL), 2);
		fill(data, k, PKTS[k].caplen);
		assert_int_equal(tr_pcapng_write(w, PKTS[k].ifid, PKTS[k].ts, data,
						 PKTS[k].caplen, PKTS[k].origlen), 0);
	}
	assert_int_equal(tr_pcapng_close(w), 0);
}

static uint32_t
rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Read the reference trace at @p path; @p raw is the uncompressed file, for the offsets. */
static void
check_ref(const char *path, const uint8_t *raw, size_t rawlen, const char *format)
{
	struct tr_reader *r = open_ok(path);
	uint8_t data[256];
	struct tr_packet p;
	uint32_t cap, blen;
	size_t k;

	assert_string_equal(tr_reader_format(r), format);
	assert_string_equal(tr_reader_comment(r), COMMENT);
	/* The third interface is described after packets: not known yet. */
	assert_int_equal(tr_reader_ifcount(r), 2);
	assert_string_equal(tr_reader_ifname(r, 0), IF_NAME[0]);
	assert_string_equal(tr_reader_ifname(r, 1), IF_NAME[1]);
	assert_null(tr_reader_ifname(r, 2));
	for (k = 0; k < N_PKTS; k++) {
		next_ok(r, &p);
		cap = PKTS[k].caplen < SNAP ? PKTS[k].caplen : SNAP;
		assert_int_equal(p.frame, k + 1);
		assert_int_equal(p.ifid, PKTS[k].ifid);
		assert_int_equal(p.linktype, TR_LINKTYPE_ETHERNET);
		assert_true(p.ts_ns == PKTS[k].ts);
		assert_int_equal(p.caplen, cap);
		assert_int_equal(p.len, PKTS[k].origlen);
		fill(data, k, cap);
		if (cap != 0)
			assert_memory_equal(p.data, data, cap);
		/* The offset is that of an EPB of the right length and interface. */
		blen = 32 + cap + ((4 - (cap & 3)) & 3);
		assert_true(p.offset + blen <= rawlen);
		assert_int_equal(rd32(raw + p.offset), 6);
		assert_int_equal(rd32(raw + p.offset + 4), blen);
		assert_int_equal(rd32(raw + p.offset + 8), PKTS[k].ifid);
		if (k == 0)
			assert_int_equal(p.offset, rd32(raw + 4) + rd32(raw + rd32(raw + 4) + 4) +
					 rd32(raw + rd32(raw + 4) + rd32(raw + rd32(raw + 4) + 4) + 4));
	}
	next_end(r);
	assert_int_equal(tr_reader_ifcount(r), 3);
	assert_string_equal(tr_reader_ifname(r, 2), IF_NAME[2]);
	assert_int_equal(tr_reader_linktype(r, 2), TR_LINKTYPE_ETHERNET);
	assert_int_equal(tr_reader_linktype(r, 3), -EINVAL);
	assert_int_equal(tr_reader_unordered(r), 1);
	tr_reader_close(r);
}

static void
test_pcapng_writer(void **state)
{
	char path[PATH_MAX], gz[PATH_MAX];
	uint8_t *raw;
	size_t n;

	(void)state;
	write_ref(path_in(path, "ref.pcapng"), COMMENT);
	raw = tc_slurp(path, &n);
	check_ref(path, raw, n, "pcapng");
	/* The same, gzip'd, under a name that does not say so. */
	gzip_file(path, path_in(gz, "ref-gz.pcapng"));
	check_ref(gz, raw, n, "pcapng (gzip)");
	free(raw);
}

/* A comment the writer splits into several opt_comment options reads back as written. */
static void
test_long_comment(void **state)
{
	char path[PATH_MAX];
	struct tr_pcapng_params prm = { .path = path };
	struct tr_pcapng *w;
	struct tr_reader *r;
	size_t len = 300000, i;
	char *c = malloc(len + 1);

	(void)state;
	assert_non_null(c);
	for (i = 0; i < len; i++)
		c[i] = i % 80 == 79 ? '\n' : (char)('a' + i % 26);
	c[len] = '\0';
	prm.comment = c;
	path_in(path, "long.pcapng");
	w = tr_pcapng_open(&prm);
	assert_non_null(w);
	assert_int_equal(tr_pcapng_close(w), 0);
	r = open_ok(path);
	assert_int_equal(strlen(tr_reader_comment(r)), len);
	assert_string_equal(tr_reader_comment(r), c);
	assert_int_equal(tr_reader_ifcount(r), 0);
	next_end(r);
	tr_reader_close(r);
	free(c);
}

/* ---- classic pcap ---- */

static void
test_pcap_hand(void **state)
{
	static const struct {
		const char *name;
		uint32_t magic;
		bool be;
		uint32_t frac_ns;	/* ns per unit of the fraction */
		const char *format;
	} V[] = {
		{ "us-le.pcap", 0xA1B2C3D4, false, 1000, "pcap" },
		{ "ns-le.pcap", 0xA1B23C4D, false, 1, "pcap (ns)" },
		{ "us-be.pcap", 0xA1B2C3D4, true, 1000, "pcap" },
		{ "ns-be.pcap", 0xA1B23C4D, true, 1, "pcap (ns)" },
	};
	static const uint32_t CAP[] = { 60, 1, 0, 97 }, LEN[] = { 60, 1514, 40, 97 };
	static const uint32_t SEC[] = { 1700000000, 4294967295u, 0, 1 }, FRAC[] = { 123456, 999999, 0, 5 };
	char path[PATH_MAX];
	struct tr_packet p;
	struct tr_reader *r;
	uint8_t data[128];
	uint64_t off;
	size_t v, k;

	(void)state;
	for (v = 0; v < sizeof(V) / sizeof(V[0]); v++) {
		struct nb b = { .be = V[v].be };

		pcap_hdr(&b, V[v].magic, 65535, TR_LINKTYPE_RAW);
		for (k = 0; k < 4; k++) {
			fill(data, k, CAP[k]);
			pcap_rec(&b, SEC[k], FRAC[k], data, CAP[k], LEN[k]);
		}
		spew(path_in(path, V[v].name), b.d, b.n);
		r = open_ok(path);
		assert_string_equal(tr_reader_format(r), V[v].format);
		assert_int_equal(tr_reader_ifcount(r), 1);
		assert_string_equal(tr_reader_ifname(r, 0), "if0");
		assert_int_equal(tr_reader_linktype(r, 0), TR_LINKTYPE_RAW);
		assert_string_equal(tr_reader_comment(r), "");
		off = 24;
		for (k = 0; k < 4; k++) {
			next_ok(r, &p);
			if (p.ts_ns != SEC[k] * NS + (uint64_t)FRAC[k] * V[v].frac_ns)
				fail_msg("%s packet %zu: ts %" PRIu64, V[v].name, k + 1, p.ts_ns);
			assert_int_equal(p.caplen, CAP[k]);
			assert_int_equal(p.len, LEN[k]);
			assert_int_equal(p.ifid, 0);
			assert_int_equal(p.linktype, TR_LINKTYPE_RAW);
			assert_int_equal(p.frame, k + 1);
			assert_int_equal(p.offset, off);
			fill(data, k, CAP[k]);
			if (CAP[k] != 0)
				assert_memory_equal(p.data, data, CAP[k]);
			off += 16 + CAP[k];
		}
		next_end(r);
		assert_int_equal(tr_reader_unordered(r), 1);	/* 0 s after 2^32-1 s */
		tr_reader_close(r);
	}
}

/*
 * pcap_dump() for three link types, at ns and us precision, plain and gzip'd; two records are
 * longer than the snap length (libpcap returns them cut, the offsets count their bytes on disk).
 */
static void
test_pcap_libpcap(void **state)
{
	static const struct {
		int dlt;
		int linktype;
	} L[] = {
		{ DLT_EN10MB, TR_LINKTYPE_ETHERNET },
		{ DLT_RAW, TR_LINKTYPE_RAW },
		{ DLT_LINUX_SLL, TR_LINKTYPE_LINUX_SLL },
	};
	char path[PATH_MAX], gz[PATH_MAX], name[64];
	struct pcap_pkthdr h;
	struct tr_packet p;
	struct tr_reader *r;
	pcap_dumper_t *d;
	uint8_t data[300];
	uint64_t off, ts;
	size_t l, k, g, cap;
	pcap_t *pc;
	int prec;

	(void)state;
	for (l = 0; l < 3; l++) {
		for (prec = 0; prec < 2; prec++) {
			snprintf(name, sizeof(name), "dump%zu-%d.pcap", l, prec);
			pc = pcap_open_dead_with_tstamp_precision(L[l].dlt, 150, prec != 0 ?
					PCAP_TSTAMP_PRECISION_NANO : PCAP_TSTAMP_PRECISION_MICRO);
			assert_non_null(pc);
			d = pcap_dump_open(pc, path_in(path, name));
			assert_non_null(d);
			for (k = 0; k < 5; k++) {
				memset(&h, 0, sizeof(h));
				h.ts.tv_sec = (time_t)(5 + k * 1000000);
				h.ts.tv_usec = (suseconds_t)(k * 123457);
				h.caplen = (bpf_u_int32)(40 + k * 50);
				h.len = h.caplen + (bpf_u_int32)k;
				fill(data, k, h.caplen);
				pcap_dump((u_char *)d, &h, data);
			}
			pcap_dump_close(d);
			pcap_close(pc);
			snprintf(name, sizeof(name), "dump%zu-%d.pcap.gz", l, prec);
			gzip_file(path, path_in(gz, name));
			for (g = 0; g < 2; g++) {
				r = open_ok(g == 0 ? path : gz);
				assert_string_equal(tr_reader_format(r),
						    g == 0 ? (prec ? "pcap (ns)" : "pcap") :
						    (prec ? "pcap (ns) (gzip)" : "pcap (gzip)"));
				assert_int_equal(tr_reader_linktype(r, 0), L[l].linktype);
				off = 24;
				for (k = 0; k < 5; k++) {
					next_ok(r, &p);
					ts = (5 + k * 1000000) * NS +
					     k * 123457 * (prec != 0 ? 1 : 1000);
					assert_true(p.ts_ns == ts);
					/* libpcap cuts records beyond the snap length */
					cap = 40 + k * 50;
					assert_int_equal(p.caplen, cap < 150 ? cap : 150);
					assert_int_equal(p.len, 40 + k * 51);
					assert_int_equal(p.linktype, L[l].linktype);
					assert_int_equal(p.offset, off);
					fill(data, k, p.caplen);
					assert_memory_equal(p.data, data, p.caplen);
					off += 16 + cap;
				}
				next_end(r);
				assert_int_equal(tr_reader_unordered(r), 0);
				tr_reader_close(r);
			}
		}
	}
}

/* ---- hand-made pcapng ---- */

static void
test_pcapng_hand(void **state)
{
	char path[PATH_MAX], gz[PATH_MAX];
	struct nb b = { .be = false };
	uint8_t data[100];
	struct tr_packet p;
	struct tr_reader *r;
	uint64_t off[8];
	uint8_t res;
	int pass;

	(void)state;
	fill(data, 1, sizeof(data));
	/* Section 1, little-endian: two comments, two interfaces, then packets. */
	nb_shb(&b, "first", "second\n");
	nb_idb(&b, TR_LINKTYPE_ETHERNET, 64, "eth0", 6, 0);
	nb_idb(&b, TR_LINKTYPE_RAW, 0, NULL, 0x94, 1000);		/* 2^-20 s, +1000 s */
	nb_begin(&b, 0x00000BAD);					/* custom: skipped */
	nb_uint(&b, 32473, 4);
	nb_bytes(&b, "custom data!", 12);
	nb_end(&b);
	off[0] = b.n;
	nb_epb(&b, 0, 1234567, data, 60, 60);				/* 1.234567 s */
	off[1] = b.n;
	nb_epb(&b, 1, (UINT64_C(5) << 20) + 1, data, 20, 20);	/* 5 s + 2^-20 s */
	off[2] = b.n;
	nb_begin(&b, 3);						/* SPB: if 0 */
	nb_uint(&b, 100, 4);
	nb_bytes(&b, data, 64);						/* snap 64 */
	nb_end(&b);
	nb_begin(&b, 4);						/* NRB: skipped */
	nb_uint(&b, 0, 4);
	nb_end(&b);
	off[3] = b.n;
	nb_begin(&b, 2);						/* PB on if 1 */
	nb_uint(&b, 1, 2);
	nb_uint(&b, 0, 2);
	nb_uint(&b, 0, 4);
	nb_uint(&b, 1u << 19, 4);					/* 0.5 s */
	nb_uint(&b, 3, 4);
	nb_uint(&b, 3, 4);
	nb_bytes(&b, data, 3);
	nb_end(&b);
	/* Section 2, big-endian: ids restart at 0. */
	b.be = true;
	nb_shb(&b, "not the first section", NULL);
	nb_idb(&b, TR_LINKTYPE_IPV4, 0, "lo", 9, 0);
	res = 12;
	nb_begin(&b, 1);						/* picoseconds */
	nb_uint(&b, TR_LINKTYPE_LINUX_SLL2, 2);
	nb_uint(&b, 0, 2);
	nb_uint(&b, 0, 4);
	nb_opt(&b, 2, "any", 3);
	nb_opt(&b, 9, &res, 1);
	nb_end(&b);							/* no opt_endofopt */
	off[4] = b.n;
	nb_epb(&b, 0, UINT64_C(7) << 32, data, 20, 20);
	off[5] = b.n;
	nb_epb(&b, 1, UINT64_C(1234567890123456789), data, 24, 24);
	spew(path_in(path, "hand.pcapng"), b.d, b.n);
	gzip_file(path, path_in(gz, "hand.pcapng.gz"));

	for (pass = 0; pass < 2; pass++) {
		r = open_ok(pass == 0 ? path : gz);
		assert_string_equal(tr_reader_format(r), pass == 0 ? "pcapng" : "pcapng (gzip)");
		assert_string_equal(tr_reader_comment(r), "first\nsecond\n");
		assert_int_equal(tr_reader_ifcount(r), 2);
		assert_string_equal(tr_reader_ifname(r, 0), "eth0");
		assert_string_equal(tr_reader_ifname(r, 1), "if1");
		assert_int_equal(tr_reader_linktype(r, 1), TR_LINKTYPE_RAW);

		next_ok(r, &p);
		assert_true(p.ts_ns == UINT64_C(1234567000));
		assert_int_equal(p.ifid, 0);
		assert_int_equal(p.offset, off[0]);
		assert_int_equal(p.caplen, 60);
		assert_memory_equal(p.data, data, 60);
		next_ok(r, &p);
		assert_true(p.ts_ns == 1005 * NS + 953);	/* 10^9 / 2^20 = 953.67 */
		assert_int_equal(p.ifid, 1);
		assert_int_equal(p.linktype, TR_LINKTYPE_RAW);
		assert_int_equal(p.offset, off[1]);
		next_ok(r, &p);					/* SPB */
		assert_true(p.ts_ns == 0);
		assert_int_equal(p.ifid, 0);
		assert_int_equal(p.caplen, 64);
		assert_int_equal(p.len, 100);
		assert_int_equal(p.offset, off[2]);
		assert_memory_equal(p.data, data, 64);
		next_ok(r, &p);					/* PB */
		assert_true(p.ts_ns == 1000 * NS + NS / 2);
		assert_int_equal(p.ifid, 1);
		assert_int_equal(p.caplen, 3);
		assert_int_equal(p.frame, 4);
		assert_int_equal(p.offset, off[3]);
		next_ok(r, &p);					/* section 2, if 0 */
		assert_true(p.ts_ns == UINT64_C(7) << 32);
		assert_int_equal(p.ifid, 2);
		assert_int_equal(p.linktype, TR_LINKTYPE_IPV4);
		assert_int_equal(p.offset, off[4]);
		assert_memory_equal(p.data, data, 20);
		next_ok(r, &p);					/* if 1: ps */
		assert_true(p.ts_ns == UINT64_C(1234567890123456));	/* ps, truncated */
		assert_int_equal(p.ifid, 3);
		assert_int_equal(p.linktype, TR_LINKTYPE_LINUX_SLL2);
		assert_int_equal(p.offset, off[5]);
		next_end(r);
		assert_int_equal(tr_reader_ifcount(r), 4);
		assert_string_equal(tr_reader_ifname(r, 2), "lo");
		assert_string_equal(tr_reader_ifname(r, 3), "any");
		assert_string_equal(tr_reader_comment(r), "first\nsecond\n");
		/* 1000.5 s after 1005 s, 30 s after that; the SPB does not count. */
		assert_int_equal(tr_reader_unordered(r), 2);
		tr_reader_close(r);
	}
}

/* Two comments, neither ending in a newline, are joined with one. */
static void
test_comment_join(void **state)
{
	char path[PATH_MAX];
	struct nb b = { 0 };
	struct tr_reader *r;

	(void)state;
	nb_shb(&b, "a = 1", "b = 2");
	spew(path_in(path, "join.pcapng"), b.d, b.n);
	r = open_ok(path);
	assert_string_equal(tr_reader_comment(r), "a = 1\nb = 2");
	next_end(r);
	tr_reader_close(r);
}

/* ---- many packets, across the read-ahead and gzip buffers ---- */

#define MANY 6000

static uint32_t
many_cap(size_t k)
{
	return (uint32_t)((k * 7919) % 1601);
}

static void
check_many(const char *path, bool ng, const char *format)
{
	struct tr_reader *r = open_ok(path);
	uint8_t data[2048];
	struct tr_packet p;
	uint64_t off = 24;
	size_t k;

	assert_string_equal(tr_reader_format(r), format);
	for (k = 0; k < MANY; k++) {
		next_ok(r, &p);
		assert_int_equal(p.caplen, many_cap(k));
		assert_int_equal(p.len, many_cap(k) + 10);
		assert_true(p.ts_ns == (uint64_t)k * 1000 + (ng ? 3 * NS : 0));
		assert_int_equal(p.ifid, ng ? k % 3 : 0);
		fill(data, k, p.caplen);
		if (p.caplen != 0)
			assert_memory_equal(p.data, data, p.caplen);
		if (!ng) {
			assert_int_equal(p.offset, off);
			off += 16 + p.caplen;
		}
	}
	next_end(r);
	assert_int_equal(tr_reader_unordered(r), 0);
	tr_reader_close(r);
}

static void
test_many(void **state)
{
	char path[PATH_MAX], gz[PATH_MAX];
	struct tr_pcapng_params prm = { .path = path, .comment = "many" };
	struct pcap_pkthdr h;
	struct tr_pcapng *w;
	pcap_dumper_t *d;
	uint8_t data[2048];
	pcap_t *pc;
	size_t k;

	(void)state;
	w = tr_pcapng_open((path_in(path, "many.pcapng"), &prm));
	assert_non_null(w);
	for (k = 0; k < 3; k++)
		assert_int_equal(tr_pcapng_add_if(w, IF_NAME[k], NULL), (int)k);
	for (k = 0; k < MANY; k++) {
		fill(data, k, many_cap(k));
		assert_int_equal(tr_pcapng_write(w, (uint32_t)(k % 3), 3 * NS + k * 1000, data,
						 many_cap(k), many_cap(k) + 10), 0);
	}
	assert_int_equal(tr_pcapng_close(w), 0);
	check_many(path, true, "pcapng");
	gzip_file(path, path_in(gz, "many.pcapng.gz"));
	check_many(gz, true, "pcapng (gzip)");

	pc = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 2000, PCAP_TSTAMP_PRECISION_NANO);
	assert_non_null(pc);
	d = pcap_dump_open(pc, path_in(path, "many.pcap"));
	assert_non_null(d);
	for (k = 0; k < MANY; k++) {
		memset(&h, 0, sizeof(h));
		h.ts.tv_usec = (suseconds_t)(k * 1000);
		h.caplen = many_cap(k);
		h.len = h.caplen + 10;
		fill(data, k, h.caplen);
		pcap_dump((u_char *)d, &h, data);
	}
	pcap_dump_close(d);
	pcap_close(pc);
	check_many(path, false, "pcap (ns)");
	gzip_file(path, path_in(gz, "many.pcap.gz"));
	check_many(gz, false, "pcap (ns) (gzip)");
}

/* ---- a broken gzip stream ---- */

/* Reading @p path stops with -EBADMSG and a gzip message after at most @p max packets. */
static void
expect_gzip_error(const char *path, uint64_t max)
{
	char err[512] = "";
	struct tr_reader *r = tr_reader_open(path, err, sizeof(err));
	struct tr_packet p;
	uint64_t n = 0;
	int rc;

	if (r == NULL) {
		assert_int_equal(errno, EBADMSG);
	} else {
		while ((rc = tr_reader_next(r, &p, err, sizeof(err))) == 1)
			n++;
		if (rc != -EBADMSG)
			fail_msg("%s: %d after %" PRIu64 " packets: %s", path, rc, n, err);
		assert_true(n <= max);
		tr_reader_close(r);
	}
	expect_substr(err, path);
	expect_substr(err, "gzip");
}

static void
test_bad_gzip(void **state)
{
	char path[PATH_MAX], gz[PATH_MAX];
	uint8_t *d;
	size_t n;

	(void)state;
	/* pcapng: cut in the middle, and only the 8-byte trailer (all data is in). */
	write_ref(path_in(path, "ref2.pcapng"), COMMENT);
	gzip_file(path, path_in(gz, "ref2.pcapng.gz"));
	d = tc_slurp(gz, &n);
	spew(path_in(gz, "half.pcapng.gz"), d, n / 2);
	expect_gzip_error(gz, N_PKTS - 1);
	spew(path_in(gz, "trailer.pcapng.gz"), d, n - 8);
	expect_gzip_error(gz, N_PKTS);
	d[n / 2] ^= 0x55;					/* corrupt */
	d[n / 2 + 1] ^= 0x55;
	spew(path_in(gz, "corrupt.pcapng.gz"), d, n);
	expect_gzip_error(gz, N_PKTS);
	free(d);

	/* pcap: the same. */
	{
		struct nb b = { 0 };
		uint8_t data[64];
		int k;

		pcap_hdr(&b, 0xA1B23C4D, 65535, 1);
		for (k = 0; k < 100; k++) {
			fill(data, (size_t)k, 64);
			pcap_rec(&b, (uint32_t)k, 0, data, 64, 64);
		}
		spew_gz(path_in(gz, "p.pcap.gz"), b.d, b.n);
		d = tc_slurp(gz, &n);
		spew(path_in(gz, "phalf.pcap.gz"), d, n / 2);
		expect_gzip_error(gz, 99);
		spew(path_in(gz, "ptrailer.pcap.gz"), d, n - 4);
		expect_gzip_error(gz, 100);
		free(d);
	}
}

static int
group_setup(void **state)
{
	(void)state;
	return tc_tmpdir(dir, sizeof(dir), "test_reader");
}

static int
group_teardown(void **state)
{
	(void)state;
	return tc_rmtree(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pcapng_writer),
		cmocka_unit_test(test_long_comment),
		cmocka_unit_test(test_pcap_hand),
		cmocka_unit_test(test_pcap_libpcap),
		cmocka_unit_test(test_pcapng_hand),
		cmocka_unit_test(test_comment_join),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_decode_ether),
		cmocka_unit_test(test_decode_other_links),
		cmocka_unit_test(test_decode_bad),
		cmocka_unit_test(test_bad_open),
		cmocka_unit_test(test_bad_pcap),
		cmocka_unit_test(test_bad_pcapng),
		cmocka_unit_test(test_bad_gzip),
		cmocka_unit_test(test_null_args),
	};

	return tc_group_result(cmocka_run_group_tests(tests, group_setup, group_teardown), dir);
}

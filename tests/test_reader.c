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
 * Everything happens in a mkdtemp() directory that the group teardown removes.
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

#define NS UINT64_C(1000000000)
#define SNAP 128u

static char dir[256];		/* the group's mkdtemp() directory */

static char *
path_in(char *buf, const char *name)
{
	snprintf(buf, PATH_MAX, "%s/%s", dir, name);
	return buf;
}

static void
fill(uint8_t *buf, size_t k, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = (uint8_t)(k * 37 + i * 11 + 1);
}

static void
spew(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

static uint8_t *
slurp(const char *path, size_t *size)
{
	struct stat st;
	uint8_t *buf;
	FILE *f;

	assert_int_equal(stat(path, &st), 0);
	buf = malloc((size_t)st.st_size + 1);
	assert_non_null(buf);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(buf, 1, (size_t)st.st_size, f), (size_t)st.st_size);
	fclose(f);
	*size = (size_t)st.st_size;
	return buf;
}

/* Gzip @p n bytes into @p path with zlib's gzopen(). */
static void
spew_gz(const char *path, const void *data, size_t n)
{
	gzFile gz = gzopen(path, "wb6");

	assert_non_null(gz);
	assert_int_equal(gzwrite(gz, data, (unsigned int)n), (int)n);
	assert_int_equal(gzclose(gz), Z_OK);
}

/* Gzip the file @p src into @p dst. */
static void
gzip_file(const char *src, const char *dst)
{
	size_t n;
	uint8_t *d = slurp(src, &n);

	spew_gz(dst, d, n);
	free(d);
}

static void
expect_substr(const char *msg, const char *want)
{
	if (strstr(msg, want) == NULL)
		fail_msg("message \"%s\" lacks \"%s\"", msg, want);
}

/* Opening @p path fails with @p eno and a message holding each of the NULL-ended strings. */
static void
expect_open_fails(const char *path, int eno, ...)
{
	char err[512] = "";
	const char *s;
	va_list ap;

	errno = 0;
	assert_null(tr_reader_open(path, err, sizeof(err)));
	if (errno != eno)
		fail_msg("errno %d, not %d (%s)", errno, eno, err);
	expect_substr(err, path);
	va_start(ap, eno);
	while ((s = va_arg(ap, const char *)) != NULL)
		expect_substr(err, s);
	va_end(ap);
}

/*
 * Reading @p path gives @p n_ok packets, then @p rc with a message holding each string; the
 * error is sticky.
 */
static void
expect_next_fails(const char *path, int n_ok, int rc, ...)
{
	char err[512] = "", err2[512] = "";
	struct tr_packet p;
	struct tr_reader *r;
	const char *s;
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
	expect_substr(err, path);
	va_start(ap, rc);
	while ((s = va_arg(ap, const char *)) != NULL)
		expect_substr(err, s);
	va_end(ap);
	assert_int_equal(tr_reader_next(r, &p, err2, sizeof(err2)), rc);
	assert_string_equal(err2, err);
	tr_reader_close(r);
}

/* ---- a byte builder for hand-made pcap and pcapng files ---- */

struct nb {
	uint8_t d[16384];
	size_t n;
	bool be;		/* write big-endian, else little-endian */
	size_t start;		/* the open block */
};

static void
nb_bytes(struct nb *b, const void *p, size_t n)
{
	assert_true(b->n + n <= sizeof(b->d));
	if (n != 0)
		memcpy(b->d + b->n, p, n);
	b->n += n;
}

static void
nb_uint(struct nb *b, uint64_t v, unsigned int size)
{
	unsigned int i;

	for (i = 0; i < size; i++) {
		unsigned int shift = b->be ? 8 * (size - 1 - i) : 8 * i;

		b->d[b->n + i] = (uint8_t)(v >> shift);
	}
	b->n += size;
}

static void
nb_pad(struct nb *b)
{
	while (b->n % 4 != 0)
		b->d[b->n++] = 0;
}

static void
nb_begin(struct nb *b, uint32_t type)
{
	b->start = b->n;
	nb_uint(b, type, 4);
	nb_uint(b, 0, 4);
}

/* Close the block: pad, patch the length, append the trailing copy; @return the length. */
static uint32_t
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

static void
nb_opt(struct nb *b, uint16_t code, const void *val, uint16_t len)
{
	nb_uint(b, code, 2);
	nb_uint(b, len, 2);
	nb_bytes(b, val, len);
	nb_pad(b);
}

/* An SHB with up to two comments (NULL: none). */
static void
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
static void
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

static void
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

static void
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

static void
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
static void
next_ok(struct tr_reader *r, struct tr_packet *p)
{
	char err[512] = "";
	int rc = tr_reader_next(r, p, err, sizeof(err));

	if (rc != 1)
		fail_msg("tr_reader_next: %d %s", rc, err);
}

static void
next_end(struct tr_reader *r)
{
	char err[512] = "";
	struct tr_packet p;
	int rc = tr_reader_next(r, &p, err, sizeof(err));

	if (rc != 0)
		fail_msg("expected the end, got %d %s", rc, err);
	assert_int_equal(tr_reader_next(r, &p, err, sizeof(err)), 0);
}

static struct tr_reader *
open_ok(const char *path)
{
	char err[512] = "";
	struct tr_reader *r = tr_reader_open(path, err, sizeof(err));

	if (r == NULL)
		fail_msg("open %s: %s", path, err);
	return r;
}

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
	raw = slurp(path, &n);
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

/* ---- tr_decode_ip() ---- */

static const uint8_t SRC4[4] = { 10, 0, 0, 1 }, DST4[4] = { 192, 168, 7, 2 };
static const uint8_t SRC6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t DST6[16] = { 0xfe, 0x80, [14] = 0xab, [15] = 0xcd };

static void
put16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

static void
put32(uint8_t *b, uint32_t v)
{
	put16(b, (uint16_t)(v >> 16));
	put16(b + 2, (uint16_t)v);
}

/* Ethernet header with EtherType @p et; @return its length. */
static size_t
mk_eth(uint8_t *b, uint16_t et)
{
	memset(b, 0xee, 12);
	put16(b + 12, et);
	return 14;
}

static size_t
mk_ipv4(uint8_t *b, uint8_t proto, uint16_t tot, unsigned int ihl_words, uint16_t frag)
{
	memset(b, 0, ihl_words * 4);
	b[0] = (uint8_t)(0x40 | ihl_words);
	put16(b + 2, tot);
	put16(b + 6, frag);
	b[8] = 64;
	b[9] = proto;
	memcpy(b + 12, SRC4, 4);
	memcpy(b + 16, DST4, 4);
	return ihl_words * 4;
}

static size_t
mk_ipv6(uint8_t *b, uint8_t nh, uint16_t plen)
{
	memset(b, 0, 40);
	b[0] = 0x60;
	put16(b + 4, plen);
	b[6] = nh;
	b[7] = 64;
	memcpy(b + 8, SRC6, 16);
	memcpy(b + 24, DST6, 16);
	return 40;
}

static size_t
mk_tcp(uint8_t *b, uint16_t sport, uint16_t dport, uint32_t seq, unsigned int doff_words)
{
	memset(b, 0, doff_words * 4);
	put16(b, sport);
	put16(b + 2, dport);
	put32(b + 4, seq);
	b[12] = (uint8_t)(doff_words << 4);
	b[13] = 0x18;
	return doff_words * 4;
}

static size_t
mk_udp(uint8_t *b, uint16_t sport, uint16_t dport, uint16_t len)
{
	memset(b, 0, 8);
	put16(b, sport);
	put16(b + 2, dport);
	put16(b + 4, len);
	return 8;
}

static void
expect_decode(int lt, const uint8_t *f, size_t n, int rc, struct tr_ip *ip)
{
	int got = tr_decode_ip(lt, f, (uint32_t)n, ip);

	if (got != rc)
		fail_msg("tr_decode_ip: %d, not %d (%s)", got, rc, ip->why ? ip->why : "");
	if (rc == 0)
		assert_null(ip->why);
	else
		assert_non_null(ip->why);
}

static void
test_decode_ether(void **state)
{
	uint8_t f[256];
	struct tr_ip ip;
	size_t n, h;

	(void)state;
	/* Ethernet / IPv4 with options / TCP with options, 100 bytes of payload. */
	n = mk_eth(f, 0x0800);
	n += mk_ipv4(f + n, IPPROTO_TCP, 24 + 32 + 100, 6, 0);
	n += mk_tcp(f + n, 40000, 443, 0xDEADBEEF, 8);
	h = n;
	fill(f + n, 9, 100);
	n += 100;
	expect_decode(TR_LINKTYPE_ETHERNET, f, n, 0, &ip);
	assert_int_equal(ip.family, 4);
	assert_memory_equal(ip.src, SRC4, 4);
	assert_memory_equal(ip.dst, DST4, 4);
	assert_int_equal(ip.src[4], 0);
	assert_int_equal(ip.proto, IPPROTO_TCP);
	assert_int_equal(ip.sport, 40000);
	assert_int_equal(ip.dport, 443);
	assert_int_equal(ip.tcp_seq, 0xDEADBEEF);
	assert_int_equal(ip.tcp_flags, 0x18);
	assert_int_equal(ip.ip_len, 156);
	assert_int_equal(ip.l4_payload, 100);
	assert_int_equal(ip.l4_caplen, 100);
	assert_ptr_equal(ip.l4_data, f + h);
	assert_int_equal(ip.fragment, 0);
	/* Snapped inside the payload, at its start, inside the TCP options. */
	expect_decode(TR_LINKTYPE_ETHERNET, f, h + 10, 0, &ip);
	assert_int_equal(ip.l4_payload, 100);
	assert_int_equal(ip.l4_caplen, 10);
	expect_decode(TR_LINKTYPE_ETHERNET, f, h, 0, &ip);
	assert_int_equal(ip.l4_payload, 100);
	assert_int_equal(ip.l4_caplen, 0);
	assert_null(ip.l4_data);
	expect_decode(TR_LINKTYPE_ETHERNET, f, h - 1, -EBADMSG, &ip);

	/* Ethernet / 802.1Q / IPv6 / Hop-by-Hop / UDP, 30 bytes. */
	n = mk_eth(f, 0x8100);
	put16(f + n, 0x0123);
	put16(f + n + 2, 0x86DD);
	n += 4;
	n += mk_ipv6(f + n, 0, 8 + 8 + 30);
	memset(f + n, 0, 8);
	f[n] = IPPROTO_UDP;
	n += 8;
	n += mk_udp(f + n, 5353, 53, 38);
	h = n;
	n += 30;
	expect_decode(TR_LINKTYPE_ETHERNET, f, n, 0, &ip);
	assert_int_equal(ip.family, 6);
	assert_memory_equal(ip.src, SRC6, 16);
	assert_memory_equal(ip.dst, DST6, 16);
	assert_int_equal(ip.proto, IPPROTO_UDP);
	assert_int_equal(ip.sport, 5353);
	assert_int_equal(ip.dport, 53);
	assert_int_equal(ip.ip_len, 40 + 46);
	assert_int_equal(ip.l4_payload, 30);
	assert_int_equal(ip.l4_caplen, 30);
	assert_ptr_equal(ip.l4_data, f + h);

	/* 802.1ad + 802.1Q / IPv4 / UDP of 4 bytes, padded to 60: the padding is not payload. */
	memset(f, 0, sizeof(f));
	n = mk_eth(f, 0x88A8);
	put16(f + n + 2, 0x8100);
	put16(f + n + 6, 0x0800);
	n += 8;
	n += mk_ipv4(f + n, IPPROTO_UDP, 20 + 8 + 4, 5, 0);
	n += mk_udp(f + n, 1, 2, 12);
	expect_decode(TR_LINKTYPE_ETHERNET, f, 64, 0, &ip);
	assert_int_equal(ip.family, 4);
	assert_int_equal(ip.ip_len, 32);
	assert_int_equal(ip.l4_payload, 4);
	assert_int_equal(ip.l4_caplen, 4);
	assert_ptr_equal(ip.l4_data, f + n);
}

static void
test_decode_other_links(void **state)
{
	uint8_t f[256];
	struct tr_ip ip;
	size_t n;

	(void)state;
	/* Linux SLL / IPv4 / UDP */
	memset(f, 0, 16);
	put16(f + 14, 0x0800);
	n = 16 + mk_ipv4(f + 16, IPPROTO_UDP, 20 + 8 + 10, 5, 0);
	n += mk_udp(f + n, 7, 9, 18) + 10;
	expect_decode(TR_LINKTYPE_LINUX_SLL, f, n, 0, &ip);
	assert_int_equal(ip.family, 4);
	assert_int_equal(ip.sport, 7);
	assert_int_equal(ip.dport, 9);
	assert_int_equal(ip.l4_payload, 10);
	assert_ptr_equal(ip.l4_data, f + 16 + 28);

	/* Linux SLL2 / IPv6 / TCP */
	memset(f, 0, 20);
	put16(f, 0x86DD);
	n = 20 + mk_ipv6(f + 20, IPPROTO_TCP, 20 + 5);
	n += mk_tcp(f + n, 80, 1234, 7, 5) + 5;
	expect_decode(TR_LINKTYPE_LINUX_SLL2, f, n, 0, &ip);
	assert_int_equal(ip.family, 6);
	assert_int_equal(ip.proto, IPPROTO_TCP);
	assert_int_equal(ip.sport, 80);
	assert_int_equal(ip.tcp_seq, 7);
	assert_int_equal(ip.l4_payload, 5);
	assert_int_equal(ip.ip_len, 65);

	/* Raw IPv4 (101 and 228), raw IPv6 (101 and 229). */
	n = mk_ipv4(f, IPPROTO_UDP, 20 + 8, 5, 0);
	n += mk_udp(f + n, 1000, 2000, 8);
	expect_decode(TR_LINKTYPE_RAW, f, n, 0, &ip);
	assert_int_equal(ip.family, 4);
	assert_int_equal(ip.dport, 2000);
	assert_int_equal(ip.l4_payload, 0);
	assert_null(ip.l4_data);
	expect_decode(TR_LINKTYPE_IPV4, f, n, 0, &ip);
	assert_int_equal(ip.family, 4);
	expect_decode(TR_LINKTYPE_IPV6, f, n, -EBADMSG, &ip);
	n = mk_ipv6(f, IPPROTO_UDP, 8 + 2);
	n += mk_udp(f + n, 3, 4, 10) + 2;
	expect_decode(TR_LINKTYPE_RAW, f, n, 0, &ip);
	assert_int_equal(ip.family, 6);
	assert_int_equal(ip.l4_payload, 2);
	expect_decode(TR_LINKTYPE_IPV6, f, n, 0, &ip);
	assert_int_equal(ip.family, 6);
	expect_decode(TR_LINKTYPE_IPV4, f, n, -EBADMSG, &ip);

	/* BSD NULL: AF_INET in either byte order, AF_INET6 as macOS writes it. */
	memcpy(f, (const uint8_t[4]){ 2, 0, 0, 0 }, 4);
	n = 4 + mk_ipv4(f + 4, IPPROTO_ICMP, 20 + 8, 5, 0) + 8;
	expect_decode(TR_LINKTYPE_NULL, f, n, 0, &ip);
	assert_int_equal(ip.family, 4);
	assert_int_equal(ip.proto, IPPROTO_ICMP);
	assert_int_equal(ip.sport, 0);
	assert_int_equal(ip.l4_payload, 0);
	memcpy(f, (const uint8_t[4]){ 0, 0, 0, 2 }, 4);
	expect_decode(TR_LINKTYPE_NULL, f, n, 0, &ip);
	assert_int_equal(ip.family, 4);
	memcpy(f, (const uint8_t[4]){ 30, 0, 0, 0 }, 4);
	n = 4 + mk_ipv6(f + 4, IPPROTO_TCP, 20);
	n += mk_tcp(f + n, 22, 2222, 1, 5);
	expect_decode(TR_LINKTYPE_NULL, f, n, 0, &ip);
	assert_int_equal(ip.family, 6);
	assert_int_equal(ip.dport, 2222);
	/* OpenBSD LOOP: network byte order, AF_INET6 24. */
	memcpy(f, (const uint8_t[4]){ 0, 0, 0, 24 }, 4);
	expect_decode(TR_LINKTYPE_LOOP, f, n, 0, &ip);
	assert_int_equal(ip.family, 6);

	/* A non-first IPv4 fragment: no ports, no payload; a first one has its ports. */
	n = mk_ipv4(f, IPPROTO_UDP, 20 + 8 + 100, 5, 100);
	n += mk_udp(f + n, 5, 6, 8 + 100);
	expect_decode(TR_LINKTYPE_RAW, f, n, 0, &ip);
	assert_int_equal(ip.fragment, 1);
	assert_int_equal(ip.proto, IPPROTO_UDP);
	assert_int_equal(ip.sport, 0);
	assert_int_equal(ip.l4_payload, 0);
	n = mk_ipv4(f, IPPROTO_UDP, 20 + 8 + 100, 5, 0x2000);
	n += mk_udp(f + n, 5, 6, 8 + 1000);
	expect_decode(TR_LINKTYPE_RAW, f, n, 0, &ip);
	assert_int_equal(ip.fragment, 0);
	assert_int_equal(ip.sport, 5);
	assert_int_equal(ip.l4_payload, 1000);
	assert_int_equal(ip.l4_caplen, 0);
}

static void
test_decode_bad(void **state)
{
	uint8_t f[256];
	struct tr_ip ip;
	size_t n, e;

	(void)state;
	memset(f, 0, sizeof(f));
	/* Truncated link headers. */
	mk_eth(f, 0x0800);
	expect_decode(TR_LINKTYPE_ETHERNET, f, 10, -EBADMSG, &ip);
	assert_int_equal(ip.family, 0);
	expect_decode(TR_LINKTYPE_ETHERNET, f, 14, -EBADMSG, &ip);
	expect_decode(TR_LINKTYPE_LINUX_SLL, f, 10, -EBADMSG, &ip);
	expect_decode(TR_LINKTYPE_LINUX_SLL2, f, 19, -EBADMSG, &ip);
	expect_decode(TR_LINKTYPE_NULL, f, 3, -EBADMSG, &ip);
	mk_eth(f, 0x8100);
	expect_decode(TR_LINKTYPE_ETHERNET, f, 16, -EBADMSG, &ip);
	/* Not IP: ARP, an unknown link type, a loopback AF_ of 7, too many VLAN tags. */
	mk_eth(f, 0x0806);
	expect_decode(TR_LINKTYPE_ETHERNET, f, 42, -ENOTSUP, &ip);
	assert_int_equal(ip.family, 0);
	expect_decode(147, f, 42, -ENOTSUP, &ip);
	assert_int_equal(ip.family, 0);
	memcpy(f, (const uint8_t[4]){ 7, 0, 0, 0 }, 4);
	expect_decode(TR_LINKTYPE_NULL, f, 42, -ENOTSUP, &ip);
	for (n = 12; n < 12 + 5 * 4; n += 4)
		put16(f + n, 0x8100);
	expect_decode(TR_LINKTYPE_ETHERNET, f, 64, -ENOTSUP, &ip);

	/* IPv4: header cut, header length below 20, total length below it, version 5. */
	e = mk_eth(f, 0x0800);
	n = e + mk_ipv4(f + e, IPPROTO_TCP, 40, 5, 0);
	n += mk_tcp(f + n, 1, 2, 3, 5);
	expect_decode(TR_LINKTYPE_ETHERNET, f, n, 0, &ip);
	expect_decode(TR_LINKTYPE_ETHERNET, f, e + 19, -EBADMSG, &ip);
	expect_decode(TR_LINKTYPE_ETHERNET, f, e + 30, -EBADMSG, &ip);	/* TCP cut */
	assert_int_equal(ip.family, 4);
	f[e] = 0x44;
	expect_decode(TR_LINKTYPE_ETHERNET, f, n, -EBADMSG, &ip);
	f[e] = 0x45;
	put16(f + e + 2, 19);
	expect_decode(TR_LINKTYPE_ETHERNET, f, n, -EBADMSG, &ip);
	put16(f + e + 2, 30);					/* TCP beyond the IP length */
	expect_decode(TR_LINKTYPE_ETHERNET, f, n, -EBADMSG, &ip);
	put16(f + e + 2, 40);
	f[e + 20 + 12] = 0x40;					/* data offset 16 */
	expect_decode(TR_LINKTYPE_ETHERNET, f, n, -EBADMSG, &ip);
	f[e + 20 + 12] = 0x50;
	f[e] = 0x55;
	expect_decode(TR_LINKTYPE_RAW, f + e, n - e, -EBADMSG, &ip);
	expect_decode(TR_LINKTYPE_ETHERNET, f, n, -EBADMSG, &ip);

	/* UDP: length below 8, beyond the IP length, header cut. */
	n = mk_ipv4(f, IPPROTO_UDP, 20 + 8 + 4, 5, 0);
	n += mk_udp(f + n, 1, 2, 4) + 4;
	expect_decode(TR_LINKTYPE_RAW, f, n, -EBADMSG, &ip);
	put16(f + 24, 13);
	expect_decode(TR_LINKTYPE_RAW, f, n, -EBADMSG, &ip);
	put16(f + 24, 12);
	expect_decode(TR_LINKTYPE_RAW, f, n, 0, &ip);
	expect_decode(TR_LINKTYPE_RAW, f, 27, -EBADMSG, &ip);

	/* IPv6: header cut, extension header cut or beyond the payload length. */
	n = mk_ipv6(f, 60, 16);
	memset(f + n, 0, 16);
	f[n] = 59;						/* no next header */
	f[n + 1] = 1;						/* 16 bytes */
	expect_decode(TR_LINKTYPE_RAW, f, n + 16, 0, &ip);
	assert_int_equal(ip.proto, 59);
	expect_decode(TR_LINKTYPE_RAW, f, 39, -EBADMSG, &ip);
	expect_decode(TR_LINKTYPE_RAW, f, n + 12, -EBADMSG, &ip);
	put16(f + 4, 8);
	expect_decode(TR_LINKTYPE_RAW, f, n + 16, -EBADMSG, &ip);

	/* Bad arguments. */
	assert_int_equal(tr_decode_ip(TR_LINKTYPE_RAW, f, 20, NULL), -EINVAL);
	expect_decode(TR_LINKTYPE_RAW, NULL, 20, -EINVAL, &ip);
	expect_decode(TR_LINKTYPE_RAW, NULL, 0, -EBADMSG, &ip);
}

/* ---- broken files ---- */

static void
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

static void
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

static void
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
	d = slurp(gz, &n);
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
		d = slurp(gz, &n);
		spew(path_in(gz, "phalf.pcap.gz"), d, n / 2);
		expect_gzip_error(gz, 99);
		spew(path_in(gz, "ptrailer.pcap.gz"), d, n - 4);
		expect_gzip_error(gz, 100);
		free(d);
	}
}

static void
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

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

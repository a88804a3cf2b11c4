/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pcapng writer (traces/pcapng.c), checked from the outside: a reference trace with three
 * interfaces (one added after packets were written) is read back with libpcap at nanosecond
 * precision, with tshark (interface names, ns times) when it is on PATH, and block by block by a
 * small parser here (SHB options, IDBs, lengths, padding); two writes compare byte for byte; and
 * every error path leaves the directory as it found it (test_pcapng_errors.c).  Everything happens
 * in a mkdtemp() directory that the group teardown removes.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <pcap/pcap.h>

#include "common.h"
#include "pcapng.h"
#include "test_pcapng.h"

#define NS UINT64_C(1000000000)
#define SNAP 128u

char dir[256];		/* the group's mkdtemp() directory */

/* One packet of the reference trace. */
struct pkt {
	uint32_t ifid;
	uint64_t ts;
	uint32_t caplen;
	uint32_t origlen;
};

static const char *const IF_NAME[] = { "w3.tx", "wan0>1.in", "mod0.rx" };
static const char *const IF_DESC[] = { "worker 3, transmit", NULL, "module 0, receive" };
#define N_IF 3
#define IF2_BEFORE 4	/* interface 2 is added just before packet 4 */

static const struct pkt PKTS[] = {
	{ 0, 0, 60, 60 },
	{ 1, 1, 61, 61 },				/* 1 ns; 3 bytes of padding */
	{ 0, 999999999, 62, 62 },			/* the last ns of a second */
	{ 1, (1ull << 32) + 7, 100, 1500 },		/* above 2^32 ns; snapped by the caller */
	{ 2, 1700000000123456789ull, SNAP, SNAP },	/* a wall-clock-like time; exactly SNAP */
	{ 2, 1700000000123456790ull, 200, 9000 },	/* clipped to SNAP by the writer */
	{ 0, 5000000001ull, 0, 64 },			/* nothing captured */
	{ 1, UINT64_MAX, 63, 63 },			/* every timestamp bit set */
};
#define N_PKTS (sizeof(PKTS) / sizeof(PKTS[0]))

const char APP[] = "syncemu 0.1.0 (test)";
static const char COMMENT[] = "seed = 42\n[scenario]\nname = two DCs, 4 workers\n"
			      "; UTF-8: \xc3\xbc\xe2\x82\xac, a tab:\t.\n";

void
fill(uint8_t *buf, size_t k, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = (uint8_t)(k * 37 + i * 11 + 1);
}

static uint32_t
want_cap(const struct pkt *p, uint32_t snap)
{
	return p->caplen < snap ? p->caplen : snap;
}

char *
path_in(char *buf, const char *name)
{
	snprintf(buf, PATH_MAX, "%s/%s", dir, name);
	return buf;
}

/* Entries in directory @d; how many of them are temporaries ("*.tmp.*") in @n_tmp. */
unsigned int
dir_entries(const char *d, unsigned int *n_tmp)
{
	unsigned int n = 0;
	struct dirent *e;
	DIR *dp = opendir(d);

	assert_non_null(dp);
	*n_tmp = 0;
	while ((e = readdir(dp)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		n++;
		if (strstr(e->d_name, ".tmp.") != NULL)
			(*n_tmp)++;
	}
	closedir(dp);
	return n;
}

void
spew(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* Write the reference trace to @path; the file appears only at close. */
static void
write_ref(const char *path)
{
	struct tr_pcapng_params prm = { .path = path, .app = APP, .comment = COMMENT,
					.snaplen = SNAP };
	uint64_t count[N_IF] = { 0 };
	struct tr_pcapng *w;
	uint8_t data[256];
	unsigned int n_tmp;
	size_t k;

	w = tr_pcapng_open(&prm);
	assert_non_null(w);
	assert_int_equal(tr_pcapng_add_if(w, IF_NAME[0], IF_DESC[0]), 0);
	assert_int_equal(tr_pcapng_add_if(w, IF_NAME[1], IF_DESC[1]), 1);
	for (k = 0; k < N_PKTS; k++) {
		if (k == IF2_BEFORE)
			assert_int_equal(tr_pcapng_add_if(w, IF_NAME[2], IF_DESC[2]), 2);
		fill(data, k, PKTS[k].caplen);
		assert_int_equal(tr_pcapng_write(w, PKTS[k].ifid, PKTS[k].ts, data,
						 PKTS[k].caplen, PKTS[k].origlen), 0);
		count[PKTS[k].ifid]++;
	}
	assert_int_equal(tr_pcapng_ifcount(w), N_IF);
	for (k = 0; k < N_IF; k++)
		assert_int_equal(tr_pcapng_count(w, (uint32_t)k), count[k]);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(tr_pcapng_close(w), 0);
	assert_int_equal(access(path, F_OK), 0);
	dir_entries(dir, &n_tmp);
	assert_int_equal(n_tmp, 0);
}

/* ---- a pcapng parser, strict about what the writer promises ---- */

#define MAX_IF 8
#define MAX_COMMENTS 64

struct trace {
	char app[TR_PCAPNG_OPT_MAX + 1];
	bool has_app;
	char *comment;			/* the opt_comment values, concatenated */
	size_t comment_len;
	unsigned int n_comments;	/* opt_comment options */
	unsigned int n_idb;
	char if_name[MAX_IF][64];
	char if_desc[MAX_IF][64];	/* "" if none */
	uint32_t snaplen[MAX_IF];
	uint16_t linktype[MAX_IF];
	int tsresol[MAX_IF];		/* -1 if none */
	unsigned int n_epb;
	uint64_t epb_ts[64];
};

uint32_t
rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint16_t
rd16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static void
copy_str(char *dst, size_t cap, const uint8_t *v, size_t len)
{
	assert_true(len < cap);
	memcpy(dst, v, len);
	dst[len] = '\0';
}

/* Options in [p, end): each padded with zeros, the last opt_endofopt ending exactly at end. */
static void
parse_opts(struct trace *t, uint32_t type, const uint8_t *p, const uint8_t *end)
{
	unsigned int i = t->n_idb;
	uint16_t code, len;
	size_t k;

	if (p == end)
		return;			/* a block may have no options at all */
	for (;;) {
		assert_true(p + 4 <= end);
		code = rd16(p);
		len = rd16(p + 2);
		assert_true(p + 4 + len + ((4 - (len & 3)) & 3) <= end);
		for (k = len; k % 4 != 0; k++)
			assert_int_equal(p[4 + k], 0);
		if (code == 0) {
			assert_int_equal(len, 0);
			assert_ptr_equal(p + 4, end);
			return;
		}
		if (type == 0x0A0D0D0A && code == 4) {
			copy_str(t->app, sizeof(t->app), p + 4, len);
			t->has_app = true;
		} else if (type == 0x0A0D0D0A && code == 1) {
			/* A chunk never starts inside a UTF-8 sequence. */
			assert_true(len > 0 && (p[4] & 0xC0) != 0x80);
			t->comment = realloc(t->comment, t->comment_len + len + 1);
			assert_non_null(t->comment);
			memcpy(t->comment + t->comment_len, p + 4, len);
			t->comment_len += len;
			t->comment[t->comment_len] = '\0';
			t->n_comments++;
		} else if (type == 1 && code == 2) {
			copy_str(t->if_name[i], sizeof(t->if_name[i]), p + 4, len);
		} else if (type == 1 && code == 3) {
			copy_str(t->if_desc[i], sizeof(t->if_desc[i]), p + 4, len);
		} else if (type == 1 && code == 9) {
			assert_int_equal(len, 1);
			t->tsresol[i] = p[4];
		} else {
			fail_msg("unexpected option %u in block type %#x", code, type);
		}
		p += 4 + len + ((4 - (len & 3)) & 3);
	}
}

static void
parse(const uint8_t *f, size_t size, struct trace *t)
{
	uint32_t type, len, caplen;
	const uint8_t *b;
	size_t off = 0;
	int64_t seclen;
	uint32_t k;

	memset(t, 0, sizeof(*t));
	while (off < size) {
		b = f + off;
		assert_true(size - off >= 12);
		type = rd32(b);
		len = rd32(b + 4);
		assert_true(len >= 12 && len % 4 == 0 && len <= size - off);
		assert_int_equal(rd32(b + len - 4), len);
		switch (type) {
		case 0x0A0D0D0A:
			assert_int_equal(off, 0);
			assert_int_equal(rd32(b + 8), 0x1A2B3C4D);
			assert_int_equal(rd16(b + 12), 1);
			assert_int_equal(rd16(b + 14), 0);
			memcpy(&seclen, b + 16, sizeof(seclen));
			assert_int_equal(seclen, -1);
			parse_opts(t, type, b + 24, b + len - 4);
			break;
		case 1:
			assert_true(t->n_idb < MAX_IF);
			t->linktype[t->n_idb] = rd16(b + 8);
			assert_int_equal(rd16(b + 10), 0);
			t->snaplen[t->n_idb] = rd32(b + 12);
			t->tsresol[t->n_idb] = -1;
			parse_opts(t, type, b + 16, b + len - 4);
			t->n_idb++;
			break;
		case 6:
			assert_true(off > 0);
			assert_true(rd32(b + 8) < t->n_idb);	/* its IDB came first */
			caplen = rd32(b + 20);
			assert_true(caplen <= t->snaplen[rd32(b + 8)]);
			assert_true(caplen <= rd32(b + 24));
			assert_int_equal(len, 32 + caplen + ((4 - (caplen & 3)) & 3));
			for (k = caplen; k % 4 != 0; k++)
				assert_int_equal(b[28 + k], 0);
			if (t->n_epb < 64)
				t->epb_ts[t->n_epb] = (uint64_t)rd32(b + 12) << 32 | rd32(b + 16);
			t->n_epb++;
			break;
		default:
			fail_msg("unexpected block type %#x at %zu", type, off);
		}
		off += len;
	}
	assert_int_equal(off, size);
}

static bool
on_path(const char *prog)
{
	const char *p = getenv("PATH");
	char buf[PATH_MAX];
	size_t n;

	while (p != NULL && *p != '\0') {
		n = strcspn(p, ":");
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, p, prog);
		if (n > 0 && access(buf, X_OK) == 0)
			return true;
		p += n + (p[n] == ':');
	}
	return false;
}

/* ---- tests ---- */

static void
test_libpcap_readback(void **state)
{
	char path[PATH_MAX], errbuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *d;
	uint8_t want[256];
	pcap_t *pc;
	size_t k;

	(void)state;
	write_ref(path_in(path, "ref.pcapng"));
	pc = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (pc == NULL)
		fail_msg("libpcap cannot read %s: %s", path, errbuf);
	assert_int_equal(pcap_datalink(pc), DLT_EN10MB);
	assert_int_equal(pcap_snapshot(pc), SNAP);
	for (k = 0; k < N_PKTS; k++) {
		assert_int_equal(pcap_next_ex(pc, &h, &d), 1);
		assert_int_equal(h->ts.tv_sec, PKTS[k].ts / NS);
		assert_int_equal(h->ts.tv_usec, PKTS[k].ts % NS);	/* ns at this precision */
		assert_int_equal(h->caplen, want_cap(&PKTS[k], SNAP));
		assert_int_equal(h->len, PKTS[k].origlen);
		fill(want, k, h->caplen);
		assert_memory_equal(d, want, h->caplen);
	}
	assert_int_equal(pcap_next_ex(pc, &h, &d), PCAP_ERROR_BREAK);
	pcap_close(pc);
}

static void
test_tshark_fields(void **state)
{
	char path[PATH_MAX], cmd[PATH_MAX + 256], line[512], want[512];
	const struct pkt *p;
	size_t k = 0;
	FILE *f;

	(void)state;
	if (!on_path("tshark"))
		skip();
	write_ref(path_in(path, "tshark.pcapng"));
	snprintf(cmd, sizeof(cmd), "tshark -n -r '%s' -T fields -e frame.interface_name "
		 "-e frame.time_epoch -e frame.len -e frame.cap_len 2>/dev/null", path);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		assert_true(k < N_PKTS);
		p = &PKTS[k];
		snprintf(want, sizeof(want), "%s\t%" PRIu64 ".%09" PRIu64 "\t%u\t%u\n",
			 IF_NAME[p->ifid], p->ts / NS, p->ts % NS, p->origlen, want_cap(p, SNAP));
		assert_string_equal(line, want);
		k++;
	}
	assert_int_equal(pclose(f), 0);
	assert_int_equal(k, N_PKTS);
}

static void
test_blocks(void **state)
{
	char path[PATH_MAX], cmd[PATH_MAX + 64], line[512];
	struct trace *t = malloc(sizeof(*t));
	bool seen_app = false, seen_seed = false;
	size_t size, k;
	uint8_t *f;
	FILE *p;

	(void)state;
	assert_non_null(t);
	write_ref(path_in(path, "blocks.pcapng"));
	f = tc_slurp(path, &size);
	parse(f, size, t);
	assert_true(t->has_app);
	assert_string_equal(t->app, APP);
	assert_int_equal(t->n_comments, 1);
	assert_string_equal(t->comment, COMMENT);
	assert_int_equal(t->n_idb, N_IF);
	for (k = 0; k < N_IF; k++) {
		assert_int_equal(t->linktype[k], 1);
		assert_int_equal(t->snaplen[k], SNAP);
		assert_int_equal(t->tsresol[k], 9);
		assert_string_equal(t->if_name[k], IF_NAME[k]);
		assert_string_equal(t->if_desc[k], IF_DESC[k] != NULL ? IF_DESC[k] : "");
	}
	assert_int_equal(t->n_epb, N_PKTS);
	for (k = 0; k < N_PKTS; k++)
		assert_int_equal(t->epb_ts[k], PKTS[k].ts);

	/* Wireshark's own reading of the SHB, if capinfos is here. */
	if (on_path("capinfos")) {
		snprintf(cmd, sizeof(cmd), "capinfos '%s' 2>/dev/null", path);
		p = popen(cmd, "r");
		assert_non_null(p);
		while (fgets(line, sizeof(line), p) != NULL) {
			seen_app |= strstr(line, "Capture application:") != NULL &&
				    strstr(line, APP) != NULL;
			seen_seed |= strstr(line, "seed = 42") != NULL;
		}
		assert_int_equal(pclose(p), 0);
		assert_true(seen_app);
		assert_true(seen_seed);
	}
	free(t->comment);
	free(t);
	free(f);
}

/* A comment longer than one option is split, losslessly, and libpcap still reads the file. */
static void
test_long_comment(void **state)
{
	char path[PATH_MAX], errbuf[PCAP_ERRBUF_SIZE];
	struct tr_pcapng_params prm = { 0 };
	size_t n = 0, cap = 400000, size, i;
	struct trace *t = malloc(sizeof(*t));
	struct pcap_pkthdr *h;
	struct tr_pcapng *w;
	char *c = malloc(cap);
	uint8_t *f;
	const u_char *d;
	pcap_t *pc;

	(void)state;
	assert_non_null(t);
	assert_non_null(c);
	for (i = 0; n < 150000; i++)	/* short lines: split after a newline */
		n += (size_t)sprintf(c + n, "key_%06zu = value %zu\n", i, i * 7);
	while (n < 380000) {		/* no newline: split between UTF-8 sequences */
		memcpy(c + n, "\xc3\xbc\xe2\x82\xac\xf0\x9f\x98\x80", 9);
		n += 9;
	}
	c[n] = '\0';
	prm.path = path_in(path, "long.pcapng");
	prm.comment = c;
	w = tr_pcapng_open(&prm);
	assert_non_null(w);
	assert_int_equal(tr_pcapng_add_if(w, "a", NULL), 0);
	assert_int_equal(tr_pcapng_write(w, 0, 42, "abcd", 4, 4), 0);
	assert_int_equal(tr_pcapng_close(w), 0);

	f = tc_slurp(path, &size);
	parse(f, size, t);
	assert_false(t->has_app);
	assert_true(t->n_comments >= 6);
	assert_int_equal(t->comment_len, n);
	assert_string_equal(t->comment, c);
	assert_int_equal(t->snaplen[0], TR_PCAPNG_SNAPLEN_MAX);
	assert_string_equal(t->if_desc[0], "");
	pc = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (pc == NULL)
		fail_msg("libpcap cannot read %s: %s", path, errbuf);
	assert_int_equal(pcap_next_ex(pc, &h, &d), 1);
	assert_int_equal(h->ts.tv_usec, 42);
	pcap_close(pc);

	/* Past what libpcap accepts in an SHB: refused before any file exists. */
	c = realloc(c, TR_PCAPNG_SHB_MAX + 2);
	assert_non_null(c);
	memset(c, 'x', TR_PCAPNG_SHB_MAX + 1);
	c[TR_PCAPNG_SHB_MAX + 1] = '\0';
	prm.path = path_in(path, "toolong.pcapng");
	prm.comment = c;
	errno = 0;
	assert_null(tr_pcapng_open(&prm));
	assert_int_equal(errno, EINVAL);
	assert_int_equal(access(path, F_OK), -1);
	free(t->comment);
	free(t);
	free(f);
	free(c);
}

/* No options, the default snap length, and a frame longer than it. */
static void
test_minimal(void **state)
{
	char path[PATH_MAX], errbuf[PCAP_ERRBUF_SIZE];
	struct tr_pcapng_params prm = { .path = path_in(path, "min.pcapng") };
	struct trace *t = malloc(sizeof(*t));
	uint8_t *big = malloc(300000), *f;
	struct pcap_pkthdr *h;
	struct tr_pcapng *w;
	const u_char *d;
	size_t size;
	pcap_t *pc;

	(void)state;
	assert_non_null(t);
	assert_non_null(big);
	fill(big, 5, 300000);
	w = tr_pcapng_open(&prm);
	assert_non_null(w);
	assert_int_equal(tr_pcapng_add_if(w, "big", NULL), 0);
	assert_int_equal(tr_pcapng_write(w, 0, 3 * NS + 5, big, 300000, 300000), 0);
	assert_int_equal(tr_pcapng_close(w), 0);
	f = tc_slurp(path, &size);
	parse(f, size, t);
	assert_false(t->has_app);
	assert_int_equal(t->n_comments, 0);
	assert_int_equal(rd32(f + 4), 28);	/* an SHB without options */
	pc = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (pc == NULL)
		fail_msg("libpcap cannot read %s: %s", path, errbuf);
	assert_int_equal(pcap_next_ex(pc, &h, &d), 1);
	assert_int_equal(h->ts.tv_sec, 3);
	assert_int_equal(h->ts.tv_usec, 5);
	assert_int_equal(h->caplen, TR_PCAPNG_SNAPLEN_MAX);
	assert_int_equal(h->len, 300000);
	assert_memory_equal(d, big, TR_PCAPNG_SNAPLEN_MAX);
	pcap_close(pc);
	free(t);
	free(f);
	free(big);
}

static void
test_deterministic(void **state)
{
	char a[PATH_MAX], b[PATH_MAX];
	uint8_t *fa, *fb;
	size_t na, nb;

	(void)state;
	write_ref(path_in(a, "det1.pcapng"));
	write_ref(path_in(b, "det2.pcapng"));
	fa = tc_slurp(a, &na);
	fb = tc_slurp(b, &nb);
	assert_true(na > 0);
	assert_int_equal(na, nb);
	assert_memory_equal(fa, fb, na);
	free(fa);
	free(fb);
}

static int
group_setup(void **state)
{
	(void)state;
	return tc_tmpdir(dir, sizeof(dir), "test_pcapng");
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
		cmocka_unit_test(test_libpcap_readback),
		cmocka_unit_test(test_tshark_fields),
		cmocka_unit_test(test_blocks),
		cmocka_unit_test(test_long_comment),
		cmocka_unit_test(test_minimal),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_abort_leaves_nothing),
		cmocka_unit_test(test_abort_keeps_existing),
		cmocka_unit_test(test_close_replaces),
		cmocka_unit_test(test_failed_close_keeps_existing),
		cmocka_unit_test(test_stream),
	};

	return tc_group_result(cmocka_run_group_tests(tests, group_setup, group_teardown), dir);
}

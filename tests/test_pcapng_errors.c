/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pcapng writer's error paths (test_pcapng.c runs them): each leaves the directory as it
 * found it; abort, close and a failed close keep or replace the file as promised; a trace
 * streams to a pipe.
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


void
test_errors(void **state)
{
	char path[PATH_MAX], errbuf[PCAP_ERRBUF_SIZE], *longname = malloc(TR_PCAPNG_OPT_MAX + 2);
	struct tr_pcapng_params prm = { .path = path_in(path, "err.pcapng") };
	struct pcap_pkthdr *h;
	struct tr_pcapng *w;
	const u_char *d;
	pcap_t *pc;

	(void)state;
	assert_non_null(longname);
	memset(longname, 'n', TR_PCAPNG_OPT_MAX + 1);
	longname[TR_PCAPNG_OPT_MAX + 1] = '\0';

	/* Bad parameters. */
	errno = 0;
	assert_null(tr_pcapng_open(NULL));
	assert_int_equal(errno, EINVAL);
	prm.path = NULL;
	errno = 0;
	assert_null(tr_pcapng_open(&prm));
	assert_int_equal(errno, EINVAL);
	prm.path = "";
	errno = 0;
	assert_null(tr_pcapng_open(&prm));
	assert_int_equal(errno, EINVAL);
	prm.path = path;
	prm.snaplen = TR_PCAPNG_SNAPLEN_MAX + 1;
	errno = 0;
	assert_null(tr_pcapng_open(&prm));
	assert_int_equal(errno, EINVAL);
	prm.snaplen = 0;
	prm.app = longname;
	errno = 0;
	assert_null(tr_pcapng_open(&prm));
	assert_int_equal(errno, EINVAL);
	prm.app = NULL;
	assert_int_equal(access(path, F_OK), -1);

	/* A missing directory. */
	prm.path = path_in(path, "no/such/dir/x.pcapng");
	errno = 0;
	assert_null(tr_pcapng_open(&prm));
	assert_int_equal(errno, ENOENT);

	/* Bad calls are refused, and leave the writer usable. */
	prm.path = path_in(path, "err.pcapng");
	w = tr_pcapng_open(&prm);
	assert_non_null(w);
	assert_int_equal(tr_pcapng_add_if(NULL, "x", NULL), -EINVAL);
	assert_int_equal(tr_pcapng_add_if(w, NULL, NULL), -EINVAL);
	assert_int_equal(tr_pcapng_add_if(w, "", NULL), -EINVAL);
	assert_int_equal(tr_pcapng_add_if(w, longname, NULL), -EINVAL);
	assert_int_equal(tr_pcapng_add_if(w, "x", longname), -EINVAL);
	assert_int_equal(tr_pcapng_write(w, 0, 1, "abcd", 4, 4), -EINVAL);	/* no interface */
	assert_int_equal(tr_pcapng_add_if(w, "x", NULL), 0);
	assert_int_equal(tr_pcapng_add_if(w, "x", "again"), -EEXIST);
	assert_int_equal(tr_pcapng_write(NULL, 0, 1, "abcd", 4, 4), -EINVAL);
	assert_int_equal(tr_pcapng_write(w, 1, 1, "abcd", 4, 4), -EINVAL);
	assert_int_equal(tr_pcapng_write(w, UINT32_MAX, 1, "abcd", 4, 4), -EINVAL);
	assert_int_equal(tr_pcapng_write(w, 0, 1, "abcd", 4, 3), -EINVAL);	/* caplen>origlen */
	assert_int_equal(tr_pcapng_write(w, 0, 1, NULL, 4, 4), -EINVAL);
	assert_int_equal(tr_pcapng_count(w, 0), 0);
	assert_int_equal(tr_pcapng_write(w, 0, 7, "abcd", 4, 4), 0);
	assert_int_equal(tr_pcapng_write(w, 0, 8, NULL, 0, 60), 0);
	assert_int_equal(tr_pcapng_count(w, 0), 2);
	assert_int_equal(tr_pcapng_count(w, 1), 0);
	assert_int_equal(tr_pcapng_count(w, UINT32_MAX), 0);
	assert_int_equal(tr_pcapng_ifcount(w), 1);
	assert_int_equal(tr_pcapng_close(w), 0);

	/* Only the two good packets are in the file. */
	pc = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (pc == NULL)
		fail_msg("libpcap cannot read %s: %s", path, errbuf);
	assert_int_equal(pcap_next_ex(pc, &h, &d), 1);
	assert_int_equal(h->ts.tv_usec, 7);
	assert_int_equal(pcap_next_ex(pc, &h, &d), 1);
	assert_int_equal(h->ts.tv_usec, 8);
	assert_int_equal(h->caplen, 0);
	assert_int_equal(h->len, 60);
	assert_int_equal(pcap_next_ex(pc, &h, &d), PCAP_ERROR_BREAK);
	pcap_close(pc);

	/* NULL handles. */
	assert_int_equal(tr_pcapng_close(NULL), 0);
	tr_pcapng_abort(NULL);
	assert_int_equal(tr_pcapng_count(NULL, 0), 0);
	assert_int_equal(tr_pcapng_ifcount(NULL), 0);
	free(longname);
}

/* Write enough to flush to disk (over the 1 MiB buffer), so the temporary is not empty. */
static void
write_many(struct tr_pcapng *w, uint32_t ifid, unsigned int n)
{
	uint8_t data[1000];
	unsigned int i;

	fill(data, 9, sizeof(data));
	for (i = 0; i < n; i++)
		assert_int_equal(tr_pcapng_write(w, ifid, i, data, sizeof(data), sizeof(data)), 0);
}

void
test_abort_leaves_nothing(void **state)
{
	char sub[PATH_MAX], path[PATH_MAX];
	struct tr_pcapng_params prm = { .path = path, .comment = "aborted" };
	struct tr_pcapng *w;
	unsigned int n_tmp;

	(void)state;
	assert_int_equal(mkdir(path_in(sub, "abort"), 0755), 0);
	path_in(path, "abort/x.pcapng");
	w = tr_pcapng_open(&prm);
	assert_non_null(w);
	assert_int_equal(tr_pcapng_add_if(w, "w0.tx", NULL), 0);
	write_many(w, 0, 2000);
	assert_int_equal(dir_entries(sub, &n_tmp), 0);	/* an anonymous temporary (O_TMPFILE) */
	tr_pcapng_abort(w);
	assert_int_equal(dir_entries(sub, &n_tmp), 0);

	/* the same where the file system has no O_TMPFILE: a named temporary, then nothing */
	assert_int_equal(setenv("SYNCEMU_OUTFILE_NAMED", "1", 1), 0);
	w = tr_pcapng_open(&prm);
	assert_non_null(w);
	assert_int_equal(tr_pcapng_add_if(w, "w0.tx", NULL), 0);
	write_many(w, 0, 2000);
	assert_int_equal(dir_entries(sub, &n_tmp), 1);	/* only the temporary, so far */
	assert_int_equal(n_tmp, 1);
	tr_pcapng_abort(w);
	assert_int_equal(unsetenv("SYNCEMU_OUTFILE_NAMED"), 0);
	assert_int_equal(dir_entries(sub, &n_tmp), 0);
	assert_int_equal(rmdir(sub), 0);
}

void
test_abort_keeps_existing(void **state)
{
	char sub[PATH_MAX], path[PATH_MAX];
	struct tr_pcapng_params prm = { .path = path };
	struct tr_pcapng *w;
	unsigned int n_tmp;
	uint8_t *f;
	size_t size;

	(void)state;
	assert_int_equal(mkdir(path_in(sub, "keep"), 0755), 0);
	path_in(path, "keep/x.pcapng");
	spew(path, "the previous trace\n");
	w = tr_pcapng_open(&prm);
	assert_non_null(w);
	assert_int_equal(tr_pcapng_add_if(w, "w0.tx", NULL), 0);
	write_many(w, 0, 2000);
	tr_pcapng_abort(w);
	f = tc_slurp(path, &size);
	assert_int_equal(size, strlen("the previous trace\n"));
	assert_memory_equal(f, "the previous trace\n", size);
	free(f);
	assert_int_equal(dir_entries(sub, &n_tmp), 1);
	assert_int_equal(n_tmp, 0);
}

/* A successful close replaces an existing file, which keeps its mode. */
void
test_close_replaces(void **state)
{
	char sub[PATH_MAX], path[PATH_MAX];
	struct tr_pcapng_params prm = { .path = path };
	struct tr_pcapng *w;
	unsigned int n_tmp;
	struct stat st;
	uint8_t *f;
	size_t size;

	(void)state;
	assert_int_equal(mkdir(path_in(sub, "replace"), 0755), 0);
	path_in(path, "replace/x.pcapng");
	spew(path, "the previous trace\n");
	assert_int_equal(chmod(path, 0640), 0);
	w = tr_pcapng_open(&prm);
	assert_non_null(w);
	assert_int_equal(tr_pcapng_add_if(w, "w0.tx", NULL), 0);
	write_many(w, 0, 2000);
	assert_int_equal(tr_pcapng_close(w), 0);
	f = tc_slurp(path, &size);
	assert_int_equal(rd32(f), 0x0A0D0D0A);
	assert_int_equal(size, 28 + 44 + 2000 * (32 + 1000));	/* SHB, IDB, EPBs */
	free(f);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640);
	assert_int_equal(dir_entries(sub, &n_tmp), 1);
	assert_int_equal(n_tmp, 0);
}

/*
 * A write error (here EFBIG from a small RLIMIT_FSIZE) is sticky, close reports it, and the file
 * that was at the path survives.
 */
void
test_failed_close_keeps_existing(void **state)
{
	char sub[PATH_MAX], path[PATH_MAX];
	struct tr_pcapng_params prm = { .path = path };
	struct rlimit old, lim;
	struct tr_pcapng *w;
	void (*old_sig)(int);
	int rc = 0, rc_again, rc_if;
	unsigned int i, n_tmp;
	uint8_t data[1000];
	uint8_t *f;
	size_t size;

	(void)state;
	assert_int_equal(mkdir(path_in(sub, "efbig"), 0755), 0);
	path_in(path, "efbig/x.pcapng");
	spew(path, "the previous trace\n");
	fill(data, 3, sizeof(data));
	w = tr_pcapng_open(&prm);
	assert_non_null(w);
	assert_int_equal(tr_pcapng_add_if(w, "w0.tx", NULL), 0);

	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 64 * 1024;
	old_sig = signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	for (i = 0; i < 4000 && rc == 0; i++)
		rc = tr_pcapng_write(w, 0, i, data, sizeof(data), sizeof(data));
	rc_again = tr_pcapng_write(w, 0, i, data, sizeof(data), sizeof(data));
	rc_if = tr_pcapng_add_if(w, "w1.tx", NULL);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, old_sig);

	assert_int_equal(rc, -EFBIG);
	assert_true(i > 1000 && i < 4000);		/* at the first flush of the 1 MiB buffer */
	assert_int_equal(rc_again, -EFBIG);
	assert_int_equal(rc_if, -EFBIG);
	assert_int_equal(tr_pcapng_close(w), -EFBIG);
	f = tc_slurp(path, &size);
	assert_int_equal(size, strlen("the previous trace\n"));
	assert_memory_equal(f, "the previous trace\n", size);
	free(f);
	assert_int_equal(dir_entries(sub, &n_tmp), 1);
	assert_int_equal(n_tmp, 0);
}

/* Bytes a non-blocking read of @p fd gives now (all of them, up to @p cap). */
static size_t
drain(int fd, uint8_t *buf, size_t cap)
{
	size_t got = 0;
	ssize_t n;

	while (got < cap && (n = read(fd, buf + got, cap - got)) > 0)
		got += (size_t)n;
	return got;
}

/*
 * To a FIFO the trace is a stream: the header is there before any packet, each
 * tr_pcapng_flush() sends what was written (whole blocks), more than 64 KiB go out without one,
 * the whole reads back with libpcap, and a reader that goes away is -EPIPE, not SIGPIPE.
 */
void
test_stream(void **state)
{
	char path[PATH_MAX], whole[PATH_MAX], errbuf[PCAP_ERRBUF_SIZE];
	struct tr_pcapng_params prm = { .path = path, .app = APP };
	static uint8_t got[4 << 20];
	struct pcap_pkthdr *h;
	const u_char *d;
	uint8_t data[1000];
	struct tr_pcapng *w;
	size_t n = 0, k;
	unsigned int i;
	pcap_t *pc;
	FILE *f;
	int rd, rc = 0;

	(void)state;
	fill(data, 5, sizeof(data));
	assert_int_equal(mkfifo(path_in(path, "live.fifo"), 0600), 0);
	rd = open(path, O_RDONLY | O_NONBLOCK);
	assert_true(rd >= 0);
	/* room for all of it (pipe-max-size is 1 MiB by default): the test reads afterwards */
	assert_true(fcntl(rd, F_SETPIPE_SZ, 1 << 20) >= 1 << 20);
	w = tr_pcapng_open(&prm);
	assert_non_null(w);
	assert_true(tr_pcapng_streams(w));
	assert_int_equal(tr_pcapng_add_if(w, "w0.tx", NULL), 0);
	assert_int_equal(drain(rd, got, sizeof(got)), 0);		/* buffered */
	assert_int_equal(tr_pcapng_flush(w), 0);
	n = drain(rd, got, sizeof(got));
	assert_true(n > 28);
	assert_int_equal(rd32(got), 0x0A0D0D0A);			/* the SHB, then the IDB */
	assert_int_equal(tr_pcapng_write(w, 0, 1, data, 100, 100), 0);
	assert_int_equal(tr_pcapng_flush(w), 0);
	k = drain(rd, got + n, sizeof(got) - n);
	assert_int_equal(k, 32 + 100);					/* one whole EPB */
	n += k;
	for (i = 0; i < 100; i++)					/* 100 kB, no flush */
		assert_int_equal(tr_pcapng_write(w, 0, 2 + i, data, sizeof(data),
						 sizeof(data)), 0);
	k = drain(rd, got + n, sizeof(got) - n);
	assert_true(k >= 64 * 1024 && k % (32 + 1000) == 0);
	n += k;
	assert_int_equal(tr_pcapng_close(w), 0);
	n += drain(rd, got + n, sizeof(got) - n);
	/* the SHB, the IDB and every EPB, once each */
	assert_int_equal(n, rd32(got + 4) + rd32(got + rd32(got + 4) + 4) + (32 + 100) +
			 100 * (32 + 1000));
	f = fopen(path_in(whole, "live.pcapng"), "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(got, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
	pc = pcap_open_offline_with_tstamp_precision(whole, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (pc == NULL)
		fail_msg("libpcap cannot read the stream: %s", errbuf);
	for (i = 0; pcap_next_ex(pc, &h, &d) == 1; i++)
		assert_int_equal(h->ts.tv_usec, 1 + i);
	assert_int_equal(i, 101);
	pcap_close(pc);

	/* the reader goes away */
	w = tr_pcapng_open(&prm);
	assert_non_null(w);
	assert_int_equal(tr_pcapng_add_if(w, "w0.tx", NULL), 0);
	assert_int_equal(tr_pcapng_flush(w), 0);
	close(rd);
	for (i = 0; i < 200 && rc == 0; i++)
		rc = tr_pcapng_write(w, 0, i, data, sizeof(data), sizeof(data));
	assert_int_equal(rc, -EPIPE);
	assert_int_equal(tr_pcapng_flush(w), -EPIPE);
	assert_int_equal(tr_pcapng_close(w), -EPIPE);
}

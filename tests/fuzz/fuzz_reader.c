/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for the trace reader (traces/reader.h): the input is a whole trace file.
 * It goes into a memfd, which tr_reader_open() opens as /proc/self/fd/N (so the real path,
 * read() and gzip code run); every packet is read, its bytes summed (so that AddressSanitizer
 * checks all of @c data), decoded with tr_decode_ip() and, for RoCE v2, tr_decode_bth(), and
 * checked against the reader's own accessors.  Then the same file is read as a real job's
 * byte streams (traces/streams.h: TCP sequence numbers, PSNs, the split into steps found from
 * the streams and into a given count, with a background filter) and the steps checked against
 * the streams; as syncemu's frames (traces/syncs.h: runs and steps, with and without the limits
 * of a trace's header) and as bursts (the automatic gap, a period); and as an application's
 * step times (traces/appsteps.h).  A broken invariant traps; errors are expected and only their
 * message is checked.
 *
 * Built and run by tests/fuzz/run.sh (clang -fsanitize=fuzzer,address,undefined).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "appsteps.h"
#include "reader.h"
#include "streams.h"
#include "syncs.h"

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Read every packet of an open trace; @return the result of the last tr_reader_next(). */
static int
read_all(struct tr_reader *r)
{
	volatile uint8_t sink = 0;
	struct tr_packet p;
	char err[512];
	uint64_t frame = 0, unordered = 0;
	struct tr_ip ip;
	uint32_t i;
	int rc;

	while ((rc = tr_reader_next(r, &p, err, sizeof(err))) == 1) {
		CHECK(p.frame == ++frame);
		CHECK(p.ifid < tr_reader_ifcount(r));
		CHECK(p.linktype == tr_reader_linktype(r, p.ifid));
		CHECK(tr_reader_ifname(r, p.ifid) != NULL);
		CHECK(p.caplen <= TR_READER_BLOCK_MAX);
		CHECK(p.caplen == 0 || p.data != NULL);
		for (i = 0; i < p.caplen; i++)
			sink ^= p.data[i];
		rc = tr_decode_ip(p.linktype, p.data, p.caplen, &ip);
		CHECK(rc == 0 || rc == -ENOTSUP || rc == -EBADMSG);
		CHECK((rc == 0) == (ip.why == NULL));
		if (rc == 0 && ip.proto == 17 && ip.dport == TR_ROCE_PORT) {
			struct tr_bth b;
			int brc = tr_decode_bth(&ip, &b);

			CHECK(brc == 0 || brc == -ENOTSUP || brc == -EBADMSG);
			if (brc == 0)
				CHECK(b.payload <= ip.l4_payload && b.psn < (1u << 24) &&
				      b.dest_qp < (1u << 24));
		}
		if (rc == -ENOTSUP)
			CHECK(ip.family == 0);
		if (rc == 0) {
			CHECK(ip.family == 4 || ip.family == 6);
			CHECK(ip.l4_caplen <= ip.l4_payload);
			CHECK((ip.l4_data == NULL) == (ip.l4_caplen == 0));
			if (ip.l4_data != NULL) {
				CHECK(ip.l4_data >= p.data &&
				      ip.l4_data + ip.l4_caplen <= p.data + p.caplen);
				sink ^= ip.l4_data[ip.l4_caplen - 1];
			}
		}
		CHECK(tr_reader_unordered(r) >= unordered);
		unordered = tr_reader_unordered(r);
	}
	if (rc < 0) {
		CHECK(rc == -EBADMSG || rc == -EFBIG || rc == -ENOTSUP || rc == -ERANGE ||
		      rc == -ENOMEM || rc == -EIO);
		CHECK(strstr(err, "/proc/self/fd/") == err);
		CHECK(tr_reader_next(r, &p, NULL, 0) == rc);		/* sticky */
	} else {
		CHECK(tr_reader_next(r, &p, NULL, 0) == 0);
	}
	(void)sink;
	return rc;
}

/* The file as a job's streams: the steps found from them, and @p steps given. */
static void
read_streams(const char *path, uint32_t steps, const char *background)
{
	struct tr_stream_params p = { .steps = steps, .background = background };
	struct tr_streams s;
	char err[512];
	uint32_t i, k;
	int rc = tr_streams_read(path, &p, &s, err, sizeof(err));

	if (rc != 0) {
		CHECK(rc == -EBADMSG || rc == -EFBIG || rc == -ENOTSUP || rc == -ERANGE ||
		      rc == -ENOMEM || rc == -EIO || rc == -E2BIG || rc == -EINVAL);
		CHECK(err[0] != '\0');
		return;
	}
	CHECK(s.nmajor <= s.ndirs && s.selected <= s.packets);
	CHECK(steps == 0 || s.nmajor == 0 || s.nsteps == steps);
	for (i = 0; i < s.ndirs; i++) {
		const struct tr_dir *d = &s.dir[i];

		CHECK(d->major == (i < s.nmajor));
		CHECK(i == 0 || d->bytes <= s.dir[i - 1].bytes);
		CHECK(d->retrans_bytes <= d->payload);
		if (!d->major || s.nsteps == 0)
			continue;
		CHECK(d->cut[s.nsteps] <= d->bytes);
		for (k = 0; k < s.nsteps; k++) {
			const struct tr_dir_step *x = &d->step[k];

			CHECK(d->cut[k] < d->cut[k + 1]);
			/* every byte between two cuts is some packet's: the capture missed none
			 * in the stream's count, so the step has them all */
			CHECK(x->bytes == d->cut[k + 1] - d->cut[k]);
			CHECK(x->first_ns == UINT64_MAX || x->first_ns <= x->last_ns);
		}
	}
	for (k = 0; k < s.nsteps; k++) {
		const struct tr_step_span *x = &s.step[k];

		CHECK(x->start_ns <= x->end_ns);
		CHECK(x->overlap_ns <= x->some_ns && x->some_ns <= x->end_ns - x->start_ns);
		CHECK(x->longest_idle_ns <= x->end_ns - x->start_ns);
	}
	CHECK(s.by != TR_SPLIT_PERIOD ||
	      ((s.confidence >= 0.5 || (s.confidence >= 0.3 &&
				      s.confidence >= 3 * s.runner_up_confidence)) &&
	       s.confidence <= 1));
	tr_streams_free(&s);
}

/* The file as syncemu's frames: runs in id order, steps in step order, within @p lim. */
static void
read_syncs(const char *path, const struct tr_syncs_limits *lim)
{
	struct tr_reader *r;
	struct tr_syncs s;
	char err[512];
	uint32_t i, k;

	r = tr_reader_open(path, err, sizeof(err));
	if (r == NULL)
		return;
	if (tr_syncs_read(r, lim, &s, err, sizeof(err)) != 0) {
		CHECK(err[0] != '\0');
		tr_reader_close(r);
		return;
	}
	CHECK(s.se_frames + s.other == s.frames);
	for (i = 0; i < s.nruns; i++) {
		const struct tr_run *run = &s.run[i];

		CHECK(i == 0 || run->run_id > s.run[i - 1].run_id);
		for (k = 0; k < run->nsteps; k++) {
			CHECK(k == 0 || run->step[k].step > run->step[k - 1].step);
			CHECK(lim == NULL || run->step[k].step < lim->steps);
			CHECK(run->step[k].rounds <= run->step[k].round_cap);
		}
	}
	tr_syncs_free(&s);
	tr_reader_close(r);
}

/* The file cut into bursts: in time order, every packet selected in one. */
static void
read_bursts(const char *path, double gap_s, double period_s)
{
	struct tr_burst_params bp = { .gap_s = gap_s, .period_s = period_s };
	struct tr_bursts b;
	uint64_t packets = 0;
	char err[512];
	uint32_t i;

	if (tr_bursts_read(path, &bp, &b, err, sizeof(err)) != 0) {
		CHECK(err[0] != '\0');
		return;
	}
	for (i = 0; i < b.n; i++) {
		CHECK(b.b[i].start_ns <= b.b[i].end_ns);
		CHECK(i == 0 || b.b[i].start_ns >= b.b[i - 1].end_ns);
		CHECK(b.b[i].flows <= b.b[i].packets && b.b[i].flows <= b.nflows);
		packets += b.b[i].packets;
	}
	CHECK(packets == b.selected && b.late <= b.unordered);
	for (i = 1; i < b.nflows; i++)
		CHECK(b.flow[i].bytes <= b.flow[i - 1].bytes);
	tr_bursts_free(&b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], err[512];
	struct tr_reader *r;
	const char *c;
	uint32_t i, n;
	int fd;

	fd = memfd_create("fuzz-trace", MFD_CLOEXEC);
	if (fd < 0 || fz_write_all(fd, data, size) != 0) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	r = tr_reader_open(path, err, sizeof(err));
	if (r == NULL) {
		CHECK(errno != 0);
		CHECK(strstr(err, path) == err);
	} else {
		c = tr_reader_comment(r);
		CHECK(c != NULL && strlen(c) <= TR_READER_COMMENT_MAX);
		CHECK(strncmp(tr_reader_format(r), "pcap", 4) == 0);
		read_all(r);
		n = tr_reader_ifcount(r);
		for (i = 0; i < n; i++)
			CHECK(tr_reader_ifname(r, i) != NULL && tr_reader_linktype(r, i) >= 0);
		CHECK(tr_reader_ifname(r, n) == NULL);
		tr_reader_close(r);
		read_streams(path, 0, NULL);
		read_streams(path, 3, "tcp port 5201 or udp port 7000");
		{
			static const struct tr_run_limit runs[] = { { 1, 8 }, { 2, 0 } };
			static const struct tr_syncs_limits lim = { 3, 8, 2, runs };

			read_syncs(path, NULL);
			read_syncs(path, &lim);
		}
		read_bursts(path, 0, 0);
		read_bursts(path, 0, 1e-3);
	}
	{
		struct tr_appsteps a;

		if (tr_appsteps_read(path, NULL, -1000, &a, err, sizeof(err)) == 0) {
			CHECK(a.n > 0);
			for (i = 0; i < a.n; i++)
				CHECK(a.s[i].start_ns <= a.s[i].end_ns &&
				      (i == 0 || a.s[i].step > a.s[i - 1].step));
			tr_appsteps_free(&a);
		} else {
			CHECK(strstr(err, path) == err || strcmp(err, "out of memory") == 0);
		}
	}
	close(fd);
	return 0;
}

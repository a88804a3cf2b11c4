/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Steps from the application's byte streams (traces/streams.h) on captures written here with
 * libpcap at nanosecond precision, whose every packet time is known: a job of two hosts sending
 * each other K steps of V bytes, in 1000-byte TCP segments 10 us apart, 5 ms of compute between
 * steps; then the same with retransmissions, reordering, a sequence number that wraps, a
 * segment the capture missed, three connections per direction, a snap length that cuts every
 * payload, a handshake before the first step, a pause inside each step, background traffic,
 * RoCE v2 and plain UDP.  Each step's first and last packet must be found to the nanosecond.
 * Also the BTH decoder, the collectives' bytes and the application's CSV.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <pcap/pcap.h>

#include "common.h"
#include "appsteps.h"
#include "reader.h"
#include "streams.h"

#define MSS 1000u
#define SEG_NS 10000u		/* between a direction's segments */
#define OTHER_NS 5000u		/* B > A sends 5 us after A > B */
#define GAP_NS 5000000u		/* compute between steps */
#define T0 1700000000000000000ULL

static const uint8_t host_a[4] = { 10, 0, 0, 1 }, host_b[4] = { 10, 0, 0, 2 };

/* ---- a capture being written ---- */

struct cap {
	pcap_t *p;
	pcap_dumper_t *d;
	char path[64];
	uint64_t last_ts;
};

static void
cap_open(struct cap *c)
{
	int fd;

	snprintf(c->path, sizeof(c->path), "/tmp/test_streams_XXXXXX");
	fd = mkstemp(c->path);
	assert_true(fd >= 0);
	close(fd);
	c->p = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535, PCAP_TSTAMP_PRECISION_NANO);
	assert_non_null(c->p);
	c->d = pcap_dump_open(c->p, c->path);
	assert_non_null(c->d);
	c->last_ts = 0;
}

static void
cap_close(struct cap *c)
{
	pcap_dump_close(c->d);
	pcap_close(c->p);
}

/* Ethernet + IPv4 (+ @p l4) of @p l4len bytes from @p src to @p dst, @p caplen captured. */
static void
cap_ip(struct cap *c, uint64_t ts, const uint8_t *src, const uint8_t *dst, uint8_t proto,
       const uint8_t *l4, uint32_t l4hdr, uint32_t l4len, uint32_t snap)
{
	static uint8_t f[65536];
	struct pcap_pkthdr h;
	uint32_t len = 14 + 20 + l4len;

	memset(f, 0, 14 + 20 + l4hdr);
	f[12] = 0x08;				/* IPv4 */
	f[14] = 0x45;
	tc_put16(f + 16, 20 + l4len);
	f[22] = 64;
	f[23] = proto;
	memcpy(f + 26, src, 4);
	memcpy(f + 30, dst, 4);
	memcpy(f + 34, l4, l4hdr);
	if (len > sizeof(f))
		len = sizeof(f);
	memset(f + 34 + l4hdr, 0x5a, len - 34 - l4hdr);
	h.ts.tv_sec = (time_t)(ts / 1000000000ULL);
	h.ts.tv_usec = (suseconds_t)(ts % 1000000000ULL);
	h.len = len;
	h.caplen = snap != 0 && snap < len ? snap : len;
	pcap_dump((u_char *)c->d, &h, f);
	c->last_ts = ts;
}

static void
cap_tcp(struct cap *c, uint64_t ts, int dir, uint16_t sport, uint16_t dport, uint32_t seq,
	uint8_t flags, uint32_t len, uint32_t snap)
{
	uint8_t t[20] = { 0 };

	tc_put16(t, sport);
	tc_put16(t + 2, dport);
	tc_put32(t + 4, seq);
	t[12] = 5 << 4;
	t[13] = flags;
	cap_ip(c, ts, dir ? host_b : host_a, dir ? host_a : host_b, 6, t, 20, 20 + len, snap);
}

/* ---- a job ---- */

struct job {
	uint32_t steps, vol;		/* steps, bytes per direction per step */
	uint32_t conns;			/* connections per direction (round robin) */
	uint32_t isn;			/* first sequence number */
	uint32_t snap;			/* 0: whole frames */
	int retrans_at, reorder_at, drop_at;	/* segment numbers (A > B, step 1), -1: none */
	bool prelude;			/* a 50-byte handshake each way, 10 ms before step 0 */
	uint64_t pause_ns;		/* a pause in the middle of each step */
	bool background;		/* a flow A > B to port 5201 during the steps */
	/* what the capture holds, to check against */
	uint64_t start[64], end[64];
};

/* Write the job; its steps' true first and last packet times in j->start/end. */
static void
write_job(struct cap *c, struct job *j)
{
	uint32_t nseg = j->vol / MSS, k, i, d;
	uint32_t seq[2][4], bg_seq = 123456;
	uint64_t t = T0 + 20000000;

	for (d = 0; d < 2; d++)
		for (i = 0; i < 4; i++)
			seq[d][i] = j->isn + 1000000 * i + 77777 * d;
	if (j->prelude) {
		cap_tcp(c, T0, 0, 40000, 50000, seq[0][0], 0x18, 50, j->snap);
		cap_tcp(c, T0 + 30000, 1, 50000, 40000, seq[1][0], 0x18, 50, j->snap);
		seq[0][0] += 50;
		seq[1][0] += 50;
		t = T0 + 10030000;
	}
	for (k = 0; k < j->steps; k++) {
		j->start[k] = t;
		for (i = 0; i < nseg; i++) {
			uint64_t ts = t + (uint64_t)i * SEG_NS;

			if (j->pause_ns && i == nseg / 2)
				t += j->pause_ns;
			ts = t + (uint64_t)i * SEG_NS;
			for (d = 0; d < 2; d++) {
				uint32_t cn = i % j->conns;
				uint16_t sp = (uint16_t)(40000 + cn), dp = (uint16_t)(50000 + cn);
				uint64_t at = ts + d * OTHER_NS;
				bool a1 = d == 0 && k == 1, ro = a1 && j->reorder_at >= 0;

				if (a1 && (int)i == j->drop_at) {
					seq[d][cn] += MSS;	/* sent, not captured */
					continue;
				}
				/* reordered: segment i + 1 comes first, then i */
				uint32_t sq = seq[d][cn] + (ro && (int)i == j->reorder_at ? MSS : 0) -
					      (ro && (int)i == j->reorder_at + 1 ? MSS : 0);

				cap_tcp(c, at, d, d ? dp : sp, d ? sp : dp, sq, 0x10, MSS, j->snap);
				if (a1 && (int)i == j->retrans_at)
					cap_tcp(c, at + 2000, d, sp, dp, seq[d][cn], 0x10, MSS,
						j->snap);
				if (d == 0 && j->background && i % 4 == 0) {
					cap_tcp(c, at + 3000, 0, 33333, 5201, bg_seq, 0x10, 500,
						j->snap);
					bg_seq += 500;
				}
				seq[d][cn] += MSS;
			}
		}
		j->end[k] = t + (uint64_t)(nseg - 1) * SEG_NS + OTHER_NS;
		t = j->end[k] + GAP_NS;
	}
}

static void
read_job(const struct job *j, const struct tr_stream_params *p, struct tr_streams *s)
{
	struct cap c;
	char err[512];
	int rc;

	cap_open(&c);
	write_job(&c, (struct job *)j);
	cap_close(&c);
	rc = tr_streams_read(c.path, p, s, err, sizeof(err));
	if (getenv("KEEP") == NULL)
		unlink(c.path);
	else
		fprintf(stderr, "kept %s\n", c.path);
	if (rc != 0)
		fail_msg("tr_streams_read: %d %s", rc, err);
}

/* Every step's span as written; both directions of the job; @p bytes per direction. */
static void
check_steps(const struct job *j, const struct tr_streams *s)
{
	uint32_t k, d;

	assert_int_equal(s->nsteps, j->steps);
	assert_int_equal(s->nmajor, 2);
	for (k = 0; k < j->steps; k++) {
		if (s->step[k].start_ns != j->start[k] || s->step[k].end_ns != j->end[k])
			fail_msg("step %u: %" PRIu64 "..%" PRIu64 ", written %" PRIu64 "..%" PRIu64,
				 k, s->step[k].start_ns, s->step[k].end_ns, j->start[k], j->end[k]);
		for (d = 0; d < 2; d++)
			assert_int_equal(s->dir[d].step[k].bytes, j->vol);
	}
}

static struct job
job_default(void)
{
	struct job j;

	memset(&j, 0, sizeof(j));
	j.steps = 8;
	j.vol = 100000;
	j.conns = 1;
	j.isn = 1000;
	j.retrans_at = j.reorder_at = j.drop_at = -1;
	return j;
}

static void
test_given_steps(void **state)
{
	struct job j = job_default();
	struct tr_stream_params p = { .steps = 8 };
	struct tr_streams s;

	(void)state;
	read_job(&j, &p, &s);
	assert_int_equal(s.by, TR_SPLIT_STEPS);
	check_steps(&j, &s);
	assert_int_equal(s.dir[0].bytes, 800000);
	assert_int_equal(s.dir[0].snapped, 7);	/* every interior cut at the compute gap */
	/* both directions carried data all the time but the first and last 5 us of each step */
	assert_int_equal(s.overlap_ns, s.span_ns - 8 * 10000);
	tr_streams_free(&s);
}

static void
test_found_from_the_stream(void **state)
{
	struct job j = job_default();
	struct tr_stream_params p = { 0 };
	struct tr_streams s;

	(void)state;
	read_job(&j, &p, &s);
	assert_int_equal(s.by, TR_SPLIT_PERIOD);
	assert_true(s.confidence > 0.9);
	check_steps(&j, &s);
	tr_streams_free(&s);
}

static void
test_collective(void **state)
{
	struct job j = job_default();
	struct tr_stream_params p = { .coll = TR_COLL_ALLREDUCE, .ranks = 2, .coll_bytes = 100000 };
	struct tr_streams s;

	(void)state;
	read_job(&j, &p, &s);
	assert_int_equal(s.by, TR_SPLIT_COLLECTIVE);
	assert_true(fabs(s.steps_exact - 8) < 1e-9);
	check_steps(&j, &s);
	tr_streams_free(&s);
	/* a buffer ten times too large: less than one step */
	{
		struct cap c;
		char err[512];

		p.coll_bytes = 1e7;
		cap_open(&c);
		write_job(&c, &j);
		cap_close(&c);
		assert_int_equal(tr_streams_read(c.path, &p, &s, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "of a step of the allreduce"));
		p.coll_bytes = 1e5;
		p.ranks = 3;		/* not the same number on both hosts */
		assert_int_equal(tr_streams_read(c.path, &p, &s, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "--ranks 3 over the 2 hosts"));
		unlink(c.path);
	}
}

static void
test_retransmission(void **state)
{
	struct job j = job_default();
	struct tr_stream_params p = { .steps = 8 };
	struct tr_streams s;

	(void)state;
	j.retrans_at = 40;
	read_job(&j, &p, &s);
	check_steps(&j, &s);
	assert_int_equal(s.dir[0].bytes, 800000);
	assert_int_equal(s.dir[0].retrans_bytes + s.dir[1].retrans_bytes, MSS);
	tr_streams_free(&s);
}

static void
test_reordering(void **state)
{
	struct job j = job_default();
	struct tr_stream_params p = { .steps = 8 };
	struct tr_streams s;
	uint32_t d;

	(void)state;
	j.reorder_at = 40;
	read_job(&j, &p, &s);
	check_steps(&j, &s);
	for (d = 0; d < 2; d++) {
		assert_int_equal(s.dir[d].retrans_bytes, 0);
		assert_int_equal(s.dir[d].missing_bytes, 0);
	}
	assert_int_equal(s.dir[0].reordered + s.dir[1].reordered, 1);
	tr_streams_free(&s);
}

static void
test_missing_segment(void **state)
{
	struct job j = job_default();
	struct tr_stream_params p = { .steps = 8 };
	struct tr_streams s;

	(void)state;
	j.drop_at = 40;
	read_job(&j, &p, &s);
	check_steps(&j, &s);		/* the stream moved on over it: its bytes were sent */
	assert_int_equal(s.dir[0].missing_bytes + s.dir[1].missing_bytes, MSS);
	assert_int_equal(s.dir[0].holes + s.dir[1].holes, 1);
	tr_streams_free(&s);
}

static void
test_sequence_wrap(void **state)
{
	struct job j = job_default();
	struct tr_stream_params p = { .steps = 8 };
	struct tr_streams s;

	(void)state;
	j.isn = UINT32_MAX - 350000;	/* wraps inside step 3 */
	read_job(&j, &p, &s);
	check_steps(&j, &s);
	assert_int_equal(s.dir[0].bytes, 800000);
	assert_int_equal(s.dir[0].retrans_bytes, 0);
	tr_streams_free(&s);
}

static void
test_several_connections(void **state)
{
	struct job j = job_default();
	struct tr_stream_params p = { .steps = 8 };
	struct tr_streams s;

	(void)state;
	j.conns = 3;
	read_job(&j, &p, &s);
	check_steps(&j, &s);
	assert_int_equal(s.dir[0].flows, 3);
	assert_int_equal(s.dir[1].flows, 3);
	assert_int_equal(s.ndirs, 2);
	tr_streams_free(&s);
}

static void
test_snap_length(void **state)
{
	struct job j = job_default();
	struct tr_stream_params p = { 0 };
	struct tr_streams s;

	(void)state;
	j.snap = 54;			/* headers only: the payload length is the IP header's */
	read_job(&j, &p, &s);
	check_steps(&j, &s);
	assert_int_equal(s.dir[0].cut_payload, s.dir[0].data_packets);
	tr_streams_free(&s);
}

static void
test_prelude(void **state)
{
	struct job j = job_default();
	struct tr_stream_params p = { .steps = 8 };
	struct tr_streams s;

	(void)state;
	j.prelude = true;
	read_job(&j, &p, &s);
	check_steps(&j, &s);		/* step 0 starts after the handshake */
	assert_int_equal(s.dir[0].before, 50);
	assert_int_equal(s.dir[0].after, 0);
	tr_streams_free(&s);
	p.steps = 0;			/* and found from the stream */
	read_job(&j, &p, &s);
	assert_int_equal(s.by, TR_SPLIT_PERIOD);
	check_steps(&j, &s);
	tr_streams_free(&s);
}

static void
test_pause_inside_a_step(void **state)
{
	struct job j = job_default();
	struct tr_stream_params p = { 0 };
	struct tr_streams s;

	(void)state;
	/* a pause of 2 ms in the middle of each step, the compute between steps 5 ms: the steps'
	 * pattern repeats every step, not every half step */
	j.pause_ns = 2000000;
	read_job(&j, &p, &s);
	assert_int_equal(s.by, TR_SPLIT_PERIOD);
	check_steps(&j, &s);
	assert_true(s.step[0].longest_idle_ns >= 1900000);
	assert_int_equal(s.step[0].stalls, 1);
	tr_streams_free(&s);
}

static void
test_background(void **state)
{
	struct job j = job_default();
	struct tr_stream_params p = { .steps = 8, .background = "tcp port 5201" };
	struct tr_streams s;
	uint32_t k;

	(void)state;
	j.background = true;
	read_job(&j, &p, &s);
	check_steps(&j, &s);
	assert_int_equal(s.dir[0].flows, 1);
	for (k = 0; k < 8; k++) {
		const struct tr_dir_step *a = &s.dir[0].step[k];

		/* 25 background frames of 554 B in the step, beside 100 of 1054 B */
		assert_int_equal(a->bg_bytes, 25 * 500);
		assert_int_equal(a->bg_wire, 25 * 554);
		assert_int_equal(a->span_wire, 100 * 1054);
		assert_int_equal(s.dir[1].step[k].bg_wire, 0);
	}
	tr_streams_free(&s);
	/* without --background the flow is the job's: between the same hosts, in A > B's stream */
	p.background = NULL;
	read_job(&j, &p, &s);
	assert_int_equal(s.nmajor, 2);
	assert_int_equal(s.dir[0].bytes, 8 * (100000 + 25 * 500));
	assert_int_equal(s.dir[0].flows, 2);
	tr_streams_free(&s);
}

/* RoCE v2: RC SEND MIDDLE packets of 1024 B with PSNs that wrap at 2^24, one retransmitted;
 * and plain UDP datagrams. */
static void
cap_roce(struct cap *c, uint64_t ts, int dir, uint32_t psn, uint8_t opcode, uint32_t len)
{
	uint8_t u[8 + 12] = { 0 };

	tc_put16(u, 49152);
	tc_put16(u + 2, TR_ROCE_PORT);
	tc_put16(u + 4, 8 + 12 + len + 4);
	u[8] = opcode;
	u[8 + 5] = 0;
	u[8 + 6] = 0x12;
	u[8 + 7] = 0x34;			/* QP 0x1234 */
	u[8 + 9] = (uint8_t)(psn >> 16);
	u[8 + 10] = (uint8_t)(psn >> 8);
	u[8 + 11] = (uint8_t)psn;
	cap_ip(c, ts, dir ? host_b : host_a, dir ? host_a : host_b, 17, u, sizeof(u),
	       8 + 12 + len + 4, 0);
}

static void
test_roce_and_udp(void **state)
{
	struct tr_stream_params p = { .steps = 4 };
	struct tr_streams s;
	struct cap c;
	char err[512];
	uint64_t t = T0;
	uint32_t k, i, psn = 0xffffff - 100;

	(void)state;
	cap_open(&c);
	for (k = 0; k < 4; k++) {
		for (i = 0; i < 100; i++, t += SEG_NS) {
			cap_roce(&c, t, 0, psn & 0xffffff, 0x01, 1024);
			if (k == 2 && i == 50)
				cap_roce(&c, t + 1000, 0, psn & 0xffffff, 0x01, 1024);
			cap_roce(&c, t + 2000, 1, psn & 0xffffff, 0x11, 4);	/* its ACK: AETH */
			psn++;
			{
				uint8_t u[8] = { 0 };

				tc_put16(u, 7000);
				tc_put16(u + 2, 7001);
				tc_put16(u + 4, 8 + 1024);
				cap_ip(&c, t + 5000, host_b, host_a, 17, u, 8, 8 + 1024, 0);
			}
		}
		t += GAP_NS;
	}
	cap_close(&c);
	assert_int_equal(tr_streams_read(c.path, &p, &s, err, sizeof(err)), 0);
	unlink(c.path);
	assert_int_equal(s.nmajor, 2);
	for (i = 0; i < 2; i++) {
		assert_int_equal(s.dir[i].bytes, 4 * 100 * 1024);
		for (k = 0; k < 4; k++)
			assert_int_equal(s.dir[i].step[k].bytes, 100 * 1024);
	}
	/* A > B is the RoCE one, B > A UDP and the ACKs (RoCE without message bytes); the
	 * retransmitted PSN counted once */
	i = memcmp(s.dir[0].src, host_a, 4) == 0 ? 0 : 1;
	assert_int_equal(s.dir[i].roce, 1);
	assert_int_equal(s.dir[i].udp, 0);
	assert_int_equal(s.dir[1 - i].roce, 1);
	assert_int_equal(s.dir[1 - i].udp, 1);
	assert_int_equal(s.dir[0].retrans_bytes + s.dir[1].retrans_bytes, 1024);
	assert_int_equal(s.step[0].start_ns, T0);
	assert_int_equal(s.step[3].end_ns, T0 + 3 * (100ULL * SEG_NS + GAP_NS) + 99 * SEG_NS +
			 5000);
	tr_streams_free(&s);
}

/* A shaper that lets frames out in clumps: 10 frames of 1054 B at one time every 100 us, which
 * at 105.4 MB/s is the link's time they take.  Given the rate, the link was never idle inside a
 * step; without, it was idle 100 us after every clump. */
/*
 * A flow's sequence that moves further than a sender could is a new stream, not loss: TCP
 * jumps of 1.5 GB (beyond the largest window) and of 100 MB in 10 us (faster than any link),
 * beside a segment the capture really missed; RoCE with random PSNs.
 */
static void
test_sequence_jumps(void **state)
{
	struct tr_stream_params p = { .steps = 0 };
	struct tr_streams s;
	struct cap c;
	char err[512];
	uint64_t t = T0, lcg = 1;
	uint32_t i, seq = 1000, holes = 0, jumps = 0;

	(void)state;
	cap_open(&c);
	for (i = 0; i < 300; i++, t += SEG_NS) {
		if (i == 100)
			seq += 1500000000u;
		if (i == 200)
			seq += 100000000u;
		if (i == 250)
			seq += MSS;			/* a segment the capture missed */
		cap_tcp(&c, t, 0, 40000, 41000, seq, 0x10, MSS, 0);
		seq += MSS;
	}
	cap_close(&c);
	assert_int_equal(tr_streams_read(c.path, &p, &s, err, sizeof(err)), 0);
	unlink(c.path);
	assert_int_equal(s.ndirs, 1);
	assert_int_equal(s.dir[0].bytes, 301 * MSS);
	assert_int_equal(s.dir[0].missing_bytes, MSS);
	assert_int_equal(s.dir[0].holes, 1);
	assert_int_equal(s.dir[0].jumps, 2);
	assert_int_equal(s.dir[0].retrans_bytes, 0);
	tr_streams_free(&s);

	/* random PSNs 10 us apart: most jumps; those that are not leave few packets missing */
	cap_open(&c);
	for (i = 0, t = T0; i < 2000; i++, t += SEG_NS) {
		lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
		cap_roce(&c, t, 0, (uint32_t)(lcg >> 40) & 0xffffff, 0x01, 1024);
	}
	cap_close(&c);
	assert_int_equal(tr_streams_read(c.path, &p, &s, err, sizeof(err)), 0);
	unlink(c.path);
	holes = (uint32_t)s.dir[0].holes;
	jumps = (uint32_t)s.dir[0].jumps;
	/* half go back (retransmissions); of the rest, a jump of d PSNs is loss only if d <=
	 * 11 us x 2e11 B/s / 84 B = 26190: with probability 26190 / 2^23, a few times in 1000 */
	assert_true(jumps > 900 && jumps < 1100);
	assert_true(holes < 10 * 26190);
	tr_streams_free(&s);
}

static void
test_clumps(void **state)
{
	struct tr_stream_params p = { .steps = 4, .rate_Bps = 105.4e6 };
	struct tr_streams s;
	struct cap c;
	char err[512];
	uint64_t t = T0;
	uint32_t k, i, seq = 1;

	(void)state;
	cap_open(&c);
	for (k = 0; k < 4; k++) {
		for (i = 0; i < 100; i++) {
			cap_tcp(&c, t + i / 10 * 100000, 0, 40000, 50000, seq, 0x10, MSS, 0);
			seq += MSS;
		}
		t += 10 * 100000 + GAP_NS;
	}
	cap_close(&c);
	assert_int_equal(tr_streams_read(c.path, &p, &s, err, sizeof(err)), 0);
	assert_int_equal(s.nsteps, 4);
	for (k = 0; k < 4; k++) {
		assert_int_equal(s.dir[0].step[k].idle_ns, 0);
		assert_int_equal(s.step[k].some_ns, s.step[k].end_ns - s.step[k].start_ns);
	}
	assert_int_equal(s.dir[0].snapped, 3);
	tr_streams_free(&s);
	p.rate_Bps = 0;
	assert_int_equal(tr_streams_read(c.path, &p, &s, err, sizeof(err)), 0);
	unlink(c.path);
	for (k = 0; k < 4; k++)
		assert_int_equal(s.dir[0].step[k].idle_ns, 9 * 100000);
	tr_streams_free(&s);
}

/* Direction @p d's next @p len bytes at @p ts, TCP flags @p flags (A's port 40000, B's 50000). */
static void
turn_seg(struct cap *c, uint64_t ts, uint32_t d, uint32_t *seq, uint8_t flags, uint32_t len)
{
	cap_tcp(c, ts, (int)d, d ? 50000 : 40000, d ? 40000 : 50000, seq[d], flags, len, 0);
	seq[d] += len;
}

/* Direction @p d's @p nseg segments from @p t, the other's 64-byte ready 100 us in. */
static void
turn(struct cap *c, uint64_t t, uint32_t d, uint32_t nseg, uint32_t *seq)
{
	uint32_t i;

	for (i = 0; i < nseg; i++) {
		turn_seg(c, t + (uint64_t)i * SEG_NS, d, seq, 0x10, MSS);
		if (i == 10)
			turn_seg(c, t + 100000 + 500, !d, seq, 0x18, 64);
	}
}

/*
 * Two ranks taking turns as Open MPI's 2-rank all-reduce does through a shaper (a capture of
 * it on this machine's veth pair): each step A sends its V bytes, then B its V; each receiver
 * sends a 64-byte ready 100 us after the sender's first segment (a rendezvous reply), so each
 * direction has two idle gaps 64 bytes apart near every step end, the reduction's (700 us, the
 * longer) and the compute's (550 us, the step's end).  Around them a prelude (70 and 46 bytes)
 * and a postlude (368 and 26).  Every step's first packet is A's first segment, its last B's
 * last: the cuts of both directions must meet at the compute's idle time.
 */
static void
write_turns(struct cap *c, uint32_t steps, uint32_t vol, uint32_t both, uint64_t red_ns,
	    uint64_t comp_ns, uint64_t *start, uint64_t *end)
{
	uint32_t nseg = vol / MSS, k, i, d, seq[2] = { 1000, 5000 };
	uint64_t t = T0 + 20000000;

	turn_seg(c, T0, 0, seq, 0x18, 70);
	turn_seg(c, T0 + 40000, 1, seq, 0x18, 46);
	for (k = 0; k < steps; k++) {
		start[k] = t;
		if (k < both) {		/* the first steps both ways at once */
			for (i = 0; i < nseg; i++)
				for (d = 0; d < 2; d++) {
					uint64_t ts = t + (uint64_t)i * SEG_NS + d * OTHER_NS;

					turn_seg(c, ts, d, seq, 0x10, MSS);
					if (i == 10)
						turn_seg(c, ts + 2500, d, seq, 0x18, 64);
				}
			end[k] = t + (uint64_t)(nseg - 1) * SEG_NS + OTHER_NS;
		} else {		/* A's turn, then B's */
			turn(c, t, 0, nseg, seq);
			t += (uint64_t)(nseg - 1) * SEG_NS + red_ns;
			turn(c, t, 1, nseg, seq);
			end[k] = t + (uint64_t)(nseg - 1) * SEG_NS;
		}
		t = end[k] + comp_ns;
	}
	turn_seg(c, t + 1000000, 0, seq, 0x18, 368);
	turn_seg(c, t + 1040000, 1, seq, 0x18, 26);
}

/* The capture of @p c read with --steps 20 and as the 2-rank all-reduce: every step as written,
 * the prelude and postlude outside the steps. */
static void
check_turns(const struct cap *c, const uint64_t *start, const uint64_t *end)
{
	struct tr_stream_params given = { .steps = 20 }, coll = { .coll = TR_COLL_ALLREDUCE,
		.ranks = 2, .coll_bytes = 100000 };
	const struct tr_stream_params *ps[] = { &given, &coll };
	struct tr_streams s;
	char err[512];
	uint32_t k, m;

	for (m = 0; m < 2; m++) {
		assert_int_equal(tr_streams_read(c->path, ps[m], &s, err, sizeof(err)), 0);
		if (s.nsteps != 20)
			fail_msg("%s: %u steps: %s", m ? "collective" : "given", s.nsteps, s.how);
		for (k = 0; k < 20; k++)
			if (s.step[k].start_ns != start[k] || s.step[k].end_ns != end[k])
				fail_msg("%s: step %u: %" PRIu64 "..%" PRIu64 ", written %" PRIu64
					 "..%" PRIu64, m ? "collective" : "given", k,
					 s.step[k].start_ns - T0, s.step[k].end_ns - T0,
					 start[k] - T0, end[k] - T0);
		assert_int_equal(s.dir[0].before, 70);
		assert_int_equal(s.dir[1].after, 26);
		tr_streams_free(&s);
	}
}

static void
test_turns_with_ready(void **state)
{
	uint64_t start[20], end[20];
	struct cap c;

	(void)state;
	/* as captured: every step taking turns */
	cap_open(&c);
	write_turns(&c, 20, 100000, 0, 700000, 550000, start, end);
	cap_close(&c);
	check_turns(&c, start, end);
	unlink(c.path);
	/* 7 steps both ways at once, then turns with idle times of every direction (over 1 ms)
	 * between them: their periods are one-way, and the directions' volumes differ by the
	 * prelude's and postlude's few hundred bytes only (beside a bulk flow, 54.5 MB of each
	 * direction were once taken for a postlude: leaving them out halved a spread of 4e-6) */
	cap_open(&c);
	write_turns(&c, 20, 100000, 7, 1500000, 1200000, start, end);
	cap_close(&c);
	check_turns(&c, start, end);
	unlink(c.path);
}

static void
test_bad_calls(void **state)
{
	struct job j = job_default();
	struct tr_stream_params p = { .steps = 800001 };
	struct tr_streams s;
	struct cap c;
	char err[512];

	(void)state;
	cap_open(&c);
	write_job(&c, &j);
	cap_close(&c);
	/* more steps than bytes */
	assert_int_equal(tr_streams_read(c.path, &p, &s, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "a step needs one at least"));
	/* a filter that does not compile */
	p.steps = 8;
	p.filter = "tcp and and";
	assert_int_equal(tr_streams_read(c.path, &p, &s, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "tcp and and"));
	/* nothing selected: no step, no error */
	p.filter = "udp";
	assert_int_equal(tr_streams_read(c.path, &p, &s, err, sizeof(err)), 0);
	assert_int_equal(s.nsteps, 0);
	assert_int_equal(s.selected, 0);
	tr_streams_free(&s);
	unlink(c.path);
	assert_int_equal(tr_streams_read("/nonexistent/x.pcap", &p, &s, err, sizeof(err)),
			 -ENOENT);
}

/* ---- pieces ---- */

static void
test_bth(void **state)
{
	struct tr_ip ip;
	struct tr_bth b;
	uint8_t d[64] = { 0 };

	(void)state;
	memset(&ip, 0, sizeof(ip));
	ip.proto = 17;
	ip.dport = TR_ROCE_PORT;
	ip.l4_data = d;
	ip.l4_caplen = 12;
	d[0] = 0x0a;			/* RC RDMA WRITE ONLY: RETH */
	d[1] = 2 << 4;			/* pad 2 */
	d[9] = 1;
	ip.l4_payload = 12 + 16 + 100 + 2 + 4;
	assert_int_equal(tr_decode_bth(&ip, &b), 0);
	assert_int_equal(b.payload, 100);
	assert_int_equal(b.psn, 1 << 16);
	d[0] = 0x11;			/* ACK */
	d[1] = 0;
	ip.l4_payload = 12 + 4 + 4;
	assert_int_equal(tr_decode_bth(&ip, &b), 0);
	assert_true(b.ack);
	assert_int_equal(b.payload, 0);
	d[0] = 0x64;			/* UD SEND ONLY: DETH */
	ip.l4_payload = 12 + 8 + 256 + 4;
	assert_int_equal(tr_decode_bth(&ip, &b), 0);
	assert_int_equal(b.payload, 256);
	d[0] = 0x0c;			/* READ REQUEST: no message bytes */
	ip.l4_payload = 12 + 16 + 4;
	assert_int_equal(tr_decode_bth(&ip, &b), 0);
	assert_int_equal(b.payload, 0);
	d[0] = 0x0a;			/* too short for its RETH */
	ip.l4_payload = 12 + 8;
	assert_int_equal(tr_decode_bth(&ip, &b), -EBADMSG);
	d[0] = 0x15;			/* not an operation */
	ip.l4_payload = 100;
	assert_int_equal(tr_decode_bth(&ip, &b), -ENOTSUP);
	ip.l4_caplen = 11;		/* BTH cut */
	assert_int_equal(tr_decode_bth(&ip, &b), -EBADMSG);
	ip.dport = 4792;
	assert_int_equal(tr_decode_bth(&ip, &b), -ENOTSUP);
}

static void
test_collective_bytes(void **state)
{
	(void)state;
	/* 2 ranks on 2 hosts: each sends the other 2 (2 - 1) / 2 of the buffer */
	assert_true(tr_coll_dir_bytes(TR_COLL_ALLREDUCE, 2, 2, TR_PLACE_BLOCK, 4e6) == 4e6);
	/* 4 on 2 in blocks: one ring edge each way, 2 x 3/4 x 4 MB */
	assert_true(tr_coll_dir_bytes(TR_COLL_ALLREDUCE, 4, 2, TR_PLACE_BLOCK, 4e6) == 6e6);
	/* dealt round robin: every edge crosses, two each way */
	assert_true(tr_coll_dir_bytes(TR_COLL_ALLREDUCE, 4, 2, TR_PLACE_CYCLIC, 4e6) == 12e6);
	assert_true(tr_coll_dir_bytes(TR_COLL_ALLGATHER, 4, 2, TR_PLACE_BLOCK, 4e6) == 3e6);
	assert_true(tr_coll_dir_bytes(TR_COLL_REDUCESCATTER, 8, 2, TR_PLACE_BLOCK, 8e6) == 7e6);
	/* all-to-all: 2 x 2 rank pairs of 1 MB */
	assert_true(tr_coll_dir_bytes(TR_COLL_ALLTOALL, 4, 2, TR_PLACE_BLOCK, 4e6) == 4e6);
	assert_true(tr_coll_dir_bytes(TR_COLL_ALLTOALL, 4, 2, TR_PLACE_CYCLIC, 4e6) == 4e6);
	assert_true(tr_coll_dir_bytes(TR_COLL_ALLREDUCE, 1, 2, TR_PLACE_BLOCK, 4e6) < 0);
	assert_true(tr_coll_dir_bytes(TR_COLL_ALLREDUCE, 5, 2, TR_PLACE_BLOCK, 4e6) < 0);
	assert_true(tr_coll_dir_bytes(TR_COLL_NONE, 4, 2, TR_PLACE_BLOCK, 4e6) < 0);
	assert_int_equal(tr_coll_parse("alltoall"), TR_COLL_ALLTOALL);
	assert_int_equal(tr_coll_parse("all-reduce"), TR_COLL_NONE);
	assert_string_equal(tr_coll_name(TR_COLL_REDUCESCATTER), "reducescatter");
}

static const char *
write_text(const char *text)
{
	static char path[64];
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/tmp/test_appsteps_XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

static void
appsteps_bad(const char *text, const char *want)
{
	const char *path = write_text(text);
	struct tr_appsteps a;
	char err[512];

	assert_int_not_equal(tr_appsteps_read(path, NULL, 0, &a, err, sizeof(err)), 0);
	unlink(path);
	if (strstr(err, want) == NULL)
		fail_msg("'%s': '%s' not in '%s'", text, want, err);
}

static void
test_app_steps(void **state)
{
	struct tr_appsteps a;
	const char *path;
	char err[512];

	(void)state;
	/* a header, extra columns, rows out of order, a comment */
	path = write_text("# loop timers\nstep,rank0_start_ns,start_ns,end_ns\n"
			  "1,5,300,400\n0,7,100,200\n");
	assert_int_equal(tr_appsteps_read(path, NULL, -50, &a, err, sizeof(err)), 0);
	unlink(path);
	assert_int_equal(a.n, 2);
	assert_int_equal(a.s[0].step, 0);
	assert_int_equal(a.s[0].start_ns, 50);
	assert_int_equal(a.s[1].end_ns, 350);
	tr_appsteps_free(&a);
	/* seconds, CRLF */
	path = write_text("step,start_s,end_s\r\n0,1.5,1.75\r\n");
	assert_int_equal(tr_appsteps_read(path, NULL, 0, &a, err, sizeof(err)), 0);
	unlink(path);
	assert_int_equal(a.s[0].start_ns, 1500000000);
	assert_int_equal(a.s[0].end_ns, 1750000000);
	tr_appsteps_free(&a);
	/* no header */
	path = write_text("0,10,20\n1,30,40\n");
	assert_int_equal(tr_appsteps_read(path, NULL, 0, &a, err, sizeof(err)), 0);
	unlink(path);
	assert_int_equal(a.n, 2);
	tr_appsteps_free(&a);
	appsteps_bad("step,begin,end_ns\n0,1,2\n", ":1: the header needs the columns start_ns");
	appsteps_bad("start_ns,end_ns\n", ":1: the header has no column 'step'");
	appsteps_bad("step,start_ns,end_ns\n0,1\n", ":2: 2 columns, 3 needed");
	appsteps_bad("0,1,2\n1,x,3\n", ":2: column 2 (start): 'x' is not a time");
	appsteps_bad("0,1,2\n1,5,3\n", ":2: step 1 ends before it starts");
	appsteps_bad("0,1,2\n0,5,6\n", ":2: step 0 again (first on line 1)");
	appsteps_bad("step,start_ns,end_ns\n", "no step in it");
	appsteps_bad("0,1,2\n-1,5,6\n", ":2: column 1 (step): '-1' is not a step number");
	path = write_text("0,9223372036854775000,9223372036854775800\n");
	assert_int_equal(tr_appsteps_read(path, NULL, 1000, &a, err, sizeof(err)), -EINVAL);
	unlink(path);
	assert_non_null(strstr(err, "beyond 64 bits with the clock offset"));
	/* a loop's counter under another name: the first column, or the one named */
	path = write_text("iter,start_ns,end_ns\n3,10,20\n4,30,40\n");
	assert_int_equal(tr_appsteps_read(path, NULL, 0, &a, err, sizeof(err)), 0);
	assert_int_equal(a.n, 2);
	assert_int_equal(a.s[1].step, 4);
	tr_appsteps_free(&a);
	assert_int_equal(tr_appsteps_read(path, "iter", 0, &a, err, sizeof(err)), 0);
	assert_int_equal(a.s[0].step, 3);
	tr_appsteps_free(&a);
	assert_int_equal(tr_appsteps_read(path, "epoch", 0, &a, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, ":1: the header has no column 'epoch' (it has: 'iter', "
				"'start_ns', 'end_ns')"));
	assert_int_equal(tr_appsteps_read(path, "2", 0, &a, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, ":1: the step's column 'start_ns' is a time"));
	unlink(path);
	path = write_text("rank,step,start_s,end_s\n0,7,1.5,2\n");
	assert_int_equal(tr_appsteps_read(path, NULL, 0, &a, err, sizeof(err)), 0);
	assert_int_equal(a.s[0].step, 7);
	tr_appsteps_free(&a);
	unlink(path);
	/* no header, the step's column by number: the start and end are the first two others */
	path = write_text("10,20,5\n30,40,6\n");
	assert_int_equal(tr_appsteps_read(path, "3", 0, &a, err, sizeof(err)), 0);
	assert_int_equal(a.s[0].step, 5);
	assert_int_equal(a.s[0].start_ns, 10);
	assert_int_equal(a.s[1].end_ns, 40);
	tr_appsteps_free(&a);
	assert_int_equal(tr_appsteps_read(path, "iter", 0, &a, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, ":1: no header to find the column 'iter' in"));
	assert_int_equal(tr_appsteps_read(path, "4", 0, &a, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, ":1: no column 4 (the line has 3)"));
	unlink(path);
	/* a NUL byte, even at the start of a line, is not dropped with its line: refused */
	path = write_text("0,10,20\nX1,30,40\n");
	{
		FILE *f = fopen(path, "r+");

		assert_non_null(f);
		fseek(f, 8, SEEK_SET);
		fputc('\0', f);
		fclose(f);
	}
	assert_int_equal(tr_appsteps_read(path, NULL, 0, &a, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, ":2: a NUL byte at column 1: not a text file"));
	unlink(path);
	assert_int_equal(tr_appsteps_read("/tmp", NULL, 0, &a, err, sizeof(err)), -EISDIR);
	assert_int_equal(tr_appsteps_read("/nonexistent", NULL, 0, &a, err, sizeof(err)), -ENOENT);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_given_steps),
		cmocka_unit_test(test_found_from_the_stream),
		cmocka_unit_test(test_collective),
		cmocka_unit_test(test_retransmission),
		cmocka_unit_test(test_reordering),
		cmocka_unit_test(test_missing_segment),
		cmocka_unit_test(test_sequence_wrap),
		cmocka_unit_test(test_several_connections),
		cmocka_unit_test(test_snap_length),
		cmocka_unit_test(test_prelude),
		cmocka_unit_test(test_pause_inside_a_step),
		cmocka_unit_test(test_background),
		cmocka_unit_test(test_roce_and_udp),
		cmocka_unit_test(test_sequence_jumps),
		cmocka_unit_test(test_clumps),
		cmocka_unit_test(test_turns_with_ready),
		cmocka_unit_test(test_bad_calls),
		cmocka_unit_test(test_bth),
		cmocka_unit_test(test_collective_bytes),
		cmocka_unit_test(test_app_steps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

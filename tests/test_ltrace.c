/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tier 1 tests of a trace-driven link (models/ltrace.c) and of the files [impair] names
 * (control/impair_files.c): Mahimahi traces and netem's jitter tables.
 *
 * - The link's opportunities, found per frame at enqueue, against Mahimahi's own algorithm
 *   walked opportunity by opportunity (LinkQueue::rationalize(): the opportunities due by an
 *   arrival served before it queues, each carrying 1504 bytes of the queue's head, the surplus
 *   to the next queued packet, none kept over an empty queue), on random traces and arrivals
 *   that cross idle gaps of several periods: every departure the same to the picosecond.
 * - A constant trace's rate, and a file's errors named by line.
 * - iproute2's normal.dist (the table `tc qdisc ... netem delay D J distribution normal` loads)
 *   read by name: its entries are the normal distribution's quantiles (its CDF within 0.001 of
 *   Phi), and draws through it at jitter J within the Dvoretzky-Kiefer-Wolfowitz bound at 1e-9
 *   of N(0, J) widened by that table error.  Skipped where iproute2's tables are not installed.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
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

#include "common.h"
#include "impair_files.h"
#include "impair_spec.h"

#define PS_MS 1000000000ull

/* Mahimahi's link, walked: packets in order of arrival; their departures, ps. */
struct ref_pkt {
	uint64_t arrive;
	uint32_t bytes;
	uint64_t depart;
};

static void
mahimahi(const uint64_t *ms, uint32_t n, struct ref_pkt *p, uint32_t np)
{
	uint64_t base = 0, period = ms[n - 1];
	uint32_t next = 0, head = 0, queued = 0;	/* p[head..queued) in the queue */
	int64_t in_transit = -1;			/* bytes left of p[head], -1: none */

	for (uint32_t a = 0; a <= np; a++) {
		/* the opportunities due by the next arrival (after the last: until all left) */
		for (;;) {
			uint64_t t = base + ms[next] * PS_MS;
			int64_t left = 1504;

			if (a < np && t > p[a].arrive)
				break;
			if (a == np && head == queued)
				break;
			if (++next == n) {
				next = 0;
				base += period * PS_MS;
			}
			while (left > 0) {
				if (in_transit < 0) {
					if (head == queued)
						break;
					in_transit = p[head].bytes;
				}
				in_transit -= left;
				left = 0;
				if (in_transit <= 0) {
					left = -in_transit;
					p[head++].depart = t;
					in_transit = -1;
				}
			}
		}
		if (a < np)
			queued++;
	}
}

static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void
test_against_mahimahi(void **state)
{
	uint64_t s = 0x2026120522u;

	(void)state;
	for (int round = 0; round < 200; round++) {
		uint32_t n = 1 + (uint32_t)(rnd(&s) % 40), np = 400, bad;
		struct sm_ltrace *t = malloc(sizeof(*t) + n * sizeof(t->ms[0]));
		struct ref_pkt *p = calloc(np, sizeof(*p));
		struct sm_ltrace_state st;
		uint64_t now = rnd(&s) % (3 * PS_MS), m = rnd(&s) % 3;

		assert_non_null(t);
		assert_non_null(p);
		for (uint32_t i = 0; i < n; i++) {
			m += rnd(&s) % 4 == 0 ? rnd(&s) % 7 : 0;	/* repeats: several per ms */
			t->ms[i] = m;
		}
		if (t->ms[n - 1] == 0)
			t->ms[n - 1] = 1;
		assert_int_equal(sm_ltrace_check(t->ms, n, &bad), 0);
		t->n = n;
		t->period_ms = t->ms[n - 1];
		for (uint32_t i = 0; i < np; i++) {
			uint64_t r = rnd(&s) % 100;

			/* back to back, a little apart, on a millisecond exactly, or idle for periods */
			now += r < 50 ? 0 : r < 80 ? rnd(&s) % PS_MS : r < 90 ? PS_MS - now % PS_MS :
			       rnd(&s) % (4 * t->period_ms * PS_MS + 1);
			p[i].arrive = now;
			p[i].bytes = rnd(&s) % 5 == 0 ? 9004 : 44 + (uint32_t)(rnd(&s) % 1461);
		}
		mahimahi(t->ms, n, p, np);
		sm_ltrace_start(&st, 0);
		for (uint32_t i = 0; i < np; i++) {
			uint64_t first, last;

			sm_ltrace_send(t, &st, p[i].arrive, p[i].bytes, &first, &last);
			if (last != p[i].depart)
				fail_msg("round %d, packet %u (%u bytes at %lu ps): left at %lu ps, "
					 "Mahimahi's at %lu", round, i, p[i].bytes,
					 (unsigned long)p[i].arrive, (unsigned long)last,
					 (unsigned long)p[i].depart);
			assert_true(first > p[i].arrive && first <= last);
		}
		free(p);
		free(t);
	}
}

/* A file in the test's temporary directory with @text; its path. */
static const char *
file_with(const char *name, const char *text)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
		 name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void
test_trace_file(void **state)
{
	static const struct {
		const char *name, *text, *why;
	} bad[] = {
		{ "syncemu-lt-empty.trace", "", "no opportunities" },
		{ "syncemu-lt-zero.trace", "0\n0\n", "lasts 0 ms" },
		{ "syncemu-lt-blank.trace", "1\n2\n\n3\n", "line 3: empty" },
		{ "syncemu-lt-down.trace", "1\n5\n4\n", "line 3: 4 ms is before" },
		{ "syncemu-lt-word.trace", "1\n2ms\n", "line 2: '2ms' is not a whole number" },
		{ "syncemu-lt-neg.trace", "-1\n2\n", "line 1: '-1'" },
		{ "syncemu-lt-huge.trace", "99999999999999999999\n", "too large" },
	};
	char why[512], spec[400];
	const struct sm_ltrace *t, *again;
	struct sm_ltrace_state st;
	struct sm_impair im;
	uint64_t first, last;

	(void)state;
	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *path = file_with(bad[i].name, bad[i].text);

		why[0] = '\0';
		assert_null(sc_ltrace_load(path, why, sizeof(why)));
		print_message("%s: %s\n", bad[i].name, why);
		assert_non_null(strstr(why, bad[i].why));
		assert_non_null(strstr(why, path));
	}
	assert_null(sc_ltrace_load("/nonexistent/x.trace", why, sizeof(why)));
	assert_non_null(strstr(why, "No such file"));
	assert_null(sc_ltrace_load("/tmp", why, sizeof(why)));
	assert_non_null(strstr(why, "not a regular file"));
	{
		/* a FIFO would block a reader: refused without opening it for a read that waits */
		char fifo[256];

		snprintf(fifo, sizeof(fifo), "%s/syncemu-lt-%d.fifo",
			 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
		unlink(fifo);
		assert_int_equal(mkfifo(fifo, 0600), 0);
		assert_null(sc_ltrace_load(fifo, why, sizeof(why)));
		assert_non_null(strstr(why, "not a regular file"));
		unlink(fifo);
	}
	/* one opportunity each ms, CRLF lines: 1504 bytes a ms; read once, shared */
	t = sc_ltrace_load(file_with("syncemu-lt-12.trace", "1\r\n2\r\n3\r\n4\r\n"), why,
			   sizeof(why));
	assert_non_null(t);
	assert_int_equal(t->n, 4);
	assert_int_equal(t->period_ms, 4);
	assert_true(fabs(sm_ltrace_rate(t) - 1504000.0) < 1e-6);
	again = sc_ltrace_load(file_with("syncemu-lt-12.trace", "1\n"), why, sizeof(why));
	assert_ptr_equal(t, again);		/* kept: every reading sees the same */
	sm_ltrace_start(&st, 0);
	sm_ltrace_send(t, &st, 0, 1504, &first, &last);
	assert_true(first == PS_MS && last == PS_MS);
	sm_ltrace_send(t, &st, 0, 3008, &first, &last);	/* queued behind it: 2 and 3 ms */
	assert_true(first == 2 * PS_MS && last == 3 * PS_MS);
	sm_ltrace_send(t, &st, 10 * PS_MS, 100, &first, &last);	/* 11 ms: the 3rd cycle's 3rd */
	assert_true(first == 11 * PS_MS && last == 11 * PS_MS);
	sm_ltrace_send(t, &st, 10 * PS_MS + 1, 1404, &first, &last);	/* the rest of it */
	assert_true(last == 11 * PS_MS);
	sm_ltrace_send(t, &st, 10 * PS_MS + 2, 1, &first, &last);	/* none left: the next */
	assert_true(last == 12 * PS_MS);
	/* in a spec, and errors there named by word */
	snprintf(spec, sizeof(spec), "loss random 1%% trace %s/syncemu-lt-12.trace",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_int_equal(sc_impair_parse(spec, &im, why, sizeof(why)), 0);
	assert_ptr_equal(im.trace, t);
	assert_true(sm_impair_active(&(struct sm_impair){ .trace = t }));
	assert_int_equal(sc_impair_parse("trace", &im, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "needs a file"));
	assert_int_equal(sc_impair_parse("jitter 1ms trace /nonexistent.trace", &im, why,
					 sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "'/nonexistent.trace' at byte 17"));
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int
cmp_int16(const void *a, const void *b)
{
	return *(const int16_t *)a - *(const int16_t *)b;
}

static double
phi(double x)
{
	return 0.5 * erfc(-x / M_SQRT2);
}

static void
test_table(void **state)
{
	const struct sm_jtable *t;
	struct sm_impair im = { .dist = SM_JITTER_TABLE, .jitter = 0.002 };
	struct sm_impair_state st;
	char why[512];
	const uint32_t n = 200000;
	double *x, d = 0, dt = 0, e = sqrt(log(2e9) / (2.0 * n));
	int16_t *v;

	(void)state;
	/* errors named by file and line */
	assert_null(sc_jtable_load(file_with("syncemu-jt-word.dist", "# c\n1 2 x\n"), why,
				   sizeof(why)));
	assert_non_null(strstr(why, "line 2: 'x' is not a whole number"));
	assert_null(sc_jtable_load(file_with("syncemu-jt-big.dist", "1 40000\n"), why,
				   sizeof(why)));
	assert_non_null(strstr(why, "line 1: 40000 is outside"));
	assert_null(sc_jtable_load(file_with("syncemu-jt-none.dist", "# only\n\n"), why,
				   sizeof(why)));
	assert_non_null(strstr(why, "no entries"));
	assert_null(sc_jtable_load("no-such-table-name", why, sizeof(why)));
	assert_non_null(strstr(why, "no-such-table-name.dist"));
	assert_int_equal(sc_impair_parse("jitter 1ms distribution no-such-table-name", &im, why,
					 sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "at byte 24"));

	t = sc_jtable_load("normal", why, sizeof(why));
	if (t == NULL) {
		print_message("skipped the table's draws: %s\n", why);
		skip();
	}
	/* a path or tc's name: the same file, read once */
	assert_int_equal(sc_impair_parse("jitter 2ms distribution normal", &im, why, sizeof(why)),
			 0);
	assert_int_equal(im.dist, SM_JITTER_NORMAL);	/* the name of a built-in is the built-in */
	/* the table's entries as a distribution against Phi: F_table(x) is the fraction <= x */
	v = malloc(t->n * sizeof(*v));
	assert_non_null(v);
	memcpy(v, t->v, t->n * sizeof(*v));
	qsort(v, t->n, sizeof(*v), cmp_int16);
	for (uint32_t i = 0; i < t->n; i++) {
		/* the table's CDF steps from i/n to (i+1)/n at its i-th entry */
		double f = phi(v[i] / SM_JTABLE_SCALE);

		dt = fmax(dt, fmax(fabs(f - (double)i / t->n), fabs(f - (double)(i + 1) / t->n)));
	}
	print_message("iproute2 normal.dist: %u entries, least %d, CDF within %.5f of Phi\n",
		      t->n, t->least, dt);
	assert_true(dt < 0.001);
	/* draws at J = 2 ms through it: N(0, J) within DKW + the table's own distance */
	im = (struct sm_impair){ .dist = SM_JITTER_TABLE, .jitter = 0.002, .table = t };
	sm_impair_start(&st, 20261205u);
	x = malloc(n * sizeof(*x));
	assert_non_null(x);
	for (uint32_t i = 0; i < n; i++) {
		x[i] = sm_impair_jitter(&im, &st) / im.jitter;
		assert_true(x[i] * im.jitter >= sm_impair_jitter_least(&im) - 1e-15);
	}
	qsort(x, n, sizeof(*x), cmp_double);
	for (uint32_t i = 0; i < n; i++) {
		double f = phi(x[i]);

		d = fmax(d, fmax(fabs(f - (double)i / n), fabs((double)(i + 1) / n - f)));
	}
	print_message("draws: KS distance to N(0, 1) %.5f, bound %.5f + %.5f\n", d, e, dt);
	assert_true(d <= e + dt);
	free(x);
	free(v);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_mahimahi),
		cmocka_unit_test(test_trace_file),
		cmocka_unit_test(test_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

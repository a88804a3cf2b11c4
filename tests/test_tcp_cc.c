/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TCP's congestion control (models/tcp_cc.h) against its definitions: slow start by the segments
 * acknowledged up to ssthresh (RFC 5681, ABC), Reno's halving and one segment per window of
 * ACKs, CUBIC's beta 0.7 and fast convergence, its window back at W_max at t = K (RFC 9438:
 * K = cbrt(W_max (1 - beta) / C)) and past it after, the Reno-friendly region, no growth when
 * not window-limited (the window's use tracked as Linux does), the restart after idle (halved per RTO idle, down to the initial
 * window), and the round trips slow start needs for a message.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tcp_cc.h"

#define MS UINT64_C(1000000000)	/* ps */

static void
test_slow_start(void **state)
{
	struct sm_cc cc;

	(void)state;
	sm_cc_init(&cc, SM_CC_CUBIC, 10);
	assert_int_equal(sm_cc_window(&cc), 10);
	sm_cc_on_ack(&cc, 2, 10 * MS, 10 * MS, false);
	assert_int_equal(sm_cc_window(&cc), 12);
	sm_cc_on_ack(&cc, 2, 11 * MS, 10 * MS, true);	/* not window-limited: no growth */
	assert_int_equal(sm_cc_window(&cc), 12);
	cc.ssthresh = 13;
	sm_cc_on_ack(&cc, 4, 12 * MS, 10 * MS, false);	/* to ssthresh, the rest in CA */
	assert_true(cc.cwnd >= 13 && cc.cwnd < 14);
}

/*
 * The window's use as Linux's tcp_cwnd_validate() and tcp_is_cwnd_limited() keep it: an
 * application that sends 9 segments under a window of 10 (include/net/tcp.h's example) lets the
 * window grow to 18 in slow start, not past; a window that held data back lets every ACK of that
 * window of data grow it, even after the writer ran dry; in congestion avoidance only a held-back
 * window grows.
 */
static void
test_window_use(void **state)
{
	struct sm_cc cc;
	uint32_t i;

	(void)state;
	sm_cc_init(&cc, SM_CC_RENO, 10);
	for (i = 1; i <= 9; i++)		/* 9 segments of 1000 bytes, the window not full */
		sm_cc_validate(&cc, false, i, 0, 1000 * i);
	for (i = 0; i < 9; i++)
		sm_cc_on_ack(&cc, 1, 0, 0, !sm_cc_may_grow(&cc));
	assert_int_equal(sm_cc_window(&cc), 18);
	/* a window of 20 full: the ACKs of all it held grow it, the writer empty or not */
	sm_cc_init(&cc, SM_CC_RENO, 20);
	for (i = 1; i <= 20; i++)
		sm_cc_validate(&cc, i == 20, i, 0, 1000 * i);
	sm_cc_validate(&cc, true, 20, 0, 20000);	/* the window refused the 21st */
	for (i = 0; i < 20; i++)
		sm_cc_on_ack(&cc, 1, 0, 0, !sm_cc_may_grow(&cc));
	assert_int_equal(sm_cc_window(&cc), 40);
	/* congestion avoidance: not held back in the window tracked, no growth */
	sm_cc_init(&cc, SM_CC_RENO, 10);
	cc.cwnd = cc.ssthresh = 100;
	sm_cc_validate(&cc, false, 50, 0, 50000);
	sm_cc_on_ack(&cc, 100, 0, 0, !sm_cc_may_grow(&cc));
	assert_int_equal(sm_cc_window(&cc), 100);
	sm_cc_validate(&cc, true, 100, 50000, 100000);
	sm_cc_on_ack(&cc, 100, 0, 0, !sm_cc_may_grow(&cc));
	assert_int_equal(sm_cc_window(&cc), 101);
}

static void
test_reno(void **state)
{
	struct sm_cc cc;
	int i;

	(void)state;
	sm_cc_init(&cc, SM_CC_RENO, 10);
	cc.cwnd = 100;
	sm_cc_reduce(&cc);
	sm_cc_reduce_end(&cc);
	assert_int_equal(sm_cc_window(&cc), 50);
	assert_true(cc.ssthresh == 50);
	for (i = 0; i < 50; i++)		/* a window of ACKs: one segment more */
		sm_cc_on_ack(&cc, 1, 0, 0, false);
	assert_int_equal(sm_cc_window(&cc), 50);
	sm_cc_on_ack(&cc, 1, 0, 0, false);
	assert_int_equal(sm_cc_window(&cc), 51);
	sm_cc_on_rto(&cc, 51, 0);
	assert_int_equal(sm_cc_window(&cc), 1);
	assert_true(cc.ssthresh == 25);
}

static void
test_cubic_curve(void **state)
{
	struct sm_cc cc;
	double k;
	uint64_t t, rtt = 10 * MS;

	(void)state;
	sm_cc_init(&cc, SM_CC_CUBIC, 10);
	/* a window large enough for the cubic curve to lead the Reno-friendly estimate */
	cc.cwnd = 10000;
	cc.min_rtt_ps = rtt;
	sm_cc_reduce(&cc);
	sm_cc_reduce_end(&cc);
	assert_true(cc.ssthresh == 7000 && cc.cwnd == 7000);
	k = cbrt(10000 * (1 - SM_CUBIC_BETA) / SM_CUBIC_C);
	/* ACK a window every RTT; CUBIC aims at W_cubic(t + RTT) */
	for (t = rtt; t + rtt < (uint64_t)(k * 1e12); t += rtt)
		sm_cc_on_ack(&cc, sm_cc_window(&cc), t, rtt, false);
	assert_true(cc.cwnd < 10000 && cc.cwnd > 9990);	/* the plateau just below W_max */
	for (; t < (uint64_t)((k + 2) * 1e12); t += rtt)
		sm_cc_on_ack(&cc, sm_cc_window(&cc), t, rtt, false);
	/* 2 s past K: W_max + C 2^3 = 10003.2, within a window's rounding */
	assert_true(cc.cwnd > 10002 && cc.cwnd < 10005);
	/* fast convergence: a loss below the last W_max remembers less */
	sm_cc_reduce(&cc);
	sm_cc_reduce_end(&cc);
	cc.cwnd = 800;
	sm_cc_reduce(&cc);
	sm_cc_reduce_end(&cc);
	assert_true(fabs(cc.w_max - 800 * (1 + SM_CUBIC_BETA) / 2) < 1e-9);
}

static void
test_cubic_reno_friendly(void **state)
{
	struct sm_cc cc;
	uint64_t t, rtt = 200 * MS;
	int i;

	(void)state;
	/* a small window at a long RTT: the Reno-friendly estimate leads the cubic curve */
	sm_cc_init(&cc, SM_CC_CUBIC, 10);
	cc.cwnd = 20;
	cc.min_rtt_ps = rtt;
	sm_cc_reduce(&cc);
	sm_cc_reduce_end(&cc);
	for (i = 0, t = rtt; i < 10; i++, t += rtt)
		sm_cc_on_ack(&cc, sm_cc_window(&cc), t, rtt, false);
	/* alpha = 3 (1 - beta) / (1 + beta) = 0.529 a round trip: 14 + 5.3 */
	assert_true(cc.cwnd > 18.5 && cc.cwnd < 20.5);
}

static void
test_idle_restart(void **state)
{
	struct sm_cc cc;

	(void)state;
	sm_cc_init(&cc, SM_CC_CUBIC, 10);
	cc.cwnd = 160;
	cc.ssthresh = 50;
	sm_cc_on_idle(&cc, 150 * MS, 200 * MS, 10, true);	/* shorter than the RTO: kept */
	assert_int_equal(sm_cc_window(&cc), 160);
	sm_cc_on_idle(&cc, 450 * MS, 200 * MS, 10, true);	/* two RTOs and more: a quarter */
	assert_int_equal(sm_cc_window(&cc), 40);
	assert_true(cc.ssthresh == 120);			/* 3/4 of the window before */
	sm_cc_on_idle(&cc, 10000 * MS, 200 * MS, 10, true);	/* never below the initial */
	assert_int_equal(sm_cc_window(&cc), 10);
	cc.cwnd = 160;
	sm_cc_on_idle(&cc, 10000 * MS, 200 * MS, 10, false);	/* the restart off */
	assert_int_equal(sm_cc_window(&cc), 160);
}

static void
test_ss_rounds(void **state)
{
	(void)state;
	assert_int_equal(sm_ss_rounds(0, 1448, 10), 0);
	assert_int_equal(sm_ss_rounds(14480, 1448, 10), 1);
	assert_int_equal(sm_ss_rounds(14481, 1448, 10), 2);
	/* 4 MiB at 1448-byte segments from 10: 10 + 20 + ... + 2560 = 5110 segments, 9 rounds */
	assert_int_equal(sm_ss_rounds(4194304, 1448, 10), 9);
	assert_int_equal(sm_ss_rounds(100, 0, 10), 0);
}

static void
test_ss_extra(void **state)
{
	uint32_t r;
	double x;

	(void)state;
	/* a window that covers the path from the start: nothing */
	assert_true(sm_ss_extra(1 << 20, 125e6, 1e-4, 1448, 10, &r) == 0 && r == 0);
	/* 1 Gbit/s, 40 ms: the path holds 3453 segments; 4 MiB (2897 segments) goes in slow
	 * start: 10, 20, ..., 1280, 2560 is 9 rounds; 8 round trips and the last flight */
	x = sm_ss_extra(4194304, 125e6, 0.040, 1448, 10, &r);
	assert_int_equal(r, 9);
	assert_true(fabs(x - (8 * 0.040 + (4194304 - 2550 * 1448) / 125e6 - 4194304 / 125e6)) < 1e-9);
	/* longer than slow start: the rounds to cover the path, then the rate */
	x = sm_ss_extra(64 << 20, 125e6, 0.040, 1448, 10, &r);
	assert_int_equal(r, 9);
	assert_true(x > 0.2 && x < 0.4);
}

/*
 * PRR (RFC 6937 as Linux's tcp_cwnd_reduction()): a Reno window of 20 halves to 10 on a loss.
 * While more than ssthresh are in flight, every ACK of one segment lets out ceil(10 d / 20)
 * less what has gone (d delivered so far): one segment every other ACK, the first at once.
 * Once at or below ssthresh, as many as are delivered, one more when the front moves
 * (PRR-SSRB), never past ssthresh.
 */
static void
test_prr(void **state)
{
	struct sm_cc cc;
	uint32_t delivered = 0, out = 0, flight = 19, d;

	(void)state;
	sm_cc_init(&cc, SM_CC_RENO, 20);
	cc.ssthresh = 1e9;
	cc.cwnd = 20;
	sm_cc_reduce(&cc);
	assert_true(cc.ssthresh == 10 && cc.cwnd == 20);	/* the window is PRR's to lower */
	for (d = 1; flight - 1 > 10; d++) {		/* above ssthresh */
		uint32_t n = sm_cc_prr(&cc, 1, false, false, --flight, 20, &delivered, out);

		assert_int_equal(delivered, d);
		assert_int_equal(out + n, (10 * d + 19) / 20);	/* ceil(ssthresh d / prior) */
		out += n;
		flight += n;
	}
	assert_int_equal(d, 17);			/* 16 ACKs, 8 sent: 19 to 11 in flight */
	assert_int_equal(sm_cc_prr(&cc, 1, true, false, 18, 20, &(uint32_t){ 0 }, 0), 1);
	/* at ssthresh - 3 in flight: 2 delivered and the front moved: 3, to ssthresh */
	delivered = 30;
	assert_int_equal(sm_cc_prr(&cc, 2, false, true, 7, 20, &delivered, 31), 3);
	/* below, a newly lost segment: only what was delivered */
	delivered = 30;
	assert_int_equal(sm_cc_prr(&cc, 2, true, true, 7, 20, &delivered, 31), 2);
	/* nothing delivered: nothing more (the forced one only before any went) */
	assert_int_equal(sm_cc_prr(&cc, 0, false, false, 7, 20, &delivered, 31), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slow_start),
		cmocka_unit_test(test_window_use),
		cmocka_unit_test(test_reno),
		cmocka_unit_test(test_cubic_curve),
		cmocka_unit_test(test_cubic_reno_friendly),
		cmocka_unit_test(test_idle_restart),
		cmocka_unit_test(test_ss_rounds),
		cmocka_unit_test(test_ss_extra),
		cmocka_unit_test(test_prr),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
